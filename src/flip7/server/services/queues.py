"""Shared job queues that no address can hold full: the replay worker's and the coach's.

A job waits for one of the queue's ``slots`` (its worker processes). Each address holds at
most ``share`` jobs, waiting or running: past it, 429 ``too_many_jobs`` naming the limit.
Jobs are served in turn across addresses: any address's first job goes before any
address's second, and a job that goes ``first`` (the coach's, asked for by a player of the
game) before every other; among equals, the older first.

At ``capacity`` jobs held (waiting and running), a newcomer that would be served before
the last waiting job takes its place, and that job is refused 503 ``busy``: so the queue
answers ``busy`` only when every job waiting goes before the newcomer, that is when it is
full of other addresses' first jobs (or, for the coach, of players' jobs).

>>> from flip7.server.base.errors import ServerError
>>> queue = FairQueue(slots=1, capacity=3, share=2, error=ServerError, jobs="replay jobs",
...                   limit="replay_jobs_per_address", busy="the queue is full", retry_after=5)
>>> a1, a2 = queue.enter("10.0.0.1"), queue.enter("10.0.0.1")   # a1 runs, a2 waits
>>> queue.enter("10.0.0.1")
Traceback (most recent call last):
...
flip7.server.base.errors.ServerError: your address already has 2 replay jobs waiting or running: at
most 2 at once (limit replay_jobs_per_address); try again once one is done
>>> b1 = queue.enter("10.0.0.2")     # another address: its first job goes before a2
>>> c1 = queue.enter("10.0.0.3")     # full: a2, an address's second job, gives its place
>>> (a2.decided.is_set(), a2.granted), queue.held("10.0.0.1"), queue.waiting
((True, False), 1, 2)
>>> queue.enter("10.0.0.4")          # full of first jobs: busy
Traceback (most recent call last):
...
flip7.server.base.errors.ServerError: the queue is full
>>> queue.leave(a1); b1.granted, c1.decided.is_set()
(True, False)
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field

from flip7.server.base.errors import ServerError

__all__ = ["FairQueue", "Ticket"]


@dataclass(eq=False)
class Ticket:
    """A job's place in a :class:`FairQueue`: its address, its rank (lower is served
    first) and, once ``decided`` is set, whether a slot is its (``granted``) or it lost its
    place to a job that goes before it."""

    address: str | None
    rank: tuple[int, int, int]
    granted: bool = False
    decided: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    running: bool = False
    gone: bool = False


class FairQueue:
    """Jobs waiting for ``slots`` workers, served in turn across addresses (see the
    module). ``error`` is the refusals' type (a replay's, the coach's), ``jobs`` what
    they are called in a refusal, ``limit`` the name of the limit ``share`` is, ``busy``
    the 503's message; ``retry_after`` the seconds a refused client is told to wait."""

    def __init__(
        self, *, slots: int, capacity: int, share: int, error: type[ServerError], jobs: str,
        limit: str, busy: str, retry_after: float,
    ) -> None:
        self.slots = max(1, slots)
        self.capacity = max(1, capacity)
        self.share = max(1, share)
        self.error = error
        self.jobs = jobs
        self.limit = limit
        self.busy = busy
        self.retry_after = retry_after
        self.running = 0
        self._waiting: list[Ticket] = []
        self._held: dict[str, int] = {}
        self._numbers = itertools.count()

    @property
    def waiting(self) -> int:
        """Jobs waiting for a slot."""
        return len(self._waiting)

    def held(self, address: str) -> int:
        """Jobs ``address`` holds, waiting or running."""
        return self._held.get(address, 0)

    def _rank(self, address: str | None, first: bool) -> tuple[int, int, int]:
        turn = 0 if address is None else self.held(address)
        return (0 if first else 1, turn, next(self._numbers))

    def _last(self) -> Ticket | None:
        return max(self._waiting, key=lambda t: t.rank, default=None)

    def check(self, address: str | None, first: bool = False) -> None:
        """Raise the refusal a job of ``address`` would meet now (503 ``busy`` or 429
        ``too_many_jobs``), changing nothing; a job that would take another's place is
        not refused."""
        self._admit(address, (0 if first else 1, 0 if address is None else self.held(address),
                              -1))

    def _admit(self, address: str | None, rank: tuple[int, int, int]) -> Ticket | None:
        """The waiting job a newcomer of ``rank`` would push out (None: none needed), or
        the refusal."""
        victim = None
        if len(self._waiting) + self.running >= self.capacity:
            victim = self._last()
            if victim is None or victim.rank[:2] <= rank[:2]:
                raise self._busy()
        if address is not None and self.held(address) >= self.share:
            raise self.error(
                "too_many_jobs",
                f"your address already has {self.held(address)} {self.jobs} waiting or "
                f"running: at most {self.share} at once (limit {self.limit}); try again "
                "once one is done",
                429,
                retry_after=self.retry_after,
            )
        return victim

    def enter(self, address: str | None, first: bool = False) -> Ticket:
        """A job of ``address`` (None: the server's own, held to no share) joins the queue,
        or is refused (see :meth:`check`); a job it pushes out is told so (its ticket is
        ``decided``, not ``granted``)."""
        rank = self._rank(address, first)
        victim = self._admit(address, rank)
        if victim is not None:
            self._waiting.remove(victim)
            self._release(victim)
            victim.decided.set()
        ticket = Ticket(address, rank)
        if address is not None:
            self._held[address] = self.held(address) + 1
        self._waiting.append(ticket)
        self._grant()
        return ticket

    async def turn(self, ticket: Ticket) -> None:
        """Wait until a slot is ``ticket``'s; 503 ``busy`` if it lost its place meanwhile."""
        await ticket.decided.wait()
        if not ticket.granted:
            raise self._busy()

    def _busy(self) -> ServerError:
        return self.error("busy", self.busy, 503, retry_after=self.retry_after)

    def leave(self, ticket: Ticket) -> None:
        """``ticket``'s job is done, or gave up waiting: its slot or place goes to the next."""
        if ticket.gone:
            return
        if ticket.running:
            self.running -= 1
        else:
            self._waiting.remove(ticket)
        self._release(ticket)
        self._grant()

    def _release(self, ticket: Ticket) -> None:
        ticket.gone = True
        address = ticket.address
        if address is not None:
            left = self.held(address) - 1
            if left > 0:
                self._held[address] = left
            else:
                self._held.pop(address, None)

    def _grant(self) -> None:
        while self.running < self.slots and self._waiting:
            ticket = min(self._waiting, key=lambda t: t.rank)
            self._waiting.remove(ticket)
            ticket.running = True
            self.running += 1
            ticket.granted = True
            ticket.decided.set()
