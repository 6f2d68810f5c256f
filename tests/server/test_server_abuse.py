"""A stranger's worst: floods of frames, too many sockets, odd input, silent and slow
connections, and the security headers and CSP every page is served with.

Floods are small (tens of frames) and go to loopback only; real servers listen on
127.0.0.1 on a free port, started with :func:`flip7.server.api.guard.server_config`, the
construction ``flip7 serve`` uses.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import WsPlayer, app_client, auth, choose, uvicorn_thread
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from flip7.server.base.settings import Settings


def _table(client: Any, seats: int = 3) -> tuple[str, list[str]]:
    """A waiting table with ``seats`` humans seated; their tokens."""
    r = client.post("/api/tables", json={"player": "Ann", "seats": seats})
    assert r.status_code == 201, r.text
    table_id, tokens = r.json()["table"]["id"], [r.json()["token"]]
    for i in range(1, seats):
        joined = client.post(f"/api/tables/{table_id}/join", json={"player": f"P{i}"})
        assert joined.status_code == 200, joined.text
        tokens.append(joined.json()["token"])
    return table_id, tokens


def _drain(ws: Any, limit: int) -> tuple[list[dict[str, Any]], int | None]:
    """Up to ``limit`` frames, and the close code if the server closed before that."""
    frames: list[dict[str, Any]] = []
    try:
        for _ in range(limit):
            frames.append(json.loads(ws.receive_text()))
    except WebSocketDisconnect as closed:
        return frames, closed.code
    return frames, None


def _flood(client: Any, frames: list[bytes | str]) -> tuple[list[dict[str, Any]], int | None]:
    """Send all of ``frames`` on one socket to a new table without reading, then
    :func:`_drain` up to 30 frames."""
    table_id, _ = _table(client)
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        for frame in frames:
            if isinstance(frame, bytes):
                ws.send_bytes(frame)
            else:
                ws.send_text(frame)
        return _drain(ws, 30)


# ---------------------------------------------------------------------- floods (finding 4)


def test_a_binary_flood_is_rate_limited_and_the_flooder_disconnected(tmp_path: Path) -> None:
    limits = {"rate_per_second": 1.0, "rate_burst": 5, "rate_strikes": 5}
    with app_client(tmp_path / "db.sqlite", **limits) as client:
        frames, code = _flood(client, [b"\x00" * 10] * 60)
        codes = [f["code"] for f in frames]
        # 5 answered (bad_message), then at most 3 rate_limited notices, then 1008.
        assert code == 1008, codes
        assert codes.count("bad_message") == 5 and 1 <= codes.count("rate_limited") <= 3
        assert client.get("/api/health").json()["status"] == "ok"


def test_oversized_and_malformed_frames_take_tokens_too(tmp_path: Path) -> None:
    limits = {"rate_per_second": 1.0, "rate_burst": 4, "rate_strikes": 3}
    with app_client(tmp_path / "db.sqlite", **limits) as client:
        frames, code = _flood(client, ["x" * 5000 if i % 2 else "{nope" for i in range(40)])
        assert code == 1008 and len(frames) <= 4 + 3, frames


def test_reconnecting_does_not_reset_the_budgets(tmp_path: Path) -> None:
    limits = {"frames_per_second_per_address": 0.1, "frames_burst_per_address": 6,
              "rate_strikes": 2}
    ping = '{"v":1,"type":"ping"}'
    with app_client(tmp_path / "db.sqlite", **limits) as client:
        table_id, _ = _table(client)
        # Two sockets of one address share its frame budget.
        with client.websocket_connect(f"/ws/tables/{table_id}") as a, \
                client.websocket_connect(f"/ws/tables/{table_id}") as b:
            for ws in (a, b, a):
                for _ in range(2):
                    ws.send_text(ping)
                    assert json.loads(ws.receive_text())["type"] == "pong"
            b.send_text(ping)
            refused = json.loads(b.receive_text())
            assert refused["type"] == "error" and refused["code"] == "rate_limited"
        # A new connection from the same address starts with what the address has left:
        # no frames, one strike; the next refusal closes it.
        with client.websocket_connect(f"/ws/tables/{table_id}") as c:
            c.send_text(ping)
            assert json.loads(c.receive_text())["code"] == "rate_limited"
            c.send_text(ping)
            frames, code = _drain(c, 5)
            assert code == 1008 and frames == []
        # Closed for flooding: the address's next handshakes are refused while it cools off.
        with pytest.raises(WebSocketDenialResponse) as refused_again:
            client.websocket_connect(f"/ws/tables/{table_id}").__enter__()
        assert refused_again.value.status_code == 429
        assert json.loads(refused_again.value.content)["detail"]["code"] == "cooling_off"


def test_more_sockets_than_allowed_from_one_address_are_refused(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", connections_per_address=3) as client:
        table_id, _ = _table(client)
        with ExitStack() as stack:
            held = [stack.enter_context(client.websocket_connect(f"/ws/tables/{table_id}"))
                    for _ in range(3)]
            for ws in held:
                WsPlayer(ws, None, None).hello()
            with client.websocket_connect(f"/ws/tables/{table_id}") as extra:
                frames, code = _drain(extra, 5)
            assert code == 1008
            assert [f["code"] for f in frames] == ["too_many_connections"]
            held[0].close()
        # Closed sockets free their slots.
        with client.websocket_connect(f"/ws/tables/{table_id}") as again:
            assert WsPlayer(again, None, None).hello()["type"] == "welcome"


# ---------------------------------------------------------------------- odd input (finding 8)


def test_moves_with_a_coerced_version_are_refused_and_not_applied(tmp_path: Path) -> None:
    import random

    with app_client(tmp_path / "db.sqlite", seed=2) as client, ExitStack() as stack:
        table_id, tokens = _table(client)
        players = []
        for token in tokens:
            ws = stack.enter_context(client.websocket_connect(f"/ws/tables/{table_id}"))
            player = WsPlayer(ws, None, token)
            player.seat = player.hello()["seat"]
            players.append(player)
        assert client.post(f"/api/tables/{table_id}/start",
                           headers=auth(tokens[0])).status_code == 200
        for p in players:
            p.settle()
        seat = players[0].state["game"]["to_decide"]
        mover = next(p for p in players if p.seat == seat)
        version = mover.state["version"]
        decision = choose(mover.state["game"], random.Random(0))
        for bad in (str(version), True, float(version), None, 2**64, -1):
            mover.send({"v": 1, "type": "move", "id": f"bad-{bad!r}", "version": bad,
                        "decision": decision})
            answer = mover.recv_until(lambda f: f["type"] in ("result", "error"))
            assert answer["type"] == "error" and answer["code"] == "bad_message", (bad, answer)
        for frame in ({"v": True, "type": "ping"}, {"v": 1.0, "type": "ping"},
                      {"v": 1, "type": "move", "id": "\ud800", "version": version,
                       "decision": decision},
                      {"v": 1, "type": "hello", "token": "\udfff"}):
            mover.ws.send_text(json.dumps(frame))
            assert mover.recv()["code"] == "bad_message", frame
        mover.ws.send_text('{"v":1,"type":"move","id":"n","version":NaN,"decision":"hit"}')
        assert mover.recv()["code"] == "bad_message"
        assert client.get(f"/api/tables/{table_id}").json()["table"]["version"] == version
        assert mover.move(decision, version=version)["type"] == "result"


def _detail(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.text)
    detail: dict[str, Any] = response.json()["detail"]
    assert isinstance(detail["message"], str) and detail["message"]
    if code is not None:
        assert detail["code"] == code, detail
    return detail


def test_odd_rest_input_gets_a_clear_4xx(tmp_path: Path) -> None:
    json_type = {"content-type": "application/json"}
    with app_client(tmp_path / "db.sqlite") as client:
        table_id, _ = _table(client)

        def post(path: str, body: bytes) -> Any:
            return client.post(path, content=body, headers=json_type)

        # Lone surrogates, as JSON escapes and as (invalid) UTF-8 bytes.
        _detail(post("/api/tables", b'{"player": "\\ud800"}'), 422, "bad_request")
        _detail(post("/api/tables", b'{"player": "A", "name": "\\udfff"}'), 422, "bad_request")
        _detail(post("/api/tables", b'{"player": "A", "rules": {"\\ud800": 1}}'), 422,
                "bad_request")
        _detail(post("/api/tables", b'{"player": "A", "rules": {"brutal": "\\ud800"}}'), 400)
        _detail(post(f"/api/tables/{table_id}/join", b'{"player": "\\ud800x"}'), 422)
        _detail(post("/api/tables", b'{"player": "\xed\xa0\x80"}'), 422)
        _detail(post("/api/tables", b'{"player": "\xff\xfe"}'), 400, "bad_request")
        _detail(post("/api/tables", b"\xff\xfe\x00{"), 422)  # read as UTF-16: not JSON
        # No coercion: a string or a boolean is not a number.
        _detail(client.post("/api/tables", json={"player": "A", "seats": "4"}), 422)
        _detail(client.post("/api/tables", json={"player": "A", "seats": True}), 422)
        _detail(client.post("/api/tables", json={"player": "A", "seats": 4.0}), 422)
        _detail(client.post("/api/tables", json={"player": 7}), 422)
        _detail(client.post("/api/tables", json={"player": "A", "turn_timer": "30"}), 422)
        # NaN, huge numbers, non-objects.
        _detail(post("/api/tables", b'{"player": "A", "turn_timer": NaN}'), 422)
        _detail(post("/api/tables", b'{"player": "A", "seats": 1e999}'), 422)
        _detail(post("/api/tables", b'{"player": "A", "seats": ' + b"9" * 4000 + b"}"), 422)
        _detail(post("/api/tables", b'{"player": "A", "seats": ' + b"9" * 5000 + b"}"), 400)
        _detail(post("/api/tables", b'{"player": "A", "rules": {"target_score": NaN}}'), 400)
        for body in (b"[]", b'"x"', b"null", b"7", b""):
            _detail(post("/api/tables", body), 422, "bad_request")
        # Odd table ids in paths, and unknown paths, in the same error shape.
        for odd in ("%00", "%ff", "%ed%a0%80", "..%2f..", "a" * 300, "%F0%9F%83%8F"):
            assert _detail(client.get(f"/api/tables/{odd}"), 404)["code"] in (
                "no_table", "not_found")
        _detail(client.get("/api/nothing-here"), 404, "not_found")
        _detail(client.put("/api/tables"), 405, "method_not_allowed")
        assert client.get("/api/health").json()["status"] == "ok"


def test_a_chunked_body_over_the_limit_is_413(tmp_path: Path) -> None:
    def chunks(total: int) -> Iterator[bytes]:
        yield b'{"player": "A", "name": "'
        for _ in range(total // 1000):
            yield b"x" * 1000
        yield b'"}'

    with app_client(tmp_path / "db.sqlite") as client:
        big = client.post("/api/tables", content=chunks(40_000),
                          headers={"content-type": "application/json"})
        assert "content-length" not in big.request.headers  # really chunked
        _detail(big, 413, "too_large")
        # Under the limit, a chunked body is read as usual.
        small = client.post("/api/tables", content=iter([b'{"player": ', b'"Chunk"}']),
                            headers={"content-type": "application/json"})
        assert small.status_code == 201, small.text


# ---------------------------------------------------------------------- a real server


@contextmanager
def _server(**limits: Any) -> Iterator[tuple[str, int]]:
    """The app under uvicorn (as ``flip7 serve`` builds it) on a free loopback port."""
    with _running(**limits) as (host, port, _config):
        yield host, port


@contextmanager
def _running(**limits: Any) -> Iterator[tuple[str, int, Any]]:
    """:func:`_server`, with its uvicorn configuration (``config.http.guard_connections``)."""
    import tempfile

    from flip7.server.api.app import create_app
    from flip7.server.api.guard import server_config

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite+aiosqlite:///{folder}/t.db", bot_delay=0.0,
                            **limits)
        config = server_config(create_app(settings), settings, port=0, log_level="warning")
        with uvicorn_thread(config) as port:
            yield "127.0.0.1", port, config


def _closed_within(sock: socket.socket, seconds: float) -> tuple[bytes, float]:
    """What the server sent before closing, and when it closed (fails if it does not)."""
    start = time.monotonic()
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except TimeoutError:
        pytest.fail(f"the server held the connection over {seconds} s: {received!r}")
    except ConnectionResetError:
        pass
    return received, time.monotonic() - start


def test_silent_and_slow_header_connections_are_closed() -> None:
    with _server(header_timeout=1.0) as (host, port):
        # A socket that never says anything.
        with socket.create_connection((host, port)) as silent:
            received, took = _closed_within(silent, 5)
        assert received == b"" and took < 3
        # Slowloris: a header line every 0.3 s, never the blank line that ends them.
        with socket.create_connection((host, port)) as slow:
            start = time.monotonic()
            slow.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")
            try:
                for i in range(20):
                    time.sleep(0.3)
                    slow.sendall(f"X-Slow-{i}: y\r\n".encode())
            except (BrokenPipeError, ConnectionResetError):
                pass
            received, _ = _closed_within(slow, 5)
            assert time.monotonic() - start < 4
        assert received.startswith(b"HTTP/1.1 408"), received
        # After a complete request on a kept-alive connection, the next one's headers are
        # held to the same deadline.
        with socket.create_connection((host, port)) as kept:
            kept.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
            kept.settimeout(5)
            assert kept.recv(4096).startswith(b"HTTP/1.1 200")
            kept.sendall(b"GET /api/health HTTP/1.1\r\n")
            received, took = _closed_within(kept, 5)
            assert took < 3
        # A prompt client is served as usual.
        import httpx

        r = httpx.get(f"http://{host}:{port}/api/health", timeout=5)
        assert r.status_code == 200 and r.headers["x-frame-options"] == "DENY"


def test_a_websocket_without_hello_is_closed_after_hello_timeout() -> None:
    import httpx
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with _server(hello_timeout=0.5) as (host, port):
        made = httpx.post(f"http://{host}:{port}/api/tables", json={"player": "Ann"}, timeout=5)
        table_id = made.json()["table"]["id"]
        url = f"ws://{host}:{port}/ws/tables/{table_id}"
        start = time.monotonic()
        with connect(url, open_timeout=5) as ws:
            frame = json.loads(ws.recv(timeout=5))
            assert frame["type"] == "error" and frame["code"] == "hello_timeout"
            with pytest.raises(ConnectionClosed):
                ws.recv(timeout=5)
            assert ws.close_code == 4408
        assert time.monotonic() - start < 3
        # A ping is not a hello; a hello in time keeps the socket open past the deadline.
        with connect(url, open_timeout=5) as ws:
            ws.send('{"v":1,"type":"ping"}')
            assert json.loads(ws.recv(timeout=5))["type"] == "pong"
            ws.send('{"v":1,"type":"hello"}')
            assert json.loads(ws.recv(timeout=5))["type"] == "welcome"
            time.sleep(0.8)
            ws.send('{"v":1,"type":"ping"}')
            assert json.loads(ws.recv(timeout=5))["type"] == "pong"


def test_a_websocket_whose_table_cannot_be_placed_is_answered_within_hello_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where a socket plays is asked of the database (and, with many processes, of Redis and
    the table's owner) before its hello is read: should that never answer, the socket is
    told "unavailable" within ``hello_timeout`` and closed with 1013 (try again later), not
    left open without a word (the chaos test's players once waited 30 s so)."""
    import asyncio

    import httpx
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from flip7.server.api import owner

    placed = owner.session

    async def never(*args: Any) -> Any:
        await asyncio.Event().wait()

    with _server(hello_timeout=0.5) as (host, port):
        made = httpx.post(f"http://{host}:{port}/api/tables", json={"player": "Ann"}, timeout=5)
        table_id, token = made.json()["table"]["id"], made.json()["token"]
        url = f"ws://{host}:{port}/ws/tables/{table_id}"
        monkeypatch.setattr(owner, "session", never)
        start = time.monotonic()
        with connect(url, open_timeout=5) as ws:
            ws.send(json.dumps({"v": 1, "type": "hello", "token": token}))
            frame = json.loads(ws.recv(timeout=5))
            assert frame["type"] == "error" and frame["code"] == "unavailable", frame
            with pytest.raises(ConnectionClosed):
                ws.recv(timeout=5)
            assert ws.close_code == 1013
        assert time.monotonic() - start < 3
        monkeypatch.setattr(owner, "session", placed)  # answering again: welcomed
        with connect(url, open_timeout=5) as ws:
            ws.send(json.dumps({"v": 1, "type": "hello", "token": token}))
            assert json.loads(ws.recv(timeout=5))["type"] == "welcome"


