"""The line model: one player's line against a draw pile of known composition, and the
exact expected round score of playing on, optimally or by a threshold (:class:`LineModel`,
with what it needs of the rules: :class:`LineRules`).

The optimum's recursion is built phase by phase (a phase per Unlucky 7 wipe) from the parts
at the end of this module: the score tables, the closed forms of a five-card line and of a
line holding The Zero, and the proof that staying wins.
"""

from __future__ import annotations

import sys
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import product, repeat
from math import comb
from operator import add, truediv

from flip7.analysis.solver.lines import (
    _C13_SHIFT,
    _L13,
    _SEVEN,
    _SUMS,
    _THIRTEEN,
    _U7,
    _U7_FLAG,
    _VALUES_MASK,
    BUST,
    LINE_BITS,
    LINE_MASK,
    NUMBER_SLOTS,
    U7_LINE,
    _add,
    _count,
    _distinct,
    _falling,
    _held,
    _line_sum,
    _thirteen_options,
)
from flip7.core.errors import Flip7Error
from flip7.core.lines import FLIP7_CARDS
from flip7.core.scoring import FLIP7_BONUS

__all__ = ["LineModel", "LineRules"]


@dataclass(frozen=True, slots=True)
class LineRules:
    """What the own-line model needs of the rules (RULES.md §13) and of the line's Modifiers.

    ``divides`` and ``penalty`` are the ÷2 cards and the sum of the −N cards already in the
    line (they leave with an Unlucky 7 wipe, §4.4.1). ``the_zero``: the deck's 0 is The Zero
    (§4.3); False for the base deck's plain 0.
    """

    the_zero: bool = True
    flip7_distinct: bool = False  # lucky13_pair_flip7_count = 1
    can_stay_empty: bool = False
    brutal: bool = False
    busted_modifiers_count: bool = True  # brutal_busted_scoring = "modifiers_only"
    divides: int = 0
    penalty: int = 0


_GO, _BUSTS, _FLIP, _WIPES = 0, 1, 2, 3
_TRANSITIONS: dict[tuple[int, bool], tuple[tuple[int, int, int], ...]] = {}


def _transitions(line: int, distinct: bool) -> tuple[tuple[int, int, int], ...]:
    """(slot, new line, what happens) for each Number slot: go on, bust, Flip 7 or wipe."""
    out = []
    n = _count(line) + 1  # every card that joins adds one to the count (a 13 pair too)
    for slot in range(NUMBER_SLOTS):
        new = _add(line, slot)
        if slot == _U7:
            kind = _WIPES
        elif new == BUST:
            kind = _BUSTS
        elif (_distinct(new) if distinct else n) >= FLIP7_CARDS:
            kind = _FLIP
        else:
            kind = _GO
        out.append((slot, new, kind))
    table = tuple(out)
    _TRANSITIONS[line, distinct] = table
    return table


_SCORE_LEN = 100  # a score table's length: above any number sum
_REGULAR_VALUES = (1 << _THIRTEEN) - 1  # the values 0..12 of a line key
_BUST_AT = _SCORE_LEN  # where a score table keeps the bust score
_Phase = tuple[
    Callable[[int, int, int, int], float], Callable[[int, int, int, int], float], int, int
]
_SCORE_TABLES: dict[tuple[int, int, int, bool, bool], tuple[list[float], int]] = {}


def _safe_cards(line: int, plus: Sequence[int]) -> tuple[int, int]:
    """How many cards of a pile (``plus`` less the line's own cards) the line can take
    without a bust or a wipe, and the sum of their values."""
    held = _held(line)
    safe = worth = 0
    for slot in range(NUMBER_SLOTS):
        if slot != _U7 and _add(line, slot) != BUST:
            c = plus[slot] - held[slot]
            safe += c
            worth += c * (_THIRTEEN if slot == _L13 else slot)
    return safe, worth


def _score_table(
    code: int, divides: int, penalty: int, brutal: bool, bust_penalty: bool
) -> tuple[list[float], int]:
    """The round score by number sum of a line with ``divides`` ÷2 and ``penalty`` (§8, §10)
    and the Modifiers of ``code`` drawn, then its bust score; and how many were drawn."""
    key = (code, divides, penalty, brutal, bust_penalty)
    found = _SCORE_TABLES.get(key)
    if found is not None:
        return found
    drawn = 0
    for i in range(6):
        k = (code >> (2 * i)) & 3
        drawn += k
        if i == 0:
            divides += k
        else:
            penalty += k * 2 * i
    table: list[float] = []
    for total in range(_SCORE_LEN):
        total >>= divides
        total -= penalty
        table.append(total if total >= 0 or brutal else 0)
    table.append(-penalty if bust_penalty else 0)
    if len(_SCORE_TABLES) > 4096:
        _SCORE_TABLES.clear()
    found = _SCORE_TABLES[key] = (table, drawn)
    return found


def _mean_scores(
    mods: Sequence[int], divides: int, penalty: int, brutal: bool, bust_penalty: bool, most: int
) -> list[list[float]]:
    """Score tables (as :func:`_score_table`) by the number j = 0..``most`` of Modifiers drawn
    from a pile holding ``mods`` (six counts): the mean over every set of j of them, each
    as likely (the cards come in uniformly random order)."""
    m = sum(mods)
    # by_size[j][(÷2 count, penalty)]: how many sets of j of the pile's Modifiers add that
    by_size: list[dict[tuple[int, int], int]] = [{} for _ in range(m + 1)]
    for pick in product(*(range(c + 1) for c in mods)):
        j = sum(pick)
        if j > most:
            continue
        effect = (divides + pick[0], penalty + sum(k * 2 * i for i, k in enumerate(pick)))
        ways = 1
        for c, k in zip(mods, pick, strict=True):
            ways *= comb(c, k)
        by_size[j][effect] = by_size[j].get(effect, 0) + ways
    tables: list[list[float]] = []
    for j in range(min(m, most) + 1):
        sets = comb(m, j)
        table = [0.0] * (_SCORE_LEN + 1)
        for (d, p), ways in by_size[j].items():
            share = ways / sets
            for total in range(_SCORE_LEN):
                score = (total >> d) - p
                table[total] += share * (score if score >= 0 or brutal else 0)
            if bust_penalty:
                table[_BUST_AT] -= share * p
        tables.append(table)
    return tables


_SCORES: dict[LineRules, dict[int, tuple[int, int, int]]] = {}
_MODS_SHIFT = LINE_BITS
_TAG_SHIFT = LINE_BITS + 12
_MODS_MASK = 0xFFF


