"""The bot API's hub: bot accounts' streams, their invitations and their seats.

A bot account (flip7.server.services.players) plays at live tables as a program, not a
browser. A table's host invites it (:meth:`BotHub.invite`); the invitation goes to its
**stream** (a WebSocket, ``/api/bot/ws``, or an event stream, ``GET /api/bot/stream``:
flip7.server.api.routes.bots), where the bot accepts or declines it. Accepted, the hub
takes a seat for it (a ``join`` with the account's identity, marked ``bot_account``) with a
seat token of the server's own making (:meth:`BotHub.seat_token`): the bot never holds it,
so its bot token acts for the seats its account holds and for nothing else.

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

Many processes (flip7.server.cluster) share what a bot needs through the database: its
invitations wait in ``bot_invitations`` and its seats are the tables its identity sat down
at (``table_log``, as "Your games" finds them), so that a host's invitation, an accept or a
REST move may reach any process. A seat's token is no stored secret: it is derived from
the server's secret, the account and the table (:meth:`BotHub.seat_token`), so every
process can act for a seat the bot took, and for no other (the table knows no seat by a
token it never saw). The process holding the bot's stream looks every
``BOT_SYNC_SECONDS`` for invitations and seats that came by another process.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal, Protocol

from flip7.core.jsontypes import JSONObject
from flip7.server.api import owner
from flip7.server.base.closecodes import CloseCode
from flip7.server.base.errors import ServerError
from flip7.server.base.formats import dumps, utcnow
from flip7.server.base.limits import AddressBudget
from flip7.server.base.protocol import Chat, Hello, Move
from flip7.server.base.requests import (
    Answer,
    Invite,
    Join,
    Leave,
    PublicRecord,
    Ready,
    ShowTable,
)
from flip7.server.base.settings import Settings
from flip7.server.cluster.link import Session
from flip7.server.cluster.node import of as cluster_of
from flip7.server.store.database import Store
from flip7.server.store.players import (
    BotAccount,
    BotInvitation,
    add_invitation,
    invitations_of,
    seated_tables,
    take_invitation,
)
from flip7.server.store.pushes import secret
from flip7.server.table.errors import TableError, spend
from flip7.server.table.lobby import Lobby
from flip7.server.table.seat import Seat

__all__ = ["BOT_SYNC_SECONDS", "BotError", "BotHub", "GoneReason", "Stream",
           "invitation_frame", "invitation_gone_frame", "with_table"]

# Invitations a bot account holds at once (the oldest go first), and how long each lasts.
MAX_INVITATIONS = 50
INVITATION_SECONDS = 15 * 60
# How long a REST move waits for the table's answer (its result or error frame).
MOVE_ANSWER_SECONDS = 10.0
# How often the process holding a bot's stream looks for what came by another process.
BOT_SYNC_SECONDS = 1.0
# The most seats of one bot account played at once.
MAX_SEATS = 50


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


def invitation_frame(invitation: BotInvitation, now: datetime) -> str:
    """The ``invitation`` frame of a bot's stream."""
    return dumps({"v": 1, "type": "invitation", "id": invitation.id,
                  "table_id": invitation.table_id, "table_name": invitation.table_name,
                  "host": invitation.host,
                  "expires_in": max(0, round((invitation.expires_at - now).total_seconds()))})


# Why an invitation the bot was told of can no longer be accepted.
GoneReason = Literal["expired", "table_started", "table_full"]


def invitation_gone_frame(invitation: BotInvitation, reason: GoneReason) -> str:
    """The ``invitation_gone`` frame of a bot's stream: the invitation it was told of and
    has not answered can no longer be accepted, and why.

    >>> from datetime import UTC
    >>> gone = BotInvitation("i1", "b1", "t1", "Flip 7 table", "Ann", datetime.now(UTC))
    >>> invitation_gone_frame(gone, "expired")
    '{"v":1,"type":"invitation_gone","id":"i1","table_id":"t1","reason":"expired"}'
    """
    return dumps({"v": 1, "type": "invitation_gone", "id": invitation.id,
                  "table_id": invitation.table_id, "reason": reason})


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
    # The seats whose sessions this process holds for the stream.
    seats: dict[str, _Seat] = field(default_factory=dict)
    # The invitations the stream has been told of and the bot has not answered, by id.
    told: dict[str, BotInvitation] = field(default_factory=dict)
    # The seats whose sessions are being opened (one session a seat per stream).
    opening: set[str] = field(default_factory=set)


