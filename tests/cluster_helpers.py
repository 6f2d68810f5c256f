"""Helpers for the scale-out tests: HAProxy running the documented recipe (deploy/haproxy.cfg),
and a cluster of ``flip7 serve`` processes behind it.

:class:`Proxy` does not write a configuration of its own: it reads ``deploy/haproxy.cfg`` and
changes only what ties it to a machine (:func:`render`), so that what the tests exercise is
the recipe an operator installs. :class:`Cluster` starts N :class:`ServerProcess` es (sharing
one PostgreSQL and one Redis URL, or each on a database of its own) with a Proxy in front.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
from conftest import missing
from server_helpers import ServerProcess, SyncSocket, free_port, stop_process

# The rendering of the recipe lives with the benchmark that also runs it (flip7 cluster-bench).
from flip7.client.clusterbench import (  # noqa: F401 - re-exported for the tests
    BACKEND,
    DROPPED_IN_GLOBAL,
    FRONTEND,
    SECTIONS,
    STATS,
    RecipeError,
    render,
)

RECIPE = Path(__file__).resolve().parent.parent / "deploy" / "haproxy.cfg"
HAPROXY = os.environ.get("HAPROXY", "haproxy")


def haproxy_path() -> str:
    """``$HAPROXY``, else haproxy on the PATH, else Debian's /usr/sbin/haproxy (which a
    non-root PATH lacks); skipped without it (failed when CI=true)."""
    path = shutil.which(HAPROXY) or shutil.which(HAPROXY, path="/usr/sbin:/usr/local/sbin")
    if path is None:
        missing("haproxy")
    assert path is not None
    return path


class Proxy:
    """HAProxy on free loopback ports with the recipe, in front of ``servers``
    (``"127.0.0.1:8001"``...; HAProxy calls them app1, app2...). ``url`` is where players
    connect, ``stats_url`` HAProxy's own page (``/health``, ``/stats``, ``/metrics``)."""

    def __init__(self, servers: Sequence[str], workdir: Path | None = None) -> None:
        self.servers = list(servers)
        self._own_workdir = workdir is None
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="haproxy-", dir="/tmp"))
        self.port = free_port()
        self.stats_port = free_port()
        self.socket_path = self.workdir / "admin.sock"
        self.config_path = self.workdir / "haproxy.cfg"
        self.log_path = self.workdir / "haproxy.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def stats_url(self) -> str:
        return f"http://127.0.0.1:{self.stats_port}"

    def config(self) -> str:
        return render(RECIPE.read_text(), port=self.port, stats_port=self.stats_port,
                      servers=self.servers, socket_path=self.socket_path)  # fmt: skip

    def write_config(self) -> Path:
        self.config_path.write_text(self.config())
        return self.config_path

    def check(self) -> subprocess.CompletedProcess[str]:
        """``haproxy -c``: whether HAProxy accepts the configuration (and its warnings)."""
        return subprocess.run([haproxy_path(), "-c", "-f", str(self.write_config())],
                              capture_output=True, text=True, timeout=30)  # fmt: skip

    def start(self, timeout: float = 15.0) -> Proxy:
        """Validate, start ``haproxy -db`` (foreground) and wait until it accepts players and
        its stats socket answers."""
        path = haproxy_path()
        checked = self.check()
        if checked.returncode != 0:
            raise RuntimeError(f"haproxy -c refused the configuration:\n{checked.stdout}"
                               f"{checked.stderr}\n{self.config_path.read_text()}")
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child holds it
        try:
            self.proc = subprocess.Popen([path, "-db", "-f", str(self.config_path)],
                                         stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)  # fmt: skip
        finally:
            log.close()
        deadline = time.monotonic() + timeout
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    pass
                self.show_stat()
                return self
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"haproxy did not start:\n{self.log()}")
            time.sleep(0.02)

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None

    def close(self) -> None:
        """Stop it and remove its files (when it made its own folder)."""
        self.stop()
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def admin(self, command: str, timeout: float = 2.0) -> str:
        """One command on the stats socket (``show stat``, ``disable server flip7/app1``...)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(str(self.socket_path))
            s.sendall(command.encode() + b"\n")
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def show_stat(self) -> list[dict[str, str]]:
        text = self.admin("show stat").lstrip("# ")
        return [row for row in csv.DictReader(io.StringIO(text)) if row.get("pxname")]

    def backend_servers(self) -> dict[str, dict[str, str]]:
        """``show stat`` of the backend's servers by name: ``status`` (UP, DOWN, "UP 1/2"
        while failing, "DOWN 1/2" while recovering), ``scur`` (connections now), ``stot``..."""
        return {row["svname"]: row for row in self.show_stat()
                if row["pxname"] == BACKEND and row["svname"] not in ("FRONTEND", "BACKEND")}

    def status(self, name: str) -> str:
        return self.backend_servers()[name]["status"]

    def wait_status(self, name: str, want: str, timeout: float = 10.0) -> float:
        """Wait until HAProxy reports server ``name`` with status ``want``; the seconds it
        took."""
        start = time.monotonic()
        while (status := self.status(name)) != want:
            if time.monotonic() - start > timeout:
                raise AssertionError(f"{name} is {status!r}, not {want!r}, after {timeout} s:"
                                     f"\n{self.log()[-3000:]}")
            time.sleep(0.02)
        return time.monotonic() - start

    def __enter__(self) -> Proxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _drain(proc: subprocess.Popen[bytes], into: bytearray) -> None:
    """Read a process's output until it ends, so that a chatty process never blocks on a full
    pipe, and its log is there to show when a test fails."""
    assert proc.stdout is not None
    for chunk in iter(lambda: proc.stdout.read1(65536), b""):  # type: ignore[union-attr]
        into.extend(chunk)


class Cluster:
    """``n`` ``flip7 serve`` processes and a :class:`Proxy` in front of them.

    ``db_url`` is one URL shared by every process (PostgreSQL) or one per process;
    ``redis_url`` is passed to each as ``--redis`` (``None``: single-process servers, each on
    a database of its own). ``extra_args`` go to every process's command line.

    Used as ``with Cluster(3, pg_url, redis_url) as cluster:``, then
    ``httpx.get(cluster.proxy_url + "/api/health")`` reaches one of the three.
    """

    def __init__(self, n: int, db_url: str | Sequence[str], redis_url: str | None = None, *,
                 extra_args: Sequence[str] = (), seed: int | None = None,
                 bot_delay: float = 0.0) -> None:
        db_urls = [db_url] * n if isinstance(db_url, str) else list(db_url)
        if len(db_urls) != n:
            raise ValueError(f"{n} processes but {len(db_urls)} database URLs")
        args = (["--redis", redis_url] if redis_url is not None else []) + list(extra_args)
        self.redis_url = redis_url
        self.servers = [ServerProcess(url, seed=seed, bot_delay=bot_delay, extra_args=args)
                        for url in db_urls]  # fmt: skip
        self.proxy = Proxy([f"127.0.0.1:{s.port}" for s in self.servers])
        self.logs = [bytearray() for _ in self.servers]
        # Tables created on each process by mark_by_tables.
        self.marker_tables: list[list[str]] = [[] for _ in self.servers]
        self._drains: list[threading.Thread | None] = [None] * n

    # ---- where things are

    @property
    def urls(self) -> list[str]:
        """Each process's own address (bypassing the proxy)."""
        return [s.url for s in self.servers]

    @property
    def proxy_url(self) -> str:
        return self.proxy.url

    @property
    def proxy_ws_url(self) -> str:
        return self.proxy.ws_url

    def name(self, i: int) -> str:
        """HAProxy's name for process ``i`` (0-based): app1, app2..."""
        return f"app{i + 1}"

    def log(self, i: int) -> str:
        return self.logs[i].decode(errors="replace")

    # ---- life

    def _start_server(self, i: int) -> None:
        server = self.servers[i]
        try:
            server.start()
        except RuntimeError as exc:
            raise RuntimeError(f"process {i} ({self.name(i)}): {exc}") from None
        assert server.proc is not None
        self.logs[i].extend(f"--- start on port {server.port}\n".encode())
        thread = threading.Thread(target=_drain, args=(server.proc, self.logs[i]), daemon=True)
        thread.start()
        self._drains[i] = thread

    def start(self, wait_up: bool = True) -> Cluster:
        """Every process (each answers /api/health with 200 before the next starts), then
        the proxy, waiting until it sees every process UP. On any failure everything started
        so far is stopped."""
        try:
            for i in range(len(self.servers)):
                self._start_server(i)
            self.proxy.start()
            if wait_up:
                for i in range(len(self.servers)):
                    self.proxy.wait_status(self.name(i), "UP")
        except BaseException:
            self.stop()
            raise
        return self

    def kill(self, i: int) -> None:
        """SIGKILL process ``i``: no shutdown code runs, its connections are reset."""
        self.servers[i].kill()

    def pause(self, i: int) -> None:
        """SIGSTOP process ``i``: it holds its connections and its port but answers nothing,
        like a process that hangs."""
        proc = self.servers[i].proc
        assert proc is not None
        proc.send_signal(signal.SIGSTOP)

    def resume(self, i: int) -> None:
        proc = self.servers[i].proc
        assert proc is not None
        proc.send_signal(signal.SIGCONT)

    def restart(self, i: int, wait_up: bool = True) -> None:
        """Start process ``i`` again on the same port (after :meth:`kill` or by itself:
        killed first if it still runs); with ``wait_up``, until the proxy sees it UP."""
        proc = self.servers[i].proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGCONT)  # a paused one could not die otherwise
            self.kill(i)
        self._start_server(i)
        if wait_up:
            self.proxy.wait_status(self.name(i), "UP")

    def stop(self) -> None:
        """Stop the proxy and every process (each one tried even when another fails)."""
        errors: list[BaseException] = []
        try:
            self.proxy.close()
        except Exception as exc:  # the processes must still be stopped
            errors.append(exc)
        for server in self.servers:
            try:
                if server.proc is not None and server.proc.poll() is None:
                    server.proc.send_signal(signal.SIGCONT)
                server.stop()
            except Exception as exc:
                errors.append(exc)
        for thread in self._drains:
            if thread is not None:
                thread.join(timeout=5)
        if errors:
            raise errors[0]

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
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
        The ids created, per process (also kept in ``marker_tables``)."""
        for i, url in enumerate(self.urls):
            with httpx.Client(base_url=url, timeout=10) as client:
                have = client.get("/api/health").json()["tables"]
                for n in range(have, i + 1):
                    r = client.post("/api/tables", json={"player": f"Marker{i}-{n}",
                                                         "seats": 3})  # fmt: skip
                    assert r.status_code == 201, r.text
                    self.marker_tables[i].append(r.json()["table"]["id"])
        return self.marker_tables

    def nodes(self) -> dict[str, int]:
        """Each running process's identity as its own /api/health tells it, to its index."""
        found: dict[str, int] = {}
        for i, server in enumerate(self.servers):
            if server.proc is not None and server.proc.poll() is None:
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
    """One socket, with every versioned update it was sent, in order."""

    def __init__(self, url: str, table_id: str, token: str | None) -> None:
        self.ws = SyncSocket(url.replace("http", "ws") + f"/ws/tables/{table_id}")
        self.token = token
        self.state: dict[str, Any] = {}
        self.updates: list[tuple[int, str]] = []
        self.chat: list[str] = []
        self.results: list[dict[str, Any]] = []
        self.ws.send_text(json.dumps({"v": 1, "type": "hello", "token": token}))
        welcome = self.recv()
        assert welcome["type"] == "welcome", welcome

    def recv(self) -> dict[str, Any]:
        frame: dict[str, Any] = json.loads(self.ws.receive_text())
        if frame.get("table") is not None and frame["type"] in ("welcome", "update"):
            if frame["type"] == "update" and frame["version"] > self.state.get("version", -1):
                self.updates.append((frame["version"], json.dumps(frame["events"])))
            self.state = frame["table"]
        if frame["type"] == "chat":
            self.chat.append(frame["chat"]["text"])
        if frame["type"] in ("result", "error"):
            self.results.append(frame)
        return frame

    def until_version(self, version: int, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while self.state.get("version", -1) < version:
            assert time.monotonic() < deadline, f"stuck at {self.state.get('version')}"
            self.recv()

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send_text(json.dumps(message))
