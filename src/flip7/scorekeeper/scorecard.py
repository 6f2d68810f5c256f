"""The scorekeeper's model: score a game played with the physical cards (docs/scorekeeper.md).

A :class:`Scorecard` holds the players, the rule options, the number of decks and the rounds
entered so far. Each round is one :class:`LineEntry` per player (the cards of the final line
and whether the player busted) and, in Brutal, the Flip 7 player's choice. Every score comes
from the engine's own scoring (:mod:`flip7.core.scoring`, RULES.md §8–§10); the end of the game
follows §9. Scorecards are immutable: every operation returns a new one.

>>> card = Scorecard.new(["Ann", "Bob", "Cyd"])
>>> card = card.add_round([LineEntry.parse("3 11 5 /2"), LineEntry.bust(),
...                        LineEntry.parse("13 L13")])
>>> card.totals, card.rounds[0].scores
((9, 0, 26), (9, 0, 26))
>>> card.status_line()
'Cyd leads with 26; target 200'
>>> card.check_round(["5 9 5", "", "14"])
Traceback (most recent call last):
...
flip7...RoundInvalid: Ann: 5 9 5 is a bust (two 5s): mark Ann busted or correct the
cards; Cyd: "14" is not a card; cards are 0–13, U7, L13, /2, -2, -4, -6, -8, -10

A round can also be entered **live**, card by card (:class:`LiveRound`): the model replays the
events with the line rules of §4–§5, tracks the draw pile's composition across rounds and
asks the advisor (:func:`flip7.analysis.advisor.advise`) whether the player to decide should hit.

>>> card = Scorecard.new(["Ann", "Bob", "Cyd"]).live_round(
...     [{"type": "card", "seat": 0, "card": "12"}, {"type": "card", "seat": 1, "card": "5"}],
...     based_on=0)
>>> live = card.live
>>> live.to_decide, live.draw_pile[Card.TWELVE], live.advice().recommendation
(2, 11, 'hit')
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from flip7.analysis.advisor import Advice, Situation, advise
from flip7.core.cards import Card, deck_counts
from flip7.core.errors import CardError, Flip7Error, RulesError
from flip7.core.lines import (
    FLIP7_CARDS,
    bust_reasons,
    flip7_count,
    has_duplicate,
    is_flip7,
    receive,
)
from flip7.core.rules import (
    MAX_PLAYERS,
    ONE_DECK_MAX_PLAYERS,
    Rules,
    decks_for,
    players_problem,
)
from flip7.core.scoring import add_round, game_winners, score_round
from flip7.engine.game import Status

__all__ = [
    "FORMAT",
    "MAX_NAME",
    "MAX_PLAYERS",
    "ONE_DECK_MAX_PLAYERS",
    "LineEntry",
    "LiveEvent",
    "LiveRound",
    "Problem",
    "Round",
    "RoundInvalid",
    "RoundResult",
    "Scorecard",
    "ScorecardError",
    "StaleRound",
]

FORMAT = "flip7-scorecard/1"
# MAX_PLAYERS and ONE_DECK_MAX_PLAYERS are flip7.core.rules' (RULES.md §1.3).
MAX_NAME = 40
MAX_TITLE = 80

CARDS_HELP = "cards are 0–13, U7, L13, /2, -2, -4, -6, -8, -10"

_ACTION_NAMES = {
    Card.JUST_ONE_MORE: "Just One More!",
    Card.FLIP_FOUR: "Flip Four!",
    Card.STEAL: "Steal",
    Card.SWAP: "Swap",
    Card.DISCARD: "Discard",
}


# ---------------------------------------------------------------------------- errors


class ScorecardError(Flip7Error):
    """Anything the scorekeeper refuses: bad players, bad stored data, a bad live event..."""


class StaleRound(ScorecardError):
    """An edit or undo based on a revision that is not the current one (another device
    changed the round meanwhile). ``current`` is the revision now."""

    def __init__(self, message: str, current: int) -> None:
        super().__init__(message)
        self.current = current


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a round: the seat it concerns (``None`` for the whole round)
    and a message a player understands."""

    seat: int | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "message": self.message}


