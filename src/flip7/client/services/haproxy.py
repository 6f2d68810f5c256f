"""HAProxy running the documented recipe (``deploy/haproxy.cfg``), changed only where it
names addresses (:func:`render`), in front of ``flip7 serve`` processes.

>>> cfg = render(RECIPE.read_text(), port=81, stats_port=82, socket_path=Path("/s"),
...              servers=["127.0.0.1:9001", "127.0.0.1:9002"])
>>> [line.strip() for line in cfg.splitlines() if line.strip().startswith("server ")]
['server app1 127.0.0.1:9001 check', 'server app2 127.0.0.1:9002 check']
>>> [line.split()[2] for line in cfg.splitlines() if "crc32" in line]
['path,field(4,/),crc32,mod(2)']
>>> [line.strip() for line in cfg.splitlines() if line.strip().startswith("use-server ")]
['use-server app1 if { var(txn.slot) -m int 0 }', 'use-server app2 if { var(txn.slot) -m int 1 }']
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from flip7.client.services.process import (
    LOOPBACK,
    Child,
    ServiceError,
    accepts,
    free_port,
    required,
    stop_process,
    wait_for,
)

# The documented HAProxy recipe, in the source tree beside src/.
RECIPE = Path(__file__).resolve().parents[4] / "deploy" / "haproxy.cfg"
HAPROXY = os.environ.get("HAPROXY", "haproxy")

# The recipe's names: the frontend players reach, its backend, HAProxy's own page.
FRONTEND, BACKEND, STATS = "flip7", "flip7", "stats"
# Lines of ``global`` that tie HAProxy to a system install (chroot into /var/lib/haproxy,
# drop to the haproxy user, go to the background): here it runs as whoever runs it, in the
# foreground (-db).
DROPPED_IN_GLOBAL = ("chroot", "user", "group", "daemon")
SECTIONS = ("global", "defaults", "frontend", "backend", "listen", "peers", "resolvers",
            "userlist", "program", "http-errors", "ring", "cache", "mailers")  # fmt: skip


class RecipeError(AssertionError):
    """The recipe no longer has what :func:`render` needs to point it at other addresses."""


def render(
    recipe: str,
    *,
    port: int,
    stats_port: int,
    servers: Sequence[str],
    socket_path: Path,
    host: str = LOOPBACK,
) -> str:
    """The recipe with these addresses: the players' frontend's ``bind`` on ``host:port``,
    the stats frontend's on ``host:stats_port``, one ``server`` line per address in
    ``servers`` (``app1``, ``app2``... with the options of the recipe's first ``server``
    line), the stats socket at ``socket_path``, logs on standard error, and none of
    chroot/user/group/daemon. Every other line is kept as it is."""
    out: list[str] = []
    section: tuple[str, str] = ("", "")
    bound: set[tuple[str, str]] = set()
    servers_written = routes_written = False
    seen: set[tuple[str, str]] = set()
    for line in recipe.splitlines():
        words = line.split("#", 1)[0].split()
        if words and not line[0].isspace() and words[0] in SECTIONS:
            section = (words[0], words[1] if len(words) > 1 else "")
            seen.add(section)
            out.append(line)
            continue
        if not words:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        keyword = words[0]
        if section[0] == "global":
            if keyword in DROPPED_IN_GLOBAL:
                continue
            if keyword == "log":
                out.append(f"{indent}log stderr format short local0")
                continue
            if words[:2] == ["stats", "socket"]:
                out.append(f"{indent}stats socket {socket_path} " + " ".join(words[3:]))
                continue
        if keyword == "bind" and section in (("frontend", FRONTEND), ("frontend", STATS)):
            if section not in bound:  # the first bind is ours; more (TLS) are dropped
                bound.add(section)
                where = port if section[1] == FRONTEND else stats_port
                out.append(f"{indent}bind {host}:{where}")
            continue
        if keyword == "server" and section == ("backend", BACKEND):
            if not servers_written:
                servers_written = True
                options = " ".join(words[3:])
                for i, address in enumerate(servers, 1):
                    out.append(f"{indent}server app{i} {address} {options}".rstrip())
            continue
        if keyword == "use-server" and section == ("backend", BACKEND):
            # One rule per process: the table slot i-1 goes to app{i} (the recipe's own
            # lines are for its three processes).
            if not routes_written:
                routes_written = True
                out.extend(f"{indent}use-server app{i} if {{ var(txn.slot) -m int {i - 1} }}"
                           for i in range(1, len(servers) + 1))  # fmt: skip
            continue
        if "crc32,mod(" in line and section == ("backend", BACKEND):
            out.append(re.sub(r"crc32,mod\(\d+\)", f"crc32,mod({len(servers)})", line))
            continue
        out.append(line)
    for needed in (("global", ""), ("frontend", FRONTEND), ("frontend", STATS),
                   ("backend", BACKEND)):  # fmt: skip
        if needed not in seen:
            raise RecipeError(f"the recipe has no section {' '.join(needed).strip()!r}")
    for needed in (("frontend", FRONTEND), ("frontend", STATS)):
        if needed not in bound:
            raise RecipeError(f"the recipe's section {' '.join(needed)!r} has no bind line")
    if not servers_written:
        raise RecipeError(f"the recipe's backend {BACKEND!r} has no server line to copy")
    return "\n".join(out) + "\n"


BIND_TRIES = 4


def port_taken(log: str) -> bool:
    """Whether HAProxy's output ``log`` says it could not bind a port another process holds.

    >>> port_taken("[ALERT] (1) : Starting frontend stats: cannot bind socket (Address "
    ...            "already in use) [127.0.0.1:40001]")
    True
    >>> port_taken("[ALERT] (1) : config: unknown keyword 'bnd'")
    False
    """
    return "Address already in use" in log or "cannot bind socket" in log


class Proxy(Child):
    """HAProxy on free loopback ports with the recipe (:func:`render`), in the foreground,
    in front of ``servers`` (``"127.0.0.1:8001"``...; HAProxy calls them app1, app2...).
    ``url`` is where players connect, ``stats_url`` HAProxy's own page (``/health``,
    ``/stats``, ``/metrics``)."""

    def __init__(self, servers: Sequence[str], workdir: Path | None = None, *,
                 recipe: Path = RECIPE, binary: str = HAPROXY) -> None:  # fmt: skip
        self.servers = list(servers)
        self._own_workdir = workdir is None
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="flip7-haproxy-", dir="/tmp"))
        self.recipe = recipe
        self.binary = binary
        self.port = free_port()
        self.stats_port = free_port()
        self.socket_path = self.workdir / "haproxy.sock"
        self.config_path = self.workdir / "haproxy.cfg"
        self.log_path = self.workdir / "haproxy.log"
        self.proc = None

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{LOOPBACK}:{self.port}"

    @property
    def stats_url(self) -> str:
        return f"http://{LOOPBACK}:{self.stats_port}"

    def config(self) -> str:
        return render(self.recipe.read_text(), port=self.port, stats_port=self.stats_port,
                      servers=self.servers, socket_path=self.socket_path)  # fmt: skip

    def write_config(self) -> Path:
        self.config_path.write_text(self.config())
        return self.config_path

    def check(self) -> subprocess.CompletedProcess[str]:
        """``haproxy -c``: whether HAProxy accepts the configuration (and its warnings)."""
        return subprocess.run([required(self.binary), "-c", "-f", str(self.write_config())],
                              capture_output=True, text=True, timeout=30)  # fmt: skip

    def start(self, timeout: float = 15.0) -> Proxy:
        """Validate, start ``haproxy -db`` and wait until it accepts players and its stats
        socket answers. A port that another process took between :func:`free_port` and
        HAProxy's bind (tests start services in parallel) is replaced, up to
        :data:`BIND_TRIES` times."""
        tries = 1
        while True:
            logged = len(self.log())
            try:
                return self._start(timeout)
            except ServiceError:
                if tries >= BIND_TRIES or not port_taken(self.log()[logged:]):
                    raise
            tries += 1
            self.port, self.stats_port = free_port(), free_port()

    def _start(self, timeout: float) -> Proxy:
        checked = self.check()
        if checked.returncode != 0:
            raise ServiceError(f"haproxy -c refused the configuration:\n{checked.stdout}"
                               f"{checked.stderr}\n{self.config_path.read_text()}")
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen([required(self.binary), "-db", "-f",
                                          str(self.config_path)],
                                         stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)  # fmt: skip

        def ready() -> bool:
            if not accepts(self.port):
                return False
            try:
                self.show_stat()
            except OSError:
                return False
            return True

        wait_for(ready, self.proc, "haproxy", self.log_path, timeout)
        return self

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
        """Server ``name``'s status ("" if HAProxy does not list it)."""
        return self.backend_servers().get(name, {}).get("status", "")

    def wait_status(self, name: str, want: str, timeout: float = 10.0) -> float:
        """Wait until HAProxy reports server ``name`` with status ``want``; the seconds it
        took."""
        start = time.monotonic()
        status = ""
        while True:
            with contextlib.suppress(OSError):
                status = self.status(name)
                if status == want:
                    return time.monotonic() - start
            if time.monotonic() - start > timeout:
                raise ServiceError(f"haproxy has {name} {status!r}, not {want!r}, after "
                                   f"{timeout:g} s:\n{self.log()[-3000:]}")  # fmt: skip
            time.sleep(0.02)

    def __enter__(self) -> Proxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
