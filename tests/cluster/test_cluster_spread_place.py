"""Where tables are placed over the live processes (flip7.server.cluster.spread.place): the
same answer everywhere, each process about its share, and a process that comes or goes
moves only the tables whose place it is or was. No service needed."""

from __future__ import annotations

import random
import string
from collections import Counter

from flip7.server.base.settings import Slot, table_slot
from flip7.server.cluster.spread import Spread, node_id, place, slot_of

RNG = random.Random(32)
TABLES = ["".join(RNG.choices(string.ascii_letters + string.digits + "-_", k=8))
          for _ in range(6000)]  # fmt: skip
NODES = ["3f9a0c1b2d4e", "77aa01bc9e3f", "c0ffee123456", "0a1b2c3d4e5f"]


def test_the_place_is_a_function_of_the_table_and_the_live_processes_alone() -> None:
    for table_id in TABLES[:200]:
        where = place(table_id, NODES)
        assert where in NODES
        assert place(table_id, list(reversed(NODES))) == where  # the order says nothing
        assert place(table_id, set(NODES)) == where


def test_each_process_gets_about_its_share() -> None:
    for n in (2, 3, 4):
        counts = Counter(place(t, NODES[:n]) for t in TABLES)
        share = len(TABLES) / n
        assert set(counts) == set(NODES[:n])
        assert all(abs(c - share) < 0.1 * share for c in counts.values()), counts


def test_a_process_that_comes_or_goes_moves_only_its_own_tables() -> None:
    before = {t: place(t, NODES[:3]) for t in TABLES}
    joined = {t: place(t, NODES) for t in TABLES}
    moved = [t for t in TABLES if joined[t] != before[t]]
    assert all(joined[t] == NODES[3] for t in moved)  # only to the newcomer...
    assert abs(len(moved) - len(TABLES) / 4) < 0.1 * len(TABLES) / 4  # ... its share
    left = {t: place(t, NODES[1:3]) for t in TABLES}  # the first one dies
    assert all(left[t] == before[t] for t in TABLES if before[t] != NODES[0])
    # Its tables spread over both survivors.
    orphans = Counter(left[t] for t in TABLES if before[t] == NODES[0])
    assert set(orphans) == set(NODES[1:3])
    assert min(orphans.values()) > 0.4 * sum(orphans.values())


def test_with_slots_a_table_goes_to_its_slots_process_while_it_lives() -> None:
    nodes = [node_id(Slot(i, 3)) for i in (1, 2, 3)]
    assert [slot_of(n) for n in nodes] == [Slot(1, 3), Slot(2, 3), Slot(3, 3)]
    for table_id in TABLES[:300]:
        assert place(table_id, nodes) == nodes[table_slot(table_id, 3)]
    # Slot 2's process is dead: its tables spread over the others; the rest stay.
    survivors = [nodes[0], nodes[2]]
    orphans = Counter(place(t, survivors) for t in TABLES if table_slot(t, 3) == 1)
    assert set(orphans) == set(survivors)
    assert all(place(t, survivors) == nodes[table_slot(t, 3)]
               for t in TABLES if table_slot(t, 3) != 1)  # fmt: skip
    # It restarts (a new id, the same slot): its tables are all its own again.
    back = [nodes[0], node_id(Slot(2, 3)), nodes[2]]
    assert all(place(t, back) == back[table_slot(t, 3)] for t in TABLES[:300])


def test_a_process_hands_over_only_what_is_placed_elsewhere_a_few_a_second() -> None:
    now = [100.0]
    spread = Spread(NODES[0], grace=3.0, clock=lambda: now[0])
    spread.saw({n: 0 for n in NODES[:2]})
    mine = [t for t in TABLES[:100] if spread.here(t)]
    misplaced = spread.misplaced(TABLES[:100])
    assert {t for t, _ in misplaced} == set(TABLES[:100]) - set(mine)
    assert {to for _, to in misplaced} == {NODES[1]}
    given = 0
    while spread.may_hand_over():
        spread.handed_over()
        given += 1
    assert given == 3 and spread.given == 3  # the burst, then the rate
    now[0] += 1.0
    assert spread.may_hand_over()


def test_a_table_nobody_runs_is_left_to_its_place_while_that_process_listens() -> None:
    import asyncio

    spread = Spread(NODES[0], grace=3.0)
    spread.saw({n: 0 for n in NODES[:3]})
    listening = set(NODES[1:3])

    async def alive(nodes: set[str]) -> set[str]:
        return nodes & listening

    async def where(table_id: str) -> str | None:
        return await spread.elsewhere(table_id, alive)

    placed = {t: spread.place(t) for t in TABLES[:60]}
    for table_id, there in placed.items():
        assert asyncio.run(where(table_id)) == (None if there == NODES[0] else there)
    listening.discard(NODES[1])  # killed: Redis says so at once, before its lease expires
    for table_id in placed:
        expected = place(table_id, [NODES[0], NODES[2]])
        assert asyncio.run(where(table_id)) == (None if expected == NODES[0] else expected)


def test_a_socket_is_not_sent_back_to_an_owner_whose_lease_lapsed_though_it_listens() -> None:
    """Cluster.locate: the table's owner is hung or cut off from the database only (its
    lease lapsed, it still listens on Redis) and the last sweep still counts it live; a
    socket for its table is sent to the table's place among the others, not back to it
    (where the next ``_follow`` would only close it again)."""
    import asyncio
    from collections import OrderedDict
    from types import SimpleNamespace

    from flip7.server.base.shared import Shared
    from flip7.server.cluster.node import Cluster

    owner, me, other = NODES[:3]
    spread = Spread(me, grace=3.0)
    spread.saw({n: 0 for n in NODES[:3]})  # the last sweep: the owner still live
    adopted: list[str] = []

    async def owner_of(table_id: str) -> tuple[str, bool]:
        return owner, False  # the database: its lease lapsed

    async def alive(nodes: set[str]) -> set[str]:
        return set(nodes)  # every one listens on Redis, the owner too

    async def adopt(table_id: str) -> None:
        adopted.append(table_id)

    cluster = Cluster.__new__(Cluster)
    cluster.node, cluster.spread = me, spread
    cluster.lobby = SimpleNamespace(tables={})  # type: ignore[assignment]
    cluster.ownership = SimpleNamespace(owner_of=owner_of)  # type: ignore[assignment]
    cluster.bus = SimpleNamespace(up=True, alive=alive)  # type: ignore[assignment]
    cluster.adopt = adopt  # type: ignore[method-assign]
    cluster._owners, cluster._asking = OrderedDict(), Shared()
    placed_at_owner = [t for t in TABLES[:300] if spread.place(t) == owner]
    assert placed_at_owner
    for table_id in placed_at_owner:
        expected = place(table_id, [me, other])
        where = asyncio.run(cluster.locate(table_id))
        assert where == (None if expected == me else expected), table_id
    assert adopted == [t for t in placed_at_owner if place(t, [me, other]) == me]
