"""What stands between the app and a stranger's connection: security headers on every HTTP
answer, a ceiling on request bodies, who the client is (its address block, named by a
trusted proxy's X-Forwarded-For only), a deadline for request headers, every connection
counted (per address block and in all, idle ones shed to make room), a gate for WebSocket
handshakes, health checks answered before any queued work, the uvicorn server they run in.

:func:`server_config` builds the one uvicorn configuration that ``flip7 serve`` and the tests
use, so that what is tested is what runs.

>>> sorted(SECURITY_HEADERS)
['content-security-policy', 'referrer-policy', 'x-content-type-options', 'x-frame-options']
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from asyncio.transports import BaseTransport
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Protocol, TypedDict, Unpack

import h11
from fastapi import FastAPI
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn._types import ASGISendEvent
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request

from flip7.server.api.errors import error_response
from flip7.server.base.closecodes import CloseCode
from flip7.server.base.errors import ServerError
from flip7.server.base.limits import MAX_ADDRESSES, AddressBudget, TokenBucket, address_block
from flip7.server.base.settings import Settings

__all__ = [
    "CSP",
    "DOCS_CSP",
    "KEEP_ALIVE_SECONDS",
    "SECURITY_HEADERS",
    "WS_MAX_BYTES",
    "BodyLimit",
    "ClientBlock",
    "Clients",
    "ConnectionHandle",
    "Connections",
    "HandshakeGate",
    "HandshakeTurns",
    "HealthWatch",
    "Refusal",
    "SecurityHeaders",
    "UvicornOptions",
    "connection_ceiling",
    "connection_handle",
    "header_timeout_protocol",
    "protect",
    "raise_open_files",
    "server_config",
    "websocket_protocol",
]

# The app's own pages load their script, style sheet and icon from /static and talk to
# /api and /ws on the same origin; nothing inline, nothing from elsewhere. ('self' covers
# ws:/wss: to the same host in CSP Level 3 browsers; the browser tests check it.)
CSP = (
    "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# FastAPI's /docs and /redoc pages load Swagger UI / ReDoc from a CDN with an inline script:
# only there, where no user's text is shown, are those allowed.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "font-src 'self' https://fonts.gstatic.com; "
    "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
    "worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
_DOCS_PATHS = ("/docs", "/docs/oauth2-redirect", "/redoc")
SECURITY_HEADERS: dict[str, str] = {
    "content-security-policy": CSP,
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
}
# Seconds an idle keep-alive connection is kept between requests (uvicorn's default, set
# explicitly because it is documented).
KEEP_ALIVE_SECONDS = 5.0
# The largest WebSocket frame uvicorn reads at all (a bigger one closes the socket with
# 1009); frames up to it but over ``max_message_bytes`` get a ``too_large`` error frame.
WS_MAX_BYTES = 64 * 1024


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every HTTP answer (pages, static files, the API,
    errors) unless the answer set its own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._headers = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
        self._docs = [(b"content-security-policy", DOCS_CSP.encode()),
                      *self._headers[1:]]  # fmt: skip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self._docs if scope["path"] in _DOCS_PATHS else self._headers

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in extra if k not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class BodyLimit:
    """Refuses request bodies over the limit (413 ``too_large``) before anything reads them:
    ``limit(path)`` bytes.

    A body announced with ``Content-Length`` is judged by it (the HTTP parser holds the
    client to it). A body without one (``Transfer-Encoding: chunked``) is read here, up to
    the limit, and handed on whole: a route reading it itself would turn an error raised
    mid-read into a 400."""

    def __init__(self, app: ASGIApp, limit: Callable[[str], int]) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit(scope["path"])
        too_large = error_response(
            ServerError("too_large", f"the request body may be at most {limit} bytes", 413)
        )
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit():
            if int(length) > limit:
                await too_large(scope, receive, send)
                return
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > limit:
                await too_large(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        first: Message | None = {"type": "http.request", "body": b"".join(chunks),
                                 "more_body": False}

        async def replay() -> Message:
            nonlocal first
            if first is not None:
                message, first = first, None
                return message
            return await receive()  # only http.disconnect from here on

        await self.app(scope, replay, send)


def protect(app: FastAPI, settings: Settings) -> None:
    """Put :class:`SecurityHeaders` around the whole app, outside even Starlette's
    last-resort error middleware, so that a 500 carries the headers too; and outside it
    :class:`ClientBlock`, so that everything inside sees the client as its address block."""
    build: Callable[[], ASGIApp] = app.build_middleware_stack
    clients = Clients.of(settings)

    def build_with_headers() -> ASGIApp:
        return ClientBlock(SecurityHeaders(build()), clients)

    app.build_middleware_stack = build_with_headers  # type: ignore[method-assign]


# ---------------------------------------------------------------------- who the client is


@dataclass(frozen=True, slots=True)
class Clients:
    """Who a connection's client is, for every per-address budget: the address that
    connected, or, when that is one of the operator's ``proxies`` (``--trusted-proxy``), the
    last address of its ``X-Forwarded-For`` (the one the proxy added; the proxy's own when
    it added none: its own requests, its health checks, someone on its machine); counted
    by its address block (:func:`~flip7.server.base.limits.address_block`). No other
    peer's forwarded headers are believed, loopback included.

    >>> clients = Clients(frozenset({"10.0.0.2"}), ipv4_prefix=24, ipv6_prefix=64)
    >>> forwarded = [(b"x-forwarded-for", b"203.0.113.9, 2001:db8:5:6::7")]
    >>> clients.client("10.0.0.2", forwarded), clients.client("127.0.0.1", forwarded)
    ('2001:db8:5:6::7', '127.0.0.1')
    >>> clients.block(clients.client("10.0.0.2", [])), clients.block("2001:db8:5:6::8")
    ('10.0.0.0/24', '2001:db8:5:6::/64')
    """

    proxies: frozenset[str] = frozenset()
    ipv4_prefix: int = 32
    ipv6_prefix: int = 64

    @classmethod
    def of(cls, settings: Settings) -> Clients:
        return cls(frozenset(settings.trusted_proxies), settings.ipv4_block_prefix,
                   settings.ipv6_block_prefix)  # fmt: skip

    def client(self, peer: str, headers: list[tuple[bytes, bytes]] | None) -> str:
        """The client's own address, from the ``peer`` that connected and the headers."""
        if peer in self.proxies:
            return forwarded_for(headers) or peer
        return peer

    def block(self, host: str) -> str:
        """The block whose budgets ``host`` spends."""
        return address_block(host, self.ipv4_prefix, self.ipv6_prefix)


