"""Bot thinking for the server: ceilings on public bot parameters, and a bounded pool of
worker processes shared fairly between the owners of tables, with CPU budgets per table and
per owner.

Searching bots (``targeting`` and up, and the operator's own ``--bot module:Class`` bots)
decide in worker processes (``Settings.bot_workers`` of them, by default one per usable
core but one, started on first use), never on the event loop: the table's bot and game are
pickled to a worker, which sends back the decision and the bot as it is after deciding (its
random state moved on), so a seeded server plays exactly the games that in-process play
would. The cheap bots (:data:`IN_PROCESS`, microseconds a decision) decide on the event
loop: a pickle round trip would cost them more than their thinking.

Budgets, in the units a stranger cannot multiply: a table's bots may use
``bot_seconds_per_minute`` seconds of worker CPU a minute, and all the tables of one
:class:`Owner` (the address that created them, and the creator's identity) share
``owner_bot_seconds_per_minute`` (token buckets holding a minute's worth). Ten tables of one
address get one owner's budget, not ten tables' worth. A table past either budget has its
bots decide with the cheap stand-in (:data:`STAND_IN`) on the event loop until it recovers.

Fair between owners: each table has at most one decision waiting (its lock is held while
its bot thinks), and a free worker takes the waiting decision of the owner who has used
the least worker CPU lately, then of the table with the most budget left, the longest
waiting first among equals. When the pool is oversubscribed (as many decisions waiting as
there are workers, all of them busy), an owner who has used clearly more than the average
of the owners waiting or thinking has its bots decide with the stand-in instead of
joining the queue (logged: ``bot_shed``): the heaviest consumers drop to the cheap level
first, and a table with a couple of Expert bots keeps its pace beside a flood.

A worker that dies is replaced and the decision tried once more; a worker that thinks
longer than :meth:`Thinking.hang_seconds` is killed and replaced. Either way, if no
answer comes, the stand-in decides, so a table never stalls on a bot.

>>> over_ceiling("mcts:iters=10000000")
'bot mcts: iters may be at most 2000 on this server, got 10000000'
>>> over_ceiling("mcts:iters=400,time=0.2") is None
True
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import multiprocessing
import pickle
import signal
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Literal

from flip7.bots import Bot, BotSpec, make_bot, parse_bot_spec
from flip7.core.decisions import Decision
from flip7.core.jsontypes import JSON, JSONObject
from flip7.core.machine import lower_priority
from flip7.engine.game import Game
from flip7.server.base.limits import TokenBucket

__all__ = [
    "CEILINGS",
    "IN_PROCESS",
    "STAND_IN",
    "Owner",
    "StandInWhy",
    "Thinking",
    "Thought",
    "ceilings_text",
    "over_ceiling",
]

log = logging.getLogger("flip7.server")

# How much lower than the server a bot worker runs (os.nice): see _serve.
BOT_NICENESS = 5

# Who decides for a table over its budget, or when a worker gives no answer (the server
# passes its own stand-in, flip7.server.table.turns.STAND_IN_BOT).
STAND_IN = "basic"

# Ladder bots that decide on the event loop: a few microseconds a decision, whatever
# their parameters (measured: under 0.1 ms at worst, at 4 and at 18 players).
IN_PROCESS = frozenset({"random", "threshold", "basic"})

# The server's ceilings on the parameters of the ladder bots it offers, below the
# library's own maxima (flip7.bots.Param.high), which stay for library and CLI users.
# Each is at or above the parameter's default. Measured per decision on this project's
# 2-core machine, 18 players: mcts at these ceilings about 0.5 s on average, 0.9 s at
# worst; winprob with depth 4 a few milliseconds. The other parameters (threshold's t,
# spread, z) do not change what a decision costs.
CEILINGS: dict[str, dict[str, int | float]] = {
    "winprob": {"reach": 200, "depth": 4},
    "mcts": {"iters": 2000, "time": 0.5, "top": 8, "horizon": 200, "reach": 200, "depth": 4},
    # Networks, no search: the horizon costs nothing, each use weighed a row of inputs.
    "learned": {"horizon": 200, "top": 8},
}


def ceilings_text() -> str:
    """The ceilings as one line, for messages and the docs.

    >>> ceilings_text()
    'winprob: reach<=200, depth<=4; mcts: iters<=2000, time<=0.5, top<=8, horizon<=200, ...'
    """
    return "; ".join(
        f"{name}: " + ", ".join(f"{key}<={_number(value)}" for key, value in limits.items())
        for name, limits in CEILINGS.items()
    )


def over_ceiling(spec: str | BotSpec) -> str | None:
    """Why a public bot spec is refused (a parameter over the server's ceiling), or None.

    Refused rather than lowered: a player who asks for a stronger bot than is offered
    should know they did not get it.

    >>> over_ceiling("winprob:depth=6")
    'bot winprob: depth may be at most 4 on this server, got 6'
    >>> over_ceiling("threshold:200") is None
    True
    """
    parsed = parse_bot_spec(spec) if isinstance(spec, str) else spec
    if parsed.user:
        return None
    name = parsed.text.partition(":")[0]
    for key, ceiling in CEILINGS.get(name, {}).items():
        value = parsed.params.get(key)
        if value is not None and value > ceiling:
            return (
                f"bot {name}: {key} may be at most {_number(ceiling)} on this server, "
                f"got {_number(value)}"
            )
    return None


def _number(value: int | float) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


@dataclass(frozen=True, slots=True)
class Owner:
    """Who a table's bots think for: the address that created the table (as the routes give
    it) and the creator's identity (a player id), each when known. Every table of an owner
    shares the owner's budget, under each of its :meth:`keys`: a new identity from the same
    address, or the same identity from another address, is still the same owner.

    A table rebuilt from its log (a restart, a takeover by another process) knows its
    creator's identity from its first seat, never the address (the store keeps no client
    addresses); a table with neither is its own owner.

    >>> Owner("203.0.113.7", "p1").keys("t1")
    ('address 203.0.113.7', 'player p1')
    >>> Owner().keys("t1")
    ('table t1',)
    >>> Owner("203.0.113.7").shares(Owner("203.0.113.7", "p2")), Owner().shares(Owner())
    (True, False)
    """

    address: str | None = None
    player_id: str | None = None

    def keys(self, table: str) -> tuple[str, ...]:
        """The budgets the table ``table`` of this owner is charged to (beside its own)."""
        keys = []
        if self.address is not None:
            keys.append(f"address {self.address}")
        if self.player_id is not None:
            keys.append(f"player {self.player_id}")
        return tuple(keys) or (f"table {table}",)

    def shares(self, other: Owner) -> bool:
        """Whether ``other`` is (in part) this owner: the same address or the same identity."""
        return (self.address is not None and self.address == other.address) or (
            self.player_id is not None and self.player_id == other.player_id
        )


# Why the stand-in decided instead of the table's bot: a budget was spent, the pool was
# oversubscribed and this owner among its heaviest users, or no worker answered.
StandInWhy = Literal["budget", "busy", "no_answer"]


@dataclass(frozen=True, slots=True)
class Thought:
    """A bot's decision, the bot as it is after making it, and who made it: ``worker``
    (in a worker process, ``pid``), ``here`` (on the event loop, a cheap bot), ``thread``
    (an operator's bot that cannot be pickled) or ``stand-in`` (and ``why``)."""

    decision: Decision
    bot: Bot
    where: str
    pid: int | None = None
    seconds: float = 0.0
    why: StandInWhy | None = None


# ---------------------------------------------------------------------------- the worker


def _serve(conn: Connection) -> None:
    """A worker process: (bot, game) in, ("ok", decision, bot, cpu seconds) out, until
    the pipe closes."""
    # Ctrl-C at the terminal reaches the whole process group: the server stops its
    # workers itself, so they must not die first with a traceback each.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Below the event loop, which every table's humans and the health check wait on: when
    # the cores are short, a move or a health check goes before a bot's search (and the
    # coach's and the replays' workers, lower still, go after both). In a session of its
    # own: sharing the server's scheduling group, a busy worker's CPU was charged to the
    # server's group, whose loop then waited for its group's turn.
    lower_priority(BOT_NICENESS, own_session=True)
    while True:
        try:
            blob = conn.recv_bytes()
        except (EOFError, OSError):
            return
        start = time.process_time()
        try:
            bot, game = pickle.loads(blob)
            decision = bot.choose(game)
            out = pickle.dumps(
                ("ok", decision, bot, time.process_time() - start), pickle.HIGHEST_PROTOCOL
            )
        except Exception as exc:  # a bot's bug: the server's stand-in decides instead
            out = pickle.dumps(
                ("error", f"{type(exc).__name__}: {exc}", None, time.process_time() - start)
            )
        try:
            conn.send_bytes(out)
        except (EOFError, OSError):
            return


@dataclass(frozen=True, slots=True)
class _Answer:
    """A worker's answer: the decision and the bot as it is after making it, or why the
    bot failed (``error``); the CPU seconds it took, and the worker's process id."""

    decision: Decision | None
    bot: Bot | None
    error: str | None
    seconds: float
    pid: int


class _Lost(Exception):
    """The worker died, or hung and was killed, before it answered."""

    def __init__(self, why: str, hung: bool = False) -> None:
        super().__init__(why)
        self.hung = hung


def _context() -> multiprocessing.context.BaseContext:
    # Not fork: the server has threads (the database driver's), and a forked child could
    # inherit a lock one of them held. forkserver forks every worker from a clean process
    # with the bots already imported, so a replaced worker is ready in milliseconds.
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["flip7.server.table.thinking"])
        return context
    return multiprocessing.get_context("spawn")


