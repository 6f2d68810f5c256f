"""The server's parts, wired in one place: :func:`wire` builds what needs no database when
the app is made, :func:`run` opens the rest at the start (the lobby on its database) and
closes it all at the stop, and a route gets everything, as :class:`Services`, through one
dependency: a parameter ``services: Use``.

>>> from flip7.server.base.settings import Settings
>>> wiring = wire(Settings(connections_per_address=3, host="127.0.0.1"))
>>> wiring.sockets.open_per_address.limit, wiring.server.loopback_only
(3, True)
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, WebSocket
from starlette.requests import HTTPConnection

from flip7.server.api import owner
from flip7.server.api.bots import BotHub
from flip7.server.api.guard import HandshakeGate
from flip7.server.api.metrics import Metrics, Reading
from flip7.server.api.startup import is_loopback
from flip7.server.base.closecodes import CloseCode
from flip7.server.base.limits import AddressBudget, AddressCounter
from flip7.server.base.protocol import Limits, ServerInfo
from flip7.server.base.settings import Settings
from flip7.server.cluster.budgets import SharedBudgets
from flip7.server.cluster.node import of as cluster_of
from flip7.server.services.coach_jobs import CoachJobs
from flip7.server.services.mail import Emails, Mailer, smtp_server
from flip7.server.services.players import Players
from flip7.server.services.push import Pushes
from flip7.server.services.ratings import Results
from flip7.server.services.replays import Replays
from flip7.server.services.scorecards import Scorecards
from flip7.server.store.database import Store
from flip7.server.table.lobby import Lobby

__all__ = ["Services", "Sockets", "Use", "Wiring", "budgets", "run", "services", "wire"]

# The collector's thresholds while the server runs (Python's are 700, 10, 10). A socket's
# objects (transport, protocol, tasks, frames) live for seconds: with the default first
# threshold a storm of connections promotes them to the oldest generation, whose full
# passes then came every few seconds and took 40-75 ms each, stalling every table (the
# spectators' flood of `flip7 attack`: control p95 45-57 ms, with these 27-38 ms).
GC_THRESHOLDS = (10_000, 20, 10)


@dataclass(frozen=True, slots=True)
class Sockets:
    """What every table socket shares, per client address, so that reconnecting resets
    nothing: frames (every kind, before anything else is done with them), refused frames
    (an address refused ``rate_strikes`` times within a minute is disconnected), open
    sockets, handshakes (and the cool-off of flooders), chat messages, bytes sent to it;
    and the sockets open now, closed when the server stops."""

    frames: AddressBudget
    strikes: AddressBudget
    open_per_address: AddressCounter
    # Under ``flip7 serve`` the guard's HTTP protocol asks it before the WebSocket even
    # exists (server_config finds it in the wiring); without the guard (the test client),
    # the socket route does.
    handshakes: HandshakeGate
    chats: AddressBudget
    sent: AddressBudget
    open: set[WebSocket] = field(default_factory=set)

    @classmethod
    def of(cls, settings: Settings) -> Sockets:
        return cls(
            frames=AddressBudget(
                settings.frames_per_second_per_address * 60, settings.frames_burst_per_address
            ),
            strikes=AddressBudget(settings.rate_strikes, settings.rate_strikes),
            open_per_address=AddressCounter(settings.connections_per_address),
            handshakes=HandshakeGate(settings),
            chats=AddressBudget(
                settings.chat_per_minute_per_address, settings.chat_burst_per_address
            ),
            sent=AddressBudget(
                settings.bytes_per_minute_per_address, settings.bytes_burst_per_address
            ),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Wiring:
    """The server's parts that need no database: built once per app, from its settings."""

    settings: Settings
    sockets: Sockets
    # What GET /api/limits and /api/server answer, worked out once from what the operator
    # said at start: never from a request's Host header, which anyone can set.
    limits: Limits
    server: ServerInfo
    # Replay work (uploads checked, pages computed) in a worker process; identities and
    # ratings; the coach's analyses of finished games, in worker processes.
    replays: Replays
    players: Players
    coach: CoachJobs
    # Turn alerts by e-mail (flip7.server.services.mail); offered with an SMTP server only.
    emails: Emails
    # Turn alerts by Web Push (flip7.server.services.push).
    pushes: Pushes


@dataclass(frozen=True, slots=True, kw_only=True)
class Services(Wiring):
    """Everything a route uses: the wiring, and what the start opened on the database."""

    lobby: Lobby
    # The database: the lobby sees it only as its TableStorage; the routes read games,
    # replays and health from it.
    store: Store
    # Each finished game's results for its identities and ratings (flip7.server.services.ratings).
    results: Results
    scorecards: Scorecards
    # Bot accounts' streams, invitations and seats (the bot API).
    bots: BotHub


