"""``flip7 tournament`` and ``flip7 ladder``: bots against bots, on every core or a cluster.

The tournament command is this module's ``DESCRIPTION``, ``EPILOG``, ``add_arguments``
and ``run``; the ladder command is the same four names on ``ladder`` (their one-line help is
in :data:`flip7.cli.COMMANDS`).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="flip7 tournament")
>>> add_arguments(parser)
>>> args = parser.parse_args(["--seats", "basic,random,random", "--games", "6", "--seed", "1",
...                           "--no-progress"])
>>> run(args)
6 games of 3 players (basic, random, random), seed 1: ...
bot     seats  win rate (95% CI)  ...
basic       1  ...
random      2  ...
0
>>> parse_specs("ev,mcts:iters=2000,c=1.4,targeting")
['ev', 'mcts:iters=2000,c=1.4', 'targeting']
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from flip7.core.errors import RulesError
from flip7.core.rules import MAX_PLAYERS, TWO_PLAYERS, Rules
from flip7.tournament.runner import TournamentError, available_cores, check_specs

__all__ = [
    "DESCRIPTION",
    "EPILOG",
    "add_arguments",
    "add_ladder_arguments",
    "ladder",
    "parse_specs",
    "run",
    "run_ladder_command",
]


DESCRIPTION = """\
Play a lineup of bots against each other for many games and add them up. Seats rotate
from game to game so that every bot sits in every seat equally often; --paired plays every
deal once in each rotation. Prints, per bot spec: win rate with its Wilson 95% interval,
the fair share (its seats over the players) and the edge over it, mean game score, mean
round score, bust and Flip 7 rates, attack points per game and decision latency
(p50 / p95 / max); with a repeated spec, also each lineup entry's win rate. --out DIR writes
results.json, games.csv and PNG plots (matplotlib). The same arguments give the same
results whatever --jobs or --dask: only the timing fields differ. See docs/tournaments.md."""

EPILOG = """\
examples:
  flip7 tournament --seats basic,random,random,random --games 2000 --seed 1
  flip7 tournament --players 4 --seats ev,targeting,targeting,targeting --games 10000 \\
      --seed 1 --jobs --out results/ev
  flip7 tournament --seats basic,basic,basic,basic --games 4000 --paired --jobs 2
  flip7 tournament --seats basic,random,random --games 100000 --dask tcp://scheduler:8786
  flip7 tournament --seats basic,random,random --games 2000 --dask local --json

A bot spec is anything flip7's bot registry accepts (random, basic, threshold:30,
mcts:iters=2000, module:Class); a comma-separated piece of the form key=value without a
colon continues the previous spec's options (mcts:iters=2000,c=1.4).
"""


def parse_specs(text: str) -> list[str]:
    """The bot specs of a comma-separated list (see the epilog for ``key=value`` pieces)."""
    out: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            raise argparse.ArgumentTypeError(f"an empty bot spec in {text!r}")
        if out and ":" not in piece and "=" in piece:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def _int_at_least(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more, got {value}")
        return value

    parse.__name__ = "integer"
    return parse


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, got {text!r}") from None


def _rules(args: argparse.Namespace) -> Rules:
    rules = Rules()
    if args.rules is not None:
        try:
            data = json.loads(args.rules)
        except json.JSONDecodeError as exc:
            raise RulesError(f"--rules is not valid JSON ({exc}): {args.rules!r}") from None
        rules = Rules.from_json(data)
    if args.brutal:
        rules = rules.replace(brutal=True)
    return rules


def _common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games", type=_int_at_least(1), default=1000, metavar="K",
        help="games to play (default 1000)",
    )  # fmt: skip
    parser.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed (default 0)")
    parser.add_argument(
        "--jobs", type=_int_at_least(0), nargs="?", const=0, default=None, metavar="J",
        help="worker processes; --jobs alone or 0: every core (default 1, this process); "
        "with --dask local: the number of workers",
    )  # fmt: skip
    parser.add_argument(
        "--dask", metavar="ADDRESS",
        help="run on a Dask cluster: a scheduler address (tcp://host:8786) or 'local' to "
        "start a LocalCluster here",
    )  # fmt: skip
    parser.add_argument(
        "--rules", metavar="JSON", help="rule options as a JSON object, e.g. '{\"brutal\": true}'"
    )
    parser.add_argument("--brutal", action="store_true", help="Brutal mode (RULES.md §10)")
    parser.add_argument(
        "--chunk-size", type=_int_at_least(1), metavar="K",
        help="games per work item (default: about 200 items); results do not depend on it",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    show = parser.add_mutually_exclusive_group()
    show.add_argument(
        "--progress", dest="progress", action="store_true", default=None,
        help="show a progress bar on standard error (default: when it is a terminal)",
    )  # fmt: skip
    show.add_argument(
        "--no-progress", dest="progress", action="store_false", help="no progress bar"
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 tournament`` (and its help text, unless the caller set one)."""
    if parser.description is None:
        parser.description = DESCRIPTION
    if parser.epilog is None:
        parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--seats", type=parse_specs, required=True, metavar="SPECS",
        help="the lineup: one bot spec per seat, comma-separated (ev,targeting,targeting)",
    )  # fmt: skip
    parser.add_argument(
        "--players", type=_int_at_least(TWO_PLAYERS), metavar="N",
        help=f"players per game, {TWO_PLAYERS} to {MAX_PLAYERS} (default: the number of --seats)",
    )  # fmt: skip
    _common_arguments(parser)
    parser.add_argument(
        "--paired", action="store_true",
        help="play every deal once in each rotation (--games a multiple of --players)",
    )  # fmt: skip
    parser.add_argument(
        "--compare", type=parse_specs, metavar="SPECS",
        help="also play this lineup on the same deals and compare the two entry by entry "
        "(paired differences in win rate and game score, with 95%% intervals)",
    )  # fmt: skip
    parser.add_argument(
        "--out", metavar="DIR",
        help="write results.json, games.csv, win_rates.png and round_scores.png into DIR",
    )  # fmt: skip
    parser.add_argument(
        "--no-plots", action="store_true", help="with --out: no PNG plots (no matplotlib)"
    )
    parser.add_argument(
        "--no-attacks", action="store_true",
        help="do not measure attack points (the games then make no events: faster)",
    )  # fmt: skip
    parser.add_argument(
        "--time-all-decisions", action="store_true",
        help="time every decision, the Hit/Stay that threshold bots leave to the engine too "
        "(slower; the games are the same)",
    )  # fmt: skip


