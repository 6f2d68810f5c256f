"""This process's rows of ``cluster_node`` and ``table_owner``: whether it is alive, and
which tables it runs, on PostgreSQL's clock.

Each live table is run by exactly one process, its *owner*, named by the table's row of
``table_owner`` with a fencing token raised at every takeover; the owner's lease is its
``cluster_node`` row, which expires unless renewed every second. Every write to the table
carries the token and PostgreSQL itself refuses one that carries another (the trigger of
migration 0006), so a process that lost a table can no longer change it.
"""

from __future__ import annotations

from collections.abc import Collection

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from flip7.server.store.database import COMMIT_SESSIONS
from flip7.server.table.storage import StoreError

__all__ = ["Ownership"]

# How long a claim waits for a commit that holds the owner row before it ends the commit
# sessions of an owner whose lease lapsed.
LOCK_TIMEOUT_MS = 500


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
        """:meth:`_claim`; should the owner row stay locked by a commit of an owner whose
        lease lapsed (a process paused in the middle of one: PostgreSQL does not end a
        session that waits for the rest of a pipeline), that owner's commit sessions are
        ended first (its writes could only be refused by the fence once claimed).
        StoreError if the row stays held (by a live owner's commit, a moment longer)."""
        try:
            return await self._claim(table_id)
        except sa.exc.DBAPIError as exc:
            if "lock timeout" not in str(exc).lower():
                raise
        async with self.engine.begin() as conn:
            await conn.execute(
                sa.text(
                    "SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a "
                    "JOIN table_owner o ON a.application_name = :prefix || o.owner "
                    "WHERE o.table_id = :t AND o.owner NOT IN ('', :me) AND NOT EXISTS ("
                    "SELECT 1 FROM cluster_node n WHERE n.node = o.owner "
                    "AND n.expires_at > clock_timestamp())"
                ),
                {"t": table_id, "me": self.node, "prefix": COMMIT_SESSIONS},
            )
        try:
            return await self._claim(table_id)
        except sa.exc.DBAPIError as exc:
            if "lock timeout" not in str(exc).lower():
                raise
            raise StoreError("the table's owner row is held by a commit; try again") from None

    async def _claim(self, table_id: str) -> int | None:
        """Take ``table_id`` (open, and unowned, given up, its owner dead, or already this
        process's): its new fencing token, or None if a live process runs it or the table
        is closed or unknown.

        One claim at a time per table: the owner row is locked before its owner's lease is
        read, so that of two processes claiming at once the second sees the first's claim
        (a live owner) and gets None. Reading the lease in the statement that updates the
        row would not do: a statement that waited for the lock re-checks the row, but reads
        ``cluster_node`` as it was when it began."""
        async with self.engine.begin() as conn:
            state = (
                await conn.execute(sa.text("SELECT state FROM tables WHERE id = :t"),
                                   {"t": table_id})
            ).scalar_one_or_none()
            if state is None or state == "closed":
                return None
            # A commit under way holds the owner row (the fence's FOR SHARE): it is waited
            # for, not for ever (see claim).
            await conn.execute(sa.text(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT_MS}ms'"))
            first = (
                await conn.execute(
                    sa.text(
                        "INSERT INTO table_owner (table_id, owner, token) VALUES (:t, :me, 1) "
                        "ON CONFLICT (table_id) DO NOTHING RETURNING token"
                    ),
                    {"t": table_id, "me": self.node},
                )
            ).scalar_one_or_none()
            if first is not None:
                return int(first)
            owner = (
                await conn.execute(
                    sa.text("SELECT owner FROM table_owner WHERE table_id = :t FOR UPDATE"),
                    {"t": table_id},
                )
            ).scalar_one()
            if owner not in (self.node, ""):
                # A statement of its own, after the lock: it sees the lease as it is now.
                live = (
                    await conn.execute(
                        sa.text(
                            "SELECT 1 FROM cluster_node "
                            "WHERE node = :n AND expires_at > clock_timestamp()"
                        ),
                        {"n": owner},
                    )
                ).first()
                if live is not None:
                    return None
            token = (
                await conn.execute(
                    sa.text(
                        "UPDATE table_owner SET owner = :me, token = token + 1 "
                        "WHERE table_id = :t RETURNING token"
                    ),
                    {"t": table_id, "me": self.node},
                )
            ).scalar_one()
        return int(token)

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

    async def hand_over(self, table_id: str, token: int, to: str) -> int | None:
        """Give ``table_id``, run here under ``token``, to process ``to`` (flip7.server.cluster
        .spread): under a raised token, so that nothing this process still had on its way
        can be written any more; ``to`` raises it again as it takes the table (:meth:`claim`).
        The raised token, or None if the table was no longer this process's."""
        async with self.engine.begin() as conn:
            raised = (
                await conn.execute(
                    sa.text(
                        "UPDATE table_owner SET owner = :to, token = token + 1 "
                        "WHERE table_id = :t AND owner = :me AND token = :k RETURNING token"
                    ),
                    {"t": table_id, "me": self.node, "k": token, "to": to},
                )
            ).scalar_one_or_none()
        return None if raised is None else int(raised)

    async def processes(self) -> dict[str, int]:
        """The live processes, each with the number of open tables it runs (suspended and
        closed ones are run by nobody)."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.text(
                    "SELECT n.node, COUNT(t.id) AS tables FROM cluster_node n "
                    "LEFT JOIN table_owner o ON o.owner = n.node "
                    "LEFT JOIN tables t ON t.id = o.table_id "
                    "AND t.state NOT IN ('closed', 'suspended') "
                    "WHERE n.expires_at > clock_timestamp() GROUP BY n.node"
                )
            )
            return {str(r.node): int(r.tables) for r in rows}

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

    async def owners(self, table_ids: Collection[str]) -> dict[str, tuple[str, bool]]:
        """:meth:`owner_of` for many tables in one question (those never owned are left
        out): where this process's links should lead (flip7.server.cluster.follow)."""
        if not table_ids:
            return {}
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.text(
                    "SELECT o.table_id, o.owner, "
                    "COALESCE(n.expires_at > clock_timestamp(), false) AS live "
                    "FROM table_owner o LEFT JOIN cluster_node n ON n.node = o.owner "
                    "WHERE o.table_id IN :ids"
                ).bindparams(sa.bindparam("ids", expanding=True)),
                {"ids": sorted(table_ids)},
            )
            return {str(r.table_id): (str(r.owner), bool(r.live)) for r in rows}

    async def orphans(self, limit: int) -> list[str]:
        """Open tables nobody runs: never owned, given up, or their owner dead. Suspended
        ones are not: they are taken when somebody asks for them (:meth:`claim`)."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                sa.text(
                    "SELECT t.id FROM tables t "
                    "LEFT JOIN table_owner o ON o.table_id = t.id "
                    "LEFT JOIN cluster_node n ON n.node = o.owner "
                    "AND n.expires_at > clock_timestamp() "
                    "WHERE t.state NOT IN ('closed', 'suspended') AND n.node IS NULL "
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
