"""What a table tells its clients happened, beside the game's own events
(flip7.core.events): seats taken and left, hand-overs, players ready or gone, a game
started, a turn timer run out, a lesson read. Each is a value that writes its own wire
form (``to_json``, an ``events`` entry of an ``update`` frame, docs/protocol.md).

>>> from flip7.server.base.formats import dumps
>>> dumps([SeatTaken(1, "Bob", "human").to_json(), Connection(1, False).to_json()])
'[{"type":"seat_taken","seat":1,"name":"Bob","kind":"human"},{"type":"disconnected","seat":1}]'
>>> GameStarted("g1", 2, dropped=("Bob",)).to_json()
{'type': 'game_started', 'game_id': 'g1', 'number': 2, 'dropped': ['Bob']}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from flip7.core.events import Event
from flip7.core.jsontypes import JSONObject

__all__ = [
    "Connection",
    "GameStarted",
    "Gone",
    "Ready",
    "Returned",
    "SeatLeft",
    "SeatTaken",
    "StandIn",
    "TableEvent",
    "Timeout",
    "TutorialProgress",
    "Update",
]


@dataclass(frozen=True, slots=True)
class SeatTaken:
    """A human or a bot sat down in ``seat``."""

    seat: int
    name: str
    kind: Literal["human", "bot"]

    def to_json(self) -> JSONObject:
        return {"type": "seat_taken", "seat": self.seat, "name": self.name, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """The player of ``seat`` left (before the game: the seat is empty again)."""

    seat: int

    def to_json(self) -> JSONObject:
        return {"type": "seat_left", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class StandIn:
    """The stand-in bot plays ``seat``, handed over ``by`` a seat (None: the server)."""

    seat: int
    by: int | None

    def to_json(self) -> JSONObject:
        return {"type": "stand_in", "seat": self.seat, "by": self.by}


@dataclass(frozen=True, slots=True)
class Returned:
    """The player of ``seat`` is back; the stand-in bot no longer plays it."""

    seat: int

    def to_json(self) -> JSONObject:
        return {"type": "returned", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Ready:
    """At the end screen, ``seat`` is ready for the next game (or no longer)."""

    seat: int
    ready: bool

    def to_json(self) -> JSONObject:
        return {"type": "ready", "seat": self.seat, "ready": self.ready}


@dataclass(frozen=True, slots=True)
class GameStarted:
    """Game ``number`` of the table started (its cards follow as the game's events), without
    the players ``dropped`` from a rematch."""

    game_id: str
    number: int
    dropped: tuple[str, ...] = ()

    def to_json(self) -> JSONObject:
        data: JSONObject = {"type": "game_started", "game_id": self.game_id,
                            "number": self.number}
        if self.dropped:
            data["dropped"] = list(self.dropped)
        return data


@dataclass(frozen=True, slots=True)
class Timeout:
    """The turn timer of ``seat`` ran out: the stand-in bot's decision follows."""

    seat: int

    def to_json(self) -> JSONObject:
        return {"type": "timeout", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class TutorialProgress:
    """A guided game's player read lesson ``read``, or skipped the rest (``read`` None)."""

    read: int | None

    def to_json(self) -> JSONObject:
        if self.read is None:
            return {"type": "tutorial", "skipped": True}
        return {"type": "tutorial", "read": self.read}


@dataclass(frozen=True, slots=True)
class Gone:
    """At the end screen, the player of ``seat`` has been away for ``rematch_wait``: the
    next game starts without them. Not a change: being gone is a matter of time."""

    seat: int

    def to_json(self) -> JSONObject:
        return {"type": "gone", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Connection:
    """The player of ``seat`` connected (a first socket) or disconnected (their last)."""

    seat: int
    connected: bool

    @property
    def type(self) -> Literal["connected", "disconnected"]:
        return "connected" if self.connected else "disconnected"

    def to_json(self) -> JSONObject:
        return {"type": self.type, "seat": self.seat}


TableEvent: TypeAlias = (
    SeatTaken | SeatLeft | StandIn | Returned | Ready | GameStarted | Timeout
    | TutorialProgress | Gone | Connection
)
"""An event the table makes itself, of whichever kind."""

Update: TypeAlias = list[TableEvent | Event]
"""What one change (or a presence) tells clients happened: the ``events`` of an update."""
