"""This process's link to Redis: its own channel (``flip7:n:<node>``), the messages it
publishes to others, in order, and whether they listen.

Only typed messages travel (flip7.server.cluster.messages): each is written in its own wire
form here and read back on the other side, whatever its kind.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from flip7.server.base.formats import dumps
from flip7.server.base.shared import stop
from flip7.server.cluster.messages import BusMessage, decode

__all__ = ["Bus", "BusDown", "OwnerGone"]

log = logging.getLogger("flip7.server")


def _channel(node: str) -> str:
    return f"flip7:n:{node}"


class BusDown(Exception):
    """Redis does not answer: nothing can be forwarded now."""


class OwnerGone(Exception):
    """The process a call went to is gone (it may or may not have run the call)."""


class Bus:
    """This process's link to Redis: its own channel, publishing in order, liveness keys."""

    def __init__(
        self, url: str, node: str, seconds: float,
        on_message: Callable[[BusMessage], None], on_down: Callable[[], None],
        on_up: Callable[[], None] = lambda: None,
    ) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        self.node = node
        self.seconds = seconds
        # No silent retries: a subscription that reconnected on its own would have lost
        # what was published meanwhile, unnoticed. A broken connection is the bus going
        # down, which closes every link (flip7.server.cluster.node.Cluster.bus_down).
        self.redis = aioredis.Redis.from_url(
            url, socket_timeout=max(seconds, 10.0), socket_connect_timeout=seconds,
            retry=Retry(NoBackoff(), 0),
        )
        self.on_message = on_message
        self.on_down = on_down
        self.on_up = on_up
        self.up = False
        self._outbox: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = asyncio.Event()

    async def start(self) -> None:
        """Subscribe to this process's channel (waits for Redis up to a few seconds, then
        goes on trying in the background)."""
        self._tasks = [
            asyncio.create_task(self._listen(), name="flip7-bus-listen"),
            asyncio.create_task(self._send(), name="flip7-bus-send"),
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._subscribed.wait(), 5.0)

    async def close(self) -> None:
        await stop(self._tasks)
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    def _went_down(self, exc: BaseException) -> None:
        if self.up:
            log.warning(dumps({"event": "redis_down", "error": str(exc)}))
            self.up = False
            self.on_down()

    async def _listen(self) -> None:
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(_channel(self.node))
                if not self.up:
                    log.info(dumps({"event": "redis_up", "node": self.node}))
                    self.up = True
                    self.on_up()
                self._subscribed.set()
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if not self.up:  # a publish failed: start afresh
                        raise ConnectionError("publishing to Redis failed")
                    if message is None or message.get("type") != "message":
                        continue
                    try:
                        received = decode(message["data"])
                    except ValidationError:  # pragma: no cover - only flip7 publishes here
                        continue
                    self.on_message(received)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await _close(pubsub)
                raise
            except Exception as exc:
                self._went_down(exc)
                with contextlib.suppress(Exception):
                    await _close(pubsub)
                await asyncio.sleep(0.5)

    async def _send(self) -> None:
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < 512:
                batch.append(self._outbox.get_nowait())
            if not self.up:
                continue  # dropped: the sockets they were for are being closed
            try:
                pipe = self.redis.pipeline(transaction=False)
                for channel, text in batch:
                    pipe.publish(channel, text)
                await pipe.execute()
            except Exception as exc:
                self._went_down(exc)

    def send(self, node: str, message: BusMessage) -> None:
        """Publish ``message`` to ``node``, after everything sent before (never blocks)."""
        if not self.up:
            raise BusDown("Redis does not answer")
        self._outbox.put_nowait((_channel(node), message.wire()))

    async def send_now(self, node: str, message: BusMessage) -> bool:
        """Publish ``message`` to ``node`` at once; whether ``node`` is listening. A process
        killed with ``kill -9`` stops listening the moment its connection closes, long
        before its leases expire."""
        if not self.up:
            raise BusDown("Redis does not answer")
        try:
            listening = await self.redis.publish(_channel(node), message.wire())
        except Exception as exc:
            self._went_down(exc)
            raise BusDown(str(exc)) from None
        return bool(listening)

    async def alive(self, nodes: set[str]) -> set[str]:
        """Which of ``nodes`` listen on their channel now."""
        if not nodes:
            return set()
        counts = await self.redis.pubsub_numsub(*(_channel(n) for n in nodes))
        prefix = len(_channel(""))
        return {
            (name.decode() if isinstance(name, bytes) else str(name))[prefix:]
            for name, count in counts
            if count
        }


async def _close(pubsub: Any) -> None:
    """Close a Redis pub/sub connection: ``aclose`` is untyped in some releases of redis
    and typed in others (5 and 8), so that no ``type: ignore`` fits both."""
    await pubsub.aclose()
