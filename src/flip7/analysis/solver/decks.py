"""The decks of Number cards a solitaire is played with: :class:`Deck`, :data:`DECKS`."""

from __future__ import annotations

from dataclasses import dataclass

from flip7.analysis.solver.lines import _SEVEN, _THIRTEEN
from flip7.core.errors import Flip7Error

__all__ = ["DECKS", "Deck"]


@dataclass(frozen=True, slots=True)
class Deck:
    """A deck of Number cards: counts by slot (0 the deck's 0, 1..13, 14 Unlucky 7, 15 Lucky
    13) and whether its 0 is The Zero."""

    name: str
    counts: tuple[int, ...]
    the_zero: bool

    @classmethod
    def vengeance(cls) -> Deck:
        """The 92 Number cards of *Flip 7: With a Vengeance* (RULES.md §1.1)."""
        counts = [1, *range(1, 14), 1, 1]
        counts[_SEVEN] = 6
        counts[_THIRTEEN] = 12
        return cls("vengeance", tuple(counts), True)

    @classmethod
    def base_numbers(cls) -> Deck:
        """The original Flip 7's 79 Number cards: 0–12, value n with n copies, one 0."""
        return cls("base-numbers", (1, *range(1, 13), 0, 0, 0), False)

    @property
    def size(self) -> int:
        return sum(self.counts)


DECKS: dict[str, Deck] = {"vengeance": Deck.vengeance(), "base-numbers": Deck.base_numbers()}


def _deck(deck: str | Deck) -> Deck:
    if isinstance(deck, str):
        if deck not in DECKS:
            raise Flip7Error(f"unknown deck {deck!r}; decks are {', '.join(DECKS)}")
        return DECKS[deck]
    return deck
