"""Where each table is run when there are many processes, so that the tables stay spread
over the live ones: a process that joins or restarts receives its share, and one kill never
moves most of the tables.

A table's *place* is a function of its id and of the live processes alone (the
``cluster_node`` rows not expired), the same in every process that sees the same rows:

- with ``--slot`` (the proxy recipe), the live process of the table's slot, the one the
  proxy sends the table's clients to (flip7.server.base.settings.Slot; its slot is in its
  node id, :func:`node_id`), so that they reach it without a hop over Redis;
- else (its slot's process is dead, or no slots), rendezvous hashing: of all the live
  processes, the one whose hash with the table's id is the highest. Every process gets
  about 1/N of the tables, and a process that comes or goes moves only the tables whose
  place it is or was: about 1/N of them, never the others.

New tables are made in their place (:meth:`Spread.here`: the id is drawn again until it is
placed here). A dead process's tables, once its lease expires, are taken by the orphan sweep
of their new place, so they spread over the survivors; any process takes one that its place
has not taken after a while (it may be full, or cut off from Redis), and a request for a
table nobody runs goes to its place, which takes it at once (:meth:`Spread.elsewhere`). A
process hands a table it runs that is placed elsewhere to its place (Cluster.give) at a
quiet moment, between decisions (no change being applied, no bot thinking: it takes the
table's lock), a few tables a second at most (:data:`HANDOVERS_PER_SECOND`), with the
same fencing as a takeover: the database moves the table under a raised token, so the old
owner can no longer write it, and the new owner raises it again as it takes the table.

>>> live = ["a1@1/3", "b2@2/3", "c3@3/3"]
>>> [place(t, live) for t in ("aaaaaaaa", "aaaaaaab", "UF5GCr12")]  # their slots: 2, 1, 2
['c3@3/3', 'b2@2/3', 'c3@3/3']
>>> place("aaaaaaaa", ["a1@1/3", "b2@2/3"]) in ("a1@1/3", "b2@2/3")  # slot 3 is dead
True
>>> place("aaaaaaaa", []) is None
True
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping

from flip7.server.base.limits import TokenBucket
from flip7.server.base.settings import ClusterError, Slot

__all__ = [
    "HANDOVERS_PER_SECOND",
    "SETTLE_LEASES",
    "Spread",
    "node_id",
    "place",
    "slot_of",
    "weight",
]

# Tables a process hands over a second at most (each costs its clients a reconnect and the
# new owner a rebuild from the log): a process that joins a busy cluster fills up in
# seconds without a storm.
HANDOVERS_PER_SECOND = 3.0
HANDOVER_BURST = 3.0
# Orphans looked at per sweep: only those placed here are taken, so more than one
# process's share.
ORPHANS_PER_SWEEP = 60
# A process back from a lapse (its lease expired, then was renewed: it was paused, or cut
# off for a while) receives no handover for this many leases. Else it got its tables back
# a moment after the others had taken them over (the chaos test saw it under load): a
# second reconnect for their players before the first new owner had applied a move, and
# to a process that may well stall again. A process that starts (a new id) is not waited.
SETTLE_LEASES = 3.0
# How long a process not seen live is remembered (to know it when it comes back).
REMEMBERED_SECONDS = 600.0


def node_id(slot: Slot | None) -> str:
    """A fresh id for this process, with its slot when it has one (``--slot``), so that
    the others know which tables the proxy sends it.

    >>> len(node_id(None)), node_id(Slot(2, 3))[-4:]
    (12, '@2/3')
    """
    node = secrets.token_hex(6)
    return node if slot is None else f"{node}@{slot.number}/{slot.count}"


def slot_of(node: str) -> Slot | None:
    """The slot in a process's node id (:func:`node_id`), or None.

    >>> slot_of("5f3a9c0d1e2b@2/3"), slot_of("5f3a9c0d1e2b"), slot_of("x@9/3")
    (Slot(number=2, count=3), None, None)
    """
    _, at, text = node.rpartition("@")
    if not at:
        return None
    try:
        return Slot.parse(text)
    except ClusterError:
        return None


def weight(node: str, table_id: str) -> int:
    """The rendezvous weight of ``table_id`` at ``node``: the same in every process (not
    Python's ``hash``, which differs between processes)."""
    digest = hashlib.blake2b(f"{node}\x00{table_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def place(table_id: str, nodes: Collection[str]) -> str | None:
    """The live process that should run ``table_id`` (see the module's docstring), of
    ``nodes``; None when there are none."""
    home = [n for n in nodes if (slot := slot_of(n)) is not None and slot.holds(table_id)]
    return max(home or nodes, key=lambda n: (weight(n, table_id), n), default=None)


class Spread:
    """This process's view of where the tables go: the live processes and how many tables
    each runs (as the database said at the last sweep, :meth:`saw`), the orphans seen,
    the rate of handovers and their count.

    >>> now = [0.0]
    >>> spread = Spread("a1", grace=3.0, clock=lambda: now[0])
    >>> spread.here("t1")  # no view yet: whatever is asked here stays here
    True
    >>> spread.saw({"a1": 0, "b2": 0})
    >>> sorted(t for t in ("t1", "t2", "t3", "t4") if spread.here(t))
    ['t3', 't4']
    >>> spread.orphans_here(["t1", "t2", "t3", "t4"])  # the others are b2's to take first
    ['t3', 't4']
    >>> now[0] = 4.0
    >>> spread.orphans_here(["t1", "t2"])  # ... for a while
    ['t1', 't2']
    >>> spread.misplaced(["t1", "t3"])
    [('t1', 'b2')]
    >>> spread.saw({"a1": 0})  # b2's lease lapsed (paused)...
    >>> spread.saw({"a1": 0, "b2": 0})  # ... and it is back: no handover to it for a while
    >>> spread.misplaced(["t1", "t3"]), spread.misplaced(["t1"], True)
    ([], [('t1', 'b2')])
    >>> now[0] = 4.0 + 9.0
    >>> spread.saw({"a1": 0, "b2": 0})
    >>> spread.misplaced(["t1", "t3"])
    [('t1', 'b2')]
    >>> spread.capacity = 5
    >>> spread.saw({"a1": 0, "b2": 5})  # b2 is full: no handover until it has room
    >>> spread.misplaced(["t1", "t3"]), spread.misplaced(["t1"], True)
    ([], [('t1', 'b2')])
    >>> spread.capacity = None
    >>> spread.saw({"b2": 0})  # its own row expired: it still counts itself
    >>> spread.here("t3")
    True
    """

    def __init__(self, node: str, grace: float, clock: Callable[[], float] = time.monotonic,
                 capacity: int | None = None) -> None:  # fmt: skip
        self.node = node
        self.grace = grace
        self.clock = clock
        # The tables a process runs at most (``max_tables``, the same for all): one that
        # full receives no handover; its share waits until it has room.
        self.capacity = capacity
        # The live processes and the open tables each runs, at the last sweep.
        self.processes: dict[str, int] = {}
        # Orphans seen, and when first: one its place has not taken within ``grace`` is
        # taken by whoever sees it.
        self._orphaned: dict[str, float] = {}
        self.bucket = TokenBucket(HANDOVERS_PER_SECOND, HANDOVER_BURST, HANDOVER_BURST,
                                  clock())  # fmt: skip
        # Tables handed to another process, and taken from one that handed them here.
        self.given = 0
        self.received = 0
        # When each process was last seen live; and those back from a lapse, since when.
        self._seen: dict[str, float] = {}
        self._back: dict[str, float] = {}

    def saw(self, processes: Mapping[str, int]) -> None:
        """The live processes, each with the open tables it runs, as the database says."""
        now = self.clock()
        for node in processes:
            if node not in self.processes and node in self._seen:
                self._back[node] = now  # seen live before, then not: back from a lapse
            self._seen[node] = now
        settle = SETTLE_LEASES * self.grace
        for node in [n for n, at in self._back.items() if now - at >= settle]:
            del self._back[node]
        for node in [n for n, at in self._seen.items() if now - at > REMEMBERED_SECONDS]:
            del self._seen[node]
        self.processes = dict(processes)

    def place(self, table_id: str) -> str | None:
        """Where ``table_id`` goes, as this process sees the live ones (None: no view).
        This one counts among them even when its own row was not live at the last sweep
        (renewals failing): else every id would be placed elsewhere, and a new table's
        id drawn for ever."""
        if not self.processes:
            return None
        return place(table_id, self.processes.keys() | {self.node})

    def here(self, table_id: str) -> bool:
        """Whether ``table_id`` is placed at this process (yes while it knows of none)."""
        return self.place(table_id) in (self.node, None)

    def orphans_here(self, orphans: Iterable[str]) -> list[str]:
        """Of ``orphans`` (tables nobody runs), those this process takes now: placed here,
        or left by their place for ``grace`` seconds."""
        now = self.clock()
        taken: list[str] = []
        for table_id in orphans:
            first = self._orphaned.setdefault(table_id, now)
            if self.here(table_id) or now - first >= self.grace:
                taken.append(table_id)
                del self._orphaned[table_id]
        for table_id in [t for t, at in self._orphaned.items() if now - at > 10 * self.grace]:
            del self._orphaned[table_id]  # taken by another process long ago
        return taken

    def misplaced(
        self, tables: Iterable[str], waiting_too: bool = False
    ) -> list[tuple[str, str]]:
        """Of ``tables`` (run here), each placed at another live process, with that one;
        not those placed at a process back from a lapse less than SETTLE_LEASES leases
        ago, or at one as full as its ``capacity`` at the last sweep: they wait (the
        metric counts them too: ``waiting_too``)."""
        full = {n for n, runs in self.processes.items()
                if self.capacity is not None and runs >= self.capacity}  # fmt: skip
        found: list[tuple[str, str]] = []
        for table_id in tables:
            where = self.place(table_id)
            if where is None or where == self.node:
                continue
            if waiting_too or (where not in self._back and where not in full):
                found.append((table_id, where))
        return found

    async def elsewhere(
        self, table_id: str, alive: Callable[[set[str]], Awaitable[set[str]]]
    ) -> str | None:
        """The other process where ``table_id``, which nobody runs, is placed among the live
        processes that ``alive`` says listen now; None when that is this one (or none)."""
        where = self.place(table_id)
        if where is None or where == self.node:
            return None
        listening = await alive(set(self.processes) - {self.node})
        where = place(table_id, [n for n in self.processes if n in listening or n == self.node])
        return None if where in (None, self.node) else where

    def may_hand_over(self) -> bool:
        """Whether the rate of handovers allows one more now (:meth:`handed_over` takes it)."""
        return self.bucket.wait(self.clock()) <= 0

    def handed_over(self) -> None:
        self.bucket.take(self.clock())
        self.given += 1