class _Slot:
    """One worker process, started when first needed and again after it is lost. Its
    methods block: they run in the pool's threads, never on the event loop."""

    def __init__(self, context: multiprocessing.context.BaseContext) -> None:
        self._context = context
        self.process: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None
        self.started = 0

    def _start(self) -> tuple[multiprocessing.process.BaseProcess, Connection]:
        if self.process is not None and self._conn is not None and self.process.is_alive():
            return self.process, self._conn
        self.kill()
        ours, theirs = self._context.Pipe()
        process = self._context.Process(  # type: ignore[attr-defined]
            target=_serve, args=(theirs,), name="flip7-bot-worker", daemon=True
        )
        process.start()
        theirs.close()
        self.process, self._conn = process, ours
        self.started += 1
        return process, ours

    def call(self, blob: bytes, hang: float) -> tuple[bytes, int]:
        """Send ``blob`` to the worker and wait for its answer (at most ``hang`` seconds)."""
        process, conn = self._start()
        pid = process.pid or 0
        try:
            conn.send_bytes(blob)
            if not conn.poll(hang):
                self.kill()
                raise _Lost(f"no answer in {hang:g} seconds", hung=True)
            return conn.recv_bytes(), pid
        except (EOFError, OSError) as exc:
            self.kill()
            raise _Lost(f"the worker died ({type(exc).__name__})") from None

    def kill(self) -> None:
        process, conn = self.process, self._conn
        self.process = self._conn = None
        # The process first: a thread waiting on the pipe then sees it close and returns.
        if process is not None:
            with contextlib.suppress(Exception):
                process.kill()
                process.join(5)
                process.close()
        if conn is not None:
            conn.close()


