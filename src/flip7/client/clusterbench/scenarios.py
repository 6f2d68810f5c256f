"""Two of the bench's scenarios: ``throughput`` (the same flat-out load against 1 and 2
processes on PostgreSQL + Redis and against 1 process on PostgreSQL alone, in alternating
rounds) and ``human`` (many tables at a human pace across a few processes), with their
reports."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from flip7.client.clusterbench.bench import GC_PAUSE_MS, Bench, Layout, Load, ratio_of

# The targets.
RATIO_TARGET = 1.6
P99_TARGET_MS = 100.0


def _other(run: dict[str, Any]) -> str:
    """What the ``other`` CPU of a run was: the busiest processes not ours, and the
    machine's time in interrupts (partly counted in the processes' own time as well)."""
    top = "; ".join(f"{name[:60]} {pct:.0f}" for name, pct in run.get("other_top", []))
    return (
        f"other {run['cpu_percent'].get('other', 0):.0f}% of a core; processes not ours: "
        f"{top or 'none seen'}; interrupts {run.get('interrupts_percent')}%"
    )


def _gc_line(run: dict[str, Any]) -> str:
    """The garbage collectors' pauses in the window, per process."""
    cells = [
        f"{name} {g['count']} ({g['full']} full, max {g['max_ms']:.0f} ms, "
        f"total {g['total_ms']:.0f} ms)"
        for name, g in run.get("gc_pauses", {}).items()
    ]
    return f"GC pauses ≥ {GC_PAUSE_MS:g} ms in the window: " + ("; ".join(cells) or "-")


def _seconds_over(run: dict[str, Any], limit: float) -> str:
    """How the slow moves are spread over the window: the seconds whose p99 is over
    ``limit`` and the worst few, so that a stall (a few bad seconds) is told apart from a
    steady tail."""
    timeline = run.get("timeline", [])
    over = [t for t in timeline if t[3] > limit]
    worst = sorted(timeline, key=lambda t: -t[4])[:5]
    gc = run.get("gc_pauses", {})

    def paused(second: int) -> str:
        # GC pauses of that second and the one before (a move sent then may wait for it)
        cells = []
        for name, g in gc.items():
            ms = sum(g.get("by_second", {}).get(str(s), 0.0) for s in (second - 1, second))
            if ms:
                cells.append(f"{name} {ms:.0f}")
        return f" [GC ms: {' '.join(cells)}]" if cells else ""

    cells = ", ".join(f"s{t[0]}: p99 {t[3]:.0f} max {t[4]:.0f}{paused(t[0])}" for t in worst)
    return (
        f"seconds with p99 over {limit:g} ms: {len(over)} of {len(timeline)}; "
        f"worst seconds (ms): {cells or '-'}"
    )


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def costs_line(run: dict[str, Any]) -> str:
    """What one move cost every process and shared service in a run: the figures the
    capacity model of docs/deploy.md is built from.

    >>> print(costs_line({"moves": 1000, "cpu_seconds": {"app1": 2.0, "postgres": 0.3},
    ...     "per_move": {"pg_commits": 0.1, "pg_rows": 2.0, "pg_wal_bytes": 900.0,
    ...     "redis_commands": 0.2, "redis_bytes_in": 30.0, "redis_bytes_out": 40.0,
    ...     "rss_mib": {"app1": 80.5}}}).replace("; ", "\\n"))
    per move: CPU ms app1 2.000, postgres 0.300
    PostgreSQL 0.100 commits, 2.00 rows, 900 WAL bytes
    Redis 0.200 commands (none), 30 B in, 40 B out
    resident MiB app1 80.5
    """
    moves = max(int(run["moves"]), 1)
    cpu = ", ".join(
        f"{name} {seconds * 1000 / moves:.3f}" for name, seconds in run["cpu_seconds"].items()
    )
    line = f"per move: CPU ms {cpu}"
    costs = run.get("per_move")
    if costs:
        memory = ", ".join(f"{k} {v:.1f}" for k, v in costs["rss_mib"].items())
        calls = ", ".join(f"{k} {v:.3f}" for k, v in costs.get("redis_calls", {}).items())
        line += (
            f"; PostgreSQL {costs['pg_commits']:.3f} commits, {costs['pg_rows']:.2f} rows, "
            f"{costs['pg_wal_bytes']:.0f} WAL bytes; Redis {costs['redis_commands']:.3f} "
            f"commands ({calls or 'none'}), "
            f"{costs['redis_bytes_in']:.0f} B in, {costs['redis_bytes_out']:.0f} B out"
            + (f"; resident MiB {memory}" if memory else "")
        )
    return line


