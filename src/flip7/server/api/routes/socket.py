"""The table socket, ``/ws/tables/{table_id}``: one per client, for play.

A socket is admitted (the handshake gate, its address's open sockets), waits for hello
(``hello_timeout``), then carries the client's frames to the table, each within this socket's
and its address's budgets (:class:`SocketClient`), each parsed once, here. Its session
(flip7.server.api.owner.session) takes them on: at the table, when this process runs it, else
at the process that does.

What is sent to it is counted here too, against its address (``bytes_per_minute_per_address``,
all its sockets, whichever process runs the table): a welcome past the budget is refused with
an error frame naming the limit and the socket closed (1013, try again later), and so is an
update to a spectator; a seated player's updates are counted but never cut mid-game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import AsyncIterator

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.types import Message

from flip7.server.api import guard, owner
from flip7.server.api.wiring import Services, Use
from flip7.server.base.closecodes import CloseCode
from flip7.server.base.formats import dumps
from flip7.server.base.limits import AddressBudget, TokenBucket, client_address
from flip7.server.base.protocol import (
    Chat,
    Hello,
    Move,
    Ping,
    ProtocolError,
    SpectatorChat,
    parse_client_message,
)
from flip7.server.base.settings import Settings
from flip7.server.base.sockets import PONG, error_frame
from flip7.server.cluster.link import Session
from flip7.server.table.errors import TableError
from flip7.server.table.seat import Seat

__all__ = ["SocketClient", "router"]

log = logging.getLogger("flip7.server")

router = APIRouter()

# What a frame starts with (formats.dumps writes these keys first, without spaces): a
# welcome, and a spectator's (no seat).
_WELCOME = '{"v":1,"type":"welcome",'
_SPECTATOR_WELCOME = _WELCOME + '"seat":null,'


@router.websocket("/ws/tables/{table_id}")
async def table_socket(ws: WebSocket, table_id: str, services: Use) -> None:
    async with admitted(ws, services) as client:
        if client is not None:
            await _serve(ws, table_id, client, services)


@contextlib.asynccontextmanager
async def admitted(ws: WebSocket, services: Services) -> AsyncIterator[SocketClient | None]:
    """A new WebSocket (a table's, or a bot's stream) past the handshake gate and its
    address's open sockets, accepted, as a :class:`SocketClient` with its address's
    budgets; None when refused (the client was told). Counted open for the block."""
    settings, sockets = services.settings, services.sockets
    address = client_address(ws.client)
    handle = guard.connection_handle(ws.scope)
    if handle is None:
        refusal = sockets.handshakes.check(address)
        if refusal is not None:
            with contextlib.suppress(Exception):
                await ws.send_denial_response(refusal.response())
            yield None
            return
    await ws.accept()
    if not sockets.open_per_address.acquire(address):
        limit = settings.connections_per_address
        with contextlib.suppress(Exception):
            await ws.send_text(error_frame(
                "too_many_connections", f"at most {limit} connections from one address at once"))
            await ws.close(code=CloseCode.POLICY_VIOLATION,
                           reason="too many connections from this address")
        yield None
        return
    try:
        yield SocketClient(ws, settings, address, sockets.frames, sockets.strikes,
                           sockets.handshakes, handle, sockets.chats, sockets.sent)
    finally:
        sockets.open_per_address.release(address)


async def _serve(ws: WebSocket, table_id: str, client: SocketClient, services: Services) -> None:
    lobby, settings = services.lobby, services.settings
    services.sockets.open.add(ws)
    sender = asyncio.create_task(client.send_loop())
    # Where the socket's messages go: the table here, or the process that runs it.
    session: Session | None = None
    said_hello = False
    loop = asyncio.get_running_loop()
    hello_by = loop.time() + settings.hello_timeout
    try:
        try:
            # Within the hello's time: a socket is never left without an answer, whatever
            # the database, Redis or a table's owner do meanwhile.
            async with asyncio.timeout(settings.hello_timeout):
                session = await owner.session(lobby, table_id, client)
        except TimeoutError:
            log.warning(dumps({"event": "socket_unplaced", "table": table_id,
                               "seconds": settings.hello_timeout}))  # fmt: skip
            client.error("unavailable", "the process running this table cannot be reached "
                         "right now; try again in a moment")  # fmt: skip
            client.close(CloseCode.TRY_AGAIN_LATER)
            await sender
            return
        except TableError as exc:  # Redis or the database does not answer
            client.error(exc.code, exc.message)
            client.close(CloseCode.TRY_AGAIN_LATER)
            await sender
            return
        if session is None:
            gone = await lobby.gone(table_id)
            client.error(gone.code, gone.message)
            client.close(CloseCode.gone(gone.code))
            await sender
            return
        while not client.closing:
            if not session.greeted:
                try:
                    message = await asyncio.wait_for(ws.receive(), hello_by - loop.time())
                except TimeoutError:
                    client.error("hello_timeout", "send hello within "
                                 f"{settings.hello_timeout:g} seconds of connecting")
                    client.close(CloseCode.HELLO_TIMEOUT)
                    break
            else:
                message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            parsed = await client.read(message, session)
            if parsed is None:
                continue
            if isinstance(parsed, Ping):
                client.push(PONG)
                continue
            if isinstance(parsed, Chat | SpectatorChat) and session.greeted:
                refusal = client.chat_refusal()  # this socket's budgets are here
                if refusal is not None:
                    client.error("chat_rate_limited", refusal)
                    continue
            await session.handle(parsed)
            if session.greeted and not said_hello:
                said_hello = True
                if client.handle is not None:
                    client.handle.said_hello()
    except WebSocketDisconnect:
        pass
    finally:
        services.sockets.open.discard(ws)
        if session is not None:
            await session.end()
        if client.closing:  # let the sender say goodbye with the close code
            with contextlib.suppress(Exception):
                await asyncio.wait_for(sender, 2)
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await sender


class SocketClient:
    """One WebSocket: its seat, its send queue and its rate limits."""

    def __init__(
        self, ws: WebSocket, settings: Settings, address: str = "unknown",
        frames: AddressBudget | None = None, strikes: AddressBudget | None = None,
        gate: guard.HandshakeGate | None = None, handle: guard.ConnectionHandle | None = None,
        chats: AddressBudget | None = None, sent: AddressBudget | None = None,
    ) -> None:
        self.ws = ws
        self.gate = gate
        self.handle = handle
        self.place: Seat | None = None
        self.settings = settings
        self.address = address
        self.closing = False
        # Whether its welcome gave it no seat: a spectator's updates may be cut.
        self.watching = True
        self._queue: asyncio.Queue[str | tuple[int, str]] = asyncio.Queue()
        now = time.monotonic()
        self._bucket = TokenBucket(settings.rate_per_second, settings.rate_burst,
                                   settings.rate_burst, now)
        # rate_limited frames are few whatever the flood: a burst of 3, then one a second.
        self._notices = TokenBucket(1.0, 3.0, 3.0, now)
        self._frames = frames if frames is not None else AddressBudget(
            settings.frames_per_second_per_address * 60, settings.frames_burst_per_address)
        self._strikes = strikes if strikes is not None else AddressBudget(
            settings.rate_strikes, settings.rate_strikes)
        # Chat: this socket's budget and its address's (see chat_refusal).
        self._chat = TokenBucket(settings.chat_per_minute / 60.0, settings.chat_burst,
                                 settings.chat_burst, now)
        self._chats = chats if chats is not None else AddressBudget(
            settings.chat_per_minute_per_address, settings.chat_burst_per_address)
        self._sent = sent if sent is not None else AddressBudget(
            settings.bytes_per_minute_per_address, settings.bytes_burst_per_address)

    def chat_refusal(self) -> str | None:
        """Why this socket may not chat now (too many messages from it, or from its
        address, with how long to wait), or None; a message allowed takes a token of each."""
        settings = self.settings
        now = time.monotonic()
        if not self._chat.take(now):
            wait = self._chat.wait(now)
            return (
                f"you are chatting too fast: at most {settings.chat_per_minute:g} messages a "
                f"minute ({settings.chat_burst} at once, limit chat_per_minute); try again in "
                f"{max(1, math.ceil(wait))} seconds"
            )
        if not self._chats.take(self.address):
            wait = self._chats.retry_after(self.address)
            return (
                "too many chat messages from your address: at most "
                f"{settings.chat_per_minute_per_address:g} a minute "
                f"({settings.chat_burst_per_address} at once, limit "
                f"chat_per_minute_per_address); try again in {max(1, math.ceil(wait))} seconds"
            )
        return None

    def push(self, message: str) -> None:
        if self.closing or not self._within_bytes(message):
            return
        if self._queue.qsize() >= self.settings.send_queue_limit:
            # A client that does not read would hold memory forever; it can reconnect.
            self.close(CloseCode.TRY_AGAIN_LATER, "too many messages waiting to be read")
            return
        self._queue.put_nowait(message)

    def _within_bytes(self, frame: str) -> bool:
        """Whether ``frame`` may be sent within its address's bytes budget, which it takes
        from. A welcome, or an update to a spectator, past it is refused: the client is told
        (the limit named) and the socket closed (it may come back later). A seated player's
        frames are counted but always sent: a game is never cut in the middle."""
        welcome = frame.startswith(_WELCOME)
        if welcome:
            self.watching = frame.startswith(_SPECTATOR_WELCOME)
        size = len(frame)  # frames are ASCII JSON (formats.dumps escapes the rest)
        if self._sent.take(self.address, size) or not (welcome or self.watching):
            return True
        settings = self.settings
        wait = max(1, math.ceil(size / self._sent.rate)) if self._sent.rate > 0 else 60
        self._queue.put_nowait(error_frame(
            "rate_limited",
            f"too many bytes sent to your address: at most "
            f"{settings.bytes_per_minute_per_address} a minute "
            f"({settings.bytes_burst_per_address} at once, limit bytes_per_minute_per_address);"
            f" try again in {wait} seconds",
        ))
        self.close(CloseCode.TRY_AGAIN_LATER, "too many bytes sent to this address")
        return False

    def close(self, code: int, reason: str = "") -> None:
        """Close the socket with ``code`` once what is queued has been sent."""
        if not self.closing:
            self.closing = True
            self._queue.put_nowait((code, reason))

    def error(self, code: str, message: str, move_id: str | None = None) -> None:
        self.push(error_frame(code, message, move_id))

    async def read(
        self, message: Message, session: Session
    ) -> Hello | Move | Ping | Chat | SpectatorChat | None:
        """A frame's message, parsed; None when the frame is refused (over this socket's
        or its address's budget, binary, too large, or no message: the client is told)."""
        text = self.text_of(message)
        if text is None:
            return None
        try:
            return parse_client_message(text)
        except ProtocolError as exc:
            # A move whose decision does not parse is refused here, at the edge, as
            # illegal_move (with its id and, after hello, the table where it runs here).
            state = await session.state() if exc.code == "illegal_move" else None
            self.push(error_frame(exc.code, exc.message, exc.move_id, state))
            return None

    def text_of(self, message: Message) -> str | None:
        """A frame's text, once admitted (:meth:`admit`); None when it is refused (over a
        budget, binary, too large: the client is told). A bot's stream reads it too."""
        if not self.admit(message):
            return None
        text = message.get("text")
        if text is None:
            self.error("bad_message", "frames must be text (JSON), not binary")
            return None
        limit = self.settings.max_message_bytes
        if len(text) > limit or len(text.encode()) > limit:
            self.error("too_large", f"a message may be at most {limit} bytes")
            return None
        return str(text)

    def admit(self, message: Message) -> bool:
        """Whether a frame (of any kind: text, binary, too large, malformed) may be handled:
        it takes a token from this connection's bucket and from its address's. A refused
        frame is a strike against the address; past ``rate_strikes`` a minute the
        connection is closed (1008). Refusals are answered with at most a few
        ``rate_limited`` frames a second, naming the move refused."""
        now = time.monotonic()
        if self._bucket.take(now) and self._frames.take(self.address):
            return True
        if not self._strikes.take(self.address):
            # A flooder: its address's handshakes are refused for a while, and this socket
            # is no longer read (its frames not even parsed) while it closes.
            if self.gate is not None:
                self.gate.cool_off(self.address)
            if self.handle is not None:
                self.handle.flooding()
            self.close(CloseCode.POLICY_VIOLATION, "too many messages")
            return False
        if self._notices.take(now):
            rate = min(self.settings.rate_per_second, self.settings.frames_per_second_per_address)
            self.error("rate_limited", f"too many messages: at most {rate:g} a second",
                       self._move_id(message))
        return False

    def _move_id(self, message: Message) -> str | None:
        # Parsed only for the few refusals answered, so a flood costs no parsing.
        text = message.get("text")
        if not isinstance(text, str) or len(text) > self.settings.max_message_bytes:
            return None
        try:
            parsed = parse_client_message(text)
        except ProtocolError as exc:
            return exc.move_id
        return parsed.id if isinstance(parsed, Move) else None

    async def send_loop(self) -> None:
        while True:
            item = await self._queue.get()
            if isinstance(item, tuple):
                with contextlib.suppress(Exception):
                    await self.ws.close(code=item[0], reason=item[1] or None)
                return
            try:
                await self.ws.send_text(item)
            except Exception:  # the socket went away: the receive side sees it too
                self.closing = True
                return
