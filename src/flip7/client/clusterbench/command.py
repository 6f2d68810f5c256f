"""The command line of ``flip7 cluster-bench``."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from flip7.client.clusterbench.bench import LAYOUTS, LOADGEN_GC, Bench, Load
from flip7.client.clusterbench.capacity import capacity, capacity_report
from flip7.client.clusterbench.failover import FailoverPlan, failover, failover_report
from flip7.client.clusterbench.machine import machine, machine_line
from flip7.client.clusterbench.scenarios import human, human_report, throughput, throughput_report
from flip7.client.options import (
    add_loop_arg,
    client_count,
    positive_int,
    positive_seconds,
    raise_open_files,
    seconds,
)
from flip7.client.services import HAPROXY, PG_BIN, RECIPE, Postgres, RedisServer, ServiceError

DESCRIPTION = (
    "The scale-out figures: throughput of 1 and 2 processes, 1,000 tables at a human pace, "
    "failover after kill -9, all through HAProxy on PostgreSQL and Redis set up on loopback."
)
SCENARIOS = ("throughput", "human", "failover")
# Asked for by name only (about 4 minutes more).
EXTRA_SCENARIOS = ("capacity",)


def _gc_threshold(text: str) -> tuple[int, int, int]:
    try:
        a, b, c = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"three numbers A,B,C, not {text!r}") from None
    if min(a, b, c) < 1:
        raise argparse.ArgumentTypeError("each number must be at least 1")
    return a, b, c


def _layouts(text: str) -> list[str]:
    keys = [k.strip() for k in text.split(",") if k.strip()]
    for key in keys:
        if key not in LAYOUTS:
            raise argparse.ArgumentTypeError(f"{key!r}: the layouts are 1, 2 and single")
    if not keys:
        raise argparse.ArgumentTypeError("name at least one layout")
    return keys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 cluster-bench``."""
    parser.add_argument(
        "--scenario",
        action="append",
        choices=SCENARIOS + EXTRA_SCENARIOS,
        metavar="NAME",
        help="throughput, human, failover or capacity (repeatable; default: the first "
        "three; capacity: docs/deploy.md's capacity model and its check)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--seed", type=int, metavar="N", help="seed of the clients' choices")
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="the servers' log level (warning)",
    )
    add_loop_arg(parser, "the load generator's")
    parser.add_argument(
        "--keep-logs",
        metavar="DIR",
        type=Path,
        help="keep every process's log in DIR (default: removed)",
    )
    parser.add_argument(
        "--quiet-wait",
        type=seconds,
        default=0.0,
        metavar="S",
        help="before each run, wait up to S seconds for the machine to be quiet (a shared "
        "machine's other work would be measured too) (0: do not wait)",
    )
    parser.add_argument(
        "--loadgen-gc",
        type=_gc_threshold,
        default=LOADGEN_GC,
        metavar="A,B,C",
        help="gc.set_threshold of the load generator, whose thousands of clients share one "
        "interpreter: with Python's 700,10,10 its collections hold every client at once "
        "(about 5 s a minute at 1,000 tables) and count as latency "
        f"({','.join(map(str, LOADGEN_GC))}; the servers keep Python's)",
    )
    parser.add_argument(
        "--max-other",
        type=float,
        metavar="PERCENT",
        help="measure a run again (3 tries) when processes not ours took more than this %% "
        "of one core in its window (default: never)",
    )
    parser.add_argument(
        "--quiet-below",
        type=float,
        default=50.0,
        metavar="PERCENT",
        help="quiet: every process together busy below this %% of one core over 1 s (50)",
    )
    tools = parser.add_argument_group("tools")
    tools.add_argument(
        "--pg-bin",
        type=Path,
        default=PG_BIN,
        metavar="DIR",
        help=f"PostgreSQL's binaries ({PG_BIN}; $PG_BIN)",
    )
    tools.add_argument(
        "--haproxy",
        default=HAPROXY,
        help="the haproxy command ($HAPROXY, else haproxy)",
    )
    tools.add_argument(
        "--redis-server", default="redis-server", metavar="COMMAND", help="the redis-server command"
    )
    tools.add_argument(
        "--recipe",
        type=Path,
        default=RECIPE,
        metavar="CFG",
        help="the HAProxy recipe (deploy/haproxy.cfg)",
    )
    t = parser.add_argument_group("throughput")
    t.add_argument("--tables", type=positive_int, default=200, metavar="N", help="(200)")
    t.add_argument("--clients", type=client_count, default=4, metavar="N", help="per table (4)")
    t.add_argument(
        "--duration",
        type=positive_seconds,
        default=20.0,
        metavar="S",
        help="seconds measured per run (20)",
    )
    t.add_argument("--warmup", type=seconds, default=5.0, metavar="S", help="per run (5)")
    t.add_argument(
        "--rounds",
        type=positive_int,
        default=2,
        metavar="N",
        help="rounds of every layout, alternating (2)",
    )
    t.add_argument(
        "--layouts",
        type=_layouts,
        default=["1", "2", "single"],
        metavar="LIST",
        help="the layouts of a round, in order: 1 and 2 (processes on PostgreSQL "
        "+ Redis), single (1 process on PostgreSQL without Redis) (1,2,single)",
    )
    h = parser.add_argument_group("human")
    h.add_argument("--human-tables", type=positive_int, default=1000, metavar="N", help="(1000)")
    h.add_argument("--human-clients", type=client_count, default=4, metavar="N", help="(4)")
    h.add_argument(
        "--human-think",
        type=seconds,
        default=2.0,
        metavar="S",
        help="seconds a player takes to decide, ± --human-jitter (2)",
    )
    h.add_argument("--human-jitter", type=float, default=0.5, metavar="F", help="(0.5)")
    h.add_argument(
        "--human-duration", type=positive_seconds, default=60.0, metavar="S", help="(60)"
    )
    h.add_argument("--human-warmup", type=seconds, default=10.0, metavar="S", help="(10)")
    h.add_argument("--human-processes", type=positive_int, default=2, metavar="N", help="(2)")
    c = parser.add_argument_group("capacity")
    c.add_argument("--capacity-tables", type=positive_int, default=200, metavar="N",
                   help="tables of the two runs the model is fitted on (200)")
    c.add_argument("--capacity-processes", type=positive_int, default=2, metavar="N",
                   help="(2)")
    c.add_argument("--capacity-slow-think", type=seconds, default=20.0, metavar="S",
                   help="the second run's think time; the first's is --human-think (20)")
    c.add_argument("--capacity-duration", type=positive_seconds, default=30.0, metavar="S",
                   help="seconds measured per run (30)")
    c.add_argument("--check-processes", type=positive_int, default=3, metavar="N",
                   help="processes of the check run (3)")
    c.add_argument("--check-tables", type=positive_int, default=300, metavar="N",
                   help="tables of the check run, at --human-think (300)")
    f = parser.add_argument_group("failover")
    f.add_argument("--failover-processes", type=positive_int, default=3, metavar="N", help="(3)")
    f.add_argument("--failover-tables", type=positive_int, default=60, metavar="N", help="(60)")
    f.add_argument("--failover-clients", type=client_count, default=4, metavar="N", help="(4)")
    f.add_argument("--failover-think", type=seconds, default=2.0, metavar="S", help="(2)")
    f.add_argument("--kills", type=positive_int, default=3, metavar="N", help="(3)")
    f.add_argument(
        "--gap",
        type=seconds,
        default=8.0,
        metavar="S",
        help="seconds of play before each kill (8)",
    )


