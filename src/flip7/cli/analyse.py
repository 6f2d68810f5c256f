"""``flip7 analyse``: the coach, every decision of one seat in a game record graded.

>>> import argparse, json, tempfile, os
>>> parser = argparse.ArgumentParser(prog="flip7 analyse")
>>> add_arguments(parser)
>>> record = {"format": "flip7-record/1", "players": ["Ann", "Bob", "Cyd", "Dan"],
...           "dealer": 3, "draws": ["3", "12", "11", "10"], "decisions": ["stay"]}
>>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
...     json.dump(record, f)
>>> run(parser.parse_args([f.name, "--seat", "0"]))
Coach: seat 0 (Ann), 1 graded decision, seed 0 (the record stops before the end)
measure: the chance to win the game, in percent; a move's loss is the best option's less its own,
in points: inaccuracy from 1.5, mistake from 4, blunder from 8
<BLANKLINE>
#  round  kind         made  grade    win %  better  win %  loss
0      1  hit or stay  stay  mistake   20.6  hit      25.9   5.3
<BLANKLINE>
summary: best 0, inaccuracy 0, mistake 1, blunder 0 (accuracy 0.0%); win chance lost 5.3 points
<BLANKLINE>
decision 0 (round 1): stay at 3 points (bust risk 1.9%): a mistake, 5.3 points of win chance lost; \
hit was better (win chance 25.9% against 20.6%; round points 20.0 against 3.0)
0
>>> os.unlink(f.name)
"""

from __future__ import annotations

import argparse
import json
import sys

from flip7.cli.files import CommandError, read_text
from flip7.coach import analyse
from flip7.coach.bench import BenchResult, benchmark
from flip7.coach.report import CoachReport
from flip7.engine.record import Record

__all__ = ["DESCRIPTION", "EPILOG", "add_arguments", "format_bench", "format_report", "run"]


DESCRIPTION = """\
Grade every decision a seat made in a flip7-record/1 game record: best, inaccuracy,
mistake or blunder, with the better move.

Each legal option of each decision is valued by the chance to win the game it leaves,
from what that seat could see at the time only: the option is played out to the end of
the round in sampled games (the hidden draw pile re-shuffled from its public composition,
the same samples for every option) by the rollout policy of the strongest bot (R5), and
the end of the round is valued by R5's calibrated chance to win. The loss of a move is the
best option's win chance less its own, in percentage points: under 1.5 (or within two
standard errors of the estimate) it is best; from 1.5 an inaccuracy, from 4 a mistake,
from 8 a blunder. Choices with one legal option (not in the record) are not graded.

--bench instead plays seeded 4-player games of winprob bots and prints how long the
analysis of each seat takes."""

EPILOG = """\
examples:
  flip7 analyse game.json --seat 0               a table of the graded decisions
  flip7 analyse game.json --seat 2 --json        the flip7-coach/1 JSON
  flip7 analyse - --seat 1 --jobs 2 < game.json  both cores
  flip7 analyse --bench --games 3 --jobs 2       the coach's time for whole games
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 analyse``."""
    parser.add_argument(
        "record", nargs="?", metavar="RECORD",
        help="a flip7-record/1 record (- reads standard input)",
    )  # fmt: skip
    parser.add_argument("--seat", type=int, metavar="S", help="the seat to analyse (from 0)")
    parser.add_argument("--json", action="store_true", help="print the flip7-coach/1 JSON")
    parser.add_argument(
        "--jobs", type=_positive, default=1, metavar="N", help="worker processes (default 1)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="N",
        help="seed of the sampled games (default 0): the same seed, the same report",
    )  # fmt: skip
    bench = parser.add_argument_group("the benchmark")
    bench.add_argument(
        "--bench", action="store_true",
        help="time the analysis of every seat of seeded games instead",
    )  # fmt: skip
    bench.add_argument(
        "--games", type=_positive, default=1, metavar="N", help="games to time (default 1)"
    )
    bench.add_argument(
        "--target", type=_positive, default=200, metavar="T",
        help="the target score of the games timed (default 200)",
    )  # fmt: skip


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """Analyse and print; 0 on success (bad input raises a ``Flip7Error``: exit 2)."""
    if args.bench:
        if args.record is not None or args.seat is not None:
            raise CommandError("--bench takes no RECORD and no --seat")
        result = benchmark(games=args.games, jobs=args.jobs, seed=args.seed, target=args.target)
        print(json.dumps(result.to_json()) if args.json else format_bench(result))
        return 0
    if args.record is None:
        raise CommandError("give a RECORD file (or - for standard input), or --bench")
    if args.seat is None:
        raise CommandError("give the seat to analyse: --seat S")
    record = Record.loads(read_text(args.record))
    progress = _progress if not args.json and sys.stderr.isatty() else None
    report = analyse(record, args.seat, jobs=args.jobs, seed=args.seed, progress=progress)
    if progress is not None:
        print("\r\033[K", end="", file=sys.stderr)
    print(json.dumps(report.to_json()) if args.json else format_report(report))
    return 0


