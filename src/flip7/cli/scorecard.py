"""``flip7 scorecard``: keep the score of a game played with real cards, in the terminal.

Each round asks every player for their final line; :mod:`flip7.scorekeeper.scorecard` scores and
checks it (RULES.md §8–§10) and announces the winner (§9). Plain ``input()`` and
``print()``: it works with a pipe too (the answers are then echoed, so that the output
reads as a transcript).

>>> import argparse, io, sys
>>> parser = argparse.ArgumentParser(prog="flip7 scorecard")
>>> add_arguments(parser)
>>> sys.stdin = io.StringIO("3 11 5 /2\\nbust\\n13 L13\\nquit\\n")
>>> run(parser.parse_args(["--players", "Ann,Bob,Cyd"]))  # doctest: +ELLIPSIS
Flip 7 scorecard: Ann, Bob, Cyd; target 200
...
Round 1
  Ann: 3 11 5 /2
  Bob: bust
  Cyd: 13 L13
Round 1: Ann 9 · Bob 0 (bust) · Cyd 26
Totals: Ann 9 · Bob 0 · Cyd 26
Cyd leads with 26; target 200
<BLANKLINE>
Round 2
  Ann: quit
0
>>> sys.stdin = sys.__stdin__
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from flip7.cli.files import CommandError
from flip7.core.errors import Flip7Error, RulesError
from flip7.core.rules import DECKS, ONE_DECK_MAX_PLAYERS, Rules
from flip7.core.scoring import FLIP7_BONUS
from flip7.scorekeeper.scorecard import LineEntry, RoundInvalid, Scorecard, ScorecardError

__all__ = ["DESCRIPTION", "EPILOG", "add_arguments", "format_table", "run"]


DESCRIPTION = """\
Keep the score of a game of Flip 7: With a Vengeance played with the real cards. Each
round, type every player's final line: its cards ("3 11 5 /2"), "bust" (in Brutal,
"bust -4" keeps the Modifiers that count), or nothing for an empty line. flip7 scores each
line by the rules (RULES.md §8-§10), reports every problem (a bust not marked, too many
cards, more copies than the deck holds, two Flip 7s...) and asks again for the lines
concerned, keeps the running totals and announces the winner (§9). In Brutal mode it asks
the Flip 7 player's choice: +15, or -15 off another player's total.

Commands at any player's prompt:
  undo                 take back the last round
  edit N               correct round N (Enter keeps a line as it was)
  totals               the table of every round
  export csv PATH      the history as CSV (also: export json PATH)
  quit                 stop (the scorecard is saved first with --file)

With --file the scorecard is saved after every round, and resumed when the file exists."""

EPILOG = """\
examples:
  flip7 scorecard --players "Ann,Bob,Cyd"
  flip7 scorecard --players "Ann,Bob,Cyd,Dan" --brutal --target 150 --file friday.json
  flip7 scorecard --file friday.json                 resume a saved scorecard

Card codes: 0-13, U7, L13, /2 (or ÷2), -2 -4 -6 -8 -10 (or −N). When asked again after a
problem, Enter keeps the line shown in brackets and "-" is an empty line.
"""

_COMMANDS = "undo, edit N, totals, export csv PATH, export json PATH, quit"


class _Quit(Exception):
    """Stop: the user typed quit, or standard input ended."""


class _Restart(Exception):
    """The rounds changed (undo, edit): start the round being entered again."""


class _Cancel(Exception):
    """Abandon the edit in progress."""


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",")]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 scorecard``."""
    parser.add_argument(
        "--players", metavar="NAMES",
        help='the players in seat order, separated by commas: "Ann,Bob,Cyd"',
    )  # fmt: skip
    parser.add_argument(
        "--target", type=int, metavar="N",
        help=f"the target score (default {Rules.option('target_score').default})",
    )  # fmt: skip
    parser.add_argument("--brutal", action="store_true", help="Brutal mode (RULES.md §10)")
    parser.add_argument(
        "--rules", metavar="JSON",
        help='rule options as a JSON object, e.g. \'{"tie_break": "shared_win"}\'',
    )  # fmt: skip
    parser.add_argument(
        "--decks", type=int, choices=list(DECKS),
        help=f"decks (default 1; 2 from {ONE_DECK_MAX_PLAYERS + 1} players)",
    )
    parser.add_argument(
        "--file", metavar="PATH",
        help="save the scorecard here after every round; resume it if the file exists",
    )  # fmt: skip
    parser.add_argument("--name", default="", help="a name for the scorecard")


