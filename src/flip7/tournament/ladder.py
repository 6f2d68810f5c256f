"""The ladder: a mixed round robin of several bots, rated with OpenSkill (Plackett–Luce).

Every table (lineup) of ``players`` seats drawn from the bots plays in turn: all
combinations of distinct bots when there are at least as many bots as seats, otherwise
every multiset of the bots with at least two different ones (a bot may then sit at a table
more than once). Game ``i`` (1-based) is played by lineup ``(i - 1) % L`` of the ``L``,
rotated by ``((i - 1) // L) % players`` seats, on deal ``flip7.core.seeds.game_seed(seed, i)``.

>>> ladder_lineups(["a", "b", "c", "d"], 3)
[('a', 'b', 'c'), ('a', 'b', 'd'), ('a', 'c', 'd'), ('b', 'c', 'd')]
>>> ladder_lineups(["a", "b"], 3)
[('a', 'a', 'b'), ('a', 'b', 'b')]
>>> final_ranks((120, 205, 180, 205))
[4, 1, 3, 1]
"""

from __future__ import annotations

import itertools
import platform
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from flip7.core.rules import Rules
from flip7.tournament.runner import (
    GameRow,
    Progress,
    TournamentError,
    _execute,
    _Plan,
    check_counts,
    check_specs,
)
from flip7.tournament.stats import wilson

__all__ = ["LadderResult", "Rating", "final_ranks", "ladder_lineups", "rate_games", "run_ladder"]

LADDER_FORMAT = "flip7-ladder/1"


def ladder_lineups(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The tables of a ladder, in a fixed order (see the module's description)."""
    if len(bots) >= players:
        return list(itertools.combinations(bots, players))
    return [
        table
        for table in itertools.combinations_with_replacement(bots, players)
        if len(set(table)) >= 2
    ]


def final_ranks(totals: Sequence[int]) -> list[int]:
    """Each seat's place by final total: 1 for the highest, equal totals sharing a place."""
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]


@dataclass(frozen=True)
class Rating:
    """One bot's OpenSkill rating (``mu``, ``sigma``; ``ordinal`` is ``mu - 3 * sigma``, the
    conservative estimate the ladder is sorted by) and its record: ``games`` it sat in,
    ``seat_games`` the seats it played, ``wins`` the games its seats won (a shared win
    counts 1/k), ``win_rate`` = ``wins / games`` with its Wilson 95% interval, and
    ``fair_share`` the win rate expected at even strength (its seats over the players,
    averaged over its games)."""

    bot: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    seat_games: int
    wins: float
    win_rate: float
    win_low: float
    win_high: float
    fair_share: float

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "mu": self.mu,
            "sigma": self.sigma,
            "ordinal": self.ordinal,
            "games": self.games,
            "seat_games": self.seat_games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_rate_low": self.win_low,
            "win_rate_high": self.win_high,
            "fair_share": self.fair_share,
        }


def rate_games(rows: Sequence[GameRow], bots: Sequence[str]) -> dict[str, tuple[float, float]]:
    """OpenSkill Plackett–Luce ratings ``(mu, sigma)`` of ``bots`` after ``rows``, in order.

    Each game ranks its seats by final total. A bot at several seats of one game is rated
    at each seat from its rating before the game, and its new rating is the mean of its
    seats' updated ratings.
    """
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise TournamentError("ratings need openskill: pip install 'flip7[sim]'") from None
    model = PlackettLuce()
    state = {bot: (float(model.mu), float(model.sigma)) for bot in bots}
    for row in rows:
        teams = [[model.rating(mu=state[spec][0], sigma=state[spec][1])] for spec in row.seats]
        rated = model.rate(teams, ranks=[float(r) for r in final_ranks(row.totals)])
        seen: dict[str, list[tuple[float, float]]] = {}
        for spec, team in zip(row.seats, rated, strict=True):
            seen.setdefault(spec, []).append((float(team[0].mu), float(team[0].sigma)))
        for spec, values in seen.items():
            state[spec] = (
                sum(mu for mu, _ in values) / len(values),
                sum(sigma for _, sigma in values) / len(values),
            )
    return state


@dataclass(frozen=True)
class LadderResult:
    """A finished ladder: ratings best first (by ordinal), the lineups and every game."""

    bots: tuple[str, ...]
    players: int
    games: int
    seed: int
    rules: Rules
    lineups: tuple[tuple[str, ...], ...]
    ratings: tuple[Rating, ...]
    rows: tuple[GameRow, ...]
    seconds: float
    jobs: int
    executor: str

    def to_json(self) -> dict[str, Any]:
        """The ``flip7 ladder --json`` object; everything but ``run`` depends only on the
        arguments."""
        return {
            "format": LADDER_FORMAT,
            "bots": list(self.bots),
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "rules": self.rules.to_json(),
            "model": "openskill PlackettLuce (mu 25, sigma 25/3), ranks by final total",
            "lineups": [list(t) for t in self.lineups],
            "ratings": [r.to_json() for r in self.ratings],
            "run": {
                "seconds": self.seconds,
                "jobs": self.jobs,
                "executor": self.executor,
                "python": platform.python_version(),
            },
        }


def run_ladder(
    bots: Sequence[str],
    games: int,
    seed: int,
    players: int = 4,
    rules: Rules | None = None,
    jobs: int = 1,
    executor: Executor | None = None,
    progress: Progress | None = None,
    *,
    chunk_size: int | None = None,
    executor_name: str | None = None,
) -> LadderResult:
    """Play a mixed round robin of ``bots`` (bot specs) over ``games`` games of ``players``
    seats and rate them; executed like :func:`flip7.tournament.run_tournament`."""
    names = tuple(bots)
    rules = rules if rules is not None else Rules()
    if len(names) < 2:
        raise TournamentError(f"a ladder needs 2 or more bots, got {len(names)}")
    if len(set(names)) != len(names):
        raise TournamentError(f"each bot may be listed once: {', '.join(names)}")
    check_counts(players, games, rules)
    if jobs < 1:
        raise TournamentError(f"jobs must be 1 or more, got {jobs}")
    check_specs(names)
    lineups = tuple(ladder_lineups(names, players))
    plan = _Plan(lineups, seed, rules, attacks=False, timed=False)
    done = _execute(plan, games, chunk_size, jobs, executor, progress, executor_name)
    state = rate_games(done.rows, names)
    ratings = []
    for bot in names:
        played = seats = 0
        wins = fair = 0.0
        for row in done.rows:
            k = row.seats.count(bot)
            if not k:
                continue
            played += 1
            seats += k
            fair += k / players
            wins += sum(row.win_share(s) for s, at in enumerate(row.seats) if at == bot)
        mu, sigma = state[bot]
        low, high = wilson(wins, played)
        ratings.append(
            Rating(
                bot, mu, sigma, mu - 3 * sigma, played, seats, wins,
                wins / played if played else 0.0, low, high,
                fair / played if played else 0.0,
            )
        )  # fmt: skip
    ratings.sort(key=lambda r: (-r.ordinal, r.bot))
    return LadderResult(
        names, players, games, seed, rules, lineups, tuple(ratings), done.rows,
        done.seconds, jobs, done.executor,
    )  # fmt: skip
