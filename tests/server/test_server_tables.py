"""Table slots and move ids: creation and join limits per address, expiry of idle tables
(closed tables stay as history), and move ids scoped to a game."""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import (
    WsPlayer,
    app_client,
    auth,
    choose,
    connect,
    join,
    new_table,
    seated_game,
    services_of,
)
from starlette.websockets import WebSocketDisconnect

from flip7.engine.record import replay

SHORT = {"target_score": 30}  # games of a round or two


class Clock:
    """A clock the test moves by hand, starting at the real monotonic time.

    The start is a whole number of seconds so that moving it by whole seconds is exact: from
    a fractional start, ``(t + 599) + 1 - t`` can come out as 599.99999999994 and a table due
    at exactly its time would not be."""

    def __init__(self) -> None:
        self.now = float(round(time.monotonic()))

    def __call__(self) -> float:
        return self.now


@contextmanager
def clocked(db: Path, **settings: Any) -> Iterator[tuple[Any, Any, Clock]]:
    """A TestClient whose lobby runs on a hand-moved clock: (client, lobby, clock)."""
    with app_client(db, **settings) as client:
        lobby = services_of(client).lobby
        clock = Clock()
        lobby.clock = clock
        for table in lobby.tables.values():  # restored on the real clock
            table.touched = table.human_seen = clock.now
        yield client, lobby, clock


def from_address(client: Any, host: str) -> None:
    """Make the TestClient's next requests come from ``host`` (loopback only)."""
    assert host.startswith("127.")
    client._transport.client = (host, 40000)


def sweep(client: Any, lobby: Any) -> list[str]:
    closed: list[str] = client.portal.call(lobby.expiry.sweep)
    return closed


def _wait_disconnected(lobby: Any, table_id: str) -> None:
    """Wait until the server has seen every human of the table go (detach is async)."""
    deadline = time.monotonic() + 5
    table = lobby.tables[table_id]
    # Detach holds the table's lock while it counts the seat gone and notes the time.
    while table.lock.locked() or any(s is not None and s.connections for s in table.seats):
        assert time.monotonic() < deadline
        time.sleep(0.01)


def _gone_past(client: Any, lobby: Any, clock: Any, player: WsPlayer, table_id: str,
               ttl: int) -> None:  # fmt: skip
    """The table's human goes: the sweep takes the table after ``ttl`` seconds, not one
    second before."""
    player.ws.close()
    _wait_disconnected(lobby, table_id)
    clock.now += ttl - 1
    assert sweep(client, lobby) == []
    clock.now += 1
    assert sweep(client, lobby) == [table_id]


def _told(watcher: WsPlayer, code: str, close_code: int) -> str:
    """The error frame ``code`` a spectator still watching gets, its socket then closed with
    ``close_code``; the frame's message."""
    frame = watcher.recv_until(lambda f: f["type"] == "error")
    assert frame["code"] == code, frame
    with pytest.raises(WebSocketDisconnect) as closed:
        watcher.recv()
    assert closed.value.code == close_code
    return str(frame["message"])


def _create(client: Any, name: str = "Ann", **body: Any) -> Any:
    return client.post("/api/tables", json={"player": name, **body})


def _play_game(player: WsPlayer, rng: random.Random, prefix: str) -> list[dict[str, Any]]:
    """One human (with bots) plays to the end with ids ``prefix-1``, ``prefix-2``, ...;
    returns the results."""
    results = []
    player.settle()
    while not player.state["game"]["over"]:
        version = player.state["version"]
        answer = player.move(choose(player.state["game"], rng),
                             move_id=f"{prefix}-{len(results) + 1}")
        assert answer["type"] == "result", answer
        results.append(answer)
        player.settle(after=version)
    return results


def _solo(client: Any, stack: ExitStack) -> tuple[str, str, WsPlayer]:
    """A short game of one human and two bots, started; the human connected."""
    table = seated_game(client, humans=1, bots=2, rules=SHORT)
    player = connect(client, stack, table["id"], table["tokens"][0])
    r = client.post(f"/api/tables/{table['id']}/start", headers=auth(table["tokens"][0]))
    assert r.status_code == 200, r.text
    return table["id"], table["tokens"][0], player


# ---------------------------------------------------------------------- per address


