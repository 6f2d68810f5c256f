"""One load test (:func:`load_test`): set up every table, play through the warmup and
the measured window, and gather the figures."""

from __future__ import annotations

import asyncio
import gc
import math
import os
import time
from collections.abc import Callable
from typing import Any

import httpx

from flip7.client.loadtest.clients import Run, Stats, Table, measure_lag, watch
from flip7.client.loadtest.figures import LoadResult, Second
from flip7.client.measure import (
    load_average,
    machine_busy_seconds,
    percent_between,
    percentile,
    process_cpu_seconds,
)
from flip7.client.table_client import KEEPALIVE_SECONDS


async def _sample_cpu(stats: Stats, server_pid: int | None, stop: asyncio.Event) -> None:
    """The server's and the machine's CPU use, second by second through the window."""

    def sample() -> tuple[float, float | None, float | None]:
        server = None if server_pid is None else process_cpu_seconds(server_pid)
        return time.perf_counter(), server, machine_busy_seconds()

    while stats.window_start == math.inf and not stop.is_set():
        await asyncio.sleep(0.05)
    await asyncio.sleep(max(0.0, stats.window_start - time.perf_counter()))
    last = sample()
    while not stop.is_set() and last[0] < stats.window_end - 0.5:
        await asyncio.sleep(max(0.0, min(last[0] + 1, stats.window_end) - time.perf_counter()))
        now = sample()
        seconds = now[0] - last[0]
        stats.cpu.append((percent_between(last[1], now[1], seconds),
                          percent_between(last[2], now[2], seconds)))  # fmt: skip
        last = now


