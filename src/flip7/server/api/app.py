"""The ASGI application: REST for the lobby, a WebSocket per client for play, the client.

>>> from flip7.server.base.settings import Settings
>>> app = create_app(Settings(database_url="sqlite+aiosqlite:///:memory:"))
>>> paths = [getattr(r, "path", "") for r in app.routes]  # an included router has none
>>> sorted(p for p in paths if p.startswith("/api/tables/{table_id}"))[:3]
['/api/tables/{table_id}', '/api/tables/{table_id}/bots', '/api/tables/{table_id}/games']
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from flip7 import __version__
from flip7.bots import DEFAULT_LEVEL, LEVELS
from flip7.core.cards import Card, deck_counts
from flip7.core.errors import Flip7Error
from flip7.core.explain import card_explanations
from flip7.core.lines import FLIP7_CARDS
from flip7.core.rules import (
    DECKS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ONE_DECK_MAX_PLAYERS,
    TWO_PLAYERS,
    Rules,
)
from flip7.core.scoring import FLIP7_BONUS
from flip7.server.api import guard, owner, play
from flip7.server.api.routes import socket
from flip7.server.api.startup import is_loopback
from flip7.server.api.wiring import Services, wire
from flip7.server.base import messages, requests
from flip7.server.base.closecodes import CloseCode
from flip7.server.base.formats import utcnow
from flip7.server.base.limits import client_address
from flip7.server.base.protocol import (
    AddBot,
    BotList,
    CreateTable,
    ErrorAnswer,
    GameList,
    Health,
    JoinTable,
    Limits,
    Ready,
    RecentGames,
    ReplayAnswer,
    ReplayCreated,
    RulesAnswer,
    SeatGranted,
    ServerInfo,
    StartTutorial,
    TableAnswer,
    TableList,
    TutorialStep,
    protocol_schema,
)
from flip7.server.base.settings import Settings, database_url
from flip7.server.cluster.node import of as cluster_of
from flip7.server.services import coach_jobs, players, replays, scorecards
from flip7.server.store.database import Store
from flip7.server.table.errors import TableError
from flip7.server.table.lobby import Lobby
from flip7.server.table.options import MAX_SEATS, NEUTRAL_OPTIONS
from flip7.server.table.storage import StoreError
from flip7.server.table.tutorial import FIRST_GAME

__all__ = ["create_app"]

STATIC = Path(__file__).parents[1] / "static"
MAX_BODY = 16 * 1024
_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorAnswer} for status in (400, 401, 403, 404, 409, 410, 413, 429)
}


def _error(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"detail": {"code": code, "message": message}}, status_code=status)


class _BodyLimit:
    """Refuses request bodies over the limit (413 ``too_large``) before anything reads them.

    A body announced with ``Content-Length`` is judged by it (the HTTP parser holds the
    client to it). A body without one (``Transfer-Encoding: chunked``) is read here, up to
    the limit, and handed on whole: a route reading it itself would turn an error raised
    mid-read into a 400."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = _body_limit(scope["path"], scope.get("app"))
        too_large = _error("too_large", f"the request body may be at most {limit} bytes", 413)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit():
            if int(length) > limit:
                await too_large(scope, receive, send)
                return
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > limit:
                await too_large(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        first: Message | None = {"type": "http.request", "body": b"".join(chunks),
                                 "more_body": False}

        async def replay() -> Message:
            nonlocal first
            if first is not None:
                message, first = first, None
                return message
            return await receive()  # only http.disconnect from here on

        await self.app(scope, replay, send)


def _body_limit(path: str, app: Any = None) -> int:
    if path == "/api/replays":
        return replays.record_body_limit(app)
    if path.startswith(scorecards.PREFIX + "/") and path.endswith("/live"):
        return scorecards.MAX_LIVE_BODY
    return MAX_BODY


def _token(authorization: str | None) -> str | None:
    if authorization is None:
        return None
    scheme, _, value = authorization.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _rules_answer() -> dict[str, Any]:
    """What ``GET /api/rules`` serves, all from :mod:`flip7.core`: every option of §13
    (:meth:`Rules.options`) with its section and help, the player counts of §1.3 (and the
    most a table here seats), the decks, Flip 7's cards and bonus (§5.1, §8), and the deck
    (§1.1: each card's code, kind, value, penalty and copies per deck)."""
    options = Rules.options()
    deck = deck_counts()
    return {
        "options": [o.to_json() for o in options],
        "about": {
            o.name: {
                "section": o.section,
                "help": o.help,
                "changes": o.changes,
                "values": {str(value): words for value, words in o.words},
            }
            for o in options
        },
        "players": {
            "min": MIN_PLAYERS,
            "min_two_players": TWO_PLAYERS,
            "max": MAX_PLAYERS,
            "one_deck_max": ONE_DECK_MAX_PLAYERS,
            "table_max": MAX_SEATS,
        },
        "decks": list(DECKS),
        "flip7": {"cards": FLIP7_CARDS, "bonus": FLIP7_BONUS},
        # A table is rated by default unless it sets an option outside these
        # (flip7.server.services.ratings.rated_by_default); the lobby's switch starts from it.
        "rated": {"neutral_options": sorted(NEUTRAL_OPTIONS)},
        "cards": [
            {
                "code": c.code,
                "kind": c.kind.value,
                "value": c.value_points,
                "penalty": c.penalty,
                "count": deck[c],
            }
            for c in Card
        ],
    }


class CardText(BaseModel):
    """One card's explanation: its code (RECORD.md §1), name, kind and words."""

    code: str
    name: str
    kind: str
    text: str


class CardsAnswer(BaseModel):
    """``GET /api/cards``: every card, in the deck's order, explained under ``rules``
    (the options that differ from the defaults)."""

    rules: dict[str, Any]
    cards: list[CardText]


# A rules object as a table states it (only non-defaults) is far below this.
MAX_CARDS_RULES_CHARS = 1024


@functools.lru_cache(maxsize=64)
def _cards_answer(rules: Rules, lang: str = "en") -> dict[str, Any]:
    """What ``GET /api/cards`` serves for ``rules``, from :mod:`flip7.core.explain`, in
    ``lang`` (the catalogues of :mod:`flip7.server.base.messages`): worked out once per set of
    options and language (a handful are in use at once), then kept."""
    explained = card_explanations(rules, messages.explainer(lang))
    return {
        "rules": rules.to_json(),
        "cards": [{"code": code, **about} for code, about in explained.items()],
    }


def _cards_rules(text: str | None) -> Rules:
    """The ``rules`` query of ``GET /api/cards``: a JSON object of rule options (RULES.md
    §13), or the defaults; :class:`ValueError` saying what is wrong."""
    if text is None:
        return Rules()
    if len(text) > MAX_CARDS_RULES_CHARS:
        raise ValueError(f"rules may be at most {MAX_CARDS_RULES_CHARS} characters")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested too deep to read
        raise ValueError("rules must be a JSON object of rule options") from None
    return Rules.from_json(data)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The flip7 server as an ASGI app. It opens the database (and migrates it) on start."""
    settings = settings if settings is not None else Settings(database_url=database_url())
    wiring = wire(settings)
    # Replay work (uploads checked, pages computed) runs in a worker process: see replays.
    replay_service = replays.Replays(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Services]]:
        # Takes the database lease: a second server on this database stops here
        # (DatabaseInUse); the lease is given up in ``store.close()`` below.
        # Many processes (a Redis URL) share the database: no process holds all of it.
        lease = None if settings.redis_url is not None else settings.lease_seconds
        store = await Store.open(settings.database_url, lease_seconds=lease,
                                 shared=settings.redis_url is not None)
        lobby = Lobby(store, settings)
        if settings.redis_url is not None:
            owner.join_cluster(lobby, store, settings.redis_url, settings.owner_seconds)
        try:
            await lobby.restore()
        except BaseException:
            await store.close()  # the lease too: a failed start must not hold it
            raise
        app.state.lobby = lobby
        app.state.store = store
        # Identities and ratings (flip7.server.services.players): each finished game's results.
        results = players.attach(app, lobby, store)
        # Everything loaded so far lives as long as the server: keep it out of the
        # collector's full passes, which otherwise stall every table for a moment.
        gc.collect()
        gc.freeze()
        try:
            yield {"services": Services.started(wiring, lobby)}
        finally:
            await results.close()
            await lobby.close()
            for socket in list(wiring.sockets.open):
                with contextlib.suppress(Exception):
                    await socket.close(code=CloseCode.SERVICE_RESTART)
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
    # Level 6: nearly level 9's ratio on JSON at a third of the CPU (9 is the default).
    app.add_middleware(GZipMiddleware, minimum_size=2048, compresslevel=6)
    app.add_middleware(_BodyLimit)
    # flip7 serve's guard (server_config) asks the handshake gate before a socket exists.
    app.state.wiring = wiring

    @app.exception_handler(TableError)
    async def _table_error(_request: Request, exc: TableError) -> JSONResponse:
        response = _error(exc.code, exc.message, exc.status)
        if exc.retry_after is not None:
            # Whole seconds (RFC 9110), rounded up so that a retry then succeeds.
            response.headers["Retry-After"] = str(max(1, math.ceil(exc.retry_after)))
        return response

    scorecards.install(app)
    players.install(app, settings)
    guard.protect(app)
    scorecard_bad_request = app.exception_handlers.get(RequestValidationError)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> Response:
        """422 ``bad_request`` saying what is wrong, never echoing the input (which may not
        even encode: a lone surrogate)."""
        if scorecard_bad_request is not None and request.url.path.startswith(scorecards.PREFIX):
            with contextlib.suppress(UnicodeError):
                answer = scorecard_bad_request(request, exc)
                return answer if isinstance(answer, Response) else await answer
        return _error("bad_request", guard.validation_message(exc), 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> Response:
        """Starlette's own refusals (404 for an unknown path, 405, a body that is not UTF-8)
        in the same ``{"detail": {"code", "message"}}`` shape as every other error."""
        codes = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}
        code = codes.get(exc.status_code, f"http_{exc.status_code}")
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 400 and message == "There was an error parsing the body":
            # Not UTF-8, or a number too long for Python to read (over 4,300 digits).
            message = "the body is not valid JSON"
        response = _error(code, guard.safe_text(message), exc.status_code)
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response

    @app.exception_handler(StoreError)
    async def _store_error(_request: Request, exc: StoreError) -> JSONResponse:
        # The database refused the write (gone, replaced, full, or the lease lost):
        # nothing was stored, so say so plainly rather than fail with a 500.
        return _error("server_error", "it could not be stored; try again later", 503)

    @app.exception_handler(Exception)
    async def _internal_error(_request: Request, _exc: Exception) -> Response:
        # The traceback goes to the log (uvicorn logs the exception), never to the client.
        return _error("server_error", "the server failed to answer; try again", 500)

    def lobby_of(request: Request) -> Lobby:
        lobby: Lobby = request.app.state.lobby
        return lobby

    def store_of(request: Request) -> Store:
        store: Store = request.app.state.store
        return store

    async def act(request: Request, asked: requests.Request) -> dict[str, Any]:
        """Answer a table request (flip7.server.api.operations), here or at the process that
        runs the table."""
        return (await owner.run(lobby_of(request), asked)).to_json()

    # ------------------------------------------------------------------ REST

    @app.get("/api/health", response_model=Health, tags=["server"])
    async def health(request: Request) -> Any:
        """Whether the server and its database answer: 503 with ``problem`` saying what is
        wrong (the database does not answer; its SQLite file was deleted or replaced, is
        read-only or its disk full; another server took the lease). While the file is gone
        or replaced or the lease lost, moves are refused, not acknowledged. ``node`` names
        the process; with many processes, ``redis`` says whether it reaches Redis, and
        without it the status is "degraded" (still 200: it runs its own tables)."""
        lobby, store = lobby_of(request), store_of(request)
        problem = await store.check()
        body = {
            "status": "ok" if problem is None else "error",
            "database": store.dialect,
            "problem": problem,
            "tables": len(lobby.tables),
            "version": __version__,
            "node": lobby.node,
            "redis": None,
        }
        many = cluster_of(lobby)
        if many is not None:
            redis_problem = many.problem()
            body["redis"] = "ok" if redis_problem is None else "error"
            if problem is None and redis_problem is not None:
                # 200 all the same: a proxy must not take every process out at once for
                # it, as each still runs its own tables (only forwarding waits for Redis).
                body["status"], body["problem"] = "degraded", redis_problem
        return JSONResponse(body, status_code=200 if problem is None else 503)

    @app.get("/api/bots", response_model=BotList, tags=["lobby"])
    async def bots(request: Request) -> Any:
        """The bots a seat can be filled with: ``levels``, weakest first (Beginner to
        Expert: a name for players, the spec it plays with, what to expect), ``default``
        the level offered first; and ``bots``, the specs, weakest first: the ladder
        (random, threshold, targeting, ev, winprob, mcts, and basic), then the operator's
        own. A ladder bot may carry parameters, e.g. ``threshold:30``; a level's name is
        taken wherever a spec is."""
        return {
            "bots": lobby_of(request).bot_list(),
            "levels": [level.to_json() for level in LEVELS],
            "default": DEFAULT_LEVEL.name,
        }

    @app.get(
        "/api/rules", response_model=RulesAnswer, response_model_exclude_unset=True,
        tags=["lobby"],
    )  # fmt: skip
    async def rules() -> Any:
        """Every rule option of RULES.md §13 with its default and its allowed values, and
        the rules' numbers a page shows (players, decks, Flip 7, the deck): the browser
        keeps no copy of them."""
        return _rules_answer()

    @app.get("/api/cards", response_model=CardsAnswer, tags=["lobby"],
             responses={400: {"model": ErrorAnswer}})  # fmt: skip
    async def cards(request: Request, response: Response, rules: str | None = None,
                    lang: str | None = None) -> Any:
        """What every card does, in a sentence or two, for a page to show when a player
        points at a card: under the default rules, or under ``rules`` (a JSON object of
        rule options, as a table's ``rules``, at most 1024 characters; 400 ``bad_rules``
        otherwise). In ``lang`` ("de"), else the web app's language (its ``flip7_lang``
        cookie), else English (docs/i18n.md)."""
        try:
            parsed = _cards_rules(rules)
        except (Flip7Error, ValueError) as exc:
            return _error("bad_rules", guard.safe_text(str(exc)), 400)
        response.headers["Vary"] = "Cookie"
        return _cards_answer(parsed, messages.choose(lang, request))

    @app.get("/api/protocol", tags=["server"])
    async def protocol() -> Any:
        """The JSON Schema of the WebSocket messages in both directions."""
        return protocol_schema()

    public_limits = {name: getattr(settings, name) for name in Limits.model_fields}

    @app.get("/api/limits", response_model=Limits, tags=["server"])
    async def limits() -> Any:
        """The limits a client meets, as this server runs them (``flip7 serve --limit``
        changes them): message sizes and rates, per-address budgets, the uploaded record's
        bounds, replay pages, idle times. Clients (``flip7 attack``) read them here."""
        return public_limits

    # Worked out once, from what the operator said at start: never from a request's Host
    # header, which anyone can set.
    server_info = {
        "public_url": settings.public_url,
        "addresses": list(settings.reachable_urls),
        "loopback_only": is_loopback(settings.host),
    }

    @app.get("/api/server", response_model=ServerInfo, tags=["server"])
    async def server() -> Any:
        """Where friends can reach this server, for invite links: the operator's public URL
        (``flip7 serve --public-url``; links start with it when set), the addresses found
        for this machine when it listens beyond loopback (``--host 0.0.0.0``), and whether
        it listens on loopback only (then no other machine can open it)."""
        return server_info

    @app.get("/api/tables", response_model=TableList, tags=["lobby"])
    async def list_tables(request: Request) -> Any:
        """Tables waiting for players and tables in play, newest first."""
        lobby = lobby_of(request)
        many = cluster_of(lobby)
        if many is not None:  # every process's tables
            return {"tables": await many.tables()}
        return {"tables": lobby.listing()}

    @app.post("/api/tables", response_model=SeatGranted, status_code=201, tags=["lobby"],
              responses=_ERRORS)
    async def create_table(
        body: CreateTable, request: Request, x_player_key: str | None = Header(None)
    ) -> Any:
        """Open a table; its creator takes seat 0 and gets the seat's token. With
        ``X-Player-Key`` the seat counts for that identity (flip7.server.services.players)."""
        lobby = lobby_of(request)
        table, seat, token = await lobby.create_table(
            body.name, body.player, body.seats, body.rules, body.turn_timer,
            address=client_address(request.client), bust_odds=body.bust_odds,
            rated=body.rated, player_id=await players.player_id_of(request, x_player_key),
        )
        state = await play.state_of(table, table.seats[seat])
        return {"table": state, "seat": seat, "token": token}

    @app.get("/api/tables/{table_id}", response_model=TableAnswer, tags=["lobby"],
             responses=_ERRORS)
    async def get_table(table_id: str, request: Request) -> Any:
        """The table as a spectator sees it; 410 ``closed`` once it was closed for lack of
        players (its games stay at ``/api/tables/{table_id}/games``)."""
        return await act(request, requests.ShowTable(table_id=table_id))

    @app.post("/api/tables/{table_id}/join", response_model=SeatGranted, tags=["lobby"],
              responses=_ERRORS)
    async def join(
        table_id: str, body: JoinTable, request: Request, x_player_key: str | None = Header(None)
    ) -> Any:
        """Take the lowest empty seat; the answer holds the seat's secret token. With
        ``X-Player-Key`` the seat counts for that identity (flip7.server.services.players). A join
        that brings its own ``token`` may be sent again: the same name and token get the
        same seat back (a retry whose first answer was lost)."""
        return await act(request, requests.Join(
            table_id=table_id, player=body.player, address=client_address(request.client),
            player_id=await players.player_id_of(request, x_player_key), token=body.token))

    @app.post("/api/tables/{table_id}/bots", response_model=TableAnswer, tags=["lobby"],
              responses=_ERRORS)
    async def add_bot(
        table_id: str, body: AddBot, request: Request, authorization: str | None = Header(None)
    ) -> Any:
        """Seat a bot in the lowest empty seat (any seated player may)."""
        return await act(request, requests.AddBot(
            table_id=table_id, token=_token(authorization), bot=body.bot))

    @app.delete("/api/tables/{table_id}/seats/{seat}", response_model=TableAnswer,
                tags=["lobby"], responses=_ERRORS)
    async def remove_seat(
        table_id: str, seat: int, request: Request, authorization: str | None = Header(None)
    ) -> Any:
        """Remove a bot, or yourself, before the game starts."""
        return await act(request, requests.RemoveSeat(
            table_id=table_id, token=_token(authorization), seat=seat))

    @app.post("/api/tables/{table_id}/leave", response_model=TableAnswer, tags=["lobby"],
              responses=_ERRORS)
    async def leave(
        table_id: str, request: Request, authorization: str | None = Header(None)
    ) -> Any:
        """Leave your seat: emptied before the start, played by a bot during a game."""
        return await act(request, requests.Leave(table_id=table_id, token=_token(authorization)))

    @app.post("/api/tables/{table_id}/start", response_model=TableAnswer, tags=["lobby"],
              responses=_ERRORS)
    async def start(
        table_id: str, request: Request, authorization: str | None = Header(None)
    ) -> Any:
        """Start the game with the seated players (empty seats are dropped)."""
        return await act(request, requests.Start(table_id=table_id, token=_token(authorization)))

    @app.post("/api/tables/{table_id}/rematch", response_model=TableAnswer, tags=["lobby"],
              responses=_ERRORS)
    async def rematch(
        table_id: str, request: Request, authorization: str | None = Header(None)
    ) -> Any:
        """Once the game is over, say you are ready for the next one (as ``POST
        .../ready`` with ``{"ready": true}``): it starts with the same options once every
        player staying is ready."""
        return await act(request, requests.Start(
            table_id=table_id, token=_token(authorization), rematch=True))

    @app.post("/api/tables/{table_id}/ready", response_model=TableAnswer, tags=["lobby"],
              responses=_ERRORS)
    async def ready(
        table_id: str, body: Ready, request: Request, authorization: str | None = Header(None)
    ) -> Any:
        """At the end screen, say whether you are ready for the next game. It starts once
        every human staying is ready (bots are); players who left, or have been away
        from the end screen for ``rematch_wait`` seconds, are dropped from it."""
        return await act(request, requests.Ready(
            table_id=table_id, token=_token(authorization), ready=body.ready))

    @app.post("/api/tutorial", response_model=SeatGranted, status_code=201, tags=["lobby"],
              responses=_ERRORS)
    async def start_tutorial(body: StartTutorial, request: Request) -> Any:
        """Learn to play: a guided first game against two bots on a private table (not in
        the lobby's list), started at once. A prepared deck brings every kind of card in
        turn, and the table state's ``tutorial`` says the lesson on screen and the move it
        asks for. Counted as a table created (``tables_per_minute``)."""
        lobby = lobby_of(request)
        table, seat, token = await lobby.create_tutorial(
            body.player, FIRST_GAME.id, address=client_address(request.client)
        )
        state = await play.state_of(table, table.seats[seat])
        return {"table": state, "seat": seat, "token": token}

    @app.post("/api/tables/{table_id}/tutorial", response_model=TableAnswer, tags=["lobby"],
              responses=_ERRORS)
    async def tutorial_step(
        table_id: str, body: TutorialStep, request: Request,
        authorization: str | None = Header(None),
    ) -> Any:
        """At a guided first game: ``{"read": N}`` when the player has read lesson N ("Got
        it": a bot waiting for it plays on), ``{"skip": true}`` to leave the lessons and
        play on as a normal game against the bots. 409 ``stale_lesson`` for a lesson not on
        screen, ``tutorial_over`` once skipped or ended, ``no_tutorial`` at another game."""
        return await act(request, requests.TutorialStep(
            table_id=table_id, token=_token(authorization), skip=body.skip, read=body.read))

    @app.post("/api/tables/{table_id}/seats/{seat}/handover", response_model=TableAnswer,
              tags=["lobby"], responses=_ERRORS)
    async def handover(
        table_id: str, seat: int, request: Request, authorization: str | None = Header(None)
    ) -> Any:
        """Hand the seat of a player who is away on their turn to the stand-in bot, once
        they have been away for ``handover_grace`` seconds (409 ``too_soon`` before, with
        ``Retry-After``); the server does it itself after ``handover_auto``. The seat is
        theirs again when they reconnect."""
        return await act(request, requests.Handover(
            table_id=table_id, token=_token(authorization), seat=seat))

    @app.get("/api/tables/{table_id}/games", response_model=GameList, tags=["replays"],
             responses=_ERRORS)
    async def table_games(table_id: str, request: Request) -> Any:
        """The games played at a table, first to last (a closed table's too)."""
        lobby = lobby_of(request)
        if not await lobby.exists(table_id):
            raise TableError("no_table", f"there is no table {table_id!r}", 404)
        return {"games": [g.summary() for g in await store_of(request).games_of(table_id)]}

    @app.get("/api/games", response_model=RecentGames, tags=["replays"], responses=_ERRORS)
    async def recent_games(request: Request, limit: str | None = None) -> Any:
        """The most recently finished games of every table (closed tables' too), newest
        first: ``limit`` of them (default 10, at most 50), each with its table, players,
        winners and totals; its replay is ``/api/games/{game_id}/replay``."""
        return {"games": await store_of(request).recent_games(_recent_limit(limit))}

    async def finished_record(request: Request, game_id: str) -> dict[str, Any]:
        row = await store_of(request).game(game_id)
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

    replay_service.install(app)
    # The coach's analyses of finished games, in worker processes
    # (flip7.server.services.coach_jobs).
    coach_jobs.install(app, settings)
    replay_errors: dict[int | str, dict[str, Any]] = {
        **_ERRORS, **{status: {"model": ErrorAnswer} for status in (422, 429, 503)}
    }

    @app.get("/api/games/{game_id}/replay", response_model=ReplayAnswer, tags=["replays"],
             responses=replay_errors)
    async def game_replay(
        game_id: str, request: Request, offset: str | None = None, limit: str | None = None,
        seat: str | None = None,
    ) -> Any:
        """A finished game step by step, one page at a time: the events of each draw and
        decision, and the table after it. ``offset`` is the page's first step (0 = the
        start), ``limit`` its most steps (default and most: the server's
        ``replay_page_steps``); a page may hold fewer (it stops after about 1 MB), and
        ``total_steps`` says how many the whole replay has. ``seat``: each view is that
        seat's as it was sent to it live (its options, its bust risk), not the spectator's."""

        async def bust_odds(_record: dict[str, Any]) -> bool:
            return await replays.table_bust_odds(store_of(request), game_id)

        return await replay_service.page(
            f"game:{game_id}", lambda: finished_record(request, game_id), offset, limit,
            replays.accepts_gzip(request), client_address(request.client), seat, bust_odds,
        )

    @app.post("/api/replays", response_model=ReplayCreated, status_code=201,
              tags=["replays"], responses=replay_errors)
    async def upload_replay(request: Request) -> Any:
        """Store an uploaded record (``flip7-record/1``) for viewing; 400 says what is wrong
        with an invalid one, 413 which limit a too large one passes (``max_record_bytes``,
        ``max_record_draws``, ``max_record_decisions``, ``max_record_target_score``), 422
        that its replay passes the worker's budget, 429 that this address uploads too
        often (with ``Retry-After``)."""
        record = await replay_service.upload(request)
        replay_id = _new_id()
        await store_of(request).add_replay(replay_id, record, utcnow())
        lobby_of(request).log_event("replay_uploaded", None, replay=replay_id)
        return JSONResponse({"id": replay_id}, status_code=201)

    @app.get("/api/replays/{replay_id}", response_model=ReplayAnswer, tags=["replays"],
             responses=replay_errors)
    async def get_replay(
        replay_id: str, request: Request, offset: str | None = None, limit: str | None = None,
        seat: str | None = None,
    ) -> Any:
        """An uploaded record, step by step, one page at a time (as
        ``GET /api/games/{game_id}/replay``; with ``seat``, the bust risk is shown unless
        the record's ``meta.bust_odds`` is false)."""

        async def record() -> dict[str, Any]:
            found = await store_of(request).replay_record(replay_id)
            if found is None:
                raise TableError("no_replay", f"there is no replay {replay_id!r}", 404)
            return found

        return await replay_service.page(
            f"upload:{replay_id}", record, offset, limit, replays.accepts_gzip(request),
            client_address(request.client), seat,
        )

    # ------------------------------------------------------------------ the client

    app.include_router(socket.router)
    app.include_router(messages.router)  # GET /api/messages/{lang}: the catalogues

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")

    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    for path in ("/", "/t/{table_id}", "/replay/game/{game_id}", "/replay/{replay_id}",
                 "/scorekeeper", "/scorekeeper/{scorecard_id}", "/rules",
                 # players (issue 16): profiles, the leaderboard, the coach, transfer links
                 "/me", "/players/{player_id}", "/leaderboard", "/coach/{game_id}/{seat}",
                 "/link/{code}"):
        app.add_api_route(path, index, include_in_schema=False)

    return app


# GET /api/games: how many finished games it lists when not told, and at most.
RECENT_GAMES = 10
MAX_RECENT_GAMES = 50


def _recent_limit(limit: str | None) -> int:
    """``limit`` of ``GET /api/games`` as a number, or 400 ``bad_limit`` saying why not.

    >>> _recent_limit(None), _recent_limit("50")
    (10, 50)
    >>> _recent_limit("51")
    Traceback (most recent call last):
    ...
    flip7.server.table.errors.TableError: limit must be a whole number from 1 to 50, not '51'
    """
    if limit is None:
        return RECENT_GAMES
    count = replays.query_number(limit)
    if count is not None and 1 <= count <= MAX_RECENT_GAMES:
        return count
    shown = limit if len(limit) <= 20 else limit[:20] + "…"
    raise TableError(
        "bad_limit", f"limit must be a whole number from 1 to {MAX_RECENT_GAMES}, not {shown!r}"
    )


def _new_id() -> str:
    import secrets

    return secrets.token_urlsafe(6)
