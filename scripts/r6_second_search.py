"""Score R6's networks and R5 by a second, independent search (docs/strength.md, R6).

R5 plays every seat of games ``FIRST`` … ``FIRST + COUNT - 1`` of ``flip7 train``'s seeding
(none of the default 20,000 are among them from 20,000 on). At every searched decision a
second search of the same candidates runs from another random stream; each choice (R5's,
and the shipped networks') is scored by the second search's gains over R4's choice, which
none of them saw. Prints points of the chance to win per searched decision and per game.

    .venv/bin/python scripts/r6_second_search.py 20000 1500 --jobs 2

(1,500 games: about 7 minutes on the 2-core machine.)
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from flip7.bots.hitnet import load_hit_net, load_use_net
from flip7.bots.mcts import MCTSBot
from flip7.bots.public import PublicView
from flip7.core.decisions import Decision, DecisionKind
from flip7.learn.distill import DistillConfig, _compile_rollouts, _HitRow, _Recorder, _UseRows
from flip7.learn.selfplay import seeded_game

KINDS = ("Give", "Just One More!", "Steal", "Swap", "Discard", "Flip Four!")
# What one game's searches kept: R5's records (as flip7 train keeps them), and each
# searched decision's gains by the second search (Hit/Stay, then uses).
Kept = tuple[list[_HitRow], list[_UseRows], list[list[float]], list[list[float]]]


class _Twice(_Recorder):
    """R5 keeping its searches as ``flip7 train`` does, and searching each searched
    decision a second time from another random stream."""

    def __init__(self, seed: int, kept: Kept) -> None:
        super().__init__(seed, DistillConfig().iters, kept[0], kept[1])
        self.seconds = kept[2], kept[3]
        self.second = random.Random(seed ^ 0x5EED)

    def search(
        self, view: PublicView, candidates: list[Decision], default: Decision, deadline: float
    ) -> Decision:
        choice = super().search(view, candidates, default, deadline)
        if self.last_iterations:
            own, self.rng = self.rng, self.second
            MCTSBot.search(self, view, candidates, default, float("inf"))
            self.rng = own
            hit_or_stay = view.kind is DecisionKind.HIT_OR_STAY
            self.seconds[0 if hit_or_stay else 1].append([100 * g for g in self.last_gains])
        return choice


def _games(first: int, count: int) -> Kept:
    _compile_rollouts()
    config = DistillConfig()
    kept: Kept = ([], [], [], [])
    for i in range(first, first + count):
        game, rng = seeded_game(config.seed, i, config.players)
        game.play([_Twice(rng.getrandbits(32), kept) for _ in range(game.n)])
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=int)
    parser.add_argument("count", type=int)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    chunk = 25
    starts = range(args.first, args.first + args.count, chunk)
    sizes = [min(chunk, args.first + args.count - s) for s in starts]
    with ProcessPoolExecutor(args.jobs) as pool:
        parts = list(pool.map(_games, starts, sizes))
    hit_net, use_net = load_hit_net(), load_use_net()
    score: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    decisions = 0
    for hits, uses, hit_seconds, use_seconds in parts:
        for (row, gain, r4_hit, r5_hit), second in zip(hits, hit_seconds, strict=True):
            # Gains over R4's choice: 0 for it, the search's for the other option.
            own = [0.0, gain if not r4_hit else -gain]
            net = int((hit_net.raw(np.array([row], dtype=np.float64))[0] > 0.0) != r4_hit)
            _add(score["Hit/Stay"], own, second, int(r5_hit != r4_hit), net)
        for (rows, gains, r5), second in zip(uses, use_seconds, strict=True):
            out = use_net.raw(np.array(rows, dtype=np.float64))
            best = int(np.argmax(out))
            net = best if out[best] > out[0] else 0
            for key in (KINDS[int(np.argmax(rows[0][41:47]))], "uses"):
                _add(score[key], gains, second, r5, net)
        decisions += len(hits) + len(uses)
    games = args.count
    print(f"{decisions} searched decisions in {games} games; points of the chance to win "
          "over R4's choice, a decision (a game): R5 by its own search, R5 and R6 by the second")
    for key, (n, own, r5_second, net_second) in score.items():
        if n:
            print(f"{key:15} {int(n):7}  R5 {own / n:+.4f} ({own / games:+.2f})  "
                  f"R5 {r5_second / n:+.4f} ({r5_second / games:+.2f})  "
                  f"R6 {net_second / n:+.4f} ({net_second / games:+.2f})")


def _add(s: list[float], own: list[float], second: list[float], r5: int, net: int) -> None:
    s[0] += 1
    s[1] += own[r5]
    s[2] += second[r5]
    s[3] += second[net]


if __name__ == "__main__":
    main()
