"""Where a table's requests run: here, when this process runs the table, else at the
process that does (many processes: flip7.server.cluster). The one place that decides, for
a REST request (:func:`run`) and for a socket (:func:`session`).

Either way the same code answers: :func:`flip7.server.api.operations.perform` a request,
:class:`flip7.server.api.play.Here` a socket's messages, here or at the table's owner
(:func:`join_cluster` hands them to the cluster for what other processes forward).
"""

from __future__ import annotations

import functools

from flip7.server.api.operations import perform
from flip7.server.api.play import Here
from flip7.server.base.requests import Answer, Request
from flip7.server.cluster.link import Session
from flip7.server.cluster.node import Cluster
from flip7.server.cluster.node import of as cluster_of
from flip7.server.cluster.spread import node_id
from flip7.server.store.database import Store
from flip7.server.store.ownership import Ownership
from flip7.server.table.errors import TableError
from flip7.server.table.lobby import Lobby
from flip7.server.table.table import Client, Table

__all__ = ["join_cluster", "run", "session"]


async def run(lobby: Lobby, request: Request) -> Answer:
    """Answer ``request``, here or at the process that runs its table."""
    cluster = cluster_of(lobby)
    if cluster is None:
        return await perform(lobby, await lobby.find(request.table_id), request)
    return await cluster.run(request)


async def session(lobby: Lobby, table_id: str, client: Client) -> Session | None:
    """Where a new socket plays: here when this process runs ``table_id``, else linked to
    the process that does (a suspended table is rebuilt first); None when the table is not
    open. 503 ``unavailable`` when Redis or the database do not answer."""
    cluster = cluster_of(lobby)
    if cluster is None:
        return Here(lobby, table_id, client) if await lobby.wake(table_id) else None
    try:
        where = await cluster.link(client, table_id)
    except TableError:
        raise
    except Exception:  # the database does not answer
        raise TableError("unavailable", "the server cannot reach its database right now; "
                         "try again in a moment", 503, retry_after=1.0) from None
    if isinstance(where, Table):
        return Here(lobby, table_id, client)
    return where


def join_cluster(lobby: Lobby, store: Store, redis_url: str, seconds: float) -> Cluster:
    """Make ``lobby`` this process's part of a cluster on ``redis_url``, its ownership rows
    in ``store``: what other processes forward is answered by the same code as this
    process's own requests."""
    # Its slot in its id: the others place the tables of its slot here (cluster.spread).
    lobby.node = node_id(lobby.settings.slot)
    ownership = Ownership(store.engine, lobby.node, seconds)
    cluster = Cluster(lobby, ownership, redis_url, seconds,
                      perform=functools.partial(perform, lobby),
                      sessions=functools.partial(Here, lobby))
    lobby.cluster = cluster
    store.paused = cluster.lease_problem
    store.node = lobby.node
    return cluster
