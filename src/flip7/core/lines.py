"""A player's line (RULES.md §2, §4–5): Number cards and Modifiers, the duplicates that bust
it, Unlucky 7's wipe, and the seven Number cards of a Flip 7; judged on its own as
``flip7 score`` does.

The bust rule is written once, in :func:`busts` (one card arriving) on top of one rule for
the cards of a value (:func:`_too_many`); :func:`has_duplicate` and :func:`bust_reasons`
judge a whole set of Number cards by the same rule, and :func:`is_flip7` counts toward
Flip 7 with :func:`flip7_count`.

>>> line = Line.parse("3 11 5 7 10 8 4 /2 -4".split())
>>> line.flip7(), line.busted(), line.score()
(True, False, 35)
>>> Line.parse(["1", "-10"]).score(brutal=True)
-9
>>> Line.parse(["0", "13"]).score()
0
>>> busts([Card.THIRTEEN], Card.LUCKY_13), busts([Card.UNLUCKY_7], Card.SEVEN)
(False, True)
>>> bust_reasons([Card.FIVE, Card.UNLUCKY_7, Card.FIVE, Card.SEVEN])
['two 5s', 'Unlucky 7 and a 7']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

from flip7.core.cards import NUMBERS, VALUE, Card
from flip7.core.errors import CardError, LineError
from flip7.core.rules import Rules
from flip7.core.scoring import busted_score, round_score

__all__ = [
    "COPY_BUSTS",
    "FLIP7_CARDS",
    "MUST_HIT_CARD",
    "Line",
    "Status",
    "bust_reason",
    "bust_reason_code",
    "bust_reasons",
    "busting_draws",
    "busts",
    "flip7_count",
    "has_duplicate",
    "is_flip7",
    "must_hit",
    "receive",
    "wipes",
]

FLIP7_CARDS = 7
"""§5.1: seven Number cards in a line without busting are a Flip 7."""

MUST_HIT_CARD = Card.ZERO
"""§4.3.3: while The Zero is in a line, its holder must keep hitting (:func:`must_hit`)."""

_LUCKY_13 = Card.LUCKY_13
_UNLUCKY_7 = Card.UNLUCKY_7
_COUNT_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")
_ORDINALS = ("no", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
# For each card, the other Number card of the same value (Unlucky 7 and the 7, Lucky 13 and
# the 13), or None.
_TWIN: tuple[Card | None, ...] = tuple(
    next((c for c in NUMBERS if c is not card and VALUE[c] == VALUE[card]), None)
    if card.is_number
    else None
    for card in Card
)


class Status(IntEnum):
    """A player's state in the current round (RULES.md §2)."""

    ACTIVE = 0
    STAYED = 1
    BUSTED = 2

    def __str__(self) -> str:
        return self.name.lower()


def _too_many(value: int, same: int, lucky: int) -> bool:
    """Whether ``same`` Number cards of ``value`` in one line, ``lucky`` of them Lucky 13s,
    are a bust: any two cards of a value (§4.1; Unlucky 7 is a 7 once in the line, §4.4.3),
    except two 13s of which one is Lucky 13 (§4.5.1–2); a third 13 always busts."""
    if value == 13:
        return same > 2 or (same == 2 and not lucky)
    return same > 1


# For each card: whether two of it bust a line (the first question of busts()).
_PAIR_BUSTS: tuple[bool, ...] = tuple(_too_many(VALUE[card], 2, 0) for card in Card)

COPY_BUSTS: tuple[bool, ...] = tuple(
    card.is_number and _TWIN[card] is None and _PAIR_BUSTS[card] for card in Card
)
"""For each card (by its index): whether it is a Number card that no other card matches in
value, so that :func:`busts` is exactly "a copy of it is already in the line" (every Number
card but the 7s and the 13s). The engine's hot loop asks this table, not a list of its own.

>>> COPY_BUSTS[Card.FIVE], COPY_BUSTS[Card.SEVEN], COPY_BUSTS[Card.LUCKY_13]
(True, False, False)
"""


def busts(numbers: Sequence[Card], card: Card) -> bool:
    """Whether Number card ``card`` arriving busts a line of ``numbers`` that has not
    busted (§4.1, §4.4.3, §4.5). An Unlucky 7 that wipes the line (:func:`wipes`) never
    busts it: the wipe comes first (§4.4.2)."""
    if COPY_BUSTS[card]:
        return card in numbers
    twin = _TWIN[card]
    if twin is None or (card not in numbers and twin not in numbers):
        return False  # not a Number card, or the first of its value: one card never busts
    same = 1 + numbers.count(card) + numbers.count(twin)
    value = VALUE[card]
    lucky = (card is _LUCKY_13) + numbers.count(_LUCKY_13) if value == 13 else 0
    return _too_many(value, same, lucky)


