"""The HAProxy recipe (deploy/haproxy.cfg), run as written (tests/cluster_helpers.py changes
only its addresses), in front of two ordinary ``flip7 serve`` processes, each on an SQLite
file of its own: the recipe does not care what is behind it. HAProxy accepts it; WebSockets
pass the upgrade; new connections spread over both processes and go to the less loaded one;
a killed, hung or unhealthy process is out within a couple of seconds (its WebSockets
closed, so players reconnect elsewhere), and back in once it answers again."""

from __future__ import annotations

import difflib
import http.server
import json
import pwd
import random
import socket
import string
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

import httpx
from cluster_helpers import (
    RECIPE,
    Cluster,
    Proxy,
    haproxy_path,
    identity,
    poll,
    render,
)
from server_helpers import SyncSocket, WsPlayer, auth, choose, frame_flood, seated_game
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from flip7.server.base.settings import table_slot

# How soon a dead, hung or unhealthy process must be out of the proxy: the recipe's
# "inter 1s fall 2" (two failed checks a second apart) makes it about 2 s, 3-4 s when hung.
OUT_WITHIN = 5.0


@pytest.fixture(autouse=True)
def _haproxy() -> None:
    haproxy_path()  # skipped without haproxy (failed in CI)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two single-process servers (SQLite files of their own) behind the recipe's proxy;
    their /api/health answers tell them apart (``node``, else their table counts).

    Started once for the file's tests that use it (starting it was most of their time):
    each leaves both processes up and without a connection through the proxy (a killed
    one restarted, a paused one resumed), but for the last, whose database it deletes."""
    folder = tmp_path_factory.mktemp("pair")
    cluster = Cluster(2, [f"sqlite:///{folder / f'app{i}.db'}" for i in (1, 2)])
    with cluster:
        cluster.mark_by_tables()
        yield cluster


def _answered_by(cluster: Cluster, count: int, skip: int | None = None) -> list[int | None]:
    """``count`` /api/health calls through the proxy, each on a new connection: the index of
    the process that answered each (None: an answer that is not 200). Process ``skip`` is
    not asked who it is (it is paused or unhealthy); an answer from it would be a KeyError."""
    nodes = {identity(cluster.health(server.url).json()): i
             for i, server in enumerate(cluster.servers)
             if i != skip and server.proc is not None and server.proc.poll() is None}
    out: list[int | None] = []
    for _ in range(count):
        r = cluster.health()
        out.append(nodes[identity(r.json())] if r.status_code == 200 else None)
    return out


def _hold(cluster: Cluster, i: int, stack: ExitStack, attempts: int = 4) -> tuple[Any, int]:
    """A WebSocket through the proxy that landed on process ``i`` and stays open (a spectator
    of a table only ``i`` knows; the other answers ``no_table`` and closes); the number of
    connections it took (the proxy, not the test, picks the process)."""
    table = cluster.marker_tables[i][0]
    for attempt in range(1, attempts + 1):
        ws = stack.enter_context(connect(cluster.proxy_ws_url + f"/ws/tables/{table}",
                                         open_timeout=5))  # fmt: skip
        ws.send(json.dumps({"v": 1, "type": "hello", "token": None}))
        frame = json.loads(ws.recv(timeout=5))
        if frame["type"] == "welcome":
            return ws, attempt
        assert frame.get("code") == "no_table", frame
        ws.close()
    raise AssertionError(f"no WebSocket reached {cluster.name(i)} in {attempts} tries")


def _connections(cluster: Cluster) -> list[int]:
    """Open connections the proxy holds to each process (app1, app2...)."""
    by_name = cluster.proxy.backend_servers()
    return [int(by_name[cluster.name(i)]["scur"]) for i in range(len(cluster.servers))]


# ---------------------------------------------------------------------- the recipe


def test_haproxy_accepts_the_recipe(tmp_path: Path) -> None:
    """As installed (/etc/haproxy/haproxy.cfg of Debian's package) and as the tests run it;
    without a warning either: a warning is a line HAProxy thinks wrong."""
    try:
        pwd.getpwnam("haproxy")  # the recipe drops to it; Debian's package creates it
        debian = True
    except KeyError:
        debian = False
        print("no haproxy user (not Debian's package): the recipe as installed is not checked")
    if debian:
        as_installed = subprocess.run([haproxy_path(), "-c", "-f", str(RECIPE)],
                                      capture_output=True, text=True, timeout=30)  # fmt: skip
        out = as_installed.stdout + as_installed.stderr
        assert as_installed.returncode == 0 and "WARNING" not in out, out
    proxy = Proxy(["127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003"], workdir=tmp_path)
    checked = proxy.check()
    out = checked.stdout + checked.stderr
    assert checked.returncode == 0 and "WARNING" not in out, out


def test_a_port_taken_before_haproxy_binds_it_is_replaced(tmp_path: Path) -> None:
    """Tests start services in parallel: another process may take a port between
    free_port() and HAProxy's bind (a stats port "Address already in use" failed a
    cluster-bench test). The proxy then starts on new ports."""
    proxy = Proxy(["127.0.0.1:8001"], workdir=tmp_path)
    taken = proxy.stats_port
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", taken))
        holder.listen()
        with proxy:
            assert proxy.stats_port != taken
            assert "already in use" in proxy.log()
            assert proxy.backend_servers().keys() == {"app1"}


def test_the_test_config_is_the_recipe(tmp_path: Path) -> None:
    """Only the lines tying it to a machine differ: what the tests run is what is documented."""
    recipe = RECIPE.read_text()
    config = render(recipe, port=1234, stats_port=1235, servers=["127.0.0.1:9001"],
                    socket_path=tmp_path / "admin.sock")  # fmt: skip
    removed = [line[1:].split() for line in difflib.ndiff(recipe.splitlines(),
               config.splitlines()) if line.startswith("- ")]  # fmt: skip
    for words in removed:
        assert words[0] in ("bind", "server", "use-server", "log", "chroot", "user", "group",
                            "daemon") or words[:2] in (["stats", "socket"],
                            ["http-request", "set-var(txn.slot)"]), words  # fmt: skip
    assert "    server app1 127.0.0.1:9001 check" in config.splitlines()
    assert "    use-server app1 if { var(txn.slot) -m int 0 }" in config.splitlines()
    assert "path,field(4,/),crc32,mod(1)" in config
    # The documented behaviour is in the recipe (and so in every test below).
    text = " ".join(line.split("#", 1)[0].strip() for line in recipe.splitlines())
    for directive in ("mode http", "balance leastconn", "timeout tunnel 1h",
                      "option httpchk", "http-check expect status 200", "inter 1s",
                      "fall 2", "rise 2", "on-marked-down shutdown-sessions",
                      "option redispatch", "retries 3", "option forwardfor"):  # fmt: skip
        assert directive in text, directive


class _Echo(http.server.BaseHTTPRequestHandler):
    """A stand-in backend: 200 and the request's headers as JSON on every GET, each request
    recorded (HTTP version, path, headers)."""

    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str, dict[str, str]]]

    def do_GET(self) -> None:
        # HAProxy sends header names in lower case (HTTP/1 headers are case-insensitive).
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.seen.append((self.request_version, self.path, headers))
        body = json.dumps(headers).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # HAProxy ends its health checks with a reset: not worth a traceback


def test_forwarded_headers_health_checks_and_the_proxys_own_health(tmp_path: Path) -> None:
    """The processes learn the player's address and scheme; the checks are HTTP/1.1 GETs of
    /api/health; HAProxy's /health is 200 while a process is up, 503 when none is."""
    seen: list[tuple[str, str, dict[str, str]]] = []
    handler = type("Echo", (_Echo,), {"seen": seen})
    backend = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=backend.serve_forever, daemon=True)
    thread.start()
    proxy = Proxy([f"127.0.0.1:{backend.server_address[1]}"], workdir=tmp_path)
    try:
        proxy.start()
        proxy.wait_status("app1", "UP")
        headers = httpx.get(proxy.url + "/anything", timeout=5).json()
        assert headers["x-forwarded-for"] == "127.0.0.1"
        assert headers["x-forwarded-proto"] == "http"
        poll(lambda: any(path == "/api/health" for _, path, _ in seen), 5)
        version, _, check = next(c for c in seen if c[1] == "/api/health")
        assert version == "HTTP/1.1" and check["host"] == "flip7-health-check"
        assert httpx.get(proxy.stats_url + "/health", timeout=5).status_code == 200
        assert httpx.get(proxy.stats_url + "/stats;csv", timeout=5).status_code == 200
        assert "haproxy_process" in httpx.get(proxy.stats_url + "/metrics", timeout=5).text
        backend.shutdown()
        backend.server_close()
        took = proxy.wait_status("app1", "DOWN", timeout=OUT_WITHIN)
        print(f"stand-in backend stopped: DOWN after {took:.2f} s")
        assert httpx.get(proxy.stats_url + "/health", timeout=5).status_code == 503
        # No process: the player gets HAProxy's 503 at once, not a hang.
        assert httpx.get(proxy.url + "/api/health", timeout=5).status_code == 503
    finally:
        proxy.stop()
        backend.shutdown()
        backend.server_close()


