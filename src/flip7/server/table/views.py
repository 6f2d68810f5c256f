"""What one seat (or a spectator) is sent of a game: the engine's view, plus the seat's
options as objects and its bust risk.

The live table (:mod:`flip7.server.table.table`) and the replay worker
(:mod:`flip7.server.services.replay_worker`, a seat's replay) both build a seat's view here, so that
a replay from a seat's point of view is exactly what that seat was sent at the time. It
imports only the engine and the advisor: the replay worker process stays small.

>>> from flip7.engine.game import Game
>>> game = Game.new(3, explicit=True, dealer=2)
>>> for code in ["12", "5", "9"]:
...     _ = game.draw(code)
>>> view = seat_view(game, 0)
>>> view["viewer"], view["legal_decisions"], round(view["bust_risk"], 4)
(0, ['hit', 'stay'], 0.1048)
>>> "bust_risk" in seat_view(game, 0, bust_odds=False), "bust_risk" in seat_view(game, 1)
(False, False)
>>> view["decisions"]
[{'text': 'hit', 'verb': 'hit'}, {'text': 'stay', 'verb': 'stay'}]
>>> seat_view(game, 1)["legal_decisions"], seat_view(game, None)["viewer"]
([], None)
>>> "decisions" in seat_view(game, 1)
False
"""

from __future__ import annotations

import contextlib

from flip7.analysis.advisor import bust_risk
from flip7.core.decisions import DecisionKind
from flip7.core.errors import Flip7Error
from flip7.core.jsontypes import JSONObject
from flip7.engine.game import Game

__all__ = ["seat_view"]


def seat_view(game: Game, seat: int | None, bust_odds: bool = True) -> JSONObject:
    """The view of ``seat`` (None: a spectator) as JSON: its legal options when it must
    decide, as the engine's strings (``legal_decisions``) and beside them as objects in the
    same order (``decisions``: each decision's ``to_json``, so that no client reads the
    strings again), and then at a Hit or Stay its bust risk, unless the table plays without
    bust odds (``bust_odds`` False: the risk is never sent). No other seat's options or risk."""
    view = game.view(seat)
    data = view.to_json()
    if view.legal_decisions:
        data["decisions"] = [d.to_json() for d in view.legal_decisions]
    if (
        bust_odds
        and seat is not None
        and seat == game.to_decide
        and game.decision_kind is DecisionKind.HIT_OR_STAY
    ):
        with contextlib.suppress(Flip7Error):  # a line the advisor cannot model
            data["bust_risk"] = float(bust_risk(view, seat))
    return data
