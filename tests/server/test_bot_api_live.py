"""The bot API at a live server (uvicorn on loopback): ``flip7 bot connect`` as its own
process plays a whole game beside a human and a built-in bot, and a bot on the event
stream (``text/event-stream``) plays one with REST moves."""

from __future__ import annotations

import contextlib
import json
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

import httpx
from server_helpers import SyncSocket, WsPlayer, auth, choose, threaded_server

from flip7.client.table_client import ws_url
from flip7.server.base.settings import Settings, database_url


def server(tmp_path: Path, **settings: Any) -> Any:
    return threaded_server(Settings(database_url=database_url(str(tmp_path / "t.db")),
                                    bot_delay=0.0, seed=21, **settings))


def bot_account(http: httpx.Client) -> tuple[dict[str, Any], str]:
    player = http.post("/api/players", json={"name": "Outsider"}).json()
    made = http.post("/api/players/me/bot", headers={"X-Player-Key": player["key"]})
    assert made.status_code == 201, made.text
    token = made.json()["token"]
    assert http.put("/api/bot/available", json={"available": True},
                    headers=auth(token)).status_code == 200
    return player, token


def table_with_bot(http: httpx.Client) -> tuple[str, str]:
    """A table of three seats: Ann the host and a built-in bot; its id and Ann's token."""
    made = http.post("/api/tables", json={"player": "Ann", "seats": 3})
    assert made.status_code == 201, made.text
    table_id, host = made.json()["table"]["id"], made.json()["token"]
    assert http.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                     headers=auth(host)).status_code == 200
    return table_id, host