def _rules_of(args: argparse.Namespace) -> Rules | None:
    """The rules the arguments ask for, or ``None`` if they name no rule option."""
    if args.rules is None and args.target is None and not args.brutal:
        return None
    data: Any = {}
    if args.rules is not None:
        try:
            data = json.loads(args.rules)
        except json.JSONDecodeError as exc:
            raise RulesError(f"--rules is not valid JSON ({exc}): {args.rules!r}") from None
    rules = Rules.from_json(data)
    if args.target is not None:
        rules = rules.replace(target_score=args.target)
    if args.brutal:
        rules = rules.replace(brutal=True)
    return rules


def _load(args: argparse.Namespace) -> tuple[Scorecard, bool]:
    """The scorecard to keep, and whether it was resumed from ``--file``."""
    rules = _rules_of(args)
    path = Path(args.file) if args.file else None
    if path is not None and path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from None
        try:
            card = Scorecard.from_json(data)
        except Flip7Error as exc:
            raise CommandError(f"{path} is not a saved scorecard: {exc}") from None
        if args.players is not None and tuple(_names(args.players)) != card.players:
            raise CommandError(
                f"{path} keeps the score of {', '.join(card.players)}: leave out --players "
                "to resume it, or give another --file"
            )
        if rules is not None and rules != card.rules:
            raise CommandError(
                f"{path} was started with other rules ({card.rules!r}): leave out --target, "
                "--brutal and --rules to resume it"
            )
        if args.decks is not None and args.decks != card.decks:
            raise CommandError(f"{path} was started with {card.decks} deck(s)")
        return card, True
    if args.players is None:
        raise CommandError('give the players: --players "Ann,Bob,Cyd" (or --file of a saved one)')
    card = Scorecard.new(
        _names(args.players), rules=rules or Rules(), decks=args.decks, name=args.name
    )
    return card, False


def _save(card: Scorecard, path: Path) -> None:
    text = json.dumps(card.to_json(), indent=2, ensure_ascii=False) + "\n"
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)  # never a half-written scorecard
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from None


def _rules_text(rules: Rules) -> str:
    changed = {k: v for k, v in rules.to_json().items() if k not in ("target_score", "brutal")}
    return f"target {rules.target_score}" + (
        "; " + ", ".join(f"{k}={json.dumps(v)}" for k, v in changed.items()) if changed else ""
    )


def format_table(card: Scorecard) -> str:
    """Every round's scores and the totals, one column per player (``*`` marks Flip 7,
    ``b`` a bust, ``−15`` the Brutal choice's target).

    >>> card = Scorecard.new(["Ann", "Bob", "Cyd"]).add_round(["1 2 3 4 5 6 7", "bust", "5"])
    >>> print(format_table(card))
    round  Ann   Bob   Cyd
        1   43*    0b    5
    total   43     0     5
    """
    labels = ["round", *(f"{r.number:>5}" for r in card.rounds), "total"]
    rows = [[label] for label in labels]
    for seat, name in enumerate(card.players):
        # (number, mark) cells: the numbers align on their last digit, the marks hang right.
        cells = [(name, "")]
        for r in card.rounds:
            mark = "*" if seat == r.flip7_seat else "b" if r.lines[seat].busted else ""
            if seat == r.minus15:
                mark += "−15"
            cells.append((str(r.scores[seat]), mark))
        cells.append((str(card.totals[seat]), ""))
        number_w = max(len(n) for n, _ in cells)
        mark_w = max(len(m) for _, m in cells)
        for row, (number, mark) in zip(rows, cells, strict=True):
            row.append(f"  {number:>{number_w}}{mark:<{mark_w}}")
    return "\n".join("".join(row).rstrip() for row in rows)


