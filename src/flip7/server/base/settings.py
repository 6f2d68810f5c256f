"""Server settings: where the database is, how bots pace themselves, the protocol limits."""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

from flip7.core.machine import available_cores

__all__ = [
    "DEFAULT_DATABASE",
    "LIMITS",
    "ClusterError",
    "LimitError",
    "PublicUrlError",
    "Settings",
    "Slot",
    "database_url",
    "default_bot_workers",
    "metrics_address",
    "public_url",
    "redis_url",
    "with_limits",
]

DEFAULT_DATABASE = "flip7.db"


def database_url(value: str | None = None) -> str:
    """An SQLAlchemy async URL from a URL or a plain file path.

    ``None`` reads ``FLIP7_DATABASE_URL`` and falls back to ``flip7.db`` in the working folder.

    >>> database_url("games.db")
    'sqlite+aiosqlite:///games.db'
    >>> database_url("postgresql://u@localhost/flip7")
    'postgresql+asyncpg://u@localhost/flip7'
    >>> database_url("sqlite:///:memory:")
    'sqlite+aiosqlite:///:memory:'
    """
    if value is None:
        value = os.environ.get("FLIP7_DATABASE_URL") or DEFAULT_DATABASE
    if "://" not in value:
        return f"sqlite+aiosqlite:///{Path(value)}"
    scheme, rest = value.split("://", 1)
    if scheme in ("sqlite",):
        return f"sqlite+aiosqlite://{rest}"
    if scheme in ("postgresql", "postgres"):
        return f"postgresql+asyncpg://{rest}"
    return value


class ClusterError(ValueError):
    """A Redis URL that is not one, or many processes on a database that cannot take them."""


@dataclass(frozen=True, slots=True)
class Slot:
    """Which of a cluster's processes this one is, as the proxy numbers them: ``number``
    (1 for the recipe's ``server app1``...) of ``count``. The proxy sends every request and
    WebSocket for a table to the process of the table's slot (:func:`table_slot`: its
    ``use-server`` rules in deploy/haproxy.cfg), and a process makes the tables it
    creates in its own slot, so that a table's clients reach the process that runs it
    without a hop over Redis.

    >>> slot = Slot.parse("3/3")
    >>> slot, table_slot("UF5GCr12", 3), slot.holds("UF5GCr12"), slot.holds("Xy3_kQ9a")
    (Slot(number=3, count=3), 2, True, False)
    >>> Slot.parse("4/3")
    Traceback (most recent call last):
    ...
    flip7.server.base.settings.ClusterError: a slot is N/COUNT with N from 1 to COUNT ...
    """

    number: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Slot:
        """From ``N/COUNT`` (``--slot``)."""
        number, _, count = text.strip().partition("/")
        if number.isdigit() and count.isdigit() and 1 <= int(number) <= int(count):
            return cls(int(number), int(count))
        raise ClusterError(
            "a slot is N/COUNT with N from 1 to COUNT (the proxy's app1 is 1/COUNT), "
            f"got {text!r}"
        )

    def holds(self, table_id: str) -> bool:
        """Whether the proxy sends ``table_id``'s requests to this process."""
        return table_slot(table_id, self.count) == self.number - 1


def table_slot(table_id: str, count: int) -> int:
    """Where the proxy sends a table's requests, 0-based: the CRC-32 of its id modulo
    ``count``, HAProxy's ``crc32,mod(count)`` (deploy/haproxy.cfg; a test runs HAProxy).

    >>> [table_slot(t, 3) for t in ("aaaaaaaa", "aaaaaaab", "UF5GCr12", "Xy3_kQ9a")]
    [2, 1, 2, 0]
    """
    return zlib.crc32(table_id.encode("ascii", "replace")) % count


def metrics_address(value: str) -> tuple[str, int]:
    """Where ``--metrics`` serves: ``HOST:PORT``, or ``:PORT`` / ``PORT`` for loopback.

    >>> metrics_address("9101"), metrics_address("10.0.0.5:9101"), metrics_address("[::1]:80")
    (('127.0.0.1', 9101), ('10.0.0.5', 9101), ('::1', 80))
    >>> metrics_address("localhost")
    Traceback (most recent call last):
    ...
    ValueError: metrics are served on HOST:PORT (or PORT, on 127.0.0.1), got 'localhost'
    """
    host, _, port = value.strip().rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"metrics are served on HOST:PORT (or PORT, on 127.0.0.1), got {value!r}")
    return host, int(port)


