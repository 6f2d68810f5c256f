"""The rows of ratings and game results (flip7.server.services.ratings): typed writes and
typed rows, the SQL kept here.

A finished game's results are written in one transaction (:func:`write_results`): its row
of ``game_results`` first (the primary key makes a second try, from any process, insert
nothing and stop there); then, for a rated game, the rating rows of its entrants, locked
(``SELECT … FOR UPDATE`` on PostgreSQL, in the order of their keys; SQLite has one
writer), each pair's rated games since ``Rerating.since`` counted under those locks (two
games of one pair finishing at once are counted one after the other), the rows the
game rates updated and a history row added for each; last its players' rows of
``player_games``, each saying whether the game rated that player (and if not, why).

>>> key = RatingKey("bot", "Easy")
>>> key.kind, key.ref, sorted([RatingKey("player", "a"), key])[0] == key
('bot', 'Easy', True)
>>> SkillChange(Skill(25.0, 8.0), Skill(27.5, 7.0)).after.mu
27.5
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from flip7.core.jsontypes import JSONObject
from flip7.server.base.formats import dumps
from flip7.server.store.database import (
    Store,
    game_results,
    games,
    json_object,
    player_games,
    rating_history,
    ratings,
)

__all__ = [
    "FinishedRecord",
    "GameResultRows",
    "GameResults",
    "PairGames",
    "PlayerGame",
    "Rated",
    "RatingKey",
    "RatingRow",
    "Rerating",
    "Skill",
    "SkillChange",
    "finished_record",
    "results_of",
    "unsettled_games",
    "write_results",
]


class RatingKey(NamedTuple):
    """Who a rating is of: ``kind`` "player" (``ref`` an identity's id) or "bot" (``ref``
    a level's name). Keys sort by kind, then ref: the order rating rows are locked in."""

    kind: str
    ref: str


@dataclass(frozen=True, slots=True)
class Skill:
    """An OpenSkill rating: its mean and its uncertainty."""

    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class SkillChange:
    """A rating before and after one game."""

    before: Skill
    after: Skill


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A row of ``ratings``: the rating of ``key`` and its rated games and wins."""

    key: RatingKey
    skill: Skill
    games: int
    wins: int


@dataclass(frozen=True, slots=True)
class PlayerGame:
    """An identity's row of ``player_games``: its seat of a finished game with that seat's
    statistics (``stats``, stored as JSON; :func:`write_results` adds ``rated`` and, for a
    rated game that did not rate this player, ``unrated_because``)."""

    player_id: str
    game_id: str
    seat: int
    total: int
    won: bool
    stats: JSONObject
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class Rated:
    """What a rated game came to: the rating after it of each key it rates, and why it
    rates none of the others (a code: ``same_network``, ``pair_limit``)."""

    after: Mapping[RatingKey, Skill]
    unrated: Mapping[RatingKey, str]


PairGames = Mapping[frozenset[RatingKey], int]
"""Rated games since a time of each pair of a game's keys that has had one (at least one
of the pair an identity)."""


@dataclass(frozen=True, slots=True)
class Rerating:
    """A rated game's rating change: its rated entrants' keys (each once), those that won,
    the rating of a key never rated before (``start``), since when each pair's rated games
    are counted (``since``), and ``rerate``, which turns every key's rating before the game
    and those counts (read under the rows' locks) into what the game rates."""

    keys: Sequence[RatingKey]
    winners: frozenset[RatingKey]
    start: Skill
    since: datetime
    rerate: Callable[[Mapping[RatingKey, Skill], PairGames], Rated]


@dataclass(frozen=True, slots=True)
class GameResults:
    """Everything a finished game's results write (:func:`write_results`): whether it was
    ``rated``, its players' rows, and (a rated game) its rating change."""

    game_id: str
    rated: bool
    at: datetime
    player_games: Sequence[PlayerGame]
    rating: Rerating | None


@dataclass(frozen=True, slots=True)
class FinishedRecord:
    """A finished game's record and when it finished."""

    record: JSONObject
    finished_at: datetime


def _skill(mu: float, sigma: float) -> Skill:
    return Skill(float(mu), float(sigma))


def _insert_ignore(conn: AsyncConnection, table: sa.Table) -> sa.Insert:
    """An insert that adds nothing where the row's primary key is taken."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table).on_conflict_do_nothing()
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table).on_conflict_do_nothing()


async def unsettled_games(store: Store, limit: int) -> list[str]:
    """The ids of up to ``limit`` finished games without results yet, the earliest first."""
    query = (
        sa.select(games.c.id)
        .outerjoin(game_results, game_results.c.game_id == games.c.id)
        .where(games.c.finished_at.is_not(None), game_results.c.game_id.is_(None))
        .order_by(games.c.finished_at)
        .limit(limit)
    )
    async with store.engine.connect() as conn:
        return [str(row.id) for row in await conn.execute(query)]


async def finished_record(store: Store, game_id: str) -> FinishedRecord | None:
    """The record of the finished game ``game_id``; None for a game that is not stored or
    not over."""
    async with store.engine.connect() as conn:
        row = (await conn.execute(
            sa.select(games.c.record, games.c.finished_at).where(games.c.id == game_id)
        )).first()
    if row is None or row.record is None:
        return None
    return FinishedRecord(json_object(row.record), row.finished_at)


async def write_results(store: Store, results: GameResults) -> bool:
    """Write a finished game's results in one transaction unless they are written already
    (see the module's words); whether this call wrote them."""
    async with store.engine.begin() as conn:
        # First a write: SQLite takes its write lock here, before anything is read.
        claimed = await conn.execute(
            _insert_ignore(conn, game_results).values(
                game_id=results.game_id, rated=results.rated, at=results.at)
        )
        if claimed.rowcount != 1:
            return False  # another try (or process) wrote them
        rated = Rated({}, {})
        if results.rating is not None:
            rated = await _rerate(conn, results.game_id, results.rating, results.at)
            if results.rated and not rated.after:  # every pair past its limit, or one network
                await conn.execute(game_results.update().where(
                    game_results.c.game_id == results.game_id).values(rated=False))
        if results.player_games:
            await conn.execute(player_games.insert(), [
                {"player_id": p.player_id, "game_id": p.game_id, "seat": p.seat,
                 "total": p.total, "won": p.won,
                 "stats": dumps(_stored_stats(p, rated)), "finished_at": p.finished_at}
                for p in results.player_games
            ])
    return True


def _stored_stats(game: PlayerGame, rated: Rated) -> JSONObject:
    key = RatingKey("player", game.player_id)
    stats: JSONObject = {**game.stats, "rated": key in rated.after}
    if key in rated.unrated:
        stats["unrated_because"] = rated.unrated[key]
    return stats


async def _pair_games(
    conn: AsyncConnection, keys: Sequence[RatingKey], since: datetime
) -> dict[frozenset[RatingKey], int]:
    """Rated games since ``since`` of each pair of ``keys`` with an identity in it: the
    games of the identities among ``keys`` (an identity's are few; a bot level's are
    everyone's), then which of ``keys`` each of those games rated."""
    people = [tuple(key) for key in keys if key.kind == "player"]
    if not people:
        return {}
    games_of_people = (
        sa.select(rating_history.c.game_id)
        .where(sa.tuple_(rating_history.c.kind, rating_history.c.ref).in_(people),
               rating_history.c.at >= since)
        .distinct()
    )
    rows = await conn.execute(
        sa.select(rating_history.c.game_id, rating_history.c.kind, rating_history.c.ref)
        .where(rating_history.c.game_id.in_(games_of_people),
               sa.tuple_(rating_history.c.kind, rating_history.c.ref).in_(
                   [tuple(key) for key in keys]))
    )
    seen: dict[str, list[RatingKey]] = {}
    for row in rows:
        seen.setdefault(str(row.game_id), []).append(RatingKey(row.kind, row.ref))
    counts: dict[frozenset[RatingKey], int] = {}
    for rated in seen.values():
        for i, one in enumerate(rated):
            for other in rated[i + 1:]:
                if "player" in (one.kind, other.kind):
                    pair = frozenset((one, other))
                    counts[pair] = counts.get(pair, 0) + 1
    return counts


async def _rerate(
    conn: AsyncConnection, game_id: str, rating: Rerating, now: datetime
) -> Rated:
    keys = list(rating.keys)
    fresh = [
        {"kind": kind, "ref": ref, "mu": rating.start.mu, "sigma": rating.start.sigma,
         "games": 0, "wins": 0, "updated_at": now}
        for kind, ref in keys
    ]
    await conn.execute(_insert_ignore(conn, ratings), fresh)
    wanted = sa.tuple_(ratings.c.kind, ratings.c.ref).in_([tuple(key) for key in keys])
    rows = (await conn.execute(
        sa.select(ratings).where(wanted).order_by(ratings.c.kind, ratings.c.ref)
        .with_for_update()
    )).all()
    prior = {RatingKey(r.kind, r.ref): _skill(r.mu, r.sigma) for r in rows}
    played = {RatingKey(r.kind, r.ref): (int(r.games), int(r.wins)) for r in rows}
    rated = rating.rerate(prior, await _pair_games(conn, keys, rating.since))
    after = rated.after
    untouched = [tuple(key) for key in keys if key not in after and played[key][0] == 0]
    if untouched:  # the rows made above for keys this game does not rate after all
        await conn.execute(ratings.delete().where(
            sa.tuple_(ratings.c.kind, ratings.c.ref).in_(untouched), ratings.c.games == 0))
    keys = [key for key in keys if key in after]
    if not keys:
        return rated
    for key in keys:
        count, wins = played[key]
        await conn.execute(
            ratings.update()
            .where(ratings.c.kind == key.kind, ratings.c.ref == key.ref)
            .values(mu=after[key].mu, sigma=after[key].sigma, games=count + 1,
                    wins=wins + (key in rating.winners), updated_at=now)
        )
    await conn.execute(rating_history.insert(), [
        {"game_id": game_id, "kind": key.kind, "ref": key.ref,
         "mu_before": prior[key].mu, "sigma_before": prior[key].sigma,
         "mu_after": after[key].mu, "sigma_after": after[key].sigma, "at": now}
        for key in keys
    ])
    return rated


@dataclass(frozen=True, slots=True)
class GameResultRows:
    """What a finished game's results wrote: whether it was rated (None: its results are
    not written yet), each rated entrant's rating change, and why the game did not rate
    an identity it might have (its id: a code, :class:`Rated`)."""

    rated: bool | None
    changes: dict[RatingKey, SkillChange]
    unrated: dict[str, str]


async def results_of(store: Store, game_id: str) -> GameResultRows:
    """The results written for ``game_id``."""
    async with store.engine.connect() as conn:
        rated = (await conn.execute(sa.select(game_results.c.rated).where(
            game_results.c.game_id == game_id))).scalar_one_or_none()
        changes = {
            RatingKey(h.kind, h.ref): SkillChange(_skill(h.mu_before, h.sigma_before),
                                                  _skill(h.mu_after, h.sigma_after))
            for h in await conn.execute(
                rating_history.select().where(rating_history.c.game_id == game_id))
        }
        unrated: dict[str, str] = {}
        for row in await conn.execute(sa.select(player_games.c.player_id, player_games.c.stats)
                                      .where(player_games.c.game_id == game_id)):
            why = json_object(row.stats).get("unrated_because")
            if isinstance(why, str):
                unrated[str(row.player_id)] = why
    return GameResultRows(None if rated is None else bool(rated), changes, unrated)
