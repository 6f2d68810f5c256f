"""Ratings cannot be farmed (issue 28, finding 4): a rated table plays to the rules'
length (a one-point table is refused as rated); a pair of entrants, two identities or an
identity and a bot level, is rated a few times a day at most; identities seated from one
address block do not rate each other; the number shown is the mean, which does not climb
for a player who loses, and is marked provisional until it is settled.

Against the code before this change each of these was an attack that worked: a rated
table with ``target_score`` 1 was created (201) and its games rated; every game of one
pair, and every game of one identity against a bot level, moved both ratings; two
identities from one address rated each other; and the shown ``mu - 3 sigma`` rose for a
player who lost every game (see :func:`test_the_shown_rating_does_not_climb_by_itself`).
"""

from __future__ import annotations

import random
from contextlib import ExitStack
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("openskill")

import sqlalchemy as sa
from server_helpers import app_client, auth, connect, play_to_end, services_of
from test_server_ratings import QUICK, SHORT, _key, _player

from flip7.server.base.formats import utcnow
from flip7.server.services.ratings import (
    MU,
    SETTLED_SIGMA,
    SIGMA,
    Entrant,
    display,
    rate,
)
from flip7.server.store.database import game_results, player_games, rating_history, ratings
from flip7.server.store.ratings import RatingKey, Skill

TWO = {**SHORT, "allow_two_players": True}
# Where the players of these tests come from: two networks, and a third address in Ann's
# IPv4 /24 (and two in one IPv6 /48).
ANN_AT, BOB_AT, ANN_NEIGHBOUR = "198.51.100.7", "203.0.113.9", "198.51.100.200"


def _game(
    client: Any, people: list[tuple[dict[str, Any], str]], bots: tuple[str, ...] = (),
    rules: dict[str, Any] | None = None, seed: int = 1,
) -> str:
    """``people`` (an identity and the address it plays from, each) and ``bots`` (levels)
    play a rated game to its end at a new table; the game's id."""
    (first, first_at), *others = people
    r = client.post("/api/tables", headers=_key(first["key"], first_at), json={
        "player": first["name"], "seats": len(people) + len(bots), "rules": rules or SHORT,
        "rated": True})
    assert r.status_code == 201, r.text
    table_id, tokens = r.json()["table"]["id"], [r.json()["token"]]
    for person, at in others:
        r = client.post(f"/api/tables/{table_id}/join", json={"player": person["name"]},
                        headers=_key(person["key"], at))
        assert r.status_code == 200, r.text
        tokens.append(r.json()["token"])
    for level in bots:
        r = client.post(f"/api/tables/{table_id}/bots", json={"bot": level},
                        headers=auth(tokens[0]))
        assert r.status_code == 200, r.text
    with ExitStack() as stack:
        players = [connect(client, stack, table_id, token) for token in tokens]
        r = client.post(f"/api/tables/{table_id}/start", headers=auth(tokens[0]))
        assert r.status_code == 200, r.text
        play_to_end(players, random.Random(seed))
        game_id: str = players[0].state["game_id"]
    return game_id


def _summary(client: Any, game_id: str) -> dict[str, Any]:
    summary: dict[str, Any] = client.get(f"/api/games/{game_id}/summary").json()
    return summary


def _rating(client: Any, kind: str, ref: str) -> dict[str, Any] | None:
    board = client.get("/api/leaderboard").json()
    rows = board["players"] if kind == "player" else board["bots"]
    for row in rows:
        if row.get("id" if kind == "player" else "level") == ref:
            found: dict[str, Any] = row
            return found
    return None


def test_a_one_point_table_is_not_rated(tmp_path: Path) -> None:
    """The farm of the issue: a rated table with target_score 1. Asking for it is a clear
    400; without asking such a table is unrated; the rules' own length is rated."""
    with app_client(tmp_path / "db.sqlite") as client:
        limits = client.get("/api/limits").json()
        assert limits["rated_min_target_score"] == 200
        assert limits["rated_games_per_pair_per_day"] == 5
        for target in (1, 30, 199):
            r = client.post("/api/tables", json={
                "player": "Ann", "rules": {"target_score": target}, "rated": True})
            assert r.status_code == 400, r.text
            detail = r.json()["detail"]
            assert detail["code"] == "unratable"
            assert "rated_min_target_score" in detail["message"]
            r = client.post("/api/tables", json={"player": "Ann",
                                                 "rules": {"target_score": target}})
            assert r.status_code == 201 and r.json()["table"]["rated"] is False
        for body in ({}, {"rated": True}, {"rules": {"target_score": 300}, "rated": True}):
            r = client.post("/api/tables", json={"player": "Ann", **body})
            assert r.status_code == 201 and r.json()["table"]["rated"] is True, body


