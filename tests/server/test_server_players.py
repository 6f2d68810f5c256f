"""Identities (flip7.server.services.players): creation, the key (only its hash stored), transfer to
another device by a one-time code, wrong keys, name limits, rate limits, and seats taken
with a key."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import app_client, services_of

from flip7.server.base.formats import utcnow
from flip7.server.base.settings import database_url
from flip7.server.store.database import Store
from flip7.server.store.players import (
    ClaimRefused,
    Identity,
    NewIdentity,
    TransferCode,
    add_player,
    claim_code,
    games_page,
    key_hashes,
    leaderboard_rows,
    profile_rows,
    rename_player,
    replace_code,
)


def _create(client: Any, name: str = "Ann") -> Any:
    return client.post("/api/players", json={"name": name})


def _player(client: Any, name: str = "Ann") -> dict[str, Any]:
    r = _create(client, name)
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def _key(key: str) -> dict[str, str]:
    return {"X-Player-Key": key}


def _code(response: Any) -> str:
    return str(response.json()["detail"]["code"])


def test_an_identity_is_created_and_only_its_key_hash_is_stored(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with app_client(db) as client:
        ann = _player(client, "  Ann   Lee ")
        assert ann["name"] == "Ann Lee"  # cleaned as any player name
        player_id, dot, secret = ann["key"].partition(".")
        assert player_id == ann["id"] and dot and len(secret) >= 40
        me = client.get("/api/players/me", headers=_key(ann["key"]))
        assert me.status_code == 200, me.text
        assert me.json()["self"] is True and me.json()["id"] == ann["id"]
        assert me.json()["rating"] is None and me.json()["stats"]["games"] == 0
        public = client.get(f"/api/players/{ann['id']}").json()
        assert public["name"] == "Ann Lee" and "self" not in public and "key" not in public
    with sqlite3.connect(db) as conn:
        stored = [row[0] for row in conn.execute("SELECT key_hash FROM player_keys")]
        dump = "\n".join(conn.iterdump())
    assert stored == [hashlib.sha256(ann["key"].encode()).hexdigest()]
    assert secret not in dump


def test_wrong_and_missing_keys(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        ann = _player(client)
        wrong = ann["key"][:-2] + ("AA" if not ann["key"].endswith("AA") else "BB")
        for key in (wrong, "nodot", "x" * 200, f"{'y' * 17}.abc", "unknown.secret"):
            r = client.get("/api/players/me", headers=_key(key))
            assert r.status_code == 401 and _code(r) == "bad_player_key", key
        r = client.get("/api/players/me")
        assert r.status_code == 401 and _code(r) == "no_player_key"
        # A table is not opened (or joined) under a wrong key: never silently anonymous.
        r = client.post("/api/tables", json={"player": "Ann"}, headers=_key(wrong))
        assert r.status_code == 401 and _code(r) == "bad_player_key"
        # Without a key, play stays anonymous.
        r = client.post("/api/tables", json={"player": "Ann"})
        assert r.status_code == 201 and r.json()["table"]["seats"][0]["player_id"] is None
        assert client.get("/api/players/nobody").status_code == 404
        assert _code(client.get("/api/players/" + "z" * 40)) == "no_player"


def test_name_limits(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", player_name_chars=10) as client:
        for bad in ("", "   ", "x" * 11, "a\u202eb"):
            r = _create(client, bad)
            assert r.status_code == 400 and _code(r) == "bad_name", bad
        assert client.post("/api/players", json={"name": 5}).status_code == 422
        assert client.post("/api/players", json={"name": "x" * 201}).status_code == 422
        assert client.post("/api/players", json={}).status_code == 422
        assert client.post("/api/players", json={"name": "A", "x": 1}).status_code == 422
        ann = _player(client, "🦊 Fox")  # characters, not UTF-16 units
        r = client.patch("/api/players/me", json={"name": "Ann"}, headers=_key(ann["key"]))
        assert r.status_code == 200 and r.json()["name"] == "Ann"
        r = client.patch("/api/players/me", json={"name": "y" * 11}, headers=_key(ann["key"]))
        assert r.status_code == 400 and _code(r) == "bad_name"
        assert client.get(f"/api/players/{ann['id']}").json()["name"] == "Ann"


def test_transfer_to_another_device(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", public_url="https://flip7.example.org") as client:
        service = services_of(client).players
        ann = _player(client)
        r = client.post("/api/players/me/transfer", headers=_key(ann["key"]))
        assert r.status_code == 201, r.text
        code = r.json()["code"]
        assert len(code) == 10 and r.json()["url"] == f"https://flip7.example.org/link/{code}"
        # Typed on the other device with spaces, a dash and small letters: the same code.
        typed = f" {code[:5].lower()}-{code[5:]} "
        r = client.post("/api/players/claim", json={"code": typed})
        assert r.status_code == 200, r.text
        second = r.json()
        assert second["id"] == ann["id"] and second["name"] == "Ann"
        assert second["key"] != ann["key"]  # a key of its own
        for key in (ann["key"], second["key"]):  # both devices work
            assert client.get("/api/players/me", headers=_key(key)).json()["id"] == ann["id"]
        # Used once only.
        r = client.post("/api/players/claim", json={"code": code})
        assert r.status_code == 404 and _code(r) == "bad_code"
        # Wrong codes, and codes that are no codes at all, say the same.
        for wrong in ("AAAAAAAAAA", "short", "0000000000", "ÄÄÄÄÄÄÄÄÄÄ"):
            assert _code(client.post("/api/players/claim", json={"code": wrong})) == "bad_code"
        # A new code replaces the one before; a code expires after 15 minutes.
        first = client.post("/api/players/me/transfer", headers=_key(ann["key"])).json()
        later = client.post("/api/players/me/transfer", headers=_key(second["key"])).json()
        assert _code(client.post("/api/players/claim", json={"code": first["code"]})) == (
            "bad_code")
        start = utcnow()
        service.now = lambda: start + timedelta(minutes=16)
        r = client.post("/api/players/claim", json={"code": later["code"]})
        assert r.status_code == 404 and _code(r) == "bad_code"
        service.now = utcnow
        # Asking for a code needs the key.
        assert client.post("/api/players/me/transfer").status_code == 401


def test_rate_limits_per_address(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", players_burst=2, players_per_minute=1,
                    claims_burst=3, claims_per_minute=1, transfer_codes_burst=1,
                    transfer_codes_per_minute=1) as client:
        ann = _player(client)
        _player(client, "Bob")
        r = _create(client, "Cyd")
        assert r.status_code == 429 and _code(r) == "rate_limited"
        assert "players_per_minute" in r.json()["detail"]["message"]
        assert int(r.headers["Retry-After"]) > 0
        code = client.post("/api/players/me/transfer", headers=_key(ann["key"])).json()["code"]
        r = client.post("/api/players/me/transfer", headers=_key(ann["key"]))
        assert r.status_code == 429 and "transfer_codes_per_minute" in r.text
        # Guesses count, and once over, even the right code waits.
        for _ in range(3):
            assert _code(client.post("/api/players/claim", json={"code": "AAAAAAAAAA"})) == (
                "bad_code")
        r = client.post("/api/players/claim", json={"code": code})
        assert r.status_code == 429 and "claims_per_minute" in r.text


def test_seats_taken_with_a_key_count_for_the_identity(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with app_client(db) as client:
        ann, bob = _player(client, "Ann"), _player(client, "Bob")
        r = client.post("/api/tables", json={"player": "Ann"}, headers=_key(ann["key"]))
        assert r.status_code == 201, r.text
        table = r.json()["table"]
        assert table["seats"][0]["player_id"] == ann["id"] and table["rated"] is True
        url = f"/api/tables/{table['id']}/join"
        r = client.post(url, json={"player": "Bob"}, headers=_key(bob["key"]))
        assert r.status_code == 200 and r.json()["table"]["seats"][1]["player_id"] == bob["id"]
        # One seat per identity at a table.
        r = client.post(url, json={"player": "Ann 2"}, headers=_key(ann["key"]))
        assert r.status_code == 409 and _code(r) == "already_seated"
        r = client.post(url, json={"player": "Cyd"})
        assert r.json()["table"]["seats"][2]["player_id"] is None  # anonymous
        r = client.post(url, json={"player": "Dan"}, headers=_key("x.y"))
        assert r.status_code == 401
    with app_client(db) as client:  # a restart rebuilds the seats from the log
        seats = client.get(f"/api/tables/{table['id']}").json()["table"]["seats"]
        assert [s["player_id"] for s in seats[:3]] == [ann["id"], bob["id"], None]


def test_the_identity_rows_on_sqlite_and_postgresql(db_url: str) -> None:
    """The store's typed calls behind identities (flip7.server.store.players): a code
    refused because its identity has too many keys stays unused, and is used once."""

    async def scenario() -> None:
        store = await Store.open(database_url(db_url))
        try:
            now = utcnow()
            await add_player(store, NewIdentity("p1", "Ann", "h0", now))
            assert await key_hashes(store, "p1") == ["h0"]
            assert await key_hashes(store, "nobody") == []
            await rename_player(store, "p1", "Annie", now)
            code = TransferCode("c1", "p1", now, now + timedelta(minutes=15))
            await replace_code(store, code)
            assert await claim_code(store, "wrong", now, 20, lambda p: "x") is (
                ClaimRefused.BAD_CODE)
            # One key allowed and one held: refused, and the code stays unused.
            assert await claim_code(store, "c1", now, 1, lambda p: "x") is (
                ClaimRefused.TOO_MANY_KEYS)
            assert await key_hashes(store, "p1") == ["h0"]
            claimed = await claim_code(store, "c1", now, 20, lambda p: f"h-{p}")
            assert claimed == Identity("p1", "Annie")
            assert sorted(await key_hashes(store, "p1")) == ["h-p1", "h0"]
            assert await claim_code(store, "c1", now, 20, lambda p: "y") is (
                ClaimRefused.BAD_CODE)  # used once only
            # A new code replaces an unused one; an expired code is refused.
            await replace_code(store, TransferCode("c2", "p1", now, now + timedelta(minutes=15)))
            await replace_code(store, TransferCode("c3", "p1", now, now + timedelta(minutes=15)))
            assert await claim_code(store, "c2", now, 20, lambda p: "z") is ClaimRefused.BAD_CODE
            late = now + timedelta(minutes=16)
            assert await claim_code(store, "c3", late, 20, lambda p: "z") is ClaimRefused.BAD_CODE
            profile = await profile_rows(store, "p1", games=10, history=10)
            assert profile is not None and profile.name == "Annie"
            assert profile.rating is None and profile.games == [] and profile.history == []
            assert await profile_rows(store, "nobody", games=10, history=10) is None
            page = await games_page(store, "p1", 0, 20)
            assert page is not None and page.total == 0 and page.games == []
            assert await games_page(store, "nobody", 0, 20) is None
            board = await leaderboard_rows(store, 10, settled_sigma=6.0)
            assert board.players == [] and board.bots == []
        finally:
            await store.close()

    asyncio.run(scenario())
