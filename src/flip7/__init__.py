"""flip7: *Flip 7: With a Vengeance*, exact to the rules, with records, replay and bots.

The package's folders are its layers (``docs/architecture.md``): :mod:`flip7.core` (the
rules, once), :mod:`flip7.engine` (the game), :mod:`flip7.analysis` (exact odds),
:mod:`flip7.scorekeeper`, then bots, tournaments, the server, its clients and the CLI. This
module names the engine's public API; importing it loads only the standard library.

>>> import flip7
>>> game = flip7.Game.new(["Ann", "Bob", "Cyd"], seed=42)
>>> game.to_decide in (0, 1, 2)
True
>>> flip7.Line.parse(["3", "11", "5", "7", "10", "8", "4", "/2", "-4"]).score()
35

Each public name is loaded on first use:

>>> sorted(_LAZY) == sorted(__all__)
True
"""

import importlib
import importlib.machinery
import sys
import types
from typing import TYPE_CHECKING, cast

from flip7.core.lazy import LazyNames

if TYPE_CHECKING:
    import importlib.abc

    from flip7.core.cards import Card, CardKind, deck_counts, new_deck, parse_cards
    from flip7.core.decisions import (
        BONUS,
        HIT,
        STAY,
        Bonus,
        Decision,
        DecisionKind,
        Discard,
        Give,
        Hit,
        Minus,
        Pass,
        Stay,
        Steal,
        Swap,
        Target,
        parse_decision,
    )
    from flip7.core.errors import (
        CardError,
        DecisionError,
        Flip7Error,
        GameStateError,
        LineError,
        RecordError,
        RulesError,
    )
    from flip7.core.lines import Line
    from flip7.core.rules import Rules
    from flip7.core.scoring import round_score
    from flip7.engine.game import Game, Phase, RoundResult, Status
    from flip7.engine.record import Record, ReplayResult, replay, replay_events, replay_game
    from flip7.engine.view import GameView, SeatView

# The public names load their modules on first use (PEP 562), so that ``import flip7`` (and
# every command of ``flip7``, which lives in this package) pays only for what it touches:
# ``flip7 score`` never loads the engine.
_PUBLIC = {
    "flip7.core.cards": "Card CardKind deck_counts new_deck parse_cards",
    "flip7.core.decisions": "BONUS HIT STAY Bonus Decision DecisionKind Discard Give Hit Minus "
    "Pass Stay Steal Swap Target parse_decision",
    "flip7.core.errors": "CardError DecisionError Flip7Error GameStateError LineError "
    "RecordError RulesError",
    "flip7.core.lines": "Line",
    "flip7.core.rules": "Rules",
    "flip7.core.scoring": "round_score",
    "flip7.engine.game": "Game Phase RoundResult Status",
    "flip7.engine.record": "Record ReplayResult replay replay_events replay_game",
    "flip7.engine.view": "GameView SeatView",
}
_LAZY = LazyNames(globals(), _PUBLIC)


def __getattr__(name: str) -> object:
    return _LAZY.attribute(name)


def __dir__() -> list[str]:
    return _LAZY.dir()


__version__ = "0.1.0"

# Modules that moved into the layer folders still import under their first names, so that
# code written against them (``from flip7.advisor import advise``) keeps working.
_MOVED = {
    "flip7.advisor": "flip7.analysis.advisor",
    "flip7.cards": "flip7.core.cards",
    "flip7.decisions": "flip7.core.decisions",
    "flip7.errors": "flip7.core.errors",
    "flip7.events": "flip7.core.events",
    "flip7.game": "flip7.engine.game",
    "flip7.record": "flip7.engine.record",
    "flip7.rules": "flip7.core.rules",
    "flip7.scorecard": "flip7.scorekeeper.scorecard",
    "flip7.scoring": "flip7.core.scoring",
    "flip7.sim": "flip7.tournament.selfplay",
    "flip7.solver": "flip7.analysis.solver",
    "flip7.view": "flip7.engine.view",
}


class _MovedModules:
    """Imports a moved module's old name as the very module at its new place (a finder and
    loader by their methods: the importlib.abc bases would cost every start-up
    importlib.resources)."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, cast("importlib.abc.Loader", self))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = importlib.import_module(_MOVED[spec.name])
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        # The module has run at its new place, under its new name: the import machinery
        # has just given it the old name's spec, so it gets its own back.
        old = module.__spec__
        if old is not None and old.loader_state is not None:
            module.__spec__ = old.loader_state


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())

__all__ = [
    "BONUS",
    "HIT",
    "STAY",
    "Bonus",
    "Card",
    "CardError",
    "CardKind",
    "Decision",
    "DecisionError",
    "DecisionKind",
    "Discard",
    "Flip7Error",
    "Game",
    "GameStateError",
    "GameView",
    "Give",
    "Hit",
    "Line",
    "LineError",
    "Minus",
    "Pass",
    "Phase",
    "Record",
    "RecordError",
    "ReplayResult",
    "RoundResult",
    "Rules",
    "RulesError",
    "SeatView",
    "Status",
    "Stay",
    "Steal",
    "Swap",
    "Target",
    "deck_counts",
    "new_deck",
    "parse_cards",
    "parse_decision",
    "replay",
    "replay_events",
    "replay_game",
    "round_score",
]
