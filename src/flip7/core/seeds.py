"""Seeds: every random choice flip7 makes outside a game comes from one of these.

A game shuffles with ``random.Random(seed)``; simulations, tournaments and the server derive
the seeds of their games and bots here, so the same run gives the same games on every
machine.
"""

from __future__ import annotations

import hashlib

__all__ = ["bot_seed", "derive_seed", "game_seed"]


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from ``parts``, stable across runs, platforms and Python versions.

    Hashing the parts (rather than, say, ``seed + index``) keeps the games of nearby
    seeds unrelated: seed 1's second game is not seed 2's first.

    >>> derive_seed("game", 7, 1) == derive_seed("game", 7, 1) != derive_seed("game", 7, 2)
    True
    """
    text = "/".join(str(part) for part in ("flip7", *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def game_seed(seed: int, index: int) -> int:
    """The shuffle seed of game ``index`` (1-based) of a run seeded with ``seed``."""
    return derive_seed("game", seed, index)


def bot_seed(seed: int, index: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in game ``index`` of a run seeded with ``seed``."""
    return derive_seed("bot", seed, index, seat)
