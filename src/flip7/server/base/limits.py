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
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["AddressBudget", "AddressCounter", "TokenBucket", "client_address"]

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


class AddressBudget:
    """One token bucket per client address: ``per_minute`` sustained, ``burst`` at once."""

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
        return self._bucket(address).take(self._clock(), count)

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


# Added at the end of the module (imports and names included) so that it merges beside the
# budget classes' own changes.
import ipaddress  # noqa: E402

__all__ += ["address_block"]


def address_block(host: str, ipv4_prefix: int = 32, ipv6_prefix: int = 64) -> str:
    """The block of addresses that ``host`` shares its budgets with: one host holds a whole
    IPv6 /64, so IPv6 is counted by ``ipv6_prefix`` bits ("2001:db8:1:2::/64"); IPv4 by
    ``ipv4_prefix`` bits, 32 (the address itself) unless the operator groups wider. An
    IPv4-mapped IPv6 address is its IPv4 address; anything else (a test client's name,
    "unknown", a block already) is its own block, so that blocking twice changes nothing.

    >>> address_block("2001:db8:1:2:aaaa::1"), address_block("2001:db8:1:2::ffff")
    ('2001:db8:1:2::/64', '2001:db8:1:2::/64')
    >>> address_block("203.0.113.7"), address_block("203.0.113.7", ipv4_prefix=24)
    ('203.0.113.7', '203.0.113.0/24')
    >>> address_block("::ffff:203.0.113.7"), address_block("::1", ipv6_prefix=128)
    ('203.0.113.7', '::1')
    >>> address_block("testclient"), address_block("2001:db8:1:2::/64")
    ('testclient', '2001:db8:1:2::/64')
    """
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if isinstance(address, ipaddress.IPv4Address):
        prefix = min(max(ipv4_prefix, 0), 32)
        whole = 32
    else:
        prefix = min(max(ipv6_prefix, 0), 128)
        whole = 128
    if prefix == whole:
        return str(address)
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))