def wire(settings: Settings) -> Wiring:
    """The parts of a server with ``settings``."""
    return Wiring(
        settings=settings,
        sockets=Sockets.of(settings),
        limits=Limits.model_validate(
            {name: getattr(settings, name) for name in Limits.model_fields}
        ),
        server=ServerInfo(
            public_url=settings.public_url,
            addresses=list(settings.reachable_urls),
            loopback_only=is_loopback(settings.host),
            email=settings.smtp_url is not None,
        ),
        replays=Replays(settings),
        players=Players(settings),
        coach=CoachJobs(settings),
        emails=Emails(settings, None if settings.smtp_url is None else Mailer(
            smtp_server(settings.smtp_url, settings.smtp_from, os.environ))),
        pushes=Pushes(settings),
    )


def budgets(
    wiring: Wiring, lobby: Lobby, scorecards: Scorecards, bots: BotHub
) -> Mapping[str, AddressBudget]:
    """Every per-address budget of the server, by a stable name: its key in Redis, where
    many processes keep them as one (flip7.server.cluster.budgets). A new budget is one
    line here.

    >>> from flip7.server.base.settings import Settings
    >>> settings = Settings()
    >>> lobby = Lobby(None, settings)
    >>> sorted(budgets(wire(settings), lobby, Scorecards(None, settings),
    ...                BotHub(lobby, settings)))
    ... # doctest: +NORMALIZE_WHITESPACE
    ['bot_invitations', 'bot_moves', 'bytes_sent', 'chats', 'claims', 'coach', 'email_codes',
     'email_codes_per_identity', 'frames', 'handshakes', 'joins', 'players', 'renames',
     'replay_pages', 'scorecard_rounds', 'scorecards', 'strikes', 'tables', 'tables_all',
     'transfer_codes', 'uploads']
    """
    return {
        "tables": lobby.creations,
        "tables_all": lobby.creations_all,
        "joins": lobby.joins,
        "players": wiring.players.creations,
        "transfer_codes": wiring.players.codes,
        "claims": wiring.players.claims,
        "uploads": wiring.replays.uploads,
        "replay_pages": wiring.replays.pages,
        "coach": wiring.coach.budget,
        "frames": wiring.sockets.frames,
        "strikes": wiring.sockets.strikes,
        "handshakes": wiring.sockets.handshakes.budget,
        "chats": wiring.sockets.chats,
        "bytes_sent": wiring.sockets.sent,
        "renames": wiring.players.renames,
        "email_codes": wiring.emails.codes,
        "email_codes_per_identity": wiring.emails.codes_per_identity,
        "scorecards": scorecards.creations,
        "scorecard_rounds": scorecards.rounds,
        "bot_moves": bots.moves,
        "bot_invitations": bots.invitations,
    }


async def _share_budgets(
    wiring: Wiring, lobby: Lobby, scorecards: Scorecards, bots: BotHub
) -> SharedBudgets | None:
    """With many processes (a Redis URL), every budget kept with theirs in Redis."""
    if wiring.settings.redis_url is None:
        return None
    shared = SharedBudgets(wiring.settings.redis_url)
    shared.attach(budgets(wiring, lobby, scorecards, bots))
    await shared.start()
    return shared


async def _open_lobby(settings: Settings) -> tuple[Lobby, Store]:
    """The lobby on its database, its tables restored. It takes the database lease: a
    second server on this database stops here (DatabaseInUse). Many processes (a Redis URL)
    share the database: no process holds all of it."""
    many = settings.redis_url is not None
    store = await Store.open(settings.database_url,
                             lease_seconds=None if many else settings.lease_seconds, shared=many)
    lobby = Lobby(store, settings)
    if settings.redis_url is not None:
        owner.join_cluster(lobby, store, settings.redis_url, settings.owner_seconds)
    try:
        await lobby.restore()
    except BaseException:
        await store.close()  # the lease too: a failed start must not hold it
        raise
    return lobby, store


async def _close_sockets(sockets: Sockets) -> None:
    for socket in list(sockets.open):
        with contextlib.suppress(Exception):
            await socket.close(code=CloseCode.SERVICE_RESTART)  # reconnect


def _turn_alerts(wiring: Wiring) -> Callable[[str, str, str, float], None]:
    """What the lobby calls when a turn-based decision comes to an away identity: its
    e-mail (gathered) and its browsers' pushes."""

    def alert(player_id: str, table_id: str, table_name: str, deadline: float) -> None:
        wiring.emails.your_turn(player_id, table_id, table_name, deadline)
        wiring.pushes.your_turn(player_id, table_id, table_name, deadline)

    return alert


