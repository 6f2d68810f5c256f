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
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from flip7.analysis.stats import GameStats, game_stats
from flip7.bots.levels import LEVELS
from flip7.core.errors import Flip7Error
from flip7.core.jsontypes import JSON, JSONObject
from flip7.server.base.formats import dumps, utcnow
from flip7.server.store.database import Store
from flip7.server.store.ratings import (
    GameResults,
    PlayerGame,
    RatingKey,
    Rerating,
    Skill,
    finished_record,
    unsettled_games,
    write_results,
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
START = Skill(MU, SIGMA)

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
    def key(self) -> RatingKey | None:
        return None if self.kind is None or self.ref is None else RatingKey(self.kind, self.ref)

    @property
    def bot_label(self) -> str | None:
        """What a client shows for a bot seat: its level's name, or its spec."""
        if self.bot is None:
            return None
        return self.ref if self.kind == "bot" else self.bot


def entrants_of(record: JSONObject) -> list[Entrant]:
    """The entrants of a finished game from its record: the table writes each seat's
    identity (``meta.player_ids``) and bot spec (``meta.bots``) into it.

    >>> [(e.kind, e.ref) for e in entrants_of({"players": ["Ann", "Bot", "Cy"], "meta": {
    ...     "player_ids": ["p1", None, None], "bots": {"1": "threshold"}}})]
    [('player', 'p1'), ('bot', 'Easy'), (None, None)]
    """
    meta = record.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    players = record.get("players")
    names = [str(n) for n in players] if isinstance(players, list) else []
    ids = meta.get("player_ids")
    bots = meta.get("bots")
    bots = bots if isinstance(bots, dict) else {}
    out: list[Entrant] = []
    for seat, name in enumerate(names):
        spec = bots.get(str(seat))
        spec = spec if isinstance(spec, str) else None
        player_id = ids[seat] if isinstance(ids, list) and seat < len(ids) else None
        if isinstance(player_id, str) and spec is None:
            out.append(Entrant(seat, name, "player", player_id, None))
        elif spec is not None and spec in _LEVEL_OF_SPEC:
            out.append(Entrant(seat, name, "bot", _LEVEL_OF_SPEC[spec], spec))
        else:
            out.append(Entrant(seat, name, None, None, spec))
    return out


def rate(
    entrants: Sequence[Entrant], totals: Sequence[int], prior: Mapping[RatingKey, Skill]
) -> dict[RatingKey, Skill]:
    """Every rated entrant's rating after the game, from ``prior`` (missing: the starting
    rating); see the module's words."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = []
    for entrant in entrants:
        skill = prior.get(entrant.key, START) if entrant.key else START
        teams.append([model.rating(mu=skill.mu, sigma=skill.sigma)])
    rated = model.rate(teams, ranks=[float(r) for r in ranks(totals)])
    seen: dict[RatingKey, list[Skill]] = {}
    for entrant, team in zip(entrants, rated, strict=True):
        if entrant.key is not None:
            seen.setdefault(entrant.key, []).append(
                Skill(float(team[0].mu), float(team[0].sigma)))
    return {
        key: Skill(sum(s.mu for s in skills) / len(skills),
                   sum(s.sigma for s in skills) / len(skills))
        for key, skills in seen.items()
    }


@functools.lru_cache(maxsize=256)
def _stats_of(game_id: str, record_text: str) -> GameStats:
    # A finished game never changes: its figures are worked out once per process.
    return game_stats(record_text)


def stats_of(game_id: str, record: JSONObject) -> GameStats:
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
        done = 0
        for game_id in await unsettled_games(self.store, self.SWEEP_BATCH):
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
        finished = await finished_record(self.store, game_id)
        if finished is None:
            return False
        record = finished.record
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
        rating = None
        if is_rated and stats is not None:
            totals = [s.total for s in stats.seats]
            rating = Rerating(
                keys=keys,
                winners=frozenset(e.key for e in entrants
                                  if e.key is not None and stats.seats[e.seat].winner),
                start=START,
                rerate=functools.partial(rate, entrants, totals),
            )
        results = GameResults(
            game_id=game_id,
            rated=is_rated,
            at=self.now(),
            player_games=[] if stats is None else _player_games(
                game_id, record, entrants, stats, is_rated, finished.finished_at),
            rating=rating,
        )
        async with self._lock:
            return await write_results(self.store, results)


def _player_games(
    game_id: str, record: JSONObject, entrants: list[Entrant], stats: GameStats,
    is_rated: bool, finished_at: datetime,
) -> list[PlayerGame]:
    """The rows of ``player_games`` of a finished game: one per identity that played it
    (its first seat), each with the whole table's seats and winners for its history."""
    meta = record.get("meta")
    table_name = meta.get("table_name") if isinstance(meta, dict) else None
    seats: list[JSON] = [
        {"seat": e.seat, "name": e.name, "player_id": e.ref if e.kind == "player" else None,
         "bot": e.bot_label, "total": stats.seats[e.seat].total}
        for e in entrants
    ]
    winners: list[JSON] = [s.seat for s in stats.seats if s.winner]
    rows = []
    seen: set[str] = set()
    for e in entrants:
        if e.kind != "player" or e.ref is None or e.ref in seen:
            continue
        seen.add(e.ref)
        seat = stats.seats[e.seat]
        rows.append(PlayerGame(
            player_id=e.ref,
            game_id=game_id,
            seat=e.seat,
            total=seat.total,
            won=seat.winner,
            stats={
                "seat": seat.to_json(),
                "players": seats,
                "winners": winners,
                "rated": is_rated,
                "table_name": table_name,
            },
            finished_at=finished_at,
        ))
    return rows
