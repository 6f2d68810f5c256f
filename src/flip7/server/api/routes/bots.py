"""The bot API (``docs/bot-api.md``): bot accounts' streams, invitations and moves.

A bot authenticates with its bot token, ``Authorization: Bearer bot.<id>.<secret>``
(flip7.server.services.players); its stream is a WebSocket (``/api/bot/ws``) or, for a
language without one, an event stream (``GET /api/bot/stream``, ``text/event-stream``) with
the REST calls beside it. A table's host invites a bot account with the seat's token.
:class:`flip7.server.api.bots.BotHub` does the work.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, Header, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import Receive, Scope, Send

from flip7.core.jsontypes import JSONObject
from flip7.server.api.bots import BotError
from flip7.server.api.errors import errors
from flip7.server.api.routes.socket import SocketClient, admitted
from flip7.server.api.wiring import Services, Use
from flip7.server.base.closecodes import CloseCode
from flip7.server.base.errors import ServerError
from flip7.server.base.formats import dumps
from flip7.server.base.limits import client_address
from flip7.server.base.protocol import (
    BotAccept,
    BotChat,
    BotDecline,
    BotMove,
    BotReady,
    Chat,
    Move,
    ProtocolError,
    Ready,
    Text,
    parse_bot_message,
    parse_client_message,
)
from flip7.server.base.requests import bearer
from flip7.server.base.sockets import PONG, error_frame
from flip7.server.services.players import BotAvailability
from flip7.server.store.players import BotAccount
from flip7.server.table.errors import TableError

__all__ = ["router"]

router = APIRouter(tags=["bots"], responses=errors(400, 401, 403, 404, 409, 429))

# An event stream says something at least this often (a comment line), so that proxies
# keep it open and a bot that went away is noticed.
KEEPALIVE_SECONDS = 15.0
# How a move's error frame is answered by REST.
_MOVE_STATUS = {"rate_limited": 429, "illegal_move": 422, "bad_message": 400}


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class InviteBot(_Body):
    """Which bot account the host invites: its identity's id (``GET /api/bot-accounts``)."""

    bot: Annotated[Text, Field(min_length=1, max_length=32)]


class MoveBody(_Body):
    """A seat's move, as a table socket's ``move`` without ``v`` and ``type``."""

    id: Annotated[Text, Field(min_length=1, max_length=64)]
    version: int
    decision: Annotated[Text, Field(max_length=200)]


# ---------------------------------------------------------------------- the lobby's side


@router.get("/api/bot-accounts", response_model=None)
async def available_bots(services: Use) -> JSONObject:
    """The bot accounts that take invitations now (``available``), by name, with whether
    their stream is open at this server (``online``)."""
    return {"bots": [
        {"id": bot.player_id, "name": bot.name, "online": services.bots.online(bot.player_id)}
        for bot in await services.players.available()
    ]}  # fmt: skip


@router.post("/api/tables/{table_id}/invitations", status_code=201, response_model=None)
async def invite(
    table_id: str, body: InviteBot, request: Request, services: Use,
    authorization: str | None = Header(None),
) -> Response:
    """The table's host (its seat's token) invites a bot account to a seat: 201 ``{id,
    table_id, bot}``; the bot hears of it on its stream. 403 ``not_host``, 404 ``no_bot``,
    409 ``started`` / ``table_full``, 429 past ``joins_per_minute`` from one address."""
    account = await services.players.bot_named(body.bot)
    invitation = await services.bots.invite(
        table_id, bearer(authorization), account, client_address(request.client))
    return JSONResponse({"id": invitation.id, "table_id": table_id, "bot": account.player_id},
                        status_code=201)


# ---------------------------------------------------------------------- the bot's side


@router.get("/api/bot/account", response_model=None)
async def account(services: Use, authorization: str | None = Header(None)) -> JSONObject:
    """The bot account of this token: ``{id, name, available, online}``."""
    bot = await services.players.bot_of(authorization)
    return {"id": bot.player_id, "name": bot.name, "available": bot.available,
            "online": services.bots.online(bot.player_id)}