def test_a_tables_requests_go_to_the_process_of_its_slot(tmp_path: Path) -> None:
    """The recipe's routing by table: /api/tables/ID... and /ws/tables/ID go to the
    process of the id's slot, HAProxy's crc32,mod(N) computing what the processes compute
    (flip7.server.base.settings.table_slot, with which each makes its tables); other paths
    go by leastconn; a DOWN process's tables go to the others."""
    backends: list[_QuietServer] = []
    seen: list[list[tuple[str, str, dict[str, str]]]] = []
    for _ in range(3):
        log: list[tuple[str, str, dict[str, str]]] = []
        backend = _QuietServer(("127.0.0.1", 0), type("Echo", (_Echo,), {"seen": log}))
        threading.Thread(target=backend.serve_forever, daemon=True).start()
        backends.append(backend)
        seen.append(log)
    proxy = Proxy([f"127.0.0.1:{b.server_address[1]}" for b in backends], workdir=tmp_path)

    def landed(path: str) -> int:
        for i, log in enumerate(seen):
            if any(p == path for _, p, _ in log):
                return i
        raise AssertionError(f"{path} reached no backend")

    rng = random.Random(3)
    ids = ["".join(rng.choice(string.ascii_letters + string.digits + "-_") for _ in range(8))
           for _ in range(60)]  # fmt: skip
    try:
        proxy.start()
        for i in range(3):
            proxy.wait_status(f"app{i + 1}", "UP")
        with httpx.Client(base_url=proxy.url, timeout=5) as client:
            for table_id in ids:
                for path in (f"/api/tables/{table_id}", f"/api/tables/{table_id}/join",
                             f"/ws/tables/{table_id}?x=1"):  # fmt: skip
                    assert client.get(path).status_code == 200
                    assert landed(path) == table_slot(table_id, 3), (path, path)
            assert {table_slot(t, 3) for t in ids} == {0, 1, 2}
            for n in range(30):
                assert client.get(f"/api/tables?page={n}").status_code == 200
            assert len({landed(f"/api/tables?page={n}") for n in range(30)}) == 3
            backends[1].shutdown()
            backends[1].server_close()
            proxy.wait_status("app2", "DOWN", timeout=OUT_WITHIN)
            moved = [t for t in ids if table_slot(t, 3) == 1][:5]
            for table_id in moved:
                path = f"/api/tables/{table_id}/games"
                assert client.get(path).status_code == 200
                assert landed(path) in (0, 2)
    finally:
        proxy.stop()
        for backend in backends:
            backend.shutdown()
            backend.server_close()