def test_creating_tables_is_limited_per_address(tmp_path: Path) -> None:
    with clocked(tmp_path / "db.sqlite", tables_burst=3, tables_per_minute=6) as (
            client, _lobby, clock):
        from_address(client, "127.0.0.2")
        assert [_create(client).status_code for _ in range(3)] == [201, 201, 201]
        refused = _create(client)
        assert refused.status_code == 429
        assert refused.json()["detail"]["code"] == "rate_limited"
        assert "at most 6 a minute" in refused.json()["detail"]["message"]
        assert refused.headers["Retry-After"] == "10"  # 6 a minute: one every 10 s
        # Refused attempts count too (a flood gains nothing by being invalid).
        assert _create(client, name=" ").status_code == 429
        # Another address has its own budget.
        from_address(client, "127.0.0.3")
        assert _create(client).status_code == 201
        # Once time has passed, the first address may create again.
        from_address(client, "127.0.0.2")
        clock.now += 10
        assert _create(client).status_code == 201
        assert _create(client).status_code == 429


def test_taking_seats_is_limited_per_address(tmp_path: Path) -> None:
    with clocked(tmp_path / "db.sqlite", joins_burst=2, joins_per_minute=1) as (
            client, _lobby, clock):
        table_id, _ = new_table(client, seats=6)
        from_address(client, "127.0.0.5")
        assert join(client, table_id, "Bob")[0] == 1
        assert join(client, table_id, "Cyd")[0] == 2
        refused = client.post(f"/api/tables/{table_id}/join", json={"player": "Dan"})
        assert refused.status_code == 429 and refused.json()["detail"]["code"] == "rate_limited"
        assert refused.headers["Retry-After"] == "60"
        from_address(client, "127.0.0.6")
        assert join(client, table_id, "Eve")[0] == 3
        from_address(client, "127.0.0.5")
        clock.now += 60
        assert join(client, table_id, "Dan")[0] == 4


# ---------------------------------------------------------------------- expiry


