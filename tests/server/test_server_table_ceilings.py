"""Ceilings over every address (issue "Fair shares", finding 2): 520 addresses filled all
10,000 table slots in 69 s, and then every ``POST /api/tables`` from anyone was 503 ``full``
for up to ``waiting_table_ttl``.

Now tables nobody has opened (*unattended*: waiting, no seated human ever connected) are
kept to ``max_unattended_tables`` and live ``unattended_table_ttl``; a new table past that
ceiling, or with the server at ``max_tables``, closes the oldest unattended one. A table a
person opened is never closed for room. Table creation over every address together is held
to ``tables_per_minute_all`` (503 ``busy``)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")

from cluster_helpers import LOOSE, ClusterClient
from server_helpers import (
    ServerProcess,
    SyncSocket,
    WsPlayer,
    app_client,
    auth,
    connect,
    services_of,
    threaded_server,
)
from starlette.websockets import WebSocketDisconnect
from test_server_tables import _wait_disconnected, clocked, from_address, sweep

from flip7.server.base.settings import Settings, database_url


def _create(client: Any, name: str = "Ann", **body: Any) -> Any:
    return client.post("/api/tables", json={"name": "T", "player": name, **body})


def _opened(client: Any, lobby: Any, made: dict[str, Any]) -> None:
    """The creator opens the table once and goes away again: attended for good."""
    table_id = made["table"]["id"]
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        WsPlayer(ws, None, made["token"]).hello()
    _wait_disconnected(lobby, table_id)


def _unattended(lobby: Any) -> list[str]:
    return [t.id for t in lobby.expiry.unattended_tables()]


# ---------------------------------------------------------------------- the attack


@contextmanager
def _from(base: str, source: str) -> Iterator[httpx.Client]:
    """An HTTP client whose connections come from loopback address ``source``."""
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(base_url=base, transport=transport, timeout=10, trust_env=False) as http:
        yield http


def test_a_flood_from_many_addresses_no_longer_locks_everyone_out(tmp_path: Path) -> None:
    """The attack of finding 2 at a small scale, against a real server: 30 addresses, one
    table each, against 12 slots. On the old rules the flood filled every slot and the rest
    of it, and everyone after it, got 503 ``full`` (this test fails there); now each new
    table closes the oldest unattended one, and the tables people opened stay."""
    settings = Settings(database_url=database_url(str(tmp_path / "db.sqlite")), bot_delay=0.0,
                        max_tables=12)
    with threaded_server(settings) as base, ExitStack() as stack:
        ws_base = base.replace("http", "ws")
        with _from(base, "127.0.0.2") as http:
            ann = http.post("/api/tables", json={"name": "Ann's", "player": "Ann"}).json()
            bob = http.post("/api/tables", json={"name": "Bob's", "player": "Bob"}).json()
        # Ann keeps her table open in a tab; Bob opened his once and went away.
        ann_ws = stack.enter_context(_socket(f"{ws_base}/ws/tables/{ann['table']['id']}"))
        ann_ws.send_text(json.dumps({"v": 1, "type": "hello", "token": ann["token"]}))
        assert json.loads(ann_ws.receive_text())["type"] == "welcome"
        with _socket(f"{ws_base}/ws/tables/{bob['table']['id']}") as bob_ws:
            bob_ws.send_text(json.dumps({"v": 1, "type": "hello", "token": bob["token"]}))
            assert json.loads(bob_ws.receive_text())["type"] == "welcome"
        _until(lambda: not _seat_connected(base, bob["table"]["id"]))

        flood = []
        for i in range(30):
            with _from(base, f"127.0.2.{i + 1}") as http:
                made = http.post("/api/tables", json={"name": "Spam", "player": "Spam"})
            flood.append(made)
        assert [r.status_code for r in flood] == [201] * 30, [r.text for r in flood]
        with _from(base, "127.0.3.1") as http:
            newcomer = http.post("/api/tables", json={"name": "New", "player": "Cyd"})
            assert newcomer.status_code == 201, newcomer.text
            assert http.get("/api/health").json()["tables"] == 12  # never past max_tables
            # The tables people opened are there; the flood's oldest made room.
            for kept in (ann, bob):
                assert http.get(f"/api/tables/{kept['table']['id']}").status_code == 200
            states = [http.get(f"/api/tables/{r.json()['table']['id']}").status_code
                      for r in flood]
        assert states == [410] * 21 + [200] * 9
        # Ann's tab was never told her table closed: it hears its own chat, no error.
        ann_ws.send_text(json.dumps({"v": 1, "type": "chat", "text": "still here"}))
        heard = [json.loads(ann_ws.receive_text())]
        while heard[-1]["type"] != "chat":
            heard.append(json.loads(ann_ws.receive_text()))
        assert not [f for f in heard if f["type"] == "error"], heard


@contextmanager
def _socket(url: str) -> Iterator[SyncSocket]:
    ws = SyncSocket(url)
    try:
        yield ws
    finally:
        ws.close()


def _seat_connected(base: str, table_id: str) -> bool:
    seats = httpx.get(f"{base}/api/tables/{table_id}", trust_env=False).json()["table"]["seats"]
    return bool(seats[0]["connected"])


def _until(condition: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


# ---------------------------------------------------------------------- the ceiling


def test_past_the_ceiling_the_oldest_unattended_table_makes_room(tmp_path: Path) -> None:
    with clocked(tmp_path / "db.sqlite", max_unattended_tables=3) as (client, lobby, _clock), \
            ExitStack() as stack:
        from_address(client, "127.0.0.2")
        ann = _create(client, "Ann").json()
        connect(client, stack, ann["table"]["id"], ann["token"])  # open in a tab
        bob = _create(client, "Bob").json()
        _opened(client, lobby, bob)
        # A table started by REST alone (bots, never opened) is not waiting: not counted.
        cyd = _create(client, "Cyd", seats=3).json()
        for _ in range(2):
            assert client.post(f"/api/tables/{cyd['table']['id']}/bots", json={"bot": "basic"},
                               headers=auth(cyd["token"])).status_code == 200
        assert client.post(f"/api/tables/{cyd['table']['id']}/start",
                           headers=auth(cyd["token"])).status_code == 200
        assert _unattended(lobby) == []

        flood = []
        for i in range(3):
            from_address(client, f"127.0.1.{i + 1}")
            flood.append(_create(client, "Spam").json()["table"]["id"])
        assert _unattended(lobby) == flood
        watcher = connect(client, stack, flood[0], None)  # a spectator does not attend
        # The creator who opens their table makes it attended: it is no longer counted.
        from_address(client, "127.0.0.3")
        dan = _create(client, "Dan").json()
        assert _unattended(lobby) == [*flood[1:], dan["table"]["id"]]
        _opened(client, lobby, dan)
        assert _unattended(lobby) == flood[1:]

        for i in range(3, 7):
            from_address(client, f"127.0.1.{i + 1}")
            made = _create(client, "Spam")
            assert made.status_code == 201, made.text
            flood.append(made.json()["table"]["id"])
        assert _unattended(lobby) == flood[-3:]
        # The spectator of the first one was told why, and its socket closed.
        frame = watcher.recv_until(lambda f: f["type"] == "error")
        assert frame["code"] == "closed"
        assert "limit max_unattended_tables" in frame["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            watcher.recv()
        assert closed.value.code == 4410
        for gone in flood[:-3]:
            assert client.get(f"/api/tables/{gone}").json()["detail"]["code"] == "closed"
        for kept in (ann, bob, cyd, dan):
            assert client.get(f"/api/tables/{kept['table']['id']}").status_code == 200
        # Closed the usual way: stored as closed, so a restart does not bring them back.
        assert set(lobby.tables) == {*flood[-3:], *(t["table"]["id"] for t in (ann, bob, cyd, dan))}


def test_with_every_table_attended_the_server_is_full(tmp_path: Path) -> None:
    """Opened tables hold their slots: a newcomer is refused rather than one closed."""
    with clocked(tmp_path / "db.sqlite", max_tables=3) as (client, lobby, _clock):
        made = [_create(client, f"P{i}").json() for i in range(3)]
        for table in made:
            _opened(client, lobby, table)
        full = _create(client)
        assert full.status_code == 503 and full.json()["detail"]["code"] == "full"
        assert len(lobby.tables) == 3


# ---------------------------------------------------------------------- the shorter life


def test_unattended_tables_close_sooner_and_opened_ones_wait(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with clocked(db, unattended_table_ttl=60, waiting_table_ttl=600) as (client, lobby, clock):
        never = _create(client, "Ann").json()["table"]["id"]
        opened = _create(client, "Bob").json()
        _opened(client, lobby, opened)
        clock.now += 59
        assert sweep(client, lobby) == []
        clock.now += 1
        assert sweep(client, lobby) == [never]
        gone = client.get(f"/api/tables/{never}")
        assert gone.status_code == 410
        assert gone.json()["detail"]["message"] == (
            "this table was closed after 10 minutes without players (1 minute if nobody had "
            f"opened it); its games stay available at /api/tables/{never}/games")
        # A table its creator opened waits for friends as long as any waiting table.
        clock.now += 539
        assert sweep(client, lobby) == []
        clock.now += 1
        assert sweep(client, lobby) == [opened["table"]["id"]]

    # A restart: whether a table was opened is not stored, so a table rebuilt from the store
    # gets the waiting table's time (a person's table is never closed sooner for it).
    with app_client(db) as client:
        restored = _create(client, "Dan").json()["table"]["id"]
    with clocked(db, unattended_table_ttl=60, waiting_table_ttl=600) as (client, lobby, clock):
        assert _unattended(lobby) == []
        clock.now += 60
        assert sweep(client, lobby) == []
        clock.now += 540
        assert sweep(client, lobby) == [restored]


# ---------------------------------------------------------------------- the global rate


def test_table_creation_over_every_address_has_a_ceiling(tmp_path: Path) -> None:
    with clocked(tmp_path / "db.sqlite", tables_per_minute_all=6, tables_burst_all=3) as (
            client, _lobby, clock):
        for i in range(3):
            from_address(client, f"127.0.0.{10 + i}")
            assert _create(client).status_code == 201
        from_address(client, "127.0.0.20")
        refused = _create(client)
        assert refused.status_code == 503
        assert refused.headers["Retry-After"] == "10"  # 6 a minute: one every 10 s
        assert refused.json()["detail"] == {
            "code": "busy",
            "message": "the server is creating as many tables as it can: at most 6 a minute "
                       "from everyone (3 at once, limit tables_per_minute_all); try again in "
                       "10 seconds"}
        # A request refused for what it asks takes nothing from everyone's budget.
        clock.now += 10
        assert _create(client, name=" ").json()["detail"]["code"] == "bad_name"
        from_address(client, "127.0.0.21")
        assert _create(client).status_code == 201
        assert _create(client).json()["detail"]["code"] == "busy"


def test_clients_are_told_the_shorter_life_not_the_servers_capacity(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", unattended_table_ttl=120) as client:
        limits = client.get("/api/limits").json()
        assert limits["unattended_table_ttl"] == 120
        assert not {"max_unattended_tables", "tables_per_minute_all", "tables_burst_all"} & set(
            limits)
        assert services_of(client).lobby.expiry.interval == 30


# ---------------------------------------------------------------------- many processes


def test_the_ceiling_holds_with_many_processes(pg_url: str, redis_url: str) -> None:
    """A table created through one process and opened through the other (a socket the
    owner sees as a remote client) is attended; the owner closes the oldest unattended
    table for room through the fenced, stored closing."""
    limits = [*LOOSE, "--limit", "max_unattended_tables=2"]
    servers = [ServerProcess(pg_url, extra_args=["--redis", redis_url, *limits])
               for _ in range(2)]
    try:
        for server in servers:
            server.start()
        a, b = servers
        made = httpx.post(a.url + "/api/tables", json={"name": "Ann's", "player": "Ann"})
        assert made.status_code == 201, made.text
        ann_id, ann_token = made.json()["table"]["id"], made.json()["token"]
        ClusterClient(b.url, ann_id, ann_token).ws.close()  # opened through B
        flood = []
        for _ in range(4):
            spam = httpx.post(a.url + "/api/tables", json={"name": "Spam", "player": "Spam"})
            assert spam.status_code == 201, spam.text
            flood.append(spam.json()["table"]["id"])
        states = [httpx.get(b.url + f"/api/tables/{t}").status_code for t in flood]
        assert states == [410, 410, 200, 200]
        assert httpx.get(b.url + f"/api/tables/{ann_id}").status_code == 200
    finally:
        for server in servers:
            server.stop()
