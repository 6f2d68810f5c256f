"""The bench's runs: the services every run shares (:class:`Bench`: PostgreSQL and Redis,
a fresh database and an empty Redis per run), a cluster of ``flip7 serve`` processes behind
HAProxy per run (:meth:`Bench.cluster`), and the load generator, a separate process
(:func:`generator_main`) running :func:`flip7.client.loadtest.load_test` against the proxy,
whose CPU is measured like every other process's.

>>> _percent(1.5, 3.0)
50.0
>>> ratio_of(300.0, 200.0), ratio_of(1.0, 0.0)
(1.5, None)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flip7.client.clusterbench.counters import Counters, Watched, per_move, read_counters
from flip7.client.loadtest.command import own_server_limits
from flip7.client.loadtest.session import load_test
from flip7.client.measure import CpuSnapshot, cpu_delta, cpu_snapshot, machine_busy_seconds, percent
from flip7.client.options import loop_factory, raise_open_files
from flip7.client.services import (
    RECIPE,
    Cluster,
    Postgres,
    RedisServer,
    ServerProcess,
    ServiceError,
    python_env,
)


class BenchError(ServiceError):
    """A run could not be measured (the message says why)."""


def _percent(seconds: float, wall: float) -> float:
    """CPU seconds over a wall-clock window, in % of one core, to a tenth."""
    return round(percent(seconds, wall), 1)


def ratio_of(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else round(a / b, 3)


# Installed in every server process and in the load generator: each garbage collection that
# holds the interpreter for GC_PAUSE_MS or more is written to standard error (the server's
# log) as "flip7-bench-gc <unix time> <generation> <ms>", so that a latency tail can be
# laid next to the pauses of each process. It changes nothing else.
GC_PAUSE_MS = 5.0
GC_MARK = "flip7-bench-gc"
GC_HOOK = f"""
import gc as _gc, sys as _sys, time as _time
_began = [0.0]
def _pause(phase, info):
    if phase == "start":
        _began[0] = _time.perf_counter()
        return
    ms = (_time.perf_counter() - _began[0]) * 1000
    if ms >= {GC_PAUSE_MS}:
        _sys.stderr.write(f"{GC_MARK} {{_time.time():.3f}} {{info['generation']}} {{ms:.1f}}\\n")
