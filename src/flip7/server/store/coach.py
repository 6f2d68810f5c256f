"""The rows of the coach's analyses (``coach_analyses``, flip7.server.services.coach_jobs):
typed writes and typed rows; the SQL is kept here.

Every write is one statement, committed on return. A write the database refuses raises
:class:`~flip7.server.store.database.StoreError` (so does any write while the store
refuses writes: its file lost, its lease taken over).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from flip7.core.jsontypes import JSON
from flip7.server.store.database import Store, coach_analyses
from flip7.server.table.storage import StoreError

__all__ = [
    "AnalysisChange",
    "AnalysisRow",
    "analysis_row",
    "change_analysis",
    "queue_analysis",
]


@dataclass(frozen=True, slots=True)
class AnalysisRow:
    """A row of ``coach_analyses``: the analysis of ``seat`` in ``game_id``. ``status``
    queued, running, done or failed; ``done`` of ``total`` decisions graded; ``result`` the
    coach's report once done; ``message`` why it failed. ``updated_at`` is as the database
    gave it (naive on SQLite): :func:`queue_analysis` compares it as it is."""

    game_id: str
    seat: int
    status: str
    done: int
    total: int
    result: JSON
    message: str | None
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class AnalysisChange:
    """What a write changes in an analysis's row (None: unchanged; ``updated_at`` always
    changes). ``result`` is the report as JSON text. A ``done`` analysis has no message."""

    status: str | None = None
    done: int | None = None
    total: int | None = None
    result: str | None = None
    message: str | None = None


async def analysis_row(store: Store, game_id: str, seat: int) -> AnalysisRow | None:
    query = coach_analyses.select().where(
        coach_analyses.c.game_id == game_id, coach_analyses.c.seat == seat
    )
    async with store.engine.connect() as conn:
        row = (await conn.execute(query)).first()
    if row is None:
        return None
    return AnalysisRow(
        game_id=row.game_id,
        seat=row.seat,
        status=row.status,
        done=row.done,
        total=row.total,
        result=None if row.result is None else json.loads(row.result),
        message=row.message,
        updated_at=row.updated_at,
    )


async def _write(store: Store, statement: sa.Insert | sa.Update) -> int:
    """Run one write (committed on return); the number of rows it changed."""
    refusal = store.refusal()
    if refusal is not None:
        raise StoreError(refusal)
    try:
        async with store.engine.begin() as conn:
            result = await conn.execute(statement)
    except sa.exc.IntegrityError:
        raise  # the row is there already: the caller knows what that means
    except Exception as exc:
        raise StoreError(str(exc)) from exc
    return int(result.rowcount)


async def change_analysis(
    store: Store, game_id: str, seat: int, change: AnalysisChange, at: datetime
) -> int:
    """Write ``change`` to the row of ``seat`` in ``game_id``; how many rows it changed."""
    values: dict[str, object] = {
        name: value
        for name, value in (("status", change.status), ("done", change.done),
                            ("total", change.total), ("result", change.result),
                            ("message", change.message))
        if value is not None
    }
    if change.status == "done":
        values["message"] = None
    statement = (
        coach_analyses.update()
        .where(coach_analyses.c.game_id == game_id, coach_analyses.c.seat == seat)
        .values(updated_at=at, **values)
    )
    return await _write(store, statement)


async def queue_analysis(
    store: Store, game_id: str, seat: int, total: int, at: datetime,
    replacing: AnalysisRow | None,
) -> bool:
    """Write the row of ``seat`` in ``game_id`` as queued (``total`` decisions to grade):
    a new row, or ``replacing`` (failed, or dead) taken over if no other process took it
    meanwhile (its status and ``updated_at`` unchanged). False when another process did."""
    values = {"status": "queued", "done": 0, "total": total, "result": None,
              "message": None, "updated_at": at}
    statement: sa.Insert | sa.Update
    if replacing is None:
        statement = coach_analyses.insert().values(
            game_id=game_id, seat=seat, created_at=at, **values)
    else:
        statement = (
            coach_analyses.update()
            .where(coach_analyses.c.game_id == game_id,
                   coach_analyses.c.seat == seat,
                   coach_analyses.c.status == replacing.status,
                   coach_analyses.c.updated_at == replacing.updated_at)
            .values(**values)
        )
    try:
        return await _write(store, statement) == 1
    except sa.exc.IntegrityError:
        return False
