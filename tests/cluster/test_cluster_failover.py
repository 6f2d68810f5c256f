"""Failover between ``flip7 serve`` processes (flip7.server.cluster.node): a process killed with
``kill -9`` has its tables taken over by another, rebuilt from the change log; its clients
reconnect with ``last_version`` and see every update they missed; the database itself
refuses a write from a process that lost the table (its fencing token)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("redis")

from cluster_helpers import LOOSE
from server_helpers import ServerProcess, SyncSocket, auth, choose
from websockets.exceptions import ConnectionClosed, InvalidHandshake


@pytest.fixture
def pair(pg_url: str, redis_url: str) -> Iterator[list[ServerProcess]]:
    servers = [ServerProcess(pg_url, extra_args=["--redis", redis_url, *LOOSE])
               for _ in range(2)]
    try:
        for server in servers:
            server.start()
        yield servers
    finally:
        for server in servers:
            server.stop()


class Player:
    """A seat's socket that reconnects (with ``last_version``) when it is closed."""

    def __init__(self, url: str, table_id: str, token: str) -> None:
        self.url = url.replace("http", "ws") + f"/ws/tables/{table_id}"
        self.token = token
        self.state: dict[str, Any] = {}
        self.versions: list[int] = []
        self.reconnects = 0
        self.connect()

    def connect(self, last: int | None = None) -> None:
        self.ws = SyncSocket(self.url, timeout=20)
        self.ws.send_text(json.dumps({"v": 1, "type": "hello", "token": self.token,
                                      "last_version": last}))
        welcome = json.loads(self.ws.receive_text())
        assert welcome["type"] == "welcome", welcome
        self.state = welcome["table"]
        for missed in welcome["missed"] or []:
            self.note(missed["version"])

    def note(self, version: int) -> None:
        if not self.versions or version > self.versions[-1]:
            self.versions.append(version)

    def recv(self) -> dict[str, Any]:
        """The next frame; a closed socket is reconnected (the welcome is the frame)."""
        try:
            frame: dict[str, Any] = json.loads(self.ws.receive_text())
        except ConnectionClosed:
            self.reconnects += 1
            while True:
                try:
                    self.connect(self.versions[-1] if self.versions else None)
                    return {"type": "reconnected"}
                except (ConnectionClosed, InvalidHandshake, OSError, AssertionError):
                    time.sleep(0.2)
        if frame["type"] == "update":
            self.note(frame["version"])
        if frame.get("table") is not None and frame["type"] in ("welcome", "update"):
            self.state = frame["table"]
        return frame

    def move(self, move_id: str, rng: random.Random) -> dict[str, Any]:
        """Make a move and return its answer, retrying the same move id (the same version
        and decision) after a reconnect: the server answers a retry without applying it
        twice."""
        message = json.dumps({"v": 1, "type": "move", "id": move_id,
                              "version": self.state["version"],
                              "decision": choose(self.state["game"], rng)})
        with contextlib.suppress(ConnectionClosed):  # then recv reconnects, and it is resent
            self.ws.send_text(message)
        while True:
            frame = self.recv()
            if frame["type"] == "reconnected":
                with contextlib.suppress(ConnectionClosed):
                    self.ws.send_text(message)
            elif frame["type"] in ("result", "error") and frame.get("id") == move_id:
                return frame


