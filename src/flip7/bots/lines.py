"""Line arithmetic for the bots: scores of line keys, the one-card lookahead, and what an
Active line is worth if its player plays on.

Lines are the keys of :mod:`flip7.analysis.solver` (a set of values, with the Unlucky 7 and the
13s marked): order does not matter except for Unlucky 7's wipe, which the key already
reflects.

>>> from flip7.core.cards import Card
>>> key = line_key([Card.TEN, Card.TWELVE, Card.THIRTEEN])
>>> key_sum(key), key_count(key), score(key, divides=1, penalty=4)
(35, 3, 13)
>>> round(continuation(line_key([Card.TEN, Card.TWELVE])), 2)   # 22 now, a bust in 26%
23.29
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from flip7.analysis.solver import (
    BUST,
    NUMBER_SLOTS,
    U7_LINE,
    Deck,
    flip7_reached,
    key_cards,
    line_key,
    receive,
)
from flip7.core.cards import MODIFIERS, PENALTY, VALUE, Card
from flip7.core.lines import FLIP7_CARDS
from flip7.core.scoring import FLIP7_BONUS, total_score

__all__ = [
    "BUST",
    "FLIP7_BONUS",
    "MODEL_THRESHOLD",
    "NUMBER_SLOTS",
    "U7_LINE",
    "continuation",
    "future",
    "gain_after",
    "hit_once",
    "key_count",
    "key_sum",
    "line_key",
    "modifier_effects",
    "receive",
    "score",
    "try_key",
]

_VALUES = (1 << 14) - 1
_U7 = int(Card.UNLUCKY_7)
_FIRST_MODIFIER = int(Card.DIVIDE_2)
_MODIFIER_SLOTS = range(_FIRST_MODIFIER, _FIRST_MODIFIER + len(MODIFIERS))
_PENALTIES = tuple(PENALTY[c] for c in MODIFIERS)
# The threshold the continuation of other players' lines is modelled with.
MODEL_THRESHOLD = 27


@functools.lru_cache(maxsize=1 << 16)
def key_sum(key: int) -> int:
    """The number sum of a line key (a Lucky 13 pair counts both 13s)."""
    total = sum(v for v in range(14) if key >> v & 1)
    return total + (13 if key >> 13 & 1 and (key >> 15) & 3 >= 2 else 0)


def key_count(key: int) -> int:
    """How many Number cards a line key holds."""
    return (key & _VALUES).bit_count() + (1 if key >> 13 & 1 and (key >> 15) & 3 >= 2 else 0)


def try_key(cards: Sequence[Card]) -> int:
    """The key of a line of Number cards in the order they arrived, or ``BUST`` if it
    holds a duplicate. An Unlucky 7 that wiped the line is its first card; one after the
    first arrived by Steal or Swap without its wipe (``unlucky7_triggers_on_transfer``
    off, RULES.md §4.4.5) and counts as a plain 7.

    >>> key_sum(try_key([Card.THIRTEEN, Card.UNLUCKY_7, Card.NINE]))
    29
    >>> key_sum(try_key([Card.UNLUCKY_7, Card.NINE])), try_key([Card.UNLUCKY_7, Card.SEVEN])
    (16, -1)
    """
    key = 0
    for i, card in enumerate(cards):
        key = receive(key, Card.SEVEN if i and card == _U7 else card)
        if key == BUST:
            return BUST
    return key


def modifier_effects(mods: Sequence[Card]) -> tuple[int, int]:
    """A line's Modifiers as :func:`score` takes them: how many ÷2, and the −N penalty.

    >>> modifier_effects([Card.DIVIDE_2, Card.MINUS_4, Card.MINUS_2])
    (1, 6)
    """
    divides = penalty = 0
    for card in mods:
        if card is Card.DIVIDE_2:
            divides += 1
        else:
            penalty += PENALTY[card]
    return divides, penalty


def score(
    key: int, *, divides: int = 0, penalty: int = 0, brutal: bool = False, flip7: bool = False
) -> int:
    """The round score of a line key under Modifiers (§8,
    :func:`flip7.core.scoring.total_score`): halve, subtract, clamp (standard mode), +15 for
    Flip 7, The Zero's 0 without it."""
    return total_score(
        key_sum(key), divides=divides, penalty=penalty, zero=bool(key & 1), flip7=flip7,
        brutal=brutal,
    )  # fmt: skip


