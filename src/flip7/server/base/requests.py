"""The requests a table answers over REST, as typed values, and their answer.

A REST route builds one request, once; whichever process runs the table answers it
(flip7.server.api.operations.perform). With many processes it travels there in its own wire
form, its JSON with its ``kind`` (flip7.server.cluster.messages.Call), and is rebuilt there
once. ``token`` is the caller's seat token (``Authorization: Bearer``), None for nobody's.

>>> AddBot(table_id="t1", token="secret", bot="medium").model_dump_json()
'{"table_id":"t1","token":"secret","kind":"add_bot","bot":"medium"}'
>>> Answer(table={"id": "t1"}).to_json()
{'table': {'id': 't1'}}
>>> Answer(table={"id": "t1"}, seat=1, token="s").to_json()
{'table': {'id': 't1'}, 'seat': 1, 'token': 's'}
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from flip7.core.jsontypes import JSONObject

__all__ = [
    "AddBot",
    "Answer",
    "Handover",
    "Invite",
    "Join",
    "Leave",
    "PublicRecord",
    "Ready",
    "RemoveSeat",
    "Request",
    "ShowTable",
    "Start",
    "TableRequest",
    "TutorialStep",
    "bearer",
]


def bearer(authorization: str | None) -> str | None:
    """The token of ``Authorization: Bearer <token>`` (a seat's, or a bot's), None without
    one.

    >>> bearer("Bearer abc"), bearer("bearer  abc "), bearer("Basic abc"), bearer(None)
    ('abc', 'abc', None, None)
    """
    if authorization is None:
        return None
    scheme, _, value = authorization.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


class TableRequest(BaseModel):
    """What every request to a table says: which table, and for whose seat."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    table_id: str
    token: str | None = None


class ShowTable(TableRequest):
    """The table as a spectator sees it."""

    kind: Literal["show"] = "show"


class Join(TableRequest):
    """Take the lowest empty seat under the display name ``name`` (the join body's
    ``player``), from ``address`` (held to its joins' budget), for identity ``player_id``;
    ``token`` here is the seat token the joiner brings (a retry gets the same seat back),
    not a seat it acts for."""

    kind: Literal["join"] = "join"
    name: str
    address: str | None = None
    player_id: str | None = None
    # A bot account taking the seat it was invited to (the bot API).
    bot_account: bool = False


class Invite(TableRequest):
    """The host (``token``: the table's host seat) may invite a bot account: the table is
    waiting for its players and has an empty seat. Nothing at the table changes; the
    invitation goes to the bot (flip7.server.api.bots)."""

    kind: Literal["invite"] = "invite"


class PublicRecord(TableRequest):
    """The current game's record so far (RECORD.md: the players, rules, dealer, every card
    drawn and every decision: what every seat has seen, face up, and no draw pile order),
    for the seat of ``token`` (a bot account's seat: ``flip7 bot connect`` replays it into
    the game its bot decides in)."""

    kind: Literal["record"] = "record"


class AddBot(TableRequest):
    kind: Literal["add_bot"] = "add_bot"
    bot: str


class RemoveSeat(TableRequest):
    kind: Literal["remove_seat"] = "remove_seat"
    seat: int


class Leave(TableRequest):
    kind: Literal["leave"] = "leave"


class Start(TableRequest):
    """Start the first game; ``rematch``: say ready for the next one."""

    kind: Literal["start"] = "start"
    rematch: bool = False


class Ready(TableRequest):
    kind: Literal["ready"] = "ready"
    ready: bool


class TutorialStep(TableRequest):
    kind: Literal["tutorial_step"] = "tutorial_step"
    skip: bool
    read: int | None


class Handover(TableRequest):
    kind: Literal["handover"] = "handover"
    seat: int


Request = Annotated[
    ShowTable | Join | Invite | PublicRecord | AddBot | RemoveSeat | Leave | Start | Ready
    | TutorialStep | Handover,
    Field(discriminator="kind"),
]

class Answer(BaseModel):
    """A table request's answer: the table as the caller sees it, and for a join the seat
    taken and its token."""

    model_config = ConfigDict(frozen=True)

    # The table's state as built for clients (TableStateModel describes it).
    table: dict[str, Any]
    seat: int | None = None
    token: str | None = None
    # The current game's record so far, for PublicRecord (None between games).
    record: dict[str, Any] | None = None

    def to_json(self) -> JSONObject:
        """The REST answer: ``{"table"}``, with ``seat`` and ``token`` for a join."""
        if self.token is None:
            return {"table": self.table}
        return {"table": self.table, "seat": self.seat, "token": self.token}