def redis_url(value: str | None, database: str) -> str | None:
    """The Redis server of many processes (``--redis``; ``None`` reads ``FLIP7_REDIS_URL``;
    empty: one process), checked against the ``database`` URL they share, which must be
    PostgreSQL: an SQLite file belongs to one process.

    >>> redis_url("redis://127.0.0.1:6379/0", "postgresql+asyncpg://u@db/flip7")
    'redis://127.0.0.1:6379/0'
    >>> redis_url("", "sqlite+aiosqlite:///flip7.db") is None
    True
    >>> redis_url("redis://127.0.0.1:6379/0", "sqlite+aiosqlite:///flip7.db")
    Traceback (most recent call last):
    ...
    flip7.server.base.settings.ClusterError: many processes need a PostgreSQL database ...
    """
    if value is None:
        value = os.environ.get("FLIP7_REDIS_URL", "")
    value = value.strip()
    if not value:
        return None
    if urlsplit(value).scheme not in ("redis", "rediss", "unix"):
        raise ClusterError(
            f"the Redis URL must start with redis://, rediss:// or unix://, got {value!r}"
        )
    if not database.startswith("postgresql"):
        raise ClusterError(
            "many processes need a PostgreSQL database they all share (--db "
            "postgresql://USER@HOST/DB); an SQLite file belongs to one process"
        )
    return value


class PublicUrlError(ValueError):
    """A ``--public-url`` (or ``FLIP7_PUBLIC_URL``) that is not an http(s) address."""