def hit_once(
    key: int,
    counts: Sequence[int],
    *,
    divides: int = 0,
    penalty: int = 0,
    brutal: bool = False,
    distinct: bool = False,
    keep_modifiers: bool = False,
    bust_score: int = 0,
) -> tuple[float, float, int]:
    """One card, then Stay: the expected round score given the card is one that reaches the
    line (a Number; a Modifier too with ``keep_modifiers``), the bust probability of that
    card, and how many such cards there are. An exact lower bound of the value of hitting
    (over the cards that count), since after the card the player may still play on.

    >>> counts = [0] * 27
    >>> counts[Card.FIVE] = counts[Card.NINE] = 1
    >>> hit_once(line_key([Card.NINE]), counts)    # 14 or bust, evens
    (7.0, 0.5, 2)
    """
    acc = 0
    busts = 0
    cards = 0
    for slot in range(NUMBER_SLOTS):
        c = counts[slot]
        if not c:
            continue
        cards += c
        new = receive(key, slot)
        if new == BUST:
            busts += c
            acc += c * bust_score
        elif slot == _U7:
            acc += c * VALUE[_U7]  # the wipe takes the Modifiers too
        else:
            flip = flip7_reached(new, distinct=distinct)
            acc += c * score(new, divides=divides, penalty=penalty, brutal=brutal, flip7=flip)
    if keep_modifiers:
        for i, slot in enumerate(_MODIFIER_SLOTS):
            c = counts[slot]
            if c:
                cards += c
                d, p = (divides + 1, penalty) if i == 0 else (divides, penalty + _PENALTIES[i])
                acc += c * score(key, divides=d, penalty=p, brutal=brutal)
    if not cards:
        return float(score(key, divides=divides, penalty=penalty, brutal=brutal)), 0.0, 0
    return acc / cards, busts / cards, cards


# ---------------------------------------------------------------------------- Active lines

_DECK_NUMBERS = tuple(Deck.vengeance().counts)


@functools.cache
def future(key: int) -> tuple[float, float]:
    """What an Active line is worth before it is over: its expected round score (no
    Modifiers) and the chance that it busts, when its player hits below a number sum of 27
    drawing from a full deck less the line (after an Unlucky 7 wipe, less the Unlucky 7).

    >>> ev, bust = future(line_key([Card.TEN, Card.TWELVE]))
    >>> round(ev, 2), round(bust, 3)
    (23.29, 0.264)
    """
    if key == BUST:
        return 0.0, 1.0
    total = key_sum(key)
    zero = bool(key & 1)
    if total >= MODEL_THRESHOLD and not zero:
        return float(total), 0.0
    counts = list(_DECK_NUMBERS)
    for card in key_cards(key):
        counts[card] -= 1
    size = sum(counts)
    if not size:
        return (0.0 if zero else float(total)), 0.0
    ev = busts = 0.0
    for slot in range(NUMBER_SLOTS):
        c = counts[slot]
        if not c:
            continue
        new = receive(key, slot)
        if new == BUST:
            busts += c
        elif slot != _U7 and flip7_reached(new):
            ev += c * (key_sum(new) + FLIP7_BONUS)
        else:
            e, b = future(new)
            ev += c * e
            busts += c * b
    return ev / size, busts / size


def continuation(key: int) -> float:
    """The expected round score of an Active line (no Modifiers): see :func:`future`."""
    return future(key)[0]


@functools.cache
def _gains() -> dict[tuple[int, int], float]:
    """(number sum, cards) -> the mean of continuation − sum over the plain lines with them."""
    acc: dict[tuple[int, int], list[float]] = {}
    for bits in range(2, 1 << 14, 2):  # no Zero
        cards = bits.bit_count()
        if cards >= FLIP7_CARDS:
            continue
        total = key_sum(bits)
        if total >= MODEL_THRESHOLD:
            continue
        acc.setdefault((total, cards), []).append(continuation(bits) - total)
    return {k: sum(v) / len(v) for k, v in acc.items()}


def gain_after(total: float, cards: int) -> float:
    """What an Active line of ``cards`` Number cards summing to ``total`` still gains on
    average by playing on (0 from a sum of 27)."""
    if total >= MODEL_THRESHOLD or cards >= FLIP7_CARDS:
        return 0.0
    gains = _gains()
    t = int(total)
    for probe in (t, t + 1, t - 1, t + 2, t - 2):
        found = gains.get((probe, max(cards, 1)))
        if found is not None:
            return found
    return max(0.0, (MODEL_THRESHOLD - total) * 0.3)
