"""Decisions: what a player chooses, as typed values and as the strings of RECORD.md §5.

>>> parse_decision("swap 2 8 0 L13")
Swap(seat1=0, card1=Card.LUCKY_13, seat2=2, card2=Card.EIGHT)
>>> str(parse_decision("  steal 1  ÷2 "))
'steal 1 /2'
>>> parse_decision("hit") is HIT
True
>>> parse_decision("hold")
Traceback (most recent call last):
...
flip7.core.errors.DecisionError: unknown decision 'hold'; decisions are hit, stay, target S, ...
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar, TypeAlias

from flip7.core.cards import Card
from flip7.core.errors import CardError, DecisionError
from flip7.core.jsontypes import JSON, JSONObject

__all__ = [
    "BONUS",
    "HIT",
    "STAY",
    "Bonus",
    "Decision",
    "DecisionKind",
    "Discard",
    "Give",
    "Hit",
    "Minus",
    "Pass",
    "Stay",
    "Steal",
    "Swap",
    "Target",
    "discard_of",
    "parse_decision",
    "steal_of",
    "swap_of",
]


class DecisionKind(Enum):
    """What the player who must decide is being asked."""

    HIT_OR_STAY = "hit_or_stay"
    TARGET = "target"  # who Just One More! or Flip Four! is used on
    GIVE = "give"  # who gets a revealed Modifier
    PASS = "pass"  # who uses a Steal, Swap or Discard (pass_actions)
    STEAL = "steal"
    SWAP = "swap"
    DISCARD = "discard"
    FLIP7_CHOICE = "flip7_choice"  # Brutal: +15 or −15 to another player


@dataclass(frozen=True, slots=True)
class Hit:
    """Take the top card of the draw pile."""

    verb: ClassVar[str] = "hit"

    def __str__(self) -> str:
        return "hit"

    def to_json(self) -> JSONObject:
        """The decision as the seat's view lists it (``text`` is :func:`str`'s).

        >>> HIT.to_json()
        {'text': 'hit', 'verb': 'hit'}
        """
        return _json(self)


@dataclass(frozen=True, slots=True)
class Stay:
    """Stop for this round."""

    verb: ClassVar[str] = "stay"

    def __str__(self) -> str:
        return "stay"

    def to_json(self) -> JSONObject:
        """The decision as the seat's view lists it (``text`` is :func:`str`'s).

        >>> STAY.to_json()
        {'text': 'stay', 'verb': 'stay'}
        """
        return _json(self)


@dataclass(frozen=True, slots=True)
class Target:
    """The player a Just One More! or Flip Four! is used on."""

    verb: ClassVar[str] = "target"

    seat: int

    def __str__(self) -> str:
        return f"target {self.seat}"

    def to_json(self) -> JSONObject:
        """The decision as the seat's view lists it (``text`` is :func:`str`'s).

        >>> Target(2).to_json()
        {'text': 'target 2', 'verb': 'target', 'seat': 2}
        """
        return _json(self, seat=self.seat)


@dataclass(frozen=True, slots=True)
class Give:
    """The player who receives a revealed Modifier (may be the revealer)."""

    verb: ClassVar[str] = "give"

    seat: int

    def __str__(self) -> str:
        return f"give {self.seat}"

    def to_json(self) -> JSONObject:
        """The decision as the seat's view lists it (``text`` is :func:`str`'s).

        >>> Give(0).to_json()
        {'text': 'give 0', 'verb': 'give', 'seat': 0}
        """
        return _json(self, seat=self.seat)


@dataclass(frozen=True, slots=True)
class Pass:
    """With ``pass_actions``: the player who uses a Steal, Swap or Discard."""

    verb: ClassVar[str] = "pass"

    seat: int

    def __str__(self) -> str:
        return f"pass {self.seat}"

    def to_json(self) -> JSONObject:
        """The decision as the seat's view lists it (``text`` is :func:`str`'s).

        >>> Pass(1).to_json()
        {'text': 'pass 1', 'verb': 'pass', 'seat': 1}
        """
        return _json(self, seat=self.seat)


@dataclass(frozen=True, slots=True)
class Steal:
    """Take ``card`` from seat ``seat``'s line into your own."""

    verb: ClassVar[str] = "steal"

    seat: int
    card: Card

    def __str__(self) -> str:
        return f"steal {self.seat} {self.card.code}"

    def to_json(self) -> JSONObject:
        """The decision as the seat's view lists it (``text`` is :func:`str`'s).

        >>> Steal(2, Card.LUCKY_13).to_json()
        {'text': 'steal 2 L13', 'verb': 'steal', 'seat': 2, 'card': 'L13'}
        """
        return _json(self, seat=self.seat, card=self.card.code)


@dataclass(frozen=True, slots=True)
class Swap:
    """Exchange ``card1`` of ``seat1`` with ``card2`` of ``seat2``; stored lower seat first."""

    verb: ClassVar[str] = "swap"

    seat1: int
    card1: Card
    seat2: int
    card2: Card

    def __post_init__(self) -> None:
        if self.seat1 > self.seat2:
            s1, c1 = self.seat1, self.card1
            object.__setattr__(self, "seat1", self.seat2)
            object.__setattr__(self, "card1", self.card2)
            object.__setattr__(self, "seat2", s1)
            object.__setattr__(self, "card2", c1)

    def __str__(self) -> str:
        return f"swap {self.seat1} {self.card1.code} {self.seat2} {self.card2.code}"

    def to_json(self) -> JSONObject:
        """The decision as the seat's view lists it (``text`` is :func:`str`'s).

        >>> swap = Swap(2, Card.EIGHT, 0, Card.DIVIDE_2).to_json()
        >>> swap["text"], swap["verb"], swap["seat1"], swap["card1"], swap["seat2"], swap["card2"]
        ('swap 0 /2 2 8', 'swap', 0, '/2', 2, '8')
        """
        return _json(
            self, seat1=self.seat1, card1=self.card1.code, seat2=self.seat2, card2=self.card2.code
        )


