"""The solitaire optimum: one player alone drawing Number cards from a fresh deck.

``flip7 solve`` and :func:`solve` compute, exactly, the best a player can do in a round of
*Flip 7: With a Vengeance* played alone with the deck's Number cards only: the optimal
expected round score and the policy that reaches it, and how close the best fixed stop
threshold ("hit while my number sum is below T") comes.

The model (RULES.md section numbers):

* The deck's Number cards only (§1.1): for Vengeance the 92 Number cards, **including** the
  three Special Numbers, which are Number cards (§4.2): The Zero, Unlucky 7 and Lucky 13.
  No Modifier or Action card is in the deck, so nothing else can reach the line.
* One player, who hits or stays (§3.2). The first card must be taken (an empty line cannot
  Stay, §3.2.3, ``can_stay_with_empty_line = false``), which is the round's first deal card.
* A duplicate value busts: the round scores 0 (§2.3, §4.1). Seven Number cards are Flip 7:
  the round ends at once and scores the sum + 15 (§5, §8).
* The Zero (§4.3): while it is in the line the player must hit; without Flip 7 the round
  scores 0; with Flip 7 it scores in full (+15).
* Unlucky 7 (§4.4): when it is drawn every other card of the line goes to the discard pile
  and the line is {Unlucky 7}; it never busts on arrival, a regular 7 after it busts.
  By the rules the wiped cards are out of the draw pile for the rest of the round (§3.5.2),
  so the game after a wipe depends on what was wiped. :func:`solve_exact` and
  :class:`ExactModel` solve that game exactly (section "exact wipes" below): several
  thousand games after a wipe, one per wiped line, sharing their states, 2.8 million in
  all; about 25 s of pure Python for the optimum and 7 s a threshold. :func:`solve` and
  :class:`LineModel` by default use the put-back model: the wiped cards go back into the
  pile, so that the draw pile is always the deck less the line and the state is the line
  alone (``exact_wipe=True`` there walks the exact game by the general recursion: fine for
  small decks, far too slow for the full deck).
* Lucky 13 (§4.5): a regular 13 and Lucky 13 are a safe pair in either order, both score,
  and both count toward Flip 7 (``lucky13_pair_flip7_count = 2``); a third 13 busts.
* The deck never runs out: a round uses at most 7 + 1 + 6 cards before a wipe and after.
* Brutal mode (§10) changes nothing here: the line holds no Modifiers and there is no other
  player to take −15.

The Vengeance figures (``flip7 solve``). By the rules (wiped cards to the discard pile) the
optimum is 20.7502 (20.75023; Flip 7 in 1.10% of rounds, a bust in 33.53%), and the best
fixed threshold, "hit while the number sum is below 27", scores 20.6490, 99.51% of it
(:data:`VENGEANCE_EXACT`: computed ahead, as the full solve takes about 50 s; a test
recomputes it, and plays the optimal policy in a Monte Carlo that deals the deck). In the
put-back model the optimum is 20.7495 (Flip 7 1.10%, bust 33.52%) and the threshold 27
scores 20.6484; that optimum's policy played by the rules scores 20.7501, 0.0001 below the
rules' optimum.

``--deck base-numbers`` is the original Flip 7's number deck: values 0–12, value *n* with
*n* copies and one 0, none of them special. Its optimum is the published 18.5652:

>>> base = solve("base-numbers")
>>> round(base.optimum, 4)
18.5652
>>> base.best_threshold, round(base.threshold_ev, 4), round(base.share, 4)
(23, 18.5212, 0.9976)
>>> base.policy_rows[1]     # two cards: hit below 22, stay from 22 (a plain threshold)
PolicyRow(cards=2, states=78, hit_states=76, highest_hit=21, lowest_stay=22, fit=22, agree=78)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from math import comb
from typing import Any

from flip7.core.cards import VALUE, Card
from flip7.core.errors import Flip7Error
from flip7.core.lines import FLIP7_CARDS
from flip7.core.scoring import FLIP7_BONUS

__all__ = [
    "BUST",
    "DECKS",
    "VENGEANCE_EXACT",
    "Deck",
    "ExactModel",
    "ExactSolution",
    "LineModel",
    "LineRules",
    "PolicyRow",
    "Solution",
    "ThresholdResult",
    "always_hit_flip7",
    "exact_solution",
    "flip7_reached",
    "key_cards",
    "line_key",
    "receive",
    "solve",
    "solve_exact",
]

# ---------------------------------------------------------------------------- slots and lines
#
# A Number card is a *slot* 0..15, the same numbers as :class:`Card`: 0 is the deck's 0 (The
# Zero in Vengeance, a plain 0 in the base deck), 1..13 the regular values, 14 Unlucky 7,
# 15 Lucky 13. A line is a small int (its *key*):
#
#   bits 0..13   value v is in the line (a 7 of either kind sets bit 7, either 13 bit 13)
#   bit 14       the 7 in the line is Unlucky 7
#   bits 15..16  the 13s, when bit 13 is set: 0 a regular 13, 1 Lucky 13, 2 a regular 13
#                and Lucky 13, 3 two Lucky 13s (two decks)
#
# Order does not matter, except that Unlucky 7 wipes what came before it, and the key of a
# line that holds Unlucky 7 describes the line after the wipe.

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


def _sum(key: int) -> int:
    total = sum(v for v in range(14) if key >> v & 1)
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


# ---------------------------------------------------------------------------- the model


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
_SUMS: dict[int, int] = {}


def _transitions(line: int, distinct: bool) -> tuple[tuple[int, int, int], ...]:
    """(slot, new line, what happens) for each Number slot: go on, bust, Flip 7 or wipe."""
    out = []
    for slot in range(NUMBER_SLOTS):
        new = _add(line, slot)
        if slot == _U7:
            kind = _WIPES
        elif new == BUST:
            kind = _BUSTS
        elif (_distinct(new) if distinct else _count(new)) >= FLIP7_CARDS:
            kind = _FLIP
        else:
            kind = _GO
        out.append((slot, new, kind))
    table = tuple(out)
    _TRANSITIONS[line, distinct] = table
    return table


def _line_sum(line: int) -> int:
    total = _SUMS.get(line)
    if total is None:
        total = _SUMS[line] = _sum(line)
    return total


_SCORE_LEN = 100  # a score table's length: above any number sum
_REGULAR_VALUES = (1 << _THIRTEEN) - 1  # the values 0..12 of a line key
_BUST_AT = _SCORE_LEN  # where a score table keeps the bust score
_Phase = tuple[
    Callable[[int, int, int, int], float], Callable[[int, int, int, int], float], int, int
]
_SCORE_TABLES: dict[tuple[int, int, int, bool, bool], tuple[list[float], int]] = {}


def _held(line: int) -> list[int]:
    """The line's Number cards, counted by slot."""
    held = [(line >> v) & 1 for v in range(14)] + [0, 0]
    if line & _U7_FLAG:
        held[_SEVEN], held[_U7] = 0, 1
    if line & (1 << _THIRTEEN):
        held[_THIRTEEN], held[_L13] = ((1, 0), (0, 1), (1, 1), (0, 2))[line >> _C13_SHIFT & 3]
    return held


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
        self._counts[:] = self._base
        return self._outcomes(line, memo)

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