class LineModel:
    """One player's line against a draw pile of known composition: the exact expected round
    score of playing on optimally (or by a threshold), memoised over the line and the pile.

    ``pile`` holds the Number cards of the draw pile by slot (16 counts). With
    ``modifiers`` (six counts: ÷2, −2, −4, −6, −8, −10) the Modifiers in the pile are part of
    the model too and each one drawn joins the line (a player who must keep them, §7.3);
    without it, the pile's non-Number cards are neutral and left out (the order of the
    Number cards is uniformly random either way).

    A state holds which Modifiers were drawn: up to 64 times as many states as without them
    (729 with two decks). ``count_modifiers`` J makes it hold only how many, up to J, an
    approximation: the decisions depend on the line and on how many Modifiers were drawn,
    each score is the mean over which of the pile's Modifiers they are (every set of that
    many as likely), and the Modifiers drawn after the J-th are left out. With every one
    counted it is a policy the player could follow, so never above the exact value; with
    J = 2, within 0.03 points of it on the situations measured (:mod:`flip7.analysis.advisor`).
    Optimal play only (no ``threshold``, ``policy`` or :meth:`outcomes`).

    ``exact_wipe``: after an Unlucky 7 wipe the draw pile is what it really is (the wiped
    cards are gone, §3.5.2); otherwise the model puts every card drawn before the wipe back
    (the pile after the k-th wipe is the starting pile less k Unlucky 7s), so that the game
    after a wipe is solved once. Exact wipes need at most one Unlucky 7 in the pile and no
    ``modifiers``.

    A state's value is the expected round score of the line from there on, under the model.
    When no card of the model is left, the round is scored as it stands (no reshuffle).

    >>> from flip7.analysis.solver import line_key
    >>> model = LineModel([0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])  # a 1 and a 2
    >>> model.value(line_key([1, 5]))   # stay on 6, or hit: bust or 8, evens
    6.0
    >>> model.hit_value(line_key([1, 5]))
    4.0
    """

    def __init__(
        self,
        pile: Sequence[int],
        rules: LineRules = LineRules(),
        *,
        modifiers: Sequence[int] | None = None,
        exact_wipe: bool = False,
        count_modifiers: int | None = None,
    ) -> None:
        if len(pile) != NUMBER_SLOTS or min(pile) < 0:
            raise Flip7Error("a pile is 16 Number card counts, none negative")
        self.rules = rules
        self.keep_modifiers = modifiers is not None
        mods = list(modifiers) if modifiers is not None else []
        if self.keep_modifiers and (len(mods) != 6 or min(mods) < 0 or max(mods) > 3):
            raise Flip7Error("modifiers are six counts from 0 to 3 (÷2, −2, −4, −6, −8, −10)")
        if exact_wipe and (pile[_U7] > 1 or self.keep_modifiers):
            raise Flip7Error("exact wipes need at most one Unlucky 7 and no modifiers")
        if count_modifiers is not None and count_modifiers < 0:
            raise Flip7Error("count_modifiers is a number of Modifiers, 0 or more")
        self.exact_wipe = exact_wipe
        self._base: list[int] = list(pile) + mods
        self._counts: list[int] = list(self._base)
        self._memo: dict[int, float] = {}
        self._hits: dict[int, bool] = {}
        self._score_cache: dict[int, tuple[int, int, int]] = {}
        if len(_SCORES) > 64:
            _SCORES.clear()
        self._shared_scores = _SCORES.setdefault(rules, {})
        self._threshold: int | None = None
        self._frozen_bases: dict[int, list[int]] = {}
        self.closed_forms = True  # False walks every state (a cross-check)
        self.fast = True  # False: the optimum by the general recursion (a cross-check)
        # Shortcuts of the optimum: six-card lines in closed form, and lines where staying
        # provably wins not expanded (neither memoised nor all decided): False decides and
        # keeps every state (decisions(), states() and outcomes() redo it so when needed).
        self.shortcuts = True
        self._shortcut = False  # whether the memo's optimum took them
        self.count_modifiers = count_modifiers if self.keep_modifiers else None
        self._root = -1
        self._fast_root = -1
        # The draws of each phase's lines, by (wipe tag, root line): see _draws_of.
        self._draws: dict[tuple[int, int], tuple[_PhasePile, Callable[[int], _Draws]]] = {}

    # -- state keys: line | Modifiers drawn since the last wipe << 17 | wipe tag << 29.
    # The wipe tag is 0 before any wipe; then the number of wipes (put-back model) or the
    # line that was wiped, plus one (exact model).

    def _phase_mods(self, key: int) -> tuple[int, int]:
        """(÷2 count, penalty) of the Modifiers in the line of state ``key``."""
        divides, penalty = (
            (self.rules.divides, self.rules.penalty) if key >> _TAG_SHIFT == 0 else (0, 0)
        )
        drawn = (key >> _MODS_SHIFT) & _MODS_MASK
        for i in range(6):
            k = (drawn >> (2 * i)) & 3
            if i == 0:
                divides += k
            else:
                penalty += k * 2 * i
        return divides, penalty

    def _scores(self, key: int) -> tuple[int, int, int]:
        """(stay score, Flip 7 score, bust score) of state ``key``'s line (§8, §10)."""
        # Shared by every model with the same rules: it depends on the line, the Modifiers
        # drawn and whether a wipe has happened, not on the pile.
        norm = key & (LINE_MASK | (_MODS_MASK << _MODS_SHIFT))
        if key >> _TAG_SHIFT:
            norm |= 1 << _TAG_SHIFT
        shared = self._shared_scores
        cached = shared.get(norm)
        if cached is None:
            line = key & LINE_MASK
            divides, penalty = self._phase_mods(key)
            rules = self.rules
            total = _line_sum(line)
            for _ in range(divides):
                total //= 2
            total -= penalty
            if total < 0 and not rules.brutal:
                total = 0
            flip = total + FLIP7_BONUS
            stay = 0 if rules.the_zero and line & 1 else total
            bust = -penalty if rules.brutal and rules.busted_modifiers_count else 0
            cached = shared[norm] = (stay, flip, bust)
        self._score_cache[key] = cached
        return cached

    def forced(self, key: int) -> bool:
        """Whether the line of state ``key`` must hit: The Zero (§4.3.3), or no card at all
        (§3.2.3)."""
        line = key & LINE_MASK
        if self.rules.the_zero and line & 1:
            return True
        if line or self.rules.can_stay_empty:
            return False
        if (key >> _MODS_SHIFT) & _MODS_MASK:
            return False
        return key >> _TAG_SHIFT != 0 or not (self.rules.divides or self.rules.penalty)

    def _frozen(self, wipes: int) -> list[int]:
        """The pile after ``wipes`` wipes in the put-back model: the starting pile less that
        many Unlucky 7s; Modifiers are neutral after a wipe (the game after a wipe is
        solved once, and small)."""
        base = self._frozen_bases.get(wipes)
        if base is None:
            base = self._base[:NUMBER_SLOTS] + [0] * (len(self._base) - NUMBER_SLOTS)
            base[_U7] -= wipes
            self._frozen_bases[wipes] = base
        return base

    def _wiped(self, key: int) -> int:
        """The state right after an Unlucky 7 wipes state ``key``'s line (counts updated)."""
        tag = key >> _TAG_SHIFT
        if self.exact_wipe:
            self._counts[_U7] -= 1
            return (((key & LINE_MASK) + 1) << _TAG_SHIFT) | U7_LINE
        self._counts[:] = self._frozen(tag + 1)
        return ((tag + 1) << _TAG_SHIFT) | U7_LINE

    # -- values

    def value(
        self,
        line: int,
        *,
        threshold: int | None = None,
        policy: Callable[[int], bool] | None = None,
    ) -> float:
        """The expected round score from ``line`` (a key) with the pile as given: optimal play,
        or with ``threshold`` T: hit while the number sum is below T, or with ``policy``: hit
        where ``policy(key)`` is true, ``key`` being the line's key, plus ``1 << 29`` once a
        wipe has happened (forced hits aside in both cases)."""
        self._root = line
        if policy is not None:
            if threshold is not None:
                raise Flip7Error("give a threshold or a policy, not both")
            self._threshold = None
            self._memo.clear()
            self._hits.clear()
            result = self._search(None, policy)[0](line)
            self._memo.clear()  # the memo is the policy's, not the optimum's
            self._hits.clear()
            return result
        if threshold is None and not self.exact_wipe and self.fast:
            return self._optimal(line)[0](line)
        return self._search(threshold)[0](line)

    def hit_value(self, line: int, *, threshold: int | None = None) -> float:
        """The expected round score of taking the next card of the model into ``line``, then
        playing on (optimally, or by ``threshold``); NaN when no such card is left."""
        self._root = line
        if threshold is None and not self.exact_wipe and self.fast:
            value, hit = self._optimal(line)
        else:
            value, hit = self._search(threshold)
        now = value(line)
        if self.forced(line):  # a forced line's value is its hit value
            return now if any(self._base) else float("nan")
        return hit(line)

    def threshold_values(self, line: int, thresholds: Iterable[int]) -> list[float]:
        """``value(line, threshold=t)`` for each of ``thresholds``, in their order: the same
        floats, from one walk of the states instead of one a threshold.

        Each state keeps its values under every threshold at once, as a list: a state
        with number sum s stays under each T <= s and hits under the others, and its hit
        values add its children's lists term by term, in the order :meth:`_search` adds
        them, so each is the very float that recursion gives. The models it does not
        cover (exact wipes, Modifiers, a root holding The Zero, counted in closed form)
        are played one threshold at a time.

        >>> model = LineModel([0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])  # a 1 and a 2
        >>> from flip7.analysis.solver import line_key
        >>> line = line_key([1, 5])     # stay on 6, or hit: bust or 8, then below 9 bust
        >>> model.threshold_values(line, [7, 6, 9])
        [4.0, 6.0, 0.0]
        >>> [model.value(line, threshold=t) for t in (7, 6, 9)]
        [4.0, 6.0, 0.0]
        """
        wanted = list(thresholds)
        root_zero = self.rules.the_zero and line & 1 and self.closed_forms
        if self.exact_wipe or self.keep_modifiers or root_zero:
            return [self.value(line, threshold=t) for t in wanted]
        tried = sorted(set(wanted))
        by_threshold = dict(zip(tried, self._values_by_threshold(line, tried), strict=True))
        return [by_threshold[t] for t in wanted]

    def _values_by_threshold(self, root: int, tried: list[int]) -> list[float]:
        """The walk of :meth:`threshold_values` for the ascending thresholds ``tried``
        (wipes put back, no Modifiers).

        A state keeps its values two thresholds to a complex number, the higher threshold
        the real part, the pairs highest first, so that a parent, which hits under the
        highest thresholds, reads the first of its child's pairs as they come. Complex
        arithmetic by an int or a complex with equal parts is the float arithmetic of
        each part (the int's zero imaginary part adds and takes away only zeros), so each
        part is the very float a walk of its own threshold gives, at half the steps."""
        if not tried:
            return []
        # An odd count takes the lowest threshold twice, the copy dropped at the end.
        padded = tried[:1] * (len(tried) & 1) + tried
        memo: dict[int, list[complex]] = {}
        first_of = [bisect_right(padded, s) for s in range(_SCORE_LEN)]  # thresholds <= s
        phases: dict[int, Callable[[], list[complex]]] = {}

        def phase_of(tag: int) -> Callable[[], list[complex]]:
            """The values of the line a phase starts from (its walk built once)."""
            found = phases.get(tag)
            if found is None:
                found = phases[tag] = self._threshold_phase(
                    tag, root, len(padded), first_of, memo, phase_of
                )
            return found

        pairs = phase_of(0)()
        memo.clear()  # the closures are a cycle, which the garbage collector frees late
        values = [part for pair in reversed(pairs) for part in (pair.imag, pair.real)]
        return values[len(values) - len(tried) :]

    def _draws_of(self, tag: int, root: int) -> tuple[_PhasePile, Callable[[int], _Draws]]:
        """The pile of the phase after ``tag`` wipes from ``root`` (put back), and the draws
        of its lines, kept for the next walk."""
        found = self._draws.get((tag, root & LINE_MASK))
        if found is None:
            pile = self._phase_pile(tag, root & LINE_MASK)
            found = self._draws[tag, root & LINE_MASK] = (
                pile,
                _phase_draws(pile, self.rules.flip7_distinct),
            )
        return found

    def _threshold_phase(
        self,
        tag: int,
        root: int,
        m: int,
        first_of: list[int],
        memo: dict[int, list[complex]],
        phase_of: Callable[[int], Callable[[], list[complex]]],
    ) -> Callable[[], list[complex]]:
        """The walk of :meth:`_values_by_threshold` over the states after ``tag`` Unlucky 7
        wipes: each state's hit values add its children's term by term, in the order
        :meth:`_search` adds them, so that each is the very float that recursion gives.
        ``m`` thresholds (an even count), ``first_of[s]`` of them at most the sum ``s``."""
        pile, draws = self._draws_of(tag, root)
        numbers = pile.numbers
        f = _phase_scores(pile, self.rules, False, 0)[1]
        bust = f[_BUST_AT]
        zero_forces, forced_of = self.rules.the_zero, self.forced
        pairs = m >> 1
        # Without an Unlucky 7 to draw a line holding The Zero hits to the end whatever the
        # threshold, so its value is one float: one pair is worked out, and repeated.
        zero_alike = not pile.wipes
        after_wipe: list[list[complex]] = []
        # c * a pair, by c: the same as complex(c) * the pair, at one call
        scale = [complex(c).__mul__ for c in range(max(pile.plus) + 1)]

        def values(key: int, s: int) -> list[complex]:
            """State ``key``'s values by pairs of thresholds, highest first (its line's
            number sum ``s``)."""
            line = key & LINE_MASK
            left = numbers - (line & _VALUES_MASK).bit_count() - (line >> 16 & 1)
            if zero_forces and line & 1:  # it must hit, whatever the threshold
                if zero_alike and left:
                    found = memo[key] = hits(key, line, s, 1, left) * pairs
                    return found
                stay, first = 0.0, 0
            else:
                stay = float(f[s])
                first = 0 if not line and forced_of(key) else first_of[s]
            k = m - first  # the thresholds above s: it hits under those
            if not k or not left:
                found = [complex(stay, stay)] * pairs
            else:
                found = hits(key, line, s, (k + 1) >> 1, left)
                if k & 1:  # the last pair's lower threshold is at most s: it stays
                    found[-1] = complex(found[-1].real, stay)
                if k < m - 1:
                    found += [complex(stay, stay)] * (pairs - ((k + 1) >> 1))
            memo[key] = found
            return found

        def hits(key: int, line: int, s: int, k: int, left: int) -> list[complex]:
            """State ``key``'s hit values under the ``k`` highest pairs of thresholds."""
            upper = key ^ line
            # The sum is one float for every threshold until a child's value depends on it:
            # up to there a list would only repeat it. One pair is summed without lists.
            head = 0.0
            acc: list[complex] | None = None
            pair = 0j
            for bit, c, held, v, kind, kept, added in draws(line):
                if line & bit:
                    if not bust:
                        continue
                    c, kind = held, _BUSTS
                if kind == _GO:
                    nk = upper | line & kept | added
                    got = memo.get(nk) or values(nk, s + v)
                elif kind == _WIPES:
                    got = after_wipe[0] if after_wipe else wiped()
                else:
                    # A bust or Flip 7 scores the same whatever the threshold; a bust's
                    # score of 0 leaves the sum as it is.
                    score = c * (f[s + v] + FLIP7_BONUS) if kind == _FLIP else c * bust
                    if not score:
                        continue
                    if k == 1:
                        pair += complex(score, score)
                    elif acc is None:
                        head += score
                    else:
                        acc = list(map(add, acc, repeat(complex(score, score))))
                    continue
                if k == 1:
                    pair += c * got[0]
                else:
                    if acc:
                        acc = list(map(add, acc, map(scale[c], got)))
                    elif head:
                        acc = list(map(add, repeat(complex(head, head), k), map(scale[c], got)))
                    else:  # 0.0 + a product is the product (no sum here is ever -0.0)
                        acc = list(map(scale[c], got[:k]))
            if k == 1:
                return [pair / left]
            if acc is None:
                return [complex(head / left, head / left)] * k
            return list(map(truediv, acc, repeat(left)))

        def wiped() -> list[complex]:
            """The values after an Unlucky 7 wipe (§4.4): the same for every line of the
            phase, as the wiped cards go back."""
            after_wipe.append(phase_of(tag + 1)())
            return after_wipe[0]

        start = tag << _TAG_SHIFT | pile.start if tag else root
        start_sum = _line_sum(pile.start)

        def start_values() -> list[complex]:
            """The values of the line the phase starts from."""
            return memo.get(start) or values(start, start_sum)

        return start_values

    def decisions(self) -> dict[int, bool]:
        """After :meth:`value`: for every state where Stay was allowed, whether to hit."""
        self._every_state()
        return self._hits

    def states(self) -> int:
        """After :meth:`value`: how many states it decided."""
        self._every_state()
        return len(self._memo)

    def _every_state(self) -> None:
        """Redo the optimum with every state decided and kept, if shortcuts skipped some."""
        if self._fast_root != -1 and self._shortcut:
            root, self._fast_root = self._fast_root, -1
            shortcuts, self.shortcuts = self.shortcuts, False
            try:
                self._optimal(root)[0](root)
            finally:
                self.shortcuts = shortcuts

    def _search(
        self, threshold: int | None, policy: Callable[[int], bool] | None = None
    ) -> tuple[Callable[[int], float], Callable[[int], float]]:
        """The value and hit-value functions of the recursion, sharing one memo per threshold."""
        if self.count_modifiers is not None:
            raise Flip7Error("Modifiers counted, not tracked, are for optimal play only")
        if threshold != self._threshold or self._fast_root != -1:
            self._memo.clear()
            self._hits.clear()
            self._threshold = threshold
            self._fast_root = -1
        counts = self._counts
        counts[:] = self._base
        memo = self._memo
        hits = self._hits
        score_cache = self._score_cache
        scores = self._scores
        forced_of = self.forced
        zero_forces = self.rules.the_zero
        distinct = self.rules.flip7_distinct
        transitions = _TRANSITIONS
        sums = _SUMS
        extra = range(NUMBER_SLOTS, len(counts))
        wiped = self._wiped
        nan = float("nan")
        total = sum(counts)
        exact = self.exact_wipe
        # A starting line that holds The Zero is counted in closed form when its score is the
        # plain sum (no Modifiers) and Flip 7 counts cards. (Deeper Zero lines are walked:
        # each is also the successor of a line without The Zero, so walking them is cheaper.)
        closed = not distinct and not self.keep_modifiers and self.closed_forms
        root = self._root
        root_mods = bool(self.rules.divides or self.rules.penalty)
        mods_mask = _MODS_MASK << _MODS_SHIFT

        def hit(key: int) -> float:
            nonlocal total
            if not total:
                return nan
            line = key & LINE_MASK
            upper = key ^ line
            table = transitions.get((line, distinct)) or _transitions(line, distinct)
            sc = score_cache.get(key) or scores(key)
            acc = 0.0
            for slot, new, kind in table:
                c = counts[slot]
                if not c:
                    continue
                if kind == 0:
                    counts[slot] = c - 1
                    total -= 1
                    acc += c * value(upper | new)
                    counts[slot] = c
                    total += 1
                elif kind == 1:
                    acc += c * sc[2]
                elif kind == 2:
                    nk = upper | new
                    acc += c * (score_cache.get(nk) or scores(nk))[1]
                else:  # a wipe: after_wipe(key), inline as this runs once per state
                    saved = counts[:]
                    saved_total = total
                    nk = wiped(key)
                    total = sum(counts)
                    acc += c * value(nk)
                    counts[:] = saved
                    total = saved_total
            for slot in extra:  # a Modifier joins the line
                c = counts[slot]
                if c:
                    counts[slot] = c - 1
                    total -= 1
                    acc += c * value(key + (1 << (_MODS_SHIFT + 2 * (slot - NUMBER_SLOTS))))
                    counts[slot] = c
                    total += 1
            return acc / total

        def after_wipe(key: int) -> float:
            """The value after an Unlucky 7 wipes ``key``'s line (§4.4), the pile then restored."""
            nonlocal total
            saved = counts[:]
            saved_total = total
            nk = wiped(key)
            total = sum(counts)
            result = value(nk)
            counts[:] = saved
            total = saved_total
            return result

        def zero_value(key: int) -> float:
            """The value of a root line holding The Zero, in closed form (§4.3)."""
            return self._zero_value(key, counts, total, lambda: after_wipe(key))

        def value(key: int) -> float:
            found = memo.get(key)
            if found is not None:
                return found
            line = key & LINE_MASK
            stay = float((score_cache.get(key) or scores(key))[0])
            if zero_forces and line & 1:
                if (
                    key == root
                    and closed
                    and key & mods_mask == 0
                    and (key >> _TAG_SHIFT or not root_mods)
                    and not (exact and counts[_U7])
                ):
                    result = zero_value(key)
                    memo[key] = result
                    return result
                forced = True
            elif line:
                forced = False
            else:
                forced = forced_of(key)
            if not forced and policy is not None:
                if not policy(line | (1 << _TAG_SHIFT if key >> _TAG_SHIFT else 0)):
                    memo[key] = stay
                    return stay
                result = hit(key)
                result = stay if result != result else result
                memo[key] = result
                return result
            if not forced and threshold is not None:
                below = sums.get(line)
                if below is None:
                    below = _line_sum(line)
                if below >= threshold:
                    memo[key] = stay
                    hits[key] = False
                    return stay
            h = hit(key)
            if h != h:  # nothing left to draw: the round is scored as it stands
                result = stay
            elif forced:
                result = h
            elif threshold is not None or h > stay:
                hits[key] = True
                result = h
            else:
                hits[key] = False
                result = stay
            memo[key] = result
            return result

        return value, hit

    # -- the optimum, fast. The same recursion as :meth:`_search`, with the same values and
    # decisions, but the pile is never updated: a state's count of a slot is (the pile plus
    # the starting line's cards) less the state's line's cards, and its total is the same
    # less the line's size and the Modifiers drawn. Each state carries its number sum, its
    # safe cards (neither a bust nor a wipe) and their values' sum; with those, a five-card
    # line whose scores are its number sum less a penalty has the values of its six-card
    # children in closed form (the next safe card is Flip 7), worked out in place.
    #
    # The states split into phases by the Unlucky 7 wipes behind them (§4.4): each phase
    # has its own pile (:class:`_PhasePile`) and its own recursion (:meth:`_build_phase`),
    # built when the first wipe into it is drawn. The recursion is closures, not methods,
    # for speed: it runs once per state, and reads its figures as local cells.

    def _optimal(self, root: int) -> tuple[Callable[[int], float], Callable[[int], float]]:
        """The value and hit-value functions of optimal play from ``root``, wipes put back.

        The memo and the decisions are the model's: a second call from the same root reuses
        them."""
        if self._threshold is not None or root != self._fast_root:
            self._memo.clear()
            self._hits.clear()
            self._threshold = None
            self._shortcut = False
        self._fast_root = root
        self._shortcut = self._shortcut or self.shortcuts
        memo = self._memo
        phases: dict[int, _Phase] = {}

        def phase_of(tag: int) -> _Phase:
            """The recursion of the states after ``tag`` Unlucky 7 wipes, built once."""
            found = phases.get(tag)
            if found is None:
                found = phases[tag] = self._build_phase(tag, root, phase_of)
            return found

        value0, hit0, start_safe, start_worth = phase_of(0)
        start_sum = _line_sum(root & LINE_MASK)

        def root_value(key: int) -> float:
            """The expected round score of state ``key``, played on optimally."""
            found = memo.get(key)
            return value0(key, start_sum, start_safe, start_worth) if found is None else found

        def root_hit(key: int) -> float:
            """The expected round score of hitting at state ``key``, then playing optimally."""
            return hit0(key, start_sum, start_safe, start_worth)

        return root_value, root_hit

    def _phase_pile(self, tag: int, root_line: int) -> _PhasePile:
        """The cards the phase after ``tag`` Unlucky 7 wipes draws from (§4.4, put back)."""
        if tag:  # Modifiers are neutral after a wipe (see _frozen)
            pile = self._frozen(tag)[:NUMBER_SLOTS]
            start = U7_LINE
            mods: list[int] = []
            divides, penalty = 0, 0
        else:
            pile = self._base[:NUMBER_SLOTS]
            start = root_line
            mods = self._base[NUMBER_SLOTS:]
            divides, penalty = self.rules.divides, self.rules.penalty
        plus = [c + h for c, h in zip(pile, _held(start), strict=True)]
        return _PhasePile(
            start=start,
            plus=plus,
            regular=tuple((v, 1 << v, plus[v]) for v in range(_THIRTEEN) if plus[v]),
            c13=plus[_THIRTEEN],
            c15=plus[_L13],
            wipes=pile[_U7],
            numbers=sum(plus),
            mods=mods,
            divides=divides,
            penalty=penalty,
        )

    def _build_phase(self, tag: int, root: int, phase_of: Callable[[int], _Phase]) -> _Phase:
        """The optimum's recursion over the states after ``tag`` Unlucky 7 wipes (§4.4).

        Returns its value and hit functions (each takes a state's key, number sum, safe cards
        and their values' sum) and those figures of the line the phase starts from. The
        value of a state asks the hit value, which asks the values of the lines one card
        on: the two are closures over this phase's figures, which they read as local cells.
        """
        pile = self._phase_pile(tag, root & LINE_MASK)
        memo, hits = self._memo, self._hits
        rules = self.rules
        zero_forces, distinct = rules.the_zero, rules.flip7_distinct
        forced_of = self.forced
        regular, c13, c15 = pile.regular, pile.c13, pile.c15
        wipes, numbers, plus = pile.wipes, pile.numbers, pile.plus
        # The Modifiers of the model: by kind (``extra``, states keyed by what was drawn),
        # or by how many were drawn (``counted``, mean scores, see _mean_scores).
        mods_total = sum(pile.mods)
        counted = bool(mods_total) and self.count_modifiers is not None
        extra = (
            tuple((i, 1 << (_MODS_SHIFT + 2 * i), c) for i, c in enumerate(pile.mods) if c)
            if not counted
            else ()
        )
        scores, plain = _phase_scores(pile, rules, counted, self.count_modifiers or 0)
        wiped, all_wipes = _wipe_value(memo, tag, wipes, phase_of)
        # Scores linear from ``above`` (the number sum less the penalty): the five-card
        # lines' children in closed form, and the lines where staying provably wins pruned.
        prunable = self.shortcuts and not mods_total and not pile.divides
        linear = prunable and not distinct
        above = -(10**9) if rules.brutal else pile.penalty
        five_card_hit = _five_card_hit(pile, zero_forces, wiped, all_wipes)
        stay_wins = _stay_wins(pile.penalty, wipes, wiped)
        # A root holding The Zero is counted in closed form (why only the root: see _search).
        closed = not distinct and not self.keep_modifiers and self.closed_forms
        root_mods = bool(rules.divides or rules.penalty)
        zero_value = self._zero_value
        values_mask = _VALUES_MASK
        bit13 = 1 << _THIRTEEN
        pair_step = 2 << _C13_SHIFT
        lucky_alone = bit13 | (1 << _C13_SHIFT)
        one_more = 1 << _MODS_SHIFT
        nan = float("nan")
        # A line one card short of Flip 7 flips on any safe card; two short, it is closed form.
        one_short = FLIP7_CARDS - 1
        two_short = FLIP7_CARDS - 2

        def hit(
            key: int, line: int, s: int, safe: int, worth: int, n: int, f: list[float], left: int
        ) -> float:
            """The expected round score of taking one more card at state ``key``.

            Its line ``line`` has number sum ``s``, ``safe`` safe cards worth ``worth`` in all
            and ``n`` cards; ``f`` is its score table and ``left`` the model's cards left."""
            # The slots are summed in the general recursion's order (0..12, 13, Unlucky 7,
            # Lucky 13, Modifiers): with every state decided, the floats are the same.
            bust = f[_BUST_AT]
            if linear and n == two_short and s >= above:
                return five_card_hit(line, s, safe, worth, left, bust)
            acc = 0.0
            flips = ((line & values_mask).bit_count() if distinct else n) >= one_short
            for v, bit, c in regular:
                if line & bit:  # a duplicate busts, a regular 7 after Unlucky 7 too (§4.4.3)
                    if bust:
                        acc += (c - (0 if v == _SEVEN and line & _U7_FLAG else 1)) * bust
                elif flips:
                    acc += c * (f[s + v] + FLIP7_BONUS)
                else:
                    nk = key | bit
                    x = memo.get(nk)
                    acc += c * (value(nk, s + v, safe - c, worth - c * v) if x is None else x)
            # The 13s (§4.5): a regular 13 and Lucky 13 pair in either order, a third busts.
            pair_flips = not distinct and n >= one_short
            code13 = line >> _C13_SHIFT & 3
            if c13:
                if not line & bit13:
                    if flips:
                        acc += c13 * (f[s + _THIRTEEN] + FLIP7_BONUS)
                    else:
                        nk = key | bit13
                        x = memo.get(nk)
                        if x is None:
                            x = value(nk, s + _THIRTEEN, safe - c13, worth - 13 * c13)
                        acc += c13 * x
                elif code13 == 1:  # Lucky 13, then a regular 13: a pair
                    if pair_flips:
                        acc += c13 * (f[s + _THIRTEEN] + FLIP7_BONUS)
                    else:
                        nk = key ^ (3 << _C13_SHIFT)
                        x = memo.get(nk)
                        if x is None:
                            gone = c13 + c15 - 1
                            x = value(nk, s + _THIRTEEN, safe - gone, worth - 13 * gone)
                        acc += c13 * x
                elif bust:
                    acc += (c13 - (0 if code13 == 3 else 1)) * bust
            if wipes:
                acc += all_wipes[0] if all_wipes else wipes * wiped()
            if c15:
                if not line & bit13:
                    if flips:
                        acc += c15 * (f[s + _THIRTEEN] + FLIP7_BONUS)
                    else:
                        nk = key | lucky_alone
                        x = memo.get(nk)
                        if x is None:
                            x = value(nk, s + _THIRTEEN, safe - 1, worth - 13)
                        acc += c15 * x
                elif code13 < 2:  # a pair: Lucky 13 with a regular 13 or a Lucky 13
                    c = c15 - code13
                    if c:
                        if pair_flips:
                            acc += c * (f[s + _THIRTEEN] + FLIP7_BONUS)
                        else:
                            nk = key | pair_step
                            x = memo.get(nk)
                            if x is None:
                                gone = c + (c13 if code13 else 0)
                                x = value(nk, s + _THIRTEEN, safe - gone, worth - 13 * gone)
                            acc += c * x
                elif bust:
                    acc += (c15 - code13 + 1) * bust
            c = left - numbers + n  # the model's Modifiers left
            if c:
                acc = modifier_drawn(acc, key, s, safe, worth, c)
            return acc / left

        def modifier_drawn(acc: float, key: int, s: int, safe: int, worth: int, c: int) -> float:
            """``acc`` plus the ``c`` Modifiers left in the model, each joining the line."""
            if counted:  # one more drawn, whichever
                nk = key + one_more
                x = memo.get(nk)
                return acc + c * (value(nk, s, safe, worth) if x is None else x)
            code = key >> _MODS_SHIFT & _MODS_MASK
            for i, step, total in extra:
                c = total - (code >> (2 * i) & 3)
                if c:
                    nk = key + step
                    x = memo.get(nk)
                    acc += c * (value(nk, s, safe, worth) if x is None else x)
            return acc

        def value(key: int, s: int, safe: int, worth: int) -> float:
            """The expected round score of state ``key`` played on optimally: Hit or Stay.

            Its line has number sum ``s`` and ``safe`` safe cards worth ``worth`` in all. The
            callers look in the memo first, so this is asked once per state."""
            line = key & LINE_MASK
            n = (line & values_mask).bit_count() + (line >> 16 & 1)
            if plain:
                f = plain
                left = numbers - n
            else:
                f, left = scores(key, n)
            if zero_forces and line & 1:  # The Zero: it must hit, and stays at 0 (§4.3)
                if key == root and closed and (tag or not root_mods):
                    pile_now = [p - h for p, h in zip(plus, _held(line), strict=True)]
                    result = zero_value(key, pile_now, left, wiped)
                    memo[key] = result
                    return result
                stay = 0.0
                forced = True
            else:
                stay = float(f[s])
                forced = not line and forced_of(key)
            if not left:  # nothing left to draw: the round is scored as it stands
                memo[key] = stay
                return stay
            if (
                prunable
                and not forced
                and key != root
                and s >= above
                and stay_wins(s, safe, worth, n, left)
            ):
                hits[key] = False
                memo[key] = stay
                return stay
            h = hit(key, line, s, safe, worth, n, f, left)
            if forced:
                result = h
            elif h > stay:
                hits[key] = True
                result = h
            else:
                hits[key] = False
                result = stay
            memo[key] = result
            return result

        def hit_at(key: int, s: int, safe: int, worth: int) -> float:
            """The hit value of state ``key`` (figures as for ``value``); NaN with no card left."""
            line = key & LINE_MASK
            n = (line & values_mask).bit_count() + (line >> 16 & 1)
            f, left = scores(key, n)
            return hit(key, line, s, safe, worth, n, f, left) if left else nan

        safe, worth = _safe_cards(pile.start, plus)
        return value, hit_at, safe, worth

    def _zero_value(
        self, key: int, pile: Sequence[int], left: int, after_wipe: Callable[[], float]
    ) -> float:
        """The expected round score of state ``key``, whose line holds The Zero (§4.3).

        ``pile`` is what it draws from, ``left`` the model's cards left, ``after_wipe`` the
        value after an Unlucky 7 wipe: see :func:`_zero_line_value`. Both recursions use it,
        the general one for the pile as it stands, the fast one for a phase's pile."""
        flip = (self._score_cache.get(key) or self._scores(key))[1]
        return _zero_line_value(key & LINE_MASK, pile, left, flip, after_wipe)

    def outcomes(self, line: int) -> tuple[float, float]:
        """After :meth:`value` from ``line``: the probabilities that the round ends in Flip 7
        and in a bust, playing by the decisions :meth:`value` made."""
        if self.count_modifiers is not None:
            raise Flip7Error("outcomes need the Modifiers tracked, not counted")
        self._every_state()
        memo: dict[int, tuple[float, float]] = {}
        if not self.exact_wipe and not self.keep_modifiers:
            return self._put_back_outcomes(line, memo)
        self._counts[:] = self._base
        return self._outcomes(line, memo)

    def _put_back_outcomes(
        self, root: int, memo: dict[int, tuple[float, float]]
    ) -> tuple[float, float]:
        """:meth:`outcomes` with the wipes put back and no Modifiers, the draws read from
        each phase's pile: the same sums as :meth:`_outcomes`, in its order."""
        hits, forced_of, zero_forces = self._hits, self.forced, self.rules.the_zero

        def phase(tag: int) -> tuple[float, float]:
            """The outcomes from the line the phase after ``tag`` wipes starts from."""
            pile, draws = self._draws_of(tag, root)
            numbers = pile.numbers
            after_wipe: list[tuple[float, float]] = []

            def outcome(key: int) -> tuple[float, float]:
                line = key & LINE_MASK
                left = numbers - (line & _VALUES_MASK).bit_count() - (line >> 16 & 1)
                forced = (zero_forces and line & 1) or (not line and forced_of(key))
                if not left or (not forced and not hits.get(key, True)):
                    memo[key] = (0.0, 0.0)
                    return 0.0, 0.0
                upper = key ^ line
                flip = bust = 0.0
                for bit, c, held, _, kind, kept, added in draws(line):
                    if line & bit:
                        c, kind = held, _BUSTS
                    if kind == _GO:
                        nk = upper | line & kept | added
                        f, b = memo.get(nk) or outcome(nk)
                    elif kind == _BUSTS:
                        bust += c * 1.0
                        continue
                    elif kind == _FLIP:
                        flip += c * 1.0
                        continue
                    else:
                        if not after_wipe:
                            after_wipe.append(phase(tag + 1))
                        f, b = after_wipe[0]
                    flip += c * f
                    bust += c * b
                found = memo[key] = (flip / left, bust / left)
                return found

            start = tag << _TAG_SHIFT | pile.start if tag else root
            return memo.get(start) or outcome(start)

        return phase(0)

    def _outcomes(self, key: int, memo: dict[int, tuple[float, float]]) -> tuple[float, float]:
        found = memo.get(key)
        if found is not None:
            return found
        counts = self._counts
        total = sum(counts)
        if not total or (not self.forced(key) and not self._hits.get(key, True)):
            memo[key] = (0.0, 0.0)
            return 0.0, 0.0
        line = key & LINE_MASK
        upper = key ^ line
        table = _TRANSITIONS.get((line, self.rules.flip7_distinct)) or _transitions(
            line, self.rules.flip7_distinct
        )
        flip = bust = 0.0
        steps: list[tuple[int, int, int]] = [*table]
        steps.extend((slot, -1, -1) for slot in range(NUMBER_SLOTS, len(counts)))
        for slot, new, kind in steps:
            c = counts[slot]
            if not c:
                continue
            if kind == _BUSTS:
                f, b = 0.0, 1.0
            elif kind == _FLIP:
                f, b = 1.0, 0.0
            elif kind == _WIPES:
                saved = counts[:]
                f, b = self._outcomes(self._wiped(key), memo)
                counts[:] = saved
            else:
                counts[slot] = c - 1
                if kind == -1:
                    nxt = key + (1 << (_MODS_SHIFT + 2 * (slot - NUMBER_SLOTS)))
                else:
                    nxt = upper | new
                f, b = self._outcomes(nxt, memo)
                counts[slot] = c
            flip += c * f
            bust += c * b
        out = (flip / total, bust / total)
        memo[key] = out
        return out


sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))


# ---------------------------------------------------------------------------- the optimum's parts
#
# The pieces :meth:`LineModel._build_phase` builds a phase's recursion from. Each factory
# returns closures over its figures, which the recursion calls once per state or less.

_Scores = Callable[[int, int], tuple[list[float], int]]
_FiveCardHit = Callable[[int, int, int, int, int, float], float]
_Stays = Callable[[int, int, int, int, int], bool]


@dataclass(frozen=True, slots=True)
class _PhasePile:
    """The cards one phase of the optimum draws from: a phase per Unlucky 7 wipe (§4.4).

    A phase is the states with the same number of wipes behind them (put-back model). The
    first starts from the root's line and pile, each later one from {Unlucky 7} and the pile
    of :meth:`LineModel._frozen`."""

    start: int  # the line the phase starts from
    plus: list[int]  # the pile plus the start line's cards: a state's pile is this less its line
    regular: tuple[tuple[int, int, int], ...]  # (value, its line bit, copies in plus), 0..12
    c13: int  # regular 13s in plus
    c15: int  # Lucky 13s in plus
    wipes: int  # Unlucky 7s in the pile
    numbers: int  # Number cards in plus
    mods: list[int]  # the model's Modifiers in the pile (none after a wipe)
    divides: int  # ÷2 cards in the line before any drawn (none after a wipe, §4.4.1)
    penalty: int  # the sum of the −N cards in the line, the same way


