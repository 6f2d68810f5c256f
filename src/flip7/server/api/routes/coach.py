"""The coach over the web, ``/api/games/{game_id}/coach``: a seat's decisions in a finished
game graded off the request path (:mod:`flip7.server.services.coach_jobs` does the work)."""

from __future__ import annotations

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, Response

from flip7.core.jsontypes import JSONObject
from flip7.server.api.errors import errors
from flip7.server.api.wiring import Use
from flip7.server.base.limits import client_address
from flip7.server.base.protocol import CoachAnswer, CoachRequest

__all__ = ["router"]

router = APIRouter(tags=["replays"], responses=errors(400, 401, 404, 409, 422, 429, 503))


@router.post("/api/games/{game_id}/coach", response_model=CoachAnswer, status_code=202,
             responses={200: {"model": CoachAnswer}})
async def ask_coach(game_id: str, body: CoachRequest, request: Request, services: Use,
                    x_player_key: str | None = Header(None)) -> Response:
    """Ask the coach to grade every decision of ``seat`` in a finished game (409 while
    it is played): 202 with its progress while it waits or runs (``GET`` follows it),
    200 with the report once done. A new analysis counts against the address's
    ``coach_per_minute`` (429); an address holds at most ``coach_jobs_per_address``
    analyses in the queue (429 ``too_many_jobs``); past ``coach_queue`` waiting
    analyses, 503 ``busy``. With ``X-Player-Key`` of an identity that played the game,
    the analysis goes before strangers' in the queue."""
    status, answer = await services.coach.ask(
        services.store, game_id, body.seat, client_address(request.client),
        await services.players.identify(x_player_key))
    return JSONResponse(answer, status_code=status)


@router.get("/api/games/{game_id}/coach", response_model=CoachAnswer)
async def coach_state(game_id: str, services: Use, seat: str | None = None) -> JSONObject:
    """The analysis of ``seat`` in a game: ``queued``, ``running`` (``progress``:
    decisions graded of all), ``done`` (``result``: the coach's report,
    ``flip7-coach/1``) or ``failed`` (``message``; ask again to start it anew); 404
    ``no_analysis`` if nobody asked for it."""
    return await services.coach.state(services.store, game_id, seat)
