"""``flip7 loadtest``: many tables of bot clients playing over real WebSockets, timed.

Every client is a seated human as far as the server knows: it takes its seat over REST, connects
to ``/ws/tables/{id}``, says ``hello`` with its token and, whenever its view has legal decisions,
waits about ``think`` seconds (human thinking time; 0 = flat out) and sends a ``move``. When a
game is over, every client says it is ready for the next one (``POST .../rematch``: the next
game starts once every player is ready), so every table keeps playing.

A move's latency is the time from sending it to the moment the ``update`` that carries the
resulting version (the ``version`` of the move's ``result``) has reached *every* client at the
table. All clients live in this one process, so their monotonic clocks agree. Without ``--url``
the server is started as a separate process (``flip7 serve`` on a free loopback port with a fresh
SQLite file), so that clients and server do not share one interpreter.

Any ``error`` frame, unexpected close, failed HTTP call or timeout is an error.

>>> _percentile([3.0, 1.0, 2.0, 4.0], 50), _percentile([3.0, 1.0, 2.0, 4.0], 99)
(2.0, 4.0)
>>> _ws_url("http://127.0.0.1:8000/")
'ws://127.0.0.1:8000'
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

__all__ = [
    "LoadResult",
    "Second",
    "ServerProcess",
    "ServerStartError",
    "add_arguments",
    "add_server_arg",
    "load_test",
    "run",
    "serve_subprocess",
]

DESCRIPTION = "Play many tables at once with bot clients over real WebSockets, timed."
MAX_ERROR_MESSAGES = 10
MAX_FRAME_BYTES = 8 * 1024 * 1024
MIN_OPEN_FILES = 4096
RETRY_SECONDS = 0.5  # before a move refused with rate_limited is sent again


class ServerStartError(RuntimeError):
    """The ``flip7 serve`` subprocess did not come up (its log's tail is in the message)."""


# --- the result --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Second:
    """One second of the window: the moves sent in it, their latencies (ms; 0 without any),
    and the CPU the server and the whole machine used (% of one core; None if unknown)."""

    second: int
    moves: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    server_cpu_percent: float | None
    machine_cpu_percent: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "second": self.second,
            "moves": self.moves,
            "p50_ms": _round(self.p50_ms),
            "p99_ms": _round(self.p99_ms),
            "max_ms": _round(self.max_ms),
            "server_cpu_percent": _round(self.server_cpu_percent),
            "machine_cpu_percent": _round(self.machine_cpu_percent),
        }

    def line(self) -> str:
        def pct(value: float | None) -> str:
            return "-" if value is None else f"{value:.0f}"

        return (
            f"{self.second:6d} {self.moves:6d} {self.p50_ms:8.1f} {self.p99_ms:8.1f} "
            f"{self.max_ms:8.1f} {pct(self.server_cpu_percent):>9} "
            f"{pct(self.machine_cpu_percent):>10}"
        )


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What one load test measured. Latencies are in milliseconds (None without any move)."""

    url: str
    tables: int  # tables that were set up and played
    clients: int  # clients (WebSocket connections) per table
    think: float
    think_jitter: float
    warmup: float
    duration: float  # the measured window, seconds (after the warmup)
    setup_seconds: float  # creating, joining and connecting every table
    moves: int  # moves sent in the window whose update reached every client
    moves_per_second: float
    updates: int  # update frames received by all clients in the window
    p50_ms: float | None
    p90_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    mean_ms: float | None
    errors: int
    error_messages: tuple[str, ...]  # the first few
    error_kinds: dict[str, int]  # how many of each: an error code, "closed", "timeout", …
    games_finished: int  # in the window
    client_cpu_percent: float  # of one core, this process, in the window
    client_lag_max_ms: float | None  # worst event-loop lag of this process in the window
    timeline: tuple[Second, ...] = ()  # second by second through the window
    server_cpu_percent: float | None = None  # of one core, when the server's pid is known
    # every process of the machine together, in % of one core (200% = two busy cores), and
    # the machine's cores and 1-minute load average at the end: how much else was running
    machine_cpu_percent: float | None = None
    machine_cores: int = 0
    load_average: float | None = None
    server_log_errors: tuple[str, ...] = ()  # error/traceback lines of a server we started
    server_log_warnings: tuple[str, ...] = ()
    p95_ms: float | None = None

    @property
    def connections(self) -> int:
        return self.tables * self.clients

    @property
    def ok(self) -> bool:
        """At least one move and no error of any kind."""
        return self.moves > 0 and self.errors == 0 and not self.server_log_errors

    def to_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "tables": self.tables,
            "clients": self.clients,
            "connections": self.connections,
            "think": self.think,
            "think_jitter": self.think_jitter,
            "warmup": self.warmup,
            "duration": self.duration,
            "setup_seconds": round(self.setup_seconds, 3),
            "moves": self.moves,
            "moves_per_second": round(self.moves_per_second, 2),
            "updates": self.updates,
            "p50_ms": _round(self.p50_ms),
            "p90_ms": _round(self.p90_ms),
            "p95_ms": _round(self.p95_ms),
            "p99_ms": _round(self.p99_ms),
            "max_ms": _round(self.max_ms),
            "mean_ms": _round(self.mean_ms),
            "errors": {
                "count": self.errors,
                "kinds": dict(self.error_kinds),
                "first": list(self.error_messages),
            },
            "games_finished": self.games_finished,
            "client_cpu_percent": round(self.client_cpu_percent, 1),
            "client_lag_max_ms": _round(self.client_lag_max_ms),
            "server_cpu_percent": None
            if self.server_cpu_percent is None
            else round(self.server_cpu_percent, 1),
            "timeline": [second.to_json() for second in self.timeline],
            "machine_cpu_percent": _round(self.machine_cpu_percent),
            "machine_cores": self.machine_cores,
            "load_average": self.load_average,
            "server_log_errors": list(self.server_log_errors[:MAX_ERROR_MESSAGES]),
            "server_log_error_count": len(self.server_log_errors),
            "server_log_warnings": list(self.server_log_warnings[:MAX_ERROR_MESSAGES]),
            "server_log_warning_count": len(self.server_log_warnings),
        }

    def report(self, *, timeline: bool = False) -> str:
        """A short human-readable report; ``timeline`` adds a line per second."""

        def ms(value: float | None) -> str:
            return "-" if value is None else f"{value:.1f} ms"

        per_s = self.updates / self.duration if self.duration > 0 else 0.0
        lines = [
            f"flip7 loadtest against {self.url}",
            f"  tables       {self.tables} × {self.clients} clients = "
            f"{self.connections} WebSocket connections",
            f"  timing       think {self.think:g} s ± {self.think_jitter:.0%}, "
            f"warmup {self.warmup:g} s, measured {self.duration:g} s "
            f"(setup took {self.setup_seconds:.1f} s)",
            f"  moves        {self.moves} ({self.moves_per_second:.1f}/s); "
            f"{self.updates} updates received ({per_s:.0f}/s)",
            f"  latency      p50 {ms(self.p50_ms)}, p90 {ms(self.p90_ms)}, "
            f"p95 {ms(self.p95_ms)}, "
            f"p99 {ms(self.p99_ms)}, max {ms(self.max_ms)} "
            "(move sent → its update at every client of the table)",
            f"  games        {self.games_finished} finished",
        ]
        cpu = f"client {self.client_cpu_percent:.0f}% of a core"
        if self.server_cpu_percent is not None:
            cpu = f"server {self.server_cpu_percent:.0f}% of a core, " + cpu
        lines.append(f"  cpu          {cpu}, client loop lag max {ms(self.client_lag_max_ms)}")
        if self.machine_cpu_percent is not None:
            lines.append(
                f"  machine      {self.machine_cores} cores, every process and the kernel "
                f"{self.machine_cpu_percent:.0f}% of a core, load average {self.load_average}"
            )
        if timeline:
            lines.append("  second  moves   p50 ms   p99 ms   max ms  server %  machine %")
            lines.extend(f"  {s.line()}" for s in self.timeline)
        if self.errors == 0:
            lines.append("  errors       0")
        else:
            kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.error_kinds.items()))
            lines.append(f"  errors       {self.errors} ({kinds}); the first:")
            lines.extend(f"    {message}" for message in self.error_messages)
        if self.server_log_errors:
            lines.append(f"  server log   {len(self.server_log_errors)} error lines; the first:")
            lines.extend(f"    {line}" for line in self.server_log_errors[:MAX_ERROR_MESSAGES])
        if self.server_log_warnings:
            lines.append(f"  server log   {len(self.server_log_warnings)} warnings; the first:")
            lines.extend(f"    {line}" for line in self.server_log_warnings[:3])
        return "\n".join(lines)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def _ws_url(url: str) -> str:
    url = url.rstrip("/")
    if url.startswith("https://"):
        return "wss://" + url.removeprefix("https://")
    if url.startswith("http://"):
        return "ws://" + url.removeprefix("http://")
    return url


# --- the clients -------------------------------------------------------------------------------


class _Stats:
    def __init__(self) -> None:
        self.window_start = math.inf
        self.window_end = math.inf
        self.errors = 0
        self.messages: list[str] = []
        self.kinds: dict[str, int] = {}  # errors by kind: an error code, "closed", "timeout", …
        self.latencies: list[float] = []
        self.sent: list[float] = []  # when each move of ``latencies`` was sent
        self.updates = 0
        self.games_finished = 0
        self.lags: list[float] = []
        self.cpu: list[tuple[float | None, float | None]] = []  # per second: server, machine

    def error(self, kind: str, message: str) -> None:
        self.errors += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if len(self.messages) < MAX_ERROR_MESSAGES:
            self.messages.append(message)

    def in_window(self, moment: float) -> bool:
        return self.window_start <= moment < self.window_end


@dataclass(slots=True)
class _Pending:
    """A move in flight. The next player may move before the mover has read its ``result``,
    so a table can have more than one."""

    move_id: str
    mover: int
    base: int  # the version the move was made against
    sent: float
    target: int | None = None  # the version after the move, from its result


class _Run:
    """Everything the clients of one load test share."""

    def __init__(
        self,
        url: str,
        http: httpx.AsyncClient,
        think: float,
        think_jitter: float,
        timeout: float,
        compression: bool,
        rules: dict[str, Any] | None,
    ) -> None:
        self.url = url
        self.ws_url = _ws_url(url)
        self.http = http
        self.think = think
        self.think_jitter = think_jitter
        self.timeout = timeout
        self.compression = compression
        self.rules = rules
        self.stats = _Stats()
        self.sending = False  # clients move and ask for rematches only while this is set
        self.closing = False  # closes from now on are ours, not errors
        self.tasks: set[asyncio.Task[None]] = set()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def post(self, path: str, body: dict[str, Any] | None, token: str | None) -> Any:
        """POST and return the JSON answer; None (and an error counted) on any failure."""
        headers = {"Authorization": f"Bearer {token}"} if token else None
        try:
            if body is None:
                response = await self.http.post(path, headers=headers)
            else:
                response = await self.http.post(path, json=body, headers=headers)
        except httpx.HTTPError as exc:
            self.stats.error("http", f"POST {path}: {type(exc).__name__}: {exc}")
            return None
        if response.status_code >= 400:
            self.stats.error(
                "http", f"POST {path}: HTTP {response.status_code}: {response.text[:300]}"
            )
            return None
        try:
            return response.json()
        except ValueError:
            self.stats.error("http", f"POST {path}: HTTP {response.status_code}, not JSON")
            return None


class _Table:
    def __init__(self, run: _Run, index: int, clients: int, seed: int | None) -> None:
        self.run = run
        self.index = index
        self.id = ""
        self.clients = [
            _Client(self, i, random.Random(None if seed is None else seed * 1000 + index * 20 + i))
            for i in range(clients)
        ]
        self.pending: dict[str, _Pending] = {}
        # per client: the newest version seen, and (version, arrival) of its recent updates
        self.latest = [-1] * clients
        self.arrivals: list[deque[tuple[int, float]]] = [deque(maxlen=64) for _ in range(clients)]
        self.version = -1
        self.last_progress = time.perf_counter()
        self.finished: set[Any] = set()  # game ids seen over
        self.started = False

    @property
    def name(self) -> str:
        return f"table {self.id or self.index}"

    async def setup(self) -> bool:
        """Create the table, seat every client and connect them; False (errors counted) if not."""
        try:
            return await self._setup()
        except (KeyError, TypeError) as exc:
            self.run.stats.error("protocol", f"{self.name}: unexpected answer: {exc!r}")
            return False

    async def _setup(self) -> bool:
        run = self.run
        body: dict[str, Any] = {
            "name": f"load {self.index}",
            "player": f"lt{self.index}-0",
            "seats": len(self.clients),
        }
        if run.rules:
            body["rules"] = run.rules
        data = await run.post("/api/tables", body, None)
        if data is None:
            return False
        self.id = str(data["table"]["id"])
        self.clients[0].token = data["token"]
        for client in self.clients[1:]:
            data = await run.post(
                f"/api/tables/{self.id}/join", {"player": f"lt{self.index}-{client.index}"}, None
            )
            if data is None:
                return False
            client.token = data["token"]
        results = await asyncio.gather(*(c.connect() for c in self.clients))
        return all(results)

    async def start(self) -> None:
        self.last_progress = time.perf_counter()
        data = await self.run.post(f"/api/tables/{self.id}/start", None, self.clients[0].token)
        self.last_progress = time.perf_counter()
        self.started = data is not None

    def begin_move(self, move_id: str, mover: int, base: int, sent: float) -> None:
        self.pending[move_id] = _Pending(move_id, mover, base, sent)
        self.last_progress = sent

    def on_update(self, client: int, version: int, arrival: float) -> None:
        if version > self.version:
            self.version = version
            self.last_progress = arrival
        if version > self.latest[client]:
            self.latest[client] = version
            self.arrivals[client].append((version, arrival))
            if self.pending:
                self._check_done()

    def on_result(self, move_id: Any, version: Any) -> None:
        pending = self.pending.get(move_id)
        if pending is None:
            self.run.stats.error(
                "protocol", f"{self.name}: result for move {move_id!r}, not in flight"
            )
            return
        if not isinstance(version, int) or version <= pending.base:
            self.run.stats.error(
                "protocol",
                f"{self.name}: result of move {move_id} made at version {pending.base} "
                f"carries version {version!r}",
            )
            del self.pending[move_id]
            return
        pending.target = version
        self._check_done()

    def on_move_error(self, client: int, move_id: Any) -> None:
        """A move was refused. An error without an id (``rate_limited``) answers the client's
        latest move: nothing else of it is in flight."""
        if move_id is None:
            for pending in list(self.pending.values()):
                if pending.mover == client and pending.target is None:
                    del self.pending[pending.move_id]
        else:
            self.pending.pop(move_id, None)

    def _check_done(self) -> None:
        """Record every move whose resulting update has reached every client."""
        stats = self.run.stats
        for pending in list(self.pending.values()):
            target = pending.target
            if target is None or min(self.latest) < target:
                continue
            # Each client's first update at or after the move's version (they come in order).
            last = max(next(t for v, t in arrivals if v >= target) for arrivals in self.arrivals)
            del self.pending[pending.move_id]
            if stats.in_window(pending.sent):
                stats.latencies.append(last - pending.sent)
                stats.sent.append(pending.sent)

    def watch(self, now: float) -> None:
        """Time out a move in flight, or notice a table where nothing happens any more."""
        run = self.run
        for pending in list(self.pending.values()):
            if now - pending.sent > run.timeout:
                target = pending.target
                got = 0 if target is None else sum(1 for v in self.latest if v >= target)
                run.stats.error(
                    "timeout",
                    f"{self.name}: move {pending.move_id} of client {pending.mover} made at "
                    f"version {pending.base}: no complete answer after {run.timeout:g} s "
                    f"(result version {target}, update reached {got} of "
                    f"{len(self.clients)} clients)",
                )
                del self.pending[pending.move_id]
                self.last_progress = now
        if (
            run.sending
            and self.started
            and not self.pending
            and now - self.last_progress > run.timeout + run.think
        ):
            run.stats.error(
                "stalled",
                f"{self.name}: nothing happened for {now - self.last_progress:.1f} s "
                f"at version {self.version}",
            )
            self.last_progress = now


class _Client:
    def __init__(self, table: _Table, index: int, rng: random.Random) -> None:
        self.table = table
        self.run = table.run
        self.index = index
        self.rng = rng
        self.token = ""
        self.ws: ClientConnection | None = None
        self.receiver: asyncio.Task[None] | None = None
        self.acted_version = -1  # the newest version this client moved at
        self.readied: Any = None  # the game it last asked a rematch after
        self.last_state: dict[str, Any] | None = None  # the newest table state received
        self.moves = 0

    @property
    def name(self) -> str:
        return f"{self.table.name} client {self.index}"

    async def connect(self) -> bool:
        run = self.run
        try:
            ws = await connect(
                f"{run.ws_url}/ws/tables/{self.table.id}",
                max_size=MAX_FRAME_BYTES,
                ping_interval=None,
                proxy=None,
                compression="deflate" if run.compression else None,
                open_timeout=run.timeout,
                close_timeout=2,
            )
        except Exception as exc:  # refused, timed out, rejected handshake, …
            run.stats.error(
                "connect", f"{self.name}: WebSocket connect failed: {type(exc).__name__}: {exc}"
            )
            return False
        self.ws = ws
        hello = {"v": 1, "type": "hello", "token": self.token, "last_version": None}
        try:
            await ws.send(json.dumps(hello))
            async with asyncio.timeout(run.timeout):
                while True:
                    message = json.loads(await ws.recv())
                    kind = message.get("type")
                    if kind == "welcome":
                        break
                    if kind != "update":
                        raise ValueError(f"expected welcome, got {json.dumps(message)[:300]}")
        except (TimeoutError, ConnectionClosed, ValueError) as exc:
            what = "no welcome in time" if isinstance(exc, TimeoutError) else str(exc)
            run.stats.error("hello", f"{self.name}: hello failed: {type(exc).__name__}: {what}")
            await ws.close()
            return False
        self.receiver = asyncio.create_task(self.receive(ws))
        return True

    async def receive(self, ws: ClientConnection) -> None:
        run = self.run
        try:
            async for raw in ws:
                arrival = time.perf_counter()
                self.on_message(raw, arrival)
        except ConnectionClosed as exc:
            if not run.closing:
                run.stats.error("closed", f"{self.name}: connection closed: {exc}")
            return
        except Exception as exc:  # a malformed frame or a bug here: count it, do not hide it
            run.stats.error("client", f"{self.name}: {type(exc).__name__}: {exc}")
            return
        if not run.closing:
            run.stats.error(
                "closed",
                f"{self.name}: connection closed by the server "
                f"(code {ws.close_code}, reason {ws.close_reason!r})",
            )

    def on_message(self, raw: str | bytes, arrival: float) -> None:
        run = self.run
        message = json.loads(raw)
        kind = message.get("type")
        if kind == "update":
            stats = run.stats
            if stats.in_window(arrival):
                stats.updates += 1
            self.table.on_update(self.index, message["version"], arrival)
            self.last_state = message["table"]
            self.act(self.last_state)
        elif kind == "result":
            self.table.on_result(message.get("id"), message.get("version"))
        elif kind == "error":
            code = message.get("code")
            run.stats.error(
                str(code),
                f"{self.name}: error {code}: {message.get('message')} (move {message.get('id')!r})",
            )
            self.table.on_move_error(self.index, message.get("id"))
            state = message.get("table")
            if isinstance(state, dict):
                self.act(state)
            elif code == "rate_limited" and self.last_state is not None:
                # Try the refused move again a little later, so that the table goes on.
                self.acted_version = -1
                run.spawn(self.act_later(RETRY_SECONDS, self.last_state))
        elif kind == "welcome":
            self.last_state = message["table"]
            self.act(self.last_state)
        elif kind != "pong":
            run.stats.error("protocol", f"{self.name}: unexpected message {str(raw)[:200]}")

    def act(self, state: dict[str, Any]) -> None:
        """Move or ask for a rematch if this table state calls for it."""
        run = self.run
        if not run.sending:
            return
        version = state["version"]
        game = state.get("game")
        if state.get("state") == "over" or (game is not None and game.get("over")):
            # Every player says ready once per game (the next starts when all of them have).
            game_id = state.get("game_id")
            done = game_id if game_id is not None else ("version", version)
            if done != self.readied:
                self.readied = done
                if done not in self.table.finished:
                    self.table.finished.add(done)
                    if run.stats.in_window(time.perf_counter()):
                        run.stats.games_finished += 1
                run.spawn(self.rematch())
            return
        if game is None or not game.get("legal_decisions") or version <= self.acted_version:
            return
        self.acted_version = version
        run.spawn(self.move(version, self.choose(game)))

    async def act_later(self, delay: float, state: dict[str, Any]) -> None:
        await asyncio.sleep(delay)
        if state is self.last_state:
            self.act(state)

    def choose(self, game: dict[str, Any]) -> str:
        """Hit below 25, else stay; any other choice at random."""
        legal: list[str] = game["legal_decisions"]
        if "hit" in legal and "stay" in legal:
            viewer = game.get("viewer")
            number_sum = game["players"][viewer]["number_sum"] if viewer is not None else 0
            return "hit" if number_sum < 25 else "stay"
        return self.rng.choice(legal)

    async def move(self, version: int, decision: str) -> None:
        run = self.run
        if run.think > 0:
            jitter = run.think_jitter * (2 * self.rng.random() - 1)
            await asyncio.sleep(run.think * (1 + jitter))
        ws = self.ws
        if not run.sending or ws is None:
            return
        self.moves += 1
        move_id = f"{self.index}.{self.moves}"
        frame = json.dumps(
            {"v": 1, "type": "move", "id": move_id, "version": version, "decision": decision}
        )
        self.table.begin_move(move_id, self.index, version, time.perf_counter())
        try:
            await ws.send(frame)
        except ConnectionClosed as exc:
            run.stats.error("closed", f"{self.name}: sending move {move_id}: {exc}")
            self.table.on_move_error(self.index, move_id)

    async def rematch(self) -> None:
        table = self.table
        table.last_progress = time.perf_counter()
        await self.run.post(f"/api/tables/{table.id}/rematch", None, self.token)
        table.last_progress = time.perf_counter()

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.receiver is not None:
            with contextlib.suppress(BaseException):
                await self.receiver


# --- the load test -----------------------------------------------------------------------------


def _process_cpu_seconds(pid: int) -> float | None:
    """utime + stime of a process from /proc, None where unreadable."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    # fields[0] is the state (field 3); utime and stime are fields 14 and 15.
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _machine_busy_seconds() -> float | None:
    """CPU seconds every core of the machine spent busy (not idle, not waiting) since boot."""
    try:
        with open("/proc/stat") as stat:
            numbers = [int(n) for n in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal (guest time is already in user)
    busy = sum(numbers[:8]) - numbers[3] - numbers[4]
    return busy / os.sysconf("SC_CLK_TCK")


def _load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


async def _watch(tables: list[_Table], stop: asyncio.Event) -> None:
    while not stop.is_set():
        now = time.perf_counter()
        for table in tables:
            table.watch(now)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.25)


