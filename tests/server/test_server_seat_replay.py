"""A replay from a seat's point of view is what that seat was sent live, frame by frame
(issue 16), and never shows it another seat's options or bust risk.

A whole game is played through a real server (uvicorn on loopback, real WebSockets): two
humans, a bot and a spectator, each client keeping every frame it received. Then each
seat's replay is read page by page and every frame's view is found, equal, at its step.
"""

from __future__ import annotations

import random
from typing import Any, get_args

import pytest

pytest.importorskip("fastapi")

import httpx
from server_helpers import SyncSocket, WsPlayer, auth, choose, threaded_server

from flip7.core.events import Event
from flip7.server.base.settings import Settings

ENGINE_EVENTS = frozenset(cls.type for cls in get_args(Event))
# Fields only the seat that must decide is sent.
VIEWER_ONLY = ("legal_decisions", "decisions", "bust_risk")


class Client:
    """A player (or spectator) with every frame it received, across reconnections."""

    def __init__(self, base: str, table_id: str, token: str | None) -> None:
        self.base, self.table_id, self.token = base, table_id, token
        self.frames: list[dict[str, Any]] = []
        self.player: WsPlayer | None = None
        self.seat: int | None = None

    def connect(self, last_version: int | None = None) -> None:
        socket = SyncSocket(self.base.replace("http", "ws") + f"/ws/tables/{self.table_id}")
        self.player = WsPlayer(socket, None, self.token, frames=self.frames)
        self.seat = self.player.seat = self.player.hello(last_version)["seat"]

    def close(self) -> None:
        assert self.player is not None
        self.player.ws.close()
        self.player = None

    @property
    def state(self) -> dict[str, Any]:
        assert self.player is not None
        return self.player.state

    def read_to(self, version: int) -> None:
        """Read frames until the table is at ``version``."""
        assert self.player is not None
        while self.player.state.get("version", -1) < version:
            self.player.recv()


def _play(base: str, bust_odds: bool) -> tuple[str, dict[str, Client]]:
    """A whole game (two humans, a basic bot, a spectator); the game's id and the clients
    by name. Bob drops out once mid-game and comes back (a welcome in mid-game)."""
    created = httpx.post(base + "/api/tables", json={
        "player": "Ann", "seats": 3, "rules": {"target_score": 60}, "bust_odds": bust_odds,
    }).json()
    table_id, ann_token = created["table"]["id"], created["token"]
    bob_token = httpx.post(base + f"/api/tables/{table_id}/join",
                           json={"player": "Bob"}).json()["token"]
    assert httpx.post(base + f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                      headers=auth(ann_token)).status_code == 200
    clients = {"ann": Client(base, table_id, ann_token), "bob": Client(base, table_id, bob_token),
               "watcher": Client(base, table_id, None)}
    for client in clients.values():
        client.connect()
    assert [c.seat for c in clients.values()] == [0, 1, None]
    started = httpx.post(base + f"/api/tables/{table_id}/start", headers=auth(ann_token))
    assert started.status_code == 200, started.text
    rng = random.Random(16)
    ann, bob = clients["ann"], clients["bob"]
    ann.read_to(started.json()["table"]["version"])
    bob_moves, bob_seen = 0, 0
    for _ in range(3000):
        assert ann.player is not None
        # Read on until a human must decide or the game is over (the bot plays at once).
        while not ann.state["game"]["over"] and ann.state["game"]["to_decide"] == 2:
            ann.player.recv()
        game, version = ann.state["game"], ann.state["version"]
        if game["over"]:
            break
        mover = ann if game["to_decide"] == 0 else bob
        if mover.player is None:  # Bob is back for his turn, with what he missed
            mover.connect(last_version=bob_seen)
        mover.read_to(version)
        assert mover.player is not None
        answer = mover.player.move(choose(mover.state["game"], rng))
        assert answer["type"] == "result", answer
        ann.read_to(version + 1)
        if mover is bob:
            bob_moves += 1
            if bob_moves == 3:  # Bob drops out for a while
                bob.read_to(version + 1)
                bob_seen = bob.state["version"]
                bob.close()
    else:
        raise AssertionError("the game did not end")
    final = ann.state["version"]
    if bob.player is None:
        bob.connect(last_version=bob_seen)
    for client in clients.values():
        client.read_to(final)
    assert sum(f["type"] == "welcome" for f in bob.frames) == 2, "Bob came back once"
    game_id = ann.state["finished_games"][0]
    for client in clients.values():
        client.close()
    return game_id, clients


def _pages(base: str, path: str, seat: int | None) -> list[dict[str, Any]]:
    """Every step of a replay, read a page of 40 steps at a time."""
    steps: list[dict[str, Any]] = []
    total = 1
    while len(steps) < total:
        params: dict[str, Any] = {"offset": len(steps), "limit": 40}
        if seat is not None:
            params["seat"] = seat
        answer = httpx.get(base + path, params=params)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        assert page["offset"] == len(steps)
        total = page["total_steps"]
        steps += page["steps"]
    return steps


def _engine_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] in ENGINE_EVENTS]


def _started_at(frames: list[dict[str, Any]], game_id: str) -> int:
    """The table version of the game's start."""
    return next(f["version"] for f in frames if f["type"] == "update" and any(
        e["type"] == "game_started" and e["game_id"] == game_id for e in f["events"]))


