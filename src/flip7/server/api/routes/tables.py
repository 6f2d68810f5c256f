"""The lobby's tables, ``/api/tables`` and ``/api/tutorial``: open one, take a seat, seat a
bot, start, leave, the next game. A call on one table is one typed request
(flip7.server.base.requests), run where the table runs (:func:`flip7.server.api.owner.run`:
here, or at the process that owns it)."""

from __future__ import annotations

from fastapi import APIRouter, Header, Request

from flip7.core.jsontypes import JSONObject
from flip7.server.api import owner, play
from flip7.server.api.errors import ERROR_ANSWERS
from flip7.server.api.wiring import Services, Use
from flip7.server.base import requests
from flip7.server.base.limits import client_address
from flip7.server.base.protocol import (
    AddBot,
    CreateTable,
    JoinTable,
    Ready,
    SeatGranted,
    StartTutorial,
    TableAnswer,
    TableList,
    TutorialStep,
)
from flip7.server.base.requests import bearer
from flip7.server.cluster.node import of as cluster_of
from flip7.server.table.seat import hash_token
from flip7.server.table.tutorial import FIRST_GAME

__all__ = ["router"]

router = APIRouter(tags=["lobby"])


async def _act(services: Services, asked: requests.Request) -> JSONObject:
    """Answer a table request (flip7.server.api.operations), here or at the process that
    runs the table."""
    return (await owner.run(services.lobby, asked)).to_json()


# The seat tokens a client may send with the lobby's list (``X-Seat-Tokens``): as many as
# the browser sends at most (util.js); more are not read.
SEAT_TOKENS_HELD = 100


def held_token_hashes(seat_tokens: str | None) -> frozenset[str]:
    """What the store keeps of each seat token of ``X-Seat-Tokens`` (comma-separated; the
    first ``SEAT_TOKENS_HELD``).

    >>> from flip7.server.table.seat import hash_token
    >>> held_token_hashes("a, b,,") == {hash_token("a"), hash_token("b")}, held_token_hashes(None)
    (True, frozenset())
    """
    if not seat_tokens:
        return frozenset()
    tokens = [token.strip() for token in seat_tokens.split(",", SEAT_TOKENS_HELD)]
    return frozenset(hash_token(token) for token in tokens[:SEAT_TOKENS_HELD] if token)


@router.get("/api/tables", response_model=TableList)
async def list_tables(services: Use, x_seat_tokens: str | None = Header(None)) -> JSONObject:
    """Tables waiting for players and tables in play, newest first. ``X-Seat-Tokens``: the
    seat tokens this client holds, comma-separated (at most ``SEAT_TOKENS_HELD``): a table
    whose host's seat is one of them is listed with ``hosting`` true (the browser offers
    its bot invitations there)."""
    held = held_token_hashes(x_seat_tokens)
    many = cluster_of(services.lobby)
    if many is not None:  # every process's tables
        tables = await many.tables()
        host_token_hash = many.listing.host_token_hash
    else:
        tables = services.lobby.listing()
        host_token_hash = services.lobby.host_token_hash
    return {"tables": [{**table, "hosting": host_token_hash(str(table["id"])) in held}
                       for table in tables]}


@router.post("/api/tables", response_model=SeatGranted, status_code=201,
             responses=ERROR_ANSWERS)
async def create_table(
    body: CreateTable, request: Request, services: Use, x_player_key: str | None = Header(None)
) -> JSONObject:
    """Open a table; its creator takes seat 0 and gets the seat's token. With
    ``X-Player-Key`` the seat counts for that identity (flip7.server.services.players)."""
    table, seat, token = await services.lobby.create_table(
        body.name, body.player, body.seats, body.rules, body.turn_timer,
        address=client_address(request.client), bust_odds=body.bust_odds,
        rated=body.rated, player_id=await services.players.person(x_player_key),
        pace=body.pace, move_hours=body.move_hours,
    )
    state = await play.state_of(table, table.seats[seat])
    return {"table": state, "seat": seat, "token": token}


@router.get("/api/tables/{table_id}", response_model=TableAnswer, responses=ERROR_ANSWERS)
async def get_table(table_id: str, services: Use) -> JSONObject:
    """The table as a spectator sees it; 410 ``closed`` once it was closed for lack of
    players (its games stay at ``/api/tables/{table_id}/games``)."""
    return await _act(services, requests.ShowTable(table_id=table_id))


@router.post("/api/tables/{table_id}/join", response_model=SeatGranted,
             responses=ERROR_ANSWERS)
