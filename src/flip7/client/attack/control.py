"""One row of ``flip7 attack`` (:func:`attack_row`), in this process: the control table
(three seated humans of the load test, :mod:`flip7.client.loadtest.clients`, moving 50 ms
after their turn comes), the victim bot table (:mod:`flip7.client.attack.victim`: its
bots' wait per move, in a quiet window first, then during the flood) and ``GET
/api/health`` timed while the flood runs in its own process
(:class:`~flip7.client.attack.flood_process.FloodProcess`)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import math
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from flip7.client.attack.figures import (
    ATTACKS,
    MAX_NOTES,
    AttackRow,
    FloodFigures,
    max_by_second,
)
from flip7.client.attack.flood_process import FloodProcess
from flip7.client.attack.victim import Victim
from flip7.client.loadtest.clients import Run, Table, measure_lag, watch
from flip7.client.measure import cpu_snapshot, machine_busy_seconds, percent_between, percentile
from flip7.client.table_client import KEEPALIVE_SECONDS

CONTROL_CLIENTS = 3
CONTROL_THINK = 0.05  # seconds a control client waits before its move
HEALTH_INTERVAL = 0.1
WARMUP = 1.0  # seconds the control table plays before the flood starts


class Health:
    """GET /api/health every HEALTH_INTERVAL seconds; latencies inside the window."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self.window_start = math.inf
        self.window_end = math.inf
        self.latencies: list[float] = []
        self.errors = 0
        self.messages: list[str] = []

    def error(self, message: str) -> None:
        self.errors += 1
        if len(self.messages) < MAX_NOTES:
            self.messages.append(message)

    async def probe(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            began = time.perf_counter()
            try:
                response = await self.http.get("/api/health")
                if response.status_code != 200:
                    self.error(f"HTTP {response.status_code}: {response.text[:200]}")
            except httpx.HTTPError as exc:
                self.error(f"{type(exc).__name__}: {exc}")
            else:
                if self.window_start <= began < self.window_end:
                    self.latencies.append(1000 * (time.perf_counter() - began))
            wait = HEALTH_INTERVAL - (time.perf_counter() - began)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), max(0.0, wait))


def _summary(values: list[float]) -> tuple[float | None, float | None, float | None]:
    if not values:
        return None, None, None
    return percentile(values, 50), percentile(values, 95), max(values)


