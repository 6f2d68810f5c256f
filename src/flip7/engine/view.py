"""What a seat or a spectator may see of a game.

A view holds every line, stayed/busted, the scores, the draw pile's size, the discard
pile and whose decision it is. It never holds the draw pile's order or the random state,
so it can be sent to any client. The legal options are in the view of the seat that
must decide, and only there.

>>> from flip7 import Game
>>> game = Game.new(["Ann", "Bob", "Cyd"], explicit=True, dealer=2)
>>> for code in ["5", "L13", "9"]:
...     _ = game.draw(code)
>>> view = game.view(0)
>>> [p.line for p in view.players]
[(Card.FIVE,), (Card.LUCKY_13,), (Card.NINE,)]
>>> view.to_decide, [str(d) for d in view.legal_decisions], game.view(1).legal_decisions
(0, ['hit', 'stay'], ())
>>> GameView.from_json(view.to_json()) == view
True
"""

from __future__ import annotations

from dataclasses import dataclass

from flip7.core.cards import Card
from flip7.core.decisions import Decision, DecisionKind, parse_decision
from flip7.core.jsontypes import JSON, JSONObject
from flip7.core.lines import Status
from flip7.core.rules import Rules
from flip7.core.scoring import RoundResult
from flip7.engine.state import Phase

__all__ = ["GameView", "SeatView"]


# Reading a view back: each value must have the type to_json gives it.


def _wrong(value: JSON, what: str) -> TypeError:
    return TypeError(f"a view holds {what} here, not {value!r}")


def _int(value: JSON) -> int:
    if type(value) is not int:
        raise _wrong(value, "an integer")
    return value


def _seat(value: JSON) -> int | None:
    return None if value is None else _int(value)


def _str(value: JSON) -> str:
    if not isinstance(value, str):
        raise _wrong(value, "a string")
    return value


def _bool(value: JSON) -> bool:
    if not isinstance(value, bool):
        raise _wrong(value, "true or false")
    return value


def _list(value: JSON) -> list[JSON]:
    if not isinstance(value, list):
        raise _wrong(value, "a list")
    return value


def _object(value: JSON) -> JSONObject:
    if not isinstance(value, dict):
        raise _wrong(value, "an object")
    return value


def _cards(codes: JSON) -> tuple[Card, ...]:
    return tuple(Card.parse(_str(code)) for code in _list(codes))


@dataclass(frozen=True, slots=True)
class SeatView:
    """One player as the table sees them."""

    seat: int
    name: str
    status: Status
    line: tuple[Card, ...]
    modifiers: tuple[Card, ...]
    number_sum: int
    round_score: int  # what the line scores if the round ends now
    total: int

    def to_json(self) -> JSONObject:
        return {
            "seat": self.seat,
            "name": self.name,
            "status": str(self.status),
            "line": [c.code for c in self.line],
            "modifiers": [c.code for c in self.modifiers],
            "number_sum": self.number_sum,
            "round_score": self.round_score,
            "total": self.total,
        }

    @classmethod
    def from_json(cls, data: JSONObject) -> SeatView:
        return cls(
            seat=_int(data["seat"]),
            name=_str(data["name"]),
            status=Status[_str(data["status"]).upper()],
            line=_cards(data["line"]),
            modifiers=_cards(data["modifiers"]),
            number_sum=_int(data["number_sum"]),
            round_score=_int(data["round_score"]),
            total=_int(data["total"]),
        )


@dataclass(frozen=True, slots=True)
class GameView:
    """The public state of a game as ``viewer`` (a seat, or None for a spectator) sees it."""

    viewer: int | None
    players: tuple[SeatView, ...]
    rules: Rules
    decks: int
    round: int
    dealer: int
    phase: Phase
    draw_pile_size: int
    discard_pile: tuple[Card, ...]
    set_aside: tuple[Card, ...]
    to_decide: int | None
    decision_kind: DecisionKind | None
    pending_card: Card | None
    legal_decisions: tuple[Decision, ...]
    needs_card: bool
    rounds: tuple[RoundResult, ...]
    over: bool
    winners: tuple[int, ...]

    def to_json(self) -> JSONObject:
        return {
            "viewer": self.viewer,
            "players": [p.to_json() for p in self.players],
            "rules": self.rules.to_json(),
            "decks": self.decks,
            "round": self.round,
            "dealer": self.dealer,
            "phase": self.phase.value,
            "draw_pile_size": self.draw_pile_size,
            "discard_pile": [c.code for c in self.discard_pile],
            "set_aside": [c.code for c in self.set_aside],
            "to_decide": self.to_decide,
            "decision_kind": None if self.decision_kind is None else self.decision_kind.value,
            "pending_card": None if self.pending_card is None else self.pending_card.code,
            "legal_decisions": [str(d) for d in self.legal_decisions],
            "needs_card": self.needs_card,
            "rounds": [r.to_json() for r in self.rounds],
            "over": self.over,
            "winners": list(self.winners),
        }

    @classmethod
    def from_json(cls, data: JSONObject) -> GameView:
        kind = data["decision_kind"]
        pending = data["pending_card"]
        return cls(
            viewer=_seat(data["viewer"]),
            players=tuple(SeatView.from_json(_object(p)) for p in _list(data["players"])),
            rules=Rules.from_json(data["rules"]),
            decks=_int(data["decks"]),
            round=_int(data["round"]),
            dealer=_int(data["dealer"]),
            phase=Phase(data["phase"]),
            draw_pile_size=_int(data["draw_pile_size"]),
            discard_pile=_cards(data["discard_pile"]),
            set_aside=_cards(data["set_aside"]),
            to_decide=_seat(data["to_decide"]),
            decision_kind=None if kind is None else DecisionKind(kind),
            pending_card=None if pending is None else Card.parse(_str(pending)),
            legal_decisions=tuple(parse_decision(_str(d)) for d in _list(data["legal_decisions"])),
            needs_card=_bool(data["needs_card"]),
            rounds=tuple(RoundResult.from_json(_object(r)) for r in _list(data["rounds"])),
            over=_bool(data["over"]),
            winners=tuple(_int(s) for s in _list(data["winners"])),
        )
