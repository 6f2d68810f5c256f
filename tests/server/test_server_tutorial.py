"""The guided first game over the server: POST /api/tutorial, the lessons in the table
state, "Got it" and skip (POST /api/tables/{id}/tutorial), the move a lesson asks for,
a restart in the middle of it, and every input's limit."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import WsPlayer, app_client, auth, connect, human_to_decide_or_over, seated_game

from flip7.core.cards import Card
from flip7.server.table.tutorial import FIRST_GAME, LEARNER


def _tutorial(client: Any, name: str = "Ann") -> tuple[str, str, dict[str, Any]]:
    r = client.post("/api/tutorial", json={"player": name})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["seat"] == LEARNER
    return body["table"]["id"], body["token"], body["table"]


def _wanted(state: dict[str, Any]) -> bool:
    """Whether the learner has something to do: read a lesson, move, or see the end."""
    if state.get("game") is None:
        return False
    lesson = (state.get("tutorial") or {}).get("lesson")
    return bool(lesson and lesson["next"]) or human_to_decide_or_over(state)


def _settle(player: WsPlayer, after: int = -1) -> dict[str, Any]:
    while not (player.state and player.state["version"] > after and _wanted(player.state)):
        player.recv()
    return player.state


def _follow(client: Any, player: WsPlayer, token: str, until: str | None = None) -> list[str]:
    """Do what the lessons say (read, or make the move asked for) until the lesson
    ``until`` is on screen or the lessons are over; the ids of the lessons done."""
    done: list[str] = []
    state = _settle(player)
    while True:
        tutorial = state["tutorial"]
        lesson = tutorial["lesson"]
        if lesson is not None and lesson["id"] == until:
            return done
        version = state["version"]
        if lesson is not None and lesson["next"]:
            r = client.post(f"/api/tables/{state['id']}/tutorial", json={"read": lesson["number"]},
                            headers=auth(token))
            assert r.status_code == 200, r.text
        elif state["game"]["over"]:
            return done
        else:
            assert tutorial["expect"] is not None, state
            answer = player.move(tutorial["expect"])
            assert answer["type"] == "result", answer
        if lesson is not None:
            done.append(lesson["id"])
        state = _settle(player, after=version)


def test_a_tutorial_table_is_private_and_starts_with_the_welcome(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        table_id, _, state = _tutorial(client)
        assert state["state"] == "playing" and state["name"] == FIRST_GAME.table_name
        assert [s["kind"] for s in state["seats"]] == ["human", "bot", "bot"]
        assert state["rules"] == FIRST_GAME.rules.to_json()
        tutorial = state["tutorial"]
        assert tutorial["lesson"]["id"] == "welcome" and tutorial["lesson"]["next"] is True
        assert tutorial == {
            "seat": LEARNER, "lesson": tutorial["lesson"], "expect": None, "step": 0,
            "steps": len(FIRST_GAME.steps), "lessons": len(FIRST_GAME.lessons),
            "lessons_done": 0, "skipped": False,
        }
        assert "Eddie goes first" in tutorial["lesson"]["text"]  # the bot's first name
        # Not in the lobby's list; a table of the lobby's has no tutorial.
        assert table_id not in [t["id"] for t in client.get("/api/tables").json()["tables"]]
        other = seated_game(client, humans=1, bots=2)
        assert other["id"] in [t["id"] for t in client.get("/api/tables").json()["tables"]]
        assert client.get(f"/api/tables/{other['id']}").json()["table"]["tutorial"] is None


def test_the_guided_game_played_by_its_lessons_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with app_client(db) as client, ExitStack() as stack:
        table_id, token, _ = _tutorial(client)
        player = connect(client, stack, table_id, token)
        done = _follow(client, player, token, until="lucky13")
        assert done[:4] == ["welcome", "bust", "hit", "hit_again"]
        before = client.get(f"/api/tables/{table_id}").json()["table"]
    with app_client(db) as client, ExitStack() as stack:
        after = client.get(f"/api/tables/{table_id}").json()["table"]
        # The log rebuilds the same game, at the same lesson.
        assert after["tutorial"] == before["tutorial"] and after["game"] == before["game"]
        assert after["tutorial"]["lesson"]["id"] == "lucky13"
        player = connect(client, stack, table_id, token)
        done += _follow(client, player, token)
        state = player.state
        assert state["state"] == "over" and state["game"]["winners"] == [LEARNER]
        assert done == [lesson.id for lesson in FIRST_GAME.lessons]
        assert state["tutorial"]["lesson"] is None
        assert state["tutorial"]["step"] == state["tutorial"]["steps"]
        assert state["tutorial"]["lessons_done"] == state["tutorial"]["lessons"]
        record = client.get(f"/api/games/{state['game_id']}/record").json()
        assert tuple(Card.parse(c) for c in record["draws"]) == FIRST_GAME.draws
        # Someone's first game is theirs: the lobby's recent games leave it out.
        recent = client.get("/api/games").json()["games"]
        assert state["game_id"] not in [game["id"] for game in recent]


def test_only_the_move_the_lesson_asks_for_is_taken(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client, ExitStack() as stack:
        table_id, token, _ = _tutorial(client)
        player = connect(client, stack, table_id, token)
        _follow(client, player, token, until="hit")
        assert player.state["tutorial"]["expect"] == "hit"
        refused = player.move("stay")
        assert refused["type"] == "error" and refused["code"] == "tutorial_step"
        assert refused["message"] == (
            "the lesson asks you to Hit now — or skip the tutorial to play freely"
        )
        assert player.move("hit")["type"] == "result"


def test_got_it_is_checked(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client, ExitStack() as stack:
        table_id, token, state = _tutorial(client)
        url = f"/api/tables/{table_id}/tutorial"
        number = state["tutorial"]["lesson"]["number"]

        def post(body: Any, headers: dict[str, str] | None = None) -> Any:
            return client.post(url, json=body, headers=auth(token) if headers is None else headers)

        stale = post({"read": number + 1})
        assert stale.status_code == 409 and stale.json()["detail"] == {
            "code": "stale_lesson",
            "message": f"lesson {number + 1} is not on screen; lesson {number} is",
        }
        for body in ({}, {"skip": True, "read": number}, {"skip": False}):
            r = post(body)
            assert r.status_code == 400 and r.json()["detail"]["code"] == "bad_tutorial", body
        for body in ({"read": -1}, {"read": "0"}, {"read": 2**60}, {"skip": 1}, {"next": 0}):
            r = post(body)
            assert r.status_code == 422 and r.json()["detail"]["code"] == "bad_request", body
        assert post({"read": number}, headers={}).status_code == 401
        assert client.post("/api/tables/nope/tutorial", json={"skip": True},
                           headers=auth(token)).status_code == 404
        assert post({"read": number}).status_code == 200
        player = connect(client, stack, table_id, token)
        _follow(client, player, token, until="hit")
        # The learner's step asks for a move, not for "Got it".
        lesson = player.state["tutorial"]["lesson"]
        r = post({"read": lesson["number"]})
        assert r.status_code == 409 and "asks for a move" in r.json()["detail"]["message"]
        # A table whose game is no tutorial has none to read.
        other = seated_game(client, humans=1, bots=2)
        assert client.post(f"/api/tables/{other['id']}/start",
                           headers=auth(other["tokens"][0])).status_code == 200
        r = client.post(f"/api/tables/{other['id']}/tutorial", json={"skip": True},
                        headers=auth(other["tokens"][0]))
        assert r.status_code == 409 and r.json()["detail"]["code"] == "no_tutorial"


def test_skipping_leaves_a_normal_game_against_the_bots(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with app_client(db) as client, ExitStack() as stack:
        table_id, token, _ = _tutorial(client)
        player = connect(client, stack, table_id, token)
        _follow(client, player, token, until="hit")
        r = client.post(f"/api/tables/{table_id}/tutorial", json={"skip": True},
                        headers=auth(token))
        assert r.status_code == 200, r.text
        tutorial = r.json()["table"]["tutorial"]
        assert tutorial["skipped"] is True and tutorial["lesson"] is None
        assert tutorial["expect"] is None
        again = client.post(f"/api/tables/{table_id}/tutorial", json={"skip": True},
                            headers=auth(token))
        assert again.status_code == 409 and again.json()["detail"]["code"] == "tutorial_over"
        # Any legal move now: Stay, which the lesson asked not to make.
        version = player.settle(after=r.json()["table"]["version"] - 1)["version"]
        assert player.move("stay")["type"] == "result"
        player.settle(after=version)
        # The bots decide for themselves from here, and the game goes on to its end.
        while not player.state["game"]["over"]:
            version = player.state["version"]
            game = player.state["game"]
            legal = game["legal_decisions"]
            me = game["players"][LEARNER]
            choice = "hit" if "hit" in legal and me["number_sum"] < 15 else (
                "stay" if "stay" in legal else legal[0])
            assert player.move(choice)["type"] == "result"
            player.settle(after=version)
        assert player.state["tutorial"]["skipped"] is True
    with app_client(db) as client:  # the skip is in the log
        state = client.get(f"/api/tables/{table_id}").json()["table"]
        assert state["tutorial"]["skipped"] is True and state["state"] == "over"


def test_a_tutorial_is_a_table_created_and_its_name_is_checked(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", tables_burst=2, tables_per_minute=1) as client:
        for name, code in (("  ", "bad_name"), ("A" * 100, "bad_name")):
            r = client.post("/api/tutorial", json={"player": name})
            assert r.status_code == 400 and r.json()["detail"]["code"] == code, r.text
        # Those two attempts took the address's whole budget, as tables created do.
        r = client.post("/api/tutorial", json={"player": "Ann"})
        assert r.status_code == 429 and r.json()["detail"]["code"] == "rate_limited"
        assert r.headers["Retry-After"]
        assert client.post("/api/tables", json={"player": "Ann"}).status_code == 429
    with app_client(tmp_path / "db2.sqlite") as client:
        for body in ({}, {"player": 7}, {"player": "Ann", "seats": 4}, {"player": "x" * 201}):
            r = client.post("/api/tutorial", json=body)
            assert r.status_code == 422 and r.json()["detail"]["code"] == "bad_request", body
