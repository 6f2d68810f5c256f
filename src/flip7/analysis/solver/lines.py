"""Number cards as slots, and a line of them as a small int: its key (RULES.md §4).

A Number card is a *slot* 0..15, the same numbers as :class:`~flip7.core.cards.Card`: 0
is the deck's 0 (The Zero in Vengeance, a plain 0 in the base deck), 1..13 the regular
values, 14 Unlucky 7, 15 Lucky 13. A line is a small int (its *key*)::

  bits 0..13   value v is in the line (a 7 of either kind sets bit 7, either 13 bit 13)
  bit 14       the 7 in the line is Unlucky 7
  bits 15..16  the 13s, when bit 13 is set: 0 a regular 13, 1 Lucky 13, 2 a regular 13
               and Lucky 13, 3 two Lucky 13s (two decks)

Order does not matter, except that Unlucky 7 wipes what came before it, and the key of a
line that holds Unlucky 7 describes the line after the wipe. Every model of the solver
reads and builds its lines through these keys.
"""

from __future__ import annotations

from collections.abc import Iterable

from flip7.core.cards import VALUE, Card
from flip7.core.errors import Flip7Error
from flip7.core.lines import FLIP7_CARDS

__all__ = [
    "BUST",
    "LINE_BITS",
    "LINE_MASK",
    "NUMBER_SLOTS",
    "U7_LINE",
    "flip7_reached",
    "key_cards",
    "line_key",
    "receive",
]

NUMBER_SLOTS = 16
_U7 = int(Card.UNLUCKY_7)
_L13 = int(Card.LUCKY_13)
_SEVEN = 7
_THIRTEEN = 13
_VALUES_MASK = (1 << 14) - 1
_U7_FLAG = 1 << 14
_C13_SHIFT = 15
LINE_BITS = 17
LINE_MASK = (1 << LINE_BITS) - 1
BUST = -1
U7_LINE = (1 << _SEVEN) | _U7_FLAG


def _add(key: int, slot: int) -> int:
    """The line after receiving a Number card of ``slot``: its key, or ``BUST``.
    Unlucky 7 gives the wiped line {Unlucky 7} (§4.4): the caller does the wipe."""
    if slot == _U7:
        return U7_LINE
    if slot in (_THIRTEEN, _L13):
        lucky = slot == _L13
        if not key & (1 << 13):
            return key | (1 << 13) | ((1 if lucky else 0) << _C13_SHIFT)
        code = (key >> _C13_SHIFT) & 3
        if code == 0 and lucky:  # regular 13, then Lucky 13
            return (key & ~(3 << _C13_SHIFT)) | (2 << _C13_SHIFT)
        if code == 1:  # Lucky 13, then a regular 13 or another Lucky 13
            return (key & ~(3 << _C13_SHIFT)) | ((3 if lucky else 2) << _C13_SHIFT)
        return BUST  # two regular 13s, or a third 13 (§4.5)
    if key & (1 << slot):
        return BUST  # also a regular 7 after Unlucky 7 (§4.4.3)
    return key | (1 << slot)


def receive(key: int, card: Card | int) -> int:
    """The line key after ``key``'s line receives the Number card ``card`` (§4): the new key,
    or ``BUST``. Unlucky 7 gives {Unlucky 7}: the wipe of §4.4.

    >>> receive(line_key([5, 9]), Card.NINE) == BUST, receive(line_key([13]), Card.LUCKY_13) > 0
    (True, True)
    """
    return _add(key, int(card))


def flip7_reached(key: int, *, distinct: bool = False) -> bool:
    """Whether a line key holds Flip 7: seven Number cards, or with ``distinct``
    (``lucky13_pair_flip7_count = 1``) seven different values (§4.5.4, §5.1)."""
    return (_distinct(key) if distinct else _count(key)) >= FLIP7_CARDS


