"""The floods of sockets: WebSockets sending frames flat out to the control table, and
idle connections (silent TCP sockets, HTTP requests whose headers never end, WebSockets
that never say hello), each reopened when the server closes it."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Awaitable, Callable

from flip7.client.attack.flood import REQUEST_TIMEOUT, Flood
from flip7.client.table_client import table_url


class Frames(Flood):
    BINARY = b"\x00" * 1024
    TEXTS = (
        '{"v":1,"type":"ping"}',
        "{not json",
        '{"v":1,"type":"move","id":"x","version":"3","decision":"hit"}',
        "x" * 1024,
    )

    async def run(self, deadline: float) -> None:
        sockets = int(self.config.get("frame_sockets", 20))
        url = table_url(self.url, self.control_table)
        await asyncio.gather(*(self._socket(i, url, deadline) for i in range(sockets)))

    async def _socket(self, index: int, url: str, deadline: float) -> None:
        address = self.addresses[index % len(self.addresses)]
        frames = (self.BINARY,) if index % 2 == 0 else self.TEXTS
        # Closed: reconnect, as an attacker would, but not in a spin.
        await self.ws_frames(url, address, deadline, "frames", frames, reconnect=0.01)


class Idle(Flood):
    async def run(self, deadline: float) -> None:
        count = int(self.config.get("idle", 1000))
        opening = asyncio.Semaphore(32)  # connections being opened at once
        self.held: Counter[str] = Counter()
        self.peak: Counter[str] = Counter()
        kinds = (("tcp", self._tcp), ("headers", self._headers), ("ws", self._ws))
        tasks = [
            self._hold(kind, hold, i, opening, deadline)
            for i in range(count)
            for kind, hold in kinds
        ]
        await asyncio.gather(*tasks)
        self.figures.note(
            "most open at once: " + ", ".join(f"{k} {self.peak[k]}" for k, _ in kinds)
        )

    async def _hold(
        self,
        kind: str,
        hold: Callable[[str, asyncio.Semaphore, float], Awaitable[str | None]],
        index: int,
        opening: asyncio.Semaphore,
        deadline: float,
    ) -> None:
        address = self.addresses[index % len(self.addresses)]
        while time.monotonic() < deadline:
            outcome = await hold(address, opening, deadline)
            if outcome is not None:
                self.figures.codes[f"{kind}: {outcome}"] += 1
            await asyncio.sleep(0.05 + 0.1 * self.rng.random())

    def _opened(self, kind: str) -> None:
        self.figures.sent += 1
        self.held[kind] += 1
        self.peak[kind] = max(self.peak[kind], self.held[kind])

    def _closed(self, kind: str, by_server: bool) -> None:
        self.held[kind] -= 1
        if by_server:
            self.figures.answered += 1
            self.figures.refused += 1

    async def _open(
        self, address: str, opening: asyncio.Semaphore
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        async with opening:
            try:
                return await asyncio.wait_for(
                    asyncio.open_connection(self.host, self.port, local_addr=(address, 0)),
                    REQUEST_TIMEOUT,
                )
            except (OSError, TimeoutError) as exc:
                self.figures.sent += 1
                self.failure(exc, "connect")
                await asyncio.sleep(0.5)
                return None

    async def _tcp(self, address: str, opening: asyncio.Semaphore, deadline: float) -> str | None:
        opened = await self._open(address, opening)
        if opened is None:
            return None
        reader, writer = opened
        self._opened("tcp")
        try:
            data = await asyncio.wait_for(reader.read(256), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            self._closed("tcp", by_server=False)
            return "held to the end"
        except OSError:
            data = b""
        finally:
            writer.close()
        self._closed("tcp", by_server=True)
        return _first_line(data) or "closed by the server"

    async def _headers(
        self, address: str, opening: asyncio.Semaphore, deadline: float
    ) -> str | None:
        opened = await self._open(address, opening)
        if opened is None:
            return None
        reader, writer = opened
        self._opened("headers")
        line = 0
        try:
            writer.write(f"GET /api/health HTTP/1.1\r\nHost: {self.host}\r\n".encode())
            while time.monotonic() < deadline:
                try:
                    data = await asyncio.wait_for(
                        reader.read(256), min(2.0, max(0.0, deadline - time.monotonic()))
                    )
                except TimeoutError:
                    line += 1
                    writer.write(f"X-Slow-{line}: {'a' * 10}\r\n".encode())
                    continue
                self._closed("headers", by_server=True)
                return _first_line(data) or "closed by the server"
        except OSError:
            self._closed("headers", by_server=True)
            return "reset by the server"
        finally:
            writer.close()
        self._closed("headers", by_server=False)
        return "held to the end"

    async def _ws(self, address: str, opening: asyncio.Semaphore, deadline: float) -> str | None:
        async with opening:
            if time.monotonic() >= deadline:  # queued behind slow refusals: the flood is over
                return None
            ws = await self.ws_connect(self.raw_socket(address, deadline))
        if ws is None:
            return None
        self.figures.sent -= 1  # ws_connect counted it; _opened counts it again
        self._opened("ws")
        try:
            await asyncio.wait_for(ws.wait_closed(), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            self._closed("ws", by_server=False)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1)
            return "held to the end"
        self._closed("ws", by_server=True)
        rcvd = ws.protocol.close_rcvd
        if rcvd is not None and rcvd.code == 1011:
            self.figures.server_errors += 1
        return f"closed {rcvd.code}" if rcvd is not None else "dropped by the server"


def _first_line(data: bytes) -> str:
    line = data.split(b"\r\n", 1)[0].decode(errors="replace").strip()
    return f"answered {line[:60]!r}" if line else ""
