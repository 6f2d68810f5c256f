"""One table: its seats, its current game, its clients, its bots and turn timers.

Every change to a table (flip7.server.table.changes) is made under the table's lock in
three steps: check it and apply it in memory, store it (the change log, through the
storage the lobby holds, flip7.server.table.storage), then broadcast it. Clients never see
a change that is not stored. If the store refuses a write, the table is rebuilt from the
log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Protocol, assert_never

from flip7.bots import Bot, make_bot
from flip7.core.jsontypes import JSON, JSONObject
from flip7.core.rules import Rules, players_problem
from flip7.core.seeds import derive_seed
from flip7.engine.game import Game
from flip7.engine.record import Record
from flip7.server.base.formats import dumps, iso, utcnow
from flip7.server.base.limits import TokenBucket
from flip7.server.base.settings import Settings
from flip7.server.table.changes import (
    AddBot,
    Change,
    HandOver,
    Join,
    Leave,
    MarkReady,
    Move,
    Remove,
    Return,
    Start,
    TutorialStep,
)
from flip7.server.table.chat import ChatLog
from flip7.server.table.errors import TableError, not_stored
from flip7.server.table.events import (
    Connection,
    GameStarted,
    Ready,
    Returned,
    SeatLeft,
    SeatTaken,
    StandIn,
    Timeout,
    Update,
)
from flip7.server.table.options import MAX_SEATS, TableState, pace_of
from flip7.server.table.presence import Presence
from flip7.server.table.seat import Seat, hash_token, same_network
from flip7.server.table.storage import (
    GameFinish,
    GameInsert,
    LogEntry,
    StoreError,
    TableStorage,
    TableUpdate,
    TableWrite,
)
from flip7.server.table.talk import Talk
from flip7.server.table.thinking import Owner, Thinking
from flip7.server.table.turns import Turns
from flip7.server.table.tutorial import Tutorial, for_start
from flip7.server.table.views import seat_view

__all__ = ["Client", "Host", "Table"]

# Versioned changes a table holds (and a welcome's ``history`` carries): those of its
# current game, from its game_started on. A game to the default 200 points has about 100
# changes with 3 players and at most about 750 with 18 (basic bots, measured); only a game
# to a far higher target_score can pass this, and then its first changes are not held.
HISTORY = 5000

_NO_VIEWER = '{"viewer":null,'
# How old a spectator's welcome view may be (Table._welcome_text): its clock-following
# parts (a seat's player gone, the rematch's problem) are at most this late, as they are
# for every other client until the next broadcast.
SPECTATOR_TEXT_SECONDS = 0.5


def capped_history(
    history: Sequence[tuple[int, str]], most_bytes: int
) -> tuple[str, int | None, bool]:
    """The newest changes of ``history`` (oldest first) that fit in ``most_bytes`` as the
    JSON text of a list of ``{"version", "events"}``, the first version it holds (None:
    none), and whether older ones were left out. The events are JSON text already (ASCII:
    ``dumps`` escapes the rest), so characters are bytes.

    >>> capped_history([(1, "[1]"), (2, "[2]")], 100)
    ('[{"version":1,"events":[1]},{"version":2,"events":[2]}]', 1, False)
    >>> capped_history([(1, "[1]"), (2, "[2]")], 30)
    ('[{"version":2,"events":[2]}]', 2, True)
    """
    parts: list[str] = []
    first: int | None = None
    size = 2  # the brackets
    for version, events in reversed(history):
        part = f'{{"version":{version},"events":{events}}}'
        size += len(part) + (1 if parts else 0)
        if size > most_bytes:
            break
        parts.append(part)
        first = version
    cut = len(parts) < len(history)
    parts.reverse()
    return "[" + ",".join(parts) + "]", first, cut


class Client(Protocol):
    """A connected browser tab (or spectator) as a table sees it."""

    # What holds the seat it plays (None: a spectator).
    place: Seat | None

    def push(self, message: str) -> None:
        """Queue ``message`` for sending; never blocks."""

    def close(self, code: int) -> None:
        """Close the connection with ``code`` once what is queued has been sent."""


class Host(Protocol):
    """The lobby as its tables see it (flip7.server.table.lobby.Lobby)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def store(self) -> TableStorage: ...
    @property
    def thinking(self) -> Thinking: ...
    @property
    def on_finish(self) -> Callable[[str], Awaitable[None]] | None: ...
    @property
    def on_turn(self) -> Callable[[str, str, str, float], None] | None: ...
    @property
    def on_move(self) -> Callable[[float, str], None] | None: ...

    def clock(self) -> float: ...
    def next_seed(self) -> int: ...
    def relist(self, table: Table) -> None: ...
    def closed_error(self, table: Table) -> TableError: ...
    def holds(self, table: Table) -> bool: ...
    async def reload(self, table: Table) -> None: ...
    def log_event(self, event: str, table: Table | None, **fields: JSON) -> None: ...


