"""``flip7 attack``: floods against the server, each next to a control table that is timed.

Every attack runs for a fixed window (``--duration``) while a *control table* plays next to
it: three seated humans (WebSocket clients from ``127.0.0.1``, exactly as ``flip7 loadtest``
drives them) who move 50 ms after their decision comes up. A control move's latency is the
time from sending it to the moment the update carrying its version has reached all three
clients. ``GET /api/health`` is timed every 100 ms from the same address. The first row is
a baseline with no flood.

The floods run in a separate process (so that their event loop never delays the control
clients' clocks), at a lower CPU priority (``nice``: a real attacker's CPU is another
machine's), and from other loopback source addresses (``127.0.0.2`` and up), so that the
server's per-address budgets see them as strangers and never throttle the control table.
They go to loopback only; every one is bounded in count and time:

``uploads``    POST /api/replays with an oversize record (a huge target score and 20,000
               decisions) and with a large one just within the limits, and GET the replay
               (its pages) of a finished game and of an uploaded record;
``tables``     POST /api/tables as fast as possible (at most ``--create-max``);
``bots12``     12 tables of four search bots (``mcts`` at the highest parameters a stranger
``bots60``     may ask for; a refusal is recorded and a weaker spec tried), the human gone;
``frames``     ``--frame-sockets`` WebSockets sending binary and text frames flat out;
``idle``       ``--idle`` silent TCP sockets, as many HTTP requests whose headers never end
               and as many WebSockets that never say hello (each reopened when closed);
``malformed``  odd bodies, paths and frames: lone surrogates, invalid UTF-8, deep nesting,
               chunked oversize bodies, strings and huge numbers as versions, ...

Without ``--url`` every attack gets a fresh ``flip7 serve`` subprocess (a free loopback
port, a fresh SQLite file), so that one flood's leftovers (bot tables still playing,
connections the server has not noticed are gone) do not weigh on the next row.

>>> verdict_reasons(control_p95=12.0, health_p95=8.0, moves=300, errors=0, health_errors=0)
[]
>>> verdict_reasons(control_p95=70.0, health_p95=8.0, moves=300, errors=2, health_errors=0)
['control p95 70 ms > 50', '2 control errors']
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import ipaddress
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from flip7.client import loadtest
from flip7.client.loadtest import ServerProcess, ServerStartError, serve_subprocess

__all__ = [
    "ATTACKS",
    "AttackRow",
    "FloodFigures",
    "add_arguments",
    "attack_row",
    "flood_main",
    "run",
    "verdict_reasons",
]

DESCRIPTION = (
    "Flood the web app (uploads, table creation, search bots, frames, idle connections, "
    "malformed input) while a control table plays next to it; report the control table's "
    "latency and /api/health's for each flood."
)

# The targets a row is judged by (2-core machine, each flood running).
TARGET_CONTROL_P95_MS = 50.0
TARGET_HEALTH_P95_MS = 100.0

CONTROL_CLIENTS = 3
CONTROL_THINK = 0.05  # seconds a control client waits before its move
HEALTH_INTERVAL = 0.1
WARMUP = 1.0  # seconds the control table plays before the flood starts
SETUP_LIMIT = 90.0  # seconds a flood may take to get ready
FLOOD_NICE = 10
REQUEST_TIMEOUT = 5.0
MAX_NOTES = 12
PAGE_STEPS = 200  # the offsets of the pages the upload flood asks for

ATTACKS: dict[str, str] = {
    "baseline": "no flood",
    "uploads": "replay uploads (oversize and at-limit records) and replay pages",
    "tables": "POST /api/tables as fast as possible",
    "bots12": "12 tables of search bots, the human gone",
    "bots60": "60 tables of search bots, the human gone",
    "frames": "WebSockets sending binary and text frames flat out",
    "idle": "silent TCP sockets, never-ending headers, WebSockets without hello",
    "malformed": "odd bodies, paths and frames",
}

# Source addresses per flood (127.0.0.2 and up; the control table is 127.0.0.1).
_ADDRESSES = {"uploads": 2, "tables": 4, "bots12": 2, "bots60": 6, "frames": 2, "idle": 16,
              "malformed": 2}  # fmt: skip

# What a stranger asks for first, before falling back to what the server allows.
STRONG_BOT = "mcts:iters=10000000,time=0.9,horizon=1000,top=64"
FALLBACK_BOTS = ("mcts", "basic")


def flood_addresses(count: int) -> list[str]:
    """The loopback source addresses of a flood: 127.0.0.2, 127.0.0.3, ...

    >>> flood_addresses(3)
    ['127.0.0.2', '127.0.0.3', '127.0.0.4']
    """
    return [f"127.0.0.{2 + i}" for i in range(min(count, 250))]


def verdict_reasons(
    *,
    control_p95: float | None,
    health_p95: float | None,
    moves: int,
    errors: int,
    health_errors: int,
    server_errors: int = 0,
    server_log_errors: int = 0,
) -> list[str]:
    """Why a row misses the target (an empty list: it meets it)."""
    reasons = []
    if moves == 0:
        reasons.append("no control moves")
    if control_p95 is not None and control_p95 > TARGET_CONTROL_P95_MS:
        reasons.append(f"control p95 {control_p95:.0f} ms > {TARGET_CONTROL_P95_MS:.0f}")
    if health_p95 is None:
        reasons.append("no health answer")
    elif health_p95 > TARGET_HEALTH_P95_MS:
        reasons.append(f"health p95 {health_p95:.0f} ms > {TARGET_HEALTH_P95_MS:.0f}")
    if errors:
        reasons.append(f"{errors} control errors")
    if health_errors:
        reasons.append(f"{health_errors} health errors")
    if server_errors:
        reasons.append(f"{server_errors} HTTP 500s / closes 1011")
    if server_log_errors:
        reasons.append(f"{server_log_errors} server log errors")
    return reasons


# --- the result --------------------------------------------------------------------------------


@dataclass(slots=True)
class FloodFigures:
    """What a flood sent and how the server answered. ``sent``: requests, connections or
    frames; ``answered``: those that got any answer; ``refused``: answers that refuse (4xx,
    an error frame, a close by the server); ``failed``: no answer at all (a reset, a
    timeout); ``server_errors``: HTTP 500, a 5xx without an error code, a WebSocket close
    1011 (bugs: never expected). A 5xx with a code (503 ``busy``) is a refusal."""

    sent: int = 0
    answered: int = 0
    refused: int = 0
    failed: int = 0
    server_errors: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    addresses: list[str] = field(default_factory=list)
    setup_seconds: float = 0.0

    def note(self, text: str) -> None:
        if len(self.notes) < MAX_NOTES and text not in self.notes:
            self.notes.append(text)

    def to_json(self) -> dict[str, Any]:
        return {
            "sent": self.sent,
            "answered": self.answered,
            "refused": self.refused,
            "failed": self.failed,
            "server_errors": self.server_errors,
            "codes": dict(self.codes.most_common()),
            "notes": list(self.notes),
            "addresses": list(self.addresses),
            "setup_seconds": round(self.setup_seconds, 2),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FloodFigures:
        return cls(
            sent=int(data.get("sent", 0)),
            answered=int(data.get("answered", 0)),
            refused=int(data.get("refused", 0)),
            failed=int(data.get("failed", 0)),
            server_errors=int(data.get("server_errors", 0)),
            codes=Counter({str(k): int(v) for k, v in dict(data.get("codes", {})).items()}),
            notes=[str(n) for n in data.get("notes", [])],
            addresses=[str(a) for a in data.get("addresses", [])],
            setup_seconds=float(data.get("setup_seconds", 0.0)),
        )


@dataclass(slots=True)
class AttackRow:
    """One attack's figures: the flood's, the control table's (ms) and /api/health's (ms)."""

    attack: str
    description: str
    duration: float
    flood: FloodFigures | None
    control_moves: int = 0
    control_p50_ms: float | None = None
    control_p95_ms: float | None = None
    control_max_ms: float | None = None
    control_errors: int = 0
    control_error_kinds: dict[str, int] = field(default_factory=dict)
    control_error_messages: list[str] = field(default_factory=list)
    health_count: int = 0
    health_p50_ms: float | None = None
    health_p95_ms: float | None = None
    health_max_ms: float | None = None
    health_errors: int = 0
    health_error_messages: list[str] = field(default_factory=list)
    server_cpu_percent: float | None = None
    machine_cpu_percent: float | None = None
    # this process (the control clients and the health probe): CPU and worst loop lag
    client_cpu_percent: float | None = None
    client_lag_max_ms: float | None = None
    server_log_errors: list[str] = field(default_factory=list)
    server_log_warnings: int = 0

    @property
    def reasons(self) -> list[str]:
        return verdict_reasons(
            control_p95=self.control_p95_ms,
            health_p95=self.health_p95_ms,
            moves=self.control_moves,
            errors=self.control_errors,
            health_errors=self.health_errors,
            server_errors=self.flood.server_errors if self.flood else 0,
            server_log_errors=len(self.server_log_errors),
        )

    @property
    def ok(self) -> bool:
        return not self.reasons

    def to_json(self) -> dict[str, Any]:
        def ms(value: float | None) -> float | None:
            return None if value is None else round(value, 2)

        return {
            "attack": self.attack,
            "description": self.description,
            "duration": self.duration,
            "flood": None if self.flood is None else self.flood.to_json(),
            "control": {
                "moves": self.control_moves,
                "p50_ms": ms(self.control_p50_ms),
                "p95_ms": ms(self.control_p95_ms),
                "max_ms": ms(self.control_max_ms),
                "errors": self.control_errors,
                "error_kinds": dict(self.control_error_kinds),
                "first_errors": list(self.control_error_messages),
            },
            "health": {
                "count": self.health_count,
                "p50_ms": ms(self.health_p50_ms),
                "p95_ms": ms(self.health_p95_ms),
                "max_ms": ms(self.health_max_ms),
                "errors": self.health_errors,
                "first_errors": list(self.health_error_messages),
            },
            "server_cpu_percent": ms(self.server_cpu_percent),
            "machine_cpu_percent": ms(self.machine_cpu_percent),
            "client_cpu_percent": ms(self.client_cpu_percent),
            "client_lag_max_ms": ms(self.client_lag_max_ms),
            "server_log_errors": list(self.server_log_errors[:MAX_NOTES]),
            "server_log_error_count": len(self.server_log_errors),
            "server_log_warning_count": self.server_log_warnings,
            "ok": self.ok,
            "reasons": self.reasons,
        }


def _ms(value: float | None, width: int = 6) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:{width}.1f}"


def _count(value: int | None, width: int = 8) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:{width}d}"


def report(rows: list[AttackRow], header: str, total_seconds: float) -> str:
    """The table of figures, a line of details per attack, and the total run time."""
    lines = [
        header,
        "",
        f"{'attack':<10} {'sent':>8} {'answered':>8} {'refused':>8} {'failed':>7} "
        f"{'ctl p50':>7} {'p95':>6} {'max':>6} {'moves':>5} {'errors':>6} "
        f"{'health p50':>10} {'p95':>6} {'max':>6}  verdict",
    ]
    for row in rows:
        flood = row.flood
        verdict = "pass" if row.ok else "FAIL: " + "; ".join(row.reasons)
        lines.append(
            f"{row.attack:<10} {_count(flood.sent if flood else None)} "
            f"{_count(flood.answered if flood else None)} "
            f"{_count(flood.refused if flood else None)} "
            f"{_count(flood.failed if flood else None, 7)} "
            f"{_ms(row.control_p50_ms, 7)} {_ms(row.control_p95_ms)} {_ms(row.control_max_ms)} "
            f"{row.control_moves:5d} {row.control_errors:6d} "
            f"{_ms(row.health_p50_ms, 10)} {_ms(row.health_p95_ms)} {_ms(row.health_max_ms)}  "
            f"{verdict}"
        )
    lines.append("")
    lines.append("details (answers by code; ms are milliseconds):")
    for row in rows:
        lines.append(f"  {row.attack}: {row.description}")
        flood = row.flood
        if flood is not None:
            codes = ", ".join(f"{code} ×{n}" for code, n in flood.codes.most_common(12))
            lines.append(
                f"    from {_address_range(flood.addresses)}; setup {flood.setup_seconds:.1f} s"
            )
            if codes:
                lines.append(f"    answers: {codes}")
            lines.extend(f"    note: {note}" for note in flood.notes)
        cpu = []
        if row.server_cpu_percent is not None:
            cpu.append(f"server and its workers {row.server_cpu_percent:.0f}% of a core")
        if row.machine_cpu_percent is not None:
            cpu.append(f"machine {row.machine_cpu_percent:.0f}%")
        if row.client_cpu_percent is not None:
            cpu.append(
                f"control clients {row.client_cpu_percent:.0f}% "
                f"(loop lag max {_ms(row.client_lag_max_ms, 0)} ms)"
            )
        if cpu:
            lines.append(f"    cpu: {', '.join(cpu)}; health probes {row.health_count}")
        if row.control_errors:
            kinds = ", ".join(f"{k} {n}" for k, n in sorted(row.control_error_kinds.items()))
            lines.append(f"    control errors: {kinds}")
            lines.extend(f"      {m}" for m in row.control_error_messages[:3])
        lines.extend(f"    health error: {m}" for m in row.health_error_messages[:3])
        if row.server_log_errors:
            lines.append(f"    server log: {len(row.server_log_errors)} error lines; the first:")
            lines.extend(f"      {line[:300]}" for line in row.server_log_errors[:3])
    passed = sum(row.ok for row in rows)
    lines.append("")
    lines.append(
        f"{passed} of {len(rows)} rows meet the target (control p95 ≤ "
        f"{TARGET_CONTROL_P95_MS:.0f} ms, health p95 ≤ {TARGET_HEALTH_P95_MS:.0f} ms, "
        f"0 errors); total run time {total_seconds:.0f} s"
    )
    return "\n".join(lines)


def _address_range(addresses: list[str]) -> str:
    """
    >>> _address_range(["127.0.0.2", "127.0.0.3", "127.0.0.4"]), _address_range(["127.0.0.2"])
    ('127.0.0.2 to 127.0.0.4 (3 addresses)', '127.0.0.2')
    """
    if len(addresses) <= 1:
        return addresses[0] if addresses else "-"
    return f"{addresses[0]} to {addresses[-1]} ({len(addresses)} addresses)"


# --- the control table and the health probe (this process) -------------------------------------


class _Health:
    """GET /api/health every HEALTH_INTERVAL seconds; latencies inside the window."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self.window_start = math.inf
        self.window_end = math.inf
        self.latencies: list[float] = []
        self.errors = 0
        self.messages: list[str] = []

    def error(self, message: str) -> None:
        self.errors += 1
        if len(self.messages) < MAX_NOTES:
            self.messages.append(message)

    async def probe(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            began = time.perf_counter()
            try:
                response = await self.http.get("/api/health")
                if response.status_code != 200:
                    self.error(f"HTTP {response.status_code}: {response.text[:200]}")
            except httpx.HTTPError as exc:
                self.error(f"{type(exc).__name__}: {exc}")
            else:
                if self.window_start <= began < self.window_end:
                    self.latencies.append(1000 * (time.perf_counter() - began))
            wait = HEALTH_INTERVAL - (time.perf_counter() - began)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.0, wait))


