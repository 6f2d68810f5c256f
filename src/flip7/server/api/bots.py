"""The bot API's hub: bot accounts' streams, their invitations and their seats.

A bot account (flip7.server.services.players) plays at live tables as a program, not a
browser. A table's host invites it (:meth:`BotHub.invite`); the invitation goes to its
**stream** (a WebSocket, ``/api/bot/ws``, or an event stream, ``GET /api/bot/stream``:
flip7.server.api.routes.bots), where the bot accepts or declines it. Accepted, the hub
takes a seat for it (a ``join`` with the account's identity, marked ``bot_account``) and
keeps the seat's token itself: the bot never holds it, so its bot token acts for the seats
its account holds and for nothing else.

Each seat is played through the very session a human's table socket has
(:func:`flip7.server.api.owner.session`, here or at the process running the table): the
hub says hello with the seat's token, and what the table sends the seat (``welcome``,
``update``, ``result``, ``error``, ``chat``: the same frames, views and legal decisions a
human seat gets) goes to the bot's stream with the table's id in front,
``{"table_id": ..., "v": 1, "type": ...}``. A bot's ``move`` (on the WebSocket, or
``POST /api/bot/tables/{id}/move``) is handed to that session like a human's, and the
engine judges it the same way.

While no stream of the account is open its sessions are closed: its seats are away, like
a human's who closed the tab, and the existing presence machinery hands a seat whose turn
waits to the stand-in bot (``handover_auto``); a stream that opens again says hello again
and takes the seats back. A decision not made within ``bot_move_seconds`` is the stand-in
bot's (flip7.server.table.turns). One stream per account: a new one replaces the old.

The hub is this process's: invitations and the seats' tokens live in its memory (a
restart forgets them: the seats are then played by the stand-in bot), and a bot's stream
reaches the tables of every process through the sessions (a cluster links them), while an
invitation reaches a bot whose stream is open on the process that took the invitation.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Protocol

from flip7.core.jsontypes import JSONObject
from flip7.server.api import owner
from flip7.server.base.closecodes import CloseCode
from flip7.server.base.errors import ServerError
from flip7.server.base.formats import dumps
from flip7.server.base.limits import AddressBudget
from flip7.server.base.protocol import Chat, Hello, Move
from flip7.server.base.requests import Invite, Join, Leave, PublicRecord
from flip7.server.base.settings import Settings
from flip7.server.cluster.link import Session
from flip7.server.store.players import BotAccount
from flip7.server.table.errors import TableError
from flip7.server.table.lobby import Lobby
from flip7.server.table.seat import Seat

__all__ = ["BotError", "BotHub", "Invitation", "Stream", "with_table"]

# Invitations a bot account holds at once (the oldest go first), and how long each lasts.
MAX_INVITATIONS = 50
INVITATION_SECONDS = 15 * 60
# How long a REST move waits for the table's answer (its result or error frame).
MOVE_ANSWER_SECONDS = 10.0


class BotError(ServerError):
    """A bot API request the server refuses (no such invitation, no seat at that table, a
    move the table did not answer): ``code`` names why, ``status`` is the HTTP status."""


def with_table(table_id: str, frame: str) -> str:
    """A seat's frame as a bot's stream carries it: the table's id in front.

    >>> with_table("t1", '{"v":1,"type":"pong"}')
    '{"table_id":"t1","v":1,"type":"pong"}'
    """
    return '{"table_id":' + json.dumps(table_id) + "," + frame[1:]


class Stream(Protocol):
    """What carries frames to a bot: its WebSocket or its event stream."""

    def push(self, message: str) -> None:
        """Queue ``message`` for sending; never blocks."""

    def close(self, code: int, reason: str = "") -> None:
        """Close the stream once what is queued has been sent."""


@dataclass(frozen=True, slots=True)
class Invitation:
    """A host's invitation of a bot account to a seat at ``table_id``."""

    id: str
    table_id: str
    table_name: str
    host: str
    bot_id: str
    expires: float

    def frame(self) -> str:
        return dumps({"v": 1, "type": "invitation", "id": self.id, "table_id": self.table_id,
                      "table_name": self.table_name, "host": self.host,
                      "expires_in": max(0, round(self.expires - time.monotonic()))})


