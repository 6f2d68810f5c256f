"""Fair queues (issue 28, finding 7): no address can hold the replay worker's queue or the
coach's full.

Before, twenty uploading addresses had 478 of 738 replay pages answered 503 ``busy``, and
two addresses filled the coach's 8 places. Now each address holds at most
``replay_jobs_per_address`` / ``coach_jobs_per_address`` jobs (429 ``too_many_jobs`` past
it), jobs are served in turn across addresses, a game's own players go first for its
coach, and a full queue gives the last waiting job's place to a newcomer that goes before
it (503 ``busy`` only when none does).

The workers are held by a gate (their ``_run`` waits for it), so that what is measured is
who waits, who is refused and in which order the jobs run: never how long anything takes.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

import httpx
from engine_helpers import played_record
from server_helpers import WsPlayer, app_client, auth, choose, uvicorn_thread
from test_server_tables import from_address

from flip7.server.api.app import create_app
from flip7.server.base.errors import ServerError
from flip7.server.base.settings import Settings, database_url
from flip7.server.services import replay_worker
from flip7.server.services.coach_jobs import CoachJobs, Job
from flip7.server.services.queues import FairQueue
from flip7.server.services.replays import ReplayError, ReplayWorkers


def _wait_for(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


async def _until(gate: threading.Event) -> None:
    while not gate.is_set():  # polled: a job cancelled at shutdown stops at once
        await asyncio.sleep(0.01)


@pytest.fixture
def replay_gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, list[str]]]:
    """The replay worker holds every job until the gate opens; the ``meta.who`` of each
    record, in the order the jobs reached the worker."""
    gate, order = threading.Event(), []
    original = ReplayWorkers._run

    async def gated(self: ReplayWorkers, task: Any, *args: Any) -> replay_worker.Outcome:
        order.append(str(args[0].get("meta", {}).get("who")))
        await _until(gate)
        return await original(self, task, *args)

    monkeypatch.setattr(ReplayWorkers, "_run", gated)
    try:
        yield gate, order
    finally:
        gate.set()


def _record(who: str) -> dict[str, Any]:
    return {**played_record(), "meta": {"who": who}}


@contextmanager
def _server(tmp_path: Path, **limits: Any) -> Iterator[tuple[str, Any]]:
    """A real server (uvicorn, loopback) and its wiring (its queues)."""
    import uvicorn

    settings = Settings(database_url=database_url(str(tmp_path / "db.sqlite")), **limits)
    app = create_app(settings)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
    with uvicorn_thread(config) as port:
        yield f"http://127.0.0.1:{port}", app.state.wiring


def _upload(url: str, source: str, who: str) -> httpx.Response:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport, timeout=60, trust_env=False) as http:
        return http.post(f"{url}/api/replays", json=_record(who))


def test_one_address_past_its_share_of_the_replay_queue_gets_429_and_another_is_served(
    tmp_path: Path, replay_gate: tuple[threading.Event, list[str]]
) -> None:
    gate, order = replay_gate
    with _server(tmp_path) as (url, wiring), ThreadPoolExecutor(4) as pool:
        queue: FairQueue = wiring.replays.workers.queue
        share = wiring.settings.replay_jobs_per_address
        assert share == 2 == httpx.get(f"{url}/api/limits").json()["replay_jobs_per_address"]
        held: list[Future[httpx.Response]] = []
        for i in range(share):  # the flooder's first job runs, its second waits
            held.append(pool.submit(_upload, url, "127.0.0.2", f"a{i + 1}"))
            _wait_for(lambda i=i: queue.held("127.0.0.2") == i + 1)
        refused = _upload(url, "127.0.0.2", "a3")
        assert refused.status_code == 429, refused.text
        detail = refused.json()["detail"]
        assert detail["code"] == "too_many_jobs"
        assert "limit replay_jobs_per_address" in detail["message"]
        assert "Retry-After" in refused.headers
        # Refused before its body is read: even one that is not JSON gets the queue's 429
        # (in a flood of uploads, parsing each refused record was the loop's work).
        with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"),
                          timeout=60, trust_env=False) as http:  # fmt: skip
            garbage = http.post(f"{url}/api/replays", content=b"{not json" * 1000)
        assert garbage.status_code == 429 and garbage.json()["detail"]["code"] == "too_many_jobs"
        # Another address is not refused: its job waits, and goes before the flooder's second.
        held.append(pool.submit(_upload, url, "127.0.0.3", "b1"))
        _wait_for(lambda: queue.held("127.0.0.3") == 1)
        assert queue.waiting == 2 and queue.running == 1
        gate.set()
        assert [f.result().status_code for f in held] == [201, 201, 201]
        assert order == ["a1", "b1", "a2"]
        # Once its jobs are done, the address may ask again.
        assert _upload(url, "127.0.0.2", "a4").status_code == 201


def test_a_full_replay_queue_is_busy_only_when_every_job_waiting_goes_first(
    replay_gate: tuple[threading.Event, list[str]]
) -> None:
    """Three places: a flooder's second job gives its place to a newcomer's first; a queue
    of first jobs only answers the next newcomer 503 busy."""
    gate, order = replay_gate
    workers = ReplayWorkers(Settings(), max_waiting=3)

    async def scenario() -> None:
        def job(address: str, who: str) -> asyncio.Future[replay_worker.Outcome]:
            return asyncio.ensure_future(
                workers.run(replay_worker.check, _record(who), address=address))

        try:
            a1, a2, b1 = job("10.0.0.1", "a1"), job("10.0.0.1", "a2"), job("10.0.0.2", "b1")
            await asyncio.sleep(0.05)
            assert workers.queue.running == 1 and workers.queue.waiting == 2
            c1 = job("10.0.0.3", "c1")
            await asyncio.sleep(0.05)
            with pytest.raises(ReplayError) as pushed_out:
                await a2
            assert pushed_out.value.status == 503 and pushed_out.value.code == "busy"
            with pytest.raises(ReplayError) as busy:
                await workers.run(replay_worker.check, _record("d1"), address="10.0.0.4")
            assert busy.value.status == 503 and busy.value.retry_after
            gate.set()
            assert [(await f)[0] for f in (a1, b1, c1)] == ["ok", "ok", "ok"]
            assert order == ["a1", "b1", "c1"]
        finally:
            gate.set()
            workers.close()

    asyncio.run(scenario())


# ---------------------------------------------------------------------- the coach


def _finished_game(client: Any, key: str | None = None) -> str:
    """A game of one human (``key``: with that identity) and two basic bots, played to
    its end over the WebSocket; its id."""
    headers = {"X-Player-Key": key} if key else {}
    created = client.post("/api/tables", json={"player": "Ann", "seats": 3,
                                               "rules": {"target_score": 40}}, headers=headers)
    assert created.status_code == 201, created.text
    table_id, token = created.json()["table"]["id"], created.json()["token"]
    for _ in range(2):
        assert client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                           headers=auth(token)).status_code == 200
    assert client.post(f"/api/tables/{table_id}/start", headers=auth(token)).status_code == 200
    import random

    rng = random.Random(3)
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ann = WsPlayer(ws, None, token)
        ann.seat = ann.hello()["seat"]
        while True:
            state = ann.settle()
            if state["game"]["over"]:
                break
            assert ann.move(choose(state["game"], rng))["type"] == "result"
            ann.settle(after=state["version"])
        return str(ann.state["finished_games"][0])


def _ask(client: Any, address: str, game_id: str, seat: int, key: str | None = None) -> Any:
    from_address(client, address)
    headers = {"X-Player-Key": key} if key else {}
    return client.post(f"/api/games/{game_id}/coach", json={"seat": seat}, headers=headers)


def test_the_coach_queue_is_shared_fairly_and_a_games_players_go_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate, order = threading.Event(), []

    async def gated(self: CoachJobs, job: Job) -> None:
        order.append(job.key)
        await _until(gate)

    monkeypatch.setattr(CoachJobs, "_run", gated)
    try:
        with app_client(tmp_path / "db.sqlite", coach_queue=2, coach_workers=1) as client:
            me = client.post("/api/players", json={"name": "Ann"}).json()
            mine = _finished_game(client, me["key"])  # Ann's identity played seat 0
            theirs = _finished_game(client)
            queue: FairQueue = client.app.state.wiring.coach.queue
            # A stranger's first analysis runs, the second waits; a third is past its share.
            assert _ask(client, "127.0.0.2", theirs, 0).status_code == 202
            assert _ask(client, "127.0.0.2", theirs, 1).status_code == 202
            refused = _ask(client, "127.0.0.2", theirs, 2)
            assert refused.status_code == 429, refused.text
            assert refused.json()["detail"]["code"] == "too_many_jobs"
            assert "limit coach_jobs_per_address" in refused.json()["detail"]["message"]
            # Another address still gets its analysis queued: now three are held, the most.
            assert _ask(client, "127.0.0.3", mine, 0).status_code == 202
            assert (queue.running, queue.waiting) == (1, 2)
            # A player of the game (by X-Player-Key) goes first: the stranger's second
            # analysis gives its place, and is failed saying so.
            assert _ask(client, "127.0.0.4", mine, 1, me["key"]).status_code == 202
            def pushed() -> dict[str, Any]:
                answer: dict[str, Any] = client.get(f"/api/games/{theirs}/coach?seat=1").json()
                return answer

            _wait_for(lambda: pushed()["status"] != "queued")
            assert pushed()["status"] == "failed" and "coach_queue" in pushed()["message"]
            # Full of jobs that go before a stranger's first: 503 busy.
            busy = _ask(client, "127.0.0.5", mine, 2)
            assert busy.status_code == 503 and busy.json()["detail"]["code"] == "busy"
            assert "Retry-After" in busy.headers
            gate.set()
            _wait_for(lambda: len(order) == 3)
            # The player's analysis ran before the stranger's that was asked for earlier.
            assert order == [f"{theirs}/0", f"{mine}/1", f"{mine}/0"]
    finally:
        gate.set()


def test_a_fair_queue_refuses_with_its_own_error_type() -> None:
    """The queue raises the refusals of the service it serves (a replay's, the coach's),
    so that each answers in its own words; check() changes nothing."""
    queue = FairQueue(slots=1, capacity=1, share=1, error=ReplayError, jobs="replay jobs",
                      limit="replay_jobs_per_address", busy="busy now", retry_after=5)
    queue.enter("a")
    with pytest.raises(ReplayError) as refused:
        queue.check("b")
    assert isinstance(refused.value, ServerError) and refused.value.code == "busy"
    assert queue.held("b") == 0 and queue.running == 1