def _groups(numbers: Iterable[Card]) -> tuple[Counter[int], int]:
    cards = list(numbers)
    return Counter(VALUE[c] for c in cards), cards.count(_LUCKY_13)


def has_duplicate(numbers: Sequence[Card]) -> bool:
    """Whether a set of Number cards holds a duplicate that no exception allows (§4).

    Two 13s are a pair only when one is Lucky 13; a third 13 always busts. A line holding
    Unlucky 7 and a regular 7 has busted (the 7 can only have come after Unlucky 7).
    """
    values, lucky = _groups(numbers)
    return any(_too_many(v, k, lucky if v == 13 else 0) for v, k in values.items())


def _count_word(n: int) -> str:
    return _COUNT_WORDS[n] if n < len(_COUNT_WORDS) else str(n)


def bust_reasons(numbers: Sequence[Card]) -> list[str]:
    """Why a set of Number cards is a bust, one reason per value (none if it is not):
    ``two 5s``, ``Unlucky 7 and a 7``, ``two 13s without Lucky 13``, ``three 13s``."""
    values, lucky = _groups(numbers)
    unlucky = list(numbers).count(_UNLUCKY_7)
    reasons = []
    for value in sorted(values):
        k = values[value]
        if not _too_many(value, k, lucky if value == 13 else 0):
            continue
        if value == 7 and unlucky == 1:
            reasons.append("Unlucky 7 and " + ("a 7" if k == 2 else f"{k - 1} 7s"))
        elif value == 7 and unlucky == k:
            reasons.append(f"{_count_word(k)} Unlucky 7s")
        elif value == 13 and k == 2:
            reasons.append("two 13s without Lucky 13")
        else:
            reasons.append(f"{_count_word(k)} {value}s")
    return reasons


def _ordinal(n: int) -> str:
    return _ORDINALS[n] if n < len(_ORDINALS) else f"{n}th"


def bust_reason(numbers: Sequence[Card], card: Card) -> str:
    """Why Number card ``card`` arriving busts a line of ``numbers`` (as :func:`busts`
    judges it), in a few words for a log: ``a second 10``, ``a 7 beside Unlucky 7``,
    ``a second 13 without Lucky 13``, ``a third 13``. :class:`LineError` if it does not bust.

    >>> bust_reason([Card.TEN, Card.THREE], Card.TEN), bust_reason([Card.UNLUCKY_7], Card.SEVEN)
    ('a second 10', 'a 7 beside Unlucky 7')
    >>> bust_reason([Card.THIRTEEN], Card.THIRTEEN)
    'a second 13 without Lucky 13'
    >>> bust_reason([Card.LUCKY_13, Card.THIRTEEN], Card.THIRTEEN)
    'a third 13'
    """
    code = bust_reason_code(numbers, card)
    if code.startswith("copy_"):
        name = "Zero" if card is Card.ZERO else str(VALUE[card])
        return f"a {_ordinal(int(code[5:]))} {name}"
    return _BUST_WORDS[code]


_BUST_WORDS = {
    "second_13": "a second 13 without Lucky 13",
    "second_unlucky7": "a second Unlucky 7",
    "unlucky7_beside_7": "Unlucky 7 beside a 7",
    "7_beside_unlucky7": "a 7 beside Unlucky 7",
}


