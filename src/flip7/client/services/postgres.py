"""A throwaway PostgreSQL cluster: ``initdb`` + ``postgres`` on a free loopback port."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from flip7.client.services.process import (
    LOOPBACK,
    Child,
    ServiceError,
    free_port,
    stop_process,
    wait_for,
)

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))


class Postgres(Child):
    """A throwaway PostgreSQL cluster on a free loopback port, run as the ``postgres`` user
    when started by root (postgres refuses to run as root). ``fsync``,
    ``synchronous_commit`` and ``full_page_writes`` are off: a commit never waits for the
    disk (what is measured or tested is the servers, not the disk)."""

    host = LOOPBACK

    def __init__(self, pg_bin: Path = PG_BIN) -> None:
        self.pg_bin = pg_bin
        self.port = 0
        self.base: Path | None = None
        self.proc = None
        self._databases = 0
        self._run_as: dict[str, Any] = {}

    def start(self) -> Postgres:
        initdb = self.pg_bin / "initdb"
        if not initdb.exists():
            raise ServiceError(f"PostgreSQL is not installed ({initdb}; set PG_BIN)")
        # Its own folder in /tmp: the postgres user must be able to enter it.
        self.base = base = Path(tempfile.mkdtemp(prefix="flip7-pg-", dir="/tmp"))
        data, sock = base / "data", base / "sock"
        data.mkdir()
        sock.mkdir()
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            for p in (base, data, sock):
                os.chown(p, pw.pw_uid, pw.pw_gid)
            self._run_as = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
        env = {**os.environ, "LC_ALL": "C.UTF-8", "TZ": "UTC"}
        subprocess.run(
            [str(initdb), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
             "--locale=C.UTF-8", "--no-sync"],
            check=True, env=env, cwd=base, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            **self._run_as,
        )  # fmt: skip
        self.port = free_port()
        self._launch()
        return self

    def _launch(self) -> None:
        assert self.base is not None
        base, data, sock = self.base, self.base / "data", self.base / "sock"
        env = {**os.environ, "LC_ALL": "C.UTF-8", "TZ": "UTC"}
        log_path = base / "postgres.log"
        settings = [f"listen_addresses={LOOPBACK}", f"unix_socket_directories={sock}",
                    "fsync=off", "synchronous_commit=off", "full_page_writes=off",
                    "max_connections=400"]  # fmt: skip
        with open(log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [str(self.pg_bin / "postgres"), "-D", str(data), "-p", str(self.port),
                 *(part for setting in settings for part in ("-c", setting))],
                env=env, cwd=base, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, **self._run_as,
            )  # fmt: skip
        ready = [str(self.pg_bin / "pg_isready"), "-q", "-h", LOOPBACK, "-p", str(self.port)]
        wait_for(lambda: subprocess.run(ready).returncode == 0, self.proc, "postgres", log_path,
              60, every=0.1)

    def restart(self, down_for: float = 0.0) -> None:
        """An outage: stop it (a fast shutdown: every connection is cut), stay down
        ``down_for`` seconds, start it again on the same port with the same data."""
        stop_process(self.proc, signal.SIGINT, 15.0)
        self.proc = None
        if down_for:
            time.sleep(down_for)
        self._launch()

    def url(self, database: str) -> str:
        return f"postgresql://postgres@{LOOPBACK}:{self.port}/{database}"

    def sql(self, statement: str) -> None:
        """Run one statement as ``postgres`` in its ``postgres`` database (``psql``: no
        Python driver needed)."""
        done = subprocess.run(
            [str(self.pg_bin / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", LOOPBACK,
             "-p", str(self.port), "-U", "postgres", "-d", "postgres", "-c", statement],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        if done.returncode != 0:
            raise ServiceError(f"psql {statement!r}: {done.stderr.strip()}")

    def create_database(self, prefix: str = "db_") -> str:
        """A fresh empty database; its name."""
        self._databases += 1
        name = f"{prefix}{self._databases}"
        self.sql(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        self.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        stop_process(self.proc, signal.SIGINT, 15.0)  # SIGINT: a fast shutdown
        self.proc = None
        if self.base is not None:
            shutil.rmtree(self.base, ignore_errors=True)
            self.base = None
