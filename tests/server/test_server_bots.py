"""Bots on the server (issue 12, finding 3): ceilings on public bot parameters, thinking in
worker processes shared fairly between tables, a CPU budget per table, workers that die or
hang, and bots that pause while no human is at their table.

The fake bots (slow, busy, dying, hanging) are in tests/thinking_bots.py, offered as an
operator's ``--bot module:Class`` bots are."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

import thinking_bots
from server_helpers import (
    WsPlayer,
    app_client,
    auth,
    connect,
    join,
    new_table,
    play_to_end,
    services_of,
)

from flip7.bots import make_bot
from flip7.core.decisions import parse_decision
from flip7.core.seeds import derive_seed
from flip7.engine.game import Game
from flip7.engine.record import Record
from flip7.server.table.thinking import CEILINGS, Thinking, over_ceiling

EXTRA = tuple(f"thinking_bots:{name}" for name in
              ("PidBot", "SlowBot", "BusyBot", "DieBot", "HangBot", "FailBot", "LocalBot"))


def _lobby(client: Any) -> Any:
    return services_of(client).lobby


def _add(client: Any, table_id: str, token: str, bot: str) -> Any:
    return client.post(f"/api/tables/{table_id}/bots", json={"bot": bot}, headers=auth(token))


def _events(caplog: pytest.LogCaptureFixture, name: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if f'"event":"{name}"' in r.getMessage()]


# ---------------------------------------------------------------------- ceilings


def test_public_bot_parameters_over_the_servers_ceilings_are_refused(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        table_id, token = new_table(client, seats=8)
        attack = _add(client, table_id, token, "mcts:iters=10000000,time=0.9,horizon=1000,top=64")
        assert attack.status_code == 400
        detail = attack.json()["detail"]
        assert detail["code"] == "bad_bot"
        assert detail["message"] == (
            "bot mcts: iters may be at most 2000 on this server, got 10000000")
        for spec, key, ceiling in [("mcts:time=0.9", "time", "0.5"),
                                   ("mcts:horizon=1000", "horizon", "200"),
                                   ("mcts:top=64", "top", "8"),
                                   ("winprob:depth=6", "depth", "4")]:
            detail = _add(client, table_id, token, spec).json()["detail"]
            assert detail["code"] == "bad_bot", spec
            assert f"{key} may be at most {ceiling} on this server" in detail["message"]
        # At the ceilings, and the defaults: offered.
        top = ",".join(f"{k}={v:g}" for k, v in CEILINGS["mcts"].items())
        for spec in [f"mcts:{top}", "mcts", "winprob:depth=4", "threshold:200"]:
            assert _add(client, table_id, token, spec).status_code == 200, spec
        assert len(client.get(f"/api/tables/{table_id}").json()["table"]["seats"]) == 8
    # The library's own bounds are unchanged for library and CLI users.
    assert make_bot("mcts:iters=10000000,top=64").params["iters"] == 10_000_000
    assert over_ceiling("thinking_bots:SlowBot") is None  # the operator's bots are trusted


# ---------------------------------------------------------------------- worker processes


def test_bots_think_in_a_worker_process_and_play_as_they_would_in_process(
    tmp_path: Path,
) -> None:
    """A seeded game with search bots in the pool: every bot decision is the one the same
    bots make in-process, and the pool's bots decided in another process."""
    seed = 41
    with app_client(tmp_path / "db.sqlite", seed=seed, extra_bots=EXTRA) as client, \
            ExitStack() as stack:
        table_id, token = new_table(client, seats=4)
        for bot in ["ev", "thinking_bots:PidBot", "winprob"]:
            assert _add(client, table_id, token, bot).status_code == 200
        ann = connect(client, stack, table_id, token)
        assert client.post(f"/api/tables/{table_id}/start", headers=auth(token)).status_code == 200
        play_to_end([ann], random.Random(3))
        lobby = _lobby(client)
        table = lobby.tables[table_id]
        pids = table.bots[2].pids
        assert pids and os.getpid() not in pids
        assert set(pids) <= set(lobby.thinking.pids())
        stats = lobby.thinking.stats()
        assert stats["decisions"].get("worker", 0) > 10 and "stand-in" not in stats["decisions"]
        record = Record.from_json(
            client.get(f"/api/games/{ann.state['finished_games'][0]}/record").json())
    game_seed = derive_seed("server", seed, 1)
    game = Game.new(list(record.players), record.rules, seed=game_seed)
    bots: dict[int, Any] = {1: make_bot("ev", derive_seed("bot", game_seed, 1)),
                            2: thinking_bots.PidBot(derive_seed("bot", game_seed, 2)),
                            3: make_bot("winprob", derive_seed("bot", game_seed, 3))}
    checked = 0
    for text in record.decisions:
        seat = game.to_decide
        assert seat is not None
        if seat in bots:
            assert str(bots[seat].choose(game)) == text
            checked += 1
        game.apply(parse_decision(text))
    assert game.over and checked > 10


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_one_table_over_its_budget_does_not_delay_another_tables_bot() -> None:
    """Three tables whose bots have used much of their budget are waiting for the one
    worker when a fresh table's bot asks: the fresh one goes next, not last."""
    order: list[str] = []

    async def scenario() -> None:
        thinking = Thinking(1, 60.0)
        game = Game.new(3, seed=1)
        try:
            for key in ("heavy-1", "heavy-2", "heavy-3"):
                thinking.charge(key, 30.0)

            async def ask(key: str) -> None:
                thought = await thinking.decide(key, thinking_bots.SlowBot(1), game)
                assert thought.where == "worker"
                order.append(key)

            first = asyncio.create_task(ask("heavy-1"))
            await asyncio.sleep(0.05)  # heavy-1 is on the worker (or starting it)
            rest = [asyncio.create_task(ask(k)) for k in ("heavy-2", "heavy-3")]
            await asyncio.sleep(0.01)
            fresh = asyncio.create_task(ask("fresh"))
            await asyncio.gather(first, *rest, fresh)
        finally:
            await thinking.close()

    _run(scenario())
    assert order == ["heavy-1", "fresh", "heavy-2", "heavy-3"]


