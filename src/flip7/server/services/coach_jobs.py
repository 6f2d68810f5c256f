"""The coach over the web: a seat's decisions in a finished game graded off the request path.

``POST /api/games/{game_id}/coach {"seat": S}`` asks for an analysis (:mod:`flip7.coach`,
the strongest bots' evaluation of every decision of that seat, from what it could see);
``GET /api/games/{game_id}/coach?seat=S`` says how far it is, and gives the report once done.

* **Off the request path.** An analysis runs in a worker process (``coach_workers`` of
  them, 1 by default: :mod:`flip7.server.services.coach_worker`) under a CPU-time budget
  (``coach_seconds``) and a memory ceiling (``coach_memory_mb``), with a wall-clock
  backstop; a worker over budget is replaced and the analysis ``failed``, saying which
  limit it passed. Each address may ask for ``coach_per_minute`` new ones (429
  ``rate_limited``); asking for one that is done, or under way, costs nothing.
* **A fair queue** (flip7.server.services.queues). Each address holds at most
  ``coach_jobs_per_address`` analyses, waiting or running (429 ``too_many_jobs``), and
  analyses are served in turn across addresses; one asked for by a player of the game
  (its ``X-Player-Key`` names an identity that played it) goes before every stranger's.
  At most ``coach_queue`` wait at once: past it a newcomer that goes before the last one
  waiting takes its place (that analysis is ``failed``, saying so: ask again), and one
  that does not is refused 503 ``busy``.
* **Kept.** Every analysis is a row of ``coach_analyses``: its status, its progress
  (``done`` of ``total`` decisions, written at most about once a second while it runs) and,
  once done, the report. Any process of a cluster answers from the row, and a restart
  keeps every finished report.
* **A job that died.** An analysis whose process stopped (a restart, a crash) is
  ``failed`` with a message saying so, and asking again (``POST``) starts it anew. With
  one process, a queued or running row that this process does not run is such a job; with
  many, one whose row has not been touched for :data:`STALE` seconds (the process running
  it touches its rows every :data:`HEARTBEAT` seconds). A failed analysis (a budget passed)
  is likewise started anew by the next ``POST``, which counts as a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import queue
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing.queues import Queue

from flip7.core.decisions import parse_decision
from flip7.core.errors import DecisionError, Flip7Error
from flip7.core.jsontypes import JSON, JSONObject
from flip7.server.base.errors import ServerError
from flip7.server.base.formats import utcnow
from flip7.server.base.limits import AddressBudget
from flip7.server.base.queries import query_number
from flip7.server.base.settings import Settings
from flip7.server.services import coach_worker
from flip7.server.services.queues import FairQueue, Ticket
from flip7.server.services.ratings import entrants_of
from flip7.server.services.replay_worker import Outcome
from flip7.server.store.coach import (
    AnalysisChange,
    AnalysisRow,
    analysis_row,
    change_analysis,
    queue_analysis,
)
from flip7.server.store.database import Store
from flip7.server.table.errors import spend
from flip7.server.table.storage import StoreError

__all__ = ["HEARTBEAT", "PROGRESS_WRITES", "STALE", "CoachError", "CoachJobs"]

log = logging.getLogger("flip7.server")

# Seconds between two progress writes of one analysis (the database is not a progress bar).
PROGRESS_WRITES = 1.0
# With many processes: how often a process touches the rows of the analyses it runs or
# holds queued, and how old a queued or running row is before it counts as dead.
HEARTBEAT = 5.0
STALE = 30.0
# The wall-clock backstop over the CPU budget (as a replay's): a worker past it is stuck.
_WALL_FACTOR, _WALL_SLACK = 3.0, 10.0
# How often a running analysis's progress is collected from the worker.
_POLL = 0.2

_INTERRUPTED = ("the analysis was interrupted (the server running it stopped); "
                "ask for it again to start it anew")
_PUSHED_OUT = ("the coach's queue was full and this analysis gave its place to one that goes "
               "first (a player's of its game, or an address's first; limit coach_queue); "
               "ask for it again in a minute")


class CoachError(ServerError):
    """An analysis the server refuses (no such game or seat, a game still played, too many
    waiting...): ``code`` names why, ``status`` is the HTTP status."""


@dataclass
class Job:
    """An analysis this process holds, queued or running."""

    game_id: str
    seat: int
    record: JSONObject
    total: int
    done: int = 0
    status: str = "queued"

    @property
    def key(self) -> str:
        return f"{self.game_id}/{self.seat}"

    def answer(self) -> JSONObject:
        return {"status": self.status, "progress": {"done": self.done, "total": self.total},
                "result": None, "message": None}


def _aware(when: datetime) -> datetime:
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when  # SQLite: naive


def _decision_object(text: JSON) -> JSON:
    """A report's decision string as the object a seat's view lists (``text``, ``verb`` and
    what it names: :meth:`flip7.core.decisions.Hit.to_json` and its kin), or None for a
    string that is not a decision.

    >>> _decision_object("steal 2 13")
    {'text': 'steal 2 13', 'verb': 'steal', 'seat': 2, 'card': '13'}
    >>> _decision_object("fly") is None
    True
    """
    if not isinstance(text, str):
        return None
    try:
        return parse_decision(text).to_json()
    except DecisionError:
        return None


def _with_decision_objects(report: JSON) -> JSON:
    """The stored report (``flip7-coach/1``, which names decisions by their strings,
    RECORD.md §5) as the server answers it: each graded decision with ``made_object`` and
    ``best_object`` beside ``made`` and ``best``, each option with ``decision_object``, so
    that clients never read the strings. The stored report stays as it was made."""
    decisions = report.get("decisions") if isinstance(report, dict) else None
    if not isinstance(report, dict) or not isinstance(decisions, list):
        return report
    graded: list[JSON] = []
    for d in decisions:
        if isinstance(d, dict):
            options = d.get("options")
            d = {**d, "made_object": _decision_object(d.get("made")),
                 "best_object": _decision_object(d.get("best"))}
            if isinstance(options, list):
                d["options"] = [
                    {**o, "decision_object": _decision_object(o.get("decision"))}
                    if isinstance(o, dict) else o for o in options
                ]
        graded.append(d)
    return {**report, "decisions": graded}


def _row_answer(row: AnalysisRow) -> JSONObject:
    return {
        "status": row.status,
        "progress": {"done": row.done, "total": row.total},
        "result": _with_decision_objects(row.result),
        "message": row.message,
    }


def _not_stored() -> CoachError:
    return CoachError("server_error", "the analysis could not be stored; try again", 503)


def _seat_number(seat: str | None) -> int:
    number = None if seat is None else query_number(seat)
    if number is None:
        raise CoachError("bad_seat", "seat must be a seat number from 0, "
                         f"not {str(seat)[:40]!r}", 400)
    return number


def played_by(record: JSONObject, player_id: str | None) -> bool:
    """Whether the identity ``player_id`` had a seat in the game of ``record`` (the table
    writes each seat's identity into it, ``meta.player_ids``).

    >>> record = {"players": ["Ann", "Bob"], "meta": {"player_ids": ["p1", None]}}
    >>> played_by(record, "p1"), played_by(record, "p2"), played_by(record, None)
    (True, False, False)
    """
    return player_id is not None and any(
        e.kind == "player" and e.ref == player_id for e in entrants_of(record))


def _check_seat(seat: int, players: int) -> None:
    if not 0 <= seat < players:
        raise CoachError("bad_seat", f"seat {seat} is not a seat of this game: its seats "
                         f"are 0 to {players - 1}", 400)


class CoachJobs:
    """The coach's analyses of this process: the queue, the worker processes, and the rows
    of ``coach_analyses`` that every process answers from."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.seconds = settings.coach_seconds
        self.shared = settings.redis_url is not None
        self.budget = AddressBudget(settings.coach_per_minute, settings.coach_burst)
        self.jobs: dict[str, Job] = {}  # queued or running here
        self.queue = self._new_queue()
        self._tasks: list[asyncio.Task[None]] = []  # the heartbeat
        self._working: set[asyncio.Task[None]] = set()  # one per job held here
        self._pool: ProcessPoolExecutor | None = None
        self._progress: Queue[coach_worker.Progress] | None = None
        self._store: Store | None = None

    # ------------------------------------------------------------------ life

    def _new_queue(self) -> FairQueue:
        settings = self.settings
        # Held at once: those waiting (coach_queue) and those the workers run.
        return FairQueue(
            slots=settings.coach_workers, capacity=settings.coach_queue + settings.coach_workers,
            share=settings.coach_jobs_per_address, error=CoachError, jobs="analyses",
            limit="coach_jobs_per_address",
            busy="too many analyses are waiting; try again in a minute", retry_after=30,
        )

    async def close(self) -> None:
        """Stop the jobs and the workers; queued and running analyses are left to be
        found interrupted (and asked for again)."""
        tasks = [*self._tasks, *self._working]
        self._tasks, self._working = [], set()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._replace()
        self.jobs.clear()
        self.queue = self._new_queue()

    def _start(self, store: Store) -> None:
        self._store = store
        if self.shared and not self._tasks:
            self._tasks.append(asyncio.create_task(self._heartbeat(), name="flip7-coach-beat"))

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")  # the server has threads
            self._progress = context.Queue()
            self._pool = ProcessPoolExecutor(
                max_workers=self.settings.coach_workers,
                mp_context=context,
                initializer=coach_worker.init_worker,
                initargs=(self.settings.coach_memory_mb, self._progress),
            )
        return self._pool

    def _replace(self, only: ProcessPoolExecutor | None = None) -> None:
        """Stop the workers at once (killed); the next analysis starts new ones. With
        ``only``: if they are still that pool (another job may have replaced it already)."""
        if only is not None and self._pool is not only:
            return
        pool, self._pool = self._pool, None
        progress, self._progress = self._progress, None
        if pool is not None:
            for process in list(getattr(pool, "_processes", {}).values()):
                with contextlib.suppress(Exception):
                    process.kill()
            pool.shutdown(wait=False, cancel_futures=True)
        if progress is not None:
            with contextlib.suppress(Exception):
                progress.cancel_join_thread()
                progress.close()

    # ------------------------------------------------------------------ the rows

    async def _update(self, job: Job, change: AnalysisChange) -> None:
        """Write ``change`` to ``job``'s row (logged, not raised, when the database refuses:
        the analysis goes on, and its end is written again)."""
        store = self._store
        assert store is not None
        try:
            await change_analysis(store, job.game_id, job.seat, change, utcnow())
        except Exception as exc:
            log.warning(json.dumps({"event": "coach_write_failed", "job": job.key,
                                    "error": str(exc)[:300]}))

    def _alive(self, row: AnalysisRow) -> bool:
        """Whether a queued or running row's analysis is still under way somewhere."""
        if f"{row.game_id}/{row.seat}" in self.jobs:
            return True
        if not self.shared:  # one process: only this one runs analyses
            return False
        return (utcnow() - _aware(row.updated_at)).total_seconds() < STALE

    def _answer(self, row: AnalysisRow) -> JSONObject:
        if row.status in ("queued", "running") and not self._alive(row):
            return {"status": "failed", "progress": {"done": row.done, "total": row.total},
                    "result": None, "message": _INTERRUPTED}
        return _row_answer(row)

    # ------------------------------------------------------------------ the endpoints

    async def state(self, store: Store, game_id: str, seat_text: str | None) -> JSONObject:
        """``GET``: the analysis of ``seat_text`` in ``game_id``, or 404 if never asked."""
        seat = _seat_number(seat_text)
        job = self.jobs.get(f"{game_id}/{seat}")
        if job is not None:
            return job.answer()
        row = await analysis_row(store, game_id, seat)
        if row is not None:
            return self._answer(row)
        game = await store.game(game_id)
        if game is None:
            raise CoachError("no_game", f"there is no game {game_id!r}", 404)
        _check_seat(seat, len(game.players))
        raise CoachError("no_analysis", f"seat {seat} of game {game_id} has not been analysed; "
                         f"ask for it with POST /api/games/{game_id}/coach", 404)

    async def ask(
        self, store: Store, game_id: str, seat: int, address: str | None,
        player_id: str | None = None,
    ) -> tuple[int, JSONObject]:
        """``POST``: the analysis as it stands (200 with the report once done, 202 while
        under way), started (queued) unless it is done or under way. ``player_id``: the
        asker's identity; a player of the game goes first in the queue."""
        key = f"{game_id}/{seat}"
        job = self.jobs.get(key)
        if job is not None:
            return 202, job.answer()
        game = await store.game(game_id)
        if game is None:
            raise CoachError("no_game", f"there is no game {game_id!r}", 404)
        _check_seat(seat, len(game.players))
        if game.record is None:
            raise CoachError("not_over", "only a finished game can be analysed; this one "
                             "is still being played", 409)
        row = await analysis_row(store, game_id, seat)
        if row is not None and (row.status == "done" or (
                row.status in ("queued", "running") and self._alive(row))):
            answer = self._answer(row)
            return (200 if answer["status"] == "done" else 202), answer
        if key in self.jobs:  # asked meanwhile, in this process
            return 202, self.jobs[key].answer()
        first = played_by(game.record, player_id)
        self.queue.check(address, first)  # a refusal here costs no rate token
        spend(self.budget, address, "analyses", "coach_per_minute")
        from flip7.coach import decision_count

        try:
            total = decision_count(game.record, seat)
        except Flip7Error as exc:
            raise CoachError("bad_record", f"the game's record cannot be analysed: {exc}",
                             422) from None
        ticket = self.queue.enter(address, first)
        job = Job(game_id, seat, game.record, total)
        self.jobs[key] = job  # before any await: a second ask here finds it
        try:
            claimed = await self._claim(store, job, row)
        except BaseException:
            self.queue.leave(ticket)
            self.jobs.pop(key, None)
            raise
        if not claimed:  # another process asked at the same moment: its analysis it is
            self.queue.leave(ticket)
            self.jobs.pop(key, None)
            row = await analysis_row(store, game_id, seat)
            if row is None:  # pragma: no cover - a row is never deleted
                raise _not_stored()
            return (200 if row.status == "done" else 202), self._answer(row)
        self._start(store)
        task = asyncio.create_task(self._work(job, ticket), name=f"flip7-coach-{key}")
        self._working.add(task)
        task.add_done_callback(self._working.discard)
        return 202, job.answer()

    async def _claim(self, store: Store, job: Job, old: AnalysisRow | None) -> bool:
        """Write ``job``'s row as queued: a new row, or ``old`` (failed, or dead) taken
        over if no other process took it meanwhile. False when another process did."""
        try:
            return await queue_analysis(store, job.game_id, job.seat, job.total, utcnow(), old)
        except StoreError:
            raise _not_stored() from None

    # ------------------------------------------------------------------ the work

    async def _heartbeat(self) -> None:
        """With many processes: touch the rows of the analyses held here, so that the
        others know them alive."""
        while True:
            await asyncio.sleep(HEARTBEAT)
            for job in list(self.jobs.values()):
                await self._update(job, AnalysisChange())  # updated_at alone

    async def _work(self, job: Job, ticket: Ticket) -> None:
        """``job`` waits its turn in the queue, then runs in a worker."""
        try:
            try:
                await self.queue.turn(ticket)
            except CoachError:  # pushed out by a job that goes first
                await self._update(job, AnalysisChange(status="failed", message=_PUSHED_OUT))
                return
            await self._run(job)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("coach job %s failed", job.key)
            await self._update(job, AnalysisChange(
                status="failed", message="the analysis failed (a server error)"))
        finally:
            self.queue.leave(ticket)
            self.jobs.pop(job.key, None)

    def _collect(self) -> None:
        """Progress messages from the workers, into their jobs."""
        progress = self._progress
        if progress is None:
            return
        while True:
            try:
                key, done, total = progress.get_nowait()
            except queue.Empty:
                return
            except Exception:  # a queue broken by a killed worker
                return
            job = self.jobs.get(key)
            if job is not None and job.status == "running":
                job.done, job.total = done, total

    async def _run(self, job: Job) -> None:
        job.status = "running"
        await self._update(job, AnalysisChange(status="running"))
        loop = asyncio.get_running_loop()
        wall = self.seconds * _WALL_FACTOR + _WALL_SLACK
        started = time.monotonic()
        written = (job.done, started)
        outcome: Outcome
        pool = self._executor()
        try:
            future = loop.run_in_executor(
                pool, coach_worker.analyse_job, job.key, job.record, job.seat, self.seconds
            )
            while True:
                finished, _ = await asyncio.wait({future}, timeout=_POLL)
                self._collect()
                now = time.monotonic()
                if finished:
                    outcome = future.result()
                    break
                if now - started > wall:
                    log.warning("coach worker stuck for %.0f s: replaced", wall)
                    self._replace(pool)
                    future.cancel()  # its answer (the broken pool) is of no interest
                    outcome = ("too_long", self.seconds)
                    break
                if job.done != written[0] and now - written[1] >= PROGRESS_WRITES:
                    written = (job.done, now)
                    await self._update(job, AnalysisChange(done=job.done, total=job.total))
        except BrokenProcessPool:
            log.warning("coach worker died: replaced")
            self._replace(pool)
            outcome = ("died", None)
        except MemoryError:
            self._replace(pool)
            outcome = ("too_big", None)
        kind, value = outcome
        # The job keeps answering "running" until its end is stored (and it is dropped):
        # from then on the row answers, with the report or the message.
        if kind == "ok":
            job.done = job.total
            await self._update(job, AnalysisChange(status="done", done=job.total,
                                                   total=job.total, result=str(value)))
            return
        if kind in ("too_long", "too_big"):
            self._replace(pool)  # its memory may be fragmented; start clean
        messages = {
            "too_long": f"the analysis takes more than {self.seconds:g} seconds of CPU time "
                        "(limit coach_seconds)",
            "too_big": f"the analysis needs more than {self.settings.coach_memory_mb} MB of "
                       "memory (limit coach_memory_mb)",
            "died": "the analysis stopped: its worker process died; ask again to start it "
                    "anew",
        }
        await self._update(job, AnalysisChange(status="failed", done=job.done, total=job.total,
                                               message=messages.get(kind, str(value))))