def test_kill_9_of_the_owner_moves_its_table_to_the_other_process(
    pair: list[ServerProcess],
) -> None:
    a, b = pair
    made = httpx.post(a.url + "/api/tables", json={"name": "Fail", "player": "Ann", "seats": 3})
    table_id, ann_token = made.json()["table"]["id"], made.json()["token"]
    tokens = [ann_token] + [
        httpx.post(b.url + f"/api/tables/{table_id}/join", json={"player": name}).json()["token"]
        for name in ("Bob", "Cyd")
    ]
    # Every player is connected to B: their sockets outlive A.
    players = [Player(b.url, table_id, token) for token in tokens]
    started = httpx.post(b.url + f"/api/tables/{table_id}/start", headers=auth(ann_token))
    assert started.status_code == 200, started.text
    for p in players:
        while p.state.get("version", -1) < started.json()["table"]["version"]:
            p.recv()
    rng = random.Random(5)
    acknowledged: list[int] = []
    number = 0

    def play(moves: int) -> float:
        """Play ``moves`` moves; the seconds the slowest took."""
        nonlocal number
        slowest = 0.0
        for _ in range(moves):
            for p in players:
                while p.state.get("version", -1) < max(q.state.get("version", -1)
                                                        for q in players):
                    p.recv()
            game = players[0].state["game"]
            if game["over"]:
                return slowest
            mover = players[game["to_decide"]]
            number += 1
            began = time.monotonic()
            answer = mover.move(f"m{number}", rng)
            slowest = max(slowest, time.monotonic() - began)
            assert answer["type"] == "result", answer
            acknowledged.append(answer["version"])
        return slowest

    play(6)
    owner = httpx.get(a.url + "/api/health").json()
    assert owner["tables"] == 1  # A runs it
    killed = time.monotonic()
    a.kill()
    took = play(1)
    failover = time.monotonic() - killed
    print(f"\nfailover: {failover:.2f} s from kill -9 to the next applied move "
          f"(that move took {took:.2f} s)")
    assert failover < 15
    assert httpx.get(b.url + "/api/health").json()["tables"] == 1  # B runs it now
    play(6)
    # Nothing acknowledged was lost or applied twice: the stored table has every version.
    final = httpx.get(b.url + f"/api/tables/{table_id}").json()["table"]["version"]
    assert acknowledged == sorted(set(acknowledged)) and acknowledged[-1] <= final
    for p in players:
        assert p.reconnects >= 1 or p is not players[players[0].state["game"]["to_decide"]]
        while p.versions[-1] < final:
            p.recv()
        assert p.versions == list(range(p.versions[0], final + 1)), p.versions  # none missed


def test_the_database_refuses_a_write_from_a_process_that_lost_the_table(pg_url: str) -> None:
    from flip7.server.base.formats import utcnow
    from flip7.server.base.settings import database_url
    from flip7.server.store.database import Fenced, Store
    from flip7.server.store.ownership import Ownership

    async def scenario() -> None:
        store = await Store.open(database_url(pg_url))
        try:
            now = utcnow()
            await store.write([("table_insert", {
                "id": "T1", "name": "t", "created_at": now, "max_seats": 2, "rules": "{}",
                "turn_timer": None, "bust_odds": True, "private": False, "state": "waiting",
                "version": 0, "updated_at": now})])  # fmt: skip

            def change(seq: int, fence: int | None) -> list[tuple[str, dict[str, Any]]]:
                return [
                    ("log_insert", {"table_id": "T1", "seq": seq, "kind": "bot",
                                    "data": "{}", "created_at": utcnow(), "fence": fence,
                                    "player_id": None}),
                    ("table_update", {"b_id": "T1", "b_version": seq, "b_state": "waiting",
                                      "b_to_decide": None, "b_deadline": None,
                                      "b_at": utcnow(),
                                      "b_fence": fence}),
                ]

            await store.write(change(1, None))  # nobody owns it: one process, no fence
            first = Ownership(store.engine, "node-a", seconds=0.5)
            second = Ownership(store.engine, "node-b", seconds=0.5)
            assert await first.heartbeat() == {} and await second.heartbeat() == {}
            token_a = await first.claim("T1")
            assert token_a == 1
            assert await second.claim("T1") is None  # A is alive
            assert await first.heartbeat() == {"T1": 1}
            await store.write(change(2, token_a))
            with pytest.raises(Fenced):
                await store.write(change(3, None))  # a write without the token
            await asyncio.sleep(0.7)  # A stalls: its row expires
            await second.heartbeat()
            assert await second.owner_of("T1") == ("node-a", False)
            assert await second.orphans(10) == ["T1"]
            token_b = await second.claim("T1")
            assert token_b == 2
            assert await first.heartbeat() == {}  # A wakes up and learns it lost the table
            with pytest.raises(Fenced):
                await store.write(change(3, token_a))  # A's late write: refused
            await store.write(change(3, token_b))
            assert await second.owner_of("T1") == ("node-b", True)
            assert await first.claim("T1") is None  # B is alive
            await second.release("T1", token_b)
            assert await second.owner_of("T1") == ("", False)
            assert await first.orphans(10) == ["T1"]
            assert await first.claim("T1") == 3
            await first.leave()
            assert await second.owner_of("T1") == ("", False)
        finally:
            await store.close()

    asyncio.run(scenario())


