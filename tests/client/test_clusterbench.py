"""``flip7 cluster-bench`` (flip7.client.clusterbench): its CPU accounting on its own, then
smoke runs of every scenario with tiny numbers (the figures printed and sane; the real
figures are in the README, not asserted by a test)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("redis")
pytest.importorskip("asyncpg")

from conftest import PG_BIN, missing

from flip7.client import clusterbench
from flip7.client.clusterbench import cpu_delta, cpu_snapshot

SERVICES = ("app1", "app2", "loadgen", "postgres", "redis", "haproxy")


def _needs_services() -> None:
    if not (PG_BIN / "initdb").exists():
        missing(f"PostgreSQL ({PG_BIN / 'initdb'})")
    if shutil.which("redis-server") is None:
        missing("redis-server")
    if shutil.which("haproxy") is None and shutil.which("haproxy", path="/usr/sbin") is None:
        missing("haproxy")


def test_a_group_counts_its_descendants_also_once_they_ended() -> None:
    """A process's CPU is counted with its children's, those that ended included (as a
    PostgreSQL backend that exits is, through its postmaster)."""
    import os

    me = {"me": [os.getpid()]}
    before = cpu_snapshot(me)
    subprocess.run([sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], check=True)
    after = cpu_snapshot(me)
    used = cpu_delta(before, after)
    assert used["seconds"]["me"] >= 0.1, used  # the child's seconds, reaped by this process
    assert used["machine_s"] is not None and used["machine_s"] >= used["seconds"]["me"] * 0.8
    assert used["other_s"] is not None and used["other_s"] >= 0


def _sane_cpu(run: dict[str, Any], names: tuple[str, ...]) -> None:
    seconds = run["cpu_seconds"]
    assert set(names) <= set(seconds), seconds
    assert all(v >= 0 for v in seconds.values()), seconds
    assert seconds["loadgen"] > 0 and seconds["app1"] > 0, seconds
    assert 0.5 * run["window_s"] < run["window_s"] < 60, run["window_s"]
    # What the processes used cannot be much more than the machine's busy time (ticks of
    # 10 ms are rounded on both sides).
    assert sum(seconds.values()) <= run["machine_percent"] / 100 * run["window_s"] * 1.1 + 0.2
    assert run["moves_per_server_cpu_second"] > 0


def test_throughput_and_human_pace_smoke_run(capsys: pytest.CaptureFixture[str]) -> None:
    """Bounded: about 20 s (PostgreSQL, Redis, three server starts, three tiny runs)."""
    _needs_services()
    code = clusterbench.main([
        "--scenario", "throughput", "--scenario", "human", "--json",
        "--tables", "4", "--clients", "3", "--duration", "2", "--warmup", "0.5",
        "--rounds", "1", "--layouts", "1,2",
        "--human-tables", "6", "--human-clients", "3", "--human-think", "0.2",
        "--human-duration", "2", "--human-warmup", "0.5",
    ])  # fmt: skip
    captured = capsys.readouterr()
    figures = json.loads(captured.out)
    assert code == 0, captured.err
    machine = figures["machine"]
    assert machine["nproc"] >= 1 and machine["cpu"] and machine["python"].startswith("CPython")
    assert "nproc" in clusterbench.machine_line(machine)

    throughput = figures["throughput"]
    runs = throughput["runs"]
    assert [r["layout"] for r in runs] == ["1", "2"]
    for run in runs:
        assert run["moves"] > 0 and run["errors"] == 0 and run["server_log_errors"] == 0, run
        assert run["p50_ms"] <= run["p99_ms"]
        _sane_cpu(run, SERVICES if run["processes"] == 2 else tuple(
            n for n in SERVICES if n != "app2"))  # fmt: skip
    assert "app2" not in runs[0]["cpu_seconds"] and runs[1]["cpu_seconds"]["app2"] > 0
    assert throughput["ratio_2_to_1"] == pytest.approx(
        runs[1]["moves_per_second"] / runs[0]["moves_per_second"], rel=0.01
    )
    report = "\n".join(clusterbench.throughput_report(throughput))
    assert "ratio 2 processes / 1 process" in report and "moves/srv-CPU-s" in report

    human = figures["human"]
    assert human["moves"] > 0 and human["errors"] == 0, human
    assert human["p50_ms"] <= human["p95_ms"] <= human["p99_ms"]
    _sane_cpu(human, SERVICES)
    assert len(human["timeline"]) == 2 and sum(t[1] for t in human["timeline"]) >= human["moves"]
    # Every server's and the load generator's GC pauses are counted (maybe none).
    assert set(human["gc_pauses"]) == {"app1", "app2", "loadgen"}, human["gc_pauses"]
    report = "\n".join(clusterbench.human_report(human))
    assert "p95" in report and "GC pauses" in report and "seconds with p99 over" in report
    # What the moves cost the shared services, read from their own counters.
    costs = human["per_move"]
    assert costs["pg_commits"] > 0 and costs["pg_rows"] > 0 and costs["pg_wal_bytes"] > 0, costs
    assert costs["redis_commands"] > 0 and costs["redis_bytes_in"] > 0, costs
    assert set(costs["rss_mib"]) == {"app1", "app2"} and min(costs["rss_mib"].values()) > 20
    assert all(v > 20 for v in human["rss_idle_mib"].values()), human["rss_idle_mib"]
    assert "per move: CPU ms app1" in report and "WAL bytes" in report



def test_failover_smoke_run(capsys: pytest.CaptureFixture[str]) -> None:
    """Bounded: about 20 s (two processes, one kill -9, the lease of 3 s, a restart)."""
    _needs_services()
    code = clusterbench.main([
        "--scenario", "failover", "--failover-processes", "2", "--failover-tables", "4",
        "--failover-clients", "3", "--failover-think", "0.2", "--kills", "1", "--gap", "1.5",
    ])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err
    lines = captured.out.splitlines()
    assert lines[0].startswith("machine: nproc ")
    assert any(line.startswith("failover: 2 processes, 4 tables") for line in lines)
    row = next(line.split() for line in lines if line.split()[:1] == ["1"])
    _, process, tables, first, median, last = row[:6]
    assert process in ("app1", "app2") and int(tables) >= 1
    # From the kill to the next applied move: the dead process's lease (3 s from its last
    # renewal) is waited out, then a reconnect and a move; never a stuck table.
    assert 0.1 < float(first) <= float(median) <= float(last) < 15, row
    assert row[-1] == "0"  # no table stuck
    worst = next(line for line in lines if line.strip().startswith("worst:"))
    assert "moves acknowledged" in worst
