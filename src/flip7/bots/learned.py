"""R6, ``learned``: R4, with the decisions of the last rounds learned from R5's search.

R5 (:mod:`flip7.bots.mcts`) gains its edge over R4 by checking each decision of the last
rounds (a total within 150 points of the target) by simulation: Hit against Stay, and R4's
use of an Action or Modifier against the next best uses by R4's judge. R6 plays those
decisions by two small networks fitted to the answers of hundreds of thousands of such
searches (``flip7 train``, :mod:`flip7.learn.distill`): Hit when
:class:`~flip7.bots.hitnet.HitNet` predicts that Hit is worth more to the chance to win
than Stay, and the use that :class:`~flip7.bots.hitnet.UseNet` predicts gains most over the
judge's best, among the uses R5 would search (the judge's, ``uses=0``: the judge's best).
Earlier in the game it hits as R3 (:func:`~flip7.bots.ladder.ev_hit`) and aims as R4
(:meth:`~flip7.bots.winprob.WinProbBot.judge`). It plays with numpy alone, without
searching (``docs/strength.md``).

The first R6 (2026-12-03) was R4 with its model of the chance to win replaced by a network
learned by self-play, :class:`ValueNet`: the totals at the end of a round (as seen from one
seat) to that seat's chance to win the game. It predicts who wins better than R4's model,
but it hardly changed R4's decisions (+0.7 points over R4, where R5 gains +4.4). It stays:
:class:`ValueNetBot` plays it, ``mcts:value=1`` values its rollouts by it, and
:mod:`flip7.fast`'s ``learned`` policy is it compiled. What :class:`ValueNet` reads
(:func:`features`), for the seat ``s`` and the totals ``F`` at the end of a round, ``T``
the target score: how far ``s`` is from the target, how far the three highest other totals
are from it, ``s``'s gaps to those three (a missing seat, with fewer than four players,
counts as far behind), and how many other seats there are beyond three. A total at or over
the target that is the only highest has won: that is exact, not learned.

Decisions use only the seat's view (:class:`~flip7.bots.public.PublicView`): the totals,
the lines on the table and the draw pile's composition. Without numpy the bot cannot be
made (:class:`LearnedBotError` says how to install it); ``import flip7.bots`` still works.

>>> LearnedBot.name, LearnedBot.rung, FEATURES
('learned', 'R6', 8)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from flip7.bots.base import Param
from flip7.bots.hitnet import (
    HitNet,
    LearnedBotError,
    Network,
    UseNet,
    _numpy,
    load_cached,
    load_hit_net,
    load_use_net,
)
from flip7.bots.judge import USES_WITHIN, Judge
from flip7.bots.ladder import EVBot, ev_hit, keeps_modifiers
from flip7.bots.lines import score
from flip7.bots.public import PublicView
from flip7.bots.winprob import WinProbBot, _Search, _Utility, endgame, own_line
from flip7.core.decisions import HIT, STAY, Decision, DecisionKind

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array = npt.NDArray[np.float64]

__all__ = [
    "FEATURES",
    "WEIGHTS",
    "LearnedBot",
    "LearnedBotError",
    "ValueNet",
    "ValueNetBot",
    "features",
    "learned_hit",
    "learned_weights",
    "load_net",
]

FEATURES = 8
"""The length of a feature row (:func:`features`)."""

WEIGHTS = Path(__file__).with_name("data") / "r6_value.npz"
"""The shipped network (``flip7 train`` wrote it; docs/strength.md gives the command)."""

# A seat missing from a smaller table counts as this far behind the target, in targets.
_ABSENT = 1.5
_K_HIT_OR_STAY = DecisionKind.HIT_OR_STAY
_K_PASS = DecisionKind.PASS


def features(finals: Array, seat: int, target: int) -> Array:
    """The network's input rows: one row per row of ``finals`` (totals at the end of a
    round, one column per seat), as seen from ``seat``, for the target score ``target``
    (tests/bots/test_learned.py checks an example)."""
    np = _numpy()
    rows, n = finals.shape
    scale = float(target)
    mine = finals[:, seat]
    others = np.delete(finals, seat, axis=1)
    others = -np.sort(-others, axis=1)
    if others.shape[1] < 3:
        pad = np.full((rows, 3 - others.shape[1]), scale * (1.0 - _ABSENT))
        others = np.concatenate([others, pad], axis=1)
    top3 = others[:, :3]
    out = np.empty((rows, FEATURES))
    out[:, 0] = (scale - mine) / scale
    out[:, 1:4] = (scale - top3) / scale
    out[:, 4:7] = (mine[:, None] - top3) / scale * 2.0
    out[:, 7] = max(0, n - 4) / 4.0
    return out  # type: ignore[no-any-return]


class ValueNet(Network):
    """A seat's chance to win from the totals at the end of a round: an MLP (tanh hidden
    layers, a logistic output) over :func:`features`, and the exact rule for a finished
    game (a total at or over the target that is the only highest has won)."""

    INPUTS = FEATURES
    WHAT = "R6's value network"

    def raw(self, x: Array) -> Array:
        """The network's chance for feature rows ``x`` (no game-over rule)."""
        np = _numpy()
        return 1.0 / (1.0 + np.exp(-self.output(x, np.tanh)))  # type: ignore[no-any-return]

    def chance(self, finals: Array, seat: int, target: int) -> Array:
        """``seat``'s chance to win from each row of totals ``finals``."""
        np = _numpy()
        p = self.raw(features(finals, seat, target))
        top = finals.max(axis=1)
        over = top >= target
        if over.any():
            unique = (finals == top[:, None]).sum(axis=1) == 1
            done = over & unique
            p = np.where(done, (finals[:, seat] == top).astype(np.float64), p)
        return p

    def chance_of(self, totals: Sequence[int], seat: int, target: int) -> float:
        """``seat``'s chance to win from one table of totals (:meth:`chance` of one row)."""
        return float(self.chance(_numpy().array([totals], dtype=float), seat, target)[0])

    def shifted(self, rows: Array, seat: int, target: int, xs: Array) -> Array:
        """``seat``'s chance to win from each row of totals ``rows`` with ``xs`` added to
        its own total: one row of the result per ``x``, one column per row of ``rows``. The
        same as :meth:`chance` of every such table, computed faster: ``seat``'s total moves
        the first layer's input along a line, so it is computed once per row."""
        np = _numpy()
        w0, b0 = self.layers[0]
        base = features(rows, seat, target) @ w0 + b0
        slope = (2.0 * (w0[4] + w0[5] + w0[6]) - w0[0]) / float(target)
        m, k = len(xs), len(rows)
        h = (base[None, :, :] + xs[:, None, None] * slope).reshape(m * k, -1)
        for w, b in self.layers[1:]:
            h = np.tanh(h) @ w + b
        p = (1.0 / (1.0 + np.exp(-h[:, 0]))).reshape(m, k)
        # The end of the game, exactly: a unique total at or over the target has won.
        others = np.delete(rows, seat, axis=1)
        best = others.max(axis=1)
        shared = (others == best[:, None]).sum(axis=1) > 1
        mine = rows[:, seat][None, :] + xs[:, None]
        won = (mine > best) & (mine >= target)
        lost = (mine < best) & (best >= target) & ~shared
        return np.where(won, 1.0, np.where(lost, 0.0, p))  # type: ignore[no-any-return]


