"""``flip7 bench --fast``: the compiled simulator's games per second beside the engine's.

One run measures, on the same workload (by default 4 players to 200 under the default rules,
every seat hitting while its number sum is below 27 and aiming its Actions and Modifiers at the
leader), and prints side by side:

* **compiled**: :func:`flip7.fast.simulate` in this process. It first plays a few games so that
  the loop is loaded (or built, or compiled); only the timed call counts.
* **engine**: the pure-Python engine, :meth:`flip7.engine.game.Game.play` without events, as
  ``flip7 bench`` times it (default bot ``basic``: hits below 27, aims at the leader), and the
  ratio compiled / engine.
* **start**: the wall time a new Python process takes to import :mod:`flip7.fast` and play
  10 games, the loop being cached (the median of :data:`START_RUNS`), and how the loop was
  compiled: ``aot`` (precompiled, loaded without numba) or ``jit`` (numba's JIT).
* **jobs** (``jobs=N``): N worker processes (``spawn``), each loading the kernels and playing a
  few games first, then all starting together and each playing ``games`` games. The figure is
  every game played over the wall time from the common start to the last finish; the sum of
  the per-process rates is printed beside it.
* **peer** (``peer=PATH``): an external program, for example another project's simulator,
  run once after the others with ``peer_args``; its games per second are read from its output
  (:func:`parse_rate`), so that the figures of one run sit side by side.

How a peer's figure is read (:func:`parse_rate`): without a pattern, the *last* figure in its
standard output and standard error of one of these forms counts: ``176000 games/s``,
``176,000 games per second``, ``790 K games/s`` (k/K thousand, M million), ``games/s: 176000``,
``games_per_second=176000`` (or ``games_per_s``, or a JSON key ``"games_per_second": 176000``),
or ``5680 ns/game`` (turned into games per second). Give a regular expression (``peer_regex``,
``--peer-regex``) for anything else: its group ``rate`` if it has one, else its first group,
must capture the games per second of the last match. A line ``N games per CPU second`` is read
besides, as the peer's figure per second of CPU time.

Every figure of this process and its workers is also given per second of CPU time the playing
thread got (``time.thread_time``): on a machine that other work shares, wall time counts the
others' turns too, CPU time does not.

>>> parse_rate("eppie: 1000000 games in 5.7 s\\n176,000 games/s")
176000.0
>>> parse_rate("~790 K games/s/core")
790000.0
>>> round(parse_rate("vengeance n=4   1135.0 ms   5675 ns/game"))
176211
>>> parse_rate("rate=42.5 g/s", r"rate=([0-9.]+)")
42.5
>>> engine = time_engine(games=2, players=4)
>>> engine.games, engine.processes, engine.games_per_second > 0
(2, 1, True)
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import math
import multiprocessing
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from flip7.bots import make_bot
from flip7.core.errors import Flip7Error
from flip7.core.rules import Rules
from flip7.core.seeds import bot_seed, derive_seed, game_seed
from flip7.engine.game import Game

__all__ = [
    "DEFAULT_BOT",
    "DEFAULT_ENGINE_GAMES",
    "DEFAULT_GAMES",
    "DEFAULT_POLICY",
    "START_RUNS",
    "BenchError",
    "FastBench",
    "Rate",
    "bench_command",
    "parse_rate",
    "run_fast_bench",
    "run_peer",
    "time_engine",
    "time_fast",
    "time_jobs",
    "time_start",
]

DEFAULT_POLICY = "targeting"
"""The compiled simulator's policy: hits below a number sum of 27, aims at the leader."""
DEFAULT_BOT = "basic"
"""The engine's bot for the same workload: hits below 27, aims at the leader card by card."""
DEFAULT_GAMES = 200_000
"""Games the compiled simulator plays per process (about a second)."""
DEFAULT_ENGINE_GAMES = 2_000
"""Games the engine plays (about a second: it is some 70 times slower)."""
START_RUNS = 3
"""New processes :func:`time_start` times (the median counts)."""
PEER_TIMEOUT = 900.0
"""Seconds a peer program may run before the bench gives up on it."""
_WARM_GAMES = 64
_JOB_TIMEOUT = 900.0


