"""The scripted players of the chaos test (tests/cluster/test_cluster_chaos.py) and what it
reads back.

:class:`Player` is one seated human as a browser tab plays: a WebSocket (through the proxy)
that reconnects on any close with exponential backoff and ``last_version``, re-sends the move
whose answer it has not had (same id, version and decision), moves after a short think on
its turn, and says ready over REST at the end screen so that the table plays on. Each table's
players come from a loopback address of their own (:func:`address`), as players at different
homes do: the proxy names it in X-Forwarded-For, and per-address limits hold per table.

Every acknowledged move is kept (:class:`Ack`); :func:`stored` reads the tables' logs back
straight from PostgreSQL and :func:`rebuild_all` replays them with the server's own code.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

import httpx
from cluster_helpers import LOOSE, Cluster
from server_helpers import choose
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

BACKOFF_FIRST, BACKOFF_CAP = 0.2, 2.0
# Answers to a move that say "nothing was applied, try again": the same move is sent again.
RETRYABLE = {"server_error", "rate_limited", "busy"}


@dataclass(frozen=True)
class Ack:
    """A move the server acknowledged: its id, the seat, the version it was made against,
    the version its result named, and when (seconds since play started)."""

    table: str
    seat: int
    id: str
    made: int
    result: int
    at: float


@dataclass
class Run:
    """What every player shares: the acknowledgements, the errors, the clock of play."""

    proxy_ws: str
    proxy_http: str
    think: tuple[float, float]
    stop: asyncio.Event
    started: float = 0.0  # time.monotonic() when play started
    wall_started: float = 0.0  # time.time() then (the servers' logs are on that clock)
    acks: list[Ack] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    retried: Counter[str] = field(default_factory=Counter)
    hellos_refused: Counter[str] = field(default_factory=Counter)
    reconnects: int = 0
    failed_handshakes: int = 0
    readies: int = 0
    # (table, seat, move id) of moves sent whose answer had not come when play stopped.
    unanswered: list[tuple[str, int, str]] = field(default_factory=list)
    players: list[Player] = field(default_factory=list)
    # Every ready call: (sent, answered, table, seat, status or 0, the answer or the error).
    readies_log: list[tuple[float, float, str, int | None, int, str]] = field(
        default_factory=list)

    def begin(self) -> None:
        self.started, self.wall_started = time.monotonic(), time.time()

    def now(self) -> float:
        return time.monotonic() - self.started

    def error(self, code: str, sample: str) -> None:
        self.errors[code] += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(sample)


class Refused(Exception):
    """The server answered a hello with something else than a welcome."""


def address(table_index: int) -> str:
    """The loopback address of table ``table_index``'s players (127.0.1.1...)."""
    return f"127.0.1.{table_index + 1}"


