"""Persistence on SQLite and a real PostgreSQL: restarts, kill -9, migrations, hidden state."""

from __future__ import annotations

import dataclasses
import json
import random
import re
import sqlite3
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

import httpx
from server_helpers import (
    ServerProcess,
    SyncSocket,
    WsPlayer,
    app_client,
    auth,
    choose,
    connect,
    decider,
    play_to_end,
    seated_game,
)

import flip7.core.events
from flip7.engine.record import replay


def _moves(players: list[WsPlayer], rng: random.Random, count: int) -> None:
    for _ in range(count):
        if players[0].state["game"]["over"]:
            return
        mover, _ = decider(players)
        version = mover.state["version"]
        answer = mover.move(choose(mover.state["game"], rng))
        assert answer["type"] == "result", answer
        for p in players:
            p.settle(after=version)


def _public(state: dict[str, Any]) -> dict[str, Any]:
    """A table state without who happens to be connected (and since when a player is away,
    which follows from it)."""
    out = json.loads(json.dumps(state))
    for seat in out["seats"]:
        for key in ("connected", "away_since", "handover_at"):
            seat.pop(key)
    out.pop("turn_deadline")
    return out


def test_a_restart_resumes_every_table_exactly(db_url: str) -> None:
    rng = random.Random(8)
    with app_client(db_url, seed=11) as client, ExitStack() as stack:
        table = seated_game(client, humans=3, bots=1)
        lobby_only = seated_game(client, humans=2, bots=1)["id"]
        players = [connect(client, stack, table["id"], t) for t in table["tokens"]]
        client.post(f"/api/tables/{table['id']}/start", headers=auth(table["tokens"][0]))
        for p in players:
            p.settle()
        _moves(players, rng, 12)
        before = client.get(f"/api/tables/{table['id']}").json()["table"]
        waiting = client.get(f"/api/tables/{lobby_only}").json()["table"]
    with app_client(db_url, seed=11) as client, ExitStack() as stack:
        after = client.get(f"/api/tables/{table['id']}").json()["table"]
        assert _public(after) == _public(before)
        assert _public(client.get(f"/api/tables/{lobby_only}").json()["table"]) == (
            _public(waiting))
        players = [connect(client, stack, table["id"], t) for t in table["tokens"]]
        assert [p.seat for p in players] == [0, 1, 2]
        play_to_end(players, rng)
        game_id = players[0].state["finished_games"][0]
        record = client.get(f"/api/games/{game_id}/record").json()
        assert list(replay(record).totals) == [
            p["total"] for p in players[0].state["game"]["players"]]


def test_kill_9_mid_game_then_finish_on_a_real_server(db_url: str) -> None:
    """Three humans and a bot on a real uvicorn; the server is SIGKILLed mid-game, started
    again on the same database, and the game is finished by the same clients' tokens."""
    server = ServerProcess(db_url, seed=21).start()
    rng = random.Random(9)
    try:
        with httpx.Client(base_url=server.url) as http:
            table = seated_game(http, humans=3, bots=1)
            ws_url = server.url.replace("http", "ws") + f"/ws/tables/{table['id']}"
            players = [WsPlayer(SyncSocket(ws_url), None, t) for t in table["tokens"]]
            for p in players:
                p.seat = p.hello()["seat"]
            http.post(f"/api/tables/{table['id']}/start", headers=auth(table["tokens"][0]))
            for p in players:
                p.settle()
            _moves(players, rng, 10)
            acknowledged = players[0].state
        server.kill()
        server.start()  # a fresh process on the same database (and a new port)
        with httpx.Client(base_url=server.url) as http:
            resumed = http.get(f"/api/tables/{table['id']}").json()["table"]
            assert _public(resumed) == _public({**acknowledged, "game": resumed["game"]})
            # A spectator's view: no legal options (as strings or as objects) and no bust
            # odds, which only the deciding seat's own view carries.
            own = ("bust_risk", "decisions")
            seen = {k: v for k, v in acknowledged["game"].items() if k not in own}
            assert {k: v for k, v in resumed["game"].items() if k not in own} == {
                **seen, "viewer": None, "legal_decisions": []}
            assert resumed["game"].get("bust_risk") is None
            assert resumed["game"].get("decisions") is None
            ws_url = server.url.replace("http", "ws") + f"/ws/tables/{table['id']}"
            again = [WsPlayer(SyncSocket(ws_url), None, t) for t in table["tokens"]]
            for p in again:
                welcome = p.hello(last_version=acknowledged["version"])
                assert welcome["table"]["version"] == acknowledged["version"]
                p.seat = welcome["seat"]
            play_to_end(again, rng)
            over = again[0].state
            assert over["state"] == "over"
            record = http.get(f"/api/games/{over['finished_games'][0]}/record").json()
            assert list(replay(record).winners) == over["game"]["winners"]
    finally:
        server.stop()


