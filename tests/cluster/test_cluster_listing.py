"""The lobby list's writes to Redis (flip7.server.cluster.listing): an entry is written
when what it shows changed, every entry at the full pass, and all again once Redis comes
back empty. Stand-ins for the lobby, its tables and the bus: only what a pass reads."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from flip7.server.cluster.listing import LOBBY_KEY, Listing


class _Table:
    def __init__(self, table_id: str) -> None:
        self.id = table_id
        self.state = "playing"
        self.private = False
        self.closed = False
        self.created_at = datetime(2026, 12, 5, tzinfo=UTC)
        self.players = ["Ann", "Bob"]
        self.host_token_hash: str | None = None

    def deserted(self, now: float) -> bool:
        return False

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "state": self.state, "players": list(self.players)}


class _Lobby:
    def __init__(self, *tables: _Table) -> None:
        self.tables = {t.id: t for t in tables}

    def clock(self) -> float:
        return 0.0


class _Pipeline:
    def __init__(self, log: list[tuple[str, ...]]) -> None:
        self.log = log
        self.queued: list[tuple[str, ...]] = []

    def hset(self, key: str, field: str, value: str) -> None:
        self.queued.append(("hset", key, field))

    def hdel(self, key: str, *fields: str) -> None:
        self.queued.append(("hdel", key, *fields))

    async def execute(self) -> None:
        self.log.extend(self.queued)


class _Redis:
    def __init__(self) -> None:
        self.log: list[tuple[str, ...]] = []

    def pipeline(self, transaction: bool) -> _Pipeline:
        return _Pipeline(self.log)


class _Bus:
    up = True

    def __init__(self) -> None:
        self.redis = _Redis()


def _pass(listing: Listing, bus: _Bus, full: bool = False) -> list[tuple[str, ...]]:
    bus.redis.log.clear()
    asyncio.run(listing._publish(full=full))
    return sorted(bus.redis.log)


def test_an_entry_is_written_again_only_when_what_it_shows_changed() -> None:
    a, b = _Table("A"), _Table("B")
    lobby, bus = _Lobby(a, b), _Bus()
    listing = Listing(lobby, bus)  # type: ignore[arg-type]
    listing.dirty.update({"A", "B"})
    assert _pass(listing, bus) == [("hset", LOBBY_KEY, "A"), ("hset", LOBBY_KEY, "B")]
    # A move that changes nothing the list shows: nothing is written.
    listing.dirty.update({"A", "B"})
    assert _pass(listing, bus) == []
    a.players.append("Cyd")
    listing.dirty.update({"A", "B"})
    assert _pass(listing, bus) == [("hset", LOBBY_KEY, "A")]
    # The full pass writes every entry, changed or not.
    assert _pass(listing, bus, full=True) == [("hset", LOBBY_KEY, "A"), ("hset", LOBBY_KEY, "B")]
    # Redis came back empty: everything is written at the next pass.
    listing.rewrite()
    assert _pass(listing, bus) == [("hset", LOBBY_KEY, "A"), ("hset", LOBBY_KEY, "B")]
    # A closed table's entry is deleted, and written again if its id comes back.
    b.closed = True
    del lobby.tables["B"]
    assert _pass(listing, bus) == [("hdel", LOBBY_KEY, "B")]
    lobby.tables["B"] = b2 = _Table("B")
    listing.dirty.add("B")
    assert _pass(listing, bus) == [("hset", LOBBY_KEY, "B")]
    assert b2 is lobby.tables["B"]
