"""Persistence: every table as a log of stored changes, in SQLite or PostgreSQL.

A table is its row (name, options) plus an append-only log: seats taken and left, bots,
game starts and every decision (flip7.server.table.changes, each stored in its own JSON
form). The store is what the live table's storage interface asks for
(flip7.server.table.storage.TableStorage): it takes the table's typed writes and hands back
its typed rows. Replaying the log through the engine rebuilds the table
exactly, which is how the server resumes after a restart, even after ``kill -9``. A game's
shuffle seed lives only in ``games.seed``, which nothing sends to a client.

The scorekeeper's scorecards are one JSON document each, replaced under an optimistic
version check (:meth:`Store.update_scorecard`).

Writes go through one writer task that commits whatever is queued in one transaction
(group commit): a move is acknowledged only after its transaction has committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, assert_never

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry
from sqlalchemy.sql.base import Executable

from flip7.core.jsontypes import JSONObject
from flip7.server.base.formats import as_utc, dumps, iso, utcnow
from flip7.server.store.committer import Committer
from flip7.server.store.dbfile import DatabaseFile
from flip7.server.store.lease import Lease, define_table
from flip7.server.table.changes import Join
from flip7.server.table.chat import ChatEntry, chat_kind
from flip7.server.table.storage import (
    ChatInsert,
    GameFinish,
    GameInsert,
    LogEntry,
    LogRow,
    StoredGame,
    StoredState,
    StoreError,
    TableInsert,
    TableRow,
    TableUpdate,
    TableWrite,
)

__all__ = [
    "OPERATIONS",
    "Fenced",
    "Operation",
    "ScorecardRow",
    "Store",
    "cluster_node",
    "coach_analyses",
    "describe_database",
    "game_results",
    "games",
    "metadata",
    "player_codes",
    "player_games",
    "player_keys",
    "players",
    "rating_history",
    "ratings",
    "replays",
    "scorecards",
    "server_lease",
    "sqlite_file",
    "stored_state",
    "table_chat",
    "table_log",
    "table_owner",
    "tables",
]

log = logging.getLogger("flip7.server")

metadata = sa.MetaData()

tables = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("max_seats", sa.Integer, nullable=False),
    sa.Column("rules", sa.Text, nullable=False),
    sa.Column("turn_timer", sa.Integer, nullable=True),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    # Whether the seat to Hit or Stay is told its bust risk (tables before 0005: yes).
    sa.Column("bust_odds", sa.Boolean, nullable=False, server_default=sa.true()),
    # A tutorial's table: its games stay out of the lobby's recent games.
    sa.Column("private", sa.Boolean, nullable=False, server_default=sa.false()),
    # The owner's fencing token on every update (FENCE; None: one process, no owners).
    sa.Column("fence", sa.BigInteger, nullable=True),
    # Whether a finished game here changes ratings (flip7.server.services.ratings; before 0007: no).
    sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    # The seat the game waits for (None between games; before 0009: unknown until a change).
    sa.Column("to_decide", sa.Integer, nullable=True),
    # A turn-based table's hours per decision (None: live), and when the running decision
    # is made by the stand-in bot (None: no clock runs).
    sa.Column("move_hours", sa.Integer, nullable=True),
    sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_tables_state_updated", "state", "updated_at"),
)

table_log = sa.Table(
    "table_log",
    metadata,
    sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("fence", sa.BigInteger, nullable=True),
    # A join's identity (as its data's "player"): the tables an identity sat down at.
    sa.Column("player_id", sa.String(16), nullable=True),
    sa.Index("ix_table_log_player", "player_id"),
)

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), nullable=False, index=True),
    sa.Column("number", sa.Integer, nullable=False),
    # The shuffle seed: the one secret of a game. Never leaves the server.
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("players", sa.Text, nullable=False),
    sa.Column("rules", sa.Text, nullable=False),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    # Indexed: the lobby lists the most recently finished games (GET /api/games).
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True, index=True),
    sa.Column("winners", sa.Text, nullable=True),
    sa.Column("totals", sa.Text, nullable=True),
    sa.Column("record", sa.Text, nullable=True),
)

# A table's chat (flip7.server.table.chat): beside its change log, numbered on its own (``n``),
# never a change of the table's version. ``kind`` is a message or the host switching
# spectator chat off or on.
table_chat = sa.Table(
    "table_chat",
    metadata,
    sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("n", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("spectator", sa.Boolean, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("fence", sa.BigInteger, nullable=True),
)

replays = sa.Table(
    "replays",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("record", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

# The coach's analysis of a finished game for one seat
# (flip7.server.services.coach_jobs): ``status``
# queued, running, done or failed; ``done`` of ``total`` decisions graded so far (updated
# about once a second while it runs); ``result`` the coach's report (JSON) once done,
# ``message`` why it failed. Every process of a cluster answers from this row.
coach_analyses = sa.Table(
    "coach_analyses",
    metadata,
    sa.Column("game_id", sa.String(16), sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("done", sa.Integer, nullable=False),
    sa.Column("total", sa.Integer, nullable=False),
    sa.Column("result", sa.Text, nullable=True),
    sa.Column("message", sa.Text, nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)


# A scorekeeper's scorecard (flip7.scorekeeper.scorecard): the whole card as one JSON
# document, replaced on every change; ``version`` is bumped each time and guards every update.
scorecards = sa.Table(
    "scorecards",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    # SHA-256 of the edit key, like seat tokens: the key itself is never stored.
    sa.Column("key_hash", sa.String(64), nullable=False),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
    # What the list of scorecards shows (players, rounds, leader): no need to read ``data``.
    sa.Column("listing", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, index=True),
)

# The lease that keeps a second server off the database (flip7.server.store.lease).
server_lease = define_table(metadata)

# Many processes on one database (flip7.server.cluster.node). Each process renews its row of
# ``cluster_node`` every second; a process whose row expired is dead to the others. A live
# table's row of ``table_owner`` names the process that runs it (empty: given up) and the
# fencing token it runs it under, raised at every takeover. On PostgreSQL a trigger
# (migration 0006) refuses any write to ``tables``, ``table_log`` or ``table_chat`` whose
# ``fence`` is not the owner row's token: a process that lost a table cannot change it,
# whatever it still believes. Renewing a process touches no table's row, so it never waits
# for (or holds up) the writes.
cluster_node = sa.Table(
    "cluster_node",
    metadata,
    sa.Column("node", sa.String(64), primary_key=True),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
)
table_owner = sa.Table(
    "table_owner",
    metadata,
    sa.Column("table_id", sa.String(16), primary_key=True),
    sa.Column("owner", sa.String(64), nullable=False, index=True),
    sa.Column("token", sa.BigInteger, nullable=False),
)

# ---- Players, ratings and statistics (services.players, services.ratings).
# An identity: a display name and the SHA-256 of each of its keys (one per device, never
# the key); one-time transfer codes (their SHA-256 too) carry it to another device.
players = sa.Table(
    "players",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("name", sa.String(80), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    # A bot account (the bot API): the SHA-256 of its bot token (None: revoked), and
    # whether it takes invitations now.
    sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("bot_token_hash", sa.String(64), nullable=True),
    sa.Column("bot_available", sa.Boolean, nullable=False, server_default=sa.false()),
)
player_keys = sa.Table(
    "player_keys",
    metadata,
    sa.Column("player_id", sa.String(16), sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("key_hash", sa.String(64), primary_key=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
# A host's invitation of a bot account to a seat (the bot API), until answered or expired.
bot_invitations = sa.Table(
    "bot_invitations",
    metadata,
    sa.Column("id", sa.String(16), primary_key=True),
    sa.Column("bot_id", sa.String(16), nullable=False, index=True),
    sa.Column("table_id", sa.String(16), nullable=False),
    sa.Column("table_name", sa.String(80), nullable=False),
    sa.Column("host", sa.String(80), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
)
player_codes = sa.Table(
    "player_codes",
    metadata,
    sa.Column("code_hash", sa.String(64), primary_key=True),
    sa.Column("player_id", sa.String(16), sa.ForeignKey("players.id"), nullable=False,
              index=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
)
# OpenSkill ratings: ``kind`` "player" (``ref`` a player id) or "bot" (``ref`` a level's
# name); a row per rated game and entrant in ``rating_history``.
ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("kind", sa.String(8), primary_key=True),
    sa.Column("ref", sa.String(32), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)
rating_history = sa.Table(
    "rating_history",
    metadata,
    sa.Column("game_id", sa.String(16), primary_key=True),
    sa.Column("kind", sa.String(8), primary_key=True),
    sa.Column("ref", sa.String(32), primary_key=True),
    sa.Column("mu_before", sa.Float, nullable=False),
    sa.Column("sigma_before", sa.Float, nullable=False),
    sa.Column("mu_after", sa.Float, nullable=False),
    sa.Column("sigma_after", sa.Float, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_rating_history_entrant", "kind", "ref", "at"),
)
# A finished game once its ratings and statistics are written (whether it was rated): the
# primary key makes that happen exactly once, whichever process gets there first.
game_results = sa.Table(
    "game_results",
    metadata,
    sa.Column("game_id", sa.String(16), primary_key=True),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)
# An identity's e-mail address for turn alerts (flip7.server.services.mail): verified by a
# link (only the SHA-256 of its token kept, until it expires), alerts on or off, the
# unsubscribe link's token, and the base of the links it is sent.
player_emails = sa.Table(
    "player_emails",
    metadata,
    sa.Column("player_id", sa.String(16), sa.ForeignKey("players.id"), primary_key=True),
    sa.Column("address", sa.String(254), nullable=False),
    sa.Column("verified", sa.Boolean, nullable=False),
    sa.Column("code_hash", sa.String(64), nullable=True, index=True),
    sa.Column("code_expires", sa.DateTime(timezone=True), nullable=True),
    sa.Column("alerts", sa.Boolean, nullable=False),
    sa.Column("unsubscribe", sa.String(64), nullable=False, unique=True),
    sa.Column("link_base", sa.String(300), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)
# Where an identity's browsers take Web Push turn alerts (flip7.server.services.push): the
# push service's endpoint and the keys the message is encrypted to.
push_subscriptions = sa.Table(
    "push_subscriptions",
    metadata,
    sa.Column("endpoint", sa.String(500), primary_key=True),
    sa.Column("player_id", sa.String(16), sa.ForeignKey("players.id"), nullable=False,
              index=True),
    sa.Column("p256dh", sa.String(200), nullable=False),
    sa.Column("auth", sa.String(100), nullable=False),
    # The browser's language: the service worker words the alert in it.
    sa.Column("lang", sa.String(8), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
# The server's own secrets, made at its first start and shared by every process (the VAPID
# key that signs Web Push messages).
server_secrets = sa.Table(
    "server_secrets",
    metadata,
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
# When a turn alert about a table last went to an identity (at most one an hour a game).
email_alerts = sa.Table(
    "email_alerts",
    metadata,
    sa.Column("player_id", sa.String(16), primary_key=True),
    sa.Column("table_id", sa.String(16), primary_key=True),
    sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
)
# Every finished game of an identity, with its seat's statistics (flip7.analysis.stats).
player_games = sa.Table(
    "player_games",
    metadata,
    sa.Column("player_id", sa.String(16), primary_key=True),
    sa.Column("game_id", sa.String(16), primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("total", sa.Integer, nullable=False),
    sa.Column("won", sa.Boolean, nullable=False),
    sa.Column("stats", sa.Text, nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_player_games_player", "player_id", "finished_at"),
)

# What the database says when the fence trigger refuses a write.
FENCED = "flip7_fenced"


# Every write is one of these statements with its parameters. Built once, so that a move
# costs no statement construction; within a group commit each runs as one executemany, in
# this order (rows before the rows that refer to them).
OPERATIONS: dict[str, Executable] = {
    "table_insert": tables.insert(),
    "game_insert": games.insert(),
    "replay_insert": replays.insert(),
    "scorecard_insert": scorecards.insert(),
    "log_insert": table_log.insert(),
    "chat_insert": table_chat.insert(),
    "table_update": tables.update()
    .where(tables.c.id == sa.bindparam("b_id"))
    .values(
        version=sa.bindparam("b_version"),
        state=sa.bindparam("b_state"),
        to_decide=sa.bindparam("b_to_decide"),
        deadline=sa.bindparam("b_deadline"),
        updated_at=sa.bindparam("b_at"),
        fence=sa.bindparam("b_fence"),
    ),
    "game_finish": games.update()
    .where(games.c.id == sa.bindparam("b_id"))
    .values(
        finished_at=sa.bindparam("b_at"),
        winners=sa.bindparam("b_winners"),
        totals=sa.bindparam("b_totals"),
        record=sa.bindparam("b_record"),
    ),
}
_ORDER = {name: i for i, name in enumerate(OPERATIONS)}

Operation = tuple[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ScorecardRow:
    id: str
    key_hash: str
    name: str
    data: JSONObject
    listing: JSONObject
    version: int
    status: str
    created_at: datetime
    updated_at: datetime


def _scorecard_row(row: sa.Row[tuple[object, ...]], with_data: bool = True) -> ScorecardRow:
    return ScorecardRow(
        id=row.id,
        key_hash=row.key_hash,
        name=row.name,
        data=json_object(row.data) if with_data else {},
        listing=json_object(row.listing),
        version=row.version,
        status=row.status,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class Fenced(StoreError):
    """The database refused a write to a table this process no longer owns (its fencing
    token is not the owner's: another process took the table over)."""


def _refused(exc: Exception) -> StoreError:
    text = str(getattr(exc, "orig", None) or exc)
    return Fenced(text) if FENCED in text else StoreError(text)


def _operation(write: Operation | TableWrite) -> Operation:
    """A write as the statement of :data:`OPERATIONS` that stores it, with its parameters.
    A change is stored as its kind and its own JSON form (flip7.server.table.changes)."""
    if isinstance(write, tuple):
        return write
    match write:
        case TableInsert():
            return ("table_insert", {
                "id": write.id, "name": write.name, "created_at": write.created_at,
                "max_seats": write.max_seats, "rules": dumps(write.rules),
                "turn_timer": write.turn_timer, "bust_odds": write.bust_odds,
                "private": write.private, "rated": write.rated, "state": "waiting",
                "move_hours": write.move_hours,
                "version": 0, "updated_at": write.created_at,
            })  # fmt: skip
        case LogEntry():
            return ("log_insert", {
                "table_id": write.table_id, "seq": write.seq, "kind": write.change.kind,
                "data": dumps(write.change.to_json()), "created_at": write.at,
                "fence": write.fence,
                "player_id": write.change.player_id if isinstance(write.change, Join) else None,
            })  # fmt: skip
        case TableUpdate():
            return ("table_update", {
                "b_id": write.id, "b_version": write.version, "b_state": write.state,
                "b_to_decide": write.to_decide, "b_deadline": write.deadline, "b_at": write.at,
                "b_fence": write.fence,
            })  # fmt: skip
        case GameInsert():
            return ("game_insert", {
                "id": write.id, "table_id": write.table_id, "number": write.number,
                "seed": write.seed, "players": dumps(list(write.players)),
                "rules": dumps(write.rules), "started_at": write.started_at,
            })  # fmt: skip
        case GameFinish():
            return ("game_finish", {
                "b_id": write.id, "b_at": write.at,
                "b_winners": dumps(list(write.winners)), "b_totals": dumps(list(write.totals)),
                "b_record": write.record,
            })  # fmt: skip
        case ChatInsert():
            entry = write.entry
            return ("chat_insert", {
                "table_id": write.table_id, "n": entry.n, "created_at": entry.at,
                "kind": entry.kind, "name": entry.name, "seat": entry.seat,
                "spectator": entry.spectator, "text": entry.text, "fence": write.fence,
            })  # fmt: skip
        case _:  # pragma: no cover - every write is one of the above
            assert_never(write)


_STORED_STATES: dict[str, StoredState] = {
    "waiting": "waiting", "playing": "playing", "over": "over", "suspended": "suspended",
    "closed": "closed",
}


def stored_state(text: str) -> StoredState:
    """A table's state as the database holds it (StoreError for any other text)."""
    state = _STORED_STATES.get(text)
    if state is None:  # pragma: no cover - the server writes no other
        raise StoreError(f"a table's stored state is {text!r}")
    return state


def _stored_game(row: Any) -> StoredGame:
    return StoredGame(
        id=row.id,
        table_id=row.table_id,
        number=row.number,
        seed=row.seed,
        players=json.loads(row.players),
        rules=json.loads(row.rules),
        started_at=row.started_at,
        finished_at=row.finished_at,
        winners=None if row.winners is None else json.loads(row.winners),
        totals=None if row.totals is None else json.loads(row.totals),
        record=None if row.record is None else json.loads(row.record),
    )


def run_migrations(connection: Connection) -> None:
    """Upgrade the database on ``connection`` to the newest schema (Alembic)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    config.attributes["connection"] = connection
    if connection.dialect.name == "postgresql":
        # Many processes starting at once (flip7.server.cluster.node): one migrates, the others
        # wait for it and then find nothing to do. Held until this transaction ends.
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
    command.upgrade(config, "head")


# The PostgreSQL advisory lock that migrations hold ("flip7" in ASCII).
MIGRATION_LOCK = 0x666C697037


class Store:
    """The database behind the server; open it with :meth:`open`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self._queue: asyncio.Queue[tuple[Sequence[Operation], asyncio.Future[None]]] = (
            asyncio.Queue()
        )
        self._writer: asyncio.Task[None] | None = None
        self._renewer: asyncio.Task[None] | None = None
        #: The SQLite file, watched before every commit (None: PostgreSQL or in memory).
        self.file: DatabaseFile | None = None
        #: Whether :meth:`open` created the database file.
        self.created = False
        #: The lease this server holds (None: opened without one, e.g. by a tool).
        self.lease: Lease | None = None
        # The last write refused for want of space, until a write succeeds again.
        self._full: str | None = None
        # Where commits run (committer.py); None: on this loop (an in-memory database,
        # which a second engine would not see).
        self._committer: Committer | None = None
        #: Told of every commit of queued writes: its seconds and how many writes it held
        #: (the operator's metrics, flip7.server.api.metrics).
        self.on_commit: Callable[[float, int], None] | None = None
        # Writes the fence refused (another process runs their table now): the metrics'.
        self.fenced = 0
        # With many processes: this process's id, named by its commit sessions
        # (COMMIT_SESSIONS), so that another process can end them should this one stop
        # in the middle of a commit (flip7.server.store.ownership.Ownership.claim).
        self.node: str | None = None
        # With many processes: why this process may not write now (its lease may have
        # lapsed: flip7.server.cluster.node.Cluster.lease_problem), or None. Asked before
        # each commit, so that a process waking from a pause writes nothing it queued.
        self.paused: Callable[[], str | None] | None = None

    @classmethod
    async def open(
        cls, url: str, lease_seconds: float | None = None, shared: bool = False
    ) -> Store:
        """Connect, run the migrations, take the lease (with ``lease_seconds``: raises
        :class:`~flip7.server.store.lease.DatabaseInUse` if another server holds it, or if
        processes of a cluster run tables on it) and start the writer. ``shared``: this is
        one of many processes (flip7.server.cluster.node), refused while a single server holds
        the lease.

        A new SQLite file is announced with a warning: an empty database where one was
        expected (a wrong working folder, a deleted file) must not pass unnoticed."""
        path = sqlite_file(url)
        created = path is not None and not path.exists()
        engine = _engine(url)
        try:
            async with engine.begin() as conn:
                await conn.run_sync(run_migrations)
            if created:
                log.warning(dumps({"event": "database_created", "path": str(path),
                                   "message": f"creating a new database at {path}"}))
            if path is not None:
                # From now on no connection may create the file: if it is deleted, a new
                # connection fails instead of starting an empty database in its place.
                await engine.dispose()
                engine = _engine(_existing_only(url, path))
            if shared or lease_seconds is not None:
                await _one_kind(engine, shared)
            lease = (
                None
                if lease_seconds is None
                else await Lease.take(engine, server_lease, lease_seconds, url)
            )
        except BaseException:
            await engine.dispose()
            raise
        store = cls(engine)
        store.created = created
        store.file = None if path is None else DatabaseFile(path)
        store.lease = lease
        if not created:
            log.info(dumps({"event": "database_opened", "database": store.description}))
        if store.file is not None or store.dialect != "sqlite":
            committing = _sync_engine(engine.url)
            if store.dialect == "postgresql":
                sa.event.listen(committing, "do_connect", functools.partial(_name_session,
                                                                            store))
            store._committer = Committer(committing)
        store._writer = asyncio.create_task(store._write_loop(), name="flip7-store-writer")
        if lease is not None:
            store._renewer = asyncio.create_task(store._renew_loop(), name="flip7-lease")
        return store

    @property
    def description(self) -> str:
        """Which database this is, for people: the SQLite file, or PostgreSQL's address."""
        if self.file is not None:
            return f"{self.file.path} (SQLite)"
        return describe_database(self.engine.url.render_as_string(hide_password=False))

    async def close(self, release: bool = True) -> None:
        """Finish the queued writes, give the lease up (unless ``release`` is False: a
        caller that hands it on) and disconnect."""
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
        if self._writer is not None:
            # Let queued writes finish: they were promised to someone.
            while not self._queue.empty():
                await asyncio.sleep(0.01)
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
        if self._committer is not None:
            await self._committer.close()
        if self.lease is not None and release and not self.lease.lost:
            try:
                await self.lease.release(self.engine)
            except Exception as exc:  # it expires on its own
                log.warning(dumps({"event": "lease_release_failed", "error": str(exc)}))
        await self.engine.dispose()

    @property
    def write_engine(self) -> sa.Engine:
        """The (synchronous) engine whose connections commit the writes."""
        return self.engine.sync_engine if self._committer is None else self._committer.engine

    async def _renew_loop(self) -> None:
        lease = self.lease
        assert lease is not None
        while not lease.lost:
            await asyncio.sleep(lease.seconds / 3)
            try:
                async with self.engine.begin() as conn:
                    await conn.run_sync(lease.confirm)
            except Exception as exc:
                # Writes fail the same way; health says so. Keep trying.
                log.warning(dumps({"event": "lease_renewal_failed", "error": str(exc)}))
        log.error(dumps({"event": "lease_lost", "problem": lease.problem()}))

    def refusal(self) -> str | None:
        """Why nothing may be written now (the SQLite file gone or replaced, the lease
        taken over), or None."""
        if self.lease is not None and self.lease.lost:
            return self.lease.problem()
        if self.paused is not None and (problem := self.paused()) is not None:
            return problem
        return None if self.file is None else self.file.lost()

    # ------------------------------------------------------------------ writing

    async def write(self, writes: Sequence[Operation | TableWrite], /) -> None:
        """Store ``writes`` (a table's, or names of :data:`OPERATIONS` with their
        parameters) in one transaction; returns once it has committed."""
        operations = [_operation(write) for write in writes]
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        await self._queue.put((operations, future))
        await future

    async def _write_loop(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty() and len(batch) < 256:
                batch.append(self._queue.get_nowait())
            refusal = self.refusal()
            if refusal is not None:
                # Acknowledging a write that cannot be kept would lose it silently.
                log.error(dumps({"event": "write_refused", "writes": len(batch),
                                 "problem": refusal}))
                for _, future in batch:
                    if not future.done():
                        future.set_exception(StoreError(refusal))
                continue
            began = time.perf_counter()
            try:
                await self._commit([s for statements, _ in batch for s in statements])
            except Exception:
                # One bad write must not sink the others: retry them one by one.
                for statements, future in batch:
                    refusal = self.refusal()
                    if refusal is not None:  # a pause, say, while the batch was on its way
                        future.set_exception(StoreError(refusal))
                        continue
                    try:
                        await self._commit(statements)
                    except Exception as exc:
                        refused = _refused(exc)
                        if isinstance(refused, Fenced):
                            self.fenced += 1
                            log.warning(dumps({"event": "write_fenced", "error": str(refused)}))
                        else:
                            log.exception("write failed")
                        self._note_failure(exc)
                        future.set_exception(refused)
                    else:
                        self._full = None
                        future.set_result(None)
            else:
                self._full = None
                if self.on_commit is not None:
                    self.on_commit(time.perf_counter() - began, len(batch))
                for _, future in batch:
                    if not future.done():
                        future.set_result(None)

    def _note_failure(self, exc: Exception) -> None:
        text = str(getattr(exc, "orig", None) or exc)
        if any(sign in text.lower() for sign in _FULL):
            self._full = text

    async def _commit(self, operations: Sequence[Operation]) -> None:
        if self._committer is None:
            async with self.engine.begin() as conn:
                await conn.run_sync(self._commit_in, operations)
        else:

            def commit(engine: sa.Engine) -> None:
                with engine.begin() as conn:
                    self._commit_in(conn, operations)

            await self._committer.run(commit)

    def _commit_in(self, conn: sa.Connection, operations: Sequence[Operation]) -> None:
        """``operations`` executed in ``conn``'s transaction, which commits after (blocking
        code: on the committer's thread, or under ``run_sync``)."""
        groups: dict[str, list[dict[str, Any]]] = {}
        for name, params in operations:
            groups.setdefault(name, []).append(params)
        if self.lease is not None and self.lease.stale() and not self.lease.confirm(conn):
            raise StoreError(self.lease.problem())
        for name in sorted(groups, key=_ORDER.__getitem__):
            rows = groups[name]
            conn.execute(OPERATIONS[name], rows if len(rows) > 1 else rows[0])
        if self.file is not None and (lost := self.file.lost()) is not None:
            raise StoreError(lost)  # rolled back: the file it would go to is not ours

    # ------------------------------------------------------------------ reading

    async def load_tables(
        self, table_id: str | None = None, open_only: bool = False, chat: int = 0
    ) -> list[TableRow]:
        """Every table (or the one with ``table_id``) with its log and games, oldest first;
        ``open_only`` leaves out closed tables (history) and suspended ones (loaded when
        asked for, flip7.server.table.expiry), as a start does; ``chat``: how many of each
        table's most recent chat entries to load."""
        select_tables, select_log, select_games = (
            tables.select().order_by(tables.c.created_at),
            table_log.select().order_by(table_log.c.table_id, table_log.c.seq),
            games.select().order_by(games.c.number),
        )
        if table_id is not None:
            select_tables = select_tables.where(tables.c.id == table_id)
            select_log = select_log.where(table_log.c.table_id == table_id)
            select_games = select_games.where(games.c.table_id == table_id)
        if open_only:
            live = tables.c.state.notin_(("closed", "suspended"))
            open_ids = sa.select(tables.c.id).where(live)
            select_tables = select_tables.where(live)
            select_log = select_log.where(table_log.c.table_id.in_(open_ids))
            select_games = select_games.where(games.c.table_id.in_(open_ids))
        async with self.engine.connect() as conn:
            table_rows = (await conn.execute(select_tables)).all()
            logs: dict[str, list[LogRow]] = {}
            for row in await conn.execute(select_log):
                logs.setdefault(row.table_id, []).append(
                    LogRow(row.seq, row.kind, json.loads(row.data))
                )
            stored_games: dict[str, list[StoredGame]] = {}
            for row in await conn.execute(select_games):
                stored_games.setdefault(row.table_id, []).append(_stored_game(row))
            wanted: sa.ColumnElement[bool] = sa.true()
            if table_id is not None:
                wanted = table_chat.c.table_id == table_id
            elif open_only:
                wanted = table_chat.c.table_id.in_(open_ids)
            chats, switches = await _load_chat(conn, wanted, chat)
        return [
            TableRow(
                id=row.id,
                name=row.name,
                created_at=row.created_at,
                max_seats=row.max_seats,
                rules=json.loads(row.rules),
                turn_timer=row.turn_timer,
                bust_odds=bool(row.bust_odds),
                rated=bool(row.rated),
                move_hours=row.move_hours,
                deadline=None if row.deadline is None else as_utc(row.deadline),
                state=stored_state(str(row.state)),
                log=logs.get(row.id, []),
                games=stored_games.get(row.id, []),
                chat=chats.get(row.id, []),
                spectator_chat=switches.get(row.id, True),
            )
            for row in table_rows
        ]

    async def load_table(self, table_id: str, chat: int = 0) -> TableRow | None:
        rows = await self.load_tables(table_id, chat=chat)
        return rows[0] if rows else None

    async def game(self, game_id: str) -> StoredGame | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(games.select().where(games.c.id == game_id))).first()
        return None if row is None else _stored_game(row)

    async def games_of(self, table_id: str) -> list[StoredGame]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                games.select().where(games.c.table_id == table_id).order_by(games.c.number)
            )
            return [_stored_game(row) for row in rows]

    async def recent_games(self, limit: int) -> list[JSONObject]:
        """The ``limit`` most recently finished games of every table but private ones (a
        tutorial's), closed ones too, newest first: what a client may see of each (no
        seed, no record), with its table's id and name."""
        query = (
            sa.select(
                games.c.id, games.c.table_id, tables.c.name, games.c.finished_at,
                games.c.players, games.c.winners, games.c.totals,
            )
            .join(tables, tables.c.id == games.c.table_id)
            .where(games.c.finished_at.is_not(None), tables.c.private.is_(False))
            .order_by(games.c.finished_at.desc(), games.c.id)
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            {
                "id": row.id,
                "table": row.table_id,
                "table_name": row.name,
                "finished_at": iso(row.finished_at),
                "players": json.loads(row.players),
                "winners": None if row.winners is None else json.loads(row.winners),
                "totals": None if row.totals is None else json.loads(row.totals),
            }
            for row in rows
        ]

    async def count_games(self) -> int:
        async with self.engine.connect() as conn:
            count = await conn.execute(sa.select(sa.func.count()).select_from(games))
            return int(count.scalar_one())

    async def add_replay(self, replay_id: str, record: str, created_at: datetime) -> None:
        """Store an uploaded record (its JSON text, as checked) for viewing; returns once
        it has committed."""
        await self.write([
            ("replay_insert", {"id": replay_id, "record": record, "created_at": created_at})
        ])

    async def replay_record(self, replay_id: str) -> JSONObject | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(replays.select().where(replays.c.id == replay_id))).first()
        return None if row is None else json_object(row.record)

    async def scorecard(self, scorecard_id: str) -> ScorecardRow | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(scorecards.select().where(scorecards.c.id == scorecard_id))
            ).first()
        return None if row is None else _scorecard_row(row)

    async def scorecard_list(self, limit: int) -> list[ScorecardRow]:
        """The ``limit`` most recently changed scorecards, newest first (without ``data``)."""
        columns = [c for c in scorecards.c if c.name != "data"]
        query = (
            sa.select(*columns)
            .order_by(scorecards.c.updated_at.desc(), scorecards.c.id)
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_scorecard_row(row, with_data=False) for row in rows]

    async def add_scorecard(self, row: ScorecardRow) -> None:
        """Store a new scorecard; returns once it has committed."""
        await self.write([("scorecard_insert", {
            "id": row.id, "key_hash": row.key_hash, "name": row.name, "data": dumps(row.data),
            "listing": dumps(row.listing), "version": row.version, "status": row.status,
            "created_at": row.created_at, "updated_at": row.updated_at,
        })])  # fmt: skip

    async def update_scorecard(
        self,
        scorecard_id: str,
        old_version: int,
        *,
        data: JSONObject,
        listing: JSONObject,
        status: str,
        updated_at: datetime,
    ) -> bool:
        """Replace a scorecard if it is still at ``old_version`` (one transaction, committed
        on return); False if someone changed it meanwhile, and nothing is written."""
        statement = (
            scorecards.update()
            .where(scorecards.c.id == scorecard_id, scorecards.c.version == old_version)
            .values(
                data=dumps(data),
                listing=dumps(listing),
                status=status,
                version=old_version + 1,
                updated_at=updated_at,
            )
        )
        refusal = self.refusal()
        if refusal is not None:
            raise StoreError(refusal)
        async with self.engine.begin() as conn:
            result = await conn.execute(statement)
        return bool(result.rowcount == 1)

    async def expire_scorecards(self, untouched_since: datetime, most: int = 1000) -> int:
        """Delete up to ``most`` scorecards nobody has changed since ``untouched_since`` (the
        oldest first: ``updated_at`` is indexed); how many went."""
        oldest = (
            sa.select(scorecards.c.id)
            .where(scorecards.c.updated_at < untouched_since)
            .order_by(scorecards.c.updated_at)
            .limit(most)
        )
        refusal = self.refusal()
        if refusal is not None:
            raise StoreError(refusal)
        async with self.engine.begin() as conn:
            result = await conn.execute(
                scorecards.delete().where(scorecards.c.id.in_(oldest.scalar_subquery()))
            )
        return int(result.rowcount)

    async def table_state(self, table_id: str) -> tuple[StoredState, int] | None:
        """A stored table's state (``closed`` for history) and how many games it has had;
        None if there is no such table."""
        async with self.engine.connect() as conn:
            state = (
                await conn.execute(sa.select(tables.c.state).where(tables.c.id == table_id))
            ).scalar_one_or_none()
            if state is None:
                return None
            count = await conn.execute(
                sa.select(sa.func.count()).select_from(games).where(games.c.table_id == table_id)
            )
            return stored_state(str(state)), int(count.scalar_one())

    async def close_suspended(self, before: datetime) -> list[str]:
        """Close every table suspended since before ``before``; their ids."""
        if (refusal := self.refusal()) is not None:
            raise StoreError(refusal)
        stale = sa.and_(tables.c.state == "suspended", tables.c.updated_at < before,
                        tables.c.deadline.is_(None))  # fmt: skip
        async with self.engine.begin() as conn:
            ids = [str(r.id) for r in await conn.execute(sa.select(tables.c.id).where(stale))]
            if ids:
                await conn.execute(
                    tables.update()
                    .where(tables.c.id.in_(ids), tables.c.state == "suspended")
                    .values(state="closed")
                )
        return ids

    async def due_tables(self, now: datetime) -> list[str]:
        """The suspended tables whose running decision's deadline has passed by ``now``."""
        if (refusal := self.refusal()) is not None:
            raise StoreError(refusal)
        due = sa.and_(tables.c.state == "suspended", tables.c.deadline <= now)
        async with self.engine.connect() as conn:
            return [str(r.id) for r in await conn.execute(sa.select(tables.c.id).where(due))]

    async def check(self) -> str | None:
        """What is wrong with the database now, for health (None: nothing): it does not
        answer, its SQLite file is gone, replaced, read-only or its disk full, a write
        failed for want of space, or the lease was lost or could not be renewed."""
        refusal = self.refusal()
        if refusal is not None:
            return refusal
        try:
            # Asked where the writes go: the connection that must answer, and a loop
            # whose turns a flood does not lengthen (committer.py).
            if self._committer is None:
                async with self.engine.connect() as conn:
                    await conn.run_sync(_select_one)
            else:

                def select_one(engine: sa.Engine) -> None:
                    with engine.connect() as conn:
                        _select_one(conn)

                await self._committer.run(select_one)
        except Exception as exc:
            return f"the database does not answer: {getattr(exc, 'orig', None) or exc}"
        problem = None if self.file is None else self.file.problem()
        if problem is not None:
            return problem
        if self._full is not None:
            return f"the database is full: a write failed ({self._full})"
        lease = self.lease
        if lease is not None and time.monotonic() - lease.confirmed > lease.seconds:
            return (
                "the database lease could not be renewed for "
                f"{time.monotonic() - lease.confirmed:.0f} s"
            )
        return None

    async def ping(self) -> bool:
        """Whether the database is usable (:meth:`check` finds nothing wrong)."""
        return await self.check() is None


