"""Budgets in the right units (issue 28, findings 2 and 3) against a real server, built as
``flip7 serve`` builds it (:func:`flip7.server.api.guard.server_config`): every per-address
budget is kept per address block (an IPv6 /64, an IPv4 address or the operator's wider
prefix); X-Forwarded-For is believed from a ``--trusted-proxy`` peer only, never from
loopback by default; and ``GET /api/health`` is answered by the guard, before any queued
work: during a flood, at a connection limit, and honestly (503 when its check hangs).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

import httpx
from server_helpers import frame_flood, uvicorn_thread
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from flip7.server.base.settings import Settings

# Tables per block in these tests: a burst of 3, and no refill to speak of.
TIGHT = {"tables_burst": 3, "tables_per_minute": 0.01}


@contextmanager
def _running(tmp_path: Path, **settings: Any) -> Iterator[tuple[str, Any]]:
    """The app under uvicorn on a free loopback port, as ``flip7 serve`` builds it: its base
    URL and its uvicorn configuration (``config.http.guard_connections``, ``guard_health``)."""
    from flip7.server.api.app import create_app
    from flip7.server.api.guard import server_config

    full = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 't.db'}", bot_delay=0.0,
                    **settings)  # fmt: skip
    config = server_config(create_app(full), full, port=0, log_level="warning")
    with uvicorn_thread(config) as port:
        yield f"http://127.0.0.1:{port}", config


def _client(source: str = "127.0.0.1") -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=10,
                        trust_env=False)  # fmt: skip


def _create(http: httpx.Client, url: str, claimed: str | None = None) -> int:
    """POST /api/tables, claiming to be ``claimed`` in X-Forwarded-For; the status."""
    headers = {} if claimed is None else {"X-Forwarded-For": claimed}
    r = http.post(url + "/api/tables", json={"player": "Ann"}, headers=headers)
    assert r.status_code in (201, 429), r.text
    if r.status_code == 429:
        assert r.json()["detail"]["code"] == "rate_limited" and "retry-after" in r.headers
    return r.status_code


# ---------------------------------------------------------------------- finding 3


def test_without_a_trusted_proxy_x_forwarded_for_from_loopback_is_not_believed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loopback client rotating X-Forwarded-For used to get a fresh budget per value
    (uvicorn's default trusts 127.0.0.1): now it meets its own after ``tables_burst``, even
    with uvicorn's own switch ($FORWARDED_ALLOW_IPS) opened wide."""
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")
    with _running(tmp_path, **TIGHT) as (url, _config), _client() as http:
        answers = [_create(http, url, f"198.51.100.{i}") for i in range(1, 8)]
    assert answers == [201] * 3 + [429] * 4


def test_behind_a_trusted_proxy_each_block_has_its_own_budget(tmp_path: Path) -> None:
    """With ``--trusted-proxy 127.0.0.1``: addresses in different /64s have budgets of
    their own, two in one /64 share one, requests from the proxy without the header (its
    machine reaching the port directly) share the proxy's own, and a peer that is not the
    proxy is not believed."""
    with _running(tmp_path, trusted_proxies=("127.0.0.1",), **TIGHT) as (url, _config), \
            _client() as proxy, _client("127.0.0.2") as other:  # fmt: skip
        assert [_create(proxy, url, "2001:db8:1:1::1") for _ in range(3)] == [201] * 3
        # Same /64, another interface id: the same budget, spent.
        assert _create(proxy, url, "2001:db8:1:1:ffff:ffff:ffff:fffe") == 429
        # The next /64 is another block; so is an IPv4 address.
        assert _create(proxy, url, "2001:db8:1:2::1") == 201
        assert _create(proxy, url, "203.0.113.7") == 201
        # Without the header: the proxy's own block, one budget for all of them.
        assert [_create(proxy, url) for _ in range(4)] == [201] * 3 + [429]
        # The last address counts (the one the proxy added), not what the client claimed.
        assert _create(proxy, url, "2001:db8:7::1, 2001:db8:1:1::5") == 429
        # Another peer's header is not believed: 127.0.0.2 has its own budget, once.
        assert [_create(other, url, f"2001:db8:9:{i}::1") for i in range(4)] == \
            [201] * 3 + [429]  # fmt: skip


