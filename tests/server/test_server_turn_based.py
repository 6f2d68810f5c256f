"""Turn-based tables (issue 29): ``"pace": "turn_based"`` with ``move_hours`` per
decision; bots move at once whoever is connected; a decision whose clock runs out is made
by the stand-in bot; the clock is stored with every change and restored (a restart keeps
it, a suspended table is woken at its deadline); a player who missed three decisions in a
row may be handed to a bot by the others, never by the server's own short timer."""

from __future__ import annotations

import random
import sqlite3
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import WsPlayer, app_client, auth, choose, connect, services_of
from test_server_tables import _wait_disconnected, clocked, sweep

from flip7.server.table.presence import HANDOVER_MISSES

TURN_BASED = {"pace": "turn_based", "move_hours": 2}


def _create(client: Any, **body: Any) -> Any:
    return client.post("/api/tables", json={"player": "Ann", **body})


def _code(answer: Any) -> tuple[int, str]:
    return answer.status_code, answer.json()["detail"]["code"]


def test_the_pace_is_asked_for_checked_and_shown(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        live = _create(client).json()["table"]
        assert live["pace"] == "live" and live["move_hours"] is None
        made = _create(client, pace="turn_based").json()["table"]
        assert made["pace"] == "turn_based" and made["move_hours"] == 24  # a day by default
        assert _create(client, **TURN_BASED).json()["table"]["move_hours"] == 2
        assert _code(_create(client, move_hours=5)) == (400, "bad_pace")
        r = _create(client, pace="turn_based", turn_timer=30)
        assert _code(r) == (400, "bad_pace") and "move_hours" in r.json()["detail"]["message"]
        for hours in (0, 169, 2.5):
            assert _create(client, pace="turn_based", move_hours=hours).status_code == 422
        assert _create(client, pace="slow").status_code == 422
        listed = {t["id"]: t for t in client.get("/api/tables").json()["tables"]}
        assert listed[made["id"]]["pace"] == "turn_based"
        assert listed[live["id"]]["pace"] == "live"


def _stored_deadline(db: Path, table_id: str) -> datetime | None:
    with sqlite3.connect(db) as conn:
        (text,) = conn.execute("SELECT deadline FROM tables WHERE id = ?", (table_id,)).fetchone()
    return None if text is None else datetime.fromisoformat(text).replace(tzinfo=UTC)


def _ann_and_bots(client: Any, stack: ExitStack, key: str | None = None
                  ) -> tuple[str, str, WsPlayer]:  # fmt: skip
    """A turn-based table of Ann (with the identity ``key`` if given) and two bots,
    started, Ann connected and her turn come."""
    r = client.post("/api/tables", json={"player": "Ann", "seats": 3, **TURN_BASED},
                    headers={"X-Player-Key": key} if key else {})  # fmt: skip
    assert r.status_code == 201, r.text
    table_id, token = r.json()["table"]["id"], r.json()["token"]
    for _ in range(2):
        assert client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                           headers=auth(token)).status_code == 200  # fmt: skip
    ann = connect(client, stack, table_id, token)
    assert client.post(f"/api/tables/{table_id}/start", headers=auth(token)).status_code == 200
    ann.recv_until(lambda f: f["type"] == "update"
                   and (f["table"]["game"] or {}).get("to_decide") == 0)  # fmt: skip
    return table_id, token, ann


def test_a_decision_has_move_hours_and_the_clock_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with app_client(db, seed=4, bot_delay=30.0) as client, ExitStack() as stack:
        key = client.post("/api/players", json={"name": "Ann"}).json()["key"]
        table_id, token, ann = _ann_and_bots(client, stack, key)
        # The bots moved at once (bot_delay is 30 s here: a live table's bot would wait).
        deadline = ann.state["turn_deadline"]
        assert deadline == pytest.approx(time.time() + 2 * 3600, abs=60)
        assert _stored_deadline(db, table_id) == datetime.fromtimestamp(deadline, UTC)
        seat = ann.state["seats"][0]
        assert seat["handover_at"] is None  # the server hands nobody over at this pace
        # "Your games" says it is her turn, until when.
        [mine] = client.get("/api/players/me/tables", headers={"X-Player-Key": key}).json()[
            "tables"]  # fmt: skip
        assert mine["pace"] == "turn_based" and mine["to_decide"] == mine["seat"] == 0
        assert datetime.fromisoformat(mine["deadline"]).timestamp() == pytest.approx(deadline)
    time.sleep(1.1)  # a fresh clock would now end a second later
    with app_client(db, seed=4) as client, ExitStack() as stack:
        again = connect(client, stack, table_id, token)
        again.settle()
        assert again.state["turn_deadline"] == deadline
        assert again.state["game"]["to_decide"] == 0


