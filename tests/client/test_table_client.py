"""The tools' table client (flip7.client.table_client) on frames alone: what it keeps of a
table, when a client decides and when it says ready."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("websockets")

from flip7.client.table_client import Frame, TableView


def _table(version: int, *, legal: list[str] | None = None, over: bool = False,
           game_id: str | None = "g1") -> dict[str, Any]:  # fmt: skip
    game = {"over": over, "legal_decisions": legal or [], "viewer": 0,
            "players": [{"number_sum": 3}]}  # fmt: skip
    return {"version": version, "state": "over" if over else "playing", "game": game,
            "game_id": game_id}  # fmt: skip


def _frame(kind: str, **fields: Any) -> str:
    return json.dumps({"v": 1, "type": kind, **fields})


def test_the_view_keeps_the_latest_state_and_the_newest_version() -> None:
    view = TableView()
    view.read(_frame("welcome", seat=0, table=_table(3), missed=None, history=[], chat=[]))
    assert view.version == 3 and view.state is not None and view.state.version == 3
    view.read(_frame("update", version=4, events=[], table=_table(4)))
    result = view.read(_frame("result", id="m1", ok=True, version=5))
    assert result.move_id == "m1" and result.version == 5
    assert view.version == 4  # a result names a version; the update brings it
    error = view.read(_frame("error", code="stale", message="old", id="m2", table=_table(4)))
    assert error.code == "stale" and view.state is error.table
    view.read(_frame("update", version=2, events=[], table=_table(2)))  # never backwards
    assert view.version == 4


def test_a_frame_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ValueError):
        Frame.parse("[1, 2]")
    with pytest.raises(ValueError):
        Frame.parse("{not json")


def test_a_welcome_names_the_versions_missed() -> None:
    frame = Frame.parse(_frame("welcome", table=_table(9), missed=[{"version": 7, "events": []},
                                                                  {"version": 8, "events": []}]))
    assert frame.missed == [7, 8]
    assert Frame.parse(_frame("welcome", table=_table(9), missed=None)).missed == []


def test_a_client_decides_once_per_version_unless_told_to_again() -> None:
    view = TableView()
    first = Frame.parse(_frame("update", version=5, events=[], table=_table(5, legal=["hit"])))
    assert first.table is not None
    assert view.turn(first.table) is not None
    assert view.turn(first.table) is None  # already decided at version 5
    view.decided = -1  # the move was refused: decide again
    assert view.turn(first.table) is not None
    waiting = Frame.parse(_frame("update", version=6, events=[], table=_table(6)))
    assert waiting.table is not None and view.turn(waiting.table) is None  # not its turn


def test_a_client_says_ready_once_per_game() -> None:
    view = TableView()
    over = Frame.parse(_frame("update", version=9, events=[], table=_table(9, over=True)))
    later = Frame.parse(_frame("update", version=10, events=[], table=_table(10, over=True)))
    playing = Frame.parse(_frame("update", version=11, events=[], table=_table(11)))
    next_game = Frame.parse(_frame("update", version=20, events=[],
                                   table=_table(20, over=True, game_id="g2")))  # fmt: skip
    assert over.table and later.table and playing.table and next_game.table
    assert view.ready_at(playing.table) is None
    assert view.ready_at(over.table) == "g1"
    assert view.ready_at(later.table) is None  # the same end screen
    assert view.ready_at(next_game.table) == "g2"
