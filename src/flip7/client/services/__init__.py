"""Throwaway services on loopback, for the tools (``flip7 loadtest``, ``attack``,
``cluster-bench``) and the tests alike: ``flip7 serve`` processes
(:mod:`~flip7.client.services.process`), a PostgreSQL cluster (``initdb`` + ``postgres``),
a ``redis-server``, HAProxy running the documented recipe (``deploy/haproxy.cfg``), and a
:class:`Cluster` of servers behind that proxy.

Each listens on 127.0.0.1 on a free port, keeps its files in a folder it is given (or makes
one), and is stopped by whoever started it. One that does not come up raises
:class:`ServiceError` with the tail of its log.
"""

from flip7.client.services.cluster import Cluster
from flip7.client.services.haproxy import (
    BACKEND,
    DROPPED_IN_GLOBAL,
    FRONTEND,
    HAPROXY,
    RECIPE,
    SECTIONS,
    STATS,
    Proxy,
    RecipeError,
    render,
)
from flip7.client.services.postgres import PG_BIN, Postgres
from flip7.client.services.process import (
    LOOPBACK,
    ServerProcess,
    ServiceError,
    free_port,
    python_env,
    serve_subprocess,
    stop_process,
    tail,
    which,
)
from flip7.client.services.redis_server import (
    REDIS_DATABASES,
    REDIS_SERVER,
    RedisServer,
    redis_commands,
)

__all__ = [
    "BACKEND",
    "DROPPED_IN_GLOBAL",
    "FRONTEND",
    "HAPROXY",
    "LOOPBACK",
    "PG_BIN",
    "RECIPE",
    "REDIS_DATABASES",
    "REDIS_SERVER",
    "SECTIONS",
    "STATS",
    "Cluster",
    "Postgres",
    "Proxy",
    "RecipeError",
    "RedisServer",
    "ServerProcess",
    "ServiceError",
    "free_port",
    "python_env",
    "redis_commands",
    "render",
    "serve_subprocess",
    "stop_process",
    "tail",
    "which",
]
