"""Players who go away (issue 14): a seat whose player is disconnected on their turn is
handed to the stand-in bot by the others after ``handover_grace`` (by the server after
``handover_auto``), and is theirs again when they come back; a table with no human
connected for ``lobby_hide_after`` leaves the lobby's list. In process with a hand-moved
clock, and over real WebSockets against a real ``flip7 serve``."""

from __future__ import annotations

import json
import random
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import (
    ServerProcess,
    SyncSocket,
    WsPlayer,
    app_client,
    auth,
    choose,
    connect,
    seated_game,
    until_turn_of,
)
from test_server_tables import _wait_disconnected, clocked


def _table_of_two(client: Any, stack: ExitStack, **options: Any
                  ) -> tuple[str, list[str], list[WsPlayer]]:
    """Ann (seat 0) and P1 (seat 1) and a bot, started; both humans connected."""
    table = seated_game(client, humans=2, bots=1, **options)
    players = [connect(client, stack, table["id"], t) for t in table["tokens"]]
    r = client.post(f"/api/tables/{table['id']}/start", headers=auth(table["tokens"][0]))
    assert r.status_code == 200, r.text
    return table["id"], table["tokens"], players








def _event(player: WsPlayer, kind: str) -> dict[str, Any]:
    """Read until an update carries an event of ``kind``; that event."""
    frame = player.recv_until(
        lambda f: f["type"] == "update" and any(e["type"] == kind for e in f["events"]))
    event: dict[str, Any] = next(e for e in frame["events"] if e["type"] == kind)
    return event


def _handover(client: Any, table_id: str, seat: int, token: str | None) -> Any:
    headers = auth(token) if token else {}
    return client.post(f"/api/tables/{table_id}/seats/{seat}/handover", headers=headers)


def _code(answer: Any) -> tuple[int, str]:
    return answer.status_code, answer.json()["detail"]["code"]


