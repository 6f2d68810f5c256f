"""``flip7 score``: the round score of one line of cards (RULES.md §8, §10).

It imports the core's lines and scoring only, so that a one-line answer starts fast.
"""

from __future__ import annotations

import argparse
import json

from flip7.core.lines import FLIP7_CARDS, Line
from flip7.core.scoring import FLIP7_BONUS

DESCRIPTION = (
    "Score one line (RULES.md §8, §10): Number cards and Modifiers in any order.\n"
    f"{FLIP7_CARDS} Number cards are a Flip 7 (+{FLIP7_BONUS}); a duplicate is a bust "
    "(0; in Brutal,\n"
    "a busted line's Modifiers still count)."
)
EPILOG = (
    "examples:\n  flip7 score 3 11 5 7 10 8 4 /2 -4    -> 35 (Flip 7)\n"
    "  flip7 score 1 -10 --brutal            -> -9\n"
    "  flip7 score 5 9 5 --json              -> "
    '{"score": 0, "flip7": false, "bust": true}'
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "cards", nargs="+", metavar="CARD", help="card codes: 0-13, U7, L13, /2, -2 ... -10"
    )
    parser.add_argument(
        "--brutal", action="store_true", help="Brutal mode: scores may be negative"
    )
    parser.add_argument(
        "--json", action="store_true", help='print {"score": N, "flip7": bool, "bust": bool}'
    )


def run(args: argparse.Namespace) -> int:
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
    return 0
