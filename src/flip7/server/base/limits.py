"""Budgets per client address: token buckets and counters that strangers cannot reset.

A budget kept per connection is reset by reconnecting, so everything a stranger can repeat
(creating tables, uploading records, opening sockets, sending frames) is also counted per
client address. The maps are bounded: an address whose bucket is full again is forgotten
first, so a flood of addresses cannot grow memory without end.

>>> clock = [0.0]
>>> budget = AddressBudget(per_minute=60, burst=2, clock=lambda: clock[0])
>>> [budget.take("10.0.0.1") for _ in range(3)]
[True, True, False]
>>> budget.retry_after("10.0.0.1")
1.0
>>> budget.take("10.0.0.2")         # another address has its own bucket
True
>>> clock[0] = 1.0                  # a second later: one token back
>>> budget.take("10.0.0.1")
True

With many processes (``flip7 serve --redis``) each budget is also :meth:`AddressBudget.share` d
under a stable name: the bucket then mirrors the one kept in Redis for all processes
(flip7.server.cluster.budgets), so N processes give one budget, not N.
"""

from __future__ import annotations

import functools
import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "AddressBudget",
    "AddressCounter",
    "Shared",
    "TokenBucket",
    "address_block",
    "client_address",
]

# Addresses remembered at once; past this the least recently seen go first.
MAX_ADDRESSES = 100_000


@dataclass(slots=True)
class TokenBucket:
    """``rate`` tokens a second up to ``burst``; each action takes one."""

    rate: float
    burst: float
    tokens: float
    last: float

    def refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now

    def take(self, now: float, count: float = 1.0) -> bool:
        self.refill(now)
        if self.tokens >= count:
            self.tokens -= count
            return True
        return False

    def wait(self, now: float, count: float = 1.0) -> float:
        """Seconds until ``count`` tokens are there."""
        self.refill(now)
        if self.tokens >= count or self.rate <= 0:
            return 0.0
        return (count - self.tokens) / self.rate


class Shared(Protocol):
    """Where the budgets of many processes meet (flip7.server.cluster.budgets.SharedBudgets):
    told of every token taken here, it tells the budget back, through :meth:`AddressBudget.told`,
    what the address has left across all processes."""

    def taken(self, name: str, address: str, count: float) -> None:
        """``count`` tokens of budget ``name`` were taken for ``address`` here (never blocks)."""


class AddressBudget:
    """One token bucket per client address: ``per_minute`` sustained, ``burst`` at once.

    Shared (:meth:`share`), every token taken is passed on, and the answers (:meth:`told`)
    set the address's bucket to what is left across every process, less what this process
    took since; the decision itself stays here and at once.

    >>> clock = [0.0]
    >>> budget = AddressBudget(per_minute=60, burst=3, clock=lambda: clock[0])
    >>> class Told:
    ...     def taken(self, name, address, count): print("taken", name, address, count)
    >>> budget.share("tables", Told())
    >>> budget.take("10.0.0.1")
    taken tables 10.0.0.1 1.0
    True
    >>> budget.told("10.0.0.1", debt=2.0, unsent=0.0)  # another process took one more
    >>> budget.take("10.0.0.1"), budget.take("10.0.0.1"), budget.retry_after("10.0.0.1")
    taken tables 10.0.0.1 1.0
    (True, False, 1.0)
    """

    def __init__(
        self,
        per_minute: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
        max_addresses: int = MAX_ADDRESSES,
    ) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self._clock = clock
        self._max = max_addresses
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()
        # The name and the place this budget is shared under (None: this process alone).
        self.shared: tuple[str, Shared] | None = None

    def share(self, name: str, shared: Shared | None) -> None:
        """Count this budget with every process's, as ``name`` (None: this process alone)."""
        self.shared = None if shared is None else (name, shared)

    def _bucket(self, address: str) -> TokenBucket:
        now = self._clock()
        bucket = self._buckets.get(address)
        if bucket is None:
            bucket = TokenBucket(self.rate, self.burst, self.burst, now)
            self._buckets[address] = bucket
            while len(self._buckets) > self._max:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(address)
        return bucket

    def take(self, address: str, count: float = 1.0) -> bool:
        """Take ``count`` tokens for ``address``; False (nothing taken) when there are too few."""
        if not self._bucket(address).take(self._clock(), count):
            return False
        if self.shared is not None:
            name, shared = self.shared
            shared.taken(name, address, count)
        return True

    def told(self, address: str, debt: float, unsent: float) -> None:
        """What every process together has taken from ``address``: ``debt`` seconds until its
        bucket is full again (a token bucket kept as its theoretical arrival time), of which
        this process took ``unsent`` tokens since (not counted in ``debt``)."""
        bucket = self._bucket(address)
        bucket.last = self._clock()
        bucket.tokens = self.burst - debt * self.rate - unsent

    def retry_after(self, address: str) -> float:
        """Seconds until ``address`` may act again (0 if it may now)."""
        return round(self._bucket(address).wait(self._clock()), 3)


