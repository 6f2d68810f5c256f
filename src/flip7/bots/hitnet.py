"""R6's networks: what R5's search would find at a Hit/Stay or a use of a card, learned.

R5 (:mod:`flip7.bots.mcts`) checks every Hit/Stay of the last rounds (a total within 150
points of the target) by simulation, and its gain over R4 comes mostly from those
decisions. :class:`HitNet` predicts the search's answer from the position without
searching: how many points of the chance to win Hit is worth more than Stay (its mean
paired difference over the search's rollouts). It was fitted to tens of thousands of such
searches of R5 playing itself (``flip7 train``, :mod:`flip7.learn.distill`); it plays with
numpy alone, in well under a millisecond.

What it reads (:func:`hit_features`, :data:`FEATURES` numbers, seen from the seat that
decides; ``T`` is the target score, a total is a running total, a score what a line scores
if the round ends now):

* the table: players beyond four, the seat's distance to ``T``, its score and Number cards,
  whether it is Active, the leader's distance to ``T``, and how far the best other total
  and score is ahead of its own;
* the three other seats with the most points (total and score), each: its total and score
  against the seat's, whether it is Active or Busted, its Number cards, for an Active line
  the chance its next card busts it (the draw pile's composition) and its expected score
  and chance to bust by the rule of thumb of :func:`~flip7.bots.lines.future`, and how far
  its total and score are from ``T``; then how many others are Active, the draw pile's size,
  and the seat's calibrated chance to win (:func:`~flip7.bots.winprob.calibrated_chance`)
  of the totals with and without the scores;
* Hit against Stay: one Number card then Stay against Stay in points
  (:func:`~flip7.bots.lines.hit_once`), the chance that card busts, the share of Number
  cards in the pile, the Stay score; the seat's calibrated chance to win after Stay, and
  after one Number card then Stay and after a bust, each against Stay (over how the other
  lines may end, as R4 weighs them: :class:`~flip7.bots.winprob.WinProbBot`); whether
  someone done for the round is over the target ahead of the seat's Stay (it must Hit), and
  whether its Stay ends the game on top.

Cheaper inputs were chosen over richer ones where the fit could not tell them apart (on
R5's searches held out of it): R4's own chance next to the calibrated one, a look two
cards ahead, and R3's answer added nothing, and cost most of a decision's time.

R5 also searches the uses of Actions and Modifiers there: R4's choice against the next best
by R4's judge. :class:`UseNet`, fitted to the same games' searches, predicts each use's
gain over R4's choice from the table and from what the use leaves
(:func:`use_features`), so that R6 can play the use it predicts best without searching.

>>> from flip7.engine.game import Game
>>> game = Game.new(4, seed=3, events=False)
>>> from flip7.bots.public import PublicView
>>> row = hit_features(PublicView(game))
>>> len(row) == FEATURES, row[0], row[1]
(True, 0.0, 2.0)
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar

from flip7.bots.judge import Judge
from flip7.bots.lines import BUST, NUMBER_SLOTS, future, hit_once, modifier_effects, score, try_key
from flip7.bots.public import PublicView
from flip7.bots.winprob import _Search, _Utility, calibrated_chance
from flip7.core.cards import VALUE, Card
from flip7.core.decisions import Decision, Discard, Give, Steal, Swap, Target
from flip7.core.errors import Flip7Error
from flip7.engine.game import Status

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array = npt.NDArray[np.float64]

__all__ = [
    "FEATURES",
    "HIT_WEIGHTS",
    "USE_FEATURES",
    "USE_WEIGHTS",
    "HitNet",
    "LearnedBotError",
    "Network",
    "UseNet",
    "hit_features",
    "load_cached",
    "load_hit_net",
    "load_use_net",
    "use_features",
]

FEATURES = 50
"""The length of a feature row (:func:`hit_features`)."""

HIT_WEIGHTS = Path(__file__).with_name("data") / "r6_hit.npz"
"""The shipped network (``flip7 train`` wrote it; docs/strength.md gives the command)."""

USE_WEIGHTS = Path(__file__).with_name("data") / "r6_uses.npz"
"""The shipped uses network (written by the same ``flip7 train``)."""

_ACTIVE = Status.ACTIVE
_BUSTED = Status.BUSTED
_OTHERS = 3  # other seats described one by one
_FULL_PILE = 94.0  # the Number, Modifier and Action cards of one deck, for scale


class LearnedBotError(Flip7Error):
    """R6 cannot play: numpy is missing, or its weights file is missing or not R6's."""


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        raise LearnedBotError(
            "the learned bot (R6) plays with numpy, which is not installed; "
            "install it with: pip install 'flip7[learned]' (or pick another bot)"
        ) from None
    return numpy


