"""An outside bot over the bot API (docs/bot-api.md): its stream, its invitations, its
games, one move per decision. ``flip7 bot connect`` runs it with any built-in bot.

The bot's WebSocket (``/api/bot/ws``, its bot token in ``Authorization``) carries the
invitations and, for each seat it holds, the seat's own frames with the table's id in
front. When a view says the seat must decide, :class:`BotClient` asks the server for the
game's public record so far (``GET /api/bot/tables/{id}/record``: every card drawn, every
decision, nothing a seat has not seen) and replays it with the engine into the very game
the table plays; the policy (:data:`Policy`) chooses in it, and the move goes back with
the version it was made against. A built-in bot therefore decides exactly as it would at
the table: it reads a game only through its public view (flip7.bots.public).

>>> client = BotClient("http://127.0.0.1:8000", "bot.x.y", lambda game: "stay")
>>> client.stream_url, client.headers
('ws://127.0.0.1:8000/api/bot/ws', {'Authorization': 'Bearer bot.x.y'})
>>> client.wants({"invitation": True})
True
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from flip7.client.table_client import KEEPALIVE_SECONDS, MAX_FRAME_BYTES, ws_url
from flip7.core.errors import Flip7Error
from flip7.engine.game import Game
from flip7.engine.record import replay_game

__all__ = ["Accept", "BotClient", "BotStreamClosed", "Policy"]

log = logging.getLogger("flip7.bot")

# What chooses a decision in the game at the seat's decision (its record string).
Policy = Callable[[Game], str]
# Which invitations the bot takes: every one, or none (it plays the seats it holds).
Accept = Literal["any", "none"]


# How long the bot waits before sending again what the server refused as rate_limited.
RETRY_SECONDS = 1.0

# The close codes after which opening the stream again would not help (the server's
# flip7.server.base.closecodes: the client layer does not import the server).
_FINAL = {4401: "the server does not know this bot token",
          4409: "another stream of this bot account replaced this one"}


class BotStreamClosed(Flip7Error):
    """The server closed the bot's stream for good: a token it does not know (4401), or
    another stream of the account (4409)."""

    def __init__(self, code: int, why: str) -> None:
        super().__init__(f"the stream was closed ({code}): {why}")
        self.code = code


@dataclass
class _Seat:
    """A seat the bot holds: its number at the table, the last version it moved at, and
    whether its game is over (counted, and the seat said ready when it stays)."""

    seat: int
    moved_at: int = -1
    over: bool = False


@dataclass
class BotClient:
    """One bot account's stream at ``url``: it accepts invitations (``accept``), plays
    every seat it holds with ``policy``, leaves each table when its game is over (or,
    ``rematch``, stays and says ready for the next game there), and stops after ``games``
    games (None: never)."""

    url: str
    token: str
    policy: Policy
    accept: Accept = "any"
    games: int | None = None
    rematch: bool = False
    retry_seconds: float = 2.0
    played: int = 0
    _seats: dict[str, _Seat] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=itertools.count)

    @property
    def stream_url(self) -> str:
        return ws_url(self.url) + "/api/bot/ws"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def wants(self, invitation: dict[str, Any]) -> bool:
        """Whether to take ``invitation`` (the ``invitation`` frame)."""
        return self.accept == "any"

    async def run(self) -> int:
        """Play until ``games`` games are over; the games played. A stream that breaks (the
        server restarts, the network goes) is opened again after ``retry_seconds``, and
        the server gives the bot's seats back; a token refused (4401) or another stream of
        the account (4409) ends it."""
        while True:
            code: int | None = None
            try:
                if await self._stream():
                    return self.played
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
            except OSError as exc:
                log.warning("cannot reach %s: %s", self.url, exc)
            if code in _FINAL:
                raise BotStreamClosed(code, _FINAL[code])
            log.info("the stream closed (%s); opening it again in %gs", code, self.retry_seconds)
            await asyncio.sleep(self.retry_seconds)

    async def _stream(self) -> bool:
        """One stream, read to its end; whether every game asked for was played."""
        async with (
            connect(self.stream_url, additional_headers=self.headers,
                    max_size=MAX_FRAME_BYTES) as ws,
            httpx.AsyncClient(base_url=self.url.rstrip("/"), headers=self.headers,
                              timeout=30.0,
                              limits=httpx.Limits(keepalive_expiry=KEEPALIVE_SECONDS)) as http,
        ):  # fmt: skip
            async for raw in ws:
                frame = json.loads(raw)
                if await self._read(ws, http, frame):
                    return True
            if ws.close_code in _FINAL:
                raise BotStreamClosed(ws.close_code, _FINAL[ws.close_code])
        return False

    async def _read(self, ws: ClientConnection, http: httpx.AsyncClient,
                    frame: dict[str, Any]) -> bool:
        """Handle one frame; whether the bot has played all its games."""
        kind = frame.get("type")
        table_id = frame.get("table_id")
        if kind == "invitation":
            answer = "accept" if self.wants(frame) else "decline"
            log.info("%s invitation %s to %s", answer, frame["id"], frame["table_id"])
            await ws.send(json.dumps({"v": 1, "type": answer, "invitation": frame["id"]}))
            return False
        if kind == "closed" or not isinstance(table_id, str):
            if kind == "error":
                log.warning("the server says: %s", frame.get("message"))
                if frame.get("code") == "rate_limited":
                    await self._again(ws, http)
            return False
        if kind == "welcome" and isinstance(frame.get("seat"), int):
            self._seats.setdefault(table_id, _Seat(frame["seat"]))
        if kind == "error":
            log.warning("%s: %s (%s)", table_id, frame.get("message"), frame.get("code"))
        state = frame.get("table")
        seat = self._seats.get(table_id)
        if not isinstance(state, dict) or seat is None:
            return False
        game = state.get("game")
        if not isinstance(game, dict):
            return False
        if game["over"]:
            return await self._over(ws, http, table_id, seat)
        seat.over = False  # a game goes on (the next one, after a rematch)
        if (game["to_decide"] is not None and game["to_decide"] == game["viewer"]
                and game["legal_decisions"] and state["version"] > seat.moved_at):
            await self._move(ws, http, table_id, seat)
        return False

    async def _move(self, ws: ClientConnection, http: httpx.AsyncClient, table_id: str,
                    seat: _Seat) -> None:
        """Decide in the game the public record rebuilds, at the version it belongs to."""
        answer = await http.get(f"/api/bot/tables/{table_id}/record")
        answer.raise_for_status()
        data = answer.json()
        state, record = data["table"], data["record"]
        game_view = state.get("game")
        if record is None or not isinstance(game_view, dict) or game_view["over"]:
            return
        version = int(state["version"])
        if version <= seat.moved_at or game_view["to_decide"] != game_view["viewer"]:
            return
        game = replay_game(record)
        decision = self.policy(game)
        seat.moved_at = version
        await ws.send(json.dumps({"v": 1, "type": "move", "table_id": table_id,
                                  "id": f"b{next(self._ids)}", "version": version,
                                  "decision": decision}))

    async def _again(self, ws: ClientConnection, http: httpx.AsyncClient) -> None:
        """A frame of the bot was refused (``rate_limited``): a moment later, what may have
        been lost is sent again (no frame of the table would bring it back): each seat's
        move where it must decide, and the ready of a seat staying at the end screen."""
        await asyncio.sleep(RETRY_SECONDS)
        for table_id, seat in list(self._seats.items()):
            if seat.over and self.rematch:
                await self._ready(ws, table_id)
            elif not seat.over:
                seat.moved_at = -1
                await self._move(ws, http, table_id, seat)

    async def _ready(self, ws: ClientConnection, table_id: str) -> None:
        await ws.send(json.dumps({"v": 1, "type": "ready", "table_id": table_id, "ready": True}))

    async def _over(self, ws: ClientConnection, http: httpx.AsyncClient, table_id: str,
                    seat: _Seat) -> bool:
        """The game at ``table_id`` is over: leave the table, or (``rematch``, and more
        games to play) say ready for the next one there; whether that was the last."""
        if seat.over:  # said once for this game
            return False
        seat.over = True
        self.played += 1
        log.info("game over at %s (%d played)", table_id, self.played)
        last = self.games is not None and self.played >= self.games
        if self.rematch and not last:
            await self._ready(ws, table_id)
            return False
        del self._seats[table_id]
        await http.post(f"/api/bot/tables/{table_id}/leave")
        return last