def test_a_table_full_of_slow_bots_does_not_starve_another_tables_bot(tmp_path: Path) -> None:
    """Table A: six slow bots and Ann, who never moves (her turn timer lets a stand-in
    play), so A always has a bot waiting for the one worker. Table B's bot still decides
    within about one of A's decisions each time."""
    thinking_bots.SlowBot.SECONDS = 0.3
    with app_client(tmp_path / "db.sqlite", seed=5, extra_bots=EXTRA, min_turn_timer=1) as client, \
            ExitStack() as stack:
        a_id, ann = new_table(client, seats=7, turn_timer=1)
        for _ in range(6):
            assert _add(client, a_id, ann, "thinking_bots:SlowBot").status_code == 200
        connect(client, stack, a_id, ann)
        b_id, bob = new_table(client, seats=3, player="Bob")
        _, cyd = join(client, b_id, "Cyd")
        assert _add(client, b_id, bob, "thinking_bots:PidBot").status_code == 200
        players = [connect(client, stack, b_id, t) for t in (bob, cyd)]
        watcher = connect(client, stack, b_id, None)
        client.post(f"/api/tables/{a_id}/start", headers=auth(ann))
        lobby = _lobby(client)
        deadline = time.monotonic() + 10
        while lobby.thinking.stats()["decisions"].get("worker", 0) < 2:
            assert time.monotonic() < deadline, "table A's bots never thought"
            time.sleep(0.05)
        a_before = lobby.tables[a_id].version
        client.post(f"/api/tables/{b_id}/start", headers=auth(bob))
        waits = _bot_waits(players, watcher, random.Random(2), bot_turns=3)
        assert len(waits) >= 3
        assert lobby.tables[a_id].version > a_before  # A kept thinking meanwhile
    # One of A's decisions may be on the worker when B's bot asks; never all six.
    assert max(waits) < 6 * 0.3, waits


def _bot_waits(humans: list[WsPlayer], watcher: WsPlayer, rng: random.Random,
               bot_turns: int) -> list[float]:
    """Play B's humans until its bot has decided ``bot_turns`` times; how long each of
    those decisions took to arrive, as a spectator saw them."""
    from server_helpers import choose, human_to_decide_or_over

    by_seat = {p.seat: p for p in humans}
    for p in [*humans, watcher]:
        p.settle()
    waits: list[float] = []
    while len(waits) < bot_turns and not watcher.state["game"]["over"]:
        mover = by_seat[watcher.state["game"]["to_decide"]]
        version = watcher.state["version"]
        assert mover.move(choose(mover.state["game"], rng))["type"] == "result"
        seen = watcher.recv_until(lambda f, v=version: f["type"] == "update"
                                  and f["version"] > v)["version"]
        last = time.monotonic()
        while not human_to_decide_or_over(watcher.state):
            frame = watcher.recv()
            if frame["type"] == "update" and frame["version"] > seen:
                now = time.monotonic()
                waits.append(now - last)
                last, seen = now, frame["version"]
        for p in humans:
            p.settle(after=version)
    return waits


