"""``flip7 bench``: engine throughput, games and rounds per second (and, with --fast, the
compiled simulator beside it)."""

from __future__ import annotations

import argparse
import json

from flip7.bots import BOTS
from flip7.cli.args import int_range, rules_option, seed
from flip7.cli.files import CommandError
from flip7.core.rules import MAX_PLAYERS, TWO_PLAYERS

DESCRIPTION = (
    "Time complete games on one core, as a simulation plays them: without events, "
    "through Game.play, which makes the Hit/Stay of a bot with a declared threshold "
    "itself and asks the bot everything else. Prints games and rounds per second."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    bots = sorted(BOTS)
    parser.add_argument(
        "--players", type=int_range(TWO_PLAYERS, MAX_PLAYERS), default=4, metavar="N",
        help="players per game (default 4)",
    )  # fmt: skip
    parser.add_argument(
        "--games", type=int_range(1), metavar="K",
        help="games (default 5000; with --fast, 200000 per compiled process)",
    )  # fmt: skip
    parser.add_argument("--bot", choices=bots, default="basic", help="the bot (default basic)")
    parser.add_argument("--seed", type=seed, default=0, metavar="S", help="seed (default 0)")
    parser.add_argument("--rules", metavar="JSON", help="rule options as a JSON object")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    fast = parser.add_argument_group(
        "compiled simulator (flip7[fast])",
        "--fast times flip7.fast.simulate and, in the same run, the engine (--bot) on the "
        "same workload, and prints both games/s (wall and per CPU second) and their ratio. "
        "See flip7.fast.bench.",
    )
    fast.add_argument("--fast", action="store_true", help="time the compiled simulator too")
    fast.add_argument(
        "--policy", metavar="SPEC", help="its policy in every seat (default targeting: t=27)"
    )
    fast.add_argument(
        "--engine-games", type=int_range(0), metavar="K",
        help="games for the engine beside it (default 2000; 0: skip the engine)",
    )  # fmt: skip
    fast.add_argument(
        "--jobs", type=int_range(1, 256), metavar="N",
        help="also N processes at once, K games each; prints the aggregate games/s",
    )  # fmt: skip
    fast.add_argument(
        "--peer", metavar="PATH",
        help="also run this program and read its games/s ('N games/s', 'N ns/game', ...)",
    )  # fmt: skip
    fast.add_argument(
        "--peer-args", metavar="ARGS", default="",
        help="its arguments, one string (--peer-args='-x 4 ...' when it starts with -)",
    )  # fmt: skip
    fast.add_argument(
        "--peer-regex", metavar="REGEX",
        help="where its figure is: a regex whose group 'rate' (or group 1) is games/s",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    fast_only = (args.jobs, args.peer, args.peer_args, args.peer_regex, args.policy)
    if args.fast or any(fast_only) or args.engine_games is not None:
        try:
            from flip7.fast.bench import bench_command
        except ImportError as exc:  # numba or numpy missing: the extra is not installed
            raise CommandError(str(exc)) from None
        return bench_command(args, rules_option(args.rules))

    from flip7.tournament.selfplay import bench

    games = 5000 if args.games is None else args.games
    result = bench(args.players, games, args.bot, rules_option(args.rules), args.seed)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(
            f"{result.games} games of {result.players} {result.bot} bots in "
            f"{result.seconds:.2f} s (Python {result.python}, one core): "
            f"{result.games_per_second:.1f} games/s, {result.rounds_per_second:.1f} rounds/s"
        )
    return 0
