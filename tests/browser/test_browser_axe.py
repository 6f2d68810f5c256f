"""Accessibility (issue "Tables that wait"): no serious or critical axe-core violation on any
page of the web app, on a laptop and on a phone: the lobby, the rules, the leaderboard, your
profile and another player's, the scorekeeper's list and a scorecard, the guided first game,
a table's waiting room, a game at the decision and as a spectator, a finished game's replay,
the coach, and the page of a table that does not exist. (Each kind of decision is checked in
test_browser_ux, where the panels are.) axe-core comes from npm, pinned in the lockfile."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from browser_helpers import axe_problems, browser_server, new_page

SIZES = [(1366, 800), (390, 844)]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server with what the pages show: Ann's identity, a waiting table and a game at
    her decision, a finished game, Bob's profile and a scorecard."""
    from server_helpers import SyncSocket, WsPlayer, auth, play_to_end

    with browser_server(tmp_path_factory, "axe", seed=12) as url, httpx.Client(
            base_url=url, timeout=20) as http:  # fmt: skip
        ann = http.post("/api/players", json={"name": "Ann"}).json()
        bob = http.post("/api/players", json={"name": "Bob"}).json()
        mine = {"X-Player-Key": ann["key"]}

        def table(name: str, start: bool) -> tuple[str, str]:
            made = http.post("/api/tables", headers=mine,
                             json={"player": "Ann", "name": name, "seats": 3,
                                   "rules": {"target_score": 30}}).json()  # fmt: skip
            table_id, token = made["table"]["id"], made["token"]
            for _ in range(2):
                http.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                          headers=auth(token))  # fmt: skip
            if start:
                http.post(f"/api/tables/{table_id}/start", headers=auth(token))
            return table_id, token

        waiting = table("Waiting", start=False)
        playing = table("Playing", start=True)
        finished = table("Finished", start=True)
        ws = SyncSocket(url.replace("http", "ws") + f"/ws/tables/{finished[0]}")
        player = WsPlayer(ws, None, finished[1])
        player.seat = player.hello()["seat"]
        play_to_end([player], random.Random(1))
        game_id = player.state["finished_games"][0]
        ws.close()
        card = http.post("/api/scorecards", json={"name": "Friday",
                                                  "players": ["Ann", "Bob", "Cyd"]}).json()
        yield {"url": url, "ann": ann, "bob": bob, "waiting": waiting, "playing": playing,
               "game_id": game_id, "card": card}  # fmt: skip


def _page(browser: Any, site: dict[str, Any], width: int, height: int) -> tuple[Any, list[str]]:
    """Ann's browser: her identity and her seats' tokens."""
    page, errors = new_page(browser, width, height)
    script = f"localStorage.setItem('flip7.player', {json.dumps(json.dumps(site['ann']))});"
    for table_id, token in (site["waiting"], site["playing"]):
        script += f"localStorage.setItem('flip7.token.{table_id}', '{token}');"
    page.add_init_script(script)
    return page, errors


@pytest.mark.parametrize("width,height", SIZES)
def test_no_serious_violation_on_any_page(
    site: dict[str, Any], chromium_browser: Any, width: int, height: int
) -> None:
    from playwright.sync_api import expect

    url = site["url"]
    page, errors = _page(chromium_browser, site, width, height)
    pages = [
        ("/", "[data-testid=your-games]"),
        ("/rules", "h1"),
        ("/leaderboard", "[data-testid=board-players]"),
        ("/me", "[data-testid=profile-name]"),
        (f"/players/{site['bob']['id']}", "[data-testid=profile-name]"),
        ("/scorekeeper", "h1"),
        (f"/scorekeeper/{site['card']['id']}", "h1"),
        (f"/t/{site['waiting'][0]}", "[data-testid=start]"),
        (f"/t/{site['playing'][0]}", "#decision[data-state=ready]"),
        (f"/replay/game/{site['game_id']}", ".board"),
        (f"/coach/{site['game_id']}/0", "[data-testid=coach-title]"),
        ("/t/nosuchtable", "[data-testid=table-unknown]"),
    ]
    problems: dict[str, list[str]] = {}
    for path, ready in pages:
        page.goto(url + path)
        expect(page.locator(ready).first).to_be_attached()
        page.wait_for_timeout(200)  # the page's first frames drawn
        if found := axe_problems(page):
            problems[path] = found
    # A spectator's view of the game, and the guided first game.
    watcher, watcher_errors = new_page(chromium_browser, width, height)
    watcher.goto(f"{url}/t/{site['playing'][0]}")
    expect(watcher.locator(".board")).to_be_visible()
    if found := axe_problems(watcher):
        problems["spectator"] = found
    watcher.goto(url + "/")
    watcher.click("[data-testid=learn]")
    watcher.fill("#name-dialog-input", "Cy")
    watcher.click("[data-testid=name-dialog-ok]")
    expect(watcher).to_have_url(re.compile(r"/t/[^/]+$"))
    expect(watcher.locator("[data-testid=tutorial]")).to_be_visible()
    if found := axe_problems(watcher):
        problems["tutorial"] = found
    assert problems == {}, problems
    assert not errors and not watcher_errors, (errors, watcher_errors)
    page.context.close()
    watcher.context.close()