def test_a_chunked_body_over_the_limit_is_413_on_a_real_server() -> None:
    with _server() as (host, port), socket.create_connection((host, port)) as sock:
        sock.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                     b"\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in range(20):
            sock.sendall(b"3e8\r\n" + b" " * 1000 + b"\r\n")
        sock.sendall(b"0\r\n\r\n")
        sock.settimeout(5)
        answer = sock.recv(65536)
        assert answer.startswith(b"HTTP/1.1 413"), answer
        assert b'"too_large"' in answer


def test_flip7_serve_runs_the_guarded_server(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from flip7.cli import main

    seen: list[Any] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, *a, **k: seen.append(self.config))
    assert main(["serve", "--port", "8123", "--db", "sqlite:///:memory:",
                 "--limit", "header_timeout=2.5", "--limit", "max_connections=77"]) == 0
    (config,) = seen
    assert config.http.header_timeout == 2.5  # the protocol class with the header deadline
    # The ceiling is the guard's (counted per connection, idle ones shed), not uvicorn's.
    assert config.http.guard_connections.ceiling == 77 and config.limit_concurrency is None
    assert config.timeout_keep_alive == 5
    assert config.ws_max_size == 64 * 1024


# ---------------------------------------------------------------------- headers (finding 10)


def test_security_headers_on_every_answer(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from flip7.server.api.app import create_app
    from flip7.server.api.guard import CSP, DOCS_CSP
    from flip7.server.base.settings import database_url

    app = create_app(Settings(database_url=database_url(str(tmp_path / "db.sqlite"))))

    async def broken() -> None:
        raise RuntimeError("a bug")

    app.add_api_route("/api/test-broken", broken)
    with TestClient(app, raise_server_exceptions=False) as client:
        answers = {
            "/": client.get("/"),
            "/t/x": client.get("/t/x"),
            "/static": client.get("/static/style.css"),
            "/js": client.get("/static/js/main.js"),
            "/api/health": client.get("/api/health"),
            "404": client.get("/no/such/page"),
            "api 404": client.get("/api/tables/nope"),
            "422": client.post("/api/tables", json={}),
            "413": client.post("/api/tables", content=b"x" * 20000),
            "500": client.get("/api/test-broken"),
            "openapi": client.get("/openapi.json"),
        }
        for name, r in answers.items():
            assert r.headers["content-security-policy"] == CSP, name
            assert r.headers["x-frame-options"] == "DENY", name
            assert r.headers["referrer-policy"] == "no-referrer", name
            assert r.headers["x-content-type-options"] == "nosniff", name
        assert "frame-ancestors 'none'" in CSP
        assert answers["500"].status_code == 500
        assert answers["500"].json()["detail"]["code"] == "server_error"
        assert "a bug" not in answers["500"].text
        docs = client.get("/docs")
        assert docs.headers["content-security-policy"] == DOCS_CSP
        assert docs.headers["x-frame-options"] == "DENY"


def test_the_pages_break_no_content_security_policy(chromium_browser: Any) -> None:
    """The lobby, a table (with its WebSocket), a replay and the scorekeeper pages under the
    CSP: no violation reported, neither as an event nor on the console."""
    import httpx
    from playwright.sync_api import expect

    from flip7.engine.game import Game
    from flip7.engine.record import Record

    game = Game.new(["Ann", "Bob", "Cyd"], seed=12)
    while not game.over:
        game.apply(game.legal_decisions()[0])
    record = Record.from_game(game).to_json()
    with _server() as (host, port):
        base = f"http://{host}:{port}"
        table_id = httpx.post(base + "/api/tables", json={"player": "Ann"},
                              timeout=5).json()["table"]["id"]
        replay_id = httpx.post(base + "/api/replays", json=record, timeout=5).json()["id"]
        card = httpx.post(base + "/api/scorecards", timeout=5,
                          json={"name": "CSP", "players": ["Ann", "Bob", "Cyd"]}).json()
        context = chromium_browser.new_context()
        context.set_default_timeout(15_000)
        context.add_init_script(
            "window.__csp = []; document.addEventListener('securitypolicyviolation', "
            "e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
        )
        page = context.new_page()
        console: list[str] = []
        page.on("console", lambda msg: console.append(msg.text))
        page.on("pageerror", lambda exc: console.append(str(exc)))
        sockets: list[Any] = []
        page.on("websocket", lambda ws: sockets.append(ws))
        pages = {
            "/": "#rule-tie_break",
            f"/t/{table_id}": "[data-testid=take-seat]",
            f"/replay/{replay_id}": "[data-testid=step-info]",
            "/scorekeeper": "main",
            f"/scorekeeper/{card['id']}#key={card['key']}": "[data-testid=scorecard-name]",
        }
        for path, ready in pages.items():
            response = page.goto(base + path)
            assert response is not None and "content-security-policy" in response.headers
            expect(page.locator(ready).first).to_be_attached()
            if path.startswith("/t/"):
                expect(page.locator("[data-testid=conn]")).to_have_text(
                    __import__("re").compile("Live"))
            page.wait_for_timeout(200)
            violations = page.evaluate("window.__csp")
            assert violations == [], (path, violations)
        assert any(f"/ws/tables/{table_id}" in ws.url for ws in sockets)
        problems = [m for m in console if "Content Security Policy" in m or "Refused" in m]
        assert problems == [], problems
        context.close()


# ---------------------------------------------------------------------- connection floods


def _connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))