def _serve_metrics(wiring: Wiring, lobby: Lobby, store: Store, host: str, port: int) -> Metrics:
    """Prometheus metrics on ``host:port`` (flip7.server.api.metrics): moves and commits
    as they happen, the rest read on the event loop at each scrape (a scrape comes on
    the metrics server's thread; a loop that does not answer within 5 s fails it)."""
    metrics = Metrics()
    lobby.on_move = metrics.move
    store.on_commit = metrics.commit
    loop = asyncio.get_running_loop()

    async def now() -> Reading:
        thinking = lobby.thinking
        many = cluster_of(lobby)
        spread = None if many is None else many.spread
        return Reading(
            tables=len(lobby.tables), sockets=len(wiring.sockets.open),
            bot_workers=thinking.workers, bots_waiting=thinking.waiting,
            bots_thinking=thinking.thinking, bot_worker_seconds=thinking.seconds,
            stand_ins=sum(thinking.stand_ins.values()),
            cluster_linked=None if many is None else len(many.links),
            cluster_remote=None if many is None else len(many.remote),
            cluster_redis_up=None if many is None else many.problem() is None,
            cluster_processes=() if spread is None else tuple(sorted(spread.processes.items())),
            cluster_misplaced=0 if spread is None
            else len(spread.misplaced(lobby.tables, waiting_too=True)),
            cluster_handovers_given=0 if spread is None else spread.given,
            cluster_handovers_received=0 if spread is None else spread.received,
            fenced_writes=store.fenced,
            cluster_takeovers=0 if many is None else many.failovers.takeovers,
            cluster_links_moved=0 if many is None else many.failovers.links_moved,
            cluster_tables_lost=0 if many is None else many.failovers.tables_lost,
        )  # fmt: skip

    metrics.watch(lambda: asyncio.run_coroutine_threadsafe(now(), loop).result(timeout=5))
    metrics.serve(host, port)
    return metrics


@contextlib.asynccontextmanager
async def run(wiring: Wiring) -> AsyncIterator[Services]:
    """The server from its start to its stop: the lobby opened on its database, the budgets
    shared with the other processes (a Redis URL), finished games' results written, and
    every service handed out. The stop undoes it in reverse:
    the coach's workers (before the database closes), the results, the tables, the sockets
    still open, the database and its lease, and last the replay worker."""
    async with contextlib.AsyncExitStack() as stop:
        stop.callback(wiring.replays.workers.close)
        lobby, store = await _open_lobby(wiring.settings)
        stop.push_async_callback(store.close)
        stop.push_async_callback(_close_sockets, wiring.sockets)
        stop.push_async_callback(lobby.close)
        scorecards = Scorecards(store, wiring.settings)
        bots = BotHub(lobby, wiring.settings, wiring.sockets.frames, store)
        stop.push_async_callback(bots.close)
        shared = await _share_budgets(wiring, lobby, scorecards, bots)
        if shared is not None:
            stop.push_async_callback(shared.close)
        wiring.players.store = store
        results = Results(store, wiring.settings)
        lobby.on_finish = results.finished
        wiring.emails.start(store)
        stop.push_async_callback(wiring.emails.close)
        await wiring.pushes.start(store)
        stop.push_async_callback(wiring.pushes.close)
        lobby.on_turn = _turn_alerts(wiring)
        if wiring.settings.metrics is not None:
            stop.callback(_serve_metrics(wiring, lobby, store, *wiring.settings.metrics).close)
        results.start()
        stop.push_async_callback(results.close)
        stop.push_async_callback(wiring.coach.close)
        # Everything loaded so far lives as long as the server: keep it out of the
        # collector's full passes, which otherwise stall every table for a moment.
        gc.collect()
        gc.freeze()
        stop.callback(gc.set_threshold, *gc.get_threshold())
        gc.set_threshold(*GC_THRESHOLDS)
        yield Services(
            settings=wiring.settings, sockets=wiring.sockets, limits=wiring.limits,
            server=wiring.server, replays=wiring.replays, players=wiring.players,
            coach=wiring.coach, emails=wiring.emails, pushes=wiring.pushes, lobby=lobby,
            store=store, results=results, scorecards=scorecards, bots=bots,
        )


async def services(connection: HTTPConnection) -> Services:
    """The running server's services: the lifespan hands them to every request and socket
    (its state, ``{"services": ...}``)."""
    # async, though it never waits: FastAPI runs a plain function's dependency in a thread
    # pool, a thread hand-off (and a fight for the GIL) for every request and socket.
    found = connection.state.services
    assert isinstance(found, Services), "the server has not started"
    return found


# A route's parameter ``services: Use`` gets them.
Use = Annotated[Services, Depends(services)]
