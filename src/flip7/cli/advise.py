"""``flip7 advise``: hit or stay, with the odds, for a game record or a line you type in.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="flip7 advise")
>>> add_arguments(parser)
>>> run(parser.parse_args(["--line", "12 11 10 9", "--seen", "5 5 3"]))
your line: 12 11 10 9 (scores 42 if you stay)
next card: bust 37.6% · Flip 7 0.0% · a Number card 84.2% (of 101 cards)
keep hitting until Flip 7 or a bust: Flip 7 10.2%
stay: 42 · hit: 29.2 expected
advice: stay: 38% bust risk on the next card; a hit is worth 29.2 on average, staying 42
0
"""

from __future__ import annotations

import argparse
import json
import re

from flip7.analysis.advisor import Advice, Situation, advise, next_card
from flip7.cli.files import read_text
from flip7.core.cards import Card
from flip7.core.errors import Flip7Error
from flip7.core.rules import Rules

__all__ = ["DESCRIPTION", "EPILOG", "add_arguments", "format_advice", "run"]


DESCRIPTION = """\
Advise one player whether to hit or stay, with the figures behind it:
  - the chance that the next card busts the line, or completes Flip 7 (exact);
  - the chance of reaching Flip 7 by hitting until Flip 7 or a bust;
  - the round score if you stay now, and the expected score if you hit once and then
    play on optimally.

Give either a game record (--record FILE: the game so far, replayed; the player advised is
the one who must decide, or --seat S), or your line (--line) and what you know of the
table: by default the draw pile is the deck less your line and every card named with
--seen and --discard; --pile gives its exact composition instead.

The model behind the multi-card figures: only your line and the draw pile matter; Action
cards are neutral; Modifiers you draw go to another player, unless everyone else has
busted (--alone, or as the record says), when you must keep them (RULES.md §7.3); an
Unlucky 7 wipe, The Zero and Lucky 13 follow RULES.md §4. Only public information is used."""

EPILOG = """\
examples:
  flip7 advise --record game.json               the player to decide in a game so far
  flip7 advise --record game.json --seat 2 --json
  flip7 advise --line "12 11 10 9" --seen "5 5 3" --discard "JOM 7"
  flip7 advise --line "0 4" --pile "4 4 9 12 STEAL"
  flip7 advise --line "8 6 /2" --alone --rules '{"brutal": true}'

Cards are codes separated by spaces or commas: 0-13, U7, L13, /2, -2 ... -10, JOM,
FLIP4, STEAL, SWAP, DISCARD. A line's Number cards are read in the order received.
"""


class AdviseError(Flip7Error):
    """A bad ``flip7 advise`` argument or an unreadable file."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 advise``."""
    source = parser.add_argument_group("a game record")
    source.add_argument(
        "--record", metavar="FILE",
        help="a flip7-record/1 record of the game so far (- reads standard input)",
    )  # fmt: skip
    source.add_argument(
        "--seat", type=int, metavar="S",
        help="the seat to advise (default: the player who must decide now)",
    )  # fmt: skip
    typed = parser.add_argument_group("or a line typed in")
    typed.add_argument("--line", metavar="CARDS", help='your line, e.g. "5 9 /2" ("" if empty)')
    typed.add_argument(
        "--seen", action="append", default=[], metavar="CARDS",
        help="cards out of the draw pile: other players' lines, set aside (repeatable)",
    )  # fmt: skip
    typed.add_argument(
        "--discard", action="append", default=[], metavar="CARDS",
        help="the discard pile (repeatable); it becomes the pile if the draw pile is empty",
    )  # fmt: skip
    typed.add_argument(
        "--pile", metavar="CARDS",
        help="the draw pile's exact composition (default: the deck(s) less every card named)",
    )  # fmt: skip
    typed.add_argument(
        "--alone", action="store_true",
        help="everyone else has busted: Modifiers you draw stay in your line",
    )  # fmt: skip
    typed.add_argument("--rules", metavar="JSON", help="rule options as a JSON object")
    typed.add_argument("--decks", type=int, default=1, choices=[1, 2], help="decks (default 1)")
    parser.add_argument("--json", action="store_true", help="print the advice as JSON")


def _cards(text: str, what: str) -> list[Card]:
    try:
        return [Card.parse(code) for code in re.split(r"[\s,]+", text.strip()) if code]
    except Flip7Error as exc:
        raise AdviseError(f"{what}: {exc}") from None


def situation_of(args: argparse.Namespace) -> Situation:
    """The situation the arguments describe."""
    typed = (
        args.line is not None or args.seen or args.discard or args.pile is not None
        or args.alone or args.rules is not None or args.decks != 1
    )  # fmt: skip
    if args.record is not None:
        if typed:
            raise AdviseError("give either --record (and --seat) or a typed-in line, not both")
        from flip7.engine.record import Record

        return Situation.from_record(Record.loads(read_text(args.record)), args.seat)
    if args.line is None:
        raise AdviseError("give --record FILE or --line CARDS (see flip7 advise --help)")
    if args.seat is not None:
        raise AdviseError("--seat goes with --record")
    try:
        rules = Rules.from_json(json.loads(args.rules)) if args.rules is not None else Rules()
    except json.JSONDecodeError as exc:
        raise AdviseError(f"--rules is not valid JSON ({exc}): {args.rules!r}") from None
    line = _cards(args.line, "--line")
    seen = [card for text in args.seen for card in _cards(text, "--seen")]
    discard = [card for text in args.discard for card in _cards(text, "--discard")]
    pile = _cards(args.pile, "--pile") if args.pile is not None else None
    # Seat 1 stands for everyone else: still in the round, or busted with --alone.
    return Situation.from_fields(
        [line, []],
        seat=0,
        statuses=["active", "busted" if args.alone else "active"],
        to_decide=0,
        pile=pile,
        discard=discard,
        seen=seen,
        rules=rules,
        decks=args.decks,
    )


def run(args: argparse.Namespace) -> int:
    """Advise and print; 0 on success (bad input raises a :class:`Flip7Error`)."""
    situation = situation_of(args)
    advice = advise(situation)
    if args.json:
        data = advice.to_json()
        data["situation"] = situation.to_json()
        print(json.dumps(data))
    else:
        print(format_advice(situation, advice, named=args.record is not None))
    return 0


def _codes(cards: tuple[Card, ...]) -> str:
    return " ".join(card.code for card in cards) or "(empty)"


def format_advice(situation: Situation, advice: Advice, *, named: bool = False) -> str:
    """The text ``flip7 advise`` prints."""
    s = situation.seat
    line = _codes(situation.numbers[s] + situation.modifiers[s])
    who = f"seat {s}'s line" if named else "your line"
    odds = next_card(situation)
    out = [
        f"{who}: {line} (scores {advice.ev_stay} if you stay)",
        f"next card: bust {float(odds.p_bust):.1%} · Flip 7 {float(odds.p_flip7):.1%} · "
        f"a Number card {float(odds.p_number):.1%} (of {odds.cards} cards)",
        f"keep hitting until Flip 7 or a bust: Flip 7 {float(advice.p_flip7_keep_hitting):.1%}",
    ]
    if advice.must_hit:
        out.append(f"stay: not allowed · hit: {advice.ev_hit:.1f} expected")
    else:
        out.append(f"stay: {advice.ev_stay} · hit: {advice.ev_hit:.1f} expected")
    if advice.keeps_modifiers:
        out.append("(everyone else has busted: Modifiers you draw stay in your line)")
    out.append(f"advice: {advice.reason}")
    return "\n".join(out)
