"""Finished games and replays: a table's games, the latest games, a game's record, its
replay a page at a time, and uploaded records (:mod:`flip7.server.services.replays` does
the work, in a worker process)."""

from __future__ import annotations

import json
import secrets

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from flip7.core.jsontypes import JSONObject
from flip7.server.api.errors import ERROR_ANSWERS, errors
from flip7.server.api.wiring import Services, Use
from flip7.server.base.formats import utcnow
from flip7.server.base.limits import client_address
from flip7.server.base.protocol import GameList, RecentGames, ReplayAnswer, ReplayCreated
from flip7.server.base.queries import page_number
from flip7.server.services.replays import ReplayError, table_bust_odds
from flip7.server.table.errors import TableError

__all__ = ["router"]

router = APIRouter(tags=["replays"])

# GET /api/games: how many finished games it lists when not told, and at most.
RECENT_GAMES = 10
MAX_RECENT_GAMES = 50
# A replay page's refusals besides the common ones: past the worker's budget (422), too
# many pages or jobs from one address (429), the worker's queue full (503).
REPLAY_ERRORS = {**ERROR_ANSWERS, **errors(422, 429, 503)}


def _accepts_gzip(request: Request) -> bool:
    """Whether the client said it takes gzip-compressed answers."""
    return "gzip" in request.headers.get("accept-encoding", "").lower()


async def _finished_record(services: Services, game_id: str) -> JSONObject:
    row = await services.store.game(game_id)
    if row is None:
        raise ReplayError("no_game", f"there is no game {game_id!r}", 404)
    if row.record is None:
        # An unfinished game's record would reveal the cards to come: never.
        raise ReplayError("not_over", "the game is still being played", 409)
    return row.record


@router.get("/api/tables/{table_id}/games", response_model=GameList, responses=ERROR_ANSWERS)
async def table_games(table_id: str, services: Use) -> JSONObject:
    """The games played at a table, first to last (a closed table's too)."""
    lobby = services.lobby
    if not await lobby.exists(table_id):
        raise TableError("no_table", f"there is no table {table_id!r}", 404)
    return {"games": [g.summary() for g in await services.store.games_of(table_id)]}


@router.get("/api/games", response_model=RecentGames, responses=ERROR_ANSWERS)
async def recent_games(services: Use, limit: str | None = None) -> JSONObject:
    """The most recently finished games of every table (closed tables' too), newest
    first: ``limit`` of them (default 10, at most 50), each with its table, players,
    winners and totals; its replay is ``/api/games/{game_id}/replay``."""
    count = page_number(limit, "limit", RECENT_GAMES, 1, MAX_RECENT_GAMES)
    return {"games": list(await services.store.recent_games(count))}


@router.get("/api/games/{game_id}/record", responses=ERROR_ANSWERS, response_model=None)
async def game_record(game_id: str, services: Use) -> Response:
    """A finished game's record (``flip7-record/1``), as a download."""
    record = await _finished_record(services, game_id)
    return Response(
        json.dumps(record, indent=2) + "\n",
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="flip7-{game_id}.json"'},
    )


@router.get("/api/games/{game_id}/replay", response_model=ReplayAnswer, responses=REPLAY_ERRORS)
async def game_replay(
    game_id: str, request: Request, services: Use, offset: str | None = None,
    limit: str | None = None, seat: str | None = None,
) -> Response:
    """A finished game step by step, one page at a time: the events of each draw and
    decision, and the table after it. ``offset`` is the page's first step (0 = the
    start), ``limit`` its most steps (default and most: the server's
    ``replay_page_steps``); a page may hold fewer (it stops after about 1 MB), and
    ``total_steps`` says how many the whole replay has. ``seat``: each view is that
    seat's as it was sent to it live (its options, its bust risk), not the spectator's."""

    async def record() -> JSONObject:
        return await _finished_record(services, game_id)

    async def bust_odds(_record: JSONObject) -> bool:
        return await table_bust_odds(services.store, game_id)

    return await services.replays.page(
        f"game:{game_id}", record, offset, limit, _accepts_gzip(request),
        client_address(request.client), seat, bust_odds,
    )


@router.post("/api/replays", response_model=ReplayCreated, status_code=201,
             responses=REPLAY_ERRORS)
async def upload_replay(request: Request, services: Use) -> Response:
    """Store an uploaded record (``flip7-record/1``) for viewing; 400 says what is wrong
    with an invalid one, 413 which limit a too large one passes (``max_record_bytes``,
    ``max_record_draws``, ``max_record_decisions``, ``max_record_target_score``), 422
    that its replay passes the worker's budget, 429 that this address uploads too
    often or already holds ``replay_jobs_per_address`` jobs in the worker's queue (with
    ``Retry-After``), 503 ``busy`` that the queue is full."""
    record = await services.replays.upload(client_address(request.client), request.body)
    lobby = services.lobby
    replay_id = secrets.token_urlsafe(6)
    await services.store.add_replay(replay_id, record, utcnow())
    lobby.log_event("replay_uploaded", None, replay=replay_id)
    return JSONResponse({"id": replay_id}, status_code=201)


@router.get("/api/replays/{replay_id}", response_model=ReplayAnswer, responses=REPLAY_ERRORS)
async def get_replay(
    replay_id: str, request: Request, services: Use, offset: str | None = None,
    limit: str | None = None, seat: str | None = None,
) -> Response:
    """An uploaded record, step by step, one page at a time (as
    ``GET /api/games/{game_id}/replay``; with ``seat``, the bust risk is shown unless
    the record's ``meta.bust_odds`` is false)."""

    async def record() -> JSONObject:
        found = await services.store.replay_record(replay_id)
        if found is None:
            raise ReplayError("no_replay", f"there is no replay {replay_id!r}", 404)
        return found

    return await services.replays.page(
        f"upload:{replay_id}", record, offset, limit, _accepts_gzip(request),
        client_address(request.client), seat,
    )