def test_the_others_hand_an_away_seat_to_a_bot_and_its_player_gets_it_back(
        tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with clocked(db, seed=3, handover_grace=15, handover_auto=3600) as (
            client, lobby, clock), ExitStack() as stack:
        table_id, tokens, (ann, bob) = _table_of_two(client, stack)
        until_turn_of([ann, bob], 1, random.Random(1))
        # Bob is connected: nothing to hand over.
        assert _code(_handover(client, table_id, 1, tokens[0])) == (409, "not_away")
        bob.ws.close()
        _wait_disconnected_seat(lobby, table_id, 1)
        _event(ann, "disconnected")
        seat = ann.state["seats"][1]
        assert seat["away_since"] is not None and not seat["stand_in"]
        assert seat["handover_at"] == pytest.approx(seat["away_since"] + 15, abs=0.01)
        soon = _handover(client, table_id, 1, tokens[0])
        assert _code(soon) == (409, "too_soon") and soon.headers["Retry-After"] == "15"
        assert "try again in 15 seconds" in soon.json()["detail"]["message"]
        clock.now += 10
        assert _handover(client, table_id, 1, tokens[0]).headers["Retry-After"] == "5"
        # Not by a spectator, nor with the away seat's own token, nor for a seat not there.
        assert _code(_handover(client, table_id, 1, None)) == (401, "unauthorized")
        assert _code(_handover(client, table_id, 1, tokens[1])) == (403, "forbidden")
        assert _code(_handover(client, table_id, 7, tokens[0])) == (404, "no_seat")
        assert _code(_handover(client, table_id, -1, tokens[0])) == (404, "no_seat")
        assert _code(_handover(client, table_id, 2, tokens[0])) == (409, "not_away")
        assert client.post(f"/api/tables/{table_id}/seats/x/handover",
                           headers=auth(tokens[0])).status_code == 422
        clock.now += 5
        done = _handover(client, table_id, 1, tokens[0])
        assert done.status_code == 200, done.text
        assert done.json()["table"]["seats"][1]["stand_in"]
        assert _event(ann, "stand_in") == {"type": "stand_in", "seat": 1, "by": 0}
        handed = ann.state["version"]
        # The stand-in bot decides for Bob (the next change is its move); twice is refused.
        assert _code(_handover(client, table_id, 1, tokens[0])) == (409, "not_away")
        ann.recv_until(lambda f: f["type"] == "update" and f["version"] > handed)
        version = ann.state["version"]
    # A restart agrees: the seat is still the bot's until Bob comes back.
    with clocked(db, seed=3) as (client, lobby, clock), ExitStack() as stack:
        state = client.get(f"/api/tables/{table_id}").json()["table"]
        assert state["seats"][1]["stand_in"] and state["version"] >= version
        bob = connect(client, stack, table_id, tokens[1])
        assert bob.seat == 1
        assert _event(bob, "returned") == {"type": "returned", "seat": 1}
        assert not bob.state["seats"][1]["stand_in"]
        again = bob.state["version"]
    with app_client(db, seed=3) as client:
        state = client.get(f"/api/tables/{table_id}").json()["table"]
        assert not state["seats"][1]["stand_in"] and state["version"] >= again


def _wait_disconnected_seat(lobby: Any, table_id: str, seat: int) -> None:
    deadline = time.monotonic() + 5
    table = lobby.tables[table_id]
    while table.lock.locked() or table.seats[seat].connections:
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_only_the_away_player_on_their_turn_is_handed_over(tmp_path: Path) -> None:
    with clocked(tmp_path / "db.sqlite", seed=4) as (client, lobby, clock), \
            ExitStack() as stack:
        table = seated_game(client, humans=2, bots=1)
        table_id, tokens = table["id"], table["tokens"]
        waiting = _handover(client, table_id, 1, tokens[0])
        assert _code(waiting) == (409, "no_game")
        ann = connect(client, stack, table_id, tokens[0])
        bob = connect(client, stack, table_id, tokens[1])
        client.post(f"/api/tables/{table_id}/start", headers=auth(tokens[0]))
        until_turn_of([ann, bob], 0, random.Random(2))
        bob.ws.close()  # away, but it is Ann's turn
        _wait_disconnected_seat(lobby, table_id, 1)
        clock.now += 3600
        refused = _handover(client, table_id, 1, tokens[0])
        assert _code(refused) == (409, "not_away")
        assert "not the one to decide" in refused.json()["detail"]["message"]
        # Bob's turn comes: his away time counts from its start, not from his disconnect.
        rng = random.Random(3)
        while ann.state["game"]["to_decide"] != 1:
            assert not ann.state["game"]["over"]
            if ann.state["game"]["to_decide"] != 0:  # the bot's turn
                ann.recv()
                continue
            version = ann.state["version"]
            assert ann.move(choose(ann.state["game"], rng))["type"] == "result"
            while ann.state["version"] <= version:
                ann.recv()
        assert _code(_handover(client, table_id, 1, tokens[0])) == (409, "too_soon")
        # A player who left cannot hand anyone over.
        assert client.post(f"/api/tables/{table_id}/leave",
                           headers=auth(tokens[0])).status_code == 200
        assert _code(_handover(client, table_id, 1, tokens[0])) == (403, "left")


def test_the_server_hands_over_by_itself_after_handover_auto(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", seed=5, handover_grace=0.2,
                    handover_auto=0.5) as client, ExitStack() as stack:
        table_id, _tokens, (ann, bob) = _table_of_two(client, stack)
        until_turn_of([ann, bob], 1, random.Random(4))
        started = time.monotonic()
        bob.ws.close()
        assert _event(ann, "stand_in") == {"type": "stand_in", "seat": 1, "by": None}
        assert time.monotonic() - started >= 0.4
        assert client.get(f"/api/tables/{table_id}").json()["table"]["seats"][1]["stand_in"]


def test_a_table_without_humans_leaves_the_lobby_list(tmp_path: Path) -> None:
    with clocked(tmp_path / "db.sqlite", lobby_hide_after=120) as (client, lobby, clock), \
            ExitStack() as stack:
        created = client.post("/api/tables", json={"player": "Ann"}).json()
        table_id, token = created["table"]["id"], created["token"]

        def listed() -> bool:
            return table_id in {t["id"] for t in client.get("/api/tables").json()["tables"]}

        ann = connect(client, stack, table_id, token)
        clock.now += 1000
        assert listed()  # Ann is here
        ann.ws.close()
        _wait_disconnected(lobby, table_id)
        clock.now += 119
        assert listed()
        clock.now += 1
        assert not listed()
        assert client.get(f"/api/tables/{table_id}").status_code == 200  # still open
        connect(client, stack, table_id, token)
        assert listed()


def test_limits_tell_the_waits(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", handover_grace=7, rematch_wait=9) as client:
        limits = client.get("/api/limits").json()
        assert limits["handover_grace"] == 7 and limits["rematch_wait"] == 9
        assert limits["handover_auto"] == 30 and limits["lobby_hide_after"] == 120


# ---------------------------------------------------------------------- a real server


class Http:
    """httpx against a real server, with the TestClient's call shapes."""

    def __init__(self, url: str) -> None:
        import httpx

        self.http = httpx.Client(base_url=url, timeout=20)

    def post(self, path: str, **kwargs: Any) -> Any:
        return self.http.post(path, **kwargs)

    def get(self, path: str) -> Any:
        return self.http.get(path)


def _real_player(server: ServerProcess, table_id: str, token: str) -> WsPlayer:
    ws = SyncSocket(server.url.replace("http", "ws") + f"/ws/tables/{table_id}")
    player = WsPlayer(ws, None, token)
    player.seat = player.hello()["seat"]
    return player


def test_hand_over_and_return_over_real_websockets(tmp_path: Path) -> None:
    server = ServerProcess(
        f"sqlite:///{tmp_path / 'db.sqlite'}", seed=6,
        extra_args=["--limit", "handover_grace=0.3", "--limit", "handover_auto=600"],
    ).start()
    try:
        http = Http(server.url)
        table = seated_game(http, humans=2, bots=1)
        table_id, tokens = table["id"], table["tokens"]
        ann, bob = (_real_player(server, table_id, t) for t in tokens)
        assert http.post(f"/api/tables/{table_id}/start",
                         headers=auth(tokens[0])).status_code == 200
        until_turn_of([ann, bob], 1, random.Random(5))
        bob.ws.close()
        _event(ann, "disconnected")
        seat = ann.state["seats"][1]
        time.sleep(max(0.0, seat["handover_at"] - time.time()) + 0.05)
        answer = http.post(f"/api/tables/{table_id}/seats/1/handover", headers=auth(tokens[0]))
        assert answer.status_code == 200, answer.text
        assert _event(ann, "stand_in") == {"type": "stand_in", "seat": 1, "by": 0}
        bob = _real_player(server, table_id, tokens[1])
        assert bob.seat == 1 and bob.frames[0]["table"]["seats"][1]["stand_in"] in (True, False)
        assert _event(bob, "returned") == {"type": "returned", "seat": 1}
        assert not bob.state["seats"][1]["stand_in"]
        # From his next decision on, Bob decides again: play on until he must.
        until_turn_of([ann, bob], 1, random.Random(6))
        assert bob.state["game"]["legal_decisions"]
        for p in (ann, bob):
            p.ws.close()
        json.dumps(ann.frames)  # every frame was JSON and fit the protocol's models
    finally:
        server.stop()
