"""``flip7 attack --cluster``: each attack against a fresh cluster of the deployment
recipe, started here from :mod:`flip7.client.services` (as ``flip7 cluster-bench`` does):
``--processes`` ``flip7 serve`` processes on one PostgreSQL database and one Redis, behind
HAProxy running ``deploy/haproxy.cfg``. The processes believe the proxy's
``X-Forwarded-For`` (``--trusted-proxy 127.0.0.1``), so each flood's addresses reach
their budgets as they would on a real deployment, and every flood goes through the
proxy."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from flip7.client.services import (
    HAPROXY,
    LOOPBACK,
    Cluster,
    Postgres,
    RedisServer,
    ServerProcess,
    ServiceError,
)


@dataclass(slots=True)
class ClusterTarget:
    """PostgreSQL and Redis for the whole run (:meth:`services`), a fresh database, an
    empty Redis and fresh processes behind a fresh proxy per attack (:meth:`fresh`)."""

    processes: int = 2
    bot_delay: float = 0.05
    extra_args: Sequence[str] = ()
    haproxy: str = HAPROXY
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="flip7-attack-")))
    pg: Postgres = field(default_factory=Postgres)
    redis: RedisServer | None = None
    runs: int = 0

    @contextlib.contextmanager
    def services(self) -> Iterator[ClusterTarget]:
        """PostgreSQL and Redis started (ServiceError if either cannot be), stopped after."""
        try:
            self.pg.start()
            self.redis = RedisServer(self.workdir).start()
            yield self
        finally:
            try:
                if self.redis is not None:
                    self.redis.stop()
                self.pg.stop()
            finally:
                shutil.rmtree(self.workdir, ignore_errors=True)

    @contextlib.contextmanager
    def fresh(self, name: str) -> Iterator[Cluster]:
        """The processes on a new database, Redis flushed, HAProxy in front; stopped (the
        database dropped) on leaving."""
        if self.redis is None:
            raise ServiceError("the cluster's services are not started")
        self.runs += 1
        folder = self.workdir / f"run{self.runs}-{name}"
        folder.mkdir()
        database = self.pg.create_database("attack_")
        self.redis.flush()
        extra = ["--redis", self.redis.url(), "--trusted-proxy", LOOPBACK, *self.extra_args]
        servers = [
            ServerProcess(self.pg.url(database), name=f"app{i + 1}", bot_delay=self.bot_delay,
                          extra_args=extra, log_path=folder / f"app{i + 1}.log",
                          startup_timeout=60.0)
            for i in range(self.processes)
        ]  # fmt: skip
        try:
            with Cluster(servers, folder, haproxy=self.haproxy) as cluster:
                yield cluster
        finally:
            with contextlib.suppress(ServiceError, subprocess.CalledProcessError):
                self.pg.drop_database(database)