async def attack_row(
    attack: str,
    url: str,
    duration: float,
    config: dict[str, Any],
    *,
    server_pid: int | None = None,
    seed: int | None = None,
    timeout: float = 10.0,
    quiet: float = 0.0,
    server_pids: list[int] | None = None,
    database: Path | None = None,
) -> AttackRow:
    """Run one attack (``baseline``: none) for ``duration`` seconds next to a control table of
    the server at ``url``; ``config`` holds the flood's counts. With ``quiet`` seconds the
    victim bot table plays that long before the flood starts (its quiet baseline) and is
    measured during the flood too. ``server_pids``: the server's processes (or
    ``server_pid``'s alone), whose CPU is counted; ``database``: its SQLite file, whose
    growth is counted."""
    url = url.rstrip("/")
    pids = server_pids if server_pids is not None else (
        [server_pid] if server_pid is not None else None)
    row = AttackRow(attack, ATTACKS[attack], duration, None)
    limits = httpx.Limits(keepalive_expiry=KEEPALIVE_SECONDS)
    async with contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(
            httpx.AsyncClient(base_url=url, timeout=timeout, trust_env=False, limits=limits)
        )
        health_http = await stack.enter_async_context(
            httpx.AsyncClient(base_url=url, timeout=timeout, trust_env=False, limits=limits)
        )
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="flip7-attack-")))
        run = Run(url, http, CONTROL_THINK, 0.0, timeout, True, None)
        stats = run.stats
        table = Table(run, 0, CONTROL_CLIENTS, seed)
        health = Health(health_http)
        victim = Victim(url, http, timeout) if quiet > 0 else None
        stop = asyncio.Event()
        flood: FloodProcess | None = None
        tasks: list[asyncio.Task[None]] = []
        try:
            if await table.setup():
                tasks.append(asyncio.create_task(watch([table], stop)))
                run.sending = True
                await table.start()
                if victim is not None:
                    if await victim.setup():
                        tasks.append(asyncio.create_task(victim.play(stop)))
                        row.victim_bot = victim.bot
                    else:
                        row.victim_bot = "none: the victim table could not be set up"
                tasks.append(asyncio.create_task(health.probe(stop)))
                tasks.append(asyncio.create_task(measure_lag(stats, stop)))
                await asyncio.sleep(WARMUP)
                if victim is not None:
                    began = time.perf_counter()
                    await asyncio.sleep(quiet)
                    row.victim_quiet = victim.figures(began, time.perf_counter())
                if attack != "baseline":
                    flood_config = {
                        **config, "attack": attack, "url": url, "duration": duration,
                        "control_table": table.id,
                    }  # fmt: skip
                    flood = await FloodProcess.spawn(flood_config, folder)
                    if not await flood.ready():
                        row.flood = FloodFigures()
                        row.flood.note(f"the flood did not get ready: {flood.tail()}")
                gc.collect()
                gc.freeze()  # the collector's full passes would count as latency
                now = time.perf_counter()
                stats.window_start = health.window_start = now
                stats.window_end = health.window_end = now + duration
                server_before = _server_cpu(pids)
                machine_before = machine_busy_seconds()
                client_before = time.process_time()
                database_before = _database_bytes(database)
                await asyncio.sleep(duration)
                window = time.perf_counter() - now
                if victim is not None:
                    row.victim = victim.figures(now, now + window)
                database_after = _database_bytes(database)
                if database_before is not None and database_after is not None:
                    row.database_growth_bytes = database_after - database_before
                row.client_cpu_percent = (time.process_time() - client_before) / window * 100
                row.server_cpu_percent = percent_between(server_before, _server_cpu(pids),
                                                         window)  # fmt: skip
                row.machine_cpu_percent = percent_between(machine_before, machine_busy_seconds(),
                                                          window)  # fmt: skip
                run.sending = False
                if flood is not None and row.flood is None:
                    row.flood = await flood.result(limit=30.0)
                give_up = time.perf_counter() + timeout + 1
                while table.pending and time.perf_counter() < give_up:
                    await asyncio.sleep(0.05)
        finally:
            gc.unfreeze()
            run.closing = True
            stop.set()
            if flood is not None:
                await flood.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
            for task in list(run.tasks):
                task.cancel()
            await asyncio.gather(*run.tasks, return_exceptions=True)
            await asyncio.gather(*(c.close() for c in table.clients), return_exceptions=True)
            if victim is not None:
                await victim.leave()
    latencies = [1000 * s for s in stats.latencies]
    row.control_moves = len(latencies)
    row.control_p50_ms, row.control_p95_ms, row.control_max_ms = _summary(latencies)
    row.control_max_by_second = max_by_second(stats.sent, latencies, stats.window_start,
                                              duration)  # fmt: skip
    row.control_errors = stats.errors
    row.control_error_kinds = dict(stats.kinds)
    row.control_error_messages = list(stats.messages)
    row.client_lag_max_ms = 1000 * max(stats.lags) if stats.lags else None
    row.health_count = len(health.latencies)
    row.health_p50_ms, row.health_p95_ms, row.health_max_ms = _summary(health.latencies)
    row.health_errors = health.errors
    row.health_error_messages = list(health.messages)
    if victim is not None:
        row.victim_games = victim.games
        row.victim_errors = victim.errors
        row.victim_error_messages = list(victim.messages)
    return row


def _server_cpu(pids: list[int] | None) -> float | None:
    """CPU seconds of the server's processes and their workers (bots, replays), from /proc."""
    return None if pids is None else cpu_snapshot({"server": pids}).groups["server"]


def _database_bytes(path: Path | None) -> int | None:
    """The bytes an SQLite database holds in use (its pages less the free ones, as a
    reader sees it: the write-ahead log's committed pages included, which the files' sizes
    do not tell until a checkpoint); None when unknown."""
    if path is None or not path.exists():
        return None
    try:
        with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True,
                                                timeout=1.0)) as db:  # fmt: skip
            pages, free, size = (
                int(db.execute(f"PRAGMA {name}").fetchone()[0])
                for name in ("page_count", "freelist_count", "page_size")
            )
    except sqlite3.Error:
        return None
    return (pages - free) * size