def test_a_table_over_its_cpu_budget_plays_the_stand_in(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="flip7.server")
    thinking_bots.BusyBot.SECONDS = 0.2
    with app_client(tmp_path / "db.sqlite", seed=8, extra_bots=EXTRA,
                    bot_seconds_per_minute=0.25) as client, ExitStack() as stack:
        table_id, token = new_table(client, seats=3)
        for _ in range(2):
            assert _add(client, table_id, token, "thinking_bots:BusyBot").status_code == 200
        ann = connect(client, stack, table_id, token)
        client.post(f"/api/tables/{table_id}/start", headers=auth(token))
        play_to_end([ann], random.Random(5))
        decisions = _lobby(client).thinking.stats()["decisions"]
    # 0.25 s a minute: two decisions of 0.2 s, then the stand-in for the rest of the game
    # (the budget comes back at 0.25 s a minute: not within this game).
    assert decisions["worker"] == 2 and decisions["stand-in"] > 10, decisions
    spent = _events(caplog, "bot_budget_spent")
    assert len(spent) == 1 and f'"table":"{table_id}"' in spent[0]
    assert not _events(caplog, "bot_budget_recovered")


def test_the_budget_recovers_with_time() -> None:
    now = [100.0]
    thinking = Thinking(1, 6.0, clock=lambda: now[0])  # 0.1 s back every second
    assert thinking.budget_left("t") == 6.0 and not thinking.over_budget("t")
    thinking.charge("t", 6.5)
    assert thinking.over_budget("t")
    now[0] += 4.0
    assert thinking.over_budget("t")  # -0.1
    now[0] += 2.0
    assert not thinking.over_budget("t") and thinking.budget_left("t") == pytest.approx(0.1)
    now[0] += 3600
    assert thinking.budget_left("t") == 6.0  # never more than a minute's worth
    thinking.forget("t")


# ---------------------------------------------------------------------- failures


def test_a_worker_that_dies_is_replaced_and_the_decision_tried_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="flip7.server")
    game = Game.new(3, seed=2)
    legal = game.legal_decisions()

    async def scenario() -> None:
        thinking = Thinking(1, 60.0)
        try:
            once = await thinking.decide(
                "t", thinking_bots.DieBot(1, marker=str(tmp_path / "died")), game)
            assert once.where == "worker" and once.decision in legal  # the retry worked
            assert thinking.stats()["started"] == 2
            always = await thinking.decide("t", thinking_bots.DieBot(1), game, stand_in_seed=4)
            assert always.where == "stand-in" and always.decision in legal
            assert thinking.stats()["started"] == 3
            after = await thinking.decide("t", thinking_bots.PidBot(1), game)
            assert after.where == "worker" and after.pid in thinking.pids()
            failed = await thinking.decide("t", thinking_bots.FailBot(1), game)
            assert failed.where == "stand-in"
            local = await thinking.decide("t", thinking_bots.LocalBot(1), game)
            assert local.where == "thread"
            assert thinking.stats()["started"] == 4 and thinking.stats()["alive"] == 1
        finally:
            await thinking.close()

    _run(scenario())
    assert len(_events(caplog, "bot_worker_lost")) == 3
    assert len(_events(caplog, "bot_failed")) == 1
    assert len(_events(caplog, "bot_not_picklable")) == 1


def test_a_worker_that_hangs_is_killed_and_the_stand_in_decides() -> None:
    class Quick(Thinking):
        @property
        def hang_seconds(self) -> float:
            return 0.5

    game = Game.new(3, seed=2)

    async def scenario() -> float:
        thinking = Quick(1, 60.0)
        try:
            await thinking.decide("warm", thinking_bots.PidBot(1), game)  # the worker is up
            start = time.monotonic()
            thought = await thinking.decide("t", thinking_bots.HangBot(1), game)
            took = time.monotonic() - start
            assert thought.where == "stand-in"
            assert (await thinking.decide("t", thinking_bots.PidBot(1), game)).where == "worker"
            assert thinking.stats()["started"] == 2
            return took
        finally:
            await thinking.close()

    assert _run(scenario()) < 5


# ---------------------------------------------------------------------- no human, no thinking


def _seed_where_a_bot_starts(names: list[str]) -> int:
    for seed in range(100):
        if Game.new(names, seed=derive_seed("server", seed, 1)).to_decide != 0:
            return seed
    raise AssertionError("no seed found")  # pragma: no cover