def load_net(path: str | os.PathLike[str] | None = None) -> ValueNet:
    """The network at ``path`` (default: ``FLIP7_LEARNED_WEIGHTS`` if set, else the shipped
    :data:`WEIGHTS`), read once per path."""
    return load_cached(ValueNet, path or os.environ.get("FLIP7_LEARNED_WEIGHTS") or WEIGHTS)


# ---------------------------------------------------------------------------- Hit or Stay


class _LearnedUtility(_Utility):
    """R4's utility of a round score ``x`` (over how the other lines may end), valued by
    the network. A search may first :meth:`collect` the scores it will ask for (each worth
    0 meanwhile); :meth:`value_asked` then values them all in one matrix product. A score
    not valued yet is valued with the block of scores around it (one product)."""

    def __init__(self, view: PublicView, net: ValueNet) -> None:
        super().__init__(view)
        np = _numpy()
        self.net = net
        self.np = np
        base = np.array(self.totals, dtype=np.float64)
        probs = np.array([p for p, _ in self.combos], dtype=np.float64)
        rows = np.repeat(base[None, :], len(self.combos), axis=0)
        others = [s for s in range(self.n) if s != self.me]
        for i, (_, ys) in enumerate(self.combos):
            rows[i, others] += ys
        self.rows = rows
        self.probs = probs
        self.asked: set[int] | None = None
        self.asked_flip7: set[int] = set()

    def collect(self) -> None:
        """From now on, note the scores asked for instead of valuing them."""
        self.asked = set()
        self.asked_flip7 = set()

    def value_asked(self) -> None:
        """Value every score noted since :meth:`collect`, and stop noting."""
        asked, self.asked = self.asked or set(), None
        self._value(sorted(asked - self._cache.keys()))
        flips = sorted(self.asked_flip7 - self._flip_cache.keys())
        if flips:
            np = self.np
            finals = np.array([self._finals(x, self.now) for x in flips], dtype=np.float64)
            chances = self.net.chance(finals, self.me, self.target).tolist()
            self._flip_cache.update(zip(flips, chances, strict=True))

    def _value(self, xs: list[int]) -> None:
        if xs:
            grid = self.np.array(xs, dtype=self.np.float64)
            values = self.net.shifted(self.rows, self.me, self.target, grid) @ self.probs
            self._cache.update(zip(xs, values.tolist(), strict=True))

    def __call__(self, x: int) -> float:
        found = self._cache.get(x)
        if found is None:
            if self.asked is not None:
                self.asked.add(x)
                return 0.0
            self._value([v for v in range(x - 24, x + 72) if v not in self._cache])
            found = self._cache[x]
        return found

    def flip7(self, x: int) -> float:
        found = self._flip_cache.get(x)
        if found is None:
            if self.asked is not None:
                self.asked_flip7.add(x)
                return 0.0
            np = self.np
            finals = np.array([self._finals(x, self.now)], dtype=np.float64)
            found = float(self.net.chance(finals, self.me, self.target)[0])
            self._flip_cache[x] = found
        return found