def _select_one(conn: sa.Connection) -> None:
    conn.execute(sa.text("SELECT 1"))


async def _one_kind(engine: AsyncEngine, shared: bool) -> None:
    """Refuse to mix one server holding the whole database with a cluster's processes that
    share it table by table: each would write what the other believes is its own."""
    from flip7.server.store.lease import DatabaseInUse

    async with engine.connect() as conn:
        if shared:
            held = (
                await conn.execute(
                    sa.select(server_lease.c.pid, server_lease.c.host).where(
                        server_lease.c.expires_at > utcnow()
                    )
                )
            ).first()
            if held is not None:
                raise DatabaseInUse(
                    f"a single flip7 server (pid {held.pid} on host {held.host}) holds this "
                    "database; stop it before starting processes with --redis"
                )
            return
        alive = (
            await conn.execute(
                sa.select(sa.func.count()).select_from(cluster_node).where(
                    cluster_node.c.expires_at > utcnow()
                )
            )
        ).scalar_one()
        if alive:
            raise DatabaseInUse(
                f"processes started with --redis are running on this database ({alive} "
                "alive); start this one with the same --redis to join them, or stop them first"
            )


async def _load_chat(
    conn: AsyncConnection, wanted: sa.ColumnElement[bool], keep: int
) -> tuple[dict[str, list[ChatEntry]], dict[str, bool]]:
    """The ``keep`` most recent chat entries of each table that ``wanted`` selects (oldest
    first), and each table's spectator switch as its last switching entry left it: one
    query each, however many tables (a window over each table's entries, newest first)."""
    chats: dict[str, list[ChatEntry]] = {}
    switches: dict[str, bool] = {}
    if keep > 0:
        rank = (
            sa.func.row_number()
            .over(partition_by=table_chat.c.table_id, order_by=table_chat.c.n.desc())
            .label("rank")
        )
        newest = sa.select(table_chat, rank).where(wanted).subquery()
        rows = await conn.execute(
            sa.select(newest)
            .where(newest.c.rank <= keep)
            .order_by(newest.c.table_id, newest.c.n)
        )
        for r in rows:
            chats.setdefault(r.table_id, []).append(
                ChatEntry(r.n, r.created_at, chat_kind(r.kind), r.name, r.seat,
                          bool(r.spectator), r.text)
            )
    switched = await conn.execute(
        sa.select(table_chat.c.table_id, table_chat.c.kind)
        .where(wanted, table_chat.c.kind.in_(("spectators_off", "spectators_on")))
        .order_by(table_chat.c.table_id, table_chat.c.n)
    )
    for table_id, kind in switched:  # the last one of each table wins
        switches[table_id] = kind == "spectators_on"
    return chats, switches


