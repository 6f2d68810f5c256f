"""The ASGI application: REST for the lobby, a WebSocket per client for play, the client.

>>> from flip7.server.settings import Settings
>>> app = create_app(Settings(database_url="sqlite+aiosqlite:///:memory:"))
>>> sorted(r.path for r in app.routes if r.path.startswith("/api/tables/{table_id}"))[:3]
['/api/tables/{table_id}', '/api/tables/{table_id}/bots', '/api/tables/{table_id}/games']
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, Request, WebSocket, WebSocketDisconnect
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from flip7 import __version__
from flip7.errors import Flip7Error
from flip7.record import Record, replay_steps
from flip7.rules import _CHOICES, _LUCKY13_COUNTS, Rules
from flip7.server import scorecards
from flip7.server.protocol import (
    AddBot,
    BotList,
    CreateTable,
    ErrorAnswer,
    GameList,
    Health,
    Hello,
    JoinTable,
    Move,
    ProtocolError,
    ReplayAnswer,
    ReplayCreated,
    RuleList,
    SeatGranted,
    TableAnswer,
    TableList,
    parse_client_message,
    protocol_schema,
)
from flip7.server.settings import Settings, database_url
from flip7.server.store import Store, dumps, utcnow
from flip7.server.tables import Lobby, Seat, Table, TableError

__all__ = ["create_app"]

STATIC = Path(__file__).parent / "static"
MAX_BODY = 16 * 1024
MAX_RECORD_BODY = 2 * 1024 * 1024
_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorAnswer} for status in (400, 401, 403, 404, 409, 413)
}


def _error(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"detail": {"code": code, "message": message}}, status_code=status)


class _BodyLimit:
    """Refuses request bodies over the limit (413) before anything reads them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = _body_limit(scope["path"])
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            response = _error("too_large", f"the request body may be at most {limit} bytes", 413)
            await response(scope, receive, send)
            return
        seen = 0

        async def limited() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            response = _error("too_large", f"the request body may be at most {limit} bytes", 413)
            await response(scope, receive, send)


class _TooLarge(Exception):
    pass


def _body_limit(path: str) -> int:
    if path == "/api/replays":
        return MAX_RECORD_BODY
    if path.startswith(scorecards.PREFIX + "/") and path.endswith("/live"):
        return scorecards.MAX_LIVE_BODY
    return MAX_BODY


def _token(authorization: str | None) -> str | None:
    if authorization is None:
        return None
    scheme, _, value = authorization.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _rule_options() -> list[dict[str, Any]]:
    out = []
    for f in fields(Rules):
        default = f.default if f.default is not MISSING else None
        if f.name in _CHOICES:
            out.append({"name": f.name, "type": "choice", "default": default,
                        "choices": list(_CHOICES[f.name])})
        elif f.name == "lucky13_pair_flip7_count":
            out.append({"name": f.name, "type": "choice", "default": default,
                        "choices": list(_LUCKY13_COUNTS)})
        elif isinstance(default, bool):
            out.append({"name": f.name, "type": "bool", "default": default, "choices": None})
        else:
            out.append({"name": f.name, "type": "int", "default": default, "choices": None})
    return out


class _Replays:
    """Replay steps of finished games, computed once and kept for the next viewer."""

    def __init__(self, size: int = 64) -> None:
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._size = size

    def get(self, key: str, record: dict[str, Any]) -> bytes:
        cached = self._cache.get(key)
        if cached is None:
            steps = [
                {"events": [e.to_json() for e in events], "game": view.to_json()}
                for events, view in replay_steps(record)
            ]
            cached = dumps({"record": record, "steps": steps}).encode()
            self._cache[key] = cached
            if len(self._cache) > self._size:
                self._cache.popitem(last=False)
        self._cache.move_to_end(key)
        return cached