def _cpu_cells(run: dict[str, Any], names: Sequence[str]) -> str:
    percent = run["cpu_percent"]
    return " ".join(f"{percent[n]:>7.0f}" if n in percent else f"{'-':>7}" for n in names)


def throughput(
    bench: Bench,
    load: Load,
    layouts: Sequence[Layout],
    rounds: int,
) -> dict[str, Any]:
    """``rounds`` rounds, each one run per layout in turn (1, 2, single, 1, 2, ...)."""
    runs: list[dict[str, Any]] = []
    for r in range(rounds):
        for layout in layouts:
            bench.say(f"throughput round {r + 1}/{rounds}: {layout.label}...")
            figures = bench.measure(layout, load)
            figures["round"] = r + 1
            runs.append(figures)
            bench.say(f"  {figures['moves_per_second']:.0f} moves/s, {figures['errors']} errors")
    summary: dict[str, Any] = {}
    for layout in layouts:
        rates = [run["moves_per_second"] for run in runs if run["layout"] == layout.key]
        per_cpu = [
            run["moves_per_server_cpu_second"]
            for run in runs
            if run["layout"] == layout.key and run["moves_per_server_cpu_second"]
        ]
        summary[layout.key] = {
            "label": layout.label,
            "moves_per_second": rates,
            "mean": round(statistics.fmean(rates), 1) if rates else None,
            "moves_per_server_cpu_second": round(statistics.fmean(per_cpu), 1) if per_cpu else None,
        }
    ratio = ratio_of(summary.get("2", {}).get("mean"), summary.get("1", {}).get("mean"))
    per_round = [
        ratio_of(two["moves_per_second"], one["moves_per_second"])
        for one, two in zip(
            [x for x in runs if x["layout"] == "1"],
            [x for x in runs if x["layout"] == "2"],
            strict=False,
        )
    ]
    return {
        "load": {
            "tables": load.tables,
            "clients": load.clients,
            "think": load.think,
            "warmup": load.warmup,
            "duration": load.duration,
        },
        "runs": runs,
        "summary": summary,
        "ratio_2_to_1": ratio,
        "ratio_per_round": per_round,
        "ratio_target": RATIO_TARGET,
        "ratio_met": ratio is not None and ratio >= RATIO_TARGET,
    }


def throughput_report(figures: dict[str, Any]) -> list[str]:
    load = figures["load"]
    names = ["app1", "app2", "loadgen", "postgres", "redis", "haproxy", "other"]
    lines = [
        f"throughput: {load['tables']} tables × {load['clients']} clients flat out "
        f"(think 0), {load['warmup']:g} s warmup + {load['duration']:g} s measured, "
        "every client through HAProxy"
        + (
            f"; the load generator's gc.set_threshold{tuple(runs[0]['loadgen_gc_threshold'])}"
            if (runs := figures["runs"]) and runs[0].get("loadgen_gc_threshold")
            else ""
        ),
        "  CPU is % of one core over the measured window (utime+stime from /proc; postgres "
        "= the postmaster and every backend; other = the rest of the machine: the kernel, "
        "other processes; machine = all of it, of 100 × nproc); before = the machine's busy "
        "% in the second before the run",
        f"  {'round':>5}  {'layout':<31} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'errors':>6} "
        + " ".join(f"{n:>7}" for n in names)
        + f" {'machine':>8} {'before':>6} {'moves/srv-CPU-s':>15}",
    ]
    for run in figures["runs"]:
        machine_pct = "-" if run["machine_percent"] is None else f"{run['machine_percent']:.0f}"
        per_cpu = run["moves_per_server_cpu_second"]
        before = run.get("machine_busy_before_percent")
        lines.append(
            f"  {run['round']:>5}  {run['label']:<31} {run['moves_per_second']:>8.0f} "
            f"{_ms(run['p50_ms']):>7} {_ms(run['p99_ms']):>7} {run['errors']:>6} "
            f"{_cpu_cells(run, names)} {machine_pct:>8} "
            f"{'-' if before is None else f'{before:.0f}':>6} "
            f"{'-' if per_cpu is None else f'{per_cpu:.0f}':>15}"
        )
    for run in figures["runs"]:
        lines.append(f"  round {run['round']} {run['label']}: {costs_line(run)}")
        if run["cpu_percent"].get("other", 0) >= 20:
            lines.append(f"  round {run['round']} {run['label']}: {_other(run)}")
        if run.get("discarded"):
            others = ", ".join(f"{d['cpu_percent'].get('other', 0):.0f}%" for d in run["discarded"])
            lines.append(
                f"  round {run['round']} {run['label']}: measured again after "
                f"{len(run['discarded'])} run(s) in which others took {others} of a core"
            )
    for summary in figures["summary"].values():
        rates = ", ".join(f"{r:.0f}" for r in summary["moves_per_second"])
        lines.append(
            f"  {summary['label']:<31} mean {summary['mean']} moves/s ({rates}); "
            f"{summary['moves_per_server_cpu_second']} moves per server CPU second"
        )
    ratio = figures["ratio_2_to_1"]
    if ratio is not None:
        rounds = ", ".join("-" if r is None else f"{r:.2f}" for r in figures["ratio_per_round"])
        verdict = "met" if figures["ratio_met"] else "MISSED"
        lines.append(
            f"  ratio 2 processes / 1 process: {ratio:.2f} (per round {rounds}); "
            f"target ≥ {RATIO_TARGET}: {verdict}"
        )
    return lines