def run(args: argparse.Namespace) -> int:
    """``flip7 cluster-bench``: 0 when every run went without an error (the targets are
    reported, not enforced), 1 otherwise, 2 when a service could not be started."""
    scenarios = args.scenario or list(SCENARIOS)
    if "failover" in scenarios and args.failover_processes < 2:
        print("flip7 cluster-bench: failover needs --failover-processes 2 or more", file=sys.stderr)
        return 2
    raise_open_files(20_000)  # HAProxy (2 per connection) and the servers inherit it
    m = machine(args.pg_bin, args.haproxy, args.redis_server)
    figures: dict[str, Any] = {"machine": m}
    workdir = Path(tempfile.mkdtemp(prefix="flip7-bench-"))
    bench = Bench(
        workdir, args.recipe, args.haproxy, args.log_level, args.loop, Postgres(args.pg_bin)
    )
    bench.quiet_below, bench.quiet_wait = args.quiet_below, args.quiet_wait
    bench.max_other = args.max_other
    failed = False
    if not args.json:
        print(machine_line(m), flush=True)
    try:
        bench.pg.start()
        bench.redis = RedisServer(workdir, binary=args.redis_server).start()
        if "throughput" in scenarios:
            load = Load(
                args.tables,
                args.clients,
                args.duration,
                args.warmup,
                0.0,
                seed=args.seed,
                gc_threshold=args.loadgen_gc,
            )
            layouts = [LAYOUTS[k] for k in args.layouts]
            figures["throughput"] = out = throughput(bench, load, layouts, args.rounds)
            failed |= any(r["errors"] or r["server_log_errors"] for r in out["runs"])
            if not args.json:
                print("\n".join(throughput_report(out)), flush=True)
        if "human" in scenarios:
            load = Load(
                args.human_tables,
                args.human_clients,
                args.human_duration,
                args.human_warmup,
                args.human_think,
                args.human_jitter,
                seed=args.seed,
                gc_threshold=args.loadgen_gc,
            )
            figures["human"] = run_ = human(bench, load, args.human_processes)
            failed |= bool(run_["errors"] or run_["server_log_errors"])
            if not args.json:
                print("\n".join(human_report(run_)), flush=True)
        if "capacity" in scenarios:
            def paced(tables: int, think: float) -> Load:
                return Load(tables, args.human_clients, args.capacity_duration,
                            args.human_warmup, think, args.human_jitter, seed=args.seed,
                            gc_threshold=args.loadgen_gc)  # fmt: skip

            figures["capacity"] = out = capacity(
                bench,
                paced(args.capacity_tables, args.human_think),
                paced(args.capacity_tables, args.capacity_slow_think),
                args.capacity_processes,
                paced(args.check_tables, args.human_think),
                args.check_processes,
            )
            failed |= any(
                r["errors"] or r["server_log_errors"] for r in [*out["runs"], out["check"]["run"]]
            )
            if not args.json:
                print("\n".join(capacity_report(out)), flush=True)
        if "failover" in scenarios:
            plan = FailoverPlan(
                args.failover_processes,
                args.failover_tables,
                args.failover_clients,
                args.failover_think,
                0.5,
                args.kills,
                args.gap,
                args.seed,
            )
            figures["failover"] = out = failover(bench, plan)
            failed |= bool(out["stuck"] or out["server_log_errors"])
            if not args.json:
                print("\n".join(failover_report(out)), flush=True)
    except (ServiceError, OSError, subprocess.CalledProcessError) as exc:
        print(f"flip7 cluster-bench: {exc}", file=sys.stderr)
        figures["error"] = str(exc)
        if args.json:
            print(json.dumps(figures, indent=2))
        return 2
    finally:
        if bench.redis is not None:
            bench.redis.stop()
        bench.pg.stop()
        try:
            if args.keep_logs is not None:
                shutil.copytree(
                    workdir,
                    args.keep_logs,
                    dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("*.sock"),
                )
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        print(json.dumps(figures, indent=2))
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """Run it on its own (``python -m flip7.client.clusterbench``)."""
    parser = argparse.ArgumentParser(prog="flip7 cluster-bench", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))