def until(what: Any, seconds: float = 20.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("it never came")


def play_human(url: str, table_id: str, token: str, rng: random.Random) -> dict[str, Any]:
    """Ann plays her turns until the game is over; the last state."""
    ann = WsPlayer(SyncSocket(f"{ws_url(url)}/ws/tables/{table_id}"), None, token)
    try:
        ann.seat = ann.hello()["seat"]
        while True:
            game = ann.state.get("game")
            if game is not None and game["over"]:
                return ann.state
            if (game is not None and game["to_decide"] == game["viewer"]
                    and game["legal_decisions"]):
                ann.move(choose(game, rng))
            else:
                ann.recv()
    finally:
        ann.ws.close()


@contextlib.contextmanager
def outside_bot(args: list[str]) -> Iterator[subprocess.Popen[str]]:
    """An outside bot's process (``python ARGS``), killed if it still runs at the end."""
    process = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gym_policy_bot.py"
COMMANDS = {
    # flip7 bot connect with a built-in bot.
    "flip7 bot connect": ["-m", "flip7", "bot", "connect", "{url}", "--token", "{token}",
                          "--spec", "basic", "--games", "1", "--seed", "1"],
    # The Gymnasium policy example (observation from the view, action to decision).
    "gym policy example": [str(EXAMPLE), "{url}", "--token", "{token}", "--games", "1"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_outside_bot_process_plays_a_whole_game(tmp_path: Path, command: str) -> None:
    """The outside bot process takes the invitation and plays every one of its decisions
    (no stand-in), the human plays hers, the built-in bot its own; it leaves at the end
    and exits after its one game."""
    if command == "gym policy example":
        pytest.importorskip("numpy")
    with server(tmp_path) as url, httpx.Client(base_url=url, timeout=20) as http:
        player, token = bot_account(http)
        table_id, host = table_with_bot(http)
        args = [a.format(url=url, token=token) for a in COMMANDS[command]]
        with outside_bot(args) as process:
            until(lambda: any(b["online"] for b in http.get("/api/bot-accounts").json()["bots"]))
            r = http.post(f"/api/tables/{table_id}/invitations", json={"bot": player["id"]},
                          headers=auth(host))
            assert r.status_code == 201, r.text
            seats = until(lambda: [s for s in http.get(f"/api/tables/{table_id}").json()
                                   ["table"]["seats"] if s.get("bot_account")])
            assert seats[0]["player_id"] == player["id"] and seats[0]["name"] == "Outsider"
            assert http.post(f"/api/tables/{table_id}/start",
                             headers=auth(host)).status_code == 200
            final = play_human(url, table_id, host, random.Random(4))
            out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        assert "1 game(s) played" in out
        assert final["game"]["over"]
        replay = http.get(f"/api/tables/{table_id}").json()["table"]
        assert not any(s.get("stand_in") for s in replay["seats"] if s.get("bot_account"))


def test_flip7_bot_connect_rematch_plays_two_games_in_a_row(tmp_path: Path) -> None:
    """``--rematch``: at the end screen the outside bot stays and says ready, as the host
    does, and the next game starts with it; after its two games it leaves and exits. A
    ready before the game is over is refused, 409 ``not_over``. Two games at a test's pace
    are more moves than a socket's burst allows: a move refused (``rate_limited``) is made
    again a moment later."""
    with server(tmp_path) as url, httpx.Client(base_url=url, timeout=20) as http:
        player, token = bot_account(http)
        table_id, host = table_with_bot(http)
        with outside_bot(["-m", "flip7", "bot", "connect", url, "--token", token,
                          "--games", "2", "--rematch", "--seed", "1"]) as process:
            until(lambda: any(b["online"] for b in http.get("/api/bot-accounts").json()["bots"]))
            assert http.post(f"/api/tables/{table_id}/invitations", json={"bot": player["id"]},
                             headers=auth(host)).status_code == 201
            until(lambda: any(s.get("bot_account") for s in
                              http.get(f"/api/tables/{table_id}").json()["table"]["seats"]))
            early = http.post(f"/api/bot/tables/{table_id}/ready", json={}, headers=auth(token))
            assert early.status_code == 409 and early.json()["detail"]["code"] == "not_over"
            assert http.post(f"/api/tables/{table_id}/start",
                             headers=auth(host)).status_code == 200
            play_human(url, table_id, host, random.Random(4))
            assert http.post(f"/api/tables/{table_id}/ready", json={"ready": True},
                             headers=auth(host)).status_code == 200
            until(lambda: http.get(f"/api/tables/{table_id}").json()["table"]["state"]
                  == "playing")
            final = play_human(url, table_id, host, random.Random(5))
            out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        assert "2 game(s) played" in out
        assert final["game"]["over"]
        seats = http.get(f"/api/tables/{table_id}").json()["table"]["seats"]
        assert not any(s.get("stand_in") for s in seats if s.get("bot_account"))


def sse_frames(response: httpx.Response) -> Iterator[dict[str, Any]]:
    for line in response.iter_lines():
        if line.startswith("data: "):
            yield json.loads(line.removeprefix("data: "))


def test_the_event_stream_and_rest_moves_play_a_game(tmp_path: Path) -> None:
    rng = random.Random(9)
    with server(tmp_path) as url, httpx.Client(base_url=url, timeout=20) as http:
        player, token = bot_account(http)
        table_id, host = table_with_bot(http)
        with http.stream("GET", "/api/bot/stream", headers=auth(token)) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            frames = sse_frames(stream)
            assert http.post(f"/api/tables/{table_id}/invitations", json={"bot": player["id"]},
                             headers=auth(host)).status_code == 201
            invitation = next(f for f in frames if f["type"] == "invitation")
            accepted = http.post(f"/api/bot/invitations/{invitation['id']}/accept",
                                 headers=auth(token))
            assert accepted.status_code == 200, accepted.text
            welcome = next(f for f in frames if f["type"] == "welcome")
            assert welcome["table_id"] == table_id
            assert http.post(f"/api/tables/{table_id}/start", headers=auth(host)).status_code == 200
            human = threading.Thread(target=play_human, daemon=True,
                                     args=(url, table_id, host, random.Random(2)))
            human.start()
            moves = 0
            for frame in frames:
                state = frame.get("table")
                if frame["type"] not in ("update", "welcome") or not state:
                    continue
                game = state["game"]
                if game is None:
                    continue
                if game["over"]:
                    break
                if game["to_decide"] == game["viewer"] and game["legal_decisions"]:
                    answer = http.post(f"/api/bot/tables/{table_id}/move", headers=auth(token),
                                       json={"id": f"s{state['version']}",
                                             "version": state["version"],
                                             "decision": choose(game, rng)})
                    assert answer.status_code in (200, 409), answer.text
                    if answer.status_code == 200:
                        assert answer.json()["type"] == "result"
                        moves += 1
            assert moves > 0
            # A decision that does not parse is refused as on a socket: 422 illegal_move.
            bad = http.post(f"/api/bot/tables/{table_id}/move", headers=auth(token),
                            json={"id": "x", "version": 1, "decision": "fly"})
            assert bad.status_code == 422 and bad.json()["detail"]["code"] == "illegal_move"
        human.join(timeout=30)


def test_flip7_bot_connect_with_a_token_the_server_does_not_know(tmp_path: Path) -> None:
    """The stream is refused (4401) and the command says why, with status 2: opening it
    again would not help."""
    with server(tmp_path) as url:
        done = subprocess.run(
            [sys.executable, "-m", "flip7", "bot", "connect", url, "--token", "bot.nobody.x"],
            capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "4401" in done.stderr and "does not know this bot token" in done.stderr
