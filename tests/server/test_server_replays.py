"""Replays and uploads cannot stall or exhaust the server (issue 12, findings 1 and 8).

Uploads are bounded (body size, draws, decisions, target score, JSON depth) and rate limited
per address; replay work runs in a worker process under a CPU and a memory budget while the
event loop keeps answering; replays come in pages.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from engine_helpers import played_record
from server_helpers import app_client, threaded_server

from flip7.engine.record import replay_steps
from flip7.server.base.settings import Settings
from flip7.server.services import replay_worker
from flip7.server.services.replays import ReplayError, Replays, ReplayWorkers


def _detail(answer: Any) -> dict[str, Any]:
    detail: dict[str, Any] = answer.json()["detail"]
    return detail


# ---------------------------------------------------------------------- bounded uploads


def test_an_upload_over_max_record_bytes_is_refused_413(tmp_path: Path) -> None:
    body = json.dumps({**played_record(), "meta": {"pad": "x" * 4000}}).encode()
    with app_client(tmp_path / "db.sqlite", max_record_bytes=2048) as client:
        answer = client.post("/api/replays", content=body,
                             headers={"Content-Type": "application/json"})
        assert answer.status_code == 413
        assert _detail(answer)["code"] == "too_large" and "2048" in _detail(answer)["message"]
        # Without a Content-Length (chunked), the body is cut off while it is read.
        chunked = client.post("/api/replays", content=iter([body[:1500], body[1500:]]))
        assert chunked.status_code == 413 and _detail(chunked)["code"] == "too_large"
        # A record under the limit is still taken.
        assert client.post("/api/replays", json=played_record()).status_code == 201


def test_too_many_draws_or_decisions_or_a_huge_target_are_refused_naming_the_limit(
    tmp_path: Path,
) -> None:
    record = played_record()
    limits = {"max_record_draws": len(record["draws"]) - 1,
              "max_record_decisions": len(record["decisions"]) - 1,
              "max_record_target_score": 150}
    with app_client(tmp_path / "db.sqlite", **limits) as client:
        answer = client.post("/api/replays", json=record)
        assert answer.status_code == 413 and _detail(answer)["code"] == "record_too_large"
        assert "max_record_draws" in _detail(answer)["message"]
        assert str(limits["max_record_draws"]) in _detail(answer)["message"]
        fewer_draws = {**record, "draws": record["draws"][:3]}
        answer = client.post("/api/replays", json=fewer_draws)
        assert answer.status_code == 413 and "max_record_decisions" in _detail(answer)["message"]
        target = {**record, "draws": [], "decisions": [], "rules": {"target_score": 10**9}}
        answer = client.post("/api/replays", json=target)
        assert answer.status_code == 413 and _detail(answer)["code"] == "record_too_large"
        assert "max_record_target_score" in _detail(answer)["message"]
        assert "150" in _detail(answer)["message"]


def test_the_finding_record_is_refused_at_once(tmp_path: Path) -> None:
    """Finding 1's record (8,000 decisions, a target of a billion) took 17 s and 1 GB."""
    record = played_record(target=10**9, most_decisions=8000)
    assert len(record["decisions"]) == 8000
    with app_client(tmp_path / "db.sqlite") as client:
        started = time.monotonic()
        answer = client.post("/api/replays", json=record)
        took = time.monotonic() - started
        assert answer.status_code == 413 and _detail(answer)["code"] == "record_too_large"
        assert took < 2.0, took
        # Within the draw and decision limits, the target alone is refused too.
        cut = {**record, "draws": record["draws"][:100], "decisions": record["decisions"][:100]}
        answer = client.post("/api/replays", json=cut)
        assert answer.status_code == 413
        assert "max_record_target_score" in _detail(answer)["message"]


