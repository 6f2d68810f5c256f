"""Exact Unlucky 7 wipes: the solitaire as the rules have it (:class:`ExactModel`).

The rules' game (§4.4.1, §3.5.2): the cards an Unlucky 7 wipes go to the discard pile and
stay out of the draw pile for the rest of the round. Before a wipe the state is the line
alone (the pile is the deck less the line). After it the line is {Unlucky 7} and the pile
is the deck less the wiped line W, the Unlucky 7 and the line since; with one Unlucky 7 in
the deck no second wipe comes, so that game has no wipe of its own and is solved once per
W a wipe can hit, several thousand of them.

They share most of their work. A state after the wipe draws only the slots it can take
without a bust (the rest bust, whatever their copies), so its value depends on W only
through W's cards of those slots and W's size (the cards left): the memo key is
line | (W's cards of the line's safe slots) << 17 | |W| << 49, a W's cards being two bits
a slot (_wiped_code). Lines where staying wins whatever W was are not expanded: "whatever W"
is checked on a relaxed game that keeps every safe card of the full deck and takes |W|
cards off the total (a pile that favours hitting at least as much, _WipeModel._relax); and
a five-card line after the wipe sums its six-card children in closed form (five_card in
_WipeModel._recursion), each of them one card from Flip 7.

Floats: a state's value is a mean (weights copies / cards left) of at most 16 terms, at
most 14 levels deep, so its relative rounding error stays below 1e-13; a decision between
values closer than that can only cost as much. Staying is taken as proven only with a
margin of 1e-9. So the figures are exact to well within 1e-12.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any

from flip7.analysis.solver.decks import Deck, _deck
from flip7.analysis.solver.line_model import _stay_wins
from flip7.analysis.solver.lines import (
    _THIRTEEN,
    _U7,
    _U7_FLAG,
    BUST,
    LINE_BITS,
    NUMBER_SLOTS,
    U7_LINE,
    _add,
    _count,
    _held,
    _line_sum,
)
from flip7.core.errors import Flip7Error
from flip7.core.lines import FLIP7_CARDS
from flip7.core.scoring import FLIP7_BONUS

__all__ = ["ExactModel"]

_WIPED_MAX = FLIP7_CARDS - 1  # the most cards a wipe can take (a six-card line)
_SIG_SHIFT = LINE_BITS
_SIZE_SHIFT = LINE_BITS + 2 * NUMBER_SLOTS
# A line's figures (_WipeModel._line): cards, number sum, stay score, forced, its steps
# (child, two-bit shift of the slot, copies in the deck less the line, Flip 7 score or -1,
# what the recursion needs of the child), the mask of its safe slots' two-bit fields, the
# Unlucky 7s it can draw, the lines W after which staying wins (by |W|), its cards as W,
# whether it is a five-card line after a wipe, and its safe cards and their worth before W.
_WipeLine = tuple[
    int, int, int, bool, tuple[tuple[int, int, int, int, Any], ...], int, int,
    tuple[bool, ...], int, bool, int, int,
]  # fmt: skip
_Outcome = tuple[float, float, float]  # expected score, P(Flip 7), P(bust)
# The memo keeps each state's outcome as a row number into three flat arrays of floats
# (_Rows: expected scores, P(Flip 7), P(bust)): millions of tuples of floats would take
# several times the room. A state where the player stays has the outcome (stay score, 0,
# 0): rows 0.._STAY_ROWS - 1 hold those, by the score (a line's number sum is at most
# 0 + 1 + ... + 13 + 13), and a stay state's entry is that number, one of Python's shared
# small ints, so the million or so of them add no object.
_STAY_ROWS = sum(range(_THIRTEEN + 1)) + _THIRTEEN + 1
_Rows = tuple["array[float]", "array[float]", "array[float]"]


def _constant(value: float) -> Callable[[], float]:
    return lambda: value


def _stay_rows() -> _Rows:
    """The memo's arrays holding only the rows of the stay scores."""
    return (
        array("d", range(_STAY_ROWS)),
        array("d", [0.0] * _STAY_ROWS),
        array("d", [0.0] * _STAY_ROWS),
    )


def _wiped_code(line: int) -> int:
    """The cards of a line as the wiped set W: two bits a slot, its copies in the line."""
    code = 0
    for slot, copies in enumerate(_held(line)):
        code |= copies << (2 * slot)
    return code


