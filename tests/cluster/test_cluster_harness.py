"""The cluster harness (tests/cluster_helpers.py) on the real thing: three ``flip7 serve``
processes sharing one PostgreSQL database and one Redis behind the recipe's HAProxy. Each
says it reaches Redis and names itself (``node``); new connections reach all three; a killed
process is out within seconds, every request meanwhile answered by the others, and back in
after a restart on its port.

Skipped until ``flip7 serve`` has ``--redis`` (the cluster core, issue 15)."""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi")

from cluster_helpers import Cluster, haproxy_path, identity

from flip7.cli import serve


def _has_redis_option() -> bool:
    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    return "--redis" in parser.format_help()


pytestmark = pytest.mark.skipif(not _has_redis_option(),
                                reason="flip7 serve has no --redis yet (the cluster core)")

SIZE = 3


# One cluster for the file (its start is most of the file's time): the first test only
# reads it, the second kills a process and checks that its restart is back in.
@pytest.fixture(scope="module")
def cluster(module_pg_url: str, module_redis_url: str) -> Iterator[Cluster]:
    haproxy_path()
    with Cluster(SIZE, module_pg_url, module_redis_url) as running:
        yield running


def _nodes_through_proxy(cluster: Cluster, count: int,
                         failures: list[str] | None = None) -> Counter[str | None]:
    """Which process answered each of ``count`` health checks through the proxy (None: no
    good answer; what came instead is appended to ``failures``)."""
    answers: Counter[str | None] = Counter()
    for _ in range(count):
        r = cluster.health()
        answers[identity(r.json()) if r.status_code == 200 else None] += 1
        if r.status_code != 200 and failures is not None:
            failures.append(f"{r.status_code} {r.text[:200]}")
    return answers


def test_every_process_is_in_the_cluster_and_gets_connections(cluster: Cluster) -> None:
    own = [cluster.health(url).json() for url in cluster.urls]
    assert [h["redis"] for h in own] == ["ok"] * SIZE, own
    assert [h["database"] for h in own] == ["postgresql"] * SIZE, own
    assert len({h["node"] for h in own}) == SIZE, own
    answers = _nodes_through_proxy(cluster, 10 * SIZE)
    print(f"{10 * SIZE} requests through the proxy: {dict(answers)}")
    assert set(answers) == {h["node"] for h in own}


def test_a_killed_process_is_out_and_back_after_a_restart(cluster: Cluster) -> None:
    killed = cluster.nodes()
    gone = next(node for node, i in killed.items() if i == 1)
    start = time.monotonic()
    cluster.kill(1)
    # From the kill on, until the proxy has it DOWN and 20 requests after.
    meanwhile: Counter[str | None] = Counter()
    failures: list[str] = []
    while cluster.proxy.status(cluster.name(1)) != "DOWN":
        assert time.monotonic() - start < 5, "not DOWN within 5 s"
        meanwhile += _nodes_through_proxy(cluster, 1, failures)
    took = time.monotonic() - start
    answers = _nodes_through_proxy(cluster, 20, failures)
    print(f"kill -9 of {cluster.name(1)}: DOWN after {took:.2f} s; before {dict(meanwhile)}, "
          f"after {dict(answers)}")
    for seen in (meanwhile, answers):
        assert None not in seen and gone not in seen, (seen, failures)
    cluster.restart(1)
    back = cluster.nodes()
    assert len(back) == SIZE and gone not in back  # a new process, a new node id
    assert set(_nodes_through_proxy(cluster, 10 * SIZE)) == set(back)
