"""An owner cut off the network (issue 32): three ``flip7 serve`` processes behind the proxy
recipe, on one PostgreSQL and one Redis; every table run by the first, every player's socket
on one of the other two (linked over Redis to the owner). The first reaches PostgreSQL and
Redis only through relays the test holds (cluster_helpers.Relay), which are cut for longer
than its lease, then healed: a network partition, the process itself running on throughout.

Two kinds of cut. A reset closes every connection through the relays and refuses new ones:
the owner's Redis subscription ends at once (the others see that it no longer listens) and
its renewals fail. A black hole closes nothing but forwards nothing either, both ways, as
packets dropped on a link: the owner still looks subscribed to Redis, only the database
tells that its lease lapsed, and whatever it had sent goes through once healed.

Either way every table's next move is applied under its new owner's fence within 5 s of
the cut, the owner, healed, writes nothing under its old token (it stopped applying moves
once its own clock said its lease may have lapsed), nor does any process at its shutdown,
and no acknowledged move is lost or applied twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from urllib.parse import urlsplit

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("redis")
pytest.importorskip("psycopg")

import chaos_helpers as chaos_h
from cluster_helpers import Cluster, Relay

CUT = chaos_h.OUTAGE_SECONDS
SERVER_ARGS = chaos_h.OUTAGE_SERVER_ARGS


def upstream(url: str) -> tuple[str, int]:
    where = urlsplit(url)
    assert where.hostname is not None and where.port is not None, url
    return where.hostname, where.port


@pytest.mark.parametrize("kind", ["reset", "black_hole"])
def test_a_cut_off_owner_s_tables_move_on_within_5_s_and_it_writes_nothing_when_healed(
    pg_url: str, redis_url: str, kind: str
) -> None:
    began = time.monotonic()
    with contextlib.ExitStack() as stack:
        relays = [stack.enter_context(Relay(upstream(url))) for url in (pg_url, redis_url)]
        pg_relay, redis_relay = relays
        cluster = stack.enter_context(Cluster(
            3, [pg_relay.url(pg_url), pg_url, pg_url],
            [redis_relay.url(redis_url), redis_url, redis_url], extra_args=SERVER_ARGS))

        def cut() -> None:
            for relay in relays:
                if kind == "reset":
                    relay.cut()
                else:
                    relay.hang()

        def heal() -> None:
            for relay in relays:
                relay.heal()

        run, cut_at, owned, table_ids = asyncio.run(chaos_h.owner_outage(
            cluster, pg_url, "Cut", cut, heal, seed=33))
    print(f"\n  {kind}, in {time.monotonic() - began:.1f} s", end="")
    # Read once every process has stopped: their shutdown writes nothing either.
    chaos_h.check_outage(pg_url, [cluster.log(i) for i in range(3)], run, cut_at, owned,
                         table_ids, f"cut off ({kind}) {CUT} s",
                         followed=kind == "black_hole")
