"""A table's changes as typed values (flip7.server.table.changes): each writes and reads its
own form in the table's log, and that form is the one the server always stored.

``stored_tables_0334ba6.json`` holds the stored rows (``tables``, ``table_log``, ``games``)
of three tables played by the server before changes were typed (commit 0334ba6: every
kind of change, a hand-over by a player and one by the server, a turn timer's moves, a
rematch without a player who left, a tutorial's lesson read and skipped), and what each
table held in memory when it was written. They are never migrated: they must load as
they are, into the same tables.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from flip7.core.decisions import parse_decision
from flip7.server.base.formats import dumps
from flip7.server.base.settings import Settings, database_url
from flip7.server.store.database import Store
from flip7.server.table.changes import (
    CHANGES,
    AddBot,
    Change,
    HandOver,
    Join,
    Leave,
    MarkReady,
    Move,
    Remove,
    Return,
    Start,
    TutorialStep,
    change_from_json,
)
from flip7.server.table.lobby import Lobby
from flip7.server.table.storage import LogEntry, TableInsert

STORED = Path(__file__).with_name("stored_tables_0334ba6.json")
AT = datetime(2026, 12, 3, 16, 44, 50, 647703, tzinfo=UTC)

# Every kind of change, in each of the forms its log entry takes.
EXAMPLES: list[tuple[Change, str]] = [
    (Join(0, "Ann", "ab" * 32), '{"seat":0,"name":"Ann","token":"' + "ab" * 32 + '"}'),
    (Join(1, "Bob", "cd" * 32, player_id="pBob01"),
     '{"seat":1,"name":"Bob","token":"' + "cd" * 32 + '","player":"pBob01"}'),
    (Join(0, "Lea", "ef" * 32, private=True),
     '{"seat":0,"name":"Lea","token":"' + "ef" * 32 + '","private":true}'),
    (AddBot(3, "threshold", "Eddie (Easy bot)"),
     '{"seat":3,"bot":"threshold","name":"Eddie (Easy bot)"}'),
    (Remove(4), '{"seat":4}'),
    (Leave(1), '{"seat":1}'),
    (HandOver(1, by=0), '{"seat":1,"by":0}'),
    (HandOver(0, by=None), '{"seat":0,"by":null}'),
    (Return(1), '{"seat":1}'),
    (MarkReady(0, True), '{"seat":0,"ready":true}'),
    (MarkReady(2, False), '{"seat":2,"ready":false}'),
    (Start("iRmqD0qV", 7736858015387156111, AT),
     '{"game":"iRmqD0qV","seed":7736858015387156111,"at":"2026-12-03T16:44:50.647703+00:00"}'),
    (Start("2Fd_hTXJ", 64, AT.replace(microsecond=0), drop=(1, 3)),
     '{"game":"2Fd_hTXJ","seed":64,"at":"2026-12-03T16:44:50+00:00","drop":[1,3]}'),
    (Start("m8wylmJn", 5, AT, tutorial="first-game"),
     '{"game":"m8wylmJn","seed":5,"at":"2026-12-03T16:44:50.647703+00:00",'
     '"tutorial":"first-game"}'),
    (Move(0, parse_decision("discard 3 4"), "human", "m2"),
     '{"seat":0,"decision":"discard 3 4","id":"m2","by":"human"}'),
    (Move(2, parse_decision("hit"), "bot"), '{"seat":2,"decision":"hit","by":"bot"}'),
    (Move(1, parse_decision("give 0"), "timer"), '{"seat":1,"decision":"give 0","by":"timer"}'),
    (Move(0, parse_decision("swap 2 8 0 L13"), "human", "m9"),
     '{"seat":0,"decision":"swap 0 L13 2 8","id":"m9","by":"human"}'),
    (TutorialStep(read=0), '{"read":0}'),
    (TutorialStep(read=None), '{"skip":true}'),
]


@pytest.mark.parametrize(("change", "text"), EXAMPLES)
def test_a_change_writes_its_log_form_and_reads_it_back(change: Change, text: str) -> None:
    assert dumps(change.to_json()) == text
    assert change_from_json(change.kind, json.loads(text)) == change


def test_every_kind_of_change_has_an_example() -> None:
    assert {change.kind for change, _ in EXAMPLES} == set(CHANGES)


def _stored() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(STORED.read_text(encoding="utf-8"))
    return data


def test_every_change_stored_by_the_untyped_server_reads_back_byte_for_byte() -> None:
    rows = _stored()["tables"]["table_log"]
    assert {row["kind"] for row in rows} == set(CHANGES)
    for row in rows:
        change = change_from_json(row["kind"], json.loads(row["data"]))
        assert change.kind == row["kind"]
        assert dumps(change.to_json()) == row["data"], row


@pytest.mark.parametrize(
    ("kind", "data", "problem"),
    [
        ("seat", {"seat": 1}, "unknown change 'seat'"),
        ("join", {"seat": 0, "name": "Ann"}, "lacks 'token'"),
        ("remove", {"seat": "1"}, "'seat' is not a whole number"),
        ("move", {"seat": 0, "decision": "hit", "by": "ghost"}, "'by' is none of"),
        ("start", {"game": "g", "seed": 1, "at": AT.isoformat(), "drop": ["1"]}, "list of seats"),
    ],
)
def test_a_log_entry_that_holds_no_change_is_refused(
    kind: str, data: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        change_from_json(kind, data)


def _copy_rows(path: Path, stored: dict[str, Any]) -> None:
    """Write the stored rows as they are into the database at ``path`` (its schema made)."""
    db = sqlite3.connect(path)
    with db:
        for name in ("tables", "games", "table_log"):
            for row in stored["tables"][name]:
                columns = ", ".join(row)
                marks = ", ".join("?" for _ in row)
                db.execute(f"INSERT INTO {name} ({columns}) VALUES ({marks})", list(row.values()))
    db.close()


def _without_connections(seats: list[dict[str, Any] | None]) -> list[dict[str, Any] | None]:
    """Seats as a table rebuilt without clients shows them: nobody is connected (and
    ``bot_account``, added since, is left out)."""
    return [None if s is None else {k: v for k, v in s.items()
                                    if k not in ("connected", "bot_account")}
            for s in seats]


def test_tables_stored_by_the_untyped_server_load_into_the_same_tables(tmp_path: Path) -> None:
    stored = _stored()
    path = tmp_path / "old.db"
    url = database_url(str(path))

    async def scenario() -> None:
        store = await Store.open(url)  # the schema, migrated
        await store.close()
        _copy_rows(path, stored)
        store = await Store.open(url)
        lobby = Lobby(store, Settings(database_url=url))
        try:
            rows = await store.load_tables(open_only=True)
            assert {row.id for row in rows} == set(stored["final"])
            for row in rows:
                table = lobby.rebuild(row)
                final = stored["final"][row.id]
                assert (table.version, table.state) == (final["version"], final["state"])
                seats = [None if p is None else p.to_json(i) for i, p in enumerate(table.seats)]
                assert _without_connections(seats) == _without_connections(final["seats"])
                # Every event of the current game, as clients were sent it.
                assert table.welcome_history()[0] == final["history"]
                if "game" in final:
                    assert table.game is not None
                    assert table.game.view(None).to_json() == final["game"]
                    assert table.game_number == final["game_number"]
                    assert table.finished_games == final["finished_games"]
                if "tutorial" in final:
                    assert table.tutorial is not None and table.game is not None
                    shown = table.tutorial.to_json(table.game)
                    # The lesson count came after these tables were stored (issue 29).
                    added = {"lessons", "lessons_done"} - set(final["tutorial"])
                    assert {k: v for k, v in shown.items() if k not in added} == final["tutorial"]
        finally:
            await lobby.close()
            await store.close()

    asyncio.run(scenario())


def test_the_store_keeps_a_change_in_its_log_form(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    url = database_url(str(path))
    join = Join(0, "Ann", "ab" * 32, player_id="pAnn01")
    move = Move(0, parse_decision("steal 1 /2"), "human", "m1")

    async def scenario() -> None:
        store = await Store.open(url)
        try:
            await store.write([
                TableInsert("t1", "T", AT, 3, {}, None, True, False, True),
                LogEntry("t1", 1, join, AT, None),
                LogEntry("t1", 2, move, AT, None),
            ])
        finally:
            await store.close()

    asyncio.run(scenario())
    db = sqlite3.connect(path)
    logged = db.execute("SELECT kind, data FROM table_log ORDER BY seq").fetchall()
    db.close()
    assert logged == [
        ("join", '{"seat":0,"name":"Ann","token":"' + "ab" * 32 + '","player":"pAnn01"}'),
        ("move", '{"seat":0,"decision":"steal 1 /2","id":"m1","by":"human"}'),
    ]
