"""A first game that teaches: a guided game against two bots for someone who has never played.

A :class:`Script` is a prepared deck order (the engine's explicit chance) and the decisions
of every seat while the game is on script, so that each lesson comes when its card does: a
Hit, a bust (a bot's first), a Modifier, a Stay, the end-of-round scoring, The Zero, Lucky
13, Discard, Unlucky 7, Just One More!, Flip Four!, Steal, Swap and a Flip 7. Its rounds
are short: the table plays to a low target score, which the script's last round passes, so
the guided game ends with it.

The game is an ordinary game: it is the explicit start of :meth:`Game.new` forked
(:meth:`Game.fork`) onto a draw pile whose top is the script's cards and whose rest is the
rest of a deck shuffled by the game's seed; reshuffles use that seed too. Everything the
table stores (the start, each decision, each lesson read, a skip) rebuilds the same game
and the same place in the lessons on restart.

A :class:`Tutorial` is one table's progress through a script: which lessons the player has
read, and whether they skipped it. While the game is on script, bots make the script's
decisions (after the player has read the lessons shown at their turn: "Got it"), and the
player may only make the decision the lesson asks for. Once skipped, or past the script's
end, it is a normal game against the bots, without lessons.

>>> game, events = FIRST_GAME.new_game(["Ann", "Bot 1", "Bot 2"], FIRST_GAME.rules, seed=1)
>>> [e.to_json()["type"] for e in events]
['round_started', 'dealt', 'dealt', 'dealt']
>>> tutorial = Tutorial(FIRST_GAME)
>>> tutorial.bot_move(game)  # the welcome is on screen: the bot waits until it is read
'wait'
>>> tutorial.read(0)
>>> str(tutorial.bot_move(game))
'hit'
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from flip7.core.cards import Card, new_deck
from flip7.core.decisions import (
    Decision,
    Discard,
    Give,
    Hit,
    Stay,
    Steal,
    Swap,
    Target,
    parse_decision,
)
from flip7.core.events import Event
from flip7.core.explain import card_name
from flip7.core.jsontypes import JSONObject
from flip7.core.lines import FLIP7_CARDS
from flip7.core.rules import Rules
from flip7.core.scoring import FLIP7_BONUS
from flip7.core.seeds import derive_seed
from flip7.engine.game import Game
from flip7.server.table.changes import TutorialStep
from flip7.server.table.events import TutorialProgress

__all__ = [
    "FIRST_GAME", "LEARNER", "SCRIPTS", "WAIT", "Lesson", "Script", "Step", "Tutorial", "for_start",
]  # fmt: skip

# The learner's seat: the tutorial table seats its creator first, then the bots.
LEARNER = 0
# What a bot's turn does while a lesson on screen waits for the player's "Got it".
WAIT: Literal["wait"] = "wait"


@dataclass(frozen=True, slots=True)
class Lesson:
    """One line of explanation. ``text`` may name ``{me}``, ``{p1}``, ``{p2}`` (the seats'
    names), ``{target}`` (this table's target score), ``{usual}`` (the rules' default
    target), ``{bonus}`` and ``{seven}`` (Flip 7's bonus and cards), ``{score}`` and
    ``{total}`` (the learner's last round score and total) and ``{held}`` (how many Number
    cards the learner holds). ``after`` is the event it explains, ``(type, card code or
    None)``: it happened since the decision of the step that showed the lesson before this
    step's (tests check it)."""

    id: str
    text: str
    after: tuple[str, str | None] | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """A decision of the script: ``seat`` decides ``decision``, after ``lessons`` (shown in
    order; at a bot's step every one waits for "Got it", at the learner's the last one asks
    for the move)."""

    seat: int
    decision: Decision
    lessons: tuple[Lesson, ...] = ()


@dataclass(frozen=True)
class Script:
    """A guided game: the deck's first cards in draw order, every scripted decision, the
    lessons that close it, and the table it is played at."""

    id: str
    dealer: int
    draws: tuple[Card, ...]
    steps: tuple[Step, ...]
    ending: tuple[Lesson, ...]
    rules: Rules
    bots: int
    bot: str
    table_name: str
    # The number of the first lesson of each step (and of the ending): lessons are
    # numbered through the whole script, which is what "read" counts.
    firsts: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        deck = Counter(new_deck())
        over = Counter(self.draws) - deck
        if over:
            raise ValueError(f"script {self.id}: more cards than a deck holds: {dict(over)}")
        firsts, n = [], 0
        for step in self.steps:
            firsts.append(n)
            n += len(step.lessons)
        firsts.append(n)
        object.__setattr__(self, "firsts", tuple(firsts))

    @property
    def seats(self) -> int:
        return 1 + self.bots

    @property
    def lessons(self) -> tuple[Lesson, ...]:
        """Every lesson in the order it is shown."""
        return (*(lesson for step in self.steps for lesson in step.lessons), *self.ending)

    def pile(self, rng: random.Random) -> list[Card]:
        """The draw pile, bottom first: the rest of a deck shuffled, under the script's cards."""
        rest = list((Counter(new_deck()) - Counter(self.draws)).elements())
        rng.shuffle(rest)
        return [*rest, *reversed(self.draws)]

    def new_game(
        self, names: Sequence[str], rules: Rules, seed: int
    ) -> tuple[Game, list[Event]]:
        """The game, ready for its first decision, and the events of its first deal."""
        start = Game.new(names, rules, explicit=True, dealer=self.dealer)
        head = start.take_events()
        rng = random.Random(derive_seed("tutorial", self.id, seed))
        game = start.fork(draw_pile=self.pile(rng), rng=rng, events=True)
        return game, [*head, *game.take_events()]


def _cards(*codes: str) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in codes)


