"""A socket's messages at a table this process runs: hello, a move, a chat message.

The same :class:`Here` answers a socket connected to this process and a socket another
process forwarded (flip7.server.cluster.remote.RemoteClient): to a table, a client is
whatever can be pushed frames and closed (flip7.server.table.lobby.Client). The socket's
own process has already parsed each message and held it to the socket's budgets.
"""

from __future__ import annotations

from typing import assert_never

from flip7.core.jsontypes import JSONObject
from flip7.server.base.closecodes import CloseCode
from flip7.server.base.formats import dumps
from flip7.server.base.protocol import Chat, Hello, Move, SpectatorChat
from flip7.server.base.sockets import error_frame
from flip7.server.cluster.messages import TableMessage
from flip7.server.table.errors import TableError
from flip7.server.table.lobby import Lobby
from flip7.server.table.seat import Seat
from flip7.server.table.table import Client, Table

__all__ = ["Here", "state_of"]

# A refused move is answered with the table when the client's view may be behind.
_WITH_STATE = ("stale_version", "illegal_move", "not_your_turn")


async def state_of(table: Table, viewer: Seat | None) -> JSONObject:
    """The table as ``viewer`` (None: a spectator) sees it, read under its lock."""
    async with table.lock:
        return table.state_json(viewer)


class Here:
    """One socket (``client``) at ``table_id``, which this process runs: its hello attaches
    it to the table (as its seat, or as a spectator), then its moves and chat go to it."""

    def __init__(self, lobby: Lobby, table_id: str, client: Client) -> None:
        self.lobby = lobby
        self.table_id = table_id
        self.client = client
        # The table once hello was answered.
        self.table: Table | None = None
        # The name a spectator's chat messages go under, given at its first.
        self.spectator_name: str | None = None

    @property
    def greeted(self) -> bool:
        return self.table is not None

    async def handle(self, message: TableMessage) -> None:
        if isinstance(message, Hello):
            await self._hello(message)
            return
        if self.table is None:
            self._error("hello_first", "send hello before anything else")
            return
        # The table object is replaced when it is rebuilt from its log.
        table = self.table = self.lobby.tables.get(self.table_id, self.table)
        match message:
            case Move():
                await self._move(table, message)
            case Chat() | SpectatorChat():
                await self._chat(table, message)
            case _:
                assert_never(message)

    async def state(self) -> JSONObject | None:
        if self.table is None:
            return None
        return await state_of(self.lobby.tables.get(self.table_id, self.table), self.client.place)

    async def end(self) -> None:
        if self.table is not None:
            await self.lobby.tables.get(self.table_id, self.table).detach(self.client)

    def _error(
        self, code: str, message: str, move_id: str | None = None,
        table: JSONObject | None = None,
    ) -> None:
        self.client.push(error_frame(code, message, move_id, table))

    async def _hello(self, hello: Hello) -> None:
        if self.table is not None:
            self._error("bad_message", "hello was already sent on this connection")
            return
        table = await self.lobby.wake(self.table_id)
        if table is None and self.lobby.cluster is not None:
            self.client.close(CloseCode.MOVED)  # it moved to another process: reconnect to it
            return
        if table is None:
            gone = await self.lobby.gone(self.table_id)  # closed since the socket opened
            self._error(gone.code, gone.message)
            if gone.code == "closed":
                self.client.close(CloseCode.CLOSED)
            return
        place = None
        if hello.token is not None:
            try:
                place = table.place_of(hello.token)
            except TableError as exc:
                self._error(exc.code, exc.message)
                return
        if place is None:
            refused = table.spectator_welcome_refusal()
            if refused is not None:
                self._error(refused.code, refused.message)
                self.client.close(CloseCode.TRY_AGAIN_LATER)
                return
        self.client.place = place
        await table.attach(self.client, hello.last_version)
        self.table = table

    async def _move(self, table: Table, move: Move) -> None:
        """A move (its decision parsed by the protocol) to the table; the engine judges it."""
        place = self.client.place
        if place is None:
            self._error("spectator", "spectators cannot make moves; join a seat first", move.id)
            return
        try:
            version = await self.lobby.move(table, place, move.id, move.version, move.decision)
        except TableError as exc:
            state = await state_of(table, place) if exc.code in _WITH_STATE else None
            self._error(exc.code, exc.message, move.id, state)
            return
        self.client.push(
            dumps({"v": 1, "type": "result", "id": move.id, "ok": True, "version": version})
        )

    async def _chat(self, table: Table, message: Chat | SpectatorChat) -> None:
        """A chat message to everyone at the table, or the host switching spectators' chat
        off or on. The sender's confirmation is the ``chat`` frame everyone gets."""
        place = self.client.place
        try:
            if isinstance(message, SpectatorChat):
                await table.talk.switch(place, message.allowed)
                return
            # A seat removed before the game leaves its client watching: it chats as one.
            watching = place is None or place not in table.seats
            if watching and self.spectator_name is None:
                self.spectator_name = table.chat.spectator_name()
            await table.talk.say(place, self.spectator_name or "Spectator", message.text)
        except TableError as exc:
            self._error(exc.code, exc.message)