def _phase_scores(
    pile: _PhasePile, rules: LineRules, counted: bool, cap: int
) -> tuple[_Scores, list[float]]:
    """The score tables of a phase's lines (§8, §10) by Modifiers drawn; the one without."""
    divides, penalty, mods = pile.divides, pile.penalty, pile.mods
    brutal = rules.brutal
    bust_penalty = brutal and rules.busted_modifiers_count
    numbers = pile.numbers
    mods_total = sum(mods)
    by_count = _mean_scores(mods, divides, penalty, brutal, bust_penalty, cap) if counted else []
    by_code: dict[int, list[float]] = {}
    left_of: dict[int, int] = {}  # the model's Modifiers left in the pile, by code

    def score_table(code: int) -> list[float]:
        """Round score by number sum with the Modifiers of ``code`` drawn, then bust score."""
        table, drawn = _score_table(code, divides, penalty, brutal, bust_penalty)
        left_of[code] = mods_total - drawn
        by_code[code] = table
        return table

    plain = score_table(0) if not mods_total else []

    def scores(key: int, n: int) -> tuple[list[float], int]:
        """The score table of state ``key`` (``n`` cards), and its cards left."""
        code = key >> _MODS_SHIFT & _MODS_MASK
        if counted:
            return by_count[code], numbers - n + (mods_total - code if code < cap else 0)
        f = by_code.get(code) or score_table(code)
        return f, numbers - n + left_of[code]

    return scores, plain


