"""Replays of finished and uploaded games, bounded at every layer.

A record is small but its replay is not: every step's view carries the whole score history,
so the views of a long game grow with the square of its length. Hence:

* an upload is refused before any replay work when it is too big (``max_record_bytes``,
  enforced while the body is read), nests too deep (:data:`MAX_DEPTH`), has too many draws
  or decisions, or asks for too high a ``target_score``; uploads are rate limited per
  client address;
* replay work (checking an upload, computing a page) runs in a worker process
  (:class:`ReplayWorkers`) under a CPU-time and a memory budget, never on the event loop; a
  worker over budget is replaced; jobs wait in a fair queue, where each address holds at
  most ``replay_jobs_per_address`` (flip7.server.services.queues);
* ``GET .../replay`` answers one page of steps (``offset``, ``limit``), which stops early
  once :data:`PAGE_BYTES` of steps are written; pages are kept in a cache bounded in bytes.

>>> from flip7.server.base.settings import Settings
>>> limits = Settings(max_record_draws=3)
>>> parse_upload(b'{"format": "flip7-record/1", "draws": ["1", "2", "3", "4"]}', limits)
Traceback (most recent call last):
...
flip7.server.services.replays.ReplayError: the record has 4 draws; ...
>>> parse_upload(b"[" * 100 + b"]" * 100, limits)
Traceback (most recent call last):
...
flip7.server.services.replays.ReplayError: the JSON nests deeper than 32 levels
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import itertools
import json
import logging
import multiprocessing
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVarTuple

from fastapi.responses import Response

from flip7.core.jsontypes import JSON, JSONObject
from flip7.server.base.errors import ServerError
from flip7.server.base.limits import AddressBudget
from flip7.server.base.queries import query_number
from flip7.server.base.settings import Settings
from flip7.server.services import replay_worker
from flip7.server.services.queues import FairQueue
from flip7.server.store.database import Store
from flip7.server.store.replays import bust_odds_of_game
from flip7.server.table.errors import spend

__all__ = [
    "CACHE_BYTES",
    "MAX_DEPTH",
    "MAX_WAITING",
    "PAGE_BYTES",
    "PageCache",
    "ReplayError",
    "ReplayWorkers",
    "Replays",
    "json_depth",
    "page_request",
    "parse_upload",
    "record_bust_odds",
    "seat_request",
    "step_count",
    "table_bust_odds",
]

log = logging.getLogger("flip7.server")

# A record is an object holding lists of strings, a rules object and a free-form meta
# object: 32 levels leave meta room, and keep the parser's recursion far from its limit.
MAX_DEPTH = 32
# Steps of one page stop once this many bytes of them are written (at least one step).
PAGE_BYTES = 1024 * 1024
# Computed pages kept for the next viewer, in bytes all together.
CACHE_BYTES = 32 * 1024 * 1024
# Replay jobs held at once (waiting for the worker, or with it); past this the server
# answers 503 ``busy``, unless the newcomer goes before the last job waiting
# (flip7.server.services.queues).
MAX_WAITING = 16
# The wall-clock backstop over the CPU budget: the worker may be starting, or the machine
# busy; a worker past it is stuck (in C code, where the CPU timer cannot interrupt it).
_WALL_FACTOR, _WALL_SLACK = 3.0, 10.0

# A JSON string: runs of plain characters between escapes (the unrolled form is fast).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_DEPTH = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}

_Args = TypeVarTuple("_Args")


class ReplayError(ServerError):
    """An upload or a replay page the server refuses (not JSON, past a limit, past the
    worker's budget, no such step...): ``code`` names why, ``status`` is the HTTP status."""


def json_depth(body: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest, without parsing it.

    Brackets inside strings do not count. For text that is not JSON the answer is only
    an estimate (the parser refuses it anyway).

    >>> json_depth(b'{"a": [1, {"b": "[[[["}], "c": []}'), json_depth(b'"x"')
    (3, 0)
    """
    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    return max(itertools.accumulate(map(_DEPTH.__getitem__, brackets)), default=0)


def _too_large(message: str) -> ReplayError:
    return ReplayError("record_too_large", message, 413)


def parse_upload(body: bytes, settings: Settings) -> JSON:
    """The JSON of an uploaded record, refused (``ReplayError``) if it is not JSON, nests
    too deep, or passes a limit on draws, decisions or ``target_score``. Everything else
    about the record is checked by replaying it (:func:`flip7.server.services.replay_worker.check`).
    """
    if json_depth(body) > MAX_DEPTH:
        raise ReplayError("bad_record", f"the JSON nests deeper than {MAX_DEPTH} levels", 400)
    try:
        data: JSON = json.loads(body)
    except (ValueError, RecursionError):
        raise ReplayError("bad_record", "the body is not valid JSON", 400) from None
    if not isinstance(data, dict):
        return data
    for key, limit, name in (
        ("draws", settings.max_record_draws, "max_record_draws"),
        ("decisions", settings.max_record_decisions, "max_record_decisions"),
    ):
        entries = data.get(key)
        if isinstance(entries, list) and len(entries) > limit:
            raise _too_large(
                f"the record has {len(entries)} {key}; an uploaded record may have at most "
                f"{limit} (limit {name})"
            )
    rules = data.get("rules")
    target = rules.get("target_score") if isinstance(rules, dict) else None
    ceiling = settings.max_record_target_score
    if type(target) is int and target > ceiling:
        raise _too_large(
            f"target_score {target} is over {ceiling}, the most an uploaded record may ask "
            "for (limit max_record_target_score)"
        )
    return data


def step_count(record: JSONObject) -> int:
    """The steps of a valid record's replay: the start, then one per draw and decision
    (a valid record uses every entry).

    >>> step_count({"draws": ["5", "9", "12"], "decisions": ["hit"]})
    5
    """
    draws, decisions = record["draws"], record["decisions"]
    assert isinstance(draws, list) and isinstance(decisions, list), "not a valid record"
    return 1 + len(draws) + len(decisions)


def page_request(offset: str | None, limit: str | None, settings: Settings) -> tuple[int, int]:
    """``offset`` and ``limit`` of ``GET .../replay`` as numbers, or 400 saying why not
    (whether the offset is a step of the replay is checked once the record is read).

    >>> from flip7.server.base.settings import Settings
    >>> page_request(None, None, Settings()), page_request("450", "100", Settings())
    ((0, 200), (450, 100))
    >>> page_request("0", "201", Settings())
    Traceback (most recent call last):
    ...
    flip7.server.services.replays.ReplayError: limit must be a number from 1 to 200 (...), not '201'
    """
    most = settings.replay_page_steps
    count = most if limit is None else query_number(limit)
    if count is None or not 1 <= count <= most:
        raise ReplayError("bad_limit", f"limit must be a number from 1 to {most} "
                         f"(limit replay_page_steps), not {str(limit)[:40]!r}", 400)
    first = 0 if offset is None else query_number(offset)
    if first is None:
        raise ReplayError("bad_offset", f"offset must be a step number from 0, "
                         f"not {str(offset)[:40]!r}", 400)
    return first, count


def seat_request(seat: str | None) -> int | None:
    """``seat`` of ``GET .../replay`` as a number (None: the spectator's view), or 400
    ``bad_seat`` (whether the game has that seat is checked once the record is read).

    >>> seat_request(None), seat_request("2")
    (None, 2)
    >>> seat_request("-1")
    Traceback (most recent call last):
    ...
    flip7.server.services.replays.ReplayError: seat must be a seat number from 0, not '-1'
    """
    if seat is None:
        return None
    number = query_number(seat)
    if number is None:
        raise ReplayError("bad_seat", f"seat must be a seat number from 0, "
                         f"not {seat[:40]!r}", 400)
    return number


def check_seat(seat: int | None, record: JSONObject) -> None:
    """400 ``bad_seat`` unless ``seat`` (a number, or None) is a seat of ``record``'s game."""
    names = record["players"]
    assert isinstance(names, list), "not a valid record"
    players = len(names)
    if seat is not None and seat >= players:
        raise ReplayError("bad_seat", f"seat {seat} is not a seat of this game: its seats "
                         f"are 0 to {players - 1}", 400)


def record_bust_odds(record: JSONObject) -> bool:
    """Whether the table of ``record`` told a seat its bust risk: its ``meta.bust_odds``
    when the record says (a boolean), else True, the server's default.

    >>> record_bust_odds({"meta": {"bust_odds": False}}), record_bust_odds({"meta": None})
    (False, True)
    """
    meta = record.get("meta")
    said = meta.get("bust_odds") if isinstance(meta, dict) else None
    return said if isinstance(said, bool) else True


async def table_bust_odds(store: Store, game_id: str) -> bool:
    """Whether the table that played ``game_id`` told a seat its bust risk (its
    ``bust_odds``; True for a game the store does not have)."""
    found = await bust_odds_of_game(store, game_id)
    return True if found is None else found


class PageCache:
    """Pages by key, the least recently used dropped first once over ``budget`` bytes.

    >>> cache = PageCache(budget=12)
    >>> for key in "abcd": cache.put(key, b"123")
    >>> cache.put("e", b"1")                             # 13 bytes: "a" goes
    >>> cache.get("a"), cache.get("b"), cache.size
    (None, b'123', 10)
    >>> cache.put("huge", b"1234"); cache.get("huge")    # over a quarter: not kept
    """

    def __init__(self, budget: int = CACHE_BYTES) -> None:
        self.budget = budget
        self.size = 0
        self._pages: OrderedDict[str, bytes] = OrderedDict()

    def get(self, key: str) -> bytes | None:
        page = self._pages.get(key)
        if page is not None:
            self._pages.move_to_end(key)
        return page

    def put(self, key: str, page: bytes) -> None:
        if len(page) > self.budget // 4 or key in self._pages:
            return
        self._pages[key] = page
        self.size += len(page)
        while self.size > self.budget:
            _, dropped = self._pages.popitem(last=False)
            self.size -= len(dropped)


class ReplayWorkers:
    """One worker process for replay jobs, started on first use, replaced when a job
    passes its budget, dies or hangs. Jobs wait their turn on the event loop in a fair
    queue (flip7.server.services.queues: at most ``max_waiting`` held, each address at
    most ``replay_jobs_per_address``, served in turn across addresses), so that a job
    handed to the process starts at once and its wall-clock backstop measures the job
    alone."""

    def __init__(self, settings: Settings, max_waiting: int = MAX_WAITING) -> None:
        self.seconds = settings.replay_seconds
        self.memory_mb = settings.replay_memory_mb
        self.queue = FairQueue(
            slots=1, capacity=max_waiting, share=settings.replay_jobs_per_address,
            error=ReplayError, jobs="replay jobs", limit="replay_jobs_per_address",
            busy="too many replays are being prepared; try again in a few seconds",
            retry_after=5,
        )
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn, not fork: the server has threads (the database driver's) and a
            # forked child could inherit a lock another thread held.
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=replay_worker.init_worker,
                initargs=(self.memory_mb,),
            )
        return self._pool

    def replace(self) -> None:
        """Stop the worker at once (killed, not asked); the next job starts a new one."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # The executor cannot cancel a running job: its process is killed instead.
        for process in list(getattr(pool, "_processes", {}).values()):
            with contextlib.suppress(Exception):
                process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    close = replace

    async def run(self, task: Callable[[*_Args], replay_worker.Outcome],
                  *args: *_Args, address: str | None = None) -> replay_worker.Outcome:
        """``task(*args)`` in the worker, for the client at ``address`` (None: the
        server's own): its outcome, or a ReplayError when the job is refused (503
        ``busy``, 429 ``too_many_jobs``), passes its budget (422) or fails."""
        ticket = self.queue.enter(address)
        try:
            await self.queue.turn(ticket)
            outcome = await self._run(task, *args)
        finally:
            self.queue.leave(ticket)
        kind, value = outcome
        if kind == "too_long":
            self.replace()  # its memory may be fragmented; start clean
            raise ReplayError("replay_too_long", f"replaying this record takes more than "
                             f"{self.seconds:g} seconds of CPU time (limit replay_seconds)", 422)
        if kind == "too_big":
            self.replace()
            raise ReplayError("replay_too_big", f"replaying this record needs more than "
                             f"{self.memory_mb} MB of memory (limit replay_memory_mb)", 422)
        return kind, value

    async def _run(self, task: Callable[[*_Args], replay_worker.Outcome],
                   *args: *_Args) -> replay_worker.Outcome:
        loop = asyncio.get_running_loop()
        wall = self.seconds * _WALL_FACTOR + _WALL_SLACK
        try:
            future = loop.run_in_executor(
                self._executor(), replay_worker.run, task, self.seconds, *args
            )
            return await asyncio.wait_for(future, wall)
        except TimeoutError:
            log.warning("replay worker stuck for %.0f s: replaced", wall)
            self.replace()
            return ("too_long", self.seconds)
        except BrokenProcessPool:
            # The worker died: most likely the kernel refused it memory past its ceiling.
            log.warning("replay worker died: replaced")
            self.replace()
            return ("too_big", None)
        except MemoryError:  # raised in the worker outside the job (reading its input)
            self.replace()
            return ("too_big", None)
        except Exception:
            log.exception("replay job failed")
            self.replace()
            raise ReplayError("replay_failed", "the replay could not be prepared", 422) from None


class Replays:
    """The replay endpoints' work: uploads checked and refused early, pages computed in
    the worker and cached."""

    def __init__(
        self, settings: Settings, page_bytes: int = PAGE_BYTES, cache_bytes: int = CACHE_BYTES
    ) -> None:
        self.settings = settings
        self.page_bytes = page_bytes
        self.cache = PageCache(cache_bytes)
        self.workers = ReplayWorkers(settings)
        self.uploads = AddressBudget(settings.uploads_per_minute, settings.uploads_burst)
        self.pages = AddressBudget(settings.replay_pages_per_minute, settings.replay_pages_burst)

    async def upload(self, address: str, body: Callable[[], Awaitable[bytes]]) -> str:
        """The checked record of an upload (its ``body``, read once the address's rate
        allows) as it is to be stored (JSON text), or a ReplayError: 429 past the
        address's rate, 400/413/422 saying what is wrong."""
        spend(self.uploads, address, "uploads", "uploads_per_minute")
        # Refused by the queue before the body is read and parsed: in a flood of uploads
        # most are, and a record's parse is the loop's work.
        self.workers.queue.check(address)
        data = parse_upload(await body(), self.settings)
        kind, value = await self.workers.run(replay_worker.check, data, address=address)
        if kind != "ok":
            raise ReplayError("bad_record", str(value), 400)
        return str(value)

    async def page(
        self,
        key: str,
        record: Callable[[], Awaitable[JSONObject]],
        offset: str | None,
        limit: str | None,
        accept_gzip: bool = False,
        address: str | None = None,
        seat: str | None = None,
        bust_odds: Callable[[JSONObject], Awaitable[bool]] | None = None,
    ) -> Response:
        """One page of the replay of ``record()`` (a valid record), from the cache when it
        is there (a stored record never changes). Pages are compressed in the worker and
        kept compressed; a client that does not ``accept_gzip`` gets them inflated.

        ``seat`` (a query parameter: None, or a seat's number): each step's view is that
        seat's, as the table sent it (400 ``bad_seat`` for a seat the game does not have);
        ``bust_odds(record)`` says whether the table told it its bust risk (by default,
        :func:`record_bust_odds`)."""
        first, count = page_request(offset, limit, self.settings)
        viewer = seat_request(seat)
        cache_key = f"{key}?offset={first}&limit={count}"
        if viewer is not None:
            cache_key += f"&seat={viewer}"
        cached = self.cache.get(cache_key)
        if cached is None:
            # A page to compute waits for the worker: refused before the record is read.
            self.workers.queue.check(address)
            data = await record()
            check_seat(viewer, data)
            told = True
            if viewer is not None:
                told = record_bust_odds(data) if bust_odds is None else await bust_odds(data)
            total = step_count(data)
            if first >= total:
                raise ReplayError("bad_offset", f"offset {first} is past the last step: the "
                                 f"replay has {total} steps, 0 to {total - 1}", 400)
            # Only a page the worker must compute costs anything: that is what is counted,
            # so that one address cannot keep the replay worker busy for everyone.
            spend(self.pages, address, "replay pages", "replay_pages_per_minute")
            kind, value = await self.workers.run(
                replay_worker.gzipped_page_of, data, total, first, count, self.page_bytes,
                viewer, told, address=address,
            )
            if kind != "ok" or not isinstance(value, bytes):
                raise ReplayError("bad_record", str(value), 422)
            cached = value
            self.cache.put(cache_key, cached)
        if accept_gzip:
            return Response(
                cached,
                media_type="application/json",
                headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"},
            )
        return Response(await asyncio.to_thread(gzip.decompress, cached),
                        media_type="application/json")
