"""The failover scenario: tables playing at a human pace across a few processes; ``kill
-9`` of the process owning the most tables, and the time from the kill to the next applied
move at each of its tables, as its clients see it (they reconnect the way the browser does,
with ``last_version``, and send an unanswered move again under the same id). Repeated a
few times."""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import statistics
import time
from dataclasses import dataclass
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed

from flip7.client.clusterbench.bench import Bench, BenchError, Layout
from flip7.client.services import Cluster, ServiceError
from flip7.client.table_client import KEEPALIVE_SECONDS, Frame, Move, TableClient, choose


@dataclass(frozen=True, slots=True)
class FailoverPlan:
    """``processes`` processes; ``tables`` tables of ``clients`` players, each deciding
    after ``think`` seconds ± ``jitter`` (a fraction); ``kills`` kills, each after ``gap``
    seconds of play. A table not back ``recover_timeout`` seconds after a kill is stuck."""

    processes: int
    tables: int
    clients: int
    think: float
    jitter: float
    kills: int
    gap: float
    seed: int | None = None
    recover_timeout: float = 30.0


def _asyncpg() -> Any:
    """asyncpg (the server extra's PostgreSQL driver), imported when needed."""
    import asyncpg  # type: ignore[import-untyped]

    return asyncpg


class Play:
    """Everything the failover scenario's clients share."""

    def __init__(
        self, url: str, http: httpx.AsyncClient, think: float, jitter: float, seed: int | None
    ) -> None:
        self.url = url
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


class FTable:
    def __init__(self, play: Play, index: int) -> None:
        self.play = play
        self.index = index
        self.id = ""
        self.seats: list[Seat] = []
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


