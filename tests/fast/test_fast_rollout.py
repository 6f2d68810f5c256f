"""R5's rollouts in the compiled loop (flip7.fast.rollout) against mcts's own, in Python.

Given the same cards (the Python rollout's draws, scripted), a compiled rollout must end
its round in the same totals with the same value as :func:`flip7.bots.mcts._rollout`, from
every kind of searched decision, under the standard rules, Brutal and random rule sets;
with random cards, the same distribution; a batch's sums must be its rollouts'; and mcts
must search with the compiled rollouts when they are handed over, and without them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from conftest import require

from flip7.bots import make_bot
from flip7.bots.mcts import MCTSBot, _net_leaf, _rollout, use_rollout_engine
from flip7.bots.public import PublicView
from flip7.core.decisions import Decision, DecisionKind
from flip7.core.rules import Rules
from flip7.engine.game import Game

require("numba")
require("numpy")

from test_fast import _random_rules  # noqa: E402

from flip7.fast.rollout import Position, install  # noqa: E402


def _positions(rules: Rules, players: int, seed: int) -> Iterator[tuple[Game, int, list[Decision]]]:
    """Every decision of a game of R4 players with two or more options that mcts would
    search were it always in its last rounds: the game, the seat and the candidates."""
    game = Game.new(players, rules, seed=seed, events=False)
    bots = [make_bot("winprob", seed=seed * 10 + s) for s in range(players)]
    searcher = MCTSBot(seed=seed, horizon=1000)
    while not game.over:
        seat = game.to_decide
        assert seat is not None
        view = PublicView(game)
        default = bots[seat].decide(view)
        candidates = searcher.candidates(view, default)
        if len(candidates) >= 2:
            yield game, seat, candidates
        game.apply(default)


def _agree(
    game: Game, seat: int, candidates: list[Decision], rng: random.Random, value: int = 0
) -> None:
    sample = PublicView(game, seat).sample_games(rng, 1)[0]
    leaf = _net_leaf if value else None
    for decision in candidates:
        python = sample.fork(draw_pile=sample.draw_pile, rng=random.Random(rng.random()))
        want = _rollout(python, decision, seat, game.round, game.rules.target_score, leaf)
        compiled = Position(
            sample, [decision], seat, draws=[int(c) for c in python.draws], value=value
        )
        got, totals = compiled.end(0, 0, 0)
        where = f"{decision} at {game.decision_kind}, round {game.round}, seat {seat}"
        assert totals == python.totals, where
        # The network in the loop gives ValueNet.chance to about 1e-9 (test_fast_learned).
        assert got == pytest.approx(want, abs=1e-9 if value else 1e-12), where


@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(brutal=True), Rules(target_score=100)],
    ids=["standard", "brutal", "target-100"],
)
def test_the_same_cards_end_the_round_the_same(rules: Rules) -> None:
    rng = random.Random(7)
    kinds = set()
    for game, seat, candidates in _positions(rules, 4, 11):
        kinds.add(game.decision_kind)
        _agree(game, seat, candidates, rng)
    assert len(kinds) >= 3  # Hit or Stay and some uses of Actions and Modifiers


def test_the_network_values_the_ends_the_same() -> None:
    """mcts's value=1: the compiled rollouts' ends valued by R6's network, as in Python."""
    rng = random.Random(5)
    valued = 0
    for game, seat, candidates in _positions(Rules(), 4, 12):
        if game.round >= 3:
            _agree(game, seat, candidates, rng, value=1)
            valued += 1
    assert valued >= 5


def test_the_same_cards_under_random_rules() -> None:
    rng = random.Random(3)
    for i in range(4):
        rules = _random_rules(rng, targets=(60, 100, 200))
        players = rng.choice((3, 4, 5))
        for k, (game, seat, candidates) in enumerate(_positions(rules, players, 100 + i)):
            if k % 3 == 0:  # a third of them: the Python rollouts are slow
                _agree(game, seat, candidates, rng)


def _late_position() -> tuple[Game, int, list[Decision]]:
    for game, seat, candidates in _positions(Rules(), 4, 5):
        if game.round >= 4 and len(candidates) == 2:
            return game, seat, candidates
    raise AssertionError("no late position")


