"""R4, ``winprob``: playing to win the game, not to score.

Near the end of a game the points of a round are worth very different amounts: a player who
will be passed by someone already over the target loses whatever it scores below them, and
a leader who can end the game on top should not risk it. The bot values a round score
``x`` by the chance to win that it leaves (:func:`win_chance` of the totals at the end of
the round, where the other players' rounds end as their lines suggest), and picks Hit or
Stay by the expected *win chance*, looking a few cards ahead over the draw pile's exact
composition. Early in the game, when no one can reach the target this round, it plays as
R3 (:func:`flip7.bots.ladder.ev_hit`). Actions and Modifiers are aimed by how much each
player's points cost the bot's chance to win (the slope of :func:`win_chance`).

The chance to win from running totals is a normal model of the rounds left, fitted to
self-play of the ladder's bots (R2, 3 to 6 players): the game is expected to last
``(target - leader) / PACE`` more rounds (at least one), over which the players' totals
spread apart by ``SIGMA`` points per square root of a round (3 more per player beyond 4);
a player wins if its total ends highest. A total at or over the target that is the only
highest has won.

>>> round(win_chance((150, 150, 150, 150), 0, 200), 3)
0.25
>>> win_chance((210, 150, 190, 100), 0, 200), win_chance((210, 150, 190, 100), 2, 200)
(1.0, 0.0)
>>> round(win_chance((120, 60, 60, 60), 0, 200), 2), round(win_chance((180, 120, 120, 120), 0), 2)
(0.6, 0.88)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from flip7.analysis.solver import flip7_reached
from flip7.bots.base import Param
from flip7.bots.judge import Judge
from flip7.bots.ladder import EVBot, ev_hit, keeps_modifiers
from flip7.bots.lines import (
    BUST,
    NUMBER_SLOTS,
    U7_LINE,
    future,
    modifier_effects,
    receive,
    score,
    try_key,
)
from flip7.bots.public import PublicView
from flip7.core.cards import PENALTY, Card
from flip7.core.decisions import HIT, STAY, Decision, DecisionKind
from flip7.engine.game import Status

__all__ = [
    "PACE",
    "SIGMA",
    "SPREAD_END",
    "SPREAD_PER_POINT",
    "WinProbBot",
    "calibrated_chance",
    "win_chance",
    "win_weights",
]

PACE = 19.0
SIGMA = 25.0
_X = (-4.1445471861, -2.8024858613, -1.6365190424, -0.5390798114,
      0.5390798114, 1.6365190424, 2.8024858613, 4.1445471861)  # fmt: skip
_W = (0.0001126145384, 0.009635220121, 0.1172399077, 0.3730122577,
      0.3730122577, 0.1172399077, 0.009635220121, 0.0001126145384)  # fmt: skip
_SQRT1_2 = math.sqrt(0.5)
_ACTIVE = Status.ACTIVE
_BUSTED = Status.BUSTED
_DIVIDE_2 = Card.DIVIDE_2
_U7 = int(Card.UNLUCKY_7)
_K_HIT_OR_STAY = DecisionKind.HIT_OR_STAY


def _sigma(n: int) -> float:
    return SIGMA + 3.0 * max(0, n - 4)


def win_chance(
    totals: Sequence[float], seat: int, target: int = 200, *, spread: float | None = None
) -> float:
    """The chance that ``seat`` wins from running ``totals`` at the end of a round (see
    the module docstring): 1 or 0 when the game is over at these totals. ``spread``, if
    given, is how far the totals will still spread apart (the standard deviation of a gap
    by the end of the game) instead of the model's ``SIGMA`` per square root of a round.

    >>> round(win_chance((150, 120, 120, 120), 0, 200), 2)
    0.47
    >>> round(win_chance((150, 120, 120, 120), 0, 200, spread=60.0), 2)
    0.39
    """
    n = len(totals)
    top = max(totals)
    mine = totals[seat]
    rounds = 1.0
    if top >= target:
        leaders = sum(1 for t in totals if t == top)
        if leaders == 1:
            return 1.0 if mine == top else 0.0
    else:
        rounds = max(1.0, (target - top) / PACE)
    scale = 1.0 / (spread if spread is not None else _sigma(n) * math.sqrt(rounds))
    gaps = [(mine - t) * scale for s, t in enumerate(totals) if s != seat]
    erfc = math.erfc
    acc = 0.0
    for z, w in zip(_X, _W, strict=True):
        p = w
        for g in gaps:
            p *= 0.5 * erfc(-(z + g) * _SQRT1_2)
        acc += p
    return acc


SPREAD_END = 600.0
SPREAD_PER_POINT = 12.0


def calibrated_chance(totals: Sequence[float], seat: int, target: int = 200) -> float:
    """The chance that ``seat`` wins from the totals at the end of a round, calibrated.

    :func:`win_chance` is too sure of itself near the end: in 3,000 games of four R4
    players, totals it gave a 65% chance won 44% of the time, and 2% won 7%, with the
    leader within 20 points of the target. The same normal model, with the totals spreading
    apart by ``sqrt((n - 1) * (SPREAD_END + SPREAD_PER_POINT * points the leader still
    needs))`` instead of ``SIGMA`` per square root of a round, is calibrated to within a few
    points at 3, 4 and 6 players (fitted on 3,000, 1,500 and 1,000 such games). R4 keeps its
    own model; R5 values its rollouts' ends by this one, R6 reads both.

    >>> near = (195, 150, 150, 150)
    >>> round(win_chance(near, 0), 2), round(calibrated_chance(near, 0), 2)
    (0.78, 0.56)
    """
    need = max(0.0, target - max(totals))
    spread = math.sqrt((len(totals) - 1) * (SPREAD_END + SPREAD_PER_POINT * need))
    return win_chance(totals, seat, target, spread=spread)


def win_weights(view: PublicView, values: Sequence[float], step: float = 4.0) -> list[float]:
    """What a point of each seat's round is worth to the bot's chance to win, relative to
    a point of its own (+1): negative for every opponent, most for the one who threatens
    most. Measured on the totals the round is heading for (totals plus line values)."""
    me = view.seat
    base = [view.totals[s] + values[s] for s in range(view.n)]
    target = view.target_score
    top = max(base)
    if top >= target:  # judge the slopes as if the game went on a round
        shift = top - target + 1
        base = [b - shift for b in base]

    def chance(s: int, delta: float) -> float:
        moved = list(base)
        moved[s] += delta
        return win_chance(moved, me, target)

    mine = chance(me, step) - chance(me, -step)
    if mine <= 1e-9:
        mine = 1e-9
    out = []
    for s in range(view.n):
        if s == me:
            out.append(1.0)
        else:
            slope = (chance(s, step) - chance(s, -step)) / mine
            out.append(max(-3.0, min(0.0, slope)))
    return out


# ---------------------------------------------------------------------------- Hit or Stay


class _Utility:
    """The bot's chance to win as a function of its round score, over how the other lines
    may end (a bust, or the line's expected score if it survives)."""

    def __init__(
        self,
        view: PublicView,
        chance: Callable[[Sequence[float], int, int], float] = win_chance,
    ) -> None:
        self.chance = chance  # of the totals, the seat and the target: R4's, or calibrated
        me = view.seat
        self.target = view.target_score
        self.totals = view.totals
        self.me = me
        self.n = view.n
        rules = view.rules
        brutal = rules.brutal
        outcomes: list[list[tuple[float, float]]] = []  # per other seat: (prob, score)
        now: list[float] = []  # per other seat: the line's score if the round ends now
        for s in range(view.n):
            if s == me:
                continue
            mods = view.modifiers[s]
            if view.statuses[s] is _BUSTED:
                outcomes.append([(1.0, float(view.scores[s]))])
                now.append(float(view.scores[s]))
                continue
            now.append(float(view.scores[s]))
            if view.statuses[s] is not _ACTIVE:
                outcomes.append([(1.0, float(view.scores[s]))])
                continue
            key = try_key(view.lines[s])
            ev, bust = future(key)
            bust_score = -float(sum(PENALTY[c] for c in mods)) if brutal else 0.0
            if bust >= 1.0:
                outcomes.append([(1.0, bust_score)])
                continue
            survive = ev / (1.0 - bust)
            for card in mods:
                survive = survive / 2 if card is _DIVIDE_2 else survive - PENALTY[card]
            if survive < 0 and not brutal:
                survive = 0.0
            outcomes.append([(bust, bust_score), (1.0 - bust, survive)] if bust > 0
                            else [(1.0, survive)])  # fmt: skip
        # Too many Active players to spread out: their expected scores instead.
        spread = sum(1 for o in outcomes if len(o) > 1)
        if spread > 5:
            outcomes = [[(1.0, sum(p * y for p, y in o))] for o in outcomes]
        combos: list[tuple[float, list[float]]] = [(1.0, [])]
        for o in outcomes:
            combos = [(p * q, [*ys, y]) for p, ys in combos for q, y in o if p * q > 1e-6]
        self.combos = combos
        self.now = now
        self._cache: dict[int, float] = {}
        self._flip_cache: dict[int, float] = {}

    def _finals(self, x: float, others: Sequence[float]) -> list[float]:
        t = self.totals
        out = []
        it = iter(others)
        for s in range(self.n):
            out.append(t[s] + (x if s == self.me else next(it)))
        return out

    def __call__(self, x: int) -> float:
        """The chance to win if the round ends normally with the bot's score ``x``."""
        found = self._cache.get(x)
        if found is None:
            chance = self.chance
            found = sum(p * chance(self._finals(x, ys), self.me, self.target)
                        for p, ys in self.combos)  # fmt: skip
            self._cache[x] = found
        return found

    def flip7(self, x: int) -> float:
        """The same when the bot's Flip 7 ends the round: every other line as it stands."""
        found = self._flip_cache.get(x)
        if found is None:
            found = self.chance(self._finals(x, self.now), self.me, self.target)
            self._flip_cache[x] = found
        return found


def endgame(view: PublicView, reach: int = 70) -> bool:
    """Whether the target may be reached this round (a total within ``reach`` of it)."""
    return max(view.totals) + reach >= view.target_score


@dataclass(frozen=True, slots=True)
class OwnLine:
    """The bot's own line as the Hit/Stay searches read it: its key, ÷2 count and penalty,
    and the Number cards' counts in the draw pile."""

    key: int
    divides: int
    penalty: int
    brutal: bool
    distinct: bool
    counts: list[int]


def own_line(view: PublicView) -> OwnLine | None:
    """The bot's line for a Hit/Stay search, or ``None`` when there is nothing to search
    (the line is bust, or no Number card is left to draw): then it stays."""
    me = view.seat
    key = try_key(view.lines[me])
    if key == BUST:
        return None
    divides, penalty = modifier_effects(view.modifiers[me])
    counts = list(view.draw_counts[:NUMBER_SLOTS])
    if not sum(counts):
        return None
    rules = view.rules
    return OwnLine(
        key, divides, penalty, rules.brutal, rules.lucky13_pair_flip7_count == 1, counts
    )


def winprob_hit(view: PublicView, depth: int = 3) -> bool:
    """Hit or Stay by the chance to win (see the module docstring), looking ``depth``
    cards ahead and judging the line after them by one more card."""
    line = own_line(view)
    if line is None:
        return False
    key, divides, penalty = line.key, line.divides, line.penalty
    brutal, distinct, counts = line.brutal, line.distinct, line.counts
    utility = _Utility(view)
    bust_score = -penalty if brutal else 0
    search = _Search(utility, counts, brutal, distinct, bust_score)
    stay = utility(score(key, divides=divides, penalty=penalty, brutal=brutal))
    once = search.hit(key, divides, penalty, 0)
    if once > stay + 1e-9:
        return True
    hit = search.hit(key, divides, penalty, depth)
    if abs(hit - stay) < 1e-6:
        return ev_hit(view)  # nothing to choose between on the chance to win
    return hit > stay


class _Search:
    """Expected chance to win over the bot's next cards (Number cards only: the others
    are neutral), with the pile counts updated as cards are drawn."""

    def __init__(
        self,
        utility: _Utility,
        counts: list[int],
        brutal: bool,
        distinct: bool,
        bust_score: int,
    ) -> None:
        self.u = utility
        self.counts = counts
        self.brutal = brutal
        self.distinct = distinct
        self.bust_value = utility(bust_score)
        self.memo: dict[tuple[int, int, int, int], float] = {}

    def best(self, key: int, divides: int, penalty: int, depth: int) -> float:
        hit = self.hit(key, divides, penalty, depth)
        if key & 1:  # The Zero: no Stay
            return hit
        return max(hit, self.u(score(key, divides=divides, penalty=penalty, brutal=self.brutal)))

    def hit(self, key: int, divides: int, penalty: int, depth: int) -> float:
        """Draw one Number card, then (``depth`` > 0) play on as well as possible, or
        (``depth`` 0) stay."""
        memo_key = (key, divides, penalty, depth)
        found = self.memo.get(memo_key)
        if found is not None:
            return found
        counts = self.counts
        total = sum(counts)
        if not total:
            return self.u(score(key, divides=divides, penalty=penalty, brutal=self.brutal))
        u = self.u
        acc = 0.0
        nxt: Callable[[int, int, int, int], float] = self.best if depth > 0 else self._stay
        for slot in range(NUMBER_SLOTS):
            c = counts[slot]
            if not c:
                continue
            new = receive(key, slot)
            if new == BUST:
                acc += c * self.bust_value
                continue
            if slot == _U7:
                new, d, p = U7_LINE, 0, 0
            else:
                d, p = divides, penalty
                if flip7_reached(new, distinct=self.distinct):
                    acc += c * u.flip7(
                        score(new, divides=d, penalty=p, brutal=self.brutal, flip7=True)
                    )
                    continue
            counts[slot] = c - 1
            acc += c * nxt(new, d, p, depth - 1)
            counts[slot] = c
        value = acc / total
        self.memo[memo_key] = value
        return value

    def _stay(self, key: int, divides: int, penalty: int, depth: int) -> float:
        if key & 1:
            return self.u(0)
        return self.u(score(key, divides=divides, penalty=penalty, brutal=self.brutal))


class WinProbBot(EVBot):
    """R4: R3 playing to win. In the last rounds (someone within ``reach`` points of the
    target) Hit or Stay maximises the chance to win (:func:`winprob_hit`); Actions and
    Modifiers are aimed by :func:`win_weights` all game long."""

    name = "winprob"
    rung = "R4"
    summary = "R3 playing to win: the chance to win, not the score, near the end"
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("reach", int, 70, 0, 1000, "play for the win once a total is this near the target"),
        Param("depth", int, 3, 0, 6, "cards looked ahead"),
    )

    def decide(self, view: PublicView) -> Decision:
        if view.kind is _K_HIT_OR_STAY:
            if endgame(view, int(self.params["reach"])) and not keeps_modifiers(view):
                return HIT if winprob_hit(view, int(self.params["depth"])) else STAY
            return HIT if ev_hit(view, lambda: self.judge(view)) else STAY
        return self.judge(view).best(view.options)

    def judge(self, view: PublicView) -> Judge:
        """The judge over the exact draw pile, weighing points by the chance to win."""
        judge = Judge(view, (), view.pile)
        judge.weights = win_weights(view, judge.values)
        return judge