# Signs of a full disk in a database error: SQLite's, and PostgreSQL's ENOSPC.
_FULL = ("database or disk is full", "no space left on device", "could not extend file")


def sqlite_file(url: str) -> Path | None:
    """The absolute path of the SQLite file ``url`` names; None for PostgreSQL or an
    in-memory database.

    >>> sqlite_file("sqlite+aiosqlite:////tmp/x.db")
    PosixPath('/tmp/x.db')
    >>> sqlite_file("sqlite+aiosqlite:///:memory:") is None
    True
    """
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return None  # in memory, or an SQLite URI the operator spelled out
    return Path(database).resolve()


def describe_database(url: str) -> str:
    """``url`` for people, without its password.

    >>> describe_database("postgresql+asyncpg://u:secret@db.example:5433/flip7")
    'db.example:5433/flip7 (PostgreSQL)'
    >>> describe_database("sqlite+aiosqlite:////srv/flip7.db")
    '/srv/flip7.db (SQLite)'
    """
    path = sqlite_file(url)
    if path is not None:
        return f"{path} (SQLite)"
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() == "postgresql":
        return f"{parsed.host}:{parsed.port or 5432}/{parsed.database} (PostgreSQL)"
    return parsed.render_as_string(hide_password=True)


def _existing_only(url: str, path: Path) -> str:
    """``url`` as an SQLite URI that opens ``path`` only if it exists (``mode=rw``)."""
    from urllib.parse import quote

    parsed = sa.engine.make_url(url)
    query = {**parsed.query, "mode": "rw", "uri": "true"}
    return parsed.set(database=f"file:{quote(str(path))}", query=query).render_as_string(
        hide_password=False
    )