def learned_hit(view: PublicView, net: ValueNet, depth: int = 3) -> bool:
    """Hit or Stay by the network's chance to win, looking ``depth`` cards ahead over the
    draw pile's composition (R4's search, :func:`flip7.bots.winprob.winprob_hit`)."""
    line = own_line(view)
    if line is None:
        return False
    key, divides, penalty = line.key, line.divides, line.penalty
    brutal, distinct, counts = line.brutal, line.distinct, line.counts
    utility = _LearnedUtility(view, net)
    bust = -penalty if brutal else 0
    stay_score = score(key, divides=divides, penalty=penalty, brutal=brutal)
    # The one-card search twice: once to note every score it asks for (its values are all
    # 0 meanwhile), then, those valued together, for real. The deeper search (slower, and
    # rarer) values what it misses a block of scores at a time instead.
    utility.collect()
    utility(stay_score)
    _Search(utility, counts, brutal, distinct, bust).hit(key, divides, penalty, 0)
    utility.value_asked()
    stay = utility(stay_score)
    if _Search(utility, counts, brutal, distinct, bust).hit(key, divides, penalty, 0) > stay + 1e-9:
        return True
    hit = _Search(utility, counts, brutal, distinct, bust).hit(key, divides, penalty, depth)
    if abs(hit - stay) < 1e-6:
        return ev_hit(view)  # nothing to choose between on the chance to win
    return hit > stay