def test_idle_waiting_tables_free_their_slots(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with clocked(db, max_tables=4, tables_burst=100, waiting_table_ttl=100) as (
            client, lobby, clock):
        created = [_create(client).json() for _ in range(4)]
        for table in created:  # opened once: attended (unattended ones would make room)
            with client.websocket_connect(f"/ws/tables/{table['table']['id']}") as ws:
                WsPlayer(ws, None, table["token"]).hello()
            _wait_disconnected(lobby, table["table"]["id"])
        full = _create(client)
        assert full.status_code == 503 and full.json()["detail"]["code"] == "full"
        kept, touched = created[0], created[1]
        with client.websocket_connect(f"/ws/tables/{kept['table']['id']}") as ws:
            WsPlayer(ws, None, kept["token"]).hello()
            clock.now += 60
            # A change by a person keeps a table open for the whole time again.
            assert client.post(f"/api/tables/{touched['table']['id']}/bots", json={},
                               headers=auth(touched["token"])).status_code == 200
            clock.now += 40
            assert sweep(client, lobby) == [created[2]["table"]["id"], created[3]["table"]["id"]]
        assert {t["id"] for t in client.get("/api/tables").json()["tables"]} == {
            kept["table"]["id"], touched["table"]["id"]}
        assert client.get("/api/health").json()["tables"] == 2
        fresh = _create(client)  # the slots are free again
        assert fresh.status_code == 201
        _wait_disconnected(lobby, kept["table"]["id"])
        # Its human gone, the kept table goes after its time; the touched one after its own.
        clock.now += 60
        assert sweep(client, lobby) == [touched["table"]["id"]]
        clock.now += 40
        assert sweep(client, lobby) == [kept["table"]["id"], fresh.json()["table"]["id"]]
        gone = client.get(f"/api/tables/{kept['table']['id']}")
        assert gone.status_code == 410
        assert gone.json()["detail"] == {
            "code": "closed",
            "message": f"this table was closed after 1.7 minutes without players; its games "
                       f"stay available at /api/tables/{kept['table']['id']}/games"}
        assert client.get(f"/api/tables/{kept['table']['id']}/games").json() == {"games": []}
        joined = client.post(f"/api/tables/{kept['table']['id']}/join", json={"player": "Bob"})
        assert joined.status_code == 410 and joined.json()["detail"]["code"] == "closed"
        assert client.get("/api/tables/nope").status_code == 404
        assert client.get("/api/tables/nope/games").status_code == 404
    # A restart does not bring closed tables back into memory (or the slot count).
    with app_client(db, max_tables=4) as client:
        assert client.get("/api/health").json()["tables"] == 0
        assert client.get(f"/api/tables/{kept['table']['id']}").status_code == 410


def test_a_finished_table_is_closed_and_stays_history(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with clocked(db, seed=4, idle_table_ttl=600) as (client, lobby, clock), \
            ExitStack() as stack:
        table_id, token, player = _solo(client, stack)
        watcher = connect(client, stack, table_id, None)
        _play_game(player, random.Random(1), "a")
        game_id = player.state["finished_games"][0]
        clock.now += 3600
        assert sweep(client, lobby) == []  # its human is still connected
        _gone_past(client, lobby, clock, player, table_id, 600)
        # A spectator still watching is told, and its socket closed.
        assert "10 minutes" in _told(watcher, "closed", 4410)
    with app_client(db) as client:
        assert client.get("/api/health").json()["tables"] == 0
        answer = client.get(f"/api/tables/{table_id}")
        assert answer.status_code == 410 and answer.json()["detail"]["code"] == "closed"
        assert f"/api/tables/{table_id}/games" in answer.json()["detail"]["message"]
        assert client.post(f"/api/tables/{table_id}/rematch",
                           headers=auth(token)).status_code == 410
        games = client.get(f"/api/tables/{table_id}/games").json()["games"]
        assert [g["id"] for g in games] == [game_id] and games[0]["over"]
        record = client.get(f"/api/games/{game_id}/record")
        assert record.status_code == 200
        assert list(replay(record.json()).totals) == games[0]["totals"]
        assert client.get(f"/api/games/{game_id}/replay").status_code == 200
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            frame = json.loads(ws.receive_text())
            assert frame["type"] == "error" and frame["code"] == "closed"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_text()
            assert closed.value.code == 4410


def test_a_game_whose_humans_are_gone_is_closed_unrevealed(tmp_path: Path) -> None:
    with clocked(tmp_path / "db.sqlite", seed=5, idle_table_ttl=60) as (
            client, lobby, clock), ExitStack() as stack:
        table_id, token, player = _solo(client, stack)
        player.settle()
        game_id = player.state["game_id"]
        # A human who left (a bot plays the seat) does not keep the table open. With no
        # human left the bots stop thinking too (finding 3): the game stays unfinished.
        assert client.post(f"/api/tables/{table_id}/leave", headers=auth(token)).status_code == 200
        player.recv_until(lambda f: f["type"] == "update"
                          and any(e["type"] == "seat_left" for e in f["events"]))
        clock.now += 60
        assert sweep(client, lobby) == [table_id]
        assert client.get(f"/api/tables/{table_id}").status_code == 410
        assert client.get(f"/api/games/{game_id}/record").status_code == 409
    with clocked(tmp_path / "db2.sqlite", seed=5, idle_table_ttl=60) as (
            client, lobby, clock), ExitStack() as stack:
        table_id, token, player = _solo(client, stack)
        player.settle()
        game_id = player.state["game_id"]
        player.ws.close()  # mid-game, and no turn timer: the game waits for nobody
        _wait_disconnected(lobby, table_id)
        clock.now += 60
        assert sweep(client, lobby) == [table_id]  # suspended (issue 29), still unrevealed
        assert table_id not in lobby.tables
        unfinished = client.get(f"/api/games/{game_id}/record")
        assert unfinished.status_code == 409 and unfinished.json()["detail"]["code"] == "not_over"


def _stored_state(db: Path, table_id: str) -> str:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT state FROM tables WHERE id = ?", (table_id,)).fetchone()
    return str(row[0])


def test_a_game_whose_players_are_away_is_suspended_and_goes_on_when_one_is_back(
    tmp_path: Path,
) -> None:
    """Issue 29: a break longer than idle_table_ttl does not end the game. It leaves memory
    (stored as suspended), a spectator still watching is told, and the player's return
    finds it exactly where it was and plays on."""
    db = tmp_path / "db.sqlite"
    with clocked(db, seed=5, idle_table_ttl=60) as (client, lobby, clock), \
            ExitStack() as stack:
        table_id, token, player = _solo(client, stack)
        player.settle()
        version, game = player.state["version"], player.state["game"]
        watcher = connect(client, stack, table_id, None)
        _gone_past(client, lobby, clock, player, table_id, 60)
        assert "7 days" in _told(watcher, "suspended", 1013)
        assert table_id not in lobby.tables and _stored_state(db, table_id) == "suspended"
        assert client.get("/api/health").json()["tables"] == 0
        # Back: the same game at the same version, stored as playing again, and it goes on.
        back = connect(client, stack, table_id, token)
        back.settle()
        assert back.state["version"] == version and back.state["game"] == game
        assert _stored_state(db, table_id) == "playing"
        answer = back.move(choose(back.state["game"], random.Random(1)), move_id="back-1")
        assert answer["type"] == "result" and answer["ok"], answer
        back.settle(after=version)
        assert back.state["version"] > version


def test_a_suspended_game_survives_a_restart_and_closes_after_suspended_table_ttl(
    tmp_path: Path,
) -> None:
    db = tmp_path / "db.sqlite"
    with clocked(db, seed=6, idle_table_ttl=60) as (client, lobby, clock), \
            ExitStack() as stack:
        table_id, _token, player = _solo(client, stack)
        player.settle()
        version = player.state["version"]
        player.ws.close()
        _wait_disconnected(lobby, table_id)
        clock.now += 60
        assert sweep(client, lobby) == [table_id]
    # A restart does not load it (it is out of memory until asked for); a request does.
    with app_client(db, seed=6) as client:
        assert client.get("/api/health").json()["tables"] == 0
        answer = client.get(f"/api/tables/{table_id}")
        assert answer.status_code == 200, answer.text
        assert answer.json()["table"]["version"] == version
        assert answer.json()["table"]["state"] == "playing"
        assert client.get("/api/health").json()["tables"] == 1
    # Suspended for longer than suspended_table_ttl: closed for good, its page says so.
    with app_client(db, seed=6, waiting_table_ttl=0.2, idle_table_ttl=0.2,
                    suspended_table_ttl=0.3) as client:
        assert client.get(f"/api/tables/{table_id}").status_code == 200  # woken: idle again
        # Untouched (a request would wake it again): suspended after 0.2 s, closed 0.3 s on.
        deadline = time.monotonic() + 10
        while _stored_state(db, table_id) != "closed":
            assert time.monotonic() < deadline, "the suspended table was never closed"
            time.sleep(0.1)
        answer = client.get(f"/api/tables/{table_id}")
        assert answer.status_code == 410 and answer.json()["detail"]["code"] == "closed"


def test_your_games_lists_the_tables_an_identity_sits_at_with_whose_turn_it_is(
    tmp_path: Path,
) -> None:
    """Issue 29's "Your games" (GET /api/players/me/tables): a waiting table, a game
    waiting for you first, a suspended one with the time it waits until; not a table you
    left, another identity's, nor one taken anonymously."""
    db = tmp_path / "db.sqlite"
    with clocked(db, seed=8, idle_table_ttl=60) as (client, lobby, clock), \
            ExitStack() as stack:
        ann = client.post("/api/players", json={"name": "Ann"}).json()
        bob = client.post("/api/players", json={"name": "Bob"}).json()
        mine = {"X-Player-Key": ann["key"]}

        def your_games(headers: dict[str, str] = mine) -> list[dict[str, Any]]:
            r = client.get("/api/players/me/tables", headers=headers)
            assert r.status_code == 200, r.text
            return list(r.json()["tables"])

        assert your_games() == []
        assert client.get("/api/players/me/tables").status_code == 401
        waiting = client.post("/api/tables", json={"player": "Ann", "seats": 3}, headers=mine)
        r = client.post("/api/tables", json={"player": "Ann", "seats": 3, "rules": SHORT},
                       headers=mine)  # fmt: skip
        assert r.status_code == 201, r.text
        playing, token = r.json()["table"]["id"], r.json()["token"]
        bobs = client.post(f"/api/tables/{playing}/join", json={"player": "Bob"},
                           headers={"X-Player-Key": bob["key"]})  # fmt: skip
        assert bobs.status_code == 200, bobs.text
        assert client.post(f"/api/tables/{playing}/bots", json={"bot": "basic"},
                           headers=auth(token)).status_code == 200  # fmt: skip
        player = connect(client, stack, playing, token)
        bob_player = connect(client, stack, playing, bobs.json()["token"])
        assert client.post(f"/api/tables/{playing}/start", headers=auth(token)).status_code == 200
        player.settle()
        # Ann's turn or not, the live table says whose it is; "Your turn" first.
        rng = random.Random(3)
        while player.state["game"]["to_decide"] != 0:
            mover = player if player.state["game"]["to_decide"] == 0 else bob_player
            mover.settle()
            version = mover.state["version"]
            mover.move(choose(mover.state["game"], rng))
            player.settle(after=version)
        listed = your_games()
        assert [t["id"] for t in listed] == [playing, waiting.json()["table"]["id"]]
        first, second = listed
        assert first["state"] == "playing" and first["seat"] == 0 and first["to_decide"] == 0
        assert [(s["seat"], s["name"], s["kind"]) for s in first["seats"]] == [
            (0, "Ann", "human"), (1, "Bob", "human"), (2, first["seats"][2]["name"], "bot")]
        assert first["waits_until"] is None
        assert second["state"] == "waiting" and second["to_decide"] is None
        assert [t["id"] for t in your_games({"X-Player-Key": bob["key"]})] == [playing]
        # Everyone away past idle_table_ttl: suspended, and it says until when it waits.
        bob_player.ws.close()
        _gone_past(client, lobby, clock, player, playing, 60)
        [suspended] = [t for t in your_games() if t["id"] == playing]
        stored = datetime.fromisoformat(suspended["updated_at"])
        assert suspended["state"] == "suspended" and suspended["to_decide"] == 0
        assert datetime.fromisoformat(suspended["waits_until"]) - stored == timedelta(days=7)
        # Bob leaves the game (woken, then left): it is no longer his.
        r = client.post(f"/api/tables/{playing}/leave", headers=auth(bobs.json()["token"]))
        assert r.status_code == 200, r.text
        assert your_games({"X-Player-Key": bob["key"]}) == []
        assert your_games()[0]["id"] == playing  # her turn: first
    # A restart keeps them: the store answers, not memory.
    with app_client(db, seed=8) as client:
        r = client.get("/api/players/me/tables", headers=mine)
        assert {t["id"] for t in r.json()["tables"]} == {playing, waiting.json()["table"]["id"]}


def test_the_sweeper_runs_on_its_own(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", waiting_table_ttl=0.2, idle_table_ttl=0.2) as client:
        table_id = _create(client).json()["table"]["id"]
        deadline = time.monotonic() + 5
        while client.get(f"/api/tables/{table_id}").status_code != 410:
            assert time.monotonic() < deadline, "the table was never closed"
            time.sleep(0.05)


# ---------------------------------------------------------------------- move ids


def test_move_ids_belong_to_one_game(tmp_path: Path) -> None:
    """Finding 5: an id used in game 1 and again in the rematch is applied, not swallowed,
    also after a restart rebuilt the table from its log."""
    db = tmp_path / "db.sqlite"
    with app_client(db, seed=8) as client, ExitStack() as stack:
        table_id, token, player = _solo(client, stack)
        first = _play_game(player, random.Random(2), "g")
        assert first, "the human made no move in game 1"
        assert client.post(f"/api/tables/{table_id}/rematch",
                           headers=auth(token)).status_code == 200
    with app_client(db, seed=8) as client, ExitStack() as stack:
        player = connect(client, stack, table_id, token)
        player.settle()
        version = player.state["version"]
        assert version > first[0]["version"]
        answer = player.move(choose(player.state["game"], random.Random(3)), move_id="g-1")
        assert answer == {"v": 1, "type": "result", "id": "g-1", "ok": True,
                          "version": version + 1}
        player.settle(after=version)
        assert client.get(f"/api/tables/{table_id}").json()["table"]["version"] > version


def test_a_reused_move_id_with_another_move_is_refused(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", seed=9) as client, ExitStack() as stack:
        table_id, _token, player = _solo(client, stack)
        player.settle()
        before = player.state["version"]
        legal = player.state["game"]["legal_decisions"]
        mine = legal[0]
        another = legal[1] if len(legal) > 1 else ("stay" if mine != "stay" else "hit")
        done = player.move(mine, move_id="once")
        assert done == {"v": 1, "type": "result", "id": "once", "ok": True,
                        "version": before + 1}
        # The same payload again: the same answer, applied once.
        assert player.move(mine, version=before, move_id="once") == done
        # The id with another decision, or at another version: an error, not the old "ok".
        other = player.move(another, version=before, move_id="once")
        assert other["type"] == "error" and other["code"] == "reused_id"
        assert other["id"] == "once" and f"{mine!r} at version {before}" in other["message"]
        later = player.move(mine, version=before + 1, move_id="once")
        assert later["code"] == "reused_id"
        assert [f for f in player.frames if f["type"] == "result"] == [done, done]
    # Exactly one move was stored under the id.
    with sqlite3.connect(tmp_path / "db.sqlite") as db:
        rows = db.execute("SELECT data FROM table_log WHERE table_id = ? AND kind = 'move'",
                          (table_id,)).fetchall()
    assert [json.loads(data).get("id") for (data,) in rows].count("once") == 1
