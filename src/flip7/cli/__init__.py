"""The ``flip7`` command: score a line, replay a record, self-play, benchmark, play.

Every command exits 0 on success and 2 on bad input (malformed arguments, unknown cards,
invalid records or rule options), with the message on standard error and never a
traceback. Only ``play`` needs Rich, and only ``play`` imports it.

>>> main(["score", "3", "11", "5", "7", "10", "8", "4", "/2", "-4"])
35 (Flip 7)
0
>>> main(["score", "--json", "5", "5"])
{"score": 0, "flip7": false, "bust": true}
0
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from flip7 import __version__
from flip7.bots import BOTS
from flip7.cli.files import CommandError, read_text
from flip7.core.errors import Flip7Error, RulesError
from flip7.core.lines import FLIP7_CARDS, Line
from flip7.core.rules import MAX_PLAYERS, MIN_PLAYERS, ONE_DECK_MAX_PLAYERS, TWO_PLAYERS, Rules
from flip7.core.scoring import FLIP7_BONUS
from flip7.engine.record import Record, replay, replay_events

__all__ = ["build_parser", "main"]

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

_Command = Callable[[argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``flip7`` command line with ``argv`` (default ``sys.argv[1:]``); returns the
    exit status instead of exiting, so that it can be called in-process."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser, score_parser = build_parser()
    try:
        if args_list and args_list[0] == "score":
            # Intermixed parsing lets --brutal/--json sit anywhere among the cards.
            args = score_parser.parse_intermixed_args(args_list[1:])
            args.command, args.func = "score", _cmd_score
        else:
            args = parser.parse_args(args_list)
    except SystemExit as exc:
        return _exit_code(exc)
    func: _Command = args.func
    try:
        return func(args)
    except Flip7Error as exc:
        print(f"flip7 {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"\nflip7 {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``flip7 replay x | head``): stop quietly. Python would
        # complain again when flushing stdout at exit, so point stdout at /dev/null.
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 1


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return EXIT_OK
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


# ---------------------------------------------------------------------- argument types


def _int_range(low: int, high: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < low or (high is not None and value > high):
            limit = f"from {low} to {high}" if high is not None else f"{low} or more"
            raise argparse.ArgumentTypeError(f"must be {limit}, got {value}")
        return value

    parse.__name__ = "integer"
    return parse


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, got {text!r}") from None


def _rules(text: str | None) -> Rules:
    """A ``--rules`` argument: a JSON object of rule options (RULES.md §13)."""
    if text is None:
        return Rules()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RulesError(f"--rules is not valid JSON ({exc}): {text!r}") from None
    return Rules.from_json(data)


# ---------------------------------------------------------------------- the parser


_DESCRIPTION = """\
Flip 7: With a Vengeance, exact to the rules: score a line, replay a game record,
let bots play (self-play records, benchmark), or play a game in the terminal.
"""

_EPILOG = """\
examples:
  flip7 score 3 11 5 7 10 8 4 /2 -4     35 (Flip 7)
  flip7 replay game.json --json         the replay result of RECORD.md §6
  flip7 selfplay --players 4 --games 100 --seed 1 --out records/
  flip7 bench --players 4 --bot basic --games 2000
  flip7 play --players 4
  flip7 advise --line "5 9 /2"           odds and expected scores of hitting vs staying
  flip7 solve                            the exact solitaire optimum
  flip7 analyse game.json --seat 0       the coach: every decision of seat 0 graded
  flip7 tournament --seats basic,random,random,random --games 2000 --jobs 2
  flip7 ladder --bots random,threshold,basic --games 1000
  flip7 serve                            the web app on http://127.0.0.1:8000
  flip7 scorecard --players "Ann,Bob,Cyd"  keep the score of a game played with real cards