def _summary(values: list[float]) -> tuple[float | None, float | None, float | None]:
    if not values:
        return None, None, None
    return loadtest._percentile(values, 50), loadtest._percentile(values, 95), max(values)


class _FloodProcess:
    """A flood in its own process: it prints ``READY`` once set up and ``RESULT {json}`` at
    the end; its standard error goes to a file whose tail is kept if it fails."""

    def __init__(self, process: asyncio.subprocess.Process, stderr: Path) -> None:
        self.process = process
        self.stderr = stderr

    @classmethod
    async def spawn(cls, config: dict[str, Any], folder: Path) -> _FloodProcess:
        import flip7

        src = str(Path(flip7.__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
        stderr = folder / f"flood-{config['attack']}.log"
        with stderr.open("wb") as err:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                "from flip7.client.attack import flood_main; raise SystemExit(flood_main())",
                json.dumps(config),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
                env=env,
                start_new_session=True,
            )
        return cls(process, stderr)

    async def _line(self, prefix: str, limit: float) -> str | None:
        assert self.process.stdout is not None
        deadline = time.monotonic() + limit
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                raw = await asyncio.wait_for(self.process.stdout.readline(), remaining)
            except (TimeoutError, ValueError):
                return None
            if not raw:
                return None
            text = raw.decode(errors="replace").strip()
            if text.startswith(prefix):
                return text.removeprefix(prefix).strip()

    async def ready(self) -> bool:
        return await self._line("READY", SETUP_LIMIT) is not None

    async def result(self, limit: float) -> FloodFigures:
        text = await self._line("RESULT", limit)
        figures = FloodFigures()
        if text is not None:
            with contextlib.suppress(ValueError, TypeError, AttributeError):
                figures = FloodFigures.from_json(json.loads(text))
        else:
            tail = self._tail()
            figures.note(f"the flood process gave no result: {tail or 'no output'}")
        await self.stop()
        return figures

    def _tail(self) -> str:
        try:
            lines = self.stderr.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " | ".join(lines[-3:])[:500]

    async def stop(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), 5)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                await self.process.wait()


