"""Many ``flip7 serve`` processes on one PostgreSQL database and one Redis server.

Each live table is run (its engine, bots and timers) by exactly one process, its *owner*,
named by the table's row of ``table_owner`` with a fencing token raised at every takeover;
the owner's lease is its ``cluster_node`` row, which expires unless renewed every second.
Every write to the table carries the token and PostgreSQL itself refuses one that carries
another (the trigger of migration 0006), so a process that lost a table (stalled, cut off,
believed dead) can no longer change it: no split brain, no move applied twice.

Any process accepts any client. A request for a table another process owns goes to the
owner over Redis (``flip7:n:<node>``, one channel per process, typed messages:
flip7.server.cluster.messages): a REST request as a call and its reply, a WebSocket as its
parsed messages one way and its frames the other (flip7.server.cluster.link). The owner sees
a remote socket as one more client of the table (flip7.server.cluster.remote.RemoteClient),
so presence, chat, the welcome with the whole history and every update are exactly what a
local socket gets. Who owns what: flip7.server.store.ownership.

Failover: a process that dies stops renewing its ``cluster_node`` row; once that expires
(``owner_seconds``, 3 s by default) the others take its tables over (the orphan sweep, or the
first request for one), each rebuilt from its change log. Sockets that were linked to the
dead process are closed (1012, service restart) and the clients reconnect with their
``last_version``. The others notice a death at once: Redis drops a process's subscription
the moment its connection closes. Which process runs which table, so that the tables stay
spread (a restarted process receives its share back): flip7.server.cluster.spread.

A process that hangs (SIGSTOP, a machine that stalls, a network cut towards PostgreSQL only)
keeps its Redis connection, so only the database tells that it lost its tables: every
``FOLLOW_SHARE`` of the lease each process asks who runs the tables its links lead to, and
closes with "moved" a link whose table has another owner or whose owner's lease lapsed (a
forwarded call waiting there is answered as if that owner had died); the socket reconnects
and reaches the new owner. The hung process itself counts on its lease only as long as its own
clock says it surely holds (flip7.server.cluster.failover.LeaseClock): past that, before any
change is applied or committed, it drops every table, closing their sockets with "moved", so
that when it wakes it writes nothing under an old token (the fence stays the last line). A
takeover is one claim at a time (flip7.server.store.ownership.Ownership.claim).

Redis holds nothing that is not in PostgreSQL: when it restarts, linked sockets are closed
and reconnect, calls meanwhile are refused with a retryable 503, and no move is lost or
doubled. PostgreSQL refusing writes makes the owner drop the table from memory (its clients
reconnect), and whoever owns it next rebuilds it from what was committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from flip7.core.jsontypes import JSONObject
from flip7.server.base.closecodes import CloseCode
from flip7.server.base.formats import dumps
from flip7.server.base.requests import Answer, Request
from flip7.server.base.shared import Shared, stop
from flip7.server.base.sockets import error_frame
from flip7.server.cluster.bus import Bus, BusDown, OwnerGone
from flip7.server.cluster.failover import Failovers, LeaseClock, moved_links
from flip7.server.cluster.link import Link, Session
from flip7.server.cluster.listing import Listing
from flip7.server.cluster.messages import (
    BusMessage,
    Call,
    Closed,
    Frames,
    Open,
    Refusal,
    Relay,
    Reply,
    Shut,
    Take,
)
from flip7.server.cluster.remote import Outbox, RemoteClient
from flip7.server.cluster.spread import ORPHANS_PER_SWEEP, Spread
from flip7.server.store.ownership import Ownership
from flip7.server.table.errors import TableError, not_stored
from flip7.server.table.lobby import Lobby
from flip7.server.table.storage import StoreError
from flip7.server.table.table import Client, Table

__all__ = ["Cluster", "Perform", "Sessions", "of"]

log = logging.getLogger("flip7.server")

# Seconds a forwarded call waits for the owner's answer.
CALL_TIMEOUT = 10.0
# How long a process believes, without asking the database again, that another live process
# runs a table (Cluster.locate): a crowd of sockets arriving for one table (spectators
# reconnecting again and again) asked it once each. A process that does not listen, or
# that says the table moved, is forgotten at once.
OWNER_SECONDS = 1.0
MAX_OWNERS = 10_000
# How often a request follows a table that moves (taken over while it was on its way).
HOPS = 3
# Seconds a handover waits for the table's lock (the change or the bot's thinking under
# way to end), and the tables a sweep tries to hand over at most: a busy table is tried
# again at a later sweep, and the sweep's other work waits one second at most.
QUIET_WAIT = 0.2
GIVES_PER_SWEEP = 5
# How often, in shares of the lease, this process asks whether its links still lead to the
# tables' owners (a paused owner keeps its Redis connection: only the database knows that
# its lease lapsed, or that another process took the table over).
FOLLOW_SHARE = 1 / 10
# Tables the orphan sweep takes over at once: a dead process's tables are rebuilt side by
# side (each waits on the database in turn), not one after the other.
SWEEP_AT_ONCE = 4
# Claims of one table in a takeover, while the owner the database names lapses meanwhile.
CLAIMS = 3

# Runs a request at a table this process runs (flip7.server.api.operations.perform).
Perform = Callable[[Table, Request], Awaitable[Answer]]
# Makes a socket's session at a table this process runs (flip7.server.api.play.Here).
Sessions = Callable[[str, Client], Session]


def of(lobby: Lobby) -> Cluster | None:
    """The lobby's cluster (None: one process)."""
    cluster = lobby.cluster
    assert cluster is None or isinstance(cluster, Cluster)
    return cluster


