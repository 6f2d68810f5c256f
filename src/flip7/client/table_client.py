"""One client of a table's WebSocket (``/ws/tables/{id}``), as a browser tab is: it
connects, says ``hello`` with its seat's token, reads the server's frames keeping the
table's latest state, and sends moves. The tools build on it: the load test's clients, the
attack benchmark's control table and seated flood players, and the cluster bench's players
who reconnect after a failover.

:class:`TableView` is the frame handling on its own (no socket), for a client that brings
its own transport; :class:`TableClient` adds the asyncio socket.

>>> view = TableView()
>>> frame = view.read('{"v": 1, "type": "update", "version": 4, "events": [], '
...                   '"table": {"version": 4, "state": "playing", "game": null}}')
>>> frame.type, frame.version, view.version, view.state.version
('update', 4, 4, 4)
>>> Move("a.1", 4, "hit").frame()
'{"v": 1, "type": "move", "id": "a.1", "version": 4, "decision": "hit"}'
>>> ws_url("http://127.0.0.1:8000/")
'ws://127.0.0.1:8000'
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator, Hashable
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

__all__ = [
    "KEEPALIVE_SECONDS",
    "MAX_FRAME_BYTES",
    "Frame",
    "Move",
    "TableClient",
    "TableState",
    "TableView",
    "choose",
    "hello",
    "open_socket",
    "ws_url",
]

MAX_FRAME_BYTES = 8 * 1024 * 1024
PROTOCOL = 1
# Seconds an HTTP client keeps an idle connection for its next request: well under the
# server's 5 s (guard.KEEP_ALIVE_SECONDS). At the same 5 s (httpx's default) a request sent
# as the server closes the connection is lost ("Server disconnected without sending a
# response", seen once in a quiet baseline of flip7 attack).
KEEPALIVE_SECONDS = 2.0


def ws_url(url: str) -> str:
    """The WebSocket address of a server's ``http(s)://`` address."""
    url = url.rstrip("/")
    if url.startswith("https://"):
        return "wss://" + url.removeprefix("https://")
    if url.startswith("http://"):
        return "ws://" + url.removeprefix("http://")
    return url


def table_url(url: str, table_id: str) -> str:
    """The address of a table's socket on the server at ``url``."""
    return f"{ws_url(url)}/ws/tables/{table_id}"


async def open_socket(
    url: str,
    *,
    local_address: str | None = None,
    compression: bool = False,
    open_timeout: float = 10.0,
    close_timeout: float = 1.0,
) -> ClientConnection:
    """A WebSocket to ``url`` (from ``local_address``, a loopback address, when given):
    no pings of its own (the server pings), no proxy from the environment,
    permessage-deflate offered with ``compression`` (as browsers do)."""
    options: dict[str, Any] = {}
    if local_address is not None:
        options["local_addr"] = (local_address, 0)
    return await connect(
        url,
        max_size=MAX_FRAME_BYTES,
        ping_interval=None,
        proxy=None,
        compression="deflate" if compression else None,
        open_timeout=open_timeout,
        close_timeout=close_timeout,
        **options,
    )


def hello(token: str | None, last_version: int | None = None) -> str:
    """The first frame of a connection: the seat's token (None: a spectator) and the last
    version the client holds (the server then sends what it missed)."""
    return json.dumps(
        {"v": PROTOCOL, "type": "hello", "token": token, "last_version": last_version}
    )


@dataclass(frozen=True, slots=True)
class Move:
    """A move frame: its id (the server answers a move sent again under the same id without
    applying it twice), the version it was made at, the decision."""

    id: str
    version: int
    decision: str

    def frame(self) -> str:
        return json.dumps({"v": PROTOCOL, "type": "move", "id": self.id,
                           "version": self.version, "decision": self.decision})  # fmt: skip