async def attack_row(
    attack: str,
    url: str,
    duration: float,
    config: dict[str, Any],
    *,
    server_pid: int | None = None,
    seed: int | None = None,
    timeout: float = 10.0,
) -> AttackRow:
    """Run one attack (``baseline``: none) for ``duration`` seconds next to a control table of
    the server at ``url``; ``config`` holds the flood's counts."""
    url = url.rstrip("/")
    row = AttackRow(attack, ATTACKS[attack], duration, None)
    async with contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(
            httpx.AsyncClient(base_url=url, timeout=timeout, trust_env=False)
        )
        health_http = await stack.enter_async_context(
            httpx.AsyncClient(base_url=url, timeout=timeout, trust_env=False)
        )
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="flip7-attack-")))
        run = loadtest._Run(url, http, CONTROL_THINK, 0.0, timeout, True, None)
        stats = run.stats
        table = loadtest._Table(run, 0, CONTROL_CLIENTS, seed)
        health = _Health(health_http)
        stop = asyncio.Event()
        flood: _FloodProcess | None = None
        tasks: list[asyncio.Task[None]] = []
        try:
            if await table.setup():
                tasks.append(asyncio.create_task(loadtest._watch([table], stop)))
                run.sending = True
                await table.start()
                tasks.append(asyncio.create_task(health.probe(stop)))
                tasks.append(asyncio.create_task(loadtest._measure_lag(stats, stop)))
                await asyncio.sleep(WARMUP)
                if attack != "baseline":
                    flood_config = {
                        **config, "attack": attack, "url": url, "duration": duration,
                        "control_table": table.id,
                    }  # fmt: skip
                    flood = await _FloodProcess.spawn(flood_config, folder)
                    if not await flood.ready():
                        row.flood = FloodFigures()
                        row.flood.note(f"the flood did not get ready: {flood._tail()}")
                gc.collect()
                gc.freeze()  # the collector's full passes would count as latency
                now = time.perf_counter()
                stats.window_start = health.window_start = now
                stats.window_end = health.window_end = now + duration
                server_before = _server_cpu(server_pid)
                machine_before = loadtest._machine_busy_seconds()
                client_before = time.process_time()
                await asyncio.sleep(duration)
                window = time.perf_counter() - now
                row.client_cpu_percent = (time.process_time() - client_before) / window * 100
                row.server_cpu_percent = _percent(_server_cpu(server_pid), server_before, window)
                row.machine_cpu_percent = _percent(
                    loadtest._machine_busy_seconds(), machine_before, window
                )
                run.sending = False
                if flood is not None and row.flood is None:
                    row.flood = await flood.result(limit=30.0)
                give_up = time.perf_counter() + timeout + 1
                while table.pending and time.perf_counter() < give_up:
                    await asyncio.sleep(0.05)
        finally:
            gc.unfreeze()
            run.closing = True
            stop.set()
            if flood is not None:
                await flood.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
            for task in list(run.tasks):
                task.cancel()
            await asyncio.gather(*run.tasks, return_exceptions=True)
            await asyncio.gather(*(c.close() for c in table.clients), return_exceptions=True)
    latencies = [1000 * s for s in stats.latencies]
    row.control_moves = len(latencies)
    row.control_p50_ms, row.control_p95_ms, row.control_max_ms = _summary(latencies)
    row.control_errors = stats.errors
    row.control_error_kinds = dict(stats.kinds)
    row.control_error_messages = list(stats.messages)
    row.client_lag_max_ms = 1000 * max(stats.lags) if stats.lags else None
    row.health_count = len(health.latencies)
    row.health_p50_ms, row.health_p95_ms, row.health_max_ms = _summary(health.latencies)
    row.health_errors = health.errors
    row.health_error_messages = list(health.messages)
    return row


def _server_cpu(pid: int | None) -> float | None:
    """CPU seconds of the server and its worker processes (bots, replays), from /proc."""
    if pid is None:
        return None
    own = loadtest._process_cpu_seconds(pid)
    if own is None:
        return None
    parents: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    stat = Path(entry.path, "stat").read_text()
                    parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    family, total = {pid}, own
    grew = True
    while grew:
        grew = False
        for child, parent in parents.items():
            if parent in family and child not in family:
                family.add(child)
                total += loadtest._process_cpu_seconds(child) or 0.0
                grew = True
    return total


def _percent(after: float | None, before: float | None, seconds: float) -> float | None:
    if after is None or before is None or seconds <= 0:
        return None
    return (after - before) / seconds * 100


# --- the floods (their own process) ------------------------------------------------------------