# ---------------------------------------------------------------------- through the proxy


def test_a_game_over_a_websocket_through_the_proxy(tmp_path: Path) -> None:
    """REST through the proxy, then the WebSocket upgrade: hello, welcome, moves answered,
    updates pushed. One process behind the proxy: two independent single servers do not
    know each other's tables."""
    with Cluster(1, f"sqlite:///{tmp_path / 'one.db'}") as cluster:
        rng = random.Random(7)
        with httpx.Client(base_url=cluster.proxy_url, timeout=10) as client:
            table = seated_game(client, humans=1, bots=2)
            r = client.post(f"/api/tables/{table['id']}/start", headers=auth(table["tokens"][0]))
            assert r.status_code == 200, r.text
        ws = SyncSocket(cluster.proxy_ws_url + f"/ws/tables/{table['id']}")
        try:
            player = WsPlayer(ws, None, table["tokens"][0])
            welcome = player.hello()
            assert welcome["seat"] == 0
            moves = 0
            while moves < 5 and not player.settle()["game"]["over"]:
                before = player.state["version"]
                answer = player.move(choose(player.state["game"], rng))
                assert answer["type"] == "result", answer
                assert player.state["version"] > before
                moves += 1
            assert moves > 0
        finally:
            ws.close()


def test_new_connections_reach_both_processes(pair: Cluster) -> None:
    answers = _answered_by(pair, 40)
    counts = Counter(answers)
    print(f"40 requests through the proxy: {dict(counts)}")
    assert None not in counts, answers
    # leastconn takes turns when both hold no connection: about half each.
    assert counts[0] >= 10 and counts[1] >= 10, counts


