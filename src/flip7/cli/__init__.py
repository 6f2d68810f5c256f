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
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple, Protocol, cast

from flip7 import __version__
from flip7.core.errors import Flip7Error

if TYPE_CHECKING:
    from flip7.bots.mcts import RolloutRun
    from flip7.core.decisions import Decision
    from flip7.engine.game import Game

__all__ = ["COMMANDS", "Command", "build_parser", "main"]

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class CommandModule(Protocol):
    """What a command's module has: its texts, its options and what it does."""

    DESCRIPTION: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


class Command(NamedTuple):
    """One ``flip7`` sub-command: its module (``package.module`` or ``module:attribute``)
    is imported only when the command runs or the full help is printed, so that
    ``flip7 score 5`` loads the core's scoring and nothing else (a named tuple: dataclasses
    would cost every start-up the inspect module)."""

    name: str
    module: str
    help: str
    description: str | None = None
    # Said when the module cannot be imported (an extra is missing), with the exit status.
    needs: str | None = None
    needs_status: int = EXIT_USAGE
    # Options may sit anywhere among the positional arguments (``score 5 --json 3``).
    intermixed: bool = False

    def load(self) -> CommandModule:
        path, _, attribute = self.module.partition(":")
        module: ModuleType = importlib.import_module(path)
        return cast(CommandModule, getattr(module, attribute) if attribute else module)


_SERVER_EXTRA = "needs the 'server' extra (pip install 'flip7[server]')"

COMMANDS: tuple[Command, ...] = (
    Command("score", "flip7.cli.score", "the round score of one line of cards", intermixed=True),
    Command("replay", "flip7.cli.replay", "replay a game record and summarise it"),
    Command("selfplay", "flip7.cli.selfplay", "bots play complete games; one record per game"),
    Command("bench", "flip7.cli.bench", "engine throughput: games and rounds per second"),
    Command(
        "play", "flip7.cli.play", "play a game in the terminal against bots",
        needs="the terminal game needs Rich: pip install 'flip7[cli]'", needs_status=1,
    ),
    Command(
        "advise", "flip7.cli.advise",
        "hit or stay? the odds and expected scores for a record or a typed-in line",
    ),
    Command(
        "analyse", "flip7.cli.analyse",
        "the coach: grade every decision of one seat in a game record",
    ),
    Command(
        "solve", "flip7.cli.solve",
        "the exact solitaire optimum: best expected round score, policy, best threshold",
    ),
    Command(
        "tournament", "flip7.cli.tournament",
        "play a lineup of bots many times: win rates with intervals, scores, busts, latency",
    ),
    Command(
        "ladder", "flip7.cli.tournament:ladder",
        "a mixed round robin of bots, rated with OpenSkill",
    ),
    Command(
        "scorecard", "flip7.cli.scorecard",
        "keep the score of a game played with real cards (checks every line)",
    ),
    Command("train", "flip7.cli.train", "train the learned bot R6 by self-play (PyTorch)"),
    Command(
        "serve", "flip7.cli.serve", "the web app: multiplayer tables, bots, spectators, replays",
        description=(
            "Run the web app (FastAPI + uvicorn) with an embedded SQLite database by "
            "default; open the printed address in a browser. Stored tables resume where "
            "they were. Needs the server extra (pip install 'flip7[server]')."
        ),
    ),
    Command(
        "bot", "flip7.cli.bot", "play at live tables as an outside bot (the bot API)",
        needs=_SERVER_EXTRA,
    ),
    Command(
        "loadtest", "flip7.client.loadtest",
        "load-test the web app with many tables of WebSocket bot clients",
        description=(
            "Play many tables at once with bot clients over real WebSockets on loopback and "
            "report moves per second and the latency from a move to the update reaching "
            "every client at its table. Starts its own server unless --url is given."
        ),
        needs=_SERVER_EXTRA,
    ),
    Command(
        "attack", "flip7.client.attack",
        "flood the web app on loopback and time a control table and a victim bot table "
        "next to each flood",
        description=(
            "Run each flood (uploads, table creation, search bots, frames, idle connections, "
            "malformed input; search-bot tables against another table's bots, many "
            "addresses, long games' welcomes, writes, shared queues, rating farms) for "
            "--duration seconds from loopback addresses other than 127.0.0.1, while a "
            "control table of three humans and a victim table of a human and two Expert "
            "bots play from 127.0.0.1; report the control table's latency, the victim's "
            "wait per bot move against its quiet baseline and /api/health's against the "
            "targets. Starts its own server (or, with --cluster, HAProxy in front of "
            "processes on PostgreSQL and Redis) for each flood unless --url is given."
        ),
        needs=_SERVER_EXTRA,
    ),
    Command(
        "cluster-bench", "flip7.client.clusterbench",
        "benchmark many flip7 serve processes behind HAProxy (PostgreSQL, Redis)",
        description=(
            "Start a throwaway PostgreSQL, Redis, N flip7 serve processes and HAProxy (the "
            "recipe deploy/haproxy.cfg) on loopback, and measure: moves/s flat out with 1 and "
            "2 processes (with each process's CPU), 1,000 tables x 4 clients at a human pace "
            "through the proxy, and the failover time from kill -9 to the next applied move."
        ),
        needs=_SERVER_EXTRA,
    ),
)
_BY_NAME = {command.name: command for command in COMMANDS}

