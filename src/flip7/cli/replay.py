"""``flip7 replay``: replay a game record (RECORD.md) and summarise it."""

from __future__ import annotations

import argparse
import json

from flip7.cli.files import read_text
from flip7.cli.summary import replay_summary
from flip7.engine.record import Record, replay, replay_events

DESCRIPTION = (
    "Replay a flip7-record/1 game record (RECORD.md) and print a round-by-round "
    "summary, or with --json the replay result of RECORD.md §6. An invalid record "
    "exits 2 with the error on standard error and nothing on standard output."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the record (JSON); - reads standard input")
    parser.add_argument("--json", action="store_true", help="print the replay result as JSON")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="also list every event of every round"
    )


def run(args: argparse.Namespace) -> int:
    record = Record.loads(read_text(args.file))
    # Everything is worked out before anything is printed: an invalid record must leave
    # standard output empty.
    if args.json:
        text = json.dumps(replay(record).to_json())
    else:
        game, events = replay_events(record)
        text = replay_summary(record, game, events, verbose=args.verbose)
    print(text)
    return 0
