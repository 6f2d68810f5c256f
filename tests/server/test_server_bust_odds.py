"""The bust-odds table option (issue 14): a table created with ``bust_odds`` false never
sends ``bust_risk``, before and after a restart, on SQLite and on PostgreSQL; a table with
the default sends it to the seat that must Hit or Stay."""

from __future__ import annotations

import random
from contextlib import ExitStack
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import WsPlayer, app_client, choose, connect, join, new_table

# Three players on one address move as fast as the test can: no frame rate limits here.
FAST = {"rate_per_second": 1000.0, "rate_burst": 1000, "frames_per_second_per_address": 1000.0,
        "frames_burst_per_address": 1000}


def _keys(value: Any) -> set[str]:
    """Every key of every object in a JSON value, however deep."""
    if isinstance(value, dict):
        return set(value).union(*(_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))
    return set()


def _seated(client: Any, **body: Any) -> tuple[str, list[str]]:
    table_id, ann = new_table(client, seats=3, **body)
    return table_id, [ann] + [join(client, table_id, name)[1] for name in ("Bob", "Cyd")]


def _moves(players: list[WsPlayer], rng: random.Random, count: int | None) -> None:
    """Play ``count`` decisions (None: to the end of the game) with a simple policy."""
    by_seat = {p.seat: p for p in players}
    for p in players:
        p.settle()
    made = 0
    while count is None or made < count:
        state = players[0].state
        if state["game"]["over"]:
            return
        mover = by_seat[state["game"]["to_decide"]]
        assert mover.move(choose(mover.state["game"], rng))["type"] == "result"
        made += 1
        for p in players:
            p.settle(after=state["version"])
        assert made < 5000, "the game does not end"


def test_a_table_without_bust_odds_never_sends_bust_risk(db_url: str) -> None:
    rng = random.Random(3)
    frames: list[dict[str, Any]] = []
    with app_client(db_url, seed=4, **FAST) as client, ExitStack() as stack:
        table_id, tokens = _seated(client, bust_odds=False)
        summary = client.get(f"/api/tables/{table_id}").json()["table"]
        assert summary["bust_odds"] is False
        listed = {t["id"]: t for t in client.get("/api/tables").json()["tables"]}
        assert listed[table_id]["bust_odds"] is False
        players = [connect(client, stack, table_id, t) for t in tokens]
        assert client.post(f"/api/tables/{table_id}/start",
                           headers={"Authorization": f"Bearer {tokens[0]}"}).status_code == 200
        _moves(players, rng, 15)
        frames += [f for p in players for f in p.frames]
    # After a restart the option comes back from the store with the table.
    with app_client(db_url, seed=4, **FAST) as client, ExitStack() as stack:
        assert client.get(f"/api/tables/{table_id}").json()["table"]["bust_odds"] is False
        players = [connect(client, stack, table_id, t) for t in tokens]
        _moves(players, rng, None)
        assert players[0].state["state"] == "over"
        frames += [f for p in players for f in p.frames]
    hit_or_stay = [f for f in frames if (f.get("table") or {}).get("game")
                   and f["table"]["game"]["decision_kind"] == "hit_or_stay"
                   and f["table"]["game"]["viewer"] == f["table"]["game"]["to_decide"]]
    assert len(hit_or_stay) > 10  # the deciding seat's own view, many times over
    assert "bust_risk" not in _keys(frames)


def test_a_table_with_the_default_sends_bust_risk_to_the_seat_that_must_hit_or_stay(
    db_url: str,
) -> None:
    rng = random.Random(5)
    with app_client(db_url, seed=6, **FAST) as client, ExitStack() as stack:
        table_id, tokens = _seated(client)
        assert client.get(f"/api/tables/{table_id}").json()["table"]["bust_odds"] is True
        players = [connect(client, stack, table_id, t) for t in tokens]
        client.post(f"/api/tables/{table_id}/start",
                    headers={"Authorization": f"Bearer {tokens[0]}"})
        for _ in range(40):
            _moves(players, rng, 1)
            game = players[0].state["game"]
            mover = next(p for p in players if p.seat == game["to_decide"])
            if game["decision_kind"] == "hit_or_stay":
                assert 0 <= mover.state["game"]["bust_risk"] <= 1
                others = [p for p in players if p is not mover]
                assert all("bust_risk" not in p.state["game"] for p in others)
                return
        raise AssertionError("no Hit or Stay in 40 decisions")  # pragma: no cover


def test_bust_odds_must_be_a_boolean(tmp_path: Any) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        for value in ("no", 0, None, [False]):
            answer = client.post("/api/tables", json={"player": "Ann", "bust_odds": value})
            assert answer.status_code == 422, value
            detail = answer.json()["detail"]
            assert detail["code"] == "bad_request" and "bust_odds" in detail["message"]
        assert client.get("/api/tables").json()["tables"] == []
