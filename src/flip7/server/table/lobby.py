"""Tables: seats, games, bots and turn timers, with one writer per table.

Every change to a table (a seat taken, a bot added, a game started, a decision) is made
under the table's lock in three steps: check it and apply it in memory, store it (the
change log, :mod:`flip7.server.store.database`), then broadcast it. Clients never see a change
that is not stored. If the store refuses a write, the table is rebuilt from the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from flip7.bots import LEVELS, Bot, Level, bot_names, level_named, make_bot, parse_bot_spec
from flip7.core.decisions import Decision
from flip7.core.errors import DecisionError, Flip7Error, RulesError
from flip7.core.events import Event
from flip7.core.rules import ONE_DECK_MAX_PLAYERS, Rules, players_problem
from flip7.core.seeds import derive_seed
from flip7.engine.game import Game
from flip7.engine.record import Record
from flip7.server.base.errors import ServerError
from flip7.server.base.limits import AddressBudget
from flip7.server.base.names import BadName, clean, taken_by
from flip7.server.base.settings import Settings
from flip7.server.services.ratings import rated_by_default
from flip7.server.store.database import (
    Operation,
    Store,
    StoredGame,
    StoreError,
    TableRow,
    dumps,
    iso,
    utcnow,
)
from flip7.server.table.chat import ChatEntry, ChatLog, ChatRefused, clean_chat
from flip7.server.table.expiry import Expiry, closed_message
from flip7.server.table.thinking import Thinking, over_ceiling
from flip7.server.table.tutorial import SCRIPTS, WAIT, Tutorial, for_start
from flip7.server.table.views import seat_view

__all__ = ["Client", "Lobby", "Seat", "Table", "TableError", "hash_token", "level_seat_name"]

log = logging.getLogger("flip7.server")

TableState = Literal["waiting", "playing", "over"]

# Who plays for a human whose turn timer ran out or who left mid-game.
STAND_IN_BOT = "basic"
DEFAULT_SEATS = 4
MAX_TIMER = 600
MAX_SEATS = ONE_DECK_MAX_PLAYERS  # a table plays with one deck (RULES.md §1.3)
# Move ids remembered per seat for idempotent retries.
REMEMBERED_MOVES = 512
# Versioned changes a table holds (and a welcome's ``history`` carries): those of its
# current game, from its game_started on. A game to the default 200 points has about 100
# changes with 3 players and at most about 750 with 18 (basic bots, measured); only a game
# to a far higher target_score can pass this, and then its first changes are not held.
HISTORY = 5000


_NO_VIEWER = '{"viewer":null,'


def _decider_view(game: Game, seat: int, bust_odds: bool = True) -> dict[str, Any]:
    """The view of the seat that must decide, with its bust risk at a Hit or Stay unless
    the table plays without bust odds (``bust_odds`` False: the risk is never sent). Built
    by :func:`flip7.server.table.views.seat_view`, as a seat's replay builds it."""
    return seat_view(game, seat, bust_odds)


def level_seat_name(level: Level, taken: Iterable[str]) -> str:
    """The seat name of a new bot of ``level``: "Mia (Medium bot)", with the first of the
    level's first names that no seated name looks like (a human called Mia keeps hers),
    then "Mia 2 (Medium bot)" and so on once all are in use.

    >>> from flip7.bots import DEFAULT_LEVEL
    >>> level_seat_name(DEFAULT_LEVEL, ["Ann", "mia"])
    'Max (Medium bot)'
    """
    names = list(taken)
    suffix = f" ({level.name} bot)"
    number = 1
    while True:
        for first in level.names:
            called = first if number == 1 else f"{first} {number}"
            if taken_by(called, names) is None and taken_by(called + suffix, names) is None:
                return called + suffix
        number += 1


class TableError(ServerError):
    """A request the table refuses: ``code`` names why, ``status`` is the HTTP status."""


def spend(budget: AddressBudget, address: str | None, what: str, limit: str) -> None:
    """Take one of ``address``'s tokens of ``budget`` (the limit named ``limit``), or refuse
    with 429 ``rate_limited`` and how long to wait. ``None`` is the server's own call."""
    if address is None or budget.take(address):
        return
    wait = budget.retry_after(address)
    raise TableError(
        "rate_limited",
        f"too many {what} from your address: at most {budget.rate * 60:g} a minute "
        f"({budget.burst:g} at once, limit {limit}); try again in "
        f"{max(1, math.ceil(wait))} seconds",
        429,
        retry_after=wait,
    )


def _not_stored(what: str) -> TableError:
    return TableError("server_error", f"{what} could not be stored; try again", 503)


def hash_token(token: str) -> str:
    """What the store keeps of a seat token: its SHA-256, never the token."""
    return hashlib.sha256(token.encode()).hexdigest()


def clean_name(value: str, what: str, limit: int) -> str:
    """A display name as :func:`flip7.server.base.names.clean` makes it (white space collapsed,
    at most ``limit`` characters counted in code points, refused rather than cut), or
    ``bad_name`` (400) saying what is wrong."""
    try:
        return clean(value, what, limit)
    except BadName as exc:
        raise TableError("bad_name", str(exc)) from None


class Owners(Protocol):
    """What the lobby and its tables ask of the cluster of processes they are part of
    (flip7.server.cluster.node.Cluster)."""

    dirty: set[str]

    async def start(self) -> None: ...
    async def close(self) -> None: ...
    async def drop(self, table: Table, why: str) -> None: ...
    async def claim_new(self, table_id: str) -> int: ...


class Client(Protocol):
    """A connected browser tab (or spectator) as a table sees it."""

    seat: Seat | None

    def push(self, message: str) -> None:
        """Queue ``message`` for sending; never blocks."""

    def close(self, code: int) -> None:
        """Close the connection with ``code`` once what is queued has been sent."""


@dataclass(frozen=True, slots=True)
class RememberedMove:
    """A human's move as its id remembers it: a retry must carry the same version and
    decision to get the same answer."""

    version: int
    decision: str
    after: int


@dataclass(eq=False)
class Seat:
    """A seat at a table: a human (with a token) or a bot."""

    name: str
    kind: Literal["human", "bot"]
    bot: str | None = None
    token_hash: str | None = None
    # The identity the seat was taken with (flip7.server.services.players), or None: anonymous.
    player_id: str | None = None
    left: bool = False  # a human who left mid-game; a bot plays the seat
    connections: int = 0
    # The stand-in bot plays the seat while its player is away (handed over by another
    # player, or by the server after handover_auto), until they reconnect.
    stand_in: bool = False
    # At the end screen: ready for the next game (a bot always is). Cleared at a start.
    ready: bool = False
    # On the lobby's clock: since when no socket of this seat is connected.
    away_from: float = 0.0
    # Move id -> the move made under it in the current game, for answering retries. Cleared
    # when a game starts: a client may number its moves afresh in every game.
    moves: OrderedDict[str, RememberedMove] = field(default_factory=OrderedDict)

    @property
    def played_by_bot(self) -> bool:
        return self.kind == "bot" or self.left or self.stand_in

    @property
    def connected(self) -> bool:
        return self.kind == "bot" or self.connections > 0

    def to_json(self, index: int) -> dict[str, Any]:
        """The seat as every client sees it; the table adds what depends on its turn and
        its state (:meth:`Table.seat_json`)."""
        return {
            "seat": index,
            "name": self.name,
            "kind": self.kind,
            "bot": self.bot,
            "player_id": self.player_id,
            "left": self.left,
            "connected": self.connected,
            "stand_in": self.stand_in,
        }

    def remember(self, move_id: str, version: int, decision: str, after: int) -> None:
        """Remember that ``move_id`` was ``decision`` made against ``version``, which led
        to version ``after``."""
        self.moves[move_id] = RememberedMove(version, decision, after)
        if len(self.moves) > REMEMBERED_MOVES:
            self.moves.popitem(last=False)