# One slot's draw (see _phase_draws): its line bit (0: not a regular value), its copies,
# its copies when the line holds that bit, its value, the kind of draw, and the new line's
# bits kept from the line and bits added.
_Draw = tuple[int, int, int, int, int, int, int]
_Draws = tuple[_Draw, ...]
_THIRTEENS_HELD = ((1, 0), (0, 1), (1, 1), (0, 2))  # (regular 13s, Lucky 13s) by 13 code
_BITS13 = (1 << _THIRTEEN) | (3 << _C13_SHIFT)  # a line's 13s


def _phase_draws(pile: _PhasePile, distinct: bool) -> Callable[[int], _Draws]:
    """What the next card does to a line of a phase, slot by slot in the general
    recursion's order (0..12, 13, Unlucky 7, Lucky 13), as :func:`_transitions` has it.

    A slot's copies are the phase's ``plus`` less the line's own cards, so no pile is
    kept up to date. Each line reads one of twenty tables, by its 13s, whether a new
    value flips it and whether it holds Unlucky 7: a regular value whose bit the line
    holds busts, with the copies of its entry's third field (a regular 7 after Unlucky 7
    with every copy, §4.4.3; a bust with none left adds nothing); otherwise the kind
    holds, and the new line is the line's bits kept, plus the bits added."""
    one_short = FLIP7_CARDS - 1
    tables: list[_Draws] = []
    for code in range(5):  # 4: no 13
        held13, held15 = _THIRTEENS_HELD[code] if code < 4 else (0, 0)
        thirteens = 0 if code == 4 else (1 << _THIRTEEN) | code << _C13_SHIFT
        copies = pile.plus[_THIRTEEN] - held13, pile.wipes, pile.plus[_L13] - held15
        for flips in (False, True):
            go = _FLIP if flips else _GO
            for unlucky in (False, True):
                table = [
                    (bit, c, c if v == _SEVEN and unlucky else c - 1, v, go, LINE_MASK, bit)
                    for v, bit, c in pile.regular
                ]
                for slot, c in zip((_THIRTEEN, _U7, _L13), copies, strict=True):
                    new = _add(thirteens, slot)
                    if not c:
                        continue
                    if slot == _U7:
                        table.append((0, c, c, 0, _WIPES, 0, U7_LINE))
                    elif new == BUST:
                        table.append((0, c, c, _THIRTEEN, _BUSTS, 0, BUST))
                    else:  # a first 13 is a new value; a pair's second flips by count only
                        kind = _FLIP if flips and not (distinct and thirteens) else _GO
                        table.append((0, c, c, _THIRTEEN, kind, LINE_MASK ^ _BITS13, new))
                tables.append(tuple(table))
    bit13 = 1 << _THIRTEEN

    def draws(line: int) -> _Draws:
        """The draws of ``line`` (a key of the phase)."""
        values = (line & _VALUES_MASK).bit_count()
        flips = (values if distinct else values + (line >> 16 & 1)) >= one_short
        code = line >> _C13_SHIFT & 3 if line & bit13 else 4
        return tables[code << 2 | flips << 1 | (line >> 14 & 1)]

    return draws