def learned_weights(
    view: PublicView, values: Sequence[float], net: ValueNet, step: float = 4.0
) -> list[float]:
    """What a point of each seat's round is worth to the bot's chance to win, relative to
    a point of its own (R4's :func:`flip7.bots.winprob.win_weights`, by the network)."""
    np = _numpy()
    me = view.seat
    n = view.n
    target = view.target_score
    base = np.array([view.totals[s] + values[s] for s in range(n)], dtype=np.float64)
    top = base.max()
    if top >= target:  # judge the slopes as if the game went on a round
        base = base - (top - target + 1)
    moved = np.repeat(base[None, :], 2 * n, axis=0)
    for s in range(n):
        moved[2 * s, s] += step
        moved[2 * s + 1, s] -= step
    c = net.chance(moved, me, target)
    slopes = c[0::2] - c[1::2]
    mine = max(float(slopes[me]), 1e-9)
    return [1.0 if s == me else max(-3.0, min(0.0, float(slopes[s]) / mine)) for s in range(n)]


class ValueNetBot(EVBot):
    """The first R6: R4's play with the chance to win of :class:`ValueNet` (see the module
    docstring). ``weights`` is a network or its file (default: :func:`load_net`'s)."""

    name = "learned-value"
    rung = "R6"
    summary = "R4 with a chance to win learned by self-play (a small network, numpy)"
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("reach", int, 70, 0, 1000, "play for the win once a total is this near the target"),
        Param("depth", int, 3, 0, 6, "cards looked ahead"),
    )

    def __init__(
        self,
        seed: int | None = None,
        *,
        weights: str | os.PathLike[str] | ValueNet | None = None,
        **params: int | float,
    ) -> None:
        super().__init__(seed, **params)
        self.net = weights if isinstance(weights, ValueNet) else load_net(weights)

    def decide(self, view: PublicView) -> Decision:
        if view.kind is _K_HIT_OR_STAY:
            if endgame(view, int(self.params["reach"])) and not keeps_modifiers(view):
                return HIT if learned_hit(view, self.net, int(self.params["depth"])) else STAY
            return HIT if ev_hit(view, lambda: self.judge(view)) else STAY
        return self.judge(view).best(view.options)

    def judge(self, view: PublicView) -> Judge:
        """The judge over the exact draw pile, weighing points by the learned chance."""
        judge = Judge(view, (), view.pile)
        judge.weights = learned_weights(view, judge.values, self.net)
        return judge


class LearnedBot(WinProbBot):
    """R6: R4, with every Hit/Stay within ``horizon`` of the target played by
    :class:`~flip7.bots.hitnet.HitNet`, and every use of an Action or Modifier there by
    :class:`~flip7.bots.hitnet.UseNet` (see the module docstring). ``weights`` and
    ``use_weights`` are networks or their files (default: the shipped ones)."""

    name = "learned"
    rung = "R6"
    summary = "R4 with R5's searched decisions learned (small networks, numpy)"
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("horizon", int, 150, 0, 1000, "decide by the networks once a total is this "
              "near the target"),
        Param("uses", int, 1, 0, 1, "the uses of Actions and Modifiers by the network too "
              "(0: by R4's judge)"),
        Param("top", int, 6, 2, 64, "uses weighed, best first by R4's judge"),
    )  # fmt: skip

    def __init__(
        self,
        seed: int | None = None,
        *,
        weights: str | os.PathLike[str] | HitNet | None = None,
        use_weights: str | os.PathLike[str] | UseNet | None = None,
        **params: int | float,
    ) -> None:
        super().__init__(seed, **params)
        self.net = weights if isinstance(weights, HitNet) else load_hit_net(weights)
        self.use_net: UseNet | None = None
        if self.params["uses"]:
            self.use_net = (
                use_weights if isinstance(use_weights, UseNet) else load_use_net(use_weights)
            )

    def decide(self, view: PublicView) -> Decision:
        horizon = int(self.params["horizon"])
        if view.kind is _K_HIT_OR_STAY:
            if endgame(view, horizon):
                return HIT if self.net.gain(view) > 0.0 else STAY
            return HIT if ev_hit(view, lambda: self.judge(view)) else STAY
        judge = self.judge(view)
        if self.use_net is None or view.kind is _K_PASS or not endgame(view, horizon):
            return judge.best(view.options)
        shortlist = judge.shortlist(view.options, int(self.params["top"]), USES_WITHIN)
        if len(shortlist) < 2:
            return shortlist[0][1]
        return self.use_net.choose(view, judge, shortlist)