@router.put("/api/bot/available", response_model=None)
async def set_available(
    body: BotAvailability, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    """Whether the lobby lists this bot account as taking invitations."""
    bot = await services.players.bot_of(authorization)
    return await services.players.set_available(bot, body.available)


@router.post("/api/bot/invitations/{invitation_id}/accept", response_model=None)
async def accept(
    invitation_id: str, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    """Take the seat: ``{table_id, seat}``; its welcome follows on the stream. 404
    ``no_invitation``; the table refuses as any join (409 ``started``, ``table_full``,
    ``name_taken``...)."""
    bot = await services.players.bot_of(authorization)
    return await services.bots.accept(bot, invitation_id)


@router.post("/api/bot/invitations/{invitation_id}/decline", response_model=None)
async def decline(
    invitation_id: str, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    bot = await services.players.bot_of(authorization)
    return await services.bots.decline(bot, invitation_id)


@router.post("/api/bot/tables/{table_id}/move", response_model=None)
async def move(
    table_id: str, body: MoveBody, request: Request, services: Use,
    authorization: str | None = Header(None),
) -> Response:
    """One move of the bot's seat at ``table_id``, judged as a human seat's: 200 with the
    table's ``result`` frame, or its ``error`` frame with 409 (``stale_version``,
    ``not_your_turn``...), 422 ``illegal_move``, 429 ``rate_limited``. Both go on the
    stream too (when it is open). 404 ``no_seat``."""
    bot = await services.players.bot_of(authorization)
    services.bots.spend_move(bot, client_address(request.client))
    frame = await services.bots.move(bot, table_id, _move_of(body))
    code = _error_code(frame)
    status = 200 if code is None else _MOVE_STATUS.get(code, 409)
    return Response(frame, status_code=status, media_type="application/json")


def _move_of(body: MoveBody) -> Move:
    """The REST body as the socket's ``move``, parsed by the same code (its decision
    refused as ``illegal_move`` exactly as on a socket)."""
    text = dumps({"v": 1, "type": "move", "id": body.id, "version": body.version,
                  "decision": body.decision})
    try:
        parsed = parse_client_message(text)
    except ProtocolError as exc:
        status = 422 if exc.code == "illegal_move" else 400
        raise BotError(exc.code, exc.message, status) from None
    assert isinstance(parsed, Move)
    return parsed


def _error_code(frame: str) -> str | None:
    data = json.loads(frame)
    return str(data["code"]) if data.get("type") == "error" else None


@router.get("/api/bot/tables/{table_id}/record", response_model=None)
async def record(
    table_id: str, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    """The current game's record so far at the seat's table (RECORD.md: players, rules,
    dealer, every card drawn, every decision; what the seat has seen, never the draw
    pile's order) and the table as the seat sees it, ``{"table", "record"}``: replayed
    (``flip7.engine.record.replay_game``), it is the game a built-in bot decides in."""
    bot = await services.players.bot_of(authorization)
    return await services.bots.record(bot, table_id)


@router.post("/api/bot/tables/{table_id}/ready", response_model=None)
async def ready(
    table_id: str, body: Ready, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    """At the end screen, whether the seat at ``table_id`` is ready for the next game
    (``{"ready": true}``, the default), as a human seat's ``POST /api/tables/{id}/ready``:
    ``{"table"}``. It starts once every human seat staying is ready. 409 ``not_over``,
    ``not_enough_players``; 404 ``no_seat``."""
    bot = await services.players.bot_of(authorization)
    return await services.bots.ready(bot, table_id, body.ready)


@router.post("/api/bot/tables/{table_id}/leave", response_model=None)
async def leave(
    table_id: str, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    """Leave the seat at ``table_id``: emptied before the start, played by the stand-in
    bot during a game (as a human's leave)."""
    bot = await services.players.bot_of(authorization)
    return await services.bots.leave(bot, table_id)


# ---------------------------------------------------------------------- the event stream


class _EventStream:
    """A bot's event stream: frames queued, sent as ``data:`` lines."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.closing = False
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()

    def push(self, message: str) -> None:
        if self.closing:
            return
        if self._queue.qsize() >= self.limit:
            self.close(CloseCode.TRY_AGAIN_LATER, "too many messages waiting to be read")
            return
        self._queue.put_nowait(message)

    def close(self, code: int, reason: str = "") -> None:
        if not self.closing:
            self._queue.put_nowait(dumps({"v": 1, "type": "closed", "code": code,
                                          "reason": reason}))
            self.closing = True
            self._queue.put_nowait(None)

    async def events(self) -> AsyncIterator[str]:
        while True:
            try:
                item = await asyncio.wait_for(self._queue.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield ": keep-alive\n\n"
                continue
            if item is None:
                return
            yield f"data: {item}\n\n"


class _EventResponse(StreamingResponse):
    """An event stream that runs ``on_close`` however it ends: the bot closed it (the
    server hears the disconnect at once) or the server did."""

    def __init__(self, stream: _EventStream, on_close: Callable[[], Awaitable[None]]) -> None:
        super().__init__(stream.events(), media_type="text/event-stream",
                         headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        self.on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            sending = asyncio.ensure_future(self.stream_response(send))
            hearing = asyncio.ensure_future(self.listen_for_disconnect(receive))
            await asyncio.wait((sending, hearing), return_when=asyncio.FIRST_COMPLETED)
            for task in (sending, hearing):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task  # its failure, if any (the bot went away), is read here
        finally:
            await self.on_close()


@router.get("/api/bot/stream", response_model=None)
async def event_stream(
    request: Request, services: Use, authorization: str | None = Header(None)
) -> Response:
    """The bot's event stream (``text/event-stream``): one ``data:`` line per frame, as
    the WebSocket carries them (invitations, and each seat's frames with its
    ``table_id``); answer and move by REST. A new stream replaces the old one. It counts
    as one of its address's open connections (429 ``too_many_connections`` past
    ``connections_per_address``)."""
    bot = await services.players.bot_of(authorization)
    address = client_address(request.client)
    opened = services.sockets.open_per_address
    if not opened.acquire(address):
        raise BotError("too_many_connections", "at most "
                       f"{services.settings.connections_per_address} connections from one "
                       "address at once", 429)
    stream = _EventStream(services.settings.send_queue_limit)
    try:
        await services.bots.connect(bot, stream)
    except BaseException:
        opened.release(address)
        raise

    async def closed() -> None:
        opened.release(address)
        await services.bots.gone(bot, stream)

    return _EventResponse(stream, closed)


# ---------------------------------------------------------------------- the WebSocket


@router.websocket("/api/bot/ws")
async def bot_socket(ws: WebSocket, services: Use) -> None:
    """The bot's WebSocket: frames as the event stream's, and the bot's messages
    (``accept``, ``decline``, ``move``, ``chat`` and ``ready`` with their ``table_id``,
    ``ping``),
    each within the budgets of any socket and the account's moves."""
    async with admitted(ws, services) as client:
        if client is None:
            return
        client.watching = False  # a bot's frames are its seats': never cut mid-game
        sender = asyncio.create_task(client.send_loop())
        bot: BotAccount | None = None
        try:
            bot = await services.players.bot_of(ws.headers.get("authorization"))
        except ServerError as exc:
            client.error(exc.code, exc.message)
            client.close(CloseCode.UNAUTHORIZED, "no bot token this server knows")
        try:
            if bot is not None:
                await services.bots.connect(bot, client)
                await _serve(ws, client, bot, services)
        except WebSocketDisconnect:
            pass
        finally:
            if bot is not None:
                await services.bots.gone(bot, client)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(sender, 2)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender


async def _serve(ws: WebSocket, client: SocketClient, bot: BotAccount, services: Services) -> None:
    while not client.closing:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = client.text_of(message)
        if text is None:
            continue
        try:
            parsed = parse_bot_message(text)
        except ProtocolError as exc:
            client.push(error_frame(exc.code, exc.message, exc.move_id))
            continue
        try:
            match parsed:
                case BotAccept():
                    await services.bots.accept(bot, parsed.invitation)
                case BotDecline():
                    await services.bots.decline(bot, parsed.invitation)
                case BotMove():
                    services.bots.spend_move(bot)
                    # The seat's own move (parsed: constructed, not validated again).
                    await services.bots.play(bot, parsed.table_id, Move.model_construct(
                        v=1, type="move", id=parsed.id, version=parsed.version,
                        decision=parsed.decision))
                case BotChat():
                    await services.bots.play(bot, parsed.table_id, Chat.model_construct(
                        v=1, type="chat", text=parsed.text))
                case BotReady():  # the table's update says it
                    await services.bots.ready(bot, parsed.table_id, parsed.ready)
                case _:
                    client.push(PONG)
        except (ServerError, TableError) as exc:
            move_id = parsed.id if isinstance(parsed, BotMove) else None
            client.push(error_frame(exc.code, exc.message, move_id))
