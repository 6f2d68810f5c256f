"""``flip7 cluster-bench``: the scale-out figures of many ``flip7 serve`` processes (issue 15).

Everything is set up on loopback and torn down at the end: a throwaway PostgreSQL cluster
(``initdb`` + ``postgres``, run as the ``postgres`` user when started by root; ``fsync``,
``synchronous_commit`` and ``full_page_writes`` off, as the test fixture has them: a
benchmark of the servers, not of the disk), a ``redis-server`` on a free port, N
``flip7 serve --db postgresql://... --redis redis://... --trusted-proxy 127.0.0.1
--bot-delay 0`` processes, and HAProxy running the documented recipe (``deploy/haproxy.cfg``,
changed only where it names addresses: :func:`flip7.client.services.render`) in front of
them (all from :mod:`flip7.client.services`). Every client goes through the proxy.
Scenarios:

``throughput``
    The same flat-out load (``flip7 loadtest --think 0``) against 1 and against 2 processes
    on PostgreSQL + Redis, and against 1 process on PostgreSQL without Redis (the
    single-process mode), in alternating rounds so that the machine's noise shows. Each run
    gets a fresh database. The CPU seconds each process used during the measured window
    (``/proc/<pid>/stat`` utime + stime, before and after; PostgreSQL's backends summed with
    the postmaster) say what saturated the cores.
``human``
    1,000 tables × 4 clients at a human pace (each decision after 2 s ± 50 %) across 2
    processes: moves/s, latency percentiles, errors.
``failover``
    3 processes, tables playing at a human pace; ``kill -9`` of the process owning the most
    tables, and the time from the kill to the next applied move at each of its tables, as
    its clients see it (they reconnect the way the browser does, with ``last_version``, and
    send an unanswered move again under the same id). Repeated a few times.

The load generator is a separate process (:func:`.bench.generator_main`, which runs
:func:`flip7.client.loadtest.load_test`, the code of ``flip7 loadtest --url``), so that its
CPU is its own and measured like the others'. It reads the other processes' CPU at the very
edges of its measured window; "other" is what the machine spent beyond them (on a shared
machine, someone else's work: the busiest such processes are named, and ``--max-other``
measures a disturbed run again). Every server process and the load generator also note
each garbage collection that holds them 5 ms or more (:data:`.bench.GC_HOOK`), so that a latency
tail can be laid next to the pauses, second by second.

A fourth scenario, ``capacity`` (asked for by name), fits docs/deploy.md's capacity model:
two runs at the same tables and two paces give what a move and what a live table cost every
process and shared service (:mod:`.counters` reads PostgreSQL's, Redis's and the servers'
own counters at the window's edges), projected to 1,000, 10,000 and 100,000 live tables and
checked against a run with more processes (:mod:`.capacity`).

The parts: :mod:`.bench` (the runs and the load generator), :mod:`.scenarios` (throughput
and human), :mod:`.capacity`, :mod:`.counters`, :mod:`.failover`, :mod:`.machine`,
:mod:`.command` (the command line).
"""

from flip7.client.clusterbench.capacity import capacity_report
from flip7.client.clusterbench.command import DESCRIPTION, add_arguments, main, run
from flip7.client.clusterbench.failover import failover_report
from flip7.client.clusterbench.machine import machine, machine_line
from flip7.client.clusterbench.scenarios import human_report, throughput_report
from flip7.client.measure import cpu_delta, cpu_snapshot

__all__ = [
    "DESCRIPTION",
    "add_arguments",
    "capacity_report",
    "cpu_delta",
    "cpu_snapshot",
    "failover_report",
    "human_report",
    "machine",
    "machine_line",
    "main",
    "run",
    "throughput_report",
]
