"""``flip7 play``: a game in the terminal, you at seat 0 against bots (needs Rich).

Input is read line by line from a stream, so a test (or a script) can pipe the answers;
output goes through a Rich console on any stream.

>>> import io
>>> out = io.StringIO()
>>> play(3, seed=1, stdin=io.StringIO("q\\n"), stdout=out)
0
>>> "Your choice [1-" in out.getvalue(), out.getvalue().splitlines()[-1]
(True, 'You left the game.')
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from flip7.analysis.advisor import bust_risk
from flip7.bots import BOTS, Bot, make_bot
from flip7.cli.args import int_range
from flip7.cli.args import seed as seed_type
from flip7.cli.text import Names, card_name, card_short, describe_decision, describe_event
from flip7.cli.text import winners_text as _winners_text
from flip7.core.cards import Card
from flip7.core.decisions import (
    HIT,
    STAY,
    Decision,
    DecisionKind,
    Give,
    Minus,
    Pass,
    Target,
    parse_decision,
)
from flip7.core.errors import DecisionError, GameStateError
from flip7.core.events import (
    ActionUsed,
    BonusTaken,
    Busted,
    Dealt,
    Discarded,
    Drew,
    Event,
    Flip7,
    GameOver,
    Minus15,
    ModifierGiven,
    Passed,
    RoundScored,
    RoundStarted,
    Stayed,
    Stolen,
    Swapped,
    Wiped,
)
from flip7.core.jsontypes import JSONObject
from flip7.core.rules import MIN_PLAYERS, ONE_DECK_MAX_PLAYERS, Rules
from flip7.core.scoring import FLIP7_BONUS
from flip7.core.seeds import bot_seed
from flip7.engine.game import Game, Status
from flip7.engine.record import Record

__all__ = ["BOT_NAMES", "play"]

EXIT_OK = 0
EXIT_INTERRUPTED = 130

BOT_NAMES = (
    "Ann", "Bob", "Cyd", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy",
    "Jon", "Kim", "Lou", "Max", "Ned", "Oda", "Pia", "Rex",
)  # fmt: skip
YOU = 0

# Styles: the special Numbers stand out from plain Numbers, Modifiers from both.
_CARD_STYLE = {
    Card.ZERO: "bold black on bright_white",
    Card.UNLUCKY_7: "bold white on red",
    Card.LUCKY_13: "bold black on green",
}
_NUMBER_STYLE = "bold"
_MODIFIER_STYLE = "bold yellow"
_ACTION_STYLE = "bold magenta"
_STATUS_STYLE = {Status.ACTIVE: "green", Status.STAYED: "cyan", Status.BUSTED: "bold red"}
_STATUS_TEXT = {Status.ACTIVE: "playing", Status.STAYED: "stayed", Status.BUSTED: "BUSTED"}

_QUESTION = {
    DecisionKind.HIT_OR_STAY: "Your turn: hit or stay?",
    DecisionKind.TARGET: "{card}: who must take it?",
    DecisionKind.GIVE: "{card}: who gets it?",
    DecisionKind.PASS: "{card}: who uses it?",
    DecisionKind.STEAL: "Steal: which card do you take?",
    DecisionKind.SWAP: "Swap: which two cards change places?",
    DecisionKind.DISCARD: "Discard: which card goes?",
    DecisionKind.FLIP7_CHOICE: (
        f"Flip 7! Take +{FLIP7_BONUS}, or take {FLIP7_BONUS} off another player's total?"
    ),
}


class _Quit(Exception):
    """The player asked to leave (q)."""


class _EndOfInput(Exception):
    """Standard input ran out."""


def card_text(card: Card) -> Text:
    """One card, styled: plain Numbers bold, special Numbers on a colour, Modifiers yellow."""
    style = _CARD_STYLE.get(card)
    if style is not None:
        return Text(f" {card.code} ", style=style)
    if card.is_modifier:
        return Text(card_short(card), style=_MODIFIER_STYLE)
    if card.is_action:
        return Text(card_name(card), style=_ACTION_STYLE)
    return Text(card.code, style=_NUMBER_STYLE)


def _log_style(card: Card) -> str:
    if card in _CARD_STYLE:
        return _CARD_STYLE[card]
    if card.is_modifier:
        return _MODIFIER_STYLE
    return _ACTION_STYLE if card.is_action else _NUMBER_STYLE


def cards_row(cards: Sequence[Card]) -> Text:
    return Text(" ").join(card_text(c) for c in cards)


class TerminalGame:
    """One game at the terminal: the table, the event log, the questions."""

    def __init__(self, game: Game, bots: Sequence[Bot | None], stdin: TextIO, console: Console):
        self.game = game
        self.bots = bots
        self.stdin = stdin
        self.console = console
        self.names = Names(game.players, you=YOU)
        self.interactive = stdin is sys.stdin and stdin.isatty()

    # ------------------------------------------------------------------ input

    def ask(self, prompt: str) -> str:
        """One line of input (stripped); raises _EndOfInput at the end of the stream."""
        if self.interactive:
            try:
                # input() gives line editing on a terminal; Rich prints the prompt.
                return self.console.input(Text(prompt, style="bold")).strip()
            except EOFError:
                raise _EndOfInput from None
        self.console.print(Text(prompt, style="bold"), end="")
        line = self.stdin.readline()
        if not line:
            self.console.print()
            raise _EndOfInput
        # Echo piped answers so that a transcript reads like a session.
        self.console.print(Text(line.strip()))  # Text: no markup in what was typed
        return line.strip()

    # ------------------------------------------------------------------ showing the game

    def show_events(self, events: Sequence[Event]) -> None:
        for event in events:
            if isinstance(event, RoundStarted):
                self.console.print()
                dealer = self.names.names[event.dealer]
                self.console.rule(Text(f"Round {event.round} · dealer {dealer}", style="bold"))
            elif isinstance(event, RoundScored):
                self.console.print(self.round_table(event))
            elif isinstance(event, GameOver):
                pass  # the end of the game has its own screen
            else:
                self.console.print(self.event_text(event))

    def event_text(self, event: Event) -> Text:
        text = Text("  ")
        line = describe_event(event, self.names)
        style = ""
        if isinstance(event, Busted):
            style = "bold red"
        elif isinstance(event, Flip7 | BonusTaken):
            style = "bold green"
        elif isinstance(event, Minus15 | Wiped):
            style = "bold red"
        elif isinstance(event, ActionUsed | Stolen | Swapped | Discarded | Passed):
            style = "magenta"
        elif isinstance(event, ModifierGiven):
            style = "yellow"
        elif isinstance(event, Stayed):
            style = "cyan"
        elif isinstance(event, Dealt | Drew):
            # Name the card in its own style so the special cards stand out in the log.
            card = event.card
            head, _, tail = line.partition(card_name(card))
            text.append(head)
            text.append(card_name(card), style=_log_style(card))
            text.append(tail)
            return text
        text.append(line, style=style)
        return text

    def header(self) -> Text:
        """Round, dealer, piles and mode, in one line above the table."""
        game = self.game
        rules = game.rules
        mode = "Brutal" if rules.brutal else "Standard"
        return Text(
            f"Round {game.round} · dealer {game.players[game.dealer]} · "
            f"draw pile {game.draw_pile_size} · discard pile {len(game.discard_pile)} · "
            f"{mode}, first to {rules.target_score}",
            style="dim",
        )

    def table(self) -> Table:
        """Every line, status, round score and total; whose turn."""
        game = self.game
        table = Table()
        table.add_column("", width=1)
        table.add_column("Player")
        table.add_column("Numbers")
        table.add_column("Modifiers")
        table.add_column("Status")
        table.add_column("Round", justify="right")
        table.add_column("Total", justify="right")
        for seat in range(game.n):
            turn = "▶" if seat == game.to_decide else ""
            name = Text(game.players[seat], style="bold" if seat == YOU else "")
            if seat == game.dealer:
                name.append(" (D)", style="dim")
            status = game.status(seat)
            table.add_row(
                turn,
                name,
                cards_row(game.line(seat)),
                cards_row(game.modifiers(seat)),
                Text(_STATUS_TEXT[status], style=_STATUS_STYLE[status]),
                str(game.round_score(seat)),
                Text(str(game.totals[seat]), style="bold"),
            )
        return table

    def round_table(self, event: RoundScored) -> Table:
        names = self.game.players
        table = Table(title=f"Round {event.round} scored", title_justify="left")
        table.add_column("Player")
        table.add_column("Line")
        table.add_column("Score", justify="right")
        table.add_column("", width=None)
        table.add_column("Total", justify="right")
        for seat in range(len(names)):
            line = cards_row(event.lines[seat])
            if event.modifiers[seat]:
                line.append("  ")
                line.append_text(cards_row(event.modifiers[seat]))
            notes = []
            if seat in event.busted:
                notes.append(Text("bust", style="red"))
            if event.flip7 == seat:
                notes.append(Text("FLIP 7", style="bold green"))
            if event.minus15 == seat:
                notes.append(Text("−15", style="bold red"))
            table.add_row(
                Text(names[seat], style="bold" if seat == YOU else ""),
                line,
                str(event.scores[seat]),
                Text(" ").join(notes),
                Text(str(event.totals[seat]), style="bold"),
            )
        return table

    def legend(self) -> None:
        legend = Text("Cards: ")
        for card, what in ((Card.ZERO, "The Zero"), (Card.UNLUCKY_7, "Unlucky 7"),
                           (Card.LUCKY_13, "Lucky 13")):  # fmt: skip
            legend.append_text(card_text(card))
            legend.append(f" {what}  ")
        legend.append_text(card_text(Card.DIVIDE_2))
        legend.append(" ")
        legend.append_text(card_text(Card.MINUS_4))
        legend.append(" Modifiers")
        self.console.print(legend)
        self.console.print(
            "Answer each question with a number (or as in a record: hit, stay, ...); q quits.",
            style="dim",
        )

    # ------------------------------------------------------------------ your decisions

    def bust_chance(self) -> float:
        """The chance that your next card busts you (from the cards not yet seen):
        :func:`flip7.analysis.advisor.bust_risk`."""
        return float(bust_risk(self.game, YOU))

    def decide(self) -> Decision:
        game = self.game
        kind = game.decision_kind
        assert kind is not None
        options = game.legal_decisions()
        card = game.pending_card
        self.console.print()
        self.console.print(self.header())
        self.console.print(self.table())
        question = Text(_QUESTION[kind].format(card=card_name(card) if card else "card"),
                        style="bold")  # fmt: skip
        if kind is DecisionKind.HIT_OR_STAY:
            question.append(
                f"  (round score {game.round_score(YOU)}; "
                f"{self.bust_chance():.0%} chance the next card busts you)",
                style="dim",
            )
        self.console.print(question)
        for i, option in enumerate(options, 1):
            line = Text(f"  {i:>2}. {describe_decision(option, self.names, YOU, card)}")
            line.append(self.option_hint(option), style="dim")
            self.console.print(line)
        while True:
            answer = self.ask(f"Your choice [1-{len(options)}]: ")
            chosen = self.parse_answer(answer, options)
            if chosen is not None:
                return chosen

    def option_hint(self, option: Decision) -> str:
        """What a player-choosing option should show about that player."""
        if isinstance(option, Minus):
            return f"  (now {self.game.totals[option.seat]})"
        if isinstance(option, Give | Target | Pass) and option.seat != YOU:
            status = self.game.status(option.seat)
            if status is not Status.ACTIVE:
                return f"  ({status})"
        return ""

    def parse_answer(self, answer: str, options: Sequence[Decision]) -> Decision | None:
        """The option an answer names (a number or the record form), or None after a hint."""
        word = answer.lower()
        if word in ("q", "quit", "exit"):
            raise _Quit
        if word.isdigit():
            if 1 <= int(word) <= len(options):
                return options[int(word) - 1]
        elif word in ("h", "s") and HIT in options:
            return HIT if word == "h" else STAY
        elif word:
            try:
                decision = parse_decision(word)
            except DecisionError:
                decision = None
            if decision is not None and decision in options:
                return decision
            if decision is not None:
                self.console.print(Text(f"  {word} is not a legal option now.", style="red"))
                return None
        self.console.print(
            Text(f"  Please answer with a number from 1 to {len(options)} (q quits).", style="red")
        )
        return None

    # ------------------------------------------------------------------ the game

    def run(self) -> None:
        game = self.game
        self.show_events(game.take_events())
        while not game.over:
            seat = game.to_decide
            assert seat is not None
            bot = self.bots[seat]
            decision = self.decide() if bot is None else bot.choose(game)
            self.show_events(game.apply(decision))

    def finish(self) -> None:
        game = self.game
        self.console.print()
        self.console.rule("[bold]Game over")
        table = Table(title="Final totals", title_justify="left")
        table.add_column("Player")
        table.add_column("Total", justify="right")
        table.add_column("")
        order = sorted(range(game.n), key=lambda s: -game.totals[s])
        for seat in order:
            won = seat in game.winners
            table.add_row(
                Text(game.players[seat], style="bold" if won else ""),
                Text(str(game.totals[seat]), style="bold" if won else ""),
                Text("winner", style="bold green") if won else "",
            )
        self.console.print(table)
        result = _winners_text(game.winners, game.totals, self.names)
        self.console.print(Text(f"{result} after {len(game.rounds)} rounds.", style="bold"))

    def offer_save(self, meta: JSONObject) -> None:
        record = Record.from_game(self.game, meta=dict(meta))
        while True:
            try:
                answer = self.ask("Save the game record to (file name; empty: don't save): ")
            except _EndOfInput:
                return
            if not answer:
                return
            path = Path(answer).expanduser()
            try:
                path.write_text(record.dumps(indent=2) + "\n", encoding="utf-8")
            except OSError as exc:
                self.console.print(Text(f"  Cannot write {path}: {exc.strerror or exc}", "red"))
                continue
            self.console.print(Text(f"Saved. Replay it with: flip7 replay {path}"))
            return


def play(
    players: int = 4,
    rules: Rules | None = None,
    *,
    seed: int | None = None,
    bot: str = "basic",
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Play one game, you at seat 0 against ``bot`` bots; returns the exit status.

    Leaves cleanly (no traceback) on ``q``, at the end of the input (0) and on Ctrl-C (130).
    """
    stdin = sys.stdin if stdin is None else stdin
    console = Console(file=stdout if stdout is not None else sys.stdout, highlight=False)
    rules = rules if rules is not None else Rules()
    if seed is None:
        # A seed is always chosen and shown, so that any game can be played again.
        seed = random.SystemRandom().randrange(10**6)
    if players > len(BOT_NAMES) + 1:
        raise GameStateError(f"flip7 play seats at most {len(BOT_NAMES) + 1} players")
    names = ["You", *BOT_NAMES[: players - 1]]
    game = Game.new(names, rules, seed=seed)
    bots: list[Bot | None] = [None] + [
        make_bot(bot, bot_seed(seed, 0, seat)) for seat in range(1, players)
    ]
    ui = TerminalGame(game, bots, stdin, console)
    console.print(
        Text(f"Flip 7: With a Vengeance · {players} players · seed {seed}", style="bold")
    )
    try:
        ui.legend()
        ui.run()
        ui.finish()
        ui.offer_save({"generator": "flip7 play", "seed": seed, "bot": bot})
    except KeyboardInterrupt:
        console.print()
        console.print("Interrupted: leaving the game.")
        return EXIT_INTERRUPTED
    except _EndOfInput:
        console.print("End of input: leaving the game.")
        return EXIT_OK
    except _Quit:
        console.print("You left the game.")
        return EXIT_OK
    return EXIT_OK


# ---------------------------------------------------------------------- the command

DESCRIPTION = (
    "Play a complete game in the terminal: you are seat 0 against bots. Answer "
    "each question with the option's number (or its record form: hit, stay, "
    "steal 1 11, ...); q quits. Needs Rich (pip install 'flip7[cli]')."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players", type=int_range(MIN_PLAYERS, ONE_DECK_MAX_PLAYERS), default=4, metavar="N",
        help=f"players, you included ({MIN_PLAYERS} to {ONE_DECK_MAX_PLAYERS}, default 4)",
    )  # fmt: skip
    parser.add_argument("--brutal", action="store_true", help="Brutal mode (RULES.md §10)")
    parser.add_argument(
        "--seed", type=seed_type, metavar="S", help="seed for a game you can replay"
    )
    parser.add_argument(
        "--bot", choices=sorted(BOTS), default="basic", help="the bots (default basic)"
    )


def run(args: argparse.Namespace) -> int:
    return play(args.players, Rules(brutal=args.brutal), seed=args.seed, bot=args.bot)
