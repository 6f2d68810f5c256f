"""A socket's messages at its table, wherever the table runs: :class:`Session`, and
:class:`Link`, the session of a socket whose table another process runs.

A socket's own process reads its frames, holds them to its budgets and parses each once;
its session takes the parsed messages from there. At a table this process runs that is
flip7.server.api.play.Here; at a table another process runs, a :class:`Link` relays each
message there (:class:`~flip7.server.cluster.messages.Relay`), where the same ``Here``
handles it, and that process's frames for the socket come back through the link.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from flip7.core.jsontypes import JSONObject
from flip7.server.base.closecodes import CloseCode
from flip7.server.base.formats import dumps
from flip7.server.base.protocol import Hello
from flip7.server.cluster.bus import Bus, BusDown
from flip7.server.cluster.messages import Closed, Relay, TableMessage
from flip7.server.table.table import Client

__all__ = ["Link", "Session"]

log = logging.getLogger("flip7.server")


class Session(Protocol):
    """One socket at its table: what the socket's own process hands its parsed messages."""

    @property
    def greeted(self) -> bool:
        """Whether the socket's hello was answered (or, linked, sent on): no more waiting
        for it."""

    async def handle(self, message: TableMessage) -> None:
        """Handle one message (not a ping) of the socket."""

    async def state(self) -> JSONObject | None:
        """The table as the socket's client sees it, when it runs here (a move refused
        where the socket is answers with it), else None."""

    async def end(self) -> None:
        """The socket closed: it leaves the table."""


class Link:
    """A socket of this process playing at a table another process (``owner``) runs: its
    messages go there, and that process's frames for it come back (:meth:`hear`)."""

    def __init__(
        self, bus: Bus, links: dict[str, Link], client: Client, cid: str, table_id: str,
        owner: str, hello_timeout: float,
    ) -> None:
        self.bus = bus
        # Every link of this process, by cid: this one is in it while it is linked.
        self.links = links
        self.client = client
        self.cid = cid
        self.table_id = table_id
        self.owner = owner
        self.hello_timeout = hello_timeout
        self.greeted = False
        # Whether the owner has sent a frame (a relayed hello is answered in time).
        self.heard = False

    async def handle(self, message: TableMessage) -> None:
        if isinstance(message, Hello) and not self.greeted:
            self.greeted = True
            asyncio.get_running_loop().call_later(self.hello_timeout, self._answered)
        if self.links.get(self.cid) is not self:
            self.client.close(CloseCode.SERVICE_RESTART)  # the link broke: reconnect to the owner
            return
        try:
            self.bus.send(self.owner, Relay(sender=self.bus.node, cid=self.cid, message=message))
        except BusDown:
            self.client.close(CloseCode.SERVICE_RESTART)

    async def state(self) -> JSONObject | None:
        return None  # the table is the owner's

    async def end(self) -> None:
        self.abandon()

    def abandon(self) -> None:
        """Linked no more, the socket left as it is: the owner is told that it left."""
        if self.links.pop(self.cid, None) is self:
            with contextlib.suppress(BusDown):
                self.bus.send(self.owner, Closed(sender=self.bus.node, cid=self.cid))

    def hear(self, frame: str) -> None:
        """A frame from the owner for the socket."""
        self.heard = True
        self.client.push(frame)

    def cut(self, code: int = CloseCode.SERVICE_RESTART) -> None:
        """Close the socket (the owner closed it, or went away): it is linked no more."""
        if self.links.get(self.cid) is self:
            del self.links[self.cid]
        self.client.close(code)

    def moved(self) -> None:
        """The table is run elsewhere now (or by nobody): the socket is closed with "moved"
        to reconnect to its new owner, and the old one, should it still listen, is told
        that the socket left."""
        if self.links.get(self.cid) is self:
            with contextlib.suppress(BusDown):
                self.bus.send(self.owner, Closed(sender=self.bus.node, cid=self.cid))
        self.cut(CloseCode.MOVED)

    def _answered(self) -> None:
        # A hello was relayed: if the owner has not answered it by now (a frame lost on the
        # way), the socket is closed to reconnect.
        if self.links.get(self.cid) is self and not self.heard:
            log.warning(dumps({"event": "link_unanswered", "cid": self.cid, "node": self.owner}))
            self.cut()