def test_the_proxys_connections_count_for_the_block_their_request_names(
    tmp_path: Path,
) -> None:
    """A trusted proxy's connections are not held to ``open_connections_per_address`` as a
    whole (they carry every player), but each request counts for the block it names: two
    requests held open without X-Forwarded-For (the proxy's machine calling directly) fill
    the proxy's own share, so a third is refused, while a player through it is served."""
    limits = {"trusted_proxies": ("127.0.0.1",), "open_connections_per_address": 2}
    with _running(tmp_path, **limits) as (url, config), ExitStack() as stack:
        port = int(url.rsplit(":", 1)[1])
        for _ in range(2):  # busy: headers read, the body never comes
            sock = stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=5))
            sock.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n")
        connections = config.http.guard_connections
        _wait_for(lambda: connections.count("127.0.0.1") == 2)
        with _client() as proxy:
            refused = proxy.get(url + "/api/limits")
            served = proxy.get(url + "/api/limits", headers={"X-Forwarded-For": "203.0.113.5"})
        assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
        assert refused.json()["detail"]["code"] == "too_many_connections"
        assert served.status_code == 200


def test_the_scheme_is_the_trusted_proxys_only(tmp_path: Path) -> None:
    """X-Forwarded-Proto from the trusted proxy gives the scheme the browser used (a
    transfer link starts with https); from anyone else it is ignored."""
    with _running(tmp_path, trusted_proxies=("127.0.0.1",)) as (url, _config), \
            _client() as proxy, _client("127.0.0.2") as other:  # fmt: skip

        def link(http: httpx.Client) -> str:
            key = http.post(url + "/api/players", json={"name": "Ann"}).json()["key"]
            r = http.post(url + "/api/players/me/transfer", headers={
                "X-Player-Key": key, "X-Forwarded-Proto": "https",
                "X-Forwarded-For": "198.51.100.3"})  # fmt: skip
            assert r.status_code == 201, r.text
            return str(r.json()["url"])

        assert link(proxy).startswith("https://") and link(other).startswith("http://")


def test_a_wider_ipv4_prefix_groups_the_block(tmp_path: Path) -> None:
    """``ipv4_block_prefix=24``: 10.1.2.3 and 10.1.2.200 are one block, 10.1.3.1 another."""
    with _running(tmp_path, trusted_proxies=("127.0.0.1",), ipv4_block_prefix=24,
                  **TIGHT) as (url, _config), _client() as proxy:  # fmt: skip
        assert [_create(proxy, url, "10.1.2.3") for _ in range(3)] == [201] * 3
        assert _create(proxy, url, "10.1.2.200") == 429
        assert _create(proxy, url, "::ffff:10.1.2.9") == 429  # IPv4-mapped: the same block
        assert _create(proxy, url, "10.1.3.1") == 201


def test_handshakes_through_the_proxy_are_counted_per_block(tmp_path: Path) -> None:
    """The guard's handshake gate (before the WebSocket exists) counts the /64 the proxy
    names, like the app's budgets."""
    with _running(tmp_path, trusted_proxies=("127.0.0.1",), handshakes_burst=2,
                  handshakes_per_minute=0.01) as (url, _config), _client() as proxy:  # fmt: skip
        made = proxy.post(url + "/api/tables", json={"player": "Ann"})
        ws_url = url.replace("http", "ws") + f"/ws/tables/{made.json()['table']['id']}"

        def handshake(claimed: str) -> int:
            try:
                with connect(ws_url, open_timeout=5,
                             additional_headers={"X-Forwarded-For": claimed}):  # fmt: skip
                    return 101
            except InvalidStatus as refused:
                body = json.loads(refused.response.body)
                assert body["detail"]["code"] == "too_many_handshakes"
                return refused.response.status_code

        assert [handshake("2001:db8:4:4::1"), handshake("2001:db8:4:4::2")] == [101, 101]
        assert handshake("2001:db8:4:4::3") == 429
        assert handshake("2001:db8:4:5::1") == 101


def test_connections_are_counted_per_block(tmp_path: Path) -> None:
    """``open_connections_per_address`` counts the block: with ``ipv4_block_prefix=24``,
    127.0.0.3 and 127.0.0.4 share it, and a third connection from the block sheds the
    block's oldest silent one."""
    with _running(tmp_path, open_connections_per_address=2, ipv4_block_prefix=24) as \
            (url, config), ExitStack() as stack:  # fmt: skip
        connections = config.http.guard_connections
        port = int(url.rsplit(":", 1)[1])
        silent = [stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=5,
                                                               source_address=(s, 0)))
                  for s in ("127.0.0.3", "127.0.0.4")]  # fmt: skip
        _wait_for(lambda: connections.count("127.0.0.0/24") == 2)
        stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=5,
                                                     source_address=("127.0.0.5", 0)))
        silent[0].settimeout(5)
        assert silent[0].recv(100) == b""  # shed to make room
        assert connections.count("127.0.0.0/24") == 2 and connections.count("127.0.0.3") == 0


