"""The RL environments (flip7.envs): one action and one observation encoding, Gymnasium's
``flip7/Flip7-v0``, the PettingZoo AEC environment and the OpenSpiel game ``python_flip7``.

Each library's own checker runs here (``check_env``, ``api_test``, ``random_sim_test``),
and beside them what the checkers cannot know: an observation holds only what the seat may
see (it does not change when the hidden draw pile is scrambled), the masks are exactly the
engine's legal decisions, seeds replay episodes, and OpenSpiel's chance nodes are the draw
pile's exact composition. Games are short (small target scores) to keep this file fast.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import warnings
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from conftest import require
from engine_helpers import reshuffled

from flip7 import Card, Game, Rules
from flip7.core.decisions import DecisionKind
from flip7.core.errors import Flip7Error
from flip7.engine.record import Record, replay

SHORT = Rules(target_score=50)

# Rule variants that bring every kind of decision: Brutal's bonus/minus, pass_actions' pass,
# shared wins, no cross-type Swap; two players; a big table.
VARIANTS: list[tuple[int, Rules]] = [
    (4, SHORT),
    (3, Rules(target_score=40, brutal=True, pass_actions=True)),
    (5, Rules(target_score=40, tie_break="shared_win", swap_allow_cross_type=False)),
    (2, Rules(target_score=40, allow_two_players=True, brutal=True)),
    (7, Rules(target_score=30, lucky13_pair_flip7_count=1, deal_skips_inactive=False)),
]


def _positions(players: int, rules: Rules, games: int, seed: int) -> Iterator[Game]:
    """Decision points of random games (random legal choices)."""
    for g in range(games):
        game = Game.new(players, rules, seed=seed + g, events=False)
        rng = random.Random(seed * 1000 + g)
        while not game.over:
            yield game
            options = game.legal_decisions()
            game.apply(options[rng.randrange(len(options))])


# ---------------------------------------------------------------------------- encoding


def test_every_decision_has_its_own_index_and_back() -> None:
    require("numpy")
    from flip7.envs.encoding import FACE_UP, ActionEncoding

    kinds: set[DecisionKind] = set()
    for players, rules in VARIANTS:
        codec = ActionEncoding(players)
        pairs = players * (players - 1) // 2
        assert codec.size == 3 + 4 * players + 2 * players * FACE_UP + pairs * FACE_UP**2
        # Brutal's Flip 7 choice is rare in random play: more games where it can come.
        games = 40 if rules.brutal else 3
        for game in _positions(players, rules, games, seed=11):
            legal = game.legal_decisions()
            kinds.add(game.decision_kind)  # type: ignore[arg-type]
            indices = [codec.index(d) for d in legal]
            assert len(set(indices)) == len(legal)
            assert all(0 <= i < codec.size for i in indices)
            assert [codec.decision(i) for i in indices] == list(legal)
    # Every kind of decision came up, so every part of the layout was exercised.
    assert kinds == set(DecisionKind)
    # The whole space decodes, one decision per index, each encoding back to its index.
    codec = ActionEncoding(4)
    assert [codec.index(codec.decision(i)) for i in range(codec.size)] == list(range(codec.size))


def test_an_action_that_is_not_legal_says_which_are() -> None:
    require("numpy")
    from flip7.envs.encoding import ActionEncoding, IllegalActionError

    codec = ActionEncoding(3)
    game = Game.new(3, SHORT, seed=4)
    legal = game.legal_decisions()
    assert issubclass(IllegalActionError, Flip7Error)
    with pytest.raises(IllegalActionError, match=r"action 6 \(give 0\) is not legal now; "
                       r"legal now: 0 \(hit\), 1 \(stay\)"):  # fmt: skip
        codec.legal(6, legal)
    with pytest.raises(IllegalActionError, match="out of range: actions are 0 to 1598"):
        codec.legal(1599, legal)
    with pytest.raises(IllegalActionError, match="integer index"):
        codec.legal("hit", legal)  # type: ignore[arg-type]


def test_the_observation_is_what_the_seat_sees() -> None:
    np = require("numpy")
    from flip7.envs.encoding import ObservationEncoding, draw_pile_counts

    checked = 0
    for players, rules in VARIANTS:
        obs = ObservationEncoding(players)
        assert obs.size == 32 * players + 135 == sum(size for _, size, _ in obs.fields())
        for i, game in enumerate(_positions(players, rules, 4, seed=21)):
            if i % 3:
                continue
            scrambled = reshuffled(game, seed=i)
            assert scrambled.draw_pile != game.draw_pile or len(set(game.draw_pile)) < 2
            for seat in range(players):
                vector = obs.encode(game.view(seat))
                assert vector.dtype == np.float32 and vector.shape == (obs.size,)
                assert np.all(vector >= obs.low) and np.all(vector <= obs.high)
                # The hidden order of the draw pile does not reach the observation.
                assert np.array_equal(vector, obs.encode(scrambled.view(seat)))
                # The pile composition it holds is the real one (public by counting).
                real = game.draw_pile_counts()
                assert draw_pile_counts(vector, players, game.decks) == [
                    real.get(Card(c), 0) for c in range(len(Card))
                ]
                checked += 1
    assert checked > 300


def test_flip7_envs_imports_without_gymnasium() -> None:
    code = (
        "import sys\n"
        "sys.modules['gymnasium'] = None  # as if it were not installed\n"
        "import flip7.envs\n"
        "print('flip7.envs.gymnasium' in sys.modules)\n"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------- Gymnasium


def test_gymnasium_env_passes_check_env() -> None:
    gymnasium = require("gymnasium")
    from gymnasium.utils.env_checker import check_env

    import flip7.envs  # noqa: F401  (registers flip7/Flip7-v0)
    from flip7.envs.gymnasium import ENV_ID, Flip7Env

    assert ENV_ID == "flip7/Flip7-v0" and ENV_ID in gymnasium.registry
    check_env(gymnasium.make(ENV_ID, rules={"target_score": 50}).unwrapped)
    env = Flip7Env(players=4, opponents=("winprob", "ev", "targeting"), rules=SHORT, seat=None,
                   reward="score")  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "no spec": the render modes are checked above
        check_env(env)
    # gymnasium.make can import the module itself.
    made = gymnasium.make("flip7.envs.gymnasium:flip7/Flip7-v0", players=5)
    assert made.observation_space.shape == (32 * 5 + 135,)


def _play_gym(env: Any, seed: int, pick: random.Random) -> list[tuple[Any, ...]]:
    np = require("numpy")
    obs, info = env.reset(seed=seed)
    trace = []
    done = False
    while not done:
        game = env.unwrapped.game
        legal = game.legal_decisions()
        mask = info["action_mask"]
        assert game.to_decide == env.unwrapped.seat
        assert mask.dtype == np.int8 and set(np.flatnonzero(mask)) == {
            env.unwrapped.actions.index(d) for d in legal
        }
        assert np.array_equal(env.get_wrapper_attr("action_masks")(), mask.astype(bool))
        action = int(pick.choice(np.flatnonzero(mask)))
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        trace.append((action, obs.tobytes(), reward))
    return trace


def test_gymnasium_masks_rewards_and_seeds() -> None:
    gymnasium = require("gymnasium")
    from flip7.envs.gymnasium import ENV_ID

    env = gymnasium.make(ENV_ID, players=3, opponents="ev", rules=SHORT, seat=None)
    first = _play_gym(env, 5, random.Random(1))
    assert first == _play_gym(env, 5, random.Random(1))  # the same seed, the same episode
    assert first != _play_gym(env, 6, random.Random(1))
    rewards = [r for _, _, r in first]
    game = env.unwrapped.game
    assert rewards[:-1] == [0.0] * (len(rewards) - 1)
    assert rewards[-1] == (1.0 if env.unwrapped.seat in game.winners else 0.0)
    # Score deltas add up to the final total.
    scored = gymnasium.make(ENV_ID, players=4, rules=SHORT, reward="score")
    trace = _play_gym(scored, 8, random.Random(2))
    assert sum(r for _, _, r in trace) == scored.unwrapped.game.totals[0]


def test_gymnasium_illegal_actions() -> None:
    require("gymnasium")
    from flip7.envs.encoding import IllegalActionError
    from flip7.envs.gymnasium import Flip7Env

    env = Flip7Env(rules=SHORT)
    env.reset(seed=1)
    before = env.game.view(0)  # type: ignore[union-attr]
    _, reward, terminated, truncated, info = env.step(env.actions.size - 1)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert env.game.view(0) == before  # type: ignore[union-attr]
    strict = Flip7Env(rules=SHORT, illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalActionError, match=r"legal now: 0 \(hit\), 1 \(stay\)"):
        strict.step(5)
    with pytest.raises(Flip7Error, match="opponents: give one bot spec, or 3"):
        Flip7Env(opponents=("ev", "ev"))
    with pytest.raises(Flip7Error, match="unknown bot"):
        Flip7Env(opponents="nobody")


# ---------------------------------------------------------------------------- PettingZoo


def test_pettingzoo_env_passes_api_test() -> None:
    require("pettingzoo")
    from pettingzoo.test import api_test, seed_test

    from flip7.envs.pettingzoo import env

    with warnings.catch_warnings():
        # Dict observations with an action mask: api_test warns unless the env is one of
        # PettingZoo's own classic games (it lists them by name).
        warnings.filterwarnings("ignore", "Observation (space for each agent probably|is not)")
        for players, rules in VARIANTS[:3]:
            api_test(env(players=players, rules=rules), num_cycles=300)
        seed_test(lambda: env(players=4, rules=SHORT), num_cycles=100)


def _play_pz(table: Any, seed: int, others: bool = True) -> list[tuple[Any, ...]]:
    np = require("numpy")
    raw = table.unwrapped
    table.reset(seed=seed)
    pick = random.Random(seed)
    trace = []
    returns: dict[str, float] = {}
    for agent in table.agent_iter():
        observation, reward, termination, _, _ = table.last()
        returns[agent] = returns.get(agent, 0.0) + reward
        if termination:
            table.step(None)
            continue
        game = raw.game
        seat = raw.possible_agents.index(agent)
        assert game.to_decide == seat
        legal = {raw.actions.index(d) for d in game.legal_decisions()}
        assert set(np.flatnonzero(observation["action_mask"])) == legal
        for other in raw.agents if others else ():  # only the agent to act has a mask
            if other != agent:
                assert not raw.observe(other)["action_mask"].any()
        action = pick.choice(sorted(legal))
        table.step(action)
        trace.append((agent, action, observation["observation"].tobytes()))
    # The returns: 1 to a sole winner, shared equally in a shared win, 0 to the others.
    winners = raw.game.winners
    assert winners and sum(returns.values()) == pytest.approx(1.0)
    for s, agent in enumerate(raw.possible_agents):
        assert returns[agent] == pytest.approx(1 / len(winners) if s in winners else 0.0)
    trace.append(tuple(sorted(returns.items())))
    return trace


def test_pettingzoo_masks_rewards_and_seeds() -> None:
    require("pettingzoo")
    from flip7.envs.pettingzoo import env

    table = env(players=5, rules=Rules(target_score=40, tie_break="shared_win"))
    first = _play_pz(table, 3)
    assert first == _play_pz(table, 3)
    assert first != _play_pz(table, 4)
    # Shared wins: one-round games at a big table tie often enough (_play_pz checks the split).
    table = env(players=9, rules=Rules(target_score=1, tie_break="shared_win"))
    shared = 0
    for seed in range(100):
        _play_pz(table, seed, others=False)
        shared += len(table.unwrapped.game.winners) > 1
        if shared:
            break
    assert shared


def test_pettingzoo_illegal_action_ends_the_game() -> None:
    require("pettingzoo")
    from flip7.envs.encoding import IllegalActionError
    from flip7.envs.pettingzoo import raw_env

    table = raw_env(players=3, rules=SHORT)
    table.reset(seed=2)
    offender = table.agent_selection
    table.step(2)  # bonus: never legal outside Brutal
    assert all(table.terminations.values())
    assert table.rewards[offender] == -1.0 and table.infos[offender]["illegal_action"]
    strict = raw_env(players=3, rules=SHORT, illegal="raise")
    strict.reset(seed=2)
    with pytest.raises(IllegalActionError, match="legal now"):
        strict.step(2)


# ---------------------------------------------------------------------------- OpenSpiel


def _spiel() -> Any:
    pyspiel = require("pyspiel")
    import flip7.envs.openspiel  # noqa: F401  (registers python_flip7)

    return pyspiel


def test_openspiel_random_simulations() -> None:
    pyspiel = _spiel()
    assert "python_flip7" in pyspiel.registered_names()
    for params in (
        {"target_score": 50},
        {"players": 3, "target_score": 40, "brutal": True, "pass_actions": True},
        {"players": 5, "target_score": 30, "tie_break": "shared_win",
         "swap_allow_cross_type": False, "lucky13_pair_flip7_count": 1},
        {"players": 2, "allow_two_players": True, "target_score": 40},
    ):  # fmt: skip
        game = pyspiel.load_game("python_flip7", params)
        pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    # Serialising a state (the engine's game pickles) and reading it back.
    game = pyspiel.load_game("python_flip7", {"target_score": 30})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    game = pyspiel.load_game("python_flip7(players=3,target_score=30)")
    assert game.num_players() == 3 and game.num_distinct_actions() == 1599
    # max_game_length is a true bound: a game still running there stops as a draw.
    game = pyspiel.load_game("python_flip7", {"players": 4, "max_game_length": 5})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if not state.is_chance_node():
            decisions += 1
        state.apply_action(state.legal_actions()[0])
    assert decisions == 5 and state.returns() == [0.25] * 4


def test_openspiel_chance_is_the_draw_pile_exactly() -> None:
    pyspiel = _spiel()
    np = require("numpy")
    from flip7.envs.encoding import ActionEncoding, ObservationEncoding, draw_pile_counts

    game = pyspiel.load_game("python_flip7", {"players": 4, "target_score": 50})
    codec, obs = ActionEncoding(4), ObservationEncoding(4)
    rng = random.Random(7)
    for _ in range(2):
        state = game.new_initial_state()
        assert state.chance_outcomes() == [(s, 0.25) for s in range(4)]
        state.apply_action(rng.randrange(4))
        chance_nodes = 0
        while not state.is_terminal():
            inner = state.game_of_flip7
            if state.is_chance_node():
                chance_nodes += 1
                exact = inner.chance_outcomes()
                outcomes = state.chance_outcomes()
                assert [a for a, _ in outcomes] == [int(c) for c, _ in exact]
                assert [p for _, p in outcomes] == [float(p) for _, p in exact]
                assert sum(p for _, p in outcomes) == pytest.approx(1.0)
                if inner.draw_pile_size:  # no reshuffle due: the pile the seats count
                    vector = np.array(state.observation_tensor(0), np.float32)
                    seen = draw_pile_counts(vector, 4, 1)
                    assert [
                        (Card(c), Fraction(k, sum(seen))) for c, k in enumerate(seen) if k
                    ] == exact
                cards = [a for a, _ in outcomes]
                weights = [p for _, p in outcomes]
                state.apply_action(rng.choices(cards, weights)[0])
            else:
                player = state.current_player()
                legal = state.legal_actions()
                assert legal == codec.indices(inner.legal_decisions())
                assert player == inner.to_decide
                assert state.observation_tensor(player) == list(obs.encode(inner.view(player)))
                state.apply_action(rng.choice(legal))
        assert chance_nodes > 20
        # The engine's record of the game replays to the same result.
        inner = state.game_of_flip7
        result = replay(Record.from_game(inner))
        assert result.over and list(result.winners) == list(inner.winners)
        assert sum(state.returns()) == pytest.approx(1.0)


def test_openspiel_algorithms_play_it() -> None:
    pyspiel = _spiel()
    np = require("numpy")
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("python_flip7", {"players": 3, "target_score": 30})
    rollouts = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = mcts.MCTSBot(game, 2.0, 8, rollouts, random_state=np.random.RandomState(1))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert bot.step(state) in state.legal_actions()


def test_openspiel_observer_and_clone() -> None:
    pyspiel = _spiel()
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_flip7", {"players": 3, "target_score": 40})
    state = game.new_initial_state()
    for action in (1, 5, 11, 2):  # dealer 1, then three deal cards
        state.apply_action(action)
    assert state.current_player() == 2 and not state.is_chance_node()
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert state.history() == [1, 5, 11, 2] and len(clone.history()) == 5
    assert state.game_of_flip7 is not clone.game_of_flip7
    observation = make_observation(game)
    observation.set_from(state, 2)
    assert list(observation.tensor) == state.observation_tensor(2)
    assert observation.dict["seat2"][31] == 1  # the viewer's own mark
    recall = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    assert recall.string_from(state, 0) == "p0:1,5,11,2"
    assert "decides: hit_or_stay" in state.observation_string(2)
    with pytest.raises(pyspiel.SpielError, match=r"(?i)unknown parameter"):
        pyspiel.load_game("python_flip7", {"colour": "red"})