def _pair(key: int) -> bool:
    return bool(key & (1 << 13)) and (key >> _C13_SHIFT) & 3 >= 2


def _count(key: int) -> int:
    """Number cards in the line (a 13 pair is two cards)."""
    return (key & _VALUES_MASK).bit_count() + (1 if _pair(key) else 0)


def _distinct(key: int) -> int:
    return (key & _VALUES_MASK).bit_count()


# The values' sum of seven bits of a key (values 0..6, then 7..13), by those bits.
_LOW_SUMS = [sum(v for v in range(7) if bits >> v & 1) for bits in range(128)]
_HIGH_SUMS = [sum(v + 7 for v in range(7) if bits >> v & 1) for bits in range(128)]


def _sum(key: int) -> int:
    total = _LOW_SUMS[key & 127] + _HIGH_SUMS[key >> 7 & 127]
    return total + (13 if _pair(key) else 0)


def line_key(cards: Iterable[Card | int]) -> int:
    """The key of a line of Number cards, received in the order given; a bust is an error.

    >>> line_key([Card.FIVE, Card.THIRTEEN, Card.LUCKY_13]) == line_key([13, 15, 5])
    True
    >>> line_key([Card.SEVEN, Card.NINE, Card.UNLUCKY_7]) == line_key([Card.UNLUCKY_7])
    True
    """
    key = 0
    for card in cards:
        slot = int(card)
        if not 0 <= slot < NUMBER_SLOTS:
            raise Flip7Error(f"{Card(slot).code} is not a Number card")
        key = _add(key, slot)
        if key == BUST:
            raise Flip7Error(f"{Card(slot).code} busts the line: a line never holds a duplicate")
    return key


def key_cards(key: int) -> list[Card]:
    """The Number cards of a line key, in slot order.

    >>> [c.code for c in key_cards(line_key([Card.LUCKY_13, Card.THIRTEEN, Card.UNLUCKY_7, 2]))]
    ['2', 'U7']
    """
    cards: list[Card] = []
    for v in range(14):
        if not key >> v & 1:
            continue
        if v == _SEVEN and key & _U7_FLAG:
            cards.append(Card.UNLUCKY_7)
        elif v == _THIRTEEN:
            code = (key >> _C13_SHIFT) & 3
            cards.extend(
                ([Card.THIRTEEN], [Card.LUCKY_13], [Card.THIRTEEN, Card.LUCKY_13],
                 [Card.LUCKY_13, Card.LUCKY_13])[code]
            )  # fmt: skip
        else:
            cards.append(Card(v))
    cards.sort(key=lambda c: (VALUE[c], c))
    return cards


_SUMS: dict[int, int] = {}


def _line_sum(line: int) -> int:
    total = _SUMS.get(line)
    if total is None:
        total = _SUMS[line] = _sum(line)
    return total


def _held(line: int) -> list[int]:
    """The line's Number cards, counted by slot."""
    held = [(line >> v) & 1 for v in range(14)] + [0, 0]
    if line & _U7_FLAG:
        held[_SEVEN], held[_U7] = 0, 1
    if line & (1 << _THIRTEEN):
        held[_THIRTEEN], held[_L13] = ((1, 0), (0, 1), (1, 1), (0, 2))[line >> _C13_SHIFT & 3]
    return held


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


def _thirteen_options(line: int) -> list[tuple[int, int, int]]:
    """(regular 13s, Lucky 13s, pair kind) one phase may add to a line (§4.5). Pair kind:
    0 no pair completed, 1 both 13s of a pair added, 2 a 13 pairs with the line's 13."""
    if not line & (1 << 13):
        return [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 1), (0, 2, 1)]
    code = (line >> _C13_SHIFT) & 3
    if code == 0:
        return [(0, 0, 0), (0, 1, 2)]
    if code == 1:
        return [(0, 0, 0), (1, 0, 2), (0, 1, 2)]
    return [(0, 0, 0)]