def _run_out(client: Any, table_id: str) -> None:
    """Ann's clock runs out now (as if move_hours had passed)."""
    table = services_of(client).lobby.tables[table_id]

    async def run_out() -> None:
        async with table.lock:
            table.deadline = time.time() - 1
            table.turns.schedule()

    client.portal.call(run_out)


def _timeout(player: WsPlayer) -> None:
    """Read until the update whose events say the clock decided for the seat."""
    player.recv_until(lambda f: f["type"] == "update"
                      and any(e["type"] == "timeout" for e in f["events"]))  # fmt: skip


def test_missed_decisions_are_made_by_the_stand_in_and_three_let_others_hand_over(
    tmp_path: Path,
) -> None:
    with app_client(tmp_path / "db.sqlite", seed=9, handover_grace=0, handover_auto=0.1) as (
            client), ExitStack() as stack:  # fmt: skip
        r = _create(client, seats=3, **TURN_BASED)
        table_id, ann_token = r.json()["table"]["id"], r.json()["token"]
        joined = client.post(f"/api/tables/{table_id}/join", json={"player": "Bob"})
        bob_token = joined.json()["token"]
        assert client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                           headers=auth(ann_token)).status_code == 200  # fmt: skip
        ann = connect(client, stack, table_id, ann_token)
        bob = connect(client, stack, table_id, bob_token)
        client.post(f"/api/tables/{table_id}/start", headers=auth(ann_token))
        rng = random.Random(2)
        misses = 0
        # Ann never connects again; Bob plays; every decision of Ann's runs out.
        ann.ws.close()
        handed = False
        for _ in range(400):
            bob.settle()
            game = bob.state["game"]
            assert not game["over"], "the game ended before Ann missed three decisions"
            if game["to_decide"] == 1:
                version = bob.state["version"]
                assert bob.move(choose(game, rng))["type"] == "result"
                bob.settle(after=version)
                continue
            assert game["to_decide"] == 0
            handover = client.post(f"/api/tables/{table_id}/seats/0/handover",
                                   headers=auth(bob_token))  # fmt: skip
            if misses == HANDOVER_MISSES:
                assert bob.state["seats"][0]["handover_at"] is not None
                assert handover.status_code == 200, handover.text
                handed = True
                break
            assert _code(handover) == (409, "too_soon"), handover.text
            assert f"missed {misses} decisions" in handover.json()["detail"]["message"]
            assert bob.state["seats"][0]["handover_at"] is None
            time.sleep(0.2)  # handover_auto (0.1 s) would have handed her over by now
            assert not bob.state["seats"][0]["stand_in"]
            _run_out(client, table_id)
            _timeout(bob)
            misses += 1
        assert handed
        bob.recv_until(lambda f: f["type"] == "update" and f["table"]["seats"][0]["stand_in"])


def test_a_suspended_turn_based_game_is_woken_at_its_deadline(tmp_path: Path) -> None:
    """Everyone away: suspended as a live game is; at the stored deadline the sweep wakes
    it and the stand-in bot decides; it is never closed while its clock runs."""
    db = tmp_path / "db.sqlite"
    with clocked(db, seed=5, idle_table_ttl=60, suspended_table_ttl=1) as (
            client, lobby, clock), ExitStack() as stack:  # fmt: skip
        table_id, _token, ann = _ann_and_bots(client, stack)
        version = ann.state["version"]
        ann.ws.close()
        _wait_disconnected(lobby, table_id)
        clock.now += 60
        assert sweep(client, lobby) == [table_id]
        assert table_id not in lobby.tables
        time.sleep(1.1)  # past suspended_table_ttl: still kept, its clock runs
        assert sweep(client, lobby) == []
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT state FROM tables WHERE id = ?",
                                (table_id,)).fetchone() == ("suspended",)  # fmt: skip
            conn.execute("UPDATE tables SET deadline = '2000-01-01 00:00:00.000000' "
                         "WHERE id = ?", (table_id,))  # fmt: skip
        sweep(client, lobby)  # no request asks for it: the sweep brings it back
        assert table_id in lobby.tables
        deadline = time.monotonic() + 10
        while lobby.tables[table_id].version <= version:
            assert time.monotonic() < deadline, "the due table was never moved on"
            time.sleep(0.05)
        answer = client.get(f"/api/tables/{table_id}").json()["table"]
        assert answer["state"] in ("playing", "over")
        assert answer["seats"][0]["name"] == "Ann"
