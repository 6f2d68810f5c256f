"""A table's changes: a seat taken, a bot added, a game started, a decision made.

Every change to a table is one of these values. The table applies it in memory
(:meth:`flip7.server.table.table.Table.apply`, dispatched on its class), the store keeps it
in the table's log (``table_log``: its :attr:`kind` and its :meth:`to_json` as text), and a
restart rebuilds the table by reading the log back (:func:`change_from_json`) and applying
every change again. The log's form is the one the server has always written, so that
tables stored by any earlier version still load: a change's :meth:`to_json` gives the same
keys in the same order, and only what the change holds (``player`` only for an identity,
``private`` only for a tutorial's first seat).

>>> from flip7.server.base.formats import dumps
>>> move = Move(seat=1, decision=parse_decision("discard 3 4"), by="human", move_id="m2")
>>> dumps(move.to_json())
'{"seat":1,"decision":"discard 3 4","id":"m2","by":"human"}'
>>> change_from_json("move", move.to_json()) == move
True
>>> dumps(HandOver(seat=2, by=None).to_json()), TutorialStep(read=None).to_json()
('{"seat":2,"by":null}', {'skip': True})
>>> change_from_json("seat", {"seat": 1})
Traceback (most recent call last):
...
ValueError: unknown change 'seat' in a table's log; changes are join, bot, remove, ...
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar, Literal, TypeAlias

from flip7.core.decisions import Decision, parse_decision
from flip7.core.jsontypes import JSON, JSONObject

__all__ = [
    "CHANGES",
    "AddBot",
    "Change",
    "HandOver",
    "Join",
    "Leave",
    "MarkReady",
    "Move",
    "MovedBy",
    "Remove",
    "Return",
    "Start",
    "TutorialStep",
    "change_from_json",
]

# Who made a move: the seat's human, a bot (the seat's own, or the stand-in for a player
# who left or is away), or the turn timer for a human who let it run out.
MovedBy = Literal["human", "bot", "timer"]
_MOVED_BY: Mapping[str, MovedBy] = {"human": "human", "bot": "bot", "timer": "timer"}


# ---------------------------------------------------------------------- reading the log


def _field(data: JSONObject, key: str) -> JSON:
    try:
        return data[key]
    except KeyError:
        raise ValueError(f"a stored change lacks {key!r}: {data!r}") from None


def _int(data: JSONObject, key: str) -> int:
    value = _field(data, key)
    if type(value) is not int:
        raise ValueError(f"a stored change's {key!r} is not a whole number: {data!r}")
    return value


def _str(data: JSONObject, key: str) -> str:
    value = _field(data, key)
    if not isinstance(value, str):
        raise ValueError(f"a stored change's {key!r} is not a string: {data!r}")
    return value


def _optional_int(data: JSONObject, key: str) -> int | None:
    return None if data.get(key) is None else _int(data, key)


def _optional_str(data: JSONObject, key: str) -> str | None:
    return None if data.get(key) is None else _str(data, key)


def _seats(data: JSONObject, key: str) -> tuple[int, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or any(type(v) is not int for v in value):
        raise ValueError(f"a stored change's {key!r} is not a list of seats: {data!r}")
    return tuple(v for v in value if type(v) is int)


# ---------------------------------------------------------------------- the changes


@dataclass(frozen=True, slots=True)
class Join:
    """A human takes ``seat`` under the name ``name``; the table keeps the SHA-256 of the
    seat's token (``token_hash``), and the identity the seat counts for (``player_id``;
    None: anonymous). ``private``: the first seat of a table kept out of the lobby's list
    (a tutorial's). ``network``: an opaque label of the address block the seat was taken
    from (:meth:`flip7.server.table.lobby.Lobby.network_of`; None: unknown), which two
    seats share when they came from one block: such identities do not rate each other.
    ``bot_account``: the identity is a bot account, seated by its invitation (the bot API):
    shown as a bot, its decisions held to ``bot_move_seconds``."""

    kind: ClassVar[str] = "join"
    seat: int
    name: str
    token_hash: str
    player_id: str | None = None
    private: bool = False
    network: str | None = None
    bot_account: bool = False

    def to_json(self) -> JSONObject:
        data: JSONObject = {"seat": self.seat, "name": self.name, "token": self.token_hash}
        if self.bot_account:
            data["bot_account"] = True
        if self.player_id is not None:
            data["player"] = self.player_id
        if self.private:
            data["private"] = True
        if self.network is not None:
            data["network"] = self.network
        return data

    @classmethod
    def from_json(cls, data: JSONObject) -> Join:
        return cls(_int(data, "seat"), _str(data, "name"), _str(data, "token"),
                   _optional_str(data, "player"), bool(data.get("private")),
                   _optional_str(data, "network"), bool(data.get("bot_account")))


@dataclass(frozen=True, slots=True)
class AddBot:
    """A bot given by ``bot`` (a spec, flip7.bots) takes ``seat`` under ``name``."""

    kind: ClassVar[str] = "bot"
    seat: int
    bot: str
    name: str

    def to_json(self) -> JSONObject:
        return {"seat": self.seat, "bot": self.bot, "name": self.name}

    @classmethod
    def from_json(cls, data: JSONObject) -> AddBot:
        return cls(_int(data, "seat"), _str(data, "bot"), _str(data, "name"))


@dataclass(frozen=True, slots=True)
class Remove:
    """``seat`` is emptied before the first game (a bot removed, a player gone)."""

    kind: ClassVar[str] = "remove"
    seat: int

    def to_json(self) -> JSONObject:
        return {"seat": self.seat}

    @classmethod
    def from_json(cls, data: JSONObject) -> Remove:
        return cls(_int(data, "seat"))


@dataclass(frozen=True, slots=True)
class Leave:
    """The player of ``seat`` leaves during a game: the stand-in bot plays it from now on."""

    kind: ClassVar[str] = "leave"
    seat: int

    def to_json(self) -> JSONObject:
        return {"seat": self.seat}

    @classmethod
    def from_json(cls, data: JSONObject) -> Leave:
        return cls(_int(data, "seat"))


@dataclass(frozen=True, slots=True)
class HandOver:
    """The seat of a player away on their turn goes to the stand-in bot until they come
    back: handed over ``by`` another seat, or by the server (None) after ``handover_auto``."""

    kind: ClassVar[str] = "stand_in"
    seat: int
    by: int | None

    def to_json(self) -> JSONObject:
        return {"seat": self.seat, "by": self.by}

    @classmethod
    def from_json(cls, data: JSONObject) -> HandOver:
        return cls(_int(data, "seat"), _optional_int(data, "by"))


@dataclass(frozen=True, slots=True)
class Return:
    """The player of a seat the stand-in bot plays is back: the seat is theirs again."""

    kind: ClassVar[str] = "returned"
    seat: int

    def to_json(self) -> JSONObject:
        return {"seat": self.seat}

    @classmethod
    def from_json(cls, data: JSONObject) -> Return:
        return cls(_int(data, "seat"))


@dataclass(frozen=True, slots=True)
class MarkReady:
    """At the end screen, the player of ``seat`` is ready for the next game, or no longer."""

    kind: ClassVar[str] = "ready"
    seat: int
    ready: bool

    def to_json(self) -> JSONObject:
        return {"seat": self.seat, "ready": self.ready}

    @classmethod
    def from_json(cls, data: JSONObject) -> MarkReady:
        return cls(_int(data, "seat"), bool(_field(data, "ready")))


@dataclass(frozen=True, slots=True)
class Start:
    """The table's next game starts: its id, its shuffle seed and when. A rematch goes on
    without the seats ``drop`` (players who left or were gone); ``tutorial`` names the
    script of a guided first game (flip7.server.table.tutorial.SCRIPTS).

    The seed is in the log too, but the game's row (``games.seed``, ``started_at``) is what
    a table is rebuilt with (:meth:`flip7.server.table.lobby.Lobby.rebuild`)."""

    kind: ClassVar[str] = "start"
    game_id: str
    seed: int
    at: datetime
    drop: tuple[int, ...] = ()
    tutorial: str | None = None

    def to_json(self) -> JSONObject:
        data: JSONObject = {"game": self.game_id, "seed": self.seed, "at": self.at.isoformat()}
        if self.drop:
            data["drop"] = list(self.drop)
        if self.tutorial is not None:
            data["tutorial"] = self.tutorial
        return data

    @classmethod
    def from_json(cls, data: JSONObject) -> Start:
        return cls(_str(data, "game"), _int(data, "seed"),
                   datetime.fromisoformat(_str(data, "at")), _seats(data, "drop"),
                   _optional_str(data, "tutorial"))


@dataclass(frozen=True, slots=True)
class Move:
    """The seat to decide makes ``decision`` (its record text in the log), ``by`` its human,
    a bot or the turn timer. A human's move carries the id the client gave it
    (``move_id``), which a retry repeats."""

    kind: ClassVar[str] = "move"
    seat: int
    decision: Decision
    by: MovedBy
    move_id: str | None = None

    def to_json(self) -> JSONObject:
        data: JSONObject = {"seat": self.seat, "decision": str(self.decision)}
        if self.move_id is not None:
            data["id"] = self.move_id
        data["by"] = self.by
        return data

    @classmethod
    def from_json(cls, data: JSONObject) -> Move:
        by = _MOVED_BY.get(_str(data, "by"))
        if by is None:
            raise ValueError(f"a stored move's 'by' is none of {', '.join(_MOVED_BY)}: {data!r}")
        return cls(_int(data, "seat"), parse_decision(_str(data, "decision")), by,
                   _optional_str(data, "id"))


@dataclass(frozen=True, slots=True)
class TutorialStep:
    """In a guided first game, the player read lesson ``read`` ("Got it"), or left the
    script (``read`` None: skipped, a normal game from now on)."""

    kind: ClassVar[str] = "tutorial"
    read: int | None

    def to_json(self) -> JSONObject:
        return {"skip": True} if self.read is None else {"read": self.read}

    @classmethod
    def from_json(cls, data: JSONObject) -> TutorialStep:
        return cls(None if data.get("skip") else _int(data, "read"))


Change: TypeAlias = (
    Join | AddBot | Remove | Leave | HandOver | Return | MarkReady | Start | Move | TutorialStep
)
"""A change of a table, of whichever kind."""

# Each change's kind -> how it is read back from the log.
CHANGES: Mapping[str, Callable[[JSONObject], Change]] = {
    kind.kind: kind.from_json
    for kind in (Join, AddBot, Remove, Leave, HandOver, Return, MarkReady, Start, Move,
                 TutorialStep)
}


def change_from_json(kind: str, data: JSONObject) -> Change:
    """The change a log entry holds (``kind`` and its data); ValueError if it holds none."""
    read = CHANGES.get(kind)
    if read is None:
        raise ValueError(
            f"unknown change {kind!r} in a table's log; changes are {', '.join(CHANGES)}"
        )
    return read(data)
