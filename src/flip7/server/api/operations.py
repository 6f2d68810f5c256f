"""The REST calls on one table, by name, so that the process running the table answers
them wherever they arrived (flip7.server.cluster.node forwards a call to the table's owner).

Each operation takes the lobby, the table, the caller's seat token and the call's own
arguments (JSON), and returns the answer's JSON.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from flip7.server.api.play import state_of
from flip7.server.cluster.node import of as cluster_of
from flip7.server.table.errors import TableError
from flip7.server.table.lobby import Lobby
from flip7.server.table.table import Table

__all__ = ["OPERATIONS", "run"]

Operation = Callable[[Lobby, Table, "str | None", dict[str, Any]], Awaitable[dict[str, Any]]]


async def _answer(table: Table) -> dict[str, Any]:
    return {"table": await state_of(table, None)}


async def _state(lobby: Lobby, table: Table, token: str | None, args: dict[str, Any]
                 ) -> dict[str, Any]:
    return await _answer(table)


async def _join(lobby: Lobby, table: Table, token: str | None, args: dict[str, Any]
                ) -> dict[str, Any]:
    seat, granted = await lobby.join(table, args["player"], args.get("address"),
                                     args.get("player_id"), args.get("token"))
    return {"table": await state_of(table, table.seats[seat]), "seat": seat, "token": granted}


def _acting(
    action: Callable[[Lobby, Table, str | None, dict[str, Any]], Awaitable[Any]],
) -> Operation:
    """A seated player's request: run it, answer with the table as a spectator sees it."""

    async def operation(lobby: Lobby, table: Table, token: str | None, args: dict[str, Any]
                        ) -> dict[str, Any]:
        await action(lobby, table, token, args)
        return await _answer(table)

    return operation


OPERATIONS: dict[str, Operation] = {
    "state": _state,
    "join": _join,
    "add_bot": _acting(lambda lobby, t, token, a: lobby.add_bot(t, token, a["bot"])),
    "remove_seat": _acting(lambda lobby, t, token, a: lobby.remove_seat(t, token, a["seat"])),
    "leave": _acting(lambda lobby, t, token, a: lobby.leave(t, token)),
    "start": _acting(lambda lobby, t, token, a: lobby.start(t, token)),
    "rematch": _acting(lambda lobby, t, token, a: lobby.start(t, token, rematch=True)),
    "ready": _acting(lambda lobby, t, token, a: lobby.ready(t, token, a["ready"])),
    "tutorial_step": _acting(
        lambda lobby, t, token, a: lobby.tutorial_step(t, token, a["skip"], a["read"])
    ),
    "handover": _acting(lambda lobby, t, token, a: lobby.handover(t, token, a["seat"])),
}

# How often a call follows a table that moves (taken over while the call was on its way).
_HOPS = 3


async def run(
    lobby: Lobby, table_id: str, name: str, token: str | None, args: dict[str, Any],
    forwarded: bool = False,
) -> dict[str, Any]:
    """Run operation ``name`` on ``table_id`` here if this process runs the table, else at
    the process that does. ``forwarded``: the call came from another process, which
    follows the table itself if it moved (409 ``moved``)."""
    operation = OPERATIONS[name]
    cluster = cluster_of(lobby)
    if cluster is None:
        return await operation(lobby, await lobby.find(table_id), token, args)
    if forwarded:
        # Another process sent it here, believing this one runs the table: if it moved
        # meanwhile, that process follows it (and a table nobody runs is taken over here).
        where = await cluster.locate(table_id)
        if isinstance(where, str):
            raise TableError("moved", "this table moved to another process; try again", 409)
        if where is None:
            raise await lobby.gone(table_id)
        return await operation(lobby, where, token, args)
    for _ in range(_HOPS):
        try:
            answer = await cluster.run_at_owner(table_id, name, token, args)
        except TableError as exc:
            if exc.code == "moved":
                continue
            raise
        if answer is None:
            raise await lobby.gone(table_id)
        if isinstance(answer, dict):
            return answer
        return await operation(lobby, answer, token, args)
    raise TableError(
        "unavailable", "this table is moving between processes; try again in a moment", 503,
        retry_after=1.0,
    )