def test_newcomers_go_to_the_process_with_fewer_connections(pair: Cluster) -> None:
    """balance leastconn: while one process holds a player's WebSocket, every new connection
    goes to the other; at equal counts they take turns again."""
    poll(lambda: _connections(pair) == [0, 0], 5)  # the last test's requests have ended
    with ExitStack() as stack:
        _hold(pair, 0, stack)
        assert _connections(pair) == [1, 0]
        answers = _answered_by(pair, 10)
        assert answers == [1] * 10, answers
        # 1 against 0: the next WebSocket goes to app2, at the first try.
        _, attempts = _hold(pair, 1, stack)
        assert attempts == 1
        assert _connections(pair) == [1, 1]
        assert set(_answered_by(pair, 10)) == {0, 1}
    poll(lambda: _connections(pair) == [0, 0], 5)
    assert set(_answered_by(pair, 10)) == {0, 1}


# ---------------------------------------------------------------------- failures


def test_a_killed_process_is_out_within_seconds_and_back_after_a_restart(
    pair: Cluster,
) -> None:
    assert set(_answered_by(pair, 6)) == {0, 1}
    survivor = pair.nodes()
    killed_node = next(node for node, i in survivor.items() if i == 1)
    start = time.monotonic()
    pair.kill(1)
    # Requests the whole time, each on a new connection: (seconds since the kill, status,
    # who answered).
    answers: list[tuple[float, int, str | None]] = []
    down_at: float | None = None
    while time.monotonic() - start < OUT_WITHIN:
        r = pair.health()
        answers.append((time.monotonic() - start, r.status_code,
                        identity(r.json()) if r.status_code == 200 else None))  # fmt: skip
        if down_at is None and pair.proxy.status("app2") == "DOWN":
            down_at = time.monotonic() - start
        if down_at is not None and time.monotonic() - start > down_at + 0.5:
            break
    failed = [a for a in answers if a[1] != 200 or a[2] == killed_node]
    print(f"kill -9 of app2: marked DOWN after {down_at} s; {len(answers)} requests, "
          f"not answered 200 by the survivor: {failed}")
    assert down_at is not None, f"app2 not DOWN within {OUT_WITHIN} s"
    # Not one request lost, even before the health check noticed: a refused connect is
    # retried on the other process (retries + option redispatch).
    assert not failed
    assert {a[2] for a in answers} == {next(n for n, i in survivor.items() if i == 0)}
    # Restarted on the same port: back within rise 2 (two checks a second apart) and
    # given connections again.
    start = time.monotonic()
    pair.restart(1, wait_up=False)
    answering = time.monotonic() - start
    up = pair.proxy.wait_status("app2", "UP", timeout=OUT_WITHIN)
    print(f"app2 restarted: answering after {answering:.2f} s, UP in the proxy {up:.2f} s "
          "later")
    assert set(_answered_by(pair, 10)) == {0, 1}


