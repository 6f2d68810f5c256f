"""Tournaments and ladders: bots play many games, seats rotating, on every core or a cluster.

``run_tournament`` plays one lineup (``["ev", "targeting", "targeting", "targeting"]``)
and reports, per bot spec, the win rate with its Wilson 95% interval and edge over the
fair share, scores, bust and Flip 7 rates, attack points and decision latency;
``run_ladder`` plays a mixed round robin of several bots and rates them with OpenSkill.
See docs/tournaments.md. Only the standard library is needed to play; plots (matplotlib),
ratings (openskill) and Dask clusters are imported when asked for (``flip7[sim]``).

>>> result = run_tournament(["basic"] * 3, games=6, seed=2)
>>> result.specs[0].spec, result.specs[0].win_rate
('basic', 1.0)
>>> [p.games for p in result.positions]
[6, 6, 6]
"""

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