def _step(seat: int, decision: str, *lessons: Lesson) -> Step:
    return Step(seat, parse_decision(decision), lessons)


# The learner is seat 0 and deals first, so the bots play before them: the first bust is a
# bot's. Round 1: Hit, bust, Modifier, Stay. Round 2: The Zero, Lucky 13, Discard, Unlucky 7,
# Just One More!. Round 3: Flip Four!, Steal, Swap and the Flip 7 that wins the game.
FIRST_GAME = Script(
    id="first-game",
    dealer=0,
    draws=_cards(
        # round 1: the deal, then the draws in turn
        "8", "5", "3", "8", "9", "10", "2", "-4",
        # round 2
        "13", "0", "11", "L13", "4", "12", "5", "DISCARD", "U7", "6", "JOM", "13", "10",
        # round 3
        "5", "3", "9", "6", "FLIP4", "1", "11", "STEAL", "12", "SWAP", "7",
    ),
    steps=(
        # ---- round 1
        _step(1, "hit", Lesson(
            "welcome",
            "Welcome to Flip 7! Everyone was dealt one card. On your turn you Hit (take the "
            "next card) or Stay (stop, and keep your cards for the round's score). Collect "
            "different numbers: a number you already hold busts you. {p1} goes first: watch.")),
        _step(2, "hit", Lesson(
            "bust",
            "{p1} hit and drew a second 8: that is a bust. A busted line scores nothing this "
            "round, and its player takes no more turns until the next one.",
            ("busted", "8"))),
        _step(0, "hit", Lesson(
            "hit",
            "Your turn. You hold a 3, so only another 3 can bust you now. Press Hit to take "
            "the next card.")),
        _step(2, "hit"),
        _step(0, "hit", Lesson(
            "hit_again",
            "3 + 10 = 13. The panel shows your bust risk: the chance that the next card "
            "repeats one of your numbers. It is low: Hit once more.",
            ("drew", "10"))),
        _step(0, "give 2", Lesson(
            "modifier",
            "−4 is a Modifier, not a number: it never busts anyone, it takes 4 points off a "
            "score. Whoever reveals one chooses who gets it (a busted player cannot). Give it "
            "to {p2}.",
            ("drew", "-4"))),
        _step(2, "stay"),
        _step(0, "stay", Lesson(
            "stay",
            "{p2} stayed. Your line is worth 13 points, and a bust would lose all of them. "
            "Stay keeps what you have: press Stay.",
            ("stayed", None))),
        # ---- round 2
        _step(2, "hit", Lesson(
            "scoring",
            "The round is over: each line that did not bust scores the sum of its numbers, "
            "less its Modifiers. You scored {score}. Scores add up from round to round; the "
            "first to reach {target} wins (the usual target is {usual}: this game is short).",
            ("round_scored", None)), Lesson(
            "zero",
            "A new round: the dealer is the next player, and you were dealt The Zero. While "
            "you hold it your round scores 0 (unless you reach a Flip 7), and you may not "
            "Stay: the game hits for you.",
            ("dealt", "0"))),
        _step(1, "hit", Lesson(
            "lucky13",
            "{p2} drew Lucky 13 beside a 13 and did not bust: Lucky 13 lets a line hold two "
            "13s. A third 13 still busts.",
            ("drew", "L13")), Lesson(
            "must_hit",
            "Your Zero made the game hit for you: a 4. Only an Action card can rid you of the "
            "Zero now.",
            ("drew", "4"))),
        _step(2, "hit"),
        _step(0, "discard 0 0", Lesson(
            "discard",
            "The game hit for you again and drew Discard, an Action card: choose any card on "
            "the table, and it goes to the discard pile. Throw away your own Zero!",
            ("drew", "DISCARD"))),
        _step(1, "hit"),
        _step(2, "hit", Lesson(
            "unlucky7",
            "{p1} drew Unlucky 7: it throws away every other card of its line (the 11 and "
            "the 12) and stays alone. It cannot bust the line it lands in, but a 7 drawn "
            "after it would.",
            ("wiped", None))),
        _step(0, "hit", Lesson(
            "free",
            "The Zero is gone: you may Stay again. Your line is small, though: Hit.")),
        _step(0, "target 2", Lesson(
            "just_one_more",
            "Just One More! is an Action card: the player you choose takes exactly one more "
            "card, and then must Stay. {p2} holds a big line with two 13s: use it on {p2}.",
            ("drew", "JOM"))),
        _step(1, "stay", Lesson(
            "third13",
            "{p2} drew a third 13 and busted: Lucky 13 saves only the second one. All those "
            "points are lost.",
            ("busted", "13"))),
        _step(0, "hit", Lesson(
            "hit_more",
            "{p1} stayed with its lone Unlucky 7. Hit again to build your line.",
            ("stayed", None))),
        _step(0, "stay", Lesson(
            "last_in",
            "Your line is worth 14 points and nobody else is still playing this round. Stay "
            "to end it.",
            ("drew", "10"))),
        # ---- round 3
        _step(0, "hit", Lesson(
            "scoring_again",
            "Round 2 is scored: {score} for you, {total} in all. A busted line scores nothing, "
            "however big it was.",
            ("round_scored", None)), Lesson(
            "round3",
            "Round 3, and you play first: Hit.",
            ("dealt", "5"))),
        _step(1, "hit"),
        _step(1, "target 0"),
        _step(0, "steal 1 3", Lesson(
            "flip_four",
            "{p1} drew Flip Four! and used it on you: you took four cards, one at a time. A "
            "repeated number would have busted you at once. The Action card among them "
            "(Steal) was set aside, to be used after the four.",
            ("action_used", "FLIP4")), Lesson(
            "steal",
            "Steal: take one card from another player's line into yours. You have no 3: "
            "steal {p1}'s 3.",
            ("set_aside", "STEAL"))),
        _step(2, "hit"),
        _step(2, "swap 0 12 2 9"),
        _step(0, "hit", Lesson(
            "swap",
            "{p2} drew Swap and traded its 9 for your 12. Steal, Swap and Discard can reach "
            "any card still face up, even a player's who stayed: no line is safe before the "
            "round ends.",
            ("swapped", None)), Lesson(
            "flip7_chance",
            "You hold {held} different numbers. {seven} Number cards without a bust is a "
            "Flip 7: +{bonus} points, and the round ends at once. Hit!")),
    ),
    ending=(
        Lesson(
            "flip7",
            "Flip 7! The round ended at once, and you scored your numbers plus {bonus}.",
            ("flip7", None)),
        Lesson(
            "won",
            "You passed {target} points: the game is over, and you won. You have met every "
            "kind of card. Next: a full game to {usual} points, against bots of the level you "
            "choose.",
            ("game_over", None)),
    ),
    rules=Rules(target_score=60),
    bots=2,
    bot="Easy",  # the level that plays on after the script: a beginner's opponents
    table_name="Learn to play",
)  # fmt: skip