class Player:
    """One seated human: a WebSocket through the proxy that reconnects on any close."""

    def __init__(self, run: Run, index: int, table_id: str, token: str, rng: random.Random,
                 http: httpx.AsyncClient, via: str | None = None) -> None:  # fmt: skip
        self.run = run
        # The WebSocket address it connects to: the proxy's, or one process's (``via``).
        self.via = run.proxy_ws if via is None else via
        self.index = index  # the table's number in the test
        self.table_id = table_id
        self.token = token
        self.rng = rng
        self.http = http  # the table's REST client (from the table's address)
        self.seat: int | None = None
        self.state: dict[str, Any] = {}  # the newest TableState
        self.version = -1  # the newest version seen (updates, results, missed changes)
        self.count = 0  # moves made, for the ids
        self.pending: dict[str, Any] | None = None  # a move sent whose answer has not come
        self.readied: set[int] = set()  # the games after which this player said ready
        self.welcomed = asyncio.Event()
        self.problems: list[str] = []  # why sessions ended
        self.phase = "not connected yet"  # where its connection stands, since when
        self.ws: ClientConnection | None = None  # the socket of the session under way
        self._thinking: asyncio.Future[None] | None = None  # a move being thought of
        self._readying: asyncio.Future[None] | None = None  # a ready being said

    @property
    def url(self) -> str:
        return f"{self.via}/ws/tables/{self.table_id}"

    def describe(self) -> str:
        """Where this player stands (printed for a table that stopped)."""
        game = self.state.get("game") or {}
        seats = [(s["kind"], s.get("connected"), s.get("ready"), s.get("gone"))
                 for s in self.state.get("seats", []) if s]  # fmt: skip
        return (f"seat {self.seat}: saw version {self.version}; state {self.state.get('state')!r}"
                f" at version {self.state.get('version')}, game {self.state.get('game_number')}"
                f", to decide {game.get('to_decide')}, legal {game.get('legal_decisions')}; "
                f"pending {self.pending}; readied after games {sorted(self.readied)}; seats "
                f"(kind, connected, ready, gone) {seats}; {self.phase}; last problems "
                f"{self.problems[-3:]}")

    @staticmethod
    def _port(ws: ClientConnection) -> str:
        """The socket's local port: the proxy's sessions say which process it reached."""
        local = ws.local_address
        return f"from port {local[1]}" if local else "port unknown"

    def absorb(self, table: dict[str, Any] | None, version: int | None = None) -> None:
        if table is not None and table.get("version", -1) >= self.state.get("version", -1):
            self.state = table
        for v in (version, None if table is None else table.get("version")):
            if v is not None:
                self.version = max(self.version, v)

    # ---- the connection

    async def play(self) -> None:
        """Connect, play, and on any close connect again, until the run stops."""
        backoff = BACKOFF_FIRST
        while not self.run.stop.is_set():
            self.phase = f"connecting since {self.run.now():.2f}"
            try:
                async with connect(self.url, open_timeout=5, max_size=2**22, close_timeout=1,
                                   local_addr=(address(self.index), 0)) as ws:  # fmt: skip
                    backoff = BACKOFF_FIRST  # as the browser's: from the first step once open
                    await self._session(ws)
            except (InvalidHandshake, OSError, TimeoutError) as exc:  # a 503 too
                self.run.failed_handshakes += 1
                self.problems.append(f"{self.run.now():.2f} {exc!r}")
            except (ConnectionClosed, Refused) as exc:
                self.problems.append(f"{self.run.now():.2f} {exc!r}")
            finally:
                self.ws = None
                if self._thinking is not None:
                    self._thinking.cancel()
                    self._thinking = None
            if self.run.stop.is_set():
                break
            self.run.reconnects += 1
            await asyncio.sleep(backoff * self.rng.uniform(0.8, 1.2))
            backoff = min(BACKOFF_CAP, backoff * 2)
        if self._readying is not None:
            self._readying.cancel()
        if self.pending is not None:
            self.run.unanswered.append((self.table_id, self.seat or 0, self.pending["id"]))

    async def _session(self, ws: ClientConnection) -> None:
        last = self.version if self.version >= 0 else None
        await ws.send(json.dumps({"v": 1, "type": "hello", "token": self.token,
                                  "last_version": last}))  # fmt: skip
        self.phase = f"hello sent at {self.run.now():.2f} ({self._port(ws)})"
        welcome = json.loads(await ws.recv())
        if welcome["type"] != "welcome":  # refused (busy while the table moves...): again
            self.run.hellos_refused[welcome.get("code", welcome["type"])] += 1
            raise Refused(welcome)
        self.seat = welcome["seat"]
        self.absorb(welcome["table"])
        for missed in welcome.get("missed") or []:
            self.absorb(None, missed["version"])
        self.welcomed.set()
        self.phase = f"welcomed at {self.run.now():.2f} ({self._port(ws)})"
        self.ws = ws
        if self.pending is not None:  # its answer never came: ask again, the same move
            await ws.send(json.dumps(self.pending))
        self._next(ws)
        stopping = asyncio.ensure_future(self.run.stop.wait())
        receiving: asyncio.Future[Any] | None = None
        try:
            while True:
                receiving = asyncio.ensure_future(ws.recv())
                done, _ = await asyncio.wait({receiving, stopping},
                                             return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
                if receiving not in done:
                    return
                await self._frame(ws, json.loads(receiving.result()))
        finally:
            for future in (stopping, receiving):
                if future is None:
                    continue
                if not future.done():
                    future.cancel()
                    with contextlib.suppress(BaseException):
                        await future
                elif not future.cancelled():
                    future.exception()  # retrieved: play() has it from result()

    async def _frame(self, ws: ClientConnection, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        move = self.pending
        if kind == "update":
            self.absorb(frame.get("table"), frame["version"])
        elif kind in ("result", "error") and move is not None and frame.get("id") == move["id"]:
            if kind == "result":
                self.version = max(self.version, frame["version"])
                self.run.acks.append(Ack(self.table_id, self.seat or 0, move["id"],
                                         move["version"], frame["version"], self.run.now()))
                self.pending = None
            elif frame["code"] in RETRYABLE:  # nothing was applied: the same move again
                self.run.retried[frame["code"]] += 1
                await asyncio.sleep(BACKOFF_FIRST)
                await ws.send(json.dumps(move))
                return
            else:
                self.run.error(frame["code"], f"{self.table_id} seat {self.seat} {move}: {frame}")
                self.pending = None
                self.absorb(frame.get("table"))
        elif kind == "error":
            self.run.error(frame["code"], f"{self.table_id} seat {self.seat}: {frame}")
        self._next(ws)

    # ---- what the player does

    def _my_turn(self) -> bool:
        """Whether the newest state says this seat decides now (a state older than a version
        already seen, e.g. before the update that follows a result, says nothing)."""
        table, game = self.state, self.state.get("game")
        return (self.pending is None and table.get("version") == self.version
                and table.get("state") == "playing" and game is not None and not game["over"]
                and game["to_decide"] == self.seat and bool(game["legal_decisions"]))  # fmt: skip

    def _next(self, ws: ClientConnection) -> None:
        """Whatever this player does next: think and move on its turn, say ready at the end.
        Called after every frame, and when a step it took is over."""
        if self.pending is not None or self.run.stop.is_set():
            return
        table = self.state
        if table.get("state") == "over" and table.get("version") == self.version:
            number = table.get("game_number", 0)
            if number not in self.readied and (self._readying is None
                                               or self._readying.done()):  # fmt: skip
                # A REST call: it goes on whatever becomes of the socket.
                self._readying = asyncio.ensure_future(self._ready(number))
                self._readying.add_done_callback(self._then)
            return
        if self._thinking is not None and not self._thinking.done():
            return  # it looks at the state again when it has thought
        if self._my_turn():
            self._thinking = asyncio.ensure_future(self._move(ws))
            self._thinking.add_done_callback(self._then)

    def _then(self, task: asyncio.Future[None]) -> None:
        """A step is over: look again at what to do (what came meanwhile, e.g. the update that
        a ready's answer races with, found this player busy)."""
        if not task.cancelled() and self.ws is not None:
            self._next(self.ws)

    async def _move(self, ws: ClientConnection) -> None:
        await asyncio.sleep(self.rng.uniform(*self.run.think))
        if not self._my_turn() or self.run.stop.is_set():
            return  # the next frame looks again
        self.count += 1
        self.pending = {"v": 1, "type": "move", "id": f"{self.index}-{self.seat}-{self.count}",
                        "version": self.state["version"],
                        "decision": choose(self.state["game"], self.rng)}  # fmt: skip
        with contextlib.suppress(ConnectionClosed):  # the session ends; it is re-sent then
            await ws.send(json.dumps(self.pending))

    async def _ready(self, number: int) -> None:
        """Ready for a rematch after game ``number``, pressed again (backoff) until the server
        answers; a 409 means the table has moved on."""
        await asyncio.sleep(self.rng.uniform(*self.run.think))
        delay = BACKOFF_FIRST
        while not self.run.stop.is_set():
            sent = self.run.now()
            try:
                r = await self.http.post(f"/api/tables/{self.table_id}/ready",
                                         json={"ready": True},
                                         headers={"Authorization": f"Bearer {self.token}"})
                self.run.readies_log.append((sent, self.run.now(), self.table_id, self.seat,
                                             r.status_code, r.text[:120]))  # fmt: skip
                if r.status_code < 500:
                    self.readied.add(number)
                    if r.status_code == 200:
                        self.run.readies += 1
                    elif r.status_code != 409:
                        self.run.error(f"ready {r.status_code}", f"{self.table_id}: {r.text}")
                    return
            except httpx.HTTPError as exc:
                self.run.readies_log.append((sent, self.run.now(), self.table_id, self.seat,
                                             0, repr(exc)))  # fmt: skip
            await asyncio.sleep(delay)
            delay = min(BACKOFF_CAP, delay * 2)


async def rest(http: httpx.AsyncClient, method: str, path: str, **kwargs: Any) -> Any:
    """A REST call through the proxy, retried on a connection error or a 5xx (each retry
    printed with its cause)."""
    delay = BACKOFF_FIRST
    for _ in range(12):
        try:
            r = await http.request(method, path, **kwargs)
            if r.status_code < 500:
                assert r.status_code in (200, 201), f"{method} {path}: {r.status_code} {r.text}"
                return r.json()
            print(f"  retry {method} {path}: {r.status_code} {r.text[:200]}", flush=True)
        except httpx.HTTPError as exc:
            print(f"  retry {method} {path}: {exc!r}", flush=True)
        await asyncio.sleep(delay)
        delay = min(BACKOFF_CAP, delay * 2)
    raise AssertionError(f"{method} {path} kept failing")


async def open_table(run: Run, index: int, seats: int, rng: random.Random,
                     clients: list[httpx.AsyncClient]) -> list[Player]:  # fmt: skip
    """Create table ``index`` through the proxy and seat ``seats`` humans (not connected
    yet); its REST client is added to ``clients``."""
    http = httpx.AsyncClient(base_url=run.proxy_http, timeout=15,
                             transport=httpx.AsyncHTTPTransport(local_address=address(index)))
    clients.append(http)
    made = await rest(http, "POST", "/api/tables",
                      json={"name": f"Chaos {index}", "player": f"P{index}-0", "seats": seats})
    table_id = made["table"]["id"]
    tokens = [made["token"]]
    for n in range(1, seats):
        # The seat's token chosen here: a join retried after a lost answer gets its seat.
        body = {"player": f"P{index}-{n}", "token": secrets.token_urlsafe(24)}
        joined = await rest(http, "POST", f"/api/tables/{table_id}/join", json=body)
        tokens.append(joined["token"])
    return [Player(run, index, table_id, t, random.Random(rng.random()), http) for t in tokens]


async def start_tables(run: Run, cluster: Cluster | None, count: int, seats: int,
                       rng: random.Random, clients: list[httpx.AsyncClient],
                       tasks: list[asyncio.Future[None]]) -> list[list[Player]]:  # fmt: skip
    """Create ``count`` tables of ``seats`` humans through ``cluster``'s proxy, connect
    every player (each one's play added to ``tasks``), start every table and the clock of
    play (:meth:`Run.begin`): each table's players. A player never welcomed within 30 s
    fails the test, with what the servers and the proxy said about its table (if they
    are a ``cluster``)."""
    setup = time.monotonic()
    gate = asyncio.Semaphore(10)

    async def one(index: int) -> list[Player]:
        async with gate:
            return await open_table(run, index, seats, rng, clients)

    tables = await asyncio.gather(*(one(i) for i in range(count)))
    run.players = [p for table in tables for p in table]
    tasks.extend(asyncio.ensure_future(p.play()) for p in run.players)
    try:
        await asyncio.wait_for(asyncio.gather(*(p.welcomed.wait() for p in run.players)),
                               30)  # fmt: skip
    except TimeoutError:
        lost = [p for p in run.players if not p.welcomed.is_set()]
        for p in lost:
            print(f"  never welcomed: {p.table_id} ({address(p.index)}) {p.describe()}")
            if cluster is None:
                continue
            for i in range(len(cluster.servers)):
                for line in log_lines(cluster.log(i), p.table_id, 0, float("inf")):
                    print(f"    process {i}: {line}")
            for line in cluster.proxy.log().splitlines():
                if p.table_id in line:
                    print(f"    haproxy: {line}")
        raise AssertionError(f"never welcomed: {[p.table_id for p in lost]}") from None

    async def start(table: list[Player]) -> None:
        async with gate:
            first = table[0]
            await rest(first.http, "POST", f"/api/tables/{first.table_id}/start",
                       headers={"Authorization": f"Bearer {first.token}"})

    run.begin()
    await asyncio.gather(*(start(t) for t in tables))
    print(f"\n  {count} tables of {seats} humans created, joined, connected and started "
          f"through the proxy in {time.monotonic() - setup:.1f} s", flush=True)
    return tables


def owners(pg_url: str) -> dict[str, tuple[str, int, int]]:
    """table id -> the node that runs it, its fencing token and the table's version now
    (``table_owner``)."""
    import psycopg

    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT o.table_id, o.owner, o.token, t.version FROM table_owner o "
                            "JOIN tables t ON t.id = o.table_id").fetchall()  # fmt: skip
    return {str(t): (str(o), int(k), int(v)) for t, o, k, v in rows}


def failover_times(at: float, owned: dict[str, int], logs: dict[str, list[Entry]],
                   acks: list[Ack]) -> dict[str, float]:  # fmt: skip
    """For each table of ``owned`` (table -> its owner's fencing token at an event, ``at``
    seconds into play: a kill, a pause...), the seconds from the event to the first move
    acknowledged at or after the first change its next owner wrote (a greater fence);
    tables that never moved on are left out."""
    took: dict[str, float] = {}
    for table_id, token in owned.items():
        taken = [e.seq for e in logs[table_id] if e.fence is not None and e.fence > token]
        after = [a.at for a in acks if a.table == table_id and taken and a.result >= taken[0]]
        if after:
            took[table_id] = min(after) - at
    return took


def lost_and_twice(logs: dict[str, list[Entry]], acks: list[Ack]) -> tuple[
    list[Ack], dict[tuple[str, int, str], int]
]:  # fmt: skip
    """The acknowledged moves not stored where their result said, and the moves (table,
    seat, move id) stored more than once, with how often."""
    at_seq: dict[tuple[str, int], tuple[int, str]] = {}
    applied: Counter[tuple[str, int, str]] = Counter()
    for table_id, log in logs.items():
        for e in log:
            if e.kind == "move" and e.data.get("id") is not None:
                at_seq[(table_id, e.seq)] = (e.data["seat"], e.data["id"])
                applied[(table_id, e.data["seat"], e.data["id"])] += 1
    lost = [a for a in acks if at_seq.get((a.table, a.result)) != (a.seat, a.id)]
    return lost, {key: n for key, n in applied.items() if n > 1}


class Entry(NamedTuple):
    """One row of ``table_log``."""

    seq: int
    kind: str
    data: dict[str, Any]
    fence: int | None


def stored(pg_url: str, table_ids: list[str]) -> tuple[
    dict[str, list[Entry]], dict[str, int], list[tuple[str, str, str, str]]
]:  # fmt: skip
    """Straight from PostgreSQL: each table's log, its ``tables.version``, and the finished
    games (table, game id, record, winners)."""
    import psycopg

    with psycopg.connect(pg_url) as conn:
        logs: dict[str, list[Entry]] = {t: [] for t in table_ids}
        for table_id, seq, kind, data, fence in conn.execute(
            "SELECT table_id, seq, kind, data, fence FROM table_log "
            "WHERE table_id = ANY(%s) ORDER BY table_id, seq", (table_ids,)
        ):  # fmt: skip
            logs[table_id].append(Entry(seq, kind, json.loads(data), fence))
        versions = dict(conn.execute("SELECT id, version FROM tables WHERE id = ANY(%s)",
                                     (table_ids,)).fetchall())  # fmt: skip
        finished = conn.execute(
            "SELECT table_id, id, record, winners FROM games WHERE table_id = ANY(%s) "
            "AND record IS NOT NULL ORDER BY table_id, number", (table_ids,)
        ).fetchall()  # fmt: skip
    return logs, versions, finished


def rebuild_all(pg_url: str, table_ids: list[str]) -> dict[str, int | str]:
    """Every table rebuilt by the server's own code (``Lobby.rebuild``: its log replayed
    through the engine, which raises on anything inconsistent): each one's version, or what
    went wrong."""
    from flip7.server.base.settings import Settings, database_url
    from flip7.server.store.database import Store
    from flip7.server.table.lobby import Lobby

    async def go() -> dict[str, int | str]:
        url = database_url(pg_url)
        store = await Store.open(url)
        try:
            lobby = Lobby(store, Settings(database_url=url))
            out: dict[str, int | str] = {}
            for table_id in table_ids:
                row = await store.load_table(table_id)
                try:
                    assert row is not None, "not stored"
                    out[table_id] = lobby.rebuild(row).version
                except Exception as exc:
                    out[table_id] = repr(exc)
            return out
        finally:
            await store.close()

    return asyncio.run(go())


@dataclass
class Checked:
    """The stored logs against what the players were told (:func:`check`): every list or
    dict empty when nothing was lost, applied twice or stored out of order."""

    entries: int  # log entries stored
    human_moves: int  # distinct (table, seat, move id) stored
    finished: int  # finished games, their records replayed
    lost: list[Ack]  # acknowledged but not stored at the version its result named
    twice: dict[tuple[str, int, str], int]  # stored more than once
    gaps: dict[str, list[int]]  # versions not contiguous
    behind: dict[str, tuple[int, int]]  # tables.version is not the last seq
    unlike: dict[str, tuple[int | str, int]]  # the rebuilt table is not at the stored version
    off_by_more: list[Ack]  # a result not one version past its move
    unknown: list[tuple[str, int, str]]  # stored moves that no client sent
    bad_records: list[tuple[str, str, str]]  # a finished game's record does not replay
    # Hellos refused as if the (open) table were not there: a browser gives up for good.
    not_there: dict[str, int]

    def print(self, unanswered: int) -> None:
        print(f"  stored: {self.entries} log entries, {self.human_moves} human moves, "
              f"{self.finished} finished games (their records replayed); moves sent but not "
              f"answered when play stopped: {unanswered}")
        print(f"  acknowledged-but-lost: {len(self.lost)}; applied-twice: {len(self.twice)}")

    def assert_sound(self) -> None:
        assert not self.lost, f"acknowledged but not stored: {self.lost[:10]}"
        assert not self.twice, f"applied more than once: {list(self.twice.items())[:10]}"
        assert not self.gaps, f"versions not contiguous: {self.gaps}"
        assert not self.behind, f"tables.version is not the last seq: {self.behind}"
        assert not self.unlike, f"the rebuilt table is not at the stored version: {self.unlike}"
        assert not self.off_by_more, f"a result not one version past its move: " \
            f"{self.off_by_more[:10]}"
        assert not self.unknown, f"moves stored that no client sent: {self.unknown[:10]}"
        assert not self.bad_records, self.bad_records
        assert not self.not_there, f"hellos refused at an open table: {self.not_there}"


def check(run: Run, table_ids: list[str], logs: dict[str, list[Entry]],
          versions: dict[str, int], rebuilt: dict[str, int | str],
          finished: list[tuple[str, str, str, str]]) -> Checked:  # fmt: skip
    """Every table's stored log (:func:`stored`, :func:`rebuild_all`) against the moves
    the players sent and were acknowledged (``run``)."""
    from flip7.engine.record import replay

    gaps = {t: [e.seq for e in log] for t, log in logs.items()
            if [e.seq for e in log] != list(range(1, len(log) + 1))}  # fmt: skip
    behind = {t: (versions[t], len(logs[t])) for t in table_ids if versions[t] != len(logs[t])}
    unlike = {t: (rebuilt[t], len(logs[t])) for t in table_ids if rebuilt[t] != len(logs[t])}
    at_seq: dict[tuple[str, int], tuple[int, str]] = {}  # (table, seq) -> (seat, move id)
    applied: Counter[tuple[str, int, str]] = Counter()  # (table, seat, move id) -> entries
    for table_id, log in logs.items():
        for e in log:
            if e.kind == "move" and e.data.get("id") is not None:
                at_seq[(table_id, e.seq)] = (e.data["seat"], e.data["id"])
                applied[(table_id, e.data["seat"], e.data["id"])] += 1
    sent = {(a.table, a.seat, a.id) for a in run.acks} | set(run.unanswered)
    bad_records = []
    for table_id, game_id, record, winners in finished:
        try:
            if list(replay(record).winners) != json.loads(winners):
                bad_records.append((table_id, game_id, "the record's winners differ"))
        except Exception as exc:
            bad_records.append((table_id, game_id, repr(exc)))
    return Checked(
        entries=sum(map(len, logs.values())), human_moves=len(applied), finished=len(finished),
        lost=[a for a in run.acks if at_seq.get((a.table, a.result)) != (a.seat, a.id)],
        twice={key: n for key, n in applied.items() if n > 1}, gaps=gaps, behind=behind,
        unlike=unlike, off_by_more=[a for a in run.acks if a.result != a.made + 1],
        unknown=[key for key in applied if key not in sent], bad_records=bad_records,
        not_there={code: n for code, n in run.hellos_refused.items()
                   if code in ("no_table", "closed", "suspended")},
    )  # fmt: skip


def log_lines(text: str, table_id: str, since: float, until: float) -> list[str]:
    """A server's log lines about ``table_id`` between two time.time() instants."""
    out = []
    for line in text.splitlines():
        if table_id not in line:
            continue
        try:
            at = datetime.fromisoformat(json.loads(line)["ts"]).timestamp()
        except (ValueError, KeyError, TypeError):
            continue
        if since <= at <= until:
            out.append(line)
    return out


@contextlib.asynccontextmanager
async def playing(run: Run) -> AsyncIterator[tuple[list[httpx.AsyncClient],
                                                   list[asyncio.Future[None]]]]:  # fmt: skip
    """The REST clients and the players' tasks of ``run``, to be filled: on the way out,
    however it ends, play stops, every task is cancelled and every client closed."""
    clients: list[httpx.AsyncClient] = []
    tasks: list[asyncio.Future[None]] = []
    try:
        yield clients, tasks
    finally:
        run.stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for http in clients:
            await http.aclose()


async def linked_tables(run: Run, owner_url: str, others: Sequence[str], count: int,
                        seats: int, name: str, rng: random.Random,
                        clients: list[httpx.AsyncClient],
                        tasks: list[asyncio.Future[None]]) -> list[str]:  # fmt: skip
    """Create ``count`` tables of ``seats`` humans at the process ``owner_url`` (which runs
    them), every player's socket and REST calls on one of ``others`` in turn (linked to
    the owner over Redis); connect them all (their play added to ``tasks``), start the
    clock of play (:meth:`Run.begin`) and every table: the tables' ids."""
    async with httpx.AsyncClient(base_url=owner_url, timeout=15) as http:
        for index in range(count):
            made = await rest(http, "POST", "/api/tables", json={
                "name": f"{name} {index}", "player": f"{name[0]}{index}-0", "seats": seats})
            table_id = made["table"]["id"]
            tokens = [made["token"]]
            for n in range(1, seats):
                joined = await rest(http, "POST", f"/api/tables/{table_id}/join",
                                    json={"player": f"{name[0]}{index}-{n}"})
                tokens.append(joined["token"])
            for n, token in enumerate(tokens):
                via = others[(index + n) % len(others)]
                client = httpx.AsyncClient(base_url=via, timeout=15)
                clients.append(client)
                run.players.append(Player(run, index, table_id, token,
                                          random.Random(rng.random()), client,
                                          via=via.replace("http", "ws")))
    tasks.extend(asyncio.ensure_future(p.play()) for p in run.players)
    await asyncio.wait_for(asyncio.gather(*(p.welcomed.wait() for p in run.players)), 30)
    run.begin()
    for p in run.players[::seats]:
        await rest(p.http, "POST", f"/api/tables/{p.table_id}/start",
                   headers={"Authorization": f"Bearer {p.token}"})
    return list(dict.fromkeys(p.table_id for p in run.players))


# Issue 32's outages of an owner (tests/cluster/test_cluster_pause.py, _partition.py): the
# tables made at process 0, each of three humans who think this long before a move.
OUTAGE_TABLES = 9
OUTAGE_SEATS = 3
OUTAGE_THINK = (0.02, 0.05)
# Longer than the lease (3 s): the others take over meanwhile.
OUTAGE_SECONDS = 6.0
# The failover target, from the outage to the next applied move at each table.
OUTAGE_TARGET = 5.0
# The servers log every change (info): a failure can then be told from their logs.
OUTAGE_SERVER_ARGS = [*LOOSE, "--log-level", "info"]


async def owner_outage(cluster: Cluster, pg_url: str, name: str, out: Callable[[], None],
                       back: Callable[[], None], seed: int) -> tuple[
    Run, float, dict[str, int], list[str]
]:  # fmt: skip
    """Issue 32's outage of an owner: OUTAGE_TABLES tables made at process 0 with every
    player on the others (:func:`linked_tables`), a few seconds of play, then ``out()`` (a
    pause, a partition...) for OUTAGE_SECONDS before ``back()``, and play on until every
    table has a move past its takeover (or long past the target). What happened, the
    outage's time (seconds of play), the tokens process 0 held then, the tables."""
    tables, seats, think, seconds = OUTAGE_TABLES, OUTAGE_SEATS, OUTAGE_THINK, OUTAGE_SECONDS
    owner_url = cluster.urls[0]
    run = Run(cluster.proxy_ws_url, cluster.proxy_url, think, asyncio.Event())
    rng = random.Random(seed)
    async with playing(run) as (clients, tasks):
        table_ids = await linked_tables(run, owner_url, cluster.urls[1:], tables, seats,
                                        name, rng, clients, tasks)  # fmt: skip
        await asyncio.sleep(3.0)
        node = str((await asyncio.to_thread(cluster.health, owner_url)).json()["node"])
        held = await asyncio.to_thread(owners, pg_url)
        owned = {t: token for t, (n, token, _) in held.items() if n == node}
        assert set(owned) == set(table_ids), (owned, table_ids)
        out()
        out_at = run.now()
        await asyncio.sleep(seconds)
        back()
        while run.now() < out_at + 30:
            await asyncio.sleep(0.25)
            logs, _, _ = await asyncio.to_thread(stored, pg_url, table_ids)
            if len(failover_times(out_at, owned, logs, run.acks)) == len(owned):
                break
        await asyncio.sleep(1.0)  # the process back's late steps, if any, are in its log
        run.stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 15)
        return run, out_at, owned, table_ids