# ---------------------------------------------------------------------- health (finding 2)


def _wait_for(condition: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _health(url: str, source: str = "127.0.0.1") -> httpx.Response:
    with _client(source) as http:
        return http.get(url + "/api/health")


def test_health_answers_while_a_frame_flooder_is_refused(tmp_path: Path) -> None:
    """One address floods frames until it is closed (1008) and keeps reconnecting, refused
    while it cools off; meanwhile every health check is answered 200, by the guard."""
    limits = {"rate_per_second": 1.0, "rate_burst": 5, "rate_strikes": 5}
    with _running(tmp_path, **limits) as (url, config):
        watch = config.http.guard_health
        assert _health(url).status_code == 200  # the first is the app's own, and primes
        table_id = httpx.post(url + "/api/tables", json={"player": "Ann"}).json()["table"]["id"]
        ws_url = url.replace("http", "ws") + f"/ws/tables/{table_id}"
        with frame_flood(ws_url, "127.0.0.20") as (refusals, flooder):
            _wait_for(lambda: len(refusals) >= 1, 15)
            served = watch.served
            answers = []
            while len(refusals) < 3:
                answers.append(_health(url, "127.0.0.21"))
            assert flooder.is_alive() and set(refusals) == {429}
        assert answers and all(r.status_code == 200 for r in answers)
        assert all(r.json()["status"] == "ok" for r in answers)
        assert watch.served >= served + len(answers)  # the guard's, not a queued app's


def test_health_is_answered_at_the_addresss_connection_limit(tmp_path: Path) -> None:
    """Without ``--trusted-proxy`` every connection through a proxy is one address: when it
    holds its ``open_connections_per_address`` in requests, other calls are refused 429,
    but the health check is still answered (else the proxy takes the process out and
    closes its players' sockets for being busy)."""
    with _running(tmp_path, open_connections_per_address=2) as (url, _config), \
            ExitStack() as stack:  # fmt: skip
        port = int(url.rsplit(":", 1)[1])
        assert _health(url, "127.0.0.30").status_code == 200  # the first primes the guard's
        for _ in range(2):  # busy: headers read, the body never comes
            sock = stack.enter_context(socket.create_connection(
                ("127.0.0.1", port), timeout=5, source_address=("127.0.0.30", 0)))  # fmt: skip
            sock.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n")
        with _client("127.0.0.30") as http:
            _wait_for(lambda: http.get(url + "/api/limits").status_code == 429)
            health = http.get(url + "/api/health")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        assert health.headers["x-frame-options"] == "DENY"


def test_health_fails_while_its_check_hangs_or_the_loop_is_stuck(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Honest: a database check that does not finish makes the guard answer 503 (saying
    so), and a process whose event loop is stuck answers nothing at all."""
    from flip7.server.api.guard import HEALTH_STALE_SECONDS
    from flip7.server.store.database import Store

    hang = threading.Event()
    loops: list[asyncio.AbstractEventLoop] = []
    real_check = Store.check

    async def check(self: Store) -> str | None:
        loops.append(asyncio.get_running_loop())
        while hang.is_set():
            await asyncio.sleep(0.05)
        return await real_check(self)

    monkeypatch.setattr(Store, "check", check)
    with _running(tmp_path) as (url, _config):
        assert _health(url).status_code == 200
        hang.set()
        _health(url)  # starts the check that hangs
        time.sleep(HEALTH_STALE_SECONDS + 0.5)
        stale = _health(url)
        assert stale.status_code == 503 and stale.json()["status"] == "error"
        assert "has not finished" in stale.json()["problem"]
        hang.clear()
        _wait_for(lambda: _health(url).status_code == 200)
        # A stuck loop (a blocking call in it) reads no request: no answer until it is free.
        blocked = threading.Event()

        def block() -> None:
            blocked.set()
            time.sleep(4.0)

        loops[-1].call_soon_threadsafe(block)
        assert blocked.wait(10)
        with pytest.raises(httpx.TimeoutException), _client() as http:
            http.get(url + "/api/health", timeout=1.5)