class AddressCounter:
    """How many of something (open WebSockets) each address holds, with a ceiling.

    >>> sockets = AddressCounter(limit=2)
    >>> [sockets.acquire("a"), sockets.acquire("a"), sockets.acquire("a")]
    [True, True, False]
    >>> sockets.release("a"); sockets.acquire("a")
    True
    >>> sockets.count("a"), sockets.count("b")
    (2, 0)
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._counts: dict[str, int] = {}

    def acquire(self, address: str) -> bool:
        held = self._counts.get(address, 0)
        if held >= self.limit:
            return False
        self._counts[address] = held + 1
        return True

    def release(self, address: str) -> None:
        held = self._counts.get(address, 0) - 1
        if held > 0:
            self._counts[address] = held
        else:
            self._counts.pop(address, None)

    def count(self, address: str) -> int:
        return self._counts.get(address, 0)


def client_address(client: object) -> str:
    """The address a budget is kept for, from an ASGI ``client`` (host, port) pair.

    >>> client_address(("127.0.0.2", 5123)), client_address(None)
    ('127.0.0.2', 'unknown')
    """
    host = getattr(client, "host", None)
    if host is None and isinstance(client, tuple) and client:
        host = client[0]
    return str(host) if host else "unknown"


# Pure and asked for every connection and request (ipaddress parsing is slow): cached.
@functools.lru_cache(maxsize=65536)
def address_block(address: str, ipv4_prefix: int = 32, ipv6_prefix: int = 64) -> str:
    """The block ``address`` belongs to: one person easily holds many addresses of a block
    (an IPv6 host a /64, a site a /48), and counting them as one is what keeps them from
    passing for many people. Every per-address budget is kept per block (IPv6 by a /64 and
    IPv4 by the address itself unless the operator says otherwise: ``ipv6_block_prefix``,
    ``ipv4_block_prefix``); a prefix as long as the address gives the address itself. An
    IPv4-mapped IPv6 address is its IPv4 address. A block already (``2001:db8:1:2::/64``,
    what the routes see as the client) gives the wider block asked for, else stays as it is,
    so that blocking twice changes nothing; a name that is not an address (``"unknown"``, a
    test client's ``"testclient"``) is its own block.

    >>> address_block("2001:db8:1:2:aaaa::1"), address_block("2001:db8:1:2::ffff")
    ('2001:db8:1:2::/64', '2001:db8:1:2::/64')
    >>> address_block("203.0.113.7"), address_block("203.0.113.7", ipv4_prefix=24)
    ('203.0.113.7', '203.0.113.0/24')
    >>> address_block("203.0.113.77", 24, 48), address_block("2001:db8:1:2::9", 24, 48)
    ('203.0.113.0/24', '2001:db8:1::/48')
    >>> address_block("::ffff:203.0.113.77", 24, 48), address_block("::1", ipv6_prefix=128)
    ('203.0.113.0/24', '::1')
    >>> address_block("2001:db8:1:2::/64", 24, 48), address_block("2001:db8:1:2::/64")
    ('2001:db8:1::/48', '2001:db8:1:2::/64')
    >>> address_block("testclient", 24, 48), address_block("unknown")
    ('testclient', 'unknown')
    """
    try:
        network = ipaddress.ip_network(address.strip("[]"), strict=False)
    except ValueError:
        return address
    first = network.network_address
    mapped = first.ipv4_mapped if isinstance(first, ipaddress.IPv6Address) else None
    if mapped is not None and network.prefixlen == 128:
        network = ipaddress.ip_network(mapped)
    prefix = ipv4_prefix if network.version == 4 else ipv6_prefix
    # Never narrower than the block given: its own addresses are not known any more.
    prefix = max(0, min(prefix, network.prefixlen))
    if prefix == network.max_prefixlen:
        return str(network.network_address)
    return str(ipaddress.ip_network(f"{network.network_address}/{prefix}", strict=False))