def test_bots_pause_while_no_human_is_connected_and_resume_on_reconnect(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="flip7.server")
    names = ["Ann", "Basic bot 1", "Basic bot 2", "Basic bot 3"]
    seed = _seed_where_a_bot_starts(names)
    with app_client(tmp_path / "db.sqlite", seed=seed) as client, ExitStack() as stack:
        table_id, token = new_table(client, seats=4)
        for _ in range(3):
            assert _add(client, table_id, token, "basic").status_code == 200
        # Started over REST, with no socket open: a bot is to decide, and does not.
        started = client.post(f"/api/tables/{table_id}/start", headers=auth(token)).json()
        assert started["table"]["game"]["to_decide"] != 0
        version = started["table"]["version"]
        time.sleep(0.3)
        assert client.get(f"/api/tables/{table_id}").json()["table"]["version"] == version
        table = _lobby(client).tables[table_id]
        assert table.turns._task is None and _events(caplog, "bots_paused")
        # A spectator is not a human at the table.
        connect(client, stack, table_id, None)
        time.sleep(0.2)
        assert table.version == version
        # Ann connects: the bots play on, up to her turn.
        ann = connect(client, stack, table_id, token)
        state = ann.settle()
        assert state["version"] > version and _events(caplog, "bots_resumed")
        assert state["game"]["over"] or state["game"]["to_decide"] == 0
        # Ann goes (socket closed) after her move: the bots stop again.
        if not state["game"]["over"]:
            from server_helpers import choose

            # Counted before she goes: the server may log the pause before close() returns.
            paused = len(_events(caplog, "bots_paused"))
            ann.move(choose(state["game"], random.Random(1)))
            ann.ws.close()
            deadline = time.monotonic() + 5
            while table.seats[0].connections:
                assert time.monotonic() < deadline
                time.sleep(0.02)
            time.sleep(0.2)
            frozen = table.version
            time.sleep(0.3)
            assert table.version == frozen
            game = table.game
            assert game.over or game.to_decide == 0 or len(_events(caplog, "bots_paused")) > (
                paused)


def test_bots_still_play_for_a_human_who_left_while_others_are_connected(
    tmp_path: Path,
) -> None:
    with app_client(tmp_path / "db.sqlite", seed=9) as client, ExitStack() as stack:
        table_id, ann = new_table(client, seats=3)
        _, bob = join(client, table_id, "Bob")
        assert _add(client, table_id, ann, "basic").status_code == 200
        players = [connect(client, stack, table_id, t) for t in (ann, bob)]
        client.post(f"/api/tables/{table_id}/start", headers=auth(ann))
        left = client.post(f"/api/tables/{table_id}/leave", headers=auth(bob))
        assert left.status_code == 200
        players[0].settle(after=left.json()["table"]["version"] - 1)
        # Ann alone plays the game to its end against the bot and Bob's stand-in.
        play_to_end(players[:1], random.Random(4))
        assert players[0].state["state"] == "over"


def test_workers_run_below_the_server() -> None:
    """When the cores are short the event loop (every table's moves, the health check) goes
    first, then bots' searches, then the coach's and the replays' batch work: the workers
    run at a lower priority (a higher niceness) than the server."""
    import multiprocessing

    from flip7.server.services import replay_worker
    from flip7.server.table.thinking import BOT_NICENESS

    game = Game.new(3, seed=2)
    server = os.getpriority(os.PRIO_PROCESS, 0)

    async def scenario() -> tuple[int, int]:
        thinking = Thinking(1, 60.0)
        try:
            thought = await thinking.decide("t", thinking_bots.PidBot(1), game)
            assert thought.where == "worker" and thought.pid is not None
            return os.getpriority(os.PRIO_PROCESS, thought.pid), os.getsid(thought.pid)
        finally:
            await thinking.close()

    # Each in a session of its own: where Linux schedules sessions as groups, a busy
    # worker in the server's group would make the server wait its group's turn.
    session = os.getsid(0)
    priority, worker_session = _run(scenario())
    assert priority == min(19, server + BOT_NICENESS) and worker_session != session
    with multiprocessing.get_context("spawn").Pool(
        1, initializer=replay_worker.init_worker, initargs=(512,)
    ) as pool:
        assert pool.apply(os.getpriority, (os.PRIO_PROCESS, 0)) == min(
            19, server + replay_worker.WORKER_NICENESS)
        assert pool.apply(os.getsid, (0,)) != session