def test_a_short_game_is_not_rated_when_it_is_written(tmp_path: Path) -> None:
    """A game whose table was rated under a lower floor (an older server, an operator's
    limit since raised) is held to the floor when its results are written."""
    with app_client(tmp_path / "db.sqlite", seed=3, **QUICK) as client:
        ann, bob = _player(client, "Ann"), _player(client, "Bob")
        game_id = _game(client, [(ann, ANN_AT), (bob, BOB_AT)], ("Easy",))
        assert _summary(client, game_id)["rated"] is True
        results = services_of(client).results

        async def unwrite() -> None:
            async with results.store.engine.begin() as conn:
                for table in (game_results, rating_history, player_games, ratings):
                    await conn.execute(table.delete())

        client.portal.call(unwrite)
        results.settings = replace(results.settings, rated_min_target_score=200)
        assert client.portal.call(results.settle, game_id) is True
        summary = _summary(client, game_id)
        assert summary["rated"] is False and all(s["rating"] is None for s in summary["seats"])
        assert client.get("/api/leaderboard").json() == {"players": [], "bots": []}


def test_a_pair_is_rated_a_few_times_a_day(tmp_path: Path) -> None:
    """Ann and Bob, from two networks, play on past their daily limit: the games go on,
    their ratings stop moving (and the end screen and their histories say why) until a
    day has gone by."""
    with app_client(tmp_path / "db.sqlite", seed=4, rated_games_per_pair_per_day=2,
                    **QUICK) as client:
        ann, bob = _player(client, "Ann"), _player(client, "Bob")
        pair = [(ann, ANN_AT), (bob, BOB_AT)]
        for seed in (1, 2):
            assert _summary(client, _game(client, pair, rules=TWO, seed=seed))["rated"] is True
        before = client.get("/api/leaderboard").json()
        assert [p["games"] for p in before["players"]] == [2, 2]
        for seed in (3, 4):
            game_id = _game(client, pair, rules=TWO, seed=seed)
            summary = _summary(client, game_id)
            assert summary["rated"] is False
            assert [(s["rating"], s["unrated_because"]) for s in summary["seats"]] == [
                (None, "pair_limit"), (None, "pair_limit")]
        assert client.get("/api/leaderboard").json() == before
        games = client.get(f"/api/players/{ann['id']}/games").json()["games"]
        assert [(g["rated"], g["unrated_because"]) for g in games] == [
            (False, "pair_limit"), (False, "pair_limit"), (True, None), (True, None)]
        # Another partner is a pair of its own.
        cyd = _player(client, "Cyd")
        game_id = _game(client, [(ann, ANN_AT), (cyd, "192.0.2.5")], rules=TWO, seed=5)
        assert all(s["rating"] is not None for s in _summary(client, game_id)["seats"])
        # A day later the pair counts afresh.
        results = services_of(client).results
        results.now = lambda: utcnow() + timedelta(days=1, minutes=1)
        game_id = _game(client, pair, rules=TWO, seed=6)
        assert all(s["rating"] is not None for s in _summary(client, game_id)["seats"])