async def _measure_lag(stats: _Stats, stop: asyncio.Event) -> None:
    interval = 0.05
    while not stop.is_set():
        before = time.perf_counter()
        await asyncio.sleep(interval)
        after = time.perf_counter()
        if stats.in_window(after):
            stats.lags.append(max(0.0, after - before - interval))


async def _sample_cpu(stats: _Stats, server_pid: int | None, stop: asyncio.Event) -> None:
    """The server's and the machine's CPU use, second by second through the window."""

    def sample() -> tuple[float, float | None, float | None]:
        server = None if server_pid is None else _process_cpu_seconds(server_pid)
        return time.perf_counter(), server, _machine_busy_seconds()

    def percent(now: float | None, then: float | None, seconds: float) -> float | None:
        return None if now is None or then is None else (now - then) / seconds * 100

    while stats.window_start == math.inf and not stop.is_set():
        await asyncio.sleep(0.05)
    await asyncio.sleep(max(0.0, stats.window_start - time.perf_counter()))
    last = sample()
    while not stop.is_set() and last[0] < stats.window_end - 0.5:
        await asyncio.sleep(max(0.0, min(last[0] + 1, stats.window_end) - time.perf_counter()))
        now = sample()
        seconds = now[0] - last[0]
        stats.cpu.append((percent(now[1], last[1], seconds), percent(now[2], last[2], seconds)))
        last = now