def _table(view: PublicView) -> list[float]:
    me = view.seat
    n = view.n
    target = view.target_score
    totals = view.totals
    scores = view.scores
    statuses = view.statuses
    counts = view.draw_counts
    points = [totals[s] + scores[s] for s in range(n)]
    others = sorted((s for s in range(n) if s != me), key=lambda s: -points[s])
    out = [
        (n - 4) / 2,
        (target - totals[me]) / 100,
        scores[me] / 50,
        len(view.lines[me]) / 7,
        float(statuses[me] is _ACTIVE),
        (target - max(totals)) / 100,
        (max(points[s] for s in others) - points[me]) / 50,
    ]
    for s in others[:_OTHERS]:
        out += [
            1.0,
            (totals[s] - totals[me]) / 50,
            scores[s] / 50,
            float(statuses[s] is _ACTIVE),
            float(statuses[s] is _BUSTED),
            len(view.lines[s]) / 7,
        ]
        key = try_key(view.lines[s])
        if statuses[s] is _ACTIVE and key != BUST:
            _, bust, _ = hit_once(key, counts)
            ev, will_bust = future(key)
            out += [bust, ev / 50, will_bust]
        else:
            out += [0.0, 0.0, 0.0]
        out.append((target - points[s]) / 100)
    out += [0.0] * (10 * (_OTHERS - min(_OTHERS, len(others))))
    out += [
        sum(1 for s in others if statuses[s] is _ACTIVE) / 3,
        view.pile_size / _FULL_PILE,
        calibrated_chance(points, me, target),
        calibrated_chance(totals, me, target),
    ]
    return out


def _hit_or_stay(view: PublicView) -> list[float]:
    me = view.seat
    rules = view.rules
    brutal = rules.brutal
    distinct = rules.lucky13_pair_flip7_count == 1
    key = try_key(view.lines[me])
    divides, penalty = modifier_effects(view.modifiers[me])
    counts = view.draw_counts
    size = sum(counts) or 1
    stay = score(key, divides=divides, penalty=penalty, brutal=brutal) if key != BUST else 0
    once, bust, cards = 0.0, 1.0, 0
    if key != BUST:
        once, bust, cards = hit_once(
            key, counts, divides=divides, penalty=penalty, brutal=brutal, distinct=distinct
        )
    out = [(once - stay) / 20, bust, cards / size, stay / 50]
    utility = _Utility(view, calibrated_chance)
    now = utility(stay)
    numbers = list(counts[:NUMBER_SLOTS])
    bust_score = -penalty if brutal else 0
    hit = now
    if key != BUST and any(numbers):
        hit = _Search(utility, numbers, brutal, distinct, bust_score).hit(key, divides, penalty, 0)
    out += [now, hit - now, utility(bust_score) - now]
    target = view.target_score
    totals = view.totals
    scores = view.scores
    statuses = view.statuses
    mine = totals[me] + stay
    done = [
        totals[s] + (0 if statuses[s] is _BUSTED and not brutal else scores[s])
        for s in range(view.n)
        if s != me and statuses[s] is not _ACTIVE
    ]
    must = any(final >= max(target, mine) for final in done)
    top = mine >= target and all(totals[s] + scores[s] < mine for s in range(view.n) if s != me)
    out += [float(must), float(top)]
    return out


def hit_features(view: PublicView) -> list[float]:
    """The network's input row for the Hit/Stay decision of ``view``'s seat (see the
    module docstring)."""
    return _table(view) + _hit_or_stay(view)


