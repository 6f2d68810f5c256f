"""Ratings (flip7.server.services.ratings): a rated game updates its identities' and its bot level's
ratings exactly once; house-rule tables are unrated by default; the leaderboard; a game's
summary; a game whose results a dead process left unwritten; PostgreSQL."""

from __future__ import annotations

import asyncio
import random
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("openskill")

import sqlalchemy as sa
from server_helpers import app_client, auth, choose, connect, play_to_end, services_of

from flip7.analysis.stats import game_stats
from flip7.core.rules import Rules
from flip7.server.base.formats import utcnow
from flip7.server.services.ratings import MU, SETTLED_SIGMA, SIGMA, display, ranks
from flip7.server.store.database import game_results, ratings
from flip7.server.table.options import NEUTRAL_OPTIONS, rated_by_default

SHORT = {"target_score": 30}
# Short games may be rated here (the tests' games are short to be quick), and each player
# comes from an address of their own (X-Test-Address): identities that joined from one
# address block do not rate each other.
QUICK: dict[str, Any] = {"rated_min_target_score": 30, "test_addresses": True}
ANN_ADDRESS, BOB_ADDRESS = "198.51.100.7", "203.0.113.9"


def _player(client: Any, name: str) -> dict[str, Any]:
    r = client.post("/api/players", json={"name": name})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def _key(key: str, address: str | None = None) -> dict[str, str]:
    return {"X-Player-Key": key, **({"X-Test-Address": address} if address else {})}


def _rated_game(client: Any, *, rated: bool | None = True, rules: dict[str, Any] | None = None,
                seed: int = 3) -> tuple[dict[str, Any], dict[str, Any], str]:
    """Ann and Bob (identities) and an Easy bot play a short game to the end: (Ann, Bob,
    the game's id)."""
    ann, bob = _player(client, "Ann"), _player(client, "Bob")
    body: dict[str, Any] = {"player": "Ann", "seats": 3, "rules": rules or SHORT}
    if rated is not None:
        body["rated"] = rated
    r = client.post("/api/tables", json=body, headers=_key(ann["key"], ANN_ADDRESS))
    assert r.status_code == 201, r.text
    table_id, ann_token = r.json()["table"]["id"], r.json()["token"]
    r = client.post(f"/api/tables/{table_id}/join", json={"player": "Bob"},
                    headers=_key(bob["key"], BOB_ADDRESS))
    bob_token = r.json()["token"]
    r = client.post(f"/api/tables/{table_id}/bots", json={"bot": "Easy"}, headers=auth(ann_token))
    assert r.status_code == 200, r.text
    with ExitStack() as stack:
        players = [connect(client, stack, table_id, t) for t in (ann_token, bob_token)]
        r = client.post(f"/api/tables/{table_id}/start", headers=auth(ann_token))
        assert r.status_code == 200, r.text
        play_to_end(players, random.Random(seed))
        game_id = players[0].state["game_id"]
    return ann, bob, game_id


def _record(client: Any, game_id: str) -> dict[str, Any]:
    r = client.get(f"/api/games/{game_id}/record")
    assert r.status_code == 200
    record: dict[str, Any] = r.json()
    return record


