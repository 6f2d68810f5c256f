"""The simulation layer: bots playing complete games, self-play records, the benchmark."""

from __future__ import annotations

import dataclasses

import pytest

from flip7 import Flip7Error, Game, Record, Rules, replay
from flip7.bots import make_bot
from flip7.core.seeds import bot_seed, derive_seed, game_seed
from flip7.tournament.selfplay import (
    BenchResult,
    SelfplayGame,
    bench,
    play_game,
    selfplay,
    selfplay_game,
    summarize,
)


def test_derived_seeds_are_fixed_numbers() -> None:
    # Literal values: records made today must be reproducible by any later version.
    assert derive_seed("game", 7, 1) == 5518916253934211556
    assert game_seed(0, 1) == 3706320021402099708
    assert bot_seed(0, 1, 0) == 2278504099464774287


def test_derived_seeds_differ_by_every_part() -> None:
    seeds = {game_seed(s, i) for s in range(5) for i in range(1, 6)}
    seeds |= {bot_seed(s, i, seat) for s in range(5) for i in range(1, 6) for seat in range(4)}
    assert len(seeds) == 25 + 100
    assert all(0 <= s < 2**63 for s in seeds)


def test_play_game_plays_to_the_end() -> None:
    game = Game.new(4, seed=11, events=False)
    bots = [make_bot("random", seat) for seat in range(4)]
    assert play_game(bots, game) is game
    assert game.over and game.winners
    assert max(game.totals) >= 200


def test_play_game_refuses_explicit_games_and_wrong_bot_counts() -> None:
    with pytest.raises(Flip7Error, match="explicit"):
        play_game([make_bot("basic")] * 3, Game.new(3, explicit=True))
    with pytest.raises(Flip7Error, match="3 players need 3 bots"):
        play_game([make_bot("basic")] * 2, Game.new(3, seed=1))


def test_selfplay_game_record_replays_to_the_same_result() -> None:
    one = selfplay_game(4, 3, seed=9)
    assert isinstance(one, SelfplayGame)
    assert one.index == 3 and one.seed == game_seed(9, 3)
    assert one.bot_seeds == tuple(bot_seed(9, 3, seat) for seat in range(4))
    result = replay(one.record)
    assert result.over
    assert result.totals == one.game.totals
    assert result.winners == one.winners
    assert len(result.rounds) == one.rounds


def test_selfplay_meta_says_how_to_play_the_game_again() -> None:
    one = selfplay_game(3, 2, seed=5, bot="random")
    assert one.record.meta == {
        "generator": "flip7 selfplay",
        "bot": "random",
        "seed": 5,
        "game": 2,
        "game_seed": game_seed(5, 2),
        "bot_seeds": [bot_seed(5, 2, seat) for seat in range(3)],
    }
    assert one.record.players == ("random-1", "random-2", "random-3")


def test_selfplay_is_deterministic() -> None:
    first = [g.record.dumps() for g in selfplay(3, 4, seed=21)]
    again = [g.record.dumps() for g in selfplay(3, 4, seed=21)]
    other = [g.record.dumps() for g in selfplay(3, 4, seed=22)]
    assert first == again
    assert len(set(first)) == 4  # four different games
    assert not set(first) & set(other)


def test_selfplay_games_do_not_depend_on_how_many_are_played() -> None:
    short = [g.record.dumps() for g in selfplay(4, 2, seed=3)]
    long = [g.record.dumps() for g in selfplay(4, 5, seed=3)]
    assert long[:2] == short


def test_selfplay_uses_the_rules() -> None:
    rules = Rules(brutal=True, target_score=60)
    for one in selfplay(3, 3, seed=1, rules=rules):
        assert one.record.rules == rules
        assert replay(Record.loads(one.record.dumps())).totals == one.game.totals


def test_selfplay_checks_its_arguments_before_playing() -> None:
    with pytest.raises(Flip7Error, match="unknown bot"):
        selfplay(3, 1, seed=0, bot="clever")
    with pytest.raises(Flip7Error, match="3 to 36 players"):
        selfplay(2, 1, seed=0)
    with pytest.raises(Flip7Error, match="0 or more"):
        selfplay(3, -1, seed=0)
    assert list(selfplay(3, 0, seed=0)) == []
    assert len(list(selfplay(2, 1, seed=0, rules=Rules(allow_two_players=True)))) == 1


def test_summarize_counts_wins_per_seat_and_rounds() -> None:
    played = list(selfplay(3, 6, seed=4))
    summary = summarize(played)
    assert summary.games == 6 and summary.players == 3
    assert sum(summary.wins) >= 6  # a shared win counts for each winner
    assert summary.rounds == sum(g.rounds for g in played)
    assert summary.mean_rounds == summary.rounds / 6
    assert summary.to_json()["wins"] == list(summary.wins)
    empty = summarize([], players=4)
    assert empty.wins == (0, 0, 0, 0) and empty.mean_rounds == 0.0


def test_summarize_counts_a_shared_win_for_each_winner() -> None:
    one = next(iter(selfplay(3, 1, seed=0)))
    shared = dataclasses.replace(one, game=_FakeGame(one.game, winners=(0, 2)))  # type: ignore[arg-type]
    assert summarize([shared]).wins == (1, 0, 1)


class _FakeGame:
    def __init__(self, game: Game, winners: tuple[int, ...]) -> None:
        self.n = game.n
        self.rounds = game.rounds
        self.winners = winners


def test_bench_reports_throughput() -> None:
    result = bench(players=3, games=5, bot="random", seed=2)
    assert isinstance(result, BenchResult)
    assert result.games == 5 and result.players == 3 and result.bot == "random"
    assert result.seconds > 0 and result.rounds >= 5
    assert result.games_per_second == pytest.approx(5 / result.seconds)
    assert result.rounds_per_second == pytest.approx(result.rounds / result.seconds)
    data = result.to_json()
    assert list(data) == [
        "games", "players", "bot", "seconds", "games_per_second", "rounds_per_second", "python",
    ]  # fmt: skip
    assert data["python"].count(".") == 2


def test_bench_plays_the_same_games_as_a_plain_loop() -> None:
    # The rounds bench counts are those of the games it claims to play.
    result = bench(players=4, games=3, bot="basic", seed=8)
    bots = [make_bot("basic", bot_seed(8, 0, seat)) for seat in range(4)]
    rounds = 0
    for i in range(1, 4):
        game = play_game(bots, Game.new(4, seed=game_seed(8, i), events=False))
        rounds += len(game.rounds)
    assert result.rounds == rounds


def test_bench_checks_its_arguments() -> None:
    with pytest.raises(Flip7Error, match="unknown bot"):
        bench(games=1, bot="nobody")
    with pytest.raises(Flip7Error, match="1 or more"):
        bench(games=0)
    with pytest.raises(Flip7Error, match="players"):
        bench(players=40, games=1)
