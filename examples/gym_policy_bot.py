"""A Gymnasium policy as an outside bot: the wiring, not a strong player.

The project's Gymnasium environment (``flip7/Flip7-v0``, docs/envs.md) observes one seat
as ``ObservationEncoding(n).encode(game.view(seat))`` and acts with an index of
``ActionEncoding(n)``, the legal ones given by a mask. Over the bot API
(docs/bot-api.md) the same seat's view comes from the live table: at each decision
:class:`flip7.client.bot_client.BotClient` replays the game's public record into the game
itself, so the observation built here is the very vector the environment would give, and
the action chosen is turned back into the decision text the table takes.

The policy here is a linear layer of random weights over the observation, masked to the
legal actions (an agent trained with the environment, e.g. sb3-contrib's MaskablePPO,
would take its place: ``policy.predict(obs, action_masks=mask)``).

Run it against a server, with a bot account's token::

    python examples/gym_policy_bot.py http://127.0.0.1:8000 --token bot.… --games 1
"""

from __future__ import annotations

import argparse
import asyncio

import numpy as np
import numpy.typing as npt

from flip7.client.bot_client import BotClient
from flip7.engine.game import Game
from flip7.envs.encoding import ActionEncoding, ObservationEncoding


class LinearPolicy:
    """Scores every action index by ``W · observation`` and takes the best legal one."""

    def __init__(self, players: int, seed: int = 0) -> None:
        self.actions = ActionEncoding(players)
        self.observations = ObservationEncoding(players)
        rng = np.random.default_rng(seed)
        self.weights = rng.normal(size=(self.actions.size, self.observations.size))

    def act(self, observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        scores = self.weights @ observation
        scores[mask == 0] = -np.inf
        return int(np.argmax(scores))


def decide(game: Game, policies: dict[int, LinearPolicy], seed: int = 0) -> str:
    """The decision for the seat that must decide in ``game``: observation from its view,
    action from the policy, decision text from the action (as the environment's step)."""
    n = len(game.players)
    policy = policies.setdefault(n, LinearPolicy(n, seed))
    seat = game.to_decide
    assert seat is not None, "asked to decide with nobody to decide"
    observation = policy.observations.encode(game.view(seat))
    mask = policy.actions.mask(game.legal_decisions())
    return str(policy.actions.decision(policy.act(observation, mask)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url")
    parser.add_argument("--token", required=True)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    policies: dict[int, LinearPolicy] = {}
    client = BotClient(args.url, args.token, lambda game: decide(game, policies, args.seed),
                       games=args.games)
    print(f"{asyncio.run(client.run())} game(s) played")


if __name__ == "__main__":
    main()
