"""One piece of work per key at a time, whose outcome every caller meanwhile shares: the
question to the database of who runs a table, however many sockets ask; the takeover of a
table, or the return of a suspended one, whoever asks for it.

The work runs to its end even if every caller gives up waiting (a socket's deadline): a
takeover cancelled half-way would leave a table claimed but not rebuilt. (A lock per key,
dropped by its last holder, was not enough: a caller arriving just as the holder let go
found no lock and ran beside the waiter just woken, and one process took one table over
twice.)

>>> import asyncio, functools
>>> shared: Shared[str, int] = Shared()
>>> calls = []
>>> async def work(n: int) -> int:
...     calls.append(n)
...     await asyncio.sleep(0.01)
...     return n
>>> async def main() -> list[int]:
...     asked = [shared.run("t1", functools.partial(work, n)) for n in range(3)]
...     return await asyncio.gather(*asked)
>>> asyncio.run(main()), calls, len(shared)
([0, 0, 0], [0], 0)
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Generic, TypeVar

__all__ = ["Shared", "stop"]

_Key = TypeVar("_Key", bound=Hashable)
_Result = TypeVar("_Result")


class Shared(Generic[_Key, _Result]):
    """The work under way, by key (see the module's docstring)."""

    def __init__(self) -> None:
        self._running: dict[_Key, asyncio.Future[_Result]] = {}

    def __len__(self) -> int:
        return len(self._running)

    async def run(self, key: _Key, work: Callable[[], Awaitable[_Result]]) -> _Result:
        """The outcome of ``work()`` for ``key``: started now, or the one already under way
        for it (``work`` is then not called)."""
        task = self._running.get(key)
        if task is None:
            task = asyncio.ensure_future(work())
            self._running[key] = task
            task.add_done_callback(functools.partial(self._done, key))
        return await asyncio.shield(task)

    def _done(self, key: _Key, task: asyncio.Future[_Result]) -> None:
        if self._running.get(key) is task:
            del self._running[key]
        if not task.cancelled():
            task.exception()  # retrieved: nobody may be waiting for it any more

    async def close(self) -> None:
        """Cancel the work under way and wait until it has stopped."""
        await stop(list(self._running.values()))


async def stop(tasks: Sequence[asyncio.Future[_Result]]) -> None:
    """Cancel ``tasks`` and wait until each has stopped."""
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