async def load_test(
    url: str,
    tables: int,
    clients: int,
    duration: float,
    think: float,
    *,
    warmup: float = 0.0,
    think_jitter: float = 0.5,
    seed: int | None = None,
    timeout: float = 10.0,
    setup_concurrency: int = 20,
    compression: bool = True,
    rules: dict[str, Any] | None = None,
    server_pid: int | None = None,
    on_window: Callable[[str], None] | None = None,
) -> LoadResult:
    """Play ``tables`` tables of ``clients`` WebSocket clients each against the server at ``url``
    for ``warmup + duration`` seconds; figures cover the last ``duration`` seconds only.

    ``think`` is the seconds a client waits before sending its decision (human thinking time;
    0 = flat out); each wait is drawn uniformly within ``think × (1 ± think_jitter)``, so that
    tables do not move in lockstep (all of them at once every ``think`` seconds). ``timeout``
    bounds every call, and a move's complete answer. ``setup_concurrency`` tables are created,
    joined and connected at a time. ``server_pid`` (the server's process, on this machine) lets
    the server's CPU use be measured. ``on_window`` is called with ``"start"`` and ``"end"``
    at the edges of the measured window, so that a caller can measure other processes over
    the same seconds (flip7.client.clusterbench).
    """
    if tables < 1 or clients < 1 or duration <= 0 or think < 0 or warmup < 0:
        raise ValueError("tables and clients must be positive, duration > 0, think/warmup >= 0")
    if not 0 <= think_jitter <= 1:
        raise ValueError("think_jitter is a fraction from 0 to 1")
    url = url.rstrip("/")
    limits = httpx.Limits(
        max_connections=max(setup_concurrency, 10) * 2,
        max_keepalive_connections=max(setup_concurrency, 10) * 2,
    )
    async with httpx.AsyncClient(
        base_url=url, limits=limits, timeout=timeout, trust_env=False
    ) as http:
        run = _Run(url, http, think, think_jitter, timeout, compression, rules)
        stats = run.stats
        everything = [_Table(run, i, clients, seed) for i in range(tables)]
        stop = asyncio.Event()
        watcher = asyncio.create_task(_watch(everything, stop))
        lag = asyncio.create_task(_measure_lag(stats, stop))
        sampler = asyncio.create_task(_sample_cpu(stats, server_pid, stop))
        limit = asyncio.Semaphore(max(1, setup_concurrency))

        async def bounded(table: _Table, step: str) -> bool:
            async with limit:
                if step == "setup":
                    return await table.setup()
                await table.start()
                return table.started

        try:
            setup_began = time.perf_counter()
            ready = await asyncio.gather(*(bounded(t, "setup") for t in everything))
            playing = [t for t, ok in zip(everything, ready, strict=True) if ok]
            setup_seconds = time.perf_counter() - setup_began

            # The connections live until the end: keep the collector from scanning them over
            # and over (its pauses would count as latency).
            gc.collect()
            gc.freeze()
            run.sending = True
            began = time.perf_counter()
            stats.window_start = began + warmup
            stats.window_end = stats.window_start + duration
            await asyncio.gather(*(bounded(t, "start") for t in playing))

            await asyncio.sleep(max(0.0, stats.window_start - time.perf_counter()))
            if on_window is not None:
                on_window("start")
            cpu_before = time.process_time()
            machine_before = _machine_busy_seconds()
            server_before = None if server_pid is None else _process_cpu_seconds(server_pid)
            window_began = time.perf_counter()
            await asyncio.sleep(max(0.0, stats.window_end - time.perf_counter()))
            window = time.perf_counter() - window_began
            client_cpu = (time.process_time() - cpu_before) / window * 100
            machine_after = _machine_busy_seconds()
            machine_cpu = (
                None
                if machine_before is None or machine_after is None
                else (machine_after - machine_before) / window * 100
            )
            server_after = None if server_pid is None else _process_cpu_seconds(server_pid)
            server_cpu = (
                None
                if server_before is None or server_after is None
                else (server_after - server_before) / window * 100
            )
            if on_window is not None:
                on_window("end")

            # No new moves; let the ones in flight finish (the watcher times them out).
            run.sending = False
            give_up = time.perf_counter() + timeout + 1
            while any(t.pending for t in playing) and time.perf_counter() < give_up:
                await asyncio.sleep(0.05)
        finally:
            gc.unfreeze()
            run.closing = True
            stop.set()
            await asyncio.gather(watcher, lag, sampler, return_exceptions=True)
            for task in list(run.tasks):
                task.cancel()
            await asyncio.gather(*run.tasks, return_exceptions=True)
            await asyncio.gather(
                *(c.close() for t in everything for c in t.clients), return_exceptions=True
            )

    latencies = [1000 * s for s in stats.latencies]
    seconds: list[list[float]] = [[] for _ in range(max(1, math.ceil(duration)))]
    for sent, latency in zip(stats.sent, latencies, strict=True):
        seconds[min(len(seconds) - 1, int(sent - stats.window_start))].append(latency)
    timeline = tuple(
        Second(
            second=i,
            moves=len(values),
            p50_ms=_percentile(values, 50) if values else 0.0,
            p99_ms=_percentile(values, 99) if values else 0.0,
            max_ms=max(values) if values else 0.0,
            server_cpu_percent=stats.cpu[i][0] if i < len(stats.cpu) else None,
            machine_cpu_percent=stats.cpu[i][1] if i < len(stats.cpu) else None,
        )
        for i, values in enumerate(seconds)
    )
    return LoadResult(
        url=url,
        tables=len(playing),
        clients=clients,
        think=think,
        think_jitter=think_jitter,
        warmup=warmup,
        duration=duration,
        setup_seconds=setup_seconds,
        moves=len(latencies),
        moves_per_second=len(latencies) / duration,
        updates=stats.updates,
        p50_ms=_percentile(latencies, 50) if latencies else None,
        p90_ms=_percentile(latencies, 90) if latencies else None,
        p95_ms=_percentile(latencies, 95) if latencies else None,
        p99_ms=_percentile(latencies, 99) if latencies else None,
        max_ms=max(latencies) if latencies else None,
        mean_ms=sum(latencies) / len(latencies) if latencies else None,
        errors=stats.errors,
        error_messages=tuple(stats.messages),
        error_kinds=dict(stats.kinds),
        timeline=timeline,
        games_finished=stats.games_finished,
        client_cpu_percent=client_cpu,
        client_lag_max_ms=1000 * max(stats.lags) if stats.lags else None,
        server_cpu_percent=server_cpu,
        machine_cpu_percent=machine_cpu,
        machine_cores=os.cpu_count() or 0,
        load_average=_load_average(),
    )