class ClientBlock:
    """Names the client of every request and socket by :class:`Clients`: ``scope["client"]``
    becomes (its address block, port) for the app, so that every budget the routes keep
    (``client_address``) counts blocks; a trusted proxy's ``X-Forwarded-Proto`` gives the
    scheme. The exact address stays in the server's own scope (uvicorn's access log)."""

    def __init__(self, app: ASGIApp, clients: Clients) -> None:
        self.app = app
        self.clients = clients

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refused = (scope.get("extensions") or {}).get(_REFUSED)
        if isinstance(refused, Refusal) and scope["type"] == "http":
            await refused.response()(scope, receive, send)
            return
        peer = scope.get("client")
        host, port = (str(peer[0]), int(peer[1])) if peer else ("unknown", 0)
        headers: list[tuple[bytes, bytes]] = scope.get("headers") or []
        client = self.clients.client(host, headers)
        if client != host:
            scope["client"] = (client, port)
            proto = _header(headers, b"x-forwarded-proto")
            if proto in ("http", "https"):
                websocket = scope["type"] == "websocket"
                scope["scheme"] = proto.replace("http", "ws") if websocket else proto
        await self.app({**scope, "client": (self.clients.block(client), port)}, receive, send)


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    """The last value of header ``name`` (lower case), if any."""
    for key, value in reversed(headers):
        if key.lower() == name:
            return value.decode("latin-1").strip()
    return None


# ---------------------------------------------------------------------- refusals


class Refusal(ServerError):
    """A connection or handshake the server will not serve, answered before the app sees
    it, always with ``Retry-After`` (a second unless told)."""

    def __init__(self, code: str, message: str, status: int, retry_after: float = 1.0) -> None:
        super().__init__(code, message, status, retry_after)

    def body(self) -> bytes:
        return json.dumps(self.answer()).encode()

    def http_bytes(self) -> bytes:
        """The whole HTTP answer, written straight to a connection that closes after it."""
        return http_answer(self.status, self.body(), self.headers)

    def response(self) -> JSONResponse:
        """The same answer as an ASGI response (a WebSocket handshake's denial)."""
        return error_response(self)


