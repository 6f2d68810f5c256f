"""The turns that no person takes: a bot's, and a turn timer's that ran out.

After every change the table asks whose turn it is. A seat a bot plays (a bot's own, a
player who left, one handed to the stand-in bot) decides after ``bot_delay`` seconds; a
human's turn at a table with a turn timer is decided by the stand-in bot when the timer
runs out, and so is a bot account's (the bot API) after ``bot_move_seconds``. Bots
think only while some human is connected: a table its humans have all left pauses
(``bots_paused``) until one comes back. Searching bots think in worker processes
(flip7.server.table.thinking) within the table's CPU budget and its owner's.

A turn-based table (``move_hours``) is played by people who come and go: its bots move at
once, whoever is connected, and a human's decision is made by the stand-in bot at the
table's ``deadline`` (set by the change that asked for the decision, stored with it, and
restored with the table: a restart or a takeover keeps the clock).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from typing import Protocol

from flip7.bots import Bot, make_bot
from flip7.core.jsontypes import JSON
from flip7.core.seeds import derive_seed
from flip7.engine.game import Game
from flip7.server.base.settings import Settings
from flip7.server.table.changes import Change, Move, MovedBy
from flip7.server.table.errors import TableError
from flip7.server.table.options import TableState
from flip7.server.table.presence import Presence
from flip7.server.table.seat import Seat
from flip7.server.table.thinking import Owner, Thinking
from flip7.server.table.tutorial import WAIT, Tutorial

__all__ = ["STAND_IN_BOT", "TurnTable", "Turns"]

# Who plays for a human whose turn timer ran out, who left mid-game or who is away.
STAND_IN_BOT = "basic"


class TurnTable(Protocol):
    """A table as :class:`Turns` sees it (flip7.server.table.table.Table)."""

    @property
    def id(self) -> str: ...
    @property
    def lock(self) -> asyncio.Lock: ...
    @property
    def version(self) -> int: ...
    @property
    def state(self) -> TableState: ...
    @property
    def seats(self) -> list[Seat | None]: ...
    @property
    def game(self) -> Game | None: ...
    @property
    def game_id(self) -> str | None: ...
    @property
    def game_seed(self) -> int: ...
    @property
    def bots(self) -> dict[int, Bot]: ...
    @property
    def tutorial(self) -> Tutorial | None: ...
    @property
    def turn_timer(self) -> int | None: ...
    @property
    def move_hours(self) -> int | None: ...
    @property
    def deadline(self) -> float | None: ...
    @property
    def humans_here(self) -> bool: ...
    @property
    def owner(self) -> Owner: ...

    async def change(self, change: Change) -> object:
        """Apply, store and broadcast ``change`` (the lock is held); TableError if refused."""

    def log(self, event: str, **fields: JSON) -> None:
        """Tell the operator's log ``event`` at this table."""


@dataclass(frozen=True, slots=True)
class _Turn:
    """A turn scheduled for a bot (or a turn timer): at which version, after how long."""

    version: int
    delay: float
    by: MovedBy


class Turns:
    """The bot's or turn timer's turn a table waits for, if any."""

    def __init__(
        self, table: TurnTable, presence: Presence, settings: Settings, thinking: Thinking
    ) -> None:
        self.table = table
        self.presence = presence
        self.settings = settings
        self.thinking = thinking
        # When the turn timer runs out (epoch seconds; None: no timer is running).
        self.deadline: float | None = None
        self._task: asyncio.Task[None] | None = None

    def schedule(self) -> None:
        """After a change: let a bot take its turn, or start the turn timer (only now, as
        the game's turn starts: never while a table waits for its players or a rematch),
        and wait for a player who is away."""
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        self._task = None
        self.deadline = None
        turn = self._next()
        self.presence.wait()
        if turn is not None:
            self._task = asyncio.create_task(self._take(turn))

    def _next(self) -> _Turn | None:
        """The turn a bot or the timer takes now, if any; notes a new turn."""
        table = self.table
        game = table.game
        playing = table.state == "playing" and game is not None
        self.presence.turn(table.game_id, game.to_decide if playing and game is not None else None)
        if table.state != "playing" or game is None or game.to_decide is None:
            return None
        place = table.seats[game.to_decide]
        assert place is not None
        if place.played_by_bot:
            if table.move_hours is not None:
                return _Turn(table.version, 0.0, "bot")
            if not table.humans_here:
                self.pause()
                return None
            return _Turn(table.version, self.settings.bot_delay, "bot")
        if table.move_hours is not None:
            deadline = table.deadline
            if deadline is None:  # pragma: no cover - every human decision gets a clock
                return None
            self.deadline = deadline
            return _Turn(table.version, max(0.0, deadline - time.time()), "timer")
        timer: float | None = table.turn_timer
        if place.bot_account:  # an outside program's seat: its move deadline
            seconds = self.settings.bot_move_seconds
            timer = seconds if timer is None else min(timer, seconds)
        if timer is not None:
            self.deadline = round(time.time() + timer, 3)
            return _Turn(table.version, float(timer), "timer")
        return None

    async def _take(self, turn: _Turn) -> None:
        # Even without a delay: let the change that scheduled this finish first.
        await asyncio.sleep(max(0.0, turn.delay))
        table = self.table
        async with table.lock:
            game = table.game
            if table.version != turn.version or game is None or game.to_decide is None:
                return
            seat = game.to_decide
            if turn.by == "bot" and not table.humans_here and table.move_hours is None:
                # the last human went meanwhile
                self.pause()
                return
            scripted = None if table.tutorial is None else table.tutorial.bot_move(game)
            if scripted == WAIT:  # the lesson on screen waits for the player's "Got it"
                return
            if scripted is not None:  # on a tutorial's script: the script's decision
                with contextlib.suppress(TableError):
                    await table.change(Move(seat, scripted, turn.by))
                return
            bot = table.bots.get(seat)
            stand_in_seed = derive_seed("stand-in", table.game_seed, seat)
            if bot is None:
                bot = table.bots[seat] = make_bot(STAND_IN_BOT, stand_in_seed)
            # The lock keeps this table's game still while the bot thinks.
            thought = await self.thinking.decide(
                table.id, bot, game, stand_in_seed, owner=table.owner
            )
            if thought.where != "stand-in":
                table.bots[seat] = thought.bot  # its random state moved on in the worker
            if table.version != turn.version:  # pragma: no cover - the lock prevents it
                return
            with contextlib.suppress(TableError):
                await table.change(Move(seat, thought.decision, turn.by))

    def pause(self) -> None:
        self.table.log("bots_paused", version=self.table.version)

    def resume(self) -> None:
        """A human is back: a bot turn paused for want of one is scheduled again."""
        table = self.table
        if (self._task is None or self._task.done()) and table.humans_here:
            game = table.game
            if table.state == "playing" and game is not None and game.to_decide is not None:
                place = table.seats[game.to_decide]
                if place is not None and place.played_by_bot:
                    table.log("bots_resumed", version=table.version)
                    self.schedule()

    def stop(self) -> None:
        """Take no turn: the table is closed, or thrown away for one rebuilt from its log."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
