"""Every process's per-address budgets as one: with ``flip7 serve --redis`` the token bucket of
each (budget, address) is kept in Redis, so that N processes give one budget, not N.

One key with expiry per bucket, ``flip7:budget:<name>:<address>``, holds the bucket as its
theoretical arrival time (GCRA): the moment, on Redis's own clock, when it is full again. A
take of ``count`` tokens moves it to ``max(it, now) + count / rate``, and the key expires at
that moment, so an address that stopped costs nothing. This is the single process's token
bucket exactly (the same sustained rate and burst, a full bucket being ``burst / rate``
seconds of debt), with no window edge where twice the burst would pass, and one clock for
every machine, so that their clocks' skew does not matter.

The decision stays synchronous and local (:meth:`flip7.server.base.limits.AddressBudget.take`
is called from sync code, the handshake guard's protocol callbacks among it): each budget
decides from its own bucket, which mirrors Redis's. Every token taken is passed on here
(:meth:`SharedBudgets.taken`, never blocking); one task sends all that were taken since its
last flush, summed per key, in one pipeline (one Redis round trip however many frames
were counted), and sets each bucket from the answer: what every process took, less what
this process took since the flush left.

**Overshoot.** A process learns of the others' takes only from the answer to its own flush,
so its bucket may still hold tokens the others took: the take that sends it to Redis is
granted, and so are those it grants before the answer comes back (one Redis round trip and
a turn of its event loop). Beyond the budget, then, at most one token per process for one
client's requests one after another, plus, for requests at once, what each process grants
during one round trip; after that every process refuses until the bucket refills.

**Redis down**: each process falls back to its own bucket (the mirror simply goes on counting
alone), logged once (``budgets_local``), and never refuses more for it; when Redis answers
again the flushes resume (``budgets_shared``). A Redis restart loses the buckets: each
address starts with a full budget again, as after a restart of a single process.

**Open sockets per address** (:class:`~flip7.server.base.limits.AddressCounter`,
``connections_per_address``) stay counted per process, on purpose: that ceiling protects the
process holding the sockets (its memory, file descriptors and fan-out), and the cluster's
capacity grows with its processes as much as an address's share does; what opening them
costs, the handshakes, is one budget across the cluster.

A budget whose rate is 0 never refills (no arrival time to keep): it stays per process.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Mapping

from flip7.server.base.formats import dumps
from flip7.server.base.limits import AddressBudget

__all__ = ["LAZY", "SCRIPT", "SharedBudgets", "bucket_key"]

log = logging.getLogger("flip7.server")

# KEYS[1]: the bucket; ARGV[1]: microseconds per token (1 / rate); ARGV[2]: tokens taken.
# Answers the bucket's debt in microseconds: how long until it is full again.
SCRIPT = """
local now = redis.call('TIME')
local now_us = tonumber(now[1]) * 1000000 + tonumber(now[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now_us
if tat < now_us then tat = now_us end
tat = tat + tonumber(ARGV[1]) * tonumber(ARGV[2])
local debt = tat - now_us
redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.max(1, math.ceil(debt / 1000)))
return math.floor(debt)
"""
_SHA = hashlib.sha1(SCRIPT.encode()).hexdigest()

# Keys waiting for the next flush at most; past this a take is counted by its process alone
# (a flood of addresses must not grow memory while Redis is slow).
MAX_UNSENT = 100_000
# Budgets taken for every WebSocket frame received or sent: their takes wait up to
# LAZY_SECONDS for a flush (another budget's, or their own timer's), so that a busy table's
# fan-out does not send a pipeline to Redis every turn of the event loop. Their overshoot
# is what a process grants in that time more; they are counted per second or per minute.
LAZY = frozenset({"frames", "bytes_sent"})
LAZY_SECONDS = 0.1
# Seconds Redis has to answer a flush, and to wait before trying again after a failure.
TIMEOUT = 1.0
RETRY_SECONDS = 1.0


def bucket_key(name: str, address: str) -> str:
    """The Redis key of budget ``name``'s bucket for ``address``.

    >>> bucket_key("tables", "2001:db8::/64")
    'flip7:budget:tables:2001:db8::/64'
    """
    return f"flip7:budget:{name}:{address}"


class SharedBudgets:
    """The budgets of this process, kept with every other process's in Redis at ``url``.

    :meth:`attach` the budgets by their stable names, :meth:`start` the flushes, and
    :meth:`close` at the stop (the budgets are this process's own again)."""

    def __init__(self, url: str, *, timeout: float = TIMEOUT,
                 retry_seconds: float = RETRY_SECONDS) -> None:  # fmt: skip
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        # No silent retries: a failed flush falls back at once; the next one tries again.
        self.redis = aioredis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )
        self.retry_seconds = retry_seconds
        self.budgets: dict[str, AddressBudget] = {}
        # Tokens taken here since the last flush left, per (budget name, address).
        self._unsent: dict[tuple[str, str], float] = {}
        self._wake = asyncio.Event()
        self._lazy_wake: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        # Whether the last flush was answered (False: every budget counts alone).
        self.up = True

    def attach(self, budgets: Mapping[str, AddressBudget]) -> None:
        """Share each of ``budgets`` under its name (the name is its key in Redis)."""
        for name, budget in budgets.items():
            if budget.rate > 0:
                self.budgets[name] = budget
                budget.share(name, self)

    def detach(self) -> None:
        for budget in self.budgets.values():
            budget.share("", None)
        self.budgets.clear()

    def taken(self, name: str, address: str, count: float) -> None:
        key = (name, address)
        held = self._unsent.get(key)
        if held is None and len(self._unsent) >= MAX_UNSENT:
            return
        self._unsent[key] = (held or 0.0) + count
        if name not in LAZY:
            self._wake.set()
        elif self._lazy_wake is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # not in the server's loop: at once
                self._wake.set()
            else:
                self._lazy_wake = loop.call_later(LAZY_SECONDS, self._wake_lazily)

    def _wake_lazily(self) -> None:
        self._lazy_wake = None
        self._wake.set()

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="flip7-shared-budgets")

    async def close(self) -> None:
        if self._lazy_wake is not None:
            self._lazy_wake.cancel()
            self._lazy_wake = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        self.detach()
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self.flush()
            except Exception as exc:
                if self.up:
                    log.warning(dumps({"event": "budgets_local", "error": str(exc)}))
                    self.up = False
                # What was taken meanwhile is counted here alone; the next take tries again.
                self._unsent.clear()
                await asyncio.sleep(self.retry_seconds)

    # ------------------------------------------------------------------ flushes

    async def flush(self) -> None:
        """Send every token taken since the last flush, one pipeline for all, and set each
        bucket from Redis's answer (raises when Redis does not answer)."""
        batch, self._unsent = self._unsent, {}
        batch = {key: count for key, count in batch.items() if key[0] in self.budgets}
        if not batch:
            return
        answers = await self._send(batch, loaded=False)
        for (name, address), debt in zip(batch, answers, strict=True):
            assert isinstance(debt, int), debt
            self.budgets[name].told(address, debt / 1e6, self._unsent.get((name, address), 0.0))
        if not self.up:
            log.info(dumps({"event": "budgets_shared"}))
            self.up = True

    async def _send(self, batch: dict[tuple[str, str], float], loaded: bool) -> list[object]:
        from redis.exceptions import NoScriptError

        pipe = self.redis.pipeline(transaction=False)
        for (name, address), count in batch.items():
            interval = 1e6 / self.budgets[name].rate
            pipe.evalsha(_SHA, 1, bucket_key(name, address), repr(interval), repr(count))
        answers: list[object] = await pipe.execute(raise_on_error=False)
        if not loaded and any(isinstance(a, NoScriptError) for a in answers):
            # Redis forgot the script (it restarted): none of them ran; load it and resend.
            await self.redis.script_load(SCRIPT)
            return await self._send(batch, loaded=True)
        failed = next((a for a in answers if isinstance(a, Exception)), None)
        if failed is not None:
            raise failed
        return answers