Exit status: 0 success, 2 bad input (arguments, cards, records, rule options),
130 interrupted. Card codes: 0-13, U7, L13, /2 (or ÷2), -2 -4 -6 -8 -10 (or −N),
JOM, FLIP4, STEAL, SWAP, DISCARD.
"""


def build_parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The ``flip7`` parser and, separately, its ``score`` sub-parser (parsed intermixed)."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="flip7", description=_DESCRIPTION, epilog=_EPILOG, formatter_class=fmt
    )
    parser.add_argument("--version", action="version", version=f"flip7 {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    bots = sorted(BOTS)

    score = sub.add_parser(
        "score",
        help="the round score of one line of cards",
        description=(
            "Score one line (RULES.md §8, §10): Number cards and Modifiers in any order.\n"
            f"{FLIP7_CARDS} Number cards are a Flip 7 (+{FLIP7_BONUS}); a duplicate is a bust "
            "(0; in Brutal,\n"
            "a busted line's Modifiers still count)."
        ),
        epilog=(
            "examples:\n  flip7 score 3 11 5 7 10 8 4 /2 -4    -> 35 (Flip 7)\n"
            "  flip7 score 1 -10 --brutal            -> -9\n"
            "  flip7 score 5 9 5 --json              -> "
            '{"score": 0, "flip7": false, "bust": true}'
        ),
        formatter_class=fmt,
    )
    score.add_argument(
        "cards", nargs="+", metavar="CARD", help="card codes: 0-13, U7, L13, /2, -2 ... -10"
    )
    score.add_argument("--brutal", action="store_true", help="Brutal mode: scores may be negative")
    score.add_argument(
        "--json", action="store_true", help='print {"score": N, "flip7": bool, "bust": bool}'
    )
    score.set_defaults(func=_cmd_score)

    rep = sub.add_parser(
        "replay",
        help="replay a game record and summarise it",
        description=(
            "Replay a flip7-record/1 game record (RECORD.md) and print a round-by-round "
            "summary, or with --json the replay result of RECORD.md §6. An invalid record "
            "exits 2 with the error on standard error and nothing on standard output."
        ),
    )
    rep.add_argument("file", metavar="FILE", help="the record (JSON); - reads standard input")
    rep.add_argument("--json", action="store_true", help="print the replay result as JSON")
    rep.add_argument(
        "-v", "--verbose", action="store_true", help="also list every event of every round"
    )
    rep.set_defaults(func=_cmd_replay)

    self_play = sub.add_parser(
        "selfplay",
        help="bots play complete games; one record per game",
        description=(
            "Play complete games between bots and write one record per game "
            "(DIR/game-0001.json, ...). The same arguments give byte-identical records: "
            "each game's shuffle and each bot's seed derive from --seed and the game index, "
            "and the record's meta says which."
        ),
    )
    self_play.add_argument(
        "--players", type=_int_range(TWO_PLAYERS, MAX_PLAYERS), default=4, metavar="N",
        help="players per game (default 4)",
    )  # fmt: skip
    self_play.add_argument(
        "--games", type=_int_range(1), default=100, metavar="K", help="games to play (default 100)"
    )
    self_play.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed (default 0)")
    self_play.add_argument(
        "--rules", metavar="JSON", help='rule options as a JSON object, e.g. \'{"brutal": true}\''
    )
    self_play.add_argument("--bot", choices=bots, default="basic", help="the bot (default basic)")
    self_play.add_argument(
        "--out", required=True, metavar="DIR", help="directory for the records (created)"
    )
    self_play.add_argument("--json", action="store_true", help="print the summary as JSON")
    self_play.set_defaults(func=_cmd_selfplay)

    ben = sub.add_parser(
        "bench",
        help="engine throughput: games and rounds per second",
        description=(
            "Time complete games on one core, as a simulation plays them: without events, "
            "through Game.play, which makes the Hit/Stay of a bot with a declared threshold "
            "itself and asks the bot everything else. Prints games and rounds per second."
        ),
    )
    ben.add_argument(
        "--players", type=_int_range(TWO_PLAYERS, MAX_PLAYERS), default=4, metavar="N",
        help="players per game (default 4)",
    )  # fmt: skip
    ben.add_argument(
        "--games", type=_int_range(1), metavar="K",
        help="games (default 5000; with --fast, 200000 per compiled process)",
    )  # fmt: skip
    ben.add_argument("--bot", choices=bots, default="basic", help="the bot (default basic)")
    ben.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed (default 0)")
    ben.add_argument("--rules", metavar="JSON", help="rule options as a JSON object")
    ben.add_argument("--json", action="store_true", help="print the result as JSON")
    fast = ben.add_argument_group(
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
        "--engine-games", type=_int_range(0), metavar="K",
        help="games for the engine beside it (default 2000; 0: skip the engine)",
    )  # fmt: skip
    fast.add_argument(
        "--jobs", type=_int_range(1, 256), metavar="N",
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
    ben.set_defaults(func=_cmd_bench)

    play = sub.add_parser(
        "play",
        help="play a game in the terminal against bots",
        description=(
            "Play a complete game in the terminal: you are seat 0 against bots. Answer "
            "each question with the option's number (or its record form: hit, stay, "
            "steal 1 11, ...); q quits. Needs Rich (pip install 'flip7[cli]')."
        ),
    )
    play.add_argument(
        "--players", type=_int_range(MIN_PLAYERS, ONE_DECK_MAX_PLAYERS), default=4, metavar="N",
        help=f"players, you included ({MIN_PLAYERS} to {ONE_DECK_MAX_PLAYERS}, default 4)",
    )  # fmt: skip
    play.add_argument("--brutal", action="store_true", help="Brutal mode (RULES.md §10)")
    play.add_argument("--seed", type=_seed, metavar="S", help="seed for a game you can replay")
    play.add_argument("--bot", choices=bots, default="basic", help="the bots (default basic)")
    play.set_defaults(func=_cmd_play)

    from flip7.cli import advise, analyse, scorecard, solve, tournament, train

    # Each command module has HELP, DESCRIPTION, EPILOG, add_arguments and run.
    commands: tuple[tuple[str, Any], ...] = (
        ("advise", advise),
        ("analyse", analyse),
        ("solve", solve),
        ("tournament", tournament),
        ("ladder", tournament.ladder),
        ("scorecard", scorecard),
        ("train", train),
    )
    for name, module in commands:
        part = sub.add_parser(
            name,
            help=module.HELP,
            description=module.DESCRIPTION,
            epilog=module.EPILOG,
            formatter_class=fmt,
        )
        module.add_arguments(part)
        part.set_defaults(func=module.run)

    from flip7.cli import serve

    srv = sub.add_parser(
        "serve",
        help="the web app: multiplayer tables, bots, spectators, replays",
        description=(
            "Run the web app (FastAPI + uvicorn) with an embedded SQLite database by "
            "default; open the printed address in a browser. Stored tables resume where "
            "they were. Needs the server extra (pip install 'flip7[server]')."
        ),
    )
    serve.add_arguments(srv)
    srv.set_defaults(func=serve.run)

    _add_server_command(
        sub,
        "loadtest",
        help="load-test the web app with many tables of WebSocket bot clients",
        description=(
            "Play many tables at once with bot clients over real WebSockets on loopback and "
            "report moves per second and the latency from a move to the update reaching "
            "every client at its table. Starts its own server unless --url is given."
        ),
    )
    _add_server_command(
        sub,
        "attack",
        help="flood the web app on loopback and time a control table next to each flood",
        description=(
            "Run each flood (uploads, table creation, search bots, frames, idle connections, "
            "malformed input) for --duration seconds from loopback addresses 127.0.0.2 and "
            "up, while a control table of three humans plays from 127.0.0.1; report its "
            "latency and /api/health's against the target. Starts its own servers unless "
            "--url is given."
        ),
    )
    _add_server_command(
        sub,
        "cluster-bench",
        module_name="clusterbench",
        help="benchmark many flip7 serve processes behind HAProxy (PostgreSQL, Redis)",
        description=(
            "Start a throwaway PostgreSQL, Redis, N flip7 serve processes and HAProxy (the "
            "recipe deploy/haproxy.cfg) on loopback, and measure: moves/s flat out with 1 and "
            "2 processes (with each process's CPU), 1,000 tables x 4 clients at a human pace "
            "through the proxy, and the failover time from kill -9 to the next applied move."
        ),
    )
    return parser, score


def _add_server_command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    *,
    help: str,
    description: str,
    module_name: str | None = None,
) -> None:
    """Register ``name``, whose module is ``flip7.client.<module_name>`` (default: the
    name; with ``add_arguments`` and ``run``); without the server extra the command is
    still listed, and fails with one line naming the extra when run."""
    part = sub.add_parser(name, help=help, description=description)
    try:
        module = importlib.import_module(f"flip7.client.{module_name or name}")
    except ImportError as exc:
        missing = str(exc)

        def _no_server_extra(_args: argparse.Namespace) -> int:
            raise CommandError(
                f"{name} needs the 'server' extra (pip install 'flip7[server]'): {missing}"
            )

        part.set_defaults(func=_no_server_extra)
    else:
        module.add_arguments(part)
        part.set_defaults(func=module.run)


# ---------------------------------------------------------------------- commands


def _cmd_score(args: argparse.Namespace) -> int:
    line = Line.parse(args.cards)
    score = line.score(brutal=args.brutal)
    flip7, bust = line.flip7(), line.busted()
    if args.json:
        print(json.dumps({"score": score, "flip7": flip7, "bust": bust}))
    elif flip7:
        print(f"{score} (Flip 7)")
    elif bust:
        print(f"{score} (bust)")
    else:
        print(score)
    return EXIT_OK


def _cmd_replay(args: argparse.Namespace) -> int:
    from flip7.cli.summary import replay_summary

    record = Record.loads(read_text(args.file))
    # Everything is worked out before anything is printed: an invalid record must leave
    # standard output empty.
    if args.json:
        text = json.dumps(replay(record).to_json())
    else:
        game, events = replay_events(record)
        text = replay_summary(record, game, events, verbose=args.verbose)
    print(text)
    return EXIT_OK


def _cmd_selfplay(args: argparse.Namespace) -> int:
    from flip7.tournament.selfplay import selfplay, summarize

    rules = _rules(args.rules)
    games = selfplay(args.players, args.games, args.seed, rules, args.bot)
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"cannot create {out}: {exc.strerror or exc}") from None
    width = max(4, len(str(args.games)))
    played = []
    for one in games:
        path = out / f"game-{one.index:0{width}d}.json"
        try:
            path.write_text(one.record.dumps(indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from None
        played.append(one)
    summary = summarize(played, args.players)
    if args.json:
        data: dict[str, Any] = {
            **summary.to_json(), "bot": args.bot, "seed": args.seed, "out": str(out),
        }  # fmt: skip
        print(json.dumps(data))
        return EXIT_OK
    first, last = f"game-{1:0{width}d}.json", f"game-{args.games:0{width}d}.json"
    print(
        f"{summary.games} games of {args.players} {args.bot} bots, seed {args.seed}: "
        f"records {out / first} ... {last}"
    )
    wins = ", ".join(f"seat {seat} {n}" for seat, n in enumerate(summary.wins))
    print(f"wins per seat: {wins}")
    print(f"mean rounds per game: {summary.mean_rounds:.2f}")
    return EXIT_OK


def _cmd_bench(args: argparse.Namespace) -> int:
    fast_only = (args.jobs, args.peer, args.peer_args, args.peer_regex, args.policy)
    if args.fast or any(fast_only) or args.engine_games is not None:
        try:
            from flip7.fast.bench import bench_command
        except ImportError as exc:  # numba or numpy missing: the extra is not installed
            raise CommandError(str(exc)) from None
        return bench_command(args, _rules(args.rules))

    from flip7.tournament.selfplay import bench

    games = 5000 if args.games is None else args.games
    result = bench(args.players, games, args.bot, _rules(args.rules), args.seed)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(
            f"{result.games} games of {result.players} {result.bot} bots in "
            f"{result.seconds:.2f} s (Python {result.python}, one core): "
            f"{result.games_per_second:.1f} games/s, {result.rounds_per_second:.1f} rounds/s"
        )
    return EXIT_OK


def _cmd_play(args: argparse.Namespace) -> int:
    try:
        from flip7.cli.play import play
    except ImportError as exc:
        if exc.name != "rich" and not (exc.name or "").startswith("rich."):
            raise
        print(
            "flip7 play: error: the terminal game needs Rich: pip install 'flip7[cli]'",
            file=sys.stderr,
        )
        return 1
    rules = Rules(brutal=args.brutal)
    return play(args.players, rules, seed=args.seed, bot=args.bot)
