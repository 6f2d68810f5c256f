"""The command line of ``flip7 attack``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from typing import Any
from urllib.parse import urlsplit

from flip7.client.attack.control import CONTROL_CLIENTS, CONTROL_THINK, attack_row
from flip7.client.attack.figures import (
    ATTACKS,
    TARGET_CONTROL_P95_MS,
    TARGET_HEALTH_P95_MS,
    AttackRow,
    report,
)
from flip7.client.attack.flood_process import loopback
from flip7.client.attack.floods.tables import STRONG_BOT
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
    "malformed input) while a control table plays next to it; report the control table's "
    "latency and /api/health's for each flood."
)
# Source addresses per flood (127.0.0.2 and up; the control table is 127.0.0.1).
ADDRESSES = {"uploads": 2, "tables": 4, "bots12": 2, "bots60": 6, "frames": 2, "idle": 16,
             "malformed": 2}  # fmt: skip


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
    add_server_arg(parser, "--limit=tables_burst=5")
    parser.add_argument(
        "--no-nice", dest="nice", action="store_false",
        help="run the floods at normal CPU priority (by default they run at nice 10)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, metavar="N", help="seed of the clients' choices")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def _config(args: argparse.Namespace, attack: str) -> dict[str, Any]:
    return {
        "addresses": ADDRESSES.get(attack, 2),
        "idle": args.idle,
        "frame_sockets": args.frame_sockets,
        "create_max": args.create_max,
        "bot_spec": args.bot_spec,
        "bot_tables": 60 if attack == "bots60" else 12,
        "bot_human": args.bot_human,
        "nice": args.nice,
        "seed": args.seed,
    }


def run(args: argparse.Namespace) -> int:
    """``flip7 attack``: 0 when every row meets the target, 1 otherwise, 2 on bad input."""
    began = time.monotonic()
    if args.url is not None:
        host = urlsplit(args.url).hostname or ""
        if not loopback(host):
            print(f"flip7 attack: floods go to loopback only, not {host!r}", file=sys.stderr)
            return 2
    needed = 3 * args.idle if "idle" in args.attacks else 0
    raise_open_files(needed * 2 + 1024)
    rows: list[AttackRow] = []
    for attack in args.attacks:
        if not args.json:
            print(f"flip7 attack: {attack} ({args.duration:g} s) ...", file=sys.stderr, flush=True)
        with contextlib.ExitStack() as stack:
            url: str = args.url
            server: ServerProcess | None = None
            if url is None:
                try:
                    server = stack.enter_context(
                        serve_subprocess(bot_delay=args.bot_delay, extra_args=args.server_arg)
                    )
                except ServiceError as exc:
                    print(f"flip7 attack: {exc}", file=sys.stderr)
                    return 1
                url = server.url
            with asyncio.Runner(loop_factory=loop_factory("auto")) as runner:
                row = runner.run(
                    attack_row(
                        attack, url, args.duration, _config(args, attack),
                        server_pid=server.pid if server else None, seed=args.seed,
                    )
                )  # fmt: skip
            if server is not None:
                stack.close()  # stop the server first, so that its log is complete
                row.server_log_errors = list(server.log_errors())
                row.server_log_warnings = len(server.log_warnings())
        rows.append(row)
    total = time.monotonic() - began
    where = args.url or "a fresh `flip7 serve` per attack"
    load = load_average()
    header = (
        f"flip7 attack against {where} (bot delay {args.bot_delay:g} s): "
        f"{args.duration:g} s per attack, control table of {CONTROL_CLIENTS} humans moving "
        f"{CONTROL_THINK * 1000:.0f} ms after their turn comes; {os.cpu_count()} cores, "
        f"load average {load}"
    )
    if args.json:
        data = {
            "url": args.url,
            "duration": args.duration,
            "bot_delay": args.bot_delay,
            "machine_cores": os.cpu_count(),
            "load_average": load,
            "target": {
                "control_p95_ms": TARGET_CONTROL_P95_MS,
                "health_p95_ms": TARGET_HEALTH_P95_MS,
                "control_errors": 0,
            },
            "attacks": [row.to_json() for row in rows],
            "total_seconds": round(total, 1),
            "ok": all(row.ok for row in rows),
        }
        print(json.dumps(data, indent=2))
    else:
        print(report(rows, header, total))
    return 0 if all(row.ok for row in rows) else 1


def main(argv: list[str] | None = None) -> int:
    """Run the attack benchmark on its own (``python -m flip7.client.attack``)."""
    parser = argparse.ArgumentParser(prog="flip7 attack", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))
