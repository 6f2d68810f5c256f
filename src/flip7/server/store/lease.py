"""The database lease: one ``flip7 serve`` per database.

The server keeps its tables in memory and trusts that it is the only writer; a second server
on the same database would refuse a third of the moves and show diverging tables. So a
server holds a lease, one row of ``server_lease``: taken at start in one transaction,
renewed every ``lease_seconds / 3``, deleted on a clean exit. A second server that finds a
live lease refuses to start (:class:`DatabaseInUse`).

After a crash the lease is taken over once it has expired, or at once when its holder ran
on this host and that process is gone: its pid is dead, or now belongs to another process
(the process start time in ``/proc/<pid>/stat`` differs), so ``kill -9`` and an immediate
restart just work.

Times are the servers' own clocks (UTC): hosts sharing a database should keep them in sync.
"""

from __future__ import annotations

import math
import os
import socket
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from flip7.core.errors import Flip7Error

__all__ = [
    "LEASE_NAME",
    "DatabaseInUse",
    "Lease",
    "LeaseHolder",
    "define_table",
    "process_identity",
    "reserve",
]

LEASE_NAME = "server"


def define_table(metadata: sa.MetaData) -> sa.Table:
    """The ``server_lease`` table in ``metadata`` (the store's, so that migrations and the
    schema check see it)."""
    return sa.Table(
        "server_lease",
        metadata,
        sa.Column("name", sa.String(32), primary_key=True),
        # A fresh id per server start: renewing and releasing touch only one's own row.
        sa.Column("holder", sa.String(64), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        # Boot id and start time of the holder's process, to tell a reused pid from it.
        sa.Column("process", sa.String(80), nullable=True),
        sa.Column("started", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )


class DatabaseInUse(Flip7Error):
    """Another live server holds the database lease."""


@dataclass(frozen=True, slots=True)
class LeaseHolder:
    """Who holds (or held) the lease, as read from its row."""

    holder: str
    host: str
    pid: int
    process: str | None
    started: datetime
    expires_at: datetime

    def describe(self) -> str:
        """``pid 1234 on host h, since 2026-12-01T10:00:00Z``."""
        return f"pid {self.pid} on host {self.host}, since {_iso(self.started)}"


def _utc(when: datetime) -> datetime:
    # SQLite hands back naive datetimes (stored as UTC).
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when


def _iso(when: datetime) -> str:
    return _utc(when).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _now() -> datetime:
    return datetime.now(UTC)


def process_identity(pid: int) -> str | None:
    """``boot-id/start-time`` of process ``pid`` (Linux ``/proc``), None if unknown.

    Two processes with the same pid on one host have different identities: the start time
    (in clock ticks since boot) tells them apart, the boot id across reboots."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces or ')'.
    fields = stat[stat.rfind(")") + 2 :].split()
    if len(fields) < 20:
        return None
    return f"{boot}/{fields[19]}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: someone else's process, so alive
        return True
    return True


def _gone(row: LeaseHolder, host: str) -> bool:
    """Whether the holder certainly no longer runs: on this host, and its pid is dead or
    belongs to another process now."""
    if row.host != host:
        return False
    if row.pid == os.getpid() and row.process == process_identity(os.getpid()):
        return False  # this very process (another app in it): alive
    if not _alive(row.pid):
        return True
    current = process_identity(row.pid)
    return row.process is not None and current is not None and current != row.process


# Leases this process took before its app started (``flip7 serve`` checks the database
# before starting uvicorn, so that a refusal is a clear message and exit status 2): the
# app's store adopts them instead of finding itself in the way.
_reserved: dict[str, str] = {}


def reserve(url: str, holder: str) -> None:
    """Let the next :meth:`Lease.take` on ``url`` in this process adopt ``holder``'s lease."""
    _reserved[url] = holder


class Lease:
    """A lease held by this server on one database (see the module's docstring)."""

    def __init__(self, table: sa.Table, holder: str, seconds: float) -> None:
        self.table = table
        self.holder = holder
        self.seconds = seconds
        self.host = socket.gethostname()
        #: When the database last confirmed the lease is ours (``time.monotonic()``).
        self.confirmed = time.monotonic()
        #: Set once the lease is no longer ours: nothing may be written any more.
        self.lost = False
        #: Who took it over, when known.
        self.lost_to: LeaseHolder | None = None

    @classmethod
    async def take(cls, engine: AsyncEngine, table: sa.Table, seconds: float, url: str) -> Lease:
        """Take the lease on ``engine``'s database or raise :class:`DatabaseInUse`."""
        lease = cls(table, _reserved.pop(url, "") or uuid.uuid4().hex, seconds)
        in_the_way: LeaseHolder | None = None
        for _ in range(5):
            async with engine.begin() as conn:
                in_the_way = await lease._try(conn)
            if in_the_way is None:
                return lease
            # A race lost to another starting server: look again.
        # Only a storm of servers starting at once gets here.
        assert in_the_way is not None
        raise DatabaseInUse(lease._refusal(in_the_way))

    def _row(self, now: datetime) -> dict[str, Any]:
        pid = os.getpid()
        return {
            "name": LEASE_NAME,
            "holder": self.holder,
            "host": self.host,
            "pid": pid,
            "process": process_identity(pid),
            "started": now,
            "expires_at": now + timedelta(seconds=self.seconds),
        }

    async def _try(self, conn: AsyncConnection) -> LeaseHolder | None:
        """One attempt in one transaction: None when taken, else who is in the way (the
        attempt lost a race when that holder may be taken over: try again)."""
        now = _now()
        mine = self._row(now)
        # Insert first: on SQLite this takes the write lock, so that the read and the
        # update below are not raced by another starting server.
        inserted = await conn.execute(_insert_or_nothing(conn, self.table).values(**mine))
        if inserted.rowcount == 1:
            return None
        found = (
            await conn.execute(self.table.select().where(self.table.c.name == LEASE_NAME))
        ).first()
        if found is None:  # released meanwhile: try again
            return _holder(mine)
        row = _holder(found._mapping)
        if not (row.holder == self.holder or _utc(row.expires_at) <= now or _gone(row, self.host)):
            raise DatabaseInUse(self._refusal(row))
        # Compare and set: only if it is still the row just read.
        taken = await conn.execute(
            self.table.update()
            .where(self.table.c.name == LEASE_NAME, self.table.c.holder == row.holder)
            .values(**mine)
        )
        return None if taken.rowcount == 1 else row

    def _refusal(self, row: LeaseHolder) -> str:
        wait = max(1, math.ceil((_utc(row.expires_at) - _now()).total_seconds()))
        return (
            f"another flip7 server ({row.describe()}) is using this database; "
            f"stop it first, or wait {wait} s if it crashed"
        )

    def renewal(self) -> sa.Update:
        """The statement that extends the lease if this server still holds it (rowcount 1)."""
        return (
            self.table.update()
            .where(self.table.c.name == LEASE_NAME, self.table.c.holder == self.holder)
            .values(expires_at=_now() + timedelta(seconds=self.seconds))
        )

    def who(self, conn: sa.Connection) -> LeaseHolder | None:
        """The lease's holder now, as stored (blocking: under ``run_sync`` or on the
        committer's thread)."""
        found = conn.execute(self.table.select().where(self.table.c.name == LEASE_NAME)).first()
        return None if found is None else _holder(found._mapping)

    async def release(self, engine: AsyncEngine) -> None:
        """Give the lease up (a clean exit): the next server starts at once."""
        async with engine.begin() as conn:
            await conn.execute(
                self.table.delete().where(
                    self.table.c.name == LEASE_NAME, self.table.c.holder == self.holder
                )
            )

    def stale(self) -> bool:
        """Whether the lease went unconfirmed for long enough that another server might have
        taken it (renewals failing, or the event loop stalled): check before writing."""
        return time.monotonic() - self.confirmed > self.seconds / 2

    def confirm(self, conn: sa.Connection) -> bool:
        """Renew the lease in ``conn``'s transaction; False (and the lease marked lost) if
        another server holds it now (blocking: under ``run_sync`` or on the committer's
        thread)."""
        result = conn.execute(self.renewal())
        if result.rowcount == 1:
            self.confirmed = time.monotonic()
            return True
        self.lost_to = self.who(conn)
        self.lost = True  # after lost_to: health may look in between
        return False

    def problem(self) -> str | None:
        """Why this server may no longer write, or None."""
        if not self.lost:
            return None
        who = (
            f"another flip7 server ({self.lost_to.describe()})"
            if self.lost_to is not None and self.lost_to.holder != self.holder
            else "someone"
        )
        return (
            f"{who} took over this server's database lease; it stores nothing any more, "
            "so stop it (its moves are refused)"
        )


def _holder(row: Any) -> LeaseHolder:
    return LeaseHolder(
        holder=row["holder"],
        host=row["host"],
        pid=int(row["pid"]),
        process=row["process"],
        started=row["started"],
        expires_at=row["expires_at"],
    )


def _insert_or_nothing(conn: AsyncConnection, table: sa.Table) -> Any:
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table).on_conflict_do_nothing(index_elements=["name"])
    if conn.dialect.name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(table).on_conflict_do_nothing(index_elements=["name"])
    # Other databases are not supported: a plain insert fails if the row exists.
    return table.insert()  # pragma: no cover