class RoundInvalid(ScorecardError):
    """A round that fails its checks; ``problems`` lists every problem at once."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("; ".join(p.message for p in self.problems))


# ---------------------------------------------------------------------------- small helpers


def _names_text(names: Sequence[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cyd``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _normal_code(text: str) -> str:
    """The canonical code of a card code, or the text itself (stripped) if it is no card."""
    try:
        return Card.parse(text).code
    except CardError:
        return text.strip()


def _card_or_none(code: str) -> Card | None:
    try:
        return Card.parse(code)
    except CardError:
        return None


# ---------------------------------------------------------------------------- line entries


@dataclass(frozen=True, slots=True)
class LineEntry:
    """One player's final line in a round: card codes (RECORD.md §1, Number cards and
    Modifiers in any order; canonical codes, an unknown code is kept as typed so that the
    round's check can report it) and whether the player busted.

    >>> LineEntry.parse("3 11 5 /2")
    LineEntry(cards=('3', '11', '5', '/2'), busted=False)
    >>> LineEntry.parse("bust -4"), LineEntry.parse("l13, ÷2")
    (LineEntry(cards=('-4',), busted=True), LineEntry(cards=('L13', '/2'), busted=False))
    >>> LineEntry.from_json({"cards": ["5", "9", "5"], "busted": True}).text()
    'bust: 5 9 5'
    """

    cards: tuple[str, ...] = ()
    busted: bool = False

    @classmethod
    def of(cls, cards: Iterable[Card | str], busted: bool = False) -> LineEntry:
        """From cards or card codes."""
        codes = tuple(c.code if isinstance(c, Card) else _normal_code(c) for c in cards)
        return cls(codes, busted)

    @classmethod
    def bust(cls, cards: Iterable[Card | str] = ()) -> LineEntry:
        """A busted line, with its cards (optional: in Brutal its Modifiers may count)."""
        return cls.of(cards, busted=True)

    @classmethod
    def parse(cls, text: str) -> LineEntry:
        """Read a line as typed: card codes separated by spaces or commas, and ``bust``
        (or ``busted``) anywhere to mark a bust. An empty text is an empty line."""
        if not isinstance(text, str):
            raise ScorecardError(f'a line is text such as "3 11 5 /2", not {text!r}')
        busted = False
        codes: list[str] = []
        for token in text.replace(",", " ").split():
            if token.lower().rstrip(":") in ("bust", "busted"):
                busted = True
            else:
                codes.append(_normal_code(token))
        return cls(tuple(codes), busted)

    @classmethod
    def from_json(cls, data: Any) -> LineEntry:
        """From ``{"cards": [codes], "busted": bool}`` (``busted`` is optional)."""
        if not isinstance(data, Mapping):
            raise ScorecardError(
                f'a line is an object {{"cards": [...], "busted": ...}}, not {data!r}'
            )
        unknown = set(data) - {"cards", "busted"}
        if unknown:
            raise ScorecardError(f"unknown line keys: {', '.join(sorted(map(str, unknown)))}")
        cards = data.get("cards", [])
        busted = data.get("busted", False)
        if not isinstance(cards, list | tuple) or not all(isinstance(c, str) for c in cards):
            raise ScorecardError(f"a line's cards are a list of card codes, not {cards!r}")
        if not isinstance(busted, bool):
            raise ScorecardError(f"a line's busted is true or false, not {busted!r}")
        return cls.of(cards, busted)

    def to_json(self) -> dict[str, Any]:
        return {"cards": list(self.cards), "busted": self.busted}

    @property
    def known(self) -> tuple[Card, ...]:
        """The cards whose codes are cards (in the order given)."""
        out = []
        for code in self.cards:
            card = _card_or_none(code)
            if card is not None:
                out.append(card)
        return tuple(out)

    @property
    def numbers(self) -> tuple[Card, ...]:
        return tuple(c for c in self.known if c.is_number)

    @property
    def modifiers(self) -> tuple[Card, ...]:
        return tuple(c for c in self.known if c.is_modifier)

    def text(self) -> str:
        """As typed: ``3 11 5 /2``, ``bust``, ``bust: 5 9 5``, ``(empty)``."""
        cards = " ".join(self.cards)
        if self.busted:
            return f"bust: {cards}" if cards else "bust"
        return cards or "(empty)"


def _same_lines(a: Sequence[LineEntry], b: Sequence[LineEntry]) -> bool:
    """The same cards (in any order) and the same busted flags, seat by seat."""
    return len(a) == len(b) and all(
        x.busted == y.busted and sorted(x.cards) == sorted(y.cards)
        for x, y in zip(a, b, strict=True)
    )


def _coerce_line(item: Any) -> LineEntry:
    if isinstance(item, LineEntry):
        return item
    if isinstance(item, str):
        return LineEntry.parse(item)
    return LineEntry.from_json(item)


# ---------------------------------------------------------------------------- Flip 7 choice


def _choice_of(choice: Any) -> tuple[int | None, Problem | None]:
    """``None``/``"bonus"`` → no −15; ``{"minus15": seat}`` → that seat."""
    if choice is None or choice == "bonus":
        return None, None
    if isinstance(choice, Mapping) and set(choice) == {"minus15"}:
        seat = choice["minus15"]
        if type(seat) is int:
            return seat, None
    return None, Problem(None, f'a Flip 7 choice is "bonus" or {{"minus15": seat}}, not {choice!r}')


def _choice_json(minus15: int | None, flip7_seat: int | None, brutal: bool) -> Any:
    if flip7_seat is None or not brutal:
        return None
    return "bonus" if minus15 is None else {"minus15": minus15}


# ---------------------------------------------------------------------------- rounds


class _RoundFigures:
    """What a checked round and a stored round both report: who busted, and the figures
    both JSON forms share."""

    __slots__ = ()
    number: int
    lines: tuple[LineEntry, ...]
    flip7_choice: Any
    flip7_seat: int | None
    minus15: int | None
    scores: tuple[int, ...]
    totals: tuple[int, ...]

    @property
    def busted(self) -> tuple[int, ...]:
        return tuple(s for s, line in enumerate(self.lines) if line.busted)

    def _figures_json(self) -> dict[str, Any]:
        return {
            "lines": [line.to_json() for line in self.lines],
            "flip7_choice": self.flip7_choice,
            "flip7_seat": self.flip7_seat,
            "minus15": self.minus15,
            "busted": list(self.busted),
            "scores": list(self.scores),
            "totals": list(self.totals),
        }


@dataclass(frozen=True, slots=True)
class RoundResult(_RoundFigures):
    """A round as scored by :meth:`Scorecard.check_round` (nothing saved): each seat's round
    score (the −15 of a Brutal Flip 7 choice is not in them), the running totals after it
    (the −15 included), the Flip 7 seat, and whether the game ends with it."""

    number: int
    lines: tuple[LineEntry, ...]
    flip7_seat: int | None
    minus15: int | None
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    over: bool
    winners: tuple[int, ...]
    flip7_choice: Any = None

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            **self._figures_json(),
            "over": self.over,
            "winners": list(self.winners),
        }


@dataclass(frozen=True, slots=True)
class Round(_RoundFigures):
    """A stored round: its lines, the Brutal −15 target (or ``None``), its ``revision``
    (1 when entered, +1 on every edit), the live events it was entered with (``None`` if it
    was typed in), and what follows from them: scores, running totals, Flip 7 seat, and
    whether the game ended with it (and who won)."""

    number: int
    lines: tuple[LineEntry, ...]
    minus15: int | None
    revision: int
    events: tuple[LiveEvent, ...] | None
    flip7_seat: int | None
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    over: bool
    winners: tuple[int, ...]
    flip7_choice: Any = None

    @property
    def live(self) -> bool:
        return self.events is not None

    def to_json(self) -> dict[str, Any]:
        """The stored form (what :meth:`Scorecard.from_json` reads)."""
        return {
            "lines": [line.to_json() for line in self.lines],
            "flip7_choice": self.flip7_choice,
            "revision": self.revision,
            "events": None if self.events is None else [e.to_json() for e in self.events],
        }

    def summary_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "revision": self.revision,
            **self._figures_json(),
            "live": self.live,
        }


@dataclass(frozen=True, slots=True)
class _Scored:
    lines: tuple[LineEntry, ...]
    flip7_seat: int | None
    minus15: int | None
    scores: tuple[int, ...]


def _flip7_rule(rules: Rules) -> str:
    if rules.lucky13_pair_flip7_count == 2:
        return "the 7th ends the round (Flip 7)"
    return "seven different values end the round (Flip 7)"


def _over_limit(numbers: Sequence[Card], rules: Rules) -> bool:
    """Whether a non-busted line holds more Number cards than the Flip 7 that ends the round."""
    return flip7_count(numbers, rules.lucky13_pair_flip7_count) > FLIP7_CARDS


def _line_problems(name: str, seat: int, line: LineEntry, rules: Rules) -> list[Problem]:
    problems = []
    for code in line.cards:
        card = _card_or_none(code)
        if card is None:
            problems.append(Problem(seat, f'{name}: "{code}" is not a card; {CARDS_HELP}'))
        elif card.is_action:
            problems.append(
                Problem(
                    seat,
                    f"{name}: {_ACTION_NAMES[card]} is an Action card: "
                    "Actions never stay in a line",
                )
            )
    numbers = line.numbers
    shown = " ".join(c.code for c in line.known if not c.is_action)
    if not line.busted:
        if has_duplicate(numbers):
            why = ", ".join(bust_reasons(numbers))
            problems.append(
                Problem(
                    seat,
                    f"{name}: {shown} is a bust ({why}): mark {name} busted or correct the cards",
                )
            )
        elif _over_limit(numbers, rules):
            problems.append(
                Problem(
                    seat,
                    f"{name}: {len(numbers)} Number cards cannot be in a line: "
                    + _flip7_rule(rules),
                )
            )
    elif numbers:
        # A busted line is the line before the bust (no duplicate, not yet Flip 7) plus the
        # card that busted it: a player who busts receives no more Number cards (§2.3).
        if not has_duplicate(numbers):
            problems.append(
                Problem(
                    seat,
                    f"{name}: {shown} is marked busted but is not a bust (no two Number cards "
                    "of the same value): correct the cards, or list none",
                )
            )
        else:
            before = [numbers[:i] + numbers[i + 1 :] for i in range(len(numbers))]
            clean = [b for b in before if not has_duplicate(b)]
            if not clean:
                why = ", ".join(bust_reasons(numbers))
                problems.append(
                    Problem(
                        seat,
                        f"{name}: {shown} cannot be a busted line: a player busts on the first "
                        f"duplicate ({why})",
                    )
                )
            elif all(is_flip7(b, rules.lucky13_pair_flip7_count) for b in clean):
                problems.append(
                    Problem(
                        seat,
                        f"{name}: {len(numbers)} Number cards cannot be in a busted line: "
                        f"{_flip7_rule(rules)}",
                    )
                )
    return problems


def _score_round(
    players: Sequence[str],
    rules: Rules,
    decks: int,
    raw_lines: Sequence[Any],
    choice: Any,
) -> _Scored:
    """Check one round on its own and score it; raises :class:`RoundInvalid`."""
    if isinstance(raw_lines, str | bytes) or not isinstance(raw_lines, Sequence):
        raise RoundInvalid([Problem(None, "a round is a list of lines, one per player")])
    problems: list[Problem] = []
    lines: list[LineEntry] = []
    for seat, item in enumerate(raw_lines):
        try:
            lines.append(_coerce_line(item))
        except Flip7Error as exc:
            name = players[seat] if seat < len(players) else f"line {seat + 1}"
            problems.append(Problem(seat if seat < len(players) else None, f"{name}: {exc}"))
            lines.append(LineEntry())
    if len(lines) != len(players):
        problems.append(
            Problem(
                None,
                f"a round needs one line per player: {len(players)} players, {len(lines)} "
                f"line{'' if len(lines) == 1 else 's'}",
            )
        )
        raise RoundInvalid(problems)
    for seat, line in enumerate(lines):
        problems.extend(_line_problems(players[seat], seat, line, rules))
    # Every card of the round, busted lines included, must exist in the deck(s).
    held: Counter[Card] = Counter(c for line in lines for c in line.known)
    deck = deck_counts(decks)
    for card in sorted(held):
        if held[card] > deck[card]:
            holds = "the deck holds" if decks == 1 else f"the {decks} decks hold"
            problems.append(
                Problem(
                    None,
                    f"there are {held[card]} cards {card.code} in this round, but {holds} "
                    f"only {deck[card]}",
                )
            )
    bad_seats = {p.seat for p in problems}
    flip7_seats = [
        s
        for s, line in enumerate(lines)
        if not line.busted
        and s not in bad_seats
        and is_flip7(line.numbers, rules.lucky13_pair_flip7_count)
    ]
    if len(flip7_seats) > 1:
        both = "both" if len(flip7_seats) == 2 else "all"
        problems.append(
            Problem(
                None,
                f"{_names_text([players[s] for s in flip7_seats])} {both} have Flip 7: only one "
                "player can reach Flip 7 in a round",
            )
        )
    flip7_seat = flip7_seats[0] if len(flip7_seats) == 1 else None
    minus15, choice_problem = _choice_of(choice)
    if choice_problem is not None:
        problems.append(choice_problem)
    elif minus15 is not None:
        message = None
        if not rules.brutal:
            message = "the −15 Flip 7 choice is for Brutal mode only"
        elif not 0 <= minus15 < len(players):
            message = f"the −15 must go to a player: seat {minus15} is not one"
        elif flip7_seat is None and len(flip7_seats) < 2:
            message = "no line is a Flip 7: there is no Flip 7 choice to make"
        elif minus15 == flip7_seat:
            message = "the −15 must go to another player"
        elif not rules.minus15_may_hit_busted and lines[minus15].busted:
            message = (
                f"the −15 must go to another player who has not busted ({players[minus15]} "
                "busted; rule brutal_minus15_targets)"
            )
        if message is not None:
            problems.append(Problem(None, message))
    if problems:
        raise RoundInvalid(problems)
    scores = score_round(
        ((line.numbers, line.modifiers, line.busted) for line in lines),
        rules,
        flip7=flip7_seat,
        minus15=minus15,
    )
    return _Scored(tuple(lines), flip7_seat, minus15, scores)


# ---------------------------------------------------------------------------- live mode

_EVENT_TYPES = ("card", "stay", "move", "discard", "reshuffle")
_EVENT_KEYS = {
    "card": {"type", "seat", "card"},
    "stay": {"type", "seat"},
    "move": {"type", "card", "from", "to"},
    "discard": {"type", "card", "from"},
    "reshuffle": {"type"},
}


@dataclass(frozen=True, slots=True)
class LiveEvent:
    """One event of a live round (docs/scorekeeper.md): ``card`` (seat received card: a
    flip, a deal, a forced draw; an Action card is only recorded), ``stay``, ``move`` (Steal,
    or half of a Swap: two moves in a row between the same players in opposite directions
    are one Swap), ``discard`` and ``reshuffle``.

    >>> LiveEvent.from_json({"type": "move", "card": "l13", "from": 0, "to": 2})
    LiveEvent(type='move', seat=None, card=Card.LUCKY_13, source=0, target=2)
    >>> LiveEvent.from_json({"type": "card", "seat": 1, "card": "U7"}).to_json()
    {'type': 'card', 'seat': 1, 'card': 'U7'}
    """

    type: str
    seat: int | None = None
    card: Card | None = None
    source: int | None = None
    target: int | None = None

    @classmethod
    def from_json(cls, data: Any) -> LiveEvent:
        if isinstance(data, LiveEvent):
            return data
        if not isinstance(data, Mapping):
            raise ScorecardError(f"an event is a JSON object, not {data!r}")
        kind = data.get("type")
        if kind not in _EVENT_TYPES:
            raise ScorecardError(
                f"unknown event type {kind!r}; types are {', '.join(_EVENT_TYPES)}"
            )
        expected = _EVENT_KEYS[kind]
        if set(data) != expected:
            missing = expected - set(data)
            extra = set(data) - expected
            what = []
            if missing:
                what.append(f"missing {', '.join(sorted(missing))}")
            if extra:
                what.append(f"unknown {', '.join(sorted(map(str, extra)))}")
            keys = ", ".join(sorted(expected))
            raise ScorecardError(f"a {kind} event has the keys {keys} ({'; '.join(what)})")
        for key in ("seat", "from", "to"):
            if key in data and type(data[key]) is not int:
                raise ScorecardError(f"{kind} event: {key} is a seat number, not {data[key]!r}")
        card = None
        if "card" in data:
            code = data["card"]
            parsed = _card_or_none(code) if isinstance(code, str) else None
            if parsed is None:
                raise ScorecardError(
                    f'{kind} event: "{code}" is not a card; {CARDS_HELP}, '
                    "JOM, FLIP4, STEAL, SWAP, DISCARD"
                )
            card = parsed
        return cls(kind, data.get("seat"), card, data.get("from"), data.get("to"))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.card is not None:
            out["card"] = self.card.code
        if self.source is not None:
            out["from"] = self.source
        if self.target is not None:
            out["to"] = self.target
        return out


class _Replay:
    """The mutable state of a live round while its events are replayed."""

    def __init__(
        self, players: Sequence[str], rules: Rules, decks: int, out: Counter[Card]
    ) -> None:
        n = len(players)
        self.players = players
        self.rules = rules
        self.decks = decks
        self.deck = deck_counts(decks)
        self.numbers: list[list[Card]] = [[] for _ in range(n)]
        self.modifiers: list[list[Card]] = [[] for _ in range(n)]
        self.status = [Status.ACTIVE] * n
        self.flip7_seat: int | None = None
        self.out = Counter(out)  # out of the draw pile since the last reshuffle
        self.last_seat: int | None = None
        self.notes: list[str] = []

    # -- what the table shows

    def in_lines(self) -> Counter[Card]:
        held: Counter[Card] = Counter()
        for numbers, modifiers in zip(self.numbers, self.modifiers, strict=True):
            held.update(numbers)
            held.update(modifiers)
        return held

    def over(self) -> bool:
        return self.flip7_seat is not None or Status.ACTIVE not in self.status

    def why_over(self) -> str:
        if self.flip7_seat is not None:
            return f"{self.players[self.flip7_seat]} has Flip 7"
        return "every player has stayed or busted"

    # -- the line rules of §4–§5 (flip7.core.lines)

    def receive(self, seat: int, card: Card, transfer: bool, check_flip7: bool = True) -> None:
        # A wipe's cards go to the discard pile: they stay out of the draw pile.
        busted, _ = receive(
            self.numbers[seat], self.modifiers[seat], card, self.rules, transfer=transfer
        )
        if busted:
            self.status[seat] = Status.BUSTED
            return
        if check_flip7 and not card.is_modifier:
            self.check_flip7(seat)

    def check_flip7(self, seat: int) -> None:
        if (
            self.flip7_seat is None
            and self.status[seat] is not Status.BUSTED
            and is_flip7(self.numbers[seat], self.rules.lucky13_pair_flip7_count)
        ):
            self.flip7_seat = seat

    def reshuffle(self) -> None:
        # §3.5.1: the discard pile becomes the draw pile; the cards in lines stay out.
        self.out = self.in_lines()

    def draw(self, card: Card, where: str) -> None:
        """``card`` leaves the draw pile."""
        if self.out[card] >= self.deck[card]:
            in_lines = self.in_lines()[card]
            if in_lines >= self.deck[card]:
                holds = "the deck holds" if self.decks == 1 else f"the {self.decks} decks hold"
                raise ScorecardError(
                    f"{where}: {card.code} cannot come from the draw pile: {holds} "
                    f"{self.deck[card]} and {in_lines} {'is' if in_lines == 1 else 'are'} "
                    "already in players' lines"
                )
            # The draw pile cannot hold it: it must have run out and the discard pile been
            # shuffled (§3.5.1), or earlier rounds were entered without their whole history.
            self.reshuffle()
            self.notes.append(
                f"{where}: no {card.code} was left in the draw pile: counted as a reshuffle"
            )
        self.out[card] += 1

    def seat_ok(self, value: int | None, where: str, what: str = "seat") -> int:
        n = len(self.players)
        if value is None or not 0 <= value < n:
            raise ScorecardError(f"{where}: {what} must be a seat from 0 to {n - 1}, not {value}")
        return value

    def live_seat(self, seat: int, where: str) -> None:
        if self.status[seat] is Status.BUSTED:
            raise ScorecardError(
                f"{where}: {self.players[seat]} has busted: Actions cannot touch a busted "
                "player's cards"
            )

    def take(self, seat: int, card: Card, where: str) -> None:
        line = self.numbers[seat] if card.is_number else self.modifiers[seat]
        if card not in line:
            raise ScorecardError(f"{where}: {self.players[seat]} has no {card.code} in the line")
        line.remove(card)

    # -- the events

    def apply(self, index: int, event: LiveEvent, following: LiveEvent | None) -> bool:
        """Replay one event; returns True when it also used ``following`` (a Swap)."""
        where = f"event {index + 1} ({event.type})"
        if self.over():
            raise ScorecardError(
                f"{where}: the round is over ({self.why_over()}): no event can follow"
            )
        if event.type == "reshuffle":
            self.reshuffle()
            return False
        if event.type == "card":
            seat = self.seat_ok(event.seat, where)
            card = event.card
            assert card is not None
            if self.status[seat] is Status.BUSTED and not (card.is_modifier and self.rules.brutal):
                raise ScorecardError(
                    f"{where}: {self.players[seat]} has busted: a busted player receives no "
                    "more cards" + (" (only Modifiers, in Brutal)" if self.rules.brutal else "")
                )
            self.draw(card, where)
            self.last_seat = seat
            if not card.is_action:  # an Action is used and goes to the discard pile
                self.receive(seat, card, transfer=False)
            return False
        if event.type == "stay":
            seat = self.seat_ok(event.seat, where)
            if self.status[seat] is not Status.ACTIVE:
                verb = "has already stayed" if self.status[seat] is Status.STAYED else "has busted"
                raise ScorecardError(f"{where}: {self.players[seat]} {verb}")
            self.status[seat] = Status.STAYED
            self.last_seat = seat
            return False
        card = event.card
        assert card is not None
        source = self.seat_ok(event.source, where, "from")
        self.live_seat(source, where)
        if event.type == "discard":
            self.take(source, card, where)
            return False
        target = self.seat_ok(event.target, where, "to")
        if source == target:
            raise ScorecardError(f"{where}: a card cannot move within one line")
        self.live_seat(target, where)
        swap = (
            following is not None
            and following.type == "move"
            and following.source == target
            and following.target == source
            and following.card is not None
        )
        self.take(source, card, where)
        if not swap:
            self.receive(target, card, transfer=True)
            return False
        # A Swap: both cards leave first, both placements next, then the checks (§6.5.4).
        assert following is not None and following.card is not None
        back = following.card
        self.take(target, back, f"event {index + 2} (move)")
        self.receive(source, back, transfer=True, check_flip7=False)
        self.receive(target, card, transfer=True, check_flip7=False)
        self.check_flip7(source)
        self.check_flip7(target)
        return True


def _replay(
    players: Sequence[str],
    rules: Rules,
    decks: int,
    events: Sequence[LiveEvent],
    out: Counter[Card],
) -> _Replay:
    state = _Replay(players, rules, decks, out)
    i = 0
    while i < len(events):
        following = events[i + 1] if i + 1 < len(events) else None
        i += 2 if state.apply(i, events[i], following) else 1
    return state


@dataclass(frozen=True, slots=True)
class LiveRound:
    """A round entered card by card, as its events replay (RULES.md §4–§5).

    ``numbers``/``modifiers``/``statuses`` are each seat's line now; ``draw_pile`` the draw
    pile's composition (the deck(s) less every card out of it since the last reshuffle, the
    discard pile carrying over between rounds); ``totals`` the running totals before this
    round. The player **to decide** is the next active seat clockwise after the seat of the
    last ``card`` or ``stay`` event (the events follow the table's turns; after a Flip Four
    or Just One More played on someone else the table may differ, §3.2.4: ask
    :meth:`advice` for any active seat); ``None`` before the first such event or once the
    round is over.
    """

    players: tuple[str, ...]
    rules: Rules
    decks: int
    number: int
    revision: int
    events: tuple[LiveEvent, ...]
    totals: tuple[int, ...]
    numbers: tuple[tuple[Card, ...], ...]
    modifiers: tuple[tuple[Card, ...], ...]
    statuses: tuple[Status, ...]
    flip7_seat: int | None
    out: tuple[int, ...] = field(repr=False)
    in_lines: tuple[int, ...] = field(repr=False)
    to_decide: int | None
    notes: tuple[str, ...] = ()

    @classmethod
    def replay(
        cls,
        players: Sequence[str],
        events: Iterable[Any],
        *,
        rules: Rules | None = None,
        decks: int = 1,
        totals: Sequence[int] | None = None,
        out: Mapping[Card, int] | None = None,
        number: int = 1,
        revision: int = 1,
    ) -> LiveRound:
        """Replay ``events`` (:class:`LiveEvent` or their JSON objects); ``out`` counts the
        cards already out of the draw pile (in the discard pile) when the round starts.
        Raises :class:`ScorecardError` naming the first event that cannot happen.

        >>> live = LiveRound.replay(["Ann", "Bob", "Cyd"], [
        ...     {"type": "card", "seat": 0, "card": "7"}, {"type": "card", "seat": 0, "card": "-2"},
        ...     {"type": "card", "seat": 0, "card": "U7"}])
        >>> live.numbers[0], live.modifiers[0], live.discard_pile
        ((Card.UNLUCKY_7,), (), {Card.SEVEN: 1, Card.MINUS_2: 1})
        """
        rules = rules if rules is not None else Rules()
        parsed = []
        for i, data in enumerate(events):
            try:
                parsed.append(LiveEvent.from_json(data))
            except ScorecardError as exc:
                raise ScorecardError(f"event {i + 1}: {exc}") from None
        state = _replay(players, rules, decks, parsed, Counter(out or {}))
        n = len(players)
        to_decide = None
        if state.last_seat is not None and not state.over():
            for step in range(1, n + 1):
                seat = (state.last_seat + step) % n
                if state.status[seat] is Status.ACTIVE:
                    to_decide = seat
                    break
        return cls(
            players=tuple(players),
            rules=rules,
            decks=decks,
            number=number,
            revision=revision,
            events=tuple(parsed),
            totals=tuple(totals) if totals is not None else (0,) * n,
            numbers=tuple(tuple(line) for line in state.numbers),
            modifiers=tuple(tuple(line) for line in state.modifiers),
            statuses=tuple(state.status),
            flip7_seat=state.flip7_seat,
            out=tuple(state.out[c] for c in Card),
            in_lines=tuple(state.in_lines()[c] for c in Card),
            to_decide=to_decide,
            notes=tuple(state.notes),
        )

    @property
    def over(self) -> bool:
        """Whether the round has ended: a Flip 7, or nobody is still active (§3.4.1)."""
        return self.flip7_seat is not None or Status.ACTIVE not in self.statuses

    @property
    def draw_pile(self) -> dict[Card, int]:
        """How many of each card the draw pile holds (cards not in it are left out)."""
        deck = deck_counts(self.decks)
        return {c: deck[c] - self.out[c] for c in Card if deck[c] - self.out[c] > 0}

    @property
    def discard_pile(self) -> dict[Card, int]:
        """The discard pile's composition: out of the draw pile and in no line."""
        return {c: self.out[c] - self.in_lines[c] for c in Card if self.out[c] > self.in_lines[c]}

    @property
    def cards_left(self) -> int:
        return sum(self.draw_pile.values())

    def lines(self) -> tuple[LineEntry, ...]:
        """Each seat's line now, as line entries (Number cards, then Modifiers)."""
        return tuple(
            LineEntry.of(numbers + modifiers, status is Status.BUSTED)
            for numbers, modifiers, status in zip(
                self.numbers, self.modifiers, self.statuses, strict=True
            )
        )

    def final_lines(self) -> tuple[LineEntry, ...]:
        """The round's line entries once it is over (raises :class:`ScorecardError` before)."""
        if not self.over:
            active = [
                p for p, st in zip(self.players, self.statuses, strict=True) if st is Status.ACTIVE
            ]
            verb = "is" if len(active) == 1 else "are"
            raise ScorecardError(
                f"the round is not over: {_names_text(active)} {verb} still playing"
            )
        return self.lines()

    def scores_now(self) -> tuple[int, ...]:
        """Each line's round score if the round ended now (a Brutal Flip 7 takes +15)."""
        return score_round(
            zip(
                self.numbers,
                self.modifiers,
                (status is Status.BUSTED for status in self.statuses),
                strict=True,
            ),
            self.rules,
            flip7=self.flip7_seat,
        )

    def situation(self, seat: int | None = None) -> Situation:
        """The advisor's :class:`~flip7.analysis.advisor.Situation` for ``seat`` (default:
        the player to decide)."""
        if seat is None:
            seat = self.to_decide
            if seat is None:
                raise ScorecardError("nobody is to decide now: name the seat to advise")
        if not 0 <= seat < len(self.players):
            raise ScorecardError(f"seat must be from 0 to {len(self.players) - 1}, not {seat}")
        if self.over:
            raise ScorecardError("the round is over: there is no Hit or Stay to advise")
        if self.statuses[seat] is not Status.ACTIVE:
            raise ScorecardError(
                f"{self.players[seat]} has {self.statuses[seat]}: there is no Hit or Stay to advise"
            )
        discard = [c for c, k in self.discard_pile.items() for _ in range(k)]
        return Situation.from_fields(
            [n + m for n, m in zip(self.numbers, self.modifiers, strict=True)],
            seat=seat,
            statuses=self.statuses,
            totals=self.totals,
            to_decide=self.to_decide,
            pile=self.draw_pile,
            discard=discard,
            rules=self.rules,
            decks=self.decks,
        )

    def advice(self, seat: int | None = None) -> Advice:
        """The advisor's figures and recommendation for ``seat`` (default: the player to
        decide): ``p_bust_next``, ``ev_hit``, ``ev_stay``, ``recommendation``, ``reason``."""
        return advise(self.situation(seat))

    def to_json(self) -> dict[str, Any]:
        """The live state for a page: events, lines, statuses, the draw pile, the player to
        decide and their advice."""
        advice = None
        if self.to_decide is not None:
            try:
                advice = self.advice().to_json()
            except Flip7Error:
                advice = None  # a line the advisor cannot model (two decks' oddities)
        return {
            "number": self.number,
            "revision": self.revision,
            "events": [e.to_json() for e in self.events],
            "lines": [line.to_json() for line in self.lines()],
            "statuses": [str(s) for s in self.statuses],
            "flip7_seat": self.flip7_seat,
            "over": self.over,
            "scores": list(self.scores_now()),
            "to_decide": self.to_decide,
            "draw_pile": {c.code: k for c, k in self.draw_pile.items()},
            "discard_pile": {c.code: k for c, k in self.discard_pile.items()},
            "cards_left": self.cards_left,
            "advice": advice,
            "notes": list(self.notes),
        }


