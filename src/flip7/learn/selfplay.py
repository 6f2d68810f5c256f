"""Self-play games for R6's value network: every end of a round (but the last) of every
game, from every seat, with the share of the game that seat went on to win.

The samples are the network's feature rows (:func:`flip7.bots.learned.features`) of the
totals at the end of the round, and the label is 1 for the only winner, 1/k for each of k
winners who share the win, 0 otherwise: Monte-Carlo returns of the win outcome. Next to
each sample lies R4's own chance (:func:`flip7.bots.winprob.win_chance`) of the same totals,
the model the network replaces, to compare the two on games neither was fitted on.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from flip7.bots import Bot, make_bot
from flip7.bots.learned import ValueNet, ValueNetBot, features
from flip7.bots.winprob import win_chance
from flip7.core.errors import Flip7Error
from flip7.core.rules import Rules
from flip7.engine.game import Game

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["Samples", "lineup", "play_games", "seeded_game"]


@dataclass(frozen=True)
class Samples:
    """Feature rows ``x``, labels ``y`` (share of the win), R4's chance ``baseline`` and
    the index of the game each sample came from (``game``)."""

    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    baseline: npt.NDArray[np.float64]
    game: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.y)


def lineup(net: ValueNet | None, share: float = 0.5) -> Callable[[random.Random, int], list[Bot]]:
    """Who plays a self-play game: R4 (``winprob``) in every seat while there is no network
    yet; then each seat is R6 with ``net`` with chance ``share`` (one seat at least), the
    others R4, so the network learns from the games it plays and from the ladder's top."""

    def make(rng: random.Random, n: int) -> list[Bot]:
        seeds = [rng.getrandbits(32) for _ in range(n)]
        if net is None:
            return [make_bot("winprob", seed=s) for s in seeds]
        learned = [rng.random() < share for _ in range(n)]
        if not any(learned):
            learned[rng.randrange(n)] = True
        return [
            ValueNetBot(seed=s, weights=net) if r6 else make_bot("winprob", seed=s)
            for s, r6 in zip(seeds, learned, strict=True)
        ]

    return make


def seeded_game(
    seed: int, index: int, players: Sequence[int], rules: Rules | None = None
) -> tuple[Game, random.Random]:
    """Game ``index`` of a training run: its table size from ``players`` in turn, its deal
    and the generator that seeds its bots both from (``seed``, ``index``)."""
    rng = random.Random(seed * 1_000_003 + index)
    n = players[index % len(players)]
    return Game.new(n, rules, seed=rng.getrandbits(64), events=False), rng


def play_games(
    games: int,
    seed: int,
    players: Sequence[int],
    bots: Callable[[random.Random, int], list[Bot]],
    rules: Rules | None = None,
    first_game: int = 0,
    progress: Callable[[int], None] | None = None,
) -> Samples:
    """Play ``games`` games (the table sizes in turn from ``players``), every one seeded
    from ``seed`` and its index (from ``first_game``), and collect their samples."""
    import numpy as np

    if games < 1:
        raise Flip7Error(f"self-play needs at least one game, got {games}")
    rules = rules or Rules()
    target = rules.target_score
    xs: list[npt.NDArray[np.float64]] = []
    ys: list[float] = []
    base: list[float] = []
    index: list[int] = []
    for i in range(first_game, first_game + games):
        game, rng = seeded_game(seed, i, players, rules)
        n = game.n
        game.play(bots(rng, n))
        winners = game.winners
        totals = [0] * n
        ends: list[list[int]] = []
        for result in game.rounds:
            totals = [t + s for t, s in zip(totals, result.scores, strict=True)]
            ends.append(list(totals))
        if tuple(totals) != game.totals:  # the samples must be the game's own totals
            raise Flip7Error(f"game {i}: round scores do not add up to the totals")
        for row in ends[:-1]:
            finals = np.array([row], dtype=np.float64)
            for s in range(n):
                xs.append(features(finals, s, target)[0])
                ys.append(1.0 / len(winners) if s in winners else 0.0)
                base.append(win_chance(row, s, target))
                index.append(i)
        if progress is not None:
            progress(i - first_game + 1)
    return Samples(
        np.array(xs, dtype=np.float64).reshape(-1, len(xs[0]) if xs else 0),
        np.array(ys, dtype=np.float64),
        np.array(base, dtype=np.float64),
        np.array(index, dtype=np.int64),
    )
