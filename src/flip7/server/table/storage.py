"""What the live table needs of storage, and the values it hands over and gets back.

The table is the game master: it decides every change, and storage only keeps what it is
given. :class:`TableStorage` is all the table asks of it; the server's database
(flip7.server.store.database.Store) is one, and tests may bring their own. The table writes
:data:`TableWrite` values (a new table, a change for its log, a game started or finished, a
chat entry), several at once in one transaction, and reads each table back as a
:class:`TableRow`: its options, its change log and its games, from which it is rebuilt.

>>> from flip7.server.table.changes import Remove
>>> entry = LogEntry("t1", 3, Remove(seat=2), datetime(2026, 1, 2), fence=None)
>>> entry.change.kind, entry.change.to_json()
('remove', {'seat': 2})
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol, TypeAlias

from flip7.core.jsontypes import JSONObject
from flip7.server.base.formats import iso
from flip7.server.table.changes import Change
from flip7.server.table.chat import ChatEntry

__all__ = [
    "ChatInsert",
    "GameFinish",
    "GameInsert",
    "LogEntry",
    "LogRow",
    "StoreError",
    "StoredGame",
    "StoredState",
    "TableInsert",
    "TableRow",
    "TableStorage",
    "TableUpdate",
    "TableWrite",
]

StoredState = Literal["waiting", "playing", "over", "suspended", "closed"]
"""A stored table's state: a live table's (flip7.server.table.options.TableState),
``suspended``: a game its players are away from, out of memory until one of them (or anyone
asking for it) comes back, then ``playing`` again (flip7.server.table.expiry), or
``closed``: history, never loaded again."""


class StoreError(Exception):
    """Storage refused a write; the table is rebuilt from what was stored."""


# ---------------------------------------------------------------------- writing


@dataclass(frozen=True, slots=True)
class TableInsert:
    """A new table, waiting at version 0, stored with its first change."""

    id: str
    name: str
    created_at: datetime
    max_seats: int
    rules: JSONObject
    turn_timer: int | None
    bust_odds: bool
    private: bool
    rated: bool
    # A turn-based table's hours per decision (None: a live table).
    move_hours: int | None = None


@dataclass(frozen=True, slots=True)
class LogEntry:
    """A change appended to a table's log as entry ``seq`` (the version it leads to),
    written under the owner's fencing token ``fence`` (flip7.server.cluster.node; None:
    one process)."""

    table_id: str
    seq: int
    change: Change
    at: datetime
    fence: int | None


@dataclass(frozen=True, slots=True)
class TableUpdate:
    """A table's version and state after a change (or its closing), under ``fence``, the
    seat its game waits for (``to_decide``; None between games) and, at a turn-based
    table, when that seat's decision is made for it (``deadline``; None: no clock runs)."""

    id: str
    version: int
    state: StoredState
    at: datetime
    fence: int | None
    to_decide: int | None
    deadline: datetime | None = None


@dataclass(frozen=True, slots=True)
class GameInsert:
    """A game started at a table: its shuffle seed (never sent to a client), its players'
    names and its rules."""

    id: str
    table_id: str
    number: int
    seed: int
    players: tuple[str, ...]
    rules: JSONObject
    started_at: datetime


@dataclass(frozen=True, slots=True)
class GameFinish:
    """A game over: its winners' and every seat's totals, and its record
    (``flip7-record/1`` text, flip7.engine.record)."""

    id: str
    at: datetime
    winners: tuple[int, ...]
    totals: tuple[int, ...]
    record: str


@dataclass(frozen=True, slots=True)
class ChatInsert:
    """A chat entry of a table (flip7.server.table.chat), under ``fence``."""

    table_id: str
    entry: ChatEntry
    fence: int | None


TableWrite: TypeAlias = TableInsert | LogEntry | TableUpdate | GameInsert | GameFinish | ChatInsert
"""Anything the table stores."""


# ---------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class LogRow:
    """A stored change as the log holds it: the version it led to, its kind and data (read
    with flip7.server.table.changes.change_from_json)."""

    seq: int
    kind: str
    data: JSONObject


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game of a table as the store holds it: its seed and players, and once it is over
    its winners, totals and record (not ``flip7.tournament.GameRow``, a tournament's row)."""

    id: str
    table_id: str
    number: int
    seed: int
    players: list[str]
    rules: JSONObject
    started_at: datetime
    finished_at: datetime | None
    winners: list[int] | None
    totals: list[int] | None
    record: JSONObject | None

    def summary(self) -> JSONObject:
        """What a client may see of the game (no seed, no record)."""
        return {
            "id": self.id,
            "number": self.number,
            "players": [name for name in self.players],
            "over": self.finished_at is not None,
            "winners": None if self.winners is None else [seat for seat in self.winners],
            "totals": None if self.totals is None else [total for total in self.totals],
            "started_at": iso(self.started_at),
            "finished_at": None if self.finished_at is None else iso(self.finished_at),
        }


@dataclass(frozen=True, slots=True)
class TableRow:
    """A stored table: its options, its change log (oldest first) and its games."""

    id: str
    name: str
    created_at: datetime
    max_seats: int
    rules: JSONObject
    turn_timer: int | None
    log: list[LogRow]
    games: list[StoredGame]
    bust_odds: bool = True
    rated: bool = False
    # A turn-based table's hours per decision (None: live), and the running decision's
    # deadline as stored: a rebuilt table keeps it rather than starting a fresh clock.
    move_hours: int | None = None
    deadline: datetime | None = None
    # As stored: ``suspended`` tells whoever rebuilds it to store it as live again.
    state: StoredState = "playing"
    # The table's most recent chat entries, oldest first (as many as it asked for), and
    # the spectator switch its last switching entry left (True if never switched).
    chat: list[ChatEntry] = field(default_factory=list)
    spectator_chat: bool = True


class TableStorage(Protocol):
    """What the tables ask of storage (flip7.server.store.database.Store is one)."""

    async def write(self, writes: Sequence[TableWrite], /) -> None:
        """Store ``writes`` in one transaction; returns once it has committed. Raises
        :class:`StoreError` if storage refused them (nothing of them is stored)."""

    async def load_tables(
        self, table_id: str | None = None, open_only: bool = False, chat: int = 0
    ) -> list[TableRow]:
        """Every table (or the one with ``table_id``) with its log and games, oldest first;
        ``open_only``: neither the closed nor the suspended ones; ``chat``: how many of each
        table's most recent chat entries to load."""

    async def load_table(self, table_id: str, chat: int = 0) -> TableRow | None:
        """The table ``table_id`` (:meth:`load_tables`), or None if there is none."""

    async def count_games(self) -> int:
        """How many games were ever started, at every table."""

    async def table_state(self, table_id: str) -> tuple[StoredState, int] | None:
        """A stored table's state and how many games it has had; None if there is none."""

    async def close_suspended(self, before: datetime) -> list[str]:
        """Close the tables suspended since before ``before`` (history from now on), but
        not a turn-based one whose clock runs (its deadline wakes it); their ids."""

    async def due_tables(self, now: datetime) -> list[str]:
        """The suspended turn-based tables whose decision's deadline has passed by ``now``
        (to be woken: the stand-in bot decides)."""
