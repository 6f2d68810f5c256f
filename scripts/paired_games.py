"""Pair lineups played on the same deals over several seeds (docs/strength.md, R6 and R5
on 12,000 deals).

``flip7 tournament ... --paired --out DIR`` writes every game to ``DIR/games.csv`` (a
``--compare`` lineup's to ``DIR/compare/games.csv``). Given each lineup's files, one per
seed and in the same order of seeds, this prints the win rate of the seat of lineup entry
``--entry`` (0: the first seat of ``--seats``, rotating as the tournament rotates it) and
the paired difference of every two lineups, game by game, with its 95% interval: per seed,
then over all the seeds together. Games pair by deal and rotation, as ``--compare`` pairs
them.

    python scripts/paired_games.py R6=s1/games.csv,s2/games.csv \\
        R5=s1/compare/games.csv,s2/compare/games.csv R4=w1/games.csv,w2/games.csv
"""

from __future__ import annotations

import argparse
import csv
from itertools import combinations

from flip7.tournament.compare import _mean_interval


def shares(path: str, entry: int) -> list[tuple[str, int, float]]:
    """(deal seed, rotation, share of the win) of lineup entry ``entry`` in each game."""
    out = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            n = sum(1 for k in row if k.endswith("_bot"))
            rotation = int(row["rotation"])
            winners = [int(w) for w in row["winners"].split()]
            seat = (entry + rotation) % n
            out.append((row["deal_seed"], rotation, 1.0 / len(winners) if seat in winners else 0.0))
    return out


def interval(values: list[float]) -> str:
    """The mean in points of win rate, and its 95% interval (as ``--compare`` gives it)."""
    mean, low, high = _mean_interval(values)
    return f"{100 * mean:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lineups", nargs="+", help="NAME=games.csv,games.csv,... (a file a seed)")
    parser.add_argument("--entry", type=int, default=0, help="the lineup entry compared")
    args = parser.parse_args()
    names: list[str] = []
    files: list[list[str]] = []
    for spec in args.lineups:
        name, _, paths = spec.partition("=")
        names.append(name)
        files.append(paths.split(","))
    seeds = len(files[0])
    if any(len(f) != seeds for f in files):
        parser.error("give every lineup one file a seed, the same seeds in the same order")
    pooled: dict[tuple[int, int], list[float]] = {p: [] for p in combinations(range(len(names)), 2)}
    for k in range(seeds):
        games = [shares(f[k], args.entry) for f in files]
        for other in games[1:]:
            if [g[:2] for g in other] != [g[:2] for g in games[0]]:
                parser.error(f"files {k + 1} were not played on the same deals")
        rates = ", ".join(f"{n} {100 * sum(g[2] for g in gs) / len(gs):.1f}%"
                          for n, gs in zip(names, games, strict=True))  # fmt: skip
        print(f"files {k + 1} ({len(games[0])} games): {rates}")
        for a, b in pooled:
            diffs = [x[2] - y[2] for x, y in zip(games[a], games[b], strict=True)]
            pooled[a, b] += diffs
            print(f"  {names[a]} - {names[b]}: {interval(diffs)}")
    print(f"all {seeds} together ({len(pooled[0, 1])} games):")
    for (a, b), diffs in pooled.items():
        print(f"  {names[a]} - {names[b]}: {interval(diffs)}")


if __name__ == "__main__":
    main()
