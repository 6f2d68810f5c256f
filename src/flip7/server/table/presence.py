"""Players who go away: the hand-over of a seat to the stand-in bot, and the rematch that
goes on without those gone.

A human is *away* while no socket of theirs is connected. Away on their turn, others may
hand their seat to the stand-in bot after ``handover_grace`` seconds (a ``stand_in``
change, flip7.server.table.changes.HandOver), and the server does it itself after
``handover_auto``; the seat is theirs again when they reconnect. At a turn-based table
being away is normal (each decision has its ``move_hours``, flip7.server.table.turns): the
server hands nobody over, and the others may once the player has missed
:data:`HANDOVER_MISSES` decisions in a row. At the end screen a
player away for ``rematch_wait`` is *gone*: the next game starts without them once every
human staying is ready. Times are on the lobby's clock (tests move it by hand); clients are
sent epoch seconds.

Only while some human is here: bots and timers do not play on at a table its humans left.

A table is *attended* once a seated human has connected to it. A table made by REST that
nobody has opened yet is not (flip7.server.table.expiry closes those sooner, and only so
many of them are kept); once attended it stays so, also when its humans go away: a person
may wait days for friends at a table they opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable
from typing import Protocol

from flip7.core.jsontypes import JSONObject
from flip7.core.rules import Rules, players_problem
from flip7.engine.game import Game
from flip7.server.base.formats import dumps
from flip7.server.base.settings import Settings
from flip7.server.table.changes import Change, HandOver
from flip7.server.table.errors import TableError
from flip7.server.table.events import Gone
from flip7.server.table.options import MAX_SEATS, TableState
from flip7.server.table.seat import Seat

__all__ = ["HANDOVER_MISSES", "AwayTable", "Presence"]

HANDOVER_MISSES = 3
"""At a turn-based table: decisions missed in a row after which the others may hand a
seat to the stand-in bot."""

# A seat nobody holds, as clients see it.
_EMPTY_SEAT: JSONObject = {
    "name": None, "kind": "empty", "bot": None, "player_id": None, "left": False,
    "connected": False, "stand_in": False, "away_since": None, "handover_at": None,
    "ready": None, "gone": False,
}  # fmt: skip


class AwayTable(Protocol):
    """A table as :class:`Presence` sees it (flip7.server.table.table.Table)."""

    @property
    def seats(self) -> list[Seat | None]: ...
    @property
    def state(self) -> TableState: ...
    @property
    def game(self) -> Game | None: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def version(self) -> int: ...
    @property
    def closed(self) -> bool: ...
    @property
    def lock(self) -> asyncio.Lock: ...
    @property
    def humans_here(self) -> bool: ...
    @property
    def move_hours(self) -> int | None: ...

    def seat_of(self, place: Seat) -> int:
        """The seat number ``place`` holds (ValueError: none)."""

    def broadcast(self, version: int, events: str) -> None:
        """Send every client ``events`` (their JSON list) as an update of ``version``."""

    async def change(self, change: Change) -> object:
        """Apply, store and broadcast ``change`` (the lock is held); TableError if refused."""

    async def rematch_if_ready(self) -> object:
        """Start the next game if every human staying is ready (the lock is held)."""


class Presence:
    """When the players of a table went away, and what the table does about it."""

    def __init__(
        self, table: AwayTable, settings: Settings, clock: Callable[[], float]
    ) -> None:
        self.table = table
        self.settings = settings
        self.clock = clock
        # When the seat to decide got its turn (and which game and seat that was), and when
        # the last game ended.
        self.turn_since = self.over_since = clock()
        self._turn: tuple[str | None, int | None] = (None, None)
        # The task that waits for an away player: the hand-over to the stand-in bot while
        # playing, the rematch going on without them at the end screen.
        self._task: asyncio.Task[None] | None = None
        # Whether a seated human has connected (see the module). A table rebuilt from its
        # log (a restart, a takeover) is: connections are not stored, and a person's table
        # must not be closed sooner because the server restarted. The lobby clears it for
        # a table it creates.
        self.attended = True

    def turn(self, game_id: str | None, seat: int | None) -> None:
        """The turn is ``seat``'s in game ``game_id`` (None: nobody's): a new turn means a
        player away is away from now on."""
        if (game_id, seat) != self._turn:
            self._turn = (game_id, seat)
            self.turn_since = self.clock()

    def game_over(self) -> None:
        """The game just ended (or ended as it started): the end screen counts from now."""
        self.over_since = self.clock()

    # ------------------------------------------------------------------ reading

    def epoch(self, moment: float) -> float:
        """A moment of the lobby's clock as epoch seconds, the time clients read."""
        return round(time.time() + moment - self.clock(), 3)

    def away_since(self, place: Seat) -> float | None:
        """Since when the player whose turn it is has been away: the later of the turn's
        start and their disconnect. None unless ``place`` is a human's (who has not left,
        whose seat no bot plays) whose turn it is, and disconnected."""
        table = self.table
        game = table.game
        if table.state != "playing" or game is None or game.to_decide is None:
            return None
        if table.seats[game.to_decide] is not place or place.played_by_bot or place.connected:
            return None
        return max(self.turn_since, place.away_from)

    def gone_at(self, place: Seat) -> float | None:
        """At the end screen: when the disconnected player of ``place`` is dropped from the
        next game, ``rematch_wait`` after the later of the game's end and their disconnect.
        None for a bot, a player who left, or one connected."""
        if self.table.state != "over" or place.kind != "human" or place.left or place.connected:
            return None
        return max(self.over_since, place.away_from) + self.settings.rematch_wait

    def gone(self, place: Seat, now: float) -> bool:
        """Whether the next game starts without ``place``: its player left, or has been
        away from the end screen for ``rematch_wait``."""
        if self.table.state != "over" or place.kind != "human":
            return False
        at = self.gone_at(place)
        return place.left or (at is not None and now >= at)

    def seat_json(self, seat: int, place: Seat | None, now: float) -> JSONObject:
        """Seat number ``seat`` as clients see it: what holds it (:meth:`Seat.to_json`),
        with whether its player is away on their turn (and from when the others may hand
        it over) and, at the end screen, whether it is ready for the next game or gone."""
        if place is None:
            return {"seat": seat, **_EMPTY_SEAT}
        data = place.to_json(seat)
        since = self.away_since(place)
        data["away_since"] = None if since is None else self.epoch(since)
        if self.table.move_hours is not None:  # turn-based: after missed decisions only
            handover = since if place.missed >= HANDOVER_MISSES else None
        else:
            handover = None if since is None else since + self.settings.handover_grace
        data["handover_at"] = None if handover is None else self.epoch(handover)
        over = self.table.state == "over"
        data["ready"] = (place.kind == "bot" or place.ready) if over else None
        data["gone"] = self.gone(place, now)
        return data

    def check_handover(self, place: Seat, by: Seat) -> None:
        """Whether the player of ``by`` may hand ``place`` to the stand-in bot now: its
        player away on their turn for ``handover_grace``. Refused (TableError): ``by``'s
        own seat (403), ``no_game``, ``not_away`` (connected, not their turn, or a bot plays
        it already) and ``too_soon`` (with the seconds to wait) (409)."""
        if place is by:
            raise TableError(
                "forbidden", "you cannot hand your own seat to a bot; leave the table "
                "(POST /leave) to let a bot play it for the rest of the game", 403,
            )
        if self.table.state != "playing" or self.table.game is None:
            raise TableError("no_game", "there is no game in play at this table", 409)
        if place.played_by_bot:
            raise TableError("not_away", f"a bot already plays {place.name}'s seat", 409)
        since = self.away_since(place)
        if since is None:
            why = "is connected" if place.connected else "is not the one to decide"
            raise TableError(
                "not_away", f"{place.name} {why}: a seat is handed over only while its "
                "player is away on their turn", 409,
            )
        if self.table.move_hours is not None:
            if place.missed < HANDOVER_MISSES:
                raise TableError(
                    "too_soon", f"{place.name} has missed {place.missed} decisions in a row; "
                    f"at a turn-based table a seat is handed to a bot after {HANDOVER_MISSES}",
                    409,
                )
            return
        grace = self.settings.handover_grace
        wait = since + grace - self.clock()
        if wait > 0:
            raise TableError(
                "too_soon", f"{place.name} has been away for less than {grace:g} seconds; "
                f"try again in {max(1, math.ceil(wait))} seconds", 409, retry_after=wait,
            )

    def rematch_plan(self, now: float) -> tuple[list[int], str | None]:
        """At the end screen: the seats the next game drops (players who left or are
        gone), and why the seats staying cannot play it (too few), or None."""
        seats = self.table.seats
        drop = [i for i, s in enumerate(seats) if s is not None and self.gone(s, now)]
        staying = sum(1 for s in seats if s is not None) - len(drop)
        problem = players_problem(staying, self.table.rules, most=MAX_SEATS)
        if problem is None:
            return drop, None
        return drop, f"the next game cannot start: {problem} once those gone are dropped"

    def rematch_ready(self, now: float) -> bool:
        """Whether every human staying for the next game (one at least) is ready."""
        staying = [
            s for s in self.table.seats
            if s is not None and s.kind == "human" and not self.gone(s, now)
        ]
        return bool(staying) and all(s.ready for s in staying)

    # ------------------------------------------------------------------ waiting

    def wait(self) -> None:
        """After a change, or a connection came or went: wait for a player who is away.
        While playing, the seat to decide is handed to the stand-in bot ``handover_auto``
        after its player went away; at the end screen, the ready check goes on without a
        player once they are gone. A seated human's first socket brings it here too: the
        table is attended from then on."""
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        self._task = None
        table = self.table
        if table.humans_here:
            self.attended = True
        game = table.game
        if table.closed or game is None or not table.humans_here:
            return
        now = self.clock()
        if table.state == "playing" and game.to_decide is not None and table.move_hours is None:
            place = table.seats[game.to_decide]
            since = None if place is None else self.away_since(place)
            if since is not None:
                delay = since + self.settings.handover_auto - now
                self._task = asyncio.create_task(
                    self._hand_over(table.version, game.to_decide, max(0.0, delay))
                )
        elif table.state == "over":
            waiting = [s for s in table.seats if s is not None and not self.gone(s, now)]
            times = [at for at in map(self.gone_at, waiting) if at is not None]
            if times:
                self._task = asyncio.create_task(
                    self._go_on_without(waiting, max(0.0, min(times) - now))
                )

    def stop(self) -> None:
        """Stop waiting: the table is closed, or thrown away for one rebuilt from its log."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _hand_over(self, version: int, seat: int, delay: float) -> None:
        await asyncio.sleep(delay)
        table = self.table
        async with table.lock:
            place = table.seats[seat] if seat < len(table.seats) else None
            if table.closed or table.version != version or place is None:
                return
            if self.away_since(place) is None or not table.humans_here:
                return
            with contextlib.suppress(TableError):  # not stored: the table was reloaded
                await table.change(HandOver(seat=seat, by=None))

    async def _go_on_without(self, waiting: list[Seat], delay: float) -> None:
        await asyncio.sleep(delay)
        table = self.table
        async with table.lock:
            if table.closed or table.state != "over":
                return
            now = self.clock()
            gone = [s for s in waiting if s in table.seats and self.gone(s, now)]
            with contextlib.suppress(TableError):  # not stored: the table was reloaded
                await table.rematch_if_ready()
            if table.closed or table.state != "over":
                return  # the next game started without them
            if gone:  # not versioned: being gone is a matter of time, not a change
                table.broadcast(
                    table.version, dumps([Gone(table.seat_of(s)).to_json() for s in gone])
                )
            self.wait()

