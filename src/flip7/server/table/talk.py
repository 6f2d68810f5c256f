"""Chat at a live table: a message stored, then sent to every client; the host's switch
of spectators' chat. What a message may hold and the entries a table keeps are
flip7.server.table.chat's.

Not under the table's lock, which a bot holds while it thinks: chat neither waits for a
move nor changes the version a move is checked against.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Protocol

from flip7.core.jsontypes import JSON
from flip7.server.base.formats import dumps
from flip7.server.base.limits import TokenBucket
from flip7.server.base.settings import Settings
from flip7.server.table.chat import ChatEntry, ChatLog, ChatRefused
from flip7.server.table.errors import TableError, not_stored
from flip7.server.table.seat import Seat
from flip7.server.table.storage import ChatInsert, StoreError, TableStorage

__all__ = ["Listener", "Talk", "TalkTable"]


class Listener(Protocol):
    """A client as chat sees it: what it is sent."""

    def push(self, message: str) -> None: ...


class TalkTable(Protocol):
    """A table as :class:`Talk` sees it (flip7.server.table.table.Table)."""

    @property
    def id(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def fence(self) -> int | None: ...
    @property
    def seats(self) -> list[Seat | None]: ...
    @property
    def clients(self) -> Iterable[Listener]: ...
    @property
    def chat(self) -> ChatLog: ...

    def check_open(self) -> None:
        """Raise ``closed`` (410) if the table was closed."""

    def seat_or_none(self, place: Seat) -> int | None:
        """The seat ``place`` holds, or None (removed before the game)."""

    def broadcast(self, version: int, events: str) -> None:
        """Send every client the table, as an update of ``version`` with ``events``."""

    def log(self, event: str, **fields: JSON) -> None:
        """Tell the operator's log ``event`` at this table."""


class Talk:
    """A table's chat: who may say what, and the order of storing and sending."""

    def __init__(self, table: TalkTable, settings: Settings, store: TableStorage) -> None:
        self.table = table
        self.settings = settings
        self.store = store
        # Spectators' messages at this table, whatever their addresses: many addresses
        # must not fill the chat history a newcomer is sent. Seated players are not held
        # to it.
        per_minute, burst = settings.spectator_chat_per_minute, settings.spectator_chat_burst
        self.spectators = TokenBucket(per_minute / 60.0, burst, burst, time.monotonic())

    @property
    def host(self) -> int | None:
        """The table's host, who may switch spectators' chat off and on and invite bot
        accounts: the first seat of a human (not a bot account) who has not left (None when
        there is none)."""
        for seat, place in enumerate(self.table.seats):
            if (place is not None and place.kind == "human" and not place.bot_account
                    and not place.left):
                return seat
        return None

    async def say(self, place: Seat | None, spectator_name: str, text: str) -> ChatEntry:
        """Store a chat message from ``place`` (None: a spectator, shown as
        ``spectator_name``), then send it to every client of the table. Refused with
        ``bad_chat`` (empty, too long, a control character), ``chat_muted`` (a spectator,
        or a player who left, while the host has spectators' chat off),
        ``chat_rate_limited`` (a spectator, or a player who left, past the table's
        ``spectator_chat_per_minute``), ``closed``."""
        table = self.table
        table.check_open()
        seat = None if place is None else table.seat_or_none(place)
        watching = place is None or seat is None or place.left
        name = spectator_name if place is None or seat is None else place.name
        try:
            entry = table.chat.message(seat, name, watching, text, self.settings.chat_max_chars,
                                       self.spectators, time.monotonic())
        except ChatRefused as exc:
            raise TableError(exc.code, exc.message, exc.status) from None
        await self._post(entry)
        return entry

    async def switch(self, place: Seat | None, allowed: bool) -> ChatEntry | None:
        """The host turns spectators' chat on or off: stored and sent to everyone as a chat
        entry, then the table (its ``chat`` settings changed) as an update of the same
        version. None if it already was so. Anyone else: ``not_host``."""
        table = self.table
        table.check_open()
        seat = None if place is None else table.seat_or_none(place)
        host = self.host
        if place is None or seat is None or seat != host:
            holder = None if host is None else table.seats[host]
            who = "" if holder is None else f" ({holder.name})"
            raise TableError(
                "not_host",
                f"only the table's host{who}, the first seated player, can turn "
                "spectators' chat off or on",
                403,
            )
        entry = table.chat.switch(seat, place.name, allowed)
        if entry is None:
            return None
        await self._post(entry)
        table.broadcast(table.version, "[]")
        return entry

    async def _post(self, entry: ChatEntry) -> None:
        """Store a chat entry, then send it to every client (never the other way round)."""
        table = self.table
        try:
            await self.store.write([ChatInsert(table.id, entry, table.fence)])
        except StoreError:
            raise not_stored("the message") from None
        table.chat.add(entry)
        # The operator's log says that someone chatted, never what: it is the players'.
        table.log("chat", n=entry.n, kind=entry.kind, seat=entry.seat)
        frame = dumps({"v": 1, "type": "chat", "chat": entry.to_json()})
        for client in list(table.clients):
            client.push(frame)
