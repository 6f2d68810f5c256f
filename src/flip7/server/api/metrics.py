"""Prometheus metrics of one ``flip7 serve`` process, on an address of their own.

``flip7 serve --metrics 127.0.0.1:9101`` (``FLIP7_METRICS``) serves ``GET /metrics`` in
Prometheus' text format on that address, never on the players' port: what a process runs,
how fast and how loaded, is the operator's to see (docs/deploy.md, "Metrics", has the
scrape). Off by default.

Counters and histograms are fed as things happen (a move applied, a commit made); the
gauges are read at each scrape from the running server (tables, sockets, the bot queue,
the cluster's links), so that nothing is counted twice and nothing drifts. The registry
is the process's own (no global one): two servers in one interpreter (tests) keep their
figures apart.

>>> metrics = Metrics()
>>> metrics.move(0.004, "human"); metrics.commit(0.002, 3)
>>> text = metrics.text()
>>> 'flip7_moves_total{by="human"} 1.0' in text, "flip7_database_commits_total 1.0" in text
(True, True)
>>> "flip7_database_writes_total 3.0" in text
True
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import start_http_server
from prometheus_client.registry import Collector

__all__ = ["Metrics", "Reading"]

# Seconds: a move is applied, stored and sent in a few milliseconds on a quiet process;
# the upper buckets show a loaded one.
MOVE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
COMMIT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)


@dataclass(frozen=True, slots=True)
class Reading:
    """What the running server is holding at one scrape."""

    tables: int
    sockets: int
    bot_workers: int
    bots_waiting: int
    bots_thinking: int
    bot_worker_seconds: float
    stand_ins: int
    # Writes the database's fence refused (many processes; always 0 with one).
    fenced_writes: int = 0
    # With many processes (None: one process).
    cluster_linked: int | None = None
    cluster_remote: int | None = None
    cluster_redis_up: bool | None = None
    # Where the tables are (flip7.server.cluster.spread): each live process with the
    # tables it runs (as the database said at the last sweep), those run here but placed
    # elsewhere (waiting for a quiet moment), and the handovers given and received.
    cluster_processes: tuple[tuple[str, int], ...] = ()
    cluster_misplaced: int = 0
    cluster_handovers_given: int = 0
    cluster_handovers_received: int = 0
    # Failover, counted since the process started (flip7.server.cluster.failover).
    cluster_takeovers: int = 0
    cluster_links_moved: int = 0
    cluster_tables_lost: int = 0


class _Now(Collector):
    """The gauges, read from the server at each scrape."""

    def __init__(self, read: Callable[[], Reading]) -> None:
        self._read = read

    def collect(self) -> Iterator[Metric]:
        now = self._read()
        yield GaugeMetricFamily("flip7_tables", "Tables this process runs", value=now.tables)
        yield GaugeMetricFamily("flip7_sockets", "WebSockets open on this process",
                                value=now.sockets)  # fmt: skip
        yield GaugeMetricFamily("flip7_bot_workers", "Bot worker processes allowed",
                                value=now.bot_workers)  # fmt: skip
        yield GaugeMetricFamily("flip7_bot_queue", "Bot decisions waiting for a worker",
                                value=now.bots_waiting)  # fmt: skip
        yield GaugeMetricFamily("flip7_bots_thinking", "Bot decisions on a worker now",
                                value=now.bots_thinking)  # fmt: skip
        yield CounterMetricFamily("flip7_bot_worker_seconds", "Seconds bots have thought "
                                  "in workers (or threads)", value=now.bot_worker_seconds)
        yield CounterMetricFamily("flip7_bot_stand_ins", "Bot decisions made by the cheap "
                                  "stand-in (budget spent, pool oversubscribed, no answer)",
                                  value=now.stand_ins)  # fmt: skip
        if now.cluster_linked is None:
            return
        yield CounterMetricFamily("flip7_database_writes_fenced", "Writes the database "
                                  "refused because another process runs their table now "
                                  "(its fencing token)", value=now.fenced_writes)
        yield CounterMetricFamily("flip7_cluster_takeovers", "Tables this process took over "
                                  "(nobody ran them, or their owner died, stalled or let "
                                  "them go)", value=now.cluster_takeovers)
        yield CounterMetricFamily("flip7_cluster_links_moved", "This process's linked "
                                  "WebSockets closed with 'moved' because their table's "
                                  "owner changed or its lease lapsed",
                                  value=now.cluster_links_moved)
        yield CounterMetricFamily("flip7_cluster_tables_lost", "Tables this process stopped "
                                  "running because its lease on them was lost or lapsed",
                                  value=now.cluster_tables_lost)
        yield GaugeMetricFamily("flip7_cluster_linked_sockets", "This process's WebSockets "
                                "linked over Redis to a table another process runs",
                                value=now.cluster_linked)  # fmt: skip
        yield GaugeMetricFamily("flip7_cluster_remote_sockets", "Other processes' WebSockets "
                                "at tables this process runs", value=now.cluster_remote or 0)
        yield GaugeMetricFamily("flip7_cluster_redis_up", "1 while Redis answers",
                                value=1 if now.cluster_redis_up else 0)  # fmt: skip
        per_process = GaugeMetricFamily(
            "flip7_cluster_process_tables", "Tables each live process runs, as the database "
            "said at this process's last sweep", labels=["process"])  # fmt: skip
        for node, tables in now.cluster_processes:
            per_process.add_metric([node], tables)
        yield per_process
        yield GaugeMetricFamily("flip7_cluster_tables_misplaced", "Tables this process runs "
                                "that are placed at another (handed over at a quiet moment)",
                                value=now.cluster_misplaced)  # fmt: skip
        yield CounterMetricFamily("flip7_cluster_handovers_given", "Tables this process handed "
                                  "to their place", value=now.cluster_handovers_given)
        yield CounterMetricFamily("flip7_cluster_handovers_received", "Tables handed to this "
                                  "process that it took over",
                                  value=now.cluster_handovers_received)  # fmt: skip


class Metrics:
    """One process's metrics: call :meth:`move` and :meth:`commit` as they happen,
    :meth:`watch` with a function reading the server's state, :meth:`serve` to expose
    them."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self._moves = Counter("flip7_moves", "Moves applied at this process's tables",
                              ["by"], registry=self.registry)  # fmt: skip
        self._move_seconds = Histogram(
            "flip7_move_seconds", "Seconds from a move's start to its update sent (applied, "
            "stored, broadcast)", buckets=MOVE_BUCKETS, registry=self.registry)  # fmt: skip
        self._commit_seconds = Histogram(
            "flip7_database_commit_seconds", "Seconds a commit of the queued writes took",
            buckets=COMMIT_BUCKETS, registry=self.registry)  # fmt: skip
        self._commits = Counter("flip7_database_commits", "Commits made",
                                registry=self.registry)  # fmt: skip
        self._writes = Counter("flip7_database_writes", "Writes committed (a change, a "
                               "table's row...)", registry=self.registry)  # fmt: skip
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    def move(self, seconds: float, by: str) -> None:
        """A move by ``by`` ("human" or "bot") was applied, stored and sent in ``seconds``."""
        self._moves.labels(by=by).inc()
        self._move_seconds.observe(seconds)

    def commit(self, seconds: float, writes: int) -> None:
        """A commit of ``writes`` writes took ``seconds``."""
        self._commits.inc()
        self._writes.inc(writes)
        self._commit_seconds.observe(seconds)

    def watch(self, read: Callable[[], Reading]) -> None:
        """Read the gauges with ``read`` at each scrape."""
        self.registry.register(_Now(read))

    def text(self) -> str:
        """Every metric in Prometheus' text format, as a scrape gets it."""
        return generate_latest(self.registry).decode()

    def serve(self, host: str, port: int) -> None:
        """``GET /metrics`` on ``host:port``, on a thread of prometheus_client's."""
        self._server, self._thread = start_http_server(port, host, self.registry)

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