def test_random_cards_give_the_same_distribution() -> None:
    game, seat, candidates = _late_position()
    view = PublicView(game, seat)
    rng = random.Random(1)
    python = [
        _rollout(g, candidates[0], seat, game.round, game.rules.target_score)
        for g in (view.sample_games(rng, 1)[0] for _ in range(600))
    ]
    position = Position(view.sample_games(rng, 1)[0], candidates, seat)
    compiled = [position.end(5, i, 0)[0] for i in range(6000)]
    mean_p = sum(python) / len(python)
    mean_c = sum(compiled) / len(compiled)
    var_p = sum((v - mean_p) ** 2 for v in python) / (len(python) - 1)
    var_c = sum((v - mean_c) ** 2 for v in compiled) / (len(compiled) - 1)
    stderr = (var_p / len(python) + var_c / len(compiled)) ** 0.5
    assert abs(mean_p - mean_c) < 4 * stderr + 1e-9


def test_a_batch_sums_its_rollouts() -> None:
    game, seat, candidates = _late_position()
    position = Position(game.fork(rng=random.Random(2)), candidates, seat)
    diffs, squares = position.run(9, 10, 60)
    want = [0.0] * len(candidates)
    want_squares = [0.0] * len(candidates)
    for i in range(10, 60):
        base = position.end(9, i, 0)[0]
        for j in range(len(candidates)):
            d = position.end(9, i, j)[0] - base
            want[j] += d
            want_squares[j] += d * d
    assert diffs == pytest.approx(want) and squares == pytest.approx(want_squares)
    assert diffs[0] == 0.0


@pytest.fixture
def compiled() -> Iterator[None]:
    install()
    yield
    use_rollout_engine(None)


def test_mcts_searches_with_compiled_rollouts(compiled: None) -> None:
    game = Game.new(4, seed=21, events=False)
    bots = [MCTSBot(seed=s, horizon=1000, iters=500) for s in range(3)]
    bots.append(MCTSBot(seed=3, horizon=1000, iters=50, compiled=0, value=1))
    bots[2] = MCTSBot(seed=2, horizon=1000, iters=500, value=1)
    searched = [0] * 4
    while not game.over:
        seat = game.to_decide
        assert seat is not None
        decision = bots[seat].choose(game)
        searched[seat] += bots[seat].last_iterations > 0
        game.apply(decision)
    assert game.over and all(searched)


@pytest.mark.parametrize("command", ["selfplay", "serve"])
def test_the_command_line_hands_the_compiled_rollouts_over(
    monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """Every searching command hands the compiled rollouts over; the server's version
    never waits for their build (tests/fast/test_fast_aot.py), so with the loop built both
    search with it."""
    import pickle

    import flip7.fast.rollout
    from flip7.cli import _compile_rollouts, _compiled_rollouts, _server_rollouts

    game = _late_position()[0]
    loaded: list[int] = []
    prepare = flip7.fast.rollout.prepare

    def counted(*args: object) -> object:
        loaded.append(1)
        return prepare(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(flip7.fast.rollout, "prepare", counted)
    try:
        _compile_rollouts(command)
        bot = MCTSBot(seed=1, horizon=1000, iters=300)
    finally:
        use_rollout_engine(None)
    engine = _server_rollouts if command == "serve" else _compiled_rollouts
    # The engine goes with the bot, to a worker process too (by name).
    assert bot.engine is engine
    assert pickle.loads(pickle.dumps(bot)).engine is engine
    bot.choose(game)
    assert bot.last_iterations > 0 and loaded == [1]


@pytest.mark.parametrize(
    "kind, rules",
    [
        (DecisionKind.FLIP7_CHOICE, Rules(brutal=True)),
        (DecisionKind.PASS, Rules(pass_actions=True)),
        (DecisionKind.TARGET, Rules(brutal=True, pass_actions=True)),
    ],
    ids=["flip7-choice", "pass", "target"],
)
def test_every_option_of_a_rare_decision(kind: DecisionKind, rules: Rules) -> None:
    """Rare decisions, reached by random play: every legal option, Python and compiled."""
    rng = random.Random(4)
    found = 0
    for seed in range(400):
        game = Game.new(4, rules, seed=seed, events=False)
        while not game.over and found < 6:
            options = game.legal_decisions()
            seat = game.to_decide
            assert seat is not None
            if game.decision_kind is kind and len(options) >= 2:
                found += 1
                _agree(game, seat, list(options), rng)
            game.apply(rng.choice(options))
        if found >= 6:
            break
    assert found >= 6