class Table:
    """One table: its seats, its current game and its connected clients."""

    def __init__(
        self,
        lobby: Lobby,
        table_id: str,
        name: str,
        created_at: datetime,
        max_seats: int,
        rules: Rules,
        turn_timer: int | None,
        bust_odds: bool = True,
        rated: bool = False,
    ) -> None:
        self.lobby = lobby
        self.id = table_id
        self.name = name
        self.created_at = created_at
        self.max_seats = max_seats
        self.rules = rules
        self.turn_timer = turn_timer
        # Whether the seat that must Hit or Stay is told its bust risk (a table option).
        self.bust_odds = bust_odds
        # Whether its finished games change ratings (flip7.server.services.ratings; a table option).
        self.rated = rated
        self.version = 0
        self.state: TableState = "waiting"
        self.seats: list[Seat | None] = [None] * max_seats
        self.game: Game | None = None
        self.game_id: str | None = None
        self.game_seed = 0
        self.game_number = 0
        self.game_started_at: datetime | None = None
        self.finished_games: list[str] = []
        self.bots: dict[int, Bot] = {}
        self.clients: set[Client] = set()
        self.lock = asyncio.Lock()
        # (version, its events as JSON): strings, which the garbage collector never scans.
        # Cleared when a game starts: it holds the current game's changes (flip7.server.table.chat
        # keeps the chat, which has no versions).
        self.history: deque[tuple[int, str]] = deque(maxlen=HISTORY)
        self.chat = ChatLog(lobby.settings.chat_history)
        self.turn_deadline: float | None = None
        self._task: asyncio.Task[None] | None = None
        # Players who go away, on the lobby's clock: when the seat to decide got its turn
        # (and which game and seat that was), when the last game ended, and the task that
        # waits for an away player (the hand-over to the stand-in bot while playing, the
        # rematch going on without them at the end screen).
        self.turn_since = self.over_since = lobby.clock()
        self._turn_key: tuple[str | None, int | None] = (None, None)
        self._away_task: asyncio.Task[None] | None = None
        # Expiry (flip7.server.table.expiry), on the lobby's clock: when a person last changed
        # the table, and when a seated human was last connected to it.
        self.touched = self.human_seen = lobby.clock()
        # Set once the table is closed: stored as history, gone from the lobby.
        self.closed = False
        # A guided first game's lessons (flip7.server.table.tutorial), for the current game; a
        # private table is not in the lobby's list (a tutorial's).
        self.tutorial: Tutorial | None = None
        self.private = False
        # The fencing token this process runs the table under (flip7.server.cluster.node): every
        # write carries it, and the database refuses it once another process took the table
        # over. None with one process.
        self.fence: int | None = None

    # ------------------------------------------------------------------ reading

    def seat_of(self, token: str | None) -> Seat:
        """The seat whose token this is; raises ``unauthorized``."""
        if token:
            digest = hash_token(token)
            for seat in self.seats:
                if seat is not None and seat.token_hash is not None and secrets.compare_digest(
                    seat.token_hash, digest
                ):
                    return seat
        raise TableError(
            "unauthorized", "this request needs the token of a seat at this table", 401
        )

    def index(self, seat: Seat) -> int:
        return self.seats.index(seat)

    def summary(self) -> dict[str, Any]:
        now = self.lobby.clock()
        return {
            "id": self.id,
            "name": self.name,
            "state": self.state,
            "seats": [self.seat_json(i, seat, now) for i, seat in enumerate(self.seats)],
            "rules": self.rules.to_json(),
            "turn_timer": self.turn_timer,
            "bust_odds": self.bust_odds,
            "rated": self.rated,
            "created_at": iso(self.created_at),
            "game_number": self.game_number,
        }

    def state_json(self, viewer: Seat | None = None) -> dict[str, Any]:
        """The table as ``viewer`` (None: a spectator) sees it."""
        state: dict[str, Any] = json.loads(self._state_texts([viewer])[viewer])
        return state

    def _state_texts(self, viewers: Iterable[Seat | None]) -> dict[Seat | None, str]:
        """The table as JSON text for each viewer. The parts all viewers share are encoded
        once: this runs for every client after every move."""
        base = self.summary()
        base["version"] = self.version
        base["game_id"] = self.game_id
        base["turn_deadline"] = self.turn_deadline
        base["finished_games"] = list(self.finished_games)
        base["chat"] = {"host": self.host, "spectators": self.chat.spectators}
        base["rematch_problem"] = (
            self.rematch_plan(self.lobby.clock())[1] if self.state == "over" else None
        )
        base["tutorial"] = (
            None if self.tutorial is None or self.game is None else self.tutorial.to_json(self.game)
        )
        head = dumps(base)[:-1] + ',"game":'
        game = self.game
        if game is None:
            text = head + "null}"
            return {viewer: text for viewer in viewers}
        public = dumps(game.view(None).to_json())
        assert public.startswith(_NO_VIEWER)
        rest = public[len(_NO_VIEWER):]
        decider = game.to_decide
        decider_view: str | None = None  # worked out once, for all of that seat's sockets
        out: dict[Seat | None, str] = {}
        for viewer in viewers:
            seat = None if viewer is None else self._game_seat(viewer)
            if seat is None:
                view = public
            elif seat == decider:
                if decider_view is None:
                    decider_view = dumps(_decider_view(game, seat, self.bust_odds))
                view = decider_view
            else:
                view = f'{{"viewer":{seat},{rest}'
            out[viewer] = head + view + "}"
        return out

    def _game_seat(self, seat: Seat) -> int | None:
        if self.game is None:
            return None
        try:
            return self.seats.index(seat)
        except ValueError:
            return None

    # ------------------------------------------------------------------ messages

    def broadcast(self, version: int, events: str) -> None:
        """Send every client the update of ``version``; ``events`` is their JSON list."""
        if self.lobby.cluster is not None:  # the lobby's list may show it differently now
            self.lobby.cluster.dirty.add(self.id)
        clients = list(self.clients)
        if not clients:
            return
        texts = self._state_texts({c.seat for c in clients})
        head = f'{{"v":1,"type":"update","version":{version},"events":{events},"table":'
        messages = {seat: head + text + "}" for seat, text in texts.items()}
        for client in clients:
            client.push(messages[client.seat])

    def history_text(self) -> str:
        """Every change held (the current game's, from its game_started on) as the JSON
        text of a list of ``{"version", "events"}``: the events are kept as text already."""
        return "[" + ",".join(
            f'{{"version":{v},"events":{e}}}' for v, e in self.history
        ) + "]"

    def missed(self, since: int | None) -> list[dict[str, Any]] | None:
        """The events after version ``since``, if they are all still held."""
        if since is None:
            return None
        if since >= self.version:
            return []
        if not self.history or self.history[0][0] > since + 1:
            return None
        return [{"version": v, "events": json.loads(e)} for v, e in self.history if v > since]

    # ------------------------------------------------------------------ changes

    async def change(
        self,
        kind: str,
        data: dict[str, Any],
        extra: list[Operation] | None = None,
        before: list[Operation] | None = None,
        *,
        decision: Decision | None = None,
    ) -> str:
        """Apply one change (the lock is held), store it, then broadcast it.

        ``before`` and ``extra`` are stored in the same transaction (the table's own row,
        a new game's row). A move's ``decision`` goes to the engine typed, while ``data``
        (stored and logged) holds its canonical text; the engine judges whether it is
        legal: :class:`~flip7.core.errors.DecisionError` if not, with nothing changed."""
        if self.closed:  # a request that waited for the lock while the table was closed
            raise self.lobby.closed_error(self)
        events = self.apply(kind, data, decision)
        version = self.version
        if kind != "move" or data.get("by") == "human":  # bots and timers keep nothing open
            self.touched = self.lobby.clock()
        now = utcnow()
        operations: list[Operation] = [
            *(before or []),
            ("log_insert", {"table_id": self.id, "seq": version, "kind": kind,
                            "data": dumps(data), "created_at": now, "fence": self.fence}),
            ("table_update", {"b_id": self.id, "b_version": version, "b_state": self.state,
                              "b_at": now, "b_fence": self.fence}),
            *(extra or []),
        ]
        finishing = kind == "move" and self.game is not None and self.game.over
        if finishing:
            operations.append(self._finish_operation())
        try:
            await self.lobby.store.write(operations)
        except StoreError:
            if before:  # the table itself was not stored
                raise _not_stored("the table") from None
            await self.lobby.reload(self)
            raise _not_stored("the change") from None
        self.lobby.log_event(kind, self, version=version, **_loggable(data))
        if finishing and self.game_id is not None and self.lobby.on_finish is not None:
            # Ratings and statistics (flip7.server.services.ratings), before the end screen asks.
            await self.lobby.on_finish(self.game_id)
        self.schedule()  # first: the broadcast carries the turn deadline
        self.broadcast(version, events)
        return events

    def apply(self, kind: str, data: dict[str, Any], decision: Decision | None = None) -> str:
        """Apply a change to the in-memory table (live, or replaying the log on restart);
        returns its events as JSON. A live move brings its ``decision`` typed; a move
        replayed from the log has only its stored text, ``data["decision"]``."""
        events: list[dict[str, Any]]
        if kind == "join":
            seat = Seat(name=data["name"], kind="human", token_hash=data["token"],
                        player_id=data.get("player"), away_from=self.lobby.clock())
            self.seats[data["seat"]] = seat
            self.private = self.private or bool(data.get("private"))
            events = [{"type": "seat_taken", "seat": data["seat"], "name": seat.name,
                       "kind": "human"}]
        elif kind == "bot":
            self.seats[data["seat"]] = Seat(name=data["name"], kind="bot", bot=data["bot"])
            events = [{"type": "seat_taken", "seat": data["seat"], "name": data["name"],
                       "kind": "bot"}]
        elif kind == "remove":
            self.seats[data["seat"]] = None
            events = [{"type": "seat_left", "seat": data["seat"]}]
        elif kind == "leave":
            seat = self.seats[data["seat"]]
            assert seat is not None
            seat.left = True
            events = [{"type": "seat_left", "seat": data["seat"]}]
        elif kind in ("stand_in", "returned", "ready"):
            events = [self._seat_change(kind, data)]
        elif kind == "start":
            events = self._start(data)
        elif kind == "move":
            events = self._move(data, decision)
        elif kind == "tutorial":  # a lesson read, or the tutorial skipped
            assert self.tutorial is not None
            events = self.tutorial.apply(data)
        else:  # pragma: no cover - the log only holds the kinds above
            raise ValueError(f"unknown change {kind!r}")
        self.version += 1
        text = dumps(events)
        self.history.append((self.version, text))
        return text

    def _seat_change(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        """A player away handed to the stand-in bot (``by`` the seat that did, None: the
        server), back, or ready (or not) for the next game."""
        seat = self.seats[data["seat"]]
        assert seat is not None
        if kind == "stand_in":
            seat.stand_in = True
            return {"type": "stand_in", "seat": data["seat"], "by": data.get("by")}
        if kind == "returned":
            seat.stand_in = False
            return {"type": "returned", "seat": data["seat"]}
        seat.ready = bool(data["ready"])
        return {"type": "ready", "seat": data["seat"], "ready": seat.ready}

    def _start(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        dropped: list[str] = []
        if self.state == "waiting":
            self.seats = [seat for seat in self.seats if seat is not None]
        elif data.get("drop"):
            # A rematch goes on without the players who left or were gone (the ready
            # check): their tokens hold no seat from now on.
            drop = set(data["drop"])
            dropped = [s.name for i, s in enumerate(self.seats) if s is not None and i in drop]
            self.seats = [s for i, s in enumerate(self.seats) if i not in drop]
        if self.game_id is not None and self.game_id not in self.finished_games:
            self.finished_games.insert(0, self.game_id)
        self.game_id = data["game"]
        self.game_seed = data["seed"]
        self.game_number += 1
        self.game_started_at = datetime.fromisoformat(data["at"])
        names = [seat.name for seat in self.seats if seat is not None]
        self.tutorial = for_start(data)  # a guided first game: its deck order and lessons
        if self.tutorial is None:
            game = Game.new(names, self.rules, seed=self.game_seed)
            dealt = game.take_events()
        else:
            game, dealt = self.tutorial.script.new_game(names, self.rules, self.game_seed)
        self.game = game
        self.bots = {}
        for index, seat in enumerate(self.seats):
            if seat is not None:
                # Move ids belong to one game: a rematch's "m1" is a new move, not a retry.
                seat.moves.clear()
                # So do the ready check and a stand-in: the player decides again.
                seat.ready = seat.stand_in = False
            if seat is not None and seat.kind == "bot" and seat.bot is not None:
                self.bots[index] = make_bot(seat.bot, derive_seed("bot", self.game_seed, index))
        self.state = "over" if game.over else "playing"
        self.over_since = self.lobby.clock()
        self.history.clear()
        started: dict[str, Any] = {
            "type": "game_started", "game_id": self.game_id, "number": self.game_number
        }
        if dropped:
            started["dropped"] = dropped
        return [started, *(e.to_json() for e in dealt)]

    def _move(self, data: dict[str, Any], decision: Decision | None) -> list[dict[str, Any]]:
        game = self.game
        assert game is not None
        # The engine checks legality (the one check) before it changes anything.
        happened: list[Event] = game.apply(data["decision"] if decision is None else decision)
        events = [e.to_json() for e in happened]
        if data.get("by") == "timer":
            events.insert(0, {"type": "timeout", "seat": data["seat"]})
        if data.get("id") is not None:
            seat = self.seats[data["seat"]]
            assert seat is not None
            # A move is only ever applied at the version it was made against (the log
            # holds no other), so the version before it is this table's version.
            seat.remember(data["id"], self.version, data["decision"], self.version + 1)
        if game.over:
            self.state = "over"
            self.over_since = self.lobby.clock()
            if self.game_id is not None:
                self.finished_games.insert(0, self.game_id)
        return events

    def _finish_operation(self) -> Operation:
        game = self.game
        assert game is not None and self.game_id is not None
        record = Record.from_game(
            game,
            meta={
                "table": self.id,
                "table_name": self.name,
                "game": self.game_id,
                "number": self.game_number,
                "bots": {str(i): s.bot for i, s in enumerate(self.seats) if s and s.bot},
                "started_at": None if self.game_started_at is None else iso(self.game_started_at),
                "finished_at": iso(utcnow()),
                # Each seat's identity (None: anonymous or a bot) and whether the game is
                # rated: what flip7.server.services.ratings reads to write the game's results.
                "player_ids": [s.player_id if s else None for s in self.seats],
                "rated": self.rated,
                # Whether a seat was told its bust risk: a seat's replay shows it as sent.
                "bust_odds": self.bust_odds,
            },
        )
        return (
            "game_finish",
            {
                "b_id": self.game_id,
                "b_at": utcnow(),
                "b_winners": dumps(list(game.winners)),
                "b_totals": dumps(list(game.totals)),
                "b_record": record.dumps(),
            },
        )

    # ------------------------------------------------------------------ bots and timers

    def schedule(self) -> None:
        """After a change: let a bot take its turn, or start the turn timer (only now, as
        the game's turn starts: never while a table waits for its players or a rematch),
        and wait for a player who is away."""
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        self._task = None
        self.turn_deadline = None
        game = self.game
        playing = self.state == "playing" and game is not None
        turn = (self.game_id, game.to_decide if playing and game is not None else None)
        if turn != self._turn_key:  # a new turn: a player away is away from now on
            self._turn_key = turn
            self.turn_since = self.lobby.clock()
        self.wait_for_away()
        if self.state != "playing" or game is None or game.to_decide is None:
            return
        seat = self.seats[game.to_decide]
        assert seat is not None
        version = self.version
        if seat.played_by_bot:
            if not self.humans_here:
                self._pause()
                return
            delay, by = self.lobby.settings.bot_delay, "bot"
        elif self.turn_timer is not None:
            delay, by = float(self.turn_timer), "timer"
            self.turn_deadline = round(time.time() + delay, 3)
        else:
            return
        self._task = asyncio.create_task(self._bot_turn(version, delay, by))

    async def _bot_turn(self, version: int, delay: float, by: str) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        else:
            await asyncio.sleep(0)  # let the change that scheduled this finish first
        async with self.lock:
            game = self.game
            if self.version != version or game is None or game.to_decide is None:
                return
            index = game.to_decide
            if by == "bot" and not self.humans_here:  # the last human went during the delay
                self._pause()
                return
            scripted = None if self.tutorial is None else self.tutorial.bot_move(game)
            if scripted == WAIT:  # the lesson on screen waits for the player's "Got it"
                return
            if scripted is not None:  # on a tutorial's script: the script's decision
                with contextlib.suppress(TableError):
                    await self.change("move", {"seat": index, "decision": str(scripted),
                                               "by": by}, decision=scripted)
                return
            bot = self.bots.get(index)
            stand_in_seed = derive_seed("stand-in", self.game_seed, index)
            if bot is None:
                bot = make_bot(STAND_IN_BOT, stand_in_seed)
                self.bots[index] = bot
            # A searching bot thinks in a worker process (flip7.server.table.thinking), within
            # this table's CPU budget, so that other tables never wait for it. The lock
            # keeps this table's game still meanwhile.
            thought = await self.lobby.thinking.decide(self.id, bot, game, stand_in_seed)
            if thought.where != "stand-in":
                self.bots[index] = thought.bot  # its random state moved on in the worker
            if self.version != version:  # pragma: no cover - the lock makes this impossible
                return
            with contextlib.suppress(TableError):
                await self.change(
                    "move", {"seat": index, "decision": str(thought.decision), "by": by},
                    decision=thought.decision,
                )

    @property
    def humans_here(self) -> bool:
        """Whether a seated human (not one who left) is connected. Bots think only then:
        a table its humans have all gone from does not keep the server's CPU busy."""
        return any(
            s is not None and s.kind == "human" and not s.left and s.connections > 0
            for s in self.seats
        )

    def _pause(self) -> None:
        self.lobby.log_event("bots_paused", self, version=self.version)

    def _resume(self) -> None:
        """A human is back: a bot turn paused for want of one is scheduled again."""
        if (self._task is None or self._task.done()) and self.humans_here:
            game = self.game
            if self.state == "playing" and game is not None and game.to_decide is not None:
                seat = self.seats[game.to_decide]
                if seat is not None and seat.played_by_bot:
                    self.lobby.log_event("bots_resumed", self, version=self.version)
                    self.schedule()

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._away_task is not None:
            self._away_task.cancel()
            self._away_task = None
        self.lobby.thinking.forget(self.id)

    def shut(self, frame: str, code: int) -> None:
        """Close the table (expiry; its closing is stored): stop its bots and timers, send
        every client ``frame`` and close its socket with ``code``."""
        self.closed = True
        self.stop()
        for client in list(self.clients):
            client.push(frame)
            client.close(code)
        self.clients.clear()

    # ------------------------------------------------------------------ players who go away

    def _epoch(self, moment: float) -> float:
        """A moment of the lobby's clock as epoch seconds, the time clients read."""
        return round(time.time() + moment - self.lobby.clock(), 3)

    def away_since(self, seat: Seat) -> float | None:
        """Since when (the lobby's clock) the player whose turn it is has been away: the
        later of the turn's start and their disconnect. None unless ``seat`` is a human's
        (who has not left, whose seat no bot plays) whose turn it is, and disconnected."""
        game = self.game
        if self.state != "playing" or game is None or game.to_decide is None:
            return None
        if self.seats[game.to_decide] is not seat or seat.played_by_bot or seat.connected:
            return None
        return max(self.turn_since, seat.away_from)

    def gone_at(self, seat: Seat) -> float | None:
        """At the end screen: when (the lobby's clock) the disconnected player of ``seat``
        is dropped from the next game, ``rematch_wait`` after the later of the game's end
        and their disconnect. None for a bot, a player who left, or one connected."""
        if self.state != "over" or seat.kind != "human" or seat.left or seat.connected:
            return None
        return max(self.over_since, seat.away_from) + self.lobby.settings.rematch_wait

    def gone(self, seat: Seat, now: float) -> bool:
        """Whether the next game starts without ``seat``: its player left, or has been
        away from the end screen for ``rematch_wait``."""
        if self.state != "over" or seat.kind != "human":
            return False
        at = self.gone_at(seat)
        return seat.left or (at is not None and now >= at)

    def seat_json(self, index: int, seat: Seat | None, now: float) -> dict[str, Any]:
        """A seat as clients see it: :meth:`Seat.to_json`, with whether its player is away
        on their turn (and from when the others may hand it over) and, at the end screen,
        whether it is ready for the next game or gone from it."""
        if seat is None:
            return {"seat": index, "name": None, "kind": "empty", "bot": None,
                    "player_id": None, "left": False,
                    "connected": False, "stand_in": False, "away_since": None,
                    "handover_at": None, "ready": None, "gone": False}
        data = seat.to_json(index)
        since = self.away_since(seat)
        data["away_since"] = None if since is None else self._epoch(since)
        data["handover_at"] = (
            None if since is None else self._epoch(since + self.lobby.settings.handover_grace)
        )
        over = self.state == "over"
        data["ready"] = (seat.kind == "bot" or seat.ready) if over else None
        data["gone"] = self.gone(seat, now)
        return data

    def rematch_plan(self, now: float) -> tuple[list[int], str | None]:
        """At the end screen: the seats the next game drops (players who left or are
        gone), and why the seats staying cannot play it (too few), or None."""
        drop = [i for i, s in enumerate(self.seats) if s is not None and self.gone(s, now)]
        staying = sum(1 for s in self.seats if s is not None) - len(drop)
        problem = players_problem(staying, self.rules, most=MAX_SEATS)
        if problem is None:
            return drop, None
        return drop, f"the next game cannot start: {problem} once those gone are dropped"

    def rematch_ready(self, now: float) -> bool:
        """Whether every human staying for the next game (one at least) is ready."""
        staying = [
            s for s in self.seats if s is not None and s.kind == "human" and not self.gone(s, now)
        ]
        return bool(staying) and all(s.ready for s in staying)

    def deserted(self, now: float) -> bool:
        """Whether every seated human has been disconnected for ``lobby_hide_after``: the
        lobby's list leaves the table out until one comes back."""
        hide = self.lobby.settings.lobby_hide_after
        return not self.humans_here and now - self.human_seen >= hide

    def wait_for_away(self) -> None:
        """After a change or a connection came or went: wait for a player who is away.
        While playing, the seat to decide is handed to the stand-in bot ``handover_auto``
        after its player went away; at the end screen, the ready check goes on without a
        player once they are gone. Only while some human is here: bots and timers do not
        play on at a table its humans left."""
        if self._away_task is not None and self._away_task is not asyncio.current_task():
            self._away_task.cancel()
        self._away_task = None
        game = self.game
        if self.closed or game is None or not self.humans_here:
            return
        now = self.lobby.clock()
        if self.state == "playing" and game.to_decide is not None:
            seat = self.seats[game.to_decide]
            since = None if seat is None else self.away_since(seat)
            if since is not None:
                delay = since + self.lobby.settings.handover_auto - now
                self._away_task = asyncio.create_task(
                    self._auto_handover(self.version, game.to_decide, max(0.0, delay))
                )
        elif self.state == "over":
            waiting = [s for s in self.seats if s is not None and not self.gone(s, now)]
            times = [at for at in map(self.gone_at, waiting) if at is not None]
            if times:
                self._away_task = asyncio.create_task(
                    self._go_on_without(waiting, max(0.0, min(times) - now))
                )

    async def _auto_handover(self, version: int, index: int, delay: float) -> None:
        await asyncio.sleep(delay)
        async with self.lock:
            seat = self.seats[index] if index < len(self.seats) else None
            if self.closed or self.version != version or seat is None:
                return
            if self.away_since(seat) is None or not self.humans_here:
                return
            with contextlib.suppress(TableError):  # not stored: the table was reloaded
                await self.change("stand_in", {"seat": index, "by": None})

    async def _go_on_without(self, waiting: list[Seat], delay: float) -> None:
        await asyncio.sleep(delay)
        async with self.lock:
            if self.closed or self.state != "over":
                return
            now = self.lobby.clock()
            gone = [s for s in waiting if s in self.seats and self.gone(s, now)]
            with contextlib.suppress(TableError):  # not stored: the table was reloaded
                await self.lobby.rematch_if_ready(self)
            if self.closed or self.state != "over":
                return  # the next game started without them
            if gone:  # not versioned: being gone is a matter of time, not a change
                self.broadcast(self.version, dumps(
                    [{"type": "gone", "seat": self.index(s)} for s in gone]))
            self.wait_for_away()

    async def _returned(self, seat: Seat) -> None:
        """The player of a seat the stand-in bot plays is back: it is theirs again, from
        their next decision on (stored, so that a restart agrees)."""
        if not seat.stand_in or seat not in self.seats:
            return
        try:
            await self.change("returned", {"seat": self.index(seat)})
        except TableError as exc:  # not stored: the table was rebuilt from its log
            self.lobby.log_event("returned_not_stored", self, code=exc.code)

    # ------------------------------------------------------------------ presence

    async def attach(self, client: Client, last_version: int | None = None) -> None:
        """Welcome a client with the table as it may see it, then send it every update."""
        async with self.lock:
            seat = client.seat
            welcome = dumps(
                {
                    "v": 1,
                    "type": "welcome",
                    "seat": None if seat is None else self.index(seat),
                    "table": self.state_json(seat),
                    "missed": self.missed(last_version),
                    "chat": self.chat.to_json(),
                }
            )
            # A reload, a late spectator and a reconnect all get the whole current game.
            client.push(f'{welcome[:-1]},"history":{self.history_text()}}}')
            self.clients.add(client)
            if seat is not None:
                seat.connections += 1
                if seat.connections == 1:
                    self._presence(seat, "connected")
                    await self._returned(seat)
                    self._resume()
                    self.wait_for_away()

    async def detach(self, client: Client) -> None:
        async with self.lock:
            self.clients.discard(client)
            seat = client.seat
            if seat is not None:
                seat.connections -= 1
                if seat.connections == 0:
                    seat.away_from = self.lobby.clock()
                    self._presence(seat, "disconnected")
                    self.wait_for_away()

    def _presence(self, seat: Seat, what: str) -> None:
        self.human_seen = self.lobby.clock()  # the idle time of expiry counts from here
        with contextlib.suppress(ValueError):
            index = self.index(seat)
            self.lobby.log_event(what, self, seat=index)
            self.broadcast(self.version, dumps([{"type": what, "seat": index}]))


    # ------------------------------------------------------------------ chat

    @property
    def host(self) -> int | None:
        """The seat that may switch spectators' chat off and on: the first seat of a
        human who has not left (None when there is none)."""
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.kind == "human" and not seat.left:
                return index
        return None

    def _chat_seat(self, seat: Seat | None) -> int | None:
        if seat is None:
            return None
        try:
            return self.seats.index(seat)
        except ValueError:  # a seat removed before the game: a spectator now
            return None

    async def say(self, seat: Seat | None, spectator_name: str, text: str) -> ChatEntry:
        """Store a chat message from ``seat`` (None: a spectator, shown as
        ``spectator_name``), then send it to every client of the table.

        Not under the table's lock, which a bot holds while it thinks: chat neither waits
        for a move nor changes the version a move is checked against. Refused with
        ``bad_chat`` (empty, too long, a control character), ``chat_muted`` (a spectator,
        or a player who left, while the host has spectators' chat off), ``closed``."""
        if self.closed:
            raise self.lobby.closed_error(self)
        try:
            text = clean_chat(text, self.lobby.settings.chat_max_chars)
        except ChatRefused as exc:
            raise TableError(exc.code, exc.message) from None
        index = self._chat_seat(seat)
        watching = seat is None or index is None or seat.left
        if watching and not self.chat.spectators:
            raise TableError(
                "chat_muted", "the host has turned spectators' chat off at this table", 403
            )
        name = spectator_name if seat is None or index is None else seat.name
        entry = ChatEntry(
            self.chat.take_number(), utcnow(), "message", name, index, watching, text
        )
        await self._post(entry)
        return entry

    async def switch_spectator_chat(self, seat: Seat | None, allowed: bool) -> ChatEntry | None:
        """The host turns spectators' chat on or off: stored and sent to everyone as a chat
        entry, then the table (its ``chat`` settings changed) as an update of the same
        version. None if it already was so. Anyone else: ``not_host``."""
        if self.closed:
            raise self.lobby.closed_error(self)
        index = self._chat_seat(seat)
        host = self.host
        if seat is None or index is None or index != host:
            holder = None if host is None else self.seats[host]
            who = "" if holder is None else f" ({holder.name})"
            raise TableError(
                "not_host",
                f"only the table's host{who}, the first seated player, can turn "
                "spectators' chat off or on",
                403,
            )
        if allowed == self.chat.spectators:
            return None
        kind: Literal["spectators_on", "spectators_off"] = (
            "spectators_on" if allowed else "spectators_off"
        )
        entry = ChatEntry(self.chat.take_number(), utcnow(), kind, seat.name, index, False, "")
        await self._post(entry)
        self.broadcast(self.version, "[]")
        return entry

    async def _post(self, entry: ChatEntry) -> None:
        """Store a chat entry, then send it to every client (never the other way round)."""
        try:
            await self.lobby.store.write([("chat_insert", entry.row(self.id, self.fence))])
        except StoreError:
            raise _not_stored("the message") from None
        self.chat.add(entry)
        # The operator's log says that someone chatted, never what: it is the players'.
        self.lobby.log_event("chat", self, n=entry.n, kind=entry.kind, seat=entry.seat)
        frame = dumps({"v": 1, "type": "chat", "chat": entry.to_json()})
        for client in list(self.clients):
            client.push(frame)


def _loggable(data: dict[str, Any]) -> dict[str, Any]:
    """What of a change goes in the operator's log: never a token or a seed."""
    return {k: v for k, v in data.items() if k not in ("token", "seed")}


class Lobby:
    """All tables of the server, with the store behind them."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        # Tables this process runs (with many processes, flip7.server.cluster.node: those it
        # owns; the others are reached through it).
        self.tables: dict[str, Table] = {}
        # This process's id (a fresh one at every start): health names it, and with many
        # processes it names the owner of a table.
        self.node = secrets.token_hex(6)
        # With many processes (flip7.server.cluster.node.Cluster, attached by the app): the
        # tables this process owns, and the way to the others.
        self.cluster: Owners | None = None
        # Called once a finished game is stored (flip7.server.services.ratings.Results.finished).
        self.on_finish: Callable[[str], Awaitable[None]] | None = None
        self.games_started = 0
        # Every idle time is measured on this clock (tests replace it).
        self.clock = time.monotonic
        # Per client address: tables created and seats taken (see Settings).
        self.creations = AddressBudget(
            settings.tables_per_minute, settings.tables_burst, clock=lambda: self.clock()
        )
        self.joins = AddressBudget(
            settings.joins_per_minute, settings.joins_burst, clock=lambda: self.clock()
        )
        self.expiry = Expiry(self)
        # Rebuilt tables checking whether their rematch is due (see resume).
        self._resuming: set[asyncio.Task[None]] = set()
        # Bot thinking: worker processes (started on first use) and a CPU budget per table.
        self.thinking = Thinking(
            settings.bot_workers, settings.bot_seconds_per_minute, stand_in=STAND_IN_BOT
        )

    # ------------------------------------------------------------------ life cycle

    async def restore(self) -> None:
        """Rebuild every open stored table by replaying its log (closed ones are history);
        bots and timers resume, and the sweep that closes idle tables starts."""
        started = time.perf_counter()
        # All games, closed tables' too: a fixed --seed must not deal a past game again.
        self.games_started = await self.store.count_games()
        if self.cluster is not None:
            # The tables are shared out by the cluster: each process takes those nobody
            # runs (the orphan sweep), or that a request asks for.
            await self.cluster.start()
            self.expiry.start()
            self.log_event("cluster_joined", None, node=self.node)
            return
        rows = await self.store.load_tables(open_only=True, chat=self.chat_kept)
        for row in rows:
            table = self.rebuild(row)
            self.tables[table.id] = table
        for table in self.tables.values():
            self.resume(table)
        self.expiry.start()
        self.log_event(
            "restored",
            None,
            tables=len(self.tables),
            seconds=round(time.perf_counter() - started, 3),
        )

    def rebuild(self, row: TableRow) -> Table:
        """The table ``row`` holds, its log replayed (not yet among :attr:`tables`)."""
        table = Table(
            self,
            row.id,
            row.name,
            row.created_at,
            row.max_seats,
            Rules.from_json(row.rules),
            row.turn_timer,
            bust_odds=row.bust_odds,
            rated=row.rated,
        )
        seeds = {g.id: g for g in row.games}
        for entry in row.log:
            data = dict(entry.data)
            if entry.kind == "start":
                stored: StoredGame = seeds[data["game"]]
                data["seed"] = stored.seed
                data["at"] = stored.started_at.isoformat()
            table.apply(entry.kind, data)
            if table.version != entry.seq:  # pragma: no cover - a corrupt log
                raise RuntimeError(f"table {row.id}: log entry {entry.seq} out of order")
        table.chat.restore(
            [
                ChatEntry(c.n, c.at, c.kind, c.name, c.seat, c.spectator, c.text)  # type: ignore[arg-type]
                for c in row.chat
            ],
            row.spectator_chat,
        )
        return table

    @property
    def chat_kept(self) -> int:
        # At least one entry is loaded: the next entry's number follows the last stored.
        return max(1, self.settings.chat_history)

    async def reload(self, table: Table) -> None:
        """Throw away the in-memory table and rebuild it from the store."""
        if self.cluster is not None:
            # Rebuilt by whoever runs it next, from what was committed (the store may be
            # down, or another process took the table over).
            await self.cluster.drop(table, "store_refused")
            return
        row = await self.store.load_table(table.id, chat=self.chat_kept)
        if row is None:
            self.tables.pop(table.id, None)
            return
        fresh = self.rebuild(row)
        fresh.clients = table.clients
        for client in fresh.clients:
            if client.seat is not None:
                client.seat = next(
                    (s for s in fresh.seats if s and s.token_hash == client.seat.token_hash), None
                )
                if client.seat is not None:
                    client.seat.connections += 1
        table.stop()
        self.tables[table.id] = fresh
        fresh.schedule()

    async def close(self) -> None:
        await self.expiry.stop()
        for table in self.tables.values():
            table.stop()
        if self.cluster is not None:
            await self.cluster.close()
        await self.thinking.close()

    def log_event(self, event: str, table: Table | None, **fields: Any) -> None:
        record: dict[str, Any] = {"event": event}
        if table is not None:
            record["table"] = table.id
        record.update(fields)
        log.info(json.dumps(record, separators=(",", ":"), default=str))

    # ------------------------------------------------------------------ requests

    def get(self, table_id: str) -> Table:
        """An open table; raises ``no_table`` (:meth:`find` also tells closed ones)."""
        table = self.tables.get(table_id)
        if table is None:
            raise TableError("no_table", f"there is no table {table_id!r}", 404)
        return table

    async def find(self, table_id: str) -> Table:
        """An open table; raises ``closed`` (410) for a closed one, else ``no_table``."""
        table = self.tables.get(table_id)
        if table is None:
            raise await self.gone(table_id)
        return table

    async def gone(self, table_id: str) -> TableError:
        """Why ``table_id`` is not open: ``closed`` (410) or ``no_table`` (404)."""
        stored = None
        if len(table_id) <= 16:  # the id column's size: longer ones were never ids
            stored = await self.store.table_state(table_id)
        if stored is not None and stored[0] == "closed":
            return self._closed(table_id, played=stored[1] > 0)
        return TableError("no_table", f"there is no table {table_id!r}", 404)

    async def exists(self, table_id: str) -> bool:
        """Whether ``table_id`` is a table, open or closed (its games can be listed)."""
        if table_id in self.tables:
            return True
        return len(table_id) <= 16 and await self.store.table_state(table_id) is not None

    def closed_error(self, table: Table) -> TableError:
        """The error for a request that reached ``table`` as it was being closed."""
        return self._closed(table.id, played=table.game_number > 0)

    def _closed(self, table_id: str, played: bool) -> TableError:
        # A table that had a game was closed from playing or over, otherwise from waiting.
        settings = self.settings
        ttl = settings.idle_table_ttl if played else settings.waiting_table_ttl
        return TableError("closed", closed_message(table_id, ttl), 410)

    def listing(self) -> list[dict[str, Any]]:
        """The lobby's list: tables waiting and playing, newest first, without those whose
        seated humans have all been gone for ``lobby_hide_after`` (they come back with a
        human)."""
        now = self.clock()
        open_tables = [
            t for t in self.tables.values()
            if t.state != "over" and not t.deserted(now) and not t.private
        ]
        open_tables.sort(key=lambda t: t.created_at, reverse=True)
        return [t.summary() for t in open_tables[:200]]

    async def create_table(
        self,
        name: str,
        player: str,
        seats: int = DEFAULT_SEATS,
        rules: dict[str, Any] | None = None,
        turn_timer: int | None = None,
        address: str | None = None,
        bust_odds: bool = True,
        private: bool = False,
        rated: bool | None = None,
        player_id: str | None = None,
    ) -> tuple[Table, int, str]:
        """A new table with its creator in seat 0; returns the table, the seat and its token.
        ``bust_odds`` False: the seat that must Hit or Stay is never told its bust risk.
        ``private``: not in the lobby's list (a tutorial's table: never rated). ``rated``:
        whether its games change ratings (None: unless its rules change the game,
        flip7.server.services.ratings.rated_by_default). ``player_id``: the creator's identity.

        ``address`` (the client's) is held to ``tables_per_minute``: every attempt counts,
        refused ones too. None: the server's own call, not counted."""
        spend(self.creations, address, "tables created", "tables_per_minute")
        try:
            parsed = Rules.from_json(rules or {})
        except RulesError as exc:
            raise TableError("bad_rules", str(exc)) from None
        if type(seats) is not int:
            raise TableError("bad_seats", f"seats must be a whole number, not {seats!r}")
        problem = players_problem(seats, parsed, most=MAX_SEATS)
        if problem is not None:
            raise TableError("bad_seats", problem)
        low_timer = self.settings.min_turn_timer
        if turn_timer is not None and not low_timer <= turn_timer <= MAX_TIMER:
            raise TableError(
                "bad_timer", f"turn_timer must be {low_timer} to {MAX_TIMER} seconds, or null"
            )
        if type(bust_odds) is not bool:
            raise TableError("bad_bust_odds", f"bust_odds must be true or false, not {bust_odds!r}")
        if rated is not None and type(rated) is not bool:
            raise TableError("bad_rated", f"rated must be true, false or null, not {rated!r}")
        rated = False if private else rated_by_default(parsed) if rated is None else rated
        if len(self.tables) >= self.settings.max_tables:
            raise TableError("full", "the server has as many tables as it can hold", 503)
        name = clean_name(name, "table name", self.settings.table_name_chars)
        player = clean_name(player, "player name", self.settings.player_name_chars)
        table_id = secrets.token_urlsafe(6)
        while table_id in self.tables:  # pragma: no cover - 48 random bits
            table_id = secrets.token_urlsafe(6)
        now = utcnow()
        table = Table(self, table_id, name, now, seats, parsed, turn_timer, bust_odds, rated)
        if self.cluster is not None:
            # Run by this process from its first change on (its owner row is committed
            # first: the first change carries its token).
            try:
                table.fence = await self.cluster.claim_new(table_id)
            except Exception:
                raise _not_stored("the table") from None
        row: Operation = (
            "table_insert",
            {
                "id": table_id,
                "name": name,
                "created_at": now,
                "max_seats": seats,
                "rules": dumps(parsed.to_json()),
                "turn_timer": turn_timer,
                "bust_odds": bust_odds,
                "private": private,
                "rated": rated,
                "state": "waiting",
                "version": 0,
                "updated_at": now,
            },
        )
        async with table.lock:
            token = secrets.token_urlsafe(24)
            data: dict[str, Any] = {"seat": 0, "name": player, "token": hash_token(token)}
            if player_id is not None:
                data["player"] = player_id
            if private:
                data["private"] = True
            # The table row goes in the same transaction as its first change.
            self.tables[table_id] = table
            try:
                await table.change("join", data, before=[row])
            except TableError:
                self.tables.pop(table_id, None)
                raise
        self.log_event("table_created", table, seats=seats, rules=parsed.to_json())
        return table, 0, token

    async def join(
        self, table: Table, player: str, address: str | None = None,
        player_id: str | None = None, token: str | None = None,
    ) -> tuple[int, str]:
        """Seat ``player`` in the lowest empty seat; ``address`` is held to
        ``joins_per_minute`` (every attempt counts; None is not counted). ``player_id``: the
        identity the seat counts for (one seat per identity at a table: 409
        ``already_seated``). ``token``: the seat's secret as the client chose it (else a new
        one); a join sent again with the same name and token gets the same seat back."""
        spend(self.joins, address, "seats taken", "joins_per_minute")
        player = clean_name(player, "player name", self.settings.player_name_chars)
        async with table.lock:
            if token is not None and not table.closed:
                again = self._seated_with(table, player, token)
                if again is not None:
                    # The first join went through and its answer was lost on the way: a
                    # player on a phone would otherwise be locked out by their own name.
                    return again, token
            seat = self._free_seat(table, player)
            if player_id is not None and any(
                s is not None and s.player_id == player_id for s in table.seats
            ):
                raise TableError(
                    "already_seated", "your identity already has a seat at this table", 409
                )
            if token is None:
                token = secrets.token_urlsafe(24)
            data: dict[str, Any] = {"seat": seat, "name": player, "token": hash_token(token)}
            if player_id is not None:
                data["player"] = player_id
            await table.change("join", data)
        return seat, token

    @staticmethod
    def _seated_with(table: Table, name: str, token: str) -> int | None:
        """The seat ``name`` holds at ``table`` under ``token`` (a join sent twice), if any."""
        try:
            seat = table.seat_of(token)
        except TableError:
            return None
        if seat.kind == "human" and seat.name == name and not seat.left:
            return table.index(seat)
        return None

    def _free_seat(self, table: Table, name: str) -> int:
        if table.closed:
            raise self.closed_error(table)
        if table.state != "waiting":
            raise TableError("started", "the game has started: seats can be taken only before", 409)
        # Not only the same name: one a reader could take for it ("Аnn" with a Cyrillic А
        # beside "Ann") would let a newcomer pass for someone seated.
        other = taken_by(name, (s.name for s in table.seats if s is not None))
        if other == name:
            raise TableError("name_taken", f"someone at this table is already called {name!r}", 409)
        if other is not None:
            raise TableError(
                "name_taken",
                f"{name!r} looks too much like {other!r}, who already sits at this table; "
                "choose a name that reads differently",
                409,
            )
        for index, seat in enumerate(table.seats):
            if seat is None:
                return index
        raise TableError("table_full", "every seat at this table is taken", 409)

    def bot_list(self) -> list[str]:
        """The bots a seat can be filled with: the ladder, then the operator's own."""
        return [*bot_names(), *(b for b in self.settings.extra_bots if b not in bot_names())]

    def _bot_spec(self, spec: str) -> tuple[str, str, Level | None]:
        """The spec to store, the label seat names start with, and the level asked for by
        name (None: a spec)."""
        spec = spec.strip()
        if spec in self.settings.extra_bots:
            return spec, spec.rpartition(":")[2], None
        level = level_named(spec)
        if level is not None:
            # Checked below as any spec is: a level is a spec under a player's name for it.
            spec = level.spec
        if spec.partition(":")[0] not in bot_names():
            # Never parsed: a module named by a request would be imported, running
            # anyone's code on the server.
            raise TableError(
                "bad_bot",
                f"bot {spec!r} is not offered here; levels are "
                f"{', '.join(level.name for level in LEVELS)}, and bots are "
                f"{', '.join(self.bot_list())} "
                "(the server's operator adds bots of their own with flip7 serve --bot)",
            )
        try:
            parsed = parse_bot_spec(spec)
        except Flip7Error as exc:
            raise TableError("bad_bot", str(exc)) from None
        # The library's bounds are for people running bots on their own machine; what a
        # stranger may ask of this server's CPU is less (flip7.server.table.thinking.CEILINGS).
        too_much = over_ceiling(parsed)
        if too_much is not None:
            raise TableError("bad_bot", too_much)
        return parsed.text, spec.partition(":")[0].title(), level

    async def add_bot(self, table: Table, token: str | None, bot: str) -> int:
        """Seat a bot (a level's name, or a spec) in the lowest empty seat: a level's bot
        gets a first name ("Mia (Medium bot)"), a spec's a numbered one ("Threshold bot 1")."""
        spec, label, level = self._bot_spec(bot)
        async with table.lock:
            self._human(table, token)
            taken = {s.name for s in table.seats if s is not None}
            if level is not None:
                name = level_seat_name(level, taken)
            else:
                number = 1
                while taken_by(f"{label} bot {number}", taken) is not None:
                    number += 1
                name = f"{label} bot {number}"
            seat = self._free_seat(table, name)
            await table.change("bot", {"seat": seat, "bot": spec, "name": name})
        return seat

    async def remove_seat(self, table: Table, token: str | None, index: int) -> None:
        async with table.lock:
            me = self._human(table, token)
            if table.state != "waiting":
                raise TableError("started", "seats can be removed only before the game starts", 409)
            if not 0 <= index < len(table.seats) or table.seats[index] is None:
                raise TableError("no_seat", f"seat {index} is empty", 404)
            target = table.seats[index]
            assert target is not None
            if target.kind == "human" and target is not me:
                raise TableError("forbidden", "you can remove bots and yourself, not others", 403)
            await table.change("remove", {"seat": index})

    async def leave(self, table: Table, token: str | None) -> None:
        async with table.lock:
            me = self._human(table, token)
            index = table.index(me)
            if table.state == "waiting":
                await table.change("remove", {"seat": index})
            else:
                await table.change("leave", {"seat": index})
                # At the end screen the others may have been waiting only for this player.
                await self.rematch_if_ready(table)

    async def start(self, table: Table, token: str | None, rematch: bool = False) -> None:
        """Start the first game; ``rematch``: say ready for the next one (:meth:`ready`),
        which starts once every human staying is ready."""
        if rematch:
            await self.ready(table, token, True)
            return
        async with table.lock:
            self._human(table, token)
            if table.state != "waiting":
                raise TableError("started", "the game has already started", 409)
            await self._start_game(table)

    async def ready(self, table: Table, token: str | None, ready: bool) -> None:
        """At the end screen, a player says whether they are ready for the next game. It
        starts (with a new game row, as the first did) once every human staying is ready:
        bots are, and players who left or have been away for ``rematch_wait`` are dropped.
        Too few staying: 409 ``not_enough_players`` (the ready is kept)."""
        async with table.lock:
            me = self._human(table, token)
            if table.state != "over":
                raise TableError(
                    "not_over", "a rematch can start once the game is over; "
                    "say ready at the end screen", 409,
                )
            if me.ready != ready:
                await table.change("ready", {"seat": table.index(me), "ready": ready})
            problem = await self.rematch_if_ready(table)
            if problem is not None:
                raise TableError("not_enough_players", problem, 409)

    def resume(self, table: Table) -> None:
        """A table just rebuilt from its log (a restart, or a takeover by this process):
        its bots and timers go on, and a rematch that every player was ready for when the
        last process stopped (before its start was stored) starts now."""
        table.schedule()
        if table.state == "over":
            task = asyncio.create_task(self._rematch_after_rebuild(table))
            self._resuming.add(task)
            task.add_done_callback(self._resuming.discard)

    async def _rematch_after_rebuild(self, table: Table) -> None:
        async with table.lock:
            with contextlib.suppress(TableError):  # not stored: retried by the next ready
                await self.rematch_if_ready(table)

    async def rematch_if_ready(self, table: Table) -> str | None:
        """Start the next game if every human staying is ready (the table's lock is held);
        returns why the seats staying cannot play it, or None."""
        if table.closed or table.state != "over":
            return None
        now = self.clock()
        if not table.rematch_ready(now):
            return None
        drop, problem = table.rematch_plan(now)
        if problem is None:
            await self._start_game(table, drop)
        return problem

    async def handover(self, table: Table, token: str | None, index: int) -> None:
        """Another player hands the seat of a player away on their turn to the stand-in
        bot, once that player has been away for ``handover_grace``; the seat is theirs
        again when they reconnect. Refused: ``no_seat`` (404), your own seat or a player
        who left (403), ``no_game``, ``not_away`` (connected, not their turn, or a bot plays
        it already) and ``too_soon`` (with the seconds to wait) (409)."""
        async with table.lock:
            me = self._human(table, token)
            if not 0 <= index < len(table.seats) or table.seats[index] is None:
                raise TableError(
                    "no_seat", f"there is no player in seat {index}; seats are 0 to "
                    f"{len(table.seats) - 1}", 404,
                )
            target = table.seats[index]
            assert target is not None
            if target is me:
                raise TableError(
                    "forbidden", "you cannot hand your own seat to a bot; leave the table "
                    "(POST /leave) to let a bot play it for the rest of the game", 403,
                )
            game = table.game
            if table.state != "playing" or game is None:
                raise TableError("no_game", "there is no game in play at this table", 409)
            if target.played_by_bot:
                raise TableError("not_away", f"a bot already plays {target.name}'s seat", 409)
            since = table.away_since(target)
            if since is None:
                why = "is connected" if target.connected else "is not the one to decide"
                raise TableError(
                    "not_away", f"{target.name} {why}: a seat is handed over only while its "
                    "player is away on their turn", 409,
                )
            wait = since + self.settings.handover_grace - self.clock()
            if wait > 0:
                raise TableError(
                    "too_soon", f"{target.name} has been away for less than "
                    f"{self.settings.handover_grace:g} seconds; try again in "
                    f"{max(1, math.ceil(wait))} seconds", 409, retry_after=wait,
                )
            await table.change("stand_in", {"seat": index, "by": table.index(me)})

    async def _start_game(
        self, table: Table, drop: list[int] | None = None, tutorial: str | None = None
    ) -> None:
        """Start the table's next game (its lock is held) without the seats ``drop``;
        ``tutorial`` names the script of a guided game (flip7.server.table.tutorial.SCRIPTS)."""
        dropped = set(drop or ())
        seated = [s for i, s in enumerate(table.seats) if s is not None and i not in dropped]
        problem = players_problem(len(seated), table.rules, most=MAX_SEATS)
        if problem is not None:
            raise TableError("not_enough_players", f"{problem} seated (bots count)", 409)
        seed = self._seed()
        game_id = secrets.token_urlsafe(6)
        now = utcnow()
        number = table.game_number + 1
        row: Operation = (
            "game_insert",
            {
                "id": game_id,
                "table_id": table.id,
                "number": number,
                "seed": seed,
                "players": dumps([s.name for s in seated]),
                "rules": dumps(table.rules.to_json()),
                "started_at": now,
            },
        )
        data: dict[str, Any] = {"game": game_id, "seed": seed, "at": now.isoformat()}
        if dropped:
            data["drop"] = sorted(dropped)
        if tutorial is not None:
            data["tutorial"] = tutorial
        await table.change("start", data, extra=[row])

    def _seed(self) -> int:
        self.games_started += 1
        if self.settings.seed is None:
            return secrets.randbits(63)
        return derive_seed("server", self.settings.seed, self.games_started)

    def _human(self, table: Table, token: str | None) -> Seat:
        if table.closed:  # the request waited for the lock while the table was closed
            raise self.closed_error(table)
        seat = table.seat_of(token)
        if seat.left:
            raise TableError("left", "you have left this table", 403)
        return seat

    async def move(
        self, table: Table, seat: Seat, move_id: str, version: int, decision: Decision
    ) -> int:
        """Apply a human's decision (parsed by the protocol); returns the version after it.
        A retry of ``move_id`` in the same game (same version, same decision) returns the
        same version without applying anything; the id with another version or decision is
        ``reused_id``. Whether the decision is legal is the engine's to say (``illegal_move``
        with its message), after the turn and the version are checked here."""
        async with table.lock:
            done = seat.moves.get(move_id)
            if done is not None:
                if version == done.version and str(decision) == done.decision:
                    return done.after
                # Answering with the old result would acknowledge a move never applied.
                raise TableError(
                    "reused_id",
                    f"move id {move_id!r} was already used in this game for "
                    f"{done.decision!r} at version {done.version}; give every move a new id",
                    409,
                )
            if table.closed:
                raise table.lobby.closed_error(table)
            game = table.game
            if game is None or table.state != "playing":
                raise TableError("no_game", "there is no game in play at this table", 409)
            try:
                index = table.index(seat)
            except ValueError:
                raise TableError("spectator", "you no longer have a seat here", 403) from None
            if seat.left:
                raise TableError("left", "you have left this table", 403)
            if version != table.version:
                raise TableError(
                    "stale_version",
                    f"the move was made against version {version}, "
                    f"but the table is at version {table.version}",
                    409,
                )
            if game.to_decide != index:
                who = game.to_decide
                name = "nobody" if who is None else table.seats[who].name  # type: ignore[union-attr]
                raise TableError("not_your_turn", f"it is {name}'s decision, not yours", 409)
            # On a tutorial's script, only the move its lesson asks for.
            guide = table.tutorial
            lesson = None if guide is None else guide.refusal(game, index, decision)
            if lesson is not None:
                raise TableError("tutorial_step", lesson, 409)
            data = {"seat": index, "decision": str(decision), "id": move_id, "by": "human"}
            try:
                await table.change("move", data, decision=decision)
            except DecisionError as exc:  # not legal now: the engine's message
                raise TableError("illegal_move", str(exc), 422) from None
            return table.version

    # ------------------------------------------------------------------ the tutorial

    async def create_tutorial(
        self, player: str, script: str, address: str | None = None
    ) -> tuple[Table, int, str]:
        """A guided first game (flip7.server.table.tutorial): a private table of ``player`` and
        the script's bots, its game started at once on the script's deck. Held to
        ``tables_per_minute`` as any table is; returns the table, the seat and its token."""
        guide = SCRIPTS[script]
        table, seat, token = await self.create_table(
            guide.table_name, player, guide.seats, guide.rules.to_json(), address=address,
            private=True,
        )
        for _ in range(guide.bots):
            await self.add_bot(table, token, guide.bot)
        async with table.lock:
            self._human(table, token)
            await self._start_game(table, tutorial=guide.id)
        return table, seat, token

    async def tutorial_step(
        self, table: Table, token: str | None, skip: bool, read: int | None
    ) -> None:
        """The player of a guided game has read lesson ``read`` ("Got it": a bot waiting
        for it plays on), or leaves the script (``skip``: a normal game against the bots
        from now on). Refused: ``bad_tutorial`` (neither or both asked), ``no_tutorial``,
        ``stale_lesson`` (not the lesson on screen), ``tutorial_over``."""
        if skip == (read is not None):
            raise TableError(
                "bad_tutorial", 'send {"skip": true} to leave the lessons, or {"read": N} '
                "with the number of the lesson on screen, not both",
            )
        async with table.lock:
            self._human(table, token)
            guide, game = table.tutorial, table.game
            if guide is None or game is None:
                raise TableError("no_tutorial", "this table's game is not a tutorial", 409)
            problem = guide.problem(game, skip, read)
            if problem is not None:
                raise TableError(problem[0], problem[1], 409)
            await table.change("tutorial", {"skip": True} if skip else {"read": read})
