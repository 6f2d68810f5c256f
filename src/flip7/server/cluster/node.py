"""Many ``flip7 serve`` processes on one PostgreSQL database and one Redis server.

Each live table is run (its engine, bots and timers) by exactly one process, its *owner*,
named by the table's row of ``table_owner`` with a fencing token raised at every takeover;
the owner's lease is its ``cluster_node`` row, which expires unless renewed every second.
Every write to the table carries the token and PostgreSQL itself refuses one that carries
another (the trigger of migration 0006), so a process that lost a table (stalled, cut off,
believed dead) can no longer change it: no split brain, no move applied twice.

Any process accepts any client. A request for a table another process owns goes to the
owner over Redis (``flip7:n:<node>``, one channel per process): REST calls as a call and its
reply, a WebSocket as its frames, both ways. The owner sees a remote socket as one more
client of the table (:class:`RemoteClient`), so presence, chat, the welcome with the whole
history and every update are exactly what a local socket gets.

Failover: a process that dies stops renewing its ``cluster_node`` row; once that expires
(``owner_seconds``, 3 s by default) the others take its tables over (the orphan sweep, or the
first request for one), each rebuilt from its change log. Sockets that were linked to the
dead process are closed (1012, service restart) and the clients reconnect with their
``last_version``. The others notice a death at once: Redis drops a process's subscription
the moment its connection closes.

Redis holds nothing that is not in PostgreSQL: when it restarts, linked sockets are closed
and reconnect, calls meanwhile are refused with a retryable 503, and no move is lost or
doubled. PostgreSQL refusing writes makes the owner drop the table from memory (its clients
reconnect), and whoever owns it next rebuilds it from what was committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from flip7.server.base.formats import dumps
from flip7.server.base.protocol import ProtocolError, parse_client_message
from flip7.server.table.errors import TableError
from flip7.server.table.lobby import Lobby
from flip7.server.table.seat import Seat
from flip7.server.table.storage import StoreError
from flip7.server.table.table import Table

__all__ = ["Bus", "Cluster", "Ownership", "RemoteClient", "of"]

log = logging.getLogger("flip7.server")

# The close code of a socket whose table moved to another process (or whose link to the
# owner broke): "service restart", which clients answer by reconnecting.
MOVED_CODE = 1012
# Seconds a forwarded call waits for the owner's answer.
CALL_TIMEOUT = 10.0
LOBBY_KEY = "flip7:lobby"


def of(lobby: Lobby) -> Cluster | None:
    """The lobby's cluster (None: one process)."""
    cluster = lobby.cluster
    assert cluster is None or isinstance(cluster, Cluster)
    return cluster


def _channel(node: str) -> str:
    return f"flip7:n:{node}"