class BenchError(Flip7Error):
    """A benchmark that cannot run as asked: a missing dependency, a peer that fails or
    prints no figure, or arguments out of range."""


@dataclass(frozen=True)
class Rate:
    """One measured figure: ``games`` played in ``seconds`` of wall time by ``processes``
    processes, ``games_per_second`` in all; ``cpu_games_per_second``: games per second of
    CPU time the playing threads got (0: unknown), the steadier figure on a shared machine.
    A peer's figures are what it printed: its ``games`` are 0 (unknown) and ``seconds`` is
    the wall time of the whole program."""

    label: str
    games: int
    seconds: float
    games_per_second: float
    processes: int = 1
    detail: str = ""
    cpu_games_per_second: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "games": self.games,
            "seconds": self.seconds,
            "games_per_second": self.games_per_second,
            "cpu_games_per_second": self.cpu_games_per_second or None,
            "processes": self.processes,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class FastBench:
    """The figures of one ``flip7 bench --fast`` run, on one workload."""

    players: int
    rules: Rules
    policy: str
    bot: str
    seed: int
    compiled: Rate
    engine: Rate | None = None
    jobs: Rate | None = None
    peer: Rate | None = None
    start: float | None = None
    kernel: str = ""

    @property
    def ratio(self) -> float | None:
        """Compiled games/s over engine games/s (``None`` without an engine figure)."""
        return _ratio(self.compiled, self.engine)

    @property
    def peer_ratio(self) -> float | None:
        """Compiled (one process) games/s over the peer's (``None`` without a peer)."""
        return _ratio(self.compiled, self.peer)

    @property
    def cpu_ratio(self) -> float | None:
        """The same as :attr:`ratio` per second of CPU time."""
        return _ratio(self.compiled, self.engine, cpu=True)

    @property
    def peer_cpu_ratio(self) -> float | None:
        """The same as :attr:`peer_ratio` per second of CPU time (when the peer prints it)."""
        return _ratio(self.compiled, self.peer, cpu=True)

    def workload(self) -> str:
        """The line that says what every figure measured."""
        changed = self.rules.to_json()
        rules = f"rules {json.dumps(changed)}" if changed else "default rules"
        return (
            f"workload: {self.players} players to {self.rules.target_score}, {rules}; "
            f"compiled policy {self.policy!r} in every seat, engine bot {self.bot!r}; seed "
            f"{self.seed}"
        )

    def lines(self) -> list[str]:
        """The report, a line per figure."""
        out = [self.workload(), _rate_line(self.compiled)]
        if self.start is not None:
            out.append(_start_line(self.start, self.kernel))
        if self.engine is not None:
            out.append(_rate_line(self.engine))
            out.extend(_ratio_line("engine", self.ratio, self.cpu_ratio))
        if self.jobs is not None:
            out.append(_rate_line(self.jobs))
        if self.peer is not None:
            out.append(_rate_line(self.peer))
            out.extend(_ratio_line("peer", self.peer_ratio, self.peer_cpu_ratio))
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "rules": self.rules.to_json(),
            "policy": self.policy,
            "bot": self.bot,
            "seed": self.seed,
            "compiled": self.compiled.to_json(),
            "start_seconds": self.start,
            "kernel": self.kernel or None,
            "engine": None if self.engine is None else self.engine.to_json(),
            "ratio": self.ratio,
            "cpu_ratio": self.cpu_ratio,
            "jobs": None if self.jobs is None else self.jobs.to_json(),
            "peer": None if self.peer is None else self.peer.to_json(),
            "peer_ratio": self.peer_ratio,
            "peer_cpu_ratio": self.peer_cpu_ratio,
        }


def _start_line(seconds: float, kernel: str) -> str:
    how = {"aot": "precompiled (aot)", "jit": "numba's JIT (jit)"}.get(kernel, kernel)
    return (
        f"start: {seconds:.2f} s for a new process to import flip7.fast and play 10 games "
        f"(wall, median of {START_RUNS}); its loop {how}"
    )


