"""Bots for the bot-pool tests (tests/server/test_server_bots.py), named as an operator's
``--bot module:Class`` bots are: ``thinking_bots:PidBot`` and so on. They must be
importable in the worker processes, so they live in a module of their own."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any

from flip7.core.decisions import Decision
from flip7.engine.game import Game


class PidBot:
    """Picks a random legal option, and remembers the process of every decision."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "pid"
        self.rng = random.Random(seed)
        self.pids: list[int] = []

    def choose(self, game: Game) -> Decision:
        self.pids.append(os.getpid())
        options = game.legal_decisions()
        return options[self.rng.randrange(len(options))]


class SlowBot(PidBot):
    """Takes :attr:`SECONDS` of wall-clock time (asleep: no CPU) to decide."""

    SECONDS = 0.3

    def choose(self, game: Game) -> Decision:
        time.sleep(self.SECONDS)
        return super().choose(game)


class BusyBot(PidBot):
    """Burns :attr:`SECONDS` of CPU to decide."""

    SECONDS = 0.2

    def choose(self, game: Game) -> Decision:
        start = time.process_time()
        while time.process_time() - start < self.SECONDS:
            pass
        return super().choose(game)


class DieBot(PidBot):
    """Kills its worker process: every time, or once if ``marker`` names a file (made on
    the first death)."""

    def __init__(self, seed: int | None = None, marker: str | None = None) -> None:
        super().__init__(seed)
        self.marker = marker

    def choose(self, game: Game) -> Decision:
        if self.marker is None:
            os._exit(3)
        marker = Path(self.marker)
        if not marker.exists():
            marker.write_text("died")
            os._exit(3)
        return super().choose(game)


class HangBot(PidBot):
    """Never answers in time."""

    def choose(self, game: Game) -> Decision:
        time.sleep(60)
        return super().choose(game)


class FailBot(PidBot):
    """A bot with a bug."""

    def choose(self, game: Game) -> Decision:
        raise ValueError("no idea")


class LocalBot(PidBot):
    """Cannot be pickled (it holds a lambda): it thinks in a thread of the server."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.hook: Any = lambda: None