# ---------------------------------------------------------------------------- the pool

# Owners remembered at once (their budgets and how much they used lately); past this the
# least recently charged are forgotten first, so a flood of addresses cannot grow memory.
MAX_OWNERS = 100_000

# "Lately", for how much worker CPU an owner used: every second counts less as it ages,
# by a factor e each USE_SPAN seconds (about the last minute's use).
USE_SPAN = 60.0

# An owner is among the heaviest, and sheds while the pool is oversubscribed, when it has
# used this many seconds more than the average owner waiting or thinking: owners that
# have used about as much are not told apart by the noise of one decision.
HEAVY_MARGIN = 1.0


@dataclass(slots=True)
class _Use:
    """Worker CPU seconds an owner used lately (see :data:`USE_SPAN`)."""

    seconds: float
    at: float

    def now(self, now: float) -> float:
        if now > self.at:
            self.seconds *= math.exp(-(now - self.at) / USE_SPAN)
            self.at = now
        return self.seconds


@dataclass(eq=False)
class _Job:
    key: str
    owner: tuple[str, ...]
    blob: bytes
    queued: float
    future: asyncio.Future[_Answer] = field(repr=False)


class Thinking:
    """The server's bot thinking (see the module): ``await thinking.decide(table_id, bot,
    game, owner=...)`` from a table's bot turn; :meth:`close` when the server stops.

    ``seconds_per_minute`` is a table's budget, ``owner_seconds_per_minute`` an owner's
    (None: owners are not budgeted, only served fairly)."""

    def __init__(
        self,
        workers: int,
        seconds_per_minute: float,
        clock: Callable[[], float] = time.monotonic,
        stand_in: str = STAND_IN,
        owner_seconds_per_minute: float | None = None,
    ) -> None:
        self.workers = max(1, int(workers))
        self.stand_in = stand_in
        self.seconds_per_minute = float(seconds_per_minute)
        self.owner_seconds_per_minute = (
            None if owner_seconds_per_minute is None else float(owner_seconds_per_minute)
        )
        self._clock = clock
        self._context: multiprocessing.context.BaseContext | None = None
        self._slots: list[_Slot] = []
        self._free: list[_Slot] = []
        self._threads: ThreadPoolExecutor | None = None
        self._waiting: list[_Job] = []
        self._thinking: set[_Job] = set()  # on a worker now
        self._running: set[asyncio.Task[None]] = set()
        self._budgets: dict[str, TokenBucket] = {}
        self._owner_budgets: OrderedDict[str, TokenBucket] = OrderedDict()
        self._used: OrderedDict[str, _Use] = OrderedDict()
        self._spent: set[str] = set()
        self._shedding: set[tuple[str, ...]] = set()
        self._stand_ins: dict[tuple[str, int, int | None], Bot] = {}
        self._unpicklable: set[str] = set()
        self.decisions: dict[str, int] = {}  # by where they were made, for tests and logs
        self.stand_ins: dict[str, int] = {}  # the stand-in's decisions, by why
        self.seconds = 0.0  # thinking charged, in all (the operator's metrics)
        self.closed = False

    @property
    def hang_seconds(self) -> float:
        """How long one decision may take in a worker before the worker is killed: a
        table's whole budget for a minute, and never under 5 seconds."""
        return max(5.0, self.seconds_per_minute)

    # ------------------------------------------------------------------ budgets

    def _budget(self, key: str) -> TokenBucket:
        bucket = self._budgets.get(key)
        if bucket is None:
            per_minute = self.seconds_per_minute
            bucket = TokenBucket(per_minute / 60.0, per_minute, per_minute, self._clock())
            self._budgets[key] = bucket
        bucket.refill(self._clock())
        return bucket

    def _owner_budget(self, key: str) -> TokenBucket | None:
        per_minute = self.owner_seconds_per_minute
        if per_minute is None:
            return None
        now = self._clock()
        bucket = self._owner_budgets.get(key)
        if bucket is None:
            bucket = TokenBucket(per_minute / 60.0, per_minute, per_minute, now)
            self._owner_budgets[key] = bucket
            while len(self._owner_budgets) > MAX_OWNERS:
                self._owner_budgets.popitem(last=False)
        bucket.refill(now)
        return bucket

    def budget_left(self, key: str) -> float:
        """Seconds of worker CPU the table ``key`` may still use now (below 0: over)."""
        return self._budget(key).tokens

    def owner_budget_left(self, owner: Owner, key: str = "") -> float:
        """Seconds of worker CPU ``owner`` may still use now, all its tables together (the
        least of its keys' budgets; ``key``: the table, for an owner known by none)."""
        buckets = [self._owner_budget(k) for k in owner.keys(key)]
        return min((b.tokens for b in buckets if b is not None), default=math.inf)

    def used(self, owner: Owner, key: str = "") -> float:
        """Worker CPU seconds ``owner`` used lately (the most of its keys')."""
        return self._used_by(owner.keys(key))

    def _used_by(self, keys: tuple[str, ...]) -> float:
        now = self._clock()
        return max((use.now(now) for k in keys if (use := self._used.get(k)) is not None),
                   default=0.0)

    def charge(self, key: str, seconds: float, owner: Owner | None = None) -> None:
        """Count ``seconds`` of thinking against the table ``key``'s budget and its
        ``owner``'s (None: the table is its own owner)."""
        self._budget(key).tokens -= seconds
        self.seconds += seconds
        now = self._clock()
        for k in (owner or Owner()).keys(key):
            bucket = self._owner_budget(k)
            if bucket is not None:
                bucket.tokens -= seconds
                self._owner_budgets.move_to_end(k)
            use = self._used.get(k)
            if use is None:
                use = self._used[k] = _Use(0.0, now)
                while len(self._used) > MAX_OWNERS:
                    self._used.popitem(last=False)
            else:
                self._used.move_to_end(k)
            use.seconds = use.now(now) + seconds

    def over_budget(self, key: str, owner: Owner | None = None) -> bool:
        """Whether the table ``key``, or its ``owner`` (None: the table is its own), has
        used its budget; logs when that changes."""
        over = self.budget_left(key) <= 0.0
        self._note_spent(key, over, self.seconds_per_minute)
        per_minute = self.owner_seconds_per_minute
        if per_minute is not None:
            for k in (owner or Owner()).keys(key):
                bucket = self._owner_budget(k)
                spent = bucket is not None and bucket.tokens <= 0.0
                self._note_spent(key, spent, per_minute, owner=k)
                over = over or spent
        return over

    def _note_spent(
        self, key: str, over: bool, per_minute: float, owner: str | None = None
    ) -> None:
        """Log when the budget of the table ``key`` (or of its ``owner`` key) is spent,
        and when it has recovered."""
        name = key if owner is None else f"owner {owner}"  # no table id has a space
        fields: JSONObject = {} if owner is None else {"owner": owner}
        if over and name not in self._spent:
            self._spent.add(name)
            self._log("bot_budget_spent", key, **fields, seconds_per_minute=per_minute)
        elif not over and name in self._spent:
            self._spent.discard(name)
            self._log("bot_budget_recovered", key, **fields)

    def forget(self, key: str) -> None:
        """Drop what is kept for the table ``key`` (it has stopped). Its owner's budget
        stays: closing tables must not give an owner back what its bots used."""
        self._budgets.pop(key, None)
        self._spent.discard(key)
        for stand_in in [k for k in self._stand_ins if k[0] == key]:
            del self._stand_ins[stand_in]

    # ------------------------------------------------------------------ deciding

    async def decide(
        self,
        key: str,
        bot: Bot,
        game: Game,
        stand_in_seed: int | None = None,
        owner: Owner | None = None,
    ) -> Thought:
        """``bot``'s decision in ``game`` for the table ``key`` of ``owner`` (None: the
        table is its own): in a worker, on the event loop for a cheap bot, or by the
        stand-in (seeded with ``stand_in_seed``) when the table or its owner is over its
        budget, the pool is oversubscribed and this owner among its heaviest users, or no
        worker answered."""
        name = getattr(bot, "name", "")
        base = name.partition(":")[0] if isinstance(name, str) else ""
        if base in IN_PROCESS and type(bot).__module__.startswith("flip7.bots"):
            return self._count(Thought(bot.choose(game), bot, "here"))
        owner = owner or Owner()
        if self.over_budget(key, owner):
            return self._stand_in(key, game, stand_in_seed, "budget")
        keys = owner.keys(key)
        if self._sheds(keys):
            if keys not in self._shedding:
                self._shedding.add(keys)
                self._log("bot_shed", key, owner=list(keys), waiting=len(self._waiting),
                          workers=self.workers, used=round(self._used_by(keys), 3))
            return self._stand_in(key, game, stand_in_seed, "busy")
        if keys in self._shedding:
            self._shedding.discard(keys)
            self._log("bot_shed_over", key, owner=list(keys))
        kind = f"{type(bot).__module__}.{type(bot).__qualname__}"
        if kind not in self._unpicklable:
            try:
                blob = pickle.dumps((bot, game), pickle.HIGHEST_PROTOCOL)
            except Exception as exc:
                self._unpicklable.add(kind)
                self._log("bot_not_picklable", key, bot=kind, error=str(exc))
            else:
                return await self._in_worker(key, owner, bot, game, blob, stand_in_seed)
        # An operator's bot that cannot travel to a worker: it thinks in a thread, as all
        # bots did before the pool, still counted against the table's and owner's budgets.
        start = time.perf_counter()
        decision = await asyncio.to_thread(bot.choose, game)
        seconds = time.perf_counter() - start
        self.charge(key, seconds, owner)
        return self._count(Thought(decision, bot, "thread", seconds=seconds))

    @property
    def waiting(self) -> int:
        """Decisions waiting for a worker."""
        return sum(1 for job in self._waiting if not job.future.done())

    @property
    def thinking(self) -> int:
        """Decisions on a worker now."""
        return len(self._thinking)

    def busy(self) -> bool:
        """Whether the pool is oversubscribed: as many decisions wait as there are workers
        (each of them thinking already), so a new one would wait for more than one."""
        return self.waiting >= self.workers

    def _sheds(self, keys: tuple[str, ...]) -> bool:
        """Whether the owner known by ``keys`` is to decide with the stand-in now: the pool
        is oversubscribed, and the owner has used clearly more worker CPU lately than the
        average of the owners waiting or thinking (itself included). Alone, an owner never
        sheds: there is nobody for it to slow down."""
        if not self.busy():
            return False
        owners = {job.owner for job in self._waiting if not job.future.done()}
        owners |= {job.owner for job in self._thinking}
        owners.add(keys)
        if len(owners) < 2:
            return False
        used = {o: self._used_by(o) for o in owners}
        average = sum(used.values()) / len(used)
        return used[keys] > average + HEAVY_MARGIN

    async def _in_worker(
        self, key: str, owner: Owner, bot: Bot, game: Game, blob: bytes,
        stand_in_seed: int | None,
    ) -> Thought:
        for attempt in (1, 2):
            try:
                answer = await self._submit(key, owner.keys(key), blob)
            except _Lost as lost:
                self._log("bot_worker_lost", key, attempt=attempt, why=str(lost))
                if lost.hung:  # trying again would wait as long again
                    break
                continue
            self.charge(key, answer.seconds, owner)
            if answer.decision is not None and answer.bot is not None:
                return self._count(
                    Thought(answer.decision, answer.bot, "worker", answer.pid, answer.seconds)
                )
            self._log("bot_failed", key, bot=str(getattr(bot, "name", "?")), error=answer.error)
            break
        return self._stand_in(key, game, stand_in_seed, "no_answer")

    def _stand_in(self, key: str, game: Game, seed: int | None, why: StandInWhy) -> Thought:
        seat = game.to_decide
        # One stand-in per seat and game (the seed is the game's), like the table's own.
        slot = (key, -1 if seat is None else seat, seed)
        bot = self._stand_ins.get(slot)
        if bot is None:
            bot = self._stand_ins[slot] = make_bot(self.stand_in, seed)
        self.stand_ins[why] = self.stand_ins.get(why, 0) + 1
        return self._count(Thought(bot.choose(game), bot, "stand-in", why=why))

    def _count(self, thought: Thought) -> Thought:
        self.decisions[thought.where] = self.decisions.get(thought.where, 0) + 1
        return thought

    # ------------------------------------------------------------------ the queue

    async def _submit(self, key: str, owner: tuple[str, ...], blob: bytes) -> _Answer:
        if self.closed:
            raise _Lost("the server is stopping")
        loop = asyncio.get_running_loop()
        job = _Job(key, owner, blob, self._clock(), loop.create_future())
        self._waiting.append(job)
        self._dispatch()
        # Cancelled (the table stopped): the future is cancelled too, and the dispatcher
        # skips it, or drops the answer of a worker already on it.
        return await job.future

    def _dispatch(self) -> None:
        while self._waiting and not self.closed:
            slot = self._slot()
            if slot is None:
                return
            job = self._next()
            if job is None:
                self._free.append(slot)
                return
            self._thinking.add(job)
            task = asyncio.create_task(self._run(slot, job))
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    def _slot(self) -> _Slot | None:
        if self._free:
            return self._free.pop()
        if len(self._slots) < self.workers:
            if self._context is None:
                self._context = _context()
                self._threads = ThreadPoolExecutor(self.workers, "flip7-bot-pool")
            slot = _Slot(self._context)
            self._slots.append(slot)
            return slot
        return None

    def _next(self) -> _Job | None:
        """The waiting job to run next: its owner's use lately the least, then its table's
        budget the fullest, then the oldest."""
        self._waiting = [job for job in self._waiting if not job.future.done()]
        if not self._waiting:
            return None
        # Compared in tenths of a second: owners and tables that have used about as much
        # take turns in the order they asked.
        used = {job.owner: math.floor(self._used_by(job.owner) * 10) for job in self._waiting}
        left = {job.key: math.floor(self.budget_left(job.key) * 10) for job in self._waiting}
        best = max(
            range(len(self._waiting)),
            key=lambda i: (
                -used[self._waiting[i].owner],
                left[self._waiting[i].key],
                -self._waiting[i].queued,
            ),
        )
        return self._waiting.pop(best)

    async def _run(self, slot: _Slot, job: _Job) -> None:
        loop = asyncio.get_running_loop()
        try:
            raw, pid = await loop.run_in_executor(
                self._threads, slot.call, job.blob, self.hang_seconds
            )
            status, value, bot, seconds = pickle.loads(raw)
            ok = status == "ok"
            answer = _Answer(value if ok else None, bot if ok else None,
                             None if ok else str(value), float(seconds), pid)
        except _Lost as lost:
            if not job.future.done():
                job.future.set_exception(lost)
        except Exception as exc:  # an answer that cannot be read: as if it died
            slot.kill()
            if not job.future.done():
                job.future.set_exception(_Lost(f"unreadable answer ({type(exc).__name__})"))
        else:
            if not job.future.done():
                job.future.set_result(answer)
        finally:
            self._thinking.discard(job)
            if not self.closed:
                self._free.append(slot)
                self._dispatch()

    # ------------------------------------------------------------------ stats and life

    def stats(self) -> JSONObject:
        """What the pool is doing: workers started and alive, decisions waiting, the
        decisions made so far by where they were made, and the stand-in's by why."""
        return {
            "workers": self.workers,
            "alive": sum(
                1 for s in self._slots if s.process is not None and s.process.is_alive()
            ),
            "started": sum(s.started for s in self._slots),
            "waiting": sum(1 for job in self._waiting if not job.future.done()),
            "decisions": {where: count for where, count in self.decisions.items()},
            "stand_ins": {why: count for why, count in self.stand_ins.items()},
        }

    def pids(self) -> list[int]:
        """The process ids of the live workers."""
        return [s.process.pid for s in self._slots if s.process is not None and s.process.pid]

    async def close(self) -> None:
        """Stop every worker (killed: nothing of theirs needs saving)."""
        self.closed = True
        for job in self._waiting:
            if not job.future.done():
                job.future.set_exception(_Lost("the server is stopping"))
        self._waiting.clear()
        for slot in self._slots:
            slot.kill()
        if self._running:  # their workers are gone: the threads waiting on them return
            await asyncio.wait(list(self._running), timeout=5)
        threads, self._threads = self._threads, None
        if threads is not None:
            threads.shutdown(wait=False, cancel_futures=True)

    def _log(self, event: str, key: str, **fields: JSON) -> None:
        record: JSONObject = {"event": event, "table": key, **fields}
        log.info(json.dumps(record, separators=(",", ":"), default=str))
