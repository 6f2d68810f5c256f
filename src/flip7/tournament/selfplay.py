"""Simulation: bots playing complete games, for self-play records and benchmarks.

Everything here is deterministic from its seeds: the same arguments give the same games,
the same records, byte for byte.

>>> from flip7.bots import make_bot
>>> game = play_game([make_bot("basic", seed=s) for s in range(3)], Game.new(3, seed=5))
>>> game.over, len(game.winners) >= 1
(True, True)
>>> played = list(selfplay(players=3, games=2, seed=7))
>>> [g.index for g in played], played[0].record.meta["seed"]
([1, 2], 7)
>>> summarize(played).games
2
>>> bench(players=3, games=3).games
3
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flip7.bots import BOTS, Bot, make_bot
from flip7.core.errors import Flip7Error
from flip7.core.rules import Rules
from flip7.core.seeds import bot_seed, game_seed
from flip7.engine.game import Game

if TYPE_CHECKING:
    from flip7.engine.record import Record

_PYTHON = "{}.{}.{}".format(*sys.version_info[:3])  # platform.python_version(), unimported

__all__ = [
    "BenchResult",
    "SelfplayGame",
    "SelfplaySummary",
    "bench",
    "play_game",
    "selfplay",
    "selfplay_game",
    "summarize",
]


def _check_bot(bot: str) -> None:
    if bot not in BOTS:
        raise Flip7Error(f"unknown bot {bot!r}; bots are {', '.join(sorted(BOTS))}")


def play_game(bots: Sequence[Bot], game: Game) -> Game:
    """Let ``bots`` (one per seat) make every decision until ``game`` is over; returns it.

    ``game`` must shuffle its own deck (not ``explicit``): only then is a decision, never
    a card, what the game waits for until it is over.
    """
    if game.explicit:
        raise Flip7Error("bots can only play a game that shuffles its own deck (not explicit)")
    if len(bots) != game.n:
        raise Flip7Error(f"{game.n} players need {game.n} bots, got {len(bots)}")
    game.play(bots)
    return game


@dataclass(frozen=True)
class SelfplayGame:
    """One finished self-play game: its 1-based ``index``, seeds, the game and its record."""

    index: int
    seed: int
    bot_seeds: tuple[int, ...]
    game: Game
    record: Record

    @property
    def winners(self) -> tuple[int, ...]:
        return self.game.winners

    @property
    def rounds(self) -> int:
        return len(self.game.rounds)


def selfplay_game(
    players: int, index: int, seed: int, rules: Rules | None = None, bot: str = "basic"
) -> SelfplayGame:
    """Play game ``index`` (1-based) of the self-play run seeded with ``seed``.

    The record's ``meta`` says how to play the same game again: the run's seed, the game
    index, the derived shuffle and bot seeds, and the bot.
    """
    _check_bot(bot)
    rules = rules if rules is not None else Rules()
    gseed = game_seed(seed, index)
    bseeds = tuple(bot_seed(seed, index, seat) for seat in range(players))
    names = [f"{bot}-{seat + 1}" for seat in range(players)]
    game = Game.new(names, rules, seed=gseed, events=False)
    play_game([make_bot(bot, s) for s in bseeds], game)
    meta: dict[str, Any] = {
        "generator": "flip7 selfplay",
        "bot": bot,
        "seed": seed,
        "game": index,
        "game_seed": gseed,
        "bot_seeds": list(bseeds),
    }
    # Imported here: a benchmark, which makes no records, need not load them.
    from flip7.engine.record import Record

    return SelfplayGame(index, gseed, bseeds, game, Record.from_game(game, meta=meta))


def selfplay(
    players: int, games: int, seed: int, rules: Rules | None = None, bot: str = "basic"
) -> Iterator[SelfplayGame]:
    """Play ``games`` complete games between ``bot`` bots, one at a time, in index order.

    A generator, so that a caller can write each record as soon as its game is over.
    Bad arguments (player count, bot) raise before the first game is played.
    """
    _check_bot(bot)
    if games < 0:
        raise Flip7Error(f"the number of games must be 0 or more, got {games}")
    rules = rules if rules is not None else Rules()
    # A throwaway game checks the player count against the rules up front.
    Game.new(players, rules, seed=0, events=False)
    return (selfplay_game(players, i, seed, rules, bot) for i in range(1, games + 1))


@dataclass(frozen=True)
class SelfplaySummary:
    """What a self-play run came to: wins per seat (a shared win counts for each winner)."""

    games: int
    players: int
    wins: tuple[int, ...]
    rounds: int

    @property
    def mean_rounds(self) -> float:
        return self.rounds / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "players": self.players,
            "wins": list(self.wins),
            "mean_rounds": self.mean_rounds,
        }


def summarize(played: Sequence[SelfplayGame], players: int | None = None) -> SelfplaySummary:
    """Add up finished self-play games (``players`` is needed only when there are none)."""
    n = played[0].game.n if played else (players or 0)
    wins = [0] * n
    for one in played:
        for seat in one.winners:
            wins[seat] += 1
    return SelfplaySummary(len(played), n, tuple(wins), sum(one.rounds for one in played))


@dataclass(frozen=True)
class BenchResult:
    """Engine throughput: ``games`` complete games of ``players`` ``bot`` bots."""

    games: int
    players: int
    bot: str
    seconds: float
    rounds: int
    python: str

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict[str, Any]:
        """The ``flip7 bench --json`` object."""
        return {
            "games": self.games,
            "players": self.players,
            "bot": self.bot,
            "seconds": round(self.seconds, 6),
            "games_per_second": round(self.games_per_second, 3),
            "rounds_per_second": round(self.rounds_per_second, 3),
            "python": self.python,
        }


def bench(
    players: int = 4,
    games: int = 5000,
    bot: str = "basic",
    rules: Rules | None = None,
    seed: int = 0,
) -> BenchResult:
    """Time ``games`` complete games on this core, bots making every decision.

    Games run as a simulation runs them: without events (``events=False``), played by
    :meth:`Game.play`, which makes the Hit/Stay of a bot that declares ``hit_below``
    itself. The clock covers creating each game and playing it to the end, nothing else.
    """
    _check_bot(bot)
    if games < 1:
        raise Flip7Error(f"the number of games must be 1 or more, got {games}")
    rules = rules if rules is not None else Rules()
    Game.new(players, rules, seed=0, events=False)  # check the player count before timing
    bots = [make_bot(bot, bot_seed(seed, 0, seat)) for seat in range(players)]
    seeds = [game_seed(seed, i) for i in range(1, games + 1)]
    rounds = 0
    new = Game.new
    start = time.perf_counter()
    for gseed in seeds:
        game = new(players, rules, seed=gseed, events=False)
        game.play(bots)
        rounds += game.round
    seconds = time.perf_counter() - start
    return BenchResult(games, players, bot, seconds, rounds, _PYTHON)
