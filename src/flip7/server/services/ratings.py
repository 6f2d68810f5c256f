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

**What cannot be farmed.** A table is rated only at the rules' length at least (the
table option ``rated`` refuses a target score below ``rated_min_target_score``, and a
finished game whose record plays a shorter one is not rated either). A game rates a
*pair* of entrants at most ``rated_games_per_pair_per_day`` times in 24 hours (two
identities, or an identity and a bot level: a level's public rating moves at most that
much by any one identity's games); two identities whose seats were taken from one
address block (``rating_network_ipv4_prefix``, ``…_ipv6_prefix``) never rate each
other. Where such a pair sits at a game, the fewest entrants are left unrated for it
(:func:`choose_rated`: a bot level before an identity), and a game with no identity or
fewer than two entrants left rates nobody; it is still played, and its end screen and
its players' histories say why it did not count for them.

**Shown** as ``display = round(1000 + 40 * (mu - 25))``: the mean, so that a newcomer
shows 1000 and a player's number goes up only by doing better than expected (it does not
climb as uncertainty shrinks: ``mu - 3 * sigma`` would, and rose for a player who lost
every game). A rating is *provisional* until its sigma is down to :data:`SETTLED_SIGMA`
(about 10 to 15 games): the leaderboard and profiles mark it so, and the leaderboard
lists settled ratings first, then provisional ones, each by mean.

**Exactly once.** When a game finishes, its owner process writes its results in one
transaction that first inserts the game's row of ``game_results`` (its primary key: a
second try, from any process, inserts nothing and stops there), then locks the rating
rows it changes (``SELECT … FOR UPDATE`` on PostgreSQL, in a fixed order; SQLite has one
writer), updates them and adds the history rows. A process that died between the game's
finish and its results leaves a finished game without a ``game_results`` row, which every
process's sweep (at start, then every minute) writes.

>>> display(25.0), ranks([30, 12, 30, 5]), provisional(25 / 3), provisional(5.5)
(1000, [1, 3, 1, 4], True, False)
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from flip7.analysis.stats import GameStats, game_stats
from flip7.bots.levels import LEVELS
from flip7.core.errors import Flip7Error, RulesError
from flip7.core.jsontypes import JSON, JSONObject
from flip7.core.rules import Rules
from flip7.server.base.formats import dumps, utcnow
from flip7.server.base.settings import Settings
from flip7.server.store.database import Store
from flip7.server.store.ratings import (
    GameResults,
    PairGames,
    PlayerGame,
    Rated,
    RatingKey,
    Rerating,
    Skill,
    finished_record,
    unsettled_games,
    write_results,
)

__all__ = [
    "MU",
    "PAIR_DAY",
    "SETTLED_SIGMA",
    "SIGMA",
    "Entrant",
    "Results",
    "choose_rated",
    "display",
    "entrants_of",
    "provisional",
    "ranks",
]

log = logging.getLogger("flip7.server")

# OpenSkill's starting rating.
MU = 25.0
SIGMA = 25.0 / 3.0
START = Skill(MU, SIGMA)

# The spec of each level: a bot seat with this spec is that level's.
_LEVEL_OF_SPEC = {level.spec: level.name for level in LEVELS}


# A rating is settled once its sigma is down to this (from 25/3): about 10 to 15 games.
SETTLED_SIGMA = 6.0
# How far back a pair's rated games count against rated_games_per_pair_per_day.
PAIR_DAY = timedelta(days=1)
# Why a game did not rate an entrant it might have (the end screen's and histories' words).
SAME_NETWORK = "same_network"
PAIR_LIMIT = "pair_limit"


def display(mu: float) -> int:
    """The rating shown to players: ``round(1000 + 40 * (mu - 25))``, the mean's."""
    return round(1000 + 40 * (mu - MU))


def provisional(sigma: float) -> bool:
    """Whether a rating is not settled yet (its sigma above :data:`SETTLED_SIGMA`)."""
    return sigma > SETTLED_SIGMA


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


def choose_rated(
    keys: Sequence[RatingKey], blocked: Mapping[frozenset[RatingKey], str]
) -> tuple[frozenset[RatingKey], dict[RatingKey, str]]:
    """Which of a game's rated entrants it rates, and why it rates none of the others:
    ``blocked`` gives each pair that must not rate each other its reason. The entrant in
    the most blocked pairs is left out first (of equals, a bot level before an identity,
    then the later key), until no blocked pair is left; then a game with no identity or
    fewer than two entrants rates nobody. An entrant left unrated is unrated for the
    reason of a blocked pair of its (one network's first).

    >>> ann, bob, cy, easy = (RatingKey("player", "a"), RatingKey("player", "b"),
    ...                       RatingKey("player", "c"), RatingKey("bot", "Easy"))
    >>> kept, why = choose_rated([easy, ann, bob, cy], {frozenset((ann, bob)): "same_network"})
    >>> sorted(k.ref for k in kept), why
    (['Easy', 'a', 'c'], {RatingKey(kind='player', ref='b'): 'same_network'})
    >>> kept, why = choose_rated([easy, ann], {frozenset((ann, easy)): "pair_limit"})
    >>> kept, sorted(why.values())
    (frozenset(), ['pair_limit', 'pair_limit'])
    """
    kept = list(keys)

    def reasons(key: RatingKey) -> list[str]:
        return [why for pair, why in blocked.items() if key in pair and pair <= set(kept)]

    while True:
        counts = {key: len(reasons(key)) for key in kept}
        if not any(counts.values()):
            break
        worst = max(kept, key=lambda k: (counts[k], k.kind == "bot", k))
        kept.remove(worst)
    if len(kept) < 2 or not any(key.kind == "player" for key in kept):
        kept = []
    unrated: dict[RatingKey, str] = {}
    for key in keys:
        if key in kept:
            continue
        mine = [why for pair, why in blocked.items() if key in pair]
        unrated[key] = SAME_NETWORK if SAME_NETWORK in mine else PAIR_LIMIT
    return frozenset(kept), unrated