USE_FEATURES = 102
"""The length of a row of :func:`use_features`: the table, then the use."""

_USE_KINDS = (Give, Target, Steal, Swap, Discard)


def _use_row(
    view: PublicView,
    judge: Judge,
    decision: Decision,
    worth: float,
    best: float,
    rank: int,
    seats: Sequence[int],
    chance_now: float,
    kept: dict[int, list[float]],
) -> list[float]:
    me = view.seat
    values = judge.values
    changes = judge.changes(decision)
    card = view.pending_card
    kind = [float(isinstance(decision, k)) for k in _USE_KINDS]
    if isinstance(decision, Target):  # Just One More! apart from Flip Four!
        kind[1] = float(card is Card.JUST_ONE_MORE)
        kind.append(float(card is not Card.JUST_ONE_MORE))
    else:
        kind.append(0.0)
    touched = dict(changes)
    mine = me in touched
    out = [*kind, float(mine)]
    for s in seats:
        after = touched.get(s, values[s])
        out += [(after - values[s]) / 20, after / 50]
    out += [0.0, 0.0] * (4 - len(seats))
    totals = [view.totals[s] + touched.get(s, values[s]) for s in range(view.n)]
    out.append(10 * (calibrated_chance(totals, me, view.target_score) - chance_now))
    out += [worth / 20, (best - worth) / 20, rank / 6]
    moved: Card | None = None
    if isinstance(decision, (Steal, Discard)):
        moved = decision.card
    elif isinstance(decision, Swap):
        moved = decision.card2 if decision.seat1 == me else decision.card1
    out += [
        0.0 if moved is None or moved >= Card.DIVIDE_2 else VALUE[moved] / 13,
        float(moved is not None and moved >= Card.DIVIDE_2),
    ]
    # The chance that the use busts its target's line (Just One More!: one card; Flip
    # Four!: roughly four), the spread that a line value alone does not show.
    bust = 0.0
    if isinstance(decision, Target) and view.statuses[decision.seat] is not _BUSTED:
        key = try_key(view.lines[decision.seat])
        if key != BUST:
            _, one, cards = hit_once(key, view.draw_counts)
            share = cards / (sum(view.draw_counts) or 1)
            bust = one * share if card is Card.JUST_ONE_MORE else 1 - (1 - one * share) ** 4
    target_seat = changes[-1][0] if changes else me
    out += [bust, float(target_seat == seats[1]) if len(seats) > 1 else 0.0]
    # The lines a Give, Steal, Swap or Discard leaves: each one's chance to bust on its next
    # card, its Number cards (how near Flip 7), what it is worth before it is over, and
    # its Modifiers.
    left = {s: judge.line_after(s, o, i) for s, o, i in judge.moves(decision)}
    if isinstance(decision, Give) and card is not None:
        left[decision.seat] = judge.line_after(decision.seat, None, card)
    for s in seats:
        out += _line_left(view, s, *left[s]) if s in left else kept[s]
    out += [0.0] * (_LINE_LEFT * (4 - len(seats)))
    return out


_LINE_LEFT = 9  # numbers per line in _line_left


def _line_left(
    view: PublicView, seat: int, numbers: Sequence[Card], mods: Sequence[Card]
) -> list[float]:
    """A line as a use leaves it: its chance to bust on its next card (over the draw
    pile), its Number cards, its expected round score and chance to bust if it plays on
    (:func:`~flip7.bots.lines.future`), its ÷2 and −N Modifiers, whether its seat is
    Active or has stayed, and how many seats after the deciding one it plays."""
    key = try_key(numbers)
    status = view.statuses[seat]
    ev, will_bust = 0.0, 0.0
    if key == BUST:
        risk = 1.0
    elif status is _BUSTED:
        risk = 0.0
    else:
        _, one, cards = hit_once(key, view.draw_counts)
        risk = one * cards / (sum(view.draw_counts) or 1)
        if status is _ACTIVE:
            ev, will_bust = future(key)
    divides, penalty = modifier_effects(mods)
    return [
        risk,
        len(numbers) / 7,
        ev / 50,
        will_bust,
        float(divides),
        penalty / 10,
        float(status is _ACTIVE),
        float(status is not _ACTIVE and status is not _BUSTED),
        (seat - view.seat) % view.n / view.n,
    ]