def test_migrations_build_exactly_the_schema_the_code_uses(db_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import create_engine

    from flip7.server.store.database import metadata

    with app_client(db_url) as client:
        assert client.get("/api/health").json()["status"] == "ok"
    sync_url = db_url.replace("postgresql://", "postgresql+psycopg://")
    engine = create_engine(sync_url)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
        version = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    engine.dispose()
    assert diff == [] and version == "0010"


# ---------------------------------------------------------------------- hidden information

_ALLOWED_KEYS = {
    # frames
    "v", "type", "seat", "table", "missed", "version", "events", "id", "ok", "code", "message",
    # table
    "name", "state", "seats", "kind", "bot", "left", "connected", "rules", "turn_timer",
    "bust_odds",  # the table option: whether the seat to decide is told its bust risk
    "bot_account",  # a seat of a bot account (the bot API)
    "created_at", "game_number", "game", "game_id", "turn_deadline", "finished_games",
    "tutorial",  # a guided first game's lessons (flip7.server.table.tutorial); null at others
    # players and ratings (flip7.server.services.players): a seat's identity (public, as on its
    # profile page), and whether the table's games are rated
    "player_id", "rated",
    # a table's pace: live, or turn-based with its hours per decision
    "pace", "move_hours",
    # game view
    "viewer", "players", "decks", "round", "dealer", "phase", "draw_pile_size", "discard_pile",
    "set_aside", "to_decide", "decision_kind", "pending_card", "legal_decisions", "needs_card",
    "rounds", "over", "winners", "status", "line", "modifiers", "number_sum", "round_score",
    "total", "scores", "busted", "flip7", "minus15",
    # the deciding seat's odds, worked out from the view alone (flip7.analysis.advisor.bust_risk)
    "bust_risk",
    # the deciding seat's options as objects (flip7.server.table.views.seat_view): a decision's
    # verb, and its seats and cards (named as the events name them)
    "decisions", "verb",
    # players who go away and the rematch's ready check (docs/protocol.md)
    "stand_in", "away_since", "handover_at", "ready", "gone", "rematch_problem",
    # table events
    "number",
    # the whole game on every welcome, and the table's chat (flip7.server.table.chat)
    "history", "chat", "host", "spectators", "n", "at", "text", "spectator",
} | {  # engine events: their fields, all public
    f.name
    for cls in vars(flip7.core.events).values()
    if isinstance(cls, type) and dataclasses.is_dataclass(cls)
    for f in dataclasses.fields(cls)
}


def _keys(value: Any, out: set[str]) -> set[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            out.add(key)
            _keys(item, out)
    elif isinstance(value, list):
        for item in value:
            _keys(item, out)
    return out


def test_no_message_reveals_the_draw_pile_or_the_random_state(tmp_path: Path) -> None:
    """Every frame every client gets during a whole game, and every REST answer asked for
    during it: no seed, no key beyond the public ones, never the cards still to come."""
    db = tmp_path / "db.sqlite"
    with app_client(db, seed=31) as client, ExitStack() as stack:
        table = seated_game(client, humans=3, bots=1)
        players = [connect(client, stack, table["id"], t) for t in table["tokens"]]
        watcher = connect(client, stack, table["id"], None)
        client.post(f"/api/tables/{table['id']}/start", headers=auth(table["tokens"][0]))
        rng = random.Random(2)
        everyone = [*players, watcher]
        for p in everyone:
            p.settle()
        rest: list[str] = []
        while not watcher.state["game"]["over"]:
            mover, _ = decider(players)
            v = mover.state["version"]
            assert mover.move(choose(mover.state["game"], rng))["type"] == "result"
            for p in everyone:
                p.settle(after=v)
            for path in (f"/api/tables/{table['id']}", "/api/tables",
                         f"/api/tables/{table['id']}/games"):
                rest.append(client.get(path).text)
            game_id = watcher.state["game_id"]
            if not watcher.state["game"]["over"]:
                for path in (f"/api/games/{game_id}/record", f"/api/games/{game_id}/replay"):
                    answer = client.get(path)
                    assert answer.status_code == 409
                    rest.append(answer.text)
        game_id = watcher.state["finished_games"][0]
        record = client.get(f"/api/games/{game_id}/record").json()
    with sqlite3.connect(db) as conn:
        seed = conn.execute("SELECT seed FROM games WHERE id = ?", (game_id,)).fetchone()[0]
    draws: list[str] = record["draws"]
    frames = [f for p in everyone for f in p.frames]
    assert len(frames) > 100
    for frame in frames:
        keys = _keys(frame, set())
        assert keys <= _ALLOWED_KEYS, keys - _ALLOWED_KEYS
    every_text = [json.dumps(f, separators=(",", ":")) for f in frames] + rest
    for text in every_text:
        assert str(seed) not in text
        assert not re.search(r"draw_pile\"(?!_size)|seed|rng|random_state", text)
    # The cards to come never appear in order: check each frame against the draws not yet
    # made when it was sent (counted from the drew/dealt events seen so far).
    for p in everyone:
        made = 0
        for frame in p.frames:
            if frame["type"] == "update":
                made += sum(e["type"] in ("dealt", "drew", "set_aside") for e in frame["events"])
            upcoming = draws[made + 1:made + 6]
            if len(upcoming) == 5:
                pattern = ",".join(json.dumps(c) for c in upcoming)
                assert pattern not in json.dumps(frame, separators=(",", ":"))