# ---------------------------------------------------------------------- running


def _jobs(args: argparse.Namespace) -> int:
    if args.jobs is None:
        return 1
    return args.jobs if args.jobs > 0 else available_cores()


@contextlib.contextmanager
def _executor(args: argparse.Namespace) -> Iterator[tuple[Executor | None, str | None, int]]:
    """The executor the arguments ask for: Dask's, or None (a process pool or this process)."""
    jobs = _jobs(args)
    if args.dask is None:
        yield None, None, jobs
        return
    from flip7.tournament.cluster import dask_executor

    workers = None if args.jobs is None else jobs
    with dask_executor(args.dask, workers) as dask:
        yield dask.executor, dask.name, max(1, dask.workers)


@contextlib.contextmanager
def _progress_bar(args: argparse.Namespace, what: str) -> Iterator[Any]:
    """A Rich progress bar on standard error, or None when none is to be shown."""
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    if not show:
        yield None
        return
    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            Task,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.text import Text
    except ImportError:
        yield None
        return

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("-- games/s" if speed is None else f"{speed:,.0f} games/s")

    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    )
    with bar:
        task = bar.add_task(what, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _print_table(title: str, headers: list[str], rows: list[list[str]]) -> None:
    from flip7.tournament.output import format_table

    if sys.stdout.isatty():
        try:
            from rich import box
            from rich.console import Console
            from rich.table import Table
            from rich.text import Text
        except ImportError:
            pass
        else:
            table = Table(title=title or None, box=box.SIMPLE_HEAD, title_justify="left")
            for i, header in enumerate(headers):
                table.add_column(header, justify="left" if i < 1 else "right")
            for row in rows:
                table.add_row(*(Text(cell) for cell in row))  # cells are text, not markup
            Console().print(table)
            return
    if title:
        print(title)
    print(format_table(headers, rows))


def run(args: argparse.Namespace) -> int:
    """Play the tournament and print it; 0 on success (bad input raises a Flip7Error)."""
    from flip7.tournament.compare import compare_entries
    from flip7.tournament.output import write_outputs
    from flip7.tournament.runner import TournamentResult, run_tournament

    rules = _rules(args)
    lineups: list[list[str]] = [args.seats]
    if args.compare is not None:
        lineups.append(args.compare)
    results: list[TournamentResult] = []
    with _executor(args) as (executor, name, jobs):
        for seats in lineups:
            if results:
                check_specs(seats)  # before the first lineup's results are printed
            label = "tournament" if not results else "compare"
            with _progress_bar(args, label) as bar:
                result = run_tournament(
                    seats, args.games, args.seed, args.players, rules,
                    jobs=jobs, executor=executor, paired=args.paired, progress=bar,
                    attacks=not args.no_attacks, time_all_decisions=args.time_all_decisions,
                    chunk_size=args.chunk_size, executor_name=name,
                )  # fmt: skip
            results.append(result)
    differences = compare_entries(*results) if len(results) == 2 else []
    paths: list[Path] = []
    if args.out is not None:
        paths = write_outputs(results[0], args.out, plots=not args.no_plots)
        if differences:
            paths += write_outputs(results[1], Path(args.out) / "compare", plots=not args.no_plots)
            comparison = Path(args.out) / "comparison.json"
            text = json.dumps([d.to_json() for d in differences], indent=2) + "\n"
            try:
                comparison.write_text(text, encoding="utf-8")
            except OSError as exc:
                raise TournamentError(f"cannot write {comparison}: {exc.strerror or exc}") from None
            paths.append(comparison)
    if args.json:
        if differences:
            data: Any = {
                "tournament": results[0].to_json(),
                "compare": results[1].to_json(),
                "comparison": [d.to_json() for d in differences],
            }
        else:
            data = results[0].to_json()
        print(json.dumps(data))
        if paths:
            print(f"wrote {', '.join(map(str, paths))}", file=sys.stderr)
        return 0
    for k, result in enumerate(results):
        if k:
            print()
        _print_result(result)
    if differences:
        print()
        _print_table(
            "paired on the same deals, entry by entry (first lineup minus second):",
            *_comparison_table(differences),
        )
    if not args.time_all_decisions:
        print(
            "decision times cover the calls to each bot; Hit/Stay that a threshold bot "
            "leaves to the engine are not timed (--time-all-decisions)"
        )
    if paths:
        print(f"wrote {', '.join(map(str, paths))}")
    return 0


def _print_result(result: Any) -> None:
    from flip7.tournament.output import describe, position_table, summary_table

    print(describe(result))
    _print_table("", *summary_table(result))
    if len(result.specs) < result.players:
        print()
        _print_table("each lineup entry, followed round the table:", *position_table(result))


def _comparison_table(differences: Sequence[Any]) -> tuple[list[str], list[list[str]]]:
    headers = ["entry", "first", "second", "win rate diff (95% CI)", "game score diff (95% CI)"]
    rows = [
        [
            f"#{d.entry + 1}",
            d.a,
            d.b,
            f"{100 * d.win_diff:+.1f} pp [{100 * d.win_low:+.1f}, {100 * d.win_high:+.1f}]",
            f"{d.score_diff:+.1f} [{d.score_low:+.1f}, {d.score_high:+.1f}]",
        ]
        for d in differences
    ]
    return headers, rows


# ---------------------------------------------------------------------- the ladder


LADDER_DESCRIPTION = """\
Play every table of --players seats that the bots can make (all combinations of distinct
bots; with fewer bots than seats, every mix of at least two of them), in turn and with the
seats rotating, and rate the bots with OpenSkill's Plackett-Luce model from each game's
final ranking. Prints each bot's rating (mu, sigma, ordinal = mu - 3 sigma, sorted by it),
its games and its win rate against the fair share. Needs openskill (flip7[sim])."""

LADDER_EPILOG = """\
examples:
  flip7 ladder --bots random,basic --games 2000 --seed 1
  flip7 ladder --bots random,threshold,basic --players 4 --games 20000 --jobs
  flip7 ladder --bots random,basic --players 3 --games 5000 --json
"""


def add_ladder_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 ladder`` (and its help text, unless the caller set one)."""
    if parser.description is None:
        parser.description = LADDER_DESCRIPTION
    if parser.epilog is None:
        parser.epilog = LADDER_EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--bots", type=parse_specs, required=True, metavar="SPECS",
        help="the bots, comma-separated (random,threshold,basic)",
    )  # fmt: skip
    parser.add_argument(
        "--players", type=_int_at_least(2), default=4, metavar="N",
        help="players per game (default 4)",
    )  # fmt: skip
    _common_arguments(parser)


def run_ladder_command(args: argparse.Namespace) -> int:
    """Play the ladder and print the ratings; 0 on success."""
    from flip7.tournament.ladder import run_ladder

    rules = _rules(args)
    with _executor(args) as (executor, name, jobs), _progress_bar(args, "ladder") as bar:
        result = run_ladder(
            args.bots, args.games, args.seed, args.players, rules,
            jobs=jobs, executor=executor, progress=bar, chunk_size=args.chunk_size,
            executor_name=name,
        )  # fmt: skip
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    print(
        f"{result.games} games of {result.players} players, {len(result.lineups)} "
        f"table{'s' if len(result.lineups) != 1 else ''} "
        f"of {', '.join(result.bots)}, seed {result.seed}: {result.seconds:.2f} s "
        f"({result.executor})"
    )
    headers = ["rank", "bot", "mu", "sigma", "ordinal", "games", "win rate (95% CI)", "fair"]
    rows = []
    for rank, r in enumerate(result.ratings, 1):
        rows.append(
            [
                str(rank),
                r.bot,
                f"{r.mu:.2f}",
                f"{r.sigma:.2f}",
                f"{r.ordinal:.2f}",
                str(r.games),
                f"{100 * r.win_rate:.1f}% [{100 * r.win_low:.1f}, {100 * r.win_high:.1f}]",
                f"{100 * r.fair_share:.1f}%",
            ]
        )
    _print_table("", headers, rows)
    return 0


ladder = SimpleNamespace(
    DESCRIPTION=LADDER_DESCRIPTION,
    EPILOG=LADDER_EPILOG,
    add_arguments=add_ladder_arguments,
    run=run_ladder_command,
)
"""The ladder command, with the same four names as this module has for the tournament."""
