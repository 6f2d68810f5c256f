"""Paired comparisons: two lineups played on the same deals, entry by entry.

Two tournaments with the same ``seed``, ``games``, player count and ``paired`` setting
shuffle game ``i``'s deck with the same seed, so game ``i`` of one and game ``i`` of the
other start from the same deal (the same first dealer and the same card order up to the
first reshuffle, RULES.md §3.5). Comparing them game by game removes the luck of the deal
from the difference: the interval below comes from the per-game differences.

>>> from flip7.tournament import run_tournament
>>> a = run_tournament(["basic", "random", "random"], games=30, seed=4, attacks=False)
>>> b = run_tournament(["random", "random", "random"], games=30, seed=4, attacks=False)
>>> diff = compare_entries(a, b)[0]
>>> diff.entry, diff.a, diff.b, diff.games
(0, 'basic', 'random', 30)
>>> diff.win_low < diff.win_diff < diff.win_high
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flip7.tournament.runner import TournamentError, TournamentResult
from flip7.tournament.stats import Z95

__all__ = ["EntryDifference", "compare_entries"]


@dataclass(frozen=True)
class EntryDifference:
    """Lineup entry ``entry`` of tournament A (bot ``a``) against the same entry of B (bot
    ``b``) over the same ``games`` deals: the mean per-game difference in win share
    (``win_diff``) and in final total (``score_diff``), each with a normal 95% interval
    from the spread of the per-game differences."""

    entry: int
    a: str
    b: str
    games: int
    win_diff: float
    win_low: float
    win_high: float
    score_diff: float
    score_low: float
    score_high: float

    def to_json(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "win_rate_diff": self.win_diff,
            "win_rate_diff_low": self.win_low,
            "win_rate_diff_high": self.win_high,
            "game_score_diff": self.score_diff,
            "game_score_diff_low": self.score_low,
            "game_score_diff_high": self.score_high,
        }


def _mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, -math.inf, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return mean, mean - half, mean + half


def compare_entries(a: TournamentResult, b: TournamentResult) -> list[EntryDifference]:
    """Entry-by-entry paired differences of two tournaments played on the same deals."""
    if (a.players, a.games, a.seed, a.paired) != (b.players, b.games, b.seed, b.paired):
        raise TournamentError(
            "a paired comparison needs two tournaments of the same players, games, seed and "
            "pairing (so that game i is dealt the same in both)"
        )
    n = a.players
    out = []
    for entry in range(n):
        wins: list[float] = []
        scores: list[float] = []
        for ra, rb in zip(a.rows, b.rows, strict=True):
            assert ra.deal_seed == rb.deal_seed and ra.rotation == rb.rotation
            seat = (entry + ra.rotation) % n
            wins.append(ra.win_share(seat) - rb.win_share(seat))
            scores.append(ra.totals[seat] - rb.totals[seat])
        w, wl, wh = _mean_interval(wins)
        s, sl, sh = _mean_interval(scores)
        out.append(
            EntryDifference(entry, a.seats[entry], b.seats[entry], a.games, w, wl, wh, s, sl, sh)
        )
    return out
