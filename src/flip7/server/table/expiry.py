"""Expiry: tables nobody uses leave memory and the slot count; they stay as history.

A table is *idle* while no seated human is connected to it (a human who left mid-game does
not count, nor do spectators). It is closed when it has been idle, with no change made by a
person (bots' and turn timers' moves do not count), for

* ``unattended_table_ttl`` seconds if it is *unattended*: waiting, and no seated human has
  ever connected to it (made by REST, never opened; flip7.server.table.presence),
* ``waiting_table_ttl`` seconds if it is waiting for players, or
* ``idle_table_ttl`` seconds if its game is being played or is over.

Unattended tables are also kept to ``max_unattended_tables``: a new table past that closes
the oldest one (by creation) to make room, and so does a new table when the server holds
``max_tables``. So a flood of tables from many addresses, which nobody opens, can neither
lock everyone else out with 503 ``full`` nor close a table somebody opened; only when every
table is attended is a newcomer refused. Tables rebuilt from the store (a restart, a
takeover by another process) count as attended: connections are not stored.

A table whose game is being played and that still seats a human who is away (not one
who left) is *suspended* instead of closed (a dinner break, a phone that slept): stored as
``suspended``, its bots and timers stopped, its spectators told (error frame
``suspended``, close code 1013, try again later) and dropped from memory and the slot
count. Whatever asks for it next (a request, a socket; flip7.server.table.lobby.Lobby.wake,
or with many processes the cluster's takeover) rebuilds it from its log as it was; it plays
on when one of its humans is here. A table suspended for ``suspended_table_ttl`` (7 days)
is closed. A playing table whose humans have all left is closed like a finished one: its
unfinished game is never revealed (records exist only for finished games), its finished
games stay.

Closing stores the table's state as ``closed``, stops its bots and timers, tells the
clients still connected (spectators) with an error frame ``closed`` and closes their
sockets (code 4410), and drops it from memory. A closed table is not loaded on restart;
``GET /api/tables/{id}`` answers 410 ``closed``, while its games, records and replays are
still read from the database.

A sweep runs every quarter of the shorter of the two times (at most every minute), so a
table is closed between its time and a quarter more after it went idle.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta
from typing import Generic, Protocol, TypeVar

from flip7.core.jsontypes import JSON
from flip7.server.base.closecodes import CloseCode
from flip7.server.base.formats import utcnow
from flip7.server.base.settings import Settings
from flip7.server.base.sockets import error_frame
from flip7.server.table.errors import TableError, not_stored
from flip7.server.table.storage import StoreError, TableStorage, TableUpdate

__all__ = [
    "Attendance",
    "ExpiringTable",
    "Expiry",
    "Refusal",
    "TableOwner",
    "closed_message",
    "span",
    "suspended_message",
]

log = logging.getLogger("flip7.server")

# The longest wait between sweeps, in seconds.
MAX_INTERVAL = 60.0


def span(seconds: float) -> str:
    """A duration as people say it.

    >>> span(1800), span(60), span(90), span(0.5), span(7 * 24 * 3600), span(86400)
    ('30 minutes', '1 minute', '1.5 minutes', '0.5 seconds', '7 days', '1 day')
    """
    if seconds >= 86400:
        days = round(seconds / 86400, 1)
        return f"{days:g} day" + ("" if days == 1 else "s")
    if seconds >= 60:
        minutes = round(seconds / 60, 1)
        return f"{minutes:g} minute" + ("" if minutes == 1 else "s")
    return f"{seconds:g} second" + ("" if seconds == 1 else "s")


def closed_message(
    table_id: str, seconds: float, unopened: float | None = None,
    suspended: float | None = None,
) -> str:
    """What a client is told about a table that was closed after ``seconds`` idle (or
    ``unopened`` seconds if nobody had opened it, or ``suspended`` seconds suspended if its
    game was being played: which of them is not stored).

    >>> closed_message("t1", 1800, unopened=300)[:80]
    'this table was closed after 30 minutes without players (5 minutes if nobody had '
    >>> closed_message("t1", 600, suspended=7 * 86400)[:91]
    'this table was closed after 10 minutes without players (7 days if a game was being played);'
    """
    shorter = "" if unopened is None or unopened >= seconds else (
        f" ({span(unopened)} if nobody had opened it)"
    )
    if suspended is not None:
        shorter = f" ({span(suspended)} if a game was being played)"
    return (
        f"this table was closed after {span(seconds)} without players{shorter}; its games "
        f"stay available at /api/tables/{table_id}/games"
    )


def suspended_message(table_id: str, seconds: float) -> str:
    """What a spectator still watching a suspended table is told.

    >>> suspended_message("t1", 7 * 24 * 3600)[:72]
    'this game is paused while its players are away; it waits for them for 7 '
    """
    return (
        f"this game is paused while its players are away; it waits for them for "
        f"{span(seconds)}: open /t/{table_id} again to see it go on"
    )


def evicted_message(table_id: str, ceiling: int) -> str:
    """What a client is told about an unattended table closed to make room for a new one
    (past ``ceiling`` of them, or with the server full)."""
    return (
        f"this table was closed because nobody had opened it and a newer table needed its "
        f"place: tables nobody opened make room first, and the server keeps at most "
        f"{ceiling} of them (limit max_unattended_tables); its games stay available at "
        f"/api/tables/{table_id}/games"
    )


# What expiry needs of a table and of the lobby (flip7.server.table.table.Table and
# flip7.server.table.lobby.Lobby): expiry depends on these, never on the lobby, which
# imports expiry.


class Attendance(Protocol):
    """Whether a seated human has ever connected (flip7.server.table.presence.Presence)."""

    attended: bool


class ExpiringTable(Protocol):
    """A table as expiry sees it."""

    closed: bool
    human_seen: float
    # The owner's fencing token its writes carry (flip7.server.cluster.node; None: one process).
    fence: int | None

    @property
    def id(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def game_number(self) -> int: ...
    @property
    def to_decide(self) -> int | None: ...
    @property
    def deadline_at(self) -> datetime | None: ...
    @property
    def touched(self) -> float: ...
    @property
    def lock(self) -> asyncio.Lock: ...
    @property
    def presence(self) -> Attendance: ...
    @property
    def humans_here(self) -> bool:
        """Whether a seated human (not one who left) is connected."""
        ...
    @property
    def awaits_human(self) -> bool:
        """Whether a seated human has not left (connected or away)."""
        ...

    def shut(self, frame: str, code: int) -> None:
        """Mark the table closed, stop its bots and timers, send every client ``frame`` and
        close its socket with ``code``."""


class Refusal(Protocol):
    """An error with a code and a message (flip7.server.table.errors.TableError)."""

    @property
    def code(self) -> str: ...
    @property
    def message(self) -> str: ...


T = TypeVar("T", bound=ExpiringTable)


class TableOwner(Protocol[T]):
    """The lobby as expiry sees it: its tables, settings, store, clock and log."""

    @property
    def tables(self) -> dict[str, T]: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def store(self) -> TableStorage: ...

    def clock(self) -> float: ...
    def closed_error(self, table: T) -> Refusal: ...
    def log_event(self, event: str, table: T | None, **fields: JSON) -> None: ...
    async def let_go(self, table: T) -> None:
        """``table`` was suspended and dropped from memory (with many processes, another
        may take it when asked)."""
    async def wake_due(self, table_id: str) -> None:
        """Bring back the suspended turn-based table ``table_id``, its decision's deadline
        passed (the stand-in bot makes it); nothing if another process did already."""


class Expiry(Generic[T]):
    """The lobby's sweeper: finds idle tables and closes them, and keeps unattended tables
    under their ceiling (see the module)."""

    def __init__(self, lobby: TableOwner[T]) -> None:
        self.lobby = lobby
        self._task: asyncio.Task[None] | None = None
        # Tables this process created that may still be unattended, oldest first: those
        # opened, started or closed since are dropped as they are met (see unattended).
        self._newcomers: dict[str, T] = {}

    @property
    def unattended_ttl(self) -> float:
        """How long an unattended table may stay idle: never longer than a waiting one."""
        settings = self.lobby.settings
        return min(settings.unattended_table_ttl, settings.waiting_table_ttl)

    @property
    def interval(self) -> float:
        """Seconds between sweeps."""
        settings = self.lobby.settings
        shortest = min(settings.waiting_table_ttl, settings.idle_table_ttl, self.unattended_ttl)
        return max(0.01, min(MAX_INTERVAL, shortest / 4))

    def ttl(self, table: T) -> float:
        """How long ``table`` may stay idle, in seconds."""
        settings = self.lobby.settings
        if table.state != "waiting":
            return settings.idle_table_ttl
        if not table.presence.attended:
            return self.unattended_ttl
        return settings.waiting_table_ttl

    def message(self, table_id: str, played: bool) -> str:
        """Why a table that was closed for lack of players is closed, as far as the store
        knows (``played``: it had a game)."""
        settings = self.lobby.settings
        if played:
            return closed_message(table_id, settings.idle_table_ttl,
                                  suspended=settings.suspended_table_ttl)  # fmt: skip
        return closed_message(table_id, settings.waiting_table_ttl, self.unattended_ttl)

    def due(self, table: T, now: float) -> bool:
        """Whether ``table`` has been idle long enough to be closed at ``now``."""
        if table.closed:
            return False
        if table.humans_here:
            table.human_seen = now
            table.presence.attended = True
            return False
        return now - max(table.touched, table.human_seen) >= self.ttl(table)

    # ------------------------------------------------------------------ unattended tables

    def created(self, table: T) -> None:
        """``table`` was just created by a request: unattended until a seated human
        connects (the server's own private tables, a tutorial's, are not counted)."""
        table.presence.attended = False
        self._newcomers[table.id] = table

    def unattended(self, table: T) -> bool:
        """Whether ``table`` is open, waiting, and no seated human has connected to it."""
        return (
            not table.closed
            and self.lobby.tables.get(table.id) is table
            and table.state == "waiting"
            and not table.presence.attended
        )

    def unattended_tables(self) -> list[T]:
        """The unattended tables, oldest first."""
        for table_id, table in list(self._newcomers.items()):
            if not self.unattended(table):
                del self._newcomers[table_id]  # opened, started or closed: for good
        return list(self._newcomers.values())

    async def make_room(self) -> None:
        """Before a table is created: close the oldest unattended tables while there are
        ``max_unattended_tables`` of them, or the server holds ``max_tables``. With every
        table attended and the server full: 503 ``full``. A closing the store refuses: 503
        ``server_error`` (nothing was created)."""
        settings = self.lobby.settings
        while True:
            waiting = self.unattended_tables()
            if (len(waiting) < settings.max_unattended_tables
                    and len(self.lobby.tables) < settings.max_tables):
                return
            if not waiting:
                raise TableError("full", "the server has as many tables as it can hold", 503)
            oldest = waiting[0]
            if not await self.close(oldest, evicted=True) and self.unattended(oldest):
                raise not_stored("the room for a new table")

    async def sweep(self) -> list[str]:
        """Close (or suspend) every table that is due, and close those suspended for
        ``suspended_table_ttl``; returns the ids of those this process had in memory."""
        now = self.lobby.clock()
        due = [t for t in list(self.lobby.tables.values()) if self.due(t, now)]
        # Together, so that the store commits the closings in a few transactions.
        closed = await asyncio.gather(*(self.close(t) for t in due))
        before = utcnow() - timedelta(seconds=self.lobby.settings.suspended_table_ttl)
        try:
            for table_id in await self.lobby.store.close_suspended(before):
                self.lobby.log_event("table_closed", None, id=table_id, why="suspended")
        except StoreError:
            log.warning("suspended tables could not be closed; tried again next sweep")
        # A turn-based game whose players are all away still moves on at its deadlines.
        try:
            for table_id in await self.lobby.store.due_tables(utcnow()):
                await self.lobby.wake_due(table_id)
        except StoreError:
            log.warning("turn-based tables due could not be woken; tried again next sweep")
        return [t.id for t, done in zip(due, closed, strict=True) if done]

    @staticmethod
    def suspends(table: T) -> bool:
        """Whether ``table``, idle, is suspended rather than closed: its game is being
        played and a human who has not left holds a seat (away, or they would be here)."""
        return table.state == "playing" and table.awaits_human

    async def close(self, table: T, evicted: bool = False) -> bool:
        """Close ``table`` if it is still due once its lock is held (``evicted``: if it is
        still unattended, to make room for a new table); True if it was."""
        lobby = self.lobby
        async with table.lock:
            # Someone may have come back (or connected) while this waited for the lock.
            still = self.unattended(table) if evicted else self.due(table, lobby.clock())
            if lobby.tables.get(table.id) is not table or not still:
                return False
            suspend = not evicted and self.suspends(table)
            closing = TableUpdate(table.id, table.version, "suspended" if suspend else "closed",
                                  utcnow(), table.fence, table.to_decide,
                                  table.deadline_at)  # fmt: skip
            try:
                await lobby.store.write([closing])
            except StoreError:
                log.warning("table %s could not be closed; it stays open", table.id)
                return False
            if suspend:
                ttl = lobby.settings.suspended_table_ttl
                table.shut(error_frame("suspended", suspended_message(table.id, ttl)),
                           CloseCode.TRY_AGAIN_LATER)  # fmt: skip
            else:
                error = lobby.closed_error(table)
                message = (
                    evicted_message(table.id, lobby.settings.max_unattended_tables) if evicted
                    else error.message
                )
                table.shut(error_frame(error.code, message), CloseCode.CLOSED)
            del lobby.tables[table.id]
        if suspend:
            lobby.log_event("table_suspended", table, version=table.version,
                            games=table.game_number)  # fmt: skip
            await lobby.let_go(table)
            return True
        lobby.log_event(
            "table_closed", table, state=table.state, games=table.game_number,
            why="max_unattended_tables" if evicted else "idle",
        )
        return True

    # ------------------------------------------------------------------ the task

    def start(self) -> None:
        """Sweep every :attr:`interval` seconds until :meth:`stop`."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="flip7-table-expiry")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.sweep()
            except Exception:  # a sweep that fails must not end the sweeping
                log.exception("table expiry failed")