def create_app(settings: Settings | None = None) -> FastAPI:
    """The flip7 server as an ASGI app. It opens the database (and migrates it) on start."""
    settings = settings if settings is not None else Settings(database_url=database_url())
    replay_cache = _Replays()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await Store.open(settings.database_url)
        lobby = Lobby(store, settings)
        await lobby.restore()
        app.state.lobby = lobby
        # Everything loaded so far lives as long as the server: keep it out of the
        # collector's full passes, which otherwise stall every table for a moment.
        gc.collect()
        gc.freeze()
        app.state.sockets = set()
        try:
            yield
        finally:
            await lobby.close()
            for socket in list(app.state.sockets):
                with contextlib.suppress(Exception):
                    await socket.close(code=1012)  # service restart
            await store.close()

    app = FastAPI(
        title="flip7",
        version=__version__,
        summary="Flip 7: With a Vengeance — multiplayer tables, bots, spectators and replays.",
        description=(
            "The lobby is this REST API; play goes over the WebSocket `/ws/tables/{table_id}` "
            "(its messages: `GET /api/protocol`, and docs/protocol.md). Calls that act for a "
            "seat take its token as `Authorization: Bearer <token>`. The scorekeeper "
            "(`/api/scorecards`, docs/scorekeeper.md) scores games played with real cards."
        ),
        lifespan=lifespan,
    )
    app.add_middleware(GZipMiddleware, minimum_size=2048)
    app.add_middleware(_BodyLimit)

    @app.exception_handler(TableError)
    async def _table_error(_request: Request, exc: TableError) -> JSONResponse:
        return _error(exc.code, exc.message, exc.status)

    scorecards.install(app)

    def lobby_of(request: Request) -> Lobby:
        lobby: Lobby = request.app.state.lobby
        return lobby

    async def act(
        request: Request,
        table_id: str,
        authorization: str | None,
        action: Callable[[Lobby, Table, str | None], Awaitable[Any]],
    ) -> dict[str, Any]:
        """Run a seated player's request on a table; answer with the table afterwards."""
        lobby = lobby_of(request)
        table = lobby.get(table_id)
        await action(lobby, table, _token(authorization))
        return {"table": await _state(table, None)}

    # ------------------------------------------------------------------ REST

    @app.get("/api/health", response_model=Health, tags=["server"])
    async def health(request: Request) -> Any:
        """Whether the server and its database answer."""
        lobby = lobby_of(request)
        ok = await lobby.store.ping()
        body = {
            "status": "ok" if ok else "error",
            "database": lobby.store.dialect,
            "tables": len(lobby.tables),
            "version": __version__,
        }
        return JSONResponse(body, status_code=200 if ok else 503)

    @app.get("/api/bots", response_model=BotList, tags=["lobby"])
    async def bots(request: Request) -> Any:
        """The bots a seat can be filled with, weakest first: the ladder (random,
        threshold, targeting, ev, winprob, mcts, and basic), then the operator's own.
        A ladder bot may carry parameters, e.g. ``threshold:30``."""
        return {"bots": lobby_of(request).bot_list()}

    @app.get("/api/rules", response_model=RuleList, tags=["lobby"])
    async def rules() -> Any:
        """Every rule option of RULES.md §13 with its default and its allowed values."""
        return {"options": _rule_options()}

    @app.get("/api/protocol", tags=["server"])
    async def protocol() -> Any:
        """The JSON Schema of the WebSocket messages in both directions."""
        return protocol_schema()

    @app.get("/api/tables", response_model=TableList, tags=["lobby"])
    async def list_tables(request: Request) -> Any:
        """Tables waiting for players and tables in play, newest first."""
        return {"tables": lobby_of(request).listing()}

    @app.post("/api/tables", response_model=SeatGranted, status_code=201, tags=["lobby"],
              responses=_ERRORS)
    async def create_table(body: CreateTable, request: Request) -> Any:
        """Open a table; its creator takes seat 0 and gets the seat's token."""
        lobby = lobby_of(request)
        table, seat, token = await lobby.create_table(
            body.name, body.player, body.seats, body.rules, body.turn_timer
        )
        return {"table": await _state(table, table.seats[seat]), "seat": seat, "token": token}

    @app.get("/api/tables/{table_id}", response_model=TableAnswer, tags=["lobby"],
             responses=_ERRORS)
    async def get_table(table_id: str, request: Request) -> Any:
        """The table as a spectator sees it."""
        table = lobby_of(request).get(table_id)
        return {"table": await _state(table, None)}

    @app.post("/api/tables/{table_id}/join", response_model=SeatGranted, tags=["lobby"],
              responses=_ERRORS)
    async def join(table_id: str, body: JoinTable, request: Request) -> Any:
        """Take the lowest empty seat; the answer holds the seat's secret token."""
        lobby = lobby_of(request)
        table = lobby.get(table_id)
        seat, token = await lobby.join(table, body.player)
        return {"table": await _state(table, table.seats[seat]), "seat": seat, "token": token}

    @app.post("/api/tables/{table_id}/bots", response_model=TableAnswer, tags=["lobby"],
              responses=_ERRORS)
    async def add_bot(
        table_id: str, body: AddBot, request: Request, authorization: str | None = Header(None)
    ) -> Any:
        """Seat a bot in the lowest empty seat (any seated player may)."""
        return await act(
            request, table_id, authorization,
            lambda lobby, table, token: lobby.add_bot(table, token, body.bot),
        )

    @app.delete("/api/tables/{table_id}/seats/{seat}", response_model=TableAnswer,
                tags=["lobby"], responses=_ERRORS)
    async def remove_seat(
        table_id: str, seat: int, request: Request, authorization: str | None = Header(None)
    ) -> Any:
        """Remove a bot, or yourself, before the game starts."""
        return await act(
            request, table_id, authorization,
            lambda lobby, table, token: lobby.remove_seat(table, token, seat),
        )

    @app.post("/api/tables/{table_id}/leave", response_model=TableAnswer, tags=["lobby"],
              responses=_ERRORS)
    async def leave(
        table_id: str, request: Request, authorization: str | None = Header(None)
    ) -> Any:
        """Leave your seat: emptied before the start, played by a bot during a game."""
        return await act(
            request, table_id, authorization,
            lambda lobby, table, token: lobby.leave(table, token),
        )

    @app.post("/api/tables/{table_id}/start", response_model=TableAnswer, tags=["lobby"],
              responses=_ERRORS)
    async def start(
        table_id: str, request: Request, authorization: str | None = Header(None)
    ) -> Any:
        """Start the game with the seated players (empty seats are dropped)."""
        return await act(
            request, table_id, authorization,
            lambda lobby, table, token: lobby.start(table, token),
        )

    @app.post("/api/tables/{table_id}/rematch", response_model=TableAnswer, tags=["lobby"],
              responses=_ERRORS)
    async def rematch(
        table_id: str, request: Request, authorization: str | None = Header(None)
    ) -> Any:
        """Once the game is over, start a new one with the same seats and options."""
        return await act(
            request, table_id, authorization,
            lambda lobby, table, token: lobby.start(table, token, rematch=True),
        )

    @app.get("/api/tables/{table_id}/games", response_model=GameList, tags=["replays"],
             responses=_ERRORS)
    async def table_games(table_id: str, request: Request) -> Any:
        """The games played at a table, first to last."""
        lobby = lobby_of(request)
        lobby.get(table_id)
        return {"games": [g.summary() for g in await lobby.store.games_of(table_id)]}

    async def finished_record(request: Request, game_id: str) -> dict[str, Any]:
        row = await lobby_of(request).store.game(game_id)
        if row is None:
            raise TableError("no_game", f"there is no game {game_id!r}", 404)
        if row.record is None:
            # An unfinished game's record would reveal the cards to come: never.
            raise TableError("not_over", "the game is still being played", 409)
        return row.record

    @app.get("/api/games/{game_id}/record", tags=["replays"], responses=_ERRORS)
    async def game_record(game_id: str, request: Request) -> Any:
        """A finished game's record (``flip7-record/1``), as a download."""
        record = await finished_record(request, game_id)
        return Response(
            json.dumps(record, indent=2) + "\n",
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="flip7-{game_id}.json"'},
        )

    @app.get("/api/games/{game_id}/replay", response_model=ReplayAnswer, tags=["replays"],
             responses=_ERRORS)
    async def game_replay(game_id: str, request: Request) -> Any:
        """A finished game step by step: the events of each draw and decision, and the
        table after it."""
        record = await finished_record(request, game_id)
        return Response(replay_cache.get(f"game:{game_id}", record),
                        media_type="application/json")

    @app.post("/api/replays", response_model=ReplayCreated, status_code=201,
              tags=["replays"], responses=_ERRORS)
    async def upload_replay(request: Request) -> Any:
        """Store an uploaded record (``flip7-record/1``) for viewing; 400 says what is wrong
        with an invalid one."""
        try:
            data = json.loads(await request.body())
        except ValueError:
            raise TableError("bad_record", "the body is not valid JSON", 400) from None
        try:
            record = Record.from_json(data)
            steps = replay_steps(record)
        except Flip7Error as exc:
            raise TableError("bad_record", str(exc), 400) from None
        del steps
        lobby = lobby_of(request)
        replay_id = _new_id()
        await lobby.store.write([
            ("replay_insert", {"id": replay_id, "record": dumps(record.to_json()),
                               "created_at": utcnow()})
        ])
        lobby.log_event("replay_uploaded", None, replay=replay_id)
        return JSONResponse({"id": replay_id}, status_code=201)

    @app.get("/api/replays/{replay_id}", response_model=ReplayAnswer, tags=["replays"],
             responses=_ERRORS)
    async def get_replay(replay_id: str, request: Request) -> Any:
        """An uploaded record, step by step."""
        record = await lobby_of(request).store.replay_record(replay_id)
        if record is None:
            raise TableError("no_replay", f"there is no replay {replay_id!r}", 404)
        return Response(replay_cache.get(f"upload:{replay_id}", record),
                        media_type="application/json")

    # ------------------------------------------------------------------ WebSocket

    @app.websocket("/ws/tables/{table_id}")
    async def play(ws: WebSocket, table_id: str) -> None:
        await ws.accept()
        lobby: Lobby = ws.app.state.lobby
        client = _Client(ws, settings)
        ws.app.state.sockets.add(ws)
        sender = asyncio.create_task(client.send_loop())
        table: Table | None = None
        try:
            if table_id not in lobby.tables:
                client.error("no_table", f"there is no table {table_id!r}")
                client.close(4404)
                await sender
                return
            while not client.closing:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    client.error("bad_message", "frames must be text (JSON), not binary")
                    continue
                if len(text.encode()) > settings.max_message_bytes:
                    if client.allow():
                        client.error(
                            "too_large",
                            f"a message may be at most {settings.max_message_bytes} bytes",
                        )
                    continue
                try:
                    parsed = parse_client_message(text)
                except ProtocolError as exc:
                    if client.allow():
                        client.error(exc.code, exc.message)
                    continue
                if not client.allow(parsed.id if isinstance(parsed, Move) else None):
                    continue
                if parsed.type == "ping":
                    client.push('{"v":1,"type":"pong"}')
                elif parsed.type == "hello":
                    if table is not None:
                        client.error("bad_message", "hello was already sent on this connection")
                        continue
                    table = lobby.tables.get(table_id)
                    if table is None:
                        client.error("no_table", f"there is no table {table_id!r}")
                        continue
                    table = await _hello(table, client, parsed)
                elif table is None:
                    client.error("hello_first", "send hello before anything else")
                else:
                    table = lobby.tables.get(table_id, table)
                    await _move(lobby, table, client, parsed)
        except WebSocketDisconnect:
            pass
        finally:
            ws.app.state.sockets.discard(ws)
            if table is not None:
                await lobby.tables.get(table_id, table).detach(client)
            if client.closing:  # let the sender say goodbye with the close code
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(sender, 2)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    # ------------------------------------------------------------------ the client

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")

    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    for path in ("/", "/t/{table_id}", "/replay/game/{game_id}", "/replay/{replay_id}",
                 "/scorekeeper", "/scorekeeper/{scorecard_id}"):
        app.add_api_route(path, index, include_in_schema=False)

    return app