class Ownership:
    """This process's rows of ``cluster_node`` and ``table_owner``, on PostgreSQL's clock.

    A table is run by its owner while the owner's ``cluster_node`` row is live; one
    statement a second renews a process and every table it runs."""

    def __init__(self, engine: AsyncEngine, node: str, seconds: float) -> None:
        self.engine = engine
        self.node = node
        self.seconds = seconds

    async def heartbeat(self) -> dict[str, int]:
        """Say this process is alive for the next ``seconds``; the tables it owns now, with
        their tokens (a table taken over by another process is no longer among them)."""
        async with self.engine.begin() as conn:
            await conn.execute(
                sa.text(
                    "INSERT INTO cluster_node (node, expires_at) "
                    "VALUES (:me, clock_timestamp() + make_interval(secs => :ttl)) "
                    "ON CONFLICT (node) DO UPDATE SET expires_at = EXCLUDED.expires_at"
                ),
                {"me": self.node, "ttl": self.seconds},
            )
            rows = await conn.execute(
                sa.text("SELECT table_id, token FROM table_owner WHERE owner = :me"),
                {"me": self.node},
            )
            return {str(r.table_id): int(r.token) for r in rows}

    async def leave(self) -> None:
        """A clean exit: every table this process ran may be taken over at once."""
        async with self.engine.begin() as conn:
            await conn.execute(sa.text("UPDATE table_owner SET owner = '' WHERE owner = :me"),
                               {"me": self.node})
            await conn.execute(sa.text("DELETE FROM cluster_node WHERE node = :me"),
                               {"me": self.node})

    async def claim(self, table_id: str) -> int | None:
        """Take ``table_id`` (open, and unowned, given up, its owner dead, or already this
        process's): its new fencing token, or None if a live process runs it or the table
        is closed or unknown."""
        async with self.engine.begin() as conn:
            state = (
                await conn.execute(sa.text("SELECT state FROM tables WHERE id = :t"),
                                   {"t": table_id})
            ).scalar_one_or_none()
            if state is None or state == "closed":
                return None
            token = (
                await conn.execute(
                    sa.text(
                        "INSERT INTO table_owner (table_id, owner, token) VALUES (:t, :me, 1) "
                        "ON CONFLICT (table_id) DO UPDATE SET owner = EXCLUDED.owner, "
                        "token = table_owner.token + 1 "
                        "WHERE table_owner.owner IN (EXCLUDED.owner, '') OR NOT EXISTS ("
                        "SELECT 1 FROM cluster_node n WHERE n.node = table_owner.owner "
                        "AND n.expires_at > clock_timestamp()) "
                        "RETURNING token"
                    ),
                    {"t": table_id, "me": self.node},
                )
            ).scalar_one_or_none()
        return None if token is None else int(token)

    async def claim_new(self, table_id: str) -> int:
        """Own ``table_id``, a table not yet stored (created by this process): token 1."""
        async with self.engine.begin() as conn:
            await conn.execute(
                sa.text("INSERT INTO table_owner (table_id, owner, token) VALUES (:t, :me, 1)"),
                {"t": table_id, "me": self.node},
            )
        return 1

    async def release(self, table_id: str, token: int) -> None:
        """Let another process take ``table_id`` at once (this one stops running it)."""
        async with self.engine.begin() as conn:
            await conn.execute(
                sa.text(
                    "UPDATE table_owner SET owner = '' "
                    "WHERE table_id = :t AND owner = :me AND token = :k"
                ),
                {"t": table_id, "me": self.node, "k": token},
            )

    async def owner_of(self, table_id: str) -> tuple[str, bool] | None:
        """Who runs ``table_id`` and whether that process is alive; None: nobody ever did."""
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.text(
                        "SELECT o.owner, COALESCE(n.expires_at > clock_timestamp(), false) "
                        "AS live FROM table_owner o LEFT JOIN cluster_node n "
                        "ON n.node = o.owner WHERE o.table_id = :t"
                    ),
                    {"t": table_id},
                )
            ).first()
        return None if row is None else (str(row.owner), bool(row.live))

    async def orphans(self, limit: int) -> list[str]:
        """Open tables nobody runs: never owned, given up, or their owner dead."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.text(
                    "SELECT t.id FROM tables t "
                    "LEFT JOIN table_owner o ON o.table_id = t.id "
                    "LEFT JOIN cluster_node n ON n.node = o.owner "
                    "AND n.expires_at > clock_timestamp() "
                    "WHERE t.state <> 'closed' AND n.node IS NULL "
                    "ORDER BY random() LIMIT :n"
                ),
                {"n": limit},
            )
            return [str(r.id) for r in rows]

    async def forget_dead(self, after: float = 3600.0) -> None:
        """Delete the rows of processes dead for ``after`` seconds (their tables stay
        claimable: a row-less owner is a dead one)."""
        async with self.engine.begin() as conn:
            await conn.execute(
                sa.text(
                    "DELETE FROM cluster_node "
                    "WHERE expires_at < clock_timestamp() - make_interval(secs => :after)"
                ),
                {"after": after},
            )


class BusDown(Exception):
    """Redis does not answer: nothing can be forwarded now."""


class OwnerGone(Exception):
    """The process a call went to is gone (it may or may not have run the call)."""


class Bus:
    """This process's link to Redis: its own channel, publishing in order, liveness keys."""

    def __init__(
        self, url: str, node: str, seconds: float,
        on_message: Callable[[dict[str, Any]], None], on_down: Callable[[], None],
        on_up: Callable[[], None] = lambda: None,
    ) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        self.node = node
        self.seconds = seconds
        # No silent retries: a subscription that reconnected on its own would have lost
        # what was published meanwhile, unnoticed. A broken connection is the bus going
        # down, which closes every link (flip7.server.cluster.node.Cluster._bus_down).
        self.redis = aioredis.Redis.from_url(
            url, socket_timeout=max(seconds, 10.0), socket_connect_timeout=seconds,
            retry=Retry(NoBackoff(), 0),
        )
        self.on_message = on_message
        self.on_down = on_down
        self.on_up = on_up
        self.up = False
        self._outbox: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = asyncio.Event()

    async def start(self) -> None:
        """Subscribe to this process's channel (waits for Redis up to a few seconds, then
        goes on trying in the background)."""
        self._tasks = [
            asyncio.create_task(self._listen(), name="flip7-bus-listen"),
            asyncio.create_task(self._send(), name="flip7-bus-send"),
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._subscribed.wait(), 5.0)

    async def close(self) -> None:
        await _cancel(self._tasks)
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    def _went_down(self, exc: BaseException) -> None:
        if self.up:
            log.warning(dumps({"event": "redis_down", "error": str(exc)}))
            self.up = False
            self.on_down()

    async def _listen(self) -> None:
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(_channel(self.node))
                if not self.up:
                    log.info(dumps({"event": "redis_up", "node": self.node}))
                    self.up = True
                    self.on_up()
                self._subscribed.set()
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if not self.up:  # a publish failed: start afresh
                        raise ConnectionError("publishing to Redis failed")
                    if message is None or message.get("type") != "message":
                        continue
                    try:
                        payload = json.loads(message["data"])
                    except ValueError:  # pragma: no cover - only flip7 publishes here
                        continue
                    self.on_message(payload)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
                raise
            except Exception as exc:
                self._went_down(exc)
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
                await asyncio.sleep(0.5)

    async def _send(self) -> None:
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < 512:
                batch.append(self._outbox.get_nowait())
            if not self.up:
                continue  # dropped: the sockets they were for are being closed
            try:
                pipe = self.redis.pipeline(transaction=False)
                for channel, text in batch:
                    pipe.publish(channel, text)
                await pipe.execute()
            except Exception as exc:
                self._went_down(exc)

    def send(self, node: str, payload: dict[str, Any]) -> None:
        """Publish ``payload`` to ``node``, after everything sent before (never blocks)."""
        if not self.up:
            raise BusDown("Redis does not answer")
        self._outbox.put_nowait((_channel(node), dumps(payload)))

    async def send_now(self, node: str, payload: dict[str, Any]) -> bool:
        """Publish ``payload`` to ``node`` at once; whether ``node`` is listening. A process
        killed with ``kill -9`` stops listening the moment its connection closes, long
        before its leases expire."""
        if not self.up:
            raise BusDown("Redis does not answer")
        try:
            listening = await self.redis.publish(_channel(node), dumps(payload))
        except Exception as exc:
            self._went_down(exc)
            raise BusDown(str(exc)) from None
        return bool(listening)

    async def alive(self, nodes: set[str]) -> set[str]:
        """Which of ``nodes`` listen on their channel now."""
        if not nodes:
            return set()
        counts = await self.redis.pubsub_numsub(*(_channel(n) for n in nodes))
        prefix = len(_channel(""))
        return {
            (name.decode() if isinstance(name, bytes) else str(name))[prefix:]
            for name, count in counts
            if count
        }


