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
import json
import random
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("redis")
pytest.importorskip("psycopg")

import chaos_helpers as chaos_h
from chaos_helpers import Run
from cluster_helpers import LOOSE, Cluster

TABLES = 9
SEATS = 3
THINK = (0.02, 0.05)
# Longer than the lease (3 s): the others take over while it sleeps.
PAUSED = 6.0
# The failover target, from the pause to the next applied move at each table.
TARGET = 5.0
SERVER_ARGS = [*LOOSE, "--log-level", "info"]


async def scenario(cluster: Cluster, pg_url: str) -> tuple[Run, float, dict[str, int], list[str]]:
    """Play, pause the owner of every table, play on: what happened, the pause's time, the
    tokens the owner held then, the tables."""
    owner_url = cluster.urls[0]
    run = Run(cluster.proxy_ws_url, cluster.proxy_url, THINK, asyncio.Event())
    rng = random.Random(32)
    async with chaos_h.playing(run) as (clients, tasks):
        table_ids = await chaos_h.linked_tables(run, owner_url, cluster.urls[1:], TABLES, SEATS,
                                                "Pause", rng, clients, tasks)
        await asyncio.sleep(3.0)
        node = str((await asyncio.to_thread(cluster.health, owner_url)).json()["node"])
        held = await asyncio.to_thread(chaos_h.owners, pg_url)
        owned = {t: token for t, (n, token, _) in held.items() if n == node}
        assert set(owned) == set(table_ids), (owned, table_ids)
        cluster.pause(0)
        paused_at = run.now()
        await asyncio.sleep(PAUSED)
        cluster.resume(0)
        # Play on until every table has a move past its takeover (or long past the target).
        while run.now() < paused_at + 30:
            await asyncio.sleep(0.25)
            logs, _, _ = await asyncio.to_thread(chaos_h.stored, pg_url, table_ids)
            if len(chaos_h.failover_times(paused_at, owned, logs, run.acks)) == len(owned):
                break
        await asyncio.sleep(1.0)  # the woken process's late steps, if any, are in its log
        run.stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 15)
        return run, paused_at, owned, table_ids


def events(log: str, name: str) -> list[dict[str, object]]:
    """The JSON log lines of one event in a server's log."""
    found = []
    for line in log.splitlines():
        start = line.find("{")
        if start >= 0 and f'"event":"{name}"' in line:
            found.append(json.loads(line[start:]))
    return found


def test_a_paused_owner_s_tables_move_on_within_5_s_and_it_writes_nothing_when_it_wakes(
    pg_url: str, redis_url: str
) -> None:
    began = time.monotonic()
    with Cluster(3, pg_url, redis_url, extra_args=SERVER_ARGS) as cluster:
        run, paused_at, owned, table_ids = asyncio.run(scenario(cluster, pg_url))
    # Read once every process has stopped: their shutdown writes nothing either.
    server_logs = [cluster.log(i) for i in range(3)]
    logs, versions, _ = chaos_h.stored(pg_url, table_ids)
    took = chaos_h.failover_times(paused_at, owned, logs, run.acks)
    times = sorted(took.values())
    print(f"\n  {len(run.acks)} moves acknowledged in {time.monotonic() - began:.1f} s; "
          f"owner paused {PAUSED} s at {paused_at:.1f} s with {len(owned)} tables; from the "
          f"pause to each table's next applied move: "
          + (f"p50 {times[len(times) // 2]:.2f} s, max {times[-1]:.2f} s" if times else "none"))
    lost, twice = chaos_h.lost_and_twice(logs, run.acks)
    moved = sum(len(events(log, "links_moved")) for log in server_logs[1:])
    taken = sum(len(events(log, "table_taken_over")) for log in server_logs[1:])
    woken = server_logs[0]
    print(f"  links moved: {moved}; takeovers: {taken}; the woken owner: "
          f"{len(events(woken, 'table_dropped'))} tables dropped, "
          f"{len(events(woken, 'write_fenced'))} writes fenced, "
          f"{len(events(woken, 'write_refused'))} refused before the fence")
    assert set(took) == set(owned), f"tables that never moved on: {set(owned) - set(took)}"
    assert times[-1] <= TARGET, took
    assert not lost, lost[:10]
    assert not twice, list(twice.items())[:10]
    assert not run.errors, (dict(run.errors), run.error_samples)
    assert all(versions[t] == len(logs[t]) for t in table_ids)
    assert moved >= 1 and taken >= len(owned)
    # Woken, it dropped every table it had lost and wrote nothing under an old token, then
    # or at its shutdown (nor did the others at theirs).
    for log in server_logs:
        assert not events(log, "write_fenced"), events(log, "write_fenced")
    assert {e["table"] for e in events(woken, "table_dropped")} == set(owned)
