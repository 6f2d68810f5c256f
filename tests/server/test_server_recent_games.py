"""Finished games stay reachable (issue 14): ``GET /api/games`` lists the most recently
finished games of every table, bounded; each replay page says where every round starts
(``round_starts``), so that a viewer can jump to a round."""

from __future__ import annotations

import random
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import app_client, auth, connect, join, new_table, play_to_end

# Three players on one address move as fast as the test can: no frame rate limits here.
FAST = {"rate_per_second": 1000.0, "rate_burst": 1000, "frames_per_second_per_address": 1000.0,
        "frames_burst_per_address": 1000}


def _finished_game(client: Any, name: str, rng: random.Random) -> dict[str, Any]:
    """A table called ``name`` whose three humans played one game to the end; its last state."""
    table_id, ann = new_table(client, name=name, seats=3)
    tokens = [ann] + [join(client, table_id, player)[1] for player in ("Bob", "Cyd")]
    with ExitStack() as stack:
        players = [connect(client, stack, table_id, t) for t in tokens]
        assert client.post(f"/api/tables/{table_id}/start", headers=auth(ann)).status_code == 200
        play_to_end(players, rng)
        return players[0].state


def test_recent_games_list_finished_games_newest_first(db_url: str) -> None:
    rng = random.Random(2)
    with app_client(db_url, seed=8, **FAST) as client:
        assert client.get("/api/games").json() == {"games": []}
        first = _finished_game(client, "Friday", rng)
        second = _finished_game(client, "Saturday", rng)
        # A game being played is not listed: its record would show the cards to come.
        playing, ann = new_table(client, name="Sunday", seats=3)
        for player in ("Bob", "Cyd"):
            join(client, playing, player)
        client.post(f"/api/tables/{playing}/start", headers=auth(ann))
        games = client.get("/api/games").json()["games"]
        assert [g["table_name"] for g in games] == ["Saturday", "Friday"]
        for game, state in zip(games, (second, first), strict=True):
            assert game["id"] == state["finished_games"][0] and game["table"] == state["id"]
            assert game["players"] == ["Ann", "Bob", "Cyd"]
            assert game["totals"] == [p["total"] for p in state["game"]["players"]]
            assert game["winners"] == state["game"]["winners"]
            assert game["finished_at"].endswith("Z")
            # The same game as the table's own list tells it, and its replay opens.
            summary = client.get(f"/api/tables/{state['id']}/games").json()["games"][0]
            assert summary["finished_at"] == game["finished_at"]
            assert client.get(f"/api/games/{game['id']}/replay").status_code == 200
        assert set(games[0]) == {"id", "table", "table_name", "finished_at", "players",
                                 "winners", "totals"}
        assert client.get("/api/games", params={"limit": 1}).json()["games"] == games[:1]
        assert client.get("/api/games", params={"limit": "50"}).json()["games"] == games


@pytest.mark.parametrize("limit", ["0", "51", "-1", "x", "1.5", "١", "9" * 40, ""])
def test_a_bad_limit_is_a_clear_400(tmp_path: Path, limit: str) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        answer = client.get("/api/games", params={"limit": limit})
        assert answer.status_code == 400, answer.text
        detail = answer.json()["detail"]
        assert detail["code"] == "bad_limit"
        assert "limit must be a whole number from 1 to 50" in detail["message"]
        assert len(detail["message"]) < 120  # a long value is not echoed in full


def test_every_replay_page_says_where_each_round_starts(tmp_path: Path) -> None:
    rng = random.Random(4)
    with app_client(tmp_path / "db.sqlite", seed=3, replay_page_steps=20, **FAST) as client:
        state = _finished_game(client, "Rounds", rng)
        game_id = state["finished_games"][0]
        url = f"/api/games/{game_id}/replay"
        first = client.get(url).json()
        starts = first["round_starts"]
        rounds = len(state["game"]["rounds"])
        assert rounds >= 2 and len(starts) == rounds
        assert starts[0] == 0 and starts == sorted(set(starts))
        assert starts[-1] > 20  # later rounds lie on later pages
        for number, step in enumerate(starts, start=1):
            page = client.get(url, params={"offset": step, "limit": 1}).json()
            assert page["round_starts"] == starts  # every page tells them all
            events = page["steps"][0]["events"]
            assert {"type": "round_started", "round": number} in [
                {k: e[k] for k in ("type", "round") if k in e} for e in events]
            assert page["steps"][0]["game"]["round"] == number
