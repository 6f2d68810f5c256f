"""``flip7 selfplay``: bots play complete games; one record per game."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from flip7.bots import BOTS
from flip7.cli.args import int_range, rules_option, seed
from flip7.cli.files import CommandError
from flip7.core.jsontypes import JSONObject
from flip7.core.rules import MAX_PLAYERS, TWO_PLAYERS
from flip7.tournament.selfplay import selfplay, summarize

DESCRIPTION = (
    "Play complete games between bots and write one record per game "
    "(DIR/game-0001.json, ...). The same arguments give byte-identical records: "
    "each game's shuffle and each bot's seed derive from --seed and the game index, "
    "and the record's meta says which."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players", type=int_range(TWO_PLAYERS, MAX_PLAYERS), default=4, metavar="N",
        help="players per game (default 4)",
    )  # fmt: skip
    parser.add_argument(
        "--games", type=int_range(1), default=100, metavar="K", help="games to play (default 100)"
    )
    parser.add_argument("--seed", type=seed, default=0, metavar="S", help="seed (default 0)")
    parser.add_argument(
        "--rules", metavar="JSON", help='rule options as a JSON object, e.g. \'{"brutal": true}\''
    )
    parser.add_argument(
        "--bot", choices=sorted(BOTS), default="basic", help="the bot (default basic)"
    )
    parser.add_argument(
        "--out", required=True, metavar="DIR", help="directory for the records (created)"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args: argparse.Namespace) -> int:
    rules = rules_option(args.rules)
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
        data: JSONObject = {
            **summary.to_json(), "bot": args.bot, "seed": args.seed, "out": str(out),
        }  # fmt: skip
        print(json.dumps(data))
        return 0
    first, last = f"game-{1:0{width}d}.json", f"game-{args.games:0{width}d}.json"
    print(
        f"{summary.games} games of {args.players} {args.bot} bots, seed {args.seed}: "
        f"records {out / first} ... {last}"
    )
    wins = ", ".join(f"seat {seat} {n}" for seat, n in enumerate(summary.wins))
    print(f"wins per seat: {wins}")
    print(f"mean rounds per game: {summary.mean_rounds:.2f}")
    return 0
