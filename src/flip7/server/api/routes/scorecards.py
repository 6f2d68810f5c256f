"""The scorekeeper's REST API (docs/scorekeeper.md), ``/api/scorecards``: score games played
with real cards (:mod:`flip7.server.services.scorecards` does the work)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import JSONResponse, Response

from flip7.core.jsontypes import JSONObject
from flip7.server.api.wiring import Use
from flip7.server.base.limits import client_address
from flip7.server.services.scorecards import (
    ERRORS,
    KEY_HEADER,
    LIST_LIMIT,
    PREFIX,
    CheckRound,
    CreateScorecard,
    EditRound,
    LiveUpdate,
    NewRound,
)

__all__ = ["router"]

router = APIRouter(prefix=PREFIX, tags=["scorekeeper"], responses=ERRORS)

KeyHeader = Annotated[
    str | None,
    Header(alias=KEY_HEADER, description="the scorecard's edit key (changes only)"),
]


@router.post("", status_code=201, response_model=None)
async def create_scorecard(body: CreateScorecard, request: Request, services: Use) -> Response:
    """Start a scorecard. The answer holds its edit key (``key``), shown only this once:
    only its SHA-256 is stored. 429 past ``scorecards_per_minute`` from one address."""
    answer = await services.scorecards.create(body, client_address(request.client))
    return JSONResponse(answer, status_code=201)


@router.get("", response_model=None)
async def list_scorecards(
    services: Use, limit: int = Query(default=LIST_LIMIT, ge=1, le=LIST_LIMIT)
) -> JSONObject:
    """Saved scorecards, the most recently changed first (never their keys)."""
    return await services.scorecards.listing(limit)


@router.get("/{scorecard_id}", response_model=None)
async def get_scorecard(scorecard_id: str, services: Use) -> JSONObject:
    """A scorecard: players, rules, every round with its scores, totals, winner."""
    return await services.scorecards.get(scorecard_id)


@router.post("/{scorecard_id}/check", response_model=None)
async def check_round(scorecard_id: str, body: CheckRound, services: Use) -> JSONObject:
    """Score a round without saving it: 200 with its scores, or 422 with its problems."""
    return await services.scorecards.check_round(scorecard_id, body)


@router.post("/{scorecard_id}/rounds", status_code=201, response_model=None)
async def add_round(
    scorecard_id: str, body: NewRound, request: Request, services: Use, key: KeyHeader = None
) -> Response:
    """Enter the next round (``number``: its 1-based number). 409 if that round is already
    entered (from another device): the answer holds the scorecard as it is. Every change
    to a scorecard counts against ``scorecard_rounds_per_minute`` of the address (429)."""
    answer = await services.scorecards.add_round(
        scorecard_id, key, body, client_address(request.client)
    )
    return JSONResponse(answer, status_code=201)


@router.put("/{scorecard_id}/rounds/{number}", response_model=None)
async def edit_round(
    scorecard_id: str, number: int, body: EditRound, request: Request, services: Use,
    key: KeyHeader = None,
) -> JSONObject:
    """Correct round ``number``, made from revision ``revision`` of it: 409 if it changed
    meanwhile (from another device), with the scorecard as it is."""
    return await services.scorecards.edit_round(
        scorecard_id, number, key, body, client_address(request.client)
    )


@router.delete("/{scorecard_id}/rounds/{number}", response_model=None)
async def undo_round(
    scorecard_id: str,
    number: int,
    request: Request,
    services: Use,
    revision: int = Query(ge=1, description="the revision of the round being undone"),
    key: KeyHeader = None,
) -> JSONObject:
    """Undo the last round (``number`` must be the last one, at ``revision``)."""
    return await services.scorecards.undo_round(
        scorecard_id, number, revision, key, client_address(request.client)
    )


@router.put("/{scorecard_id}/live", response_model=None)
async def put_live(
    scorecard_id: str, body: LiveUpdate, request: Request, services: Use,
    key: KeyHeader = None,
) -> JSONObject:
    """Enter the round live: every event so far, replacing live revision ``based_on`` (0
    for a new live round). The answer is the scorecard with the live round's state and
    the advice for the player whose turn it is."""
    return await services.scorecards.put_live(
        scorecard_id, key, body, client_address(request.client)
    )


@router.delete("/{scorecard_id}/live", response_model=None)
async def delete_live(
    scorecard_id: str, request: Request, services: Use, key: KeyHeader = None
) -> JSONObject:
    """Abandon the live round (the rounds entered stay)."""
    return await services.scorecards.delete_live(
        scorecard_id, key, client_address(request.client)
    )


@router.get("/{scorecard_id}/export.csv", response_model=None)
async def export_csv(scorecard_id: str, services: Use) -> Response:
    """The scorecard as CSV: one row per round, with every score and running total."""
    text, filename = await services.scorecards.export(scorecard_id, "csv")
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@router.get("/{scorecard_id}/export.json", response_model=None)
async def export_json(scorecard_id: str, services: Use) -> Response:
    """The scorecard as JSON (``Scorecard.from_json`` reads it back)."""
    text, filename = await services.scorecards.export(scorecard_id, "json")
    return Response(
        text,
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
