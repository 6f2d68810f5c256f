"""What a process of a cluster knows of its own lease, and what failover did, for the
metrics: :class:`LeaseClock` and :class:`Failovers`.

A process's lease (its ``cluster_node`` row, flip7.server.store.ownership) runs on
PostgreSQL's clock, which a process paused by SIGSTOP, or cut off, cannot read. It can read
its own: a renewal that began at ``t`` on this process's monotonic clock was written with
an expiry of at least ``t + seconds`` on the database's (both clocks run at the same rate),
so that until ``t + seconds`` here no other process can have found the lease lapsed and
taken a table over. Past it, this process stops applying changes before it writes any
(flip7.server.cluster.node.Cluster.holds): a process that wakes up from a pause drops its
tables at once instead of writing to them under an old token, which the fence would refuse.

>>> now = [100.0]
>>> lease = LeaseClock(3.0, clock=lambda: now[0])
>>> lease.held
False
>>> began = lease.now(); now[0] += 0.2; lease.renewed(began)
>>> lease.held, round(lease.left, 2)
(True, 2.5)
>>> now[0] += 2.6
>>> lease.held
False
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Failovers", "LeaseClock", "moved_links"]

# The share of the lease a process counts on: a little less than all of it, so that it
# stops before any other process may take over (the database's clock may run a little
# ahead of the moment the renewal was sent).
TRUSTED = 0.9


class LeaseClock:
    """Until when, on this process's clock, its lease is surely live (see the module)."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.until = float("-inf")

    def now(self) -> float:
        """The moment a renewal begins (to hand :meth:`renewed` once it succeeded)."""
        return self.clock()

    def renewed(self, began: float) -> None:
        """A renewal that began at ``began`` was committed."""
        self.until = max(self.until, began + self.seconds * TRUSTED)

    @property
    def held(self) -> bool:
        """Whether no other process can have taken this one's tables yet."""
        return self.clock() < self.until

    @property
    def left(self) -> float:
        """Seconds the lease is surely live for (negative: lapsed that long ago)."""
        return self.until - self.clock()


@dataclass
class Failovers:
    """What failover did at this process since it started (counters, for the metrics:
    flip7.server.api.metrics)."""

    # Tables this process took over from a process that died, stalled or let them go.
    takeovers: int = 0
    # Its sockets linked to a table whose owner changed or lapsed, closed with "moved".
    links_moved: int = 0
    # Tables it stopped running because its lease on them was lost or lapsed.
    tables_lost: int = 0


def moved_links(
    links: dict[str, tuple[str, str]], owners: dict[str, tuple[str, bool]]
) -> list[str]:
    """The links (cid -> (table, owner it leads to); or forwarded calls, by reference) that
    lead where the table is no longer run, as ``owners`` (table -> (owner, live),
    flip7.server.store.ownership.Ownership.owners) says: another live process owns it now,
    the lease of the process it leads to lapsed, or nobody owns it.

    Not one that leads to another process than the table's owner whose lease lapsed: that
    one is the table's place, taking it over (Cluster.locate sends sockets there), and a
    claim may wait a moment for the lapsed owner's commit sessions (closing the link then
    cost its player a reconnect, and the takeover no time).

    >>> links = {"c1": ("T1", "a"), "c2": ("T2", "a"), "c3": ("T3", "b"), "c4": ("T4", "a"),
    ...          "c5": ("T5", "b")}
    >>> moved_links(links, {"T1": ("a", True), "T2": ("c", True), "T3": ("b", False),
    ...                     "T5": ("a", False)})
    ['c2', 'c3', 'c4']
    """
    moved = []
    for cid, (table_id, owner) in links.items():
        now = owners.get(table_id)
        if now is None or now == (owner, False) or (now[0] != owner and now[1]):
            moved.append(cid)
    return moved