def use_features(
    view: PublicView, judge: Judge, ranked: Sequence[tuple[float, Decision]]
) -> list[list[float]]:
    """The input rows of the uses network: one per use of ``ranked`` (the judge's worth of
    each, as :meth:`~flip7.bots.judge.Judge.ranked` gives them, best first) of the Action
    or Modifier that ``view``'s seat is using. Each row: the table (as for Hit/Stay), then
    the use: its kind, whether it touches the seat's own line, the change it makes to the
    expected round score of the seat and of the three others with the most points (and
    those scores after it), the seat's calibrated chance to win on the totals plus those
    scores, against now, the judge's worth, its gap to the best and its rank, the card
    moved, the chance it busts its target, whether it is aimed at the leader, and for the
    seat and those three the line it leaves (:func:`_line_left`: the chance its next card
    busts it, its Number cards, its worth if it plays on, its Modifiers, its status and
    its place in the turn order); last, the draw pile's shares of Modifiers and Actions."""
    me = view.seat
    n = view.n
    values = judge.values
    points = [view.totals[s] + values[s] for s in range(n)]
    others = sorted((s for s in range(n) if s != me), key=lambda s: -points[s])
    seats = [me, *others[:3]]
    table = _table(view)
    now = calibrated_chance(points, me, view.target_score)
    best = ranked[0][0] if ranked else 0.0
    # The lines as they stand, for the seats a use leaves alone: worked out once.
    kept = {s: _line_left(view, s, view.lines[s], view.modifiers[s]) for s in seats}
    counts = view.draw_counts
    size = sum(counts) or 1
    # What the rest of the round may still draw: Modifiers to give, Actions to use.
    pile = [
        sum(counts[Card.DIVIDE_2 : Card.JUST_ONE_MORE]) / size,
        sum(counts[Card.JUST_ONE_MORE :]) / size,
    ]
    return [
        table + _use_row(view, judge, d, worth, best, i, seats, now, kept) + pile
        for i, (worth, d) in enumerate(ranked)
    ]


class Network:
    """A small MLP's layers (weights and biases) and how it was made (``meta``), as
    :func:`flip7.learn.train.save` writes them (``.npz``). A kind of network says what it
    reads (``INPUTS`` numbers) and names itself in messages (``WHAT``)."""

    INPUTS: ClassVar[int] = 0
    WHAT: ClassVar[str] = "a network"

    def __init__(self, layers: Sequence[tuple[Array, Array]], meta: dict[str, str]) -> None:
        self.layers = [(w, b) for w, b in layers]
        self.meta = dict(meta)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Self:
        """Read a network of this kind from ``path``."""
        np = _numpy()
        try:
            with np.load(path, allow_pickle=False) as data:
                count = int(data["layers"])
                layers = [
                    (data[f"w{i}"].astype(np.float64), data[f"b{i}"].astype(np.float64))
                    for i in range(count)
                ]
                meta = {k[5:]: str(data[k]) for k in data.files if k.startswith("meta_")}
        except (OSError, KeyError, ValueError) as exc:
            raise LearnedBotError(f"cannot read {cls.WHAT} from {path}: {exc}") from None
        if not layers or layers[0][0].shape[0] != cls.INPUTS or layers[-1][0].shape[1] != 1:
            raise LearnedBotError(f"{path}: not {cls.WHAT} ({cls.INPUTS} numbers in, one out)")
        return cls(layers, meta)

    def output(self, x: Array, hidden: Callable[[Array], Array]) -> Array:
        """The output unit for each row of ``x``, the hidden layers through ``hidden``.

        numpy's BLAS runs on one thread here: these products are too small to gain from
        more, and OpenBLAS's helper threads spin after each call, taking a core from the
        rest of the process and from the others (in a tournament of two processes on two
        cores, R6's decisions took twice the CPU and their 95th percentile 13 ms, not 1)."""
        h = x
        last = len(self.layers) - 1
        with _one_blas_thread():
            for i, (w, b) in enumerate(self.layers):
                h = h @ w + b
                if i < last:
                    h = hidden(h)
        return h[:, 0]