SCRIPTS: Mapping[str, Script] = {FIRST_GAME.id: FIRST_GAME}

def for_start(name: str | None) -> Tutorial | None:
    """The tutorial of a game started on the script ``name`` (a ``start`` change's
    ``tutorial``), or None for a game without one."""
    if name is None:
        return None
    script = SCRIPTS.get(name)
    if script is None:  # a log written by a server that had another script
        raise ValueError(f"unknown tutorial script {name!r}; scripts are {', '.join(SCRIPTS)}")
    return Tutorial(script)


class Tutorial:
    """One table's progress through a script: the lessons read, and whether it was skipped."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.skipped = False
        self.lessons_read = 0  # lessons are numbered 0, 1, ... through the script

    # ------------------------------------------------------------------ where the game is

    def step(self, game: Game) -> int | None:
        """The script's step now, or None when the game is off script (skipped, past the
        script's end, over, or not where the script expects it)."""
        if self.skipped or game.over:
            return None
        index = len(game.decisions)
        steps = self.script.steps
        if index >= len(steps) or game.to_decide != steps[index].seat:
            return None
        return index

    def lesson(self, game: Game) -> tuple[int, Lesson, bool] | None:
        """The lesson on screen now: its number, the lesson, and whether it waits for the
        player's "Got it" (otherwise it asks for the move of the step)."""
        if self.skipped:
            return None
        script = self.script
        if game.over:
            if len(game.decisions) != len(script.steps):
                return None
            lessons, first, asks = script.ending, script.firsts[-1], False
        else:
            index = self.step(game)
            if index is None:
                return None
            step = script.steps[index]
            lessons, first = step.lessons, script.firsts[index]
            asks = step.seat == LEARNER
        k = max(self.lessons_read, first) - first
        if k >= len(lessons):
            return None
        return first + k, lessons[k], not (asks and k == len(lessons) - 1)

    def done(self, game: Game) -> int:
        """How many lessons are behind the reader: those before the one on screen, or
        before the next to come (a lesson that asked for a move is behind once it is made)."""
        shown = self.lesson(game)
        if shown is not None:
            return shown[0]
        if self.skipped:
            return self.lessons_read
        made = min(len(game.decisions), len(self.script.steps))
        return max(self.lessons_read, self.script.firsts[made])

    def expected(self, game: Game) -> Decision | None:
        """The learner's decision the script asks for now (None at a bot's step, or off
        script)."""
        index = self.step(game)
        if index is None:
            return None
        step = self.script.steps[index]
        return step.decision if step.seat == LEARNER else None

    # ------------------------------------------------------------------ the hooks

    def bot_move(self, game: Game) -> Decision | Literal["wait"] | None:
        """A bot's (or a stand-in's) decision now: the script's, ``"wait"`` while a lesson
        on screen waits to be read, or None off script (the bot decides)."""
        index = self.step(game)
        if index is None:
            return None
        shown = self.lesson(game)
        if shown is not None and shown[2]:
            return WAIT
        return self.script.steps[index].decision

    def refusal(self, game: Game, seat: int, decision: Decision) -> str | None:
        """Why the learner may not make ``decision`` now (the lesson asks for another), or
        None."""
        expected = self.expected(game)
        if expected is None or seat != LEARNER or decision == expected:
            return None
        return (
            f"the lesson asks you to {_words(expected, game)} now — or skip the tutorial "
            "to play freely"
        )

    def problem(self, game: Game, skip: bool, read: int | None) -> tuple[str, str] | None:
        """Why a ``tutorial`` change may not be made now, as (code, message), or None."""
        if self.skipped:
            return "tutorial_over", "the tutorial was skipped: this is a normal game now"
        shown = self.lesson(game)
        if skip:
            if self.step(game) is None and shown is None:
                return "tutorial_over", "the tutorial is over: there is nothing to skip"
            return None
        if shown is None or not shown[2]:
            return (
                "stale_lesson",
                "no lesson waits for 'Got it' now" if shown is None
                else f"lesson {shown[0]} asks for a move, not for 'Got it'",
            )
        if read != shown[0]:
            return "stale_lesson", f"lesson {read} is not on screen; lesson {shown[0]} is"
        return None

    def read(self, number: int) -> None:
        """The player has read lesson ``number`` ("Got it")."""
        self.lessons_read = max(self.lessons_read, number + 1)

    def apply(self, step: TutorialStep) -> TutorialProgress:
        """Apply a ``tutorial`` change (a lesson read, or the script skipped); its event."""
        if step.read is None:
            self.skipped = True
        else:
            self.read(step.read)
        return TutorialProgress(step.read)

    # ------------------------------------------------------------------ what clients see

    def to_json(self, game: Game) -> JSONObject:
        """The table state's ``tutorial``: the lesson on screen (its text filled in), the
        learner's expected decision, and the progress."""
        shown = self.lesson(game)
        expected = self.expected(game)
        lesson: JSONObject | None = None
        if shown is not None:
            number, item, waits = shown
            # The text in English, and its id and fields for clients that say it in the
            # reader's language (the web app's "tutorial.lesson.<id>" messages).
            lesson = {"id": item.id, "text": self.text(item, game), "number": number,
                      "next": waits, "params": self.fields(game)}
            if waits:
                expected = None  # first "Got it", then the move
        return {
            "seat": LEARNER,
            "lesson": lesson,
            "expect": None if expected is None else str(expected),
            "step": min(len(game.decisions), len(self.script.steps)),
            "steps": len(self.script.steps),
            # What a reader counts: lessons (a step may bring several, or none).
            "lessons": len(self.script.lessons),
            "lessons_done": self.done(game),
            "skipped": self.skipped,
        }

    def text(self, lesson: Lesson, game: Game) -> str:
        """A lesson's text with the names and numbers of this game."""
        return lesson.text.format_map(self.fields(game))

    def fields(self, game: Game) -> JSONObject:
        """What a lesson's text may name (:class:`Lesson`), in this game."""
        names = [_short(name) for name in game.players]
        rounds = game.rounds
        return {
            "me": names[LEARNER],
            "p1": names[1 % len(names)],
            "p2": names[2 % len(names)],
            "target": game.rules.target_score,
            "usual": Rules().target_score,
            "bonus": FLIP7_BONUS,
            "seven": FLIP7_CARDS,
            "score": rounds[-1].scores[LEARNER] if rounds else 0,
            "total": game.totals[LEARNER],
            "held": game.number_count(LEARNER),
        }


