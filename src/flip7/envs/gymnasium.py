"""A Gymnasium environment: one seat of a Flip 7 game against bots, ``flip7/Flip7-v0``.

Importing this module (or :mod:`flip7.envs`) registers the id; ``gymnasium.make`` can also
import it itself: ``gymnasium.make("flip7.envs.gymnasium:flip7/Flip7-v0")``. Gymnasium 1.x
loads no plugin entry points, so there is no ``gymnasium.envs`` entry point to declare.

The agent plays seat ``seat`` (0 by default; ``None``: a random seat each episode); the
other seats are bots made from ``opponents`` (bot specs of :func:`flip7.bots.make_bot`: one
spec for all, or one per other seat in seat order). Between two agent decisions the bots
play and the cards are drawn inside :meth:`Flip7Env.step`. Decisions with one legal option
are made by the engine and never reach the agent.

- Actions: ``Discrete(n)`` of :class:`~flip7.envs.encoding.ActionEncoding`; the legal ones
  are ``info["action_mask"]`` (0/1 ``int8``) and :meth:`Flip7Env.action_masks` (``bool``,
  the convention of sb3-contrib's ``MaskablePPO``).
- Observations: the agent seat's vector of :class:`~flip7.envs.encoding.ObservationEncoding`.
- Reward ``"win"`` (default): at the end, 1 to a sole winner, ``1/k`` to each of ``k``
  sharing a win, 0 otherwise, and 0 on every other step. ``"score"``: each step's change of
  the agent's running total, in points (it sums to the final total).
- An illegal action: with ``illegal="terminate"`` (default) the episode ends at once with
  reward ``illegal_reward`` (−1), the game unchanged and ``info["illegal_action"]`` set —
  Gymnasium's ``check_env`` steps unmasked random actions, and PettingZoo's classic games
  treat an illegal move the same way. ``illegal="raise"``: an
  :class:`~flip7.envs.encoding.IllegalActionError` naming the legal actions.
- Seeds: ``reset(seed=s)`` replays the same episode for the same actions (deck order,
  dealer, random seat and bots' own choices all derive from it).

The doctest below needs Gymnasium; tests/envs/test_envs.py runs the library's checks.

>>> import gymnasium
>>> import flip7.envs.gymnasium
>>> env = gymnasium.make("flip7/Flip7-v0", players=3, rules={"target_score": 40})
>>> obs, info = env.reset(seed=1)
>>> obs.shape, int(env.action_space.n), bool(info["action_mask"][0])
((231,), 1599, True)
>>> done = False
>>> while not done:
...     action = int(info["action_mask"].nonzero()[0][0])
...     obs, reward, done, truncated, info = env.step(action)
>>> reward in (0.0, 0.5, 1.0)
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from flip7.bots import Bot, parse_bot_spec
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

__all__ = ["ENV_ID", "Flip7Env", "register"]

ENV_ID = "flip7/Flip7-v0"

Obs = npt.NDArray[np.float32]

# A new deal when a game ends before the agent ever decides (possible only with a tiny
# target score): this many tries, then an error.
_MAX_DEALS = 100


class Flip7Env(gymnasium.Env[Obs, np.int64]):
    """One seat against bots (module doc). ``players`` 3–36 (2 with ``allow_two_players``);
    ``rules``: :class:`Rules` or a mapping of rule options."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012  (Gymnasium's own type)

    def __init__(
        self,
        players: int = 4,
        opponents: str | Sequence[str] = "targeting",
        rules: Rules | Mapping[str, Any] | None = None,
        seat: int | None = 0,
        reward: RewardKind = "win",
        illegal: IllegalChoice = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        self.rules = as_rules(rules)
        problem = players_problem(players, self.rules)
        if problem is not None:
            raise Flip7Error(problem)
        self.players = players
        if seat is not None and not (type(seat) is int and 0 <= seat < players):
            raise Flip7Error(f"seat must be None or a seat from 0 to {players - 1}, got {seat!r}")
        self.seat_choice = seat
        specs = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != players - 1:
            raise Flip7Error(
                f"opponents: give one bot spec, or {players - 1} (one per other seat); "
                f"got {len(specs)}"
            )
        self.opponent_specs = [parse_bot_spec(spec) for spec in specs]
        check_choice("reward", reward, REWARDS)
        check_choice("illegal", illegal, ILLEGAL_CHOICES)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise Flip7Error(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.reward_kind: RewardKind = reward
        self.illegal: IllegalChoice = illegal
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.actions = ActionEncoding(players)
        self.observations = ObservationEncoding(players)
        self.action_space = spaces.Discrete(self.actions.size)
        self.observation_space = spaces.Box(
            self.observations.low, self.observations.high, dtype=np.float32
        )
        self.seat = 0 if seat is None else seat
        self.game: Game | None = None
        self.bots: dict[int, Bot] = {}
        self._total = 0

    # ---------------------------------------------------------------- the Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """A new game, played by the bots up to the agent's first decision."""
        super().reset(seed=seed)
        for _ in range(_MAX_DEALS):
            game_seed = int(self.np_random.integers(2**62))
            rng = random.Random(game_seed)
            self.seat = (
                rng.randrange(self.players) if self.seat_choice is None else self.seat_choice
            )
            others = [s for s in range(self.players) if s != self.seat]
            self.bots = {
                s: spec.make(rng.randrange(2**62))
                for s, spec in zip(others, self.opponent_specs, strict=True)
            }
            self.game = Game.new(self.players, self.rules, seed=game_seed, events=False)
            self._play_bots()
            if not self.game.over:
                self._total = self.game.totals[self.seat]
                return self._observe(), self._info()
        raise GameStateError(
            f"{_MAX_DEALS} games in a row ended before seat {self.seat} had a decision; "
            f"raise the target score ({self.rules.target_score})"
        )

    def step(self, action: Any) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        """Make the agent's decision, let the bots play up to its next one (or the end)."""
        game = self._game()
        if game.over:
            raise GameStateError("the episode is over: call reset() to start another")
        legal = game.legal_decisions()
        try:
            decision = self.actions.legal(action, legal)
        except IllegalActionError:
            if self.illegal == "raise":
                raise
            info = self._info()
            info["illegal_action"] = True
            return self._observe(), self.illegal_reward, True, False, info
        game.apply(decision)
        self._play_bots()
        total = game.totals[self.seat]
        if self.reward_kind == "score":
            reward = float(total - self._total)
        else:
            reward = win_shares(game)[self.seat] if game.over else 0.0
        self._total = total
        return self._observe(), reward, game.over, False, self._info()

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``); None without a render mode."""
        if self.render_mode is None or self.game is None:
            return None
        return render_view(self.game.view(self.seat))

    # ---------------------------------------------------------------- masks

    def action_mask(self) -> npt.NDArray[np.int8]:
        """1 at each legal action of the agent now (all 0 once the game is over)."""
        game = self._game()
        return self.actions.mask(game.legal_decisions() if not game.over else ())

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions as booleans (sb3-contrib ``MaskablePPO`` calls this)."""
        return self.action_mask().astype(bool)

    # ---------------------------------------------------------------- inside

    def _game(self) -> Game:
        if self.game is None:
            raise GameStateError("call reset() before step()")
        return self.game

    def _play_bots(self) -> None:
        game = self._game()
        while not game.over and game.to_decide != self.seat:
            seat = game.to_decide
            assert seat is not None  # not explicit: no card is ever awaited
            game.apply(self.bots[seat].choose(game))

    def _observe(self) -> Obs:
        return self.observations.encode(self._game().view(self.seat))

    def _info(self) -> dict[str, Any]:
        game = self._game()
        return {
            "action_mask": self.action_mask(),
            "seat": self.seat,
            "round": game.round,
            "totals": list(game.totals),
            "winners": list(game.winners),
        }


def register() -> None:
    """Register ``flip7/Flip7-v0`` with Gymnasium (done on import; again is harmless)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="flip7.envs.gymnasium:Flip7Env")


register()
