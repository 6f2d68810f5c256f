"""The coach over the web (issue 16): a finished game's seat analysed off the request path,
its progress followed, its report kept in the database and served from there; the limits
(busy, rate, CPU budget) and the errors; a job that died is started anew when asked again.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import WsPlayer, app_client, auth, choose

from flip7.coach import decision_count
from flip7.core.decisions import parse_decision
from flip7.server.base.settings import Settings
from flip7.server.services.coach_jobs import STALE, CoachJobs

RULES = {"target_score": 40}


def _table(client: Any) -> tuple[str, str]:
    """A table of Ann and two basic bots, started; its id and Ann's token."""
    created = client.post("/api/tables", json={"player": "Ann", "seats": 3, "rules": RULES})
    assert created.status_code == 201, created.text
    table_id, token = created.json()["table"]["id"], created.json()["token"]
    for _ in range(2):
        assert client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                           headers=auth(token)).status_code == 200
    assert client.post(f"/api/tables/{table_id}/start", headers=auth(token)).status_code == 200
    return table_id, token


def _finished_game(client: Any) -> tuple[str, int]:
    """A whole game played over the WebSocket; its id and the seat with most decisions."""
    table_id, token = _table(client)
    rng = random.Random(3)
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ann = WsPlayer(ws, None, token)
        ann.seat = ann.hello()["seat"]
        while True:
            state = ann.settle()
            if state["game"]["over"]:
                break
            answer = ann.move(choose(state["game"], rng))
            assert answer["type"] == "result", answer
            ann.settle(after=state["version"])
        game_id = ann.state["finished_games"][0]
    record = client.get(f"/api/games/{game_id}/record").json()
    counts = [decision_count(record, seat) for seat in range(3)]
    return game_id, max(range(3), key=counts.__getitem__)


def _error(answer: Any) -> dict[str, Any]:
    assert answer.status_code >= 400, answer.text
    detail: dict[str, Any] = answer.json()["detail"]
    return detail


def _engine(db_url: str) -> Any:
    """A plain (synchronous) connection pool to the test's database, to read it as another
    process of a cluster would."""
    from sqlalchemy import create_engine

    return create_engine(db_url.replace("postgresql://", "postgresql+psycopg://"))


def _rows(engine: Any) -> list[tuple[Any, ...]]:
    from sqlalchemy import text

    with engine.connect() as conn:
        return [tuple(row) for row in conn.execute(
            text("SELECT game_id, seat, status, done, total FROM coach_analyses"))]


def _wait_done(client: Any, game_id: str, seat: int, db: Any = None,
               timeout: float = 120.0) -> tuple[dict[str, Any], list[Any], list[Any]]:
    """GET until the analysis is over: its last answer, the answers' progress seen, and
    the stored rows' progress seen meanwhile (when ``db``, an engine, is given)."""
    seen: list[Any] = []
    stored: list[Any] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = client.get(f"/api/games/{game_id}/coach", params={"seat": seat})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        seen.append((body["status"], body["progress"]["done"], body["progress"]["total"]))
        if db is not None:
            stored += [row[2:] for row in _rows(db) if row[:2] == (game_id, seat)]
        if body["status"] in ("done", "failed"):
            return body, seen, stored
        time.sleep(0.05)
    raise AssertionError(f"the analysis did not end: {seen[-3:]}")


def test_a_finished_game_is_analysed_followed_and_kept(db_url: str) -> None:
    db = db_url
    engine = _engine(db_url)
    # A token every 10 minutes: none comes back while a slow machine analyses.
    with app_client(db, seed=11, coach_burst=2, coach_per_minute=0.1) as client:
        game_id, seat = _finished_game(client)
        never = client.get(f"/api/games/{game_id}/coach", params={"seat": seat})
        assert never.status_code == 404 and _error(never)["code"] == "no_analysis"
        record = client.get(f"/api/games/{game_id}/record").json()
        total = decision_count(record, seat)
        assert total >= 4, total

        asked = client.post(f"/api/games/{game_id}/coach", json={"seat": seat})
        assert asked.status_code == 202, asked.text
        assert asked.json()["status"] in ("queued", "running")
        assert asked.json()["progress"] == {"done": 0, "total": total}
        # Asking again while it runs starts nothing and costs nothing.
        again = client.post(f"/api/games/{game_id}/coach", json={"seat": seat})
        assert again.status_code == 202 and again.json()["status"] in ("queued", "running")

        body, seen, stored = _wait_done(client, game_id, seat, engine)
        assert body["status"] == "done", body
        assert body["progress"] == {"done": total, "total": total}
        # Progress was seen as it went, by a GET and in the database (what another process
        # of a cluster reads).
        assert any(s == "running" and 0 < d < t for s, d, t in seen), seen
        assert any(s == "running" and 0 < d < t for s, d, t in stored), stored
        report = body["result"]
        assert report["format"] == "flip7-coach/1" and report["seat"] == seat
        assert report["summary"]["decisions"] == total == len(report["decisions"])
        assert {d["grade"] for d in report["decisions"]} <= {
            "best", "inaccuracy", "mistake", "blunder"}
        # The answer names each decision as an object too (the stored report only by its
        # string): what the browser reads.
        for d in report["decisions"]:
            assert d["made_object"] == parse_decision(d["made"]).to_json()
            assert d["best_object"] == parse_decision(d["best"]).to_json()
            assert d["made_object"]["text"] == d["made"]
            for o in d["options"]:
                assert o["decision_object"] == parse_decision(o["decision"]).to_json()
        # Done: a second POST answers from the stored report, costing nothing (the
        # address's burst is 2: one analysis, then one more).
        cached = client.post(f"/api/games/{game_id}/coach", json={"seat": seat})
        assert cached.status_code == 200 and cached.json() == body
        other = (seat + 1) % 3
        assert client.post(f"/api/games/{game_id}/coach", json={"seat": other}).status_code == (
            202)
        limited = client.post(f"/api/games/{game_id}/coach", json={"seat": (seat + 2) % 3})
        assert limited.status_code == 429 and _error(limited)["code"] == "rate_limited"
        assert "coach_per_minute" in _error(limited)["message"]
        assert int(limited.headers["Retry-After"]) >= 1
    # The server stopped with seat ``other`` under way: after a restart (the store opened
    # again) the report is still there, and the interrupted analysis says so...
    with app_client(db, seed=11) as client:
        kept = client.get(f"/api/games/{game_id}/coach", params={"seat": seat})
        assert kept.status_code == 200 and kept.json() == body
        assert client.post(f"/api/games/{game_id}/coach", json={"seat": seat}).json() == body
        stopped = client.get(f"/api/games/{game_id}/coach", params={"seat": other}).json()
        assert stopped["status"] == "failed" and "ask for it again" in stopped["message"]
        # ... and asking again starts it anew.
        restarted = client.post(f"/api/games/{game_id}/coach", json={"seat": other})
        assert restarted.status_code == 202, restarted.text
        assert restarted.json()["status"] in ("queued", "running")
        assert _wait_done(client, game_id, other)[0]["status"] == "done"
    engine.dispose()


