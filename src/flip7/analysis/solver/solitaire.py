"""The solitaire: one player alone drawing Number cards from a fresh deck, solved with the
wiped cards put back (:func:`solve`) or as the rules have it (:func:`solve_exact`,
:func:`exact_solution`). The model and its figures: :mod:`flip7.analysis.solver`."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flip7.analysis.solver.decks import DECKS, Deck, _deck
from flip7.analysis.solver.line_model import _TAG_SHIFT, LineModel, LineRules
from flip7.analysis.solver.lines import _U7, _U7_FLAG, LINE_MASK, _count, _sum
from flip7.core.errors import Flip7Error

__all__ = [
    "VENGEANCE_EXACT",
    "ExactSolution",
    "PolicyRow",
    "Solution",
    "ThresholdResult",
    "exact_solution",
    "solve",
    "solve_exact",
]


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

    @classmethod
    def from_decisions(cls, cards: int, decisions: Sequence[tuple[int, bool]]) -> PolicyRow:
        """The row of the decision states with ``cards`` Number cards, given as (number sum,
        whether to hit) pairs.

        >>> row = PolicyRow.from_decisions(3, [(5, True), (9, False), (12, True), (20, False)])
        >>> row.hit_states, row.highest_hit, row.lowest_stay, row.fit, row.agree, row.threshold
        (2, 12, 9, 9, 3, None)
        """
        hits = [s for s, h in decisions if h]
        stays = [s for s, h in decisions if not h]
        fit, agree = _best_split(decisions)
        return cls(
            cards=cards,
            states=len(decisions),
            hit_states=len(hits),
            highest_hit=max(hits) if hits else None,
            lowest_stay=min(stays) if stays else None,
            fit=fit,
            agree=agree,
        )

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
    deck = _deck(deck)
    start = time.perf_counter()
    model = LineModel(deck.counts, LineRules(the_zero=deck.the_zero), exact_wipe=exact_wipe)
    model.shortcuts = False  # the policy rows need every state's decision
    optimum = model.value(0)
    p_flip7, p_bust = model.outcomes(0)
    rows = _policy_rows(model)
    states = model.states()
    check_wipes = check_wipes and not exact_wipe and bool(deck.counts[_U7])
    # The optimal decisions, before the thresholds replace them; keyed by line, and by
    # whether a wipe has happened.
    hits = {
        (key & LINE_MASK) | (1 << _TAG_SHIFT if key >> _TAG_SHIFT else 0): hit
        for key, hit in (model.decisions().items() if check_wipes else ())
    }
    wanted = list(thresholds)
    tried = tuple(map(ThresholdResult, wanted, model.threshold_values(0, wanted)))
    if not tried:
        raise Flip7Error("give at least one threshold to try")
    policy_exact: float | None = None
    threshold_exact: float | None = None
    if check_wipes:
        from flip7.analysis.solver.wipes import _WipeModel  # only here: 20 s of work

        exact = _WipeModel(deck)

        def put_back_policy(line: int) -> bool:
            return hits.get(line | (1 << _TAG_SHIFT if line & _U7_FLAG else 0), True)

        policy_exact = exact.solve(policy=put_back_policy)[0]
        best = max(tried, key=lambda t: (t.ev, -t.threshold))
        threshold_exact = exact.solve(threshold=best.threshold)[0]
        exact.forget()
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
    return tuple(PolicyRow.from_decisions(cards, by_cards[cards]) for cards in sorted(by_cards))


def _best_split(entries: Sequence[tuple[int, bool]]) -> tuple[int, int]:
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


def solve_exact(
    deck: str | Deck = "vengeance",
    *,
    thresholds: Iterable[int] | None = None,
    start: int | None = None,
    played: Mapping[int, float] | None = None,
) -> ExactSolution:
    """The solitaire of ``deck`` with the rules' wipes, solved exactly (in floats, to within
    1e-12: see :mod:`~flip7.analysis.solver.wipes`).

    ``thresholds``: the fixed thresholds to play, or None to search: from ``start`` (by
    default the best threshold of the put-back model) step to a better neighbour while
    there is one; the expected score of a threshold rises then falls (as in every table
    of :func:`solve`), so the search ends at the best. For the full Vengeance deck this
    takes about 25 s of one core for the optimum and 7 s a threshold (about 50 s in all).
    ``played``: the expected scores of thresholds already played with the rules' wipes
    (as :func:`solve` with ``check_wipes`` plays its best one), taken instead of playing
    them again.

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
    from flip7.analysis.solver.wipes import ExactModel  # `flip7 solve` prints VENGEANCE_EXACT

    model = ExactModel(deck)
    optimum, p_flip7, p_bust = model.optimum()
    states = model.states
    tried: dict[int, float] = {}

    def play(t: int) -> float:
        if t not in tried:
            tried[t] = played[t] if played and t in played else model.threshold(t)[0]
        return tried[t]

    if thresholds is not None:
        for t in thresholds:
            play(t)
        if not tried:
            raise Flip7Error("give at least one threshold to try")
    else:
        if start is None:
            put_back = LineModel(deck.counts, LineRules(the_zero=deck.the_zero))
            evs = put_back.threshold_values(0, range(10, 46))
            start = max(range(10, 46), key=lambda t: (evs[t - 10], -t))
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


def exact_solution(
    deck: str | Deck = "vengeance",
    *,
    recompute: bool = False,
    played: Mapping[int, float] | None = None,
) -> ExactSolution:
    """:func:`solve_exact` of ``deck`` (with the thresholds ``played`` already), but for the
    Vengeance deck the figures computed ahead (:data:`VENGEANCE_EXACT`) unless ``recompute``.

    >>> found = exact_solution()
    >>> found.cached, round(found.optimum, 4), found.best_threshold, round(found.threshold_ev, 4)
    (True, 20.7502, 27, 20.649)
    """
    deck = _deck(deck)
    vengeance = DECKS["vengeance"]
    if not recompute and (deck.counts, deck.the_zero) == (vengeance.counts, vengeance.the_zero):
        return VENGEANCE_EXACT
    return solve_exact(deck, played=played)
