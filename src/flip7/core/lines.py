"""A player's line (RULES.md §2, §4–5): Number cards and Modifiers, the duplicates that bust
it, and the seven Number cards of a Flip 7; judged on its own as ``flip7 score`` does.

>>> line = Line.parse("3 11 5 7 10 8 4 /2 -4".split())
>>> line.flip7(), line.busted(), line.score()
(True, False, 35)
>>> Line.parse(["1", "-10"]).score(brutal=True)
-9
>>> Line.parse(["0", "13"]).score()
0
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

from flip7.core.cards import VALUE, Card
from flip7.core.errors import CardError, LineError
from flip7.core.scoring import busted_score, round_score

__all__ = ["Line", "Status", "has_duplicate", "is_flip7"]

_LUCKY_13 = Card.LUCKY_13


class Status(IntEnum):
    """A player's state in the current round (RULES.md §2)."""

    ACTIVE = 0
    STAYED = 1
    BUSTED = 2

    def __str__(self) -> str:
        return self.name.lower()


def has_duplicate(numbers: Sequence[Card]) -> bool:
    """Whether a set of Number cards holds a duplicate that no exception allows (§4).

    Two 13s are a pair only when one is Lucky 13; a third 13 always busts. A line holding
    Unlucky 7 and a regular 7 has busted (the 7 can only have come after Unlucky 7).
    """
    seen: set[int] = set()
    thirteens = 0
    lucky = 0
    for card in numbers:
        value = VALUE[card]
        if value == 13:
            thirteens += 1
            lucky += card == _LUCKY_13
        elif value in seen:
            return True
        seen.add(value)
    return thirteens > 2 or (thirteens == 2 and lucky == 0)


def is_flip7(numbers: Sequence[Card], lucky13_pair_flip7_count: int = 2) -> bool:
    """Seven Number cards (a Lucky 13 pair counting as ``lucky13_pair_flip7_count``)."""
    if lucky13_pair_flip7_count == 2:
        return len(numbers) >= 7
    return len({VALUE[card] for card in numbers}) >= 7


@dataclass(frozen=True, slots=True)
class Line:
    """A line judged on its own, as ``flip7 score`` does: Number cards and Modifiers."""

    numbers: tuple[Card, ...]
    modifiers: tuple[Card, ...]

    @classmethod
    def parse(cls, codes: Iterable[str]) -> Line:
        """Read card codes into a line; Actions and more than 7 Number cards are errors."""
        numbers: list[Card] = []
        modifiers: list[Card] = []
        for code in codes:
            try:
                card = Card.parse(code)
            except CardError as exc:
                raise LineError(str(exc)) from None
            if card.is_action:
                raise LineError(
                    f"{card.code} is an Action card: Actions never stay in a line; "
                    "a line holds Number cards and Modifiers"
                )
            (numbers if card.is_number else modifiers).append(card)
        if len(numbers) > 7:
            raise LineError(
                f"a line holds at most 7 Number cards (the 7th ends the round), got {len(numbers)}"
            )
        return cls(tuple(numbers), tuple(modifiers))

    def busted(self) -> bool:
        return has_duplicate(self.numbers)

    def flip7(self, lucky13_pair_flip7_count: int = 2) -> bool:
        return not self.busted() and is_flip7(self.numbers, lucky13_pair_flip7_count)

    def score(self, *, brutal: bool = False, busted_modifiers_only: bool = True) -> int:
        if self.busted():
            return busted_score(self.modifiers, brutal=brutal, modifiers_only=busted_modifiers_only)
        return round_score(self.numbers, self.modifiers, flip7=self.flip7(), brutal=brutal)