def log_events(log: str, name: str) -> list[dict[str, Any]]:
    """The JSON log lines of one event in a server's log."""
    found = []
    for line in log.splitlines():
        start = line.find("{")
        if start >= 0 and f'"event":"{name}"' in line:
            found.append(json.loads(line[start:]))
    return found


def check_outage(pg_url: str, server_logs: list[str], run: Run, out_at: float,
                 owned: dict[str, int], table_ids: list[str], what: str,
                 followed: bool = True) -> None:  # fmt: skip
    """After :func:`owner_outage`, once every process has stopped (their shutdown writes
    nothing either): print the figures, then assert that every table of process 0 moved
    on under its new owner within OUTAGE_TARGET seconds of the outage, no acknowledged move
    was lost or applied twice, and process 0, back, dropped every table it had lost and
    wrote nothing under an old token (nor did the others, at their shutdown).
    ``followed``: process 0 still looked subscribed to Redis throughout (paused, or its
    packets dropped), so that only the database could tell the others to move their links
    ("links_moved"); one whose Redis connection closed has its links cut at once instead."""
    logs, versions, _ = stored(pg_url, table_ids)
    took = failover_times(out_at, owned, logs, run.acks)
    times = sorted(took.values())
    print(f"\n  {len(run.acks)} moves acknowledged; owner {what} at {out_at:.1f} s with "
          f"{len(owned)} tables; from then to each table's next applied move: "
          + (f"p50 {times[len(times) // 2]:.2f} s, max {times[-1]:.2f} s" if times else "none"))
    lost, twice = lost_and_twice(logs, run.acks)
    moved = sum(len(log_events(log, "links_moved")) for log in server_logs[1:])
    taken = sum(len(log_events(log, "table_taken_over")) for log in server_logs[1:])
    back = server_logs[0]
    print(f"  links moved: {moved}; takeovers: {taken}; the owner back: "
          f"{len(log_events(back, 'table_dropped'))} tables dropped, "
          f"{len(log_events(back, 'write_fenced'))} writes fenced, "
          f"{len(log_events(back, 'write_refused'))} refused before the fence")
    assert set(took) == set(owned), f"tables that never moved on: {set(owned) - set(took)}"
    assert times[-1] <= OUTAGE_TARGET, took
    assert not lost, lost[:10]
    assert not twice, list(twice.items())[:10]
    assert not run.errors, (dict(run.errors), run.error_samples)
    assert all(versions[t] == len(logs[t]) for t in table_ids)
    assert taken >= len(owned)
    assert moved >= 1 or not followed
    for log in server_logs:
        assert not log_events(log, "write_fenced"), log_events(log, "write_fenced")
    assert {e["table"] for e in log_events(back, "table_dropped")} == set(owned)