@dataclass(frozen=True, slots=True)
class Discard:
    """Seat ``seat`` discards ``card``."""

    verb: ClassVar[str] = "discard"

    seat: int
    card: Card

    def __str__(self) -> str:
        return f"discard {self.seat} {self.card.code}"

    def to_json(self) -> JSONObject:
        """The decision as the seat's view lists it (``text`` is :func:`str`'s).

        >>> Discard(1, Card.FLIP_FOUR).to_json()
        {'text': 'discard 1 FLIP4', 'verb': 'discard', 'seat': 1, 'card': 'FLIP4'}
        """
        return _json(self, seat=self.seat, card=self.card.code)


@dataclass(frozen=True, slots=True)
class Bonus:
    """Brutal Flip 7: take +15."""

    verb: ClassVar[str] = "bonus"

    def __str__(self) -> str:
        return "bonus"

    def to_json(self) -> JSONObject:
        """The decision as the seat's view lists it (``text`` is :func:`str`'s).

        >>> BONUS.to_json()
        {'text': 'bonus', 'verb': 'bonus'}
        """
        return _json(self)


@dataclass(frozen=True, slots=True)
class Minus:
    """Brutal Flip 7: subtract 15 from seat ``seat``'s running total."""

    verb: ClassVar[str] = "minus"

    seat: int

    def __str__(self) -> str:
        return f"minus {self.seat}"

    def to_json(self) -> JSONObject:
        """The decision as the seat's view lists it (``text`` is :func:`str`'s).

        >>> Minus(3).to_json()
        {'text': 'minus 3', 'verb': 'minus', 'seat': 3}
        """
        return _json(self, seat=self.seat)


Decision: TypeAlias = Hit | Stay | Target | Give | Pass | Steal | Swap | Discard | Bonus | Minus

HIT = Hit()
STAY = Stay()
BONUS = Bonus()


# A frozen dataclass costs about a microsecond to build, and the engine lists these at every
# Steal, Swap and Discard and bots return them as often: one shared value per move instead.
@functools.lru_cache(maxsize=1 << 14)
def steal_of(seat: int, card: Card) -> Steal:
    """The one shared ``Steal(seat, card)`` (equal to a new one, cheaper to get).

    >>> steal_of(2, Card.FIVE) is steal_of(2, Card.FIVE) == Steal(2, Card.FIVE)
    True
    """
    return Steal(seat, card)


@functools.lru_cache(maxsize=1 << 14)
def discard_of(seat: int, card: Card) -> Discard:
    """The one shared ``Discard(seat, card)``."""
    return Discard(seat, card)


@functools.lru_cache(maxsize=1 << 16)
def swap_of(seat1: int, card1: Card, seat2: int, card2: Card) -> Swap:
    """The one shared ``Swap(seat1, card1, seat2, card2)`` for these arguments (stored
    lower seat first, as :class:`Swap` stores it).

    >>> str(swap_of(2, Card.EIGHT, 0, Card.DIVIDE_2))
    'swap 0 /2 2 8'
    """
    return Swap(seat1, card1, seat2, card2)

_USAGE = (
    "decisions are hit, stay, target S, give S, pass S, steal S CARD, "
    "swap S1 CARD1 S2 CARD2, discard S CARD, bonus, minus S"
)


def _json(decision: Decision, **fields: JSON) -> JSONObject:
    """``decision`` as a JSON object: its ``text``, its ``verb`` and its ``fields`` (seats
    and card codes, named as the decision class names them)."""
    return {"text": str(decision), "verb": decision.verb, **fields}


def _seat(word: str, text: str) -> int:
    if not word.isdigit() or not word.isascii():
        raise DecisionError(f"bad seat {word!r} in decision {text!r}: a seat is a number 0, 1, ...")
    return int(word)


def _card(word: str, text: str) -> Card:
    try:
        return Card.parse(word)
    except CardError as exc:
        raise DecisionError(f"in decision {text!r}: {exc}") from None


def parse_decision(text: str) -> Decision:
    """Read a decision string of RECORD.md §5 (extra spaces and card spellings are normalised)."""
    if not isinstance(text, str):
        raise DecisionError(f"a decision must be a string, not {text!r}")
    words = text.split()
    if not words:
        raise DecisionError(f"empty decision; {_USAGE}")
    verb, args = words[0], words[1:]
    shape = {
        "hit": 0, "stay": 0, "bonus": 0, "target": 1, "give": 1, "pass": 1, "minus": 1,
        "steal": 2, "discard": 2, "swap": 4,
    }  # fmt: skip
    if verb not in shape:
        raise DecisionError(f"unknown decision {text!r}; {_USAGE}")
    if len(args) != shape[verb]:
        raise DecisionError(f"decision {text!r} needs {shape[verb]} argument(s) after {verb!r}")
    if verb == "hit":
        return HIT
    if verb == "stay":
        return STAY
    if verb == "bonus":
        return BONUS
    if verb == "target":
        return Target(_seat(args[0], text))
    if verb == "give":
        return Give(_seat(args[0], text))
    if verb == "pass":
        return Pass(_seat(args[0], text))
    if verb == "minus":
        return Minus(_seat(args[0], text))
    if verb == "steal":
        return Steal(_seat(args[0], text), _card(args[1], text))
    if verb == "discard":
        return Discard(_seat(args[0], text), _card(args[1], text))
    return Swap(
        _seat(args[0], text), _card(args[1], text), _seat(args[2], text), _card(args[3], text)
    )
