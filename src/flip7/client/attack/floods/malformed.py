"""The flood of odd input: bodies, paths and frames a client should never send (lone
surrogates, invalid UTF-8, deep nesting, chunked oversize bodies, strings and huge numbers
as versions...), every case in turn."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from flip7.client.attack.flood import Flood
from flip7.client.table_client import table_url


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


class Malformed(Flood):
    """Odd input over REST and WebSocket, every case in turn; the codes name the case."""

    async def setup(self) -> None:
        address = self.addresses[0]
        made = await self.new_table(address, 3)
        self.table, self.token = made if made is not None else (self.control_table, "")
        table = self.table
        tables = "/api/tables"
        deep = _nested(20_000)
        self.cases: list[tuple[str, str, str, dict[str, Any]]] = [
            ("surrogate name", "POST", tables,
             {"content": b'{"name":"\\ud800","player":"\\udfff x","seats":3}'}),
            ("invalid utf-8", "POST", tables,
             {"content": b'{"name":"\xff\xfe","player":"\xc3(","seats":3}'}),
            ("deep nesting", "POST", tables,
             {"content": ('{"player":"x","rules":{"a":' + _nested(5000) + "}}").encode()}),
            ("deep nesting upload", "POST", "/api/replays", {"content": deep.encode()}),
            ("chunked oversize", "POST", tables, {"content": _chunks(200 * 1024)}),
            ("chunked oversize upload", "POST", "/api/replays",
             {"content": _chunks(4 * 1024 * 1024)}),
            ("seats as string", "POST", tables, {"json": {"player": "x", "seats": "3"}}),
            ("huge number", "POST", tables, {"content": b'{"player":"x","seats":1e400}'}),
            ("huge integer", "POST", tables,
             {"content": b'{"player":"x","seats":' + b"9" * 4000 + b"}"}),
            ("NaN", "POST", tables, {"content": b'{"player":"x","seats":NaN}'}),
            ("not an object", "POST", tables, {"content": b'[1,2,3]'}),
            ("rules not an object", "POST", tables, {"json": {"player": "x", "rules": [1]}}),
            ("turn timer as string", "POST", tables,
             {"json": {"player": "x", "turn_timer": "10"}}),
            ("upload null", "POST", "/api/replays", {"content": b"null"}),
            ("upload surrogate", "POST", "/api/replays",
             {"content": b'{"format":"flip7-record/1","players":["\\ud800","b"],'
                         b'"draws":[],"decisions":[]}'}),
            ("upload version string", "POST", "/api/replays",
             {"content": b'{"format":"flip7-record/1","players":["a","b","c"],'
                         b'"draws":"5","decisions":{"x":1}}'}),
            ("bad join body", "POST", f"/api/tables/{table}/join", {"json": {"player": 3}}),
            ("long token", "POST", f"/api/tables/{table}/start",
             {"headers": {"Authorization": "Bearer " + "t" * 6000}}),
            ("seat as text", "DELETE", f"/api/tables/{table}/seats/abc", {}),
            ("seat huge", "DELETE", f"/api/tables/{table}/seats/{'9' * 400}", {}),
            ("nul in path", "GET", "/api/tables/%00", {}),
            ("long path", "GET", "/api/tables/" + "a" * 6000, {}),
            ("traversal", "GET", "/api/games/..%2f..%2fetc%2fpasswd/replay", {}),
            ("offset as text", "GET", "/api/games/x/replay?offset=abc", {}),
            ("offset huge", "GET", "/api/games/x/replay?offset=" + "9" * 400, {}),
            ("limit negative", "GET", "/api/games/x/replay?offset=0&limit=-5", {}),
            ("wrong content type", "POST", tables,
             {"content": b"player=x", "headers": {"Content-Type": "text/plain"}}),
        ]  # fmt: skip
        self.frames = [
            '{"v":1,"type":"move","id":"m","version":"3","decision":"hit"}',
            '{"v":1,"type":"move","id":"m","version":1e400,"decision":"hit"}',
            '{"v":1,"type":"move","id":"m","version":' + "9" * 3000 + ',"decision":"hit"}',
            '{"v":1,"type":"move","id":"m","version":-1,"decision":"hit"}',
            '{"v":1,"type":"move","id":"\\ud800","version":0,"decision":"\\udfff"}',
            '{"v":1,"type":"move","id":' + _nested(1500) + ',"version":0,"decision":"hit"}',
            '{"v":"1","type":"hello"}',
            '{"v":1,"type":"hello","last_version":"0"}',
            '{"v":1,"type":"move","id":"m","version":0,"decision":"hit","x":1}',
            "null",
            "[]",
            '"\\ud800"',
        ]

    async def run(self, deadline: float) -> None:
        step = [0]

        async def work(index: int) -> None:
            address = self.addresses[index % len(self.addresses)]
            step[0] += 1
            label, method, path, kwargs = self.cases[step[0] % len(self.cases)]
            if isinstance(kwargs.get("content"), _Chunked):
                kwargs = {**kwargs, "content": kwargs["content"].stream()}
            await self.request(address, method, path, label, **kwargs)

        sockets = [self._socket(i, deadline) for i in range(2)]
        await asyncio.gather(
            self.workers(int(self.config.get("workers", 8)), deadline, work), *sockets
        )

    async def _socket(self, index: int, deadline: float) -> None:
        address = self.addresses[index % len(self.addresses)]
        url = table_url(self.url, self.table)
        hello = json.dumps({"v": 1, "type": "hello", "token": self.token or None})
        # Within the per-socket rate, so that the server parses every frame.
        await self.ws_frames(url, address, deadline, "ws", self.frames, hello=hello, gap=0.06)


class _Chunked:
    """A body sent with ``Transfer-Encoding: chunked`` (no Content-Length)."""

    def __init__(self, size: int) -> None:
        self.size = size

    async def stream(self) -> AsyncIterator[bytes]:
        chunk = b" " * 16384
        for _ in range(self.size // len(chunk)):
            yield chunk


def _chunks(size: int) -> _Chunked:
    return _Chunked(size)