def test_one_network_does_not_rate_itself(tmp_path: Path) -> None:
    """Two identities seated from one address block (an IPv4 /24, an IPv6 /48) do not
    rate each other: alone at a table they rate nobody; beside a bot level one of them is
    left out, and the other is rated against the bot."""
    with app_client(tmp_path / "db.sqlite", seed=5, **QUICK) as client:
        ann, puppet = _player(client, "Ann"), _player(client, "Puppet")
        for at, other_at in ((ANN_AT, ANN_AT), (ANN_AT, ANN_NEIGHBOUR),
                             ("2001:db8:7:1::1", "2001:db8:7:ff::2")):
            game_id = _game(client, [(ann, at), (puppet, other_at)], rules=TWO)
            summary = _summary(client, game_id)
            assert summary["rated"] is False, (at, other_at)
            assert [s["unrated_because"] for s in summary["seats"]] == ["same_network"] * 2
        assert client.get("/api/leaderboard").json() == {"players": [], "bots": []}
        record = client.get(f"/api/games/{game_id}/record").json()
        assert record["meta"]["same_network"] == [[0, 1]]
        assert "2001" not in str(record)  # which seats, never the address
        game_id = _game(client, [(ann, ANN_AT), (puppet, ANN_NEIGHBOUR)], ("Easy",))
        summary = _summary(client, game_id)
        assert summary["rated"] is True
        people = summary["seats"][:2]
        assert sorted(s["rating"] is None for s in people) == [False, True]
        assert [s["unrated_because"] for s in people if s["rating"] is None] == ["same_network"]
        assert summary["seats"][2]["rating"] is not None  # the bot level, against the other
        board = client.get("/api/leaderboard").json()
        assert len(board["players"]) == 1 and board["bots"][0]["games"] == 1
        # From two networks they rate each other.
        game_id = _game(client, [(ann, ANN_AT), (puppet, BOB_AT)], rules=TWO)
        assert all(s["rating"] is not None for s in _summary(client, game_id)["seats"])


def test_a_bot_levels_rating_is_not_farmed_by_one_identity(tmp_path: Path) -> None:
    """Alone against two Beginner bots, game after game: the level's public rating (and
    the player's) moves for the first games of the day only; another player still moves
    it."""
    with app_client(tmp_path / "db.sqlite", seed=6, rated_games_per_pair_per_day=2,
                    **QUICK) as client:
        ann = _player(client, "Ann")
        for seed in range(4):
            _game(client, [(ann, ANN_AT)], ("Beginner", "Beginner"), seed=seed)
        beginner = _rating(client, "bot", "Beginner")
        assert beginner is not None and beginner["games"] == 2
        mine = _rating(client, "player", ann["id"])
        assert mine is not None and mine["games"] == 2
        games = client.get(f"/api/players/{ann['id']}/games").json()["games"]
        assert [g["unrated_because"] for g in games] == ["pair_limit", "pair_limit", None, None]
        bob = _player(client, "Bob")
        game_id = _game(client, [(bob, BOB_AT)], ("Beginner",), rules=TWO)
        assert all(s["rating"] is not None for s in _summary(client, game_id)["seats"])
        beginner = _rating(client, "bot", "Beginner")
        assert beginner is not None and beginner["games"] == 3
        # Ann, Bob, a Beginner and an Easy bot: the pair Ann and Beginner is used up, so the
        # level is left out (a bot level before an identity) and the others are rated.
        game_id = _game(client, [(ann, ANN_AT), (bob, BOB_AT)], ("Beginner", "Easy"), seed=9)
        seats = _summary(client, game_id)["seats"]
        assert [s["rating"] is not None for s in seats] == [True, True, False, True]
        beginner = _rating(client, "bot", "Beginner")
        assert beginner is not None and beginner["games"] == 3


