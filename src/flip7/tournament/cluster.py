"""Dask: a tournament's chunks on a cluster, through Dask's ``concurrent.futures`` executor.

``dask_executor("local")`` starts a LocalCluster on this machine (one single-threaded
worker process per core, or ``workers``); any other address is a running scheduler
(``tcp://scheduler:8786``) whose workers can import this same version of flip7 (and any
module a ``module:Class`` bot spec names). Needs ``dask[distributed]`` (``flip7[sim]``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from flip7.tournament.runner import TournamentError, available_cores

__all__ = ["DaskExecutor", "dask_executor"]


@dataclass(frozen=True)
class DaskExecutor:
    """An open Dask executor and a description of where it runs (for ``results.json``)."""

    executor: Executor
    name: str
    workers: int


@contextlib.contextmanager
def dask_executor(
    address: str, workers: int | None = None, timeout: float = 30.0
) -> Iterator[DaskExecutor]:
    """Connect to the Dask scheduler at ``address`` (or start a LocalCluster for ``local``)
    and yield its executor; the client (and a local cluster) close on leaving."""
    try:
        import distributed
    except ImportError:
        raise TournamentError("--dask needs dask.distributed: pip install 'flip7[sim]'") from None
    dist: Any = distributed  # its Client and LocalCluster are not annotated
    cluster: Any = None
    client: Any = None
    try:
        if address == "local":
            n = workers if workers and workers > 0 else available_cores()
            where = f"a local Dask cluster of {n} workers"
            cluster = dist.LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0"
            )
            client = dist.Client(cluster, timeout=timeout)
            client.wait_for_workers(n, timeout=timeout)
            name = f"dask local ({n} workers)"
        else:
            where = f"the Dask scheduler at {address}"
            client = dist.Client(address, timeout=timeout)
            name = f"dask {address}"
        count = len(client.nthreads())
    except (OSError, TimeoutError, ValueError) as exc:
        _close(client, cluster)
        raise TournamentError(f"cannot reach {where}: {exc}") from None
    try:
        yield DaskExecutor(client.get_executor(pure=False), name, count)
    finally:
        _close(client, cluster)


def _close(client: Any, cluster: Any) -> None:
    if client is not None:
        client.close()
    if cluster is not None:
        cluster.close()