def _words(decision: Decision, game: Game) -> str:
    """A decision as a lesson says it: "Hit", "give the card to Ella", "steal Eddie's 3"."""
    names = [_short(name) for name in game.players]

    def whose(seat: int) -> str:
        return "your" if seat == LEARNER else f"{names[seat]}'s"

    def card(value: Card) -> str:
        # "your Zero", not "your The Zero"
        return "Zero" if value is Card.ZERO else card_name(value)

    if isinstance(decision, Hit):
        return "Hit"
    if isinstance(decision, Stay):
        return "Stay"
    if isinstance(decision, Give):
        return "keep the card" if decision.seat == LEARNER else (
            f"give the card to {names[decision.seat]}"
        )
    if isinstance(decision, Target):
        return "use it on yourself" if decision.seat == LEARNER else (
            f"use it on {names[decision.seat]}"
        )
    if isinstance(decision, Steal):
        return f"steal {whose(decision.seat)} {card(decision.card)}"
    if isinstance(decision, Discard):
        return f"discard {whose(decision.seat)} {card(decision.card)}"
    if isinstance(decision, Swap):
        return (
            f"swap {whose(decision.seat1)} {card(decision.card1)} with "
            f"{whose(decision.seat2)} {card(decision.card2)}"
        )
    return str(decision)


def _short(name: str) -> str:
    """A seat's name as a lesson says it: a bot's first name ("Eddie (Easy bot)": "Eddie")."""
    first, bracket, _ = name.partition(" (")
    return first if bracket and name.endswith(")") and first else name