@pytest.mark.parametrize("body", [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"format": "flip7-record/1", "meta": {"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}",
    b'{"meta": ' + b'{"a": ' * 40 + b"1" + b"}" * 40 + b"}",
])
def test_json_nested_too_deep_is_a_clear_400(tmp_path: Path, body: bytes) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        answer = client.post("/api/replays", content=body,
                             headers={"Content-Type": "application/json"})
        assert answer.status_code == 400, answer.text
        assert _detail(answer)["code"] == "bad_record"
        assert "nests deeper than" in _detail(answer)["message"]


def test_brackets_inside_strings_do_not_count_as_nesting(tmp_path: Path) -> None:
    record = {**played_record(), "meta": {"note": "[[[[{{{{" * 20 + '\\"[' * 50}}
    with app_client(tmp_path / "db.sqlite") as client:
        assert client.post("/api/replays", json=record).status_code == 201


def test_uploads_are_rate_limited_per_address(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", uploads_per_minute=1.0, uploads_burst=2) as client:
        assert client.post("/api/replays", json={"format": "x"}).status_code == 400
        assert client.post("/api/replays", json=played_record()).status_code == 201
        answer = client.post("/api/replays", json=played_record())
        assert answer.status_code == 429 and _detail(answer)["code"] == "rate_limited"
        assert "uploads_per_minute" in _detail(answer)["message"]
        assert 1 <= int(answer.headers["Retry-After"]) <= 60
        # Reading replays is not an upload.
        assert client.get("/api/replays/nope").status_code == 404


def test_replay_pages_the_worker_computes_are_rate_limited_per_address(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", replay_pages_per_minute=1.0,
                    replay_pages_burst=2) as client:  # fmt: skip
        replay_id = client.post("/api/replays", json=played_record()).json()["id"]
        # Pages refused before any work (no such replay, a game still in play) cost nothing.
        assert [client.get("/api/replays/nope").status_code for _ in range(3)] == [404] * 3
        pages = [client.get(f"/api/replays/{replay_id}?offset=0&limit={n}") for n in (1, 2)]
        assert [p.status_code for p in pages] == [200, 200]
        # A cached page costs the worker nothing and is not counted.
        assert client.get(f"/api/replays/{replay_id}?offset=0&limit=1").status_code == 200
        answer = client.get(f"/api/replays/{replay_id}?offset=0&limit=3")
        assert answer.status_code == 429 and _detail(answer)["code"] == "rate_limited"
        assert "replay_pages_per_minute" in _detail(answer)["message"]
        assert 1 <= int(answer.headers["Retry-After"]) <= 60


# ---------------------------------------------------------------------- the worker


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[str]:
    """A real uvicorn (in a thread) with a CPU budget of 0.05 s a replay and upload limits
    raised, so that a valid record can need more than its budget."""
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}", bot_delay=0.0,
        replay_seconds=0.05, max_record_bytes=4 * 1024 * 1024, max_record_draws=10**6,
        max_record_decisions=10**6, max_record_target_score=10**9,
    )
    with threaded_server(settings) as url:
        yield url


def test_a_replay_over_its_cpu_budget_is_refused_while_health_stays_fast(
    live_server: str,
) -> None:
    import httpx

    # About 26,000 steps: some 0.15 s of CPU to check, three times the budget.
    record = played_record(target=10**9, most_decisions=12_000)
    outcome: dict[str, Any] = {}

    def upload() -> None:
        started = time.monotonic()
        outcome["answer"] = httpx.post(live_server + "/api/replays", json=record, timeout=60)
        outcome["took"] = time.monotonic() - started

    uploader = threading.Thread(target=upload)
    health: list[float] = []
    with httpx.Client(base_url=live_server, timeout=30) as client:
        assert client.get("/api/health").status_code == 200
        uploader.start()
        while uploader.is_alive() or not health:
            started = time.monotonic()
            assert client.get("/api/health").status_code == 200
            health.append(time.monotonic() - started)
            time.sleep(0.01)
        uploader.join()
        answer = outcome["answer"]
        assert answer.status_code == 422, answer.text
        assert _detail(answer)["code"] == "replay_too_long"
        assert "replay_seconds" in _detail(answer)["message"]
        # The event loop answered all along: no health check waited on the replay.
        assert max(health) < 1.0, (max(health), outcome["took"])
        # The worker was replaced: the next upload is checked as usual.
        assert client.post("/api/replays", json=played_record()).status_code == 201


