"""Keep hitting: the exact chance that a line reaches Flip 7 when its player hits until
Flip 7 or a bust (:func:`always_hit_flip7`), the Unlucky 7 wipes exact."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import product

from flip7.analysis.solver.lines import (
    _L13,
    _THIRTEEN,
    _U7,
    NUMBER_SLOTS,
    U7_LINE,
    _count,
    _distinct,
    _falling,
    _thirteen_options,
)
from flip7.core.errors import Flip7Error
from flip7.core.lines import FLIP7_CARDS

__all__ = ["always_hit_flip7"]


def always_hit_flip7(
    pile: Sequence[int], line: int = 0, *, flip7_distinct: bool = False
) -> Fraction:
    """The exact probability that a line reaches Flip 7 when its player hits until Flip 7 or a
    bust, drawing the Number cards of ``pile`` (16 counts by slot) in uniformly random order.

    Unlucky 7 wipes are exact: the wiped cards leave the pile (§4.4.1). No order is
    enumerated: the cards of each stretch between wipes are counted as sets (a generating
    function over the slots), so this takes about a millisecond.

    >>> from flip7.analysis.solver import line_key
    >>> pile = [0] * 16
    >>> pile[1] = pile[2] = 1
    >>> always_hit_flip7(pile, line_key([3, 4, 5, 6, 8]))   # needs both, in either order
    Fraction(1, 1)
    >>> pile[3] = 2                      # two 3s: a bust if they are the next two cards
    >>> always_hit_flip7(pile, line_key([4, 5, 6, 8, 9]))
    Fraction(5, 6)
    """
    if len(pile) != NUMBER_SLOTS or min(pile) < 0:
        raise Flip7Error("a pile is 16 Number card counts, none negative")
    if (_distinct(line) if flip7_distinct else _count(line)) >= FLIP7_CARDS:
        return Fraction(1)
    total = sum(pile)
    wipes = pile[_U7]
    by_length: dict[int, int] = {}  # cards drawn -> sum of the counted orders
    for last in range(wipes + 1):
        # ``last`` wipes, then a stretch that ends in Flip 7. Each stretch is (cards, pair
        # kind); stretch 0 starts from ``line``, the others from {Unlucky 7}.
        bases = [line] + [U7_LINE] * last
        firsts = [(_distinct(base) if flip7_distinct else _count(base)) for base in bases]
        # No stretch can take more cards than it needs to Flip 7 (one more: a pair's 13),
        # and one before the last none that would make it.
        caps = [
            FLIP7_CARDS - 1 - first + (1 if flip7_distinct else 0) + (1 if phase == last else 0)
            for phase, first in enumerate(firsts)
        ]
        # A state packs each stretch's cards in 5 bits, biased so that more than its cap sets
        # the field's top bit, then each stretch's pair kind in 2 bits.
        kinds_at = _FIELD * (last + 1)
        start = sum((15 - cap) << (_FIELD * phase) for phase, cap in enumerate(caps))
        over = sum(16 << (_FIELD * phase) for phase in range(last + 1))
        states: dict[int, int] = {start: 1}
        for slot in range(13):
            if slot != _U7 and pile[slot]:
                picks = _slot_picks(pile[slot], slot, bases)
                states = _spread(states, _packed(picks, kinds_at), over)
        picks = _thirteen_picks(pile[_THIRTEEN], pile[_L13], bases)
        states = _spread(states, _packed(picks, kinds_at), over)
        orders_of_wipes = _falling(wipes, last)
        for state, weight in states.items():
            num = weight * orders_of_wipes
            drawn = last
            for phase, cap in enumerate(caps):
                m = (state >> (_FIELD * phase) & 31) - 15 + cap
                kind = state >> (kinds_at + 2 * phase) & 3
                cards = firsts[phase] + m - (1 if flip7_distinct and kind else 0)
                drawn += m
                num *= _factorial(m)
                if phase < last:
                    if cards >= FLIP7_CARDS:
                        break
                elif cards != FLIP7_CARDS or not m:
                    break
                elif flip7_distinct and kind:
                    # Pairs count once: the card completing a 13 pair must not be the last
                    # of the stretch (Flip 7 would have come before it).
                    num = num // m * (m - (2 if kind == 1 else 1))
            else:
                if drawn <= total:
                    by_length[drawn] = by_length.get(drawn, 0) + num
    return sum(
        (Fraction(num, _falling(total, drawn)) for drawn, num in by_length.items()),
        Fraction(0),
    )


def _factorial(n: int) -> int:
    return _falling(n, n)


_Picks = list[tuple[tuple[tuple[int, int], ...], int]]


def _slot_picks(copies: int, slot: int, bases: list[int]) -> _Picks:
    """One slot's cards over the stretches: at most one per stretch (a second busts), none
    where the stretch's first line holds the value; weighted by the cards' identities."""
    picks: _Picks = []
    for pick in product((0, 1), repeat=len(bases)):
        used = sum(pick)
        if used > copies or any(
            p and base >> slot & 1 for p, base in zip(pick, bases, strict=True)
        ):
            continue
        picks.append((tuple((p, 0) for p in pick), _falling(copies, used)))
    return picks


def _thirteen_picks(regular: int, lucky: int, bases: list[int]) -> _Picks:
    """The 13s over the stretches: per stretch, what §4.5 allows on top of its first line."""
    picks: _Picks = []
    for choice in product(*(_thirteen_options(base) for base in bases)):
        r = sum(x[0] for x in choice)
        k = sum(x[1] for x in choice)
        if r > regular or k > lucky:
            continue
        weight = _falling(regular, r) * _falling(lucky, k)
        for x in choice:
            weight //= _factorial(x[1])  # two Lucky 13s in one stretch: one order of the two
        picks.append((tuple((x[0] + x[1], x[2]) for x in choice), weight))
    return picks


_FIELD = 5  # bits of a stretch's card count in a packed state


def _packed(picks: _Picks, kinds_at: int) -> list[tuple[int, int]]:
    """Picks as (what they add to a packed state, weight)."""
    return [
        (
            sum(
                (add << (_FIELD * phase)) + (pair << (kinds_at + 2 * phase))
                for phase, (add, pair) in enumerate(adds)
            ),
            weight,
        )
        for adds, weight in picks
    ]


def _spread(states: dict[int, int], picks: list[tuple[int, int]], over: int) -> dict[int, int]:
    out: dict[int, int] = {}
    get = out.get
    for state, weight in states.items():
        for add, w in picks:
            new = state + add
            if not new & over:
                out[new] = get(new, 0) + weight * w
    return out
