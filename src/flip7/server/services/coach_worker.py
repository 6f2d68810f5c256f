"""What a coach worker process runs: one seat's analysis of a finished game.

These functions run in a separate process (see :mod:`flip7.server.services.coach_jobs`), never on
the server's event loop. The process has a memory ceiling and each analysis a CPU-time
budget, as a replay's (:mod:`flip7.server.services.replay_worker`): an analysis over either answers
``("too_long", ...)`` or ``("too_big", ...)`` instead of its report. Progress goes back to
the server through the queue handed to :func:`init_worker`, as ``(key, done, total)``, at
most a few times a second.
"""

from __future__ import annotations

import json
import time
from multiprocessing.queues import Queue

from flip7.core.errors import Flip7Error
from flip7.core.jsontypes import JSONObject
from flip7.server.services.replay_worker import MAX_MESSAGE, Outcome, run
from flip7.server.services.replay_worker import init_worker as _replay_init

__all__ = ["PROGRESS_EVERY", "Progress", "analyse_job", "init_worker"]

# The least seconds between two progress messages of one analysis (the last one is always
# sent): the server writes progress to the database at most once a second anyway.
PROGRESS_EVERY = 0.2

# A progress message: the job's key, the decisions graded so far, and all of them.
Progress = tuple[str, int, int]

_progress: Queue[Progress] | None = None  # the queue to the server


def init_worker(memory_mb: int, progress: Queue[Progress]) -> None:
    """The worker process's initializer: its memory ceiling, the CPU timer's handler, and
    the queue that progress goes back by."""
    global _progress
    _replay_init(memory_mb)
    _progress = progress


def _analyse(key: str, record: JSONObject, seat: int) -> Outcome:
    from flip7.coach import analyse

    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if _progress is not None and (done >= total or now - last[0] >= PROGRESS_EVERY):
            last[0] = now
            _progress.put((key, done, total))

    try:
        report = analyse(record, seat, jobs=1, progress=progress)
    except Flip7Error as exc:  # a stored record that no longer replays (a changed engine)
        message = str(exc)
        return ("bad", message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE])
    return ("ok", json.dumps(report.to_json(), separators=(",", ":")))


def analyse_job(key: str, record: JSONObject, seat: int, seconds: float) -> Outcome:
    """``("ok", text)``: the coach's report of ``seat`` in ``record`` as JSON text, with at
    most ``seconds`` of CPU time; ``("bad", message)`` for a record the coach cannot read."""
    return run(_analyse, seconds, key, record, seat)