def test_a_hung_process_is_out_and_its_websockets_are_closed(pair: Cluster) -> None:
    """SIGSTOP: the process still holds its port (connects succeed) but answers nothing. The
    health checks time out, it is marked DOWN, and its WebSockets are closed by the proxy
    (on-marked-down shutdown-sessions) so that their players reconnect to the other."""
    # (The cluster's stop sends SIGCONT to a paused process before stopping it.)
    with ExitStack() as stack:
        ws, _ = _hold(pair, 0, stack)
        hung = 0
        start = time.monotonic()
        pair.pause(hung)
        took = pair.proxy.wait_status(pair.name(hung), "DOWN", timeout=OUT_WITHIN)
        print(f"SIGSTOP of {pair.name(hung)}: DOWN after {took:.2f} s")
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=2)
        closed = time.monotonic() - start
        print(f"its WebSocket closed by the proxy {closed:.2f} s after the SIGSTOP")
        assert closed < OUT_WITHIN + 1
        assert _answered_by(pair, 10, skip=hung) == [1 - hung] * 10
        pair.resume(hung)
        took = pair.proxy.wait_status(pair.name(hung), "UP", timeout=OUT_WITHIN)
        print(f"SIGCONT: UP after {took:.2f} s")
    assert set(_answered_by(pair, 10)) == {0, 1}


def test_a_process_whose_health_fails_is_out(pair: Cluster) -> None:
    """Not only a dead port: a process that answers /api/health with 503 (its database file
    was deleted) gets no new players. (The last test of the pair: app2 stays out.)"""
    Path(pair.servers[1].db.removeprefix("sqlite:///")).unlink()
    assert pair.health(pair.urls[1]).status_code == 503
    took = pair.proxy.wait_status("app2", "DOWN", timeout=OUT_WITHIN)
    print(f"/api/health 503 on app2: DOWN after {took:.2f} s")
    assert _answered_by(pair, 10, skip=1) == [0] * 10


# ---------------------------------------------------------------------- --trusted-proxy


def test_behind_a_trusted_proxy_the_limits_count_players_not_the_proxy(tmp_path: Path) -> None:
    """Every connection comes from the proxy. With ``--trusted-proxy 127.0.0.1`` the proxy is
    held only to the ceiling, not to ``open_connections_per_address``, and a WebSocket
    handshake is counted for the address X-Forwarded-For names: here three sockets through
    the proxy with a per-address limit of 2, and a player whose own handshakes run out is
    refused while another player still gets in."""
    tight = ["--limit", "open_connections_per_address=2", "--limit", "handshakes_burst=2",
             "--limit", "handshakes_per_minute=1"]  # fmt: skip
    cluster = Cluster(1, [f"sqlite:///{tmp_path / 'app.db'}"],
                      extra_args=[*tight, "--trusted-proxy", "127.0.0.1"])
    with cluster, ExitStack() as stack:
        made = httpx.post(cluster.proxy_url + "/api/tables",
                          json={"name": "Proxied", "player": "Ann", "seats": 3})
        assert made.status_code == 201, made.text
        path = f"/ws/tables/{made.json()['table']['id']}"

        def socket(source: str, claimed: str = "198.51.100.7") -> Any:
            # A header the client sends itself changes nothing: HAProxy adds its own after
            # it, with the address it saw, and that last one is what counts.
            ws = stack.enter_context(connect(
                cluster.proxy_ws_url + path, open_timeout=5, source_address=(source, 0),
                additional_headers={"X-Forwarded-For": claimed}))  # fmt: skip
            ws.send(json.dumps({"v": 1, "type": "hello", "token": None}))
            assert json.loads(ws.recv(timeout=5))["type"] == "welcome"
            return ws

        held = [socket(f"127.0.0.{i}") for i in (2, 3, 4, 4)]
        # Four sockets, over open_connections_per_address=2: the proxy is exempt.
        assert len(held) == 4 and cluster.health().status_code == 200
        # 127.0.0.4 has used its two handshakes: refused, whatever it claims; 127.0.0.5 not.
        with pytest.raises(InvalidStatus) as refused:
            socket("127.0.0.4", claimed="127.0.0.9")
        assert refused.value.response.status_code == 429
        socket("127.0.0.5")
    # Without the option, the same limits make the third socket's handshake fail.
    plain = Cluster(1, [f"sqlite:///{tmp_path / 'plain.db'}"], extra_args=tight)
    with plain, ExitStack() as stack:
        made = httpx.post(plain.proxy_url + "/api/tables",
                          json={"name": "Plain", "player": "Ann", "seats": 3})
        path = f"/ws/tables/{made.json()['table']['id']}"
        opened = 0
        with pytest.raises(InvalidStatus):  # every player counts as the proxy
            for i in (2, 3, 4):
                stack.enter_context(connect(plain.proxy_ws_url + path, open_timeout=5,
                                            source_address=(f"127.0.0.{i}", 0)))
                opened += 1
        assert opened == 2


