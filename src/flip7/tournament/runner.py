"""The tournament runner: a lineup of bots plays many games, seats rotating, in parallel.

Everything a tournament reports, apart from its ``run`` section (wall time, rate, decision
latency, how it was executed), is a function of its arguments alone: games are played in
chunks by any :class:`concurrent.futures.Executor` and merged back in game order.

>>> result = run_tournament(["basic", "random", "random"], games=6, seed=1)
>>> [(s.spec, s.seats, s.games) for s in result.specs]
[('basic', 1, 6), ('random', 2, 6)]
>>> [row.rotation for row in result.rows]
[0, 1, 2, 0, 1, 2]
>>> result.rows[1].seats
('random', 'basic', 'random')
>>> sum(s.wins for s in result.specs)
6.0
"""

from __future__ import annotations

import platform
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import TYPE_CHECKING, Any

from flip7.bots import Bot, make_bot
from flip7.core.decisions import Decision
from flip7.core.errors import Flip7Error
from flip7.core.machine import available_cores
from flip7.core.rules import Rules
from flip7.core.seeds import bot_seed, game_seed
from flip7.engine.game import Game
from flip7.tournament.attacks import attack_points
from flip7.tournament.stats import Latency, wilson

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

__all__ = [
    "FORMAT",
    "GameRow",
    "PositionStats",
    "ScheduledGame",
    "SpecStats",
    "TournamentError",
    "TournamentResult",
    "available_cores",
    "default_chunk_size",
    "run_tournament",
    "scheduled_game",
]

FORMAT = "flip7-tournament/1"

Progress = Callable[[int, int], None]
"""A progress callback: ``progress(games_done, games_total)``, called as chunks finish."""


class TournamentError(Flip7Error):
    """A bad tournament or ladder argument (bot spec, counts, executor)."""


