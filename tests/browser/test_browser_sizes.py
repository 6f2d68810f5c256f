"""The browser with a long game's cut welcome (issue "Fair shares", finding 5): a spectator
and a returning player whose welcome carries only the newest part of the game's history
(``history_cut``) see the table whole, a log that says its start is left out, and the game
going on. On a real server with a small ``welcome_history_bytes``, Debian's chromium
(Playwright, sync API); the moves come from protocol clients holding the seats' tokens.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import browser_server, new_page, shot

CAP = 2500  # welcome_history_bytes of the server


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with browser_server(tmp_path_factory, "sizes", seed=17, welcome_history_bytes=CAP) as url:
        yield url


def test_a_cut_welcome_shows_the_table_and_says_the_log_starts_later(
        live_server: str, chromium_browser: Any) -> None:
    import httpx
    from playwright.sync_api import expect
    from server_helpers import SyncSocket, WsPlayer, auth, choose, human_turn

    with httpx.Client(base_url=live_server, timeout=20) as http:
        r = http.post("/api/tables", json={"player": "Ann", "seats": 2,
                                           "rules": {"allow_two_players": True}})
        assert r.status_code == 201, r.text
        table_id, tokens = r.json()["table"]["id"], [r.json()["token"]]
        tokens.append(http.post(f"/api/tables/{table_id}/join",
                                json={"player": "Bob"}).json()["token"])
        players = []
        for token in tokens:
            ws = SyncSocket(live_server.replace("http", "ws") + f"/ws/tables/{table_id}")
            player = WsPlayer(ws, None, token)
            player.seat = player.hello()["seat"]
            players.append(player)
        assert http.post(f"/api/tables/{table_id}/start", headers=auth(tokens[0])
                         ).status_code == 200
    rng = random.Random(4)
    by_seat = {p.seat: p for p in players}

    def settle(version: int) -> None:
        for p in players:
            while p.state.get("version", -1) < version or not human_turn(p.state):
                p.recv()

    def moves(count: int) -> None:
        settle(-1)
        for _ in range(count):
            state = players[0].state
            if state["game"]["over"]:
                return
            mover = by_seat[state["game"]["to_decide"]]
            answer = mover.move(choose(mover.state["game"], rng))
            assert answer["type"] == "result", answer
            settle(answer["version"])

    moves(40)  # far more than CAP bytes of changes
    watcher, errors = new_page(chromium_browser, 1280, 860)
    watcher.goto(f"{live_server}/t/{table_id}")
    expect(watcher.locator("[data-testid=conn]")).to_have_text(re.compile("Live"))
    expect(watcher.locator(".board")).to_be_visible()
    log = watcher.locator("[data-testid=log] .log-item")
    expect(log.first).to_have_text("A long game: only its latest moves are shown here")
    assert log.count() > 1
    shot(watcher, "table-history-cut.png")
    # The game goes on, and the page follows it.
    version = players[0].state["version"]
    moves(3)
    assert players[0].state["version"] > version
    expect(watcher.locator("[data-testid=log]")).to_contain_text(re.compile(r"drew|stay"))
    for p in players:
        p.ws.close()
    assert errors == [], errors
