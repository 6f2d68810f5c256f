"""The lobby: every table of the server, and the requests that change them.

A request (create a table, join it, add a bot, start, move, ...) is checked here, then made
as a change of the table (flip7.server.table.changes) under the table's lock
(:meth:`flip7.server.table.table.Table.change`: applied, stored, broadcast). The lobby
holds the storage behind the tables (flip7.server.table.storage) and rebuilds them from it
on a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import math
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Protocol

from flip7.core.decisions import Decision
from flip7.core.errors import DecisionError
from flip7.core.jsontypes import JSON, JSONObject
from flip7.core.rules import Rules
from flip7.core.seeds import derive_seed
from flip7.server.base.formats import utcnow
from flip7.server.base.limits import AddressBudget, address_block
from flip7.server.base.names import taken_by
from flip7.server.base.settings import Settings
from flip7.server.base.shared import Shared
from flip7.server.table.bot_seats import (
    bot_choice,
    bot_seat_name,
    check_search_bot,
    offered_bots,
)
from flip7.server.table.changes import (
    AddBot,
    HandOver,
    Join,
    Leave,
    MarkReady,
    Move,
    Remove,
    Start,
    TutorialStep,
    change_from_json,
)
from flip7.server.table.errors import TableError, clean_name, not_stored, spend
from flip7.server.table.expiry import Expiry, closed_message
from flip7.server.table.options import DEFAULT_SEATS, TableOptions
from flip7.server.table.seat import Seat, hash_token, token_problem
from flip7.server.table.storage import StoreError, TableInsert, TableRow, TableStorage, TableUpdate
from flip7.server.table.table import Table
from flip7.server.table.thinking import Owner, Thinking
from flip7.server.table.turns import STAND_IN_BOT
from flip7.server.table.tutorial import SCRIPTS

__all__ = ["Lobby", "Owners"]

log = logging.getLogger("flip7.server")

# The key of the budget every address shares (no client address looks like it).
EVERYONE = "*"


class Owners(Protocol):
    """What the lobby and its tables ask of the cluster of processes they are part of
    (flip7.server.cluster.node.Cluster)."""

    dirty: set[str]

    async def start(self) -> None: ...
    async def close(self) -> None: ...
    async def drop(self, table: Table, why: str) -> None: ...
    async def let_go(self, table: Table) -> None: ...
    async def adopt(self, table_id: str) -> Table | str | None: ...
    async def claim_new(self, table_id: str) -> int: ...
    async def placing(self) -> Callable[[str], bool]: ...
    def holds(self, table: Table) -> bool: ...


class Lobby:
    """All tables of the server, with the store behind them."""

    def __init__(self, store: TableStorage, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        # Tables this process runs (with many processes, flip7.server.cluster.node: those it
        # owns; the others are reached through it).
        self.tables: dict[str, Table] = {}
        # Suspended tables being rebuilt (wake): one rebuild each, whoever asks.
        self._waking: Shared[str, Table | None] = Shared()
        # This process's id (a fresh one at every start): health names it, and with many
        # processes it names the owner of a table.
        self.node = secrets.token_hex(6)
        # With many processes (flip7.server.cluster.node.Cluster, attached by the app): the
        # tables this process owns, and the way to the others.
        self.cluster: Owners | None = None
        # Called once a finished game is stored (flip7.server.services.ratings.Results.finished).
        self.on_finish: Callable[[str], Awaitable[None]] | None = None
        # Told of every move applied, stored and sent: its seconds and who made it
        # ("human", "bot"), for the operator's metrics (flip7.server.api.metrics).
        self.on_move: Callable[[float, str], None] | None = None
        # A turn-based decision came to an away identity: (player id, table id, table name,
        # deadline), for the turn alerts (flip7.server.services.mail and .push).
        self.on_turn: Callable[[str, str, str, float], None] | None = None
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
        # Tables created by every address together (one bucket, under the key EVERYONE):
        # addresses are many, the server's work for a new table is one.
        self.creations_all = AddressBudget(
            settings.tables_per_minute_all, settings.tables_burst_all, clock=lambda: self.clock()
        )
        # The key of the labels of address blocks kept with seats (network_of): never
        # stored, so that the table's log holds nothing an address can be read back from.
        self._network_key = secrets.token_bytes(16)
        self.expiry = Expiry(self)
        # Rebuilt tables checking whether their rematch is due (see resume).
        self._resuming: set[asyncio.Task[None]] = set()
        # Bot thinking: worker processes (started on first use), a CPU budget per table and
        # one per owner of tables.
        self.thinking = Thinking(
            settings.bot_workers, settings.bot_seconds_per_minute, stand_in=STAND_IN_BOT,
            owner_seconds_per_minute=settings.owner_bot_seconds_per_minute,
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
            move_hours=row.move_hours,
        )
        games = {g.id: g for g in row.games}
        for entry in row.log:
            change = change_from_json(entry.kind, entry.data)
            if isinstance(change, Start):  # the game's row holds its seed and start
                stored = games[change.game_id]
                change = replace(change, seed=stored.seed, at=stored.started_at)
            table.apply(change)
            if table.version != entry.seq:  # pragma: no cover - a corrupt log
                raise RuntimeError(f"table {row.id}: log entry {entry.seq} out of order")
        table.chat.restore(row.chat, row.spectator_chat)
        # The running decision's clock as stored, not a fresh one (flip7.server.table.turns).
        table.deadline = None if row.deadline is None else row.deadline.timestamp()
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
            if client.place is not None:
                token_hash = client.place.token_hash
                client.place = next(
                    (p for p in fresh.seats if p and p.token_hash == token_hash), None
                )
                if client.place is not None:
                    client.place.connections += 1
        table.stop()
        self.tables[table.id] = fresh
        fresh.turns.schedule()

    async def close(self) -> None:
        await self.expiry.stop()
        await self._waking.close()
        for table in self.tables.values():
            table.stop()
        if self.cluster is not None:
            await self.cluster.close()
        await self.thinking.close()

    def log_event(self, event: str, table: Table | None, **fields: JSON) -> None:
        record: JSONObject = {"event": event}
        if table is not None:
            record["table"] = table.id
        record.update(fields)
        log.info(json.dumps(record, separators=(",", ":"), default=str))

    # ------------------------------------------------------------------ requests

    def _new_table_id(self, here: Callable[[str], bool] | None = None) -> str:
        """A table id no table here has; with a slot (many processes behind the proxy), one
        of this process's slot, so that the proxy sends the table's clients here; with many
        processes, one placed ``here`` (flip7.server.cluster.spread), so that it is not
        handed to another at once (a few tries: each id lands in a slot and a place at
        random)."""
        slot = self.settings.slot
        while True:
            table_id = secrets.token_urlsafe(6)
            if (
                table_id not in self.tables
                and (slot is None or slot.holds(table_id))
                and (here is None or here(table_id))
            ):
                return table_id

    def get(self, table_id: str) -> Table:
        """An open table; raises ``no_table`` (:meth:`find` also tells closed ones)."""
        table = self.tables.get(table_id)
        if table is None:
            raise TableError("no_table", f"there is no table {table_id!r}", 404)
        return table

    async def find(self, table_id: str) -> Table:
        """An open table (a suspended one rebuilt: :meth:`wake`); raises ``closed`` (410)
        for a closed one, else ``no_table``."""
        table = self.tables.get(table_id) or await self.wake(table_id)
        if table is None:
            raise await self.gone(table_id)
        return table

    async def wake(self, table_id: str) -> Table | None:
        """The table ``table_id`` if it is open here: in memory, or suspended
        (flip7.server.table.expiry) and now rebuilt from its log exactly as it was, stored
        as live again, its bots and timers paused until one of its humans is here. With
        many processes the cluster does this (Cluster.locate); here None."""
        table = self.tables.get(table_id)
        if table is not None or self.cluster is not None or len(table_id) > 16:
            return table
        return await self._waking.run(table_id, lambda: self._wake(table_id))  # one rebuild

    async def _wake(self, table_id: str) -> Table | None:
        table = self.tables.get(table_id)
        if table is not None:
            return table
        stored = await self.store.table_state(table_id)
        if stored is None or stored[0] != "suspended":
            return None
        row = await self.store.load_table(table_id, chat=self.chat_kept)
        if row is None:  # pragma: no cover - deleted between the two reads
            return None
        table = self.rebuild(row)
        try:
            await self.woken(table)
        except StoreError:
            raise not_stored("the suspended table's return") from None
        self.tables[table_id] = table
        self.resume(table)
        return table

    async def woken(self, table: Table) -> None:
        """``table`` was rebuilt from a suspended row: stored as live again (raises
        StoreError if the store refuses)."""
        await self.store.write([TableUpdate(table.id, table.version, table.state, utcnow(),
                                            table.fence, table.to_decide,
                                            table.deadline_at)])  # fmt: skip
        self.log_event("table_resumed", table, version=table.version)

    async def wake_due(self, table_id: str) -> None:
        """The suspended turn-based table ``table_id`` is due (flip7.server.table.expiry):
        rebuilt here (with many processes: taken over), its clock runs out at once."""
        if self.cluster is not None:
            await self.cluster.adopt(table_id)
        else:
            await self.wake(table_id)

    async def let_go(self, table: Table) -> None:
        """``table`` was suspended and dropped from memory: with many processes, whichever
        is asked for it next takes it over."""
        if self.cluster is not None:
            await self.cluster.let_go(table)

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
        return TableError("closed", closed_message(table.id, self.expiry.ttl(table)), 410)

    def _closed(self, table_id: str, played: bool) -> TableError:
        # A table that had a game was closed from playing or over, otherwise from waiting.
        return TableError("closed", self.expiry.message(table_id, played), 410)

    def holds(self, table: Table) -> bool:
        """Whether this process may change ``table`` now: always with one process; with
        many, while it runs the table under a lease that surely has not lapsed."""
        return self.cluster is None or self.cluster.holds(table)

    def relist(self, table: Table) -> None:
        """``table`` changed: the lobby's list may show it differently now (with many
        processes, it is published again)."""
        if self.cluster is not None:
            self.cluster.dirty.add(table.id)

    def listing(self) -> list[JSONObject]:
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

    def host_token_hash(self, table_id: str) -> str | None:
        """What the store keeps of the host's seat token at ``table_id`` (Table.host_token_hash),
        None for a table that has no host or is not here."""
        table = self.tables.get(table_id)
        return None if table is None else table.host_token_hash

    def network_of(self, address: str | None) -> str | None:
        """An opaque label of ``address``'s block (``rating_network_ipv4_prefix``,
        ``…_ipv6_prefix``), kept with a seat taken from it (None: the server's own call):
        equal for two addresses of one block, under this process's key. Seats taken before
        and after a restart do not compare, which only ever lets a game be rated."""
        if address is None:
            return None
        block = address_block(address, self.settings.rating_network_ipv4_prefix,
                              self.settings.rating_network_ipv6_prefix)
        return hmac.new(self._network_key, block.encode(), hashlib.sha256).hexdigest()[:16]

    async def create_table(
        self,
        table_name: str,
        name: str,
        seats: int = DEFAULT_SEATS,
        rules: JSONObject | None = None,
        turn_timer: int | None = None,
        address: str | None = None,
        bust_odds: bool = True,
        private: bool = False,
        rated: bool | None = None,
        player_id: str | None = None,
        pace: str = "live",
        move_hours: int | None = None,
    ) -> tuple[Table, int, str]:
        """A new table ``table_name`` with its creator, called ``name``, in seat 0; returns
        the table, the seat and its token (:class:`TableOptions` checks the options).
        ``bust_odds`` False: the seat that must Hit or Stay is never told its bust risk.
        ``private``: not in the lobby's list (a tutorial's table: never rated). ``rated``:
        whether its games change ratings (None: unless its rules change the game,
        flip7.server.table.options.rated_by_default). ``player_id``: the creator's identity.
        ``pace`` "turn_based": each decision has ``move_hours`` (flip7.server.table.turns).

        ``address`` (the client's) is held to ``tables_per_minute``: every attempt counts,
        refused ones too. None: the server's own call, not counted. A valid request is then
        held to ``tables_per_minute_all`` (every address together: 503 ``busy``), and room
        is made (flip7.server.table.expiry.Expiry.make_room: the oldest unattended table
        closed, or 503 ``full`` when every table is attended)."""
        spend(self.creations, address, "tables created", "tables_per_minute")
        options = TableOptions.checked(
            seats, rules, turn_timer, bust_odds, private, rated, self.settings.min_turn_timer,
            self.settings.max_target_score,
            self.settings.rated_min_target_score,
            pace,
            move_hours,
        )
        table_name = clean_name(table_name, "table name", self.settings.table_name_chars)
        name = clean_name(name, "player name", self.settings.player_name_chars)
        if address is not None:
            self._spend_all()
        await self.expiry.make_room()
        here = None if self.cluster is None else await self.cluster.placing()
        table_id = self._new_table_id(here)
        now = utcnow()
        table = Table(self, table_id, table_name, now, options.seats, options.rules,
                      options.turn_timer, options.bust_odds, options.rated, options.move_hours)
        table.owner = Owner(address, player_id)  # its bots' budget and caps are the owner's
        if self.cluster is not None:
            # Run by this process from its first change on (its owner row is committed
            # first: the first change carries its token).
            try:
                table.fence = await self.cluster.claim_new(table_id)
            except Exception:
                raise not_stored("the table") from None
        row = TableInsert(table_id, table_name, now, options.seats, options.rules.to_json(),
                          options.turn_timer, options.bust_odds, private, options.rated,
                          options.move_hours)
        if not private:  # the server's own (a tutorial's) is started at once
            self.expiry.created(table)
        async with table.lock:
            token = secrets.token_urlsafe(24)
            join = Join(0, name, hash_token(token), player_id, private,
                        self.network_of(address))
            # The table row goes in the same transaction as its first change.
            self.tables[table_id] = table
            try:
                await table.change(join, before=[row])
            except TableError:
                self.tables.pop(table_id, None)
                raise
        self.log_event("table_created", table, seats=options.seats, rules=options.rules.to_json())
        return table, 0, token

    def _spend_all(self) -> None:
        """Take a token of the tables created by every address, or refuse with 503 ``busy``
        and how long to wait: the server's pace, not this client's fault."""
        if self.creations_all.take(EVERYONE):
            return
        budget = self.creations_all
        wait = budget.retry_after(EVERYONE)
        raise TableError(
            "busy",
            f"the server is creating as many tables as it can: at most {budget.rate * 60:g} "
            f"a minute from everyone ({budget.burst:g} at once, limit tables_per_minute_all); "
            f"try again in {max(1, math.ceil(wait))} seconds",
            503,
            retry_after=wait,
        )

    async def join(
        self, table: Table, name: str, address: str | None = None,
        player_id: str | None = None, token: str | None = None, bot_account: bool = False,
    ) -> tuple[int, str]:
        """Seat the player called ``name`` in the lowest empty seat; ``address`` is held to
        ``joins_per_minute`` (every attempt counts; None is not counted). ``player_id``: the
        identity the seat counts for (one seat per identity at a table: 409
        ``already_seated``). ``token``: the seat's secret as the client chose it (else a new
        one); a join sent again with the same name and token gets the same seat back. A
        token that is no random secret (:func:`flip7.server.table.seat.token_problem`) is
        400 ``weak_token``, one that holds another seat of the table 409 ``token_taken``:
        a token is one seat's."""
        spend(self.joins, address, "seats taken", "joins_per_minute")
        name = clean_name(name, "player name", self.settings.player_name_chars)
        async with table.lock:
            if token is not None and not table.closed:
                again = self._seated_with(table, name, token)
                if again is not None:
                    # The first join went through and its answer was lost on the way: a
                    # player on a phone would otherwise be locked out by their own name.
                    return again, token
            seat = self._free_seat(table, name)
            if player_id is not None and any(
                p is not None and p.player_id == player_id for p in table.seats
            ):
                raise TableError(
                    "already_seated", "your identity already has a seat at this table", 409
                )
            if token is None:
                token = secrets.token_urlsafe(24)
            else:
                self._check_token(table, token)
            await table.change(Join(seat, name, hash_token(token), player_id,
                                    network=self.network_of(address), bot_account=bot_account))
        return seat, token

    async def may_invite(self, table: Table, token: str | None) -> None:
        """Whether the holder of ``token`` may invite a bot account to ``table``: it is the
        table's host (403 ``not_host``), and the table waits for its players with an empty
        seat (409 ``started``, ``table_full``)."""
        async with table.lock:
            place = self._human(table, token)
            if table.seat_or_none(place) != table.talk.host:
                raise TableError("not_host", "only the table's host, the first seated player, "
                                 "can invite a bot account", 403)
            if table.state != "waiting":
                raise TableError("started", "the game has started: seats can be taken only "
                                 "before", 409)
            if all(p is not None for p in table.seats):
                raise TableError("table_full", "every seat at this table is taken", 409)

    @staticmethod
    def _check_token(table: Table, token: str) -> None:
        """Refuse a token a client chose for a new seat: too weak to be a secret, or
        already the token of a seat at ``table`` (under another name: the same name was
        a retry, answered before)."""
        problem = token_problem(token)
        if problem is not None:
            raise TableError("weak_token", problem, 400)
        try:
            table.place_of(token)
        except TableError:
            return
        raise TableError(
            "token_taken", "this token is already the token of another seat at this table: "
            "a seat's token is its own; send a new random one, or none", 409,
        )

    @staticmethod
    def _seated_with(table: Table, name: str, token: str) -> int | None:
        """The seat ``name`` holds at ``table`` under ``token`` (a join sent twice), if any."""
        try:
            place = table.place_of(token)
        except TableError:
            return None
        if place.kind == "human" and place.name == name and not place.left:
            return table.seat_of(place)
        return None

    def _free_seat(self, table: Table, name: str) -> int:
        if table.closed:
            raise self.closed_error(table)
        if table.state != "waiting":
            raise TableError("started", "the game has started: seats can be taken only before", 409)
        # Not only the same name: one a reader could take for it ("Аnn" with a Cyrillic А
        # beside "Ann") would let a newcomer pass for someone seated.
        other = taken_by(name, (p.name for p in table.seats if p is not None))
        if other == name:
            raise TableError("name_taken", f"someone at this table is already called {name!r}", 409)
        if other is not None:
            raise TableError(
                "name_taken",
                f"{name!r} looks too much like {other!r}, who already sits at this table; "
                "choose a name that reads differently",
                409,
            )
        for seat, place in enumerate(table.seats):
            if place is None:
                return seat
        raise TableError("table_full", "every seat at this table is taken", 409)

    def bot_list(self) -> list[str]:
        """The bots a seat can be filled with: the ladder, then the operator's own."""
        return offered_bots(self.settings.extra_bots)

    async def add_bot(self, table: Table, token: str | None, bot: str) -> int:
        """Seat a bot (a level's name, or a spec) in the lowest empty seat: a level's bot
        gets a first name ("Mia (Medium bot)"), a spec's a numbered one ("Threshold bot 1")."""
        spec, label, level = bot_choice(bot, self.settings.extra_bots)
        async with table.lock:
            self._human(table, token)
            name = bot_seat_name(label, level, (p.name for p in table.seats if p is not None))
            seat = self._free_seat(table, name)
            check_search_bot(spec, table, self.tables.values(), self.settings)
            await table.change(AddBot(seat, spec, name))
        return seat

    async def remove_seat(self, table: Table, token: str | None, seat: int) -> None:
        """Empty ``seat`` before the game: a bot's, or the caller's own."""
        async with table.lock:
            me = self._human(table, token)
            if table.state != "waiting":
                raise TableError("started", "seats can be removed only before the game starts", 409)
            if not 0 <= seat < len(table.seats) or table.seats[seat] is None:
                raise TableError("no_seat", f"seat {seat} is empty", 404)
            target = table.seats[seat]
            assert target is not None
            if target.kind == "human" and target is not me:
                raise TableError("forbidden", "you can remove bots and yourself, not others", 403)
            await table.change(Remove(seat))

    async def leave(self, table: Table, token: str | None) -> None:
        """Leave the table: the seat is emptied before the game, a bot plays it during one."""
        async with table.lock:
            me = self._human(table, token)
            seat = table.seat_of(me)
            if table.state == "waiting":
                await table.change(Remove(seat))
            else:
                await table.change(Leave(seat))
                # At the end screen the others may have been waiting only for this player.
                await table.rematch_if_ready()

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
            await table.start_game()

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
                await table.change(MarkReady(table.seat_of(me), ready))
            problem = await table.rematch_if_ready()
            if problem is not None:
                raise TableError("not_enough_players", problem, 409)

    def resume(self, table: Table) -> None:
        """A table just rebuilt from its log (a restart, or a takeover by this process):
        its bots and timers go on, and a rematch that every player was ready for when the
        last process stopped (before its start was stored) starts now."""
        table.turns.schedule()
        if table.state == "over":
            task = asyncio.create_task(self._rematch_after_rebuild(table))
            self._resuming.add(task)
            task.add_done_callback(self._resuming.discard)

    async def _rematch_after_rebuild(self, table: Table) -> None:
        async with table.lock:
            with contextlib.suppress(TableError):  # not stored: retried by the next ready
                await table.rematch_if_ready()

    async def handover(self, table: Table, token: str | None, seat: int) -> None:
        """Another player hands the seat of a player away on their turn to the stand-in
        bot, once that player has been away for ``handover_grace``; the seat is theirs
        again when they reconnect. Refused: ``no_seat`` (404), your own seat or a player
        who left (403), ``no_game``, ``not_away`` (connected, not their turn, or a bot plays
        it already) and ``too_soon`` (with the seconds to wait) (409)."""
        async with table.lock:
            me = self._human(table, token)
            if not 0 <= seat < len(table.seats) or table.seats[seat] is None:
                raise TableError(
                    "no_seat", f"there is no player in seat {seat}; seats are 0 to "
                    f"{len(table.seats) - 1}", 404,
                )
            target = table.seats[seat]
            assert target is not None
            table.presence.check_handover(target, me)
            await table.change(HandOver(seat, by=table.seat_of(me)))

    def next_seed(self) -> int:
        """The shuffle seed of the next game started at any table (from ``--seed``, if the
        operator fixed one: then every game is dealt again alike)."""
        self.games_started += 1
        if self.settings.seed is None:
            return secrets.randbits(63)
        return derive_seed("server", self.settings.seed, self.games_started)

    def _human(self, table: Table, token: str | None) -> Seat:
        table.check_open()
        place = table.place_of(token)
        if place.left:
            raise TableError("left", "you have left this table", 403)
        return place

    async def move(
        self, table: Table, place: Seat, move_id: str, version: int, decision: Decision
    ) -> int:
        """Apply a human's decision (parsed by the protocol); returns the version after it.
        A retry of ``move_id`` in the same game (same version, same decision) returns the
        same version without applying anything; the id with another version or decision is
        ``reused_id``. Whether the decision is legal is the engine's to say (``illegal_move``
        with its message), after the turn and the version are checked here. ``place``: what
        holds the mover's seat."""
        async with table.lock:
            if self.tables.get(table.id) is not table:
                # Dropped here (its write refused, or taken over) while this socket waited
                # to close: nothing was applied; the client reconnects and sends it again.
                raise not_stored("the move")
            done = place.moves.get(move_id)
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
            table.check_open()
            game = table.game
            if game is None or table.state != "playing":
                raise TableError("no_game", "there is no game in play at this table", 409)
            seat = table.seat_or_none(place)
            if seat is None:
                raise TableError("spectator", "you no longer have a seat here", 403)
            if place.left:
                raise TableError("left", "you have left this table", 403)
            if version != table.version:
                raise TableError(
                    "stale_version",
                    f"the move was made against version {version}, "
                    f"but the table is at version {table.version}",
                    409,
                )
            if game.to_decide != seat:
                deciding = None if game.to_decide is None else table.seats[game.to_decide]
                name = "nobody" if deciding is None else deciding.name
                raise TableError("not_your_turn", f"it is {name}'s decision, not yours", 409)
            # On a tutorial's script, only the move its lesson asks for.
            guide = table.tutorial
            lesson = None if guide is None else guide.refusal(game, seat, decision)
            if lesson is not None:
                raise TableError("tutorial_step", lesson, 409)
            try:
                await table.change(Move(seat, decision, "human", move_id))
            except DecisionError as exc:  # not legal now: the engine's message
                raise TableError("illegal_move", str(exc), 422) from None
            return table.version

    # ------------------------------------------------------------------ the tutorial

    async def create_tutorial(
        self, name: str, script: str, address: str | None = None
    ) -> tuple[Table, int, str]:
        """A guided first game (flip7.server.table.tutorial): a private table of the player
        called ``name`` and the script's bots, its game started at once on the script's
        deck. Held to ``tables_per_minute`` as any table is; returns the table, the seat and
        its token."""
        guide = SCRIPTS[script]
        table, seat, token = await self.create_table(
            guide.table_name, name, guide.seats, guide.rules.to_json(), address=address,
            private=True,
        )
        for _ in range(guide.bots):
            await self.add_bot(table, token, guide.bot)
        async with table.lock:
            self._human(table, token)
            await table.start_game(tutorial=guide.id)
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
            await table.change(TutorialStep(None if skip else read))
