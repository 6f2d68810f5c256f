"""Two ``flip7 serve`` processes on one PostgreSQL database and one Redis server
(flip7.server.cluster.node): a table created through one is joined and played through both, and
every client, wherever it is connected, sees every update in the same order."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("redis")

from cluster_helpers import LOOSE, ClusterClient
from server_helpers import ServerProcess, auth, choose, free_port

from flip7.server.cluster.spread import place

# All clients of these tests are on 127.0.0.1.


@pytest.fixture
def two(pg_url: str, redis_url: str) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    servers = [ServerProcess(pg_url, seed=7, extra_args=["--redis", redis_url, *LOOSE])
               for _ in range(2)]
    try:
        for server in servers:
            server.start()
        yield servers[0], servers[1]
    finally:
        for server in servers:
            server.stop()




def test_a_table_created_on_one_process_is_played_through_both(
    two: tuple[ServerProcess, ServerProcess],
) -> None:
    a, b = two
    health_a, health_b = (httpx.get(s.url + "/api/health").json() for s in (a, b))
    assert health_a["node"] != health_b["node"] and health_a["redis"] == "ok"

    made = httpx.post(a.url + "/api/tables", json={"name": "Both", "player": "Ann", "seats": 3})
    assert made.status_code == 201, made.text
    table_id, ann_token = made.json()["table"]["id"], made.json()["token"]
    # Joined, given a bot and started through the process that does not run it.
    joined = httpx.post(b.url + f"/api/tables/{table_id}/join", json={"player": "Bob"})
    assert joined.status_code == 200, joined.text
    bob_token = joined.json()["token"]
    assert joined.json()["seat"] == 1
    bot = httpx.post(b.url + f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                     headers=auth(bob_token))
    assert bot.status_code == 200, bot.text
    # The lobby's list is every process's.
    deadline = time.monotonic() + 5
    while True:
        listed = [t["id"] for t in httpx.get(b.url + "/api/tables").json()["tables"]]
        if table_id in listed or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert table_id in listed

    ann = ClusterClient(a.url, table_id, ann_token)
    bob = ClusterClient(b.url, table_id, bob_token)
    watchers = [ClusterClient(b.url, table_id, None), ClusterClient(a.url, table_id, None)]
    everyone = [ann, bob, *watchers]
    started = httpx.post(b.url + f"/api/tables/{table_id}/start", headers=auth(bob_token))
    assert started.status_code == 200, started.text
    version = started.json()["table"]["version"]
    for client in everyone:
        client.until_version(version)

    # Chat crosses processes both ways.
    ann.send({"v": 1, "type": "chat", "text": "hello from A"})
    bob.send({"v": 1, "type": "chat", "text": "hello from B"})
    deadline = time.monotonic() + 10
    while any(len(c.chat) < 2 for c in everyone):
        assert time.monotonic() < deadline
        for client in everyone:
            if len(client.chat) < 2:
                client.recv()
    assert all(sorted(c.chat) == ["hello from A", "hello from B"] for c in everyone)
    assert len({tuple(c.chat) for c in everyone}) == 1  # in one order everywhere

    rng = random.Random(3)
    moves = 0
    while not ann.state["game"]["over"]:
        game = ann.state["game"]
        mover = {0: ann, 1: bob}.get(game["to_decide"])
        version = ann.state["version"]
        if mover is not None and mover.state["version"] == version:
            moves += 1
            mover.send({"v": 1, "type": "move", "id": f"m{moves}", "version": version,
                        "decision": choose(mover.state["game"], rng)})
        for client in everyone:
            client.until_version(version + 1, timeout=20)
        assert moves < 2000
    final = ann.state["version"]
    for client in everyone:
        client.until_version(final)
    assert moves > 0 and not [r for r in ann.results + bob.results if r["type"] == "error"]
    # Every client saw every update, with the same events, in the same order.
    first = everyone[0].updates
    versions = [v for v, _ in first if v <= final]
    assert versions == list(range(versions[0], final + 1))
    for client in everyone[1:]:
        assert [u for u in client.updates if u[0] <= final] == [
            u for u in first if u[0] <= final
        ]
    # And what is stored is the same table, read through either process.
    seen = {httpx.get(s.url + f"/api/tables/{table_id}").json()["table"]["version"]
            for s in (a, b)}
    assert seen == {final}
    for client in everyone:
        client.ws.close()


def test_redis_url_needs_postgresql(tmp_path: Any, redis_url: str) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "flip7", "serve", "--db", str(tmp_path / "x.db"),
         "--redis", redis_url, "--port", str(free_port())],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "many processes need a PostgreSQL database" in done.stderr


def _serve_refused(db: str, *more: str) -> str:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "flip7", "serve", "--db", db, "--port", str(free_port()), *more],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    return done.stderr


def test_one_server_and_a_cluster_never_share_a_database(pg_url: str, redis_url: str) -> None:
    """A single server holds the whole database; a cluster's processes share it table by
    table. Each refuses to start beside the other (exit status 2, one line saying why)."""
    member = ServerProcess(pg_url, extra_args=["--redis", redis_url]).start()
    try:
        made = httpx.post(member.url + "/api/tables",
                          json={"name": "Mine", "player": "Ann", "seats": 3})
        assert made.status_code == 201
        assert "processes started with --redis are running on this database (1 alive)" in (
            _serve_refused(pg_url))
    finally:
        member.stop()  # a clean exit gives its tables up at once
    single = ServerProcess(pg_url).start()
    try:
        assert "a single flip7 server" in _serve_refused(pg_url, "--redis", redis_url)
    finally:
        single.stop()


def test_a_suspended_table_is_taken_by_the_process_its_player_comes_back_to(
    pg_url: str, redis_url: str,
) -> None:
    """Issue 29 with many processes: a game whose player is away leaves its process's
    memory (stored as suspended, its ownership given up), no orphan sweep takes it back,
    and the player's return through the other process rebuilds it as it was, at its place
    (flip7.server.cluster.spread: the process asked sends it there)."""
    # A waiting table's 1 s had run out before its bots were added on a loaded CI machine
    # (410 closed): only the suspension after the start needs the short idle time.
    args = ["--redis", redis_url, *LOOSE, "--limit", "idle_table_ttl=1",
            "--limit", "waiting_table_ttl=10"]  # fmt: skip
    servers = [ServerProcess(pg_url, seed=7, extra_args=args) for _ in range(2)]
    try:
        for server in servers:
            server.start()
        a, b = servers
        made = httpx.post(a.url + "/api/tables", json={"player": "Ann", "seats": 3})
        assert made.status_code == 201, made.text
        table_id, token = made.json()["table"]["id"], made.json()["token"]
        ann = ClusterClient(a.url, table_id, token)
        for _ in range(2):
            bot = httpx.post(a.url + f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                             headers=auth(token))
            assert bot.status_code == 200, bot.text
        started = httpx.post(a.url + f"/api/tables/{table_id}/start", headers=auth(token))
        assert started.status_code == 200, started.text
        ann.until_version(started.json()["table"]["version"])
        deadline = time.monotonic() + 15
        while ann.state["game"]["to_decide"] != 0:  # the bots play until Ann's decision
            assert time.monotonic() < deadline, ann.state["game"]
            ann.recv()
        version, game = ann.state["version"], ann.state["game"]
        ann.ws.close()

        def tables(server: ServerProcess) -> int:
            return int(httpx.get(server.url + "/api/health").json()["tables"])

        deadline = time.monotonic() + 15
        while tables(a):
            assert time.monotonic() < deadline, "the table was never suspended"
            time.sleep(0.1)
        time.sleep(4)  # longer than an orphan sweep's wait: neither process takes it
        assert tables(a) == 0 and tables(b) == 0

        back = ClusterClient(b.url, table_id, token)
        back.until_version(version)
        assert back.state["version"] == version and back.state["game"] == game
        nodes = {httpx.get(s.url + "/api/health").json()["node"]: s for s in servers}
        there = nodes[place(table_id, list(nodes))]
        assert tables(there) == 1 and sum(map(tables, servers)) == 1
        back.send({"v": 1, "type": "move", "id": "back-1", "version": version,
                   "decision": choose(back.state["game"], random.Random(2))})
        back.until_version(version + 1)
        assert not [r for r in back.results if r["type"] == "error"], back.results
        back.ws.close()
        _a_turn_based_game_moves_on_at_its_stored_deadline(pg_url, a)
    finally:
        for server in servers:
            server.stop()


def _a_turn_based_game_moves_on_at_its_stored_deadline(pg_url: str, a: ServerProcess) -> None:
    """A turn-based table suspended the same way keeps its decision's deadline in the
    database; when it passes, a process's sweep takes the table over (nobody asks for it)
    and the stand-in bot decides."""
    from sqlalchemy import create_engine, text

    made = httpx.post(a.url + "/api/tables", json={
        "player": "Ann", "seats": 3, "pace": "turn_based", "move_hours": 1})  # fmt: skip
    assert made.status_code == 201, made.text
    table_id, token = made.json()["table"]["id"], made.json()["token"]
    ann = ClusterClient(a.url, table_id, token)
    for _ in range(2):
        httpx.post(a.url + f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                   headers=auth(token))  # fmt: skip
    started = httpx.post(a.url + f"/api/tables/{table_id}/start", headers=auth(token))
    assert started.status_code == 200, started.text
    ann.until_version(started.json()["table"]["version"])
    deadline = time.monotonic() + 15
    while ann.state["game"]["to_decide"] != 0:  # turn-based bots move at once
        assert time.monotonic() < deadline, ann.state["game"]
        ann.recv()
    clock = ann.state["turn_deadline"]
    ann.ws.close()
    engine = create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://"))
    query = text("SELECT state, version, deadline FROM tables WHERE id = :id")
    try:
        deadline = time.monotonic() + 15
        while (row := _row(engine, query, table_id))[0] != "suspended":
            assert time.monotonic() < deadline, "the turn-based table was never suspended"
            time.sleep(0.1)
        assert row[2].timestamp() == pytest.approx(clock, abs=0.01)  # the clock, as it ran
        version = row[1]
        with engine.begin() as conn:  # an hour later, as far as the table knows
            conn.execute(text("UPDATE tables SET deadline = now() - interval '1 second' "
                              "WHERE id = :id"), {"id": table_id})  # fmt: skip
        deadline = time.monotonic() + 20
        while _row(engine, query, table_id)[1] <= version:
            assert time.monotonic() < deadline, "the due table was never moved on"
            time.sleep(0.2)
    finally:
        engine.dispose()


def _row(engine: Any, query: Any, table_id: str) -> Any:
    with engine.connect() as conn:
        return conn.execute(query, {"id": table_id}).one()


def test_behind_the_proxy_a_tables_sockets_reach_the_process_that_runs_it(
    pg_url: str, redis_url: str,
) -> None:
    """Routing by table (deploy/haproxy.cfg, --slot): tables created through the proxy are
    made by whichever process leastconn picks, each in that process's own slot, so that
    every socket and request for the table through the proxy lands on the process that
    runs it and none is linked over Redis; a move through the proxy is answered."""
    from cluster_helpers import Cluster

    from flip7.server.base.settings import table_slot

    with Cluster(2, pg_url, redis_url, extra_args=LOOSE, seed=11) as cluster:
        made = []
        for n in range(8):
            answer = httpx.post(cluster.proxy_url + "/api/tables", timeout=10,
                                json={"name": f"T{n}", "player": "Ann", "seats": 3})
            assert answer.status_code == 201, answer.text
            made.append((answer.json()["table"]["id"], answer.json()["token"]))
        own = [httpx.get(url + "/api/health", timeout=5).json() for url in cluster.urls]
        assert [h["slot"] for h in own] == ["1/2", "2/2"]
        counts = [sum(table_slot(t, 2) == i for t, _ in made) for i in range(2)]
        assert [h["tables"] for h in own] == counts and min(counts) > 0, (own, counts)
        clients = []
        for table_id, token in made:
            for _ in range(2):
                bot = httpx.post(cluster.proxy_url + f"/api/tables/{table_id}/bots",
                                 timeout=10, json={"bot": "basic"}, headers=auth(token))
                assert bot.status_code == 200, bot.text
            clients += [ClusterClient(cluster.proxy_url, table_id, token),
                        ClusterClient(cluster.proxy_url, table_id, None)]
        table_id, token = made[0]
        started = httpx.post(cluster.proxy_url + f"/api/tables/{table_id}/start", timeout=10,
                             headers=auth(token))
        assert started.status_code == 200, started.text
        ann = clients[0]
        ann.until_version(started.json()["table"]["version"])
        while ann.state["game"]["to_decide"] != 0:
            ann.recv()
        version = ann.state["version"]
        ann.send({"v": 1, "type": "move", "id": "m1", "version": version,
                  "decision": choose(ann.state["game"], random.Random(1))})
        ann.until_version(version + 1)
        assert not [r for r in ann.results if r["type"] == "error"], ann.results
        linked = [httpx.get(url + "/api/health", timeout=5).json()["linked"]
                  for url in cluster.urls]
        assert linked == [0, 0], linked
        for client in clients:
            client.ws.close()
