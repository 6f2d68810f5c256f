"""The bot API on two processes behind the HAProxy recipe (PostgreSQL, Redis): the bot's
stream (``flip7 bot connect``, its own process) is on one process, the table on the other.
The host's invitation, made where the table runs, reaches the bot through the database;
its seat is played through the cluster's link; the whole game is played beside a human (on
the proxy) and a built-in bot, every decision of the bot its own."""

from __future__ import annotations

import random
import subprocess
import sys
import time

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("redis")

from cluster_helpers import LOOSE, Cluster
from server_helpers import SyncSocket, WsPlayer, auth, choose

from flip7.client.table_client import ws_url


def test_a_bot_on_one_process_plays_at_a_table_of_the_other(pg_url: str,
                                                           redis_url: str) -> None:
    with Cluster(2, pg_url, redis_url, extra_args=LOOSE, seed=5) as cluster, \
            httpx.Client(timeout=20) as http:
        stream_at, table_at = cluster.urls
        player = http.post(f"{stream_at}/api/players", json={"name": "Outsider"}).json()
        token = http.post(f"{stream_at}/api/players/me/bot",
                          headers={"X-Player-Key": player["key"]}).json()["token"]
        made = http.post(f"{table_at}/api/tables", json={"player": "Ann", "seats": 3})
        assert made.status_code == 201, made.text
        table_id, host = made.json()["table"]["id"], made.json()["token"]
        assert http.post(f"{table_at}/api/tables/{table_id}/bots", json={"bot": "basic"},
                         headers=auth(host)).status_code == 200
        process = subprocess.Popen(
            [sys.executable, "-m", "flip7", "bot", "connect", stream_at, "--token", token,
             "--games", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 20
            while not http.get(f"{stream_at}/api/bot/account",
                               headers=auth(token)).json()["online"]:
                assert time.monotonic() < deadline, "the bot never connected"
                time.sleep(0.05)
            invited = http.post(f"{table_at}/api/tables/{table_id}/invitations",
                                json={"bot": player["id"]}, headers=auth(host))
            assert invited.status_code == 201, invited.text
            deadline = time.monotonic() + 20
            while True:
                seats = http.get(f"{cluster.proxy_url}/api/tables/{table_id}").json()
                taken = [s for s in seats["table"]["seats"] if s.get("bot_account")]
                if taken and taken[0]["connected"]:
                    break
                assert time.monotonic() < deadline, "the bot never sat down"
                time.sleep(0.05)
            # The bot's seat plays through a link from its stream's process to the table's.
            assert http.get(f"{stream_at}/api/health").json()["linked"] >= 1
            assert http.post(f"{table_at}/api/tables/{table_id}/start",
                             headers=auth(host)).status_code == 200
            ann = WsPlayer(SyncSocket(f"{ws_url(cluster.proxy_url)}/ws/tables/{table_id}"),
                           None, host)
            ann.hello()
            rng = random.Random(3)
            while not (ann.state.get("game") or {}).get("over"):
                game = ann.state.get("game")
                if game and game["to_decide"] == game["viewer"] and game["legal_decisions"]:
                    assert ann.move(choose(game, rng))["type"] == "result"
                else:
                    ann.recv()
            assert not any(f["type"] == "update" and any(
                e["type"] == "stand_in" for e in f["events"]) for f in ann.frames)
            ann.ws.close()
            out, err = process.communicate(timeout=60)
            assert process.returncode == 0, err
            assert "1 game(s) played" in out
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
