"""Helpers for the server tests: players that speak the protocol, a move policy, and servers
(in-process, in a thread under uvicorn, or as a separate process: the tools' own launcher,
flip7.client.services)."""

from __future__ import annotations

import itertools
import json
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from flip7.client import services
from flip7.client.services import free_port, stop_process  # noqa: F401 - for the tests
from flip7.server.api.app import create_app
from flip7.server.api.wiring import Services
from flip7.server.base.protocol import SERVER_MESSAGE
from flip7.server.base.settings import Settings, database_url

_ids = itertools.count(1)


def choose(game: dict[str, Any], rng: random.Random) -> str:
    """A simple policy on a view: hit below 20, otherwise a random legal option."""
    legal = game["legal_decisions"]
    assert legal, "asked to choose with no legal options"
    if game["decision_kind"] == "hit_or_stay":
        me = game["players"][game["viewer"]]
        return "hit" if me["number_sum"] < 20 else "stay"
    return str(rng.choice(legal))


def human_to_decide_or_over(state: dict[str, Any]) -> bool:
    game = state["game"]
    if game is None:
        return False
    if game["over"]:
        return True
    seat = state["seats"][game["to_decide"]]
    return seat["kind"] == "human" and not seat["left"]


@dataclass
class WsPlayer:
    """One WebSocket client driven synchronously through the TestClient."""

    ws: Any
    seat: int | None
    token: str | None
    state: dict[str, Any] = field(default_factory=dict)
    frames: list[dict[str, Any]] = field(default_factory=list)

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send_text(json.dumps(message))

    def recv(self) -> dict[str, Any]:
        frame: dict[str, Any] = json.loads(self.ws.receive_text())
        SERVER_MESSAGE.validate_python(frame)  # every frame fits the protocol's models
        self.frames.append(frame)
        if frame.get("table") is not None and frame["type"] in ("welcome", "update"):
            self.state = frame["table"]
        return frame

    def hello(self, last_version: int | None = None) -> dict[str, Any]:
        self.send({"v": 1, "type": "hello", "token": self.token, "last_version": last_version})
        frame = self.recv()
        assert frame["type"] == "welcome", frame
        return frame

    def recv_until(self, predicate: Any) -> dict[str, Any]:
        while True:
            frame = self.recv()
            if predicate(frame):
                return frame

    def settle(self, after: int = -1) -> dict[str, Any]:
        """Read updates until a human must decide (or the game is over), past ``after``."""
        while not (self.state and self.state["version"] > after
                   and human_to_decide_or_over(self.state)):
            self.recv()
        return self.state

    def move(self, decision: str, version: int | None = None, move_id: str | None = None
             ) -> dict[str, Any]:
        move_id = move_id or f"m{next(_ids)}"
        self.send({"v": 1, "type": "move", "id": move_id,
                   "version": self.state["version"] if version is None else version,
                   "decision": decision})
        return self.recv_until(lambda f: f["type"] in ("result", "error"))


@contextmanager
def app_client(db: Path | str, *, test_addresses: bool = False,
               **settings: Any) -> Iterator[TestClient]:
    """The app of ``settings`` on the database ``db`` under a TestClient. Every request of
    a TestClient comes from one address ("testclient"); ``test_addresses``: a request with
    an ``X-Test-Address`` header comes from that address instead (:class:`TestAddresses`)."""
    url = database_url(str(db))
    app: Any = create_app(Settings(database_url=url, bot_delay=settings.pop("bot_delay", 0.0),
                                   **settings))
    with TestClient(TestAddresses(app) if test_addresses else app) as client:
        yield client


class TestAddresses:
    """An ASGI app in front of ``app`` that takes a request's client address from its
    ``X-Test-Address`` header, where it has one: many people at one TestClient."""

    __test__ = False  # not a test class, for pytest

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            for name, value in scope.get("headers", []):
                if name == b"x-test-address":
                    scope = {**scope, "client": (value.decode(), 50000)}
        await self.app(scope, receive, send)


