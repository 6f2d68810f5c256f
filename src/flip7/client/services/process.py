"""Processes on loopback: a free port, a child Python that imports this flip7, stopping a
process, and ``flip7 serve`` itself (:class:`ServerProcess`)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

LOOPBACK = "127.0.0.1"
# The settings a launched server must not inherit from the caller's shell: its command
# line says where its database and Redis are.
_SERVER_ENVIRONMENT = ("FLIP7_DATABASE_URL", "FLIP7_REDIS_URL", "FLIP7_PUBLIC_URL")


class ServiceError(RuntimeError):
    """A service would not start, or did not answer (the message says why)."""


def free_port() -> int:
    """A TCP port free on loopback just now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        port: int = sock.getsockname()[1]
        return port


def which(name: str, extra: str = "/usr/sbin:/usr/local/sbin") -> str | None:
    """``name`` on the PATH, else in ``extra`` (Debian's sbin, which a non-root PATH lacks)."""
    return shutil.which(name) or shutil.which(name, path=extra)


def required(name: str) -> str:
    path = which(name)
    if path is None:
        raise ServiceError(f"{name} is not installed (or not on the PATH)")
    return path


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def stop_process(proc: subprocess.Popen[bytes] | None, sig: int = signal.SIGTERM,
                 timeout: float = 10.0) -> None:
    """``sig``, then SIGKILL after ``timeout`` seconds; nothing if it is not running."""
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait_for(ready: Callable[[], bool], proc: subprocess.Popen[bytes], what: str, log: Path,
             timeout: float, every: float = 0.02) -> None:
    """Poll ``ready()`` every ``every`` seconds until it holds; ServiceError (the process
    killed) if ``proc`` ends first or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while not ready():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise ServiceError(f"{what} did not start:\n{tail(log)}")
        time.sleep(every)


def accepts(port: int) -> bool:
    try:
        with socket.create_connection((LOOPBACK, port), timeout=0.5):
            return True
    except OSError:
        return False


def http_get(url: str, timeout: float = 2.0) -> tuple[int, str]:
    """The status and body of ``GET url``, straight (no proxy from the environment)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=timeout) as response:
            return int(response.status), response.read().decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")


