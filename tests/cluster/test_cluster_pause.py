"""A hung owner (issue 32): three ``flip7 serve`` processes behind the proxy recipe, on one
PostgreSQL and one Redis; every table run by the first, every player's socket on one of the
other two (linked over Redis to the owner). The owner is paused with SIGSTOP for longer than
its lease, then resumed with SIGCONT.

A paused process keeps its Redis connection (it still "listens"), so only the database tells
that its lease lapsed: the links must follow the tables' owners (closed with "moved"), the
others take the tables over, and every table's next move is applied within 5 s of the pause.
The woken process writes nothing (it checks its own lease before it writes: no write reaches
the fence), nor does any process at its shutdown, and no acknowledged move is lost or applied
twice.
"""

from __future__ import annotations

import asyncio
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("redis")
pytest.importorskip("psycopg")

import chaos_helpers as chaos_h
from cluster_helpers import LOOSE, Cluster

TABLES = 9
SEATS = 3
THINK = (0.02, 0.05)
# Longer than the lease (3 s): the others take over while it sleeps.
PAUSED = 6.0
# The failover target, from the pause to the next applied move at each table.
TARGET = 5.0
SERVER_ARGS = [*LOOSE, "--log-level", "info"]


def test_a_paused_owner_s_tables_move_on_within_5_s_and_it_writes_nothing_when_it_wakes(
    pg_url: str, redis_url: str
) -> None:
    began = time.monotonic()
    with Cluster(3, pg_url, redis_url, extra_args=SERVER_ARGS) as cluster:
        run, paused_at, owned, table_ids = asyncio.run(chaos_h.owner_outage(
            cluster, pg_url, "Pause", lambda: cluster.pause(0), lambda: cluster.resume(0),
            PAUSED, TABLES, SEATS, THINK, seed=32))
    print(f"\n  in {time.monotonic() - began:.1f} s", end="")
    # Read once every process has stopped: their shutdown writes nothing either.
    chaos_h.check_outage(pg_url, [cluster.log(i) for i in range(3)], run, paused_at, owned,
                         table_ids, f"paused {PAUSED} s", TARGET)
