"""Bot CPU shared per owner, not per table (issue 28, finding 1).

One address with ten tables of search bots got ten tables' CPU budget, and with one
worker process for the whole server another table's Expert bots waited seconds a move.
Now an owner of tables (the address that created them, and the creator's identity) has
one budget for all its tables, the pool serves the owner who used least first, the
heaviest owners drop to the stand-in while the workers are oversubscribed, worker bots are
capped per table and their tables per owner, and there is a worker per usable core.

The fake bots are in tests/thinking_bots.py, offered as an operator's ``--bot`` bots are
(at their own pace: a class attribute set here does not reach the worker processes);
nothing here asserts how long anything took: what is counted is where decisions were
made, in which order the pool took them, and what was refused.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

import thinking_bots
from server_helpers import app_client, auth, connect, new_table, play_to_end, services_of

from flip7.engine.game import Game
from flip7.server.base.settings import Settings, default_bot_workers
from flip7.server.table.thinking import Owner, Thinking

EXTRA = tuple(f"thinking_bots:{name}" for name in ("PidBot", "SlowBot", "BusyBot"))

# Addresses far apart, so that no grouping of addresses into blocks joins them.
FLOODER, VICTIM = "10.1.0.1", "10.2.0.1"


def _add(client: Any, table_id: str, token: str, bot: str) -> Any:
    return client.post(f"/api/tables/{table_id}/bots", json={"bot": bot}, headers=auth(token))


def _detail(response: Any) -> dict[str, Any]:
    detail: dict[str, Any] = response.json()["detail"]
    return detail


@contextmanager
def from_address(client: Any, address: str) -> Iterator[None]:
    """Requests of the block come from ``address`` (the test client's peer address)."""
    transport = client._transport  # starlette's TestClient: the ASGI scope's "client"
    before = transport.client
    transport.client = (address, 50000)
    try:
        yield
    finally:
        transport.client = before


def _events(caplog: pytest.LogCaptureFixture, name: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if f'"event":"{name}"' in r.getMessage()]


# ---------------------------------------------------------------------- the attack, in budgets


def test_one_owners_tables_share_one_budget_where_each_table_had_its_own() -> None:
    """The attack: one address opens ten tables of busy bots. Budgeted per table only (as
    before), the ten tables got ten budgets' worth of worker CPU; budgeted per owner, they
    share one, and every decision past it is the stand-in's."""
    game = Game.new(3, seed=3)
    owner = Owner(FLOODER)
    tables = [f"flood-{i}" for i in range(10)]

    async def flood(owner_budget: float | None) -> dict[str, int]:
        # A clock that stands still: no budget comes back while the tables ask.
        thinking = Thinking(2, 0.2, clock=lambda: 1000.0, owner_seconds_per_minute=owner_budget)
        try:
            for _ in range(3):  # more asks than one table's budget allows
                for key in tables:
                    await thinking.decide(key, thinking_bots.BusyBot(1), game, owner=owner)
            return dict(thinking.decisions)
        finally:
            await thinking.close()

    per_table = asyncio.run(flood(None))
    per_owner = asyncio.run(flood(0.2))
    # 0.2 s a table, at least 0.2 s a decision (BusyBot's): one each, for each of the ten
    # tables: ten budgets' worth for one address ...
    assert per_table["worker"] == 10, per_table
    # ... and one in all now, for the ten tables of one owner.
    assert per_owner["worker"] == 1, per_owner
    assert per_owner["stand-in"] == 30 - 1


def test_an_owner_is_its_address_and_its_identity(caplog: pytest.LogCaptureFixture) -> None:
    """A new identity from the same address, or the same identity from another address,
    spends the same owner's budget (logged once for each of its keys)."""
    caplog.set_level(logging.INFO, logger="flip7.server")
    thinking = Thinking(1, 60.0, clock=lambda: 5.0, owner_seconds_per_minute=10.0)
    thinking.charge("t1", 10.0, Owner(FLOODER, "p1"))
    assert thinking.over_budget("t2", Owner(FLOODER, "p2"))  # same address
    assert thinking.over_budget("t3", Owner("10.9.0.1", "p1"))  # same identity
    assert not thinking.over_budget("t4", Owner(VICTIM, "p3"))
    assert not thinking.over_budget("t5")  # a table of no known owner is its own
    assert thinking.used(Owner(FLOODER)) == pytest.approx(10.0)
    assert thinking.budget_left("t1") == pytest.approx(50.0)  # its own budget, as before
    spent = _events(caplog, "bot_budget_spent")
    assert len(spent) == 2, spent
    assert f'"owner":"address {FLOODER}"' in spent[0] and '"owner":"player p1"' in spent[1]


def test_the_pool_serves_the_owner_who_used_least_first() -> None:
    """Owner X's three tables have each used little of their own budget, but X has used
    much of the workers lately; a fresh owner's table asks last and goes first. (By
    tables alone they were alike, and the fresh table waited for all three.)"""
    order: list[str] = []
    heavy = Owner(FLOODER)
    fresh = Owner(VICTIM)
    game = Game.new(3, seed=1)

    async def scenario() -> None:
        thinking = Thinking(1, 60.0)
        thinking.charge("earlier", 30.0, heavy)  # another table of X's, closed since
        thinking.forget("earlier")
        try:

            async def ask(key: str, owner: Owner) -> None:
                thought = await thinking.decide(key, thinking_bots.SlowBot(1), game, owner=owner)
                assert thought.where == "worker"
                order.append(key)

            first = asyncio.create_task(ask("x-1", heavy))
            await asyncio.sleep(0.05)  # x-1 is on the worker (or starting it)
            rest = [asyncio.create_task(ask(k, heavy)) for k in ("x-2", "x-3")]
            await asyncio.sleep(0.01)
            late = asyncio.create_task(ask("fresh", fresh))
            await asyncio.gather(first, *rest, late)
        finally:
            await thinking.close()

    asyncio.run(scenario())
    assert order == ["x-1", "fresh", "x-2", "x-3"]


def test_when_the_pool_is_oversubscribed_the_heaviest_owner_sheds_first(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One worker, busy; decisions of the heavy owner and of a light one wait. The heavy
    owner's next decision is the stand-in's (``busy``), the light owner's goes to the
    queue; an owner alone never sheds, however busy the pool."""
    caplog.set_level(logging.INFO, logger="flip7.server")
    game = Game.new(3, seed=2)
    heavy, light = Owner(FLOODER), Owner(VICTIM)

    async def scenario() -> None:
        thinking = Thinking(1, 60.0)
        thinking.charge("x-0", 20.0, heavy)
        try:
            running = [asyncio.create_task(
                thinking.decide("x-1", thinking_bots.SlowBot(1), game, owner=heavy))]
            await asyncio.sleep(0.05)
            running.append(asyncio.create_task(
                thinking.decide("x-2", thinking_bots.SlowBot(1), game, owner=heavy)))
            await asyncio.sleep(0.01)
            assert thinking.busy()
            # Alone with nobody to slow down, the heavy owner queues behind itself
            # (a shed decision would be made at once).
            running.append(asyncio.create_task(
                thinking.decide("x-3", thinking_bots.SlowBot(1), game, owner=heavy)))
            await asyncio.sleep(0.01)
            assert not running[-1].done()
            # The light owner asks: queued, not shed...
            running.append(asyncio.create_task(
                thinking.decide("v-1", thinking_bots.SlowBot(1), game, owner=light)))
            await asyncio.sleep(0.01)
            assert not running[-1].done()
            # ... and now the heavy owner, clearly above the average, sheds.
            again = await thinking.decide("x-4", thinking_bots.SlowBot(1), game, 7, owner=heavy)
            assert again.where == "stand-in" and again.why == "busy"
            done = await asyncio.gather(*running)
            assert [t.where for t in done] == ["worker"] * 4
            assert thinking.stand_ins == {"busy": 1}
            assert thinking.stats()["stand_ins"] == {"busy": 1}
        finally:
            await thinking.close()

    asyncio.run(scenario())
    shed = _events(caplog, "bot_shed")
    assert len(shed) == 1 and f"address {FLOODER}" in shed[0] and "x-4" in shed[0]


def test_a_victim_tables_bots_go_first_while_one_owner_floods(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Against the server, one worker: one address's three tables of busy bots (its human
    never moves; the turn timer's stand-in plays her) keep the worker full. Another
    address's table with a human and two bots plays a whole game meanwhile: whenever its
    decision waited, the pool took it next, every one of its bots' decisions was made by
    its own bot in a worker, and what was shed was the flooder's."""
    caplog.set_level(logging.INFO, logger="flip7.server")
    with app_client(tmp_path / "db.sqlite", seed=11, extra_bots=EXTRA, min_turn_timer=1,
                    bot_workers=1) as client, ExitStack() as stack:
        lobby = services_of(client).lobby
        dispatched: list[tuple[str, frozenset[str]]] = []
        take = lobby.thinking._next

        def spy() -> Any:
            waiting = frozenset(j.key for j in lobby.thinking._waiting if not j.future.done())
            job = take()
            if job is not None:
                dispatched.append((job.key, waiting))
            return job

        lobby.thinking._next = spy  # type: ignore[method-assign]

        flood: list[tuple[str, str]] = []
        with from_address(client, FLOODER):
            for i in range(3):
                table_id, token = new_table(client, player=f"Ann {i}", seats=6, turn_timer=1)
                for _ in range(5):
                    assert _add(client, table_id, token, "thinking_bots:BusyBot").status_code == 200
                flood.append((table_id, token))
        with from_address(client, VICTIM):
            victim, bob = new_table(client, player="Bob", seats=3,
                                    rules={"target_score": 40})
            for _ in range(2):
                assert _add(client, victim, bob, "thinking_bots:SlowBot").status_code == 200
        for table_id, token in flood:
            connect(client, stack, table_id, token)
            client.post(f"/api/tables/{table_id}/start", headers=auth(token))
        deadline = time.monotonic() + 30
        while lobby.thinking.stats()["decisions"].get("worker", 0) < 20:
            assert time.monotonic() < deadline, "the flood's bots never thought"
            time.sleep(0.05)
        player = connect(client, stack, victim, bob)
        client.post(f"/api/tables/{victim}/start", headers=auth(bob))
        play_to_end([player], random.Random(6))
        table = lobby.tables[victim]
        assert lobby.tables[flood[0][0]].owner == Owner(FLOODER)
        assert table.owner == Owner(VICTIM)
        made = {seat: len(bot.pids) for seat, bot in table.bots.items()}
        row = client.portal.call(lobby.store.load_table, victim)
        stats = lobby.thinking.stats()

    # Every decision of the victim's bots was its bot's, made in a worker ...
    assert row is not None
    bot_moves: dict[int, int] = {}
    for entry in row.log:
        if entry.kind == "move" and entry.data["by"] == "bot":
            seat = int(entry.data["seat"])
            bot_moves[seat] = bot_moves.get(seat, 0) + 1
    assert sorted(bot_moves) == [1, 2] and made == bot_moves, (made, bot_moves)
    # ... taken first whenever it waited beside the flood's ...
    waited = [(key, waiting) for key, waiting in dispatched if victim in waiting]
    assert all(key == victim for key, _ in waited), waited
    assert any(len(waiting) > 1 for _, waiting in waited)  # it did wait beside others
    # ... and the flood was shed to the stand-in, the victim never.
    assert stats["stand_ins"].get("busy", 0) > 0, stats
    shed = _events(caplog, "bot_shed")
    assert shed and all(f"address {FLOODER}" in line for line in shed), shed
    assert not any(f"address {VICTIM}" in line for line in shed)


# ---------------------------------------------------------------------- the caps


def test_worker_bots_per_table_are_capped_and_the_cheap_ones_are_not(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", search_bots_per_table=3,
                    extra_bots=EXTRA) as client:
        table_id, token = new_table(client, seats=10)
        for bot in ("Medium", "Hard", "winprob:depth=4"):
            assert _add(client, table_id, token, bot).status_code == 200, bot
        refused = _add(client, table_id, token, "Expert")
        assert refused.status_code == 409
        detail = _detail(refused)
        assert detail["code"] == "too_many_search_bots"
        assert "limit search_bots_per_table" in detail["message"]
        assert "Beginner or Easy" in detail["message"]
        # The cheap bots, and the operator's own (trusted), are not capped.
        for bot in ("Easy", "Beginner", "basic", "thinking_bots:BusyBot"):
            assert _add(client, table_id, token, bot).status_code == 200, bot
        limits = client.get("/api/limits").json()
        assert limits["search_bots_per_table"] == 3
        defaults = Settings()
        assert limits["search_bot_tables_per_owner"] == defaults.search_bot_tables_per_owner
        assert limits["owner_bot_seconds_per_minute"] == defaults.owner_bot_seconds_per_minute


def test_tables_seating_worker_bots_are_capped_per_owner(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", search_bot_tables_per_owner=2) as client:
        key = client.post("/api/players", json={"name": "Ann"}).json()["key"]
        tables = []
        with from_address(client, FLOODER):
            for i in range(2):
                table_id, token = new_table(client, player=f"Ann {i}", seats=4)
                assert _add(client, table_id, token, "Expert").status_code == 200
                # More at a table already counted: only the per-table cap applies.
                assert _add(client, table_id, token, "Hard").status_code == 200
                tables.append((table_id, token))
            third, third_token = new_table(client, player="Ann 3", seats=4)
            refused = _add(client, third, third_token, "Medium")
            assert refused.status_code == 409
            detail = _detail(refused)
            assert detail["code"] == "too_many_bot_tables"
            assert "limit search_bot_tables_per_owner" in detail["message"]
            assert _add(client, third, third_token, "Easy").status_code == 200
            # A table created with an identity from this address: the same owner.
            made = client.post("/api/tables", json={"player": "Ann 4"},
                               headers={"X-Player-Key": key}).json()
            refused = _add(client, made["table"]["id"], made["token"], "Hard")
            assert _detail(refused)["code"] == "too_many_bot_tables"
        with from_address(client, VICTIM):
            # Another address: its own owner ...
            table_id, token = new_table(client, player="Bob", seats=4)
            assert _add(client, table_id, token, "Expert").status_code == 200
            # ... unless its table is opened with the same identity.
            made = client.post("/api/tables", json={"player": "Ann 5"},
                               headers={"X-Player-Key": key}).json()
            assert _add(client, made["table"]["id"], made["token"], "Hard").status_code == 200
            made = client.post("/api/tables", json={"player": "Ann 6"},
                               headers={"X-Player-Key": key}).json()
            # The identity has two tables with worker bots now (one from each address).
            refused = _add(client, made["table"]["id"], made["token"], "Hard")
            assert _detail(refused)["code"] == "too_many_bot_tables"
        # A table that no longer holds a worker bot (removed before the start) frees a place.
        first, first_token = tables[0]
        with from_address(client, FLOODER):
            for seat in (2, 1):
                assert client.delete(f"/api/tables/{first}/seats/{seat}",
                                     headers=auth(first_token)).status_code == 200
            assert _add(client, third, third_token, "Medium").status_code == 200


def test_a_rebuilt_table_keeps_its_creators_identity_as_owner(tmp_path: Path) -> None:
    """The store keeps no client addresses: a table rebuilt from its log knows its owner
    by its first seat's identity, and one opened anonymously is its own owner."""
    with app_client(tmp_path / "db.sqlite") as client:
        player = client.post("/api/players", json={"name": "Ann"}).json()
        with from_address(client, FLOODER):
            made = client.post("/api/tables", json={"player": "Ann"},
                               headers={"X-Player-Key": player["key"]}).json()
            anonymous, _ = new_table(client, player="Bob")
        lobby = services_of(client).lobby
        table_id = made["table"]["id"]
        assert lobby.tables[table_id].owner == Owner(FLOODER, player["id"])
        portal = client.portal
        for which, owner in ((table_id, Owner(None, player["id"])), (anonymous, Owner())):
            row = portal.call(lobby.store.load_table, which)
            assert row is not None
            assert lobby.rebuild(row).owner == owner


# ---------------------------------------------------------------------- workers


def test_bot_workers_default_follows_the_usable_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    assert default_bot_workers() == 15 and Settings().bot_workers == 15
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert Settings().bot_workers == 1  # never none
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)  # not on Linux
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    assert Settings().bot_workers == 3
    assert Settings(bot_workers=2).bot_workers == 2  # the operator's choice stands