# ---------------------------------------------------------------------------- keep hitting


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


def always_hit_flip7(
    pile: Sequence[int], line: int = 0, *, flip7_distinct: bool = False
) -> Fraction:
    """The exact probability that a line reaches Flip 7 when its player hits until Flip 7 or a
    bust, drawing the Number cards of ``pile`` (16 counts by slot) in uniformly random order.

    Unlucky 7 wipes are exact: the wiped cards leave the pile (§4.4.1). No order is
    enumerated: the cards of each stretch between wipes are counted as sets (a generating
    function over the slots), so this takes about a millisecond.

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


# ---------------------------------------------------------------------------- exact wipes
#
# The rules' game (§4.4.1, §3.5.2): the cards an Unlucky 7 wipes go to the discard pile and
# stay out of the draw pile for the rest of the round. Before a wipe the state is the line
# alone (the pile is the deck less the line). After it the line is {Unlucky 7} and the pile
# is the deck less the wiped line W, the Unlucky 7 and the line since; with one Unlucky 7 in
# the deck no second wipe comes, so that game has no wipe of its own and is solved once per
# W a wipe can hit, several thousand of them.
#
# They share most of their work. A state after the wipe draws only the slots it can take
# without a bust (the rest bust, whatever their copies), so its value depends on W only
# through W's cards of those slots and W's size (the cards left): the memo key is
# line | (W's cards of the line's safe slots) << 17 | |W| << 49, a W's cards being two bits
# a slot (_wiped_code). Lines where staying wins whatever W was are not expanded: "whatever W"
# is checked on a relaxed game that keeps every safe card of the full deck and takes |W|
# cards off the total (a pile that favours hitting at least as much, _WipeModel._relax); and
# a five-card line after the wipe sums its six-card children in closed form (five_card in
# _WipeModel._recursion), each of them one card from Flip 7.
#
# Floats: a state's value is a mean (weights copies / cards left) of at most 16 terms, at
# most 14 levels deep, so its relative rounding error stays below 1e-13; a decision between
# values closer than that can only cost as much. Staying is taken as proven only with a
# margin of 1e-9. So the figures are exact to well within 1e-12.

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


def _constant(value: float) -> Callable[[], float]:
    return lambda: value


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
        self.memo: dict[int, _Outcome] = {}
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
            self.memo = {}
            self._how = (threshold, policy)
            self._value = self._recursion(threshold, policy)
        return self._value(0, 0, 0)

    def _recursion(
        self, threshold: int | None, policy: Callable[[int], bool] | None
    ) -> Callable[[int, int, int], _Outcome]:
        memo = self.memo
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
                return found
            left = total - size - n
            if not forced:
                if optimal:
                    if stays[size] or (
                        wipes and pre_stays[n](s, safe, worth, n, left)
                    ):  # staying provably wins
                        out = memo[key] = (float(stay), 0.0, 0.0)
                        return out
                elif not hits(line, s):
                    out = memo[key] = (float(stay), 0.0, 0.0)
                    return out
            if not left:  # nothing left to draw: the round is scored as it stands
                out = memo[key] = (float(stay), 0.0, 0.0)
                return out
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
                    v, f, b = value(child, code, size) if got is None else got
                    acc += c * v
                    flips += c * f
                    busts += c * b
                if wipes:
                    v, f, b = value(U7_LINE, as_w, n)
                    acc += wipes * v
                    flips += wipes * f
                    busts += wipes * b
                    taken += wipes
            h = acc / left
            if forced or h > stay or not optimal:
                out = (h, flips / left, (busts + left - taken) / left)
            else:
                out = (float(stay), 0.0, 0.0)
            memo[key] = out
            return out

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


# ---------------------------------------------------------------------------- the solitaire


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


@dataclass(frozen=True, slots=True)
class PolicyRow:
    """The optimal policy at one line length: of the decision states with ``cards`` Number
    cards (Stay allowed), how many hit, the highest number sum that still hits and the
    lowest that stays, and the split by sum that fits best: ``fit`` is the sum to stay from
    (hit below it) that agrees with the policy in the most states, ``agree`` of them."""

    cards: int
    states: int
    hit_states: int
    highest_hit: int | None
    lowest_stay: int | None
    fit: int
    agree: int

    @property
    def threshold(self) -> int | None:
        """Stay at this number sum or more, when one sum separates hit from stay."""
        return self.fit if self.agree == self.states else None

    def to_json(self) -> dict[str, Any]:
        return {
            "cards": self.cards,
            "states": self.states,
            "hit_states": self.hit_states,
            "highest_hit": self.highest_hit,
            "lowest_stay": self.lowest_stay,
            "fit": self.fit,
            "agree": self.agree,
            "threshold": self.threshold,
        }


@dataclass(frozen=True, slots=True)
class ThresholdResult:
    """The policy "hit while the number sum is below ``threshold``": its expected score."""

    threshold: int
    ev: float

    def to_json(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "ev": self.ev}


class _BestThreshold:
    """The best of a solution's fixed thresholds, and its share of the optimum."""

    __slots__ = ()
    optimum: float
    p_flip7: float
    p_bust: float
    thresholds: tuple[ThresholdResult, ...]

    @property
    def best(self) -> ThresholdResult:
        return max(self.thresholds, key=lambda t: (t.ev, -t.threshold))

    @property
    def best_threshold(self) -> int:
        return self.best.threshold

    @property
    def threshold_ev(self) -> float:
        return self.best.ev

    @property
    def share(self) -> float:
        """The best threshold's expected score as a share of the optimum."""
        return self.threshold_ev / self.optimum

    def _figures_json(self) -> dict[str, Any]:
        """The optimum, its chances and the best threshold, as both solutions' JSON has them."""
        return {
            "optimum": self.optimum,
            "p_flip7": self.p_flip7,
            "p_bust": self.p_bust,
            "best_threshold": self.best_threshold,
            "threshold_ev": self.threshold_ev,
            "share": self.share,
        }


