"""The coach's benchmark: how long a whole game's analysis takes, one seat at a time.

Each game is a seeded 4-player game of ``winprob`` (R4) bots, which decide by their models
alone (no clock), so the same seed gives the same game on every machine; the time is
:func:`flip7.coach.analyse` of every seat of it in turn, with ``jobs`` processes.

``flip7 analyse --bench`` runs it (the tests run it on a short game).

>>> "cores" in machine()
True
"""

from __future__ import annotations

import os
import platform
import resource
import time
from dataclasses import dataclass

from flip7.bots import make_bot
from flip7.coach.analyse import analyse
from flip7.core.jsontypes import JSONObject
from flip7.core.rules import Rules
from flip7.core.seeds import bot_seed, game_seed
from flip7.engine.game import Game
from flip7.engine.record import Record

__all__ = ["BenchResult", "BenchRun", "benchmark", "machine"]

BOT = "winprob"


def machine() -> str:
    """The CPU's model name (``lscpu``'s), and the number of cores."""
    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{name}, {os.cpu_count() or 1} cores"


@dataclass(frozen=True, slots=True)
class BenchRun:
    """One seat of one game analysed."""

    game: int
    seat: int
    decisions: int
    seconds: float
    cpu_seconds: float = 0.0  # this process's and its workers' CPU time

    def to_json(self) -> JSONObject:
        return {
            "game": self.game,
            "seat": self.seat,
            "decisions": self.decisions,
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
        }


@dataclass(frozen=True, slots=True)
class BenchResult:
    """Every seat of every game, timed."""

    runs: tuple[BenchRun, ...]
    jobs: int
    players: int
    seed: int
    machine: str
    target: int = 200

    @property
    def seconds(self) -> list[float]:
        return [r.seconds for r in self.runs]

    def to_json(self) -> JSONObject:
        times = self.seconds
        return {
            "jobs": self.jobs,
            "players": self.players,
            "seed": self.seed,
            "target": self.target,
            "bot": BOT,
            "machine": self.machine,
            "python": platform.python_version(),
            "runs": [r.to_json() for r in self.runs],
            "seconds_mean": round(sum(times) / len(times), 3) if times else 0.0,
            "seconds_max": round(max(times), 3) if times else 0.0,
        }


def _cpu() -> float:
    """CPU seconds of this process and of its finished worker processes."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def benchmark(
    games: int = 1, jobs: int = 1, seed: int = 0, players: int = 4, target: int = 200
) -> BenchResult:
    """Play ``games`` seeded games of ``winprob`` bots to ``target`` and time the coach's
    analysis of each seat."""
    runs: list[BenchRun] = []
    rules = Rules(target_score=target)
    for index in range(1, games + 1):
        game = Game.new(players, rules, seed=game_seed(seed, index), events=False)
        game.play([make_bot(BOT, seed=bot_seed(seed, index, s)) for s in range(players)])
        record = Record.from_game(game)
        for seat in range(players):
            cpu = _cpu()
            start = time.perf_counter()
            report = analyse(record, seat, jobs=jobs, seed=seed)
            wall = time.perf_counter() - start
            runs.append(BenchRun(index, seat, len(report.decisions), wall, _cpu() - cpu))
    return BenchResult(tuple(runs), jobs, players, seed, machine(), target)