# --- the server subprocess ---------------------------------------------------------------------


@dataclass(slots=True)
class ServerProcess:
    """A ``flip7 serve`` started by :func:`serve_subprocess`. Once it is stopped, ``log``
    holds everything it wrote (its log file is removed with its temporary folder)."""

    url: str
    pid: int
    log_path: Path
    log: str | None = None

    def log_text(self) -> str:
        if self.log is not None:
            return self.log
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_errors(self) -> tuple[str, ...]:
        """The log's lines that report an error or a traceback (JSON lines or plain text)."""
        return self._lines(('"level":"error"', '"level":"critical"', "Traceback", "ERROR"))

    def log_warnings(self) -> tuple[str, ...]:
        return self._lines(('"level":"warning"', "WARNING"))

    def _lines(self, marks: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(
            line.strip()[:500]
            for line in self.log_text().splitlines()
            if any(mark in line for mark in marks)
        )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


@contextlib.contextmanager
def serve_subprocess(
    *,
    bot_delay: float = 0.0,
    extra_args: list[str] | tuple[str, ...] = (),
    startup_timeout: float = 30.0,
    database: Path | None = None,
) -> Iterator[ServerProcess]:
    """Run ``flip7 serve`` as a separate process on a free loopback port with a fresh SQLite
    file (in a temporary folder, removed afterwards, unless ``database`` is given); wait for
    ``GET /api/health``; stop it on leaving."""
    import flip7

    src = str(Path(flip7.__file__).resolve().parent.parent)
    with tempfile.TemporaryDirectory(prefix="flip7-loadtest-") as folder:
        db = database if database is not None else Path(folder) / "loadtest.db"
        log = Path(folder) / "server.log"
        port = _free_port()
        command = [
            sys.executable,
            "-c",
            "from flip7.cli import main; raise SystemExit(main())",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--db",
            str(db),
            "--bot-delay",
            f"{bot_delay:g}",
            *extra_args,
        ]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
        env.pop("FLIP7_DATABASE_URL", None)
        with log.open("wb") as out:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=folder,
                start_new_session=True,  # a Ctrl-C at the terminal is ours to pass on
            )
        server = ServerProcess(f"http://127.0.0.1:{port}", process.pid, log)
        try:
            _wait_healthy(server.url, process, log, startup_timeout)
            yield server
        finally:
            _stop(process)
            server.log = server.log_text()