class RemoteClient:
    """A socket connected to another process, as the table's owner sees it: what is pushed
    to it goes to that process, which sends it on."""

    def __init__(self, cluster: Cluster, node: str, cid: str, table_id: str) -> None:
        self.cluster = cluster
        self.node = node
        self.cid = cid
        self.table_id = table_id
        self.place: Seat | None = None
        self.table: Table | None = None
        self.closing = False
        self.spectator_name: str | None = None
        self.handle = None  # the socket's guard handle lives at its own process
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.worker: asyncio.Task[None] | None = None

    def push(self, message: str) -> None:
        if not self.closing:
            self.cluster.forward(self.node, self.cid, message)

    def close(self, code: int, reason: str = "") -> None:
        if not self.closing:
            self.closing = True
            self.cluster.close_remote(self.node, self.cid, code)

    def error(self, code: str, message: str, move_id: str | None = None,
              table: dict[str, Any] | None = None) -> None:
        self.push(dumps({"v": 1, "type": "error", "code": code, "message": message,
                         "id": move_id, "table": table}))

    def chat_refusal(self) -> str | None:
        return None  # the socket's own process held it to its chat budgets


class Linked(Protocol):
    """What a process needs of one of its sockets linked to a table another process runs."""

    closing: bool

    def push(self, message: str) -> None: ...
    def close(self, code: int, reason: str = "") -> None: ...