def _ratio(a: Rate, b: Rate | None, cpu: bool = False) -> float | None:
    if b is None:
        return None
    x, y = (
        (a.cpu_games_per_second, b.cpu_games_per_second) if cpu
        else (a.games_per_second, b.games_per_second)
    )  # fmt: skip
    return x / y if x > 0 and y > 0 else None


def _rate_line(rate: Rate) -> str:
    head = f"{rate.label}: {rate.games_per_second:,.0f} games/s"
    if rate.games:
        head += f" ({rate.games:,} games in {rate.seconds:.2f} s, "
        head += "one process" if rate.processes == 1 else f"{rate.processes} processes"
    elif rate.seconds:
        head += f" (as printed; the program ran {rate.seconds:.2f} s"
    if rate.cpu_games_per_second:
        head += "; " if rate.games or rate.seconds else " ("
        head += f"{rate.cpu_games_per_second:,.0f} games per CPU second"
    if rate.games or rate.seconds or rate.cpu_games_per_second:
        head += ")"
    return f"{head}; {rate.detail}" if rate.detail else head


def _ratio_line(other: str, ratio: float | None, cpu: float | None = None) -> list[str]:
    if ratio is None:
        return []
    line = f"ratio compiled / {other}: {ratio:.2f}x"
    return [f"{line} ({cpu:.2f}x per CPU second)" if cpu is not None else line]


# ---------------------------------------------------------------------- compiled simulator


def _load_fast() -> ModuleType:
    """``flip7.fast``, or a :class:`BenchError` naming the missing dependency."""
    try:
        # Found, not imported: flip7.fast imports numba only when it must compile.
        for name in ("numpy", "numba"):
            if importlib.util.find_spec(name) is None:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        module = importlib.import_module("flip7.fast")
    except ImportError as exc:
        missing = exc.name or str(exc)
        raise BenchError(
            f"the compiled simulator needs numba and numpy (missing: {missing}); "
            "install them with: pip install 'flip7[fast]'"
        ) from None
    if not callable(getattr(module, "simulate", None)):
        raise BenchError("this flip7 has no compiled simulator (flip7.fast.simulate)")
    return module


def _simulate(
    fast: ModuleType, games: int, players: int, rules: Rules, policy: str, seed: int
) -> Any:
    try:
        return fast.simulate(
            games, players=players, rules=rules, policies=(policy,) * players, seed=seed,
            records=False,
        )  # fmt: skip
    except Flip7Error as exc:
        raise BenchError(f"the compiled simulator refused the workload: {exc}") from None


def _warm(fast: ModuleType, players: int, rules: Rules, policy: str) -> None:
    """Load (or compile) the kernels and play a few games, so that timing sees none of it."""
    try:  # a bad policy spec is said before seconds of loading, not after
        fast.parse_policy(policy)
    except Flip7Error as exc:
        raise BenchError(str(exc)) from None
    warm = getattr(fast, "warm", None)
    if callable(warm):
        warm()
    _simulate(fast, _WARM_GAMES, players, rules, policy, seed=0)


def _summary(result: Any, games: int, players: int) -> str:
    """Win shares per seat and mean rounds of a compiled run, when the result has them: the
    same workload gives about the same figures on the engine."""
    parts = []
    wins = getattr(result, "wins", None)
    if wins is not None and games:
        shares = [float(w) / games for w in list(wins)[:players]]
        parts.append("wins " + " ".join(f"{s:.3f}" for s in shares))
    rounds = getattr(result, "mean_rounds", None)
    if isinstance(rounds, (int, float)):
        parts.append(f"mean rounds {float(rounds):.2f}")
    inner = getattr(result, "games_per_second", None)
    if isinstance(inner, (int, float)) and inner > 0:
        parts.append(f"{float(inner):,.0f} games/s inside the compiled loop")
    return ", ".join(parts)