def test_a_page_over_the_memory_budget_is_refused_and_the_worker_replaced() -> None:
    """A page with no byte cap over a long game (every late step holds hundreds of
    rounds) needs far more than 80 MB: the worker's memory ceiling stops it."""
    settings = Settings(replay_memory_mb=80, replay_page_steps=5000, replay_seconds=30)
    record = played_record(target=10**9, most_decisions=1500)
    replays = Replays(settings, page_bytes=10**12)

    async def loader() -> dict[str, Any]:
        return record

    async def scenario() -> None:
        try:
            with pytest.raises(ReplayError) as refused:
                await replays.page("big", loader, "0", "5000")
            assert refused.value.status == 422 and refused.value.code == "replay_too_big"
            assert "replay_memory_mb" in refused.value.message
            page = json.loads((await replays.page("big", loader, "0", "3")).body)
            assert page["offset"] == 0 and len(page["steps"]) == 3
        finally:
            replays.workers.close()

    asyncio.run(scenario())


def test_jobs_past_the_queue_are_refused_busy() -> None:
    workers = ReplayWorkers(Settings(), max_waiting=1)

    async def scenario() -> None:
        try:
            first = asyncio.ensure_future(workers.run(replay_worker.check, played_record()))
            await asyncio.sleep(0)  # the first job is now with the worker (starting it)
            with pytest.raises(ReplayError) as refused:
                await workers.run(replay_worker.check, played_record())
            assert refused.value.status == 503 and refused.value.code == "busy"
            assert refused.value.retry_after
            assert (await first)[0] == "ok"
        finally:
            workers.close()

    asyncio.run(scenario())


# ---------------------------------------------------------------------- pages


def _steps_json(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"events": [e.to_json() for e in events], "game": view.to_json()}
            for events, view in replay_steps(record)]


def test_replays_come_in_pages(tmp_path: Path) -> None:
    record = played_record(seed=12)
    expected = _steps_json(record)
    total = len(expected)
    assert total > 60
    with app_client(tmp_path / "db.sqlite", replay_page_steps=25) as client:
        replay_id = client.post("/api/replays", json=record).json()["id"]
        url = f"/api/replays/{replay_id}"
        first = client.get(url).json()
        assert first["total_steps"] == total and first["offset"] == 0
        assert len(first["steps"]) == 25 and first["record"]["draws"] == record["draws"]
        # Page by page, the steps are those of the whole replay.
        steps, offset = [], 0
        while offset < total:
            page = client.get(url, params={"offset": offset}).json()
            assert page["offset"] == offset and 1 <= len(page["steps"]) <= 25
            steps += page["steps"]
            offset += len(page["steps"])
        assert steps == expected
        page = client.get(url, params={"offset": 10, "limit": 5}).json()
        assert page["steps"] == expected[10:15]
        last = client.get(url, params={"offset": total - 1}).json()
        assert last["steps"] == expected[-1:] and last["steps"][0]["game"]["over"]
        # A page asked again comes from the cache, the same bytes.
        assert client.get(url, params={"offset": 10, "limit": 5}).content == (
            client.get(url, params={"offset": "10", "limit": "5"}).content)
        for params, code in [
            ({"offset": total}, "bad_offset"), ({"offset": -1}, "bad_offset"),
            ({"offset": "x"}, "bad_offset"), ({"offset": "١"}, "bad_offset"),
            ({"offset": "9" * 40}, "bad_offset"),
            ({"limit": 0}, "bad_limit"), ({"limit": 26}, "bad_limit"),
            ({"limit": "many"}, "bad_limit"),
        ]:
            answer = client.get(url, params=params)
            assert answer.status_code == 400, (params, answer.text)
            assert _detail(answer)["code"] == code, params
        assert client.get("/api/replays/nope", params={"offset": 3}).status_code == 404


def test_a_page_stops_once_its_bytes_are_written() -> None:
    record = played_record(seed=12)
    total = 1 + len(record["draws"]) + len(record["decisions"])
    kind, body = replay_worker.page_of(record, total, 5, 50, 1)
    page = json.loads(body)
    assert kind == "ok" and page["offset"] == 5 and len(page["steps"]) == 1
    kind, body = replay_worker.page_of(record, total, 5, 50, 10**9)
    assert len(json.loads(body)["steps"]) == 50