class _Flood:
    """One flood: ``setup`` (not timed) and ``run`` until ``deadline`` (time.monotonic)."""

    def __init__(self, config: dict[str, Any], figures: FloodFigures) -> None:
        self.config = config
        self.figures = figures
        self.url: str = str(config["url"]).rstrip("/")
        parts = urlsplit(self.url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.ws_url = loadtest._ws_url(self.url)
        self.control_table = str(config.get("control_table", ""))
        self.addresses = flood_addresses(int(config.get("addresses", 2)))
        figures.addresses = self.addresses
        self.rng = random.Random(config.get("seed"))
        self._clients: dict[str, httpx.AsyncClient] = {}

    def http(self, address: str) -> httpx.AsyncClient:
        """A client whose connections come from ``address``."""
        client = self._clients.get(address)
        if client is None:
            transport = httpx.AsyncHTTPTransport(
                local_address=address,
                limits=httpx.Limits(max_connections=64, max_keepalive_connections=64),
            )
            client = httpx.AsyncClient(
                base_url=self.url, transport=transport, timeout=REQUEST_TIMEOUT, trust_env=False
            )
            self._clients[address] = client
        return client

    async def close(self) -> None:
        for client in self._clients.values():
            with contextlib.suppress(Exception):
                await client.aclose()

    async def setup(self) -> None:
        """Get ready; what it sends counts in the figures too."""

    async def run(self, deadline: float) -> None:
        raise NotImplementedError

    # -- counting

    def answer(self, response: httpx.Response, label: str = "") -> None:
        figures = self.figures
        figures.answered += 1
        status = response.status_code
        code = ""
        if status >= 400:
            with contextlib.suppress(ValueError, AttributeError, TypeError):
                detail = response.json().get("detail")
                code = str(detail.get("code", "")) if isinstance(detail, dict) else ""
        key = f"{status} {code}".strip()
        if label:
            key = f"{label}: {key}"
        figures.codes[key] += 1
        # A 5xx with a code is a refusal by design (503 busy: shed load, retry later); a
        # 500, or a 5xx without one, is not.
        if status == 500 or (status >= 500 and not code):
            figures.server_errors += 1
            figures.note(f"HTTP {status} for {label or 'a request'}: {response.text[:160]!r}")
        elif status >= 400:
            figures.refused += 1

    def failure(self, exc: BaseException, label: str = "") -> None:
        self.figures.failed += 1
        key = type(exc).__name__
        self.figures.codes[f"{label}: {key}" if label else key] += 1

    async def request(
        self, address: str, method: str, path: str, label: str = "", **kwargs: Any
    ) -> httpx.Response | None:
        """Send one request, count it and its answer; None when there is none."""
        self.figures.sent += 1
        try:
            response = await self.http(address).request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            self.failure(exc, label)
            return None
        self.answer(response, label)
        return response

    async def new_table(
        self, address: str, seats: int, rules: dict[str, Any] | None = None
    ) -> tuple[str, str] | None:
        body: dict[str, Any] = {"name": "flood", "player": "flood", "seats": seats}
        if rules:
            body["rules"] = rules
        response = await self.request(address, "POST", "/api/tables", "setup", json=body)
        if response is None or response.status_code != 201:
            return None
        data = response.json()
        return str(data["table"]["id"]), str(data["token"])

    async def play_seat(
        self, address: str, table: str, token: str, deadline: float, *, once: bool = False
    ) -> None:
        """A seated human, connected, taking its decisions at once (Stay when it may) and
        asking for a rematch when a game is over; ``once``: return when the game is over."""
        path = f"{self.ws_url}/ws/tables/{table}"
        while time.monotonic() < deadline:
            ws = await _ws_connect(self, path, address, deadline)
            if ws is None:
                await asyncio.sleep(0.5)
                continue
            try:
                await ws.send(json.dumps({"v": 1, "type": "hello", "token": token}))
                acted = -1
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    message = json.loads(await asyncio.wait_for(ws.recv(), left))
                    kind = message.get("type")
                    if kind in ("result", "error"):  # the answers to its moves
                        self.figures.answered += 1
                    if kind == "error":
                        self.figures.refused += 1
                        self.figures.codes[f"human: error {message.get('code')}"] += 1
                    state = message.get("table")
                    if kind not in ("welcome", "update", "error") or not isinstance(state, dict):
                        continue
                    version = int(state.get("version", -1))
                    game = state.get("game") or {}
                    if version <= acted:
                        continue
                    if state.get("state") == "over" or game.get("over"):
                        acted = version
                        if once:
                            return
                        await self.request(
                            address, "POST", f"/api/tables/{table}/rematch", "rematch",
                            headers={"Authorization": f"Bearer {token}"},
                        )  # fmt: skip
                    elif game.get("legal_decisions"):
                        acted = version
                        legal = list(game["legal_decisions"])
                        decision = "stay" if "stay" in legal else legal[0]
                        move = {"v": 1, "type": "move", "id": f"h{version}", "version": version,
                                "decision": decision}  # fmt: skip
                        await ws.send(json.dumps(move))
                        self.figures.sent += 1
            except (TimeoutError, ConnectionClosed, ValueError, TypeError, AttributeError):
                pass
            finally:
                rcvd = ws.protocol.close_rcvd
                if rcvd is not None:
                    self.figures.codes[f"human: closed {rcvd.code}"] += 1
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 1)

    async def workers(self, count: int, deadline: float, work: Callable[[int], Awaitable[None]]
                      ) -> None:  # fmt: skip
        async def loop(index: int) -> None:
            while time.monotonic() < deadline:
                await work(index)

        await asyncio.gather(*(loop(i) for i in range(count)))


def _record(players: int, target: int, decisions: int, draws: int, seed: int) -> dict[str, Any]:
    """A valid record of an unfinished game with up to ``decisions`` and ``draws``."""
    from flip7.core.rules import Rules
    from flip7.engine.game import Game
    from flip7.engine.record import Record

    rng = random.Random(seed)
    game = Game.new([f"p{i}" for i in range(players)], Rules(target_score=target), seed=seed,
                    events=False)  # fmt: skip
    while not game.over and len(game.decisions) < decisions and len(game.draws) < draws - 10:
        legal = game.legal_decisions()
        seat = game.to_decide
        if str(legal[0]) == "hit" and seat is not None and game.number_sum(seat) < 22:
            game.apply(legal[0])
        else:
            game.apply(rng.choice(legal))
    data: dict[str, Any] = Record.from_game(game).to_json()
    return data


# The limits of an uploaded record that the upload flood builds its at-limit record from,
# read from the server it attacks (GET /api/limits): a client does not import the server.
RECORD_LIMITS = ("max_record_bytes", "max_record_draws", "max_record_decisions",
                 "max_record_target_score")  # fmt: skip


async def server_limits(flood: _Flood, address: str) -> dict[str, int] | None:
    """The server's record limits (:data:`RECORD_LIMITS`) from ``GET /api/limits``; None
    (and a note) when it does not say them."""
    response = await flood.request(address, "GET", "/api/limits", "setup")
    if response is None or response.status_code != 200:
        status = "no answer" if response is None else f"HTTP {response.status_code}"
        flood.figures.note(f"GET /api/limits: {status}")
        return None
    try:
        data = response.json()
        return {name: int(data[name]) for name in RECORD_LIMITS}
    except (ValueError, KeyError, TypeError, AttributeError):
        flood.figures.note(f"GET /api/limits: not the limits: {response.text[:160]!r}")
        return None