def test_what_cannot_be_analysed_and_bad_seats(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", seed=5) as client:
        table_id, _ = _table(client)
        playing = client.get(f"/api/tables/{table_id}").json()["table"]["game_id"]
        unfinished = client.post(f"/api/games/{playing}/coach", json={"seat": 0})
        assert unfinished.status_code == 409 and _error(unfinished)["code"] == "not_over"
        unknown = client.post("/api/games/nope/coach", json={"seat": 0})
        assert unknown.status_code == 404 and _error(unknown)["code"] == "no_game"
        assert _error(client.get("/api/games/nope/coach?seat=0"))["code"] == "no_game"
        # Never asked (an unfinished game cannot have been).
        never = client.get(f"/api/games/{playing}/coach?seat=0")
        assert never.status_code == 404 and _error(never)["code"] == "no_analysis"
        for seat in (3, -1, 10**6):
            bad = client.post(f"/api/games/{playing}/coach", json={"seat": seat})
            assert bad.status_code == 400 and _error(bad)["code"] == "bad_seat", bad.text
            assert "0 to 2" in _error(bad)["message"]
        for body in ({"seat": "0"}, {"seat": 1.0}, {}, {"seat": 0, "more": 1}):
            bad = client.post(f"/api/games/{playing}/coach", json=body)
            assert bad.status_code == 422 and _error(bad)["code"] == "bad_request", body
        for query in ("", "?seat=x", "?seat=-1", "?seat=1e3"):
            bad = client.get(f"/api/games/{playing}/coach{query}")
            assert bad.status_code == 400 and _error(bad)["code"] == "bad_seat", query
        bad = client.get(f"/api/games/{playing}/coach?seat=3")
        assert bad.status_code == 400 and "0 to 2" in _error(bad)["message"]


def test_busy_queue_and_the_cpu_budget(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with app_client(db, seed=11, coach_queue=1, coach_seconds=0.05) as client:
        game_id, _ = _finished_game(client)
        answers = [client.post(f"/api/games/{game_id}/coach", json={"seat": seat})
                   for seat in range(3)]
        # One waits at most: the third is refused whether the first has started or not.
        assert answers[0].status_code == 202
        assert answers[2].status_code == 503 and _error(answers[2])["code"] == "busy"
        assert "Retry-After" in answers[2].headers
        # Over its CPU budget, an analysis fails saying which limit it passed.
        failed, _, _ = _wait_done(client, game_id, 0)
        assert failed["status"] == "failed" and "coach_seconds" in failed["message"]
        assert failed["result"] is None
        # Asked again, it starts anew (and fails again under this budget).
        again = client.post(f"/api/games/{game_id}/coach", json={"seat": 0})
        assert again.status_code == 202 and again.json()["status"] in ("queued", "running")
        assert _wait_done(client, game_id, 0)[0]["status"] == "failed"
    engine = _engine(f"sqlite:///{db}")
    assert {row[2] for row in _rows(engine)} <= {"failed", "queued", "running"}
    engine.dispose()


def test_with_many_processes_a_row_not_touched_for_a_while_is_dead() -> None:
    from datetime import timedelta
    from types import SimpleNamespace

    from flip7.server.base.formats import utcnow

    jobs = CoachJobs(Settings(redis_url="redis://127.0.0.1:6379/0"))
    fresh = SimpleNamespace(game_id="g", seat=0, status="running", done=1, total=4,
                            result=None, message=None, updated_at=utcnow())
    assert jobs._answer(fresh)["status"] == "running"
    old = SimpleNamespace(**{**vars(fresh), "updated_at": utcnow() - timedelta(seconds=STALE + 1)})
    answer = jobs._answer(old)
    assert answer["status"] == "failed" and "interrupted" in answer["message"]
    assert answer["progress"] == {"done": 1, "total": 4}
    # One process: a queued or running row that it does not hold is dead at once.
    alone = CoachJobs(Settings())
    assert alone._answer(fresh)["status"] == "failed"