@dataclass(frozen=True, slots=True)
class Solution(_BestThreshold):
    """What :func:`solve` found: the optimal expected round score and its policy, the
    probabilities of Flip 7 and of a bust under it, and every fixed threshold tried."""

    deck: str
    exact_wipe: bool
    optimum: float
    p_flip7: float
    p_bust: float
    policy_rows: tuple[PolicyRow, ...]
    thresholds: tuple[ThresholdResult, ...]
    states: int
    seconds: float
    # With ``check_wipes``: the optimal policy and the best threshold played with exact wipes.
    optimum_policy_exact_wipe: float | None = None
    threshold_exact_wipe: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "deck": self.deck,
            "exact_wipe": self.exact_wipe,
            **self._figures_json(),
            "policy": [row.to_json() for row in self.policy_rows],
            "thresholds": [t.to_json() for t in self.thresholds],
            "states": self.states,
            "seconds": self.seconds,
            "optimum_policy_exact_wipe": self.optimum_policy_exact_wipe,
            "threshold_exact_wipe": self.threshold_exact_wipe,
        }


def solve(
    deck: str | Deck = "vengeance",
    *,
    exact_wipe: bool = False,
    thresholds: Iterable[int] = range(10, 46),
    check_wipes: bool = False,
) -> Solution:
    """The solitaire optimum of ``deck`` (a name of :data:`DECKS` or a :class:`Deck`).

    ``exact_wipe=True`` keeps the cards an Unlucky 7 wiped out of the draw pile, as the rules
    do, walking that game by :class:`LineModel`'s general recursion: fine for small decks,
    far too slow for the full Vengeance deck (:func:`solve_exact` solves it in about 50 s).
    By default the wiped cards go back into the pile, so that the draw pile is always the
    deck less the line. Decks without Unlucky 7 are exact either way.

    ``check_wipes`` then plays the policy found, and the best threshold, with exact wipes
    (:class:`ExactModel`: for Vengeance about 20 s). The first figure is a lower bound on
    the optimum with exact wipes.
    """
    if isinstance(deck, str):
        if deck not in DECKS:
            raise Flip7Error(f"unknown deck {deck!r}; decks are {', '.join(DECKS)}")
        deck = DECKS[deck]
    start = time.perf_counter()
    model = LineModel(deck.counts, LineRules(the_zero=deck.the_zero), exact_wipe=exact_wipe)
    model.shortcuts = False  # the policy rows need every state's decision
    optimum = model.value(0)
    p_flip7, p_bust = model.outcomes(0)
    rows = _policy_rows(model)
    states = model.states()
    # The optimal decisions, before the thresholds replace them; keyed by line, and by
    # whether a wipe has happened.
    hits = {
        (key & LINE_MASK) | (1 << _TAG_SHIFT if key >> _TAG_SHIFT else 0): hit
        for key, hit in model.decisions().items()
    }
    tried = tuple(ThresholdResult(t, model.value(0, threshold=t)) for t in thresholds)
    if not tried:
        raise Flip7Error("give at least one threshold to try")
    policy_exact: float | None = None
    threshold_exact: float | None = None
    if check_wipes and not exact_wipe and deck.counts[_U7]:
        exact = _WipeModel(deck)

        def put_back_policy(line: int) -> bool:
            return hits.get(line | (1 << _TAG_SHIFT if line & _U7_FLAG else 0), True)

        policy_exact = exact.solve(policy=put_back_policy)[0]
        best = max(tried, key=lambda t: (t.ev, -t.threshold))
        threshold_exact = exact.solve(threshold=best.threshold)[0]
    return Solution(
        deck=deck.name,
        exact_wipe=exact_wipe,
        optimum=optimum,
        p_flip7=p_flip7,
        p_bust=p_bust,
        policy_rows=rows,
        thresholds=tried,
        states=states,
        seconds=time.perf_counter() - start,
        optimum_policy_exact_wipe=policy_exact,
        threshold_exact_wipe=threshold_exact,
    )