class _WipeModel:
    """The solitaire with exact Unlucky 7 wipes (§4.4.1): optimal play, a threshold or a
    fixed policy, by one recursion over the lines before a wipe and the states after one."""

    def __init__(self, deck: Deck) -> None:
        counts = list(deck.counts)
        if counts[_U7] > 1:
            raise Flip7Error("exact wipes need at most one Unlucky 7 in the deck")
        self.deck = deck
        self._counts = counts
        self._total = sum(counts)
        self._lines: dict[int, _WipeLine] = {}
        self._relaxed: dict[int, list[float]] = {}
        self.memo: dict[int, int] = {}  # state key -> its row in _rows
        self._rows = _stay_rows()
        self._how: tuple[int | None, Callable[[int], bool] | None] | None = None
        self._value: Callable[[int, int, int], _Outcome] | None = None

    # -- a line's figures

    def _line(self, line: int) -> _WipeLine:
        found = self._lines.get(line)
        if found is not None:
            return found
        counts = self._counts
        held = _held(line)
        n, s = _count(line), _line_sum(line)
        zero = bool(self.deck.the_zero and line & 1)
        after = bool(line & _U7_FLAG)
        forced = zero or not line
        stay = 0 if zero else s
        raw: list[tuple[int, int, int, int]] = []  # (slot, child, copies, child's sum)
        mask = safe = worth = 0
        for slot in range(NUMBER_SLOTS):
            child = _add(line, slot)
            copies = counts[slot] - held[slot]
            if slot == _U7 or child == BUST or copies <= 0:
                continue
            mask |= 3 << (2 * slot)
            total = _line_sum(child)
            safe += copies
            worth += copies * (total - s)
            raw.append((slot, child, copies, total))
        five = after and n == FLIP7_CARDS - 2
        steps: list[tuple[int, int, int, int, Any]] = []
        for slot, child, copies, total in raw:
            if n + 1 >= FLIP7_CARDS:
                steps.append((child, 2 * slot, copies, total + FLIP7_BONUS, None))
            elif five:
                extra = self._child_of_five(raw, slot, child, s)
                steps.append((child, 2 * slot, copies, -1, extra))
            else:
                steps.append((child, 2 * slot, copies, -1, self._line(child)[5]))
        stays = (False,) * (_WIPED_MAX + 1)
        if after:
            stays = self._relax(line, n, stay, forced, raw)
        found = (
            n, s, stay, forced, tuple(steps), mask, 0 if after else counts[_U7], stays,
            _wiped_code(line), five, safe, worth,
        )  # fmt: skip
        self._lines[line] = found
        return found

    def _child_of_five(
        self, raw: list[tuple[int, int, int, int]], slot: int, child: int, s: int
    ) -> tuple[tuple[tuple[int, int, int], ...] | None, int, int, bool]:
        """What a five-card line after a wipe needs of its six-card child: the parent's safe
        slots the child can no longer take (None: just the slot drawn, a regular value), the
        value of the card drawn when its slot stays safe (else -1), the child's number sum,
        and whether the child holds The Zero."""
        takes = {other for other, *_ in raw if _add(child, other) != BUST}
        total = _line_sum(child)
        zero = bool(self.deck.the_zero and child & 1)
        if slot < _THIRTEEN and takes == {o for o, *_ in raw if o != slot}:
            return None, -1, total, zero
        drops = tuple((2 * o, c, t - s) for o, _, c, t in raw if o not in takes)
        return drops, (total - s if slot in takes else -1), total, zero

    def _relax(
        self, line: int, n: int, stay: int, forced: bool, raw: list[tuple[int, int, int, int]]
    ) -> tuple[bool, ...]:
        """Whether staying wins at ``line`` (after a wipe) whatever the wiped set W, by |W|.

        The relaxed game draws each safe card with its copies in the deck less the line (W
        takes none of them) out of the cards really left (the deck less the line less |W|):
        each safe card at least as likely as it really is, so, values being at least 0, each
        state's value at least its real one (by induction from Flip 7). Where its hit value
        is below the stay score, so is the real one."""
        relaxed: list[float] = []
        stays: list[bool] = []
        for size in range(_WIPED_MAX + 1):
            left = self._total - size - n
            if left <= 0:
                relaxed.append(float(stay))
                stays.append(not forced)
                continue
            acc = 0.0
            for _, child, copies, total in raw:
                if n + 1 >= FLIP7_CARDS:
                    acc += copies * (total + FLIP7_BONUS)
                else:
                    known = self._relaxed.get(child)
                    if known is None:
                        self._line(child)
                        known = self._relaxed[child]
                    acc += copies * known[size]
            hit = acc / left
            relaxed.append(hit if forced or hit > stay else float(stay))
            stays.append(not forced and hit < stay - 1e-9 * (1 + stay))
        self._relaxed[line] = relaxed
        return tuple(stays)

    # -- values

    def solve(
        self, threshold: int | None = None, policy: Callable[[int], bool] | None = None
    ) -> _Outcome:
        """The expected round score from the empty line, P(Flip 7) and P(bust): optimal play,
        or ``threshold`` T (hit while the number sum is below T), or ``policy`` (hit where
        ``policy(line)`` is true, ``line`` being the line's key, which holds Unlucky 7 after
        a wipe); forced hits aside."""
        if self._how != (threshold, policy) or self._value is None:
            self.forget()
            self._how = (threshold, policy)
            self._value = self._recursion(threshold, policy)
        return self._value(0, 0, 0)

    def forget(self) -> None:
        """Drop the last solve's memo. The recursion's closures call themselves, a cycle
        that only the garbage collector frees, and late: its tables are emptied here, so
        that two solves' states never fill memory at once."""
        self.memo.clear()
        for column in self._rows:
            del column[_STAY_ROWS:]
        self.memo = {}
        self._rows = _stay_rows()
        self._how = None
        self._value = None

    def _recursion(
        self, threshold: int | None, policy: Callable[[int], bool] | None
    ) -> Callable[[int, int, int], _Outcome]:
        memo = self.memo
        scores, flip_chances, bust_chances = self._rows
        lines, line_of = self._lines, self._line
        total = self._total
        optimal = threshold is None and policy is None
        ub = [0.0] * (_WIPED_MAX + 1)
        if self._counts[_U7]:
            self._line(U7_LINE)
            ub = self._relaxed[U7_LINE]
        # Before a wipe, the value after one is at most the relaxed game's (see _relax).
        pre_stays = [_stay_wins(0, self._counts[_U7], _constant(u)) for u in ub]
        bonus = FLIP7_BONUS

        def hits(line: int, s: int) -> bool:
            if threshold is not None:
                return s < threshold
            assert policy is not None
            return policy(line)

        def value(line: int, code: int, size: int) -> _Outcome:
            """State ``line`` after the wiped set ``code`` of ``size`` cards (0, 0: no wipe)."""
            info = lines.get(line) or line_of(line)
            n, s, stay, forced, steps, mask, wipes, stays, as_w, five, safe, worth = info
            key = line | (code & mask) << _SIG_SHIFT | size << _SIZE_SHIFT
            found = memo.get(key)
            if found is not None:
                return scores[found], flip_chances[found], bust_chances[found]
            left = total - size - n
            if not forced:
                if optimal:
                    if stays[size] or (
                        wipes and pre_stays[n](s, safe, worth, n, left)
                    ):  # staying provably wins
                        memo[key] = stay
                        return float(stay), 0.0, 0.0
                elif not hits(line, s):
                    memo[key] = stay
                    return float(stay), 0.0, 0.0
            if not left:  # nothing left to draw: the round is scored as it stands
                memo[key] = stay
                return float(stay), 0.0, 0.0
            if five:
                acc, flips, busts, taken = five_card(steps, code, s, left)
            else:
                acc = flips = busts = 0.0
                taken = 0
                wz = size << _SIZE_SHIFT
                for child, shift, base, flip, cmask in steps:
                    c = base - (code >> shift & 3)
                    if not c:
                        continue
                    taken += c
                    if flip >= 0:
                        acc += c * flip
                        flips += c
                        continue
                    got = memo.get(child | (code & cmask) << _SIG_SHIFT | wz)
                    if got is None:
                        v, f, b = value(child, code, size)
                        acc += c * v
                        flips += c * f
                        busts += c * b
                    elif got < _STAY_ROWS:  # the child stays on ``got``: adds nothing else
                        acc += c * got
                    else:
                        acc += c * scores[got]
                        flips += c * flip_chances[got]
                        busts += c * bust_chances[got]
                if wipes:
                    v, f, b = value(U7_LINE, as_w, n)
                    acc += wipes * v
                    flips += wipes * f
                    busts += wipes * b
                    taken += wipes
            h = acc / left
            if forced or h > stay or not optimal:
                f = flips / left
                b = (busts + left - taken) / left
                memo[key] = len(scores)
                scores.append(h)
                flip_chances.append(f)
                bust_chances.append(b)
                return h, f, b
            memo[key] = stay
            return float(stay), 0.0, 0.0

        def five_card(
            steps: tuple[tuple[int, int, int, int, Any], ...], code: int, s: int, left: int
        ) -> tuple[float, float, float, int]:
            """A five-card line after a wipe: its six-card children in closed form. Returns
            the sums over the children (times their copies) of value, P(Flip 7), P(bust),
            and the safe cards."""
            safe = worth = 0
            for _, shift, base, _, extra in steps:
                c = base - (code >> shift & 3)
                safe += c
                worth += c * (extra[2] - s)
            rest = left - 1
            acc = flips = busts = 0.0
            done = done_worth = 0
            for child, shift, base, _, (drops, keep, t, zero) in steps:
                c = base - (code >> shift & 3)
                if not c:
                    continue
                v = t - s
                if drops is None:
                    safe6, worth6 = safe - c, worth - c * v
                else:
                    safe6, worth6 = safe, worth
                    for sh, b, val in drops:
                        k = b - (code >> sh & 3)
                        safe6 -= k
                        worth6 -= k * val
                    if keep >= 0:
                        safe6 -= 1
                        worth6 -= keep
                if not rest:
                    acc += c * (0 if zero else t)
                elif zero or (not optimal and hits(child, t)):
                    acc += c * ((t + bonus) * safe6 + worth6) / rest
                    p = safe6 / rest
                    flips += c * p
                    busts += c * (1 - p)
                elif not optimal:
                    acc += c * t
                else:
                    # The child's hit less its stay falls as its value and the copies it
                    # takes out rise: once a child taking one copy out stays, every later
                    # (higher) one does, and their stays are summed at once.
                    if (t + bonus) * (safe - 1) + worth - v <= t * rest:
                        acc += s * (safe - done) + worth - done_worth
                        return acc, flips, busts, safe
                    h6 = ((t + bonus) * safe6 + worth6) / rest
                    if h6 > t:
                        acc += c * h6
                        p = safe6 / rest
                        flips += c * p
                        busts += c * (1 - p)
                    else:
                        acc += c * t
                done += c
                done_worth += c * v
            return acc, flips, busts, safe

        return value

    def hits(self, line: int, wiped: int | None = None) -> bool:
        """After :meth:`solve` (optimal play): whether to hit at ``line`` (a key), before a
        wipe (``wiped`` None) or after one that took the line ``wiped``."""
        if self._how != (None, None) or self._value is None:
            raise Flip7Error("solve the optimum first")
        stay, forced = self._line(line)[2:4]
        if forced:
            return True
        code, size = (0, 0) if wiped is None else (_wiped_code(wiped), _count(wiped))
        return self._value(line, code, size)[0] > stay


