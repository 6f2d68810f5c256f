"""Sockets of other processes at tables this process runs, as the tables see them: one more
client each (:class:`RemoteClient`), whose frames go back to the socket's process.

So presence, chat, the welcome with the whole history and every update are exactly what a
local socket gets.
"""

from __future__ import annotations

import asyncio
import contextlib

from flip7.server.cluster.bus import Bus, BusDown
from flip7.server.cluster.messages import Frames, Shut, TableMessage
from flip7.server.table.seat import Seat

__all__ = ["Outbox", "RemoteClient"]


class Outbox:
    """Frames for other processes' sockets, gathered per process within one turn of the
    event loop and sent as one message, in order."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self._frames: dict[str, list[tuple[str, str]]] = {}
        self._flush_soon = False

    def frame(self, node: str, cid: str, frame: str) -> None:
        """Queue ``frame`` for socket ``cid`` of process ``node``."""
        self._frames.setdefault(node, []).append((cid, frame))
        if not self._flush_soon:
            self._flush_soon = True
            asyncio.get_running_loop().call_soon(self.flush)

    def shut(self, node: str, cid: str, code: int) -> None:
        """Close socket ``cid`` of process ``node``, after the frames queued for it."""
        self.flush()
        with contextlib.suppress(BusDown):
            self.bus.send(node, Shut(cid=cid, code=code))

    def flush(self) -> None:
        self._flush_soon = False
        frames, self._frames = self._frames, {}
        for node, items in frames.items():
            with contextlib.suppress(BusDown):
                self.bus.send(node, Frames.of(items))


class RemoteClient:
    """A socket connected to process ``node``, at table ``table_id`` this process runs:
    what is pushed to it goes to that process, which sends it on. Its messages wait in
    ``inbox`` (None: it closed) and are handled one after the other, as its own process
    would."""

    def __init__(self, outbox: Outbox, node: str, cid: str, table_id: str) -> None:
        self.outbox = outbox
        self.node = node
        self.cid = cid
        self.table_id = table_id
        self.place: Seat | None = None
        self.closing = False
        self.inbox: asyncio.Queue[TableMessage | None] = asyncio.Queue()
        self.worker: asyncio.Task[None] | None = None

    def push(self, message: str) -> None:
        if not self.closing:
            self.outbox.frame(self.node, self.cid, message)

    def close(self, code: int) -> None:
        if not self.closing:
            self.closing = True
            self.outbox.shut(self.node, self.cid, code)