@functools.cache
def _blas() -> Any:
    """threadpoolctl's handle on the BLAS libraries loaded (numpy's), found once per
    process (it scans them: about 3 ms); ``None`` without threadpoolctl."""
    try:
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]
    except ImportError:
        return None
    return ThreadpoolController()


def _one_blas_thread() -> contextlib.AbstractContextManager[Any]:
    """BLAS limited to one thread while the context lasts (about 10 µs), then as before;
    nothing without threadpoolctl (flip7[learned] brings it)."""
    blas = _blas()
    if blas is None:
        return contextlib.nullcontext()
    limit: contextlib.AbstractContextManager[Any] = blas.limit(limits=1, user_api="blas")
    return limit


_N = TypeVar("_N", bound=Network)
_LOADED: dict[tuple[type[Network], str], Network] = {}


def load_cached(kind: type[_N], path: str | os.PathLike[str]) -> _N:
    """The network of ``kind`` at ``path``, read once per process."""
    _numpy()  # without numpy, say so before anything else
    key = str(Path(path).resolve())
    net = _LOADED.get((kind, key))
    if net is None:
        if not Path(key).is_file():
            raise LearnedBotError(
                f"{kind.WHAT}: the weights are missing: no file {key}; write them with "
                "flip7 train"
            )
        net = _LOADED[kind, key] = kind.load(key)
    assert isinstance(net, kind)
    return net


class HitNet(Network):
    """Points of the chance to win that Hit is worth more than Stay (negative: Stay is
    better): an MLP (ReLU hidden layers, a linear output) over :func:`hit_features`."""

    INPUTS = FEATURES
    WHAT = "R6's Hit/Stay network"

    def raw(self, x: Array) -> Array:
        """The predicted gain of Hit over Stay, in points, for each feature row of ``x``."""
        np = _numpy()
        return self.output(x, lambda h: np.maximum(h, 0.0))

    def gain(self, view: PublicView) -> float:
        """The predicted gain of Hit over Stay at ``view``'s Hit/Stay, in points."""
        np = _numpy()
        return float(self.raw(np.array([hit_features(view)], dtype=np.float64))[0])


class UseNet(Network):
    """How much each use of an Action or Modifier is worth, up to a constant per decision
    (in points of the chance to win): an MLP (ReLU hidden layers, a linear output) over
    :func:`use_features`. Its output for a use less its output for R4's choice predicts
    what R5's search would find that use gains over R4's."""

    INPUTS = USE_FEATURES
    WHAT = "R6's network for the uses of Actions and Modifiers"

    def raw(self, x: Array) -> Array:
        """The network's output for each feature row of ``x``."""
        np = _numpy()
        return self.output(x, lambda h: np.maximum(h, 0.0))

    def choose(
        self, view: PublicView, judge: Judge, shortlist: Sequence[tuple[float, Decision]]
    ) -> Decision:
        """The use of ``shortlist`` (the judge's, best first) predicted to gain the most
        over the judge's best, or the judge's best if none is predicted to gain."""
        np = _numpy()
        out = self.raw(np.array(use_features(view, judge, shortlist), dtype=np.float64))
        best = int(np.argmax(out))
        return shortlist[best if out[best] > out[0] else 0][1]


def load_hit_net(path: str | os.PathLike[str] | None = None) -> HitNet:
    """The network at ``path`` (default: ``FLIP7_HIT_WEIGHTS`` if set, else the shipped
    :data:`HIT_WEIGHTS`), read once per path."""
    return load_cached(HitNet, path or os.environ.get("FLIP7_HIT_WEIGHTS") or HIT_WEIGHTS)


def load_use_net(path: str | os.PathLike[str] | None = None) -> UseNet:
    """The uses network at ``path`` (default: ``FLIP7_USE_WEIGHTS`` if set, else the
    shipped :data:`USE_WEIGHTS`), read once per path."""
    return load_cached(UseNet, path or os.environ.get("FLIP7_USE_WEIGHTS") or USE_WEIGHTS)