def _policy_rows(model: LineModel) -> tuple[PolicyRow, ...]:
    by_cards: dict[int, list[tuple[int, bool]]] = {}
    for key, hit in model.decisions().items():
        line = key & LINE_MASK
        by_cards.setdefault(_count(line), []).append((_sum(line), hit))
    rows = []
    for cards in sorted(by_cards):
        entries = by_cards[cards]
        hits = [s for s, h in entries if h]
        stays = [s for s, h in entries if not h]
        fit, agree = _best_split(entries)
        rows.append(
            PolicyRow(
                cards=cards,
                states=len(entries),
                hit_states=len(hits),
                highest_hit=max(hits) if hits else None,
                lowest_stay=min(stays) if stays else None,
                fit=fit,
                agree=agree,
            )
        )
    return tuple(rows)


def _best_split(entries: list[tuple[int, bool]]) -> tuple[int, int]:
    """The sum t for "hit below t, stay from t" that agrees with the most (sum, hit) entries
    (the lowest such t), and how many agree."""
    ordered = sorted(entries)
    stays_total = sum(1 for _, hit in ordered if not hit)
    # Splitting before index i: entries [0, i) hit, [i, n) stay.
    best_t, best = ordered[0][0], stays_total
    hits_below = 0
    stays_below = 0
    for i, (total, hit) in enumerate(ordered):
        if i and total != ordered[i - 1][0]:
            agree = hits_below + stays_total - stays_below
            if agree > best:
                best_t, best = total, agree
        hits_below += hit
        stays_below += not hit
    agree = hits_below  # everything hits
    if agree > best:
        best_t, best = ordered[-1][0] + 1, agree
    return best_t, best


