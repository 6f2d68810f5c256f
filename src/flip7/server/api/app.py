"""The ASGI application: REST for the lobby, a WebSocket per client for play, the client.

:func:`create_app` is the composition root: the parts wired from the settings
(:mod:`flip7.server.api.wiring`), their start and stop, the error answers
(:mod:`flip7.server.api.errors`), what stands in front of the app
(:mod:`flip7.server.api.guard`) and the routers of :mod:`flip7.server.api.routes`, one per
area. A route is added to its area's router; a service to the wiring, which every route
gets as its parameter ``services: Use``.

>>> from flip7.server.base.settings import Settings
>>> app = create_app(Settings(database_url="sqlite+aiosqlite:///:memory:"))
>>> sorted(p for p in app.openapi()["paths"] if p.startswith("/api/tables/{table_id}"))[:3]
['/api/tables/{table_id}', '/api/tables/{table_id}/bots', '/api/tables/{table_id}/games']
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI
from fastapi.middleware.gzip import GZipMiddleware

from flip7 import __version__
from flip7.server.api import guard
from flip7.server.api.errors import HANDLERS
from flip7.server.api.routes import (
    bots,
    coach,
    info,
    pages,
    players,
    replays,
    scorecards,
    socket,
    tables,
)
from flip7.server.api.wiring import Services, run, wire
from flip7.server.base.settings import Settings, database_url
from flip7.server.services.scorecards import MAX_LIVE_BODY, PREFIX

__all__ = ["ROUTERS", "create_app"]

# Every route of the app, by area.
ROUTERS: tuple[APIRouter, ...] = (
    info.router,
    tables.router,
    replays.router,
    coach.router,
    players.router,
    scorecards.router,
    socket.router,
    bots.router,
    pages.router,
)
# The most bytes of a request body, but where :func:`body_limit` says otherwise.
MAX_BODY = 16 * 1024


def body_limit(settings: Settings) -> Callable[[str], int]:
    """The most bytes of a request body to ``path``: an uploaded record's
    (``max_record_bytes``), a live round's events, else :data:`MAX_BODY`.

    >>> limit = body_limit(Settings(max_record_bytes=1000))
    >>> limit("/api/replays"), limit("/api/scorecards/x/live"), limit("/api/tables")
    (1000, 65536, 16384)
    """

    def limit(path: str) -> int:
        if path == "/api/replays":
            return settings.max_record_bytes
        if path.startswith(PREFIX + "/") and path.endswith("/live"):
            return MAX_LIVE_BODY
        return MAX_BODY

    return limit


def create_app(settings: Settings | None = None) -> FastAPI:
    """The flip7 server as an ASGI app. It opens the database (and migrates it) on start."""
    settings = settings if settings is not None else Settings(database_url=database_url())
    wiring = wire(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[dict[str, Services]]:
        # Every request and socket finds the services in its state (wiring.services).
        async with run(wiring) as services:
            yield {"services": services}

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
        exception_handlers=HANDLERS,
    )
    # flip7 serve's guard (guard.server_config) asks the handshake gate before a socket
    # exists: it finds the gate here.
    app.state.wiring = wiring
    # Level 6: nearly level 9's ratio on JSON at a third of the CPU (9 is the default).
    app.add_middleware(GZipMiddleware, minimum_size=2048, compresslevel=6)
    app.add_middleware(guard.BodyLimit, limit=body_limit(settings))
    guard.protect(app, settings)
    for router in ROUTERS:
        app.include_router(router)
    return app
