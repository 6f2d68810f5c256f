"""Typed events: every transition of a game reports what happened, in order.

A UI animates them and a log prints them; ``to_json`` gives the wire form. A few carry
words for a log saying why (``Busted.reason``, ``Stayed.reason``, ``RoundScored.reasons``):
the engine fills them only when it keeps events, and they take no part in comparing events
(two events that say the same thing are equal whatever the words).

>>> from flip7.core.cards import Card
>>> Drew(seat=1, card=Card.LUCKY_13, cause="hit").to_json()
{'type': 'drew', 'seat': 1, 'card': 'L13', 'cause': 'hit'}
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import ClassVar, Literal, TypeAlias

from flip7.core.cards import Card
from flip7.core.jsontypes import JSON, JSONObject

__all__ = [
    "ActionUsed",
    "BonusTaken",
    "Busted",
    "Dealt",
    "Discarded",
    "Drew",
    "Event",
    "Flip7",
    "GameOver",
    "Minus15",
    "ModifierGiven",
    "Passed",
    "Reshuffled",
    "RoundScored",
    "RoundStarted",
    "SetAside",
    "Stayed",
    "Stolen",
    "Swapped",
    "Unused",
    "Wiped",
]

DrawCause = Literal["hit", "just_one_more", "flip_four"]
UnusedReason = Literal["no_legal_use", "busted", "round_over"]


def _json(value: object) -> JSON:
    if isinstance(value, Card):
        return value.code
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    assert value is None or isinstance(value, (str, int, float, bool)), value
    return value


class _EventBase:
    __slots__ = ()
    type: ClassVar[str]

    def to_json(self) -> JSONObject:
        out: JSONObject = {"type": self.type}
        for f in fields(self):  # type: ignore[arg-type]
            out[f.name] = _json(getattr(self, f.name))
        return out


@dataclass(frozen=True, slots=True)
class RoundStarted(_EventBase):
    """A round begins; ``round`` counts from 1."""

    type: ClassVar[str] = "round_started"
    round: int
    dealer: int


@dataclass(frozen=True, slots=True)
class Dealt(_EventBase):
    """The initial deal turned ``card`` face-up for ``seat``."""

    type: ClassVar[str] = "dealt"
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Drew(_EventBase):
    """``seat`` revealed ``card`` from the draw pile (by Hit or a forced draw)."""

    type: ClassVar[str] = "drew"
    seat: int
    card: Card
    cause: DrawCause


@dataclass(frozen=True, slots=True)
class SetAside(_EventBase):
    """During Flip Four, an Action or Modifier waits until the four cards are done."""

    type: ClassVar[str] = "set_aside"
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Reshuffled(_EventBase):
    """The discard pile was shuffled to form a new draw pile of ``cards`` cards."""

    type: ClassVar[str] = "reshuffled"
    cards: int


@dataclass(frozen=True, slots=True)
class Wiped(_EventBase):
    """Unlucky 7 arrived: ``cards`` left ``seat``'s line for the discard pile."""

    type: ClassVar[str] = "wiped"
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Busted(_EventBase):
    """``seat`` received ``card``, a duplicate no exception allows; ``reason`` says which
    (:func:`flip7.core.lines.bust_reason`: ``a second 10``), ``reason_code`` the same as a
    code (:func:`flip7.core.lines.bust_reason_code`: ``copy_2``) for clients' own words."""

    type: ClassVar[str] = "busted"
    seat: int
    card: Card
    reason: str | None = field(default=None, compare=False)
    reason_code: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Stayed(_EventBase):
    """``seat`` stayed; ``forced`` by Just One More!, which ``reason`` then names (and
    ``by`` gives as a card)."""

    type: ClassVar[str] = "stayed"
    seat: int
    forced: bool
    reason: str | None = field(default=None, compare=False)
    by: Card | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Flip7(_EventBase):
    """``seat`` holds seven Number cards: the round ends at once."""

    type: ClassVar[str] = "flip7"
    seat: int


