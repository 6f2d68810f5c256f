"""A table's REST requests, run by the process that runs the table: one typed request
(flip7.server.base.requests) in, its answer out, wherever the request arrived
(flip7.server.api.owner brings it here).
"""

from __future__ import annotations

from typing import assert_never

from flip7.engine.record import Record
from flip7.server.api.play import state_of
from flip7.server.base.requests import (
    AddBot,
    Answer,
    Handover,
    Invite,
    Join,
    Leave,
    PublicRecord,
    Ready,
    RemoveSeat,
    Request,
    ShowTable,
    Start,
    TutorialStep,
)
from flip7.server.table.lobby import Lobby
from flip7.server.table.table import Table

__all__ = ["perform"]


async def perform(lobby: Lobby, table: Table, request: Request) -> Answer:
    """Run ``request`` at ``table``, which this process runs. A join is answered with the
    table as the new seat sees it, its seat and token; every other request with the table
    as a spectator sees it."""
    token = request.token
    match request:
        case Join():
            seat, granted = await lobby.join(table, request.name, request.address,
                                             request.player_id, token, request.bot_account)
            return Answer(table=await state_of(table, table.seats[seat]), seat=seat,
                          token=granted)
        case ShowTable():
            pass
        case Invite():
            await lobby.may_invite(table, token)
        case PublicRecord():
            async with table.lock:
                place = table.place_of(token)
                game = table.game
                return Answer(table=table.state_json(place),
                              record=None if game is None else Record.from_game(game).to_json())
        case AddBot():
            await lobby.add_bot(table, token, request.bot)
        case RemoveSeat():
            await lobby.remove_seat(table, token, request.seat)
        case Leave():
            await lobby.leave(table, token)
        case Start():
            await lobby.start(table, token, rematch=request.rematch)
        case Ready():
            await lobby.ready(table, token, request.ready)
        case TutorialStep():
            await lobby.tutorial_step(table, token, request.skip, request.read)
        case Handover():
            await lobby.handover(table, token, request.seat)
        case _:
            assert_never(request)
    return Answer(table=await state_of(table, None))
