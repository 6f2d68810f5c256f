"""The bot API on two processes behind the HAProxy recipe (PostgreSQL, Redis): the bot's
stream (``flip7 bot connect``, its own process) is on one process, the table on the other.
The host's invitation, made where the table runs, reaches the bot through the database;
its seat is played through the cluster's link; the whole game is played beside a human (on
the proxy) and a built-in bot, every decision of the bot its own. An invitation that can no
longer be accepted (its table filled or started, or it expired) reaches the bot's stream
as ``invitation_gone``; the lobby's list, read at either process, says ``hosting`` to the
table's host only."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("redis")

from collections.abc import Iterator
from typing import Any

from cluster_helpers import LOOSE, Cluster, poll
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


def _frame(lines: Iterator[str], kind: str) -> dict[str, Any]:
    """The next frame of type ``kind`` of an event stream (``data:`` lines; the stream
    says ``: keep-alive`` every 15 seconds, so a frame that never comes fails here)."""
    deadline = time.monotonic() + 30
    for line in lines:
        if line.startswith("data: "):
            frame: dict[str, Any] = json.loads(line.removeprefix("data: "))
            if frame["type"] == kind:
                return frame
        assert time.monotonic() < deadline, f"no {kind!r} frame"
    raise AssertionError(f"the stream ended before a {kind!r} frame")


def test_an_invitation_gone_reaches_a_bot_on_the_other_process(pg_url: str,
                                                             redis_url: str) -> None:
    """The bot's event stream on one process, the tables on the other: each invitation is
    told there, and when it expires (made while the stream was closed, its time in the
    database set a few seconds ahead), its table fills or its table starts, the stream is
    told ``invitation_gone`` with the reason (the stream's process asks the table's owner)
    and accepting it is 404."""
    from sqlalchemy import create_engine, text

    with Cluster(2, pg_url, redis_url, extra_args=LOOSE, seed=5) as cluster, \
            httpx.Client(timeout=20) as http:
        stream_at, table_at = cluster.urls
        player = http.post(f"{stream_at}/api/players", json={"name": "Outsider"}).json()
        token = http.post(f"{stream_at}/api/players/me/bot",
                          headers={"X-Player-Key": player["key"]}).json()["token"]

        def invite(seats: int, host_name: str) -> tuple[str, str, str]:
            made = http.post(f"{table_at}/api/tables", json={"player": host_name,
                                                            "seats": seats})
            table_id, host = made.json()["table"]["id"], made.json()["token"]
            r = http.post(f"{table_at}/api/tables/{table_id}/invitations",
                          json={"bot": player["id"]}, headers=auth(host))
            assert r.status_code == 201, r.text
            return table_id, host, str(r.json()["id"])

        # Made before the stream opens, to expire in a few seconds: the stream is told of
        # it with that time, then that it expired.
        _table_id, _host, soon = invite(3, "Cid")
        engine = create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://"))
        try:
            with engine.begin() as conn:
                conn.execute(text("UPDATE bot_invitations SET expires_at = "
                                  "now() + interval '6 seconds' WHERE id = :id"), {"id": soon})
        finally:
            engine.dispose()
        with http.stream("GET", f"{stream_at}/api/bot/stream", headers=auth(token)) as stream:
            assert stream.status_code == 200
            lines = stream.iter_lines()

            def gone(invitation: dict[str, Any], reason: str) -> None:
                assert _frame(lines, "invitation_gone") == {
                    "v": 1, "type": "invitation_gone", "id": invitation["id"],
                    "table_id": invitation["table_id"], "reason": reason}
                r = http.post(f"{stream_at}/api/bot/invitations/{invitation['id']}/accept",
                              headers=auth(token))
                assert r.status_code == 404 and r.json()["detail"]["code"] == "no_invitation"

            invitation = _frame(lines, "invitation")
            assert invitation["id"] == soon and invitation["expires_in"] <= 6
            gone(invitation, "expired")
            full_id, _host, made = invite(3, "Ann")
            invitation = _frame(lines, "invitation")
            assert invitation["id"] == made
            for name in ("Zed", "Yan"):
                assert http.post(f"{table_at}/api/tables/{full_id}/join",
                                 json={"player": name}).status_code == 200
            gone(invitation, "table_full")
            started_id, host, made = invite(4, "Bea")
            invitation = _frame(lines, "invitation")
            assert invitation["id"] == made
            for _ in range(2):
                assert http.post(f"{table_at}/api/tables/{started_id}/bots",
                                 json={"bot": "basic"}, headers=auth(host)).status_code == 200
            assert http.post(f"{table_at}/api/tables/{started_id}/start",
                             headers=auth(host)).status_code == 200
            gone(invitation, "table_started")


def test_the_list_says_hosting_to_the_host_at_either_process(pg_url: str,
                                                             redis_url: str) -> None:
    """The lobby's list across the processes (Redis): read at the table's process, the
    other one or the proxy, it says ``hosting`` to the host's seat token only; when the
    host leaves, to the next person seated."""
    with Cluster(2, pg_url, redis_url, extra_args=LOOSE, seed=5) as cluster, \
            httpx.Client(timeout=20) as http:
        made = http.post(f"{cluster.urls[1]}/api/tables", json={"player": "Ann", "seats": 3})
        table_id, host = made.json()["table"]["id"], made.json()["token"]
        zed = http.post(f"{cluster.urls[1]}/api/tables/{table_id}/join",
                        json={"player": "Zed"}).json()["token"]

        def hosting(at: str, *tokens: str) -> bool | None:
            headers = {"X-Seat-Tokens": ",".join(tokens)} if tokens else {}
            listed = http.get(f"{at}/api/tables", headers=headers).json()["tables"]
            return next((t["hosting"] for t in listed
                         if t["id"] == table_id and len(t["seats"]) == 3
                         and t["seats"][1]["kind"] == "human"), None)

        for at in (*cluster.urls, cluster.proxy_url):
            poll(lambda at=at: hosting(at, host) is not None, 10)  # the list is written
            assert hosting(at, host) is True
            assert hosting(at, zed) is False
            assert hosting(at) is False
        assert http.post(f"{cluster.urls[1]}/api/tables/{table_id}/leave",
                         headers=auth(host)).status_code == 200
        for at in (*cluster.urls, cluster.proxy_url):
            poll(lambda at=at: hosting(at, zed) is True, 10)
            assert hosting(at, host) is False