# A table operation as the lobby runs it (flip7.server.api.operations.run); forwarded calls
# come in through it.
Runner = Callable[[str, str, str | None, dict[str, Any]], Awaitable[dict[str, Any]]]
# Handles one frame of a socket at the table's owner (flip7.server.api.play.dispatch).
FrameHandler = Callable[[Lobby, str, Any, Any, Table | None], Awaitable[Table | None]]


class Cluster:
    """This process's part in a cluster: the tables it owns, its calls and links to the
    others, the lobby's list in Redis."""

    def __init__(
        self, lobby: Lobby, engine: AsyncEngine, redis_url: str, seconds: float
    ) -> None:
        self.lobby = lobby
        self.node = lobby.node
        self.seconds = seconds
        self.ownership = Ownership(engine, self.node, seconds)
        self.bus = Bus(redis_url, self.node, seconds, self._received, self._bus_down,
                       self._bus_up)
        # Forwarded calls waiting for their answers, and the process each went to.
        self._calls: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._called: dict[str, str] = {}
        # Links that have heard from their owner (a relayed hello is answered in time).
        self._heard: set[str] = set()
        # Other processes' sockets let go of while Redis was down: told to reconnect once
        # it is back (they would otherwise wait for frames that never come).
        self._let_go: list[tuple[str, str]] = []
        # This process's sockets linked to a table another process runs: cid -> (socket,
        # owner node).
        self.links: dict[str, tuple[Linked, str]] = {}
        # Other processes' sockets at tables this one runs: (node, cid) -> client.
        self.remote: dict[tuple[str, str], RemoteClient] = {}
        # Frames to other processes' sockets, gathered per process within one turn of the
        # event loop and sent as one message.
        self._frames: dict[str, list[tuple[str, str]]] = {}
        self._flush_soon = False
        # Tables being taken over, so that two requests do not rebuild one twice.
        self._adopting: dict[str, asyncio.Lock] = {}
        # The lobby's list: tables whose entry may have changed.
        self.dirty: set[str] = set()
        self._listed: dict[str, Table] = {}
        self._listing_cache: tuple[float, list[dict[str, Any]]] = (0.0, [])
        self._tasks: list[asyncio.Task[None]] = []
        self.runner: Runner | None = None
        self.frame_handler: FrameHandler | None = None
        self._answering: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        # Alive in the database first: a table is claimed only by a live process.
        await self.ownership.heartbeat()
        await self.bus.start()
        self._tasks = [
            asyncio.create_task(self._lease_loop(), name="flip7-owner-leases"),
            asyncio.create_task(self._sweep_loop(), name="flip7-orphan-sweep"),
            asyncio.create_task(self._listing_loop(), name="flip7-lobby-list"),
        ]

    async def close(self) -> None:
        await _cancel(self._tasks)
        # A clean exit: others may take these tables at once, not after the lease.
        with contextlib.suppress(Exception):
            await self.ownership.leave()
        for rc in list(self.remote.values()):
            rc.close(MOVED_CODE)
        await asyncio.sleep(0.05)  # let the close messages go out
        await self.bus.close()

    async def claim_new(self, table_id: str) -> int:
        """Own a table about to be created here; its fencing token."""
        return await self.ownership.claim_new(table_id)

    def problem(self) -> str | None:
        """What is wrong with Redis for health, or None."""
        return None if self.bus.up else "Redis does not answer"

    # ------------------------------------------------------------------ ownership

    async def locate(self, table_id: str) -> Table | str | None:
        """The table if this process runs it (taking it over if nobody does), else the node
        that runs it; None when it is not open (closed or unknown)."""
        table = self.lobby.tables.get(table_id)
        if table is not None:
            return table
        owner = await self.ownership.owner_of(table_id)
        if owner is not None and owner[1] and owner[0] != self.node:
            return owner[0]
        return await self.adopt(table_id)

    async def adopt(self, table_id: str) -> Table | str | None:
        """Take ``table_id`` over and rebuild it from its log (see :meth:`locate`)."""
        lock = self._adopting.setdefault(table_id, asyncio.Lock())
        try:
            async with lock:
                return await self._adopt(table_id)
        finally:
            if not lock.locked():
                self._adopting.pop(table_id, None)

    async def _adopt(self, table_id: str) -> Table | str | None:
        table = self.lobby.tables.get(table_id)
        if table is not None:
            return table
        token = await self.ownership.claim(table_id)
        if token is None:
            owner = await self.ownership.owner_of(table_id)
            if owner is not None and owner[1] and owner[0] != self.node:
                return owner[0]
            return None  # closed, or no such table
        row = await self.lobby.store.load_table(table_id, chat=self.lobby.chat_kept)
        if row is None:
            await self.ownership.release(table_id, token)
            return None
        table = self.lobby.rebuild(row)
        table.fence = token
        self.lobby.tables[table_id] = table
        self.lobby.log_event("table_taken_over", table, token=token, version=table.version)
        self.lobby.resume(table)
        self.dirty.add(table_id)
        return table

    async def drop(self, table: Table, why: str) -> None:
        """Stop running ``table`` here (the store refused its write, or its lease is lost):
        its clients reconnect, and whoever runs it next rebuilds it from its log."""
        if self.lobby.tables.get(table.id) is not table:
            return
        del self.lobby.tables[table.id]
        table.stop()
        for client in list(table.clients):
            client.close(MOVED_CODE)
        table.clients.clear()
        self.lobby.log_event("table_dropped", table, why=why, version=table.version)
        if table.fence is not None and why != "lease_lost":
            with contextlib.suppress(Exception):
                await self.ownership.release(table.id, table.fence)

    async def _lease_loop(self) -> None:
        interval = self.seconds / 3
        rounds = 0
        while True:
            await asyncio.sleep(interval)
            rounds += 1
            # Only tables run before this renewal began can have been lost: one taken
            # over or created meanwhile may not be in its answer yet.
            before = dict(self.lobby.tables)
            try:
                owned = await self.ownership.heartbeat()
            except Exception as exc:
                # Writes fail the same way and the fence refuses them once others take
                # over; keep trying.
                log.warning(dumps({"event": "owner_renewal_failed", "error": str(exc)}))
                owned = None
            if owned is not None:
                for table_id, table in before.items():
                    if (
                        self.lobby.tables.get(table_id) is table
                        and table.fence is not None
                        and owned.get(table_id) != table.fence
                    ):
                        await self.drop(table, "lease_lost")
            if rounds % 600 == 0:
                with contextlib.suppress(Exception):
                    await self.ownership.forget_dead()
            with contextlib.suppress(Exception):
                await self._check_nodes()

    async def _check_nodes(self) -> None:
        """Close links to processes that are gone, and let go of their sockets here."""
        if not self.bus.up:
            return
        nodes = {node for _, node in self.links.values()} | {node for node, _ in self.remote}
        nodes |= set(self._called.values())
        nodes.discard(self.node)
        if not nodes:
            return
        alive = await self.bus.alive(nodes)
        for ref, node in list(self._called.items()):
            future = self._calls.get(ref)
            if node not in alive and future is not None and not future.done():
                # It may or may not have run the call: say so now, not after the timeout.
                future.set_exception(OwnerGone(node))
        for cid, (socket, node) in list(self.links.items()):
            if node not in alive:
                self.links.pop(cid, None)
                socket.close(MOVED_CODE)
        for key in list(self.remote):
            if key[0] not in alive:
                self._remote_gone(key)

    async def _sweep_loop(self) -> None:
        # Staggered, so that the survivors of a crash share its tables.
        await asyncio.sleep(random.uniform(0, self.seconds / 3))
        while True:
            with contextlib.suppress(Exception):
                if self.bus.up and len(self.lobby.tables) < self.lobby.settings.max_tables:
                    for table_id in await self.ownership.orphans(20):
                        await self.adopt(table_id)
            await asyncio.sleep(random.uniform(0.3, 0.7) * self.seconds / 3)

    # ------------------------------------------------------------------ calls

    async def settle(
        self, table_id: str, contact: Callable[[str], Awaitable[bool]]
    ) -> Table | str | None:
        """Where ``table_id`` is run, as :meth:`locate` says; when another process runs it,
        ``contact(node)`` says whether that process listens. One that does not (killed) is
        waited out: once its lease expires this process takes the table over. 503
        ``unavailable`` when Redis is down or the table stays unreachable."""
        deadline = time.monotonic() + self.seconds + 2.0
        while True:
            where = await self.locate(table_id)
            if not isinstance(where, str):
                return where
            try:
                if await contact(where):
                    return where
            except BusDown:
                raise _unavailable() from None
            if time.monotonic() > deadline:
                raise _unavailable()
            await asyncio.sleep(0.2)

    async def run_at_owner(
        self, table_id: str, name: str, token: str | None, args: dict[str, Any]
    ) -> Table | dict[str, Any] | None:
        """Send table operation ``name`` to the process that runs ``table_id`` and return its
        answer (or raise the :class:`~flip7.server.table.errors.TableError` it raised); the table
        itself when this process runs it, None when it is not open."""
        ref = secrets.token_hex(8)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._calls[ref] = future
        message = {"op": "call", "ref": ref, "from": self.node, "name": name,
                   "table": table_id, "token": token, "args": args}

        async def contact(node: str) -> bool:
            self._called[ref] = node
            return await self.bus.send_now(node, message)

        try:
            where = await self.settle(table_id, contact)
            if not isinstance(where, str):
                return where
            try:
                answer = await asyncio.wait_for(future, CALL_TIMEOUT)
            except OwnerGone:
                raise TableError(
                    "unavailable", "the process running this table stopped while answering: "
                    "look at the table, then try again if it did not happen", 503,
                    retry_after=1.0,
                ) from None
            except (BusDown, TimeoutError):
                raise _unavailable() from None
        finally:
            self._calls.pop(ref, None)
            self._called.pop(ref, None)
        error = answer.get("error")
        if error is not None:
            raise TableError(error["code"], error["message"], error["status"],
                             retry_after=error.get("retry_after"))
        result: dict[str, Any] = answer["result"]
        return result

    async def _answer(self, message: dict[str, Any]) -> None:
        assert self.runner is not None
        reply: dict[str, Any] = {"op": "reply", "ref": message["ref"]}
        try:
            reply["result"] = await self.runner(
                message["table"], message["name"], message["token"], message["args"]
            )
        except TableError as exc:
            reply["error"] = {"code": exc.code, "message": exc.message, "status": exc.status,
                              "retry_after": exc.retry_after}
        except StoreError:
            reply["error"] = {"code": "server_error", "status": 503,
                              "message": "it could not be stored; try again"}
        except Exception:
            log.exception("forwarded call failed")
            reply["error"] = {"code": "server_error", "status": 500,
                              "message": "the server failed to answer; try again"}
        with contextlib.suppress(BusDown):
            self.bus.send(message["from"], reply)

    # ------------------------------------------------------------------ linked sockets

    async def link(
        self, socket: Linked, table_id: str, address: str
    ) -> tuple[Table | None, str | None]:
        """Where one of this process's sockets plays: ``(table, None)`` when this process
        runs the table, ``(None, link)`` when another does (the socket is linked to it: its
        frames carry the link's id), ``(None, None)`` when the table is not open."""
        cid = secrets.token_hex(8)
        message = {"op": "open", "from": self.node, "cid": cid, "table": table_id,
                   "address": address}

        async def contact(node: str) -> bool:
            self.links[cid] = (socket, node)
            if await self.bus.send_now(node, message):
                return True
            self.links.pop(cid, None)
            return False

        where = await self.settle(table_id, contact)
        if isinstance(where, str):
            return None, cid
        self.links.pop(cid, None)
        return where, None

    def relay(self, cid: str, text: str) -> bool:
        """Send a socket's frame (already admitted, sized and parsed here) to the owner;
        False if the link is gone (the socket is being closed)."""
        link = self.links.get(cid)
        if link is None:
            return False
        try:
            self.bus.send(link[1], {"op": "frame", "from": self.node, "cid": cid, "text": text})
        except BusDown:
            return False
        return True

    def expect_answer(self, cid: str, seconds: float) -> None:
        """A hello was relayed on link ``cid``: if the owner has not answered it within
        ``seconds`` (a frame lost on the way), the socket is closed to reconnect."""

        def check() -> None:
            link = self.links.get(cid)
            if link is not None and cid not in self._heard:
                log.warning(dumps({"event": "link_unanswered", "cid": cid, "node": link[1]}))
                self.links.pop(cid, None)
                link[0].close(MOVED_CODE)

        asyncio.get_running_loop().call_later(seconds, check)

    def unlink(self, cid: str) -> None:
        self._heard.discard(cid)
        link = self.links.pop(cid, None)
        if link is not None:
            with contextlib.suppress(BusDown):
                self.bus.send(link[1], {"op": "closed", "from": self.node, "cid": cid})

    def forward(self, node: str, cid: str, message: str) -> None:
        """Queue a frame for another process's socket ``cid``: sent with the others queued
        in this turn of the event loop, in order."""
        self._frames.setdefault(node, []).append((cid, message))
        if not self._flush_soon:
            self._flush_soon = True
            asyncio.get_running_loop().call_soon(self._flush)

    def close_remote(self, node: str, cid: str, code: int) -> None:
        """Close another process's socket ``cid``, after the frames queued for it."""
        self._flush()
        with contextlib.suppress(BusDown):
            self.bus.send(node, {"op": "close", "cid": cid, "code": code})

    def _flush(self) -> None:
        self._flush_soon = False
        frames, self._frames = self._frames, {}
        for node, items in frames.items():
            with contextlib.suppress(BusDown):
                self.bus.send(node, {"op": "frames", "frames": items})

    # ------------------------------------------------------------------ messages

    def _received(self, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == "frames":
            for cid, text in message["frames"]:
                link = self.links.get(cid)
                if link is not None:
                    self._heard.add(cid)
                    link[0].push(text)
        elif op == "reply":
            future = self._calls.get(message["ref"])
            if future is not None and not future.done():
                future.set_result(message)
        elif op == "call":
            task = asyncio.create_task(self._answer(message))
            self._answering.add(task)  # held until done: the loop keeps only weak references
            task.add_done_callback(self._answering.discard)
        elif op == "close":
            link = self.links.pop(message["cid"], None)
            if link is not None:
                link[0].close(int(message["code"]))
        elif op == "open":
            self._remote_open(message)
        elif op == "frame":
            rc = self.remote.get((message["from"], message["cid"]))
            if rc is not None:
                rc.inbox.put_nowait(message["text"])
            else:  # let go of here (Redis was down, or the table moved): reconnect
                self.close_remote(message["from"], message["cid"], MOVED_CODE)
        elif op == "closed":
            self._remote_gone((message["from"], message["cid"]))

    def _remote_open(self, message: dict[str, Any]) -> None:
        key = (message["from"], message["cid"])
        rc = RemoteClient(self, key[0], key[1], message["table"])
        self.remote[key] = rc
        rc.worker = asyncio.create_task(self._remote_worker(rc))

    def _remote_gone(self, key: tuple[str, str]) -> None:
        rc = self.remote.pop(key, None)
        if rc is not None:
            rc.closing = True
            rc.inbox.put_nowait(None)

    async def _remote_worker(self, rc: RemoteClient) -> None:
        """One remote socket's frames, one after the other, as its own process would."""
        assert self.frame_handler is not None
        lobby = self.lobby
        try:
            where = await self.locate(rc.table_id)
        except Exception:
            where = None
        if isinstance(where, str):
            rc.close(MOVED_CODE)  # it moved meanwhile: the socket reconnects to its owner
            self.remote.pop((rc.node, rc.cid), None)
            return
        if where is None:
            gone = await lobby.gone(rc.table_id)
            rc.error(gone.code, gone.message)
            rc.close(4410 if gone.code == "closed" else 4404)
            self.remote.pop((rc.node, rc.cid), None)
            return
        try:
            while True:
                text = await rc.inbox.get()
                if text is None:
                    break
                try:
                    parsed = parse_client_message(text)
                except ProtocolError:  # checked at the socket's process already
                    continue
                try:
                    rc.table = await self.frame_handler(lobby, rc.table_id, rc, parsed,
                                                        rc.table)
                except Exception:  # as a local socket's handler failing: closed, 1011
                    log.exception("a forwarded frame failed")
                    rc.close(1011)
                    break
        finally:
            self.remote.pop((rc.node, rc.cid), None)
            if rc.table is not None:
                table = lobby.tables.get(rc.table_id, rc.table)
                with contextlib.suppress(Exception):
                    await table.detach(rc)

    def _bus_up(self) -> None:
        # A restarted Redis holds nothing: write this process's part of the lobby's list.
        self.dirty |= set(self.lobby.tables)
        let_go, self._let_go = self._let_go, []
        for node, cid in let_go:
            self.close_remote(node, cid, MOVED_CODE)

    def _bus_down(self) -> None:
        """Redis went away: frames to and from other processes may be lost, so every link
        is closed (its clients reconnect) and other processes' sockets are let go."""
        for socket, _ in list(self.links.values()):
            socket.close(MOVED_CODE)
        self.links.clear()
        self._heard.clear()
        self._let_go.extend(self.remote)
        for key in list(self.remote):
            self._remote_gone(key)
        for future in self._calls.values():
            if not future.done():
                future.set_exception(BusDown("Redis went away"))

    # ------------------------------------------------------------------ the lobby's list

    def entry(self, table: Table) -> str:
        now = self.lobby.clock()
        listed = table.state != "over" and not table.deserted(now) and not table.private
        return dumps({"listed": listed, "created_at": table.created_at.isoformat(),
                      "summary": table.summary()})

    async def _listing_loop(self) -> None:
        rounds = 0
        while True:
            await asyncio.sleep(0.5)
            rounds += 1
            with contextlib.suppress(Exception):
                await self._publish_listing(full=rounds % 20 == 0)

    async def _publish_listing(self, full: bool) -> None:
        if not self.bus.up:
            return
        tables = self.lobby.tables
        ids = set(tables) if full else self.dirty & set(tables)
        self.dirty.clear()
        gone = [i for i, t in self._listed.items() if t.closed]
        for table_id, table in list(self._listed.items()):
            if tables.get(table_id) is not table:
                self._listed.pop(table_id)  # closed, or moved: its new owner writes it
        if not ids and not gone:
            return
        pipe = self.bus.redis.pipeline(transaction=False)
        for table_id in ids:
            table = tables[table_id]
            pipe.hset(LOBBY_KEY, table_id, self.entry(table))
            self._listed[table_id] = table
        if gone:
            pipe.hdel(LOBBY_KEY, *gone)
        await pipe.execute()

    async def listing(self) -> list[dict[str, Any]]:
        """The lobby's list across every process (Lobby.listing's rules), at most half a
        second old."""
        at, cached = self._listing_cache
        if time.monotonic() - at < 0.5:
            return cached
        try:
            entries = await self.bus.redis.hgetall(LOBBY_KEY)
        except Exception:
            raise _unavailable() from None
        rows = [json.loads(v) for v in entries.values()]
        rows = [r for r in rows if r["listed"]]
        rows.sort(key=lambda r: r["created_at"], reverse=True)
        answer = [r["summary"] for r in rows[:200]]
        self._listing_cache = (time.monotonic(), answer)
        return answer


async def _cancel(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel ``tasks`` and wait until each has stopped."""
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


def _unavailable() -> Exception:
    return TableError(
        "unavailable",
        "the process running this table cannot be reached right now; try again in a moment",
        503,
        retry_after=1.0,
    )
