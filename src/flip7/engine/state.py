"""The engine's state machine: where a game is (its :class:`Phase`).

Standard library only; imports only :mod:`flip7.core`.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Phase"]


class Phase(Enum):
    """Where the game is."""

    DEAL = "deal"
    TURNS = "turns"
    ROUND_END = "round_end"  # scored (or awaiting the Brutal Flip 7 choice); next deal pending
    OVER = "over"