def _is_closed(sock: socket.socket, seconds: float = 3.0) -> bool:
    """Whether the server closed ``sock`` (silent: nothing sent) within ``seconds``."""
    sock.settimeout(seconds)
    try:
        return sock.recv(4096) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def _get(port: int, path: str = "/api/health", source: str = "127.0.0.1") -> Any:
    import httpx

    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport, timeout=5, trust_env=False) as http:
        return http.get(f"http://127.0.0.1:{port}{path}")


def _wait_for(condition: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_at_the_ceiling_the_oldest_idle_connection_makes_room() -> None:
    with _running(max_connections=16) as (_host, port, config):
        connections = config.http.guard_connections
        assert connections.ceiling == 16
        with ExitStack() as stack:
            silent = [stack.enter_context(_connect(port, f"127.0.0.{2 + i % 4}"))
                      for i in range(16)]
            _wait_for(lambda: connections.total == 16)
            # A real client still gets in: the oldest silent connection is shed for it.
            r = _get(port)
            assert r.status_code == 200 and r.json()["status"] == "ok"
            assert _is_closed(silent[0])
            assert connections.shed_count >= 1
            # Kept-alive connections between requests are shed too (after the silent ones).
            stack.enter_context(_connect(port, "127.0.0.9"))
            assert _get(port).status_code == 200
        _wait_for(lambda: connections.total == 0)


def test_past_the_ceiling_with_nothing_to_shed_the_answer_is_json_503() -> None:
    import httpx
    from websockets.sync.client import connect

    with _running(max_connections=16) as (host, port, config):
        connections = config.http.guard_connections
        table_id = httpx.post(f"http://{host}:{port}/api/tables", json={"player": "Ann"},
                              timeout=5).json()["table"]["id"]
        with ExitStack() as stack:
            for i in range(16):  # WebSockets that said hello are never shed
                ws = stack.enter_context(connect(f"ws://{host}:{port}/ws/tables/{table_id}",
                                                 source_address=(f"127.0.0.{2 + i % 4}", 0)))
                ws.send('{"v":1,"type":"hello"}')
                assert json.loads(ws.recv(timeout=5))["type"] == "welcome"
            _wait_for(lambda: connections.total == 16)
            r = _get(port, "/api/limits")
            assert r.status_code == 503 and r.headers["retry-after"] == "1"
            assert r.json()["detail"]["code"] == "busy" and r.json()["detail"]["message"]
            assert r.headers["x-frame-options"] == "DENY"
            # A health check is answered all the same (issue 28): a proxy must not take
            # a full process out and close its players' sockets.
            assert _get(port).status_code == 200
        # Once they are gone, everyone is served again.
        _wait_for(lambda: connections.total == 0)
        assert _get(port).status_code == 200


def test_one_address_holds_at_most_its_share_of_connections() -> None:
    with _running(open_connections_per_address=4) as (_host, port, config):
        connections = config.http.guard_connections
        with ExitStack() as stack:
            silent = [stack.enter_context(_connect(port, "127.0.0.3")) for _ in range(4)]
            _wait_for(lambda: connections.count("127.0.0.3") == 4)
            # The fifth sheds the address's own oldest idle connection, nobody else's.
            others = [stack.enter_context(_connect(port, "127.0.0.4")) for _ in range(3)]
            fifth = stack.enter_context(_connect(port, "127.0.0.3"))
            assert _is_closed(silent[0])
            assert connections.count("127.0.0.3") == 4 and connections.count("127.0.0.4") == 3
            # Held by requests in progress, nothing can be shed: the next one is refused.
            for sock in (*silent[1:], fifth):
                sock.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\n"
                             b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n")
            refused = _get(port, "/api/limits", source="127.0.0.3")
            assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
            assert refused.json()["detail"]["code"] == "too_many_connections"
            assert _get(port, source="127.0.0.5").status_code == 200
            assert not any(_is_closed(s, 0.1) for s in others)


def test_a_flooder_closed_with_1008_is_refused_while_it_cools_off() -> None:
    import httpx
    from websockets.exceptions import ConnectionClosed, InvalidStatus
    from websockets.sync.client import connect

    limits = {"rate_per_second": 1.0, "rate_burst": 5, "rate_strikes": 5, "flood_cooloff": 2.0}
    with _server(**limits) as (host, port):
        table_id = httpx.post(f"http://{host}:{port}/api/tables", json={"player": "Ann"},
                              timeout=5).json()["table"]["id"]
        url = f"ws://{host}:{port}/ws/tables/{table_id}"
        source = {"source_address": ("127.0.0.6", 0)}
        with connect(url, open_timeout=5, **source) as ws:
            start = time.monotonic()
            with pytest.raises(ConnectionClosed):
                for _ in range(200):
                    ws.send(b"\x00" * 100)
                while True:
                    ws.recv(timeout=5)
            assert ws.close_code == 1008 and time.monotonic() - start < 5
        began = time.monotonic()
        with pytest.raises(InvalidStatus) as refused:
            connect(url, open_timeout=5, **source)
        answer = refused.value.response
        assert answer.status_code == 429 and int(answer.headers["Retry-After"]) >= 1
        assert json.loads(answer.body)["detail"]["code"] == "cooling_off"
        assert time.monotonic() - began >= 0.4  # refusals are answered slowly: no spinning
        # Other addresses are not affected; after the cool-off the flooder may come back.
        with connect(url, open_timeout=5, source_address=("127.0.0.7", 0)) as other:
            other.send('{"v":1,"type":"hello"}')
            assert json.loads(other.recv(timeout=5))["type"] == "welcome"
        time.sleep(max(0.0, began + 2.2 - time.monotonic()))
        with connect(url, open_timeout=5, **source) as back:
            back.send('{"v":1,"type":"ping"}')
            assert json.loads(back.recv(timeout=5))["type"] == "pong"


def test_websocket_handshakes_per_address_are_budgeted(tmp_path: Path) -> None:
    limits = {"handshakes_burst": 3, "handshakes_per_minute": 1.0}
    with app_client(tmp_path / "db.sqlite", **limits) as client:
        table_id, _ = _table(client)
        for _ in range(3):
            with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
                assert WsPlayer(ws, None, None).hello()["type"] == "welcome"
        with pytest.raises(WebSocketDenialResponse) as refused:
            client.websocket_connect(f"/ws/tables/{table_id}").__enter__()
        assert refused.value.status_code == 429
        assert int(refused.value.headers["retry-after"]) >= 1
        assert json.loads(refused.value.content)["detail"]["code"] == "too_many_handshakes"
        assert client.get("/api/health").status_code == 200  # HTTP is not a handshake


def test_the_handshake_budget_is_kept_before_the_websocket_exists() -> None:
    import httpx
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    with _running(handshakes_burst=2, handshakes_per_minute=1.0) as (host, port, config):
        table_id = httpx.post(f"http://{host}:{port}/api/tables", json={"player": "Ann"},
                              timeout=5).json()["table"]["id"]
        url = f"ws://{host}:{port}/ws/tables/{table_id}"
        for _ in range(2):
            with connect(url, open_timeout=5, source_address=("127.0.0.8", 0)):
                pass
        with pytest.raises(InvalidStatus) as refused:
            connect(url, open_timeout=5, source_address=("127.0.0.8", 0))
        assert refused.value.response.status_code == 429
        assert json.loads(refused.value.response.body)["detail"]["code"] == "too_many_handshakes"
        _wait_for(lambda: config.http.guard_connections.total == 0)


def test_refused_handshakes_past_those_held_are_answered_not_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A refused handshake is answered after a delay (REFUSAL_DELAY), and at most
    MAX_REFUSED are held meanwhile: past that the oldest is answered at once, never closed
    without an answer (behind a proxy a silent close is the proxy's 502: a spectators'
    flood through HAProxy got 2,016 of them)."""
    import httpx

    import flip7.server.api.guard as guard

    monkeypatch.setattr(guard, "MAX_REFUSED", 3)
    with _running(handshakes_burst=1, handshakes_per_minute=1.0) as (host, port, config):
        table_id = httpx.post(f"http://{host}:{port}/api/tables", json={"player": "Ann"},
                              timeout=5).json()["table"]["id"]
        request = (f"GET /ws/tables/{table_id} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n").encode()  # fmt: skip
        with ExitStack() as stack:
            sockets = []
            for _ in range(10):
                sock = stack.enter_context(socket.create_connection(
                    (host, port), timeout=5, source_address=("127.0.0.31", 0)))
                sock.sendall(request)
                sockets.append(sock)
                time.sleep(0.01)
            status = [sock.recv(4096).split(b"\r\n", 1)[0] for sock in sockets]
        assert status[0] == b"HTTP/1.1 101 Switching Protocols", status
        assert status[1:] == [b"HTTP/1.1 429 Too Many Requests"] * 9, status
        _wait_for(lambda: config.http.guard_connections.total == 0)


def test_handshakes_past_the_servers_rate_wait_their_turn_blocks_in_rotation() -> None:
    """A storm of handshakes from many addresses, each within its own budget, is taken in
    turn (handshakes_per_minute_all): a handshake past the rate waits, not refused; the
    blocks waiting are served one each in rotation, so a newcomer from another block goes
    before the storm's own later handshakes; one that waited too long gets 503 busy."""
    import threading

    import httpx
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    with _running(handshakes_burst_all=2, handshakes_per_minute_all=60.0) as (
            host, port, config):
        table_id = httpx.post(f"http://{host}:{port}/api/tables", json={"player": "Ann"},
                              timeout=5).json()["table"]["id"]
        url = f"ws://{host}:{port}/ws/tables/{table_id}"
        start = time.monotonic()
        done: dict[str, float] = {}

        def spectate(name: str, address: str) -> None:
            with connect(url, open_timeout=10, source_address=(address, 0)) as ws:
                ws.send('{"v":1,"type":"hello"}')
                assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
                done[name] = time.monotonic() - start

        spectate("a1", "127.0.0.21")
        spectate("a2", "127.0.0.21")
        assert done["a2"] < 0.9  # the burst: at once
        waiting = []
        for name, address in (("a3", "127.0.0.21"), ("a4", "127.0.0.21"),
                              ("b1", "127.0.0.22")):  # fmt: skip
            waiting.append(threading.Thread(target=spectate, args=(name, address)))
            waiting[-1].start()
            time.sleep(0.1)
        for thread in waiting:
            thread.join(timeout=15)
        assert set(done) == {"a1", "a2", "a3", "a4", "b1"}, done
        assert 0.7 < done["a3"] < done["b1"] < done["a4"], done  # b1 asked after a4
        config.http.guard_gate.turns.wait = 0.3
        began = time.monotonic()
        with pytest.raises(InvalidStatus) as refused:
            connect(url, open_timeout=10, source_address=("127.0.0.23", 0))
        answer = refused.value.response
        assert answer.status_code == 503 and time.monotonic() - began >= 0.3
        assert json.loads(answer.body)["detail"]["code"] == "busy"
        _wait_for(lambda: config.http.guard_connections.total == 0)


def test_websockets_without_hello_are_shed_before_those_that_said_it() -> None:
    import httpx
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with _server(open_connections_per_address=3) as (host, port):
        table_id = httpx.post(f"http://{host}:{port}/api/tables", json={"player": "Ann"},
                              timeout=5).json()["table"]["id"]
        url = f"ws://{host}:{port}/ws/tables/{table_id}"
        source = {"source_address": ("127.0.0.10", 0), "open_timeout": 5}
        with connect(url, **source) as live, connect(url, **source) as quiet:
            live.send('{"v":1,"type":"hello"}')
            assert json.loads(live.recv(timeout=5))["type"] == "welcome"
            with connect(url, **source) as third:
                third.send('{"v":1,"type":"hello"}')
                assert json.loads(third.recv(timeout=5))["type"] == "welcome"
                with connect(url, **source):  # the fourth: the quiet one makes room
                    with pytest.raises(ConnectionClosed):
                        quiet.recv(timeout=5)
                    assert quiet.close_code == 1013
                    live.send('{"v":1,"type":"ping"}')
                    assert json.loads(live.recv(timeout=5))["type"] == "pong"


def test_the_open_file_limit_is_raised_and_the_ceiling_fits_under_it() -> None:
    import resource

    from flip7.server.api.guard import FD_RESERVE, connection_ceiling, raise_open_files

    soft = raise_open_files()
    assert soft == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert hard == resource.RLIM_INFINITY or soft == hard
    assert connection_ceiling(10**9, soft) == soft - FD_RESERVE


def test_connections_are_shed_oldest_first_waiting_then_idle_then_quiet_sockets() -> None:
    from flip7.server.api.guard import BUSY, FRESH_WS, IDLE, LIVE_WS, Connections

    shed: list[str] = []

    class Conn:
        def __init__(self, name: str) -> None:
            self.name = name

        def shed(self) -> None:
            shed.append(self.name)

    connections = Connections(ceiling=5, per_address=100)
    entries = {n: connections.open(f"10.0.0.{i}", Conn(n))[0]
               for i, n in enumerate(["ws", "idle", "wait1", "wait2", "live"])}
    connections.move(entries["ws"], FRESH_WS)
    connections.move(entries["idle"], IDLE)
    connections.move(entries["live"], LIVE_WS)
    for i in range(4):
        entry, refusal = connections.open("10.0.0.99", Conn(f"new{i}"))
        assert refusal is None
        connections.move(entry, BUSY)
    assert shed == ["wait1", "wait2", "idle", "ws"]
    entry, refusal = connections.open("10.0.0.99", Conn("last"))
    assert refusal is not None and refusal.status == 503 and refusal.code == "busy"
    connections.close(entries["live"])
    assert connections.total == 4 and connections.open("10.0.0.1", Conn("x"))[1] is None


def test_a_socket_closed_for_flooding_is_dropped_without_waiting_for_its_answer() -> None:
    import base64
    import os

    import httpx
    from websockets.frames import Frame, Opcode

    limits = {"rate_per_second": 1.0, "rate_burst": 5, "rate_strikes": 5}
    with _server(**limits) as (host, port):
        table_id = httpx.post(f"http://{host}:{port}/api/tables", json={"player": "Ann"},
                              timeout=5).json()["table"]["id"]
        with _connect(port, "127.0.0.11") as sock:
            key = base64.b64encode(os.urandom(16)).decode()
            sock.sendall(f"GET /ws/tables/{table_id} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket"
                         f"\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                         "Sec-WebSocket-Version: 13\r\n\r\n".encode())
            head = b""
            while b"\r\n\r\n" not in head:
                head += sock.recv(4096)
            assert head.startswith(b"HTTP/1.1 101"), head
            frame = Frame(Opcode.BINARY, b"\x00" * 100).serialize(mask=True)
            received, closed_at = b"", None
            sock.settimeout(0.05)
            deadline = time.monotonic() + 8
            # A flooder that never answers the close frame: it keeps sending.
            while time.monotonic() < deadline:
                try:
                    sock.sendall(frame * 10)
                    chunk = sock.recv(65536)
                except TimeoutError:
                    continue
                except (BrokenPipeError, ConnectionResetError):
                    break
                if not chunk:
                    break
                received += chunk
                if closed_at is None and b"\x88" in received:  # the close frame came
                    closed_at = time.monotonic()
            assert closed_at is not None, received[-200:]
            # Dropped about FLOOD_DROP_SECONDS later, not after the 10 s close timeout.
            assert time.monotonic() - closed_at < 4
