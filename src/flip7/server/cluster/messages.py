"""The messages between processes, over Redis: each a typed value that writes its own wire
form (its JSON, with its ``kind``) and is read back by :func:`decode`, whatever its kind.

A request for a table another process runs goes there as a :class:`Call` and comes back as
a :class:`Reply`. A socket playing at such a table is linked to it: :class:`Open`, then
each message it sends (:class:`Relay`, parsed once, at the socket's own process) and
:class:`Closed`; the owner sends the socket's frames back (:class:`Frames`, gathered per
process) and may close it (:class:`Shut`). All processes of a cluster run the same
version, so the wire form is theirs alone.

>>> from flip7.server.base.protocol import parse_client_message
>>> hello = parse_client_message('{"v":1,"type":"hello","token":"s3cret"}')
>>> relay = Relay(sender="n1", cid="c1", message=hello)
>>> decode(relay.wire()) == relay
True
>>> from flip7.server.base.requests import AddBot
>>> call = Call(ref="r1", sender="n1", request=AddBot(table_id="t1", token="s", bot="easy"))
>>> decode(call.wire()).request
AddBot(table_id='t1', token='s', kind='add_bot', bot='easy')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from flip7.server.base.protocol import Chat, Hello, Move, SpectatorChat
from flip7.server.base.requests import Answer, Request
from flip7.server.table.errors import TableError

__all__ = [
    "BusMessage",
    "Call",
    "Closed",
    "Frames",
    "Open",
    "Refusal",
    "Relay",
    "Reply",
    "Shut",
    "TableMessage",
    "Take",
    "decode",
]

# What a socket sends its table (a ping is answered where the socket is).
TableMessage = Annotated[Hello | Move | Chat | SpectatorChat, Field(discriminator="type")]


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True)

    def wire(self) -> str:
        """This message as it travels (:func:`decode` reads it back)."""
        return self.model_dump_json()


class Call(_Message):
    """A table request for the process that runs its table, from ``sender``; answered
    with the :class:`Reply` of the same ``ref``."""

    kind: Literal["call"] = "call"
    ref: str
    sender: str
    request: Request


class Refusal(BaseModel):
    """A :class:`~flip7.server.table.lobby.TableError` on its way back to the caller."""

    model_config = ConfigDict(frozen=True)

    code: str
    message: str
    status: int
    retry_after: float | None = None

    @classmethod
    def of(cls, error: TableError) -> Refusal:
        return cls(code=error.code, message=error.message, status=error.status,
                   retry_after=error.retry_after)

    def error(self) -> TableError:
        return TableError(self.code, self.message, self.status, retry_after=self.retry_after)


class Reply(_Message):
    """The answer to :class:`Call` ``ref``: the request's answer, or why it was refused."""

    kind: Literal["reply"] = "reply"
    ref: str
    answer: Answer | Refusal


class Open(_Message):
    """Socket ``cid`` of ``sender`` plays at ``table_id``, which the receiver runs."""

    kind: Literal["open"] = "open"
    sender: str
    cid: str
    table_id: str


class Relay(_Message):
    """One message of a linked socket, parsed (and held to its budgets) at its process."""

    kind: Literal["relay"] = "relay"
    sender: str
    cid: str
    message: TableMessage


class Closed(_Message):
    """Linked socket ``cid`` of ``sender`` is closed."""

    kind: Literal["closed"] = "closed"
    sender: str
    cid: str


class Frames(_Message):
    """Frames for the receiver's linked sockets, in the order sent: ``(cid, i)``, the
    socket and its frame ``texts[i]``. Each text travels once however many sockets get it
    (an update goes to every spectator of a table: 200 of them made one message of 200
    copies, encoded, sent through Redis and decoded again).

    >>> frames = Frames.of([("c1", "u5"), ("c2", "u5"), ("c1", "chat")])
    >>> frames.texts, frames.frames
    (('u5', 'chat'), (('c1', 0), ('c2', 0), ('c1', 1)))
    >>> list(decode(frames.wire()).each())
    [('c1', 'u5'), ('c2', 'u5'), ('c1', 'chat')]
    """

    kind: Literal["frames"] = "frames"
    texts: tuple[str, ...]
    frames: tuple[tuple[str, int], ...]

    @classmethod
    def of(cls, items: Iterable[tuple[str, str]]) -> Frames:
        """The frames ``(cid, frame)``, each frame's text once."""
        index: dict[str, int] = {}
        frames = tuple((cid, index.setdefault(frame, len(index))) for cid, frame in items)
        return cls(texts=tuple(index), frames=frames)

    def each(self) -> Iterator[tuple[str, str]]:
        """``(cid, frame)`` in the order sent."""
        texts = self.texts
        for cid, i in self.frames:
            yield cid, texts[i]


class Shut(_Message):
    """Close the receiver's linked socket ``cid`` with ``code`` (after its frames)."""

    kind: Literal["shut"] = "shut"
    cid: str
    code: int


class Take(_Message):
    """Take ``table_id`` over now: ``sender`` handed it to the receiver (its place,
    flip7.server.cluster.spread), which would otherwise wait for a request for it."""

    kind: Literal["take"] = "take"
    sender: str
    table_id: str


BusMessage = Annotated[
    Call | Reply | Open | Relay | Closed | Frames | Shut | Take, Field(discriminator="kind")
]
_BUS: TypeAdapter[BusMessage] = TypeAdapter(BusMessage)


def decode(wire: str | bytes) -> BusMessage:
    """A message from its wire form; :class:`pydantic.ValidationError` if it is none."""
    return _BUS.validate_json(wire)