def _engine(url: str) -> AsyncEngine:
    engine = create_async_engine(url)
    if engine.dialect.name == "sqlite":
        sa.event.listen(engine.sync_engine, "connect", _pragmas)
    return engine


# The blocking driver of each async one, for the committer's thread (committer.py).
_BLOCKING_DRIVERS = {
    "sqlite+aiosqlite": "sqlite+pysqlite",
    "postgresql+asyncpg": "postgresql+psycopg",
}


# The application_name of a process's commit sessions, before its node id.
COMMIT_SESSIONS = "flip7-commits:"


def _name_session(store: Store, _dialect: sa.Dialect, _record: ConnectionPoolEntry,
                  _args: list[object], params: dict[str, object]) -> None:  # fmt: skip
    # Named for the claim of a lapsed owner's tables, which ends its commit sessions
    # (flip7.server.store.ownership): a pipelined commit left mid-way escapes PostgreSQL's
    # idle-in-transaction timeout.
    if store.node is not None:
        params["application_name"] = COMMIT_SESSIONS + store.node


# A commit is one tight call on a thread of its own (committer.py): a transaction of it
# left idle is one whose process stopped in the middle (SIGSTOP, a machine that hangs),
# holding the fence's lock on its tables' owner rows (migration 0006), so that no other
# process could take them over before it woke. PostgreSQL ends such a session after this
# many milliseconds, well within the owners' lease (3 s by default).
IDLE_IN_COMMIT_MS = 1500


def _sync_engine(url: sa.URL) -> sa.Engine:
    """A synchronous engine on the database of the async engine at ``url``.

    >>> _sync_engine(sa.make_url("sqlite+aiosqlite:///x.db")).url.drivername
    'sqlite+pysqlite'
    """
    driver = _BLOCKING_DRIVERS.get(url.drivername, url.drivername)
    connect_args: dict[str, str] = {}
    if driver.startswith("postgresql+psycopg"):
        connect_args["options"] = f"-c idle_in_transaction_session_timeout={IDLE_IN_COMMIT_MS}"
    engine = sa.create_engine(url.set(drivername=driver), connect_args=connect_args)
    if engine.dialect.name == "sqlite":
        sa.event.listen(engine, "connect", _pragmas)
    return engine


def _pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL: readers don't wait for the writer, and a commit survives the process being
    # killed (only a power cut can lose the last commits).
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def json_object(text: str) -> JSONObject:
    """Stored JSON text that holds an object (a record, a scorecard, a row's statistics)
    as that object.

    >>> json_object('{"seat": 1}')
    {'seat': 1}
    """
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"stored JSON is not an object: {text[:40]!r}")
    return data