def _check_frames(client: Client, steps: list[dict[str, Any]], game_id: str,
                  start: int) -> int:
    """Every frame of ``client`` that shows the game: its view is the view at its step.
    Returns how many frames were compared.

    A frame of version ``start + d`` shows the game after its ``d``-th decision and the
    draws it brought: in the replay (one step per draw or decision), the step after the
    ``d``-th decision step at which a decision is awaited again, since a live game never
    waits for a card (it draws at once)."""
    after: dict[int, dict[str, Any]] = {}
    decisions = 0
    for number, step in enumerate(steps):
        if number > 0 and not steps[number - 1]["game"]["needs_card"]:
            decisions += 1  # this step is a decision
        if not step["game"]["needs_card"]:
            assert decisions not in after
            after[decisions] = step["game"]
    compared = 0
    for frame in client.frames:
        table = frame.get("table")
        if frame["type"] not in ("welcome", "update") or table is None:
            continue
        if table["game_id"] != game_id or table["game"] is None:
            continue
        live = table["game"]
        # After the end, changes (the ready check) leave the game as it ended.
        step_view = steps[-1]["game"] if live["over"] else after[table["version"] - start]
        assert step_view == live, (frame["type"], table["version"])
        compared += 1
    return compared


def _no_other_seats_secrets(steps: list[dict[str, Any]], seat: int | None,
                            bust_odds: bool) -> None:
    told = 0
    for number, step in enumerate(steps):
        game = step["game"]
        assert game["viewer"] == seat, number
        mine = seat is not None and game["to_decide"] == seat
        if not mine:
            assert game["legal_decisions"] == [] and "bust_risk" not in game, number
            assert "decisions" not in game, number
        else:
            assert game["legal_decisions"], number
            assert [d["text"] for d in game["decisions"]] == game["legal_decisions"], number
            at_hit_or_stay = game["decision_kind"] == "hit_or_stay"
            assert ("bust_risk" in game) == (bust_odds and at_hit_or_stay), number
            told += "bust_risk" in game
        assert set(game) - set(VIEWER_ONLY) <= set(steps[0]["game"]) | {"bust_risk"}
    if seat is not None and bust_odds:
        assert told > 0, "the seat's own bust risk is in its replay"


@pytest.mark.parametrize("bust_odds", [True, False])
def test_a_seats_replay_is_every_frame_it_was_sent(tmp_path: Any, bust_odds: bool) -> None:
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}",
                        bot_delay=0.0, seed=7)
    with threaded_server(settings) as base:
        game_id, clients = _play(base, bust_odds)
        start = _started_at(clients["ann"].frames, game_id)
        path = f"/api/games/{game_id}/replay"
        replays = {seat: _pages(base, path, seat) for seat in (None, 0, 1, 2)}
        # The same game, the same steps and events, whoever watches.
        for steps in replays.values():
            assert [s["events"] for s in steps] == [s["events"] for s in replays[None]]
        # What the clients were sent, event by event, is what the replay's steps hold.
        live_events = [e for f in clients["ann"].frames if f["type"] == "update"
                       and f["version"] >= start for e in _engine_events(f["events"])]
        assert live_events == [e for s in replays[None] for e in s["events"]]
        for name, seat in (("ann", 0), ("bob", 1), ("watcher", None)):
            compared = _check_frames(clients[name], replays[seat], game_id, start)
            assert compared >= 10, (name, compared)
        for seat, steps in replays.items():
            _no_other_seats_secrets(steps, seat, bust_odds)
        # Ann's view is not the spectator's: the same page, cached apart.
        first = httpx.get(base + path, params={"limit": 5}).json()
        mine = httpx.get(base + path, params={"limit": 5, "seat": 0}).json()
        assert first["steps"][0]["game"]["viewer"] is None
        assert mine["steps"][0]["game"]["viewer"] == 0
        again = httpx.get(base + path, params={"limit": 5, "seat": 0}).json()
        assert again == mine

        # The record says whether the seats were told their bust risk, so an upload of it
        # replays the same for every seat.
        record = httpx.get(base + f"/api/games/{game_id}/record").json()
        assert record["meta"]["bust_odds"] is bust_odds
        uploaded = httpx.post(base + "/api/replays", json=record)
        assert uploaded.status_code == 201, uploaded.text
        upload_path = f"/api/replays/{uploaded.json()['id']}"
        for seat in (0, 1):
            assert _pages(base, upload_path, seat) == replays[seat]


def test_a_bad_seat_is_a_clear_400(tmp_path: Any) -> None:
    from server_helpers import app_client

    from flip7.core.rules import Rules
    from flip7.engine.game import Game
    from flip7.engine.record import Record

    game = Game.new(["A", "B", "C"], Rules(target_score=40), seed=4)
    while not game.over:
        game.apply(game.legal_decisions()[-1])
    record = Record.from_game(game).to_json()
    with app_client(tmp_path / "db.sqlite") as client:
        replay_id = client.post("/api/replays", json=record).json()["id"]
        for seat, words in (("3", "seats are 0 to 2"), ("x", "seat number"),
                            ("-1", "seat number"), ("1.0", "seat number"),
                            ("9" * 20, "seat number")):
            answer = client.get(f"/api/replays/{replay_id}", params={"seat": seat})
            assert answer.status_code == 400, (seat, answer.text)
            detail = answer.json()["detail"]
            assert detail["code"] == "bad_seat" and words in detail["message"], detail
        # Without a bust_odds in its meta, an uploaded record's seat is told its risk.
        steps = client.get(f"/api/replays/{replay_id}", params={"seat": "2"}).json()["steps"]
        assert all(s["game"]["viewer"] == 2 for s in steps)
        assert any("bust_risk" in s["game"] for s in steps)
        no_odds = {**record, "meta": {"bust_odds": False}}
        replay_id = client.post("/api/replays", json=no_odds).json()["id"]
        steps = client.get(f"/api/replays/{replay_id}", params={"seat": "2"}).json()["steps"]
        assert not any("bust_risk" in s["game"] for s in steps)
        # An unknown game is 404 before the seat is looked at.
        assert client.get("/api/games/nope/replay?seat=0").status_code == 404
