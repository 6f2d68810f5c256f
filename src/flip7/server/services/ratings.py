"""Ratings of identities and bot levels (OpenSkill, Plackett–Luce), and the results of
every finished game: each identity's statistics of it, its rating change.

**Who is rated.** A game is *rated* when its table is (the table option ``rated``: by
default a table is rated unless its rules differ from the defaults in an option that
changes the game, :func:`flip7.server.table.options.rated_by_default`; a tutorial's
table never is) and it has at
least two rated entrants: identities (a seat taken with a player key, :mod:`.players`;
the seat counts for its identity even when a bot finished it after the player left) and
bot levels (a bot seat whose spec is a level's, ``flip7.bots.levels``). Every other seat,
an anonymous human or a bot given by another spec (``threshold:30``, an operator's own),
is an *unrated entrant*: it takes its place in the ranking with the starting rating (mu
25, sigma 25/3) and its result is thrown away. A level at several seats of one game is
rated at each seat from its rating before the game; its new rating is the mean of those
(as the tournament ladder does, ``flip7.tournament.ladder.rate_games``).

**Ranks** come from the final totals: the highest is 1st, equal totals share a place.

**Shown** as ``display = round(1000 + 40 * (mu - 3 * sigma))``: a newcomer (mu 25, sigma
25/3) shows 1000, and the number rises as games make the rating both higher and surer.
Ratings are ordered by ``mu - 3 * sigma``, the conservative estimate.

**Exactly once.** When a game finishes, its owner process writes its results in one
transaction that first inserts the game's row of ``game_results`` (its primary key: a
second try, from any process, inserts nothing and stops there), then locks the rating
rows it changes (``SELECT … FOR UPDATE`` on PostgreSQL, in a fixed order; SQLite has one
writer), updates them and adds the history rows. A process that died between the game's
finish and its results leaves a finished game without a ``game_results`` row, which every
process's sweep (at start, then every minute) writes.

>>> display(25.0, 25 / 3), ranks([30, 12, 30, 5])
(1000, [1, 3, 1, 4])
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from flip7.analysis.stats import GameStats, game_stats
from flip7.bots.levels import LEVELS
from flip7.core.errors import Flip7Error
from flip7.server.base.formats import dumps, utcnow
from flip7.server.store.database import (
    Store,
    game_results,
    games,
    player_games,
    rating_history,
    ratings,
)

__all__ = [
    "MU",
    "SIGMA",
    "Entrant",
    "Results",
    "display",
    "entrants_of",
    "ranks",
]

log = logging.getLogger("flip7.server")

# OpenSkill's starting rating.
MU = 25.0
SIGMA = 25.0 / 3.0

# The spec of each level: a bot seat with this spec is that level's.
_LEVEL_OF_SPEC = {level.spec: level.name for level in LEVELS}


def display(mu: float, sigma: float) -> int:
    """The rating shown to players: ``round(1000 + 40 * (mu - 3 * sigma))``."""
    return round(1000 + 40 * (mu - 3 * sigma))


def ranks(totals: Sequence[int]) -> list[int]:
    """Each seat's place by final total: 1 for the highest, equal totals sharing a place."""
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]


@dataclass(frozen=True, slots=True)
class Entrant:
    """A seat of a finished game: an identity (``kind`` "player", ``ref`` its id), a bot
    level (``kind`` "bot", ``ref`` the level's name), or unrated (``kind`` None): an
    anonymous human, or a bot of another spec (``bot`` the spec)."""

    seat: int
    name: str
    kind: str | None
    ref: str | None
    bot: str | None

    @property
    def key(self) -> tuple[str, str] | None:
        return None if self.kind is None or self.ref is None else (self.kind, self.ref)

    @property
    def bot_label(self) -> str | None:
        """What a client shows for a bot seat: its level's name, or its spec."""
        if self.bot is None:
            return None
        return self.ref if self.kind == "bot" else self.bot


