"""N ``flip7 serve`` processes behind HAProxy, started and stopped together."""

from __future__ import annotations

import signal
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from flip7.client.services.haproxy import HAPROXY, RECIPE, Proxy
from flip7.client.services.process import ServerProcess, ServiceError


class Cluster:
    """``servers`` (``flip7 serve`` processes, not yet started) behind a :class:`Proxy`
    whose files are in ``workdir``; HAProxy calls them app1, app2..., and those of many
    processes (``--redis``) are given ``--slot 1/N``, ``2/N``... to match.

    Used as ``with Cluster(servers, folder) as cluster:``: every process is started (each
    answers /api/health before the next starts: the first migrates the database), then
    the proxy, which sees every process UP; all are stopped on leaving.
    """

    def __init__(self, servers: Sequence[ServerProcess], workdir: Path, *,
                 recipe: Path = RECIPE, haproxy: str = HAPROXY) -> None:  # fmt: skip
        self.servers = list(servers)
        for i, server in enumerate(self.servers):
            if "--redis" in server.extra_args and "--slot" not in server.extra_args:
                # appN makes its tables in the slot the recipe routes to it.
                server.extra_args += ["--slot", f"{i + 1}/{len(self.servers)}"]
        self.proxy = Proxy([s.address for s in self.servers], workdir, recipe=recipe,
                           binary=haproxy)  # fmt: skip

    def name(self, i: int) -> str:
        """HAProxy's name for process ``i`` (0-based): app1, app2..."""
        return f"app{i + 1}"

    @property
    def urls(self) -> list[str]:
        """Each process's own address (bypassing the proxy)."""
        return [s.url for s in self.servers]

    def _start_server(self, i: int) -> None:
        try:
            self.servers[i].start()
        except ServiceError as exc:
            raise ServiceError(f"process {i} ({self.name(i)}): {exc}") from None

    def start(self, wait_up: bool = True) -> Cluster:
        """Every process, then the proxy (with ``wait_up``, until it sees every process UP).
        On any failure everything started so far is stopped."""
        try:
            for i in range(len(self.servers)):
                self._start_server(i)
            self.proxy.start()
            if wait_up:
                for i in range(len(self.servers)):
                    self.proxy.wait_status(self.name(i), "UP", 20.0)
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
        self._signal(i, signal.SIGSTOP)

    def resume(self, i: int) -> None:
        self._signal(i, signal.SIGCONT)

    def _signal(self, i: int, sig: int) -> None:
        proc = self.servers[i].proc
        assert proc is not None
        proc.send_signal(sig)

    def restart(self, i: int, wait_up: bool = True) -> None:
        """Start process ``i`` again on the same port (after :meth:`kill` or by itself:
        killed first if it still runs); with ``wait_up``, until the proxy sees it UP."""
        if self.servers[i].running:
            self.resume(i)  # a paused one could not die otherwise
            self.kill(i)
        self._start_server(i)
        if wait_up:
            self.proxy.wait_status(self.name(i), "UP", 20.0)

    def stop(self) -> None:
        """Stop the proxy and every process (each one tried even when another fails)."""
        errors: list[BaseException] = []
        try:
            self.proxy.close()
        except Exception as exc:  # the processes must still be stopped
            errors.append(exc)
        for i, server in enumerate(self.servers):
            try:
                if server.running:
                    self.resume(i)
                server.stop()
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:  # fmt: skip
        self.stop()