@dataclass(frozen=True, slots=True)
class TableState:
    """The table as the server showed it to one client (the ``table`` of a welcome, an
    update or an error frame)."""

    data: dict[str, Any]

    @property
    def version(self) -> int:
        return int(self.data["version"])

    @property
    def game(self) -> dict[str, Any] | None:
        game: dict[str, Any] | None = self.data.get("game")
        return game

    @property
    def over(self) -> bool:
        """At the end screen: the table's game is over."""
        game = self.game
        return self.data.get("state") == "over" or (game is not None and bool(game.get("over")))

    @property
    def finished_game(self) -> Hashable:
        """Which game this end screen is of: its id, else the table's version."""
        game_id = self.data.get("game_id")
        return game_id if game_id is not None else ("version", self.version)

    @property
    def legal_decisions(self) -> list[str]:
        """The decisions this client may take now (none when it is not its turn)."""
        game = self.game
        return list(game.get("legal_decisions") or ()) if game is not None else []


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame from the server, read once: its ``type`` (welcome, update, result, error,
    pong, chat), the table's state where it carries one, when it arrived
    (``time.perf_counter()``, before it was parsed) and everything it says (``data``)."""

    type: str
    data: dict[str, Any]
    table: TableState | None
    arrival: float

    @staticmethod
    def parse(raw: str | bytes, arrival: float | None = None) -> Frame:
        """ValueError when it is not a JSON object."""
        arrival = time.perf_counter() if arrival is None else arrival
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise ValueError(f"not a JSON object: {str(raw)[:200]}")
        table = data.get("table")
        state = TableState(table) if isinstance(table, dict) else None
        return Frame(str(data.get("type")), data, state, arrival)

    @property
    def version(self) -> Any:
        """An update's version, or the version a move's result names (as sent)."""
        return self.data.get("version")

    @property
    def move_id(self) -> Any:
        """The id of the move a result or an error answers (None: not a move's)."""
        return self.data.get("id")

    @property
    def code(self) -> Any:
        return self.data.get("code")

    @property
    def missed(self) -> list[int]:
        """A welcome's versions of the changes since the client's ``last_version``."""
        return [int(change["version"]) for change in self.data.get("missed") or ()]


class TableView:
    """The frame handling of one client: every frame parsed once, the table's latest state
    (from a welcome, an update, an error that carries it) and the newest version seen (of
    a welcome's table or an update) kept."""

    def __init__(self) -> None:
        self.state: TableState | None = None
        self.version: int | None = None
        self.decided = -1  # the newest version it took a decision at (-1: may decide again)
        self._readied: Hashable = None  # the game whose end screen it last said ready at

    def read(self, raw: str | bytes, arrival: float | None = None) -> Frame:
        frame = Frame.parse(raw, arrival)
        self.keep(frame)
        return frame

    def keep(self, frame: Frame) -> None:
        if frame.table is not None and frame.type in ("welcome", "update", "error"):
            self.state = frame.table
        seen = frame.table.version if frame.type == "welcome" and frame.table else None
        if frame.type == "update":
            seen = int(frame.data["version"])
        if seen is not None and (self.version is None or seen > self.version):
            self.version = seen

    def turn(self, state: TableState) -> dict[str, Any] | None:
        """The game view when ``state`` asks this client for a decision at a version it has
        not decided at yet (noted as decided at); None otherwise."""
        game = state.game
        if game is None or not state.legal_decisions or state.version <= self.decided:
            return None
        self.decided = state.version
        return game

    def ready_at(self, state: TableState) -> Hashable:
        """The game ``state`` shows the end screen of, the first time this client is at
        that end screen, where every player says ready once (the next game starts when all
        of them have); None at any other moment."""
        if not state.over or state.finished_game == self._readied:
            return None
        self._readied = state.finished_game
        return self._readied


class TableClient(TableView):
    """A seat's (or, without a token, a spectator's) WebSocket to table ``table_id`` of the
    server at ``url``, over asyncio. :meth:`connect` may be called again after the socket
    closed: the state and version seen so far are kept, so that a ``hello`` with
    ``last_version`` picks up where it left."""

    def __init__(
        self,
        url: str,
        table_id: str,
        token: str | None,
        *,
        local_address: str | None = None,
        compression: bool = False,
        open_timeout: float = 10.0,
        close_timeout: float = 1.0,
    ) -> None:
        super().__init__()
        self.url = table_url(url, table_id)
        self.token = token
        self.local_address = local_address
        self.compression = compression
        self.open_timeout = open_timeout
        self.close_timeout = close_timeout
        self.ws: ClientConnection | None = None

    async def connect(self, open_timeout: float | None = None) -> ClientConnection:
        """Open the socket (raises what ``websockets`` raises: refused, timed out, a
        rejected handshake)."""
        self.ws = await open_socket(
            self.url,
            local_address=self.local_address,
            compression=self.compression,
            open_timeout=self.open_timeout if open_timeout is None else open_timeout,
            close_timeout=self.close_timeout,
        )
        return self.ws

    def _socket(self) -> ClientConnection:
        if self.ws is None:
            raise ConnectionError(f"{self.url}: not connected")
        return self.ws

    async def hello(self, last_version: int | None = None) -> None:
        await self._socket().send(hello(self.token, last_version))

    async def recv(self, timeout: float | None = None) -> Frame:
        """The next frame (TimeoutError after ``timeout`` seconds)."""
        raw = await asyncio.wait_for(self._socket().recv(), timeout)
        return self.read(raw)

    async def welcome(self) -> Frame:
        """Read up to the ``welcome`` (updates before it are read too); ValueError on any
        other frame."""
        while True:
            frame = await self.recv()
            if frame.type == "welcome":
                return frame
            if frame.type != "update":
                raise ValueError(f"expected welcome, got {json.dumps(frame.data)[:300]}")

    async def frames(self) -> AsyncIterator[Frame]:
        """Every frame until the socket closes (ConnectionClosed when it closes with an
        error)."""
        async for raw in self._socket():
            yield self.read(raw)

    async def send(self, move: Move) -> None:
        await self._socket().send(move.frame())

    async def close(self) -> None:
        ws, self.ws = self.ws, None
        if ws is not None:
            await ws.close()


def choose(game: dict[str, Any], rng: random.Random) -> str:
    """The tools' policy on a game view: hit below 25, else stay; any other choice (a
    target, a Flip 7 choice) at random."""
    legal: list[str] = game["legal_decisions"]
    if "hit" in legal and "stay" in legal:
        viewer = game.get("viewer")
        number_sum = game["players"][viewer]["number_sum"] if viewer is not None else 0
        return "hit" if number_sum < 25 else "stay"
    return rng.choice(legal)
