"""Grading one decision: every legal option valued by the chance to win it leaves.

A position is judged only from what the deciding seat could see: the game is read through a
:class:`~flip7.bots.public.PublicView`, and every option is played out in *sampled* games
whose draw pile is a fresh order of the pile's public composition (the decks less every card
on view), drawn from the coach's own random generator (:meth:`PublicView.sample_games`).
The real order of the pile, and the cards the record says came next, are never read.

**The measure** is the seat's chance to win the game, in percentage points. Each sample
plays every option from a copy of the same sampled game (common random numbers: the options
meet the same cards), to the end of the round, with the rollout policy of the strongest bot,
R5 (:mod:`flip7.bots.mcts`): the seat hits while one more card is worth more on average
than staying (over the pile's composition), the others hit below 27, everyone chases or
stops near the end of the game, and Actions and Modifiers go to the leader. The end of the
round is valued by R5's calibrated chance to win from the totals (1 or 0 if the game is
over). Only the totals carry over from one round to the next (and the pile, whose effect is
small), so the end of the round is where a decision's effect is complete. The seat's
expected round points under each option are kept too (for the notes).

**Grades** (:class:`Thresholds`): the *loss* of the move made is the best option's value
less its own. Below 1.5 points of win chance, or within ``z`` (2) standard errors of the
paired difference, the move is ``best``; from 1.5 an ``inaccuracy``, from 4 a ``mistake``,
from 8 a ``blunder``. Early in a game a point of win chance is worth about 3.5 round
points (so an inaccuracy costs about 5 round points, a mistake 14, a blunder 28); near the
end a single decision can cost far more.

**Noise**: a first pass gives every option the same samples (400, fewer when there are
many options, at least 32); the options within reach of the best (3 standard errors or the
inaccuracy threshold, at most 5) and the move made then get more common samples, 200 at a
time, until the grade of the move made is clear of every threshold by 2 standard errors or
each has 2,400 samples (fewer when more than four options are compared: 9,600 rollouts
at most, 1,600 samples each for six).

>>> import random
>>> from flip7.core.decisions import STAY
>>> from flip7.engine.game import Game
>>> game = Game.new(4, explicit=True, dealer=3)
>>> for code in ["3", "12", "11", "10"]:        # seat 0 is dealt a 3 and must decide
...     _ = game.draw(code)
>>> result = evaluate(game, STAY, random.Random(1), first=60, most=60)
>>> [str(o.decision) for o in result.options], result.made, result.top
(['hit', 'stay'], 1, 0)
>>> result.loss > THRESHOLDS.mistake
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from flip7.bots.mcts import _rollout
from flip7.bots.public import PublicView
from flip7.core.decisions import Decision
from flip7.core.errors import GameStateError
from flip7.engine.game import Game

__all__ = [
    "GRADES",
    "THRESHOLDS",
    "Evaluation",
    "OptionValue",
    "Thresholds",
    "evaluate",
]

GRADES = ("best", "inaccuracy", "mistake", "blunder")

# The first pass: this many samples per option, fewer with many options (about this many
# rollouts in all), never fewer than the least.
FIRST = 400
FIRST_ROLLOUTS = 2400
FIRST_LEAST = 32
# The second pass: candidates beside the move made, samples per batch, samples per option
# at most, and rollouts of the second pass at most (fewer samples with many candidates).
CANDIDATES = 5
BATCH = 200
MOST = 2400
MOST_ROLLOUTS = 9600
# How many standard errors keep an option a candidate, and clear a grade of a threshold.
REACH_Z = 3.0
CLEAR_Z = 2.0


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The grade boundaries, in percentage points of win chance lost, and the noise guard
    ``z``: a loss within ``z`` standard errors of zero is ``best`` whatever its size.

    >>> THRESHOLDS.grade(0.4, 0.1), THRESHOLDS.grade(2.0, 0.2), THRESHOLDS.grade(5.0, 0.3)
    ('best', 'inaccuracy', 'mistake')
    >>> THRESHOLDS.grade(9.0, 0.5), THRESHOLDS.grade(9.0, 5.0)
    ('blunder', 'best')
    """

    inaccuracy: float = 1.5
    mistake: float = 4.0
    blunder: float = 8.0
    z: float = 2.0

    def grade(self, loss: float, error: float) -> str:
        """The grade of a move that loses ``loss`` points with standard error ``error``."""
        if loss < self.inaccuracy or loss <= self.z * error:
            return "best"
        if loss < self.mistake:
            return "inaccuracy"
        if loss < self.blunder:
            return "mistake"
        return "blunder"

    def bounds(self) -> tuple[float, float, float]:
        return (self.inaccuracy, self.mistake, self.blunder)

    def to_json(self) -> dict[str, float]:
        return {
            "inaccuracy": self.inaccuracy,
            "mistake": self.mistake,
            "blunder": self.blunder,
            "z": self.z,
        }


