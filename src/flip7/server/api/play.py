"""One WebSocket frame at a table: hello, a move, a chat message.

The same code answers a socket connected to this process and a socket another process
forwarded (flip7.server.cluster.node.RemoteClient): a client is whatever can be pushed frames and
closed, with what holds its seat and its spectator name.
"""

from __future__ import annotations

from typing import Any, Protocol

from flip7.server.base.formats import dumps
from flip7.server.base.protocol import Chat, Hello, Move, SpectatorChat
from flip7.server.cluster.node import MOVED_CODE
from flip7.server.table.errors import TableError
from flip7.server.table.expiry import CLOSED_CODE
from flip7.server.table.lobby import Lobby
from flip7.server.table.seat import Seat
from flip7.server.table.table import Table

__all__ = ["PlayClient", "dispatch", "state_of"]


class PlayClient(Protocol):
    """A socket as a table's frames see it."""

    place: Seat | None
    spectator_name: str | None
    closing: bool

    def push(self, message: str) -> None: ...
    def close(self, code: int, reason: str = "") -> None: ...
    def error(self, code: str, message: str, move_id: str | None = None,
              table: dict[str, Any] | None = None) -> None: ...
    def chat_refusal(self) -> str | None: ...
    @property
    def handle(self) -> Any: ...


async def state_of(table: Table, viewer: Seat | None) -> dict[str, Any]:
    """The table as ``viewer`` (None: a spectator) sees it, read under its lock."""
    async with table.lock:
        return table.state_json(viewer)


async def dispatch(
    lobby: Lobby, table_id: str, client: PlayClient, parsed: Any, table: Table | None
) -> Table | None:
    """Handle one parsed frame (not a ping) of ``client`` at ``table_id``; ``table`` is the
    table once hello was answered. Returns the table from then on."""
    if parsed.type == "hello":
        if table is not None:
            client.error("bad_message", "hello was already sent on this connection")
            return table
        found = lobby.tables.get(table_id)
        if found is None and lobby.cluster is not None:
            client.close(MOVED_CODE)  # it moved to another process: reconnect to it
            return None
        if found is None:
            gone = await lobby.gone(table_id)  # closed since the socket opened
            client.error(gone.code, gone.message)
            if gone.code == "closed":
                client.close(CLOSED_CODE)
            return None
        joined = await _hello(found, client, parsed)
        if joined is not None and client.handle is not None:
            client.handle.said_hello()
        return joined
    if table is None:
        client.error("hello_first", "send hello before anything else")
        return None
    table = lobby.tables.get(table_id, table)
    if isinstance(parsed, Move):
        await _move(lobby, table, client, parsed)
    else:
        await _chat(table, client, parsed)
    return table


async def _hello(table: Table, client: PlayClient, hello: Hello) -> Table | None:
    place = None
    if hello.token is not None:
        try:
            place = table.place_of(hello.token)
        except TableError as exc:
            client.error(exc.code, exc.message)
            return None
    client.place = place
    await table.attach(client, hello.last_version)
    return table


async def _move(lobby: Lobby, table: Table, client: PlayClient, move: Move) -> None:
    """A move (its decision parsed by the protocol) to the table; the engine judges it."""
    if client.place is None:
        client.error("spectator", "spectators cannot make moves; join a seat first", move.id)
        return
    try:
        version = await lobby.move(table, client.place, move.id, move.version, move.decision)
    except TableError as exc:
        with_state = exc.code in ("stale_version", "illegal_move", "not_your_turn")
        state = await state_of(table, client.place) if with_state else None
        client.error(exc.code, exc.message, move.id, state)
        return
    client.push(dumps({"v": 1, "type": "result", "id": move.id, "ok": True, "version": version}))


async def _chat(table: Table, client: PlayClient, message: Chat | SpectatorChat) -> None:
    """A chat message to everyone at the table, or the host switching spectators' chat off
    or on, within this socket's and this address's chat budgets. The sender's
    confirmation is the ``chat`` frame everyone gets."""
    refusal = client.chat_refusal()
    if refusal is not None:
        client.error("chat_rate_limited", refusal)
        return
    try:
        if isinstance(message, SpectatorChat):
            await table.talk.switch(client.place, message.allowed)
            return
        # A seat removed before the game leaves its client watching: it chats as one.
        watching = client.place is None or client.place not in table.seats
        if watching and client.spectator_name is None:
            client.spectator_name = table.chat.spectator_name()
        await table.talk.say(client.place, client.spectator_name or "Spectator", message.text)
    except TableError as exc:
        client.error(exc.code, exc.message)