def _new_id() -> str:
    import secrets

    return secrets.token_urlsafe(6)


async def _state(table: Table, viewer: Seat | None) -> dict[str, Any]:
    async with table.lock:
        return table.state_json(viewer)


async def _hello(table: Table, client: _Client, hello: Hello) -> Table | None:
    seat = None
    if hello.token is not None:
        try:
            seat = table.seat_of(hello.token)
        except TableError as exc:
            client.error(exc.code, exc.message)
            return None
    client.seat = seat
    await table.attach(client, hello.last_version)
    return table


async def _move(lobby: Lobby, table: Table, client: _Client, move: Hello | Move) -> None:
    assert isinstance(move, Move)
    if client.seat is None:
        client.error("spectator", "spectators cannot make moves; join a seat first", move.id)
        return
    try:
        version = await lobby.move(table, client.seat, move.id, move.version, move.decision)
    except TableError as exc:
        with_state = exc.code in ("stale_version", "illegal_move", "not_your_turn")
        state = await _state(table, client.seat) if with_state else None
        client.error(exc.code, exc.message, move.id, state)
        return
    client.push(dumps({"v": 1, "type": "result", "id": move.id, "ok": True, "version": version}))


class _Client:
    """One WebSocket: its seat, its send queue and its rate limit."""

    def __init__(self, ws: WebSocket, settings: Settings) -> None:
        self.ws = ws
        self.seat: Seat | None = None
        self.settings = settings
        self.closing = False
        self._queue: asyncio.Queue[str | int] = asyncio.Queue()
        self._tokens = float(settings.rate_burst)
        self._last = time.monotonic()
        self._strikes = 0

    def push(self, message: str) -> None:
        if self.closing:
            return
        if self._queue.qsize() >= self.settings.send_queue_limit:
            # A client that does not read would hold memory forever; it can reconnect.
            self.close(1013)
            return
        self._queue.put_nowait(message)

    def close(self, code: int) -> None:
        if not self.closing:
            self.closing = True
            self._queue.put_nowait(code)

    def error(
        self, code: str, message: str, move_id: str | None = None,
        table: dict[str, Any] | None = None,
    ) -> None:
        self.push(dumps({"v": 1, "type": "error", "code": code, "message": message,
                         "id": move_id, "table": table}))

    def allow(self, move_id: str | None = None) -> bool:
        """The token bucket: False (and an error frame, naming the move refused) when the
        client sends too fast."""
        now = time.monotonic()
        rate, burst = self.settings.rate_per_second, self.settings.rate_burst
        self._tokens = min(float(burst), self._tokens + (now - self._last) * rate)
        self._last = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        self._strikes += 1
        if self._strikes > self.settings.rate_strikes:
            self.close(1008)
        else:
            self.error("rate_limited", f"too many messages: at most {rate:g} a second", move_id)
        return False

    async def send_loop(self) -> None:
        while True:
            item = await self._queue.get()
            if isinstance(item, int):
                with contextlib.suppress(Exception):
                    await self.ws.close(code=item)
                return
            try:
                await self.ws.send_text(item)
            except Exception:  # the socket went away: the receive side sees it too
                self.closing = True
                return