class _Session:
    """One terminal session over a scorecard."""

    def __init__(self, card: Scorecard, path: Path | None) -> None:
        self.card = card
        self.path = path
        self.echo = not sys.stdin.isatty()

    # ------------------------------------------------------------------ input and output

    def ask(self, prompt: str) -> str:
        try:
            answer = input(prompt)
        except EOFError:
            if self.echo:
                print()
            raise _Quit from None
        if self.echo:
            print(answer)
        return answer.strip()

    def save(self) -> None:
        if self.path is not None:
            _save(self.card, self.path)

    def show_totals(self) -> None:
        names = self.card.players
        print(
            "Totals: "
            + " · ".join(f"{n} {t}" for n, t in zip(names, self.card.totals, strict=True))
        )
        print(self.card.status_line())

    # ------------------------------------------------------------------ commands

    def command(self, text: str, *, editing: bool = False) -> bool:
        """Carry out ``text`` if it is a command; whether it was one."""
        words = text.split()
        verb = words[0].lower() if words else ""
        if verb in ("quit", "exit", "q"):
            raise _Quit
        if verb in ("help", "?"):
            print(f"commands: {_COMMANDS}" + (", cancel (the edit)" if editing else ""))
            return True
        if verb == "totals":
            print(format_table(self.card))
            print(self.card.status_line())
            return True
        if verb == "export":
            self.export(words[1:])
            return True
        if verb == "cancel" and editing:
            raise _Cancel
        if verb in ("undo", "edit") and editing:
            print("finish or cancel the edit first")
            return True
        if verb == "undo":
            self.undo()
            raise _Restart
        if verb == "edit":
            if len(words) != 2 or not words[1].isdigit():
                print("edit which round? e.g. edit 2")
                return True
            self.edit(int(words[1]))
            raise _Restart
        return False

    def export(self, words: list[str]) -> None:
        if len(words) != 2 or words[0].lower() not in ("csv", "json"):
            print("export csv PATH, or export json PATH")
            return
        kind, path = words[0].lower(), Path(words[1])
        if kind == "csv":
            text = self.card.to_csv()
        else:
            text = json.dumps(self.card.to_json(), indent=2, ensure_ascii=False) + "\n"
        try:
            with path.open("w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        except OSError as exc:
            print(f"cannot write {path}: {exc.strerror or exc}")
            return
        print(f"wrote {path}")

    def undo(self) -> None:
        if not self.card.rounds:
            print("there is no round to undo")
            return
        last = self.card.rounds[-1]
        self.card = self.card.undo_round(revision=last.revision)
        self.save()
        print(f"round {last.number} undone")
        self.show_totals()

    def edit(self, number: int) -> None:
        if not 1 <= number <= len(self.card.rounds):
            count = len(self.card.rounds)
            print(f"there is no round {number}: {count} round{'' if count == 1 else 's'} so far")
            return
        old = self.card.rounds[number - 1]
        print(f"Correct round {number} (Enter keeps a line, cancel abandons the edit)")
        texts = [line.text() if line.cards or line.busted else "" for line in old.lines]
        texts = [t.replace("bust: ", "bust ") for t in texts]
        try:
            card = self.enter(number, texts, editing=True, choice=old.flip7_choice)
        except _Cancel:
            print("edit abandoned")
            return
        self.card = card
        self.save()
        print(f"round {number} corrected")
        self.show_totals()

    # ------------------------------------------------------------------ rounds

    def ask_line(self, seat: int, default: str | None, *, editing: bool) -> str:
        name = self.card.players[seat]
        while True:
            shown = f" [{default or '-'}]" if default is not None else ""
            text = self.ask(f"  {name}{shown}: ")
            if self.command(text, editing=editing):
                continue
            if not text and default is not None:
                return default
            return "" if text == "-" else text

    def ask_choice(self, flip7_seat: int, default: Any) -> Any:
        players = self.card.players
        name = players[flip7_seat]
        shown = "bonus" if default in (None, "bonus") else players[default["minus15"]]
        while True:
            text = self.ask(
                f"{name} has Flip 7: +{FLIP7_BONUS} (bonus), or −{FLIP7_BONUS} off another "
                "player's total "
                f"(their name)? [{shown}]: "
            )
            if not text:
                return default if default is not None else "bonus"
            lowered = text.lower().removeprefix("minus").removeprefix(f"-{FLIP7_BONUS}").strip()
            if lowered in ("bonus", f"+{FLIP7_BONUS}", str(FLIP7_BONUS)):
                return "bonus"
            for seat, other in enumerate(players):
                if lowered == other.lower() or lowered == str(seat):
                    return {"minus15": seat}
            print(f"{text!r} is neither bonus nor a player ({', '.join(players)})")

    def enter(
        self, number: int, defaults: list[str] | None, *, editing: bool, choice: Any = None
    ) -> Scorecard:
        """Ask for round ``number``'s lines until they pass every check; the new scorecard."""
        n = len(self.card.players)
        texts: list[str | None] = list(defaults) if defaults is not None else [None] * n
        seats = list(range(n))
        while True:
            for seat in seats:
                texts[seat] = self.ask_line(seat, texts[seat], editing=editing)
            lines = [LineEntry.parse(text or "") for text in texts]
            try:
                result = self.card.check_round(lines, choice, number=number)
            except RoundInvalid as exc:
                for problem in exc.problems:
                    print(f"  ! {problem.message}")
                bad = sorted({p.seat for p in exc.problems if p.seat is not None})
                # A problem of the whole round (the deck, two Flip 7s) can be in any line.
                seats = bad if all(p.seat is not None for p in exc.problems) else list(range(n))
                if any("Flip 7 choice" in p.message or "−15" in p.message for p in exc.problems):
                    choice = None
                print("  Correct the lines (Enter keeps the line shown, - is an empty line):")
                continue
            if self.card.rules.brutal and result.flip7_seat is not None:
                while True:
                    choice = self.ask_choice(result.flip7_seat, choice)
                    try:
                        self.card.check_round(lines, choice, number=number)
                        break
                    except RoundInvalid as exc:
                        for problem in exc.problems:
                            print(f"  ! {problem.message}")
                        choice = None
            else:
                choice = None
            if editing:
                old = self.card.rounds[number - 1]
                return self.card.edit_round(
                    number, revision=old.revision, lines=lines, flip7_choice=choice
                )
            return self.card.add_round(lines, choice)

    def report_round(self) -> None:
        r = self.card.rounds[-1]
        parts = []
        for seat, (name, score) in enumerate(zip(self.card.players, r.scores, strict=True)):
            note = (
                " (Flip 7)" if seat == r.flip7_seat else " (bust)" if r.lines[seat].busted else ""
            )
            parts.append(f"{name} {score}{note}")
        print(f"Round {r.number}: " + " · ".join(parts))
        if r.minus15 is not None:
            print(f"{self.card.players[r.minus15]} loses 15 from the total")
        self.show_totals()

    # ------------------------------------------------------------------ the session

    def run(self) -> None:
        announced = False
        while True:
            if self.card.over:
                if not announced:
                    print(f"Game over! {self.card.status_line()}.")
                    print(f"(commands: {_COMMANDS})")
                    announced = True
                try:
                    text = self.ask("> ")
                    if not text:
                        raise _Quit
                    if not self.command(text):
                        print(f"the game is over; commands: {_COMMANDS}")
                except _Restart:
                    announced = False
                continue
            number = len(self.card.rounds) + 1
            print(f"\nRound {number}")
            try:
                self.card = self.enter(number, None, editing=False)
            except _Restart:
                continue
            self.save()
            self.report_round()


def run(args: argparse.Namespace) -> int:
    """Keep the score until the game is over or the user quits; 0 (bad arguments raise a
    :class:`Flip7Error`, which the command line turns into exit status 2)."""
    card, resumed = _load(args)
    path = Path(args.file) if args.file else None
    session = _Session(card, path)
    if path is not None:
        session.save()  # a bad path is reported now, not after the first round
    print(
        f"Flip 7 scorecard: {', '.join(card.players)}; {_rules_text(card.rules)}"
        + ("; Brutal mode" if card.rules.brutal else "")
    )
    if resumed:
        print(f"Resumed {path}: {len(card.rounds)} round(s) so far")
        if card.rounds:
            print(format_table(card))
            print(card.status_line())
    print('Type each line: cards ("3 11 5 /2"), "bust" (or "bust -4"), nothing for an empty line.')
    print(f"Commands: {_COMMANDS}.")
    try:
        session.run()
    except _Quit:
        pass
    except KeyboardInterrupt:
        session.save()
        raise
    except ScorecardError:
        session.save()
        raise
    session.save()
    if path is not None:
        print(f"saved {path}")
    return 0
