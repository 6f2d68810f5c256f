"""The command line of ``flip7 loadtest``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from dataclasses import replace

from flip7.client.loadtest.session import load_test
from flip7.client.options import (
    add_loop_arg,
    add_server_arg,
    client_count,
    fraction,
    loop_factory,
    positive_int,
    positive_seconds,
    raise_open_files,
    rules,
    seconds,
)
from flip7.client.services import ServerProcess, ServiceError, serve_subprocess

DESCRIPTION = "Play many tables at once with bot clients over real WebSockets, timed."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 loadtest``."""
    parser.add_argument(
        "--url",
        help="an already running server (http://host:port); without it a `flip7 serve` "
        "subprocess is started on a free loopback port with a fresh SQLite file",
    )
    parser.add_argument(
        "--tables", type=positive_int, default=200, metavar="N", help="tables (200)"
    )
    parser.add_argument(
        "--clients",
        type=client_count,
        default=4,
        metavar="N",
        help="WebSocket clients per table, 2 to 18 (4)",
    )
    parser.add_argument(
        "--duration",
        type=positive_seconds,
        default=60.0,
        metavar="S",
        help="seconds measured after the warmup (60)",
    )
    parser.add_argument(
        "--think",
        type=seconds,
        default=0.5,
        metavar="S",
        help="seconds each client waits before sending its decision; models human thinking "
        "time, 0 means flat out (0.5)",
    )
    parser.add_argument(
        "--think-jitter",
        type=fraction,
        default=0.5,
        metavar="F",
        help="each wait is drawn uniformly from think × (1 ± F), so that the tables do not "
        "all move at the same moment; 0 = exactly think (0.5)",
    )
    parser.add_argument(
        "--warmup",
        type=seconds,
        default=5.0,
        metavar="S",
        help="seconds of play excluded from the figures (5)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--timeline", action="store_true", help="also report moves and latency second by second"
    )
    parser.add_argument("--seed", type=int, metavar="N", help="seed of the clients' random choices")
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=10.0,
        metavar="S",
        help="seconds for any call or a move's complete answer (10)",
    )
    parser.add_argument(
        "--setup-concurrency",
        type=positive_int,
        default=20,
        metavar="N",
        help="tables created, joined and connected at a time (20)",
    )
    parser.add_argument(
        "--rules",
        type=rules,
        metavar="JSON",
        help="rule options of every table as JSON, e.g. '{\"brutal\": true}'",
    )
    parser.add_argument(
        "--no-compression",
        dest="compression",
        action="store_false",
        help="do not offer permessage-deflate (browsers offer it)",
    )
    parser.add_argument(
        "--server-pid",
        type=int,
        metavar="PID",
        help="with --url: the server's process id, to measure its CPU",
    )
    add_server_arg(parser, "--log-level=warning")
    parser.add_argument(
        "--max-p99",
        type=float,
        metavar="MS",
        help="also fail (exit 1) when the p99 latency is above this many milliseconds",
    )
    add_loop_arg(parser, "the clients'")


def own_server_limits(connections: int) -> list[str]:
    """``--limit`` options for the server a load test starts: every client comes from
    127.0.0.1 and stands for many people, so the budgets a server keeps per address
    (which stop one stranger from exhausting it) are raised to fit the whole load.

    >>> own_server_limits(800)[:2]
    ['--limit', 'tables_burst=800']
    """
    tables = max(connections, 20)
    sockets = max(2 * connections + 256, 256)
    limits = {
        "tables_burst": tables, "tables_per_minute": 60 * tables,
        # Over every address too; and its tables are all made before any is opened.
        "tables_burst_all": tables, "tables_per_minute_all": 60 * tables,
        "max_unattended_tables": tables,
        "joins_burst": sockets, "joins_per_minute": 60 * sockets,
        "connections_per_address": sockets, "open_connections_per_address": 2 * sockets,
        "handshakes_burst": sockets, "handshakes_per_minute": 60 * sockets,
        "handshakes_burst_all": sockets, "handshakes_per_minute_all": 60 * sockets,
        "frames_burst_per_address": 50 * sockets,
        "frames_per_second_per_address": 50 * sockets,
    }
    return [part for name, value in limits.items() for part in ("--limit", f"{name}={value}")]


def run(args: argparse.Namespace) -> int:
    """``flip7 loadtest``: 0 when every move was answered without error (and p99 is within
    ``--max-p99``), 1 otherwise."""
    clients = args.clients
    if clients == 2:
        args.rules = {"allow_two_players": True, **(args.rules or {})}
    raise_open_files(args.tables * clients + 256)
    with contextlib.ExitStack() as stack:
        url: str | None = args.url
        pid: int | None = args.server_pid
        server: ServerProcess | None = None
        if url is None:
            try:
                server = stack.enter_context(serve_subprocess(
                    extra_args=[*own_server_limits(args.tables * clients), *args.server_arg]
                ))
            except ServiceError as exc:
                print(f"flip7 loadtest: {exc}", file=sys.stderr)
                return 1
            url, pid = server.url, server.pid
        if not args.json:
            where = f"{url} (flip7 serve, pid {pid})" if server else url
            print(
                f"flip7 loadtest: {args.tables} tables × {clients} clients against {where}, "
                f"{args.warmup:g} s warmup + {args.duration:g} s",
                file=sys.stderr,
                flush=True,
            )
        with asyncio.Runner(loop_factory=loop_factory(args.loop)) as runner:
            result = runner.run(
                load_test(
                    url,
                    args.tables,
                    clients,
                    args.duration,
                    args.think,
                    warmup=args.warmup,
                    think_jitter=args.think_jitter,
                    seed=args.seed,
                    timeout=args.timeout,
                    setup_concurrency=args.setup_concurrency,
                    compression=args.compression,
                    rules=args.rules,
                    server_pid=pid,
                )
            )
        if server is not None:
            stack.close()  # stop the server first, so that its log is complete
            result = replace(
                result,
                server_log_errors=server.log_errors(),
                server_log_warnings=server.log_warnings(),
            )
    print(
        json.dumps(result.to_json(), indent=2)
        if args.json
        else result.report(timeline=args.timeline)
    )
    too_slow = args.max_p99 is not None and (result.p99_ms is None or result.p99_ms > args.max_p99)
    return 0 if result.ok and not too_slow else 1


def main(argv: list[str] | None = None) -> int:
    """Run the load test on its own (``python -m flip7.client.loadtest``)."""
    parser = argparse.ArgumentParser(prog="flip7 loadtest", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))