def default_chunk_size(games: int) -> int:
    """Games per work item: about 200 items, from 1 to 1000 games each. It depends on the
    number of games only, and the results do not depend on it at all.

    >>> default_chunk_size(40), default_chunk_size(4000), default_chunk_size(10**7)
    (1, 20, 1000)
    """
    return max(1, min(1000, games // 200))


# ---------------------------------------------------------------------- the schedule


@dataclass(frozen=True)
class ScheduledGame:
    """Who plays game ``index`` (1-based) and on which deal.

    ``seats[s]`` is the bot spec at seat ``s``; lineup entry ``p`` sits at seat
    ``(p + rotation) % players``. ``deal_seed`` shuffles the deck (and picks the first
    dealer); the bot at seat ``s`` is made with ``flip7.core.seeds.bot_seed(seed, index, s)``.
    """

    index: int
    deal: int
    deal_seed: int
    rotation: int
    lineup: int
    seats: tuple[str, ...]


@dataclass(frozen=True)
class _Plan:
    """Everything a worker needs to play any game of a run (sent with every chunk)."""

    lineups: tuple[tuple[str, ...], ...]
    seed: int
    rules: Rules
    paired: bool = False
    attacks: bool = True
    timed: bool = True
    time_all: bool = False

    @property
    def players(self) -> int:
        return len(self.lineups[0])

    def game(self, index: int) -> ScheduledGame:
        n = self.players
        k = index - 1
        count = len(self.lineups)
        if count == 1:
            lineup = 0
            if self.paired:
                deal, rotation = k // n + 1, k % n
            else:
                deal, rotation = index, k % n
        else:
            # A mixed round robin: the lineups take turns; each one's rotation advances
            # every time its turn comes round.
            lineup, rotation, deal = k % count, (k // count) % n, index
        entries = self.lineups[lineup]
        seats = tuple(entries[(s - rotation) % n] for s in range(n))
        return ScheduledGame(index, deal, game_seed(self.seed, deal), rotation, lineup, seats)


def scheduled_game(
    seats: Sequence[str], index: int, seed: int, paired: bool = False
) -> ScheduledGame:
    """Game ``index`` (1-based) of a tournament of the lineup ``seats`` seeded with ``seed``.

    Unpaired, game ``i`` is deal ``i`` with rotation ``(i - 1) % players``; paired, every
    deal is played ``players`` times in a row, once in each rotation:

    >>> [(g.deal, g.rotation) for g in (scheduled_game("abc", i, 0) for i in (1, 2, 3, 4))]
    [(1, 0), (2, 1), (3, 2), (4, 0)]
    >>> [(g.deal, g.rotation) for g in (scheduled_game("abc", i, 0, True) for i in (1, 2, 3, 4))]
    [(1, 0), (1, 1), (1, 2), (2, 0)]
    >>> scheduled_game(["ev", "x", "y"], 2, seed=0).seats
    ('y', 'ev', 'x')
    """
    return _Plan((tuple(seats),), seed, Rules(), paired).game(index)


# ---------------------------------------------------------------------- playing


@dataclass(frozen=True, slots=True)
class GameRow:
    """One finished game. Per-seat tuples are indexed by seat; ``winners`` are seats (more
    than one only with ``tie_break = "shared_win"``)."""

    index: int
    deal: int
    deal_seed: int
    rotation: int
    lineup: int
    seats: tuple[str, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: int
    round_points: tuple[int, ...]  # the sum of each seat's round scores
    busts: tuple[int, ...]  # rounds busted
    flip7s: tuple[int, ...]  # rounds ended by the seat's Flip 7
    attacks: tuple[int, ...] | None  # attack points (None: not measured)

    def win_share(self, seat: int) -> float:
        """1 for a sole winner, 1/k for each of k shared winners, else 0."""
        return 1.0 / len(self.winners) if seat in self.winners else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.index,
            "deal": self.deal,
            "deal_seed": self.deal_seed,
            "rotation": self.rotation,
            "lineup": self.lineup,
            "seats": list(self.seats),
            "totals": list(self.totals),
            "winners": list(self.winners),
            "rounds": self.rounds,
            "round_points": list(self.round_points),
            "busts": list(self.busts),
            "flip7s": list(self.flip7s),
            "attacks": None if self.attacks is None else list(self.attacks),
        }


@dataclass(frozen=True)
class _Chunk:
    """What a worker sends back for a run of consecutive games."""

    rows: tuple[GameRow, ...]
    round_scores: dict[str, Counter[int]]
    latency: dict[str, Latency]


class _Timed:
    """A bot whose ``choose`` calls are timed. It declares the bot's ``hit_below`` (so that
    ``Game.play`` makes those Hit/Stay decisions itself) unless every call is to be timed."""

    __slots__ = ("_choose", "_times", "hit_below", "name")

    def __init__(self, bot: Bot, times: list[float], keep_threshold: bool) -> None:
        self.name = bot.name
        self._choose = bot.choose
        self._times = times
        threshold = getattr(bot, "hit_below", None) if keep_threshold else None
        if threshold is not None:
            self.hit_below = threshold

    def choose(self, game: Game) -> Decision:
        start = perf_counter()
        decision = self._choose(game)
        self._times.append(perf_counter() - start)
        return decision


def _play_chunk(plan: _Plan, start: int, stop: int) -> _Chunk:
    """Play games ``start`` to ``stop - 1``: the unit of work sent to an executor."""
    n = plan.players
    rules = plan.rules
    rows: list[GameRow] = []
    scores: dict[str, Counter[int]] = {}
    times: dict[str, list[float]] = {}
    for index in range(start, stop):
        sched = plan.game(index)
        game = Game.new(n, rules, seed=sched.deal_seed, events=plan.attacks)
        bots: list[Bot | _Timed] = []
        for seat, spec in enumerate(sched.seats):
            bot = make_bot(spec, bot_seed(plan.seed, index, seat))
            if plan.timed:
                bots.append(_Timed(bot, times.setdefault(spec, []), not plan.time_all))
            else:
                bots.append(bot)
        game.play(bots)
        points, busts, flip7s = [0] * n, [0] * n, [0] * n
        counters = [scores.setdefault(spec, Counter()) for spec in sched.seats]
        results = game.rounds
        for result in results:
            for seat, score in enumerate(result.scores):
                points[seat] += score
                counters[seat][score] += 1
            for seat in result.busted:
                busts[seat] += 1
            if result.flip7 is not None:
                flip7s[result.flip7] += 1
        attacks = attack_points(game.take_events(), n, rules) if plan.attacks else None
        rows.append(
            GameRow(
                index, sched.deal, sched.deal_seed, sched.rotation, sched.lineup, sched.seats,
                game.totals, game.winners, len(results), tuple(points), tuple(busts),
                tuple(flip7s), None if attacks is None else tuple(attacks),
            )
        )  # fmt: skip
    latency = {spec: Latency.of(t) for spec, t in times.items()}
    return _Chunk(tuple(rows), scores, latency)


def _worker_init() -> None:
    """A pool worker leaves Ctrl-C to the parent, which cancels the chunks not yet started
    and waits for those running (so no worker dies mid-chunk with a traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass(frozen=True)
class _Executed:
    rows: tuple[GameRow, ...]
    round_scores: dict[str, dict[int, int]]
    latency: dict[str, Latency]
    seconds: float
    executor: str


def _execute(
    plan: _Plan,
    games: int,
    chunk_size: int | None,
    jobs: int,
    executor: Executor | None,
    progress: Progress | None,
    executor_name: str | None = None,
) -> _Executed:
    """Play games 1..``games`` of ``plan`` in chunks and merge them in game order."""
    size = chunk_size if chunk_size is not None else default_chunk_size(games)
    if size < 1:
        raise TournamentError(f"the chunk size must be 1 or more, got {size}")
    spans = [(a, min(a + size, games + 1)) for a in range(1, games + 1, size)]
    chunks: list[_Chunk | None] = [None] * len(spans)
    done = 0
    start = time.perf_counter()
    if progress is not None:
        progress(0, games)
    if executor is None and jobs <= 1:
        name = "inline"
        for k, (a, b) in enumerate(spans):
            chunks[k] = _play_chunk(plan, a, b)
            done += b - a
            if progress is not None:
                progress(done, games)
    else:
        # Imported here: concurrent.futures brings in logging and (for processes)
        # multiprocessing, a sixth of the start-up of every command that imports this
        # module (flip7 bench among them), and an inline run never uses it.
        from concurrent.futures import ProcessPoolExecutor, as_completed

        own = executor is None
        if executor is None:
            workers = min(jobs, len(spans)) or 1
            name = f"processes ({workers})"
            pool: Executor = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)
        else:
            name = executor_name or type(executor).__name__
            pool = executor
        futures: dict[Future[_Chunk], int] = {}
        try:
            for k, (a, b) in enumerate(spans):
                futures[pool.submit(_play_chunk, plan, a, b)] = k
            for future in as_completed(futures):
                k = futures[future]
                chunks[k] = future.result()
                done += spans[k][1] - spans[k][0]
                if progress is not None:
                    progress(done, games)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
        finally:
            if own:
                pool.shutdown(wait=True, cancel_futures=True)
    seconds = time.perf_counter() - start
    rows: list[GameRow] = []
    scores: dict[str, Counter[int]] = {}
    latency: dict[str, Latency] = {}
    for chunk in chunks:
        assert chunk is not None
        rows.extend(chunk.rows)
        for spec, counter in chunk.round_scores.items():
            scores.setdefault(spec, Counter()).update(counter)
        for spec, lat in chunk.latency.items():
            latency[spec] = latency[spec].merge(lat) if spec in latency else lat
    round_scores = {spec: dict(sorted(c.items())) for spec, c in scores.items()}
    return _Executed(tuple(rows), round_scores, latency, seconds, name)


def check_specs(specs: Iterable[str]) -> None:
    """Make one bot of every spec, so that a bad spec fails before any game is played."""
    for spec in dict.fromkeys(specs):
        if not isinstance(spec, str) or not spec.strip():
            raise TournamentError(f"a bot spec must be a non-empty string, got {spec!r}")
        try:
            make_bot(spec, 0)
        except Flip7Error:
            raise
        except Exception as exc:  # a spec naming a module or class that is not there
            raise TournamentError(f"cannot make bot {spec!r}: {exc}") from exc


def check_counts(players: int, games: int, rules: Rules) -> None:
    if games < 1:
        raise TournamentError(f"the number of games must be 1 or more, got {games}")
    Game.new(players, rules, seed=0, events=False)  # checks the player count


# ---------------------------------------------------------------------- the result


@dataclass(frozen=True)
class SpecStats:
    """One bot spec of a tournament, all its seats together.

    ``wins`` counts games won by any of its seats (a win shared by k players counts 1/k);
    ``win_rate`` is ``wins / games`` with its Wilson 95% interval ``win_low``..``win_high``;
    ``fair_share`` is its seats over the players, and ``edge`` is ``win_rate - fair_share``.
    The per-round figures count seat-rounds: ``rounds`` is the rounds played by its seats.
    ``attack_points`` is per seat per game (None when not measured).
    """

    spec: str
    seats: int
    games: int
    wins: float
    win_rate: float
    win_low: float
    win_high: float
    fair_share: float
    edge: float
    mean_game_score: float
    mean_round_score: float
    rounds: int
    bust_rate: float
    flip7_rate: float
    attack_points: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "seats": self.seats,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_rate_low": self.win_low,
            "win_rate_high": self.win_high,
            "fair_share": self.fair_share,
            "edge": self.edge,
            "mean_game_score": self.mean_game_score,
            "mean_round_score": self.mean_round_score,
            "rounds": self.rounds,
            "bust_rate": self.bust_rate,
            "flip7_rate": self.flip7_rate,
            "attack_points_per_game": self.attack_points,
        }


@dataclass(frozen=True)
class PositionStats:
    """One entry of the lineup (``position``, 0-based), followed around the table by the
    rotation: with four identical bots each entry should win a quarter of the games."""

    position: int
    spec: str
    games: int
    wins: float
    win_rate: float
    win_low: float
    win_high: float
    fair_share: float
    edge: float
    mean_game_score: float

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "spec": self.spec,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_rate_low": self.win_low,
            "win_rate_high": self.win_high,
            "fair_share": self.fair_share,
            "edge": self.edge,
            "mean_game_score": self.mean_game_score,
        }


@dataclass(frozen=True)
class TournamentResult:
    """A finished tournament: per-spec and per-position figures, one row per game, the
    round-score distribution of each spec, and how the run went (``seconds``, ``jobs``,
    ``executor``, decision ``latency`` per spec: the timing fields)."""

    seats: tuple[str, ...]
    games: int
    seed: int
    rules: Rules
    paired: bool
    attacks: bool
    time_all_decisions: bool
    specs: tuple[SpecStats, ...]
    positions: tuple[PositionStats, ...]
    rows: tuple[GameRow, ...]
    round_scores: Mapping[str, Mapping[int, int]]
    latency: Mapping[str, Latency]
    seconds: float
    jobs: int
    executor: str

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def spec(self, name: str) -> SpecStats:
        """The figures of the bot spec ``name``."""
        for stats in self.specs:
            if stats.spec == name:
                return stats
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        """The ``results.json`` object. Everything but ``run`` depends only on the
        arguments: the same tournament gives the same JSON whatever executes it."""
        return {
            "format": FORMAT,
            "seats": list(self.seats),
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "paired": self.paired,
            "rules": self.rules.to_json(),
            "attacks_measured": self.attacks,
            "specs": [s.to_json() for s in self.specs],
            "positions": [p.to_json() for p in self.positions],
            "round_scores": {
                spec: {str(score): k for score, k in dist.items()}
                for spec, dist in self.round_scores.items()
            },
            "run": {
                "seconds": self.seconds,
                "games_per_second": self.games_per_second,
                "jobs": self.jobs,
                "executor": self.executor,
                "time_all_decisions": self.time_all_decisions,
                "latency": {spec: lat.to_json() for spec, lat in self.latency.items()},
                "python": platform.python_version(),
            },
        }


def _spec_stats(lineup: tuple[str, ...], rows: Sequence[GameRow]) -> tuple[SpecStats, ...]:
    n = len(lineup)
    games = len(rows)
    out = []
    for spec, k in Counter(lineup).items():  # in the order of first appearance
        wins = 0.0
        score = points = busts = flip7s = rounds = 0
        attacks: int | None = 0
        for row in rows:
            for seat, at in enumerate(row.seats):
                if at != spec:
                    continue
                wins += row.win_share(seat)
                score += row.totals[seat]
                points += row.round_points[seat]
                busts += row.busts[seat]
                flip7s += row.flip7s[seat]
                rounds += row.rounds
                if row.attacks is None:
                    attacks = None
                elif attacks is not None:
                    attacks += row.attacks[seat]
        seat_games = games * k
        rate = wins / games if games else 0.0
        low, high = wilson(wins, games)
        out.append(
            SpecStats(
                spec, k, games, wins, rate, low, high, k / n, rate - k / n,
                score / seat_games if seat_games else 0.0,
                points / rounds if rounds else 0.0,
                rounds,
                busts / rounds if rounds else 0.0,
                flip7s / rounds if rounds else 0.0,
                None if attacks is None or not seat_games else attacks / seat_games,
            )
        )  # fmt: skip
    return tuple(out)


def _position_stats(lineup: tuple[str, ...], rows: Sequence[GameRow]) -> tuple[PositionStats, ...]:
    n = len(lineup)
    games = len(rows)
    out = []
    for position, spec in enumerate(lineup):
        wins = 0.0
        score = 0
        for row in rows:
            seat = (position + row.rotation) % n
            wins += row.win_share(seat)
            score += row.totals[seat]
        rate = wins / games if games else 0.0
        low, high = wilson(wins, games)
        out.append(
            PositionStats(
                position, spec, games, wins, rate, low, high, 1 / n, rate - 1 / n,
                score / games if games else 0.0,
            )
        )  # fmt: skip
    return tuple(out)


def run_tournament(
    seats: Sequence[str],
    games: int,
    seed: int,
    players: int | None = None,
    rules: Rules | None = None,
    jobs: int = 1,
    executor: Executor | None = None,
    paired: bool = False,
    progress: Progress | None = None,
    *,
    attacks: bool = True,
    time_all_decisions: bool = False,
    chunk_size: int | None = None,
    executor_name: str | None = None,
) -> TournamentResult:
    """Play ``games`` games of the lineup ``seats`` (one bot spec per seat, any spec
    :func:`flip7.bots.make_bot` accepts) and add them up.

    Game ``i`` (1-based) rotates the lineup by ``(i - 1) % players`` seats; its deck is
    shuffled with ``flip7.core.seeds.game_seed(seed, deal)`` and the bot at seat ``s`` seeded with
    ``flip7.core.seeds.bot_seed(seed, i, s)``. Unpaired, deal ``i`` is game ``i``'s own; with
    ``paired`` every deal is played ``players`` times in a row, once in each rotation (so
    ``games`` must be a multiple of ``players``).

    Work goes out in chunks of ``chunk_size`` games: to ``executor`` if given (it is not
    shut down), else to a process pool of ``jobs`` workers, else (``jobs`` 1) in this
    process. ``attacks`` measures attack points (the games then make events, which costs
    up to a third more time); ``time_all_decisions`` times every decision, Hit/Stay of
    threshold bots included, instead of only those ``Game.play`` asks the bot for.
    ``progress(done, total)`` is called as chunks finish; ``executor_name`` describes
    ``executor`` in ``results.json`` (default: its class name).
    """
    lineup = tuple(seats)
    rules = rules if rules is not None else Rules()
    if players is None:
        players = len(lineup)
    if players != len(lineup):
        raise TournamentError(
            f"{players} players need {players} seats, but the lineup has {len(lineup)}: "
            f"{', '.join(lineup)}"
        )
    check_counts(players, games, rules)
    if paired and games % players:
        raise TournamentError(
            f"a paired tournament plays each deal once per rotation: the number of games "
            f"must be a multiple of {players}, got {games}"
        )
    if jobs < 1:
        raise TournamentError(f"jobs must be 1 or more, got {jobs}")
    check_specs(lineup)
    plan = _Plan((lineup,), seed, rules, paired, attacks, True, time_all_decisions)
    done = _execute(plan, games, chunk_size, jobs, executor, progress, executor_name)
    return TournamentResult(
        seats=lineup,
        games=games,
        seed=seed,
        rules=rules,
        paired=paired,
        attacks=attacks,
        time_all_decisions=time_all_decisions,
        specs=_spec_stats(lineup, done.rows),
        positions=_position_stats(lineup, done.rows),
        rows=done.rows,
        round_scores=done.round_scores,
        latency=done.latency,
        seconds=done.seconds,
        jobs=jobs,
        executor=done.executor,
    )