def _wipe_value(
    memo: dict[int, float], tag: int, wipes: int, phase: Callable[[int], _Phase]
) -> tuple[Callable[[], float], list[float]]:
    """The value right after an Unlucky 7 wipe (§4.4), and the wipes times it once known."""
    after_wipe: list[float] = []
    all_wipes: list[float] = []  # the phase's wipes times the value after one, once known

    def wiped() -> float:
        """The value after a wipe (the first call works it out)."""
        if not after_wipe:
            then, _, safe, worth = phase(tag + 1)
            key = (tag + 1) << _TAG_SHIFT | U7_LINE
            found = memo.get(key)
            after_wipe.append(then(key, _SEVEN, safe, worth) if found is None else found)
            all_wipes.append(wipes * after_wipe[0])
        return after_wipe[0]

    return wiped, all_wipes


def _thirteen_takes(c13: int, c15: int) -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
    """The regular 13s and Lucky 13s a line can take without a bust (§4.5), by its 13s.

    Indexed by the 13 code of the key (0..3), or 4 when the line has no 13. Each entry:
    (copies, how many of the line's safe cards are then no longer safe, the one taken
    included)."""
    return (
        ((0, 0), (c15, c15)),  # a regular 13: Lucky 13 pairs with it
        ((c13, c13 + c15 - 1), (c15 - 1, c15 - 1 + c13)),  # Lucky 13: either 13 pairs
        ((0, 0), (0, 0)),  # a pair: a third 13 busts
        ((0, 0), (0, 0)),  # two Lucky 13s, the same
        ((c13, c13), (c15, 1)),  # none: either joins (then a second regular 13 busts)
    )


