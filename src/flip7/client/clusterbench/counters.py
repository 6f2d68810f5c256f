"""What a move costs the shared services: PostgreSQL's transactions, rows and WAL bytes,
Redis's commands and bytes, and the servers' resident memory, read at the edges of a
measured window so that the cluster bench can print them per move (the capacity model of
docs/deploy.md is built from these figures).

The services' own counters are read, not estimated: ``pg_stat_database`` and
``pg_current_wal_lsn()`` for PostgreSQL, ``INFO`` for Redis, ``/proc/PID/status`` for
memory. PostgreSQL's statistics reach ``pg_stat_database`` up to a second late, so a
window should be much longer than that.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from flip7.client.services.redis_server import redis_command

__all__ = [
    "Counters",
    "PerMove",
    "Watched",
    "per_move",
    "read_counters",
    "wal_position",
]


@dataclass(frozen=True, slots=True)
class Counters:
    """The services' running totals at one moment."""

    pg_commits: int = 0
    pg_rows: int = 0  # inserted + updated + deleted
    pg_wal_bytes: int = 0  # the WAL's position: bytes written since the cluster began
    redis_commands: int = 0
    redis_bytes_in: int = 0
    redis_bytes_out: int = 0
    redis_calls: dict[str, int] = field(default_factory=dict)  # calls by command
    rss_kib: dict[str, int] = field(default_factory=dict)  # each server's resident memory


@dataclass(frozen=True, slots=True)
class PerMove:
    """The services' costs over a window, per applied move.

    >>> a = Counters(10, 20, 1000, 5, 100, 200)
    >>> b = Counters(60, 220, 51000, 105, 10100, 20200, {"evalsha": 80}, {"app1": 90_000})
    >>> per_move(a, b, 100).to_json()
    {'moves': 100, 'pg_commits': 0.5, 'pg_rows': 2.0, 'pg_wal_bytes': 500.0, \
'redis_commands': 1.0, 'redis_bytes_in': 100.0, 'redis_bytes_out': 200.0, \
'rss_mib': {'app1': 87.9}, 'redis_calls': {'evalsha': 0.8}, 'totals': {'pg_commits': 50, \
'pg_rows': 200, 'pg_wal_bytes': 50000, 'redis_commands': 100, 'redis_bytes_in': 10000, \
'redis_bytes_out': 20000}}
    """

    moves: int
    pg_commits: float
    pg_rows: float
    pg_wal_bytes: float
    redis_commands: float
    redis_bytes_in: float
    redis_bytes_out: float
    rss_mib: dict[str, float]
    redis_calls: dict[str, float] = field(default_factory=dict)  # the busiest commands
    # The window's own counts, unrounded: a capacity model multiplies them out, and the
    # per-move figures above are rounded to 3 places (0.0004 commits a move reads as 0).
    totals: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "moves": self.moves,
            "pg_commits": self.pg_commits,
            "pg_rows": self.pg_rows,
            "pg_wal_bytes": self.pg_wal_bytes,
            "redis_commands": self.redis_commands,
            "redis_bytes_in": self.redis_bytes_in,
            "redis_bytes_out": self.redis_bytes_out,
            "rss_mib": self.rss_mib,
            "redis_calls": self.redis_calls,
            "totals": self.totals,
        }


def per_move(before: Counters, after: Counters, moves: int) -> PerMove:
    """The differences of two readings divided by the moves applied between them (memory
    is the later reading's, in MiB)."""
    n = max(moves, 1)
    totals: dict[str, int] = {
        name: getattr(after, name) - getattr(before, name) for name in _COUNTED
    }

    def each(name: str) -> float:
        return round(totals[name] / n, 3)

    return PerMove(
        moves,
        each("pg_commits"),
        each("pg_rows"),
        each("pg_wal_bytes"),
        each("redis_commands"),
        each("redis_bytes_in"),
        each("redis_bytes_out"),
        {name: round(kib / 1024, 1) for name, kib in after.rss_kib.items()},
        _busiest(before.redis_calls, after.redis_calls, n),
        totals,
    )


# The running totals a window's PerMove counts.
_COUNTED = ("pg_commits", "pg_rows", "pg_wal_bytes", "redis_commands", "redis_bytes_in",
            "redis_bytes_out")  # fmt: skip