async def join(
    table_id: str, body: JoinTable, request: Request, services: Use,
    x_player_key: str | None = Header(None),
) -> JSONObject:
    """Take the lowest empty seat; the answer holds the seat's secret token. With
    ``X-Player-Key`` the seat counts for that identity (flip7.server.services.players). A join
    that brings its own ``token`` may be sent again: the same name and token get the
    same seat back (a retry whose first answer was lost). A token that is no random secret
    is 400 ``weak_token``; one already another seat's at the table, 409 ``token_taken``."""
    return await _act(services, requests.Join(
        table_id=table_id, name=body.player, address=client_address(request.client),
        player_id=await services.players.person(x_player_key), token=body.token))


@router.post("/api/tables/{table_id}/bots", response_model=TableAnswer, responses=ERROR_ANSWERS)
async def add_bot(
    table_id: str, body: AddBot, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    """Seat a bot in the lowest empty seat (any seated player may)."""
    return await _act(services, requests.AddBot(
        table_id=table_id, token=bearer(authorization), bot=body.bot))


@router.delete("/api/tables/{table_id}/seats/{seat}", response_model=TableAnswer,
               responses=ERROR_ANSWERS)
async def remove_seat(
    table_id: str, seat: int, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    """Remove a bot, or yourself, before the game starts."""
    return await _act(services, requests.RemoveSeat(
        table_id=table_id, token=bearer(authorization), seat=seat))


@router.post("/api/tables/{table_id}/leave", response_model=TableAnswer,
             responses=ERROR_ANSWERS)
async def leave(
    table_id: str, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    """Leave your seat: emptied before the start, played by a bot during a game."""
    return await _act(services, requests.Leave(table_id=table_id, token=bearer(authorization)))


@router.post("/api/tables/{table_id}/start", response_model=TableAnswer,
             responses=ERROR_ANSWERS)
async def start(
    table_id: str, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    """Start the game with the seated players (empty seats are dropped)."""
    return await _act(services, requests.Start(table_id=table_id, token=bearer(authorization)))


@router.post("/api/tables/{table_id}/rematch", response_model=TableAnswer,
             responses=ERROR_ANSWERS)
async def rematch(
    table_id: str, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    """Once the game is over, say you are ready for the next one (as ``POST
    .../ready`` with ``{"ready": true}``): it starts with the same options once every
    player staying is ready."""
    return await _act(services, requests.Start(
        table_id=table_id, token=bearer(authorization), rematch=True))


@router.post("/api/tables/{table_id}/ready", response_model=TableAnswer,
             responses=ERROR_ANSWERS)
async def ready(
    table_id: str, body: Ready, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    """At the end screen, say whether you are ready for the next game. It starts once
    every human staying is ready (bots are); players who left, or have been away
    from the end screen for ``rematch_wait`` seconds, are dropped from it."""
    return await _act(services, requests.Ready(
        table_id=table_id, token=bearer(authorization), ready=body.ready))


@router.post("/api/tutorial", response_model=SeatGranted, status_code=201,
             responses=ERROR_ANSWERS)
async def start_tutorial(body: StartTutorial, request: Request, services: Use) -> JSONObject:
    """Learn to play: a guided first game against two bots on a private table (not in
    the lobby's list), started at once. A prepared deck brings every kind of card in
    turn, and the table state's ``tutorial`` says the lesson on screen and the move it
    asks for. Counted as a table created (``tables_per_minute``)."""
    table, seat, token = await services.lobby.create_tutorial(
        body.player, FIRST_GAME.id, address=client_address(request.client)
    )
    state = await play.state_of(table, table.seats[seat])
    return {"table": state, "seat": seat, "token": token}


@router.post("/api/tables/{table_id}/tutorial", response_model=TableAnswer,
             responses=ERROR_ANSWERS)
async def tutorial_step(
    table_id: str, body: TutorialStep, services: Use, authorization: str | None = Header(None),
) -> JSONObject:
    """At a guided first game: ``{"read": N}`` when the player has read lesson N ("Got
    it": a bot waiting for it plays on), ``{"skip": true}`` to leave the lessons and
    play on as a normal game against the bots. 409 ``stale_lesson`` for a lesson not on
    screen, ``tutorial_over`` once skipped or ended, ``no_tutorial`` at another game."""
    return await _act(services, requests.TutorialStep(
        table_id=table_id, token=bearer(authorization), skip=body.skip, read=body.read))


@router.post("/api/tables/{table_id}/seats/{seat}/handover", response_model=TableAnswer,
             responses=ERROR_ANSWERS)
async def handover(
    table_id: str, seat: int, services: Use, authorization: str | None = Header(None)
) -> JSONObject:
    """Hand the seat of a player who is away on their turn to the stand-in bot, once
    they have been away for ``handover_grace`` seconds (409 ``too_soon`` before, with
    ``Retry-After``); the server does it itself after ``handover_auto``. The seat is
    theirs again when they reconnect."""
    return await _act(services, requests.Handover(
        table_id=table_id, token=bearer(authorization), seat=seat))