def _expected(totals: list[int]) -> list[tuple[float, float]]:
    """What OpenSkill's Plackett-Luce makes of a first game of three newcomers."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = [[model.rating(mu=MU, sigma=SIGMA)] for _ in totals]
    rated = model.rate(teams, ranks=[float(r) for r in ranks(totals)])
    return [(float(t[0].mu), float(t[0].sigma)) for t in rated]


def _check_rated_game(client: Any) -> None:
    ann, bob, game_id = _rated_game(client)
    record = _record(client, game_id)
    totals = [s.total for s in game_stats(record).seats]
    expected = _expected(totals)
    summary = client.get(f"/api/games/{game_id}/summary").json()
    assert summary["rated"] is True and [s["name"] for s in summary["seats"]] == [
        "Ann", "Bob", "Eddie (Easy bot)"]
    assert [s["player_id"] for s in summary["seats"]] == [ann["id"], bob["id"], None]
    assert summary["seats"][2]["bot"] == "Easy"
    for seat, (mu, sigma) in zip(summary["seats"], expected, strict=True):
        assert seat["rating"] == {"before": 1000, "after": display(mu),
                                  "delta": display(mu) - 1000,
                                  "provisional": sigma > SETTLED_SIGMA}
        assert seat["unrated_because"] is None
    board = client.get("/api/leaderboard").json()
    by_id = {p["id"]: p for p in board["players"]}
    for seat, person in ((0, ann), (1, bob)):
        entry = by_id[person["id"]]
        assert entry["games"] == 1 and entry["mu"] == round(expected[seat][0], 4)
        assert entry["wins"] == int(summary["seats"][seat]["winner"])
    (easy,) = board["bots"]
    assert easy["level"] == "Easy" and easy["games"] == 1
    assert easy["mu"] == round(expected[2][0], 4) and easy["sigma"] == round(expected[2][1], 4)
    # The winner's mu went up, the last one's down.
    order = sorted(range(3), key=lambda s: -totals[s])
    assert expected[order[0]][0] > MU > expected[order[-1]][0]
    # Ann's profile and history.
    profile = client.get(f"/api/players/{ann['id']}").json()
    assert profile["rating"]["games"] == 1 and profile["stats"]["games"] == 1
    assert profile["rating_history"] == [{
        "game_id": game_id, "at": profile["rating_history"][0]["at"],
        "display": display(expected[0][0]), "delta": display(expected[0][0]) - 1000}]
    games = client.get(f"/api/players/{ann['id']}/games").json()
    assert games["total"] == 1 and games["games"][0]["game_id"] == game_id
    assert games["games"][0]["rated"] is True
    assert games["games"][0]["rating_delta"] == display(expected[0][0]) - 1000
    assert [p["total"] for p in games["games"][0]["players"]] == totals
    # Exactly once: the game's results are written already, by whichever try came first.
    results = services_of(client).results
    assert client.portal.call(results.settle, game_id) is False
    assert client.portal.call(results.sweep) == 0
    again = client.get("/api/leaderboard").json()
    assert again == board


def test_a_rated_game_updates_both_players_and_the_bot_level(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", seed=11, **QUICK) as client:
        _check_rated_game(client)


def test_the_rating_update_on_postgresql(pg_url: str) -> None:
    with app_client(pg_url, seed=11, **QUICK) as client:
        _check_rated_game(client)
        # Many tries at once (other processes: a sweep, a retry) write a game's results once.
        game_id = client.get("/api/games").json()["games"][0]["id"]
        results = services_of(client).results

        async def delete_and_race() -> list[bool]:
            async with results.store.engine.begin() as conn:
                await conn.execute(game_results.delete())
                await conn.execute(sa.text("DELETE FROM rating_history"))
                await conn.execute(sa.text("DELETE FROM player_games"))
            return list(await asyncio.gather(*(results.settle(game_id) for _ in range(4))))

        assert sorted(client.portal.call(delete_and_race)) == [False, False, False, True]


def test_house_rule_tables_are_unrated_by_default(tmp_path: Path) -> None:
    assert {o.name for o in Rules.options()} >= NEUTRAL_OPTIONS
    assert rated_by_default(Rules()) and rated_by_default(Rules(allow_two_players=True))
    assert not rated_by_default(Rules(tie_break="shared_win"))
    with app_client(tmp_path / "db.sqlite") as client:

        def rated(**body: Any) -> bool:
            r = client.post("/api/tables", json={"player": "Ann", **body})
            assert r.status_code == 201, r.text
            return bool(r.json()["table"]["rated"])

        assert rated() is True
        assert rated(rules={"allow_two_players": True}) is True
        assert rated(rules={"brutal": True}) is False
        assert rated(rules={"target_score": 100}) is False
        assert rated(rules={"brutal": True}, rated=True) is True  # when asked
        assert rated(rated=False) is False
        r = client.post("/api/tables", json={"player": "Ann", "rated": "yes"})
        assert r.status_code == 422
        r = client.post("/api/tutorial", json={"player": "Ann"})
        assert r.json()["table"]["rated"] is False  # never
        assert all("rated" in t for t in client.get("/api/tables").json()["tables"])
        # A game at an unrated table changes no rating, and is in its players' history.
        ann, _bob, game_id = _rated_game(client, rated=None)
        assert client.get(f"/api/games/{game_id}/summary").json()["rated"] is False
        assert all(s["rating"] is None
                   for s in client.get(f"/api/games/{game_id}/summary").json()["seats"])
        assert client.get("/api/leaderboard").json() == {"players": [], "bots": []}
        games = client.get(f"/api/players/{ann['id']}/games").json()
        assert games["total"] == 1 and games["games"][0]["rated"] is False
        assert games["games"][0]["rating_delta"] is None
        assert client.get(f"/api/players/{ann['id']}").json()["rating"] is None


def test_the_leaderboard_order(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        people = [_player(client, name) for name in ("Ann", "Bob", "Cyd", "Dan")]
        # (mu, sigma): settled by mean, Bob 30, Ann 25, Cyd 22 (Dan has no rated game).
        figures = [(25.0, 2.0), (30.0, 5.0), (22.0, 0.5), (40.0, 1.0)]
        store = services_of(client).lobby.store

        async def seed() -> None:
            async with store.engine.begin() as conn:
                await conn.execute(ratings.insert(), [
                    {"kind": "player", "ref": p["id"], "mu": mu, "sigma": sigma,
                     "games": 0 if p["name"] == "Dan" else 3, "wins": 1, "updated_at": utcnow()}
                    for p, (mu, sigma) in zip(people, figures, strict=True)
                ] + [{"kind": "bot", "ref": level, "mu": mu, "sigma": 1.0, "games": 5,
                      "wins": 2, "updated_at": utcnow()}
                     for level, mu in (("Easy", 20.0), ("Hard", 30.0))])

        client.portal.call(seed)
        board = client.get("/api/leaderboard").json()
        assert [(p["rank"], p["name"], p["display"]) for p in board["players"]] == [
            (1, "Bob", display(30.0)), (2, "Ann", display(25.0)), (3, "Cyd", display(22.0))]
        assert not any(p["provisional"] for p in board["players"])
        assert [b["level"] for b in board["bots"]] == ["Hard", "Easy"]
        assert [p["name"] for p in client.get("/api/leaderboard?limit=1").json()["players"]] == [
            "Bob"]
        for bad in ("0", "101", "x", "-1"):
            r = client.get(f"/api/leaderboard?limit={bad}")
            assert r.status_code == 400 and r.json()["detail"]["code"] == "bad_limit"


def test_the_summary_figures(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", seed=5, **QUICK) as client:
        ann, _bob, game_id = _rated_game(client, seed=2)
        stats = game_stats(_record(client, game_id))
        summary = client.get(f"/api/games/{game_id}/summary").json()
        assert summary["game_id"] == game_id and summary["rounds"] == stats.rounds
        for seat, figures in zip(summary["seats"], stats.seats, strict=True):
            expected = figures.to_json()
            assert seat["total"] == figures.total and seat["winner"] == figures.winner
            for key, value in seat["stats"].items():
                assert value == expected[key], key
        # The profile sums the same figures.
        profile = client.get(f"/api/players/{ann['id']}").json()["stats"]
        assert profile["rounds"] == stats.seats[0].rounds
        assert profile["attack_points_given"] == stats.seats[0].attack_points_given
        assert profile["flip7s"] == stats.seats[0].flip7s
        r = client.get("/api/games/nope/summary")
        assert r.status_code == 404 and r.json()["detail"]["code"] == "no_game"
        for bad in ("-1", "x", "51"):
            r = client.get(f"/api/players/{ann['id']}/games?limit={bad}")
            assert r.status_code == 400
        assert client.get(f"/api/players/{ann['id']}/games?offset=5").json()["games"] == []


def test_a_game_not_over_has_no_summary(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        r = client.post("/api/tables", json={"player": "Ann", "seats": 3})
        table_id, token = r.json()["table"]["id"], r.json()["token"]
        for _ in range(2):
            client.post(f"/api/tables/{table_id}/bots", json={"bot": "Easy"}, headers=auth(token))
        client.post(f"/api/tables/{table_id}/start", headers=auth(token))
        game_id = client.get(f"/api/tables/{table_id}").json()["table"]["game_id"]
        r = client.get(f"/api/games/{game_id}/summary")
        assert r.status_code == 409 and r.json()["detail"]["code"] == "not_over"


def test_results_left_unwritten_are_written_by_the_sweep(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with app_client(db, seed=7, **QUICK) as client:
        lobby = services_of(client).lobby
        lobby.on_finish = None  # as if the process died right after the game's finish
        ann, _bob, game_id = _rated_game(client)
        assert client.get(f"/api/players/{ann['id']}").json()["rating"] is None
    with app_client(db, **QUICK) as client:  # the next start's sweep writes them
        results = services_of(client).results
        client.portal.call(results.sweep)
        assert client.get(f"/api/games/{game_id}/summary").json()["rated"] is True
        assert client.get(f"/api/players/{ann['id']}").json()["rating"]["games"] == 1


def test_two_processes_rate_a_game_once(pg_url: str, redis_url: str) -> None:
    """Many processes: Bob joins through the process that does not run the table (his key
    is checked there, his identity goes with the forwarded call); the game's results are
    written once, and both processes read the same ratings."""
    import httpx
    from cluster_helpers import LOOSE, ClusterClient
    from server_helpers import ServerProcess

    # Short games rated; Ann at 127.0.0.1, Bob at 127.0.0.2: two networks at /32.
    quick = ["--limit", "rated_min_target_score=30", "--limit", "rating_network_ipv4_prefix=32"]
    bob_http = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"))
    servers = [ServerProcess(pg_url, seed=7, extra_args=["--redis", redis_url, *LOOSE, *quick])
               for _ in range(2)]
    try:
        for server in servers:
            server.start()
        a, b = (s.url for s in servers)
        ann = httpx.post(a + "/api/players", json={"name": "Ann"}).json()
        bob = httpx.post(b + "/api/players", json={"name": "Bob"}).json()
        made = httpx.post(a + "/api/tables", headers=_key(ann["key"]), json={
            "player": "Ann", "seats": 3, "rules": SHORT, "rated": True})
        table_id, ann_token = made.json()["table"]["id"], made.json()["token"]
        joined = bob_http.post(b + f"/api/tables/{table_id}/join", json={"player": "Bob"},
                               headers=_key(bob["key"]))
        assert joined.status_code == 200, joined.text
        assert joined.json()["table"]["seats"][1]["player_id"] == bob["id"]
        wrong = httpx.post(b + f"/api/tables/{table_id}/join", json={"player": "Cyd"},
                           headers=_key(bob["key"] + "x"))
        assert wrong.status_code == 401
        bob_token = joined.json()["token"]
        httpx.post(b + f"/api/tables/{table_id}/bots", json={"bot": "Easy"},
                   headers=auth(bob_token))
        clients = {0: ClusterClient(a, table_id, ann_token),
                   1: ClusterClient(b, table_id, bob_token)}
        started = httpx.post(b + f"/api/tables/{table_id}/start", headers=auth(bob_token))
        assert started.status_code == 200, started.text
        for client in clients.values():
            client.until_version(started.json()["table"]["version"])
        rng = random.Random(1)
        moves = 0
        while not clients[0].state["game"]["over"]:
            game, version = clients[0].state["game"], clients[0].state["version"]
            mover = clients.get(game["to_decide"])
            if mover is not None and mover.state["version"] == version:
                moves += 1
                mover.send({"v": 1, "type": "move", "id": f"m{moves}", "version": version,
                            "decision": choose(mover.state["game"], rng)})
            for client in clients.values():
                client.until_version(version + 1, timeout=20)
            assert moves < 2000
        game_id = clients[0].state["game_id"]
        summaries = [httpx.get(url + f"/api/games/{game_id}/summary").json() for url in (a, b)]
        assert summaries[0] == summaries[1] and summaries[0]["rated"] is True
        assert all(s["rating"] is not None for s in summaries[0]["seats"])
        boards = [httpx.get(url + "/api/leaderboard").json() for url in (a, b)]
        assert boards[0] == boards[1]
        assert sorted(p["name"] for p in boards[0]["players"]) == ["Ann", "Bob"]
        assert [(x["level"], x["games"]) for x in boards[0]["bots"]] == [("Easy", 1)]
        assert all(p["games"] == 1 for p in boards[0]["players"])
        for client in clients.values():
            client.ws.close()
    finally:
        bob_http.close()
        for server in servers:
            server.stop()
