"""The lobby's list across every process: each writes the entries of the tables it runs to
one Redis hash (``flip7:lobby``), and any reads them all.

Redis holds nothing that is not in PostgreSQL: a restarted Redis gets every process's part
written again.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from pydantic import BaseModel, ConfigDict

from flip7.core.jsontypes import JSONObject
from flip7.server.cluster.bus import Bus
from flip7.server.table.lobby import Lobby
from flip7.server.table.table import Table

__all__ = ["LOBBY_KEY", "Entry", "Listing"]

LOBBY_KEY = "flip7:lobby"
# Entries the list shows at most (as the one-process lobby's).
SHOWN = 200


class Entry(BaseModel):
    """One table in the lobby's list: whether it is shown there (Lobby.listing's rules),
    its age, its summary, and what the store keeps of its host's seat token
    (Table.host_token_hash: the list tells its holder ``hosting``; never sent to clients)."""

    model_config = ConfigDict(frozen=True)

    listed: bool
    created_at: str
    summary: dict[str, Any]
    host_token_hash: str | None = None

    @classmethod
    def of(cls, table: Table, now: float) -> Entry:
        listed = table.state != "over" and not table.deserted(now) and not table.private
        return cls(listed=listed, created_at=table.created_at.isoformat(),
                   summary=table.summary(), host_token_hash=table.host_token_hash)


class Listing:
    """This process's part of the lobby's list, written every half second (what changed)
    and every ten seconds (all of it), and the whole list, read."""

    def __init__(self, lobby: Lobby, bus: Bus) -> None:
        self.lobby = lobby
        self.bus = bus
        # Tables whose entry may have changed (the lobby's tables add themselves).
        self.dirty: set[str] = set()
        self._listed: dict[str, Table] = {}
        self._cache: tuple[float, list[JSONObject]] = (0.0, [])
        # The host's token hash of each table of the list last read (Entry.host_token_hash).
        self._hosts: dict[str, str] = {}
        # The entry last written for each table: most moves change nothing the list shows,
        # and writing it again anyway was most of Redis's commands (docs/deploy.md, "How
        # many"). The full pass every ten seconds writes every entry regardless.
        self._written: dict[str, str] = {}

    async def loop(self) -> None:
        rounds = 0
        while True:
            await asyncio.sleep(0.5)
            rounds += 1
            with contextlib.suppress(Exception):
                await self._publish(full=rounds % 20 == 0)

    def rewrite(self) -> None:
        """Write every entry at the next pass, changed or not (a restarted Redis holds
        nothing)."""
        self._written.clear()
        self.dirty.update(self.lobby.tables)

    async def _publish(self, full: bool) -> None:
        if not self.bus.up:
            return
        tables = self.lobby.tables
        ids = set(tables) if full else self.dirty & set(tables)
        self.dirty.clear()
        gone = [i for i, t in self._listed.items() if t.closed]
        for table_id, table in list(self._listed.items()):
            if tables.get(table_id) is not table:
                self._listed.pop(table_id)  # closed, or moved: its new owner writes it
                self._written.pop(table_id, None)
        if not ids and not gone:
            return
        now = self.lobby.clock()
        pipe = self.bus.redis.pipeline(transaction=False)
        wrote = False
        for table_id in ids:
            table = tables[table_id]
            text = Entry.of(table, now).model_dump_json()
            self._listed[table_id] = table
            if not full and self._written.get(table_id) == text:
                continue
            pipe.hset(LOBBY_KEY, table_id, text)
            self._written[table_id] = text
            wrote = True
        if gone:
            pipe.hdel(LOBBY_KEY, *gone)
        if wrote or gone:
            await pipe.execute()

    async def tables(self) -> list[JSONObject]:
        """The lobby's list across every process (Lobby.listing's rules), at most half a
        second old; :class:`Exception` when Redis does not answer."""
        at, cached = self._cache
        if time.monotonic() - at < 0.5:
            return cached
        stored = await self.bus.redis.hgetall(LOBBY_KEY)
        entries = [Entry.model_validate_json(text) for text in stored.values()]
        shown = sorted((e for e in entries if e.listed), key=lambda e: e.created_at,
                       reverse=True)
        answer: list[JSONObject] = [e.summary for e in shown[:SHOWN]]
        self._hosts = {str(e.summary["id"]): e.host_token_hash for e in shown[:SHOWN]
                       if e.host_token_hash is not None}
        self._cache = (time.monotonic(), answer)
        return answer

    def host_token_hash(self, table_id: str) -> str | None:
        """What the store keeps of the host's seat token at ``table_id``, as the list last
        read (:meth:`tables`) had it; None for a table without a host or not in it."""
        return self._hosts.get(table_id)