def _five_card_hit(
    pile: _PhasePile, zero_forces: bool, wiped: Callable[[], float], all_wipes: list[float]
) -> _FiveCardHit:
    """The hit value of a five-card line in closed form: each child is one card from Flip 7."""
    plus, regular, c13, c15 = pile.plus, pile.regular, pile.c13, pile.c15
    wipes, penalty = pile.wipes, pile.penalty
    bit13 = 1 << _THIRTEEN
    takes13 = _thirteen_takes(c13, c15)
    squares = sum(c * c for _, _, c in regular)  # see children_with_zero
    squares_worth = sum(c * c * v for v, _, c in regular)

    def five_card_hit(line: int, s: int, safe: int, worth: int, left: int, bust: float) -> float:
        """The hit value of a five-card line: its six-card children summed in closed form.

        No Modifiers in the model, scores linear from ``s``. Each child's hit value is (its
        safe cards, each Flip 7 at its number sum plus the card's value less the penalty plus
        15, its wipes, and its busts) over its cards left.

        A child's hit value less its stay score falls as the card's value and the
        copies it takes out of the safe cards rise: once a child with one copy out
        would stay, so do all the children of higher values, and they are added up at
        once (their number sums less the penalty)."""
        rest = left - 1
        if wipes and not all_wipes:
            wiped()
        w = all_wipes[0] if wipes else 0.0
        here = (w + bust * (left - safe - wipes)) / left  # this line's wipes and busts
        zero = zero_forces and line & 1
        if not rest:  # each child is scored as it stands: a line with The Zero, 0
            if zero:
                return here
            as_they_stand = (s - penalty) * safe + worth
            if zero_forces and plus[0]:
                as_they_stand -= plus[0] * (s - penalty)
            return as_they_stand / left + here
        base = FLIP7_BONUS - penalty
        more = w + bust * (rest - safe - wipes)  # a child's wipes and busts, but some
        if zero:
            return children_with_zero(line, s + base, safe, worth, more, bust) / rest / left + here
        ends = s + base > bust  # (then the fall holds)
        # Each child's hit value and stay score, times ``rest``.
        acc = 0.0
        done = done_worth = 0
        sb = s + base
        kept = s - penalty
        for v, bit, c in regular:
            if line & bit:
                continue
            t = sb + v
            if v or not zero_forces:
                stay = (kept + v) * rest
                if ends and t * (safe - 1) + worth - v + more + bust <= stay:
                    break  # this child and every later one stays
                h = t * (safe - c) + worth - c * v + more + bust * c
                acc += c * (h if h > stay else stay)
            else:  # the child holds The Zero: it must hit
                acc += c * (t * (safe - c) + worth + more + bust * c)
            done += c
            done_worth += c * v
        else:
            for c, gone in takes13[line >> _C13_SHIFT & 3 if line & bit13 else 4]:
                if c:
                    t = sb + _THIRTEEN
                    h = t * (safe - gone) + worth - 13 * gone + more + bust * gone
                    stay = (kept + _THIRTEEN) * rest
                    acc += c * (h if h > stay else stay)
                    done += c
                    done_worth += 13 * c
        acc = acc / rest + kept * (safe - done) + worth - done_worth
        return acc / left + here

    def children_with_zero(
        line: int, sb: int, safe: int, worth: int, more: float, bust: float
    ) -> float:
        """The children of a line holding The Zero, summed: each must hit (§4.3.3).

        Their hit values times the cards they have left; ``sb`` is s + 15 - penalty."""
        # A child of a card worth v with a copies, of which g leave the safe cards, has (its
        # hit value times its cards left) k + v * safe - g * (sb + 2v - bust), where
        # k = sb * safe + worth + more; so the children add up to
        # k * safe + safe * worth - (sb - bust) * Σ a g - 2 Σ a g v.
        # For a regular value a = g: the squares of the counts not in the line.
        ag, agv = squares, squares_worth
        held = line & _REGULAR_VALUES
        while held:
            low = held & -held
            v = low.bit_length() - 1
            c = plus[v]
            ag -= c * c
            agv -= c * c * v
            held ^= low
        for a, gone in takes13[line >> _C13_SHIFT & 3 if line & bit13 else 4]:
            ag += a * gone
            agv += 13 * a * gone
        k = sb * safe + worth + more
        return k * safe + safe * worth - (sb - bust) * ag - 2 * agv

    return five_card_hit