def test_two_processes_claiming_one_table_at_once_one_succeeds(pg_url: str) -> None:
    """Two processes (each its own connections) take over the same tables at the same
    moment, many times: of each pair of claims exactly one gets the table, with the next
    token, whether its owner died (a row to take) or nobody ever ran it (a row to add)."""
    import sqlalchemy as sa

    from flip7.server.base.formats import utcnow
    from flip7.server.base.settings import database_url
    from flip7.server.store.database import Store
    from flip7.server.store.ownership import Ownership

    rounds = 40

    async def scenario() -> None:
        stores = [await Store.open(database_url(pg_url)) for _ in range(2)]
        try:
            now = utcnow()
            ids = [f"R{i}" for i in range(rounds)]
            await stores[0].write([("table_insert", {
                "id": t, "name": t, "created_at": now, "max_seats": 2, "rules": "{}",
                "turn_timer": None, "bust_odds": True, "private": False, "state": "waiting",
                "version": 0, "updated_at": now}) for t in ids])  # fmt: skip
            async with stores[0].engine.begin() as conn:
                # A process that ran half of them died (its lease lapsed long ago).
                await conn.execute(sa.text(
                    "INSERT INTO cluster_node (node, expires_at) "
                    "VALUES ('dead', clock_timestamp() - interval '1 minute')"))
                for t in ids[: rounds // 2]:
                    await conn.execute(sa.text(
                        "INSERT INTO table_owner (table_id, owner, token) "
                        "VALUES (:t, 'dead', 2)"), {"t": t})
            racers = [Ownership(store.engine, f"node-{n}", seconds=30)
                      for n, store in zip("ab", stores, strict=True)]  # fmt: skip
            for racer in racers:
                await racer.heartbeat()
            for i, t in enumerate(ids):
                got = await asyncio.gather(*(racer.claim(t) for racer in racers))
                winners = [token for token in got if token is not None]
                assert len(winners) == 1, (t, got)
                assert winners[0] == (3 if i < rounds // 2 else 1), (t, got)
                winner = racers[got.index(winners[0])].node
                assert await racers[0].owner_of(t) == (winner, True)
        finally:
            for store in stores:
                await store.close()

    asyncio.run(scenario())


def test_a_redis_restart_costs_retries_never_a_move(
    pair: list[ServerProcess], redis_server: Any
) -> None:
    a, b = pair
    made = httpx.post(a.url + "/api/tables", json={"name": "Blip", "player": "Ann", "seats": 3})
    table_id = made.json()["table"]["id"]
    tokens = [made.json()["token"]] + [
        httpx.post(b.url + f"/api/tables/{table_id}/join", json={"player": name}).json()["token"]
        for name in ("Bob", "Cyd")
    ]
    # Ann on the owner, the others forwarded through Redis.
    players = [Player(a.url, table_id, tokens[0]),
               *(Player(b.url, table_id, t) for t in tokens[1:])]
    started = httpx.post(a.url + f"/api/tables/{table_id}/start", headers=auth(tokens[0]))
    assert started.status_code == 200, started.text
    rng = random.Random(9)
    answers: list[dict[str, Any]] = []

    def play(moves: int) -> None:
        for _ in range(moves):
            top = max(p.state.get("version", -1) for p in players)
            for p in players:
                while p.state.get("version", -1) < top:
                    p.recv()
            game = players[0].state["game"]
            if game["over"]:
                return
            answers.append(players[game["to_decide"]].move(f"r{len(answers)}", rng))

    for p in players:
        while p.state.get("version", -1) < started.json()["table"]["version"]:
            p.recv()
    play(4)
    redis_server.restart(down_for=1.0)
    play(8)
    assert all(answer["type"] == "result" for answer in answers), answers
    assert any(p.reconnects for p in players[1:])  # the forwarded sockets were closed
    final = httpx.get(a.url + f"/api/tables/{table_id}").json()["table"]["version"]
    versions = [answer["version"] for answer in answers]
    assert versions == sorted(set(versions)) and versions[-1] <= final
    for p in players:
        while p.versions[-1] < final:
            p.recv()
        assert p.versions == list(range(p.versions[0], final + 1))
