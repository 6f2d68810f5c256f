"""Writes that grow the database are budgeted per address, and scorecards expire (issue
"Fair shares", finding 6: one address made 1,719 scorecards and 1,620 renames in 20 s, and
scorecards were kept for ever).

The floods run against a real server (uvicorn on a loopback port, one process); expiry runs
in-process with the scorekeeper's clock moved by hand, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

import httpx
from server_helpers import app_client, services_of, threaded_server

from flip7.server.base.formats import utcnow
from flip7.server.base.settings import Settings, database_url

PLAYERS = ["Ann", "Bob", "Cyd"]
ROUND = [{"cards": ["5"], "busted": False}, {"cards": ["7"], "busted": False},
         {"cards": [], "busted": True}]


def _settings(tmp_path: Path, **limits: Any) -> Settings:
    return Settings(database_url=database_url(str(tmp_path / "db.sqlite")), bot_delay=0.0,
                    **limits)


def _refused(answer: httpx.Response, limit: str) -> None:
    """A 429 that names ``limit`` and says when to come back."""
    assert answer.status_code == 429, answer.text
    detail = answer.json()["detail"]
    assert detail["code"] == "rate_limited" and f"limit {limit}" in detail["message"], detail
    assert int(answer.headers["Retry-After"]) >= 1


def _new_card(client: Any) -> httpx.Response:
    return client.post("/api/scorecards", json={"name": "Friday", "players": PLAYERS})


def test_a_scorecard_flood_is_refused_after_the_burst(tmp_path: Path) -> None:
    settings = _settings(tmp_path, scorecards_per_minute=1.0, scorecards_burst=5)
    with threaded_server(settings) as base, httpx.Client(base_url=base, timeout=10) as client:
        answers = [_new_card(client) for _ in range(12)]
        assert [a.status_code for a in answers[:5]] == [201] * 5
        for answer in answers[5:]:
            _refused(answer, "scorecards_per_minute")
        # The refused ones were never stored: the list holds the five.
        assert len(client.get("/api/scorecards").json()["scorecards"]) == 5
        assert client.get("/api/limits").json()["scorecards_burst"] == 5


def test_a_round_flood_is_refused_after_the_burst(tmp_path: Path) -> None:
    """Every change to a scorecard counts: rounds entered, edited, undone, live updates."""
    settings = _settings(tmp_path, scorecard_rounds_per_minute=1.0, scorecard_rounds_burst=4)
    with threaded_server(settings) as base, httpx.Client(base_url=base, timeout=10) as client:
        card = _new_card(client).json()
        url, headers = f"/api/scorecards/{card['id']}", {"X-Scorecard-Key": card["key"]}
        for number in (1, 2, 3):
            r = client.post(f"{url}/rounds", headers=headers,
                            json={"number": number, "lines": ROUND})
            assert r.status_code == 201, r.text
        live = client.put(f"{url}/live", headers=headers, json={"events": [], "based_on": 0})
        assert live.status_code == 200, live.text
        _refused(client.post(f"{url}/rounds", headers=headers,
                             json={"number": 4, "lines": ROUND}), "scorecard_rounds_per_minute")
        _refused(client.delete(f"{url}/live", headers=headers), "scorecard_rounds_per_minute")
        assert len(client.get(url).json()["rounds"]) == 3  # nothing more was written


def test_a_rename_flood_is_refused_after_the_burst(tmp_path: Path) -> None:
    settings = _settings(tmp_path, renames_per_minute=1.0, renames_burst=3)
    with threaded_server(settings) as base, httpx.Client(base_url=base, timeout=10) as client:
        player = client.post("/api/players", json={"name": "Ann"}).json()
        headers = {"X-Player-Key": player["key"]}
        names = [f"Ann {i}" for i in range(8)]
        answers = [client.patch("/api/players/me", json={"name": n}, headers=headers)
                   for n in names]
        assert [a.status_code for a in answers[:3]] == [200] * 3
        for answer in answers[3:]:
            _refused(answer, "renames_per_minute")
        assert client.get("/api/players/me", headers=headers).json()["name"] == names[2]
        # The budget is judged before the key is looked up: a refused rename costs no read,
        # so even a key this server does not know is answered 429 once the budget is spent.
        stranger = {"X-Player-Key": "nobody.not-a-key-of-this-server"}
        _refused(client.patch("/api/players/me", json={"name": "Eve"}, headers=stranger),
                 "renames_per_minute")


def test_an_untouched_scorecard_expires_after_scorecard_ttl(db_url: str, tmp_path: Path
                                                            ) -> None:
    """Writes sweep away the scorecards nobody changed for ``scorecard_ttl``; a change keeps
    a scorecard, from then on, for as long again. The scorekeeper's clock is moved by hand."""
    day = 86400.0
    with app_client(db_url, scorecard_ttl=30 * day) as client:
        scorecards = services_of(client).scorecards
        now = [utcnow()]
        scorecards.now = lambda: now[0]
        old = _new_card(client).json()["id"]
        kept = _new_card(client).json()
        now[0] += timedelta(days=20)
        r = client.post(f"/api/scorecards/{kept['id']}/rounds", json={"number": 1, "lines": ROUND},
                        headers={"X-Scorecard-Key": kept["key"]})
        assert r.status_code == 201, r.text
        now[0] += timedelta(days=11)  # 31 days after both were made, 11 after the round
        newer = _new_card(client).json()["id"]  # a write: it sweeps
        assert client.get(f"/api/scorecards/{old}").status_code == 404
        assert client.get(f"/api/scorecards/{kept['id']}").status_code == 200
        now[0] += timedelta(days=20)  # 31 days after the round
        _new_card(client)
        assert client.get(f"/api/scorecards/{kept['id']}").status_code == 404
        assert client.get(f"/api/scorecards/{newer}").status_code == 200
        listed = {c["id"] for c in client.get("/api/scorecards").json()["scorecards"]}
        assert old not in listed and kept["id"] not in listed and newer in listed


def test_a_scorecard_expires_on_a_real_server(tmp_path: Path) -> None:
    """The same on a real server with a short ``scorecard_ttl`` (seconds), its real clock:
    the next write after it has passed sweeps the old scorecard away."""
    import time

    settings = _settings(tmp_path, scorecard_ttl=1.0)
    with threaded_server(settings) as base, httpx.Client(base_url=base, timeout=10) as client:
        old = _new_card(client).json()["id"]
        assert client.get(f"/api/scorecards/{old}").status_code == 200
        time.sleep(1.5)  # past the ttl (no figure measured: the sweep is what is checked)
        new = _new_card(client).json()["id"]
        assert client.get(f"/api/scorecards/{old}").status_code == 404
        assert client.get(f"/api/scorecards/{new}").status_code == 200
        assert client.get("/api/limits").json()["scorecard_ttl"] == 1.0
