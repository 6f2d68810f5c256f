"""The chaos test of the scale-out (issue 15): three ``flip7 serve`` processes behind HAProxy,
50 tables of three scripted humans playing through the proxy, one process killed with
``kill -9`` every 6 s and started again at once, then the busiest one paused with SIGSTOP
for longer than its lease and resumed (issue 32): its tables whose players' sockets are on
the other processes (linked over Redis) move on within 6 s (the pause test holds 5). Then
every table's stored log is read straight from PostgreSQL: its versions are contiguous, it
replays through the engine (the server's own ``Lobby.rebuild``), every finished game's
record replays to the same winners,
no acknowledged move is missing from it and none is in it twice.

Bounded in time: about 30 s of play (3 kills, a pause), some 60 s in all on a 2-core machine.
The figures (moves acknowledged, reconnects, failover per kill and pause, acknowledged-but-lost and
applied-twice) are printed: ``pytest -s tests/cluster/test_cluster_chaos.py`` shows them.

With ``FLIP7_CHAOS_LOGS=DIR`` the three processes' whole logs are left in DIR.

The players (tests/chaos_helpers.py) do what a browser does: reconnect on any close (backoff
from 0.2 s to 2 s, a failed handshake or a 503 being one more try) with ``last_version``,
re-send the move whose answer has not come (same id, version and decision), say ready at
the end screen so that the tables play on.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import time
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("redis")
pytest.importorskip("psycopg")

import chaos_helpers as chaos_h
from chaos_helpers import Ack, Run
from cluster_helpers import LOOSE, Cluster

TABLES = 50
SEATS = 3
PLAY_SECONDS = 31.0  # kills at 6, 12 and 18 s: each of the three processes once; a pause
# The busiest process paused at 24 s for longer than its lease (3 s); the bound from the
# pause to the next applied move at its tables whose players are linked to it. The issue's
# target is 5 s, held by tests/cluster/test_cluster_pause.py and test_cluster_partition.py
# on their own; here, after three kills and beside the rest of the suite on two cores, one
# CI run saw 5.20 s (2026-12-06, the others of that pause 4.4-4.6 s), so this bound has a
# second of slack: a table stalled for the pause (6 s and more) still fails it.
PAUSE_AT, PAUSED, PAUSE_TARGET = 24.0, 6.0, 6.0
# Twice the owner lease (3 s) that a takeover waits out: one kill's tables have moved on
# before the next kill; a longer gap only adds play, and the suite's time.
KILL_EVERY = 6.0
# After PLAY_SECONDS play goes on until every table of every killed process has moved on
# (so that a slow takeover shows as a figure, not as a failure), but never past PLAY_CAP.
PLAY_CAP = 60.0
THINK = (0.02, 0.05)  # seconds a player thinks before each move
MIN_ACKNOWLEDGED = 150
SEED = 15
# The servers log every change (info): a failure can then be told from their logs.
SERVER_ARGS = [*LOOSE, "--trusted-proxy", "127.0.0.1", "--log-level", "info"]


class Kill:
    """One kill -9: which process, when (seconds of play), and the tables it ran then, each
    with its fencing token and version at the kill."""

    def __init__(self, process: int, at: float, owned: dict[str, tuple[int, int]]) -> None:
        self.process = process
        self.at = at
        self.owned = owned
        self.restart_took = 0.0

    def __repr__(self) -> str:
        return f"Kill(process {self.process} at {self.at:.1f} s, {len(self.owned)} tables)"

    def moved_on(self, acks: list[Ack]) -> set[str]:
        """Its tables with a move acknowledged since, two versions past the kill's: applied by
        another process for sure (an answer on its way at the kill may still come through a
        process that forwarded it). The figures use the exact test, the fences."""
        return {a.table for a in acks
                if a.table in self.owned and a.at > self.at
                and a.result >= self.owned[a.table][1] + 2}  # fmt: skip


class Pause(Kill):
    """The SIGSTOP of the busiest process: as a kill, and ``linked``, those of its tables
    whose players' sockets were all open on the other processes then (linked to it over
    Redis)."""

    def __init__(self, process: int, at: float, owned: dict[str, tuple[int, int]],
                 linked: set[str]) -> None:  # fmt: skip
        super().__init__(process, at, owned)
        self.linked = linked

    def __repr__(self) -> str:
        return (f"Pause(process {self.process} at {self.at:.1f} s, {len(self.owned)} tables, "
                f"{len(self.linked)} linked)")


def sockets_on(cluster: Cluster, run: Run) -> dict[str, set[str]]:
    """Table -> the processes (HAProxy's names) its players' open sockets are on, as the
    proxy's sessions say (a socket not open, or not found, counts as "?")."""
    server_of = {}
    for line in cluster.proxy.admin("show sess").splitlines():
        found = re.search(r"src=(\S+) .*srv=(\S+)", line)
        if found:
            server_of[found.group(1)] = found.group(2)
    where: dict[str, set[str]] = {}
    for p in run.players:
        ws = p.ws
        local = None if ws is None else ws.local_address
        key = "?" if local is None else f"{local[0]}:{local[1]}"
        where.setdefault(p.table_id, set()).add(server_of.get(key, "?"))
    return where


async def pause_busiest(cluster: Cluster, pg_url: str, run: Run, nodes: list[str],
                        pauses: list[Pause]) -> None:  # fmt: skip
    """At PAUSE_AT s of play, SIGSTOP the process running the most tables for PAUSED s, then
    SIGCONT it."""
    await asyncio.sleep(max(0.0, PAUSE_AT - run.now()))
    held = await asyncio.to_thread(chaos_h.owners, pg_url)
    runs = Counter(node for node, _, _ in held.values())
    victim = max(range(len(nodes)), key=lambda i: runs[nodes[i]])
    where = await asyncio.to_thread(sockets_on, cluster, run)
    cluster.pause(victim)
    owned = {t: (token, v) for t, (node, token, v) in held.items() if node == nodes[victim]}
    others = {cluster.name(i) for i in range(len(nodes)) if i != victim}
    pause = Pause(victim, run.now(), owned, {t for t in owned if where.get(t, {"?"}) <= others})
    pauses.append(pause)
    print(f"  pause: process {victim} at {pause.at:4.1f} s, it ran {len(pause.owned)} tables "
          f"({len(pause.linked)} with their players on the other processes)", flush=True)
    await asyncio.sleep(PAUSED)
    cluster.resume(victim)


async def chaos(cluster: Cluster, pg_url: str, run: Run, kills: list[Kill],
                rng: random.Random, pauses: list[Pause]) -> None:  # fmt: skip
    """Every KILL_EVERY seconds of play, kill -9 a process (round-robin from a random first
    one) and start it again at once (on the same port; until the proxy sees it up); then
    pause the busiest."""
    nodes = [str((await asyncio.to_thread(cluster.health, url)).json()["node"])
             for url in cluster.urls]
    first = rng.randrange(len(cluster.servers))
    for k in range(int((PAUSE_AT - 1) // KILL_EVERY)):
        await asyncio.sleep(max(0.0, KILL_EVERY * (k + 1) - run.now()))
        victim = (first + k) % len(cluster.servers)
        held = await asyncio.to_thread(chaos_h.owners, pg_url)
        cluster.kill(victim)
        kill = Kill(victim, run.now(),
                    {t: (token, v) for t, (node, token, v) in held.items()
                     if node == nodes[victim]})  # fmt: skip
        kills.append(kill)
        began = time.monotonic()
        await asyncio.to_thread(cluster.restart, victim)
        kill.restart_took = time.monotonic() - began
        health = await asyncio.to_thread(cluster.health, cluster.urls[victim])
        nodes[victim] = str(health.json()["node"])
        print(f"  kill {k + 1}: process {victim} at {kill.at:4.1f} s, it ran "
              f"{len(kill.owned)} tables; restarted in {kill.restart_took:.1f} s", flush=True)
    await pause_busiest(cluster, pg_url, run, nodes, pauses)


async def scenario(cluster: Cluster, pg_url: str
                   ) -> tuple[Run, list[Kill], list[Pause], list[str]]:  # fmt: skip
    """Set the tables up, play with the chaos on, stop: what happened."""
    run = Run(cluster.proxy_ws_url, cluster.proxy_url, THINK, asyncio.Event())
    rng = random.Random(SEED)
    async with chaos_h.playing(run) as (clients, tasks):
        tables = await chaos_h.start_tables(run, cluster, TABLES, SEATS, rng, clients, tasks)
        kills: list[Kill] = []
        pauses: list[Pause] = []
        chaos_task = asyncio.ensure_future(chaos(cluster, pg_url, run, kills, rng, pauses))
        while run.now() < PLAY_CAP:
            await asyncio.sleep(0.25)
            if chaos_task.done():
                chaos_task.result()  # raises what went wrong
                if run.now() >= PLAY_SECONDS and all(
                    k.moved_on(run.acks) == set(k.owned) for k in [*kills, *pauses]
                ):
                    break
        await chaos_task
        print(f"  played {run.now():.1f} s", flush=True)
        run.stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 15)
        return run, kills, pauses, [t[0].table_id for t in tables]


def test_chaos_kill_9_every_6_s_loses_no_move_and_applies_none_twice(
    pg_url: str, redis_url: str
) -> None:
    """Chaos, bounded in time (31 s of play, about 60 s in all): 3 processes behind the
    proxy, 50 tables of 3 scripted humans playing through it, a process killed with kill -9
    every 6 s and restarted, then the busiest paused for 6 s. Afterwards every table's log
    is contiguous and replays through the engine, no acknowledged move was lost or applied
    twice, every table the killed or paused processes ran moved on under its new owner, and
    the paused one's tables whose players were linked to it did within PAUSE_TARGET."""
    began = time.monotonic()
    with Cluster(3, pg_url, redis_url, extra_args=SERVER_ARGS) as cluster:
        run, kills, pauses, table_ids = asyncio.run(scenario(cluster, pg_url))
        server_logs = [cluster.log(i) for i in range(3)]
    if os.environ.get("FLIP7_CHAOS_LOGS"):  # a folder to keep the processes' logs in
        for i, text in enumerate(server_logs):
            (Path(os.environ["FLIP7_CHAOS_LOGS"]) / f"process{i}.log").write_text(text)
    print(f"  the cluster ran {time.monotonic() - began:.1f} s, start to stop")
    logs, versions, finished = chaos_h.stored(pg_url, table_ids)
    rebuilt = chaos_h.rebuild_all(pg_url, table_ids)

    # ---- the figures
    print(f"  moves acknowledged: {len(run.acks)}; reconnects: {run.reconnects} (failed "
          f"handshakes {run.failed_handshakes}, hellos refused {dict(run.hellos_refused)}); "
          f"readies said: {run.readies}; retried answers: {dict(run.retried)}; "
          f"errors: {dict(run.errors)}")
    for sample in run.error_samples:
        print(f"    error: {sample}")
    stuck: dict[str, str] = {}  # table -> why it counts as stuck
    linked_took: dict[str, float] = {}
    for n, kill in enumerate([*kills, *pauses], 1):
        after = [a.at for a in run.acks if a.at > kill.at]
        anywhere = f"{min(after) - kill.at:.2f} s" if after else "never"
        # Exact: the first change a table's new owner wrote carries a greater fence; its
        # failover time runs to the first acknowledged move at or after that change.
        took = chaos_h.failover_times(kill.at, {t: k for t, (k, _) in kill.owned.items()},
                                      logs, run.acks)  # fmt: skip
        for table_id in set(kill.owned) - set(took):
            stuck.setdefault(table_id, f"never moved on after event {n} ({kill})")
        if isinstance(kill, Pause):
            linked_took = {t: took[t] for t in kill.linked if t in took}
            times = sorted(linked_took.values())
            print(f"  pause: its {len(kill.linked)} tables whose players were linked to it "
                  f"moved on " + (f"p50 {times[len(times) // 2]:.2f} s, max {times[-1]:.2f} s "
                                  f"after the pause" if times else "never"))  # fmt: skip
        slowest = max(took, key=took.__getitem__) if took else None
        times = sorted(took.values())
        print(f"  {'pause' if isinstance(kill, Pause) else 'kill'} {n}: process {kill.process} "
              f"at {kill.at:.1f} s ({len(kill.owned)} "
              f"tables): the next move acknowledged anywhere {anywhere} after; at its tables "
              + (f"the first {times[0]:.2f} s, the median {times[len(times) // 2]:.2f} s, "
                 f"the last {times[-1]:.2f} s after ({slowest})" if times else "none")
              + f"; {len(took)}/{len(kill.owned)} moved on")  # fmt: skip
        if isinstance(kill, Pause) and linked_took:
            slowest = max(linked_took, key=linked_took.__getitem__)
            for p in run.players:
                if p.table_id == slowest:
                    print(f"      {p.describe()}")
        if slowest is not None and took[slowest] > (PAUSE_TARGET if isinstance(kill, Pause)
                                                    else 8):  # why so slow: the servers' logs
            wall = run.wall_started + kill.at
            for asked, answered, table_id, seat, status, answer in run.readies_log:
                if table_id == slowest and answered > kill.at and asked < kill.at + took[slowest]:
                    print(f"      ready of seat {seat}: sent {asked - kill.at:.2f} s after the "
                          f"kill, answered {answered - asked:.2f} s later: {status} "
                          f"{answer[:60]}")
            for i, text in enumerate(server_logs):
                for line in chaos_h.log_lines(text, slowest, wall, wall + took[slowest]):
                    if '"move"' not in line:
                        print(f"      process {i}: {line}")
    if kills or pauses:
        last = max(k.at for k in [*kills, *pauses])
        for table_id in set(table_ids) - {a.table for a in run.acks if a.at > last}:
            stuck.setdefault(table_id, "no move acknowledged after the last kill or pause")

    # ---- the stored logs against what was acknowledged
    checked = chaos_h.check(run, table_ids, logs, versions, rebuilt, finished)
    checked.print(len(run.unanswered))

    for table_id, why in sorted(stuck.items()):
        log = logs[table_id]
        print(f"  stuck table {table_id} ({why}): stored version {versions[table_id]}, last "
              f"entries {[tuple(e) for e in log[-4:]]}")
        print(f"    ready calls: {[r for r in run.readies_log if r[2] == table_id][-4:]}")
        for p in run.players:
            if p.table_id == table_id:
                print(f"    {p.describe()}")
        for i, text in enumerate(server_logs):
            lines = chaos_h.log_lines(text, table_id, 0, float("inf"))
            print(f"    process {i}: {lines[-6:]}")

    checked.assert_sound()
    assert not run.errors, (dict(run.errors), run.error_samples)
    assert len(run.acks) >= MIN_ACKNOWLEDGED, len(run.acks)
    assert len(kills) == 3, kills
    for kill in kills:
        assert any(a.at > kill.at for a in run.acks), f"nothing acknowledged after {kill}"
    assert not stuck, f"tables that stopped: {stuck}"
    assert len(pauses) == 1, pauses
    assert all(took <= PAUSE_TARGET for took in linked_took.values()), (pauses, linked_took)
    assert set(linked_took) == pauses[0].linked
