"""The command line of ``flip7 attack``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flip7.client.attack.cluster import ClusterTarget
from flip7.client.attack.control import CONTROL_CLIENTS, CONTROL_THINK, attack_row
from flip7.client.attack.figures import (
    ATTACKS,
    TARGET_CONTROL_P95_MS,
    TARGET_HEALTH_P95_MS,
    TARGET_VICTIM_RATIO,
    AttackRow,
    report,
)
from flip7.client.attack.flood_process import loopback
from flip7.client.attack.floods.tables import STRONG_BOT
from flip7.client.attack.victim import VICTIM_LEVEL
from flip7.client.measure import load_average
from flip7.client.options import (
    add_server_arg,
    loop_factory,
    positive_int,
    positive_seconds,
    raise_open_files,
    seconds,
)
from flip7.client.services import ServerProcess, ServiceError, serve_subprocess

DESCRIPTION = (
    "Flood the web app (uploads, table creation, search bots, frames, idle connections, "
    "malformed input, many addresses, long games' welcomes, writes, shared queues, rating "
    "farms) while a control table and a victim bot table play next to it; report the "
    "control table's latency, the victim's bots' wait per move and /api/health's for each "
    "flood, against one process or a cluster behind the proxy."
)
# Source addresses per flood: the older floods from 127.0.0.2 and up (the control table is
# 127.0.0.1), the newer ones from a /16 block of their own (BLOCKS) so that no grouping of
# addresses makes them the control table's neighbours; the floods from many addresses
# take their count from the options.
ADDRESSES = {"uploads": 2, "tables": 4, "bots12": 2, "bots60": 6, "frames": 2, "idle": 16,
             "malformed": 2, "searchbots": 1, "writes": 1, "ratings": 1}  # fmt: skip
BLOCKS = {"searchbots": 2, "tables-many": 3, "chat-many": 4, "welcomes": 5, "writes": 6,
          "queues": 7, "ratings": 8}  # fmt: skip
TOPOLOGIES = ("single", "cluster")


def _attack_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in ATTACKS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown attack {', '.join(unknown) or text!r}; attacks are {', '.join(ATTACKS)}"
        )
    return names


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 attack``."""
    parser.add_argument(
        "--url",
        help="an already running server on loopback (http://127.0.0.1:PORT); without it "
        "each attack gets a fresh `flip7 serve` subprocess",
    )
    parser.add_argument(
        "--attacks",
        type=_attack_list,
        default=list(ATTACKS),
        metavar="A,B,...",
        help=f"the attacks to run, in order ({','.join(ATTACKS)})",
    )
    parser.add_argument(
        "--duration",
        type=positive_seconds,
        default=20.0,
        metavar="S",
        help="seconds each attack runs, the control table measured over the same window (20)",
    )
    parser.add_argument(
        "--idle", type=positive_int, default=1000, metavar="N",
        help="idle connections of each kind (1000)",
    )  # fmt: skip
    parser.add_argument(
        "--frame-sockets", type=positive_int, default=20, metavar="N",
        help="WebSockets of the frame flood (20)",
    )  # fmt: skip
    parser.add_argument(
        "--create-max", type=positive_int, default=5000, metavar="N",
        help="most POST /api/tables of the table flood (5000)",
    )  # fmt: skip
    parser.add_argument(
        "--bot-spec", default=STRONG_BOT, metavar="SPEC",
        help=f"the bot the search-bot floods ask for first ({STRONG_BOT})",
    )  # fmt: skip
    parser.add_argument(
        "--bot-human", choices=("leave", "play", "both"), default="both",
        help="at the search-bot tables the human leaves once the game has started, stays "
        "and plays at once, or both: every other table (both)",
    )  # fmt: skip
    parser.add_argument(
        "--bot-delay", type=seconds, default=0.05, metavar="S",
        help="--bot-delay of the `flip7 serve` subprocess (0.05)",
    )  # fmt: skip
    parser.add_argument(
        "--quiet", type=seconds, default=8.0, metavar="S",
        help="seconds the victim bot table (a human and two Expert bots) plays before each "
        "flood, its quiet baseline; 0: no victim table (8)",
    )  # fmt: skip
    parser.add_argument(
        "--search-tables", type=positive_int, default=10, metavar="N",
        help="tables of the searchbots flood, each with as many search bots as allowed (10)",
    )  # fmt: skip
    parser.add_argument(
        "--search-seats", type=positive_int, default=18, metavar="N",
        help="seats of each searchbots table: the human and N-1 search bots asked for (18)",
    )  # fmt: skip
    parser.add_argument(
        "--many-addresses", type=positive_int, default=500, metavar="N",
        help="source addresses of the tables-many flood, in one /16 (500)",
    )  # fmt: skip
    parser.add_argument(
        "--many-create-max", type=positive_int, default=12_000, metavar="N",
        help="most tables the tables-many flood creates (12000)",
    )  # fmt: skip
    parser.add_argument(
        "--chat-addresses", type=positive_int, default=30, metavar="N",
        help="spectators of the chat-many flood, each from an address of its own (30)",
    )  # fmt: skip
    parser.add_argument(
        "--spectators", type=positive_int, default=400, metavar="N",
        help="spectators of the welcomes flood, reading the long game's welcome (400)",
    )  # fmt: skip
    parser.add_argument(
        "--welcome-addresses", type=positive_int, default=40, metavar="N",
        help="source addresses of the welcomes flood's spectators (40)",
    )  # fmt: skip
    parser.add_argument(
        "--welcome-growth", type=seconds, default=10.0, metavar="S",
        help="seconds the long game is played before the welcomes flood starts (10)",
    )  # fmt: skip
    parser.add_argument(
        "--queue-addresses", type=positive_int, default=20, metavar="N",
        help="source addresses of the queues flood (20)",
    )  # fmt: skip
    parser.add_argument(
        "--coach-games", type=positive_int, default=2, metavar="N",
        help="finished games of 8 seats the queues flood asks the coach about (2)",
    )  # fmt: skip
    parser.add_argument(
        "--cluster", action="store_true",
        help="each attack against a fresh cluster of the deployment recipe: HAProxy "
        "(deploy/haproxy.cfg) in front of --processes `flip7 serve` processes on PostgreSQL "
        "and Redis (needs haproxy, redis-server and PostgreSQL's initdb)",
    )  # fmt: skip
    parser.add_argument(
        "--processes", type=positive_int, default=2, metavar="N",
        help="processes of the --cluster (2)",
    )  # fmt: skip
    parser.add_argument(
        "--topology", choices=TOPOLOGIES, default=None,
        help="what --url is, for the report: one process or a cluster behind the proxy "
        "(single; cluster with --cluster)",
    )  # fmt: skip
    add_server_arg(parser, "--limit=tables_burst=5")
    parser.add_argument(
        "--no-nice", dest="nice", action="store_false",
        help="run the floods at normal CPU priority (by default they run at nice 10, their "
        "session's scheduling group too)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, metavar="N", help="seed of the clients' choices")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
def _config(args: argparse.Namespace, attack: str) -> dict[str, Any]:
    many = {"tables-many": args.many_addresses, "chat-many": args.chat_addresses,
            "welcomes": args.welcome_addresses, "queues": args.queue_addresses}  # fmt: skip
    return {
        "addresses": many.get(attack, ADDRESSES.get(attack, 2)),
        "block": BLOCKS.get(attack),
        "idle": args.idle,
        "frame_sockets": args.frame_sockets,
        "create_max": args.create_max,
        "bot_spec": args.bot_spec,
        "bot_tables": 60 if attack == "bots60" else 12,
        "bot_human": args.bot_human,
        "search_tables": args.search_tables,
        "search_seats": args.search_seats,
        "coach_games": args.coach_games,
        "many_create_max": args.many_create_max,
        "spectators": args.spectators,
        "welcome_growth": args.welcome_growth,
        "nice": args.nice,
        "seed": args.seed,
    }


@dataclass(slots=True)
class _Target:
    """Where one attack goes: the URL, the server's processes (their CPU counted, their
    logs read), its SQLite file (its growth counted)."""

    url: str
    servers: list[ServerProcess] = field(default_factory=list)
    others: list[int] = field(default_factory=list)  # more processes to count (HAProxy)
    database: Path | None = None

    @property
    def pids(self) -> list[int] | None:
        pids = [s.pid for s in self.servers if s.proc is not None] + self.others
        return pids or None


def _target(args: argparse.Namespace, attack: str, stack: contextlib.ExitStack,
            cluster: ClusterTarget | None) -> _Target:  # fmt: skip
    """The server of one attack: ``--url``, a fresh cluster, or a fresh ``flip7 serve``."""
    if args.url is not None:
        return _Target(args.url)
    if cluster is not None:
        started = stack.enter_context(cluster.fresh(attack))
        return _Target(started.proxy.url, list(started.servers), [started.proxy.pid])
    server = stack.enter_context(
        serve_subprocess(bot_delay=args.bot_delay, extra_args=args.server_arg)
    )
    return _Target(server.url, [server], database=Path(server.db))


def run(args: argparse.Namespace) -> int:
    """``flip7 attack``: 0 when every row meets the target, 1 otherwise, 2 on bad input."""
    began = time.monotonic()
    if args.url is not None:
        host = urlsplit(args.url).hostname or ""
        if not loopback(host):
            print(f"flip7 attack: floods go to loopback only, not {host!r}", file=sys.stderr)
            return 2
    if args.cluster and args.url is not None:
        print("flip7 attack: --cluster starts its own cluster; --url names one that runs",
              file=sys.stderr)
        return 2
    topology = "cluster" if args.cluster else (args.topology or "single")
    needed = max(3 * args.idle if "idle" in args.attacks else 0,
                 2 * args.spectators if "welcomes" in args.attacks else 0,
                 2 * args.many_addresses if "tables-many" in args.attacks else 0)
    raise_open_files(max(needed * 2 + 1024, 20_000 if args.cluster else 0))
    cluster = (ClusterTarget(args.processes, args.bot_delay, args.server_arg)
               if args.cluster else None)  # fmt: skip
    rows: list[AttackRow] = []
    with contextlib.ExitStack() as services:
        try:
            if cluster is not None:
                services.enter_context(cluster.services())
            for attack in args.attacks:
                rows.append(_row(args, attack, cluster))
        except (ServiceError, OSError, subprocess.CalledProcessError) as exc:
            print(f"flip7 attack: {exc}", file=sys.stderr)
            return 1
    total = time.monotonic() - began
    where = args.url or (f"a fresh cluster per attack ({args.processes} processes behind "
                         "HAProxy, PostgreSQL, Redis)" if args.cluster
                         else "a fresh `flip7 serve` per attack")  # fmt: skip
    load = load_average()
    header = (
        f"flip7 attack against {where}, {topology} (bot delay {args.bot_delay:g} s): "
        f"{args.duration:g} s per attack, control table of {CONTROL_CLIENTS} humans moving "
        f"{CONTROL_THINK * 1000:.0f} ms after their turn comes, victim table of a human and "
        f"two {VICTIM_LEVEL} bots ({args.quiet:g} s quiet before each flood); "
        f"{os.cpu_count()} cores, load average {load}"
    )
    if args.json:
        data = {
            "url": args.url,
            "topology": topology,
            "processes": args.processes if args.cluster else None,
            "duration": args.duration,
            "quiet": args.quiet,
            "bot_delay": args.bot_delay,
            "machine_cores": os.cpu_count(),
            "load_average": load,
            "target": {
                "control_p95_ms": TARGET_CONTROL_P95_MS,
                "health_p95_ms": TARGET_HEALTH_P95_MS,
                "control_errors": 0,
                "victim_median_ratio": TARGET_VICTIM_RATIO,
            },
            "attacks": [row.to_json() for row in rows],
            "total_seconds": round(total, 1),
            "ok": all(row.ok for row in rows),
        }
        print(json.dumps(data, indent=2))
    else:
        print(report(rows, header, total))
    return 0 if all(row.ok for row in rows) else 1


def _row(args: argparse.Namespace, attack: str, cluster: ClusterTarget | None) -> AttackRow:
    """One attack against its own server (or ``--url``); the server's log read after."""
    if not args.json:
        print(f"flip7 attack: {attack} ({args.duration:g} s) ...", file=sys.stderr, flush=True)
    with contextlib.ExitStack() as stack:
        target = _target(args, attack, stack, cluster)
        with asyncio.Runner(loop_factory=loop_factory("auto")) as runner:
            row = runner.run(
                attack_row(
                    attack, target.url, args.duration, _config(args, attack), seed=args.seed,
                    quiet=args.quiet, server_pids=target.pids, database=target.database,
                )
            )  # fmt: skip
        stack.close()  # stop the servers first, so that their logs are complete
        for server in target.servers:
            row.server_log_errors += list(server.log_errors())
            row.server_log_warnings += len(server.log_warnings())
    return row


def main(argv: list[str] | None = None) -> int:
    """Run the attack benchmark on its own (``python -m flip7.client.attack``)."""
    parser = argparse.ArgumentParser(prog="flip7 attack", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))
