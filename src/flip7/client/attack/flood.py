"""What every flood of ``flip7 attack`` is made of (:class:`Flood`): requests and
WebSockets from its own loopback source addresses (127.0.0.2 and up: the server's
per-address budgets see a stranger, never the control table's 127.0.0.1), each counted with
its answer in the flood's :class:`~flip7.client.attack.figures.FloodFigures`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidStatus

from flip7.client.attack.figures import FloodFigures
from flip7.client.table_client import (
    Frame,
    Move,
    TableClient,
    TableState,
    hello,
    open_socket,
    table_url,
)

REQUEST_TIMEOUT = 5.0


def flood_addresses(count: int) -> list[str]:
    """The loopback source addresses of a flood: 127.0.0.2, 127.0.0.3, ...

    >>> flood_addresses(3)
    ['127.0.0.2', '127.0.0.3', '127.0.0.4']
    """
    return [f"127.0.0.{2 + i}" for i in range(min(count, 250))]


# Most addresses of one block (127.B.0.1 to 127.B.249.254).
BLOCK_ADDRESSES = 250 * 254


def block_addresses(block: int, count: int) -> list[str]:
    """``count`` loopback source addresses in 127.``block``.0.0/16, never in 127.0.0.0/16
    (the control and victim tables' 127.0.0.1 and the older floods' 127.0.0.2 and up):
    however a server groups addresses into blocks, up to a /16, a flood of the newer
    kinds is never the control table's neighbour. Linux answers on all of 127.0.0.0/8, so
    any of them can be a connection's source when the server listens on 127.0.0.1.

    >>> block_addresses(3, 3), block_addresses(3, 256)[-2:]
    (['127.3.0.1', '127.3.0.2', '127.3.0.3'], ['127.3.1.1', '127.3.1.2'])
    """
    return [f"127.{block}.{i // 254}.{i % 254 + 1}" for i in range(min(count, BLOCK_ADDRESSES))]


def bystander_address(block: int) -> str:
    """The address of a flood's bystander: someone else (another /16 than the flood's)
    who asks now and then for what the flood is holding (a table slot, a replay page,
    the coach).

    >>> bystander_address(3)
    '127.103.0.1'
    """
    return f"127.{100 + block}.0.1"


def stay_at_once(state: TableState) -> str:
    """The decision of a seat that wants its turn over: Stay when it may, else the first
    legal decision."""
    legal = state.legal_decisions
    return "stay" if "stay" in legal else legal[0]


def score_at_once(state: TableState) -> str:
    """The decision of a seat that wants the game over (a short game that a rating farm
    plays): Hit while its line holds no number, then Stay.

    >>> score_at_once(TableState({"version": 1, "game": {"viewer": 0, "legal_decisions":
    ...     ["hit", "stay"], "players": [{"number_sum": 0}]}}))
    'hit'
    """
    game = state.game or {}
    viewer = game.get("viewer")
    players = game.get("players") or []
    numbers = players[viewer].get("number_sum", 0) if isinstance(viewer, int) and 0 <= viewer < len(
        players) else 0
    if "hit" in state.legal_decisions and not numbers:
        return "hit"
    return stay_at_once(state)


class Flood:
    """One flood: ``setup`` (not timed) and ``run`` until ``deadline`` (time.monotonic)."""

    def __init__(self, config: dict[str, Any], figures: FloodFigures) -> None:
        self.config = config
        self.figures = figures
        self.url: str = str(config["url"]).rstrip("/")
        parts = urlsplit(self.url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.control_table = str(config.get("control_table", ""))
        count = int(config.get("addresses", 2))
        block = config.get("block")
        self.block = None if block is None else int(block)
        self.addresses = (flood_addresses(count) if self.block is None
                          else block_addresses(self.block, count))  # fmt: skip
        figures.addresses = self.addresses
        self.rng = random.Random(config.get("seed"))
        self._clients: dict[str, httpx.AsyncClient] = {}

    def http(self, address: str) -> httpx.AsyncClient:
        """A client whose connections come from ``address``."""
        client = self._clients.get(address)
        if client is None:
            transport = httpx.AsyncHTTPTransport(
                local_address=address,
                limits=httpx.Limits(max_connections=64, max_keepalive_connections=64),
            )
            client = httpx.AsyncClient(
                base_url=self.url, transport=transport, timeout=REQUEST_TIMEOUT, trust_env=False
            )
            self._clients[address] = client
        return client

    async def close(self) -> None:
        for client in self._clients.values():
            with contextlib.suppress(Exception):
                await client.aclose()

    async def setup(self) -> None:
        """Get ready; what it sends counts in the figures too."""

    async def run(self, deadline: float) -> None:
        raise NotImplementedError

    # -- counting

    def answer(self, response: httpx.Response, label: str = "") -> None:
        figures = self.figures
        figures.answered += 1
        status = response.status_code
        code = ""
        if status >= 400:
            with contextlib.suppress(ValueError, AttributeError, TypeError):
                detail = response.json().get("detail")
                code = str(detail.get("code", "")) if isinstance(detail, dict) else ""
        key = f"{status} {code}".strip()
        if label:
            key = f"{label}: {key}"
        figures.codes[key] += 1
        # A 5xx with a code is a refusal by design (503 busy: shed load, retry later); a
        # 500, or a 5xx without one, is not.
        if status == 500 or (status >= 500 and not code):
            figures.server_errors += 1
            figures.note(f"HTTP {status} for {label or 'a request'}: {response.text[:160]!r}")
        elif status >= 400:
            figures.refused += 1

    def failure(self, exc: BaseException, label: str = "") -> None:
        self.figures.failed += 1
        key = type(exc).__name__
        self.figures.codes[f"{label}: {key}" if label else key] += 1

    async def request(
        self, address: str, method: str, path: str, label: str = "", **kwargs: Any
    ) -> httpx.Response | None:
        """Send one request, count it and its answer; None when there is none."""
        self.figures.sent += 1
        try:
            response = await self.http(address).request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            self.failure(exc, label)
            return None
        self.answer(response, label)
        return response

    async def new_table(
        self, address: str, seats: int, rules: dict[str, Any] | None = None
    ) -> tuple[str, str] | None:
        body: dict[str, Any] = {"name": "flood", "player": "flood", "seats": seats}
        if rules:
            body["rules"] = rules
        response = await self.request(address, "POST", "/api/tables", "setup", json=body)
        if response is None or response.status_code != 201:
            return None
        data = response.json()
        return str(data["table"]["id"]), str(data["token"])

    async def play_seat(
        self, address: str, table: str, token: str, deadline: float, *, once: bool = False,
        policy: Callable[[TableState], str] | None = None,
        on_over: Callable[[TableState], None] | None = None,
    ) -> None:
        """A seated human, connected, taking its decisions at once (``policy``; by default
        Stay when it may) and asking for a rematch when a game is over (``on_over`` told
        of each end screen); ``once``: return when the game is over."""
        while time.monotonic() < deadline:
            client = TableClient(self.url, table, token, local_address=address)
            ws = await self.ws_connect(client.connect(self.open_timeout(deadline)))
            if ws is None:
                await asyncio.sleep(0.5)
                continue
            try:
                await client.hello()
                acted = -1
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    frame = await client.recv(left)
                    kind = frame.type
                    if kind in ("result", "error"):  # the answers to its moves
                        self.figures.answered += 1
                    if kind == "error":
                        self.figures.refused += 1
                        self.figures.codes[f"human: error {frame.code}"] += 1
                    state = frame.table
                    if kind not in ("welcome", "update", "error") or state is None:
                        continue
                    version = state.version
                    if version <= acted:
                        continue
                    if state.over:
                        acted = version
                        if on_over is not None:
                            on_over(state)
                        if once:
                            return
                        await self.request(
                            address, "POST", f"/api/tables/{table}/rematch", "rematch",
                            headers={"Authorization": f"Bearer {token}"},
                        )  # fmt: skip
                    elif state.legal_decisions:
                        acted = version
                        decision = (policy or stay_at_once)(state)
                        await client.send(Move(f"h{version}", version, decision))
                        self.figures.sent += 1
            except (TimeoutError, ConnectionClosed, ValueError, TypeError, KeyError,
                    AttributeError):  # fmt: skip
                pass
            finally:
                rcvd = ws.protocol.close_rcvd
                if rcvd is not None:
                    self.figures.codes[f"human: closed {rcvd.code}"] += 1
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 1)

    async def workers(self, count: int, deadline: float, work: Callable[[int], Awaitable[None]]
                      ) -> None:  # fmt: skip
        """``count`` loops of ``work(index)`` until ``deadline``."""
        async def loop(index: int) -> None:
            while time.monotonic() < deadline:
                await work(index)

        await asyncio.gather(*(loop(i) for i in range(count)))

    @staticmethod
    def open_timeout(deadline: float) -> float:
        return max(1.0, min(REQUEST_TIMEOUT, deadline - time.monotonic()))

    async def bystander(
        self, deadline: float, method: str, path: str | Callable[[], str], label: str,
        every: float = 1.0, **kwargs: Any,
    ) -> None:
        """Someone else (:func:`bystander_address`) asking for ``path`` every ``every``
        seconds until ``deadline``: what the flood leaves to the others, counted under
        ``label``."""
        address = bystander_address(self.block or 0)
        while time.monotonic() < deadline:
            began = time.monotonic()
            where = path() if callable(path) else path
            await self.request(address, method, where, label, **kwargs)
            await asyncio.sleep(max(0.0, min(every - (time.monotonic() - began),
                                             deadline - time.monotonic())))  # fmt: skip

    async def identity(self, address: str, name: str) -> tuple[str, str] | None:
        """A new identity (POST /api/players): its id and key; None if refused."""
        response = await self.request(address, "POST", "/api/players", "setup",
                                      json={"name": name})  # fmt: skip
        if response is None or response.status_code != 201:
            return None
        data = response.json()
        return str(data["id"]), str(data["key"])

    async def json_of(self, address: str, path: str, label: str = "setup") -> Any:
        """``GET path``'s JSON answer; None (counted) when there is none."""
        response = await self.request(address, "GET", path, label)
        if response is None or response.status_code != 200:
            return None
        try:
            return response.json()
        except ValueError:
            return None

    async def spectate(
        self, address: str, table: str, deadline: float
    ) -> tuple[Frame, int] | None:
        """A spectator's welcome at ``table`` from ``address`` and its size in bytes (the
        socket closed after it); None (counted) when none came."""
        ws = await self.ws_connect(open_socket(table_url(self.url, table), local_address=address,
                                               open_timeout=self.open_timeout(deadline)))
        if ws is None:
            return None
        try:
            await ws.send(hello(None))
            while True:
                raw = await asyncio.wait_for(ws.recv(), self.open_timeout(deadline))
                frame = Frame.parse(raw)
                if frame.type == "welcome":
                    self.figures.answered += 1
                    return frame, len(raw)
                if frame.type == "error":
                    self.figures.answered += 1
                    self.figures.refused += 1
                    self.figures.codes[f"spectator: error {frame.code}"] += 1
                    return None
        except (TimeoutError, ConnectionClosed, ValueError) as exc:
            self.failure(exc, "spectator")
            return None
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1)

    async def ws_connect(self, opening: Awaitable[ClientConnection]) -> ClientConnection | None:
        """The WebSocket ``opening`` opens (counted as sent); None, counted, if refused."""
        figures = self.figures
        figures.sent += 1
        try:
            return await opening
        except InvalidStatus as exc:
            figures.answered += 1
            status = exc.response.status_code
            figures.codes[f"ws handshake: HTTP {status}"] += 1
            if status >= 500:
                figures.server_errors += 1
            else:
                figures.refused += 1
        except (OSError, TimeoutError, ConnectionClosed) as exc:
            self.failure(exc, "ws connect")
        except Exception as exc:  # a handshake the client library rejects
            self.failure(exc, "ws connect")
        return None

    def raw_socket(self, address: str, deadline: float) -> Awaitable[ClientConnection]:
        """Opening a WebSocket to the control table from ``address`` (no hello of its own)."""
        return open_socket(table_url(self.url, self.control_table), local_address=address,
                           open_timeout=self.open_timeout(deadline))  # fmt: skip

    async def ws_frames(
        self,
        url: str,
        address: str,
        deadline: float,
        label: str,
        frames: Sequence[str | bytes],
        *,
        hello: str | None = None,
        gap: float | None = None,
        reconnect: float = 0.0,
    ) -> None:
        """Until ``deadline``: a WebSocket from ``address`` to ``url`` sends ``frames`` in
        turn (each counted as sent; ``hello`` first, uncounted) while :meth:`ws_read` counts
        what the server sends under ``label``; when the server closes it, another is opened
        after ``reconnect`` seconds. ``gap``: seconds between frames; None sends flat out."""
        while time.monotonic() < deadline:
            ws = await self.ws_connect(open_socket(url, local_address=address,
                                                   open_timeout=self.open_timeout(deadline)))
            if ws is None:
                await asyncio.sleep(0.2)
                continue
            reader = asyncio.create_task(self.ws_read(ws, label))
            try:
                if hello is not None:
                    await ws.send(hello)
                sent = 0
                while time.monotonic() < deadline and not reader.done():
                    await ws.send(frames[sent % len(frames)])
                    sent += 1
                    self.figures.sent += 1
                    if gap is not None:
                        await asyncio.sleep(gap)
                    elif sent % 32 == 0:
                        await asyncio.sleep(0)  # the send buffer may never fill on loopback
            except ConnectionClosed:
                pass
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 1)
                reader.cancel()
                with contextlib.suppress(BaseException):
                    await reader
            if reconnect:
                await asyncio.sleep(reconnect)

    async def ws_read(self, ws: ClientConnection, label: str) -> None:
        """Count the frames the server sends (error frames by code) and how it closes."""
        figures = self.figures
        try:
            async for raw in ws:
                figures.answered += 1
                try:
                    message = json.loads(raw)
                except ValueError:
                    figures.codes[f"{label}: non-JSON frame"] += 1
                    continue
                kind = message.get("type") if isinstance(message, dict) else None
                if kind == "error":
                    figures.refused += 1
                    figures.codes[f"{label}: error {message.get('code')}"] += 1
                else:
                    figures.codes[f"{label}: {kind}"] += 1
        except ConnectionClosed:
            pass
        rcvd = ws.protocol.close_rcvd
        if rcvd is not None:
            figures.codes[f"{label}: closed {rcvd.code}"] += 1
            figures.answered += 1  # a close is an answer, and a refusal
            figures.refused += 1
            if rcvd.code == 1011:
                figures.server_errors += 1
                figures.note(f"{label}: closed 1011 (internal error) {rcvd.reason!r}")
