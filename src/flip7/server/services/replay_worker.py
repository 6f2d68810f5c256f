"""What a replay worker process runs: checking an uploaded record and computing a page.

These functions run in a separate process (see :mod:`flip7.server.services.replays`), so that a long
or large replay never holds the server's event loop. The module imports only the engine
(and the advisor, for a seat's bust risk), so that a worker starts fast and small. Each
call runs under a CPU-time budget (a profiling timer) and the whole process under a memory
ceiling (``RLIMIT_AS``); a call over either answers ``("too_long", ...)`` or
``("too_big", ...)`` instead of its result.

>>> rec = {"format": "flip7-record/1", "players": ["A", "B", "C"],
...        "draws": ["5", "9", "12", "3"], "decisions": ["hit"]}
>>> run(check, 5.0, rec)[0]
'ok'
>>> run(check, 5.0, {**rec, "draws": ["0", "0"]})
('bad', 'draws[1]: card 0 cannot be drawn now: ...')
>>> kind, page = run(page_of, 5.0, rec, 6, 4, 10, 1 << 20)
>>> import json; body = json.loads(page)
>>> kind, body["total_steps"], body["offset"], len(body["steps"])
('ok', 6, 4, 2)
"""

from __future__ import annotations

import gzip
import json
import resource
import signal
from collections.abc import Callable
from types import FrameType
from typing import TypeVarTuple

from flip7.core.errors import Flip7Error
from flip7.core.events import Event, RoundStarted
from flip7.core.jsontypes import JSON, JSONObject
from flip7.core.machine import lower_priority
from flip7.engine.game import Game
from flip7.engine.record import Record, _replay, replay_game
from flip7.server.table.views import seat_view

__all__ = ["MAX_MESSAGE", "check", "gzipped_page_of", "init_worker", "page_of", "run"]

# An error message quotes the entry it is about, which a stranger chose: keep it short.
MAX_MESSAGE = 300
# How much lower than the server the replay and coach workers run (os.nice, init_worker):
# as low as a process can go, so that a flood of batch work gives the bot workers (nice 5)
# their core. At 10 a queue of coach jobs still took a quarter of the victim bot table's
# core in `flip7 attack --cluster` (its median wait 1.55x quiet).
WORKER_NICENESS = 19

# What a job answers: ("ok", its result: text or bytes), ("bad", why), ("too_long", the
# seconds it was allowed), ("too_big", None), or another kind of the job's own.
Outcome = tuple[str, str | bytes | float | None]

_Args = TypeVarTuple("_Args")


class _OverTime(Exception):
    """Raised by the profiling timer's signal handler when the CPU budget is spent."""


def _over_time(_signum: int, _frame: FrameType | None) -> None:
    raise _OverTime


def init_worker(memory_mb: int) -> None:
    """The worker process's initializer: its memory ceiling and the CPU timer's handler."""
    limit = memory_mb * 1024 * 1024
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:  # a process may lower its hard limit, never raise it
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    signal.signal(signal.SIGPROF, _over_time)
    # Batch work (a replay checked or paged, a coach's analysis) runs below the event loop
    # and the bot workers: a flood of it can take the cores only when nobody else wants them.
    lower_priority(WORKER_NICENESS, own_session=True)


def run(
    task: Callable[[*_Args], Outcome], seconds: float, *args: *_Args
) -> Outcome:
    """``task(*args)`` with at most ``seconds`` of CPU time (user and system)."""
    signal.signal(signal.SIGPROF, _over_time)
    try:
        signal.setitimer(signal.ITIMER_PROF, seconds)
        try:
            return task(*args)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    except _OverTime:
        return ("too_long", seconds)
    except MemoryError:
        return ("too_big", None)


def _short(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


def _dumps(data: object) -> str:
    return json.dumps(data, separators=(",", ":"))


def check(data: JSON) -> Outcome:
    """Check an uploaded record by replaying it (no views: only whether it is valid).

    ``("ok", text)`` with the record as stored (``Record.to_json``), or ``("bad", message)``
    naming the first thing wrong.
    """
    try:
        record = Record.from_json(data)
        replay_game(record)
    except Flip7Error as exc:
        return ("bad", _short(str(exc)))
    return ("ok", _dumps(record.to_json()))


def page_of(
    record: JSONObject, total: int, offset: int, limit: int, max_bytes: int,
    seat: int | None = None, bust_odds: bool = True,
) -> Outcome:
    """``("ok", bytes)``: the JSON of one page of a valid record's replay.

    Each step's ``game`` is the view of ``seat`` (None: a spectator's), as the table sent
    it to that seat (:func:`flip7.server.table.views.seat_view`): its legal options when it must
    decide and, if the table told bust odds (``bust_odds``), its bust risk at a Hit or
    Stay; never another seat's.

    The page holds the record, the number of steps of the whole replay, the page's first
    step and its steps: at most ``limit``, and no more once ``max_bytes`` of steps are
    written (always at least one), since late steps carry the whole score history. It
    also holds ``round_starts``, the step of each round's ``round_started`` event: the
    replay runs on to the end for them, without views (a whole replay without views costs
    no more than checking the record did).
    """
    parts: list[bytes] = []
    size = 0
    index = 0
    full = False
    round_starts: list[int] = []
    gathered: list[Event] = []

    def step(game: Game, events: list[Event]) -> None:
        # The engine's own stepping (record._replay, as replay_steps uses it), so that a
        # view is built only for a step of the page (a view rebuilds the whole score
        # history).
        nonlocal index, size, full
        gathered.clear()  # each step's events come as ``events``: keep memory flat
        if any(type(e) is RoundStarted for e in events):
            round_starts.append(index)
        if index >= offset and not full:
            part = _dumps({"events": [e.to_json() for e in events],
                           "game": seat_view(game, seat, bust_odds)}).encode()
            parts.append(part)
            size += len(part) + 1
            full = len(parts) >= limit or size >= max_bytes
        index += 1

    try:
        _replay(record, gathered, step)
    except Flip7Error as exc:  # a stored record that no longer replays (a changed engine)
        return ("bad", _short(str(exc)))
    head = _dumps({"record": record, "total_steps": total, "offset": offset,
                   "round_starts": round_starts})  # fmt: skip
    return ("ok", head[:-1].encode() + b',"steps":[' + b",".join(parts) + b"]}")


def gzipped_page_of(
    record: JSONObject, total: int, offset: int, limit: int, max_bytes: int,
    seat: int | None = None, bust_odds: bool = True,
) -> Outcome:
    """:func:`page_of`, gzip-compressed here in the worker: compressing a page of a megabyte
    costs tens of milliseconds, which the server's event loop must not spend.

    >>> from flip7 import Game, Record
    >>> game = Game.new(["A", "B", "C"], seed=1)
    >>> while not game.over:
    ...     _ = game.apply(game.legal_decisions()[0])
    >>> rec = Record.from_game(game).to_json()
    >>> kind, page = gzipped_page_of(rec, 6, 0, 2, 1 << 20)
    >>> kind, json.loads(gzip.decompress(page))["offset"]
    ('ok', 0)
    """
    kind, value = page_of(record, total, offset, limit, max_bytes, seat, bust_odds)
    if kind != "ok" or not isinstance(value, bytes):
        return kind, value
    # Level 6: most of level 9's ratio on JSON, at a third of its time.
    return kind, gzip.compress(value, compresslevel=6, mtime=0)
