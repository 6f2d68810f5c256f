"""The scorekeeper's REST API (docs/scorekeeper.md) on SQLite and a real PostgreSQL."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import app_client, services_of

from flip7.scorekeeper.scorecard import Scorecard
from flip7.server.base.formats import utcnow
from flip7.server.base.settings import database_url
from flip7.server.store.database import Store

API = "/api/scorecards"
PLAYERS = ["Ann", "Bob", "Cyd"]


def line(cards: str = "", busted: bool = False) -> dict[str, Any]:
    return {"cards": cards.split(), "busted": busted}


def bust(cards: str = "") -> dict[str, Any]:
    return line(cards, busted=True)


def create(client: Any, **body: Any) -> tuple[str, str, dict[str, Any]]:
    body.setdefault("name", "Friday night")
    body.setdefault("players", PLAYERS)
    r = client.post(API, json=body)
    assert r.status_code == 201, r.text
    answer = r.json()
    return answer["id"], answer["key"], answer["scorecard"]


def key(value: str) -> dict[str, str]:
    return {"X-Scorecard-Key": value}


def add(
    client: Any, card_id: str, edit_key: str, number: int, lines: list[Any], **extra: Any
) -> Any:
    return client.post(
        f"{API}/{card_id}/rounds",
        headers=key(edit_key),
        json={"number": number, "lines": lines, **extra},
    )


def detail(response: Any) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"detail"}, body
    assert isinstance(body["detail"]["message"], str) and body["detail"]["message"], body
    result: dict[str, Any] = body["detail"]
    return result


def sqlite(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'flip7.db'}"


# ---------------------------------------------------------------------- a whole game


def test_a_short_game_through_the_api(db_url: str) -> None:
    with app_client(db_url) as client:
        card_id, edit_key, card = create(client, rules={"target_score": 50})
        assert card["id"] == card_id and card["name"] == "Friday night"
        documented = {"id", "name", "players", "rules", "decks", "version", "status", "winners",
                      "leader", "extra_round", "message", "totals", "rounds", "live", "created",
                      "updated"}  # fmt: skip
        assert documented <= set(card)
        assert card["players"] == PLAYERS and card["rules"]["target_score"] == 50
        assert card["rounds"] == [] and card["totals"] == [0, 0, 0]
        assert card["status"] == "playing" and card["version"] == 1
        assert len(edit_key) >= 20

        # Round 1: Ann halves, Bob busts, Cyd holds a Lucky 13 pair.
        r1 = [line("3 11 5 /2"), bust("5 9 5"), line("13 L13")]
        preview = client.post(f"{API}/{card_id}/check", json={"lines": r1})
        assert preview.status_code == 200, preview.text
        assert preview.json()["scores"] == [9, 0, 26]
        assert client.get(f"{API}/{card_id}").json()["rounds"] == []  # nothing saved
        r = add(client, card_id, edit_key, 1, r1)
        assert r.status_code == 201, r.text
        card = r.json()
        assert card["totals"] == [9, 0, 26] and card["version"] == 2
        assert card["rounds"][0]["scores"] == [9, 0, 26]
        assert card["rounds"][0]["number"] == 1 and card["rounds"][0]["revision"] == 1
        assert {"number", "revision", "lines", "flip7_choice", "scores", "totals", "flip7_seat",
                "live"} <= set(card["rounds"][0])  # fmt: skip
        assert card["rounds"][0]["lines"][1] == {"cards": ["5", "9", "5"], "busted": True}

        # An edit: Cyd had an 8 too (previewed first, as round 1).
        preview = client.post(
            f"{API}/{card_id}/check", json={"number": 1, "lines": [*r1[:2], line("13 L13 8")]}
        )
        assert preview.status_code == 200 and preview.json()["totals"] == [9, 0, 34]
        r = client.put(
            f"{API}/{card_id}/rounds/1",
            headers=key(edit_key),
            json={"revision": 1, "lines": [*r1[:2], line("13 L13 8")]},
        )
        assert r.status_code == 200, r.text
        card = r.json()
        assert card["totals"] == [9, 0, 34] and card["rounds"][0]["revision"] == 2

        # Round 2: Ann's Flip 7 ends the game (53 >= 50).
        r2 = [line("1 2 3 4 5 6 8"), line("10 -2"), bust()]
        r = add(client, card_id, edit_key, 2, r2)
        assert r.status_code == 201, r.text
        card = r.json()
        assert card["rounds"][1]["scores"] == [44, 8, 0]
        assert card["rounds"][1]["flip7_seat"] == 0
        assert card["totals"] == [53, 8, 34]
        assert card["status"] == "over" and card["winners"] == [0]
        assert card["message"] == "Ann wins with 53" and card["leader"] == "Ann"

        # No round after the end of the game.
        late = add(client, card_id, edit_key, 3, [line("1"), line("2"), line("3")])
        assert late.status_code == 422, late.text
        assert "over" in detail(late)["message"]

        # Undo round 2 and enter it again: Bob's Flip 7 (with The Zero), Cyd reaches 50.
        r = client.delete(
            f"{API}/{card_id}/rounds/2", params={"revision": 1}, headers=key(edit_key)
        )
        assert r.status_code == 200, r.text
        card = r.json()
        assert card["status"] == "playing" and card["totals"] == [9, 0, 34]
        assert len(card["rounds"]) == 1
        r = add(client, card_id, edit_key, 2, [line("7 8"), line("0 1 2 3 4 5 6"), line("10 6")])
        assert r.status_code == 201, r.text
        card = r.json()
        assert card["rounds"][1]["scores"] == [15, 36, 16]
        assert card["totals"] == [24, 36, 50]
        assert card["status"] == "over" and card["winners"] == [2]
        assert card["message"] == "Cyd wins with 50"

        # An edit that would end the game at round 1 is refused.
        r = client.put(
            f"{API}/{card_id}/rounds/1",
            headers=key(edit_key),
            json={"revision": 2, "lines": [line("12 11 10 9 8"), line(), line()]},
        )
        assert r.status_code == 422 and detail(r)["code"] == "invalid_round"
        assert "round 1 now ends the game" in detail(r)["message"]

        # Everyone can read it, and the list shows it without its key.
        listed = client.get(API).json()["scorecards"]
        assert [s["id"] for s in listed] == [card_id]
        assert listed[0]["name"] == "Friday night" and listed[0]["players"] == PLAYERS
        assert listed[0]["rounds"] == 2 and listed[0]["status"] == "over"
        assert edit_key not in json.dumps(listed)
        assert client.get(f"{API}/{card_id}").json() == card


def test_the_list_is_newest_first(tmp_path: Path) -> None:
    with app_client(sqlite(tmp_path)) as client:
        ids = [create(client, name=f"Game {i}")[0] for i in range(3)]
        listed = client.get(API).json()["scorecards"]
        assert [s["id"] for s in listed] == ids[::-1]
        assert [s["name"] for s in listed] == ["Game 2", "Game 1", "Game 0"]
        assert all("key" not in s and "key_hash" not in s for s in listed)
        # A change moves a scorecard to the top.
        first_key = client.post(API, json={"name": "Later", "players": PLAYERS}).json()
        assert client.get(API).json()["scorecards"][0]["id"] == first_key["id"]
        assert len(client.get(API, params={"limit": 2}).json()["scorecards"]) == 2


# ---------------------------------------------------------------------- bad input


def test_bad_rounds_answer_422_with_every_problem(tmp_path: Path) -> None:
    with app_client(sqlite(tmp_path)) as client:
        card_id, edit_key, _ = create(client)
        r = add(client, card_id, edit_key, 1, [line("14 3"), line("5 9 5"), line("2")])
        assert r.status_code == 422, r.text
        d = detail(r)
        assert d["code"] == "invalid_round"
        seats = {p["seat"] for p in d["problems"]}
        assert {0, 1} <= seats
        # code and params: the same problem for a page in another language (docs/i18n.md)
        assert all(set(p) in ({"seat", "message"}, {"seat", "message", "code", "params"})
                   for p in d["problems"])
        assert '"14"' in d["message"] or "14" in d["message"]
        for p in d["problems"]:
            assert p["message"] in d["message"]
        # The same through check; nothing was saved.
        r = client.post(
            f"{API}/{card_id}/check", json={"lines": [line("14 3"), line("5 9 5"), line("2")]}
        )
        assert r.status_code == 422 and detail(r)["code"] == "invalid_round"
        # Two Flip 7s, an Action card in a line, too many copies of a card.
        two = [line("1 2 3 4 5 6 8"), line("2 3 4 5 6 8 9"), line()]
        r = add(client, card_id, edit_key, 1, two)
        assert r.status_code == 422 and detail(r)["code"] == "invalid_round"
        r = add(client, card_id, edit_key, 1, [line("STEAL 3"), line("2"), line("2")])
        assert r.status_code == 422 and detail(r)["problems"][0]["seat"] == 0
        r = add(client, card_id, edit_key, 1, [line("2"), line("2"), line("2")])
        assert r.status_code == 422 and detail(r)["problems"][0]["seat"] is None
        # A Flip 7 choice without Brutal.
        r = add(
            client,
            card_id,
            edit_key,
            1,
            [line("2"), line("3"), line("4")],
            flip7_choice={"minus15": 1},
        )
        assert r.status_code == 422 and detail(r)["code"] == "invalid_round"
        assert client.get(f"{API}/{card_id}").json()["rounds"] == []
        assert client.get(f"{API}/{card_id}").json()["version"] == 1


def test_bad_requests_answer_4xx_with_a_message(tmp_path: Path) -> None:
    with app_client(sqlite(tmp_path)) as client:
        card_id, edit_key, _ = create(client)
        good = [line("2"), line("3"), line("4")]

        def refused(response: Any, status: int, code: str) -> str:
            assert response.status_code == status, (response.status_code, response.text)
            d = detail(response)
            assert d["code"] == code, d
            return str(d["message"])

        # Creating.
        for body in (
            {"name": "x" * 41, "players": PLAYERS},
            {"name": "x", "players": ["y" * 41, "b", "c"]},
            {"name": "x", "players": [f"P{i}" for i in range(37)]},
            {"name": " ", "players": PLAYERS},
            {"name": "x"},
            {"name": "x", "players": PLAYERS, "decks": 3},
            {"name": "x", "players": PLAYERS, "colour": "red"},
        ):
            refused(client.post(API, json=body), 422, "bad_request")
        assert "not valid JSON" in refused(
            client.post(API, content=b"{nope", headers={"Content-Type": "application/json"}),
            422,
            "bad_request",
        )
        assert "brutel" in refused(
            client.post(API, json={"name": "x", "players": PLAYERS, "rules": {"brutel": 1}}),
            400,
            "bad_rules",
        )
        refused(
            client.post(API, json={"name": "x", "players": ["Ann", "Bob"]}), 400, "bad_scorecard"
        )
        refused(
            client.post(
                API, json={"name": "x", "players": [f"P{i}" for i in range(19)], "decks": 1}
            ),
            400,
            "bad_scorecard",
        )
        assert (
            client.post(
                API,
                json={"name": "x", "players": ["Ann", "Bob"], "rules": {"allow_two_players": True}},
            ).status_code
            == 201
        )

        # Unknown scorecards.
        for method, path in (
            ("GET", ""),
            ("POST", "/check"),
            ("POST", "/rounds"),
            ("PUT", "/rounds/1"),
            ("DELETE", "/rounds/1?revision=1"),
            ("PUT", "/live"),
            ("DELETE", "/live"),
            ("GET", "/export.csv"),
            ("GET", "/export.json"),
        ):
            body = {"lines": good, "number": 1, "revision": 1, "events": [], "based_on": 0}
            if method in ("GET", "DELETE"):
                r = client.request(method, f"{API}/nope{path}", headers=key(edit_key))
            else:
                fields = {
                    "POST/check": ("lines",),
                    "POST/rounds": ("lines", "number"),
                    "PUT/rounds/1": ("lines", "revision"),
                    "PUT/live": ("events", "based_on"),
                }
                wanted = fields[method + path]
                r = client.request(
                    method,
                    f"{API}/nope{path}",
                    headers=key(edit_key),
                    json={k: body[k] for k in wanted},
                )
            assert "nope" in refused(r, 404, "unknown_scorecard"), path

        # Keys.
        r = client.post(f"{API}/{card_id}/rounds", json={"number": 1, "lines": good})
        assert "X-Scorecard-Key" in refused(r, 403, "bad_key")
        refused(add(client, card_id, "wrong", 1, good), 403, "bad_key")
        refused(client.delete(f"{API}/{card_id}/live"), 403, "bad_key")
        refused(
            client.put(
                f"{API}/{card_id}/live", json={"events": [], "based_on": 0}, headers=key("wrong")
            ),
            403,
            "bad_key",
        )

        # Malformed round bodies.
        bad_bodies: list[Any] = [
            {"number": 1},
            {"number": 0, "lines": good},
            {"number": 1, "lines": [{"cards": ["x" * 17]}] * 3},
            {"number": 1, "lines": [{"cards": ["2"] * 61}] * 3},
            {"number": 1, "lines": [line()] * 37},
            {"number": 1, "lines": good, "flip7_choice": "malus"},
            {"number": 1, "lines": good, "flip7_choice": {"minus15": -1}},
            {"number": 1, "lines": [{"cards": "2 3"}] * 3},
            {"number": 1, "lines": [{"cards": [], "bust": True}] * 3},
            [1, 2, 3],
        ]
        for body in bad_bodies:
            refused(
                client.post(f"{API}/{card_id}/rounds", json=body, headers=key(edit_key)),
                422,
                "bad_request",
            )
        refused(
            client.post(f"{API}/{card_id}/rounds", content=b"[", headers=key(edit_key)),
            422,
            "bad_request",
        )
        r = client.post(
            f"{API}/{card_id}/rounds",
            headers=key(edit_key),
            json={"number": 1, "lines": [{"cards": ["2"] * 60}] * 36},
        )
        assert 400 <= r.status_code < 500 and detail(r)["message"]
        too_big = client.post(
            f"{API}/{card_id}/rounds", headers=key(edit_key), content=b" " * 20_000
        )
        refused(too_big, 413, "too_large")
        refused(
            client.put(
                f"{API}/{card_id}/live",
                headers=key(edit_key),
                json={"events": [{"type": "dance"}], "based_on": 0},
            ),
            422,
            "bad_request",
        )
        refused(
            client.put(
                f"{API}/{card_id}/live",
                headers=key(edit_key),
                json={"events": [{"type": "stay", "seat": 0}] * 1001, "based_on": 0},
            ),
            422,
            "bad_request",
        )

        # Wrong line count: the model's to say.
        r = add(client, card_id, edit_key, 1, good[:2])
        assert r.status_code in (400, 422) and detail(r)["message"]

        # Round numbers.
        assert add(client, card_id, edit_key, 1, good).status_code == 201
        assert "round 1 was already entered from another device" in refused(
            add(client, card_id, edit_key, 1, good), 409, "round_exists"
        )
        assert "round 2" in refused(add(client, card_id, edit_key, 3, good), 409, "stale_round")
        refused(
            client.put(
                f"{API}/{card_id}/rounds/5",
                headers=key(edit_key),
                json={"revision": 1, "lines": good},
            ),
            409,
            "stale_round",
        )
        refused(
            client.put(
                f"{API}/{card_id}/rounds/0",
                headers=key(edit_key),
                json={"revision": 1, "lines": good},
            ),
            404,
            "unknown_round",
        )
        refused(
            client.put(
                f"{API}/{card_id}/rounds/x",
                headers=key(edit_key),
                json={"revision": 1, "lines": good},
            ),
            422,
            "bad_request",
        )
        refused(
            client.delete(f"{API}/{card_id}/rounds/1", headers=key(edit_key)), 422, "bad_request"
        )  # no revision
        assert add(client, card_id, edit_key, 2, good).status_code == 201
        refused(
            client.delete(f"{API}/{card_id}/rounds/1?revision=1", headers=key(edit_key)),
            409,
            "stale_round",
        )  # not the last round
        refused(
            client.delete(f"{API}/{card_id}/rounds/2?revision=2", headers=key(edit_key)),
            409,
            "stale_round",
        )  # wrong revision
        assert client.get(f"{API}/{card_id}").json()["version"] == 3

        # The tables' API answers a bad body in the same shape, with its own handler.
        tables = client.post("/api/tables", content=b"{nope").json()["detail"]
        assert tables["code"] == "bad_request" and tables["message"]


# ---------------------------------------------------------------------- two devices


def test_two_devices_editing_one_round(db_url: str) -> None:
    with app_client(db_url) as client:
        card_id, edit_key, _ = create(client)
        first = [line("2"), line("3"), line("4")]
        assert add(client, card_id, edit_key, 1, first).status_code == 201
        # Both devices saw round 1 at revision 1.
        phone = {"revision": 1, "lines": [line("2 5"), line("3"), line("4")]}
        tablet = {"revision": 1, "lines": [line("2"), line("3 9"), line("4")]}
        r = client.put(f"{API}/{card_id}/rounds/1", json=phone, headers=key(edit_key))
        assert r.status_code == 200, r.text
        r = client.put(f"{API}/{card_id}/rounds/1", json=tablet, headers=key(edit_key))
        assert r.status_code == 409, r.text
        d = detail(r)
        assert d["code"] == "stale_round"
        assert d["scorecard"]["totals"] == [7, 3, 4]  # the phone's edit, for the tablet
        assert d["scorecard"]["rounds"][0]["revision"] == 2
        # Nothing was overwritten.
        card = client.get(f"{API}/{card_id}").json()
        assert card["totals"] == [7, 3, 4] and card["version"] == 3
        # Both enter round 2 at once: one wins, the other is told.
        second = add(client, card_id, edit_key, 2, first)
        again = add(client, card_id, edit_key, 2, [line("8"), line("9"), line("10")])
        assert second.status_code == 201 and again.status_code == 409
        assert detail(again)["code"] == "round_exists"
        assert detail(again)["scorecard"]["totals"] == [9, 6, 8]
        # An undo based on an old revision is refused too.
        r = client.delete(
            f"{API}/{card_id}/rounds/1", params={"revision": 1}, headers=key(edit_key)
        )
        assert r.status_code == 409


def test_simultaneous_requests_are_serialised(db_url: str) -> None:
    """Eight devices send round 1 at the same moment: one is stored, seven are told."""
    with app_client(db_url) as client:
        card_id, edit_key, _ = create(client)
        answers: list[Any] = []
        barrier = threading.Barrier(8)

        def device(i: int) -> None:
            barrier.wait()
            answers.append(
                add(client, card_id, edit_key, 1, [line(str(i + 1)), line("11"), line("12")])
            )

        threads = [threading.Thread(target=device, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        codes = sorted(a.status_code for a in answers)
        assert codes == [201] + [409] * 7, [a.text for a in answers]
        winner = next(a for a in answers if a.status_code == 201).json()
        card = client.get(f"{API}/{card_id}").json()
        assert card["version"] == 2 and card["totals"] == winner["totals"]
        for a in answers:
            if a.status_code == 409:
                assert detail(a)["scorecard"]["totals"] == winner["totals"]


def test_the_store_refuses_a_stale_version(db_url: str) -> None:
    """The optimistic check for several server processes on one database."""

    async def scenario() -> None:
        store = await Store.open(database_url(db_url))
        try:
            card = Scorecard.new(PLAYERS)
            now = utcnow()
            await store.write([("scorecard_insert", {
                "id": "abc", "key_hash": "0" * 64, "name": "x", "data": json.dumps(card.to_json()),
                "listing": "{}", "version": 1, "status": "playing", "created_at": now,
                "updated_at": now})])  # fmt: skip
            fields: dict[str, Any] = {
                "data": {"a": 1}, "listing": {}, "status": "playing", "updated_at": now
            }  # fmt: skip
            assert await store.update_scorecard("abc", 1, **fields)
            assert not await store.update_scorecard("abc", 1, **{**fields, "data": {"b": 2}})
            row = await store.scorecard("abc")
            assert row is not None and row.version == 2 and row.data == {"a": 1}
            assert not await store.update_scorecard("zzz", 1, **fields)
        finally:
            await store.close()

    asyncio.run(scenario())


@contextmanager
def _without_lease(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An app that does not take the database lease (which keeps a second ``flip7 serve``
    off a database): what a second server process would be if it could start."""
    open_store = Store.open
    monkeypatch.setattr(
        Store, "open", lambda url, lease_seconds=None, shared=False: open_store(url)
    )
    with app_client(db_url) as client:
        monkeypatch.undo()
        yield client