class _Uploads(_Flood):
    async def setup(self) -> None:
        self.pages: list[tuple[str, int]] = []  # a replay's path and its steps
        self.oversize = json.dumps(_record(4, 10**6, 20_000, 10**6, 1)).encode()
        self.big: bytes | None = None  # the at-limit record, once the limits are known
        address = self.addresses[0]
        limits = await server_limits(self, address)
        if limits is None:
            self.figures.note(
                f"oversize record {len(self.oversize) // 1024} KiB; no at-limit record (the "
                "server's limits are unknown)"
            )
        else:
            self.big = self._at_limit(limits)
            self.figures.note(
                f"oversize record {len(self.oversize) // 1024} KiB (20,000 decisions, target "
                f"10^6); at-limit record {len(self.big) // 1024} KiB"
            )
            response = await self.request(
                address, "POST", "/api/replays", "setup", content=self.big,
                headers={"Content-Type": "application/json"},
            )  # fmt: skip
            if response is not None and response.status_code == 201:
                await self._pages(address, f"/api/replays/{response.json()['id']}")
        game = await self._finished_game(address)
        if game is not None:
            await self._pages(address, f"/api/games/{game}/replay")
        else:
            self.figures.note("no finished game to page through")

    @staticmethod
    def _at_limit(limits: dict[str, int]) -> bytes:
        """A record just within the server's ``limits``: 95 % of its decisions and draws,
        fewer while it is over 95 % of the bytes."""
        target = limits["max_record_target_score"]
        big = _record(18, target, int(limits["max_record_decisions"] * 0.95),
                      int(limits["max_record_draws"] * 0.95), 2)  # fmt: skip
        text = json.dumps(big).encode()
        scale = 0.8
        while len(text) > limits["max_record_bytes"] * 0.95 and scale > 0.01:
            big = _record(18, target, int(limits["max_record_decisions"] * scale),
                          int(limits["max_record_draws"] * scale), 2)  # fmt: skip
            text = json.dumps(big).encode()
            scale *= 0.8
        return text

    async def _pages(self, address: str, path: str) -> None:
        """Note a replay to page through, with its step count (``total_steps``)."""
        response = await self.request(address, "GET", path, "setup")
        steps = 1
        if response is not None and response.status_code == 200:
            with contextlib.suppress(ValueError, AttributeError, TypeError):
                steps = int(response.json().get("total_steps") or 1)
        self.pages.append((path, steps))

    async def _finished_game(self, address: str) -> str | None:
        made = await self.new_table(address, 3, {"target_score": 1})
        if made is None:
            return None
        table, token = made
        headers = {"Authorization": f"Bearer {token}"}
        for _ in range(2):
            await self.request(address, "POST", f"/api/tables/{table}/bots", "setup",
                               json={"bot": "basic"}, headers=headers)  # fmt: skip
        await self.request(address, "POST", f"/api/tables/{table}/start", "setup", headers=headers)
        # Bots think only while a seated human is connected: stay and play to the end.
        until = time.monotonic() + 30
        await self.play_seat(address, table, token, until, once=True)
        while time.monotonic() < until:
            response = await self.request(address, "GET", f"/api/tables/{table}", "setup")
            if response is not None and response.status_code == 200:
                finished = response.json()["table"].get("finished_games") or []
                if finished:
                    return str(finished[0])
            await asyncio.sleep(0.25)
        return None

    async def run(self, deadline: float) -> None:
        step = [0]

        async def work(index: int) -> None:
            address = self.addresses[index % len(self.addresses)]
            step[0] += 1
            kind = step[0] % 3
            if kind == 0 and self.pages:
                path, steps = self.pages[step[0] % len(self.pages)]
                offset = self.rng.randrange(0, steps) // PAGE_STEPS * PAGE_STEPS
                await self.request(address, "GET", f"{path}?offset={offset}", "page")
                return
            at_limit = kind != 1 and self.big is not None
            await self.request(
                address, "POST", "/api/replays", "at-limit" if at_limit else "oversize",
                content=self.big if at_limit and self.big is not None else self.oversize,
                headers={"Content-Type": "application/json"},
            )  # fmt: skip

        await self.workers(int(self.config.get("workers", 16)), deadline, work)


class _Tables(_Flood):
    async def run(self, deadline: float) -> None:
        most = int(self.config.get("create_max", 5000))
        body = {"name": "flood", "player": "flood", "seats": 4}

        async def work(index: int) -> None:
            if self.figures.sent >= most:
                await asyncio.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
                return
            address = self.addresses[index % len(self.addresses)]
            await self.request(address, "POST", "/api/tables", json=body)

        await self.workers(int(self.config.get("workers", 32)), deadline, work)


class _Bots(_Flood):
    """Tables of one human and three search bots. On even tables the human leaves once the
    game has started (the brief's attack); on odd ones (``bot_human`` "both") the human
    stays connected and makes its own decisions at once, which is what keeps bots thinking
    on a server that pauses bots nobody is watching."""

    def __init__(self, config: dict[str, Any], figures: FloodFigures) -> None:
        super().__init__(config, figures)
        self.count = int(config.get("bot_tables", 12))
        self.mode = str(config.get("bot_human", "both"))
        self.tables: list[tuple[str, str, str, bool]] = []  # id, token, address, human plays
        self.versions: dict[str, int] = {}
        self.spec: str | None = None

    async def _bot_spec(self, address: str, table: str, headers: dict[str, str]) -> bool:
        """Seat the strongest bot the server takes: the spec asked for, lowered to each
        ceiling the server names ("iters may be at most 2000"), then the fallbacks."""
        if self.spec is not None:
            response = await self.request(address, "POST", f"/api/tables/{table}/bots", "setup",
                                          json={"bot": self.spec}, headers=headers)  # fmt: skip
            return response is not None and response.status_code == 200
        candidates = [str(self.config.get("bot_spec", STRONG_BOT)), *FALLBACK_BOTS]
        tries = 0
        while candidates and tries < 12:
            spec = candidates.pop(0)
            tries += 1
            response = await self.request(address, "POST", f"/api/tables/{table}/bots", "setup",
                                          json={"bot": spec}, headers=headers)  # fmt: skip
            if response is None:
                continue
            if response.status_code == 200:
                self.spec = spec
                return True
            message = response.text[:300]
            self.figures.note(f"bot {spec!r} refused: HTTP {response.status_code} {message}")
            lowered = lower_to_ceiling(spec, message)
            if lowered is not None:
                candidates.insert(0, lowered)
        return False

    async def setup(self) -> None:
        # The first table finds the spec the server takes; the others then ask for it.
        await self._one(0)
        await asyncio.gather(*(self._one(i) for i in range(1, self.count)))
        plays = sum(1 for t in self.tables if t[3])
        self.figures.note(
            f"{len(self.tables)} of {self.count} bot tables started with "
            f"{self.spec or 'no bot'} ({plays} with the human playing, "
            f"{len(self.tables) - plays} with the human gone)"
        )
        self.versions = await self._versions()

    async def _one(self, index: int) -> None:
        address = self.addresses[index % len(self.addresses)]
        made = await self.new_table(address, 4)
        if made is None:
            return
        table, token = made
        headers = {"Authorization": f"Bearer {token}"}
        for _ in range(3):
            await self._bot_spec(address, table, headers)
        await self.request(address, "POST", f"/api/tables/{table}/start", "setup",
                           headers=headers)  # fmt: skip
        plays = self.mode == "play" or (self.mode == "both" and index % 2 == 1)
        if not plays:
            await self.request(address, "POST", f"/api/tables/{table}/leave", "setup",
                               headers=headers)  # fmt: skip
        self.tables.append((table, token, address, plays))

    async def _versions(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for table, _token, address, _plays in self.tables:
            response = await self.request(address, "GET", f"/api/tables/{table}", "poll")
            if response is not None and response.status_code == 200:
                out[table] = int(response.json()["table"]["version"])
        return out

    async def run(self, deadline: float) -> None:
        players = [
            self.play_seat(address, table, token, deadline)
            for table, token, address, plays in self.tables
            if plays
        ]
        await asyncio.gather(asyncio.sleep(max(0.0, deadline - time.monotonic())), *players)
        after = await self._versions()
        for plays, label in ((False, "the human gone"), (True, "the human playing")):
            ids = [t[0] for t in self.tables if t[3] is plays]
            if ids:
                moved = sum(after.get(t, self.versions.get(t, 0)) - self.versions.get(t, 0)
                            for t in ids)  # fmt: skip
                self.figures.note(
                    f"tables with {label} advanced {moved} versions in the window "
                    f"({len(ids)} tables)"
                )

_CEILING = re.compile(r"(\w+) may be at most ([0-9.e+-]+)")


def lower_to_ceiling(spec: str, message: str) -> str | None:
    """``spec`` with the parameter a refusal names set to the ceiling it names; None when
    the message names none (or the spec has it at that value already).

    >>> lower_to_ceiling("mcts:iters=10000000,time=0.9", "iters may be at most 2000, got 1e7")
    'mcts:iters=2000,time=0.9'
    >>> lower_to_ceiling("mcts:iters=2000", "bot 'x' is not offered here") is None
    True
    """
    found = _CEILING.search(message)
    name, sep, params = spec.partition(":")
    if found is None or not sep:
        return None
    key, ceiling = found.group(1), found.group(2).rstrip(".")
    pairs = [p.partition("=") for p in params.split(",") if p]
    if not any(k == key for k, _, _ in pairs):
        return None
    lowered = [f"{k}={ceiling if k == key else v}" for k, _, v in pairs]
    text = f"{name}:{','.join(lowered)}"
    return None if text == spec else text


class _Frames(_Flood):
    BINARY = b"\x00" * 1024
    TEXTS = (
        '{"v":1,"type":"ping"}',
        "{not json",
        '{"v":1,"type":"move","id":"x","version":"3","decision":"hit"}',
        "x" * 1024,
    )

    async def run(self, deadline: float) -> None:
        sockets = int(self.config.get("frame_sockets", 20))
        path = f"{self.ws_url}/ws/tables/{self.control_table}"
        await asyncio.gather(*(self._socket(i, path, deadline) for i in range(sockets)))

    async def _socket(self, index: int, path: str, deadline: float) -> None:
        address = self.addresses[index % len(self.addresses)]
        frames = (self.BINARY,) if index % 2 == 0 else self.TEXTS
        # Closed: reconnect, as an attacker would, but not in a spin.
        await _ws_frames(self, path, address, deadline, "frames", frames, reconnect=0.01)


async def _ws_connect(
    flood: _Flood, path: str, address: str, deadline: float
) -> ClientConnection | None:
    """A WebSocket from ``address`` (counted as sent); None, counted, if refused."""
    flood.figures.sent += 1
    try:
        return await connect(
            path,
            local_addr=(address, 0),
            open_timeout=max(1.0, min(REQUEST_TIMEOUT, deadline - time.monotonic())),
            ping_interval=None,
            close_timeout=1,
            max_size=2**22,
            proxy=None,
            compression=None,
        )
    except InvalidStatus as exc:
        flood.figures.answered += 1
        status = exc.response.status_code
        flood.figures.codes[f"ws handshake: HTTP {status}"] += 1
        if status >= 500:
            flood.figures.server_errors += 1
        else:
            flood.figures.refused += 1
    except (OSError, TimeoutError, ConnectionClosed) as exc:
        flood.failure(exc, "ws connect")
    except Exception as exc:  # a handshake the client library rejects
        flood.failure(exc, "ws connect")
    return None


async def _ws_frames(
    flood: _Flood,
    path: str,
    address: str,
    deadline: float,
    label: str,
    frames: Sequence[str | bytes],
    *,
    hello: str | None = None,
    gap: float | None = None,
    reconnect: float = 0.0,
) -> None:
    """Until ``deadline``: a WebSocket from ``address`` sends ``frames`` in turn (each
    counted as sent; ``hello`` first, uncounted) while :func:`_ws_read` counts what the
    server sends under ``label``; when the server closes it, another is opened after
    ``reconnect`` seconds. ``gap``: seconds between frames; None sends flat out."""
    while time.monotonic() < deadline:
        ws = await _ws_connect(flood, path, address, deadline)
        if ws is None:
            await asyncio.sleep(0.2)
            continue
        reader = asyncio.create_task(_ws_read(flood, ws, label))
        try:
            if hello is not None:
                await ws.send(hello)
            sent = 0
            while time.monotonic() < deadline and not reader.done():
                await ws.send(frames[sent % len(frames)])
                sent += 1
                flood.figures.sent += 1
                if gap is not None:
                    await asyncio.sleep(gap)
                elif sent % 32 == 0:
                    await asyncio.sleep(0)  # the send buffer may never fill on loopback
        except ConnectionClosed:
            pass
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1)
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
        if reconnect:
            await asyncio.sleep(reconnect)


