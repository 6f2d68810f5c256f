"""The same games for the same seed: a fingerprint of seeded games played by the engine and
the ``basic`` and ``random`` bots (8 workloads, up to 18 players, Brutal mode, cross-type
Swaps and other options; events off and on), against the one this version gives.

Speed work on the engine and the bots keeps seeded games as they were (records, replays,
tournaments and the README's figures depend on it). A change that means to alter them
updates ``EXPECTED`` and says why in its commit: print the new one with
``python tests/engine/test_seeded_games.py``.
"""

from __future__ import annotations

import hashlib

from flip7.bots import make_bot
from flip7.core.rules import Rules
from flip7.core.seeds import bot_seed, game_seed
from flip7.engine.game import Game

WORKLOADS: list[tuple[int, str, Rules]] = [
    (4, "basic", Rules()),
    (4, "random", Rules()),
    (6, "basic", Rules()),
    (6, "random", Rules()),
    (18, "basic", Rules()),
    (18, "random", Rules()),
    (5, "basic", Rules(brutal=True, pass_actions=True, swap_allow_cross_type=True)),
    (5, "random", Rules(brutal=True, lucky13_pair_flip7_count=1,
                        unlucky7_triggers_on_transfer=False, pass_actions=True)),
]  # fmt: skip
GAMES = 8  # per workload, events off and on

EXPECTED = "4bf444e59850cd0f87e1f02836dcd5cef2767c39e3a96109ce179291fc6804ab"


def fingerprint() -> str:
    total = hashlib.sha256()
    for players, bot, rules in WORKLOADS:
        for events in (False, True):
            for i in range(1, GAMES + 1):
                bots = [make_bot(bot, bot_seed(0, i, s)) for s in range(players)]
                game = Game.new(players, rules, seed=game_seed(0, i), events=events)
                game.play(bots)
                played = (game.totals, game.round, game.winners, game.draws, game.decisions)
                total.update(repr(played).encode())
                if events:
                    total.update(repr(game.take_events()).encode())
    return total.hexdigest()


def test_seeded_games_are_the_same_games() -> None:
    assert fingerprint() == EXPECTED, (
        "seeded games changed: if that is meant, set EXPECTED to the new fingerprint and say "
        "why in the commit (python tests/engine/test_seeded_games.py prints it)"
    )


if __name__ == "__main__":
    print(fingerprint())
