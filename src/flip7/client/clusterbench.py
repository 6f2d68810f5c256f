"""``flip7 cluster-bench``: the scale-out figures of many ``flip7 serve`` processes (issue 15).

Everything is set up on loopback and torn down at the end: a throwaway PostgreSQL cluster
(``initdb`` + ``postgres``, run as the ``postgres`` user when started by root; ``fsync``,
``synchronous_commit`` and ``full_page_writes`` off, as the test fixture has them: a
benchmark of the servers, not of the disk), a ``redis-server`` on a free port, N
``flip7 serve --db postgresql://... --redis redis://... --trusted-proxy 127.0.0.1
--bot-delay 0`` processes, and HAProxy running the documented recipe (``deploy/haproxy.cfg``,
changed only where it names addresses: :func:`render`) in front of them. Every client goes
through the proxy. Scenarios:

``throughput``
    The same flat-out load (``flip7 loadtest --think 0``) against 1 and against 2 processes
    on PostgreSQL + Redis, and against 1 process on PostgreSQL without Redis (the
    single-process mode), in alternating rounds so that the machine's noise shows. Each run
    gets a fresh database. The CPU seconds each process used during the measured window
    (``/proc/<pid>/stat`` utime + stime, before and after; PostgreSQL's backends summed with
    the postmaster) say what saturated the cores.
``human``
    1,000 tables × 4 clients at a human pace (each decision after 2 s ± 50 %) across 2
    processes: moves/s, latency percentiles, errors.
``failover``
    3 processes, tables playing at a human pace; ``kill -9`` of the process owning the most
    tables, and the time from the kill to the next applied move at each of its tables, as
    its clients see it (they reconnect the way the browser does, with ``last_version``, and
    send an unanswered move again under the same id). Repeated a few times.

The load generator is a separate process (:func:`_generator_main`, which runs
:func:`flip7.client.loadtest.load_test`, the code of ``flip7 loadtest --url``), so that its
CPU is its own and measured like the others'. It reads the other processes' CPU at the very
edges of its measured window; "other" is what the machine spent beyond them (on a shared
machine, someone else's work: the busiest such processes are named, and ``--max-other``
measures a disturbed run again). Every server process and the load generator also note
each garbage collection that holds them 5 ms or more (:data:`GC_HOOK`), so that a latency
tail can be laid next to the pauses, second by second.

>>> _percent(1.5, 3.0)
50.0
>>> _ratio(300.0, 200.0), _ratio(1.0, 0.0)
(1.5, None)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import pwd
import random
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from flip7.client.loadtest import (
    MAX_FRAME_BYTES,
    ServerStartError,
    _free_port,
    _loop_factory,
    _own_server_limits,
    _raise_open_files,
    _stop,
    _wait_healthy,
    _ws_url,
    load_test,
)
from flip7.client.loadtest import ServerProcess as _LogReader

__all__ = [
    "BACKEND",
    "DESCRIPTION",
    "DROPPED_IN_GLOBAL",
    "FRONTEND",
    "RECIPE",
    "SECTIONS",
    "STATS",
    "RecipeError",
    "add_arguments",
    "machine",
    "main",
    "render",
    "run",
]

DESCRIPTION = (
    "The scale-out figures: throughput of 1 and 2 processes, 1,000 tables at a human pace, "
    "failover after kill -9, all through HAProxy on PostgreSQL and Redis set up on loopback."
)
# The documented HAProxy recipe, in the source tree beside src/ (--recipe names another).
RECIPE = Path(__file__).resolve().parents[3] / "deploy" / "haproxy.cfg"
PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
SCENARIOS = ("throughput", "human", "failover")
# The load generator's gc.set_threshold (Python's is 700, 10, 10): see --loadgen-gc.
LOADGEN_GC = (100_000, 50, 100)
# The targets.
RATIO_TARGET = 1.6
P99_TARGET_MS = 100.0


class BenchError(RuntimeError):
    """A service would not start or a run could not be measured (the message says why)."""


# --- the HAProxy recipe ---------------------------------------------------------------------

# The recipe's names: the frontend players reach, its backend, HAProxy's own page.
FRONTEND, BACKEND, STATS = "flip7", "flip7", "stats"
# Lines of ``global`` that tie HAProxy to a system install (chroot into /var/lib/haproxy,
# drop to the haproxy user, go to the background): here it runs as whoever runs it, in the
# foreground (-db).
DROPPED_IN_GLOBAL = ("chroot", "user", "group", "daemon")
SECTIONS = (
    "global",
    "defaults",
    "frontend",
    "backend",
    "listen",
    "peers",
    "resolvers",
    "userlist",
    "program",
    "http-errors",
    "ring",
    "cache",
    "mailers",
)


class RecipeError(AssertionError):
    """The recipe no longer has what :func:`render` needs to point it at other addresses."""


def render(
    recipe: str,
    *,
    port: int,
    stats_port: int,
    servers: Sequence[str],
    socket_path: Path,
    host: str = "127.0.0.1",
) -> str:
    """The recipe with these addresses: the players' frontend's ``bind`` on ``host:port``,
    the stats frontend's on ``host:stats_port``, one ``server`` line per address in
    ``servers`` (``app1``, ``app2``... with the options of the recipe's first ``server``
    line), the stats socket at ``socket_path``, logs on standard error, and none of
    chroot/user/group/daemon. Every other line is kept as it is.

    >>> cfg = render(RECIPE.read_text(), port=81, stats_port=82, socket_path=Path("/s"),
    ...              servers=["127.0.0.1:9001", "127.0.0.1:9002"])
    >>> [line.strip() for line in cfg.splitlines() if line.strip().startswith("server ")]
    ['server app1 127.0.0.1:9001 check', 'server app2 127.0.0.1:9002 check']
    """
    out: list[str] = []
    section: tuple[str, str] = ("", "")
    bound: set[tuple[str, str]] = set()
    servers_written = False
    seen: set[tuple[str, str]] = set()
    for line in recipe.splitlines():
        words = line.split("#", 1)[0].split()
        if words and not line[0].isspace() and words[0] in SECTIONS:
            section = (words[0], words[1] if len(words) > 1 else "")
            seen.add(section)
            out.append(line)
            continue
        if not words:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        keyword = words[0]
        if section[0] == "global":
            if keyword in DROPPED_IN_GLOBAL:
                continue
            if keyword == "log":
                out.append(f"{indent}log stderr format short local0")
                continue
            if words[:2] == ["stats", "socket"]:
                out.append(f"{indent}stats socket {socket_path} " + " ".join(words[3:]))
                continue
        if keyword == "bind" and section in (("frontend", FRONTEND), ("frontend", STATS)):
            if section not in bound:  # the first bind is ours; more (TLS) are dropped
                bound.add(section)
                where = port if section[1] == FRONTEND else stats_port
                out.append(f"{indent}bind {host}:{where}")
            continue
        if keyword == "server" and section == ("backend", BACKEND):
            if not servers_written:
                servers_written = True
                options = " ".join(words[3:])
                for i, address in enumerate(servers, 1):
                    out.append(f"{indent}server app{i} {address} {options}".rstrip())
            continue
        out.append(line)
    for needed in (
        ("global", ""),
        ("frontend", FRONTEND),
        ("frontend", STATS),
        ("backend", BACKEND),
    ):
        if needed not in seen:
            raise RecipeError(f"the recipe has no section {' '.join(needed).strip()!r}")
    for needed in (("frontend", FRONTEND), ("frontend", STATS)):
        if needed not in bound:
            raise RecipeError(f"the recipe's section {' '.join(needed)!r} has no bind line")
    if not servers_written:
        raise RecipeError(f"the recipe's backend {BACKEND!r} has no server line to copy")
    return "\n".join(out) + "\n"


# --- the machine ----------------------------------------------------------------------------


def _first_line(command: list[str]) -> str | None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git_revision() -> str | None:
    root = RECIPE.parent.parent
    head = _first_line(["git", "-C", str(root), "rev-parse", "--short", "HEAD"])
    if head is None or not head.strip().isalnum():
        return None
    dirty = _first_line(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"])
    return head + ("+changes" if dirty else "")


def machine(
    pg_bin: Path = PG_BIN, haproxy: str = "haproxy", redis_server: str = "redis-server"
) -> dict[str, Any]:
    """What the figures were measured on: cores, CPU, Python, the services' versions, the
    load average at the start and the source revision."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 0
    try:
        load: float | None = round(os.getloadavg()[0], 2)
    except OSError:
        load = None
    return {
        "nproc": cores,
        "cpu": _cpu_model(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "kernel": f"{platform.system()} {platform.release()}",
        "postgresql": _first_line([str(pg_bin / "postgres"), "--version"]),
        "redis": _first_line([redis_server, "--version"]),
        "haproxy": _first_line([haproxy, "-v"]),
        "load_average": load,
        "revision": _git_revision(),
    }


def machine_line(m: dict[str, Any]) -> str:
    """One line naming the machine, printed above every figure.

    >>> print(machine_line({"nproc": 2, "cpu": "AMD EPYC", "python": "CPython 3.11.7",
    ...     "kernel": "Linux 6.1", "postgresql": "postgres (PostgreSQL) 15.8", "redis": None,
    ...     "haproxy": None, "load_average": 0.5, "revision": "abc"}).replace("; ", "\\n"))
    machine: nproc 2, AMD EPYC, CPython 3.11.7, Linux 6.1, load average 0.5 at the start
    postgres (PostgreSQL) 15.8
    revision abc
    """
    tools = "; ".join(str(m[k]) for k in ("postgresql", "redis", "haproxy") if m.get(k))
    return (
        f"machine: nproc {m['nproc']}, {m['cpu']}, {m['python']}, {m['kernel']}, "
        f"load average {m['load_average']} at the start"
        + (f"; {tools}" if tools else "")
        + (f"; revision {m['revision']}" if m.get("revision") else "")
    )


# --- CPU accounting -------------------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK")


def _processes() -> dict[int, tuple[int, float, float, str]]:
    """Every process: pid -> (parent pid, its own CPU seconds (utime + stime), the CPU
    seconds of its children that ended (cutime + cstime), its command name)."""
    found: dict[int, tuple[int, float, float, str]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as stat:
                text = stat.read()
        except OSError:
            continue  # ended meanwhile
        head, tail = text.rsplit(")", 1)
        fields = tail.split()
        # fields[0] is the state (field 3 of proc(5)): ppid is field 4, utime..cstime 14..17
        found[int(entry.name)] = (
            int(fields[1]),
            (int(fields[11]) + int(fields[12])) / _TICK,
            (int(fields[13]) + int(fields[14])) / _TICK,
            head.split("(", 1)[-1],
        )
    return found


def _machine_times() -> tuple[float, float] | None:
    """CPU seconds every core spent busy (not idle, not waiting for the disk) since boot, and
    of those in interrupts (irq + softirq: on loopback, mostly the kernel's networking)."""
    try:
        with open("/proc/stat") as stat:
            numbers = [int(n) for n in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal (guest time is already in user)
    busy = sum(numbers[:8]) - numbers[3] - numbers[4]
    return busy / _TICK, (numbers[5] + numbers[6]) / _TICK


def _machine_busy() -> float | None:
    times = _machine_times()
    return None if times is None else times[0]


@dataclass(frozen=True, slots=True)
class CpuSnapshot:
    at: float  # time.monotonic()
    groups: dict[str, float]  # CPU seconds so far of each group's processes and descendants
    machine: float | None  # the machine's busy seconds so far
    interrupts: float | None = None  # of those, in irq and softirq
    # Every process in no group: pid -> (command name, CPU seconds so far)
    others: dict[int, tuple[str, float]] = field(default_factory=dict)
    wall: float = 0.0  # time.time(), to find other processes' log lines in the window


def cpu_snapshot(groups: dict[str, list[int]]) -> CpuSnapshot:
    """The CPU seconds used so far by each group of processes (each root pid with every
    descendant, ended children included through cutime/cstime: a PostgreSQL backend that
    ends in the window is still counted, by its postmaster), and by every other process."""
    table = _processes()
    children: dict[int, list[int]] = {}
    for pid, row in table.items():
        children.setdefault(row[0], []).append(pid)
    seconds: dict[str, float] = {}
    counted: set[int] = set()
    for name, roots in groups.items():
        total = 0.0
        todo = [pid for pid in roots if pid in table]
        while todo:
            pid = todo.pop()
            if pid in counted:
                continue
            counted.add(pid)
            _, own, ended, _ = table[pid]
            total += own + ended
            todo.extend(children.get(pid, ()))
        seconds[name] = total
    # The others' ended children are left out: their parents (init, a shell, a test
    # runner) are counted on their own.
    others = {pid: (row[3], row[1]) for pid, row in table.items() if pid not in counted}
    times = _machine_times()
    return CpuSnapshot(
        time.monotonic(),
        seconds,
        None if times is None else times[0],
        None if times is None else times[1],
        others,
        time.time(),
    )


def _command(pid: int, name: str) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return name
    words = raw.replace(b"\0", b" ").decode(errors="replace").strip()
    return (words or name)[:100]


def cpu_delta(before: CpuSnapshot, after: CpuSnapshot, top: int = 5) -> dict[str, Any]:
    """The CPU seconds of each group between two snapshots, the machine's busy seconds,
    what no group accounts for (``other``: the kernel's networking, other processes), the
    interrupts' share of the machine and the busiest ``top`` other processes (command,
    seconds; a process started in between is counted whole).

    >>> a = CpuSnapshot(10.0, {"x": 1.0, "y": 2.0}, 100.0)
    >>> b = CpuSnapshot(12.0, {"x": 2.5, "y": 2.0}, 103.0)
    >>> cpu_delta(a, b)
    {'wall_s': 2.0, 'seconds': {'x': 1.5, 'y': 0.0}, 'machine_s': 3.0, 'other_s': 1.5, \
'interrupts_s': None, 'other_top': [], 'window_wall': [0.0, 0.0]}
    """
    seconds = {
        name: round(max(0.0, after.groups.get(name, 0.0) - value), 3)
        for name, value in before.groups.items()
    }
    machine_s = (
        None
        if before.machine is None or after.machine is None
        else round(after.machine - before.machine, 3)
    )
    other = None if machine_s is None else round(max(0.0, machine_s - sum(seconds.values())), 3)
    interrupts = (
        None
        if before.interrupts is None or after.interrupts is None
        else round(after.interrupts - before.interrupts, 3)
    )
    used = []
    for pid, (name, total) in after.others.items():
        then = before.others.get(pid)
        spent = total - (then[1] if then is not None and then[0] == name else 0.0)
        if spent >= 0.05:
            used.append((spent, pid, name))
    used.sort(reverse=True)
    return {
        "wall_s": round(after.at - before.at, 3),
        "seconds": seconds,
        "machine_s": machine_s,
        "other_s": other,
        "interrupts_s": interrupts,
        "other_top": [[_command(pid, name), round(spent, 2)] for spent, pid, name in used[:top]],
        "window_wall": [round(before.wall, 3), round(after.wall, 3)],
    }


def _percent(seconds: float, wall: float) -> float:
    """CPU seconds over a wall-clock window, in % of one core."""
    return round(100 * seconds / wall, 1) if wall > 0 else 0.0


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else round(a / b, 3)


# --- the services ---------------------------------------------------------------------------


def _which(name: str, extra: str = "/usr/sbin:/usr/local/sbin") -> str:
    path = shutil.which(name) or shutil.which(name, path=extra)
    if path is None:
        raise BenchError(f"{name} is not installed (or not on the PATH)")
    return path


def _wait_port(
    port: int, proc: subprocess.Popen[bytes], log: Path, what: str, timeout: float = 30.0
) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise BenchError(f"{what} did not start:\n{_tail(log)}")
        time.sleep(0.05)


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _end(proc: subprocess.Popen[bytes] | None, sig: int = signal.SIGTERM) -> None:
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(sig)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


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


def _asyncpg() -> Any:
    """asyncpg (the server extra's PostgreSQL driver), imported when needed."""
    import asyncpg  # type: ignore[import-untyped]

    return asyncpg


class Postgres:
    """A throwaway PostgreSQL cluster on a free loopback port. Tuned as the test fixture is:
    ``fsync``, ``synchronous_commit`` and ``full_page_writes`` off (a commit never waits for
    the disk), so that the figures are the servers', not the disk's."""

    def __init__(self, pg_bin: Path = PG_BIN) -> None:
        self.pg_bin = pg_bin
        self.port = 0
        self.base: Path | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self._databases = 0

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> Postgres:
        initdb = self.pg_bin / "initdb"
        if not initdb.exists():
            raise BenchError(f"PostgreSQL is not installed ({initdb}; set PG_BIN or --pg-bin)")
        # Its own folder in /tmp: the postgres user must be able to enter it.
        self.base = base = Path(tempfile.mkdtemp(prefix="flip7-bench-pg-", dir="/tmp"))
        data, sock = base / "data", base / "sock"
        data.mkdir()
        sock.mkdir()
        run_as: dict[str, Any] = {}
        if os.geteuid() == 0:  # postgres refuses to run as root
            pw = pwd.getpwnam("postgres")
            for p in (base, data, sock):
                os.chown(p, pw.pw_uid, pw.pw_gid)
            run_as = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
        env = {**os.environ, "LC_ALL": "C.UTF-8", "TZ": "UTC"}
        subprocess.run(
            [
                str(initdb),
                "-D",
                str(data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ],
            check=True,
            env=env,
            cwd=base,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            **run_as,
        )
        self.port = _free_port()
        log_path = base / "postgres.log"
        with open(log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [
                    str(self.pg_bin / "postgres"),
                    "-D",
                    str(data),
                    "-p",
                    str(self.port),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    f"unix_socket_directories={sock}",
                    "-c",
                    "fsync=off",
                    "-c",
                    "synchronous_commit=off",
                    "-c",
                    "full_page_writes=off",
                    "-c",
                    "max_connections=400",
                ],
                env=env,
                cwd=base,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                **run_as,
            )
        deadline = time.monotonic() + 60
        while subprocess.run(
            [str(self.pg_bin / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)]
        ).returncode:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise BenchError(f"postgres did not start:\n{_tail(log_path)}")
            time.sleep(0.1)
        return self

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    async def _admin(self, sql: str) -> None:
        conn = await _asyncpg().connect(
            host="127.0.0.1", port=self.port, user="postgres", database="postgres"
        )
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    def create_database(self) -> str:
        """A fresh empty database; its name."""
        self._databases += 1
        name = f"bench_{self._databases}"
        asyncio.run(self._admin(f'CREATE DATABASE "{name}"'))
        return name

    def drop_database(self, name: str) -> None:
        with contextlib.suppress(Exception):
            asyncio.run(self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def stop(self) -> None:
        _end(self.proc, signal.SIGINT)  # fast shutdown
        self.proc = None
        if self.base is not None:
            shutil.rmtree(self.base, ignore_errors=True)
            self.base = None


class Redis:
    """A throwaway ``redis-server`` on a free loopback port, without persistence (Redis
    holds nothing that is not in PostgreSQL)."""

    def __init__(self, workdir: Path, binary: str = "redis-server") -> None:
        self.binary = binary
        self.workdir = workdir
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> Redis:
        path = _which(self.binary)
        self.port = _free_port()
        log_path = self.workdir / "redis.log"
        with open(log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [
                    path,
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(self.workdir),
                    "--daemonize",
                    "no",
                    "--maxclients",
                    "10000",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        _wait_port(self.port, self.proc, log_path, "redis-server")
        self.flush()
        return self

    def flush(self) -> None:
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    client.flushall()
                    return
                except redis.exceptions.BusyLoadingError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        _end(self.proc)
        self.proc = None


class Serve:
    """One ``flip7 serve`` process on a fixed loopback port (kept across restarts)."""

    def __init__(
        self,
        name: str,
        db_url: str,
        redis_url: str | None,
        extra: Sequence[str],
        workdir: Path,
        log_level: str,
    ) -> None:
        self.name = name
        self.db_url = db_url
        self.redis_url = redis_url
        self.extra = list(extra)
        self.log_path = workdir / f"{name}.log"
        self.log_level = log_level
        self.port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.node: str | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> Serve:
        import flip7

        src = str(Path(flip7.__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
        for name in ("FLIP7_DATABASE_URL", "FLIP7_REDIS_URL", "FLIP7_PUBLIC_URL"):
            env.pop(name, None)
        command = [
            sys.executable,
            "-c",
            GC_HOOK + "from flip7.cli import main; raise SystemExit(main())",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            self.db_url,
            "--trusted-proxy",
            "127.0.0.1",
            "--bot-delay",
            "0",
            "--log-level",
            self.log_level,
            *self.extra,
        ]
        if self.redis_url is not None:
            command += ["--redis", self.redis_url]
        with open(self.log_path, "ab") as log:
            log.write(f"--- {' '.join(command[3:])}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        try:
            _wait_healthy(self.url, self.proc, self.log_path, 60.0)
        except ServerStartError as exc:
            self.kill()
            raise BenchError(f"{self.name}: {exc}") from None
        with httpx.Client(timeout=5, trust_env=False) as http:
            self.node = http.get(self.url + "/api/health").json().get("node")
        return self

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, its sockets are reset by the kernel."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)

    def log_errors(self) -> tuple[str, ...]:
        return _LogReader(self.url, 0, self.log_path).log_errors()

    def gc_pauses(self) -> list[tuple[float, int, float]]:
        try:
            return _gc_pauses(self.log_path.read_text(errors="replace"))
        except OSError:
            return []


class Proxy:
    """HAProxy running the recipe in front of ``servers`` ("127.0.0.1:8001"...: app1,
    app2...), in the foreground, on free loopback ports."""

    def __init__(
        self, servers: Sequence[str], workdir: Path, recipe: Path = RECIPE, binary: str = "haproxy"
    ) -> None:
        self.servers = list(servers)
        self.workdir = workdir
        self.recipe = recipe
        self.binary = binary
        self.port = 0
        self.socket_path = workdir / "haproxy.sock"
        self.log_path = workdir / "haproxy.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> Proxy:
        path = _which(self.binary)
        self.port, stats_port = _free_port(), _free_port()
        config = render(
            self.recipe.read_text(),
            port=self.port,
            stats_port=stats_port,
            servers=self.servers,
            socket_path=self.socket_path,
        )
        config_path = self.workdir / "haproxy.cfg"
        config_path.write_text(config)
        checked = subprocess.run(
            [path, "-c", "-f", str(config_path)], capture_output=True, text=True, timeout=30
        )
        if checked.returncode != 0:
            raise BenchError(
                f"haproxy -c refused the configuration:\n{checked.stdout}{checked.stderr}"
            )
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [path, "-db", "-f", str(config_path)],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        _wait_port(self.port, self.proc, self.log_path, "haproxy")
        for i in range(len(self.servers)):
            self.wait_status(f"app{i + 1}", "UP")
        return self

    def admin(self, command: str) -> str:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(2.0)
            s.connect(str(self.socket_path))
            s.sendall(command.encode() + b"\n")
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def stat(self) -> list[dict[str, str]]:
        """``show stat`` as rows (pxname, svname, status, scur, slim...)."""
        lines = self.admin("show stat").lstrip("# ").splitlines()
        if not lines:
            return []
        names = lines[0].split(",")
        return [dict(zip(names, line.split(","), strict=False)) for line in lines[1:] if line]

    def status(self, name: str) -> str:
        for row in self.stat():
            if row.get("pxname") == BACKEND and row.get("svname") == name:
                return row.get("status", "")
        return ""

    def wait_status(self, name: str, want: str, timeout: float = 20.0) -> float:
        start = time.monotonic()
        while True:
            try:
                if self.status(name) == want:
                    return time.monotonic() - start
            except OSError:
                pass
            if time.monotonic() - start > timeout:
                raise BenchError(
                    f"haproxy does not see {name} {want} after {timeout:g} s:\n"
                    f"{_tail(self.log_path)}"
                )
            time.sleep(0.05)

    def stop(self) -> None:
        _end(self.proc)
        self.proc = None


# --- the bench ------------------------------------------------------------------------------


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
    redis: Redis | None = None
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
            before, began = _machine_busy(), time.monotonic()
            time.sleep(1.0)
            after = _machine_busy()
            if before is None or after is None:
                return None
            busy = _percent(after - before, time.monotonic() - began)
            if busy < self.quiet_below or time.monotonic() >= deadline:
                return busy
            if not said:
                self.say(f"  waiting for the machine to be quiet (busy {busy:.0f}% of a core)")
                said = True

    @contextlib.contextmanager
    def cluster(self, layout: Layout, connections: int) -> Iterator[tuple[list[Serve], Proxy]]:
        """``layout``'s processes on a fresh database, HAProxy in front; stopped on leaving."""
        assert self.redis is not None
        self.runs += 1
        folder = self.workdir / f"run{self.runs}-{layout.key}"
        folder.mkdir()
        database = self.pg.create_database()
        self.redis.flush()
        # Every player comes from 127.0.0.1 (X-Forwarded-For through the proxy): the budgets
        # a server keeps per address are raised to fit the whole load, as loadtest does.
        # A flat-out client at a small table may also send more than the 20 frames a
        # second a connection is allowed.
        extra = [
            *_own_server_limits(connections),
            "--limit",
            "rate_per_second=1000",
            "--limit",
            "rate_burst=2000",
        ]
        servers = [
            Serve(
                f"app{i + 1}",
                self.pg.url(database),
                self.redis.url if layout.redis else None,
                extra,
                folder,
                self.log_level,
            )
            for i in range(layout.processes)
        ]
        proxy = Proxy([f"127.0.0.1:{s.port}" for s in servers], folder, self.recipe, self.haproxy)
        try:
            for server in servers:  # one after the other: the first one migrates the database
                server.start()
            proxy.start()
            yield servers, proxy
        finally:
            proxy.stop()
            for server in servers:
                server.stop()
            self.pg.drop_database(database)

    def groups(self, servers: Sequence[Serve], proxy: Proxy) -> dict[str, list[int]]:
        assert self.redis is not None
        groups = {s.name: [s.pid] for s in servers}
        groups.update(postgres=[self.pg.pid], redis=[self.redis.pid], haproxy=[proxy.pid])
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
        with self.cluster(layout, connections) as (servers, proxy):
            out = _generate(proxy.url, load, self.groups(servers, proxy), self.loop)
        # After they stopped: their logs are complete.
        errors = [line for s in servers for line in s.log_errors()]
        figures = _figures(layout, load, out, errors)
        figures["machine_busy_before_percent"] = busy
        figures["loadgen_gc_threshold"] = list(load.gc_threshold or (700, 10, 10))
        window = (out.get("cpu") or {}).get("window_wall")
        if window:
            gc_pauses = {s.name: _gc_summary(s.gc_pauses(), window) for s in servers}
            if out.get("gc") is not None:
                gc_pauses["loadgen"] = out["gc"]
            figures["gc_pauses"] = gc_pauses
        return figures


def _generate(url: str, load: Load, groups: dict[str, list[int]], loop: str) -> dict[str, Any]:
    """Run the load generator (a separate process) and return what it printed."""
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
    }
    # Setting up a table costs about 10 ms of requests through the proxy; then the warmup,
    # the window, the moves in flight, the sockets' closing.
    limit = 120 + load.tables * load.clients * 0.05 + load.warmup + load.duration
    command = [
        sys.executable,
        "-c",
        "from flip7.client.clusterbench import _generator_main; "
        "raise SystemExit(_generator_main())",
        json.dumps(spec),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"the load generator did not finish in {limit:.0f} s") from exc
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise BenchError(
            f"the load generator failed (status {done.returncode}):\n{done.stderr[-3000:]}"
        )
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _generator_main(argv: list[str] | None = None) -> int:
    """The load generator process: ``load_test`` against the proxy (what ``flip7 loadtest
    --url`` runs), reading every group's CPU at the edges of its measured window. Prints
    one JSON line: {"result": the load test's JSON, "cpu": :func:`cpu_delta`}."""
    spec = json.loads((argv or sys.argv[1:])[0])
    groups: dict[str, list[int]] = {k: [int(p) for p in v] for k, v in spec["groups"].items()}
    groups["loadgen"] = [os.getpid()]
    marks: dict[str, CpuSnapshot] = {}
    pauses: list[tuple[float, int, float]] = []
    began = [0.0]

    def on_window(edge: str) -> None:
        marks[edge] = cpu_snapshot(groups)

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
    _raise_open_files(int(spec["tables"]) * clients + 256)
    with asyncio.Runner(loop_factory=_loop_factory(spec.get("loop", "auto"))) as runner:
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
    print(json.dumps({"result": result.to_json(), "cpu": cpu, "gc": gc_loadgen}), flush=True)
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
        "server_log_errors": len(server_errors),
        "first_server_log_errors": server_errors[:5],
        # Second by second: [second, moves sent, p50 ms, p99 ms, max ms] (the load test's).
        "timeline": [
            [t["second"], t["moves"], t["p50_ms"], t["p99_ms"], t["max_ms"]]
            for t in result.get("timeline", [])
        ],
    }


def _other(run: dict[str, Any]) -> str:
    """What the ``other`` CPU of a run was: the busiest processes not ours, and the
    machine's time in interrupts (partly counted in the processes' own time as well)."""
    top = "; ".join(f"{name[:60]} {pct:.0f}" for name, pct in run.get("other_top", []))
    return (
        f"other {run['cpu_percent'].get('other', 0):.0f}% of a core; processes not ours: "
        f"{top or 'none seen'}; interrupts {run.get('interrupts_percent')}%"
    )


def _gc_line(run: dict[str, Any]) -> str:
    """The garbage collectors' pauses in the window, per process."""
    cells = [
        f"{name} {g['count']} ({g['full']} full, max {g['max_ms']:.0f} ms, "
        f"total {g['total_ms']:.0f} ms)"
        for name, g in run.get("gc_pauses", {}).items()
    ]
    return f"GC pauses ≥ {GC_PAUSE_MS:g} ms in the window: " + ("; ".join(cells) or "-")


def _seconds_over(run: dict[str, Any], limit: float) -> str:
    """How the slow moves are spread over the window: the seconds whose p99 is over
    ``limit`` and the worst few, so that a stall (a few bad seconds) is told apart from a
    steady tail."""
    timeline = run.get("timeline", [])
    over = [t for t in timeline if t[3] > limit]
    worst = sorted(timeline, key=lambda t: -t[4])[:5]
    gc = run.get("gc_pauses", {})

    def paused(second: int) -> str:
        # GC pauses of that second and the one before (a move sent then may wait for it)
        cells = []
        for name, g in gc.items():
            ms = sum(g.get("by_second", {}).get(str(s), 0.0) for s in (second - 1, second))
            if ms:
                cells.append(f"{name} {ms:.0f}")
        return f" [GC ms: {' '.join(cells)}]" if cells else ""

    cells = ", ".join(f"s{t[0]}: p99 {t[3]:.0f} max {t[4]:.0f}{paused(t[0])}" for t in worst)
    return (
        f"seconds with p99 over {limit:g} ms: {len(over)} of {len(timeline)}; "
        f"worst seconds (ms): {cells or '-'}"
    )


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _cpu_cells(run: dict[str, Any], names: Sequence[str]) -> str:
    percent = run["cpu_percent"]
    return " ".join(f"{percent[n]:>7.0f}" if n in percent else f"{'-':>7}" for n in names)


# --- throughput -----------------------------------------------------------------------------


def throughput(
    bench: Bench,
    load: Load,
    layouts: Sequence[Layout],
    rounds: int,
) -> dict[str, Any]:
    """``rounds`` rounds, each one run per layout in turn (1, 2, single, 1, 2, ...)."""
    runs: list[dict[str, Any]] = []
    for r in range(rounds):
        for layout in layouts:
            bench.say(f"throughput round {r + 1}/{rounds}: {layout.label}...")
            figures = bench.measure(layout, load)
            figures["round"] = r + 1
            runs.append(figures)
            bench.say(f"  {figures['moves_per_second']:.0f} moves/s, {figures['errors']} errors")
    summary: dict[str, Any] = {}
    for layout in layouts:
        rates = [run["moves_per_second"] for run in runs if run["layout"] == layout.key]
        per_cpu = [
            run["moves_per_server_cpu_second"]
            for run in runs
            if run["layout"] == layout.key and run["moves_per_server_cpu_second"]
        ]
        summary[layout.key] = {
            "label": layout.label,
            "moves_per_second": rates,
            "mean": round(statistics.fmean(rates), 1) if rates else None,
            "moves_per_server_cpu_second": round(statistics.fmean(per_cpu), 1) if per_cpu else None,
        }
    ratio = _ratio(summary.get("2", {}).get("mean"), summary.get("1", {}).get("mean"))
    per_round = [
        _ratio(two["moves_per_second"], one["moves_per_second"])
        for one, two in zip(
            [x for x in runs if x["layout"] == "1"],
            [x for x in runs if x["layout"] == "2"],
            strict=False,
        )
    ]
    return {
        "load": {
            "tables": load.tables,
            "clients": load.clients,
            "think": load.think,
            "warmup": load.warmup,
            "duration": load.duration,
        },
        "runs": runs,
        "summary": summary,
        "ratio_2_to_1": ratio,
        "ratio_per_round": per_round,
        "ratio_target": RATIO_TARGET,
        "ratio_met": ratio is not None and ratio >= RATIO_TARGET,
    }


def throughput_report(figures: dict[str, Any]) -> list[str]:
    load = figures["load"]
    names = ["app1", "app2", "loadgen", "postgres", "redis", "haproxy", "other"]
    lines = [
        f"throughput: {load['tables']} tables × {load['clients']} clients flat out "
        f"(think 0), {load['warmup']:g} s warmup + {load['duration']:g} s measured, "
        "every client through HAProxy"
        + (
            f"; the load generator's gc.set_threshold{tuple(runs[0]['loadgen_gc_threshold'])}"
            if (runs := figures["runs"]) and runs[0].get("loadgen_gc_threshold")
            else ""
        ),
        "  CPU is % of one core over the measured window (utime+stime from /proc; postgres "
        "= the postmaster and every backend; other = the rest of the machine: the kernel, "
        "other processes; machine = all of it, of 100 × nproc); before = the machine's busy "
        "% in the second before the run",
        f"  {'round':>5}  {'layout':<31} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'errors':>6} "
        + " ".join(f"{n:>7}" for n in names)
        + f" {'machine':>8} {'before':>6} {'moves/srv-CPU-s':>15}",
    ]
    for run in figures["runs"]:
        machine_pct = "-" if run["machine_percent"] is None else f"{run['machine_percent']:.0f}"
        per_cpu = run["moves_per_server_cpu_second"]
        before = run.get("machine_busy_before_percent")
        lines.append(
            f"  {run['round']:>5}  {run['label']:<31} {run['moves_per_second']:>8.0f} "
            f"{_ms(run['p50_ms']):>7} {_ms(run['p99_ms']):>7} {run['errors']:>6} "
            f"{_cpu_cells(run, names)} {machine_pct:>8} "
            f"{'-' if before is None else f'{before:.0f}':>6} "
            f"{'-' if per_cpu is None else f'{per_cpu:.0f}':>15}"
        )
    for run in figures["runs"]:
        if run["cpu_percent"].get("other", 0) >= 20:
            lines.append(f"  round {run['round']} {run['label']}: {_other(run)}")
        if run.get("discarded"):
            others = ", ".join(f"{d['cpu_percent'].get('other', 0):.0f}%" for d in run["discarded"])
            lines.append(
                f"  round {run['round']} {run['label']}: measured again after "
                f"{len(run['discarded'])} run(s) in which others took {others} of a core"
            )
    for summary in figures["summary"].values():
        rates = ", ".join(f"{r:.0f}" for r in summary["moves_per_second"])
        lines.append(
            f"  {summary['label']:<31} mean {summary['mean']} moves/s ({rates}); "
            f"{summary['moves_per_server_cpu_second']} moves per server CPU second"
        )
    ratio = figures["ratio_2_to_1"]
    if ratio is not None:
        rounds = ", ".join("-" if r is None else f"{r:.2f}" for r in figures["ratio_per_round"])
        verdict = "met" if figures["ratio_met"] else "MISSED"
        lines.append(
            f"  ratio 2 processes / 1 process: {ratio:.2f} (per round {rounds}); "
            f"target ≥ {RATIO_TARGET}: {verdict}"
        )
    return lines


# --- a human pace ---------------------------------------------------------------------------


def human(bench: Bench, load: Load, processes: int) -> dict[str, Any]:
    layout = Layout(str(processes), processes, True)
    bench.say(
        f"human: {load.tables} tables × {load.clients} clients, think {load.think:g} s, "
        f"{processes} processes..."
    )
    run = bench.measure(layout, load)
    run["warmup"], run["duration"] = load.warmup, load.duration
    run["think_jitter"] = load.think_jitter
    p99 = run["p99_ms"]
    run["p99_target_ms"] = P99_TARGET_MS
    run["met"] = (
        p99 is not None
        and p99 < P99_TARGET_MS
        and run["errors"] == 0
        and run["server_log_errors"] == 0
    )
    return run


def human_report(run: dict[str, Any]) -> list[str]:
    names = [f"app{i + 1}" for i in range(run["processes"])]
    names += ["loadgen", "postgres", "redis", "haproxy", "other"]
    cpu = ", ".join(f"{n} {run['cpu_percent'][n]:.0f}" for n in names if n in run["cpu_percent"])
    verdict = "met" if run["met"] else "MISSED"
    return [
        f"human: {run['tables']} tables × {run['clients']} clients = "
        f"{run['tables'] * run['clients']} WebSockets through HAProxy, {run['label']}; "
        f"think {run['think']:g} s ± {run['think_jitter']:.0%}, {run['warmup']:g} s warmup + "
        f"{run['duration']:g} s measured (setup {run['setup_seconds']:.1f} s)",
        f"  {run['moves_per_second']:.0f} moves/s ({run['moves']} moves); latency p50 "
        f"{_ms(run['p50_ms'])} ms, p95 {_ms(run['p95_ms'])} ms, p99 {_ms(run['p99_ms'])} ms, "
        f"max {_ms(run['max_ms'])} ms; errors {run['errors']}"
        + (f" {run['error_kinds']}" if run["errors"] else "")
        + f"; server log errors {run['server_log_errors']}",
        f"  CPU % of a core: {cpu}; machine {run['machine_percent']} (busy "
        f"{run.get('machine_busy_before_percent')} before the run); client loop lag max "
        f"{_ms(run['client_lag_max_ms'])} ms (its gc.set_threshold "
        f"{tuple(run.get('loadgen_gc_threshold', (700, 10, 10)))})",
        f"  {_seconds_over(run, P99_TARGET_MS)}",
        f"  {_gc_line(run)}",
        f"  {_other(run)}"
        + (
            f"; measured again after {len(run['discarded'])} disturbed run(s)"
            if run.get("discarded")
            else ""
        ),
        f"  target p99 < {P99_TARGET_MS:g} ms and 0 errors: {verdict}",
    ]


# --- failover -------------------------------------------------------------------------------


def _choose(game: dict[str, Any], rng: random.Random) -> str:
    """The load test's policy: hit below 25, else stay; any other choice at random."""
    legal: list[str] = game["legal_decisions"]
    if "hit" in legal and "stay" in legal:
        viewer = game.get("viewer")
        number_sum = game["players"][viewer]["number_sum"] if viewer is not None else 0
        return "hit" if number_sum < 25 else "stay"
    return rng.choice(legal)


class _Play:
    """Everything the failover scenario's clients share."""

    def __init__(
        self, url: str, http: httpx.AsyncClient, think: float, jitter: float, seed: int | None
    ) -> None:
        self.url = url
        self.ws_url = _ws_url(url)
        self.http = http
        self.think = think
        self.jitter = jitter
        self.rng = random.Random(seed)
        self.stopping = False
        self.errors: dict[str, int] = {}
        self.first_errors: list[str] = []
        self.acknowledged = 0
        self.reconnects = 0
        self.tasks: set[asyncio.Task[None]] = set()

    def spawn(self, coro: Any) -> None:
        task: asyncio.Task[None] = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def error(self, kind: str, message: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        if len(self.first_errors) < 10:
            self.first_errors.append(message)


class _FTable:
    def __init__(self, play: _Play, index: int) -> None:
        self.play = play
        self.index = index
        self.id = ""
        self.seats: list[_Seat] = []
        self.latest = -1
        self.seen: list[tuple[float, int]] = []  # (arrival, version) each time it went up

    def note(self, version: int, now: float) -> None:
        if version > self.latest:
            self.latest = version
            self.seen.append((now, version))

    def first_seen(self, version: int) -> float | None:
        """When a client first had ``version`` (or a later one) of this table."""
        for at, v in self.seen:
            if v >= version:
                return at
        return None


class _Seat:
    """A seated player's socket, through the proxy. On any close it reconnects the way the
    browser does (after 0.5 s × 2^attempt ± 25 %, capped at 15 s; attempts counted from the
    last open) with ``last_version``, and sends its unanswered move again (same id, version
    and decision: the server answers a retry without applying it twice)."""

    def __init__(self, table: _FTable, index: int, token: str) -> None:
        self.table = table
        self.play = table.play
        self.index = index
        self.token = token
        self.ws: Any = None
        self.state: dict[str, Any] | None = None
        self.version: int | None = None
        self.acted = -1
        self.readied: Any = None  # the game after which it last said ready
        self.thinking = False
        self.pending: dict[str, Any] | None = None
        self.pending_since = 0.0
        self.moves = 0
        self.welcomed = asyncio.Event()

    async def run(self) -> None:
        from websockets.asyncio.client import connect

        play = self.play
        attempt = 0
        while not play.stopping:
            try:
                async with connect(
                    f"{play.ws_url}/ws/tables/{self.table.id}",
                    max_size=MAX_FRAME_BYTES,
                    ping_interval=None,
                    proxy=None,
                    open_timeout=10,
                    close_timeout=1,
                ) as ws:
                    attempt = 0
                    self.ws = ws
                    await ws.send(
                        json.dumps(
                            {
                                "v": 1,
                                "type": "hello",
                                "token": self.token,
                                "last_version": self.version,
                            }
                        )
                    )
                    async for raw in ws:
                        self.on_message(json.loads(raw))
            except Exception as exc:  # closed, refused, a failed handshake: reconnect
                if not play.stopping and not _closing(exc):
                    play.error(
                        "connect",
                        f"table {self.table.id} seat {self.index}: {type(exc).__name__}: {exc}",
                    )
            self.ws = None
            if play.stopping:
                return
            play.reconnects += 1
            delay = min(15.0, 0.5 * 2**attempt) * (0.75 + 0.5 * play.rng.random())
            attempt += 1
            await asyncio.sleep(delay)

    def on_message(self, message: dict[str, Any]) -> None:
        now = time.monotonic()
        kind = message.get("type")
        table = self.table
        if kind == "welcome":
            self.state = message["table"]
            for missed in message.get("missed") or ():
                table.note(int(missed["version"]), now)
            self.seen(int(self.state["version"]), now)
            self.welcomed.set()
            if self.pending is not None and self.ws is not None:
                self.play.spawn(self._send(self.ws, self.pending))
            self.act()
        elif kind == "update":
            self.seen(int(message["version"]), now)
            if isinstance(message.get("table"), dict):
                self.state = message["table"]
            self.act()
        elif kind == "result":
            if self.pending is not None and message.get("id") == self.pending["id"]:
                self.pending = None
                self.play.acknowledged += 1
                if isinstance(message.get("version"), int):
                    table.note(message["version"], now)
            self.act()
        elif kind == "error":
            code = str(message.get("code"))
            self.play.error(
                code,
                f"table {table.id} seat {self.index}: {code}: "
                f"{message.get('message')} (move {message.get('id')!r})",
            )
            if self.pending is not None and message.get("id") in (self.pending["id"], None):
                self.pending = None
                self.acted = -1
            if isinstance(message.get("table"), dict):
                self.state = message["table"]
            self.act()

    def seen(self, version: int, now: float) -> None:
        self.version = version if self.version is None else max(self.version, version)
        self.table.note(version, now)

    def act(self) -> None:
        play, state = self.play, self.state
        if play.stopping or state is None or self.thinking or self.pending is not None:
            return
        version = int(state["version"])
        game = state.get("game")
        if state.get("state") == "over" or (game is not None and game.get("over")):
            # Every player says ready once per game: the next starts when all of them have.
            game_id = state.get("game_id")
            done = game_id if game_id is not None else ("version", version)
            if done != self.readied:
                self.readied = done
                play.spawn(self.rematch())
            return
        if game is None or not game.get("legal_decisions") or version <= self.acted:
            return
        self.acted = version
        self.thinking = True
        play.spawn(self.move(version, _choose(game, play.rng)))

    async def move(self, version: int, decision: str) -> None:
        play = self.play
        try:
            if play.think > 0:
                await asyncio.sleep(play.think * (1 + play.jitter * (2 * play.rng.random() - 1)))
        finally:
            self.thinking = False
        if play.stopping:
            return
        if self.state is not None and int(self.state["version"]) != version:
            self.act()  # the table moved on meanwhile: decide anew
            return
        self.moves += 1
        self.pending = {
            "v": 1,
            "type": "move",
            "id": f"{self.table.id}-{self.index}-{self.moves}",
            "version": version,
            "decision": decision,
        }
        self.pending_since = time.monotonic()
        if self.ws is not None:
            await self._send(self.ws, self.pending)  # else: sent again once reconnected

    async def _send(self, ws: Any, frame: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):  # a closed socket: resent after the reconnect
            await ws.send(json.dumps(frame))

    async def rematch(self) -> None:
        for _ in range(20):
            if self.play.stopping:
                return
            try:
                response = await self.play.http.post(
                    f"/api/tables/{self.table.id}/rematch",
                    headers={"Authorization": f"Bearer {self.token}"},
                )
                if response.status_code < 500:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.5)
        self.play.error("rematch", f"table {self.table.id}: the rematch was never answered")

    def watch(self, now: float, timeout: float) -> None:
        if self.pending is not None and now - self.pending_since > timeout:
            self.play.error(
                "timeout",
                f"table {self.table.id} seat {self.index}: move "
                f"{self.pending['id']} unanswered for {timeout:g} s",
            )
            self.pending = None
            self.acted = -1
            self.act()


def _closing(exc: BaseException) -> bool:
    from websockets.exceptions import ConnectionClosed

    return isinstance(exc, ConnectionClosed)


async def _post(
    http: httpx.AsyncClient, path: str, body: dict[str, Any] | None = None, token: str | None = None
) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    for attempt in range(10):
        response = await http.post(path, json=body, headers=headers)
        if response.status_code < 500 or attempt == 9:
            break
        await asyncio.sleep(0.3)
    if response.status_code >= 400:
        raise BenchError(f"POST {path}: HTTP {response.status_code}: {response.text[:300]}")
    answer: dict[str, Any] = response.json()
    return answer


async def _failover(
    bench: Bench,
    servers: list[Serve],
    proxy: Proxy,
    database: str,
    tables: int,
    clients: int,
    think: float,
    jitter: float,
    kills: int,
    gap: float,
    seed: int | None,
    recover_timeout: float,
) -> dict[str, Any]:
    db = await _asyncpg().connect(
        host="127.0.0.1", port=bench.pg.port, user="postgres", database=database
    )
    limits = httpx.Limits(max_connections=40, max_keepalive_connections=20)
    async with httpx.AsyncClient(
        base_url=proxy.url, timeout=15, limits=limits, trust_env=False
    ) as http:
        play = _Play(proxy.url, http, think, jitter, seed)
        everything = [_FTable(play, i) for i in range(tables)]
        gate = asyncio.Semaphore(10)

        async def setup(table: _FTable) -> None:
            async with gate:
                made = await _post(
                    http,
                    "/api/tables",
                    {
                        "name": f"failover {table.index}",
                        "player": f"fo{table.index}-0",
                        "seats": clients,
                    },
                )
                table.id = str(made["table"]["id"])
                tokens = [str(made["token"])]
                for seat in range(1, clients):
                    # Its own token: a join _post sends again after a 5xx gets its seat.
                    joined = await _post(
                        http,
                        f"/api/tables/{table.id}/join",
                        {"player": f"fo{table.index}-{seat}", "token": secrets.token_urlsafe(24)},
                    )
                    tokens.append(str(joined["token"]))
                table.seats = [_Seat(table, i, t) for i, t in enumerate(tokens)]
                for seat_ in table.seats:
                    play.spawn(seat_.run())
                await asyncio.wait_for(
                    asyncio.gather(*(s.welcomed.wait() for s in table.seats)), 30
                )
                await _post(http, f"/api/tables/{table.id}/start", None, tokens[0])

        async def watchdog() -> None:
            while not play.stopping:
                now = time.monotonic()
                for table in everything:
                    for seat in table.seats:
                        seat.watch(now, 20.0)
                await asyncio.sleep(0.5)

        began = time.monotonic()
        await asyncio.gather(*(setup(t) for t in everything))
        setup_seconds = time.monotonic() - began
        play.spawn(watchdog())
        bench.say(f"failover: {tables} tables playing (setup {setup_seconds:.1f} s)")
        by_id = {t.id: t for t in everything}
        results: list[dict[str, Any]] = []
        try:
            for k in range(kills):
                await asyncio.sleep(gap)
                results.append(
                    await _kill_one(bench, servers, proxy, db, by_id, k + 1, recover_timeout)
                )
        finally:
            play.stopping = True
            for table in everything:
                for seat in table.seats:
                    if seat.ws is not None:
                        with contextlib.suppress(Exception):
                            await seat.ws.close()
            for task in list(play.tasks):
                task.cancel()
            await asyncio.gather(*play.tasks, return_exceptions=True)
            await db.close()
    return {
        "setup_seconds": round(setup_seconds, 2),
        "kills": results,
        "acknowledged": play.acknowledged,
        "reconnects": play.reconnects,
        "errors": dict(play.errors),
        "first_errors": play.first_errors,
    }


async def _kill_one(
    bench: Bench,
    servers: list[Serve],
    proxy: Proxy,
    db: Any,
    tables: dict[str, _FTable],
    number: int,
    recover_timeout: float,
) -> dict[str, Any]:
    """Kill -9 the process owning the most of ``tables``; wait until each of its tables has
    a move applied by its new owner (a log entry under a higher fencing token) and a client
    has seen it; restart the process."""
    nodes = {s.node: i for i, s in enumerate(servers) if s.running}
    rows = await db.fetch(
        "SELECT table_id, owner, token FROM table_owner WHERE table_id = ANY($1::text[])",
        list(tables),
    )
    owned: dict[int, dict[str, int]] = {i: {} for i in nodes.values()}
    for row in rows:
        if row["owner"] in nodes:
            owned[nodes[row["owner"]]][str(row["table_id"])] = int(row["token"])
    victim = max(owned, key=lambda i: len(owned[i]))
    held = owned[victim]
    server = servers[victim]
    killed = time.monotonic()
    killed_wall = time.time()
    server.kill()
    # When HAProxy takes it out (its health check, about 2 s), measured alongside.
    down = asyncio.create_task(asyncio.to_thread(proxy.wait_status, server.name, "DOWN", 15.0))
    bench.say(f"  kill {number}: kill -9 {server.name} (pid {server.pid}, {len(held)} tables)")
    ids, tokens = list(held), [held[t] for t in held]
    applied: dict[str, tuple[int, float]] = {}  # table -> (seq, created_at as a Unix time)
    seen: dict[str, float] = {}
    deadline = killed + recover_timeout
    while len(seen) < len(held) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
        waiting = [i for i, t in enumerate(ids) if t not in applied]
        if waiting:
            rows = await db.fetch(
                "SELECT DISTINCT ON (l.table_id) l.table_id, l.seq, l.created_at "
                "FROM table_log l JOIN unnest($1::text[], $2::bigint[]) AS k(id, token) "
                "ON l.table_id = k.id WHERE l.fence > k.token AND l.kind = 'move' "
                "ORDER BY l.table_id, l.seq",
                [ids[i] for i in waiting],
                [tokens[i] for i in waiting],
            )
            for row in rows:
                applied[str(row["table_id"])] = (int(row["seq"]), row["created_at"].timestamp())
        for table_id, (seq, _) in applied.items():
            if table_id not in seen:
                at = tables[table_id].first_seen(seq)
                if at is not None:
                    seen[table_id] = at - killed
    back = sorted(seen.values())
    at_server = sorted(created - killed_wall for _, created in applied.values())
    down_for: float | None = None
    with contextlib.suppress(BenchError):
        down_for = await down
    # Back in: the same port, a new process (a new node id, owning nothing yet).
    await asyncio.to_thread(server.start)
    await asyncio.to_thread(proxy.wait_status, server.name, "UP", 20.0)
    figures = {
        "kill": number,
        "process": server.name,
        "tables": len(held),
        "recovered": len(back),
        "stuck": sorted(set(held) - set(seen)),
        "first_s": round(back[0], 3) if back else None,
        "median_s": round(statistics.median(back), 3) if back else None,
        "last_s": round(back[-1], 3) if back else None,
        "applied_first_s": round(at_server[0], 3) if at_server else None,
        "applied_last_s": round(at_server[-1], 3) if at_server else None,
        "proxy_down_s": None if down_for is None else round(down_for, 2),
    }
    bench.say(
        f"    every table back after {figures['last_s']} s "
        f"({figures['recovered']}/{figures['tables']})"
    )
    return figures


def failover(
    bench: Bench,
    processes: int,
    tables: int,
    clients: int,
    think: float,
    jitter: float,
    kills: int,
    gap: float,
    seed: int | None,
    recover_timeout: float = 30.0,
) -> dict[str, Any]:
    layout = Layout(str(processes), processes, True)
    busy = bench.wait_quiet()
    with bench.cluster(layout, tables * clients) as (servers, proxy):
        database = servers[0].db_url.rsplit("/", 1)[1]
        out = asyncio.run(
            _failover(
                bench,
                servers,
                proxy,
                database,
                tables,
                clients,
                think,
                jitter,
                kills,
                gap,
                seed,
                recover_timeout,
            )
        )
    errors = [line for s in servers for line in s.log_errors()]
    worst = max((k["last_s"] for k in out["kills"] if k["last_s"] is not None), default=None)
    stuck = sum(len(k["stuck"]) for k in out["kills"])
    return {
        "processes": processes,
        "tables": tables,
        "clients": clients,
        "think": think,
        "think_jitter": jitter,
        "gap": gap,
        **out,
        "worst_s": worst,
        "stuck": stuck,
        "server_log_errors": len(errors),
        "first_server_log_errors": errors[:5],
        "machine_busy_before_percent": busy,
    }


def failover_report(figures: dict[str, Any]) -> list[str]:
    lines = [
        f"failover: {figures['processes']} processes, {figures['tables']} tables × "
        f"{figures['clients']} clients through HAProxy, think {figures['think']:g} s ± "
        f"{figures['think_jitter']:.0%}; kill -9 of the process owning the most tables, "
        f"{len(figures['kills'])} times, {figures['gap']:g} s of play before each "
        f"(machine busy {figures.get('machine_busy_before_percent')}% of a core before)",
        "  time from the kill to the next applied move at each of its tables, as a client saw "
        "it (first / median / last = every table); applied = the move's log entry, server clock",
        f"  {'kill':>4} {'process':>7} {'tables':>6} {'first s':>8} {'median s':>8} "
        f"{'last s':>8} {'applied first':>13} {'applied last':>12} {'proxy DOWN':>10} "
        f"{'stuck':>5}",
    ]

    def s(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    for k in figures["kills"]:
        lines.append(
            f"  {k['kill']:>4} {k['process']:>7} {k['tables']:>6} {s(k['first_s']):>8} "
            f"{s(k['median_s']):>8} {s(k['last_s']):>8} {s(k['applied_first_s']):>13} "
            f"{s(k['applied_last_s']):>12} {s(k['proxy_down_s']):>10} {len(k['stuck']):>5}"
        )
    errors = ", ".join(f"{k} {n}" for k, n in sorted(figures["errors"].items())) or "none"
    lines.append(
        f"  worst: {s(figures['worst_s'])} s; moves acknowledged "
        f"{figures['acknowledged']}, reconnects {figures['reconnects']}, "
        f"refusals/errors seen by clients: {errors}; server log errors "
        f"{figures['server_log_errors']}"
    )
    return lines


# --- the command line -----------------------------------------------------------------------


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, not {text}")
    return value


def _positive_seconds(text: str) -> float:
    value = _seconds(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    return value


def _clients(text: str) -> int:
    value = int(text)
    if not 2 <= value <= 18:
        raise argparse.ArgumentTypeError(f"a table has 2 to 18 seats, not {value}")
    return value


def _gc_threshold(text: str) -> tuple[int, int, int]:
    try:
        a, b, c = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"three numbers A,B,C, not {text!r}") from None
    if min(a, b, c) < 1:
        raise argparse.ArgumentTypeError("each number must be at least 1")
    return a, b, c


def _layouts(text: str) -> list[str]:
    keys = [k.strip() for k in text.split(",") if k.strip()]
    for key in keys:
        if key not in LAYOUTS:
            raise argparse.ArgumentTypeError(f"{key!r}: the layouts are 1, 2 and single")
    if not keys:
        raise argparse.ArgumentTypeError("name at least one layout")
    return keys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 cluster-bench``."""
    parser.add_argument(
        "--scenario",
        action="append",
        choices=SCENARIOS,
        metavar="NAME",
        help="throughput, human or failover (repeatable; default: all three)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--seed", type=int, metavar="N", help="seed of the clients' choices")
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="the servers' log level (warning)",
    )
    parser.add_argument(
        "--loop",
        choices=("auto", "asyncio", "uvloop"),
        default="auto",
        help="the load generator's event loop; auto = uvloop when installed",
    )
    parser.add_argument(
        "--keep-logs",
        metavar="DIR",
        type=Path,
        help="keep every process's log in DIR (default: removed)",
    )
    parser.add_argument(
        "--quiet-wait",
        type=_seconds,
        default=0.0,
        metavar="S",
        help="before each run, wait up to S seconds for the machine to be quiet (a shared "
        "machine's other work would be measured too) (0: do not wait)",
    )
    parser.add_argument(
        "--loadgen-gc",
        type=_gc_threshold,
        default=LOADGEN_GC,
        metavar="A,B,C",
        help="gc.set_threshold of the load generator, whose thousands of clients share one "
        "interpreter: with Python's 700,10,10 its collections hold every client at once "
        "(about 5 s a minute at 1,000 tables) and count as latency "
        f"({','.join(map(str, LOADGEN_GC))}; the servers keep Python's)",
    )
    parser.add_argument(
        "--max-other",
        type=float,
        metavar="PERCENT",
        help="measure a run again (3 tries) when processes not ours took more than this %% "
        "of one core in its window (default: never)",
    )
    parser.add_argument(
        "--quiet-below",
        type=float,
        default=50.0,
        metavar="PERCENT",
        help="quiet: every process together busy below this %% of one core over 1 s (50)",
    )
    tools = parser.add_argument_group("tools")
    tools.add_argument(
        "--pg-bin",
        type=Path,
        default=PG_BIN,
        metavar="DIR",
        help=f"PostgreSQL's binaries ({PG_BIN}; $PG_BIN)",
    )
    tools.add_argument(
        "--haproxy",
        default=os.environ.get("HAPROXY", "haproxy"),
        help="the haproxy command ($HAPROXY, else haproxy)",
    )
    tools.add_argument(
        "--redis-server", default="redis-server", metavar="COMMAND", help="the redis-server command"
    )
    tools.add_argument(
        "--recipe",
        type=Path,
        default=RECIPE,
        metavar="CFG",
        help="the HAProxy recipe (deploy/haproxy.cfg)",
    )
    t = parser.add_argument_group("throughput")
    t.add_argument("--tables", type=_positive_int, default=200, metavar="N", help="(200)")
    t.add_argument("--clients", type=_clients, default=4, metavar="N", help="per table (4)")
    t.add_argument(
        "--duration",
        type=_positive_seconds,
        default=20.0,
        metavar="S",
        help="seconds measured per run (20)",
    )
    t.add_argument("--warmup", type=_seconds, default=5.0, metavar="S", help="per run (5)")
    t.add_argument(
        "--rounds",
        type=_positive_int,
        default=2,
        metavar="N",
        help="rounds of every layout, alternating (2)",
    )
    t.add_argument(
        "--layouts",
        type=_layouts,
        default=["1", "2", "single"],
        metavar="LIST",
        help="the layouts of a round, in order: 1 and 2 (processes on PostgreSQL "
        "+ Redis), single (1 process on PostgreSQL without Redis) (1,2,single)",
    )
    h = parser.add_argument_group("human")
    h.add_argument("--human-tables", type=_positive_int, default=1000, metavar="N", help="(1000)")
    h.add_argument("--human-clients", type=_clients, default=4, metavar="N", help="(4)")
    h.add_argument(
        "--human-think",
        type=_seconds,
        default=2.0,
        metavar="S",
        help="seconds a player takes to decide, ± --human-jitter (2)",
    )
    h.add_argument("--human-jitter", type=float, default=0.5, metavar="F", help="(0.5)")
    h.add_argument(
        "--human-duration", type=_positive_seconds, default=60.0, metavar="S", help="(60)"
    )
    h.add_argument("--human-warmup", type=_seconds, default=10.0, metavar="S", help="(10)")
    h.add_argument("--human-processes", type=_positive_int, default=2, metavar="N", help="(2)")
    f = parser.add_argument_group("failover")
    f.add_argument("--failover-processes", type=_positive_int, default=3, metavar="N", help="(3)")
    f.add_argument("--failover-tables", type=_positive_int, default=60, metavar="N", help="(60)")
    f.add_argument("--failover-clients", type=_clients, default=4, metavar="N", help="(4)")
    f.add_argument("--failover-think", type=_seconds, default=2.0, metavar="S", help="(2)")
    f.add_argument("--kills", type=_positive_int, default=3, metavar="N", help="(3)")
    f.add_argument(
        "--gap",
        type=_seconds,
        default=8.0,
        metavar="S",
        help="seconds of play before each kill (8)",
    )


def run(args: argparse.Namespace) -> int:
    """``flip7 cluster-bench``: 0 when every run went without an error (the targets are
    reported, not enforced), 1 otherwise, 2 when a service could not be started."""
    scenarios = args.scenario or list(SCENARIOS)
    if "failover" in scenarios and args.failover_processes < 2:
        print("flip7 cluster-bench: failover needs --failover-processes 2 or more", file=sys.stderr)
        return 2
    _raise_open_files(20_000)  # HAProxy (2 per connection) and the servers inherit it
    m = machine(args.pg_bin, args.haproxy, args.redis_server)
    figures: dict[str, Any] = {"machine": m}
    workdir = Path(tempfile.mkdtemp(prefix="flip7-bench-"))
    bench = Bench(
        workdir, args.recipe, args.haproxy, args.log_level, args.loop, Postgres(args.pg_bin)
    )
    bench.quiet_below, bench.quiet_wait = args.quiet_below, args.quiet_wait
    bench.max_other = args.max_other
    failed = False
    if not args.json:
        print(machine_line(m), flush=True)
    try:
        bench.pg.start()
        bench.redis = Redis(workdir, args.redis_server).start()
        if "throughput" in scenarios:
            load = Load(
                args.tables,
                args.clients,
                args.duration,
                args.warmup,
                0.0,
                seed=args.seed,
                gc_threshold=args.loadgen_gc,
            )
            layouts = [LAYOUTS[k] for k in args.layouts]
            figures["throughput"] = out = throughput(bench, load, layouts, args.rounds)
            failed |= any(r["errors"] or r["server_log_errors"] for r in out["runs"])
            if not args.json:
                print("\n".join(throughput_report(out)), flush=True)
        if "human" in scenarios:
            load = Load(
                args.human_tables,
                args.human_clients,
                args.human_duration,
                args.human_warmup,
                args.human_think,
                args.human_jitter,
                seed=args.seed,
                gc_threshold=args.loadgen_gc,
            )
            figures["human"] = run_ = human(bench, load, args.human_processes)
            failed |= bool(run_["errors"] or run_["server_log_errors"])
            if not args.json:
                print("\n".join(human_report(run_)), flush=True)
        if "failover" in scenarios:
            figures["failover"] = out = failover(
                bench,
                args.failover_processes,
                args.failover_tables,
                args.failover_clients,
                args.failover_think,
                0.5,
                args.kills,
                args.gap,
                args.seed,
            )
            failed |= bool(out["stuck"] or out["server_log_errors"])
            if not args.json:
                print("\n".join(failover_report(out)), flush=True)
    except (BenchError, OSError, subprocess.CalledProcessError) as exc:
        print(f"flip7 cluster-bench: {exc}", file=sys.stderr)
        figures["error"] = str(exc)
        if args.json:
            print(json.dumps(figures, indent=2))
        return 2
    finally:
        if bench.redis is not None:
            bench.redis.stop()
        bench.pg.stop()
        try:
            if args.keep_logs is not None:
                shutil.copytree(
                    workdir,
                    args.keep_logs,
                    dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("*.sock"),
                )
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        print(json.dumps(figures, indent=2))
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """Run it on its own (``python -m flip7.client.clusterbench``)."""
    parser = argparse.ArgumentParser(prog="flip7 cluster-bench", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