def entrants_of(record: dict[str, Any]) -> list[Entrant]:
    """The entrants of a finished game from its record: the table writes each seat's
    identity (``meta.player_ids``) and bot spec (``meta.bots``) into it."""
    meta = record.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    names = [str(n) for n in record.get("players", [])]
    ids = meta.get("player_ids")
    bots = meta.get("bots") if isinstance(meta.get("bots"), dict) else {}
    assert isinstance(bots, dict)
    out: list[Entrant] = []
    for seat, name in enumerate(names):
        spec = bots.get(str(seat))
        spec = spec if isinstance(spec, str) else None
        player = ids[seat] if isinstance(ids, list) and seat < len(ids) else None
        if isinstance(player, str) and spec is None:
            out.append(Entrant(seat, name, "player", player, None))
        elif spec is not None and spec in _LEVEL_OF_SPEC:
            out.append(Entrant(seat, name, "bot", _LEVEL_OF_SPEC[spec], spec))
        else:
            out.append(Entrant(seat, name, None, None, spec))
    return out


def rate(
    entrants: Sequence[Entrant],
    totals: Sequence[int],
    prior: dict[tuple[str, str], tuple[float, float]],
) -> dict[tuple[str, str], tuple[float, float]]:
    """Every rated entrant's (mu, sigma) after the game, from ``prior`` (missing: the
    starting rating); see the module's words."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = []
    for entrant in entrants:
        mu, sigma = prior.get(entrant.key, (MU, SIGMA)) if entrant.key else (MU, SIGMA)
        teams.append([model.rating(mu=mu, sigma=sigma)])
    rated = model.rate(teams, ranks=[float(r) for r in ranks(totals)])
    seen: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for entrant, team in zip(entrants, rated, strict=True):
        if entrant.key is not None:
            seen.setdefault(entrant.key, []).append((float(team[0].mu), float(team[0].sigma)))
    return {
        key: (sum(m for m, _ in values) / len(values), sum(s for _, s in values) / len(values))
        for key, values in seen.items()
    }


@functools.lru_cache(maxsize=256)
def _stats_of(game_id: str, record_text: str) -> GameStats:
    # A finished game never changes: its figures are worked out once per process.
    return game_stats(record_text)


def stats_of(game_id: str, record: dict[str, Any]) -> GameStats:
    """The statistics of the finished game ``game_id`` (kept for the next asker)."""
    return _stats_of(game_id, dumps(record))


class Results:
    """Writes each finished game's results exactly once (see the module's words), and
    sweeps for games whose results a dead process left unwritten."""

    SWEEP_SECONDS = 60.0
    SWEEP_BATCH = 50

    def __init__(self, store: Store) -> None:
        self.store = store
        # SQLite has one writer: this process's writes of results wait for each other.
        self._lock = asyncio.Lock()
        self.now: Callable[[], datetime] = utcnow
        self._sweeper: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._sweeper = asyncio.create_task(self._sweep_loop(), name="flip7-results")

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._sweeper

    async def _sweep_loop(self) -> None:
        while True:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database is down: next time
                log.warning(dumps({"event": "results_sweep_failed", "error": str(exc)}))
            await asyncio.sleep(self.SWEEP_SECONDS)

    async def sweep(self) -> int:
        """Write the results of finished games that have none yet; how many were written."""
        query = (
            sa.select(games.c.id)
            .outerjoin(game_results, game_results.c.game_id == games.c.id)
            .where(games.c.finished_at.is_not(None), game_results.c.game_id.is_(None))
            .order_by(games.c.finished_at)
            .limit(self.SWEEP_BATCH)
        )
        async with self.store.engine.connect() as conn:
            ids = [row.id for row in await conn.execute(query)]
        done = 0
        for game_id in ids:
            done += await self.settle(game_id)
        return done

    async def finished(self, game_id: str) -> None:
        """A game just finished (its finish is committed): write its results now, so that
        the end screen finds them; a failure is left to the sweep."""
        try:
            await self.settle(game_id)
        except Exception as exc:
            log.warning(dumps({"event": "results_failed", "game": game_id, "error": str(exc)}))

    async def settle(self, game_id: str) -> bool:
        """Write the results of the finished game ``game_id`` unless they are written
        already; whether this call wrote them."""
        async with self.store.engine.connect() as conn:
            row = (await conn.execute(
                sa.select(games.c.record, games.c.finished_at).where(games.c.id == game_id)
            )).first()
        if row is None or row.record is None:
            return False
        record = json.loads(row.record)
        meta = record.get("meta")
        table_rated = isinstance(meta, dict) and meta.get("rated") is True
        entrants = entrants_of(record)
        try:  # in a thread: a long game's replay must not hold up the event loop
            stats: GameStats | None = await asyncio.to_thread(stats_of, game_id, record)
        except Flip7Error as exc:  # a record that does not replay: marked done, unrated
            log.warning(dumps({"event": "results_bad_record", "game": game_id,
                               "error": str(exc)}))
            stats = None
        keys = sorted({e.key for e in entrants if e.key is not None})
        is_rated = stats is not None and table_rated and len(keys) >= 2
        now = self.now()
        async with self._lock, self.store.engine.begin() as conn:
            # First a write: SQLite takes its write lock here, before anything is read.
            claimed = await conn.execute(
                self._insert_ignore(game_results).values(
                    game_id=game_id, rated=is_rated, at=now)
            )
            if claimed.rowcount != 1:
                return False  # another try (or process) wrote them
            if stats is not None:
                await self._player_games(conn, game_id, record, entrants, stats, is_rated,
                                         row.finished_at)
            if is_rated and stats is not None:
                totals = [s.total for s in stats.seats]
                await self._rate(conn, game_id, entrants, totals, stats, keys, now)
        return True

    def _insert_ignore(self, table: sa.Table) -> Any:
        if self.store.dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            return pg_insert(table).on_conflict_do_nothing()
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(table).on_conflict_do_nothing()

    async def _player_games(
        self, conn: AsyncConnection, game_id: str, record: dict[str, Any],
        entrants: list[Entrant], stats: GameStats, is_rated: bool, finished_at: datetime,
    ) -> None:
        meta = record.get("meta")
        table_name = meta.get("table_name") if isinstance(meta, dict) else None
        seats = [
            {"seat": e.seat, "name": e.name, "player_id": e.ref if e.kind == "player" else None,
             "bot": e.bot_label, "total": stats.seats[e.seat].total}
            for e in entrants
        ]
        winners = [s.seat for s in stats.seats if s.winner]
        rows = []
        seen: set[str] = set()
        for e in entrants:
            if e.kind != "player" or e.ref is None or e.ref in seen:
                continue
            seen.add(e.ref)
            seat = stats.seats[e.seat]
            rows.append({
                "player_id": e.ref,
                "game_id": game_id,
                "seat": e.seat,
                "total": seat.total,
                "won": seat.winner,
                "stats": dumps({
                    "seat": seat.to_json(),
                    "players": seats,
                    "winners": winners,
                    "rated": is_rated,
                    "table_name": table_name,
                }),
                "finished_at": finished_at,
            })
        if rows:
            await conn.execute(player_games.insert(), rows)

    async def _rate(
        self, conn: AsyncConnection, game_id: str, entrants: list[Entrant],
        totals: list[int], stats: GameStats, keys: list[tuple[str, str]], now: datetime,
    ) -> None:
        fresh = [
            {"kind": kind, "ref": ref, "mu": MU, "sigma": SIGMA, "games": 0, "wins": 0,
             "updated_at": now}
            for kind, ref in keys
        ]
        await conn.execute(self._insert_ignore(ratings), fresh)
        wanted = sa.tuple_(ratings.c.kind, ratings.c.ref).in_(keys)
        rows = (await conn.execute(
            sa.select(ratings).where(wanted).order_by(ratings.c.kind, ratings.c.ref)
            .with_for_update()
        )).all()
        prior = {(r.kind, r.ref): (float(r.mu), float(r.sigma)) for r in rows}
        played = {(r.kind, r.ref): (int(r.games), int(r.wins)) for r in rows}
        after = rate(entrants, totals, prior)
        won = {e.key for e in entrants if e.key is not None and stats.seats[e.seat].winner}
        for key in keys:
            mu, sigma = after[key]
            count, wins = played[key]
            await conn.execute(
                ratings.update()
                .where(ratings.c.kind == key[0], ratings.c.ref == key[1])
                .values(mu=mu, sigma=sigma, games=count + 1, wins=wins + (key in won),
                        updated_at=now)
            )
        await conn.execute(rating_history.insert(), [
            {"game_id": game_id, "kind": key[0], "ref": key[1],
             "mu_before": prior[key][0], "sigma_before": prior[key][1],
             "mu_after": after[key][0], "sigma_after": after[key][1], "at": now}
            for key in keys
        ])
