"""Commits on a thread of their own.

A commit is several round trips to the database (BEGIN, each statement, COMMIT), and on
the server's event loop each answer waits for the loop's next turn. When the loop is busy
(a storm of spectators' handshakes, a flood of refused requests) a turn lasts tens of
milliseconds, and a move's commit paid it four or five times over: in ``flip7 attack
--cluster``'s spectators' flood the control table's p95 was nearly all its commit (85-105
ms against 10-13 ms quiet) while PostgreSQL itself was idle. Here the round trips wait on
a loop of their own that has nothing else to do; the server's loop waits one turn, for the
result.

>>> import asyncio
>>> from sqlalchemy.ext.asyncio import create_async_engine
>>> async def main() -> str:
...     committer = await Committer.start(lambda: create_async_engine("sqlite+aiosqlite://"))
...     try:
...         return await committer.run(lambda engine: _thread_name())
...     finally:
...         await committer.close()
>>> async def _thread_name() -> str:
...     import threading
...     return threading.current_thread().name
>>> asyncio.run(main())
'flip7-store-commits'
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["Committer"]

_T = TypeVar("_T")


class Committer:
    """A thread with an event loop and an engine of its own, on which :meth:`run` runs
    work; start it with :meth:`start`."""

    def __init__(self, loop: asyncio.AbstractEventLoop, engine: AsyncEngine,
                 thread: threading.Thread) -> None:  # fmt: skip
        self._loop = loop
        #: The engine of the thread's loop (an asyncpg connection belongs to one loop).
        self.engine = engine
        self._thread = thread

    @classmethod
    async def start(cls, make_engine: Callable[[], AsyncEngine]) -> Committer:
        """The thread started, its engine made by ``make_engine`` on its loop."""
        caller = asyncio.get_running_loop()
        ready: asyncio.Future[tuple[asyncio.AbstractEventLoop, AsyncEngine]] = (
            caller.create_future()
        )

        def main() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                engine = make_engine()
            except BaseException as exc:  # the caller raises it
                caller.call_soon_threadsafe(ready.set_exception, exc)
                loop.close()
                return
            caller.call_soon_threadsafe(ready.set_result, (loop, engine))
            try:
                loop.run_forever()
            finally:
                loop.close()

        thread = threading.Thread(target=main, name="flip7-store-commits", daemon=True)
        thread.start()
        loop, engine = await ready
        return cls(loop, engine, thread)

    async def run(self, work: Callable[[AsyncEngine], Awaitable[_T]]) -> _T:
        """``work(engine)`` on the thread's loop; its result (or exception) here."""

        async def call() -> _T:
            return await work(self.engine)

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(call(), self._loop))

    async def close(self) -> None:
        """Disconnect the thread's engine and end the thread."""
        try:
            await self.run(lambda engine: engine.dispose())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            await asyncio.to_thread(self._thread.join)