def python_env() -> dict[str, str]:
    """The environment of a child Python that must import this very flip7 (its ``src``
    first on PYTHONPATH), unbuffered so that its log is complete at any moment."""
    import flip7

    src = str(Path(flip7.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    return env


class Child:
    """A service run as a child process: ``proc`` once started."""

    proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class ServerProcess(Child):
    """``flip7 serve`` as a separate process on a loopback port that it keeps across
    restarts (so that it can be killed with SIGKILL and come back where a proxy expects it).

    Its output goes to ``log_path`` (appended to, a ``---`` line before each start), or,
    without one, to a pipe (``proc.stdout``) for the caller to read. ``preamble``: Python
    run in the process before the server. ``node`` is the process's id in a cluster, from
    its first ``/api/health`` answer.
    """

    def __init__(
        self,
        db: str,
        *,
        name: str = "flip7 serve",
        bot_delay: float = 0.0,
        seed: int | None = None,
        log_level: str | None = None,
        extra_args: Sequence[str] = (),
        log_path: Path | None = None,
        cwd: Path | None = None,
        preamble: str = "",
        startup_timeout: float = 30.0,
    ) -> None:
        self.db = db
        self.name = name
        self.bot_delay = bot_delay
        self.seed = seed
        self.log_level = log_level
        self.extra_args = list(extra_args)
        self.log_path = log_path
        self.cwd = cwd
        self.preamble = preamble
        self.startup_timeout = startup_timeout
        self.port = free_port()
        self.proc = None
        self.node: str | None = None
        self._kept_log = ""  # the log as it was at the last stop

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def address(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def command(self) -> list[str]:
        command = [
            sys.executable, "-c",
            self.preamble + "from flip7.cli import main; raise SystemExit(main())",
            "serve", "--host", LOOPBACK, "--port", str(self.port), "--db", self.db,
            "--bot-delay", f"{self.bot_delay:g}",
        ]  # fmt: skip
        if self.log_level is not None:
            command += ["--log-level", self.log_level]
        if self.seed is not None:
            command += ["--seed", str(self.seed)]
        return command + self.extra_args

    def start(self) -> ServerProcess:
        """Start it and wait until ``GET /api/health`` answers 200."""
        command = self.command()
        env = python_env()
        for name in _SERVER_ENVIRONMENT:
            env.pop(name, None)
        options: dict[str, Any] = {
            "stdin": subprocess.DEVNULL, "env": env, "cwd": self.cwd,
            # A Ctrl-C at the terminal is the caller's to pass on, once it has what it needs.
            "start_new_session": True,
        }  # fmt: skip
        if self.log_path is None:
            self.proc = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **options
            )
        else:
            with self.log_path.open("ab") as log:
                log.write(f"--- {' '.join(command[3:])}\n".encode())
                log.flush()
                self.proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                             **options)  # fmt: skip
        self._wait_healthy(self.proc)
        return self

    def _wait_healthy(self, proc: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + self.startup_timeout
        last = "no answer"
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise ServiceError(f"{self.name} exited with status {proc.returncode}:\n"
                                   f"{self._early_log()}")  # fmt: skip
            try:
                status, text = http_get(f"{self.url}/api/health")
            except (OSError, http.client.HTTPException) as exc:
                last = f"{type(exc).__name__}: {exc}"
            else:
                if status == 200:
                    self.node = json.loads(text).get("node")
                    return
                last = f"HTTP {status}: {text[:200]}"
            time.sleep(0.05)
        self.kill()
        raise ServiceError(
            f"{self.name} did not answer GET /api/health in {self.startup_timeout:g} s "
            f"({last}):\n{self._early_log()}"
        )

    def _early_log(self) -> str:
        """The log of a process that has ended: its file's tail, or what it wrote to the
        pipe."""
        if self.log_path is not None:
            return tail(self.log_path)
        assert self.proc is not None and self.proc.stdout is not None
        return self.proc.stdout.read().decode(errors="replace")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, its sockets are reset by the kernel."""
        if self.running:
            assert self.proc is not None
            self.proc.kill()
            self.proc.wait(timeout=10)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (a clean shutdown), SIGKILL after ``timeout`` seconds."""
        stop_process(self.proc, signal.SIGTERM, timeout)
        self._kept_log = self.log_text()

    def log_text(self) -> str:
        """Everything it wrote to ``log_path`` (as kept at the last stop once the file is
        gone)."""
        if self.log_path is None:
            return ""
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return self._kept_log

    def log_errors(self) -> tuple[str, ...]:
        """The log's lines that report an error or a traceback (JSON lines or plain text)."""
        return self._lines(('"level":"error"', '"level":"critical"', "Traceback", "ERROR"))

    def log_warnings(self) -> tuple[str, ...]:
        return self._lines(('"level":"warning"', "WARNING"))

    def _lines(self, marks: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(
            line.strip()[:500]
            for line in self.log_text().splitlines()
            if any(mark in line for mark in marks)
        )


@contextlib.contextmanager
def serve_subprocess(
    *,
    bot_delay: float = 0.0,
    extra_args: Sequence[str] = (),
    startup_timeout: float = 30.0,
) -> Iterator[ServerProcess]:
    """A :class:`ServerProcess` with a fresh SQLite file, in a temporary folder removed
    afterwards (its log is kept by the ServerProcess); stopped on leaving."""
    with tempfile.TemporaryDirectory(prefix="flip7-serve-") as name:
        folder = Path(name)
        server = ServerProcess(
            str(folder / "flip7.db"), bot_delay=bot_delay, extra_args=extra_args,
            log_path=folder / "server.log", cwd=folder, startup_timeout=startup_timeout,
        )  # fmt: skip
        server.start()
        try:
            yield server
        finally:
            server.stop()
