"""This process's rows of ``cluster_node`` and ``table_owner``: whether it is alive, and
which tables it runs, on PostgreSQL's clock.

Each live table is run by exactly one process, its *owner*, named by the table's row of
``table_owner`` with a fencing token raised at every takeover; the owner's lease is its
``cluster_node`` row, which expires unless renewed every second. Every write to the table
carries the token and PostgreSQL itself refuses one that carries another (the trigger of
migration 0006), so a process that lost a table can no longer change it.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["Ownership"]


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