class _Seat:
    """One seat a bot account holds: the client its table sees (frames go on to the
    account's stream) and the session its moves go through while a stream is open."""

    def __init__(self, bot: _Bot, table_id: str, token: str) -> None:
        self.bot = bot
        self.table_id = table_id
        self.token = token
        self.place: Seat | None = None
        self.session: Session | None = None
        # Move id -> the REST move waiting for its result or error frame.
        self.waiting: dict[str, asyncio.Future[str]] = {}

    def push(self, message: str) -> None:
        if self.waiting and message.startswith(('{"v":1,"type":"result"', '{"v":1,"type":"error"')):
            answered = json.loads(message).get("id")
            future = self.waiting.pop(answered, None) if isinstance(answered, str) else None
            if future is not None and not future.done():
                future.set_result(message)
        stream = self.bot.stream
        if stream is not None:
            stream.push(with_table(self.table_id, message))

    def close(self, code: int) -> None:
        """The table closed this seat's connection: the table is closed (the seat is
        gone), or it moved (said hello again at the next stream)."""
        self.session = None
        if code in (CloseCode.CLOSED, CloseCode.NO_TABLE):
            self.bot.seats.pop(self.table_id, None)


@dataclass
class _Bot:
    """A bot account as this process holds it: its stream, seats and invitations."""

    account: BotAccount
    stream: Stream | None = None
    seats: dict[str, _Seat] = field(default_factory=dict)
    invitations: dict[str, Invitation] = field(default_factory=dict)