class Table:
    """One table: its seats, its current game and its connected clients."""

    def __init__(
        self,
        lobby: Host,
        table_id: str,
        name: str,
        created_at: datetime,
        max_seats: int,
        rules: Rules,
        turn_timer: int | None,
        bust_odds: bool = True,
        rated: bool = False,
        move_hours: int | None = None,
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
        # Whether its finished games change ratings (flip7.server.services.ratings; an option).
        self.rated = rated
        # A turn-based table's hours per decision (None: live), and when the running
        # decision is made by the stand-in bot (epoch seconds; None: no clock runs): set
        # by each change, stored with it, restored with the table (flip7.server.table.turns).
        self.move_hours = move_hours
        self.deadline: float | None = None
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
        # A spectator's view as the last broadcast (or welcome) wrote it: (version, when,
        # text). Hundreds of spectators arriving at once share it instead of each encoding
        # the whole table (SPECTATOR_TEXT_SECONDS).
        self._spectator_text: tuple[int, float, str] | None = None
        self.lock = asyncio.Lock()
        # (version, its events as JSON): strings, which the garbage collector never scans.
        # Cleared when a game starts: it holds the current game's changes (the chat, which
        # has no versions, is kept apart).
        self.history: deque[tuple[int, str]] = deque(maxlen=HISTORY)
        # Whether the current game's first changes fell out of ``history`` (HISTORY).
        self.history_dropped = False
        # The welcome's history (capped_history) of one version: every client welcomed at
        # that version (a crowd of spectators) shares its one encoding.
        self._welcome_history: tuple[int, str, int | None, bool] | None = None
        # Its chat (flip7.server.table.chat): the entries kept, and who may say what.
        self.chat = ChatLog(lobby.settings.chat_history)
        # Welcome bytes to spectators, all of them together (spectator_welcome_refusal).
        settings = lobby.settings
        self.spectator_welcomes = TokenBucket(
            settings.spectator_welcome_bytes_per_minute / 60.0,
            settings.spectator_welcome_bytes_burst, settings.spectator_welcome_bytes_burst,
            lobby.clock(),
        )
        self.talk = Talk(self, lobby.settings, lobby.store)
        # Players who go away (flip7.server.table.presence), on the lobby's clock, and the
        # turns that bots and turn timers take (flip7.server.table.turns).
        self.presence = Presence(self, lobby.settings, lambda: lobby.clock())
        self.turns = Turns(self, self.presence, lobby.settings, lobby.thinking)
        # Expiry (flip7.server.table.expiry), on the lobby's clock: when a person last changed
        # the table, and when a seated human was last connected to it.
        self.touched = self.human_seen = lobby.clock()
        # Set once the table is closed: stored as history, gone from the lobby.
        self.closed = False
        # A guided first game's lessons (flip7.server.table.tutorial), for the current game; a
        # private table is not in the lobby's list (a tutorial's).
        self.tutorial: Tutorial | None = None
        self.private = False
        # The fencing token this process runs the table under (flip7.server.cluster.node):
        # every write carries it, and the database refuses it once another process took the
        # table over. None with one process.
        self.fence: int | None = None
        # Set once this process handed the table to another (flip7.server.cluster.spread):
        # what waited for its lock meanwhile is refused as ``moved`` and goes there.
        self.moved = False
        # Who its bots think for (flip7.server.table.thinking.Owner): set by the lobby for a
        # table it creates; a table rebuilt from its log knows only its first seat's
        # identity (the store keeps no client addresses).
        self.owner = Owner()

    # ------------------------------------------------------------------ reading

    def place_of(self, token: str | None) -> Seat:
        """What holds the seat whose token this is; raises ``unauthorized``."""
        if token:
            digest = hash_token(token)
            for place in self.seats:
                if place is not None and place.token_hash is not None and secrets.compare_digest(
                    place.token_hash, digest
                ):
                    return place
        raise TableError(
            "unauthorized", "this request needs the token of a seat at this table", 401
        )

    def seat_of(self, place: Seat) -> int:
        """The seat ``place`` holds; ValueError if it holds none (removed before the game)."""
        return self.seats.index(place)

    def seat_or_none(self, place: Seat) -> int | None:
        """The seat ``place`` holds, or None (removed before the game: a spectator now)."""
        try:
            return self.seats.index(place)
        except ValueError:
            return None

    @property
    def deadline_at(self) -> datetime | None:
        """:attr:`deadline` as the store keeps it."""
        return None if self.deadline is None else datetime.fromtimestamp(self.deadline, UTC)

    def _decision_deadline(self, fresh: bool) -> float | None:
        """At a turn-based table after a change: when the decision the game now waits for
        is made by the stand-in bot. A human's decision gets ``move_hours`` from now when
        it is ``fresh`` (a move or a start) and keeps its clock otherwise (a hand-over, a
        return); a bot's, or none, has no clock."""
        game = self.game
        if self.move_hours is None or self.state != "playing" or game is None:
            return None
        seat = game.to_decide
        place = None if seat is None else self.seats[seat]
        if place is None or place.played_by_bot:
            return None
        if self.deadline is not None and not fresh:
            return self.deadline
        return round(time.time() + self.move_hours * 3600, 3)

    def _tell_turn(self, deadline: float) -> None:
        """A turn-based decision just came to a seat: if its player (an identity) is away,
        the server's turn alerts tell them (flip7.server.services.mail and .push)."""
        game = self.game
        seat = None if game is None else game.to_decide
        place = None if seat is None else self.seats[seat]
        on_turn = self.lobby.on_turn
        if place is not None and place.player_id is not None and not place.connected and (
                on_turn is not None):  # fmt: skip
            on_turn(place.player_id, self.id, self.name, deadline)

    @property
    def to_decide(self) -> int | None:
        """The seat the game waits for (None between games), as the store keeps it."""
        game = self.game
        return None if game is None or self.state != "playing" else game.to_decide

    def check_open(self) -> None:
        """Raise ``closed`` (410) if the table was closed, ``moved`` (409) if it was handed to
        another process: a request that waited for the lock meanwhile."""
        if self.closed:
            raise self.lobby.closed_error(self)
        if self.moved:
            raise TableError("moved", "this table moved to another process; try again", 409)

    def check_held(self) -> None:
        """Raise ``moved`` (409) if, with many processes, this one may no longer run the
        table (it was dropped here, or this process's lease lapsed): checked before a
        change is applied, so that nothing is written under a token that may be stale."""
        if not self.lobby.holds(self):
            raise TableError("moved", "this table moved to another process; try again", 409)

    def summary(self) -> JSONObject:
        now = self.lobby.clock()
        return {
            "id": self.id,
            "name": self.name,
            "state": self.state,
            "seats": [self.presence.seat_json(i, p, now) for i, p in enumerate(self.seats)],
            "rules": self.rules.to_json(),
            "turn_timer": self.turn_timer,
            "bust_odds": self.bust_odds,
            "rated": self.rated,
            "created_at": iso(self.created_at),
            "game_number": self.game_number,
            "pace": pace_of(self.move_hours),
            "move_hours": self.move_hours,
        }

    @property
    def host_token_hash(self) -> str | None:
        """What the store keeps of the host's seat token (the host: Talk.host), None while
        the table has no host: the lobby's list says ``hosting`` to the client holding it."""
        host = self.talk.host
        place = None if host is None else self.seats[host]
        return None if place is None else place.token_hash

    def state_json(self, viewer: Seat | None = None) -> JSONObject:
        """The table as ``viewer`` (None: a spectator) sees it."""
        state: JSONObject = json.loads(self._state_texts([viewer])[viewer])
        return state

    def _state_texts(self, viewers: Iterable[Seat | None]) -> dict[Seat | None, str]:
        """The table as JSON text for each viewer. The parts all viewers share are encoded
        once: this runs for every client after every move."""
        base = self.summary()
        base["version"] = self.version
        base["game_id"] = self.game_id
        base["turn_deadline"] = self.turns.deadline
        base["finished_games"] = [game_id for game_id in self.finished_games]
        base["chat"] = {"host": self.talk.host, "spectators": self.chat.spectators}
        base["rematch_problem"] = (
            self.presence.rematch_plan(self.lobby.clock())[1] if self.state == "over" else None
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
            seat = None if viewer is None else self.seat_or_none(viewer)
            if seat is None:
                view = public
            elif seat == decider:
                if decider_view is None:
                    decider_view = dumps(seat_view(game, seat, self.bust_odds))
                view = decider_view
            else:
                view = f'{{"viewer":{seat},{rest}'
            out[viewer] = head + view + "}"
        return out

    # ------------------------------------------------------------------ messages

    def broadcast(self, version: int, events: str) -> None:
        """Send every client the update of ``version``; ``events`` is their JSON list."""
        self.lobby.relist(self)  # the lobby's list may show it differently now
        clients = list(self.clients)
        if not clients:
            return
        texts = self._state_texts({c.place for c in clients})
        spectators = texts.get(None)
        self._spectator_text = (
            None if spectators is None else (self.version, self.lobby.clock(), spectators)
        )
        head = f'{{"v":1,"type":"update","version":{version},"events":{events},"table":'
        messages = {place: head + text + "}" for place, text in texts.items()}
        for client in clients:
            client.push(messages[client.place])

    def welcome_history(self) -> tuple[str, int | None, bool]:
        """The changes held (the current game's, from its game_started on) as a welcome
        carries them: at most ``welcome_history_bytes`` of the newest (:func:`capped_history`),
        worked out once per version."""
        cached = self._welcome_history
        if cached is None or cached[0] != self.version:
            text, first, cut = capped_history(
                self.history, self.lobby.settings.welcome_history_bytes
            )
            cached = self._welcome_history = (
                self.version, text, first, cut or self.history_dropped
            )
        return cached[1], cached[2], cached[3]

    def missed(self, since: int | None, first: int | None = None) -> list[JSON] | None:
        """The events after version ``since``, if they are all still held (and, with
        ``first``, all carried in a welcome whose history starts at version ``first``)."""
        if since is None:
            return None
        if since >= self.version:
            return []
        if not self.history or self.history[0][0] > since + 1:
            return None
        if first is not None and first > since + 1:
            return None
        return [{"version": v, "events": json.loads(e)} for v, e in self.history if v > since]

    # ------------------------------------------------------------------ changes

    async def change(
        self,
        change: Change,
        extra: Sequence[TableWrite] = (),
        before: Sequence[TableWrite] = (),
    ) -> str:
        """Apply one change (the lock is held), store it, then broadcast it; returns its
        events as JSON text.

        ``before`` and ``extra`` are stored in the same transaction (the table's own row,
        a new game's row). Whether a move is legal is the engine's to say:
        :class:`~flip7.core.errors.DecisionError` if not, with nothing changed."""
        self.check_open()
        self.check_held()
        began = time.perf_counter()
        events = self.apply(change)
        clock = self.deadline
        self.deadline = self._decision_deadline(isinstance(change, Move | Start))
        version = self.version
        if not isinstance(change, Move) or change.by == "human":  # bots keep nothing open
            self.touched = self.lobby.clock()
        now = utcnow()
        writes: list[TableWrite] = [
            *before,
            LogEntry(self.id, version, change, now, self.fence),
            TableUpdate(self.id, version, self.state, now, self.fence, self.to_decide,
                        self.deadline_at),
            *extra,
        ]
        finishing = isinstance(change, Move) and self.game is not None and self.game.over
        if finishing:
            writes.append(self._finish())
        try:
            await self.lobby.store.write(writes)
        except StoreError:
            if isinstance(change, Move) and change.move_id is not None:
                # Not stored, so not made: a retry of its id must not be answered from
                # this memory (with many processes the socket can outlive the table here).
                self._place(change.seat).moves.pop(change.move_id, None)
            if before:  # the table itself was not stored
                raise not_stored("the table") from None
            await self.lobby.reload(self)
            raise not_stored("the change") from None
        # The operator's log: never a token or a seed.
        logged = {k: v for k, v in change.to_json().items() if k not in ("token", "seed")}
        self.log(change.kind, version=version, **logged)
        if finishing and self.game_id is not None and self.lobby.on_finish is not None:
            # Ratings and statistics (flip7.server.services.ratings), before the end screen.
            await self.lobby.on_finish(self.game_id)
        if self.deadline is not None and self.deadline != clock:
            self._tell_turn(self.deadline)  # once stored: an alert about a kept change only
        self.turns.schedule()  # first: the broadcast carries the turn deadline
        self.broadcast(version, events)
        observe = self.lobby.on_move
        if observe is not None and isinstance(change, Move):
            observe(time.perf_counter() - began, change.by)
        return events

    def apply(self, change: Change) -> str:
        """Apply a change to the in-memory table (live, or replaying the log on restart);
        returns its events as JSON text."""
        events: Update
        match change:
            case Join():
                self.seats[change.seat] = Seat(
                    name=change.name, kind="human", token_hash=change.token_hash,
                    player_id=change.player_id, network=change.network,
                    bot_account=change.bot_account, away_from=self.lobby.clock(),
                )
                self.private = self.private or change.private
                if self.version == 0 and self.owner == Owner():  # its creator, rebuilt
                    self.owner = Owner(player_id=change.player_id)
                events = [SeatTaken(change.seat, change.name, "human")]
            case AddBot():
                self.seats[change.seat] = Seat(name=change.name, kind="bot", bot=change.bot)
                events = [SeatTaken(change.seat, change.name, "bot")]
            case Remove():
                self.seats[change.seat] = None
                events = [SeatLeft(change.seat)]
            case Leave():
                self._place(change.seat).left = True
                events = [SeatLeft(change.seat)]
            case HandOver():
                self._place(change.seat).stand_in = True
                events = [StandIn(change.seat, change.by)]
            case Return():
                self._place(change.seat).stand_in = False
                events = [Returned(change.seat)]
            case MarkReady():
                self._place(change.seat).ready = change.ready
                events = [Ready(change.seat, change.ready)]
            case Start():
                events = self._start(change)
            case Move():
                events = self._move(change)
            case TutorialStep():
                assert self.tutorial is not None
                events = [self.tutorial.apply(change)]
            case _:  # pragma: no cover - every change is one of the above
                assert_never(change)
        self.version += 1
        text = dumps([event.to_json() for event in events])
        if len(self.history) == self.history.maxlen:
            self.history_dropped = True
        self.history.append((self.version, text))
        return text

    def _place(self, seat: int) -> Seat:
        place = self.seats[seat]
        assert place is not None, f"table {self.id}: seat {seat} is empty"
        return place

    def _start(self, start: Start) -> Update:
        dropped: tuple[str, ...] = ()
        if self.state == "waiting":
            self.seats = [place for place in self.seats if place is not None]
        elif start.drop:
            # A rematch goes on without the players who left or were gone (the ready
            # check): their tokens hold no seat from now on.
            drop = set(start.drop)
            dropped = tuple(
                p.name for i, p in enumerate(self.seats) if p is not None and i in drop
            )
            self.seats = [p for i, p in enumerate(self.seats) if i not in drop]
        if self.game_id is not None and self.game_id not in self.finished_games:
            self.finished_games.insert(0, self.game_id)
        self.game_id = start.game_id
        self.game_seed = start.seed
        self.game_number += 1
        self.game_started_at = start.at
        names = [place.name for place in self.seats if place is not None]
        self.tutorial = for_start(start.tutorial)  # a guided first game: its deck and lessons
        if self.tutorial is None:
            game = Game.new(names, self.rules, seed=self.game_seed)
            dealt = game.take_events()
        else:
            game, dealt = self.tutorial.script.new_game(names, self.rules, self.game_seed)
        self.game = game
        self.bots = {}
        for seat, place in enumerate(self.seats):
            if place is None:
                continue
            # Move ids belong to one game: a rematch's "m1" is a new move, not a retry.
            place.moves.clear()
            # So do the ready check and a stand-in: the player decides again.
            place.ready = place.stand_in = False
            if place.kind == "bot" and place.bot is not None:
                self.bots[seat] = make_bot(place.bot, derive_seed("bot", self.game_seed, seat))
        self.state = "over" if game.over else "playing"
        self.presence.game_over()
        self.history.clear()
        self.history_dropped = False
        return [GameStarted(self.game_id, self.game_number, dropped), *dealt]

    def _move(self, move: Move) -> Update:
        game = self.game
        assert game is not None
        # The engine checks legality (the one check) before it changes anything.
        events: Update = [*game.apply(move.decision)]
        if move.by == "timer":
            events.insert(0, Timeout(move.seat))
        place = self._place(move.seat)
        if move.by != "bot":  # decisions missed in a row (turn-based: others may hand over)
            place.missed = place.missed + 1 if move.by == "timer" else 0
        if move.move_id is not None:
            # A move is only ever applied at the version it was made against (the log
            # holds no other), so the version before it is this table's version.
            place.remember(move.move_id, self.version, str(move.decision), self.version + 1)
        if game.over:
            self.state = "over"
            self.presence.game_over()
            if self.game_id is not None:
                self.finished_games.insert(0, self.game_id)
        return events

    def _finish(self) -> GameFinish:
        game = self.game
        assert game is not None and self.game_id is not None
        now = utcnow()
        # Seats of identities that joined from one address block (each group once): they
        # do not rate each other. Only which seats, never the block; only where there are.
        shared: JSONObject = {}
        if groups := same_network(self.seats):
            shared["same_network"] = groups
        record = Record.from_game(
            game,
            meta={
                "table": self.id,
                "table_name": self.name,
                "game": self.game_id,
                "number": self.game_number,
                "bots": {str(i): p.bot for i, p in enumerate(self.seats) if p and p.bot},
                "started_at": None if self.game_started_at is None else iso(self.game_started_at),
                "finished_at": iso(now),
                # Each seat's identity (None: anonymous or a bot) and whether the game is
                # rated: what flip7.server.services.ratings reads to write its results.
                "player_ids": [p.player_id if p else None for p in self.seats],
                "rated": self.rated,
                **shared,
                # Whether a seat was told its bust risk: a seat's replay shows it as sent.
                "bust_odds": self.bust_odds,
            },
        )
        return GameFinish(self.game_id, now, game.winners, game.totals, record.dumps())

    async def start_game(self, drop: Sequence[int] = (), tutorial: str | None = None) -> None:
        """Start the table's next game (its lock is held) without the seats ``drop``;
        ``tutorial`` names the script of a guided game (flip7.server.table.tutorial.SCRIPTS).
        Too few players: ``not_enough_players`` (409)."""
        dropped = set(drop)
        seated = [p for i, p in enumerate(self.seats) if p is not None and i not in dropped]
        problem = players_problem(len(seated), self.rules, most=MAX_SEATS)
        if problem is not None:
            raise TableError("not_enough_players", f"{problem} seated (bots count)", 409)
        seed = self.lobby.next_seed()
        game_id = secrets.token_urlsafe(6)
        now = utcnow()
        row = GameInsert(game_id, self.id, self.game_number + 1, seed,
                         tuple(p.name for p in seated), self.rules.to_json(), now)
        start = Start(game_id, seed, now, tuple(sorted(dropped)), tutorial)
        await self.change(start, extra=[row])

    async def rematch_if_ready(self) -> str | None:
        """Start the next game if every human staying is ready (the lock is held); returns
        why the seats staying cannot play it, or None."""
        if self.closed or self.state != "over":
            return None
        now = self.lobby.clock()
        if not self.presence.rematch_ready(now):
            return None
        drop, problem = self.presence.rematch_plan(now)
        if problem is None:
            await self.start_game(drop)
        return problem

    # ------------------------------------------------------------------ life

    @property
    def humans_here(self) -> bool:
        """Whether a seated human (not one who left) is connected. Bots think only then:
        a table its humans have all gone from does not keep the server's CPU busy."""
        return any(
            p is not None and p.kind == "human" and not p.left and p.connections > 0
            for p in self.seats
        )

    @property
    def awaits_human(self) -> bool:
        """Whether a seated human has not left (connected or away): an idle game of theirs
        is suspended, not closed (flip7.server.table.expiry)."""
        return any(p is not None and p.kind == "human" and not p.left for p in self.seats)

    def deserted(self, now: float) -> bool:
        """Whether every seated human has been disconnected for ``lobby_hide_after``: the
        lobby's list leaves the table out until one comes back."""
        hide = self.lobby.settings.lobby_hide_after
        return not self.humans_here and now - self.human_seen >= hide

    def stop(self) -> None:
        self.turns.stop()
        self.presence.stop()
        self.lobby.thinking.forget(self.id)

    def log(self, event: str, **fields: JSON) -> None:
        """Tell the operator's log ``event`` at this table."""
        self.lobby.log_event(event, self, **fields)

    def shut(self, frame: str, code: int) -> None:
        """Close the table (expiry; its closing is stored): stop its bots and timers, send
        every client ``frame`` and close its socket with ``code``."""
        self.closed = True
        self.stop()
        for client in list(self.clients):
            client.push(frame)
            client.close(code)
        self.clients.clear()

    # ------------------------------------------------------------------ connections

    def spectator_welcome_refusal(self) -> TableError | None:
        """Why a spectator may not be welcomed now, or None (its welcome's bytes are then
        taken from the table's spectators' budget): every spectator of a table, whatever
        its address, shares ``spectator_welcome_bytes_per_minute``, so that strangers
        reading a long game's welcome again and again cannot keep the server busy.
        Seated players are never held to it. Judged before the welcome is made."""
        size = len(self.welcome_history()[0]) + 4096  # the history, and about the rest
        now = self.lobby.clock()
        if self.spectator_welcomes.take(now, size):
            return None
        settings = self.lobby.settings
        wait = max(1, math.ceil(self.spectator_welcomes.wait(now, size)))
        return TableError(
            "rate_limited",
            "too many spectators are joining this table: at most "
            f"{settings.spectator_welcome_bytes_per_minute} bytes of welcomes a minute to its "
            f"spectators ({settings.spectator_welcome_bytes_burst} at once, limit "
            f"spectator_welcome_bytes_per_minute); try again in {wait} seconds",
            429, wait,
        )

    def _welcome_text(self, place: Seat | None) -> str:
        """The table as a newcomer at ``place`` sees it; a spectator's is the one the last
        broadcast sent every spectator (every change is broadcast), while the version is
        the same and for at most :data:`SPECTATOR_TEXT_SECONDS` (the parts that follow
        the clock, such as a seat's player gone, are never older than that)."""
        if place is not None:
            return self._state_texts([place])[place]
        now = self.lobby.clock()
        kept = self._spectator_text
        if kept is not None and kept[0] == self.version and now - kept[1] <= SPECTATOR_TEXT_SECONDS:
            return kept[2]
        text = self._state_texts([None])[None]
        self._spectator_text = (self.version, now, text)
        return text

    async def attach(self, client: Client, last_version: int | None = None) -> None:
        """Welcome a client with the table as it may see it, then send it every update."""
        async with self.lock:
            place = client.place
            seat = None if place is None else self.seat_of(place)
            # A reload, a late spectator and a reconnect all get the whole current game, or
            # its newest part within welcome_history_bytes (then history_cut says so).
            history, first, cut = self.welcome_history()
            missed = self.missed(last_version, first)
            client.push(
                f'{{"v":1,"type":"welcome","seat":{dumps(seat)},'
                f'"table":{self._welcome_text(place)},"missed":{dumps(missed)},'
                f'"chat":{dumps(self.chat.to_json())},"history":{history}'
                + (',"history_cut":true}' if cut else "}")
            )
            self.clients.add(client)
            if place is not None:
                place.connections += 1
                if place.connections == 1:
                    self._connection(place, True)
                    await self._returned(place)
                    self.turns.resume()
                    self.presence.wait()

    async def detach(self, client: Client) -> None:
        async with self.lock:
            self.clients.discard(client)
            place = client.place
            if place is not None:
                place.connections -= 1
                if place.connections == 0:
                    place.away_from = self.lobby.clock()
                    self._connection(place, False)
                    self.presence.wait()

    def _connection(self, place: Seat, connected: bool) -> None:
        self.human_seen = self.lobby.clock()  # the idle time of expiry counts from here
        with contextlib.suppress(ValueError):
            seat = self.seat_of(place)
            event = Connection(seat, connected)
            self.log(event.type, seat=seat)
            self.broadcast(self.version, dumps([event.to_json()]))

    async def _returned(self, place: Seat) -> None:
        """The player of a seat the stand-in bot plays is back: it is theirs again, from
        their next decision on (stored, so that a restart agrees)."""
        if not place.stand_in or place not in self.seats:
            return
        try:
            await self.change(Return(self.seat_of(place)))
        except TableError as exc:  # not stored: the table was rebuilt from its log
            self.log("returned_not_stored", code=exc.code)
