"""A PettingZoo AEC environment: every seat of a Flip 7 game is an agent.

``env(**kwargs)`` gives the environment wrapped in PettingZoo's order-enforcing wrapper;
``raw_env(**kwargs)`` the bare one. Agents are ``"player_0"`` … ``"player_{n-1}"`` (seat
order); ``agent_selection`` is always the seat that must decide. Cards are drawn inside
:meth:`raw_env.step`, and decisions with one legal option are made by the engine, so an
agent is only asked when it has a choice.

- Observation of an agent: ``{"observation": float32 vector, "action_mask": int8 vector}``,
  both of :mod:`flip7.envs.encoding`; the mask is all 0 for an agent that is not to act.
- Rewards (``reward="win"``, default): when the game ends, 1 to a sole winner, ``1/k`` to
  each of ``k`` sharing a win, 0 to the others. ``reward="score"``: after each step, every
  agent's change of running total, in points.
- When the game ends every agent is terminated (then steps ``None`` out, as PettingZoo
  asks). There is no truncation.
- An illegal action: ``illegal="terminate"`` (default) ends the game at once, the offender
  getting ``illegal_reward`` (−1) and the others 0, ``infos[agent]["illegal_action"]`` set;
  ``illegal="raise"``: an :class:`~flip7.envs.encoding.IllegalActionError` naming the legal
  actions.
- Seeds: ``reset(seed=s)`` replays the same game for the same actions.

The doctest needs PettingZoo; tests/envs/test_envs.py runs ``pettingzoo.test.api_test``.

>>> from flip7.envs.pettingzoo import env
>>> table = env(players=3, rules={"target_score": 40})
>>> table.reset(seed=3)
>>> for agent in table.agent_iter():
...     observation, reward, termination, truncation, info = table.last()
...     action = None if termination else int(observation["action_mask"].nonzero()[0][0])
...     table.step(action)
>>> table.agents
[]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from flip7.core.errors import Flip7Error, GameStateError
from flip7.core.rules import Rules, players_problem
from flip7.engine.game import Game
from flip7.envs.common import (
    ILLEGAL_CHOICES,
    REWARDS,
    IllegalChoice,
    RewardKind,
    as_rules,
    check_choice,
    render_view,
    win_shares,
)
from flip7.envs.encoding import ActionEncoding, IllegalActionError, ObservationEncoding

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """The environment (``raw_env(**kwargs)``) in PettingZoo's ``OrderEnforcingWrapper``."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo ships no type information
    """Every seat an agent (module doc). ``players`` 3–36 (2 with ``allow_two_players``);
    ``rules``: :class:`Rules` or a mapping of rule options."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"], "name": "flip7_v0", "is_parallelizable": False, "render_fps": 1,
    }  # fmt: skip

    def __init__(
        self,
        players: int = 4,
        rules: Rules | Mapping[str, Any] | None = None,
        reward: RewardKind = "win",
        illegal: IllegalChoice = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = as_rules(rules)
        problem = players_problem(players, self.rules)
        if problem is not None:
            raise Flip7Error(problem)
        check_choice("reward", reward, REWARDS)
        check_choice("illegal", illegal, ILLEGAL_CHOICES)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise Flip7Error(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.players = players
        self.reward_kind: RewardKind = reward
        self.illegal: IllegalChoice = illegal
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.actions = ActionEncoding(players)
        self.observations = ObservationEncoding(players)
        self.possible_agents = [f"player_{s}" for s in range(players)]
        self.agents = self.possible_agents[:]
        self._seat = {agent: s for s, agent in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(
                self.observations.low, self.observations.high, dtype=np.float32
            ),
            "action_mask": spaces.Box(0, 1, (self.actions.size,), dtype=np.int8),
        })  # fmt: skip
        act_space = spaces.Discrete(self.actions.size)
        # One space object per agent, the same every call (PettingZoo checks identity).
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.np_random: np.random.Generator | None = None
        self.game: Game | None = None
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = self.possible_agents[0]
        self._totals: tuple[int, ...] = (0,) * players

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` fixes it (and every game after it until the next seed)."""
        if seed is not None or self.np_random is None:
            self.np_random, _ = seeding.np_random(seed)
        game_seed = int(self.np_random.integers(2**62))
        self.game = Game.new(self.players, self.rules, seed=game_seed, events=False)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._totals = self.game.totals
        self._select()

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        game = self._game()
        seat = self._seat[agent]
        acting = not game.over and game.to_decide == seat
        return {
            "observation": self.observations.encode(game.view(seat)),
            "action_mask": self.actions.mask(game.legal_decisions() if acting else ()),
        }

    def step(self, action: Any) -> None:
        """The selected agent's decision; then the game runs to the next decision."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._game()
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        try:
            decision = self.actions.legal(action, game.legal_decisions())
        except IllegalActionError:
            if self.illegal == "raise":
                raise
            self.rewards[agent] = self.illegal_reward
            self.infos[agent] = {"illegal_action": True}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            return
        game.apply(decision)
        totals = game.totals
        if self.reward_kind == "score":
            for a in self.agents:
                s = self._seat[a]
                self.rewards[a] = float(totals[s] - self._totals[s])
        elif game.over:
            shares = win_shares(game)
            for a in self.agents:
                self.rewards[a] = shares[self._seat[a]]
        self._totals = totals
        if game.over:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``), seen by the agent to act."""
        if self.render_mode is None or self.game is None:
            return None
        return render_view(self.game.view(self._seat[self.agent_selection]))

    def close(self) -> None:
        pass

    def _game(self) -> Game:
        if self.game is None:
            raise GameStateError("call reset() first")
        return self.game

    def _select(self) -> None:
        seat = self._game().to_decide
        assert seat is not None  # not explicit and not over: somebody decides
        self.agent_selection = self.possible_agents[seat]