@dataclass(frozen=True, slots=True)
class ActionUsed(_EventBase):
    """``seat`` used Just One More! or Flip Four! (``card``) on ``target``."""

    type: ClassVar[str] = "action_used"
    seat: int
    card: Card
    target: int


@dataclass(frozen=True, slots=True)
class Unused(_EventBase):
    """An Action or Modifier of ``seat`` went to the discard pile without effect."""

    type: ClassVar[str] = "unused"
    seat: int
    card: Card
    reason: UnusedReason


@dataclass(frozen=True, slots=True)
class Passed(_EventBase):
    """With ``pass_actions``: ``seat`` handed ``card`` to ``to``, who uses it."""

    type: ClassVar[str] = "passed"
    seat: int
    card: Card
    to: int


@dataclass(frozen=True, slots=True)
class Stolen(_EventBase):
    """``seat`` stole ``card`` from ``victim``."""

    type: ClassVar[str] = "stolen"
    seat: int
    victim: int
    card: Card


@dataclass(frozen=True, slots=True)
class Swapped(_EventBase):
    """``seat`` swapped ``card1`` of ``seat1`` with ``card2`` of ``seat2``."""

    type: ClassVar[str] = "swapped"
    seat: int
    seat1: int
    card1: Card
    seat2: int
    card2: Card


@dataclass(frozen=True, slots=True)
class Discarded(_EventBase):
    """``seat`` used Discard: ``card`` left ``victim``'s line."""

    type: ClassVar[str] = "discarded"
    seat: int
    victim: int
    card: Card


@dataclass(frozen=True, slots=True)
class ModifierGiven(_EventBase):
    """``seat`` gave the Modifier ``card`` to ``to`` (possibly itself)."""

    type: ClassVar[str] = "modifier_given"
    seat: int
    to: int
    card: Card


@dataclass(frozen=True, slots=True)
class BonusTaken(_EventBase):
    """Brutal Flip 7: ``seat`` took +15."""

    type: ClassVar[str] = "bonus_taken"
    seat: int


@dataclass(frozen=True, slots=True)
class Minus15(_EventBase):
    """Brutal Flip 7: ``seat`` took 15 off ``target``'s running total."""

    type: ClassVar[str] = "minus15"
    seat: int
    target: int


@dataclass(frozen=True, slots=True)
class RoundScored(_EventBase):
    """A round ended and was scored; ``totals`` include it (and any −15).

    ``lines`` and ``modifiers`` are every seat's cards as scored (busted lines included);
    ``reasons`` says, seat by seat, why a score is not just its line's number total
    (:func:`flip7.core.scoring.score_reason`: ``The Zero without a Flip 7``), or ``None``;
    ``reason_codes`` the same as codes (:func:`flip7.core.scoring.score_reason_code`).
    """

    type: ClassVar[str] = "round_scored"
    round: int
    dealer: int
    scores: tuple[int, ...]
    busted: tuple[int, ...]
    flip7: int | None
    minus15: int | None
    totals: tuple[int, ...]
    lines: tuple[tuple[Card, ...], ...]
    modifiers: tuple[tuple[Card, ...], ...]
    reasons: tuple[str | None, ...] = field(default=(), compare=False)
    reason_codes: tuple[str | None, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class GameOver(_EventBase):
    """The game has ended; ``winners`` hold the highest total."""

    type: ClassVar[str] = "game_over"
    winners: tuple[int, ...]
    totals: tuple[int, ...]


Event: TypeAlias = (
    RoundStarted | Dealt | Drew | SetAside | Reshuffled | Wiped | Busted | Stayed | Flip7
    | ActionUsed | Unused | Passed | Stolen | Swapped | Discarded | ModifierGiven | BonusTaken
    | Minus15 | RoundScored | GameOver
)  # fmt: skip