def _stay_wins(penalty: int, wipes: int, wiped: Callable[[], float]) -> _Stays:
    """Whether staying provably beats hitting at a line, so that its hit is never walked."""

    def stay_wins(s: int, safe: int, worth: int, n: int, left: int) -> bool:
        """Whether staying provably beats hitting at a line with number sum ``s``,
        ``safe`` safe cards worth ``worth``, ``n`` cards and ``left`` cards left (scores
        linear from ``s``: the number sum less the penalty).

        Let Y be the score of the line while it lives (0 once it busts or is wiped).
        One more card makes E[Y] ((s - penalty) * safe + worth) / left, no more than
        Y now while worth <= (s - penalty) * (left - safe); and that holds on every
        later line too (the sum rises, the cards that do not take fall, so do their
        values). So, whatever the play after a hit, E[Y at the end] is at most E[Y]
        after the one card, and the round scores at most Y, plus 15 for Flip 7, plus
        the value after a wipe for a wipe: Flip 7 needs the next FLIP7_CARDS - n cards safe,
        each at most (safe - i) / (left - i) likely, and a wipe comes with each of
        the next cards at most wipes / (left - i) likely."""
        y = s - penalty
        if worth > y * (left - safe):
            return False
        bound = (y * safe + worth) / left
        if bound >= y:
            return False
        chance = 1.0
        for i in range(FLIP7_CARDS - n):
            if safe <= i:
                chance = 0.0
                break
            chance *= (safe - i) / (left - i)
        bound += FLIP7_BONUS * chance
        if wipes:
            after = wiped()
            if after > 0:
                draws = min(8 - n, left)  # sum of wipes / (left - i), i < draws
                bound += after * wipes * draws / (left - draws + 1)
        return bound < y - 1e-9 * (1 + abs(y))

    return stay_wins


def _zero_line_value(
    line: int, pile: Sequence[int], left: int, flip: int, after_wipe: Callable[[], float]
) -> float:
    """The expected round score of a line holding The Zero (§4.3), in closed form.

    It must hit until Flip 7 (scored ``flip`` plus the cards' values, §5), a bust (0) or an
    Unlucky 7 wipe (``after_wipe()``, asked at most once). ``pile`` is the Number cards it
    draws from, ``left`` the model's cards left."""
    # No decision to make, so the sets of cards that complete Flip 7 are counted instead of
    # walked: any order of a safe set is as likely.
    need = FLIP7_CARDS - _count(line)
    e, t = _safe_sets(line, pile, need)
    orders = 1.0  # i! / (left)_i, built up as i grows
    wipes = pile[_U7]
    wipe_value: float | None = None
    acc = 0.0
    for i in range(need):
        if wipes and e[i]:
            if wipe_value is None:
                wipe_value = after_wipe()
            acc += orders * e[i] * wipes / (left - i) * wipe_value
        orders *= (i + 1) / (left - i) if left > i else 0.0
    return acc + orders * (e[need] * flip + t[need])


def _safe_sets(line: int, pile: Sequence[int], need: int) -> tuple[list[float], list[float]]:
    """The safe sets of Number cards (no bust, no Unlucky 7) of ``pile`` that ``line`` takes.

    For i = 0..``need`` cards: e[i] sums, over those sets of i cards, the product of the
    copies of each card's value; t[i] the same, each set weighted by its values' sum."""
    e = [1.0] + [0.0] * need
    t = [0.0] * (need + 1)
    for slot in range(_THIRTEEN):
        c = pile[slot]
        if c and not line >> slot & 1:
            for i in range(need, 0, -1):
                t[i] += c * (t[i - 1] + slot * e[i - 1])
                e[i] += c * e[i - 1]
    regular, lucky = pile[_THIRTEEN], pile[_L13]
    if regular or lucky:  # at most two 13s, by §4.5
        e2 = [0.0] * (need + 1)
        t2 = [0.0] * (need + 1)
        for r, k, _ in _thirteen_options(line):
            a = r + k
            w = _falling(regular, r) * _falling(lucky, k) / (2 if k == 2 else 1)
            if not w:
                continue
            for i in range(a, need + 1):
                e2[i] += w * e[i - a]
                t2[i] += w * (t[i - a] + 13 * a * e[i - a])
        e, t = e2, t2
    return e, t
