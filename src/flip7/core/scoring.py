"""Scoring (RULES.md §8 and §10): a round's score of a line, busted or not, and a completed
round's result.

>>> round_score([Card.FOUR, Card.EIGHT, Card.ELEVEN], [Card.DIVIDE_2, Card.MINUS_4], flip7=False)
7
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from flip7.core.cards import PENALTY, VALUE, Card

__all__ = ["FLIP7_BONUS", "RoundResult", "busted_score", "round_score"]

FLIP7_BONUS = 15
_DIVIDE_2 = Card.DIVIDE_2


def round_score(
    numbers: Iterable[Card],
    modifiers: Iterable[Card],
    *,
    flip7: bool,
    brutal: bool = False,
    bonus: bool = True,
) -> int:
    """The round score of a line that has not busted, in the mandatory order of §8.

    ``bonus`` is False when a Brutal Flip 7 took −15 on someone else instead (§10.3).

    >>> numbers = [Card.FOUR, Card.EIGHT, Card.ELEVEN]
    >>> round_score(numbers, [Card.DIVIDE_2, Card.MINUS_4], flip7=False)
    7
    """
    total = 0
    has_zero = False
    for card in numbers:
        total += VALUE[card]
        if card == 0:  # The Zero (plain ints work too)
            has_zero = True
    penalty = 0
    for card in modifiers:
        if card == _DIVIDE_2:
            total //= 2
        else:
            penalty += PENALTY[card]
    # Every halving comes before any subtraction, whatever order the cards arrived in.
    total -= penalty
    if total < 0 and not brutal:
        total = 0
    if flip7:
        if bonus:
            total += FLIP7_BONUS
    elif has_zero:
        total = 0
    return total


def busted_score(modifiers: Iterable[Card], *, brutal: bool, modifiers_only: bool) -> int:
    """A busted line's score: 0, except in Brutal with ``modifiers_only`` (§10.2), where
    the Modifiers apply to a base of 0 (÷2 does nothing, each −N subtracts N)."""
    if not (brutal and modifiers_only):
        return 0
    return -sum(PENALTY[card] for card in modifiers)


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One completed round, as in RECORD.md §6."""

    dealer: int
    scores: tuple[int, ...]
    busted: tuple[int, ...]
    flip7: int | None
    minus15: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "scores": list(self.scores),
            "busted": list(self.busted),
            "flip7": self.flip7,
            "minus15": self.minus15,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoundResult:
        return cls(
            dealer=data["dealer"],
            scores=tuple(data["scores"]),
            busted=tuple(data["busted"]),
            flip7=data["flip7"],
            minus15=data["minus15"],
        )
