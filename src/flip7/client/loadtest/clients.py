"""The load test's clients: every table (:class:`Table`) has seated humans
(:class:`Client`, each a :class:`~flip7.client.table_client.TableClient`) who move when
their view has legal decisions and say ready at the end of a game; the table times each
move from its sending to the moment its update has reached every client. What they share
is the :class:`Run` (its :class:`Stats`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import time
from collections import deque
from collections.abc import Coroutine, Hashable
from dataclasses import dataclass
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed

from flip7.client.loadtest.figures import MAX_ERROR_MESSAGES
from flip7.client.table_client import Frame, Move, TableClient, TableState, choose

RETRY_SECONDS = 0.5  # before a move refused with rate_limited is sent again


class Stats:
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
class Pending:
    """A move in flight. The next player may move before the mover has read its ``result``,
    so a table can have more than one."""

    move_id: str
    mover: int
    base: int  # the version the move was made against
    sent: float
    target: int | None = None  # the version after the move, from its result


class Run:
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
        self.http = http
        self.think = think
        self.think_jitter = think_jitter
        self.timeout = timeout
        self.compression = compression
        self.rules = rules
        self.stats = Stats()
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


class Table:
    def __init__(self, run: Run, index: int, clients: int, seed: int | None) -> None:
        self.run = run
        self.index = index
        self.id = ""
        self.clients = [
            Client(self, i, random.Random(None if seed is None else seed * 1000 + index * 20 + i))
            for i in range(clients)
        ]
        self.pending: dict[str, Pending] = {}
        # per client: the newest version seen, and (version, arrival) of its recent updates
        self.latest = [-1] * clients
        self.arrivals: list[deque[tuple[int, float]]] = [deque(maxlen=64) for _ in range(clients)]
        self.version = -1
        self.last_progress = time.perf_counter()
        self.finished: set[Hashable] = set()  # the games seen over
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
        self.pending[move_id] = Pending(move_id, mover, base, sent)
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


class Client:
    """A seated human: its seat's token, its socket, and what it last did."""

    def __init__(self, table: Table, index: int, rng: random.Random) -> None:
        self.table = table
        self.run = table.run
        self.index = index
        self.rng = rng
        self.token = ""
        self.socket: TableClient | None = None
        self.receiver: asyncio.Task[None] | None = None
        self.moves = 0

    @property
    def name(self) -> str:
        return f"{self.table.name} client {self.index}"

    @property
    def last_state(self) -> TableState | None:
        """The newest table state received."""
        return None if self.socket is None else self.socket.state

    async def connect(self) -> bool:
        run = self.run
        socket = self.socket = TableClient(
            run.url, self.table.id, self.token, compression=run.compression,
            open_timeout=run.timeout, close_timeout=2,
        )  # fmt: skip
        try:
            await socket.connect()
        except Exception as exc:  # refused, timed out, rejected handshake, …
            run.stats.error(
                "connect", f"{self.name}: WebSocket connect failed: {type(exc).__name__}: {exc}"
            )
            return False
        try:
            await socket.hello()
            async with asyncio.timeout(run.timeout):
                await socket.welcome()
        except (TimeoutError, ConnectionClosed, ValueError) as exc:
            what = "no welcome in time" if isinstance(exc, TimeoutError) else str(exc)
            run.stats.error("hello", f"{self.name}: hello failed: {type(exc).__name__}: {what}")
            await socket.close()
            return False
        self.receiver = asyncio.create_task(self.receive(socket))
        return True

    async def receive(self, socket: TableClient) -> None:
        run = self.run
        ws = socket.ws
        try:
            async for frame in socket.frames():
                self.on_frame(frame)
        except ConnectionClosed as exc:
            if not run.closing:
                run.stats.error("closed", f"{self.name}: connection closed: {exc}")
            return
        except Exception as exc:  # a malformed frame or a bug here: count it, do not hide it
            run.stats.error("client", f"{self.name}: {type(exc).__name__}: {exc}")
            return
        if not run.closing and ws is not None:
            run.stats.error(
                "closed",
                f"{self.name}: connection closed by the server "
                f"(code {ws.close_code}, reason {ws.close_reason!r})",
            )

    def on_frame(self, frame: Frame) -> None:
        run = self.run
        kind = frame.type
        if kind in ("update", "welcome") and frame.table is None:
            raise ValueError(f"{kind} without the table")
        if kind == "update":
            stats = run.stats
            if stats.in_window(frame.arrival):
                stats.updates += 1
            self.table.on_update(self.index, frame.version, frame.arrival)
            self.act(frame.table)
        elif kind == "result":
            self.table.on_result(frame.move_id, frame.version)
        elif kind == "error":
            code = frame.code
            run.stats.error(
                str(code),
                f"{self.name}: error {code}: {frame.data.get('message')} "
                f"(move {frame.move_id!r})",
            )
            self.table.on_move_error(self.index, frame.move_id)
            if frame.table is not None:
                self.act(frame.table)
            elif code == "rate_limited" and self.socket and self.last_state is not None:
                # Try the refused move again a little later, so that the table goes on.
                self.socket.decided = -1
                run.spawn(self.act_later(RETRY_SECONDS, self.last_state))
        elif kind == "welcome":
            self.act(frame.table)
        elif kind != "pong":
            run.stats.error(
                "protocol", f"{self.name}: unexpected message {json.dumps(frame.data)[:200]}"
            )

    def act(self, state: TableState | None) -> None:
        """Move or ask for a rematch if this table state calls for it."""
        run = self.run
        if not run.sending or state is None:
            return
        assert self.socket is not None
        if state.over:
            done = self.socket.ready_at(state)
            if done is not None:
                if done not in self.table.finished:
                    self.table.finished.add(done)
                    if run.stats.in_window(time.perf_counter()):
                        run.stats.games_finished += 1
                run.spawn(self.rematch())
            return
        game = self.socket.turn(state)
        if game is not None:
            run.spawn(self.move(state.version, self.choose(game)))

    async def act_later(self, delay: float, state: TableState) -> None:
        await asyncio.sleep(delay)
        if state is self.last_state:
            self.act(state)

    def choose(self, game: dict[str, Any]) -> str:
        return choose(game, self.rng)

    async def move(self, version: int, decision: str) -> None:
        run = self.run
        if run.think > 0:
            jitter = run.think_jitter * (2 * self.rng.random() - 1)
            await asyncio.sleep(run.think * (1 + jitter))
        socket = self.socket
        if not run.sending or socket is None:
            return
        self.moves += 1
        move = Move(f"{self.index}.{self.moves}", version, decision)
        self.table.begin_move(move.id, self.index, version, time.perf_counter())
        try:
            await socket.send(move)
        except (ConnectionClosed, ConnectionError) as exc:
            run.stats.error("closed", f"{self.name}: sending move {move.id}: {exc}")
            self.table.on_move_error(self.index, move.id)

    async def rematch(self) -> None:
        table = self.table
        table.last_progress = time.perf_counter()
        await self.run.post(f"/api/tables/{table.id}/rematch", None, self.token)
        table.last_progress = time.perf_counter()

    async def close(self) -> None:
        if self.socket is not None:
            with contextlib.suppress(Exception):
                await self.socket.close()
        if self.receiver is not None:
            with contextlib.suppress(BaseException):
                await self.receiver


async def watch(tables: list[Table], stop: asyncio.Event) -> None:
    """Time out the moves in flight and notice stalled tables, four times a second."""
    while not stop.is_set():
        now = time.perf_counter()
        for table in tables:
            table.watch(now)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.25)


async def measure_lag(stats: Stats, stop: asyncio.Event) -> None:
    """How late this process's event loop wakes up (its lag), within the window."""
    interval = 0.05
    while not stop.is_set():
        before = time.perf_counter()
        await asyncio.sleep(interval)
        after = time.perf_counter()
        if stats.in_window(after):
            stats.lags.append(max(0.0, after - before - interval))
