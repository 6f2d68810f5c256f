"""Commits on a thread of their own.

A commit is several round trips to the database (BEGIN, each statement, COMMIT). Made
with an async driver on the server's event loop, each answer waits for the loop's next
turn; when the loop is busy (a storm of spectators' handshakes, a flood of refused
requests) a turn lasts tens of milliseconds, and a move's commit paid it four or five
times over: in ``flip7 attack --cluster``'s spectators' flood the control table's p95 was
nearly all its commit (85-105 ms against 10-13 ms quiet) while PostgreSQL itself was idle.

Here a whole commit is one call of plain, blocking code (SQLAlchemy's synchronous engine
on the standard library's ``sqlite3`` or on psycopg) on one thread that does nothing
else: the server's loop hands it over once and is woken once, with the result. (An
event loop on the thread with the async driver cost more: aiosqlite runs each statement
on yet another thread, so every statement was two wake-ups of two loops.)

>>> import asyncio
>>> import sqlalchemy as sa
>>> def thread_name(engine: sa.Engine) -> str:
...     import threading
...     return threading.current_thread().name
>>> async def main() -> str:
...     committer = Committer(sa.create_engine("sqlite://"))
...     try:
...         return await committer.run(thread_name)
...     finally:
...         await committer.close()
>>> asyncio.run(main())
'flip7-store-commits'
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import sqlalchemy as sa

__all__ = ["Committer"]

_T = TypeVar("_T")


class Committer:
    """One thread that runs blocking work on ``engine``, a synchronous engine of its own:
    :meth:`run` awaits it from the event loop."""

    def __init__(self, engine: sa.Engine) -> None:
        #: The engine the thread's work gets (its connections are the thread's).
        self.engine = engine
        # One worker: commits stay in order, and an SQLite file has one writer anyway.
        self._thread = ThreadPoolExecutor(1, initializer=_name_thread)

    async def run(self, work: Callable[[sa.Engine], _T]) -> _T:
        """``work(engine)`` on the thread; its result (or exception) here."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, work, self.engine)

    async def close(self) -> None:
        """Disconnect the engine and end the thread (after the work it was given)."""
        try:
            await self.run(lambda engine: engine.dispose())
        finally:
            await asyncio.to_thread(self._thread.shutdown)


def _name_thread() -> None:
    threading.current_thread().name = "flip7-store-commits"
