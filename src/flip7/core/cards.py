"""The 108 cards of *Flip 7: With a Vengeance* and their codes (RECORD.md §1).

>>> Card.parse("l13")
Card.LUCKY_13
>>> str(Card.DIVIDE_2), Card.parse("÷2") is Card.DIVIDE_2, Card.parse("−4").code
('/2', True, '-4')
>>> Card.UNLUCKY_7.value_points, Card.UNLUCKY_7.is_number, Card.STEAL.kind
(7, True, <CardKind.ACTION: 'action'>)
>>> len(new_deck()), len(new_deck(2))
(108, 216)
"""

from __future__ import annotations

from collections import Counter
from enum import Enum, IntEnum

from flip7.core.errors import CardError

__all__ = [
    "ACTIONS",
    "FLIP_FOUR_CARDS",
    "MODIFIERS",
    "NUMBERS",
    "PENALTY",
    "VALUE",
    "Card",
    "CardKind",
    "deck_counts",
    "new_deck",
    "parse_cards",
]


# §6.3.1: a Flip Four!'s target receives the next four cards, one at a time.
FLIP_FOUR_CARDS = 4


class CardKind(Enum):
    """The three groups of cards (RULES.md §1.1)."""

    NUMBER = "number"
    MODIFIER = "modifier"
    ACTION = "action"


class Card(IntEnum):
    """One card face. Values 0–13 are the plain Number cards of that value."""

    ZERO = 0
    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    ELEVEN = 11
    TWELVE = 12
    THIRTEEN = 13
    UNLUCKY_7 = 14
    LUCKY_13 = 15
    DIVIDE_2 = 16
    MINUS_2 = 17
    MINUS_4 = 18
    MINUS_6 = 19
    MINUS_8 = 20
    MINUS_10 = 21
    JUST_ONE_MORE = 22
    FLIP_FOUR = 23
    STEAL = 24
    SWAP = 25
    DISCARD = 26

    @property
    def code(self) -> str:
        """The canonical code of RECORD.md §1."""
        return CODE[self]

    @property
    def kind(self) -> CardKind:
        return KIND[self]

    @property
    def is_number(self) -> bool:
        return self <= Card.LUCKY_13

    @property
    def is_modifier(self) -> bool:
        return Card.DIVIDE_2 <= self <= Card.MINUS_10

    @property
    def is_action(self) -> bool:
        return self >= Card.JUST_ONE_MORE

    @property
    def value_points(self) -> int:
        """The face value of a Number card (Unlucky 7 is 7, Lucky 13 is 13); 0 otherwise."""
        return VALUE[self]

    @property
    def penalty(self) -> int:
        """What a minus Modifier subtracts (``-4`` → 4); 0 for every other card."""
        return PENALTY[self]

    def __str__(self) -> str:
        return CODE[self]

    def __repr__(self) -> str:
        # Reconstructible: a repr that reads back as the same card.
        return f"Card.{self.name}"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card code: case-insensitive, ``÷2`` for ``/2`` and ``−`` for ``-`` accepted."""
        if not isinstance(text, str):
            raise CardError(f"a card code must be a string, not {text!r}")
        key = text.strip().upper().replace("÷", "/").replace("−", "-")
        card = _BY_CODE.get(key)
        if card is None:
            raise CardError(
                f"unknown card code {text!r}; codes are 0-13, U7, L13, /2, -2, -4, -6, -8, -10, "
                "JOM, FLIP4, STEAL, SWAP, DISCARD"
            )
        return card


CODE: tuple[str, ...] = (
    *(str(v) for v in range(14)),
    "U7", "L13", "/2", "-2", "-4", "-6", "-8", "-10",
    "JOM", "FLIP4", "STEAL", "SWAP", "DISCARD",
)  # fmt: skip
_BY_CODE: dict[str, Card] = {code: Card(i) for i, code in enumerate(CODE)}

VALUE: tuple[int, ...] = (*range(14), 7, 13, *(0,) * 11)
PENALTY: tuple[int, ...] = (*(0,) * 17, 2, 4, 6, 8, 10, *(0,) * 5)
KIND: tuple[CardKind, ...] = (
    *(CardKind.NUMBER,) * 16,
    *(CardKind.MODIFIER,) * 6,
    *(CardKind.ACTION,) * 5,
)

NUMBERS: tuple[Card, ...] = tuple(c for c in Card if c.is_number)
MODIFIERS: tuple[Card, ...] = tuple(c for c in Card if c.is_modifier)
ACTIONS: tuple[Card, ...] = tuple(c for c in Card if c.is_action)

_ONE_DECK: dict[Card, int] = {
    Card.ZERO: 1,
    **{Card(v): v for v in range(1, 13)},
    Card.SEVEN: 6,
    Card.THIRTEEN: 12,
    Card.UNLUCKY_7: 1,
    Card.LUCKY_13: 1,
    **{c: 1 for c in MODIFIERS},
    **{c: 2 for c in ACTIONS},
}


def deck_counts(decks: int = 1) -> Counter[Card]:
    """How many of each card ``decks`` decks hold (RULES.md §1.1).

    >>> deck_counts()[Card.SEVEN], deck_counts()[Card.THIRTEEN], deck_counts(2)[Card.STEAL]
    (6, 12, 4)
    """
    return Counter({card: n * decks for card, n in _ONE_DECK.items()})


def new_deck(decks: int = 1) -> list[Card]:
    """All the cards of ``decks`` decks, in canonical (unshuffled) order."""
    return [card for card, n in _ONE_DECK.items() for _ in range(n * decks)]


def parse_cards(codes: list[str] | tuple[str, ...]) -> list[Card]:
    """Parse several card codes; the first bad one raises :class:`CardError`."""
    return [Card.parse(code) for code in codes]
