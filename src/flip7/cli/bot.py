"""``flip7 bot connect URL --token T --spec SPEC``: a built-in bot as an outside bot.

It opens the bot account's stream at URL (the bot API, docs/bot-api.md), takes
invitations (``--accept any``; ``none`` plays only the seats it already holds) and plays
each game with the bot of SPEC (``basic``, ``winprob``, a level such as ``Expert``, or
``module:Class``): at each of its decisions the game's public record is replayed into the
game itself (flip7.client.bot_client) and the bot chooses in it, as it would at a table of
the server's own. ``--games N`` stops after N games; ``--rematch`` stays at each table
after its game and says ready for the next one (as a person at the end screen) instead of
leaving.

The client needs the ``server`` extra (websockets, httpx), imported when the command runs.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from flip7.core.errors import Flip7Error

__all__ = ["add_arguments", "run"]

DESCRIPTION = "play at live tables as an outside bot (the bot API), with a built-in bot"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    connect = actions.add_parser(
        "connect", help="open the bot's stream and play the games it is invited to",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )  # fmt: skip
    connect.add_argument("url", metavar="URL", help="the server, e.g. http://127.0.0.1:8000")
    connect.add_argument("--token", required=True,
                         help="the bot account's token (POST /api/players/me/bot)")
    connect.add_argument("--spec", default="basic",
                         help="the bot that decides: basic, winprob, Expert, module:Class... "
                         "(default basic)")
    connect.add_argument("--accept", choices=("any", "none"), default="any",
                         help="which invitations to take (default any)")
    connect.add_argument("--games", type=int, default=None, metavar="N",
                         help="stop after N games (default: play on until stopped)")
    connect.add_argument("--rematch", action="store_true",
                         help="stay at the table after each game and say ready for the next "
                         "one (default: leave)")
    connect.add_argument("--seed", type=int, default=None, help="the bot's seed")


def run(args: argparse.Namespace) -> int:
    from flip7.bots import make_bot

    bot = make_bot(args.spec, args.seed)  # an unknown spec is refused before connecting
    if args.games is not None and args.games < 1:
        raise Flip7Error(f"--games must be 1 or more, got {args.games}")
    try:
        from flip7.client.bot_client import BotClient
    except ImportError as exc:  # pragma: no cover - the extra is missing
        raise Flip7Error(f"flip7 bot needs the 'server' extra: {exc}") from None
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(message)s")
    client = BotClient(args.url, args.token, lambda game: str(bot.choose(game)),
                       accept=args.accept, games=args.games, rematch=args.rematch)
    played = asyncio.run(client.run())
    print(f"{played} game(s) played")
    return 0