def http_answer(status: int, body: bytes, headers: Mapping[str, str] | None = None) -> bytes:
    """A whole HTTP answer with a JSON ``body``, written straight to a connection that
    closes after it (with the security headers every answer carries)."""
    head = [
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
        "content-type: application/json",
        f"content-length: {len(body)}",
        *(f"{k.lower()}: {v}" for k, v in (headers or {}).items()),
        "connection: close",
        *(f"{k}: {v}" for k, v in SECURITY_HEADERS.items()),
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


# ---------------------------------------------------------------------- health checks

HEALTH_REQUEST = b"GET /api/health"
# A health request waits this long for the check it starts (or joins); a check that takes
# longer (a flood queues its steps) is answered with the newest finished one meanwhile.
HEALTH_WAIT_SECONDS = 0.25
# A check unfinished this long means the server cannot serve: answered 503. An answer
# older than this is never given.
HEALTH_STALE_SECONDS = 3.0


class HealthWatch:
    r"""``GET /api/health`` answered by the guard as soon as its request's head is read,
    not behind the work queued for the app (a flood's frames, a database pool busy with
    writes). The answer is the app's own (its health route's, run by :meth:`start`): each
    health request starts a check (or joins the one under way) and gets its answer, or,
    if it takes over :data:`HEALTH_WAIT_SECONDS`, the newest finished one (:meth:`late`).
    Still honest: a process whose event loop is stuck reads no request at all, and while a
    check has been unfinished for :data:`HEALTH_STALE_SECONDS` (the database does not
    answer, the loop is swamped) the answer is 503 with ``problem`` saying so.

    >>> clock, answers = [0.0], []
    >>> watch = HealthWatch(clock=lambda: clock[0])
    >>> watch.begin(), watch.answer(answers.append), answers    # it waits for the check
    (True, False, [])
    >>> watch.record(200, b'{"status": "ok", "problem": null}'); answers[0].split(b"\r\n")[0]
    b'HTTP/1.1 200 OK'
    >>> clock[0] = 1.0; watch.begin(), watch.begin()     # one check at a time
    (True, False)
    >>> watch.answer(answers.append); clock[0] = 1.25; watch.late(answers.append)
    False
    >>> len(answers)                                     # not done in time: the newest
    2
    >>> clock[0] = 4.2; watch.answer(answers.append); answers[-1].split(b"\r\n")[0]
    True
    b'HTTP/1.1 503 Service Unavailable'
    >>> json.loads(answers[-1].split(b"\r\n\r\n")[1])["problem"]
    'the health check has not finished for 3 s'
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        # The newest check's answer (the whole HTTP answer, and its body), when it finished.
        self._answer: bytes | None = None
        self._body = b""
        self._at = 0.0
        # When the check under way began (None: none is), and who waits for it.
        self._since: float | None = None
        self._waiting: list[Callable[[bytes], None]] = []
        self._task: asyncio.Task[None] | None = None
        self.served = 0  # health requests answered by the guard

    def begin(self) -> bool:
        """Whether a new check is to start now (none is under way); if so, it has begun."""
        if self._since is not None:
            return False
        self._since = self._clock()
        return True

    def record(self, status: int, body: bytes) -> None:
        """A check finished with this answer: it goes to those waiting for it."""
        self._body, self._at, self._since = body, self._clock(), None
        self._answer = http_answer(status, body, {"cache-control": "no-store"})
        self._flush(self._answer)

    def answer(self, write: Callable[[bytes], None]) -> bool:
        """Give the whole HTTP answer to ``write``: now (True: the check under way is
        overdue), or when it finishes (False; :meth:`late` may answer sooner)."""
        self.served += 1
        now = self._clock()
        if self._since is not None and now - self._since >= HEALTH_STALE_SECONDS:
            write(self._overdue(now - self._since))
            return True
        self._waiting.append(write)
        return False

    def late(self, write: Callable[[bytes], None]) -> None:
        """:data:`HEALTH_WAIT_SECONDS` after ``write`` began to wait: if the check is still
        under way, the newest finished answer (unless it is stale: then it waits on)."""
        if write in self._waiting and self._answer is not None and (
            self._clock() - self._at <= HEALTH_STALE_SECONDS
        ):
            self._waiting.remove(write)
            write(self._answer)

    def _overdue(self, seconds: float) -> bytes:
        try:
            last = json.loads(self._body)
        except ValueError:
            last = None
        body = last if isinstance(last, dict) else {}
        body.update(status="error",
                    problem=f"the health check has not finished for {seconds:.0f} s")
        return http_answer(503, json.dumps(body).encode(), {"cache-control": "no-store"})

    def _flush(self, answer: bytes) -> None:
        waiting, self._waiting = self._waiting, []
        for write in waiting:
            write(answer)

    def start(self, app: ASGIApp, state: dict[str, Any]) -> None:
        """Begin a check (:meth:`begin` said one is due): the app's own health route, run
        in the background; those waiting for it are answered 503 if it is overdue."""
        loop = asyncio.get_running_loop()
        since = self._since
        self._task = loop.create_task(self._check(app, state))

        def overdue() -> None:
            if self._since is not None and self._since == since:
                self._flush(self._overdue(self._clock() - self._since))

        loop.call_later(HEALTH_STALE_SECONDS, overdue)

    async def _check(self, app: ASGIApp, state: dict[str, Any]) -> None:
        scope: Scope = {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1", "method": "GET", "scheme": "http", "root_path": "",
            "path": "/api/health", "raw_path": b"/api/health", "query_string": b"",
            "headers": [(b"host", b"flip7-health-check")], "client": None, "server": None,
            "state": dict(state),
        }  # fmt: skip
        asked = False
        status, chunks = 500, []

        async def receive() -> Message:
            nonlocal asked
            if asked:
                return {"type": "http.disconnect"}
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "http.response.body":
                chunks.append(bytes(message.get("body", b"")))

        try:
            await app(scope, receive, send)
        except Exception:  # the route failed: that is the answer
            status = 500
        finally:
            self.record(status, b"".join(chunks))


def health_request(head: bytes) -> bool | None:
    r"""Whether a connection's first bytes ``head`` are a whole ``GET /api/health`` request
    head; None while that cannot be told yet.

    >>> health_request(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
    True
    >>> health_request(b"GET /api/he"), health_request(b"GET /api/health?x=1 HTTP/1.1\r\n")
    (None, None)
    >>> health_request(b"GET /api/healthy HTTP/1.1\r\n\r\n"), health_request(b"POST /api/health")
    (False, False)
    """
    size = len(HEALTH_REQUEST)
    if head[:size] != HEALTH_REQUEST[: len(head)]:
        return False
    if len(head) <= size:
        return None
    if head[size : size + 1] not in (b" ", b"?"):
        return False
    if b"\r\n\r\n" in head:
        return True
    return None if len(head) < MAX_HEAD_BYTES else False


# ---------------------------------------------------------------------- WebSocket handshakes


class HandshakeGate:
    """WebSocket handshakes per client address: a budget (``handshakes_burst`` at once, then
    ``handshakes_per_minute``), and a cool-off of ``flood_cooloff`` seconds for an address
    whose socket was closed for flooding (1008). A refused handshake costs no socket: it is
    answered 429 with ``Retry-After`` before the WebSocket is accepted.

    >>> from flip7.server.base.settings import Settings
    >>> clock = [0.0]
    >>> gate = HandshakeGate(Settings(handshakes_burst=2), clock=lambda: clock[0])
    >>> [gate.check("10.0.0.9") is None for _ in range(3)]
    [True, True, False]
    >>> gate.cool_off("10.0.0.8"); gate.check("10.0.0.8").code
    'cooling_off'
    >>> clock[0] = 61.0; gate.check("10.0.0.8") is None
    True
    """

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self._clock = clock
        self._budget = AddressBudget(
            settings.handshakes_per_minute, settings.handshakes_burst, clock=clock
        )
        # Addresses cooling off, oldest first; bounded like the budgets' maps.
        self._until: OrderedDict[str, float] = OrderedDict()
        self.turns = HandshakeTurns(settings.handshakes_per_minute_all,
                                    settings.handshakes_burst_all, clock=clock)  # fmt: skip

    @property
    def budget(self) -> AddressBudget:
        """The handshakes' budget (shared with every process in a cluster)."""
        return self._budget

    def cool_off(self, address: str) -> None:
        """Refuse ``address``'s handshakes for ``flood_cooloff`` seconds from now."""
        self._until[address] = self._clock() + self.settings.flood_cooloff
        self._until.move_to_end(address)
        while len(self._until) > MAX_ADDRESSES:
            self._until.popitem(last=False)

    def check(self, address: str) -> Refusal | None:
        """None if ``address`` may open a WebSocket now (a handshake is counted), else why not."""
        until = self._until.get(address)
        if until is not None:
            left = until - self._clock()
            if left > 0:
                return Refusal("cooling_off", "this address was disconnected for "
                               f"flooding; try again in {math.ceil(left)} s", 429, left)
            del self._until[address]
        if not self._budget.take(address):
            per_minute = self.settings.handshakes_per_minute
            return Refusal("too_many_handshakes", f"at most {per_minute:g} WebSocket "
                           "connections a minute from one address", 429,
                           self._budget.retry_after(address))
        return None


class _Waiting(Protocol):
    """A handshake waiting its turn (:class:`HandshakeTurns`)."""

    def turn(self) -> None:
        """Its turn: the handshake goes on."""

    def turn_refused(self) -> None:
        """It waited too long: answered 503 ``busy``."""

    def turn_gone(self) -> bool:
        """Whether its connection is gone (its place is given up)."""


class HandshakeTurns:
    """WebSocket handshakes taken in turn in this process: at most ``burst`` at once, then
    ``per_minute``, every address together (``handshakes_burst_all``,
    ``handshakes_per_minute_all``). A handshake costs the event loop about a millisecond
    (routing, accept, hello, the welcome); hundreds at once (a storm of reconnecting
    spectators from many addresses, each within its own budget) made single turns of the
    loop last hundreds of milliseconds, and every table's moves waited behind them.

    A handshake past the rate waits, its connection not read. The blocks with handshakes
    waiting are served in rotation, one each, so that a player's reconnection waits one
    turn per other waiting block, not behind a stranger's storm; one that has waited
    ``wait`` seconds is answered 503 ``busy`` (try again).

    >>> clock, timers, seen = [0.0], [], []
    >>> class Handshake:
    ...     def __init__(self, name): self.name = name
    ...     def turn(self): seen.append(self.name)
    ...     def turn_refused(self): seen.append(self.name + " refused")
    ...     def turn_gone(self): return False
    >>> turns = HandshakeTurns(60.0, 2, wait=5.0, clock=lambda: clock[0],
    ...                        later=lambda delay, call: timers.append(call))
    >>> [turns.ask(block, Handshake(name)) for block, name in
    ...  [("a", "a1"), ("a", "a2"), ("a", "a3"), ("a", "a4"), ("b", "b1")]]
    [True, True, False, False, False]
    >>> clock[0] = 2.0; timers.pop()(); seen  # two tokens: a3, then b1 before a4
    ['a3', 'b1']
    >>> clock[0] = 9.0; timers.pop()(); seen[-1]  # a4 waited over 5 seconds
    'a4 refused'
    """

    def __init__(
        self, per_minute: float, burst: int, *, wait: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        later: Callable[[float, Callable[[], None]], object] | None = None,
    ) -> None:  # fmt: skip
        self._bucket = TokenBucket(per_minute / 60.0, float(burst), float(burst), clock())
        self.wait = wait
        self._clock = clock
        self._later = later
        # Each block's handshakes waiting (until when, who), the next block to serve first.
        self._lines: OrderedDict[str, deque[tuple[float, _Waiting]]] = OrderedDict()
        self._timer = False

    def ask(self, block: str, handshake: _Waiting) -> bool:
        """True: ``handshake`` goes on now; False: it waits for its turn (``turn()``, or
        ``turn_refused()`` after :attr:`wait` seconds)."""
        now = self._clock()
        if not self._lines and self._bucket.take(now):
            return True
        self._lines.setdefault(block, deque()).append((now + self.wait, handshake))
        self._schedule(now)
        return False

    def _schedule(self, now: float) -> None:
        if self._timer or not self._lines:
            return
        self._timer = True
        delay = max(0.001, self._bucket.wait(now))
        if self._later is not None:
            self._later(delay, self._serve)
        else:
            asyncio.get_running_loop().call_later(delay, self._serve)

    def _serve(self) -> None:
        self._timer = False
        now = self._clock()
        while self._lines:
            block, line = next(iter(self._lines.items()))
            until, handshake = line[0]
            gone = handshake.turn_gone()
            late = not gone and now >= until
            if not (gone or late) and not self._bucket.take(now):
                break
            line.popleft()
            if line and not (gone or late):
                self._lines.move_to_end(block)  # the next block's turn
            elif not line:
                del self._lines[block]
            if late:
                handshake.turn_refused()
            elif not gone:
                handshake.turn()
        self._schedule(now)


# ---------------------------------------------------------------------- connections

# What an open connection is doing. The first three may be shed, in this order (oldest first
# within each), to make room for a newcomer when the server or an address is at its ceiling.
WAITING = "waiting"  # for its (next) request's headers
IDLE = "idle"  # a kept-alive HTTP connection between requests
FRESH_WS = "fresh_ws"  # a WebSocket that has not said hello
BUSY = "busy"  # an HTTP request being served
LIVE_WS = "live_ws"  # a WebSocket that said hello
SHED_ORDER = (WAITING, IDLE, FRESH_WS)
_STATES = (*SHED_ORDER, BUSY, LIVE_WS)
# Refused connections wait at most this long for their request (to answer it); at most
# MAX_REFUSED of them are held at once, the oldest closed first.
REFUSED_HEADER_SECONDS = 2.0
MAX_REFUSED = 256
# A handshake refused by the gate is answered after this delay: a flooder that reconnects at
# once would otherwise cost a refusal every few milliseconds.
REFUSAL_DELAY = 0.5
# A socket closed for flooding stops being read; it is dropped this long after its close
# frame went out, whether the client answered it or not.
FLOOD_DROP_SECONDS = 1.0
# The most bytes of a request head the guard reads itself (a refused connection's, a health
# check's).
MAX_HEAD_BYTES = 8192
# Where a trusted proxy's connections are counted until their request names the client.
PROXIED = "(proxied)"
# File descriptors kept back from the connection ceiling (database, worker pipes, logs).
FD_RESERVE = 256


class _Shedable(Protocol):
    def shed(self) -> None: ...


@dataclass(eq=False, slots=True)
class _Entry:
    address: str
    protocol: _Shedable
    state: str | None = None  # None once forgotten


class Connections:
    """Every open connection of one server, counted from the moment the TCP connection is
    made (before any byte of a request), by client address block and by what it is doing.

    At ``per_address`` connections from one block, or ``ceiling`` in all, a newcomer makes
    room by shedding the oldest connection that only holds a slot (waiting for its headers,
    kept alive between requests, a WebSocket without hello): of its own block, or of
    anyone at the ceiling. When nothing can be shed it is refused (:meth:`open` says how).
    A trusted proxy's connections (``exempt``) are counted apart (:data:`PROXIED`) until
    their request names the client (:meth:`claim`); then they count for the client's
    block like its own connections.

    >>> class Conn:
    ...     def shed(self): print("shed")
    >>> connections = Connections(ceiling=3, per_address=2)
    >>> a = connections.open("10.0.0.1", Conn())[0]; b = connections.open("10.0.0.1", Conn())[0]
    >>> connections.move(a, BUSY)
    >>> c, refused = connections.open("10.0.0.1", Conn())     # b was waiting: it goes
    shed
    >>> connections.move(c, BUSY); connections.open("10.0.0.1", Conn())[1].code
    'too_many_connections'
    >>> connections.open("10.0.0.2", Conn())[1] is None, connections.total
    (True, 3)
    """

    def __init__(self, ceiling: int, per_address: int) -> None:
        self.ceiling = ceiling
        self.per_address = per_address
        self.total = 0
        self.shed_count = 0
        self.refused_count = 0
        # Per state, then per address and state: entries oldest first (dicts as ordered sets).
        self._states: dict[str, OrderedDict[_Entry, None]] = {s: OrderedDict() for s in _STATES}
        self._addresses: dict[str, dict[str, OrderedDict[_Entry, None]]] = {}
        self._refused: OrderedDict[_Entry, None] = OrderedDict()
        # The entry of an HTTP connection being upgraded, for its WebSocket protocol to take.
        self.handing: _Entry | None = None

    def count(self, address: str) -> int:
        """Connections ``address`` (a block) holds (refused ones not counted)."""
        states = self._addresses.get(address)
        return 0 if states is None else sum(len(e) for e in states.values())

    def open(self, address: str, protocol: _Shedable,
             exempt: bool = False) -> tuple[_Entry, Refusal | None]:  # fmt: skip
        """Count a new connection from ``address`` (a block; ``exempt``: a trusted proxy's,
        not held to ``per_address``); a :class:`Refusal` if it is not to be served."""
        entry = _Entry(PROXIED if exempt else address, protocol)
        refusal = None
        if not exempt and self.count(address) >= self.per_address and not self._shed(address):
            refusal = self._too_many()
        elif self.total >= self.ceiling and not self._shed(None):
            refusal = Refusal("busy", "the server holds as many connections as it can; "
                              "try again in a moment", 503)
        if refusal is None:
            self._add(entry, WAITING)
        else:
            self.refused_count += 1
            self.refuse(entry)
        return entry, refusal

    def claim(self, entry: _Entry, address: str) -> Refusal | None:
        """A trusted proxy's connection ``entry`` serves ``address`` (the block its request's
        X-Forwarded-For names, or the proxy's own without one): counted for it from now on,
        and held to ``per_address`` like the block's own connections (the block's oldest
        idle one shed to make room); a :class:`Refusal` for the request when nothing can be.

        >>> class Conn:
        ...     def shed(self): print("shed")
        >>> connections = Connections(ceiling=10, per_address=1)
        >>> a = connections.open("10.0.0.1", Conn(), exempt=True)[0]
        >>> b = connections.open("10.0.0.1", Conn(), exempt=True)[0]
        >>> connections.count(PROXIED), connections.claim(a, "203.0.113.9")
        (2, None)
        >>> connections.move(a, BUSY); connections.claim(b, "203.0.113.9").code
        'too_many_connections'
        """
        if entry.state is None or entry.address == address:
            return None
        refusal = None
        if self.count(address) >= self.per_address and not self._shed(address):
            refusal = self._too_many()
        if entry.state is not None:  # (not shed itself)
            state = entry.state
            self._remove(entry)
            entry.address = address
            self._add(entry, state)
        return refusal

    def _too_many(self) -> Refusal:
        return Refusal("too_many_connections", f"at most {self.per_address} connections "
                       "from one address at once (limit open_connections_per_address)", 429)

    def refuse(self, entry: _Entry) -> None:
        """Stop counting ``entry``: it is answered with a refusal and closed."""
        self._remove(entry)
        self._refused[entry] = None
        while len(self._refused) > MAX_REFUSED:
            oldest, _ = self._refused.popitem(last=False)
            oldest.protocol.shed()

    def move(self, entry: _Entry, state: str) -> None:
        """``entry`` now does ``state`` (nothing if it was forgotten or refused)."""
        if entry.state is None or entry.state == state:
            return
        self._remove(entry)
        self._add(entry, state)

    def close(self, entry: _Entry) -> None:
        """The connection is gone."""
        self._remove(entry)
        self._refused.pop(entry, None)

    def _add(self, entry: _Entry, state: str) -> None:
        entry.state = state
        self._states[state][entry] = None
        states = self._addresses.get(entry.address)
        if states is None:
            states = self._addresses[entry.address] = {s: OrderedDict() for s in _STATES}
        states[state][entry] = None
        self.total += 1

    def _remove(self, entry: _Entry) -> None:
        state, entry.state = entry.state, None
        if state is None:
            return
        del self._states[state][entry]
        states = self._addresses[entry.address]
        del states[state][entry]
        self.total -= 1
        if not any(states.values()):
            del self._addresses[entry.address]

    def _shed(self, address: str | None) -> bool:
        if address is None:
            pools = [self._states[s] for s in SHED_ORDER]
        else:
            states = self._addresses.get(address, {})
            pools = [states[s] for s in SHED_ORDER if s in states]
        for pool in pools:
            if pool:
                oldest = next(iter(pool))
                self._remove(oldest)
                self.shed_count += 1
                oldest.protocol.shed()
                return True
        return False


class ConnectionHandle:
    """What the app tells the guard about a WebSocket it serves (found in the ASGI scope's
    ``extensions`` by :func:`connection_handle`; absent when the app runs without the guard,
    as under the test client)."""

    def __init__(self, protocol: _GuardedWebSocket) -> None:
        self._protocol = protocol

    def said_hello(self) -> None:
        """The socket said hello: it is no longer shed to make room for a newcomer."""
        self._protocol.track(LIVE_WS)

    def flooding(self) -> None:
        """The socket is about to be closed for flooding: read nothing more from it, and drop
        it shortly after its close frame, without waiting for the client's answer."""
        self._protocol.dropping = True


def connection_handle(scope: Scope) -> ConnectionHandle | None:
    """The guard's handle on the connection of a WebSocket ``scope``, if it has one."""
    handle = (scope.get("extensions") or {}).get(_EXTENSION)
    return handle if isinstance(handle, ConnectionHandle) else None


_EXTENSION = "flip7.connection"
# In a request's scope: the guard's refusal of it, which ClientBlock answers.
_REFUSED = "flip7.refused"


def raise_open_files() -> int:
    """Raise this process's soft limit on open files to its hard limit; the soft limit now
    (a large number where there is none)."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return 1 << 20
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard and soft != resource.RLIM_INFINITY:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 1 << 20 if soft == resource.RLIM_INFINITY else int(soft)


def connection_ceiling(max_connections: int, open_files: int) -> int:
    """The connections one server holds at once: ``max_connections``, lowered to leave
    :data:`FD_RESERVE` of the ``open_files`` limit for everything else.

    >>> connection_ceiling(10_000, 20_000), connection_ceiling(10_000, 1024)
    (10000, 768)
    """
    return max(16, min(max_connections, open_files - FD_RESERVE))


# ---------------------------------------------------------------------- the HTTP protocol


class _Guarded(asyncio.Protocol):
    """What the HTTP protocols below add to uvicorn's: a deadline from the moment a
    connection opens (or a request's first byte arrives) to the end of that request's
    headers (when it fires first, the connection is closed, with a 408 if part of a request
    came), the connection counted in :class:`Connections`, and refusals answered in JSON.

    It comes first in their bases, so that ``super()`` here is uvicorn's protocol."""

    header_timeout: float = 10.0
    # Not ``connections``: uvicorn's protocols have their own (the server's set).
    guard_connections: Connections | None = None
    guard_gate: HandshakeGate | None = None
    guard_clients: Clients = Clients()
    guard_health: HealthWatch | None = None
    app: ASGIApp  # uvicorn's: the app it serves, and the lifespan's state
    app_state: dict[str, Any]
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    client: tuple[str, int] | None
    headers: list[tuple[bytes, bytes]]  # the request's, once read (uvicorn's)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._guard_init(transport)

    def data_received(self, data: bytes) -> None:
        if self._refusal is not None:  # never parsed: answered with the refusal instead
            self._refused_data(data)
            return
        if self._first is not None:
            data = self._first_request(data)
            if not data:
                return
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._guard_lost()
        super().connection_lost(exc)

    def _guard_init(self, transport: asyncio.Transport) -> None:
        self._header_timer: asyncio.TimerHandle | None = None
        self._partial = False
        self._entry: _Entry | None = None
        self._refusal: Refusal | None = None
        self._refused_head = b""
        self._upgrade_later: Callable[[], None] | None = None  # waiting its turn
        # The first request's head while it may be a health check (None once it is not).
        self._first: bytes | None = b"" if self.guard_health is not None else None
        self._arm(self.header_timeout)
        peer = transport.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
        # A trusted proxy's connection: each request says whose it is (_claim).
        self._proxied = host in self.guard_clients.proxies
        self._unclaimed = self._proxied
        self._over: Refusal | None = None
        if self.guard_connections is not None:
            self._entry, refusal = self.guard_connections.open(
                self.guard_clients.block(host), self, exempt=self._proxied
            )
            if refusal is not None:
                # Its request is still read (briefly) so that the refusal answers it.
                self._refusal = refusal
                self._disarm()
                self._arm(min(REFUSED_HEADER_SECONDS, self.header_timeout))

    def _arm(self, seconds: float | None = None) -> None:
        if self._header_timer is None:
            delay = self.header_timeout if seconds is None else seconds
            self._header_timer = self.loop.call_later(delay, self._headers_too_late)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = None

    def _headers_too_late(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        if self._partial and self._refusal is None:
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
                b"content-length: 35\r\nconnection: close\r\n\r\n"
                b"the request headers came too slowly"
            )
        self.transport.close()

    def _request_begun(self) -> None:
        """A request's first byte: its headers are due within :attr:`header_timeout`."""
        self._partial = True
        self._unclaimed = self._proxied
        self._arm()
        self.track(WAITING)

    def _headers_done(self) -> None:
        self._disarm()
        self._partial = False
        self.track(BUSY)
        self._claim()

    def _claim(self) -> None:
        """A trusted proxy's request names its client: the connection counts for the
        client's block from now on (:meth:`Connections.claim`). Over the block's share the
        request is refused: by :class:`ClientBlock` (told in the request's scope, which
        the app's task, created but not yet run, reads), or as a handshake (:meth:`_upgrade`)."""
        if not self._unclaimed:
            return
        self._unclaimed, self._over = False, None
        if self._entry is None or self.guard_connections is None:
            return
        clients = self.guard_clients
        block = clients.block(clients.client(self.client[0] if self.client else "unknown",
                                             self.headers))  # fmt: skip
        self._over = self.guard_connections.claim(self._entry, block)
        scope = getattr(self, "scope", None)
        if self._over is not None and isinstance(scope, dict):
            extensions = scope.get("extensions")
            if not isinstance(extensions, dict):
                extensions = scope["extensions"] = {}
            extensions[_REFUSED] = self._over

    def track(self, state: str) -> None:
        if self._entry is not None and self.guard_connections is not None:
            self.guard_connections.move(self._entry, state)

    def shed(self) -> None:
        """Close this connection to make room: a request begun is answered 503 ``busy``, a
        refused one its refusal at once (it was held to be answered later: more than
        :data:`MAX_REFUSED` at once, and through a proxy a close with no answer would be
        the proxy's 502)."""
        self._disarm()
        if self.transport.is_closing():
            return
        if self._refusal is not None:
            self.transport.write(self._refusal.http_bytes())
        elif self._partial:
            self.transport.write(Refusal("busy", "the server is making room for other "
                                         "connections; try again", 503).http_bytes())
        self.transport.close()

    def _refused_data(self, data: bytes) -> None:
        """Data of a refused connection: wait for the end of its request's headers, then
        answer with the refusal (the request itself is never parsed nor served)."""
        if self._refusal is None or self.transport.is_closing():
            return
        self._refused_head = (self._refused_head + data)[-MAX_HEAD_BYTES:]
        head = self._refused_head
        # A health check is answered even at the ceiling: a proxy must not take out a busy
        # process (and close its players' sockets) for being busy.
        if (b"\r\n\r\n" in head or len(head) >= MAX_HEAD_BYTES) and not (
            health_request(head) and self._answer_health()
        ):
            self._answer_refusal()

    def _first_request(self, data: bytes) -> bytes:
        """The bytes of a connection's first request to parse now: none while they may
        still be a health check's, none once a health check was answered."""
        head, self._first = (self._first or b"") + data, None
        verdict = health_request(head)
        if verdict is None:  # held, as a request begun (the parser has not seen it)
            self._first = head
            self._request_begun()
            return b""
        if verdict and self._answer_health():
            return b""
        return head

    def _answer_health(self) -> bool:
        """Answer a health check here, from :class:`HealthWatch` (False without one)."""
        watch = self.guard_health
        if watch is None:
            return False
        self._disarm()
        with contextlib.suppress(Exception):  # a pipelined request is not read
            self.transport.pause_reading()
        if watch.begin():
            watch.start(self.app, self.app_state)
        if not watch.answer(self._write_health):
            self.loop.call_later(HEALTH_WAIT_SECONDS, watch.late, self._write_health)
        return True

    def _write_health(self, answer: bytes) -> None:
        if not self.transport.is_closing():
            self.transport.write(answer)
            self.transport.close()

    def _answer_refusal(self) -> None:
        self._disarm()
        if self._refusal is not None and not self.transport.is_closing():
            self.transport.write(self._refusal.http_bytes())
            self.transport.close()

    def _upgrade(self, upgrade: Callable[[], None]) -> None:
        """Hand the connection over to the WebSocket protocol, unless the handshake gate
        refuses it: then it is answered 429, after :data:`REFUSAL_DELAY`."""
        self._claim()  # (h11 upgrades before its headers are done)
        clients = self.guard_clients
        address = clients.block(clients.client(self.client[0] if self.client else "unknown",
                                               self.headers))  # fmt: skip
        refusal = self._over
        if refusal is None and self.guard_gate is not None:
            refusal = self.guard_gate.check(address)
        if refusal is not None:
            self._refusal = refusal
            if self._entry is not None and self.guard_connections is not None:
                self.guard_connections.refuse(self._entry)
            with contextlib.suppress(Exception):
                self.transport.pause_reading()
            self.loop.call_later(REFUSAL_DELAY, self._answer_refusal)
            return
        if self.guard_gate is not None and not self.guard_gate.turns.ask(address, self):
            self._upgrade_later = upgrade
            with contextlib.suppress(Exception):
                self.transport.pause_reading()
            return
        self._upgrade_now(upgrade)

    def turn(self) -> None:
        """The handshake's turn came (:class:`HandshakeTurns`)."""
        upgrade, self._upgrade_later = self._upgrade_later, None
        if upgrade is None or self.transport.is_closing():
            return
        with contextlib.suppress(Exception):
            self.transport.resume_reading()
        self._upgrade_now(upgrade)

    def turn_refused(self) -> None:
        self._upgrade_later = None
        self._refusal = Refusal("busy", "the server is taking WebSocket connections in "
                                "turn and yours waited too long; try again", 503, 1.0)
        if self._entry is not None and self.guard_connections is not None:
            self.guard_connections.refuse(self._entry)
        self._answer_refusal()

    def turn_gone(self) -> bool:
        return self._upgrade_later is None or self.transport.is_closing()

    def _upgrade_now(self, upgrade: Callable[[], None]) -> None:
        entry, self._entry = self._entry, None
        if self.guard_connections is None or entry is None:
            upgrade()
            return
        self.guard_connections.handing = entry
        try:
            upgrade()
        finally:
            if self.guard_connections.handing is entry:  # a WebSocket protocol that is not ours
                self.guard_connections.close(entry)
            self.guard_connections.handing = None

    def _guard_lost(self) -> None:
        self._disarm()
        self._upgrade_later = None
        if self._entry is not None and self.guard_connections is not None:
            self.guard_connections.close(self._entry)
        self._entry = None


def forwarded_for(headers: list[tuple[bytes, bytes]] | None) -> str | None:
    """The client a trusted proxy forwards for: the last address of ``X-Forwarded-For``
    (the one the proxy itself added), None without one.

    >>> forwarded_for([(b"x-forwarded-for", b"203.0.113.9, 10.0.0.7")])
    '10.0.0.7'
    >>> forwarded_for([(b"host", b"x")]) is None
    True
    """
    for name, value in reversed(headers or []):
        if name.lower() == b"x-forwarded-for":
            last = value.decode("latin-1").rsplit(",", 1)[-1].strip()
            return last or None
    return None


def _httptools_protocol() -> type[asyncio.Protocol] | None:
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools is optional in uvicorn; h11 is not
        return None

    class GuardedHttpTools(_Guarded, HttpToolsProtocol):
        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._request_begun()

        def on_headers_complete(self) -> None:
            self._headers_done()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.timeout_keep_alive_task is not None:  # kept alive, nothing pipelined
                self.track(IDLE)

        def handle_websocket_upgrade(self) -> None:
            self._upgrade(super().handle_websocket_upgrade)

    return GuardedHttpTools


class _GuardedH11(_Guarded, H11Protocol):
    def data_received(self, data: bytes) -> None:
        # h11 has no parser callbacks: data that comes while the peer is IDLE begins a
        # request, whose headers are complete once the peer has left IDLE. The data of a
        # refused connection is never parsed (``_Guarded.data_received``).
        waiting = self._refusal is None and self.conn.their_state is h11.IDLE
        if waiting:
            self._request_begun()
        super().data_received(data)
        if waiting and self.conn.their_state is not h11.IDLE:
            self._headers_done()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.timeout_keep_alive_task is not None:
            self.track(IDLE)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._upgrade(lambda: H11Protocol.handle_websocket_upgrade(self, event))


def header_timeout_protocol(
    seconds: float,
    http: str = "auto",
    connections: Connections | None = None,
    gate: HandshakeGate | None = None,
    clients: Clients | None = None,
    health: HealthWatch | None = None,
) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (httptools if installed, else h11; or the one named by
    ``http``) that closes a connection whose request headers are not complete ``seconds``
    after it opened, or after the request's first byte (silent sockets and slowloris),
    counts its connections in ``connections`` by the blocks of ``clients``, lets ``gate``
    refuse WebSocket handshakes and ``health`` answer health checks."""
    base: type[asyncio.Protocol] | None = (
        _httptools_protocol() if http in ("auto", "httptools") else None
    )
    if base is None:
        base = _GuardedH11
    attributes = {"header_timeout": float(seconds), "guard_connections": connections,
                  "guard_gate": gate, "guard_clients": clients or Clients(),
                  "guard_health": health, "__module__": __name__}  # fmt: skip
    protocol: type[asyncio.Protocol] = type(base.__name__, (base,), attributes)
    return protocol


# ---------------------------------------------------------------------- the WebSocket protocol


class _GuardedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, counted in :class:`Connections` (taken over from the
    HTTP connection it was upgraded from), with a :class:`ConnectionHandle` for the app."""

    guard_connections: Connections | None = None

    def connection_made(self, transport: BaseTransport) -> None:
        super().connection_made(transport)
        self.dropping = False
        self._entry: _Entry | None = None
        if self.guard_connections is not None and self.guard_connections.handing is not None:
            self._entry, self.guard_connections.handing = self.guard_connections.handing, None
            self._entry.protocol = self
            self.track(FRESH_WS)

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the app's task is created, not yet run: it sees this
            extensions = scope.get("extensions")
            if extensions is None:
                extensions = scope["extensions"] = {}
            extensions[_EXTENSION] = ConnectionHandle(self)

    def track(self, state: str) -> None:
        if self._entry is not None and self.guard_connections is not None:
            self.guard_connections.move(self._entry, state)

    def shed(self) -> None:
        """Close this socket to make room for a newcomer: 1013 (try again later)."""
        if self.transport.is_closing():
            return
        if self.handshake_complete and not self.close_sent:
            with contextlib.suppress(Exception):
                self.conn.send_close(
                    CloseCode.TRY_AGAIN_LATER, "the server is making room; reconnect later"
                )
                self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
        self.transport.close()

    async def send(self, message: ASGISendEvent) -> None:
        await super().send(message)
        if self.dropping and message.get("type") == "websocket.close" and self.close_sent:
            # A flooder's frames are not even parsed any more.
            self.read_paused = False  # so that the app's next receive() does not resume it
            with contextlib.suppress(Exception):
                self.transport.pause_reading()
            if self.close_timer is not None:
                self.close_timer.cancel()
            self.close_timer = self.loop.call_later(FLOOD_DROP_SECONDS, self.transport.close)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._entry is not None and self.guard_connections is not None:
            self.guard_connections.close(self._entry)
        self._entry = None
        super().connection_lost(exc)


def websocket_protocol(connections: Connections | None) -> type[asyncio.Protocol]:
    """uvicorn's WebSocket protocol counting its sockets in ``connections``."""
    protocol: type[asyncio.Protocol] = type(
        "GuardedWebSocket", (_GuardedWebSocket,),
        {"guard_connections": connections, "__module__": __name__},
    )  # fmt: skip
    return protocol


class UvicornOptions(TypedDict, total=False):
    """What :func:`server_config` passes on to :class:`uvicorn.Config` as it is."""

    log_level: str | int | None
    log_config: dict[str, object] | str | None
    access_log: bool


def server_config(
    app: ASGIApp, settings: Settings, host: str = "127.0.0.1", port: int = 8000,
    http: str = "auto", ws: type[asyncio.Protocol] | None = None,
    **options: Unpack[UvicornOptions],
) -> Config:
    """The uvicorn configuration of ``flip7 serve``: the header deadline, the keep-alive
    timeout, the connections counted (per address block and in all, shedding idle ones to
    make room), the WebSocket handshake gate, health checks answered by the guard
    (:class:`HealthWatch`), forwarded headers believed from the trusted proxies only
    (:class:`ClientBlock`), and the frame size. It raises the process's limit on
    open files to the most allowed, and sets the ceiling under it. ``http`` names uvicorn's
    HTTP protocol under the guard's ("auto", "h11", "httptools"), ``ws`` replaces the
    WebSocket protocol; ``options`` go to :class:`uvicorn.Config` as they are (logging)."""
    ceiling = connection_ceiling(settings.max_connections, raise_open_files())
    connections = Connections(ceiling, settings.open_connections_per_address)
    wiring = getattr(getattr(app, "state", None), "wiring", None)
    gate = getattr(getattr(wiring, "sockets", None), "handshakes", None)
    if not isinstance(gate, HandshakeGate):
        gate = None
    return Config(
        app,
        host=host,
        port=port,
        http=header_timeout_protocol(settings.header_timeout, http, connections, gate,
                                     Clients.of(settings), HealthWatch()),
        ws=ws if ws is not None else websocket_protocol(connections),
        timeout_keep_alive=int(KEEP_ALIVE_SECONDS),
        # Counted and shed above, at the connection: uvicorn's own ceiling would answer
        # everyone alike, with bare text.
        limit_concurrency=None,
        # Forwarded headers are read by ClientBlock (protect), from --trusted-proxy peers
        # only, and as the guard reads them. uvicorn's own reading would believe any
        # loopback peer (its default, or $FORWARDED_ALLOW_IPS) and take another address
        # of the header (the last one not a proxy's, which a client beside the proxy sets).
        proxy_headers=False,
        ws_max_size=WS_MAX_BYTES,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        **options,
    )