# ---------------------------------------------------------------------------- the scorecard


def _check_players(players: Any, rules: Rules, decks: Any) -> tuple[tuple[str, ...], int]:
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise ScorecardError("players are a list of names")
    names = []
    for name in players:
        if not isinstance(name, str) or not name.strip():
            raise ScorecardError(f"a player's name must be non-empty text, not {name!r}")
        name = " ".join(name.split())
        if len(name) > MAX_NAME:
            raise ScorecardError(f"a player's name has at most {MAX_NAME} characters: {name!r}")
        names.append(name)
    seen: set[str] = set()
    for name in names:
        if name.casefold() in seen:
            raise ScorecardError(f"two players are called {name!r}: names must be different")
        seen.add(name.casefold())
    n = len(names)
    problem = players_problem(n, rules, decks, option="the rule allow_two_players")
    if problem is not None:
        raise ScorecardError(problem)
    return tuple(names), decks_for(n) if decks is None else decks


@dataclass(frozen=True, slots=True)
class _Entry:
    """A round as stored, before its totals are worked out."""

    lines: tuple[LineEntry, ...]
    minus15: int | None
    revision: int
    events: tuple[LiveEvent, ...] | None


@dataclass(frozen=True, slots=True)
class Scorecard:
    """A game's score sheet: players, rules, decks and rounds (see the module docstring).

    Build one with :meth:`new` or :meth:`from_json`; every change returns a new scorecard
    with ``version`` one higher. ``live`` is the round being entered live, if any.
    """

    players: tuple[str, ...]
    rules: Rules
    decks: int
    rounds: tuple[Round, ...] = ()
    name: str = ""
    version: int = 1
    live: LiveRound | None = None

    # ------------------------------------------------------------------ building

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        *,
        rules: Rules | None = None,
        decks: int | None = None,
        name: str = "",
    ) -> Scorecard:
        """A new scorecard: 3 or more players (2 with ``allow_two_players``), names unique
        and at most 40 characters; ``decks`` defaults to 1, and 2 from 19 players.

        >>> Scorecard.new(["Ann", "Bob"])
        Traceback (most recent call last):
        ...
        flip7...ScorecardError: a game needs 3 to 36 players (2 only with the rule ...
        """
        rules = rules if rules is not None else Rules()
        if not isinstance(rules, Rules):
            raise ScorecardError("rules must be a flip7.Rules")
        names, decks = _check_players(players, rules, decks)
        if not isinstance(name, str) or len(name) > MAX_TITLE:
            raise ScorecardError(f"a scorecard's name is text of at most {MAX_TITLE} characters")
        return cls(names, rules, decks, name=name.strip())

    def _entries(self) -> list[_Entry]:
        return [_Entry(r.lines, r.minus15, r.revision, r.events) for r in self.rounds]

    def _build(
        self, entries: Sequence[_Entry], *, first_bad: int | None = None
    ) -> tuple[Round, ...]:
        """Score ``entries`` in order; raises :class:`RoundInvalid` (prefixed with the round
        number unless it is ``first_bad``) for a round that fails, or that follows the end."""
        rounds: list[Round] = []
        totals = (0,) * len(self.players)
        for k, entry in enumerate(entries, start=1):
            if rounds and rounds[-1].over:
                done = rounds[-1]
                raise RoundInvalid(
                    [
                        Problem(
                            None,
                            f"round {done.number} now ends the game "
                            f"({self._winners_text(done.winners, done.totals)}): undo the "
                            "rounds after it first",
                        )
                    ]
                )
            choice = None if entry.minus15 is None else {"minus15": entry.minus15}
            try:
                scored = _score_round(self.players, self.rules, self.decks, entry.lines, choice)
            except RoundInvalid as exc:
                if k == first_bad:
                    raise
                raise RoundInvalid(
                    [Problem(p.seat, f"round {k}: {p.message}") for p in exc.problems]
                ) from None
            totals = add_round(totals, scored.scores, scored.minus15)
            winners = game_winners(totals, self.rules)
            over = bool(winners)
            rounds.append(
                Round(
                    number=k,
                    lines=scored.lines,
                    minus15=scored.minus15,
                    revision=entry.revision,
                    events=entry.events,
                    flip7_seat=scored.flip7_seat,
                    scores=scored.scores,
                    totals=totals,
                    over=over,
                    winners=winners,
                    flip7_choice=_choice_json(scored.minus15, scored.flip7_seat, self.rules.brutal),
                )
            )
        return tuple(rounds)

    # ------------------------------------------------------------------ the state

    @property
    def totals(self) -> tuple[int, ...]:
        """Each player's running total (the −15s of Brutal Flip 7 choices included)."""
        return self.rounds[-1].totals if self.rounds else (0,) * len(self.players)

    @property
    def over(self) -> bool:
        """Whether the game has ended (§9)."""
        return bool(self.rounds) and self.rounds[-1].over

    @property
    def winners(self) -> tuple[int, ...]:
        """The winning seat(s) once the game is over (two or more only with
        ``tie_break: "shared_win"``); ``()`` before."""
        return self.rounds[-1].winners if self.rounds else ()

    @property
    def leaders(self) -> tuple[int, ...]:
        """The seat(s) with the highest total; ``()`` before the first round."""
        if not self.rounds:
            return ()
        top = max(self.totals)
        return tuple(s for s, t in enumerate(self.totals) if t == top)

    @property
    def extra_round(self) -> bool:
        """Whether the game goes on only because of a tie at the top at or above the target
        (§9.2: an extra round decides)."""
        return (
            bool(self.rounds)
            and not self.over
            and len(self.leaders) > 1
            and max(self.totals) >= self.rules.target_score
        )

    @property
    def status(self) -> str:
        return "over" if self.over else "playing"

    def _winners_text(self, seats: Sequence[int], totals: Sequence[int]) -> str:
        names = _names_text([self.players[s] for s in seats])
        return f"{names} {totals[seats[0]]}" if seats else ""

    def status_line(self) -> str:
        """Where the game stands, in one sentence.

        >>> card = Scorecard.new(["Ann", "Bob", "Cyd"], rules=Rules(target_score=20))
        >>> card.status_line()
        'No rounds yet; target 20'
        >>> card = card.add_round(["10 11", "10 11", "3"])
        >>> card.status_line()
        'Tie at the top: Ann and Bob have 21 — an extra round decides'
        >>> card.add_round(["1", "2", "3"]).status_line()
        'Bob wins with 23'
        """
        target = self.rules.target_score
        if not self.rounds:
            return f"No rounds yet; target {target}"
        totals = self.totals
        if self.over:
            seats = self.winners
            if len(seats) == 1:
                return f"{self.players[seats[0]]} wins with {totals[seats[0]]}"
            names = _names_text([self.players[s] for s in seats])
            return f"{names} share the win with {totals[seats[0]]}"
        leaders = self.leaders
        names = _names_text([self.players[s] for s in leaders])
        top = totals[leaders[0]]
        if self.extra_round:
            return f"Tie at the top: {names} have {top} — an extra round decides"
        verb = "leads" if len(leaders) == 1 else "lead"
        return f"{names} {verb} with {top}; target {target}"

    def _over_message(self) -> str:
        seats = self.winners
        totals = self.totals
        if len(seats) == 1:
            return f"the game is over: {self.players[seats[0]]} won with {totals[seats[0]]}"
        names = _names_text([self.players[s] for s in seats])
        return f"the game is over: {names} shared the win with {totals[seats[0]]}"

    # ------------------------------------------------------------------ rounds

    def check_round(
        self, lines: Sequence[Any], flip7_choice: Any = None, *, number: int | None = None
    ) -> RoundResult:
        """Score a round without saving it: as round ``number`` (1-based; default the next
        round). ``lines`` are one per player: :class:`LineEntry`, ``{"cards", "busted"}``
        objects or typed text (``"3 11 5 /2"``, ``"bust -4"``). ``flip7_choice`` is ``None``
        or ``"bonus"`` (+15), or ``{"minus15": seat}`` (Brutal). Raises
        :class:`RoundInvalid` with every problem.

        >>> card = Scorecard.new(["Ann", "Bob", "Cyd"], rules=Rules(brutal=True))
        >>> result = card.check_round(["1 2 3 4 5 6 0", "bust -4", "8 -10"], {"minus15": 2})
        >>> result.scores, result.totals, result.flip7_seat
        ((21, -4, -2), (21, -4, -17), 0)
        """
        number = len(self.rounds) + 1 if number is None else number
        if not 1 <= number <= len(self.rounds) + 1:
            raise ScorecardError(
                f"there is no round {number}: the scorecard has {len(self.rounds)} round"
                f"{'' if len(self.rounds) == 1 else 's'}"
            )
        problems: list[Problem] = []
        if number == len(self.rounds) + 1 and self.over:
            problems.append(Problem(None, self._over_message()))
        try:
            scored = _score_round(self.players, self.rules, self.decks, lines, flip7_choice)
        except RoundInvalid as exc:
            raise RoundInvalid([*problems, *exc.problems]) from None
        if problems:
            raise RoundInvalid(problems)
        previous = self.rounds[number - 2].totals if number > 1 else (0,) * len(self.players)
        totals = add_round(previous, scored.scores, scored.minus15)
        winners = game_winners(totals, self.rules)
        over = bool(winners)
        if number < len(self.rounds) and over:
            raise RoundInvalid(
                [
                    Problem(
                        None,
                        f"round {number} now ends the game "
                        f"({self._winners_text(winners, totals)}): undo the rounds after it "
                        "first",
                    )
                ]
            )
        return RoundResult(
            number=number,
            lines=scored.lines,
            flip7_seat=scored.flip7_seat,
            minus15=scored.minus15,
            scores=scored.scores,
            totals=totals,
            over=over,
            winners=winners,
            flip7_choice=_choice_json(scored.minus15, scored.flip7_seat, self.rules.brutal),
        )

    def add_round(
        self,
        lines: Sequence[Any],
        flip7_choice: Any = None,
        *,
        events: Sequence[Any] | None = None,
    ) -> Scorecard:
        """The scorecard with the next round added (checked as :meth:`check_round`).

        ``events``: the round was entered live with these events (they must replay to these
        lines). Without ``events``, if the live round in progress is over and its final
        lines are ``lines``, the round is stored as that live round. Adding a round ends
        the live round in progress.
        """
        result = self.check_round(lines, flip7_choice)
        stored: tuple[LiveEvent, ...] | None = None
        if events is not None:
            live = self._replay_live(events, len(self.rounds) + 1, 1)
            if not live.over or not _same_lines(live.final_lines(), result.lines):
                raise ScorecardError("the live events do not end in these lines")
            stored = live.events
        elif (
            self.live is not None
            and self.live.over
            and _same_lines(self.live.final_lines(), result.lines)
        ):
            stored = self.live.events
        entry = _Entry(result.lines, result.minus15, 1, stored)
        rounds = self._build([*self._entries(), entry], first_bad=len(self.rounds) + 1)
        return replace(self, rounds=rounds, version=self.version + 1, live=None)

    def _round(self, number: int) -> Round:
        if type(number) is not int or not 1 <= number <= len(self.rounds):
            count = len(self.rounds)
            raise ScorecardError(
                f"there is no round {number}: the scorecard has {count} round"
                f"{'' if count == 1 else 's'}"
            )
        return self.rounds[number - 1]

    def _check_revision(self, current: Round, revision: int) -> None:
        if revision != current.revision:
            raise StaleRound(
                f"round {current.number} was changed meanwhile (it is at revision "
                f"{current.revision}, not {revision}): look at it again",
                current.revision,
            )

    def edit_round(
        self,
        number: int,
        *,
        revision: int,
        lines: Sequence[Any],
        flip7_choice: Any = None,
    ) -> Scorecard:
        """The scorecard with round ``number`` (1-based) replaced, made from ``revision`` of
        it (:class:`StaleRound` otherwise); the totals after it are worked out again. An edit
        that would end the game before the last round is refused. An edited live round keeps
        its events only if its lines are unchanged.

        >>> card = Scorecard.new(["Ann", "Bob", "Cyd"]).add_round(["5", "6", "7"])
        >>> card = card.edit_round(1, revision=1, lines=["5", "6", "bust 7 7"])
        >>> card.totals, card.rounds[0].revision
        ((5, 6, 0), 2)
        """
        current = self._round(number)
        self._check_revision(current, revision)
        result = self.check_round(lines, flip7_choice, number=number)
        events = current.events if result.lines == current.lines else None
        entries = self._entries()
        entries[number - 1] = _Entry(result.lines, result.minus15, current.revision + 1, events)
        rounds = self._build(entries, first_bad=number)
        card = replace(self, rounds=rounds, version=self.version + 1)
        return card._refresh_live()

    def undo_round(self, *, revision: int, number: int | None = None) -> Scorecard:
        """The scorecard without its last round (``revision`` is that round's revision;
        ``number``, if given, must be the last round's). Ends the live round in progress."""
        if not self.rounds:
            raise ScorecardError("there is no round to undo")
        last = self.rounds[-1]
        if number is not None and number != last.number:
            raise ScorecardError(
                f"only the last round can be undone: that is round {last.number}, not {number}"
            )
        self._check_revision(last, revision)
        return replace(self, rounds=self.rounds[:-1], version=self.version + 1, live=None)

    # ------------------------------------------------------------------ live mode

    def _carried_out(self, before: int) -> Counter[Card]:
        """The cards out of the draw pile (in the discard pile) when round ``before``
        (1-based) starts: every round's cards since the last reshuffle. A typed-in round
        shows only its line cards; a live round all its cards."""
        out: Counter[Card] = Counter()
        deck = deck_counts(self.decks)
        for r in self.rounds[: before - 1]:
            if r.events is not None:
                try:
                    out = _replay(self.players, self.rules, self.decks, r.events, out).out
                    continue
                except ScorecardError:
                    pass  # no longer replays on this history: count its lines, as typed in
            for line in r.lines:
                out.update(line.known)
            if any(out[c] > deck[c] for c in out):
                # The pile must have run out and been reshuffled in that round.
                out = Counter(c for line in r.lines for c in line.known)
        return out

    def _replay_live(self, events: Sequence[Any], number: int, revision: int) -> LiveRound:
        previous = self.rounds[number - 2].totals if number > 1 else (0,) * len(self.players)
        return LiveRound.replay(
            self.players,
            events,
            rules=self.rules,
            decks=self.decks,
            totals=previous,
            out=self._carried_out(number),
            number=number,
            revision=revision,
        )

    def live_round(self, events: Sequence[Any], *, based_on: int) -> Scorecard:
        """The scorecard with the live round's events replaced by ``events`` (every event so
        far), made from live revision ``based_on`` (0 for a new live round;
        :class:`StaleRound` if the live round changed meanwhile). A bad event raises
        :class:`ScorecardError` naming it. When the round is over, :meth:`add_live_round`
        stores it (or :meth:`add_round` with its final lines)."""
        current = self.live.revision if self.live is not None else 0
        if based_on != current:
            raise StaleRound(
                f"the live round was changed meanwhile (it is at revision {current}, not "
                f"{based_on}): look at it again",
                current,
            )
        if self.over:
            raise ScorecardError(self._over_message())
        if isinstance(events, str | bytes) or not isinstance(events, Sequence):
            raise ScorecardError("events are a list of event objects")
        live = self._replay_live(events, len(self.rounds) + 1, current + 1)
        return replace(self, version=self.version + 1, live=live)

    def abandon_live(self) -> Scorecard:
        """The scorecard without its live round in progress."""
        if self.live is None:
            return self
        return replace(self, version=self.version + 1, live=None)

    def add_live_round(self, flip7_choice: Any = None) -> Scorecard:
        """Store the live round in progress, once it is over, as the next round."""
        if self.live is None:
            raise ScorecardError("no round is being entered live")
        lines = self.live.final_lines()
        return self.add_round(lines, flip7_choice, events=self.live.events)

    def _refresh_live(self) -> Scorecard:
        """After an edit: the live round replayed on the new history (dropped if it no
        longer replays)."""
        if self.live is None:
            return self
        if self.over:
            return replace(self, live=None)
        try:
            live = self._replay_live(self.live.events, len(self.rounds) + 1, self.live.revision)
        except ScorecardError:
            return replace(self, live=None)
        return replace(self, live=live)

    # ------------------------------------------------------------------ JSON and CSV

    def to_json(self) -> dict[str, Any]:
        """The stored form: what :meth:`from_json` reads back."""
        return {
            "format": FORMAT,
            "name": self.name,
            "players": list(self.players),
            "rules": self.rules.to_json(full=True),
            "decks": self.decks,
            "version": self.version,
            "rounds": [r.to_json() for r in self.rounds],
            "live": None
            if self.live is None
            else {
                "events": [e.to_json() for e in self.live.events],
                "revision": self.live.revision,
            },
        }

    @classmethod
    def from_json(cls, data: Any) -> Scorecard:
        """Read the stored form back, checking everything (every round is scored again);
        bad data raises :class:`ScorecardError` saying what is wrong.

        >>> card = Scorecard.new(["Ann", "Bob", "Cyd"]).add_round(["5", "bust", "13 L13"])
        >>> Scorecard.from_json(card.to_json()) == card
        True
        >>> Scorecard.from_json({"format": "flip7-scorecard/1", "players": ["A", "B", "C"],
        ...                      "rounds": [{"lines": ["5"]}]})
        Traceback (most recent call last):
        ...
        flip7...ScorecardError: rounds[0]: lines: a line is an object {"cards": ...
        """
        if not isinstance(data, Mapping):
            raise ScorecardError("a scorecard is a JSON object")
        if data.get("format") != FORMAT:
            raise ScorecardError(f"format must be {FORMAT!r}, not {data.get('format')!r}")
        known = {"format", "name", "players", "rules", "decks", "version", "rounds", "live"}
        unknown = set(data) - known
        if unknown:
            raise ScorecardError(f"unknown scorecard keys: {', '.join(sorted(map(str, unknown)))}")
        try:
            rules = Rules.from_json(data.get("rules", {}))
        except RulesError as exc:
            raise ScorecardError(f"rules: {exc}") from None
        version = data.get("version", 1)
        if type(version) is not int or version < 1:
            raise ScorecardError(f"version must be a whole number >= 1, not {version!r}")
        players = data.get("players")
        if not isinstance(players, list):
            raise ScorecardError("players is a list of names")
        card = cls.new(players, rules=rules, decks=data.get("decks"), name=data.get("name", ""))
        raw_rounds = data.get("rounds", [])
        if not isinstance(raw_rounds, list):
            raise ScorecardError("rounds is a list")
        entries = []
        for i, raw in enumerate(raw_rounds):
            where = f"rounds[{i}]"
            if not isinstance(raw, Mapping):
                raise ScorecardError(f"{where}: a round is a JSON object")
            extra = set(raw) - {"lines", "flip7_choice", "revision", "events"}
            if extra:
                raise ScorecardError(f"{where}: unknown keys {', '.join(sorted(map(str, extra)))}")
            lines = raw.get("lines")
            if not isinstance(lines, list):
                raise ScorecardError(f"{where}: lines is a list, one line per player")
            try:
                entry_lines = tuple(LineEntry.from_json(line) for line in lines)
            except ScorecardError as exc:
                raise ScorecardError(f"{where}: lines: {exc}") from None
            minus15, problem = _choice_of(raw.get("flip7_choice"))
            if problem is not None:
                raise ScorecardError(f"{where}: {problem.message}")
            revision = raw.get("revision", 1)
            if type(revision) is not int or revision < 1:
                raise ScorecardError(f"{where}: revision must be a whole number >= 1")
            events = raw.get("events")
            parsed_events = None
            if events is not None:
                if not isinstance(events, list):
                    raise ScorecardError(f"{where}: events is a list or null")
                try:
                    parsed_events = tuple(LiveEvent.from_json(e) for e in events)
                except ScorecardError as exc:
                    raise ScorecardError(f"{where}: events: {exc}") from None
            entries.append(_Entry(entry_lines, minus15, revision, parsed_events))
        try:
            rounds = card._build(entries)
        except RoundInvalid as exc:
            raise ScorecardError(f"bad stored rounds: {exc}") from None
        card = replace(card, rounds=rounds, version=version)
        live = data.get("live")
        if live is not None:
            if not isinstance(live, Mapping) or set(live) != {"events", "revision"}:
                raise ScorecardError('live is null or {"events": [...], "revision": n}')
            revision = live["revision"]
            if type(revision) is not int or revision < 1 or not isinstance(live["events"], list):
                raise ScorecardError("live: events is a list and revision a whole number >= 1")
            try:
                replayed = card._replay_live(live["events"], len(rounds) + 1, revision)
            except ScorecardError as exc:
                raise ScorecardError(f"live: {exc}") from None
            card = replace(card, live=replayed)
        return card

    def summary_json(self) -> dict[str, Any]:
        """Everything a page shows: players, rules, totals, status (``"playing"`` or
        ``"over"``), winners and leaders (seats), ``leader`` (the leader's name, or the tied
        leaders' names, ``None`` before the first round), ``extra_round``, ``message`` (the
        status line), every round (scores, running totals, Flip 7 seat...) and the live
        round (its state and advice) or ``None``."""
        leaders = self.leaders
        return {
            "name": self.name,
            "players": list(self.players),
            "rules": self.rules.to_json(full=True),
            "decks": self.decks,
            "version": self.version,
            "status": self.status,
            "over": self.over,
            "winners": list(self.winners),
            "winner_names": [self.players[s] for s in self.winners],
            "leaders": list(leaders),
            "leader": _names_text([self.players[s] for s in leaders]) if leaders else None,
            "extra_round": self.extra_round,
            "message": self.status_line(),
            "target": self.rules.target_score,
            "totals": list(self.totals),
            "rounds": [r.summary_json() for r in self.rounds],
            "live": None if self.live is None else self.live.to_json(),
        }

    def to_csv(self) -> str:
        """One row per round: the round number, then each player's cards, round score and
        running total, then a note (Flip 7, the −15).

        >>> card = Scorecard.new(["Ann", "Bob", "Cyd"]).add_round(["5 /2", "bust 5 5", "1"])
        >>> for row in card.to_csv().splitlines():
        ...     print(row)
        round,Ann cards,Ann score,Ann total,Bob cards,Bob score,Bob total,Cyd cards,...,note
        1,5 /2,2,2,bust: 5 5,0,0,1,1,1,
        """
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        header = ["round"]
        for name in self.players:
            header += [f"{name} cards", f"{name} score", f"{name} total"]
        writer.writerow([*header, "note"])
        for r in self.rounds:
            row: list[Any] = [r.number]
            for seat, line in enumerate(r.lines):
                row += [
                    line.text() if line.cards or line.busted else "",
                    r.scores[seat],
                    r.totals[seat],
                ]
            notes = []
            if r.flip7_seat is not None:
                notes.append(f"Flip 7: {self.players[r.flip7_seat]}")
            if r.minus15 is not None:
                notes.append(f"−15 on {self.players[r.minus15]}")
            writer.writerow([*row, "; ".join(notes)])
        return buffer.getvalue()
