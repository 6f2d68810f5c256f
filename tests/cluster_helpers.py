"""Helpers for the scale-out tests: HAProxy running the documented recipe (deploy/haproxy.cfg),
and a cluster of ``flip7 serve`` processes behind it, both the tools' own
(flip7.client.services).

:class:`Proxy` does not write a configuration of its own: it reads ``deploy/haproxy.cfg`` and
changes only what ties it to a machine (:func:`render`), so that what the tests exercise is
the recipe an operator installs. :class:`Cluster` starts N :class:`ServerProcess` es (sharing
one PostgreSQL and one Redis URL, or each on a database of its own) with a Proxy in front.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
from conftest import missing
from server_helpers import ServerProcess, SyncSocket

from flip7.client import services
from flip7.client.services import (  # noqa: F401 - RECIPE, Proxy, render: for the tests
    HAPROXY,
    RECIPE,
    Proxy,
    render,
    which,
)
from flip7.client.table_client import Frame, TableView, hello
from flip7.server.base.settings import table_slot


def haproxy_path() -> str:
    """``$HAPROXY``, else haproxy on the PATH, else Debian's /usr/sbin/haproxy (which a
    non-root PATH lacks); skipped without it (failed when CI=true)."""
    path = which(HAPROXY)
    if path is None:
        missing("haproxy")
    assert path is not None
    return path


def scrape(url: str) -> dict[str, float]:
    """A process's Prometheus metrics (``flip7 serve --metrics``, ``url`` its /metrics): each
    sample's name, with its labels in braces when it has some, and its value."""
    from prometheus_client.parser import text_string_to_metric_families

    found: dict[str, float] = {}
    for family in text_string_to_metric_families(httpx.get(url, timeout=5).text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            found[sample.name + (f"{{{labels}}}" if labels else "")] = sample.value
    return found


class Cluster(services.Cluster):
    """``n`` ``flip7 serve`` processes and a :class:`Proxy` in front of them, their logs in a
    folder of their own (removed at :meth:`stop`; :meth:`log` still reads them).

    ``db_url`` is one URL shared by every process (PostgreSQL) or one per process;
    ``redis_url`` is passed to each as ``--redis`` (``None``: single-process servers, each on
    a database of its own), or one per process (the same server, one of them reached
    through a :class:`Relay`, say). ``extra_args`` go to every process's command line,
    ``process_args[i]`` to process i's alone (its ``--metrics`` address, say).

    Used as ``with Cluster(3, pg_url, redis_url) as cluster:``, then
    ``httpx.get(cluster.proxy_url + "/api/health")`` reaches one of the three.
    """

    def __init__(self, n: int, db_url: str | Sequence[str],
                 redis_url: str | Sequence[str] | None = None, *,
                 extra_args: Sequence[str] = (), seed: int | None = None,
                 bot_delay: float = 0.0,
                 process_args: Sequence[Sequence[str]] | None = None) -> None:  # fmt: skip
        db_urls = [db_url] * n if isinstance(db_url, str) else list(db_url)
        redis_urls = [redis_url] * n if redis_url is None or isinstance(redis_url, str) \
            else list(redis_url)
        own_args = [[] for _ in range(n)] if process_args is None else \
            [list(args) for args in process_args]
        if len(db_urls) != n or len(redis_urls) != n or len(own_args) != n:
            raise ValueError(f"{n} processes but {len(db_urls)} database URLs and "
                             f"{len(redis_urls)} Redis URLs")
        self.redis_url = redis_urls[0]  # process 0's
        self.workdir = Path(tempfile.mkdtemp(prefix="flip7-cluster-", dir="/tmp"))
        servers = [ServerProcess(url, seed=seed, bot_delay=bot_delay,
                                 extra_args=(["--redis", redis] if redis is not None else [])
                                 + list(extra_args) + own,
                                 log_path=self.workdir / f"app{i + 1}.log")
                   for i, (url, redis, own) in enumerate(zip(db_urls, redis_urls, own_args,
                                                             strict=True))]  # fmt: skip
        super().__init__(servers, self.workdir)
        # Tables created on each process by mark_by_tables.
        self.marker_tables: list[list[str]] = [[] for _ in self.servers]

    # ---- where things are

    @property
    def proxy_url(self) -> str:
        return self.proxy.url

    @property
    def proxy_ws_url(self) -> str:
        return self.proxy.ws_url

    def log(self, i: int) -> str:
        return self.servers[i].log_text()

    # ---- life

    def stop(self) -> None:
        try:
            super().stop()
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:  # fmt: skip
        if kind is not None:
            self.dump()
        self.stop()

    def dump(self) -> None:
        """Print every process's log and the proxy's (pytest shows them with a failure)."""
        for i in range(len(self.servers)):
            print(f"===== {self.name(i)} ({self.urls[i]})\n{self.log(i)[-4000:]}")
        print(f"===== haproxy\n{self.proxy.log()[-4000:]}")

    # ---- who answered

    def health(self, via: str | None = None, timeout: float = 5.0) -> httpx.Response:
        """``GET /api/health`` on a fresh connection (through the proxy by default), so that
        every call is balanced anew."""
        return httpx.get((via or self.proxy_url) + "/api/health", timeout=timeout)

    def mark_by_tables(self) -> list[list[str]]:
        """For processes each on a database of its own: create tables on each (straight, not
        through the proxy) until process ``i`` holds ``i + 1``, so that servers without a
        ``node`` id answer /api/health with different ``tables`` counts (:func:`identity`).
        The ids created, per process (also kept in ``marker_tables``); the first of process
        ``i``'s is in its slot (flip7.server.base.settings.table_slot), so that the proxy
        sends a socket for it to process ``i`` (these servers have no ``--slot``: more
        tables are made until one falls there)."""
        count = len(self.urls)
        for i, url in enumerate(self.urls):
            with httpx.Client(base_url=url, timeout=10) as client:
                n = client.get("/api/health").json()["tables"]
                mine = self.marker_tables[i]
                while n < i + 1 or not any(table_slot(t, count) == i for t in mine):
                    r = client.post("/api/tables", json={"player": f"Marker{i}-{n}",
                                                         "seats": 3})  # fmt: skip
                    assert r.status_code == 201, r.text
                    mine.append(r.json()["table"]["id"])
                    n += 1
                mine.sort(key=lambda t: table_slot(t, count) != i)
        return self.marker_tables

    def nodes(self) -> dict[str, int]:
        """Each running process's identity as its own /api/health tells it, to its index."""
        found: dict[str, int] = {}
        for i, server in enumerate(self.servers):
            if server.running:
                found[identity(self.health(server.url).json())] = i
        return found


def identity(health: dict[str, Any]) -> str:
    """Which process answered a /api/health: its ``node`` id. A server without ``node``
    (before the cluster core) is told apart by its number of tables, which the tests then
    make differ (:meth:`Cluster.mark_by_tables`)."""
    node = health.get("node")
    return str(node) if node is not None else f"tables={health['tables']}"


def poll(condition: Callable[[], bool], timeout: float, every: float = 0.02) -> float:
    """Wait until ``condition()`` holds; the seconds it took (AssertionError past
    ``timeout``)."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"not true after {timeout} s: {condition}")
        time.sleep(every)
    return time.monotonic() - start


def fresh_requests(url: str, count: int, timeout: float = 5.0) -> Iterator[httpx.Response]:
    """``count`` GETs of ``url``, each on a new connection."""
    for _ in range(count):
        yield httpx.get(url, timeout=timeout)


LOOSE = ["--limit", "frames_per_second_per_address=100000",
         "--limit", "frames_burst_per_address=100000",
         "--limit", "rate_per_second=100000", "--limit", "rate_burst=100000",
         "--limit", "joins_per_minute=100000", "--limit", "joins_burst=100000",
         "--limit", "tables_per_minute=100000", "--limit", "tables_burst=100000",
         "--limit", "handshakes_per_minute=100000",
         "--limit", "handshakes_burst=100000"]  # fmt: skip


class ClusterClient:
    """One socket, with every versioned update it was sent, in order (its frames read by the
    tools' own :class:`~flip7.client.table_client.TableView`)."""

    def __init__(self, url: str, table_id: str, token: str | None) -> None:
        self.ws = SyncSocket(url.replace("http", "ws") + f"/ws/tables/{table_id}")
        self.token = token
        self.view = TableView()
        self.updates: list[tuple[int, str]] = []
        self.chat: list[str] = []
        self.results: list[dict[str, Any]] = []
        self.ws.send_text(hello(token))
        welcome = self.recv()
        assert welcome["type"] == "welcome", welcome

    @property
    def state(self) -> dict[str, Any]:
        return {} if self.view.state is None else self.view.state.data

    @property
    def version(self) -> int:
        return -1 if self.view.version is None else self.view.version

    def recv(self) -> dict[str, Any]:
        frame = Frame.parse(self.ws.receive_text())
        if frame.type == "update" and frame.version > self.version:
            self.updates.append((frame.version, json.dumps(frame.data["events"])))
        self.view.keep(frame)
        if frame.type == "chat":
            self.chat.append(frame.data["chat"]["text"])
        if frame.type in ("result", "error"):
            self.results.append(frame.data)
        return frame.data

    def until_version(self, version: int, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while self.version < version:
            assert time.monotonic() < deadline, f"stuck at {self.state.get('version')}"
            self.recv()

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send_text(json.dumps(message))


class Relay:
    """A TCP relay on a free loopback port in front of ``upstream`` (host, port), on a
    thread of its own (it forwards whatever the test's own loop is busy with), so that a
    test can cut one process off a service as a network partition would: the process keeps
    running, and only its connections through the relay suffer.

    :meth:`cut` closes every relayed connection and closes new ones at once (a reset: the
    process sees its connections fail); :meth:`hang` stops forwarding, both ways, without
    closing anything, and new connections lead nowhere (a black hole: what was sent waits,
    as packets being retransmitted do, and goes through once healed); :meth:`heal`
    forwards again. Used as ``with Relay(("127.0.0.1", 5432)) as relay:``.
    """

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._flowing = asyncio.Event()  # set: forwarding; clear: hung
        self._refusing = False  # cut: new connections are closed at once
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, name="relay",
                                        daemon=True)  # fmt: skip

    def url(self, url: str) -> str:
        """``url`` (postgresql:// or redis://) with its port replaced by the relay's."""
        host_port = f"{self.upstream[0]}:{self.upstream[1]}"
        assert host_port in url, (host_port, url)
        return url.replace(host_port, f"{services.LOOPBACK}:{self.port}", 1)

    def __enter__(self) -> Relay:
        self._thread.start()
        self._call(self._listen())
        return self

    def __exit__(self, *exc: object) -> None:
        self._call(self._stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()

    def cut(self) -> None:
        self._call(self._cut())

    def hang(self) -> None:
        self._call(self._hang())

    def heal(self) -> None:
        self._call(self._heal())

    def _call(self, coro: Coroutine[Any, Any, None]) -> None:
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    async def _listen(self) -> None:
        self._flowing.set()
        self._server = await asyncio.start_server(self._accepted, services.LOOPBACK, 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        if self._server is not None:
            self._server.close()
        await self._cut()
        # Nothing left pending when the loop stops (the pipes end as their sockets close).
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)

    async def _cut(self) -> None:
        self._refusing = True
        self._flowing.set()  # hung pipes wake up, find their socket closed, and end
        for writer in list(self._writers):
            writer.close()
        self._writers.clear()

    async def _hang(self) -> None:
        self._flowing.clear()

    async def _heal(self) -> None:
        self._refusing = False
        self._flowing.set()

    async def _accepted(self, reader: asyncio.StreamReader,
                        writer: asyncio.StreamWriter) -> None:  # fmt: skip
        if self._refusing:
            writer.close()
            return
        self._writers.add(writer)
        await self._flowing.wait()  # a black hole: the connection hangs until healed
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            self._writers.discard(writer)
            writer.close()
            return
        if writer not in self._writers:  # cut meanwhile
            up_writer.close()
            return
        self._writers.add(up_writer)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Forward one way until either side closes; both are closed then."""
        try:
            while data := await reader.read(65536):
                await self._flowing.wait()
                if writer not in self._writers:
                    break
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            self._writers.discard(writer)
            writer.close()
