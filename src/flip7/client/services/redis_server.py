"""A throwaway ``redis-server`` on a loopback port, and Redis's protocol for a few commands."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from flip7.client.services.process import (
    LOOPBACK,
    Child,
    ServiceError,
    free_port,
    required,
    stop_process,
    wait_for,
)

# Logical databases of a Redis server: a test suite gives each test one of its own.
REDIS_DATABASES = 1024
REDIS_SERVER = os.environ.get("REDIS_SERVER", "redis-server")


def redis_command(args: Sequence[str]) -> bytes:
    """One command in Redis's protocol (RESP)."""
    return f"*{len(args)}\r\n".encode() + b"".join(
        f"${len(a.encode())}\r\n".encode() + a.encode() + b"\r\n" for a in args
    )


def redis_commands(host: str, port: int, *commands: tuple[str, ...],
                   timeout: float = 2.0) -> list[bytes]:
    """Send commands on one connection and return each one's reply line (``b"+PONG"``,
    ``b"+OK"``, ``b"-ERR ..."``): enough for PING, SELECT and FLUSHDB without the ``redis``
    package."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(b"".join(redis_command(c) for c in commands))
        reply = b""
        while reply.count(b"\r\n") < len(commands):
            chunk = s.recv(4096)
            if not chunk:
                raise ConnectionError(f"Redis closed the connection after {reply!r}")
            reply += chunk
    return reply.split(b"\r\n")[: len(commands)]


class RedisServer(Child):
    """A throwaway ``redis-server`` on a loopback port that it keeps across restarts: no
    persistence (Redis holds nothing that is not in PostgreSQL), its files in ``workdir``.
    It can be stopped, killed and started again on the same port (a Redis restart, as
    clients see it)."""

    host = LOOPBACK

    def __init__(self, workdir: Path, port: int | None = None,
                 binary: str = REDIS_SERVER) -> None:  # fmt: skip
        self.port = port or free_port()
        self.workdir = workdir
        self.binary = binary
        self.log_path = workdir / "redis.log"
        self.proc = None
        self.starts = 0

    def url(self, db: int = 0) -> str:
        return f"redis://{self.host}:{self.port}/{db}"

    def __iter__(self) -> Iterator[object]:
        """``host, port = redis_server``."""
        return iter((self.host, self.port))

    def ping(self) -> bool:
        try:
            return redis_commands(self.host, self.port, ("PING",), timeout=0.5) == [b"+PONG"]
        except OSError:
            return False

    def start(self, timeout: float = 10.0) -> RedisServer:
        """Start it (a no-op when it runs) and wait until it answers PING."""
        if self.running:
            return self
        path = required(self.binary)
        self.starts += 1
        with open(self.log_path, "ab") as log:
            log.write(f"--- start {self.starts}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                [path, "--port", str(self.port), "--bind", self.host, "--save", "",
                 "--appendonly", "no", "--dir", str(self.workdir), "--daemonize", "no",
                 "--databases", str(REDIS_DATABASES)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        wait_for(self.ping, self.proc, "redis-server", self.log_path, timeout)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop it as an operator would (SIGTERM; it saves nothing: ``--save ''``)."""
        stop_process(self.proc, signal.SIGTERM, timeout)
        self.proc = None

    def kill(self) -> None:
        """SIGKILL: Redis vanishes without a word to its clients."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc = None

    def restart(self, down_for: float = 0.0) -> None:
        """Stop it, stay down ``down_for`` seconds, start it again on the same port: every
        key and subscription is gone (nothing is persisted), as after a real restart."""
        self.stop()
        if down_for:
            time.sleep(down_for)
        self.start()

    def flush(self, timeout: float = 10.0) -> None:
        """Empty every database (waiting while Redis still loads)."""
        deadline = time.monotonic() + timeout
        while (reply := redis_commands(self.host, self.port, ("FLUSHALL",))) != [b"+OK"]:
            if not reply[0].startswith(b"-LOADING") or time.monotonic() > deadline:
                raise ServiceError(f"redis FLUSHALL: {reply[0].decode(errors='replace')}")
            time.sleep(0.05)

    def fresh_db(self, db: int) -> str:
        """Flush logical database ``db`` and return its URL (starting the server first if
        it was left stopped)."""
        self.start()
        replies = redis_commands(self.host, self.port, ("SELECT", str(db)), ("FLUSHDB",))
        if replies != [b"+OK", b"+OK"]:
            raise ServiceError(f"redis SELECT {db}, FLUSHDB: {replies!r}")
        return self.url(db)
