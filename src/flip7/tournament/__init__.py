"""Tournaments and ladders: bots play many games, seats rotating, on every core or a cluster.

``run_tournament`` plays one lineup (``["ev", "targeting", "targeting", "targeting"]``)
and reports, per bot spec, the win rate with its Wilson 95% interval and edge over the
fair share, scores, bust and Flip 7 rates, attack points and decision latency;
``run_ladder`` plays a mixed round robin of several bots and rates them with OpenSkill.
See docs/tournaments.md. Only the standard library is needed to play; plots (matplotlib),
ratings (openskill) and Dask clusters are imported when asked for (``flip7[sim]``).

>>> from flip7.tournament import run_tournament
>>> result = run_tournament(["basic"] * 3, games=6, seed=2)
>>> result.specs[0].spec, result.specs[0].win_rate
('basic', 1.0)
>>> [p.games for p in result.positions]
[6, 6, 6]
"""

from typing import TYPE_CHECKING

from flip7.core.lazy import LazyNames

if TYPE_CHECKING:
    from flip7.tournament.attacks import attack_points, face_value
    from flip7.tournament.runner import (
        FORMAT,
        GameRow,
        PositionStats,
        ScheduledGame,
        SpecStats,
        TournamentError,
        TournamentResult,
        available_cores,
        default_chunk_size,
        run_tournament,
        scheduled_game,
    )
    from flip7.tournament.stats import Latency, wilson

# Loaded on first use: a self-play run or a benchmark (flip7.tournament.selfplay) needs
# none of the tournament runner.
_LAZY = LazyNames(globals(), {
    "flip7.tournament.attacks": "attack_points face_value",
    "flip7.tournament.runner": "FORMAT GameRow PositionStats ScheduledGame SpecStats "
    "TournamentError TournamentResult available_cores default_chunk_size run_tournament "
    "scheduled_game",
    "flip7.tournament.stats": "Latency wilson",
})  # fmt: skip


def __getattr__(name: str) -> object:
    return _LAZY.attribute(name)


def __dir__() -> list[str]:
    return _LAZY.dir()


__all__ = [
    "FORMAT",
    "GameRow",
    "Latency",
    "PositionStats",
    "ScheduledGame",
    "SpecStats",
    "TournamentError",
    "TournamentResult",
    "attack_points",
    "available_cores",
    "default_chunk_size",
    "face_value",
    "run_tournament",
    "scheduled_game",
    "wilson",
]
