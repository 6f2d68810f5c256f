"""The rematch's ready check (issue 14): at the end screen each human says ready (bots are);
the next game starts once every player staying is ready, without those who left or were
away for ``rematch_wait``; its turn timer starts with it. In process with a hand-moved
clock, and over real WebSockets against a real ``flip7 serve``."""

from __future__ import annotations

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
    connect,
    play_to_end,
    seated_game,
)
from test_server_handover import Http, _code, _event, _real_player, _wait_disconnected_seat
from test_server_tables import SHORT, clocked


def _over(client: Any, stack: ExitStack, humans: int = 2, bots: int = 1, **options: Any
          ) -> tuple[str, list[str], list[WsPlayer]]:
    """A short game of ``humans`` (all connected) and ``bots``, played to its end."""
    options.setdefault("rules", SHORT)
    table = seated_game(client, humans=humans, bots=bots, **options)
    players = [connect(client, stack, table["id"], t) for t in table["tokens"]]
    r = client.post(f"/api/tables/{table['id']}/start", headers=auth(table["tokens"][0]))
    assert r.status_code == 200, r.text
    play_to_end(players, random.Random(7))
    assert players[0].state["state"] == "over"
    return table["id"], table["tokens"], players


def _ready(client: Any, table_id: str, token: str, ready: Any = True) -> Any:
    return client.post(f"/api/tables/{table_id}/ready", json={"ready": ready},
                       headers=auth(token))