def time_fast(
    games: int = DEFAULT_GAMES,
    players: int = 4,
    rules: Rules | None = None,
    policy: str = DEFAULT_POLICY,
    seed: int = 0,
) -> Rate:
    """Time ``games`` games of the compiled simulator in this process, after a warm-up."""
    _check_games(games)
    rules = rules if rules is not None else Rules()
    fast = _load_fast()
    _warm(fast, players, rules, policy)
    start, cpu = time.perf_counter(), time.thread_time()
    result = _simulate(fast, games, players, rules, policy, seed)
    seconds, cpu = time.perf_counter() - start, time.thread_time() - cpu
    return Rate(
        "compiled (flip7.fast)", games, seconds, games / seconds, 1,
        _summary(result, games, players), _per(games, cpu),
    )  # fmt: skip


def time_start(runs: int = START_RUNS) -> tuple[float, str]:
    """The wall seconds a new Python process takes to import :mod:`flip7.fast` and play 10
    games (the median of ``runs``; warm the loop first, or the first one builds it), and
    how its loop was compiled (``"aot"`` or ``"jit"``)."""
    import flip7

    # The same flip7 as this process's, wherever it was imported from.
    root = os.path.dirname(os.path.dirname(os.path.abspath(flip7.__file__)))
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    code = "import flip7.fast as f; f.simulate(10, players=4); print(f.kernel_kind())"
    times, kind = [], ""
    for _ in range(max(1, runs)):
        start = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True,
            env=dict(os.environ, PYTHONPATH=path), timeout=PEER_TIMEOUT, check=False,
        )  # fmt: skip
        times.append(time.perf_counter() - start)
        if out.returncode != 0:
            tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
            raise BenchError(f"a new process could not play flip7.fast: {tail}")
        kind = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "?"
    times.sort()
    return times[len(times) // 2], kind


def _per(games: int, seconds: float) -> float:
    return games / seconds if seconds > 0 else 0.0


def _job(
    job: int,
    games: int,
    players: int,
    rules_json: dict[str, Any],
    policy: str,
    seed: int,
    barrier: Any,
    results: Any,
) -> None:
    """One worker of :func:`time_jobs`: warm up, wait for the others, play, report."""
    try:
        rules = Rules.from_json(rules_json)
        fast = _load_fast()
        _warm(fast, players, rules, policy)
    except BaseException as exc:  # the parent must hear of it, not wait at the barrier
        barrier.abort()
        results.put((job, 0, 0.0, 0.0, f"{type(exc).__name__}: {exc}"))
        return
    try:
        barrier.wait(_JOB_TIMEOUT)
    except threading.BrokenBarrierError:
        results.put((job, 0, 0.0, 0.0, "stopped: another process failed to start"))
        return
    start, cpu = time.perf_counter(), time.thread_time()
    try:
        _simulate(fast, games, players, rules, policy, derive_seed("bench-job", seed, job))
    except BaseException as exc:
        results.put((job, 0, 0.0, 0.0, f"{type(exc).__name__}: {exc}"))
        return
    results.put((job, games, time.perf_counter() - start, time.thread_time() - cpu, ""))


def time_jobs(
    jobs: int,
    games: int = DEFAULT_GAMES,
    players: int = 4,
    rules: Rules | None = None,
    policy: str = DEFAULT_POLICY,
    seed: int = 0,
) -> Rate:
    """Time ``jobs`` processes playing ``games`` games each at once; the figure is every
    game over the wall time from their common start (all warm) to the last one's end."""
    _check_games(games)
    if jobs < 1:
        raise BenchError(f"the number of jobs must be 1 or more, got {jobs}")
    rules = rules if rules is not None else Rules()
    _load_fast()  # a missing dependency is said once, here, not by every worker
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(jobs + 1)
    results = ctx.Queue()
    procs = [
        ctx.Process(
            target=_job,
            args=(j, games, players, rules.to_json(), policy, seed, barrier, results),
            daemon=True,
        )
        for j in range(jobs)
    ]
    for proc in procs:
        proc.start()
    try:
        # A worker that fails while warming breaks the barrier; every worker still reports.
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(_JOB_TIMEOUT)
        start = time.perf_counter()
        got = _collect(results, procs)
        wall = time.perf_counter() - start
    finally:
        for proc in procs:
            proc.join(5)
            if proc.is_alive():
                proc.terminate()
    errors = [f"job {job}: {err}" for job, _, _, _, err in got if err]
    if errors:
        raise BenchError("a benchmark process failed: " + "; ".join(sorted(errors)))
    total = sum(g for _, g, _, _, _ in got)
    per_process = sum(_per(g, s) for _, g, s, _, _ in got)
    per_cpu = sum(_per(g, c) for _, g, _, c, _ in got)
    return Rate(
        f"compiled, {jobs} processes at once", total, wall, total / wall, jobs,
        f"sum of per-process rates {per_process:,.0f} games/s; "
        f"{os.cpu_count() or '?'} CPUs on this machine", per_cpu,
    )  # fmt: skip


def _collect(results: Any, procs: Sequence[Any]) -> list[tuple[int, int, float, float, str]]:
    """One result per worker; a worker that ended without one (killed, crashed) is an error
    rather than a wait for ever."""
    got: list[tuple[int, int, float, float, str]] = []
    deadline = time.monotonic() + _JOB_TIMEOUT
    grace = 0
    while len(got) < len(procs):
        try:
            got.append(results.get(timeout=0.5))
            continue
        except queue.Empty:
            pass
        if time.monotonic() > deadline:
            raise BenchError(f"the benchmark processes ran longer than {_JOB_TIMEOUT:.0f} s")
        if not any(proc.is_alive() for proc in procs):
            grace += 1  # their last results may still be on their way through the pipe
            if grace > 4:
                codes = ", ".join(str(proc.exitcode) for proc in procs)
                raise BenchError(f"a benchmark process ended without a result (exit codes {codes})")
    return got


# ---------------------------------------------------------------------- the engine


def time_engine(
    games: int = DEFAULT_ENGINE_GAMES,
    players: int = 4,
    rules: Rules | None = None,
    bot: str = DEFAULT_BOT,
    seed: int = 0,
) -> Rate:
    """Time ``games`` games of the pure-Python engine as ``flip7 bench`` does: games without
    events, played by :meth:`Game.play`; the clock covers creating and playing each game."""
    _check_games(games)
    rules = rules if rules is not None else Rules()
    Game.new(players, rules, seed=0, events=False)  # a bad player count fails before timing
    try:
        bots = [make_bot(bot, bot_seed(seed, 0, seat)) for seat in range(players)]
    except Flip7Error as exc:
        raise BenchError(str(exc)) from None
    seeds = [game_seed(seed, i) for i in range(1, games + 1)]
    wins = [0.0] * players
    rounds = 0
    new = Game.new
    start, cpu = time.perf_counter(), time.thread_time()
    for gseed in seeds:
        game = new(players, rules, seed=gseed, events=False)
        game.play(bots)
        rounds += game.round
        for seat in game.winners:
            wins[seat] += 1 / len(game.winners)
    seconds, cpu = time.perf_counter() - start, time.thread_time() - cpu
    detail = "wins " + " ".join(f"{w / games:.3f}" for w in wins)
    detail += f", mean rounds {rounds / games:.2f}"
    label = f"engine (Game.play, bot {bot})"
    return Rate(label, games, seconds, games / seconds, 1, detail, _per(games, cpu))


# ---------------------------------------------------------------------- a peer program

_NUM = r"([0-9][0-9,_]*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
_PER_SECOND = r"(?:/\s*s(?:ec(?:ond)?)?|\s+per\s+s(?:ec(?:ond)?)?)\b"
_PATTERNS: tuple[tuple[re.Pattern[str], Callable[[float, str], float]], ...] = (
    # 176000 games/s, 176,000 games per second, 790 K games/s
    (
        re.compile(_NUM + r"\s*([kKM]?)\s*games?" + _PER_SECOND),
        lambda x, unit: x * {"": 1, "k": 1e3, "K": 1e3, "M": 1e6}[unit],
    ),
    # games/s: 176000, games per second = 176000
    (re.compile(r"games?" + _PER_SECOND + r"\s*[:=]\s*" + _NUM + r"()"), lambda x, _: x),
    # games_per_second=176000, games_per_s: 176000
    (re.compile(r"games_per_s(?:ec(?:ond)?)?['\"]?\s*[:=]\s*" + _NUM + r"()"), lambda x, _: x),
    # 5680 ns/game
    (re.compile(_NUM + r"\s*ns\s*/\s*game\b()"), lambda x, _: 1e9 / x if x else math.inf),
)


# Not a games/s form of _PATTERNS: a peer that prints this says how fast it ran on its CPU.
_CPU_RATE = re.compile(_NUM + r"\s*games\s+per\s+CPU\s+second")


def _number(text: str) -> float:
    try:
        return float(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise BenchError(f"not a number: {text!r}") from None


def parse_rate(output: str, pattern: str | None = None) -> float:
    """The games per second a program printed: the last figure of a known form in
    ``output``, or the last match of ``pattern`` (group ``rate``, else group 1)."""
    if pattern is not None:
        regex = _check_pattern(pattern)
        matches = list(regex.finditer(output))
        if not matches:
            raise BenchError(f"the peer's output has no match of {pattern!r}")
        last = matches[-1]
        text = last.group("rate") if "rate" in regex.groupindex else last.group(1)
        if text is None:
            raise BenchError(f"the group of {pattern!r} captured nothing")
        return _number(text)
    best: tuple[int, float] | None = None
    for regex, convert in _PATTERNS:
        for match in regex.finditer(output):
            if best is None or match.start() >= best[0]:
                best = (match.start(), convert(_number(match.group(1)), match.group(2)))
    if best is None:
        raise BenchError(
            "found no games-per-second figure in the peer's output (forms read: "
            "'N games/s', 'games/s: N', 'games_per_second=N', 'N ns/game'); "
            "give one with --peer-regex"
        )
    return best[1]


def run_peer(
    path: str,
    args: Sequence[str] = (),
    pattern: str | None = None,
    timeout: float = PEER_TIMEOUT,
) -> Rate:
    """Run a peer program once and read its games per second from what it prints."""
    exe = _executable(path)
    if pattern is not None:
        _check_pattern(pattern)
    command = [exe, *args]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise BenchError(
            f"the peer ran longer than {timeout:.0f} s: {shlex.join(command)}"
        ) from None
    except OSError as exc:
        raise BenchError(f"the peer could not start ({exc}): {shlex.join(command)}") from None
    seconds = time.perf_counter() - start
    output = done.stdout + ("\n" + done.stderr if done.stderr else "")
    if done.returncode != 0:
        tail = " | ".join(output.strip().splitlines()[-3:])
        raise BenchError(
            f"the peer exited with status {done.returncode}: {shlex.join(command)}"
            + (f" (last output: {tail})" if tail else "")
        )
    rate = parse_rate(output, pattern)
    cpu = _CPU_RATE.findall(output)
    cpu_rate = _number(cpu[-1]) if cpu else 0.0
    return Rate(f"peer ({shlex.join(command)})", 0, seconds, rate, 1, "", cpu_rate)


def _check_pattern(pattern: str) -> re.Pattern[str]:
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise BenchError(f"--peer-regex is not a regular expression ({exc}): {pattern!r}") from None
    if not regex.groups:
        raise BenchError(f"--peer-regex needs a group that captures the figure: {pattern!r}")
    return regex


def _executable(path: str) -> str:
    """The program ``path`` names (a path, or a name on ``PATH``), or a :class:`BenchError`."""
    exe = shutil.which(path) if os.sep not in path else path
    if exe is None or not os.path.isfile(exe) or not os.access(exe, os.X_OK):
        raise BenchError(f"the peer {path!r} is not an executable file")
    return exe


def _check_games(games: int) -> None:
    if games < 1:
        raise BenchError(f"the number of games must be 1 or more, got {games}")


# ---------------------------------------------------------------------- one run


def run_fast_bench(
    games: int = DEFAULT_GAMES,
    players: int = 4,
    rules: Rules | None = None,
    policy: str = DEFAULT_POLICY,
    bot: str = DEFAULT_BOT,
    seed: int = 0,
    engine_games: int | None = DEFAULT_ENGINE_GAMES,
    jobs: int | None = None,
    peer: str | None = None,
    peer_args: Sequence[str] = (),
    peer_regex: str | None = None,
    report: Callable[[str], None] | None = None,
) -> FastBench:
    """Measure the compiled simulator, the engine (unless ``engine_games`` is ``None``), N
    processes (``jobs``) and a peer program in one run; ``report`` gets each line as soon as
    its figure is known."""
    rules = rules if rules is not None else Rules()
    _check_games(games)
    if engine_games is not None:
        _check_games(engine_games)
    if jobs is not None and jobs < 1:
        raise BenchError(f"the number of jobs must be 1 or more, got {jobs}")
    if peer is not None:  # fail before minutes of timing, not after
        _executable(peer)
        if peer_regex is not None:
            _check_pattern(peer_regex)
    Game.new(players, rules, seed=0, events=False)  # a bad player count fails here
    # A bad policy or a missing dependency is said before anything is printed.
    _warm(_load_fast(), players, rules, policy)
    bench = FastBench(players, rules, policy, bot, seed, Rate("", 0, 0.0, 0.0))
    say = report or (lambda _line: None)
    say(bench.workload())
    compiled = time_fast(games, players, rules, policy, seed)
    say(_rate_line(compiled))
    start, kernel = time_start()
    say(_start_line(start, kernel))
    engine = None
    if engine_games is not None:
        engine = time_engine(engine_games, players, rules, bot, seed)
        say(_rate_line(engine))
        for line in _ratio_line("engine", _ratio(compiled, engine), _ratio(compiled, engine, True)):
            say(line)
    parallel = None
    if jobs is not None:
        parallel = time_jobs(jobs, games, players, rules, policy, seed)
        say(_rate_line(parallel))
    peer_rate = None if peer is None else run_peer(peer, peer_args, peer_regex)
    result = FastBench(
        players, rules, policy, bot, seed, compiled, engine, parallel, peer_rate, start, kernel
    )
    if peer_rate is not None:
        say(_rate_line(peer_rate))
        for line in _ratio_line("peer", result.peer_ratio, result.peer_cpu_ratio):
            say(line)
    return result


def bench_command(args: argparse.Namespace, rules: Rules) -> int:
    """``flip7 bench --fast``: run :func:`run_fast_bench` from the parsed arguments, print
    each figure as it comes (or, with ``--json``, one JSON object at the end); returns 0."""
    if not args.fast:
        options = (
            ("--jobs", args.jobs), ("--peer", args.peer), ("--peer-args", args.peer_args),
            ("--peer-regex", args.peer_regex), ("--policy", args.policy),
            ("--engine-games", args.engine_games is not None),
        )  # fmt: skip
        given = ", ".join(name for name, value in options if value)
        raise BenchError(f"{given} only go with --fast (the compiled simulator's bench)")
    if args.peer is None and (args.peer_args or args.peer_regex):
        raise BenchError("--peer-args and --peer-regex need --peer PATH")
    try:
        peer_args = shlex.split(args.peer_args or "")
    except ValueError as exc:
        raise BenchError(f"--peer-args is not a command line ({exc}): {args.peer_args!r}") from None

    def report(line: str) -> None:
        print(line, flush=True)

    result = run_fast_bench(
        games=args.games if args.games is not None else DEFAULT_GAMES,
        players=args.players,
        rules=rules,
        policy=args.policy or DEFAULT_POLICY,
        bot=args.bot,
        seed=args.seed,
        engine_games=None if args.engine_games == 0 else args.engine_games or DEFAULT_ENGINE_GAMES,
        jobs=args.jobs,
        peer=args.peer,
        peer_args=peer_args,
        peer_regex=args.peer_regex,
        report=None if args.json else report,
    )
    if args.json:
        print(json.dumps(result.to_json()))
    sys.stdout.flush()
    return 0
