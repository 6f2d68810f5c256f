"""What the environments share besides the encodings: reading rule options, the rewards,
the choice on an illegal action, and a text picture of a seat's view.

>>> as_rules({"target_score": 50}).target_score
50
>>> as_rules(None) == Rules()
True
>>> from flip7 import Game
>>> game = Game.new(3, Rules(target_score=1), seed=2)
>>> while not game.over:
...     _ = game.apply(game.legal_decisions()[0])
>>> sum(win_shares(game)), len(win_shares(game))
(1.0, 3)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from flip7.core.errors import Flip7Error
from flip7.core.rules import Rules
from flip7.engine.game import Game
from flip7.engine.view import GameView

__all__ = [
    "ILLEGAL_CHOICES",
    "REWARDS",
    "IllegalChoice",
    "RewardKind",
    "as_rules",
    "check_choice",
    "render_view",
    "win_shares",
]

RewardKind = Literal["win", "score"]
IllegalChoice = Literal["terminate", "raise"]
REWARDS: tuple[RewardKind, ...] = ("win", "score")
ILLEGAL_CHOICES: tuple[IllegalChoice, ...] = ("terminate", "raise")


def as_rules(rules: Rules | Mapping[str, Any] | None) -> Rules:
    """Rule options as :class:`Rules`: given as they are, as a ``{"option": value}`` mapping
    (RULES.md §13 names; what ``gymnasium.make(..., rules={...})`` passes), or the defaults."""
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, Mapping):
        return Rules.from_json(dict(rules))
    raise Flip7Error(f"rules must be a Rules or a mapping of rule options, not {rules!r}")


def check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    """A :class:`Flip7Error` when ``value`` is not one of ``allowed``."""
    if value not in allowed:
        raise Flip7Error(f"{name} must be one of {', '.join(allowed)}; got {value!r}")


def win_shares(game: Game) -> list[float]:
    """Each seat's share of the win of a finished game: 1 for a sole winner, 1/k to each of
    k winners sharing it (``tie_break = "shared_win"``), 0 otherwise; all 0 before the end."""
    shares = [0.0] * game.n
    for seat in game.winners:
        shares[seat] = 1.0 / len(game.winners)
    return shares


def render_view(view: GameView) -> str:
    """A few lines of text: the round, each seat's status, line, Modifiers and total."""
    rows = [f"round {view.round}, dealer {view.dealer}, draw pile {view.draw_pile_size}"]
    for p in view.players:
        mark = "*" if p.seat == view.to_decide else " "
        line = " ".join(c.code for c in p.line) or "-"
        mods = " ".join(c.code for c in p.modifiers)
        rows.append(
            f"{mark}{p.seat} {p.name:<8} {p.status!s:<7} {line}"
            + (f" [{mods}]" if mods else "")
            + f"  ({p.round_score}, total {p.total})"
        )
    if view.over:
        rows.append("winners: " + ", ".join(str(s) for s in view.winners))
    elif view.decision_kind is not None:
        about = f" ({view.pending_card.code})" if view.pending_card is not None else ""
        rows.append(f"seat {view.to_decide} decides: {view.decision_kind.value}{about}")
    return "\n".join(rows)