_gc.callbacks.append(_pause)
"""


def _gc_pauses(text: str) -> list[tuple[float, int, float]]:
    """The (unix time, generation, ms) of every pause line in a log.

    >>> _gc_pauses("x\\nflip7-bench-gc 100.5 2 31.2\\n")
    [(100.5, 2, 31.2)]
    """
    found = []
    for line in text.splitlines():
        if line.startswith(GC_MARK + " "):
            with contextlib.suppress(ValueError, IndexError):
                _, at, generation, ms = line.split()[:4]
                found.append((float(at), int(generation), float(ms)))
    return found


def _gc_summary(pauses: list[tuple[float, int, float]], window: Sequence[float]) -> dict[str, Any]:
    """The pauses of GC_PAUSE_MS or more within ``window`` (unix times): how many, the
    longest, their total, how many were full (generation 2) collections, and the paused
    milliseconds in each second of the window (the load test's timeline seconds).

    >>> _gc_summary([(1.5, 0, 9.0), (5.0, 2, 40.0), (50.0, 2, 99.0)], [0.0, 10.0])
    {'count': 2, 'full': 1, 'max_ms': 40.0, 'total_ms': 49.0, 'by_second': {'1': 9.0, '5': 40.0}}
    """
    inside = [p for p in pauses if window[0] <= p[0] <= window[1]]
    by_second: dict[str, float] = {}
    for at, _, ms in inside:
        key = str(int(at - window[0]))
        by_second[key] = round(by_second.get(key, 0.0) + ms, 1)
    return {
        "count": len(inside),
        "full": sum(1 for p in inside if p[1] == 2),
        "max_ms": max((p[2] for p in inside), default=0.0),
        "total_ms": round(sum(p[2] for p in inside), 1),
        "by_second": by_second,
    }


@dataclass(frozen=True, slots=True)
class Layout:
    """What one run is measured against."""

    key: str  # "1", "2", "single"
    processes: int
    redis: bool

    @property
    def label(self) -> str:
        processes = "1 process" if self.processes == 1 else f"{self.processes} processes"
        return f"{processes}, PostgreSQL" + (" + Redis" if self.redis else " only")


LAYOUTS = {
    "1": Layout("1", 1, True),
    "2": Layout("2", 2, True),
    "single": Layout("single", 1, False),
}


# The load generator's gc.set_threshold (Python's is 700, 10, 10): see --loadgen-gc.
LOADGEN_GC = (100_000, 50, 100)


@dataclass(slots=True)
class Load:
    """The load of one run, as ``flip7 loadtest`` takes it."""

    tables: int
    clients: int
    duration: float
    warmup: float
    think: float
    think_jitter: float = 0.5
    seed: int | None = None
    timeout: float = 10.0
    setup_concurrency: int = 20
    # The load generator's gc.set_threshold (None: Python's 700, 10, 10).
    gc_threshold: tuple[int, int, int] | None = None


@dataclass(slots=True)
class Bench:
    """The services every run shares (PostgreSQL and Redis: a fresh database and an empty
    Redis per run) and where the logs go."""

    workdir: Path
    recipe: Path = RECIPE
    haproxy: str = "haproxy"
    log_level: str = "warning"
    loop: str = "auto"
    pg: Postgres = field(default_factory=Postgres)
    redis: RedisServer | None = None
    runs: int = 0
    verbose: bool = True
    # Before each run, wait up to ``quiet_wait`` seconds for the machine to be quiet (busy
    # below ``quiet_below`` % of one core over a second): on a shared machine, other work
    # would otherwise be measured with ours. What it found is kept with the run's figures.
    quiet_below: float = 50.0
    quiet_wait: float = 0.0
    # Runs in which others took more than this (% of a core) are measured again.
    max_other: float | None = None
    attempts: int = 3

    def say(self, text: str) -> None:
        if self.verbose:
            print(text, file=sys.stderr, flush=True)

    def wait_quiet(self) -> float | None:
        """The machine's busy CPU (% of one core, over 1 s) once quiet or the wait is over."""
        deadline = time.monotonic() + self.quiet_wait
        said = False
        while True:
            before, began = machine_busy_seconds(), time.monotonic()
            time.sleep(1.0)
            after = machine_busy_seconds()
            if before is None or after is None:
                return None
            busy = _percent(after - before, time.monotonic() - began)
            if busy < self.quiet_below or time.monotonic() >= deadline:
                return busy
            if not said:
                self.say(f"  waiting for the machine to be quiet (busy {busy:.0f}% of a core)")
                said = True

    @contextlib.contextmanager
    def cluster(self, layout: Layout, connections: int) -> Iterator[Cluster]:
        """``layout``'s processes on a fresh database, HAProxy in front; stopped on leaving."""
        assert self.redis is not None
        self.runs += 1
        folder = self.workdir / f"run{self.runs}-{layout.key}"
        folder.mkdir()
        database = self.pg.create_database("bench_")
        self.redis.flush()
        # Every player comes from 127.0.0.1 (X-Forwarded-For through the proxy): the budgets
        # a server keeps per address are raised to fit the whole load, as loadtest does.
        # A flat-out client at a small table may also send more than the 20 frames a
        # second a connection is allowed.
        extra = [*own_server_limits(connections), "--limit", "rate_per_second=1000",
                 "--limit", "rate_burst=2000", "--trusted-proxy", "127.0.0.1"]  # fmt: skip
        if layout.redis:
            extra += ["--redis", self.redis.url()]
        servers = [
            ServerProcess(
                self.pg.url(database),
                name=f"app{i + 1}",
                log_level=self.log_level,
                extra_args=extra,
                log_path=folder / f"app{i + 1}.log",
                preamble=GC_HOOK,
                startup_timeout=60.0,
            )
            for i in range(layout.processes)
        ]
        try:
            with Cluster(servers, folder, recipe=self.recipe, haproxy=self.haproxy) as cluster:
                yield cluster
        finally:
            with contextlib.suppress(ServiceError):
                self.pg.drop_database(database)

    def groups(self, cluster: Cluster) -> dict[str, list[int]]:
        assert self.redis is not None
        groups = {s.name: [s.pid] for s in cluster.servers}
        groups.update(postgres=[self.pg.pid], redis=[self.redis.pid], haproxy=[cluster.proxy.pid])
        return groups

    def measure(self, layout: Layout, load: Load) -> dict[str, Any]:
        """One run of ``load`` against ``layout``: the load test's figures, the CPU seconds of
        every process in its measured window, and the servers' error lines. With
        ``max_other``, a run in which processes not ours took more than that (% of a core)
        is done again (up to ``attempts`` times); the runs set aside are kept in
        ``discarded``."""
        discarded: list[dict[str, Any]] = []
        while True:
            figures = self._measure_once(layout, load)
            other = figures["cpu_percent"].get("other", 0.0)
            if self.max_other is None or other <= self.max_other:
                break
            if len(discarded) + 1 >= self.attempts:
                figures["disturbed"] = True  # the last one stands, marked
                break
            discarded.append(figures)
            self.say(f"  other work took {other:.0f}% of a core: measured again")
        figures["discarded"] = discarded
        return figures

    def _measure_once(self, layout: Layout, load: Load) -> dict[str, Any]:
        connections = load.tables * load.clients
        busy = self.wait_quiet()
        with self.cluster(layout, connections) as cluster:
            pids = {s.name: s.pid for s in cluster.servers}
            # Before any table: what a process holds by itself (the capacity model's base).
            idle = read_counters(None, None, pids).rss_kib
            services = Watched(
                cluster.servers[0].db,
                None if self.redis is None else (self.redis.host, self.redis.port),
                pids,
            )
            out = _generate(cluster.proxy.url, load, self.groups(cluster), self.loop, services)
        # After they stopped: their logs are complete.
        servers = cluster.servers
        errors = [line for s in servers for line in s.log_errors()]
        figures = _figures(layout, load, out, errors)
        figures["machine_busy_before_percent"] = busy
        figures["rss_idle_mib"] = {name: round(kib / 1024, 1) for name, kib in idle.items()}
        figures["loadgen_gc_threshold"] = list(load.gc_threshold or (700, 10, 10))
        window = (out.get("cpu") or {}).get("window_wall")
        if window:
            gc_pauses = {s.name: _gc_summary(_gc_pauses(s.log_text()), window) for s in servers}
            if out.get("gc") is not None:
                gc_pauses["loadgen"] = out["gc"]
            figures["gc_pauses"] = gc_pauses
        return figures


def _generate(
    url: str,
    load: Load,
    groups: dict[str, list[int]],
    loop: str,
    services: Watched | None = None,
) -> dict[str, Any]:
    """Run the load generator (a separate process) and return what it printed.
    ``services`` names the PostgreSQL database, the Redis server and the servers' pids whose
    counters are read at the window's edges (:mod:`.counters`)."""
    spec = {
        "url": url,
        "tables": load.tables,
        "clients": load.clients,
        "duration": load.duration,
        "warmup": load.warmup,
        "think": load.think,
        "think_jitter": load.think_jitter,
        "seed": load.seed,
        "timeout": load.timeout,
        "setup_concurrency": load.setup_concurrency,
        "groups": groups,
        "loop": loop,
        "gc_threshold": load.gc_threshold,
        "services": None if services is None else services.to_json(),
    }
    # Setting up a table costs about 10 ms of requests through the proxy; then the warmup,
    # the window, the moves in flight, the sockets' closing.
    limit = 120 + load.tables * load.clients * 0.05 + load.warmup + load.duration
    command = [
        sys.executable,
        "-c",
        "from flip7.client.clusterbench.bench import generator_main; "
        "raise SystemExit(generator_main())",
        json.dumps(spec),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit,
                              env=python_env())
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"the load generator did not finish in {limit:.0f} s") from exc
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise BenchError(
            f"the load generator failed (status {done.returncode}):\n{done.stderr[-3000:]}"
        )
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def generator_main(argv: list[str] | None = None) -> int:
    """The load generator process: ``load_test`` against the proxy (what ``flip7 loadtest
    --url`` runs), reading every group's CPU at the edges of its measured window. Prints
    one JSON line: {"result": the load test's JSON, "cpu": :func:`cpu_delta`}."""
    spec = json.loads((argv or sys.argv[1:])[0])
    groups: dict[str, list[int]] = {k: [int(p) for p in v] for k, v in spec["groups"].items()}
    groups["loadgen"] = [os.getpid()]
    marks: dict[str, CpuSnapshot] = {}
    services = None if spec.get("services") is None else Watched.from_json(spec["services"])
    readings: dict[str, Counters] = {}
    pauses: list[tuple[float, int, float]] = []
    began = [0.0]

    def on_window(edge: str) -> None:
        marks[edge] = cpu_snapshot(groups)
        if services is not None:
            readings[edge] = services.read()

    def pause(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
            return
        ms = (time.perf_counter() - began[0]) * 1000
        if ms >= GC_PAUSE_MS:
            pauses.append((time.time(), int(info["generation"]), round(ms, 1)))

    import gc

    gc.callbacks.append(pause)
    if spec.get("gc_threshold"):
        gc.set_threshold(*(int(n) for n in spec["gc_threshold"]))

    clients = int(spec["clients"])
    rules = {"allow_two_players": True} if clients == 2 else None
    raise_open_files(int(spec["tables"]) * clients + 256)
    with asyncio.Runner(loop_factory=loop_factory(spec.get("loop", "auto"))) as runner:
        result = runner.run(
            load_test(
                spec["url"],
                int(spec["tables"]),
                clients,
                float(spec["duration"]),
                float(spec["think"]),
                warmup=float(spec["warmup"]),
                think_jitter=float(spec["think_jitter"]),
                seed=spec["seed"],
                timeout=float(spec["timeout"]),
                setup_concurrency=int(spec["setup_concurrency"]),
                rules=rules,
                on_window=on_window,
            )
        )
    cpu = cpu_delta(marks["start"], marks["end"]) if len(marks) == 2 else None
    gc_loadgen = None if cpu is None else _gc_summary(pauses, cpu["window_wall"])
    costs = (
        per_move(readings["start"], readings["end"], result.moves).to_json()
        if len(readings) == 2
        else None
    )
    print(
        json.dumps({"result": result.to_json(), "cpu": cpu, "gc": gc_loadgen, "per_move": costs}),
        flush=True,
    )
    return 0


def _figures(
    layout: Layout, load: Load, out: dict[str, Any], server_errors: list[str]
) -> dict[str, Any]:
    result = out["result"]
    cpu = out["cpu"] or {
        "wall_s": result["duration"],
        "seconds": {},
        "machine_s": None,
        "other_s": None,
    }
    wall = cpu["wall_s"]
    seconds: dict[str, float] = cpu["seconds"]
    server_s = sum(v for k, v in seconds.items() if k.startswith("app"))
    percent = {name: _percent(value, wall) for name, value in seconds.items()}
    if cpu["other_s"] is not None:
        percent["other"] = _percent(cpu["other_s"], wall)
    return {
        "layout": layout.key,
        "label": layout.label,
        "processes": layout.processes,
        "redis": layout.redis,
        "tables": load.tables,
        "clients": load.clients,
        "think": load.think,
        "moves": result["moves"],
        "moves_per_second": result["moves_per_second"],
        "p50_ms": result["p50_ms"],
        "p95_ms": result.get("p95_ms"),
        "p99_ms": result["p99_ms"],
        "max_ms": result["max_ms"],
        "errors": result["errors"]["count"],
        "error_kinds": result["errors"]["kinds"],
        "first_errors": result["errors"]["first"],
        "setup_seconds": result["setup_seconds"],
        "games_finished": result["games_finished"],
        "client_lag_max_ms": result["client_lag_max_ms"],
        "window_s": wall,
        "cpu_seconds": seconds,
        "cpu_percent": percent,
        "machine_percent": None if cpu["machine_s"] is None else _percent(cpu["machine_s"], wall),
        # Of "other": the kernel's interrupts (loopback networking), and the busiest processes
        # that are not this bench's (on a shared machine: someone else's work).
        "interrupts_percent": None
        if cpu.get("interrupts_s") is None
        else _percent(cpu["interrupts_s"], wall),
        "other_top": [[name, _percent(sec, wall)] for name, sec in cpu.get("other_top", [])],
        "server_cpu_seconds": round(server_s, 3),
        "moves_per_server_cpu_second": (
            round(result["moves"] / server_s, 1) if server_s > 0 else None
        ),
        # The shared services' costs per move (PostgreSQL, Redis) and the servers' memory.
        "per_move": out.get("per_move"),
        "server_log_errors": len(server_errors),
        "first_server_log_errors": server_errors[:5],
        # Second by second: [second, moves sent, p50 ms, p99 ms, max ms] (the load test's).
        "timeline": [
            [t["second"], t["moves"], t["p50_ms"], t["p99_ms"], t["max_ms"]]
            for t in result.get("timeline", [])
        ],
    }