def services_of(client: TestClient) -> Services:
    """The running app's services (flip7.server.api.wiring), as its routes get them."""
    found = client.app_state["services"]
    assert isinstance(found, Services)
    return found


@contextmanager
def uvicorn_thread(config: Any) -> Iterator[int]:
    """Run a ``uvicorn.Config`` (on port 0) in a daemon thread for the block; its port."""
    import uvicorn

    # Open sockets (a browser's page) are waited for 5 s at most: the app's own shut-down
    # then always runs, and gives back what it changed in this process (gc thresholds...).
    if config.timeout_graceful_shutdown is None:
        config.timeout_graceful_shutdown = 5
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn failed to start"
        time.sleep(0.02)
    try:
        yield int(server.servers[0].sockets[0].getsockname()[1])
    finally:
        server.should_exit = True
        thread.join(timeout=15)  # a replay worker process can take a while to stop
        assert not thread.is_alive(), "the server did not stop within 15 s"


@contextmanager
def threaded_server(settings: Settings, port: int = 0) -> Iterator[str]:
    """The app of ``settings`` under uvicorn on loopback ``port`` (0: a free one); its base
    URL. The same port again after the block: a restart the browser's pages live through."""
    import uvicorn

    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port,
                            log_level="warning")  # fmt: skip
    with uvicorn_thread(config) as port:
        yield f"http://127.0.0.1:{port}"


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class ServerProcess(services.ServerProcess):
    """``flip7 serve`` as a separate process (so that it can be killed with SIGKILL), as the
    tests run it (flip7.client.services.ServerProcess): log level warning, its output on a
    pipe (``proc.stdout``) unless ``log_path`` is given."""

    def __init__(self, db_url: str, seed: int | None = None, bot_delay: float = 0.0,
                 extra_args: list[str] | None = None, log_path: Path | None = None) -> None:
        super().__init__(db_url, seed=seed, bot_delay=bot_delay, log_level="warning",
                         extra_args=extra_args or (), log_path=log_path)  # fmt: skip


class SyncSocket:
    """A real WebSocket (``websockets`` sync client) with the TestClient's method names;
    ``source``: the loopback address it connects from (another client address)."""

    def __init__(self, url: str, timeout: float = 20.0, source: str | None = None) -> None:
        from websockets.sync.client import connect

        where = {} if source is None else {"source_address": (source, 0)}
        self._connection = connect(url, max_size=2**22, open_timeout=timeout, **where)
        self._ws = self._connection.__enter__()
        self._timeout = timeout

    def send_text(self, text: str) -> None:
        self._ws.send(text)

    def receive_text(self) -> str:
        message = self._ws.recv(timeout=self._timeout)
        assert isinstance(message, str)
        return message

    def close(self) -> None:
        self._ws.close()


def new_table(client: Any, **body: Any) -> tuple[str, str]:
    body.setdefault("player", "Ann")
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    return r.json()["table"]["id"], r.json()["token"]


def join(client: Any, table_id: str, name: str) -> tuple[int, str]:
    r = client.post(f"/api/tables/{table_id}/join", json={"player": name})
    assert r.status_code == 200, r.text
    return r.json()["seat"], r.json()["token"]


def seated_game(client: Any, humans: int = 3, bots: int = 1, **options: Any) -> dict[str, Any]:
    """A started table with ``humans`` players (tokens) and ``bots`` bots."""
    table_id, token = new_table(client, seats=humans + bots, **options)
    tokens = [token] + [join(client, table_id, f"P{i}")[1] for i in range(1, humans)]
    for _ in range(bots):
        assert client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                           headers=auth(token)).status_code == 200
    return {"id": table_id, "tokens": tokens}