class Cluster:
    """This process's part in a cluster: the tables it owns, its calls and links to the
    others, the lobby's list in Redis. ``perform`` and ``sessions`` answer what arrives
    for a table this process runs, from its own clients or forwarded by another process."""

    def __init__(
        self, lobby: Lobby, ownership: Ownership, redis_url: str, seconds: float,
        perform: Perform, sessions: Sessions,
    ) -> None:
        self.lobby = lobby
        self.node = lobby.node
        self.seconds = seconds
        self.perform = perform
        self.sessions = sessions
        self.ownership = ownership
        self.bus = Bus(redis_url, self.node, seconds, self._received, self._bus_down,
                       self._bus_up)
        self.outbox = Outbox(self.bus)
        # Forwarded calls waiting for their answers, and the process each went to.
        self._calls: dict[str, asyncio.Future[Answer | Refusal]] = {}
        self._called: dict[str, str] = {}
        # The table of each forwarded call waiting for its answer (:meth:`_follow`).
        self._calling: dict[str, str] = {}
        # Calls from other processes being answered (held: the loop keeps only weak
        # references to tasks).
        self._answering: set[asyncio.Task[None]] = set()
        # Other processes' sockets let go of while Redis was down: told to reconnect once
        # it is back (they would otherwise wait for frames that never come).
        self._let_go: list[tuple[str, str]] = []
        # This process's sockets linked to a table another process runs, by cid.
        self.links: dict[str, Link] = {}
        # Other processes' sockets at tables this one runs: (node, cid) -> client.
        self.remote: dict[tuple[str, str], RemoteClient] = {}
        # Tables being taken over, so that two requests do not rebuild one twice.
        self._adopting: Shared[str, Table | str | None] = Shared()
        # Tables another live process runs, as the database said lately: table -> (node,
        # until) (OWNER_SECONDS), and the questions to the database under way (one per
        # table, however many sockets ask).
        self._owners: OrderedDict[str, tuple[str, float]] = OrderedDict()
        self._asking: Shared[str, tuple[str, bool] | None] = Shared()
        self.listing = Listing(lobby, self.bus)
        # The lobby's list: tables whose entry may have changed (the tables add to it).
        self.dirty = self.listing.dirty
        # Where the tables go: the live processes, the handovers (flip7.server.cluster.spread).
        self.spread = Spread(self.node, seconds, capacity=lobby.settings.max_tables)
        self._tasks: list[asyncio.Task[None]] = []
        # Until when this process surely holds its lease (it stops writing past it), and
        # what failover did here (the metrics).
        self.lease = LeaseClock(seconds)
        self.failovers = Failovers()

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        # Alive in the database first: a table is claimed only by a live process.
        began = self.lease.now()
        await self.ownership.heartbeat()
        self.lease.renewed(began)
        await self.bus.start()
        self._tasks = [
            asyncio.create_task(self._lease_loop(), name="flip7-owner-leases"),
            asyncio.create_task(self._sweep_loop(), name="flip7-orphan-sweep"),
            asyncio.create_task(self._follow_loop(), name="flip7-follow-owners"),
            asyncio.create_task(self.listing.loop(), name="flip7-lobby-list"),
        ]

    async def close(self) -> None:
        await stop(self._tasks)
        self._tasks = []
        await self._adopting.close()  # no takeover once shutting down
        await self._asking.close()
        # Out of memory before the lease is given up: a socket that closes later, or a
        # timer, finds no table here to write to (under a token another process may hold
        # by then).
        for table in list(self.lobby.tables.values()):
            self._unload(table, "shutdown")
        # A clean exit: others may take these tables at once, not after the lease.
        with contextlib.suppress(Exception):
            await self.ownership.leave()
        for rc in list(self.remote.values()):
            rc.close(CloseCode.SERVICE_RESTART)
        await asyncio.sleep(0.05)  # let the close messages go out
        await self.bus.close()

    async def claim_new(self, table_id: str) -> int:
        """Own a table about to be created here; its fencing token."""
        return await self.ownership.claim_new(table_id)

    async def placing(self) -> Callable[[str], bool]:
        """Whether a new table's id is placed at this process, by the live processes as
        the database says now (one that started a moment ago counts, else the table would
        be handed to it at once)."""
        with contextlib.suppress(Exception):  # then as seen at the last sweep
            self.spread.saw(await self.ownership.processes())
        return self.spread.here

    def problem(self) -> str | None:
        """What is wrong with Redis for health, or None."""
        return None if self.bus.up else "Redis does not answer"

    async def tables(self) -> list[JSONObject]:
        """The lobby's list across every process, at most half a second old."""
        try:
            return await self.listing.tables()
        except Exception:
            raise _unavailable() from None

    # ------------------------------------------------------------------ ownership

    async def locate(self, table_id: str, detour: bool = True) -> Table | str | None:
        """The table if this process runs it (taking it over if nobody does), else the node
        that runs it; None when it is not open (closed or unknown). With ``detour``, one
        that nobody runs is left to its place, if that is another live process (which takes
        it when the request reaches it: a request forwarded here has no ``detour``)."""
        table = self.lobby.tables.get(table_id)
        if table is not None:
            return table
        kept = self._owners.get(table_id)
        if kept is not None and time.monotonic() < kept[1]:
            return kept[0]
        owner = await self._owner_of(table_id)
        if owner is not None and owner[1] and owner[0] != self.node:
            self._owners[table_id] = (owner[0], time.monotonic() + OWNER_SECONDS)
            self._owners.move_to_end(table_id)
            while len(self._owners) > MAX_OWNERS:
                self._owners.popitem(last=False)
            return owner[0]
        if detour and owner is not None and self.bus.up:
            # An owner whose lease the database just said lapsed is no place for its table,
            # though the last sweep's view may still count it live and it may still listen
            # on Redis (paused, or cut off from the database only): a socket sent there
            # would be linked to a process that cannot run the table, until the next
            # _follow closes it again ("moved"), round after round.
            lapsed = set() if owner[1] else {owner[0]}

            async def listening(nodes: set[str]) -> set[str]:
                return await self.bus.alive(nodes - lapsed)

            with contextlib.suppress(Exception):  # Redis does not answer: taken here
                there = await self.spread.elsewhere(table_id, listening)
                if there is not None:
                    return there
        return await self.adopt(table_id)

    async def _owner_of(self, table_id: str) -> tuple[str, bool] | None:
        """Who runs ``table_id``, as the database says: one question at a time per table,
        whose answer every socket asking meanwhile shares."""
        return await self._asking.run(table_id, lambda: self.ownership.owner_of(table_id))

    def forget_owner(self, table_id: str | None = None, node: str | None = None) -> None:
        """Ask the database again where ``table_id`` (or every table of ``node``) is run: the
        process believed to run it does not listen, or says it moved."""
        if table_id is not None:
            self._owners.pop(table_id, None)
        if node is not None:
            for table in [t for t, (n, _) in self._owners.items() if n == node]:
                del self._owners[table]

    async def adopt(self, table_id: str) -> Table | str | None:
        """Take ``table_id`` over and rebuild it from its log (see :meth:`locate`): one
        takeover at a time per table, whose outcome every caller meanwhile shares, finished
        even if they give up waiting (flip7.server.base.shared)."""
        return await self._adopting.run(table_id, lambda: self._adopt(table_id))

    async def _adopt(self, table_id: str) -> Table | str | None:
        table = self.lobby.tables.get(table_id)
        if table is not None:
            return table
        if not self.lease.held:
            # Its own lease lapsed (a pause, the database away): a table claimed now would
            # look orphaned to every other process at once.
            raise _unavailable()
        token = None
        for _ in range(CLAIMS):
            try:
                token = await self.ownership.claim(table_id)
            except StoreError:
                raise _unavailable() from None
            if token is not None:
                break
            owner = await self.ownership.owner_of(table_id)
            if owner is None:
                return None  # never owned, and not claimed: closed, or no such table
            if owner[1] and owner[0] != self.node:
                return owner[0]
            # The live owner the claim saw has just lapsed (paused), or the table was
            # closed meanwhile: claimed again, not answered "there is no table" (the chaos
            # test saw a hello refused so).
        if token is None:
            return None
        row = await self.lobby.store.load_table(table_id, chat=self.lobby.chat_kept)
        if row is None:
            await self.ownership.release(table_id, token)
            return None
        table = self.lobby.rebuild(row)
        table.fence = token
        if row.state == "suspended":  # its players were away: it was out of every memory
            try:
                await self.lobby.woken(table)
            except StoreError:
                await self.ownership.release(table_id, token)
                raise not_stored("the suspended table's return") from None
        self.lobby.tables[table_id] = table
        self.failovers.takeovers += 1
        self.lobby.log_event("table_taken_over", table, token=token, version=table.version)
        self.lobby.resume(table)
        self.dirty.add(table_id)
        return table

    async def let_go(self, table: Table) -> None:
        """``table`` was suspended here (out of memory): whichever process is asked for it
        next takes it over (:meth:`adopt`), this one too."""
        self.forget_owner(table.id)
        if table.fence is not None:
            with contextlib.suppress(Exception):  # then claimable once this process is gone
                await self.ownership.release(table.id, table.fence)

    async def drop(self, table: Table, why: str) -> None:
        """Stop running ``table`` here at once, closing its sockets (here and linked from
        other processes) with "moved": they reconnect, and whoever runs it next rebuilds it
        from its log. ``why``: the store refused its write, or this process lets go of it
        (released, so that another takes it at once), or its lease is lost (not released:
        it is no longer this process's to give)."""
        if not self._unload(table, why):
            return
        if table.fence is not None and why != "lease_lost":
            with contextlib.suppress(Exception):
                await self.ownership.release(table.id, table.fence)

    def holds(self, table: Table) -> bool:
        """Whether this process may change ``table`` now: it runs it, and its lease surely
        has not lapsed (else every table is dropped at once: another process may be
        taking them over). Asked before a change is applied (flip7.server.table.table)."""
        if not self.lease.held:
            self._lapsed()
        return self.lobby.tables.get(table.id) is table

    def lease_problem(self) -> str | None:
        """Why nothing may be written now (this process's lease may have lapsed: its
        tables are dropped), or None; the store asks before each commit."""
        if self.lease.held or not self._tasks:  # not started, or stopped: no tables
            return None
        self._lapsed()
        return f"this process's lease lapsed {-self.lease.left:.1f} s ago"

    def _lapsed(self) -> None:
        if self.lobby.tables:
            self.lobby.log_event("lease_lapsed", None, tables=len(self.lobby.tables),
                                 ago=round(-self.lease.left, 3))  # fmt: skip
        for table in list(self.lobby.tables.values()):
            self._unload(table, "lease_lapsed")

    def _unload(self, table: Table, why: str) -> bool:
        """Out of memory here, its sockets closed with "moved" (the part of :meth:`drop`
        that writes nothing); whether it was run here."""
        if self.lobby.tables.get(table.id) is not table:
            return False
        del self.lobby.tables[table.id]
        table.stop()
        for client in list(table.clients):
            client.close(CloseCode.MOVED)
        table.clients.clear()
        if why in ("lease_lost", "lease_lapsed"):
            self.failovers.tables_lost += 1
        self.lobby.log_event("table_dropped", table, why=why, version=table.version)
        return True

    async def give(self, table: Table, to: str) -> bool:
        """Hand ``table`` to process ``to``, its place (flip7.server.cluster.spread), at a
        quiet moment: between two changes (its lock, within QUIET_WAIT, else not now), so
        no change is being applied and no bot is thinking. Moved in the database under a
        raised token first, so that what waits for the lock is refused (``moved``) and a
        late write of this process is fenced off; then its clients reconnect (``moved``)
        and reach ``to``, which takes it over at once."""
        if table.fence is None:
            return False
        try:
            async with asyncio.timeout(QUIET_WAIT):
                await table.lock.acquire()
        except TimeoutError:
            return False
        try:
            if self.lobby.tables.get(table.id) is not table:  # dropped or closed meanwhile
                return False
            token = await self.ownership.hand_over(table.id, table.fence, to)
            if token is None:  # no longer this process's: the lease loop drops it
                return False
            table.moved = True
            del self.lobby.tables[table.id]
            table.stop()
            self.forget_owner(table.id)
            for client in list(table.clients):
                client.close(CloseCode.MOVED)
            table.clients.clear()
            self.lobby.log_event("table_handed_over", table, to=to, token=token,
                                 version=table.version)  # fmt: skip
        finally:
            table.lock.release()
        with contextlib.suppress(BusDown):  # else it is taken when somebody asks for it
            self.bus.send(to, Take(sender=self.node, table_id=table.id))
        return True

    async def _take(self, message: Take) -> None:
        with contextlib.suppress(Exception):  # then it is taken when somebody asks for it
            if isinstance(await self.adopt(message.table_id), Table):
                self.spread.received += 1

    async def _lease_loop(self) -> None:
        interval = self.seconds / 3
        rounds = 0
        while True:
            await asyncio.sleep(interval)
            rounds += 1
            try:
                await self._renew()
            except Exception:  # the loop must outlive anything: it is the lease
                log.exception("owner lease round failed")
            if rounds % 600 == 0:
                with contextlib.suppress(Exception):
                    await self.ownership.forget_dead()
            with contextlib.suppress(Exception):
                await self._check_nodes()

    async def _renew(self) -> None:
        """Renew the lease; drop every table taken over by another process meanwhile (all
        of them if the lease lapsed before it was renewed)."""
        # Only tables run before this renewal began can have been lost: one taken
        # over or created meanwhile may not be in its answer yet.
        before = dict(self.lobby.tables)
        began = self.lease.now()
        if not self.lease.held:  # a pause, or renewals failing: drop first
            self._lapsed()
        try:
            owned = await self.ownership.heartbeat()
        except Exception as exc:
            # Writes fail the same way, and this process stops writing once its lease may
            # have lapsed (holds); keep trying.
            log.warning(dumps({"event": "owner_renewal_failed", "error": str(exc)}))
            if not self.lease.held:
                self._lapsed()
            return
        self.lease.renewed(began)
        for table_id, table in before.items():
            if (
                self.lobby.tables.get(table_id) is table
                and table.fence is not None
                and owned.get(table_id) != table.fence
            ):
                await self.drop(table, "lease_lost")

    async def _follow_loop(self) -> None:
        while True:
            await asyncio.sleep(self.seconds * FOLLOW_SHARE)
            try:
                await self._follow()
            except Exception as exc:  # the database away: links to live owners still work
                log.warning(dumps({"event": "follow_failed", "error": str(exc)}))

    async def _follow(self) -> None:
        """Close, with "moved", every link whose table another process took over, or whose
        owner's lease lapsed (it may be paused, still connected to Redis): its socket
        reconnects and reaches the table's new owner, which may be this process. A call
        waiting for such an owner's answer is answered as if that owner had died."""
        leads = {cid: (link.table_id, link.owner) for cid, link in self.links.items()}
        calls = {ref: (self._calling[ref], node) for ref, node in self._called.items()
                 if ref in self._calling}  # fmt: skip
        if not leads and not calls:
            return
        owners = await self.ownership.owners({t for t, _ in [*leads.values(), *calls.values()]})
        for ref in moved_links(calls, owners):
            future = self._calls.get(ref)
            if future is not None and not future.done():
                # It may or may not have run the call: say so now, not after the timeout.
                future.set_exception(OwnerGone(calls[ref][1]))
        moved: dict[str, str] = {}
        for cid in moved_links(leads, owners):
            link = self.links.get(cid)
            if link is None or (link.table_id, link.owner) != leads[cid]:
                continue  # closed, or made anew, meanwhile
            self.forget_owner(link.table_id)
            self.failovers.links_moved += 1
            moved[link.table_id] = link.owner
            link.moved()
        for table_id, owner in moved.items():
            now = owners.get(table_id)
            log.info(dumps({"event": "links_moved", "table": table_id, "owner": owner,
                            "to": None if now is None or not now[1] else now[0]}))

    async def _check_nodes(self) -> None:
        """Close links to processes that are gone, and let go of their sockets here."""
        if not self.bus.up:
            return
        nodes = {link.owner for link in self.links.values()} | {node for node, _ in self.remote}
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
        for link in list(self.links.values()):
            if link.owner not in alive:
                link.cut()
        for key in list(self.remote):
            if key[0] not in alive:
                self._remote_gone(key)

    async def _sweep_loop(self) -> None:
        # Staggered, so that the processes do not all ask the database at once.
        await asyncio.sleep(random.uniform(0, self.seconds / 3))
        failed = ""
        while True:
            try:
                if self.bus.up and self.lease.held:
                    await self._sweep()
                failed = ""
            except Exception as exc:  # the database or Redis: the next round tries again
                if repr(exc) != failed:  # once per kind of failure, not twice a second
                    failed = repr(exc)
                    log.warning(dumps({"event": "sweep_failed", "error": failed}))
            await asyncio.sleep(random.uniform(0.3, 0.7) * self.seconds / 3)

    async def _sweep(self) -> None:
        """Take the tables nobody runs that are placed here, and hand those run here that
        are placed elsewhere to their place (flip7.server.cluster.spread)."""
        spread = self.spread
        spread.saw(await self.ownership.processes())
        if len(self.lobby.tables) < self.lobby.settings.max_tables:
            await self._adopt_all(
                spread.orphans_here(await self.ownership.orphans(ORPHANS_PER_SWEEP)))
        misplaced = spread.misplaced(self.lobby.tables)
        if not misplaced or not spread.may_hand_over():
            return
        alive = await self.bus.alive({to for _, to in misplaced})
        random.shuffle(misplaced)  # a busy table does not hold the others up
        for table_id, to in [(t, n) for t, n in misplaced if n in alive][:GIVES_PER_SWEEP]:
            table = self.lobby.tables.get(table_id)
            if table is not None and self.lease.held and await self.give(table, to):
                spread.handed_over()
                if not spread.may_hand_over():
                    return

    async def _adopt_all(self, table_ids: list[str]) -> None:
        gate = asyncio.Semaphore(SWEEP_AT_ONCE)

        async def one(table_id: str) -> None:
            async with gate:
                if self.lease.held:
                    await self.adopt(table_id)

        await asyncio.gather(*(one(t) for t in table_ids), return_exceptions=True)

    # ------------------------------------------------------------------ requests

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
            self.forget_owner(table_id)
            if time.monotonic() > deadline:
                raise _unavailable()
            await asyncio.sleep(0.2)

    async def run(self, request: Request) -> Answer:
        """Answer ``request`` here if this process runs its table, else at the process that
        does, following the table if it moves meanwhile (409 ``moved`` from there)."""
        for _ in range(HOPS):
            try:
                where = await self._call(request)
                if where is None:
                    raise await self.lobby.gone(request.table_id)
                if isinstance(where, Answer):
                    return where
                return await self.perform(where, request)  # handed over meanwhile: moved
            except TableError as exc:
                if exc.code == "moved":
                    self.forget_owner(request.table_id)
                    continue
                raise
        raise TableError(
            "unavailable", "this table is moving between processes; try again in a moment",
            503, retry_after=1.0,
        )

    async def _call(self, request: Request) -> Table | Answer | None:
        """Send ``request`` to the process that runs its table and return its answer (or
        raise the :class:`~flip7.server.table.lobby.TableError` it raised); the table itself
        when this process runs it, None when it is not open."""
        ref = secrets.token_hex(8)
        future: asyncio.Future[Answer | Refusal] = asyncio.get_running_loop().create_future()
        self._calls[ref] = future
        call = Call(ref=ref, sender=self.node, request=request)

        async def contact(node: str) -> bool:
            self._called[ref] = node
            self._calling[ref] = request.table_id
            return await self.bus.send_now(node, call)

        try:
            where = await self.settle(request.table_id, contact)
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
            self._calling.pop(ref, None)
        if isinstance(answer, Refusal):
            raise answer.error()
        return answer

    async def _answer(self, call: Call) -> None:
        """Answer another process's call, if this process still runs the table: if it
        moved meanwhile that process follows it (and one nobody runs is taken over here)."""
        answer: Answer | Refusal
        try:
            where = await self.locate(call.request.table_id, detour=False)
            if isinstance(where, str):
                raise TableError("moved", "this table moved to another process; try again", 409)
            if where is None:
                raise await self.lobby.gone(call.request.table_id)
            answer = await self.perform(where, call.request)
        except TableError as exc:
            answer = Refusal.of(exc)
        except StoreError:
            answer = Refusal(code="server_error", status=503,
                             message="it could not be stored; try again")
        except Exception:
            log.exception("forwarded call failed")
            answer = Refusal(code="server_error", status=500,
                             message="the server failed to answer; try again")
        with contextlib.suppress(BusDown):
            self.bus.send(call.sender, Reply(ref=call.ref, answer=answer))

    # ------------------------------------------------------------------ linked sockets

    async def link(self, client: Client, table_id: str) -> Table | Link | None:
        """Where one of this process's sockets plays: the table when this process runs
        it, a :class:`~flip7.server.cluster.link.Link` to the process that does, None when
        the table is not open."""
        cid = secrets.token_hex(8)
        opened = Open(sender=self.node, cid=cid, table_id=table_id)
        made: list[Link] = []

        async def contact(node: str) -> bool:
            link = Link(self.bus, self.links, client, cid, table_id, node,
                        self.lobby.settings.hello_timeout)
            made.append(link)
            self.links[cid] = link
            if await self.bus.send_now(node, opened):
                return True
            self.links.pop(cid, None)
            return False

        try:
            where = await self.settle(table_id, contact)
        except BaseException:  # unavailable, or the socket gave up waiting (its deadline)
            for link in made:
                link.abandon()
            raise
        if isinstance(where, str):
            return made[-1]
        self.links.pop(cid, None)
        return where

    # ------------------------------------------------------------------ messages

    def _received(self, message: BusMessage) -> None:
        match message:
            case Frames():
                for cid, frame in message.each():
                    link = self.links.get(cid)
                    if link is not None:
                        link.hear(frame)
            case Reply(ref=ref, answer=answer):
                future = self._calls.get(ref)
                if future is not None and not future.done():
                    future.set_result(answer)
            case Call():
                task = asyncio.create_task(self._answer(message))
                self._answering.add(task)
                task.add_done_callback(self._answering.discard)
            case Shut(cid=cid, code=code):
                link = self.links.get(cid)
                if link is not None:
                    if code == CloseCode.MOVED:
                        self.forget_owner(node=link.owner)
                    link.cut(code)
            case Open():
                self._remote_open(message)
            case Relay(sender=sender, cid=cid, message=said):
                rc = self.remote.get((sender, cid))
                if rc is not None:
                    rc.inbox.put_nowait(said)
                else:  # let go of here (Redis was down, or the table moved): reconnect
                    self.outbox.shut(sender, cid, CloseCode.MOVED)
            case Closed(sender=sender, cid=cid):
                self._remote_gone((sender, cid))
            case Take():
                task = asyncio.create_task(self._take(message))
                self._answering.add(task)
                task.add_done_callback(self._answering.discard)

    def _remote_open(self, message: Open) -> None:
        key = (message.sender, message.cid)
        rc = RemoteClient(self.outbox, message.sender, message.cid, message.table_id)
        self.remote[key] = rc
        rc.worker = asyncio.create_task(self._remote_worker(rc))

    def _remote_gone(self, key: tuple[str, str]) -> None:
        rc = self.remote.pop(key, None)
        if rc is not None:
            rc.closing = True
            rc.inbox.put_nowait(None)

    async def _remote_worker(self, rc: RemoteClient) -> None:
        """One remote socket's messages, one after the other, as its own process would."""
        key = (rc.node, rc.cid)
        try:
            where = await self.locate(rc.table_id, detour=False)
        except TableError as exc:  # unavailable here now (this process's lease lapsed...)
            rc.push(error_frame(exc.code, exc.message))
            rc.close(CloseCode.TRY_AGAIN_LATER)
            self.remote.pop(key, None)
            return
        except Exception:
            where = None
        if isinstance(where, str):
            rc.close(CloseCode.MOVED)  # it moved meanwhile: the socket reconnects to its owner
            self.remote.pop(key, None)
            return
        if where is None:
            gone = await self.lobby.gone(rc.table_id)
            rc.push(error_frame(gone.code, gone.message))
            rc.close(CloseCode.gone(gone.code))
            self.remote.pop(key, None)
            return
        session = self.sessions(rc.table_id, rc)
        try:
            while (message := await rc.inbox.get()) is not None:
                try:
                    await session.handle(message)
                except Exception:  # as a local socket's handler failing: closed
                    log.exception("a forwarded message failed")
                    rc.close(CloseCode.INTERNAL_ERROR)
                    break
        finally:
            self.remote.pop(key, None)
            with contextlib.suppress(Exception):
                await session.end()

    def _bus_up(self) -> None:
        # A restarted Redis holds nothing: write this process's part of the lobby's list.
        self.listing.rewrite()
        let_go, self._let_go = self._let_go, []
        for node, cid in let_go:
            self.outbox.shut(node, cid, CloseCode.MOVED)

    def _bus_down(self) -> None:
        """Redis went away: frames to and from other processes may be lost, so every link
        is closed (its clients reconnect) and other processes' sockets are let go."""
        for link in list(self.links.values()):
            link.cut()
        self.links.clear()
        self._let_go.extend(self.remote)
        for key in list(self.remote):
            self._remote_gone(key)
        for future in self._calls.values():
            if not future.done():
                future.set_exception(BusDown("Redis went away"))


def _unavailable() -> TableError:
    return TableError(
        "unavailable",
        "the process running this table cannot be reached right now; try again in a moment",
        503,
        retry_after=1.0,
    )