def _progress(done: int, total: int) -> None:
    print(f"\rgrading: {done}/{total}", end="", file=sys.stderr, flush=True)


def format_report(report: CoachReport) -> str:
    """The table ``flip7 analyse`` prints."""
    n = len(report.decisions)
    state = "a finished game" if report.over else "the record stops before the end"
    t = report.thresholds
    out = [
        f"Coach: seat {report.seat} ({report.name}), {n} graded decision{'s' * (n != 1)}, "
        f"seed {report.seed} ({state})",
        "measure: the chance to win the game, in percent; a move's loss is the best "
        "option's less its own,",
        f"in points: inaccuracy from {t.inaccuracy:g}, mistake from {t.mistake:g}, "
        f"blunder from {t.blunder:g}",
        "",
    ]
    rows = [("#", "round", "kind", "made", "grade", "win %", "better", "win %", "loss")]
    for d in report.decisions:
        better = d.grade != "best"
        rows.append((
            str(d.index), str(d.round), d.kind.replace("_", " "), d.made, d.grade,
            f"{d.value_made:.1f}", d.best if better else "",
            f"{d.value_best:.1f}" if better else "", f"{d.loss:.1f}" if better else "",
        ))  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    right = {0, 1, 5, 7, 8}
    for row in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in
                 enumerate(zip(row, widths, strict=True))]  # fmt: skip
        out.append("  ".join(cells).rstrip())
    s = report.summary()
    out += [
        "",
        f"summary: best {s['best']}, inaccuracy {s['inaccuracy']}, mistake {s['mistake']}, "
        f"blunder {s['blunder']} (accuracy {report.accuracy:.1f}%); win chance lost "
        f"{report.loss:.1f} points",
    ]
    flagged = [d for d in report.decisions if d.grade != "best"]
    if flagged:
        out.append("")
        out += [f"decision {d.index} (round {d.round}): {d.note}" for d in flagged]
    return "\n".join(out)


def format_bench(result: BenchResult) -> str:
    """The lines ``flip7 analyse --bench`` prints."""
    out = [
        f"coach benchmark: {result.players}-player games to {result.target} of winprob bots, "
        f"seed {result.seed}, "
        f"jobs {result.jobs}; {result.machine}"
    ]
    for r in result.runs:
        out.append(
            f"game {r.game} seat {r.seat}: {r.decisions} decisions graded in {r.seconds:.1f} s"
            f" (CPU {r.cpu_seconds:.1f} s)"
        )
    times = result.seconds
    cpu = [r.cpu_seconds for r in result.runs]
    out.append(
        f"per seat: mean {sum(times) / len(times):.1f} s, longest {max(times):.1f} s "
        f"(CPU: mean {sum(cpu) / len(cpu):.1f} s, longest {max(cpu):.1f} s); "
        f"whole games (all seats): {sum(times) / (len(times) / result.players):.1f} s each"
    )
    return "\n".join(out)