def connect(client: Any, stack: Any, table_id: str, token: str | None) -> WsPlayer:
    ws = stack.enter_context(client.websocket_connect(f"/ws/tables/{table_id}"))
    player = WsPlayer(ws, None, token)
    player.seat = player.hello()["seat"]
    return player


def play_to_end(players: list[WsPlayer], rng: random.Random, limit: int = 5000) -> None:
    by_seat = {p.seat: p for p in players if p.seat is not None}
    for p in players:
        p.settle()
    for _ in range(limit):
        state = players[0].state
        game = state["game"]
        if game["over"]:
            return
        mover = by_seat[game["to_decide"]]
        answer = mover.move(choose(mover.state["game"], rng))
        assert answer["type"] == "result", answer
        for p in players:
            p.settle(after=state["version"])
    raise AssertionError("the game did not end")


def started(client: Any, stack: Any, humans: int = 3, bots: int = 0, **options: Any
             ) -> tuple[dict[str, Any], list[WsPlayer]]:
    table = seated_game(client, humans=humans, bots=bots, **options)
    players = [connect(client, stack, table["id"], t) for t in table["tokens"]]
    client.post(f"/api/tables/{table['id']}/start", headers=auth(table["tokens"][0]))
    for p in players:
        p.settle()
    return table, players


def decider(players: list[WsPlayer]) -> tuple[WsPlayer, list[WsPlayer]]:
    seat = players[0].state["game"]["to_decide"]
    mover = next(p for p in players if p.seat == seat)
    return mover, [p for p in players if p is not mover]

def human_turn(state: dict[str, Any]) -> bool:
    """Whether a human decides now (not a bot, nor the stand-in of one away)."""
    game = state["game"]
    if game is None or game["over"]:
        return game is not None
    seat = state["seats"][game["to_decide"]]
    return bool(seat["kind"] == "human" and not seat["left"] and not seat["stand_in"])


def settle(players: list[WsPlayer], after: int = -1) -> None:
    """Every player has read past ``after`` and the newest version any of them has seen,
    up to a human's turn (or the end)."""
    newest = max(after, *(p.state.get("version", -1) for p in players))
    for p in players:
        while p.state.get("version", -1) < newest or not human_turn(p.state):
            p.recv()


def until_turn_of(players: list[WsPlayer], seat: int, rng: random.Random) -> None:
    """Play (the humans' moves by ``choose``) until ``seat`` must decide."""
    by_seat = {p.seat: p for p in players}
    for _ in range(2000):
        settle(players)
        game = players[0].state["game"]
        assert not game["over"], "the game ended before the seat's turn"
        if game["to_decide"] == seat:
            return
        mover = by_seat[game["to_decide"]]
        version = mover.state["version"]
        assert mover.move(choose(mover.state["game"], rng))["type"] == "result"
        settle(players, after=version + 1)
    raise AssertionError("the seat never got its turn")


@contextmanager
def frame_flood(url: str, source: str) -> Iterator[tuple[list[int], threading.Thread]]:
    """A thread opening WebSockets to ``url`` from the address ``source`` and sending binary
    frames flat out, reconnecting whenever it is closed, until the block ends. Yields the
    HTTP statuses of the handshakes refused meanwhile (429 while the address cools off) and
    the thread."""
    from websockets.exceptions import ConnectionClosed, InvalidStatus
    from websockets.sync.client import connect

    refusals: list[int] = []
    stop = threading.Event()

    def flood() -> None:
        while not stop.is_set():
            try:
                with connect(url, open_timeout=5, source_address=(source, 0)) as ws:
                    while not stop.is_set():
                        ws.send(b"\x00" * 1000)
            except InvalidStatus as refused:
                refusals.append(refused.response.status_code)
            except (ConnectionClosed, OSError):
                pass

    flooder = threading.Thread(target=flood, daemon=True)
    flooder.start()
    try:
        yield refusals, flooder
    finally:
        stop.set()
        flooder.join(timeout=10)