_Run = Callable[[argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``flip7`` command line with ``argv`` (default ``sys.argv[1:]``); returns the
    exit status instead of exiting, so that it can be called in-process."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    named = args_list[0] if args_list and args_list[0] in _BY_NAME else None
    try:
        parser, sub = build_parser(named)
        if named is not None and _BY_NAME[named].intermixed:
            args = sub.parse_intermixed_args(args_list[1:])
            args.command = named
        else:
            args = parser.parse_args(args_list)
    except SystemExit as exc:
        return _exit_code(exc)
    func: _Run = args.func
    if args.command in _SEARCHING:
        _compile_rollouts(args.command)
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


# The commands whose bots may search (R5, mcts): their rollouts run compiled where
# flip7[fast] is installed. The bots' layer may not import flip7.fast; this one hands it over.
_SEARCHING = frozenset({"selfplay", "play", "analyse", "tournament", "ladder", "serve", "bot"})


def _compile_rollouts(command: str) -> None:
    """Hand :mod:`flip7.fast.rollout` to the R5 bots made from now on, by way of
    :func:`_compiled_rollouts` (:func:`_server_rollouts` for ``serve``)."""
    from flip7.bots.mcts import use_rollout_engine

    use_rollout_engine(_server_rollouts if command == "serve" else _compiled_rollouts)


def _compiled_rollouts(
    game: Game, candidates: Sequence[Decision], seat: int, value: int
) -> RolloutRun | None:
    """:func:`flip7.fast.rollout.prepare`, imported at the first search (a command that
    never searches never imports numpy; a bot pickled to a worker process brings this
    function's name, not numba's state); ``None`` without numba: the search stays in Python."""
    return _rollouts(game, candidates, seat, value, wait=True)


def _server_rollouts(
    game: Game, candidates: Sequence[Decision], seat: int, value: int
) -> RolloutRun | None:
    """As :func:`_compiled_rollouts`, but a server's bot never waits for the loop's build
    (about 50 s on a fresh install): it is built in the background, this search and those
    until it is done staying in Python."""
    return _rollouts(game, candidates, seat, value, wait=False)


def _rollouts(
    game: Game, candidates: Sequence[Decision], seat: int, value: int, *, wait: bool
) -> RolloutRun | None:
    if _NO_FAST:
        return None
    try:
        from flip7.fast import ready
        from flip7.fast.rollout import prepare
    except ImportError:
        _NO_FAST.append(True)  # not again at every search
        return None
    if not wait and not ready(build=True):
        return None
    return prepare(game, candidates, seat, value)


_NO_FAST: list[bool] = []


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return EXIT_OK
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


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


def build_parser(
    command: str | None = None,
) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The ``flip7`` parser and the sub-parser of ``command``; without a command, every
    sub-command's options (``flip7 --help``), with one, only that command's module is
    imported: the others are listed by name."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="flip7", description=_DESCRIPTION, epilog=_EPILOG, formatter_class=fmt
    )
    parser.add_argument("--version", action="version", version=f"flip7 {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = parser
    for one in COMMANDS:
        if command is not None and one.name != command:
            sub.add_parser(one.name, add_help=False)
            continue
        part = sub.add_parser(one.name, help=one.help, formatter_class=fmt)
        _define(one, part)
        if one.name == command:
            chosen = part
    return parser, chosen


def _define(command: Command, part: argparse.ArgumentParser) -> None:
    """Give ``part`` the options, texts and action of ``command``'s module; a module whose
    extra is missing still lists the command, which then fails with one line saying so."""
    try:
        module = command.load()
    except ImportError as exc:
        if command.needs is None:
            raise
        needs, status, missing = command.needs, command.needs_status, str(exc)

        def _missing(args: argparse.Namespace) -> int:
            print(f"flip7 {command.name}: error: {needs}: {missing}", file=sys.stderr)
            return status

        part.description = command.description
        part.set_defaults(func=_missing)
        return
    part.description = command.description or module.DESCRIPTION
    part.epilog = getattr(module, "EPILOG", None)
    module.add_arguments(part)
    part.set_defaults(func=module.run)