class Seat:
    """A seated player's socket, through the proxy. On any close it reconnects the way the
    browser does (after 0.5 s × 2^attempt ± 25 %, capped at 15 s; attempts counted from the
    last open) with ``last_version``, and sends its unanswered move again (same id, version
    and decision: the server answers a retry without applying it twice)."""

    def __init__(self, table: FTable, index: int, token: str) -> None:
        self.table = table
        self.play = table.play
        self.index = index
        self.client = TableClient(self.play.url, table.id, token, compression=True,
                                  open_timeout=10, close_timeout=1)  # fmt: skip
        self.thinking = False
        self.pending: Move | None = None
        self.pending_since = 0.0
        self.moves = 0
        self.welcomed = asyncio.Event()

    async def run(self) -> None:
        play, client = self.play, self.client
        attempt = 0
        while not play.stopping:
            try:
                await client.connect()
                attempt = 0
                await client.hello(client.version)
                async for frame in client.frames():
                    self.on_frame(frame)
            except Exception as exc:  # closed, refused, a failed handshake: reconnect
                if not play.stopping and not isinstance(exc, ConnectionClosed):
                    play.error(
                        "connect",
                        f"table {self.table.id} seat {self.index}: {type(exc).__name__}: {exc}",
                    )
            finally:
                with contextlib.suppress(Exception):
                    await client.close()
            if play.stopping:
                return
            play.reconnects += 1
            delay = min(15.0, 0.5 * 2**attempt) * (0.75 + 0.5 * play.rng.random())
            attempt += 1
            await asyncio.sleep(delay)

    def on_frame(self, frame: Frame) -> None:
        now = frame.arrival
        kind = frame.type
        table = self.table
        if kind == "welcome":
            if frame.table is None:
                raise ValueError("a welcome without the table")
            for version in frame.missed:
                table.note(version, now)
            table.note(frame.table.version, now)
            self.welcomed.set()
            if self.pending is not None:
                self.play.spawn(self._send(self.pending))
            self.act()
        elif kind == "update":
            table.note(int(frame.version), now)
            self.act()
        elif kind == "result":
            if self.pending is not None and frame.move_id == self.pending.id:
                self.pending = None
                self.play.acknowledged += 1
                if isinstance(frame.version, int):
                    table.note(frame.version, now)
            self.act()
        elif kind == "error":
            code = str(frame.code)
            self.play.error(
                code,
                f"table {table.id} seat {self.index}: {code}: "
                f"{frame.data.get('message')} (move {frame.move_id!r})",
            )
            if self.pending is not None and frame.move_id in (self.pending.id, None):
                self.pending = None
                self.client.decided = -1
            self.act()

    def act(self) -> None:
        play, state = self.play, self.client.state
        if play.stopping or state is None or self.thinking or self.pending is not None:
            return
        if state.over:
            if self.client.ready_at(state) is not None:
                play.spawn(self.rematch())
            return
        game = self.client.turn(state)
        if game is not None:
            self.thinking = True
            play.spawn(self.move(state.version, choose(game, play.rng)))

    async def move(self, version: int, decision: str) -> None:
        play = self.play
        try:
            if play.think > 0:
                await asyncio.sleep(play.think * (1 + play.jitter * (2 * play.rng.random() - 1)))
        finally:
            self.thinking = False
        if play.stopping:
            return
        state = self.client.state
        if state is not None and state.version != version:
            self.act()  # the table moved on meanwhile: decide anew
            return
        self.moves += 1
        self.pending = Move(f"{self.table.id}-{self.index}-{self.moves}", version, decision)
        self.pending_since = time.perf_counter()
        await self._send(self.pending)  # unsent while disconnected: sent again once welcomed

    async def _send(self, move: Move) -> None:
        with contextlib.suppress(Exception):  # a closed socket: resent after the reconnect
            await self.client.send(move)

    async def rematch(self) -> None:
        for _ in range(20):
            if self.play.stopping:
                return
            try:
                response = await self.play.http.post(
                    f"/api/tables/{self.table.id}/rematch",
                    headers={"Authorization": f"Bearer {self.client.token}"},
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
                f"{self.pending.id} unanswered for {timeout:g} s",
            )
            self.pending = None
            self.client.decided = -1
            self.act()


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
    bench: Bench, cluster: Cluster, database: str, plan: FailoverPlan
) -> dict[str, Any]:
    clients = plan.clients
    db = await _asyncpg().connect(
        host="127.0.0.1", port=bench.pg.port, user="postgres", database=database
    )
    limits = httpx.Limits(max_connections=40, max_keepalive_connections=20,
                          keepalive_expiry=KEEPALIVE_SECONDS)
    url = cluster.proxy.url
    async with httpx.AsyncClient(base_url=url, timeout=15, limits=limits, trust_env=False) as http:
        play = Play(url, http, plan.think, plan.jitter, plan.seed)
        everything = [FTable(play, i) for i in range(plan.tables)]
        gate = asyncio.Semaphore(10)

        async def setup(table: FTable) -> None:
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
                table.seats = [Seat(table, i, t) for i, t in enumerate(tokens)]
                for seat_ in table.seats:
                    play.spawn(seat_.run())
                await asyncio.wait_for(
                    asyncio.gather(*(s.welcomed.wait() for s in table.seats)), 30
                )
                await _post(http, f"/api/tables/{table.id}/start", None, tokens[0])

        async def watchdog() -> None:
            while not play.stopping:
                now = time.perf_counter()
                for table in everything:
                    for seat in table.seats:
                        seat.watch(now, 20.0)
                await asyncio.sleep(0.5)

        began = time.monotonic()
        await asyncio.gather(*(setup(t) for t in everything))
        setup_seconds = time.monotonic() - began
        play.spawn(watchdog())
        bench.say(f"failover: {plan.tables} tables playing (setup {setup_seconds:.1f} s)")
        by_id = {t.id: t for t in everything}
        results: list[dict[str, Any]] = []
        try:
            for k in range(plan.kills):
                await asyncio.sleep(plan.gap)
                results.append(
                    await _kill_one(bench, cluster, db, by_id, k + 1, plan.recover_timeout)
                )
        finally:
            play.stopping = True
            for table in everything:
                for seat in table.seats:
                    with contextlib.suppress(Exception):
                        await seat.client.close()
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
    cluster: Cluster,
    db: Any,
    tables: dict[str, FTable],
    number: int,
    recover_timeout: float,
) -> dict[str, Any]:
    """Kill -9 the process owning the most of ``tables``; wait until each of its tables has
    a move applied by its new owner (a log entry under a higher fencing token) and a client
    has seen it; restart the process."""
    servers, proxy = cluster.servers, cluster.proxy
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
    killed = time.perf_counter()
    killed_wall = time.time()
    server.kill()
    # When HAProxy takes it out (its health check, about 2 s), measured alongside.
    down = asyncio.create_task(asyncio.to_thread(proxy.wait_status, server.name, "DOWN", 15.0))
    bench.say(f"  kill {number}: kill -9 {server.name} (pid {server.pid}, {len(held)} tables)")
    ids, tokens = list(held), [held[t] for t in held]
    applied: dict[str, tuple[int, float]] = {}  # table -> (seq, created_at as a Unix time)
    seen: dict[str, float] = {}
    deadline = killed + recover_timeout
    while len(seen) < len(held) and time.perf_counter() < deadline:
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
    with contextlib.suppress(ServiceError):
        down_for = await down
    # Back in: the same port, a new process (a new node id, owning nothing yet).
    await asyncio.to_thread(cluster.restart, victim)
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


def failover(bench: Bench, plan: FailoverPlan) -> dict[str, Any]:
    layout = Layout(str(plan.processes), plan.processes, True)
    busy = bench.wait_quiet()
    with bench.cluster(layout, plan.tables * plan.clients) as cluster:
        database = cluster.servers[0].db.rsplit("/", 1)[1]
        out = asyncio.run(_failover(bench, cluster, database, plan))
    errors = [line for s in cluster.servers for line in s.log_errors()]
    worst = max((k["last_s"] for k in out["kills"] if k["last_s"] is not None), default=None)
    stuck = sum(len(k["stuck"]) for k in out["kills"])
    return {
        "processes": plan.processes,
        "tables": plan.tables,
        "clients": plan.clients,
        "think": plan.think,
        "think_jitter": plan.jitter,
        "gap": plan.gap,
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