class BotHub:
    """This process's side of the bot accounts: their streams here, their invitations and
    seats (in the database, for every process)."""

    def __init__(
        self, lobby: Lobby, settings: Settings, frames: AddressBudget | None = None,
        store: Store | None = None,
    ) -> None:
        self.lobby = lobby
        self.settings = settings
        self.store = store
        self._bots: dict[str, _Bot] = {}
        # Disconnections being carried through (:meth:`gone`).
        self._closing: set[asyncio.Future[None]] = set()
        self._secret: bytes | None = None
        self._sync: asyncio.Task[None] | None = None
        # The hub's clock (a test moves it).
        self.now: Callable[[], datetime] = utcnow
        # Every bot account's moves, per identity (its WebSocket and REST moves together),
        # at the rate and burst a socket's frames have.
        self.moves = AddressBudget(settings.rate_per_second * 60, settings.rate_burst)
        self.invitations = AddressBudget(settings.joins_per_minute, settings.joins_burst)
        # Every client's frames per address (the table sockets'): a REST move counts there
        # as a socket's move frame does.
        self.frames = frames if frames is not None else AddressBudget(
            settings.frames_per_second_per_address * 60, settings.frames_burst_per_address)

    def _store(self) -> Store:
        assert self.store is not None, "the server has not started"
        return self.store

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

    async def seat_token(self, bot_id: str, table_id: str) -> str:
        """The token of the bot's seat at ``table_id``: the server's secret's HMAC of the
        two, the same at every process, never sent to anyone."""
        if self._secret is None:
            stored = await secret(self._store(), "bot_seats",
                                  lambda: secrets.token_urlsafe(32))  # fmt: skip
            self._secret = stored.encode()
        digest = hmac.new(self._secret, f"{bot_id}:{table_id}".encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(digest.digest()).decode().rstrip("=")

    # ------------------------------------------------------------------ invitations

    async def invite(
        self, table_id: str, host_token: str | None, account: BotAccount, address: str
    ) -> BotInvitation:
        """The table's host (``host_token``) invites ``account`` to a seat: the table must
        wait for its players with an empty seat (flip7.server.table.lobby.Lobby.may_invite).
        Stored for the bot, whose stream is told at once when it is here, else within
        ``BOT_SYNC_SECONDS`` by the process that has it."""
        spend(self.invitations, address, "invitations", "joins_per_minute")
        answer = await owner.run(self.lobby, Invite(table_id=table_id, token=host_token))
        table = answer.table
        host_seat = table.get("chat", {}).get("host")
        seats = table.get("seats", [])
        host = next((str(s.get("name")) for s in seats if s.get("seat") == host_seat), "?")
        now = self.now()
        invitation = BotInvitation(
            secrets.token_urlsafe(9), account.player_id, table_id, str(table.get("name")),
            host, now + timedelta(seconds=INVITATION_SECONDS))
        await add_invitation(self._store(), invitation, MAX_INVITATIONS)
        bot = self._bots.get(account.player_id)
        if bot is not None and bot.stream is not None:
            bot.told[invitation.id] = invitation
            bot.stream.push(invitation_frame(invitation, now))
        return invitation

    async def _taken(self, account: BotAccount, invitation_id: str) -> BotInvitation:
        bot = self._bots.get(account.player_id)
        if bot is not None:  # answered: nothing more to say of it
            bot.told.pop(invitation_id, None)
        found = await take_invitation(self._store(), account.player_id, invitation_id[:32],
                                      self.now())  # fmt: skip
        if found is None:
            raise BotError("no_invitation", f"there is no invitation {invitation_id[:32]!r} for "
                           "this bot account (answered, expired, or never made)", 404)
        return found

    async def accept(self, account: BotAccount, invitation_id: str) -> JSONObject:
        """Take the seat ``invitation_id`` offers: ``{"table_id", "seat"}``. The table
        refuses as it would any join (``started``, ``table_full``, ``name_taken``,
        ``already_seated``...); the seat's welcome follows on the stream."""
        invitation = await self._taken(account, invitation_id)
        token = await self.seat_token(account.player_id, invitation.table_id)
        answer = await owner.run(self.lobby, Join(
            table_id=invitation.table_id, name=account.name, player_id=account.player_id,
            token=token, bot_account=True))
        bot = self._bots.get(account.player_id)
        if bot is not None and bot.stream is not None:
            await self._open(bot, invitation.table_id)
        return {"table_id": invitation.table_id, "seat": answer.seat}

    async def decline(self, account: BotAccount, invitation_id: str) -> JSONObject:
        invitation = await self._taken(account, invitation_id)
        return {"id": invitation.id, "declined": True}

    # ------------------------------------------------------------------ streams

    async def connect(self, account: BotAccount, stream: Stream) -> None:
        """A stream of ``account`` opened: it replaces any older one here (closed, code
        4409), is told the invitations waiting, and every seat says hello (its welcome)."""
        bot = self._bot(account)
        old, bot.stream = bot.stream, stream
        bot.told.clear()
        if old is not None:
            old.close(CloseCode.REPLACED, "another stream of this bot account opened")
            for seat in list(bot.seats.values()):
                await self._end(seat)
            bot.seats.clear()
        await self._catch_up(bot)
        if self._sync is None or self._sync.done():
            self._sync = asyncio.create_task(self._sync_loop())

    async def _catch_up(self, bot: _Bot) -> None:
        """Tell the stream of ``bot`` the invitations and open the seats it has not had:
        those that came here while it was away, or by another process. An invitation it
        was told of and can no longer accept (expired, or its table started or filled)
        is gone from the database, and the stream is told so (``invitation_gone``)."""
        store, now = self._store(), self.now()
        # Those told before the look (one told meanwhile may not be in it yet).
        told_before = list(bot.told.values())
        standing = await invitations_of(store, bot.account.player_id, now)
        ids = {invitation.id for invitation in standing}
        for told in [i for i in told_before if i.id not in ids]:
            # Not standing: expired, else answered (by another process) or pushed out by
            # MAX_INVITATIONS newer ones, which is not said.
            bot.told.pop(told.id, None)
            if told.expires_at <= now and bot.stream is not None:
                bot.stream.push(invitation_gone_frame(told, "expired"))
        for invitation in standing:
            reason = await self._closed_to_bots(invitation.table_id)
            if reason is not None:
                await take_invitation(store, bot.account.player_id, invitation.id, now)
                if bot.told.pop(invitation.id, None) is not None and bot.stream is not None:
                    bot.stream.push(invitation_gone_frame(invitation, reason))
            elif invitation.id not in bot.told and bot.stream is not None:
                bot.told[invitation.id] = invitation
                bot.stream.push(invitation_frame(invitation, now))
        for held in await seated_tables(store, bot.account.player_id, MAX_SEATS):
            if held.id not in bot.seats and bot.stream is not None:
                await self._open(bot, held.id)

    async def _closed_to_bots(self, table_id: str) -> GoneReason | None:
        """Why an invitation to ``table_id`` can no longer be accepted: its table started
        or has no empty seat; None while it may be, or when this cannot be told now (a
        closed table, a cluster that does not answer: the invitation expires). Alone, this
        process asks only a table it has in memory, never waking a suspended one for it."""
        if cluster_of(self.lobby) is None and table_id not in self.lobby.tables:
            return None
        try:
            table = (await owner.run(self.lobby, ShowTable(table_id=table_id))).table
        except TableError:
            return None  # closed, or not reachable now: the invitation expires
        if table.get("state") != "waiting":
            return "table_started"
        if all(seat.get("kind") != "empty" for seat in table.get("seats", [])):
            return "table_full"
        return None

    async def _sync_loop(self) -> None:
        """While a stream is open here: every ``BOT_SYNC_SECONDS``, what came by another
        process (a database that does not answer is tried again at the next turn)."""
        while any(bot.stream is not None for bot in self._bots.values()):
            await asyncio.sleep(BOT_SYNC_SECONDS)
            for bot in [b for b in self._bots.values() if b.stream is not None]:
                with contextlib.suppress(Exception):
                    await self._catch_up(bot)

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
        bot.seats.clear()

    async def _open(self, bot: _Bot, table_id: str) -> _Seat | None:
        """A session of the bot's seat at ``table_id``, greeted (the welcome goes to the
        stream); None when the table is closed or holds no such seat (the seat is gone)."""
        if table_id in bot.seats or table_id in bot.opening:
            return bot.seats.get(table_id)
        bot.opening.add(table_id)
        try:
            return await self._greet(bot, table_id)
        finally:
            bot.opening.discard(table_id)

    async def _greet(self, bot: _Bot, table_id: str) -> _Seat | None:
        seat = _Seat(bot, table_id, await self.seat_token(bot.account.player_id, table_id))
        try:
            session = await owner.session(self.lobby, table_id, seat)
        except TableError as exc:
            seat.push(dumps({"v": 1, "type": "error", "code": exc.code, "message": exc.message,
                             "id": None, "table": None}))
            return None
        if session is None:  # the table was closed meanwhile
            return None
        seat.session = session
        if bot.stream is not None:
            bot.seats[table_id] = seat
        await session.handle(Hello(v=1, type="hello", token=seat.token))
        if seat.place is None and session.greeted is False:  # no seat of this token
            await self._end(seat)
            bot.seats.pop(table_id, None)
            return None
        return seat

    @staticmethod
    async def _end(seat: _Seat) -> None:
        session, seat.session = seat.session, None
        if session is not None:
            await session.end()
        for future in seat.waiting.values():
            future.cancel()
        seat.waiting.clear()

    # ------------------------------------------------------------------ play

    def _here(self, account: BotAccount, table_id: str) -> _Seat:
        """The seat's session on this process's stream (a WebSocket's message)."""
        bot = self._bots.get(account.player_id)
        seat = None if bot is None else bot.seats.get(table_id)
        if seat is None or seat.session is None:
            raise _no_seat(table_id)
        return seat

    def spend_move(self, account: BotAccount, address: str | None = None) -> None:
        """Take one of the account's moves (its WebSocket's and REST moves together) and,
        for a REST move, one of its address's frames (a WebSocket's frame has taken its
        own); 429 ``rate_limited`` past either."""
        spend(self.frames, address, "messages", "frames_per_second_per_address")
        if not self.moves.take(account.player_id):
            wait = self.moves.retry_after(account.player_id)
            raise BotError("rate_limited", "too many moves from this bot account: at most "
                           f"{self.settings.rate_per_second:g} a second (limit "
                           f"rate_per_second); try again in {max(1, math.ceil(wait))} seconds",
                           429, retry_after=wait)

    async def play(self, account: BotAccount, table_id: str, message: Move | Chat) -> None:
        """A seat's move or chat message from the bot's WebSocket: its answer comes back
        on the stream, as a human seat's comes on its socket."""
        seat = self._here(account, table_id)
        assert seat.session is not None
        await seat.session.handle(message)

    async def move(self, account: BotAccount, table_id: str, move: Move) -> str:
        """A move by REST: the table's answer to it, its ``result`` or ``error`` frame (sent
        on the stream too when it is here). On a process without the bot's stream the
        seat's session lasts for this move only."""
        bot = self._bot(account)
        seat = bot.seats.get(table_id)
        passing = seat is None or seat.session is None
        if passing:
            seat = await self._open(_Bot(account), table_id)
            if seat is None:
                raise _no_seat(table_id)
        assert seat is not None and seat.session is not None
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        seat.waiting[move.id] = future
        try:
            await seat.session.handle(move)
            return await asyncio.wait_for(future, MOVE_ANSWER_SECONDS)
        except (TimeoutError, asyncio.CancelledError):
            raise BotError("no_answer", "the table did not answer the move in time; watch "
                           "the stream for its result", 503) from None
        finally:
            seat.waiting.pop(move.id, None)
            if passing:
                await self._end(seat)

    async def _run(self, account: BotAccount, table_id: str,
                   make: Callable[[str], PublicRecord | Leave | Ready]) -> Answer:
        """The table's answer to the request ``make`` builds with the seat's token."""
        token = await self.seat_token(account.player_id, table_id)
        try:
            return await owner.run(self.lobby, make(token))
        except TableError as exc:
            if exc.code == "unauthorized":
                raise _no_seat(table_id) from None
            raise

    async def record(self, account: BotAccount, table_id: str) -> JSONObject:
        """The public record of the game at the seat's table so far, with the table as the
        seat sees it (the version it belongs to): ``{"table", "record"}``."""
        answer = await self._run(account, table_id,
                                 lambda token: PublicRecord(table_id=table_id, token=token))
        return {"table": answer.table, "record": answer.record}

    async def ready(self, account: BotAccount, table_id: str, ready: bool) -> JSONObject:
        """At the end screen, whether the seat at ``table_id`` is ready for the next game,
        as a human's ready (flip7.server.table.lobby.Lobby.ready: the next game starts
        once every human seat staying is ready): ``{"table"}``. 409 ``not_over`` before
        the end screen, ``not_enough_players`` when too few stay."""
        answer = await self._run(account, table_id, lambda token: Ready(
            table_id=table_id, token=token, ready=ready))
        return {"table": answer.table}

    async def leave(self, account: BotAccount, table_id: str) -> JSONObject:
        """Leave the seat at ``table_id``, as a human's leave: emptied before the start,
        played by the stand-in bot during a game."""
        await self._run(account, table_id, lambda token: Leave(table_id=table_id, token=token))
        bot = self._bots.get(account.player_id)
        seat = None if bot is None else bot.seats.pop(table_id, None)
        if seat is not None:
            await self._end(seat)
        return {"table_id": table_id, "left": True}

    async def close(self) -> None:
        """The server stops: every bot's stream is told to come back."""
        if self._sync is not None:
            self._sync.cancel()
        for bot in self._bots.values():
            if bot.stream is not None:
                with contextlib.suppress(Exception):
                    bot.stream.close(CloseCode.SERVICE_RESTART)


def _no_seat(table_id: str) -> BotError:
    return BotError("no_seat", f"this bot account holds no seat at table {table_id[:32]!r} "
                    "(accept an invitation first)", 404)