def test_two_server_processes_on_one_database(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two apps on one database (no shared lock or cache): the version check decides."""
    with app_client(db_url) as a, _without_lease(db_url, monkeypatch) as b:
        card_id, edit_key, _ = create(a)
        assert add(a, card_id, edit_key, 1, [line("2"), line("3"), line("4")]).status_code == 201
        assert b.get(f"{API}/{card_id}").json()["totals"] == [2, 3, 4]
        r = b.put(
            f"{API}/{card_id}/rounds/1",
            headers=key(edit_key),
            json={"revision": 1, "lines": [line("9"), line("3"), line("4")]},
        )
        assert r.status_code == 200
        assert a.get(f"{API}/{card_id}").json() == r.json()  # a's cache is by version

        # b writes between a's read and a's write: a's write is refused, nothing is lost.
        store = services_of(a).lobby.store
        update = store.update_scorecard

        async def racing(scorecard_id: str, old_version: int, **fields: Any) -> bool:
            other = Scorecard.from_json((await store.scorecard(scorecard_id)).data)
            other = other.add_round(["10", "11", "12"])
            theirs = {**fields, "data": other.to_json()}
            assert await update(scorecard_id, old_version, **theirs)
            return bool(await update(scorecard_id, old_version, **fields))

        store.update_scorecard = racing
        r = add(a, card_id, edit_key, 2, [line("5"), line("6"), line("7")])
        store.update_scorecard = update
        assert r.status_code == 409 and detail(r)["code"] == "stale_round"
        assert detail(r)["scorecard"]["totals"] == [19, 14, 16]
        assert b.get(f"{API}/{card_id}").json()["totals"] == [19, 14, 16]


# ---------------------------------------------------------------------- restarts, exports


def test_scorecards_survive_a_restart(db_url: str) -> None:
    with app_client(db_url) as client:
        card_id, edit_key, _ = create(client, rules={"brutal": True})
        first = add(client, card_id, edit_key, 1, [line("2"), line("3"), line("4")])
        assert first.status_code == 201
        r = add(
            client,
            card_id,
            edit_key,
            2,
            [line("1 2 3 4 5 6 8"), line("9"), line("10")],
            flip7_choice={"minus15": 2},
        )
        assert r.status_code == 201, r.text
        before = r.json()
        assert before["totals"] == [31, 12, -1]
    with app_client(db_url) as client:
        after = client.get(f"{API}/{card_id}").json()
        assert after == before
        r = add(client, card_id, edit_key, 3, [line("2"), line("3"), line("4")])
        assert r.status_code == 201 and r.json()["version"] == before["version"] + 1


def test_exports(tmp_path: Path) -> None:
    with app_client(sqlite(tmp_path)) as client:
        card_id, edit_key, _ = create(client, name="Ann's birthday: 2026!")
        add(client, card_id, edit_key, 1, [line("3 11 5 /2"), bust("5 9 5"), line("13 L13")])
        add(client, card_id, edit_key, 2, [line("7"), line("8"), line("9")])
        r = client.get(f"{API}/{card_id}/export.csv")  # read-only: no key
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
        assert r.headers["content-disposition"] == (
            'attachment; filename="flip7-ann-s-birthday-2026.csv"'
        )
        rows = list(csv.reader(io.StringIO(r.text)))
        assert len(rows) >= 3
        assert any("Ann" in cell for cell in rows[0])
        text = r.text
        assert "26" in text and "16" in text and "35" in text  # Ann 9 + 7, Cyd 26 + 9

        r = client.get(f"{API}/{card_id}/export.json")
        assert r.status_code == 200
        assert r.headers["content-disposition"].endswith('.json"')
        card = Scorecard.from_json(r.json())
        assert list(card.totals) == [16, 8, 35]
        assert list(card.totals) == client.get(f"{API}/{card_id}").json()["totals"]


def test_pages_are_served(tmp_path: Path) -> None:
    with app_client(sqlite(tmp_path)) as client:
        for path in ("/scorekeeper", "/scorekeeper/abc123"):
            r = client.get(path)
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        schema = client.get("/openapi.json").json()
        assert f"{API}/{{scorecard_id}}/rounds" in schema["paths"]
        tags = {
            tag for p in schema["paths"].values() for op in p.values() for tag in op.get("tags", [])
        }
        assert "scorekeeper" in tags


# ---------------------------------------------------------------------- live mode


def test_live_mode_gives_advice(db_url: str) -> None:
    with app_client(db_url) as client:
        card_id, edit_key, _ = create(client)
        url = f"{API}/{card_id}/live"

        def card(seat: int, code: str) -> dict[str, Any]:
            return {"type": "card", "seat": seat, "card": code}

        events = [card(0, "10"), card(1, "5"), card(2, "11")]
        r = client.put(url, headers=key(edit_key), json={"events": events, "based_on": 0})
        assert r.status_code == 200, r.text
        summary = r.json()
        assert summary["rounds"] == [] and summary["version"] == 2
        live = summary["live"]
        assert live["revision"] == 1 and live["number"] == 1 and not live["over"]
        assert live["lines"][0] == {"cards": ["10"], "busted": False}
        assert live["to_decide"] == 0
        assert live["draw_pile"]["10"] == 9 and live["cards_left"] == 105
        advice = live["advice"]
        assert advice["seat"] == 0 and advice["recommendation"] == "hit" and advice["reason"]
        assert 0 < advice["p_bust_next"] < 0.2  # 9 tens of 105 cards, and a Swap...
        assert advice["ev_stay"] == 10 and advice["ev_hit"] > 10
        # Everyone can watch it; only the key holder can change it.
        assert client.get(f"{API}/{card_id}").json()["live"] == live
        no_key = client.put(url, json={"events": events, "based_on": 1})
        assert no_key.status_code == 403

        # A second device based on the old revision is refused and gets the live round.
        stale = client.put(url, headers=key(edit_key), json={"events": events[:1], "based_on": 0})
        assert stale.status_code == 409 and detail(stale)["code"] == "stale_round"
        assert detail(stale)["scorecard"]["live"]["events"] == events
        # A card that cannot be there.
        bad = client.put(
            url, headers=key(edit_key), json={"events": [*events, card(0, "14")], "based_on": 1}
        )
        assert bad.status_code == 422 and detail(bad)["code"] == "invalid_event"
        assert "14" in detail(bad)["message"]

        # The round goes on: Ann stays, Bob busts, Cyd draws and stays.
        events += [
            {"type": "stay", "seat": 0},
            card(1, "5"),
            card(2, "12"),
            {"type": "stay", "seat": 2},
        ]
        r = client.put(url, headers=key(edit_key), json={"events": events, "based_on": 1})
        assert r.status_code == 200, r.text
        live = r.json()["live"]
        assert live["over"] and live["advice"] is None and live["revision"] == 2
        assert live["statuses"] == ["stayed", "busted", "stayed"]
        assert live["scores"] == [10, 0, 23]
        # Its final lines are stored as round 1, with its events.
        r = add(client, card_id, edit_key, 1, live["lines"])
        assert r.status_code == 201, r.text
        summary = r.json()
        assert summary["live"] is None and summary["totals"] == [10, 0, 23]
        assert summary["rounds"][0]["live"] is True

        # Round 2 live, then abandoned; abandoning nothing changes nothing.
        r = client.put(url, headers=key(edit_key), json={"events": [card(1, "9")], "based_on": 0})
        assert r.status_code == 200 and r.json()["live"]["number"] == 2
        # The draw pile carries over: the cards of round 1 are in the discard pile.
        assert r.json()["live"]["draw_pile"]["5"] == 3  # five 5s, two drawn in round 1
        r = client.delete(url, headers=key(edit_key))
        assert r.status_code == 200 and r.json()["live"] is None
        version = r.json()["version"]
        r = client.delete(url, headers=key(edit_key))
        assert r.status_code == 200 and r.json()["version"] == version


def test_live_flip_four(db_url: str) -> None:
    """A Flip Four! over the API: the answer says who takes card k of the four (the count
    comes from the server), what was set aside and what to resolve next; the new events
    are checked like the others."""
    from flip7.core.cards import FLIP_FOUR_CARDS

    with app_client(db_url) as client:
        card_id, edit_key, _ = create(client)
        url = f"{API}/{card_id}/live"
        revision = 0

        def put(events: list[dict[str, Any]]) -> Any:
            return client.put(
                url, headers=key(edit_key), json={"events": events, "based_on": revision}
            )

        def card(seat: int, code: str) -> dict[str, Any]:
            return {"type": "card", "seat": seat, "card": code}

        events = [card(0, "5"), card(1, "9"), card(2, "2"), card(0, "FLIP4")]
        r = put(events)
        assert r.status_code == 200, r.text
        revision = r.json()["live"]["revision"]
        flip4 = r.json()["live"]["flip_four"]
        assert flip4["next"] == "play" and flip4["seat"] == 0 and flip4["targets"] == [0, 1, 2]
        assert flip4["cards"] == FLIP_FOUR_CARDS and r.json()["live"]["to_decide"] is None

        events += [{"type": "flip4", "from": 0, "to": 1}, card(1, "-4"), card(1, "3")]
        r = put(events)
        assert r.status_code == 200, r.text
        revision = r.json()["live"]["revision"]
        flip4 = r.json()["live"]["flip_four"]
        assert (flip4["next"], flip4["seat"], flip4["drawn"]) == ("draw", 1, 2)
        assert flip4["set_aside"] == ["-4"]

        # Card 3 of 4 is Bob's: one for Cyd is refused, saying so.
        bad = put([*events, card(2, "4")])
        assert bad.status_code == 422 and detail(bad)["code"] == "invalid_event"
        assert "card 3 of 4 of the Flip Four on Bob goes to Bob, not Cyd" in detail(bad)["message"]

        events += [card(1, "STEAL"), card(1, "4"), {"type": "give", "card": "-4", "from": 1,
                   "to": 2}, {"type": "use", "card": "STEAL", "from": 1},
                   {"type": "move", "card": "5", "from": 0, "to": 1}]  # fmt: skip
        r = put(events)
        assert r.status_code == 200, r.text
        live = r.json()["live"]
        assert live["flip_four"] is None and live["to_decide"] == 1
        assert live["lines"] == [line(), line("9 3 4 5"), line("2 -4")]
        assert live["events"] == events
        revision = live["revision"]

        # The new events have exact keys and seats, like the others.
        for extra in (
            {"type": "flip4", "from": 0},
            {"type": "flip4", "from": 0, "to": 1, "card": "FLIP4"},
            {"type": "give", "card": "-4", "from": 1, "to": 99},
            {"type": "use", "card": "x" * 17, "from": 1},
        ):
            r = put([*events, extra])
            assert r.status_code == 422 and detail(r)["code"] == "bad_request", (extra, r.text)