def public_url(value: str | None = None) -> str | None:
    """The address friends open, behind a proxy or a tunnel, as invite links start with it:
    ``http(s)://HOST[:PORT][/PATH]`` without a trailing slash. ``None`` reads
    ``FLIP7_PUBLIC_URL``; empty means none (links then use the address the inviter used).

    >>> public_url("https://flip7.example.org/")
    'https://flip7.example.org'
    >>> public_url("x.org")
    Traceback (most recent call last):
    ...
    flip7.server.base.settings.PublicUrlError: the public URL must start with http(s)://, ...
    """
    if value is None:
        value = os.environ.get("FLIP7_PUBLIC_URL", "")
    value = value.strip()
    if not value:
        return None
    if len(value) > 2000:
        raise PublicUrlError(f"the public URL may have at most 2000 characters, got {len(value)}")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises on a port that is no number
    except ValueError as exc:
        raise PublicUrlError(f"the public URL {value!r} cannot be read: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise PublicUrlError(f"the public URL must start with http(s)://, got {value!r}")
    if not parts.hostname:
        raise PublicUrlError(f"the public URL must name a host, got {value!r}")
    # A password would be handed to everyone invited; a query or fragment would end up in
    # the middle of every link.
    if parts.username is not None or parts.password is not None:
        raise PublicUrlError(f"the public URL must not hold a user or password, got {value!r}")
    if parts.query or parts.fragment:
        raise PublicUrlError(f"the public URL must not have a ?query or #fragment, got {value!r}")
    if any(ch.isspace() or not ch.isprintable() for ch in value):
        raise PublicUrlError(f"the public URL must not contain spaces, got {value!r}")
    return value.rstrip("/")


def default_bot_workers() -> int:
    """Bot worker processes when the operator does not say: one per core this process may
    run on, but one (left for the event loop, which serves every table), and at least one.

    >>> default_bot_workers() == max(1, available_cores() - 1)
    True
    """
    return max(1, available_cores() - 1)


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the server can be told; the defaults are what ``flip7 serve`` uses."""

    database_url: str = "sqlite+aiosqlite:///flip7.db"
    # Many processes on one PostgreSQL database (flip7.server.cluster.node): the Redis server
    # they forward to each other through. None: one process, which runs every table.
    redis_url: str | None = None
    # With many processes: seconds a table's owner lease lasts unless renewed (renewed
    # every third of it). A dead process's tables are taken over this long after its death.
    owner_seconds: float = 3.0
    # With many processes behind the recipe's proxy: which one this is (``--slot``), so
    # that the tables it makes are those the proxy routes to it. None: any table id.
    slot: Slot | None = None
    # Where Prometheus metrics are served (``--metrics HOST:PORT``), never the players'
    # port (flip7.server.api.metrics). None: no metrics.
    metrics: tuple[str, int] | None = None
    # Addresses of the operator's reverse proxies (flip7 serve --trusted-proxy): their
    # X-Forwarded-For names the client, whose per-address limits each request counts for.
    trusted_proxies: tuple[str, ...] = ()
    # Every per-address budget is kept per address block (flip7.server.base.limits.address_block):
    # an IPv4 address by its first ipv4_block_prefix bits (32: the address itself), an IPv6
    # one by its first ipv6_block_prefix bits (a /64 is what one host or home is given).
    ipv4_block_prefix: int = 32
    ipv6_block_prefix: int = 64
    # Seconds a bot waits before deciding, so that people can follow what it does.
    bot_delay: float = 0.8
    # Seconds a bot account (the bot API) has for each decision of its seat, as a turn
    # timer: then the table's stand-in bot makes it.
    bot_move_seconds: float = 30.0
    # A fixed seed makes every game's shuffle reproducible (tests, demos); None = secrets.
    seed: int | None = None
    max_message_bytes: int = 4096
    # Token bucket per connection: a sustained rate and a burst.
    rate_per_second: float = 20.0
    rate_burst: int = 40
    # Errors answered with rate_limited before the connection is closed (code 1008).
    rate_strikes: int = 20
    # Updates queued for one slow client before it is disconnected (it can reconnect).
    send_queue_limit: int = 256
    max_tables: int = 10_000
    # Bots of the operator's own (``module:Class`` specs) offered beside the ladder.
    extra_bots: tuple[str, ...] = ()
    # The shortest turn timer a table may ask for, in seconds (tests lower it).
    min_turn_timer: int = 5
    # Where friends reach this server: the operator's public URL (behind a proxy), the
    # address it listens on (``flip7 serve --host``) and the addresses found for it at start
    # (``http://192.168.1.20:8000``...), which ``GET /api/server`` tells the invite panel.
    public_url: str | None = None
    host: str = "127.0.0.1"
    reachable_urls: tuple[str, ...] = ()
    # Where turn alerts are mailed (``flip7 serve --smtp URL``; flip7.server.services.mail):
    # None, no e-mail is offered. The sender (``--smtp-from``; None: flip7@<the SMTP host>).
    smtp_url: str | None = None
    smtp_from: str | None = None
    # Web Push (flip7.server.services.push): the contact its messages carry for the push
    # services (a mailto: or https: URL), and whether a subscription may point at a loopback
    # or private address (tests' own push service; never on a public server).
    push_contact: str = "mailto:flip7@localhost"
    push_allow_local: bool = False

    # ---- Limits a stranger meets. Every one is a field below, listed in the README's
    # "Limits" table, and an operator changes any of them with
    # ``flip7 serve --limit NAME=VALUE`` (see :func:`with_limits`).

    # Per client address (token buckets: a sustained rate per minute and a burst).
    tables_per_minute: float = 10.0
    tables_burst: int = 20
    # Seats taken (POST /api/tables/{id}/join): a stranger must not fill every table.
    joins_per_minute: float = 30.0
    joins_burst: int = 30
    # Identities (flip7.server.services.players), per address: created, transfer codes asked for,
    # and codes tried (a code is one of 30^10; tries are what keeps guessing hopeless).
    players_per_minute: float = 10.0
    players_burst: int = 20
    transfer_codes_per_minute: float = 6.0
    transfer_codes_burst: int = 10
    claims_per_minute: float = 10.0
    claims_burst: int = 10
    # Writes that grow the database, per address: scorecards created, changes to a
    # scorecard (rounds entered, edited or undone, a live round's updates), and renames of
    # an identity.
    scorecards_per_minute: float = 10.0
    scorecards_burst: int = 20
    scorecard_rounds_per_minute: float = 120.0
    scorecard_rounds_burst: int = 120
    renames_per_minute: float = 6.0
    renames_burst: int = 10
    # Seconds a scorecard nobody changes is kept (30 days).
    scorecard_ttl: float = 30 * 86400.0
    uploads_per_minute: float = 6.0
    uploads_burst: int = 10
    # Replay pages the worker must compute (cached pages are free), per address.
    replay_pages_per_minute: float = 120.0
    replay_pages_burst: int = 60
    # Uploaded records (POST /api/replays).
    max_record_bytes: int = 256 * 1024
    max_record_draws: int = 5000
    max_record_decisions: int = 5000
    max_record_target_score: int = 1000
    # A table's target_score (its rule option): a game to 10^9 points never ends, and its
    # history grows with every move.
    max_target_score: int = 1000
    # The most bytes of the current game's changes a welcome's history carries; past it
    # the welcome carries the newest changes that fit and says so (history_cut).
    welcome_history_bytes: int = 256 * 1024
    # Bytes of welcomes to spectators at one table, all their addresses together (a
    # sustained rate per minute and a burst): a crowd of strangers reading a long game's
    # welcome again and again costs the table this much, whatever addresses they have.
    spectator_welcome_bytes_per_minute: int = 32 * 1024 * 1024
    spectator_welcome_bytes_burst: int = 16 * 1024 * 1024
    # One replay's budget in its worker process: CPU seconds and memory.
    replay_seconds: float = 10.0
    replay_memory_mb: int = 512
    # Replay steps per page of GET .../replay.
    replay_page_steps: int = 200
    # The coach (flip7.server.services.coach_jobs): analyses asked for per address (new ones; a
    # cached or running one is free), worker processes, analyses waiting at once (503 busy
    # past it), and one analysis's budget in its worker: CPU seconds and memory.
    coach_per_minute: float = 2.0
    coach_burst: int = 5
    coach_workers: int = 1
    coach_queue: int = 8
    coach_seconds: float = 300.0
    coach_memory_mb: int = 1024
    # Fair queues (flip7.server.services.queues): the jobs one address may hold, waiting or
    # running, in the replay worker's queue and in the coach's (429 too_many_jobs past it);
    # jobs are served in turn across addresses, a game's own players first for its coach.
    replay_jobs_per_address: int = 2
    coach_jobs_per_address: int = 2
    # Tables leave memory (and the slot count) when idle this long, in seconds: a waiting
    # table nobody has touched, and a finished or abandoned one (no human connected). A
    # game in play whose players are away (not left) is suspended instead: out of memory,
    # stored, and rebuilt as it was when asked for, for suspended_table_ttl (7 days).
    waiting_table_ttl: float = 1800.0
    idle_table_ttl: float = 600.0
    suspended_table_ttl: float = 7 * 24 * 3600.0
    # Ceilings over every address (flip7.server.table.expiry): tables created by everyone (a
    # token bucket: per minute and at once; past it 503 busy), and *unattended* tables
    # (waiting, and no seated human ever connected: made by REST and never opened), which
    # live this many at most (creating one more closes the oldest) and this long idle.
    # At 200 a minute, waiting tables made for waiting_table_ttl stay under max_tables.
    tables_per_minute_all: float = 200.0
    tables_burst_all: int = 100
    max_unattended_tables: int = 1000
    unattended_table_ttl: float = 300.0
    # Players who go away (flip7.server.table.presence): seconds a disconnected player's turn waits
    # before the others may hand the seat to the stand-in bot, and before the server does
    # it itself; seconds a disconnected player keeps their seat at the end screen before the
    # rematch goes on without them; seconds a table with no seated human connected stays in
    # the lobby's list.
    handover_grace: float = 15.0
    handover_auto: float = 30.0
    rematch_wait: float = 60.0
    lobby_hide_after: float = 120.0
    # Bot thinking: worker processes (started as needed; by default one per usable core
    # but one), and CPU seconds a table's bots may use a minute.
    bot_workers: int = field(default_factory=default_bot_workers)
    bot_seconds_per_minute: float = 20.0
    # Per owner of tables (the address that created them, and the creator's identity):
    # CPU seconds a minute that all their tables' bots share, bots that think in a worker
    # (Medium and up) at one table, and their open tables that seat such bots.
    owner_bot_seconds_per_minute: float = 30.0
    search_bots_per_table: int = 6
    search_bot_tables_per_owner: int = 3
    # WebSockets per client address at once, and frames per address (all its sockets).
    connections_per_address: int = 64
    frames_per_second_per_address: float = 100.0
    frames_burst_per_address: int = 200
    # Bytes sent over WebSockets per address (all its sockets): a sustained rate per minute
    # and a burst. A welcome past it is refused (the socket closed), and so is a
    # spectator's update; a seated player's updates are counted, never cut.
    bytes_per_minute_per_address: int = 64 * 1024 * 1024
    bytes_burst_per_address: int = 32 * 1024 * 1024
    # Seconds a WebSocket may wait before its hello, and an HTTP connection before its
    # request headers are complete (slow or silent clients are closed).
    hello_timeout: float = 10.0
    header_timeout: float = 10.0
    # Connections (HTTP and WebSockets, counted from the TCP connect) the server holds at
    # once, lowered to fit the process's open-file limit; at it (or at
    # open_connections_per_address from one address) the oldest idle connection is shed to
    # make room (waiting for its headers, kept alive, a WebSocket without hello), and when
    # none is, the newcomer is answered 503 busy (429 too_many_connections).
    max_connections: int = 10_000
    open_connections_per_address: int = 256
    # WebSocket handshakes per address (a burst, then per minute), and the seconds an
    # address closed for flooding (1008) has its handshakes refused.
    handshakes_per_minute: float = 30.0
    handshakes_burst: int = 20
    # ... and every address together, per process (flip7.server.api.guard.HandshakeTurns):
    # past it a handshake waits its turn (blocks in rotation), 503 busy after 5 s. The
    # burst is small because a handshake and the welcome it leads to cost the event loop
    # 1-2 ms: 50 at once (a crowd of spectators arriving) held every table's moves for
    # 100-200 ms; 10 hold them at most about 20 ms, and the rate is the same.
    handshakes_per_minute_all: float = 12_000.0
    handshakes_burst_all: int = 10
    flood_cooloff: float = 60.0
    # The database lease that keeps a second server off the same database.
    lease_seconds: float = 15.0
    # Ratings (flip7.server.services.ratings): the least target score of a rated table (the
    # rules' default: a shorter game is mostly luck, and a one-point game is a coin toss
    # repeated as fast as a script can); rated games of one pair of entrants (two
    # identities, or an identity and a bot level) in 24 hours, past which their games still
    # play but do not rate that pair; and the address block an identity's seat is counted
    # from (IPv4 and IPv6 prefix lengths): identities that joined from one block do not rate
    # each other.
    rated_min_target_score: int = 200
    rated_games_per_pair_per_day: int = 5
    rating_network_ipv4_prefix: int = 24
    rating_network_ipv6_prefix: int = 48
    # Names (flip7.server.base.names): the most characters (code points, not UTF-16 units) of a
    # player's and of a table's name; a longer one is refused, never cut.
    player_name_chars: int = 24
    table_name_chars: int = 40
    # Table chat (flip7.server.table.chat): the longest message in characters (code points, not
    # UTF-16 units), messages per socket (a sustained rate per minute and a burst) and per
    # address (all its sockets: friends behind one router share it, so it is wider), and
    # how many recent messages a welcome carries.
    chat_max_chars: int = 200
    chat_per_minute: float = 20.0
    chat_burst: int = 5
    chat_per_minute_per_address: float = 60.0
    chat_burst_per_address: int = 20
    chat_history: int = 50
    # Spectators' chat at one table, all their addresses together (seated players are not
    # held to it): a sustained rate per minute and a burst, so that many addresses cannot
    # fill the history a newcomer receives.
    spectator_chat_per_minute: float = 20.0
    spectator_chat_burst: int = 10
    # E-mail (flip7.server.services.mail): verification e-mails asked for, per address and
    # per identity each; and how often the gathered turn alerts are sent, in seconds.
    email_codes_per_minute: float = 1.0
    email_codes_burst: int = 3
    email_batch_seconds: float = 60.0


LIMITS: tuple[str, ...] = (
    "max_message_bytes",
    "rate_per_second",
    "rate_burst",
    "rate_strikes",
    "send_queue_limit",
    "max_tables",
    "min_turn_timer",
    "bot_move_seconds",
    "tables_per_minute",
    "tables_burst",
    "joins_per_minute",
    "joins_burst",
    "players_per_minute",
    "players_burst",
    "transfer_codes_per_minute",
    "transfer_codes_burst",
    "claims_per_minute",
    "claims_burst",
    "scorecards_per_minute",
    "scorecards_burst",
    "scorecard_rounds_per_minute",
    "scorecard_rounds_burst",
    "renames_per_minute",
    "renames_burst",
    "scorecard_ttl",
    "uploads_per_minute",
    "uploads_burst",
    "replay_pages_per_minute",
    "replay_pages_burst",
    "max_record_bytes",
    "max_record_draws",
    "max_record_decisions",
    "max_record_target_score",
    "max_target_score",
    "welcome_history_bytes",
    "spectator_welcome_bytes_per_minute",
    "spectator_welcome_bytes_burst",
    "replay_seconds",
    "replay_memory_mb",
    "replay_page_steps",
    "coach_per_minute",
    "coach_burst",
    "coach_workers",
    "coach_queue",
    "coach_seconds",
    "coach_memory_mb",
    "replay_jobs_per_address",
    "coach_jobs_per_address",
    "waiting_table_ttl",
    "idle_table_ttl",
    "suspended_table_ttl",
    "email_codes_per_minute",
    "email_codes_burst",
    "email_batch_seconds",
    "tables_per_minute_all",
    "tables_burst_all",
    "max_unattended_tables",
    "unattended_table_ttl",
    "handover_grace",
    "handover_auto",
    "rematch_wait",
    "lobby_hide_after",
    "bot_workers",
    "bot_seconds_per_minute",
    "owner_bot_seconds_per_minute",
    "search_bots_per_table",
    "search_bot_tables_per_owner",
    "connections_per_address",
    "frames_per_second_per_address",
    "frames_burst_per_address",
    "bytes_per_minute_per_address",
    "bytes_burst_per_address",
    "hello_timeout",
    "header_timeout",
    "ipv4_block_prefix",
    "ipv6_block_prefix",
    "max_connections",
    "open_connections_per_address",
    "handshakes_per_minute",
    "handshakes_burst",
    "handshakes_per_minute_all",
    "handshakes_burst_all",
    "flood_cooloff",
    "lease_seconds",
    "rated_min_target_score",
    "rated_games_per_pair_per_day",
    "rating_network_ipv4_prefix",
    "rating_network_ipv6_prefix",
    "player_name_chars",
    "table_name_chars",
    "chat_max_chars",
    "chat_per_minute",
    "chat_burst",
    "chat_per_minute_per_address",
    "chat_burst_per_address",
    "chat_history",
    "spectator_chat_per_minute",
    "spectator_chat_burst",
)


class LimitError(ValueError):
    """A ``--limit NAME=VALUE`` that names no limit or gives a bad value."""


def with_limits(settings: Settings, assignments: list[str]) -> Settings:
    """``settings`` with limits changed by ``NAME=VALUE`` strings (``flip7 serve --limit``).

    >>> with_limits(Settings(), ["tables_per_minute=30", "max_tables=500"]).max_tables
    500
    >>> with_limits(Settings(), ["tables=3"])
    Traceback (most recent call last):
    ...
    flip7.server.base.settings.LimitError: unknown limit 'tables'; ...
    >>> with_limits(Settings(), ["max_tables=-1"])
    Traceback (most recent call last):
    ...
    flip7.server.base.settings.LimitError: limit max_tables must be a number above 0, got '-1'
    """
    changes: dict[str, int | float] = {}
    for assignment in assignments:
        name, sep, text = assignment.partition("=")
        name = name.strip()
        if not sep:
            raise LimitError(f"give a limit as NAME=VALUE, got {assignment!r}")
        if name not in LIMITS:
            raise LimitError(f"unknown limit {name!r}; the limits are {', '.join(LIMITS)}")
        kind = type(getattr(settings, name))
        try:
            value: int | float = kind(text.strip())
        except ValueError:
            value = -1
        if not value > 0:
            raise LimitError(f"limit {name} must be a number above 0, got {text.strip()!r}")
        changes[name] = value
    return replace(settings, **changes)  # type: ignore[arg-type]