def test_the_next_game_starts_once_everyone_is_ready(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with app_client(db, seed=11) as client, ExitStack() as stack:
        table_id, tokens, (ann, bob) = _over(client, stack)
        seats = ann.state["seats"]
        assert [s["ready"] for s in seats] == [False, False, True]  # the bot is ready
        assert not any(s["gone"] for s in seats) and ann.state["rematch_problem"] is None
        answer = _ready(client, table_id, tokens[0])
        assert answer.status_code == 200 and answer.json()["table"]["state"] == "over"
        assert _event(bob, "ready") == {"type": "ready", "seat": 0, "ready": True}
        assert [s["ready"] for s in bob.state["seats"]] == [True, False, True]
        # Ready again changes nothing; not ready takes it back.
        version = answer.json()["table"]["version"]
        assert _ready(client, table_id, tokens[0]).json()["table"]["version"] == version
        assert _ready(client, table_id, tokens[1], False).json()["table"]["state"] == "over"
        # Strictly typed, and only the players.
        assert _ready(client, table_id, tokens[1], "yes").status_code == 422
        assert client.post(f"/api/tables/{table_id}/ready", json={"ready": True}
                           ).status_code == 401
        assert _ready(client, table_id, "wrong").status_code == 401
    # A restart keeps who is ready.
    with app_client(db, seed=11) as client, ExitStack() as stack:
        ann = connect(client, stack, table_id, tokens[0])
        assert [s["ready"] for s in ann.state["seats"]] == [True, False, True]
        connect(client, stack, table_id, tokens[1])
        started = _ready(client, table_id, tokens[1]).json()["table"]
        assert started["state"] == "playing" and started["game_number"] == 2
        assert [s["name"] for s in started["seats"]] == ["Ann", "P1", "Basic bot 1"]
        assert all(s["ready"] is None for s in started["seats"])
        event = _event(ann, "game_started")
        assert event["number"] == 2 and "dropped" not in event
        # While a game is played there is nothing to be ready for.
        assert _code(_ready(client, table_id, tokens[0])) == (409, "not_over")


def test_a_player_who_left_is_not_dragged_into_the_next_game(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", seed=12) as client, ExitStack() as stack:
        table_id, tokens, (ann, _bob) = _over(client, stack, humans=2, bots=2)
        assert _ready(client, table_id, tokens[0]).json()["table"]["state"] == "over"
        # Bob leaves from the end screen: Ann was waiting only for him.
        left = client.post(f"/api/tables/{table_id}/leave", headers=auth(tokens[1]))
        assert left.status_code == 200
        state = left.json()["table"]
        assert state["state"] == "playing" and state["game_number"] == 2
        assert [s["name"] for s in state["seats"]] == ["Ann", "Basic bot 1", "Basic bot 2"]
        assert _event(ann, "game_started")["dropped"] == ["P1"]
        # His token holds no seat now.
        assert _code(_ready(client, table_id, tokens[1])) == (401, "unauthorized")
        games = client.get(f"/api/tables/{table_id}/games").json()["games"]
        assert games[-1]["players"] == ["Ann", "Basic bot 1", "Basic bot 2"]


def test_a_player_away_from_the_end_screen_is_dropped_after_rematch_wait(
        tmp_path: Path) -> None:
    with clocked(tmp_path / "db.sqlite", seed=13, rematch_wait=60) as (
            client, lobby, clock), ExitStack() as stack:
        table_id, tokens, (_ann, bob) = _over(client, stack, humans=2, bots=2)
        bob.ws.close()
        _wait_disconnected_seat(lobby, table_id, 1)
        assert _ready(client, table_id, tokens[0]).json()["table"]["state"] == "over"
        clock.now += 59
        state = _ready(client, table_id, tokens[0]).json()["table"]
        assert state["state"] == "over" and not state["seats"][1]["gone"]
        clock.now += 1
        state = client.get(f"/api/tables/{table_id}").json()["table"]
        assert state["seats"][1]["gone"] and not state["seats"][0]["gone"]
        started = _ready(client, table_id, tokens[0]).json()["table"]
        assert started["state"] == "playing"
        assert [s["name"] for s in started["seats"]] == ["Ann", "Basic bot 1", "Basic bot 2"]


def test_too_few_staying_cannot_start(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", seed=14) as client, ExitStack() as stack:
        table_id, tokens, (_ann, _bob) = _over(client, stack, humans=2, bots=1)
        assert client.post(f"/api/tables/{table_id}/leave",
                           headers=auth(tokens[1])).status_code == 200
        refused = _ready(client, table_id, tokens[0])
        assert _code(refused) == (409, "not_enough_players")
        assert "once those gone are dropped" in refused.json()["detail"]["message"]
        state = client.get(f"/api/tables/{table_id}").json()["table"]
        assert state["state"] == "over" and state["seats"][0]["ready"]
        assert state["seats"][1]["gone"] and "got 2" in state["rematch_problem"]


def test_the_turn_timer_starts_with_the_next_game(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", seed=15) as client, ExitStack() as stack:
        table_id, tokens, (ann,) = _over(client, stack, humans=1, bots=2, turn_timer=60)
        assert ann.state["turn_deadline"] is None
        time.sleep(0.3)
        asked = time.time()
        started = _ready(client, table_id, tokens[0]).json()["table"]
        assert started["state"] == "playing"
        ann.settle(after=started["version"] - 1)
        deadline = ann.state["turn_deadline"]
        assert deadline is not None and asked + 59 <= deadline <= time.time() + 60.5


def test_the_ready_check_with_one_player_gone_over_real_websockets(tmp_path: Path) -> None:
    server = ServerProcess(
        f"sqlite:///{tmp_path / 'db.sqlite'}", seed=16,
        extra_args=["--limit", "rematch_wait=0.5"],
    ).start()
    try:
        http = Http(server.url)
        table = seated_game(http, humans=3, bots=1, rules=SHORT)
        table_id, tokens = table["id"], table["tokens"]
        players = [_real_player(server, table_id, t) for t in tokens]
        ann, bob, cyd = players
        assert http.post(f"/api/tables/{table_id}/start",
                         headers=auth(tokens[0])).status_code == 200
        play_to_end(players, random.Random(8))
        cyd.ws.close()  # Cyd closes the tab at the end screen
        assert _ready(http, table_id, tokens[0]).json()["table"]["state"] == "over"
        assert _ready(http, table_id, tokens[1]).json()["table"]["state"] in ("over", "playing")
        # Once Cyd has been away for rematch_wait the server goes on without her.
        event = _event(ann, "game_started")
        assert event["number"] == 2 and event["dropped"] == ["P2"]
        assert [s["name"] for s in ann.state["seats"]] == ["Ann", "P1", "Basic bot 1"]
        assert ann.state["game"]["viewer"] == 0
        # Cyd comes back: her token holds no seat any more, so she watches.
        ws = SyncSocket(server.url.replace("http", "ws") + f"/ws/tables/{table_id}")
        late = WsPlayer(ws, None, tokens[2])
        late.send({"v": 1, "type": "hello", "token": tokens[2], "last_version": None})
        assert late.recv()["code"] == "unauthorized"
        late.token = None
        assert late.hello()["seat"] is None
        for p in (ann, bob, late):
            p.ws.close()
    finally:
        server.stop()


def test_a_rematch_everyone_was_ready_for_starts_after_a_crash(tmp_path: Path) -> None:
    """The last ready and the rematch's start are two writes: a process that dies between
    them leaves a table rebuilt at the end screen with everyone ready. The rebuilt table
    starts the rematch itself (found by the cluster's chaos test)."""
    import asyncio

    from flip7.server.base.settings import Settings, database_url
    from flip7.server.store.database import Store
    from flip7.server.table.changes import MarkReady
    from flip7.server.table.lobby import Lobby

    url = database_url(str(tmp_path / "crash.db"))

    async def scenario() -> None:
        store = await Store.open(url)
        lobby = Lobby(store, Settings(database_url=url, rematch_wait=600.0))
        table, _, first = await lobby.create_table("T", "Ann", 3, rules=SHORT)
        tokens = [first] + [(await lobby.join(table, name))[1] for name in ("Bob", "Cyd")]
        await lobby.start(table, first)
        rng = random.Random(1)
        moves = 0
        while table.state == "playing":
            game = table.game
            assert game is not None and game.to_decide is not None
            seat = table.seats[game.to_decide]
            assert seat is not None
            moves += 1
            await lobby.move(table, seat, f"m{moves}", table.version,
                             rng.choice(game.legal_decisions()))
        await lobby.ready(table, tokens[0], True)
        await lobby.ready(table, tokens[1], True)
        async with table.lock:  # the third ready stored, then the process dies
            await table.change(MarkReady(seat=2, ready=True))
        games = table.game_number
        await lobby.close()
        await store.close()

        store = await Store.open(url)
        lobby = Lobby(store, Settings(database_url=url, rematch_wait=600.0))
        await lobby.restore()
        again = lobby.tables[table.id]
        for _ in range(100):
            if again.state == "playing":
                break
            await asyncio.sleep(0.02)
        assert again.state == "playing" and again.game_number == games + 1
        await lobby.close()
        await store.close()

    asyncio.run(scenario())
