"""The scorekeeper's rounds: a player's final line as entered (:class:`LineEntry`), the
problems that make a round invalid, a round scored (:class:`RoundCheck`, :class:`Round`)
with the rules of :mod:`flip7.core.lines` and :mod:`flip7.core.scoring`, and one event of
a live round (:class:`LiveEvent`). :mod:`flip7.scorekeeper.scorecard` names them all."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flip7.core.cards import Card, deck_counts
from flip7.core.errors import CardError, Flip7Error
from flip7.core.lines import FLIP7_CARDS, bust_reasons, flip7_count, has_duplicate, is_flip7
from flip7.core.rules import Rules
from flip7.core.scoring import score_round

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
    and a message a player understands; ``code`` and ``params`` say the same for a page that
    words it in another language (``scorekeeper.problem.<code>``, docs/i18n.md)."""

    seat: int | None
    message: str
    code: str = field(default="", compare=False)
    params: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "message": self.message}
        if self.code:
            out["code"] = self.code
            out["params"] = dict(self.params)
        return out


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
class RoundCheck(_RoundFigures):
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
            problems.append(Problem(seat, f'{name}: "{code}" is not a card; {CARDS_HELP}',
                                    "not_a_card", {"name": name, "card": code}))
        elif card.is_action:
            problems.append(
                Problem(
                    seat,
                    f"{name}: {_ACTION_NAMES[card]} is an Action card: "
                    "Actions never stay in a line",
                    "action_in_line", {"name": name, "card": card.code},
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
                    "bust_not_marked", {"name": name, "cards": shown},
                )
            )
        elif _over_limit(numbers, rules):
            problems.append(
                Problem(
                    seat,
                    f"{name}: {len(numbers)} Number cards cannot be in a line: "
                    + _flip7_rule(rules),
                    "too_many_numbers", {"name": name, "count": len(numbers)},
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
                    "marked_not_bust", {"name": name, "cards": shown},
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
                        "not_a_busted_line", {"name": name, "cards": shown},
                    )
                )
            elif all(is_flip7(b, rules.lucky13_pair_flip7_count) for b in clean):
                problems.append(
                    Problem(
                        seat,
                        f"{name}: {len(numbers)} Number cards cannot be in a busted line: "
                        f"{_flip7_rule(rules)}",
                        "too_many_busted", {"name": name, "count": len(numbers)},
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
                    "too_many_copies",
                    {"count": held[card], "card": card.code, "decks": decks, "most": deck[card]},
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
                "two_flip7", {"names": [players[s] for s in flip7_seats]},
            )
        )
    flip7_seat = flip7_seats[0] if len(flip7_seats) == 1 else None
    minus15, choice_problem = _choice_of(choice)
    if choice_problem is not None:
        problems.append(choice_problem)
    elif minus15 is not None:
        message = None
        code = ""
        params: dict[str, Any] = {}
        if not rules.brutal:
            message, code = "the −15 Flip 7 choice is for Brutal mode only", "minus15_not_brutal"
        elif not 0 <= minus15 < len(players):
            message = f"the −15 must go to a player: seat {minus15} is not one"
            code, params = "minus15_bad_seat", {"seat": minus15}
        elif flip7_seat is None and len(flip7_seats) < 2:
            message = "no line is a Flip 7: there is no Flip 7 choice to make"
            code = "no_flip7_choice"
        elif minus15 == flip7_seat:
            message, code = "the −15 must go to another player", "minus15_self"
        elif not rules.minus15_may_hit_busted and lines[minus15].busted:
            message = (
                f"the −15 must go to another player who has not busted ({players[minus15]} "
                "busted; rule brutal_minus15_targets)"
            )
            code, params = "minus15_busted", {"name": players[minus15]}
        if message is not None:
            problems.append(Problem(None, message, code, params))
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

_EVENT_TYPES = ("card", "stay", "move", "discard", "reshuffle", "flip4", "give", "use")
_EVENT_KEYS = {
    "card": {"type", "seat", "card"},
    "stay": {"type", "seat"},
    "move": {"type", "card", "from", "to"},
    "discard": {"type", "card", "from"},
    "reshuffle": {"type"},
    "flip4": {"type", "from", "to"},
    "give": {"type", "card", "from", "to"},
    "use": {"type", "card", "from"},
}


@dataclass(frozen=True, slots=True)
class LiveEvent:
    """One event of a live round (docs/scorekeeper.md): ``card`` (seat received card: a
    flip, a deal, a forced draw; an Action card is only recorded), ``stay``, ``move`` (Steal,
    or half of a Swap: two moves in a row between the same players in opposite directions
    are one Swap), ``discard`` and ``reshuffle``; and for a Flip Four! (§6.3): ``flip4``
    (``source`` plays it on ``target``, who takes the next cards), then, for the cards it
    set aside, ``give`` (its target gives a set-aside Modifier to ``target``) and ``use``
    (its target uses a set-aside Action now).

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