class BotHub:
    """This process's bot accounts: streams, invitations and seats."""

    def __init__(
        self, lobby: Lobby, settings: Settings, frames: AddressBudget | None = None
    ) -> None:
        self.lobby = lobby
        self.settings = settings
        # Every client's frames per address (the table sockets'): a REST move counts there
        # as a socket's move frame does.
        self.frames = frames if frames is not None else AddressBudget(
            settings.frames_per_second_per_address * 60, settings.frames_burst_per_address)
        self._bots: dict[str, _Bot] = {}
        # Disconnections being carried through (:meth:`gone`).
        self._closing: set[asyncio.Future[None]] = set()
        # Every bot account's moves, per identity (its WebSocket and REST moves together),
        # at the rate and burst a socket's frames have.
        self.moves = AddressBudget(settings.rate_per_second * 60, settings.rate_burst)
        self.invitations = AddressBudget(settings.joins_per_minute, settings.joins_burst)

    def _bot(self, account: BotAccount) -> _Bot:
        bot = self._bots.get(account.player_id)
        if bot is None:
            bot = self._bots[account.player_id] = _Bot(account)
        bot.account = account
        return bot

    def online(self, player_id: str) -> bool:
        """Whether the bot account has a stream open at this process."""
        bot = self._bots.get(player_id)
        return bot is not None and bot.stream is not None

    # ------------------------------------------------------------------ invitations

    async def invite(
        self, table_id: str, host_token: str | None, account: BotAccount, address: str
    ) -> Invitation:
        """The table's host (``host_token``) invites ``account`` to a seat: the table must
        wait for its players with an empty seat (flip7.server.table.lobby.Lobby.may_invite);
        the bot's stream is told at once, or when it opens."""
        if not self.invitations.take(address):
            wait = max(1, round(self.invitations.retry_after(address)))
            raise BotError("rate_limited", "too many invitations from your address: at most "
                           f"{self.settings.joins_per_minute:g} a minute (limit "
                           f"joins_per_minute); try again in {wait} seconds", 429)
        answer = await owner.run(self.lobby, Invite(table_id=table_id, token=host_token))
        table = answer.table
        host_seat = table.get("chat", {}).get("host")
        seats = table.get("seats", [])
        host = next((str(s.get("name")) for s in seats if s.get("seat") == host_seat), "?")
        invitation = Invitation(secrets.token_urlsafe(9), table_id, str(table.get("name")),
                                host, account.player_id,
                                time.monotonic() + INVITATION_SECONDS)
        bot = self._bot(account)
        self._expire(bot)
        while len(bot.invitations) >= MAX_INVITATIONS:
            del bot.invitations[next(iter(bot.invitations))]
        bot.invitations[invitation.id] = invitation
        if bot.stream is not None:
            bot.stream.push(invitation.frame())
        return invitation

    @staticmethod
    def _expire(bot: _Bot) -> None:
        now = time.monotonic()
        for key in [k for k, i in bot.invitations.items() if i.expires <= now]:
            del bot.invitations[key]

    def _invitation(self, bot: _Bot, invitation_id: str) -> Invitation:
        self._expire(bot)
        invitation = bot.invitations.pop(invitation_id, None)
        if invitation is None:
            raise BotError("no_invitation", f"there is no invitation {invitation_id[:32]!r} for "
                           "this bot account (answered, expired, or never made)", 404)
        return invitation

    async def accept(self, account: BotAccount, invitation_id: str) -> JSONObject:
        """Take the seat ``invitation_id`` offers: ``{"table_id", "seat"}``. The table
        refuses as it would any join (``started``, ``table_full``, ``name_taken``,
        ``already_seated``...); with a stream open, the seat's welcome follows on it."""
        bot = self._bot(account)
        invitation = self._invitation(bot, invitation_id)
        token = secrets.token_urlsafe(24)
        answer = await owner.run(self.lobby, Join(
            table_id=invitation.table_id, name=account.name, player_id=account.player_id,
            token=token, bot_account=True))
        seat = _Seat(bot, invitation.table_id, token)
        bot.seats[invitation.table_id] = seat
        if bot.stream is not None:
            await self._open(seat)
        return {"table_id": invitation.table_id, "seat": answer.seat}

    def decline(self, account: BotAccount, invitation_id: str) -> JSONObject:
        invitation = self._invitation(self._bot(account), invitation_id)
        return {"id": invitation.id, "declined": True}

    # ------------------------------------------------------------------ streams

    async def connect(self, account: BotAccount, stream: Stream) -> None:
        """A stream of ``account`` opened: it replaces any older one (closed, code 4409),
        is told the invitations waiting, and every seat says hello again (its welcome)."""
        bot = self._bot(account)
        old, bot.stream = bot.stream, stream
        if old is not None:
            old.close(CloseCode.REPLACED, "another stream of this bot account opened")
            for seat in bot.seats.values():
                await self._end(seat)
        self._expire(bot)
        for invitation in bot.invitations.values():
            stream.push(invitation.frame())
        for seat in list(bot.seats.values()):
            await self._open(seat)

    async def gone(self, account: BotAccount, stream: Stream) -> None:
        """:meth:`disconnect`, carried through even when the stream's own task is being
        cancelled (a server that cancels a closed connection's handler): the seats must
        be away, or the stand-in would never take them over."""
        task = asyncio.ensure_future(self.disconnect(account, stream))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(task)

    async def disconnect(self, account: BotAccount, stream: Stream) -> None:
        """``stream`` closed: the account's seats are away until a stream opens again."""
        bot = self._bots.get(account.player_id)
        if bot is None or bot.stream is not stream:
            return
        bot.stream = None
        for seat in list(bot.seats.values()):
            await self._end(seat)

    async def _open(self, seat: _Seat) -> None:
        try:
            session = await owner.session(self.lobby, seat.table_id, seat)
        except TableError as exc:
            seat.push(dumps({"v": 1, "type": "error", "code": exc.code, "message": exc.message,
                             "id": None, "table": None}))
            return
        if session is None:  # the table was closed meanwhile
            seat.bot.seats.pop(seat.table_id, None)
            return
        seat.session = session
        await session.handle(Hello(v=1, type="hello", token=seat.token))

    @staticmethod
    async def _end(seat: _Seat) -> None:
        session, seat.session = seat.session, None
        if session is not None:
            await session.end()
        for future in seat.waiting.values():
            future.cancel()
        seat.waiting.clear()

    # ------------------------------------------------------------------ play

    def _seat(self, account: BotAccount, table_id: str) -> _Seat:
        seat = self._held(account, table_id)
        if seat.session is None:
            raise BotError("no_stream", "open the bot's stream first (GET /api/bot/stream or "
                           "the WebSocket /api/bot/ws): a seat plays while it is open", 409)
        return seat

    def spend_move(self, account: BotAccount, address: str | None = None) -> None:
        """Take one of the account's moves (its WebSocket's and REST moves together) and,
        for a REST move, one of its address's frames (a WebSocket's frame has taken its
        own); 429 ``rate_limited`` past either."""
        if address is not None and not self.frames.take(address):
            wait = max(1, round(self.frames.retry_after(address)))
            raise BotError("rate_limited", "too many messages from your address: at most "
                           f"{self.settings.frames_per_second_per_address:g} a second (limit "
                           f"frames_per_second_per_address); try again in {wait} seconds", 429)
        if not self.moves.take(account.player_id):
            wait = max(1, round(self.moves.retry_after(account.player_id)))
            raise BotError("rate_limited", "too many moves from this bot account: at most "
                           f"{self.settings.rate_per_second:g} a second (limit "
                           f"rate_per_second); try again in {wait} seconds", 429)

    async def play(self, account: BotAccount, table_id: str, message: Move | Chat) -> None:
        """A seat's move or chat message from the bot's WebSocket: its answer comes back
        on the stream, as a human seat's comes on its socket."""
        seat = self._seat(account, table_id)
        assert seat.session is not None
        await seat.session.handle(message)

    async def move(self, account: BotAccount, table_id: str, move: Move) -> str:
        """A move by REST: the table's answer to it, its ``result`` or ``error`` frame (also
        sent on the stream)."""
        seat = self._seat(account, table_id)
        assert seat.session is not None
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        seat.waiting[move.id] = future
        await seat.session.handle(move)
        try:
            return await asyncio.wait_for(future, MOVE_ANSWER_SECONDS)
        except (TimeoutError, asyncio.CancelledError):
            raise BotError("no_answer", "the table did not answer the move in time; watch "
                           "the stream for its result", 503) from None
        finally:
            seat.waiting.pop(move.id, None)

    async def record(self, account: BotAccount, table_id: str) -> JSONObject:
        """The public record of the game at the seat's table so far, with the table as the
        seat sees it (the version it belongs to): ``{"table", "record"}``."""
        seat = self._held(account, table_id)
        answer = await owner.run(self.lobby, PublicRecord(table_id=table_id, token=seat.token))
        return {"table": answer.table, "record": answer.record}

    def _held(self, account: BotAccount, table_id: str) -> _Seat:
        bot = self._bots.get(account.player_id)
        seat = None if bot is None else bot.seats.get(table_id)
        if seat is None:
            raise BotError("no_seat", f"this bot account holds no seat at table "
                           f"{table_id[:32]!r}", 404)
        return seat

    async def leave(self, account: BotAccount, table_id: str) -> JSONObject:
        """Leave the seat at ``table_id``, as a human's leave: emptied before the start,
        played by the stand-in bot during a game. The hub forgets it."""
        seat = self._held(account, table_id)
        await owner.run(self.lobby, Leave(table_id=table_id, token=seat.token))
        await self._end(seat)
        seat.bot.seats.pop(table_id, None)
        return {"table_id": table_id, "left": True}

    async def close(self) -> None:
        """The server stops: every bot's stream is told to come back."""
        for bot in self._bots.values():
            if bot.stream is not None:
                with contextlib.suppress(Exception):
                    bot.stream.close(CloseCode.SERVICE_RESTART)