def bust_reason_code(numbers: Sequence[Card], card: Card) -> str:
    """:func:`bust_reason` as a code, for clients that say it in their own words (the
    events' ``reason_code``): ``second_13``, ``second_unlucky7``, ``unlucky7_beside_7``,
    ``7_beside_unlucky7``, or ``copy_<n>`` (the card is the n-th of its value: "a second
    10" is ``copy_2``). :class:`LineError` if it does not bust.

    >>> bust_reason_code([Card.TEN, Card.THREE], Card.TEN)
    'copy_2'
    >>> bust_reason_code([Card.THIRTEEN], Card.THIRTEEN)
    'second_13'
    """
    if not card.is_number or not busts(numbers, card):
        raise LineError(
            f"{card.code} does not bust a line of {' '.join(c.code for c in numbers) or 'no cards'}"
            "; only a Number card whose value the line already holds busts it (RULES.md §4.1)"
        )
    value = VALUE[card]
    twin = _TWIN[card]
    held = numbers.count(card) + (numbers.count(twin) if twin is not None else 0)
    if value == 13 and held == 1 and _LUCKY_13 not in numbers and card is not _LUCKY_13:
        return "second_13"
    if card is _UNLUCKY_7:
        # Only an Unlucky 7 that does not wipe can bust (§4.4.5, by Steal or Swap).
        return "second_unlucky7" if _UNLUCKY_7 in numbers else "unlucky7_beside_7"
    if value == 7 and _UNLUCKY_7 in numbers:
        return "7_beside_unlucky7"
    return f"copy_{held + 1}"


def flip7_count(numbers: Sequence[Card], lucky13_pair_flip7_count: int = 2) -> int:
    """How many of a line's Number cards count toward Flip 7: every one (a pair of 13s
    counting two, §4.5.4), or with ``lucky13_pair_flip7_count = 1`` one per value (§5.5)."""
    if lucky13_pair_flip7_count == 2:
        return len(numbers)
    return len({VALUE[card] for card in numbers})


def is_flip7(numbers: Sequence[Card], lucky13_pair_flip7_count: int = 2) -> bool:
    """Seven Number cards (a Lucky 13 pair counting as ``lucky13_pair_flip7_count``), §5.1."""
    return flip7_count(numbers, lucky13_pair_flip7_count) >= FLIP7_CARDS


def wipes(card: Card, rules: Rules, *, transfer: bool = False) -> bool:
    """Whether ``card`` arriving wipes the line (§4.4.1): Unlucky 7, drawn or dealt, or by
    Steal or Swap (``transfer``) unless ``unlucky7_triggers_on_transfer`` is off (§4.4.5)."""
    return card is _UNLUCKY_7 and (not transfer or rules.unlucky7_triggers_on_transfer)


def receive(
    numbers: list[Card],
    modifiers: list[Card],
    card: Card,
    rules: Rules,
    *,
    transfer: bool = False,
) -> tuple[bool, list[Card]]:
    """``card`` (a Number or a Modifier) enters a line that has not busted, by any route
    (§2.5): a Modifier joins the Modifiers (§7.1); an Unlucky 7 that :func:`wipes` leaves
    the line alone in it (§4.4.1); any other Number card joins the numbers (§4.1). Returns
    whether the line busted and the cards the wipe took (for the discard pile). The Flip 7
    check (:func:`is_flip7`) is the caller's, once every placement is done (§6.5.4).

    >>> numbers, modifiers = [Card.SEVEN, Card.NINE], [Card.MINUS_2]
    >>> receive(numbers, modifiers, Card.UNLUCKY_7, Rules()), numbers, modifiers
    ((False, [Card.SEVEN, Card.NINE, Card.MINUS_2]), [Card.UNLUCKY_7], [])
    """
    if not card.is_number:
        modifiers.append(card)
        return False, []
    if wipes(card, rules, transfer=transfer):
        wiped = numbers + modifiers
        numbers[:] = [card]
        modifiers.clear()
        return False, wiped
    busted = busts(numbers, card)
    numbers.append(card)
    return busted, []


def must_hit(numbers: Sequence[Card], modifiers: Sequence[Card], rules: Rules) -> str | None:
    """Why the holder of a line may not choose Stay, or ``None``: The Zero in it (§4.3.3),
    or no card at all unless ``can_stay_with_empty_line`` (§3.2.3)."""
    if MUST_HIT_CARD in numbers:
        return "The Zero in the line forces a hit"
    if not numbers and not modifiers and not rules.can_stay_with_empty_line:
        return "an empty line cannot stay"
    return None


def busting_draws(numbers: Sequence[Card]) -> tuple[Card, ...]:
    """The Number cards that bust a line of ``numbers`` if drawn next: :func:`busts`, less
    Unlucky 7, which wipes a line when drawn (§4.4.2)."""
    return tuple(card for card in NUMBERS if card is not _UNLUCKY_7 and busts(numbers, card))


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
        if len(numbers) > FLIP7_CARDS:
            raise LineError(
                f"a line holds at most {FLIP7_CARDS} Number cards (the {FLIP7_CARDS}th ends "
                f"the round), got {len(numbers)}"
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