def human(bench: Bench, load: Load, processes: int) -> dict[str, Any]:
    layout = Layout(str(processes), processes, True)
    bench.say(
        f"human: {load.tables} tables × {load.clients} clients, think {load.think:g} s, "
        f"{processes} processes..."
    )
    run = bench.measure(layout, load)
    run["warmup"], run["duration"] = load.warmup, load.duration
    run["think_jitter"] = load.think_jitter
    p99 = run["p99_ms"]
    run["p99_target_ms"] = P99_TARGET_MS
    run["met"] = (
        p99 is not None
        and p99 < P99_TARGET_MS
        and run["errors"] == 0
        and run["server_log_errors"] == 0
    )
    return run


def human_report(run: dict[str, Any]) -> list[str]:
    names = [f"app{i + 1}" for i in range(run["processes"])]
    names += ["loadgen", "postgres", "redis", "haproxy", "other"]
    cpu = ", ".join(f"{n} {run['cpu_percent'][n]:.0f}" for n in names if n in run["cpu_percent"])
    verdict = "met" if run["met"] else "MISSED"
    return [
        f"human: {run['tables']} tables × {run['clients']} clients = "
        f"{run['tables'] * run['clients']} WebSockets through HAProxy, {run['label']}; "
        f"think {run['think']:g} s ± {run['think_jitter']:.0%}, {run['warmup']:g} s warmup + "
        f"{run['duration']:g} s measured (setup {run['setup_seconds']:.1f} s)",
        f"  {run['moves_per_second']:.0f} moves/s ({run['moves']} moves); latency p50 "
        f"{_ms(run['p50_ms'])} ms, p95 {_ms(run['p95_ms'])} ms, p99 {_ms(run['p99_ms'])} ms, "
        f"max {_ms(run['max_ms'])} ms; errors {run['errors']}"
        + (f" {run['error_kinds']}" if run["errors"] else "")
        + f"; server log errors {run['server_log_errors']}",
        f"  CPU % of a core: {cpu}; machine {run['machine_percent']} (busy "
        f"{run.get('machine_busy_before_percent')} before the run); client loop lag max "
        f"{_ms(run['client_lag_max_ms'])} ms (its gc.set_threshold "
        f"{tuple(run.get('loadgen_gc_threshold', (700, 10, 10)))})",
        f"  {_seconds_over(run, P99_TARGET_MS)}",
        f"  {costs_line(run)}",
        f"  {_gc_line(run)}",
        f"  {_other(run)}"
        + (
            f"; measured again after {len(run['discarded'])} disturbed run(s)"
            if run.get("discarded")
            else ""
        ),
        f"  target p99 < {P99_TARGET_MS:g} ms and 0 errors: {verdict}",
    ]