async def _ws_read(flood: _Flood, ws: ClientConnection, label: str) -> None:
    """Count the frames the server sends (error frames by code) and how it closes."""
    figures = flood.figures
    try:
        async for raw in ws:
            figures.answered += 1
            try:
                message = json.loads(raw)
            except ValueError:
                figures.codes[f"{label}: non-JSON frame"] += 1
                continue
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "error":
                figures.refused += 1
                figures.codes[f"{label}: error {message.get('code')}"] += 1
            else:
                figures.codes[f"{label}: {kind}"] += 1
    except ConnectionClosed:
        pass
    rcvd = ws.protocol.close_rcvd
    if rcvd is not None:
        figures.codes[f"{label}: closed {rcvd.code}"] += 1
        figures.answered += 1  # a close is an answer, and a refusal
        figures.refused += 1
        if rcvd.code == 1011:
            figures.server_errors += 1
            figures.note(f"{label}: closed 1011 (internal error) {rcvd.reason!r}")


class _Idle(_Flood):
    async def run(self, deadline: float) -> None:
        count = int(self.config.get("idle", 1000))
        opening = asyncio.Semaphore(32)  # connections being opened at once
        self.held: Counter[str] = Counter()
        self.peak: Counter[str] = Counter()
        kinds = (("tcp", self._tcp), ("headers", self._headers), ("ws", self._ws))
        tasks = [
            self._hold(kind, hold, i, opening, deadline)
            for i in range(count)
            for kind, hold in kinds
        ]
        await asyncio.gather(*tasks)
        self.figures.note(
            "most open at once: " + ", ".join(f"{k} {self.peak[k]}" for k, _ in kinds)
        )

    async def _hold(
        self,
        kind: str,
        hold: Callable[[str, asyncio.Semaphore, float], Awaitable[str | None]],
        index: int,
        opening: asyncio.Semaphore,
        deadline: float,
    ) -> None:
        address = self.addresses[index % len(self.addresses)]
        while time.monotonic() < deadline:
            outcome = await hold(address, opening, deadline)
            if outcome is not None:
                self.figures.codes[f"{kind}: {outcome}"] += 1
            await asyncio.sleep(0.05 + 0.1 * self.rng.random())

    def _opened(self, kind: str) -> None:
        self.figures.sent += 1
        self.held[kind] += 1
        self.peak[kind] = max(self.peak[kind], self.held[kind])

    def _closed(self, kind: str, by_server: bool) -> None:
        self.held[kind] -= 1
        if by_server:
            self.figures.answered += 1
            self.figures.refused += 1

    async def _open(
        self, address: str, opening: asyncio.Semaphore
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        async with opening:
            try:
                return await asyncio.wait_for(
                    asyncio.open_connection(self.host, self.port, local_addr=(address, 0)),
                    REQUEST_TIMEOUT,
                )
            except (OSError, TimeoutError) as exc:
                self.figures.sent += 1
                self.failure(exc, "connect")
                await asyncio.sleep(0.5)
                return None

    async def _tcp(self, address: str, opening: asyncio.Semaphore, deadline: float) -> str | None:
        opened = await self._open(address, opening)
        if opened is None:
            return None
        reader, writer = opened
        self._opened("tcp")
        try:
            data = await asyncio.wait_for(reader.read(256), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            self._closed("tcp", by_server=False)
            return "held to the end"
        except OSError:
            data = b""
        finally:
            writer.close()
        self._closed("tcp", by_server=True)
        return _first_line(data) or "closed by the server"

    async def _headers(
        self, address: str, opening: asyncio.Semaphore, deadline: float
    ) -> str | None:
        opened = await self._open(address, opening)
        if opened is None:
            return None
        reader, writer = opened
        self._opened("headers")
        line = 0
        try:
            writer.write(f"GET /api/health HTTP/1.1\r\nHost: {self.host}\r\n".encode())
            while time.monotonic() < deadline:
                try:
                    data = await asyncio.wait_for(
                        reader.read(256), min(2.0, max(0.0, deadline - time.monotonic()))
                    )
                except TimeoutError:
                    line += 1
                    writer.write(f"X-Slow-{line}: {'a' * 10}\r\n".encode())
                    continue
                self._closed("headers", by_server=True)
                return _first_line(data) or "closed by the server"
        except OSError:
            self._closed("headers", by_server=True)
            return "reset by the server"
        finally:
            writer.close()
        self._closed("headers", by_server=False)
        return "held to the end"

    async def _ws(self, address: str, opening: asyncio.Semaphore, deadline: float) -> str | None:
        async with opening:
            if time.monotonic() >= deadline:  # queued behind slow refusals: the flood is over
                return None
            ws = await _ws_connect(self, f"{self.ws_url}/ws/tables/{self.control_table}",
                                   address, deadline)  # fmt: skip
        if ws is None:
            return None
        self.figures.sent -= 1  # _ws_connect counted it; _opened counts it again
        self._opened("ws")
        try:
            await asyncio.wait_for(ws.wait_closed(), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            self._closed("ws", by_server=False)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1)
            return "held to the end"
        self._closed("ws", by_server=True)
        rcvd = ws.protocol.close_rcvd
        if rcvd is not None and rcvd.code == 1011:
            self.figures.server_errors += 1
        return f"closed {rcvd.code}" if rcvd is not None else "dropped by the server"


def _first_line(data: bytes) -> str:
    line = data.split(b"\r\n", 1)[0].decode(errors="replace").strip()
    return f"answered {line[:60]!r}" if line else ""


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


class _Malformed(_Flood):
    """Odd input over REST and WebSocket, every case in turn; the codes name the case."""

    async def setup(self) -> None:
        address = self.addresses[0]
        made = await self.new_table(address, 3)
        self.table, self.token = made if made is not None else (self.control_table, "")
        table = self.table
        tables = "/api/tables"
        deep = _nested(20_000)
        self.cases: list[tuple[str, str, str, dict[str, Any]]] = [
            ("surrogate name", "POST", tables,
             {"content": b'{"name":"\\ud800","player":"\\udfff x","seats":3}'}),
            ("invalid utf-8", "POST", tables,
             {"content": b'{"name":"\xff\xfe","player":"\xc3(","seats":3}'}),
            ("deep nesting", "POST", tables,
             {"content": ('{"player":"x","rules":{"a":' + _nested(5000) + "}}").encode()}),
            ("deep nesting upload", "POST", "/api/replays", {"content": deep.encode()}),
            ("chunked oversize", "POST", tables, {"content": _chunks(200 * 1024)}),
            ("chunked oversize upload", "POST", "/api/replays",
             {"content": _chunks(4 * 1024 * 1024)}),
            ("seats as string", "POST", tables, {"json": {"player": "x", "seats": "3"}}),
            ("huge number", "POST", tables, {"content": b'{"player":"x","seats":1e400}'}),
            ("huge integer", "POST", tables,
             {"content": b'{"player":"x","seats":' + b"9" * 4000 + b"}"}),
            ("NaN", "POST", tables, {"content": b'{"player":"x","seats":NaN}'}),
            ("not an object", "POST", tables, {"content": b'[1,2,3]'}),
            ("rules not an object", "POST", tables, {"json": {"player": "x", "rules": [1]}}),
            ("turn timer as string", "POST", tables,
             {"json": {"player": "x", "turn_timer": "10"}}),
            ("upload null", "POST", "/api/replays", {"content": b"null"}),
            ("upload surrogate", "POST", "/api/replays",
             {"content": b'{"format":"flip7-record/1","players":["\\ud800","b"],'
                         b'"draws":[],"decisions":[]}'}),
            ("upload version string", "POST", "/api/replays",
             {"content": b'{"format":"flip7-record/1","players":["a","b","c"],'
                         b'"draws":"5","decisions":{"x":1}}'}),
            ("bad join body", "POST", f"/api/tables/{table}/join", {"json": {"player": 3}}),
            ("long token", "POST", f"/api/tables/{table}/start",
             {"headers": {"Authorization": "Bearer " + "t" * 6000}}),
            ("seat as text", "DELETE", f"/api/tables/{table}/seats/abc", {}),
            ("seat huge", "DELETE", f"/api/tables/{table}/seats/{'9' * 400}", {}),
            ("nul in path", "GET", "/api/tables/%00", {}),
            ("long path", "GET", "/api/tables/" + "a" * 6000, {}),
            ("traversal", "GET", "/api/games/..%2f..%2fetc%2fpasswd/replay", {}),
            ("offset as text", "GET", "/api/games/x/replay?offset=abc", {}),
            ("offset huge", "GET", "/api/games/x/replay?offset=" + "9" * 400, {}),
            ("limit negative", "GET", "/api/games/x/replay?offset=0&limit=-5", {}),
            ("wrong content type", "POST", tables,
             {"content": b"player=x", "headers": {"Content-Type": "text/plain"}}),
        ]  # fmt: skip
        self.frames = [
            '{"v":1,"type":"move","id":"m","version":"3","decision":"hit"}',
            '{"v":1,"type":"move","id":"m","version":1e400,"decision":"hit"}',
            '{"v":1,"type":"move","id":"m","version":' + "9" * 3000 + ',"decision":"hit"}',
            '{"v":1,"type":"move","id":"m","version":-1,"decision":"hit"}',
            '{"v":1,"type":"move","id":"\\ud800","version":0,"decision":"\\udfff"}',
            '{"v":1,"type":"move","id":' + _nested(1500) + ',"version":0,"decision":"hit"}',
            '{"v":"1","type":"hello"}',
            '{"v":1,"type":"hello","last_version":"0"}',
            '{"v":1,"type":"move","id":"m","version":0,"decision":"hit","x":1}',
            "null",
            "[]",
            '"\\ud800"',
        ]

    async def run(self, deadline: float) -> None:
        step = [0]

        async def work(index: int) -> None:
            address = self.addresses[index % len(self.addresses)]
            step[0] += 1
            label, method, path, kwargs = self.cases[step[0] % len(self.cases)]
            if isinstance(kwargs.get("content"), _Chunked):
                kwargs = {**kwargs, "content": kwargs["content"].stream()}
            await self.request(address, method, path, label, **kwargs)

        sockets = [self._socket(i, deadline) for i in range(2)]
        await asyncio.gather(
            self.workers(int(self.config.get("workers", 8)), deadline, work), *sockets
        )

    async def _socket(self, index: int, deadline: float) -> None:
        address = self.addresses[index % len(self.addresses)]
        path = f"{self.ws_url}/ws/tables/{self.table}"
        hello = json.dumps({"v": 1, "type": "hello", "token": self.token or None})
        # Within the per-socket rate, so that the server parses every frame.
        await _ws_frames(self, path, address, deadline, "ws", self.frames, hello=hello, gap=0.06)


class _Chunked:
    """A body sent with ``Transfer-Encoding: chunked`` (no Content-Length)."""

    def __init__(self, size: int) -> None:
        self.size = size

    async def stream(self) -> AsyncIterator[bytes]:
        chunk = b" " * 16384
        for _ in range(self.size // len(chunk)):
            yield chunk


def _chunks(size: int) -> _Chunked:
    return _Chunked(size)


FLOODS: dict[str, type[_Flood]] = {
    "uploads": _Uploads,
    "tables": _Tables,
    "bots12": _Bots,
    "bots60": _Bots,
    "frames": _Frames,
    "idle": _Idle,
    "malformed": _Malformed,
}


async def _flood(config: dict[str, Any]) -> FloodFigures:
    figures = FloodFigures()
    flood = FLOODS[str(config["attack"])](config, figures)
    began = time.monotonic()
    try:
        await asyncio.wait_for(flood.setup(), SETUP_LIMIT - 5)
    except Exception as exc:  # a failed setup is a figure: the flood runs with what it has
        figures.note(f"setup failed: {type(exc).__name__}: {exc}"[:300])
    figures.setup_seconds = time.monotonic() - began
    print("READY", flush=True)
    duration = float(config["duration"])
    deadline = time.monotonic() + duration
    try:
        await asyncio.wait_for(flood.run(deadline), duration + 10)
    except TimeoutError:
        figures.note("the flood did not stop in time")
    except Exception as exc:
        figures.note(f"the flood failed: {type(exc).__name__}: {exc}"[:300])
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(flood.close(), 5)
    return figures


def flood_main(argv: list[str] | None = None) -> int:
    """A flood's process: ``argv[0]`` is its JSON config; prints READY, then RESULT {json}."""
    args = sys.argv[1:] if argv is None else argv
    config = json.loads(args[0])
    host = urlsplit(str(config["url"])).hostname or ""
    if not _loopback(host):
        print(f"flip7 attack: floods go to loopback only, not {host!r}", file=sys.stderr)
        return 2
    if config.get("nice", True):
        with contextlib.suppress(OSError):
            os.nice(FLOOD_NICE)
    with asyncio.Runner(loop_factory=loadtest._loop_factory("auto")) as runner:
        figures = runner.run(_flood(config))
    print("RESULT " + json.dumps(figures.to_json()), flush=True)
    return 0


def _loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (127.0.0.0/8, ::1 or localhost).

    >>> _loopback("127.0.0.1"), _loopback("localhost"), _loopback("10.0.0.1")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# --- the command line --------------------------------------------------------------------------


def _attack_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in ATTACKS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown attack {', '.join(unknown) or text!r}; attacks are {', '.join(ATTACKS)}"
        )
    return names


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 attack``."""
    parser.add_argument(
        "--url",
        help="an already running server on loopback (http://127.0.0.1:PORT); without it "
        "each attack gets a fresh `flip7 serve` subprocess",
    )
    parser.add_argument(
        "--attacks",
        type=_attack_list,
        default=list(ATTACKS),
        metavar="A,B,...",
        help=f"the attacks to run, in order ({','.join(ATTACKS)})",
    )
    parser.add_argument(
        "--duration",
        type=loadtest._positive_seconds,
        default=20.0,
        metavar="S",
        help="seconds each attack runs, the control table measured over the same window (20)",
    )
    parser.add_argument(
        "--idle", type=loadtest._positive_int, default=1000, metavar="N",
        help="idle connections of each kind (1000)",
    )  # fmt: skip
    parser.add_argument(
        "--frame-sockets", type=loadtest._positive_int, default=20, metavar="N",
        help="WebSockets of the frame flood (20)",
    )  # fmt: skip
    parser.add_argument(
        "--create-max", type=loadtest._positive_int, default=5000, metavar="N",
        help="most POST /api/tables of the table flood (5000)",
    )  # fmt: skip
    parser.add_argument(
        "--bot-spec", default=STRONG_BOT, metavar="SPEC",
        help=f"the bot the search-bot floods ask for first ({STRONG_BOT})",
    )  # fmt: skip
    parser.add_argument(
        "--bot-human", choices=("leave", "play", "both"), default="both",
        help="at the search-bot tables the human leaves once the game has started, stays "
        "and plays at once, or both: every other table (both)",
    )  # fmt: skip
    parser.add_argument(
        "--bot-delay", type=loadtest._seconds, default=0.05, metavar="S",
        help="--bot-delay of the `flip7 serve` subprocess (0.05)",
    )  # fmt: skip
    loadtest.add_server_arg(parser, "--limit=tables_burst=5")
    parser.add_argument(
        "--no-nice", dest="nice", action="store_false",
        help="run the floods at normal CPU priority (by default they run at nice 10)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, metavar="N", help="seed of the clients' choices")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def _config(args: argparse.Namespace, attack: str) -> dict[str, Any]:
    return {
        "addresses": _ADDRESSES.get(attack, 2),
        "idle": args.idle,
        "frame_sockets": args.frame_sockets,
        "create_max": args.create_max,
        "bot_spec": args.bot_spec,
        "bot_tables": 60 if attack == "bots60" else 12,
        "bot_human": args.bot_human,
        "nice": args.nice,
        "seed": args.seed,
    }


def run(args: argparse.Namespace) -> int:
    """``flip7 attack``: 0 when every row meets the target, 1 otherwise, 2 on bad input."""
    began = time.monotonic()
    if args.url is not None:
        host = urlsplit(args.url).hostname or ""
        if not _loopback(host):
            print(f"flip7 attack: floods go to loopback only, not {host!r}", file=sys.stderr)
            return 2
    needed = 3 * args.idle if "idle" in args.attacks else 0
    loadtest._raise_open_files(needed * 2 + 1024)
    rows: list[AttackRow] = []
    for attack in args.attacks:
        if not args.json:
            print(f"flip7 attack: {attack} ({args.duration:g} s) ...", file=sys.stderr, flush=True)
        with contextlib.ExitStack() as stack:
            url: str = args.url
            server: ServerProcess | None = None
            if url is None:
                try:
                    server = stack.enter_context(
                        serve_subprocess(bot_delay=args.bot_delay, extra_args=args.server_arg)
                    )
                except ServerStartError as exc:
                    print(f"flip7 attack: {exc}", file=sys.stderr)
                    return 1
                url = server.url
            with asyncio.Runner(loop_factory=loadtest._loop_factory("auto")) as runner:
                row = runner.run(
                    attack_row(
                        attack, url, args.duration, _config(args, attack),
                        server_pid=server.pid if server else None, seed=args.seed,
                    )
                )  # fmt: skip
            if server is not None:
                stack.close()  # stop the server first, so that its log is complete
                row.server_log_errors = list(server.log_errors())
                row.server_log_warnings = len(server.log_warnings())
        rows.append(row)
    total = time.monotonic() - began
    where = args.url or "a fresh `flip7 serve` per attack"
    load = loadtest._load_average()
    header = (
        f"flip7 attack against {where} (bot delay {args.bot_delay:g} s): "
        f"{args.duration:g} s per attack, control table of {CONTROL_CLIENTS} humans moving "
        f"{CONTROL_THINK * 1000:.0f} ms after their turn comes; {os.cpu_count()} cores, "
        f"load average {load}"
    )
    if args.json:
        data = {
            "url": args.url,
            "duration": args.duration,
            "bot_delay": args.bot_delay,
            "machine_cores": os.cpu_count(),
            "load_average": load,
            "target": {
                "control_p95_ms": TARGET_CONTROL_P95_MS,
                "health_p95_ms": TARGET_HEALTH_P95_MS,
                "control_errors": 0,
            },
            "attacks": [row.to_json() for row in rows],
            "total_seconds": round(total, 1),
            "ok": all(row.ok for row in rows),
        }
        print(json.dumps(data, indent=2))
    else:
        print(report(rows, header, total))
    return 0 if all(row.ok for row in rows) else 1


def main(argv: list[str] | None = None) -> int:
    """Run the attack benchmark on its own (``python -m flip7.client.attack``)."""
    parser = argparse.ArgumentParser(prog="flip7 attack", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