class ExactModel:
    """The solitaire of a deck with the rules' wipes (§4.4.1): the optimum, thresholds and
    fixed policies, and the optimal decision at any state (see the module's docstring).

    >>> from flip7.analysis.solver import DECKS, line_key
    >>> model = ExactModel(DECKS["base-numbers"])   # no Unlucky 7: the plain game
    >>> round(model.optimum()[0], 4), model.hits(line_key([5, 9])), model.hits(line_key([12, 11]))
    (18.5652, True, False)
    """

    def __init__(self, deck: str | Deck = "vengeance") -> None:
        self.deck = _deck(deck)
        self._model = _WipeModel(self.deck)

    def optimum(self) -> tuple[float, float, float]:
        """The optimal expected round score, P(Flip 7) and P(bust) under it."""
        return self._model.solve()

    def threshold(self, threshold: int) -> tuple[float, float, float]:
        """The same for "hit while the number sum is below ``threshold``"."""
        return self._model.solve(threshold=threshold)

    def policy(self, hit: Callable[[int], bool]) -> tuple[float, float, float]:
        """The same for the policy that hits where ``hit(line)`` (the line's key; after a
        wipe it holds Unlucky 7), forced hits aside."""
        return self._model.solve(policy=hit)

    def hits(self, line: int, wiped: int | None = None) -> bool:
        """Whether the optimal policy hits at ``line`` (a key), before any wipe (``wiped``
        None) or after a wipe that took the line ``wiped`` (the key of the line before it);
        it solves the optimum first if needed."""
        if self._model._how != (None, None):
            self._model.solve()
        return self._model.hits(line, wiped)

    @property
    def states(self) -> int:
        """The states the last solve kept."""
        return len(self._model.memo)
