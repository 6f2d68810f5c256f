"""The server in-process: REST, the WebSocket protocol, bots, persistence, bad input."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import WsPlayer, app_client, auth, choose  # noqa: E402

from flip7.record import replay  # noqa: E402


def _table(client: Any, **body: Any) -> tuple[str, str]:
    body.setdefault("player", "Ann")
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    return r.json()["table"]["id"], r.json()["token"]


def _join(client: Any, table_id: str, name: str) -> tuple[int, str]:
    r = client.post(f"/api/tables/{table_id}/join", json={"player": name})
    assert r.status_code == 200, r.text
    return r.json()["seat"], r.json()["token"]


def _seated_game(client: Any, humans: int = 3, bots: int = 1, **options: Any) -> dict[str, Any]:
    """A started table with ``humans`` players (tokens) and ``bots`` bots."""
    table_id, token = _table(client, seats=humans + bots, **options)
    tokens = [token] + [_join(client, table_id, f"P{i}")[1] for i in range(1, humans)]
    for _ in range(bots):
        assert client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                           headers=auth(token)).status_code == 200
    return {"id": table_id, "tokens": tokens}


def _connect(client: Any, stack: Any, table_id: str, token: str | None) -> WsPlayer:
    ws = stack.enter_context(client.websocket_connect(f"/ws/tables/{table_id}"))
    player = WsPlayer(ws, None, token)
    player.seat = player.hello()["seat"]
    return player


def _play_to_end(players: list[WsPlayer], rng: random.Random, limit: int = 5000) -> None:
    by_seat = {p.seat: p for p in players if p.seat is not None}
    for p in players:
        p.settle()
    for _ in range(limit):
        state = players[0].state
        game = state["game"]
        if game["over"]:
            return
        mover = by_seat[game["to_decide"]]
        answer = mover.move(choose(mover.state["game"], rng))
        assert answer["type"] == "result", answer
        for p in players:
            p.settle(after=state["version"])
    raise AssertionError("the game did not end")


# ---------------------------------------------------------------------- REST


def test_health_bots_rules_and_schemas(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        health = client.get("/api/health").json()
        assert health["status"] == "ok" and health["database"] == "sqlite"
        assert client.get("/api/bots").json() == {"bots": ["basic", "random"]}
        options = {o["name"]: o for o in client.get("/api/rules").json()["options"]}
        assert options["brutal"] == {"name": "brutal", "type": "bool", "default": False,
                                     "choices": None}
        assert options["tie_break"]["choices"] == ["extra_rounds", "shared_win"]
        assert len(options) == 13
        schema = client.get("/api/protocol").json()
        assert schema["version"] == 1
        assert "Move" in json.dumps(schema["client_to_server"])
        paths = client.get("/openapi.json").json()["paths"]
        assert "/api/tables/{table_id}/join" in paths and "/api/replays" in paths
        assert client.get("/").status_code == 200


def test_lobby_flow_and_its_errors(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        table_id, ann = _table(client, name="Friday", seats=3, rules={"brutal": True})
        listed = client.get("/api/tables").json()["tables"]
        assert [t["id"] for t in listed] == [table_id]
        assert listed[0]["rules"] == {"brutal": True}
        # Errors a user can cause, each with a code and a message.
        bad = client.post("/api/tables", json={"player": "X", "rules": {"brutel": True}})
        assert bad.status_code == 400 and bad.json()["detail"]["code"] == "bad_rules"
        assert "brutel" in bad.json()["detail"]["message"]
        assert client.post("/api/tables", json={"player": " "}).json()["detail"]["code"] == (
            "bad_name")
        assert client.post("/api/tables", json={"player": "X", "seats": 2}).status_code == 400
        assert client.post("/api/tables", json={"player": "X", "seats": 19}).status_code == 422
        assert client.post("/api/tables", content=b"{nope").status_code == 422
        assert client.get("/api/tables/nope").json()["detail"]["code"] == "no_table"
        taken = client.post(f"/api/tables/{table_id}/join", json={"player": "ann"})
        assert taken.status_code == 409 and taken.json()["detail"]["code"] == "name_taken"
        # Only seated players may act, and only with their token.
        assert client.post(f"/api/tables/{table_id}/start").status_code == 401
        assert client.post(f"/api/tables/{table_id}/start",
                           headers=auth("wrong")).status_code == 401
        short = client.post(f"/api/tables/{table_id}/start", headers=auth(ann))
        assert short.status_code == 409 and short.json()["detail"]["code"] == "not_enough_players"
        bob_seat, bob = _join(client, table_id, "Bob")
        assert bob_seat == 1
        assert client.post(f"/api/tables/{table_id}/bots", json={"bot": "nobot"},
                           headers=auth(bob)).json()["detail"]["code"] == "bad_bot"
        added = client.post(f"/api/tables/{table_id}/bots", json={"bot": "random"},
                            headers=auth(bob)).json()["table"]
        assert [s["kind"] for s in added["seats"]] == ["human", "human", "bot"]
        assert client.post(f"/api/tables/{table_id}/join",
                           json={"player": "Cyd"}).json()["detail"]["code"] == "table_full"
        # Bob may remove the bot, not Ann; then Bob leaves.
        assert client.delete(f"/api/tables/{table_id}/seats/0",
                             headers=auth(bob)).status_code == 403
        assert client.delete(f"/api/tables/{table_id}/seats/2",
                             headers=auth(bob)).status_code == 200
        assert client.post(f"/api/tables/{table_id}/leave", headers=auth(bob)).status_code == 200
        seats = client.get(f"/api/tables/{table_id}").json()["table"]["seats"]
        assert [s["kind"] for s in seats] == ["human", "empty", "empty"]
        assert client.post(f"/api/tables/{table_id}/start", headers=auth(bob)).status_code == 401
        for _ in range(2):
            client.post(f"/api/tables/{table_id}/bots", json={}, headers=auth(ann))
        started = client.post(f"/api/tables/{table_id}/start", headers=auth(ann)).json()["table"]
        assert started["state"] == "playing" and started["game"]["players"][0]["name"] == "Ann"
        assert started["game"]["legal_decisions"] == []  # a spectator's view
        again = client.post(f"/api/tables/{table_id}/start", headers=auth(ann))
        assert again.json()["detail"]["code"] == "started"
        assert client.post(f"/api/tables/{table_id}/join",
                           json={"player": "Dan"}).json()["detail"]["code"] == "started"
        too_big = client.post("/api/tables", content=b"{" + b" " * 20000 + b"}",
                              headers={"content-type": "application/json"})
        assert too_big.status_code == 413


# ---------------------------------------------------------------------- a whole game


def test_three_humans_and_a_bot_play_a_whole_game(tmp_path: Path) -> None:
    from contextlib import ExitStack

    with app_client(tmp_path / "db.sqlite", seed=5) as client, ExitStack() as stack:
        table = _seated_game(client, humans=3, bots=1)
        players = [_connect(client, stack, table["id"], t) for t in table["tokens"]]
        watcher = _connect(client, stack, table["id"], None)
        assert [p.seat for p in players] == [0, 1, 2] and watcher.seat is None
        r = client.post(f"/api/tables/{table['id']}/start", headers=auth(table["tokens"][0]))
        assert r.status_code == 200
        _play_to_end([*players, watcher], random.Random(1))
        final = watcher.state
        assert final["state"] == "over" and final["game"]["over"]
        for p in players:
            assert p.state["game"]["players"] == final["game"]["players"]
        game_id = final["finished_games"][0]
        record = client.get(f"/api/games/{game_id}/record").json()
        assert record["format"] == "flip7-record/1"
        result = replay(record)
        assert list(result.totals) == [p["total"] for p in final["game"]["players"]]
        assert list(result.winners) == final["game"]["winners"]
        steps = client.get(f"/api/games/{game_id}/replay").json()["steps"]
        assert steps[-1]["game"]["over"] and steps[-1]["game"]["players"] == (
            final["game"]["players"])
        games = client.get(f"/api/tables/{table['id']}/games").json()["games"]
        assert games[0]["over"] and games[0]["totals"] == list(result.totals)
        # A rematch starts the next game at the same table.
        r = client.post(f"/api/tables/{table['id']}/rematch", headers=auth(table["tokens"][1]))
        assert r.json()["table"]["game_number"] == 2 and r.json()["table"]["state"] == "playing"