def test_the_provisional_mark(tmp_path: Path) -> None:
    """A rating is provisional until its sigma is down to SETTLED_SIGMA: so marked on the
    leaderboard, the profile and the end screen, and listed after every settled one
    whatever its mean."""
    with app_client(tmp_path / "db.sqlite", seed=7, **QUICK) as client:
        ann, bob = _player(client, "Ann"), _player(client, "Bob")
        game_id = _game(client, [(ann, ANN_AT), (bob, BOB_AT)], ("Easy",))
        assert all(s["rating"]["provisional"] is True for s in _summary(client, game_id)["seats"])
        profile = client.get(f"/api/players/{ann['id']}").json()
        assert profile["rating"]["provisional"] is True
        board = client.get("/api/leaderboard").json()
        assert all(p["provisional"] for p in board["players"] + board["bots"])
        # Cyd, settled at a lower mean, goes above the provisional ones.
        cyd = _player(client, "Cyd")
        store = services_of(client).lobby.store

        async def settle_cyd() -> None:
            async with store.engine.begin() as conn:
                await conn.execute(ratings.insert().values(
                    kind="player", ref=cyd["id"], mu=20.0, sigma=SETTLED_SIGMA, games=40,
                    wins=5, updated_at=utcnow()))
                await conn.execute(ratings.update().where(ratings.c.ref == ann["id"])
                                   .values(mu=35.0))

        client.portal.call(settle_cyd)
        board = client.get("/api/leaderboard").json()
        assert [(p["name"], p["provisional"]) for p in board["players"]] == [
            ("Cyd", False), ("Ann", True), ("Bob", True)]
        assert [p["rank"] for p in board["players"]] == [1, 2, 3]
        assert board["players"][0]["display"] == display(20.0) == 800
        profile = client.get(f"/api/players/{cyd['id']}").json()
        assert profile["rating"]["provisional"] is False


def _people(count: int) -> list[Entrant]:
    """Identities p, q, r at seats 0, 1, 2: the first ``count``."""
    return [Entrant(s, n, "player", n, None) for s, n in enumerate(("p", "q", "r"))][:count]


def test_the_shown_rating_does_not_climb_by_itself() -> None:
    """The number shown is the mean: it goes down after every game a player loses, and
    stays near 1000 for one who wins half of them. Before, ``mu - 3 sigma`` was shown:
    it rose as the uncertainty shrank, from 1000 to over 1500 for a player who won half
    of 40 games against one puppet, and rose too for a seat that did no better than 2nd
    of 3 every game."""
    me, them = RatingKey("player", "p"), RatingKey("player", "q")
    two = _people(2)
    prior = {me: Skill(MU, SIGMA), them: Skill(MU, SIGMA)}
    shown, conservative = [display(MU)], [round(1000 + 40 * (MU - 3 * SIGMA))]
    for game in range(40):
        totals = [100, 200] if game % 2 else [200, 100]
        prior = dict(rate(two, totals, [], 10**6, prior, {}).after)
        shown.append(display(prior[me].mu))
        conservative.append(round(1000 + 40 * (prior[me].mu - 3 * prior[me].sigma)))
    assert conservative[-1] - conservative[0] > 500  # the old number's climb
    assert abs(shown[-1] - 1000) < 60 and max(shown) < 1150
    # Losing every game: the shown number never rises, against the same opponent or fresh
    # ones, in a two- or three-player game.
    for seats, fresh in ((2, False), (2, True), (3, False), (3, True)):
        entrants = _people(seats)
        keys = [e.key for e in entrants]
        prior = {k: Skill(MU, SIGMA) for k in keys if k is not None}
        last = display(MU)
        for _ in range(30):
            if fresh:
                prior = {**{k: Skill(MU, SIGMA) for k in keys if k is not None and k != me},
                         me: prior[me]}
            totals = [10] + [200 + i for i in range(seats - 1)]
            prior = dict(rate(entrants, totals, [], 10**6, prior, {}).after)
            now = display(prior[me].mu)
            assert now <= last, (seats, fresh)
            last = now
        assert last < 1000 and prior[me].sigma < SIGMA


def test_only_games_that_rated_a_pair_count(tmp_path: Path) -> None:
    """The counts come from the rated games' history: only games that rated both of the
    pair count (a game that left one of them out does not)."""
    with app_client(tmp_path / "db.sqlite", seed=8, rated_games_per_pair_per_day=1,
                    **QUICK) as client:
        ann, bob = _player(client, "Ann"), _player(client, "Bob")
        _game(client, [(ann, ANN_AT), (bob, ANN_NEIGHBOUR)], rules=TWO)  # one network
        game_id = _game(client, [(ann, ANN_AT), (bob, BOB_AT)], rules=TWO)
        assert _summary(client, game_id)["rated"] is True  # the first that rated the pair
        store = services_of(client).lobby.store

        async def history() -> int:
            async with store.engine.connect() as conn:
                return int((await conn.execute(
                    sa.select(sa.func.count()).select_from(rating_history))).scalar_one())

        assert client.portal.call(history) == 2
