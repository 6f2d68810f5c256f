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

from flip7.bots.hitnet import hit_features, load_hit_net, load_use_net, use_features
from flip7.bots.mcts import MCTSBot
from flip7.bots.public import PublicView
from flip7.core.decisions import HIT, Decision, DecisionKind
from flip7.learn.distill import DistillConfig, _compile_rollouts
from flip7.learn.selfplay import seeded_game

KINDS = ("Give", "Just One More!", "Steal", "Swap", "Discard", "Flip Four!")
# One searched decision: Hit/Stay or not, feature rows, R5's choice, both searches' gains.
Row = tuple[bool, list[list[float]], int, list[float], list[float]]


class _Twice(MCTSBot):
    """R5, searching every searched decision a second time from another random stream."""

    def __init__(self, seed: int, rows: list[Row]) -> None:
        super().__init__(seed, iters=DistillConfig().iters, time=0.9)
        self.rows = rows
        self.second = random.Random(seed ^ 0x5EED)

    def search(
        self, view: PublicView, candidates: list[Decision], default: Decision, deadline: float
    ) -> Decision:
        choice = super().search(view, candidates, default, deadline)
        if not self.last_iterations:
            return choice
        first = [100 * g for g in self.last_gains]
        own, self.rng = self.rng, self.second
        super().search(view, candidates, default, float("inf"))
        self.rng = own
        second = [100 * g for g in self.last_gains]
        if view.kind is DecisionKind.HIT_OR_STAY:
            # Candidates: R4's choice, then the other; rows say Hit (a row of one).
            feats = [hit_features(view), [1.0 if default is HIT else 0.0]]
            self.rows.append((True, feats, candidates.index(choice), first, second))
        else:
            judge = self.judge(view)
            worth = {d: v for v, d in judge.ranked(view.options)}
            feats = use_features(view, judge, [(worth[d], d) for d in candidates])
            self.rows.append((False, feats, candidates.index(choice), first, second))
        return choice


def _games(first: int, count: int) -> list[Row]:
    _compile_rollouts()
    config = DistillConfig()
    rows: list[Row] = []
    for i in range(first, first + count):
        game, rng = seeded_game(config.seed, i, config.players)
        game.play([_Twice(rng.getrandbits(32), rows) for _ in range(game.n)])
    return rows


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
        rows = [r for part in pool.map(_games, starts, sizes) for r in part]
    hit_net, use_net = load_hit_net(), load_use_net()
    score: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for is_hit, feats, r5, first, second in rows:
        if is_hit:
            hits = hit_net.raw(np.array(feats[:1], dtype=np.float64))[0] > 0.0
            net = int(hits != (feats[1][0] == 1.0))
            kind = "Hit/Stay"
        else:
            out = use_net.raw(np.array(feats, dtype=np.float64))
            best = int(np.argmax(out))
            net = best if out[best] > out[0] else 0
            kind = KINDS[int(np.argmax(feats[0][41:47]))]
        for key in [kind] if is_hit else [kind, "uses"]:
            s = score[key]
            s[0] += 1
            s[1] += first[r5]
            s[2] += second[r5]
            s[3] += second[net]
    games = args.count
    print(f"{len(rows)} searched decisions in {games} games; points of the chance to win "
          "over R4's choice, a decision (a game): R5 by its own search, R5 and R6 by the second")
    for key, (n, own, r5_second, net_second) in score.items():
        if n:
            print(f"{key:15} {int(n):7}  R5 {own / n:+.4f} ({own / games:+.2f})  "
                  f"R5 {r5_second / n:+.4f} ({r5_second / games:+.2f})  "
                  f"R6 {net_second / n:+.4f} ({net_second / games:+.2f})")


if __name__ == "__main__":
    main()
