"""Failover figures of the multi-process mode (issue 32): from an event to the next move
applied at every table it affects, p50 and max, for a ``kill -9`` of a tables' owner, a
pause of it (SIGSTOP for longer than its lease, then SIGCONT), a Redis restart and a
PostgreSQL outage.

It starts what the tests start (flip7.client.services): a throwaway PostgreSQL, a
``redis-server``, three ``flip7 serve`` processes (``--redis``, the default 3 s lease) and
HAProxy running the recipe (deploy/haproxy.cfg) in front of them. For each event, fresh
tables are made on one process, their players (the chaos test's scripted humans,
tests/chaos_helpers.py, who reconnect on any close and send again a move not answered) all
connected to the other two: linked over Redis to the owner, the case a hung owner used to
stall. They play for a few seconds, the event happens, and each table's time runs until
the first move acknowledged that was applied after the event (for a kill and a pause:
under the new owner's fencing token; for a Redis restart and a PostgreSQL outage: once
it is back, so that its time includes how long it was down).

    .venv/bin/python scripts/failover_figures.py            # 2 rounds of 12 tables each
    .venv/bin/python scripts/failover_figures.py --rounds 1 --tables 6

Needs PostgreSQL (``initdb``; ``PG_BIN``), ``redis-server`` and ``haproxy`` installed, as
the cluster tests do; about 3 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import chaos_helpers as chaos_h
from chaos_helpers import Run
from cluster_helpers import LOOSE

from flip7.client.services import Cluster, Postgres, RedisServer, ServerProcess

SEATS = 3
THINK = (0.02, 0.05)
WARM = 3.0  # seconds of play before the event
PAUSED = 6.0  # a pause longer than the lease (3 s)
REDIS_DOWN = 1.0
PG_DOWN = 2.0
# Print why a table took longer than this many seconds (--explain).
EXPLAIN: float | None = None
ONLY: str | None = None  # --only
CAP = 30.0  # seconds after the event when a table that has not moved on counts as stuck


class Stack:
    """PostgreSQL, Redis, three servers and the proxy, started and stopped together."""

    def __init__(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="flip7-failover-", dir="/tmp"))
        self.pg = Postgres().start()
        self.pg_url = self.pg.url(self.pg.create_database("figures_"))
        self.redis = RedisServer(self.workdir).start()
        servers = [ServerProcess(self.pg_url, extra_args=["--redis", self.redis.url(0), *LOOSE,
                                                          "--log-level", "info"],
                                 log_path=self.workdir / f"app{i + 1}.log")
                   for i in range(3)]  # fmt: skip
        self.cluster = Cluster(servers, self.workdir).start()

    def close(self) -> None:
        try:
            self.cluster.stop()
        finally:
            self.redis.stop()
            self.pg.stop()
            shutil.rmtree(self.workdir, ignore_errors=True)


async def episode(stack: Stack, owner: int, tables: int, seed: int,
                  event: Callable[[], Awaitable[None]],
                  fenced: bool) -> list[float | None]:  # fmt: skip
    """Make ``tables`` tables on process ``owner``, their players on the others; play, run
    ``event``, play on: each table's seconds from the event to its next applied move (None:
    none within CAP)."""
    cluster = stack.cluster
    run = Run(cluster.proxy.ws_url, cluster.proxy.url, THINK, asyncio.Event())
    rng = random.Random(seed)
    others = [url for i, url in enumerate(cluster.urls) if i != owner]
    async with chaos_h.playing(run) as (clients, tasks):
        table_ids = await chaos_h.linked_tables(run, cluster.urls[owner], others, tables, SEATS,
                                                f"Figures {seed}", rng, clients, tasks)
        await asyncio.sleep(WARM)
        held = await asyncio.to_thread(chaos_h.owners, stack.pg_url)
        logged = len(cluster.servers[owner].log_text())
        at = run.now()
        await event()
        if not fenced:
            # Redis or PostgreSQL back: the first move applied from now on counts (a move
            # acknowledged while it was going down was on its way before).
            end = run.now()
            held = await asyncio.to_thread(chaos_h.owners, stack.pg_url)

        def took() -> dict[str, float]:
            if fenced:
                logs, _, _ = chaos_h.stored(stack.pg_url, table_ids)
                times: dict[str, float] = chaos_h.failover_times(
                    at, {t: held[t][1] for t in table_ids}, logs, run.acks)
                return times
            first: dict[str, float] = {}
            for a in run.acks:
                if a.at > end and a.result > held[a.table][2] and a.table not in first:
                    first[a.table] = a.at - at
            return first

        while run.now() < at + CAP and len(await asyncio.to_thread(took)) < len(table_ids):
            await asyncio.sleep(0.25)
        times = await asyncio.to_thread(took)
        fenced_writes = cluster.servers[owner].log_text()[logged:].count('"event":"write_fenced"')
        if fenced_writes:
            print(f"    the owner's writes refused by the fence meanwhile: {fenced_writes}")
        if EXPLAIN:
            for table_id in table_ids:
                if times.get(table_id, CAP) > EXPLAIN:
                    print(f"    {table_id}: {times.get(table_id)} s after the event at "
                          f"{at:.2f} s (wall {run.wall_started + at:.2f})")
                    for p in run.players:
                        if p.table_id == table_id:
                            print(f"      {p.describe()}")
                    for entry in run.readies_log:
                        if entry[2] == table_id and entry[1] > at - 2:
                            print(f"      ready: {entry}")
                    for i in range(3):
                        for line in chaos_h.log_lines(cluster.servers[i].log_text(), table_id,
                                                      run.wall_started + at - 1,
                                                      run.wall_started + at + CAP):
                            if '"move"' not in line:
                                print(f"      process {i}: {line[:240]}")
        run.stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 15)
        return [times.get(t) for t in table_ids]


def figures(times: list[float | None]) -> str:
    done = sorted(t for t in times if t is not None)
    stuck = len(times) - len(done)
    if not done:
        return f"no table moved on within {CAP:g} s"
    text = f"p50 {statistics.median(done):.2f} s, max {done[-1]:.2f} s ({len(times)} tables)"
    return text + (f"; {stuck} not within {CAP:g} s" if stuck else "")


def machine() -> str:
    model = "?"
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    for line in lscpu.splitlines():
        if line.startswith("Model name:"):
            model = line.split(":", 1)[1].strip()
    return f"{os.cpu_count()} cores, {model}; Python {platform.python_version()}"


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


async def main_async(stack: Stack, rounds: int, tables: int) -> dict[str, list[float | None]]:
    cluster = stack.cluster
    results: dict[str, list[float | None]] = {}

    async def kill(i: int) -> None:
        cluster.kill(i)

    async def pause(i: int) -> None:
        cluster.pause(i)
        await asyncio.sleep(PAUSED)
        cluster.resume(i)

    async def redis(_: int) -> None:
        await asyncio.to_thread(stack.redis.restart, REDIS_DOWN)

    async def postgres(_: int) -> None:
        await asyncio.to_thread(stack.pg.restart, PG_DOWN)

    seed = 0
    for r in range(rounds):
        events: list[tuple[str, bool, int, Callable[[int], Awaitable[None]]]] = [
            ("kill -9 of the owner", True, r % 3, kill),
            (f"pause of the owner ({PAUSED:g} s SIGSTOP, then SIGCONT)", True, (r + 1) % 3,
             pause),
            (f"Redis restart ({REDIS_DOWN:g} s down)", False, (r + 2) % 3, redis),
            (f"PostgreSQL outage ({PG_DOWN:g} s down, restarted)", False, r % 3, postgres),
        ]
        for name, fenced, owner, event in events:
            seed += 1
            if ONLY is not None and not name.startswith(ONLY):
                continue
            times = await episode(stack, owner, tables, seed, functools.partial(event, owner),
                                  fenced)  # fmt: skip
            results.setdefault(name, []).extend(times)
            print(f"  round {r + 1}, {name}: {figures(times)}", flush=True)
            if event is kill:
                await asyncio.to_thread(cluster.restart, owner)
            await asyncio.sleep(2.0)  # the cluster settles (the proxy sees every process up)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tables", type=int, default=12, help="tables per event and round")
    parser.add_argument("--only", help="only the events whose name starts with this")
    parser.add_argument("--explain", type=float, help="show why a table took longer than "
                        "this many seconds (its players, its servers' log)")
    args = parser.parse_args()
    global EXPLAIN, ONLY
    EXPLAIN, ONLY = args.explain, args.only
    print(f"machine: {machine()}\nload before: {uptime()}", flush=True)
    began = time.monotonic()
    stack = Stack()
    try:
        results = asyncio.run(main_async(stack, args.rounds, args.tables))
    finally:
        stack.close()
    print(f"load after: {uptime()}; {time.monotonic() - began:.0f} s in all")
    print("from the event to the next applied move at every affected table (players linked "
          "to the owner from the other processes):")
    for name, times in results.items():
        print(f"  {name}: {figures(times)}")


if __name__ == "__main__":
    main()
