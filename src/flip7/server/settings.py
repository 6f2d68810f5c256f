"""Server settings: where the database is, how bots pace themselves, the protocol limits."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_DATABASE", "Settings", "database_url"]

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


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the server can be told; the defaults are what ``flip7 serve`` uses."""

    database_url: str = "sqlite+aiosqlite:///flip7.db"
    # Seconds a bot waits before deciding, so that people can follow what it does.
    bot_delay: float = 0.8
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