# ---------------------------------------------------------------------------- the rules' wipes


@dataclass(frozen=True, slots=True)
class ExactSolution(_BestThreshold):
    """The solitaire as the rules have it: the cards an Unlucky 7 wipes go to the discard
    pile and stay out of the draw pile for the rest of the round (§4.4.1, §3.5.2).

    ``optimum`` is the optimal expected round score, ``p_flip7`` and ``p_bust`` the
    probabilities of Flip 7 and of a bust under it; ``thresholds`` the fixed thresholds
    tried ("hit while the number sum is below T"), played with the same wipes; ``states``
    the states the optimum's recursion kept and ``seconds`` how long it all took.
    ``cached``: the figures were computed ahead (see :func:`exact_solution`).
    """

    deck: str
    optimum: float
    p_flip7: float
    p_bust: float
    thresholds: tuple[ThresholdResult, ...]
    states: int
    seconds: float
    cached: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "deck": self.deck,
            **self._figures_json(),
            "thresholds": [t.to_json() for t in self.thresholds],
            "states": self.states,
            "seconds": self.seconds,
            "cached": self.cached,
        }


class ExactModel:
    """The solitaire of a deck with the rules' wipes (§4.4.1): the optimum, thresholds and
    fixed policies, and the optimal decision at any state (see the section "exact wipes").

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


def _deck(deck: str | Deck) -> Deck:
    if isinstance(deck, str):
        if deck not in DECKS:
            raise Flip7Error(f"unknown deck {deck!r}; decks are {', '.join(DECKS)}")
        return DECKS[deck]
    return deck


def solve_exact(
    deck: str | Deck = "vengeance",
    *,
    thresholds: Iterable[int] | None = None,
    start: int | None = None,
) -> ExactSolution:
    """The solitaire of ``deck`` with the rules' wipes, solved exactly (in floats, to within
    1e-12: see the section "exact wipes").

    ``thresholds``: the fixed thresholds to play, or None to search: from ``start`` (by
    default the best threshold of the put-back model) step to a better neighbour while
    there is one; the expected score of a threshold rises then falls (as in every table
    of :func:`solve`), so the search ends at the best. For the full Vengeance deck this
    takes about 25 s of one core for the optimum and 7 s a threshold (about 50 s in all).

    A deck of ten: The Zero, a 1, two 2s, three 3s, two 7s and Unlucky 7. A wipe here
    takes a good share of the pile with it, and putting the cards back would be far off:

    >>> small = Deck("small", (1, 1, 2, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1, 0), True)
    >>> exact = solve_exact(small, start=8)
    >>> round(exact.optimum, 4), exact.best_threshold, round(exact.threshold_ev, 4)
    (5.584, 5, 5.5139)
    >>> round(solve(small, thresholds=[5]).optimum, 4)       # put back
    5.5635
    """
    deck = _deck(deck)
    began = time.perf_counter()
    model = ExactModel(deck)
    optimum, p_flip7, p_bust = model.optimum()
    states = model.states
    tried: dict[int, float] = {}

    def play(t: int) -> float:
        if t not in tried:
            tried[t] = model.threshold(t)[0]
        return tried[t]

    if thresholds is not None:
        for t in thresholds:
            play(t)
        if not tried:
            raise Flip7Error("give at least one threshold to try")
    else:
        if start is None:
            put_back = LineModel(deck.counts, LineRules(the_zero=deck.the_zero))
            start = max(range(10, 46), key=lambda t: (put_back.value(0, threshold=t), -t))
        t = start
        while True:
            here = play(t)
            if play(t + 1) > here:
                t += 1
            elif t > 0 and play(t - 1) > here:
                t -= 1
            else:
                break
    return ExactSolution(
        deck=deck.name,
        optimum=optimum,
        p_flip7=p_flip7,
        p_bust=p_bust,
        thresholds=tuple(ThresholdResult(t, ev) for t, ev in sorted(tried.items())),
        states=states,
        seconds=time.perf_counter() - began,
    )


# What solve_exact("vengeance") returns (its seconds: one run on a shared 2-core machine):
# about 50 s of pure Python, so `flip7 solve` prints these and `flip7 solve --exact-wipes`
# computes them again. tests/analysis/test_solver.py recomputes them and checks every figure.
VENGEANCE_EXACT = ExactSolution(
    deck="vengeance",
    optimum=20.75023418958782,
    p_flip7=0.0109770490619394,
    p_bust=0.3353141872336943,
    thresholds=(
        ThresholdResult(26, 20.64186916109963),
        ThresholdResult(27, 20.648951134186518),
        ThresholdResult(28, 20.592739658330288),
    ),
    states=2_774_164,
    seconds=51.0,
    cached=True,
)


def exact_solution(deck: str | Deck = "vengeance", *, recompute: bool = False) -> ExactSolution:
    """:func:`solve_exact` of ``deck``, but for the Vengeance deck the figures computed
    ahead (:data:`VENGEANCE_EXACT`) unless ``recompute``.

    >>> found = exact_solution()
    >>> found.cached, round(found.optimum, 4), found.best_threshold, round(found.threshold_ev, 4)
    (True, 20.7502, 27, 20.649)
    """
    deck = _deck(deck)
    vengeance = DECKS["vengeance"]
    if not recompute and (deck.counts, deck.the_zero) == (vengeance.counts, vengeance.the_zero):
        return VENGEANCE_EXACT
    return solve_exact(deck)