def _wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path, limit: float) -> None:
    deadline = time.monotonic() + limit
    last = "no answer"
    with httpx.Client(timeout=2.0, trust_env=False) as http:
        while time.monotonic() < deadline:
            code = process.poll()
            if code is not None:
                raise ServerStartError(f"flip7 serve exited with status {code}:\n{_tail(log)}")
            try:
                response = http.get(f"{url}/api/health")
                if response.status_code == 200:
                    return
                last = f"HTTP {response.status_code}: {response.text[:200]}"
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}"
            time.sleep(0.1)
    raise ServerStartError(
        f"flip7 serve did not answer GET /api/health in {limit:g} s ({last}):\n{_tail(log)}"
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    for sig, wait in ((signal.SIGINT, 10.0), (signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(sig)
        try:
            process.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _raise_open_files(needed: int) -> None:
    """Raise the soft limit on open files to at least ``needed`` (and 4096) where allowed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(needed, MIN_OPEN_FILES)
    if soft != resource.RLIM_INFINITY and soft < want:
        if hard != resource.RLIM_INFINITY:
            want = min(want, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


# --- the command line --------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not value >= 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, not {text}")
    return value


def _positive_seconds(text: str) -> float:
    value = _seconds(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    return value


def _fraction(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be from 0 to 1, not {text}")
    return value


def _client_count(text: str) -> int:
    value = int(text)
    if not 2 <= value <= 18:
        raise argparse.ArgumentTypeError(f"a table has 2 to 18 seats, not {value}")
    return value


def _rules(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


def add_server_arg(parser: argparse.ArgumentParser, example: str) -> None:
    """``--server-arg`` (repeatable, into ``args.server_arg``): the extra arguments of the
    ``flip7 serve`` subprocess, ``example`` shown in its help."""
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an extra argument for the `flip7 serve` subprocess, written with '=' "
        f"(--server-arg={example}); repeatable",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 loadtest``."""
    parser.add_argument(
        "--url",
        help="an already running server (http://host:port); without it a `flip7 serve` "
        "subprocess is started on a free loopback port with a fresh SQLite file",
    )
    parser.add_argument(
        "--tables", type=_positive_int, default=200, metavar="N", help="tables (200)"
    )
    parser.add_argument(
        "--clients",
        type=_client_count,
        default=4,
        metavar="N",
        help="WebSocket clients per table, 2 to 18 (4)",
    )
    parser.add_argument(
        "--duration",
        type=_positive_seconds,
        default=60.0,
        metavar="S",
        help="seconds measured after the warmup (60)",
    )
    parser.add_argument(
        "--think",
        type=_seconds,
        default=0.5,
        metavar="S",
        help="seconds each client waits before sending its decision; models human thinking "
        "time, 0 means flat out (0.5)",
    )
    parser.add_argument(
        "--think-jitter",
        type=_fraction,
        default=0.5,
        metavar="F",
        help="each wait is drawn uniformly from think × (1 ± F), so that the tables do not "
        "all move at the same moment; 0 = exactly think (0.5)",
    )
    parser.add_argument(
        "--warmup",
        type=_seconds,
        default=5.0,
        metavar="S",
        help="seconds of play excluded from the figures (5)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--timeline", action="store_true", help="also report moves and latency second by second"
    )
    parser.add_argument("--seed", type=int, metavar="N", help="seed of the clients' random choices")
    parser.add_argument(
        "--timeout",
        type=_positive_seconds,
        default=10.0,
        metavar="S",
        help="seconds for any call or a move's complete answer (10)",
    )
    parser.add_argument(
        "--setup-concurrency",
        type=_positive_int,
        default=20,
        metavar="N",
        help="tables created, joined and connected at a time (20)",
    )
    parser.add_argument(
        "--rules",
        type=_rules,
        metavar="JSON",
        help="rule options of every table as JSON, e.g. '{\"brutal\": true}'",
    )
    parser.add_argument(
        "--no-compression",
        dest="compression",
        action="store_false",
        help="do not offer permessage-deflate (browsers offer it)",
    )
    parser.add_argument(
        "--server-pid",
        type=int,
        metavar="PID",
        help="with --url: the server's process id, to measure its CPU",
    )
    add_server_arg(parser, "--log-level=warning")
    parser.add_argument(
        "--max-p99",
        type=float,
        metavar="MS",
        help="also fail (exit 1) when the p99 latency is above this many milliseconds",
    )
    parser.add_argument(
        "--loop",
        choices=("auto", "asyncio", "uvloop"),
        default="auto",
        help="the clients' event loop; auto = uvloop when installed",
    )


def _loop_factory(name: str) -> Any:
    if name == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if name == "uvloop":
            raise
        return None
    return uvloop.new_event_loop


def _own_server_limits(connections: int) -> list[str]:
    """``--limit`` options for the server a load test starts: every client comes from
    127.0.0.1 and stands for many people, so the budgets a server keeps per address
    (which stop one stranger from exhausting it) are raised to fit the whole load.

    >>> _own_server_limits(800)[:2]
    ['--limit', 'tables_burst=800']
    """
    tables = max(connections, 20)
    sockets = max(2 * connections + 256, 256)
    limits = {
        "tables_burst": tables, "tables_per_minute": 60 * tables,
        "joins_burst": sockets, "joins_per_minute": 60 * sockets,
        "connections_per_address": sockets, "open_connections_per_address": 2 * sockets,
        "handshakes_burst": sockets, "handshakes_per_minute": 60 * sockets,
        "frames_burst_per_address": 50 * sockets,
        "frames_per_second_per_address": 50 * sockets,
    }
    return [part for name, value in limits.items() for part in ("--limit", f"{name}={value}")]


def run(args: argparse.Namespace) -> int:
    """``flip7 loadtest``: 0 when every move was answered without error (and p99 is within
    ``--max-p99``), 1 otherwise."""
    clients = args.clients
    if clients == 2:
        args.rules = {"allow_two_players": True, **(args.rules or {})}
    _raise_open_files(args.tables * clients + 256)
    with contextlib.ExitStack() as stack:
        url: str | None = args.url
        pid: int | None = args.server_pid
        server: ServerProcess | None = None
        if url is None:
            try:
                server = stack.enter_context(serve_subprocess(
                    extra_args=[*_own_server_limits(args.tables * clients), *args.server_arg]
                ))
            except ServerStartError as exc:
                print(f"flip7 loadtest: {exc}", file=sys.stderr)
                return 1
            url, pid = server.url, server.pid
        if not args.json:
            where = f"{url} (flip7 serve, pid {pid})" if server else url
            print(
                f"flip7 loadtest: {args.tables} tables × {clients} clients against {where}, "
                f"{args.warmup:g} s warmup + {args.duration:g} s",
                file=sys.stderr,
                flush=True,
            )
        with asyncio.Runner(loop_factory=_loop_factory(args.loop)) as runner:
            result = runner.run(
                load_test(
                    url,
                    args.tables,
                    clients,
                    args.duration,
                    args.think,
                    warmup=args.warmup,
                    think_jitter=args.think_jitter,
                    seed=args.seed,
                    timeout=args.timeout,
                    setup_concurrency=args.setup_concurrency,
                    compression=args.compression,
                    rules=args.rules,
                    server_pid=pid,
                )
            )
        if server is not None:
            stack.close()  # stop the server first, so that its log is complete
            result = replace(
                result,
                server_log_errors=server.log_errors(),
                server_log_warnings=server.log_warnings(),
            )
    print(
        json.dumps(result.to_json(), indent=2)
        if args.json
        else result.report(timeline=args.timeline)
    )
    too_slow = args.max_p99 is not None and (result.p99_ms is None or result.p99_ms > args.max_p99)
    return 0 if result.ok and not too_slow else 1


def main(argv: list[str] | None = None) -> int:
    """Run the load test on its own (``python -m flip7.client.loadtest``)."""
    parser = argparse.ArgumentParser(prog="flip7 loadtest", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