def test_the_proxys_own_requests_share_the_proxys_budget(tmp_path: Path) -> None:
    """With ``--trusted-proxy 127.0.0.1``, a request from the proxy's address without
    X-Forwarded-For (someone on the proxy's machine calling the process's port directly)
    is not unlimited: it spends the proxy's own address's budget, which a player whose
    address is the proxy's (HAProxy adds 127.0.0.1) shares; another player has their own."""
    cluster = Cluster(1, [f"sqlite:///{tmp_path / 'app.db'}"],
                      extra_args=["--limit", "tables_burst=2", "--limit", "tables_per_minute=0.01",
                                  "--trusted-proxy", "127.0.0.1"])  # fmt: skip
    with cluster:
        direct = cluster.servers[0].url

        def create(url: str, source: str) -> int:
            transport = httpx.HTTPTransport(local_address=source)
            with httpx.Client(transport=transport, timeout=10, trust_env=False) as http:
                return http.post(url + "/api/tables", json={"player": "Ann"}).status_code

        assert [create(direct, "127.0.0.1") for _ in range(3)] == [201, 201, 429]
        assert create(cluster.proxy_url, "127.0.0.1") == 429  # X-Forwarded-For: 127.0.0.1
        assert create(cluster.proxy_url, "127.0.0.2") == 201


def test_health_checks_pass_during_a_frame_flood_through_the_proxy(tmp_path: Path) -> None:
    """A frame flood through the proxy from one address, which the process closes (1008)
    and then refuses while it cools off: the proxy's health checks keep passing (the
    process stays UP), and /api/health through the proxy answers 200 all along."""
    limits = ["--limit", "rate_per_second=1", "--limit", "rate_burst=5",
              "--limit", "rate_strikes=5", "--trusted-proxy", "127.0.0.1"]  # fmt: skip
    cluster = Cluster(1, [f"sqlite:///{tmp_path / 'app.db'}"], extra_args=limits)
    with cluster:
        made = httpx.post(cluster.proxy_url + "/api/tables", json={"player": "Ann"})
        url = cluster.proxy_ws_url + f"/ws/tables/{made.json()['table']['id']}"
        answers: list[int] = []
        states: set[str] = set()
        with frame_flood(url, "127.0.0.40") as (refusals, _flooder):
            poll(lambda: len(refusals) >= 1, 15)
            while len(refusals) < 6:  # a few seconds: several of the proxy's checks
                answers.append(cluster.health().status_code)
                states.add(cluster.proxy.status("app1"))
        assert set(refusals) == {429} and answers and set(answers) == {200}
        assert states == {"UP"}