THRESHOLDS = Thresholds()


@dataclass(frozen=True, slots=True)
class OptionValue:
    """One option's estimate: win chance (percent) and the seat's expected round points
    at the end of the round, over ``samples`` sampled games."""

    decision: Decision
    value: float
    points: float
    samples: int


@dataclass(frozen=True, slots=True)
class Evaluation:
    """Every option of one decision, valued; ``made`` and ``top`` index ``options``.

    ``loss`` is the top option's value less the made one's, ``error`` its standard error
    (paired: both were played on the same samples)."""

    options: tuple[OptionValue, ...]
    made: int
    top: int
    loss: float
    error: float
    samples: int  # rollouts played in all

    def grade(self, thresholds: Thresholds = THRESHOLDS) -> str:
        return thresholds.grade(self.loss, self.error)


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)


def _paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of ``a - b`` over their common samples."""
    n = min(len(a), len(b))
    if n == 0:
        return 0.0, math.inf
    diffs = [a[i] - b[i] for i in range(n)]
    mean = sum(diffs) / n
    if n < 2:
        return mean, math.inf
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(var / n)


def evaluate(
    game: Game,
    made: Decision,
    rng: random.Random,
    thresholds: Thresholds = THRESHOLDS,
    *,
    first: int = FIRST,
    most: int = MOST,
) -> Evaluation:
    """Value every legal option of the decision ``game`` waits for, by the deciding seat's
    chance to win (see the module docstring), and compare ``made`` with the best.

    Only public information is read; all chance comes from ``rng``. ``first`` and ``most``
    are the samples per option of the first pass and at most (smaller: faster, noisier).
    """
    seat = game.to_decide
    if seat is None:
        raise GameStateError("no decision to grade: the game waits for a card or is over")
    view = PublicView(game, seat)
    options = view.options
    try:
        made_i = options.index(made)
    except ValueError:
        raise GameStateError(f"{made} is not a legal option here") from None
    k = len(options)
    round_, target = view.round, view.target_score
    before = view.totals[seat]
    values: list[list[float]] = [[] for _ in range(k)]
    points: list[list[float]] = [[] for _ in range(k)]
    played = 0

    def sample(which: Sequence[int], times: int) -> None:
        nonlocal played
        for _ in range(times):
            games = view.sample_games(rng, len(which))
            for g, i in zip(games, which, strict=True):
                values[i].append(100.0 * _rollout(g, options[i], seat, round_, target))
                points[i].append(float(g.totals[seat] - before))
        played += times * len(which)

    everyone = list(range(k))
    sample(everyone, max(min(first, FIRST_LEAST), min(first, FIRST_ROLLOUTS // k)))
    means = [_mean(v) for v in values]
    lead = max(everyone, key=lambda i: (means[i], -i))
    near = []
    for i in sorted(everyone, key=lambda i: (-means[i], i)):
        gap, err = _paired(values[lead], values[i])
        if i != made_i and gap <= max(REACH_Z * err, thresholds.inaccuracy):
            near.append(i)
    group = sorted({made_i, *near[:CANDIDATES]})

    def standing() -> tuple[int, float, float, bool]:
        """The top candidate, the loss of the move made and its error, and whether the
        grade is settled (every candidate's gain over the move made is clear of every
        threshold by CLEAR_Z standard errors)."""
        means = {i: _mean(values[i]) for i in group}
        top = max(group, key=lambda i: (means[i], -i))
        settled = True
        loss, error = 0.0, 0.0
        for i in group:
            if i == made_i:
                continue
            gain, err = _paired(values[i], values[made_i])
            if i == top:
                loss, error = gain, err
            if any(abs(gain - b) <= CLEAR_Z * err for b in thresholds.bounds()):
                settled = False
        return top, loss, error, settled

    top, loss, error, settled = standing()
    most = min(most, max(len(values[made_i]), MOST_ROLLOUTS // len(group)))
    while not settled and len(values[made_i]) < most and len(group) > 1:
        sample(group, min(BATCH, most - len(values[made_i])))
        top, loss, error, settled = standing()
    if len(group) == 1:
        top, loss, error = made_i, 0.0, 0.0
    if top == made_i:
        loss, error = 0.0, 0.0
    out = tuple(
        OptionValue(options[i], _mean(values[i]), _mean(points[i]), len(values[i]))
        for i in everyone
    )
    return Evaluation(out, made_i, top, loss, error, played)