async def load_test(
    url: str,
    tables: int,
    clients: int,
    duration: float,
    think: float,
    *,
    warmup: float = 0.0,
    think_jitter: float = 0.5,
    seed: int | None = None,
    timeout: float = 10.0,
    setup_concurrency: int = 20,
    compression: bool = True,
    rules: dict[str, Any] | None = None,
    server_pid: int | None = None,
    on_window: Callable[[str], None] | None = None,
) -> LoadResult:
    """Play ``tables`` tables of ``clients`` WebSocket clients each against the server at ``url``
    for ``warmup + duration`` seconds; figures cover the last ``duration`` seconds only.

    ``think`` is the seconds a client waits before sending its decision (human thinking time;
    0 = flat out); each wait is drawn uniformly within ``think × (1 ± think_jitter)``, so that
    tables do not move in lockstep (all of them at once every ``think`` seconds). ``timeout``
    bounds every call, and a move's complete answer. ``setup_concurrency`` tables are created,
    joined and connected at a time. ``server_pid`` (the server's process, on this machine) lets
    the server's CPU use be measured. ``on_window`` is called with ``"start"`` and ``"end"``
    at the edges of the measured window, so that a caller can measure other processes over
    the same seconds (flip7.client.clusterbench).
    """
    if tables < 1 or clients < 1 or duration <= 0 or think < 0 or warmup < 0:
        raise ValueError("tables and clients must be positive, duration > 0, think/warmup >= 0")
    if not 0 <= think_jitter <= 1:
        raise ValueError("think_jitter is a fraction from 0 to 1")
    url = url.rstrip("/")
    limits = httpx.Limits(
        max_connections=max(setup_concurrency, 10) * 2,
        max_keepalive_connections=max(setup_concurrency, 10) * 2,
        keepalive_expiry=KEEPALIVE_SECONDS,
    )
    async with httpx.AsyncClient(
        base_url=url, limits=limits, timeout=timeout, trust_env=False
    ) as http:
        run = Run(url, http, think, think_jitter, timeout, compression, rules)
        stats = run.stats
        everything = [Table(run, i, clients, seed) for i in range(tables)]
        stop = asyncio.Event()
        watcher = asyncio.create_task(watch(everything, stop))
        lag = asyncio.create_task(measure_lag(stats, stop))
        sampler = asyncio.create_task(_sample_cpu(stats, server_pid, stop))
        limit = asyncio.Semaphore(max(1, setup_concurrency))

        async def bounded(table: Table, step: str) -> bool:
            async with limit:
                if step == "setup":
                    return await table.setup()
                await table.start()
                return table.started

        try:
            setup_began = time.perf_counter()
            ready = await asyncio.gather(*(bounded(t, "setup") for t in everything))
            playing = [t for t, ok in zip(everything, ready, strict=True) if ok]
            setup_seconds = time.perf_counter() - setup_began

            # The connections live until the end: keep the collector from scanning them over
            # and over (its pauses would count as latency).
            gc.collect()
            gc.freeze()
            run.sending = True
            began = time.perf_counter()
            stats.window_start = began + warmup
            stats.window_end = stats.window_start + duration
            await asyncio.gather(*(bounded(t, "start") for t in playing))

            await asyncio.sleep(max(0.0, stats.window_start - time.perf_counter()))
            if on_window is not None:
                on_window("start")
            cpu_before = time.process_time()
            machine_before = machine_busy_seconds()
            server_before = None if server_pid is None else process_cpu_seconds(server_pid)
            window_began = time.perf_counter()
            await asyncio.sleep(max(0.0, stats.window_end - time.perf_counter()))
            window = time.perf_counter() - window_began
            client_cpu = (time.process_time() - cpu_before) / window * 100
            machine_cpu = percent_between(machine_before, machine_busy_seconds(), window)
            server_after = None if server_pid is None else process_cpu_seconds(server_pid)
            server_cpu = percent_between(server_before, server_after, window)
            if on_window is not None:
                on_window("end")

            # No new moves; let the ones in flight finish (the watcher times them out).
            run.sending = False
            give_up = time.perf_counter() + timeout + 1
            while any(t.pending for t in playing) and time.perf_counter() < give_up:
                await asyncio.sleep(0.05)
        finally:
            gc.unfreeze()
            run.closing = True
            stop.set()
            await asyncio.gather(watcher, lag, sampler, return_exceptions=True)
            for task in list(run.tasks):
                task.cancel()
            await asyncio.gather(*run.tasks, return_exceptions=True)
            await asyncio.gather(
                *(c.close() for t in everything for c in t.clients), return_exceptions=True
            )

    latencies = [1000 * s for s in stats.latencies]
    seconds: list[list[float]] = [[] for _ in range(max(1, math.ceil(duration)))]
    for sent, latency in zip(stats.sent, latencies, strict=True):
        seconds[min(len(seconds) - 1, int(sent - stats.window_start))].append(latency)
    timeline = tuple(
        Second(
            second=i,
            moves=len(values),
            p50_ms=percentile(values, 50) if values else 0.0,
            p99_ms=percentile(values, 99) if values else 0.0,
            max_ms=max(values) if values else 0.0,
            server_cpu_percent=stats.cpu[i][0] if i < len(stats.cpu) else None,
            machine_cpu_percent=stats.cpu[i][1] if i < len(stats.cpu) else None,
        )
        for i, values in enumerate(seconds)
    )
    return LoadResult(
        url=url,
        tables=len(playing),
        clients=clients,
        think=think,
        think_jitter=think_jitter,
        warmup=warmup,
        duration=duration,
        setup_seconds=setup_seconds,
        moves=len(latencies),
        moves_per_second=len(latencies) / duration,
        updates=stats.updates,
        p50_ms=percentile(latencies, 50) if latencies else None,
        p90_ms=percentile(latencies, 90) if latencies else None,
        p95_ms=percentile(latencies, 95) if latencies else None,
        p99_ms=percentile(latencies, 99) if latencies else None,
        max_ms=max(latencies) if latencies else None,
        mean_ms=sum(latencies) / len(latencies) if latencies else None,
        errors=stats.errors,
        error_messages=tuple(stats.messages),
        error_kinds=dict(stats.kinds),
        timeline=timeline,
        games_finished=stats.games_finished,
        client_cpu_percent=client_cpu,
        client_lag_max_ms=1000 * max(stats.lags) if stats.lags else None,
        server_cpu_percent=server_cpu,
        machine_cpu_percent=machine_cpu,
        machine_cores=os.cpu_count() or 0,
        load_average=load_average(),
    )
