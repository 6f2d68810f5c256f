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
from cluster_helpers import Cluster, scrape
from server_helpers import free_port

PAUSED = chaos_h.OUTAGE_SECONDS
SERVER_ARGS = chaos_h.OUTAGE_SERVER_ARGS


def test_a_paused_owner_s_tables_move_on_within_5_s_and_it_writes_nothing_when_it_wakes(
    pg_url: str, redis_url: str
) -> None:
    began = time.monotonic()
    ports = [free_port() for _ in range(3)]
    with Cluster(3, pg_url, redis_url, extra_args=SERVER_ARGS,
                 process_args=[["--metrics", f"127.0.0.1:{p}"] for p in ports]) as cluster:
        run, paused_at, owned, table_ids = asyncio.run(chaos_h.owner_outage(
            cluster, pg_url, "Pause", lambda: cluster.pause(0), lambda: cluster.resume(0),
            seed=32))
        woken, *others = [scrape(f"http://127.0.0.1:{p}/metrics") for p in ports]
    print(f"\n  in {time.monotonic() - began:.1f} s", end="")
    # Read once every process has stopped: their shutdown writes nothing either.
    chaos_h.check_outage(pg_url, [cluster.log(i) for i in range(3)], run, paused_at, owned,
                         table_ids, f"paused {PAUSED} s")

    # What the operator's Prometheus saw, scraped from the live processes: the others took
    # every table over and closed the links that led to the paused owner; it, woken, had
    # lost them all, and tried no write under its old tokens.
    took = sum(m["flip7_cluster_takeovers_total"] for m in others)
    moved = sum(m["flip7_cluster_links_moved_total"] for m in others)
    print(f"\n  metrics: takeovers {took:g} at the others, links moved {moved:g}, tables lost "
          f"{woken['flip7_cluster_tables_lost_total']:g} at the woken one, its fenced writes "
          f"{woken['flip7_database_writes_fenced_total']:g}", end="")
    assert took >= len(owned), others
    assert moved >= 1, others
    assert woken["flip7_cluster_tables_lost_total"] >= len(owned), woken
    assert woken["flip7_database_writes_fenced_total"] == 0, woken
    per_process = [k for k in woken if k.startswith("flip7_cluster_process_tables{")]
    assert len(per_process) == 3, per_process  # every live process, as its last sweep saw