def _busiest(before: dict[str, int], after: dict[str, int], moves: int) -> dict[str, float]:
    calls = {name: (count - before.get(name, 0)) / moves for name, count in after.items()}
    top = sorted(calls.items(), key=lambda item: -item[1])[:6]
    return {name: round(value, 3) for name, value in top if value > 0}


def wal_position(lsn: str) -> int:
    """A WAL location (``pg_current_wal_lsn()``'s text) as a byte position.

    >>> wal_position("0/16B3748"), wal_position("1/0")
    (23803720, 4294967296)
    """
    high, low = lsn.split("/")
    return (int(high, 16) << 32) + int(low, 16)


def _postgres(url: str) -> tuple[int, int, int]:
    import psycopg  # the server extra's driver; the bench runs PostgreSQL anyway

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT xact_commit, tup_inserted + tup_updated + tup_deleted,"
            " pg_current_wal_lsn()::text FROM pg_stat_database"
            " WHERE datname = current_database()"
        ).fetchone()
    if row is None:
        return 0, 0, 0
    return int(row[0]), int(row[1]), wal_position(str(row[2]))


def redis_info(host: str, port: int, timeout: float = 2.0) -> dict[str, str]:
    """Redis's ``INFO stats`` and ``INFO commandstats`` as ``name -> value`` (one bulk
    reply each, read without the ``redis`` package)."""
    fields: dict[str, str] = {}
    with socket.create_connection((host, port), timeout=timeout) as s:
        for section in ("stats", "commandstats"):
            s.sendall(redis_command(["INFO", section]))
            data = b""
            while b"\r\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    raise ConnectionError("Redis closed the connection during INFO")
                data += chunk
            head, _, body = data.partition(b"\r\n")
            size = int(head[1:])  # "$<bytes>"
            while len(body) < size + 2:
                chunk = s.recv(65536)
                if not chunk:
                    raise ConnectionError("Redis closed the connection during INFO")
                body += chunk
            for line in body[:size].decode().splitlines():
                name, sep, value = line.partition(":")
                if sep:
                    fields[name] = value
    return fields


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


@dataclass(frozen=True, slots=True)
class Watched:
    """The services whose counters a run reads: its PostgreSQL database, its Redis server
    (host, port) and its servers' pids by name. It crosses into the load generator's
    process as JSON.

    >>> w = Watched("postgresql://u@127.0.0.1:5432/bench_1", ("127.0.0.1", 6390), {"app1": 42})
    >>> Watched.from_json(w.to_json()) == w
    True
    >>> Watched.from_json(Watched(None, None, {}).to_json()).read()
    Counters(pg_commits=0, pg_rows=0, pg_wal_bytes=0, redis_commands=0, redis_bytes_in=0, \
redis_bytes_out=0, redis_calls={}, rss_kib={})
    """

    postgres: str | None
    redis: tuple[str, int] | None
    servers: Mapping[str, int]

    def to_json(self) -> dict[str, object]:
        return {
            "postgres": self.postgres,
            "redis": None if self.redis is None else list(self.redis),
            "servers": dict(self.servers),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Watched:
        postgres, redis, servers = data.get("postgres"), data.get("redis"), data.get("servers")
        return cls(
            None if postgres is None else str(postgres),
            None if not isinstance(redis, list) else (str(redis[0]), int(redis[1])),
            {} if not isinstance(servers, dict) else {str(k): int(v) for k, v in servers.items()},
        )

    def read(self) -> Counters:
        """The watched services' totals now."""
        return read_counters(self.postgres, self.redis, self.servers)


def read_counters(
    postgres_url: str | None, redis: tuple[str, int] | None, servers: Mapping[str, int]
) -> Counters:
    """The services' totals now (a service not given reads as zeros)."""
    commits, rows, wal = _postgres(postgres_url) if postgres_url else (0, 0, 0)
    info = redis_info(*redis) if redis else {}
    calls = {
        name[len("cmdstat_") :]: int(
            next((p[6:] for p in value.split(",") if p.startswith("calls=")), "0")
        )
        for name, value in info.items()
        if name.startswith("cmdstat_")
    }
    return Counters(
        commits,
        rows,
        wal,
        int(info.get("total_commands_processed", 0)),
        int(info.get("total_net_input_bytes", 0)),
        int(info.get("total_net_output_bytes", 0)),
        calls,
        {name: _rss_kib(pid) for name, pid in servers.items()},
    )