def rate(
    entrants: Sequence[Entrant], totals: Sequence[int],
    same_network: Sequence[frozenset[RatingKey]], pair_limit: int,
    prior: Mapping[RatingKey, Skill], pair_games: PairGames,
) -> Rated:
    """What a game rates (see the module's words): which entrants it rates
    (:func:`choose_rated`, from the pairs of ``same_network`` and those with
    ``pair_limit`` rated games in ``pair_games``), and their ratings after it from
    ``prior`` (missing: the starting rating); the others take part as unrated entrants."""
    from openskill.models import PlackettLuce

    blocked = {pair: PAIR_LIMIT for pair, count in pair_games.items() if count >= pair_limit}
    blocked.update({pair: SAME_NETWORK for pair in same_network})
    keys = sorted({e.key for e in entrants if e.key is not None})
    kept, unrated = choose_rated(keys, blocked)
    if not kept:
        return Rated({}, unrated)
    model = PlackettLuce()
    teams = []
    for entrant in entrants:
        skill = prior.get(entrant.key, START) if entrant.key in kept else START
        teams.append([model.rating(mu=skill.mu, sigma=skill.sigma)])
    rated = model.rate(teams, ranks=[float(r) for r in ranks(totals)])
    seen: dict[RatingKey, list[Skill]] = {}
    for entrant, team in zip(entrants, rated, strict=True):
        if entrant.key in kept:
            seen.setdefault(entrant.key, []).append(
                Skill(float(team[0].mu), float(team[0].sigma)))
    return Rated({
        key: Skill(sum(s.mu for s in skills) / len(skills),
                   sum(s.sigma for s in skills) / len(skills))
        for key, skills in seen.items()
    }, unrated)


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

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
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
        table_rated = (isinstance(meta, dict) and meta.get("rated") is True
                       and self._long_enough(record))
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
                since=self.now() - PAIR_DAY,
                rerate=functools.partial(
                    rate, entrants, totals, same_network_pairs(record, entrants),
                    self.settings.rated_games_per_pair_per_day),
            )
        results = GameResults(
            game_id=game_id,
            rated=is_rated,
            at=self.now(),
            player_games=[] if stats is None else _player_games(
                game_id, record, entrants, stats, finished.finished_at),
            rating=rating,
        )
        async with self._lock:
            return await write_results(self.store, results)

    def _long_enough(self, record: JSONObject) -> bool:
        """Whether a finished game played to ``rated_min_target_score`` at least (a table
        stored before the floor, or rated when the floor was lower, is held to it too)."""
        rules = record.get("rules")
        try:
            target = Rules.from_json(rules if isinstance(rules, dict) else {}).target_score
        except RulesError:
            return False
        return target >= self.settings.rated_min_target_score


def same_network_pairs(
    record: JSONObject, entrants: Sequence[Entrant]
) -> list[frozenset[RatingKey]]:
    """The pairs of identities whose seats the table saw taken from one address block
    (the record's ``meta.same_network``: groups of seats).

    >>> record = {"players": ["A", "B", "C"], "meta": {"player_ids": ["a", "b", "c"],
    ...           "same_network": [[0, 2]]}}
    >>> [sorted(k.ref for k in pair) for pair in same_network_pairs(record, entrants_of(record))]
    [['a', 'c']]
    """
    meta = record.get("meta")
    groups = meta.get("same_network") if isinstance(meta, dict) else None
    by_seat = {e.seat: e.key for e in entrants if e.kind == "player" and e.key is not None}
    pairs: set[frozenset[RatingKey]] = set()
    for group in groups if isinstance(groups, list) else []:
        seats = group if isinstance(group, list) else []
        keys = sorted({by_seat[s] for s in seats if isinstance(s, int) and s in by_seat})
        pairs.update(frozenset((one, other)) for i, one in enumerate(keys)
                     for other in keys[i + 1:])
    return sorted(pairs, key=sorted)


def _player_games(
    game_id: str, record: JSONObject, entrants: list[Entrant], stats: GameStats,
    finished_at: datetime,
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
                "table_name": table_name,
            },
            finished_at=finished_at,
        ))
    return rows
