"""Browser tests of a break (issue "Tables that wait"), on a real server with Debian's
chromium and its idle times shortened:

* everyone closes the tab mid-game for longer than ``idle_table_ttl``: the game is
  suspended (out of the server's memory); the table's page had said until when it waits,
  the lobby's "Your games" lists it paused, with the player's turn and that date, and
  opening it from there brings it back where it was, live, the player's decision waiting;
* a table closed for good (its game over, nobody back) renders a page of its own in the
  page's language: what happened, its finished games' replays, the way back to the lobby;
  never the "Joining the table…" spinner or the server's English with an API path.

Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import browser_server, new_page, shot

IDLE = 1.0  # idle_table_ttl and waiting_table_ttl of the server, seconds


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with browser_server(tmp_path_factory, "break", seed=43, idle_table_ttl=IDLE,
                        waiting_table_ttl=IDLE, handover_auto=600.0) as url:
        yield url


def _table(url: str, bots: int, key: str | None = None, **options: Any) -> tuple[str, str]:
    """A table of Ann (with the identity ``key`` if given) and ``bots`` bots, started; its
    id and Ann's token."""
    import httpx
    from server_helpers import auth

    with httpx.Client(base_url=url, timeout=20) as http:
        created = http.post("/api/tables", json={"player": "Ann", "seats": bots + 1, **options},
                            headers={"X-Player-Key": key} if key else {})  # fmt: skip
        assert created.status_code == 201, created.text
        table_id, token = created.json()["table"]["id"], created.json()["token"]
        for _ in range(bots):
            added = http.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                              headers=auth(token))  # fmt: skip
            assert added.status_code == 200, added.text
        started = http.post(f"/api/tables/{table_id}/start", headers=auth(token))
        assert started.status_code == 200, started.text
    return table_id, token


def _wait_out_of_memory(url: str, before: int) -> None:
    import httpx

    deadline = time.monotonic() + 15
    while httpx.get(f"{url}/api/health", timeout=10).json()["tables"] >= before:
        assert time.monotonic() < deadline, "the table never left the server's memory"
        time.sleep(0.1)


def _seat_page(browser: Any, url: str, table_id: str, token: str, width: int = 1280,
               height: int = 860, identity: str = "", path: str = ""
               ) -> tuple[Any, list[str]]:  # fmt: skip
    """A page with Ann's seat token (and her identity's JSON, if given) on ``path`` (the
    table's page by default)."""
    page, errors = new_page(browser, width, height)
    page.add_init_script(f"localStorage.setItem('flip7.token.{table_id}', '{token}')")
    if identity:
        page.add_init_script(f"localStorage.setItem('flip7.player', {json.dumps(identity)})")
    page.goto(f"{url}{path or f'/t/{table_id}'}")
    return page, errors


def test_a_break_longer_than_the_idle_time_and_the_game_goes_on(
    live_server: str, chromium_browser: Any
) -> None:
    import httpx
    from playwright.sync_api import expect

    ann = httpx.post(f"{live_server}/api/players", json={"name": "Ann"}, timeout=10).json()
    identity = json.dumps(ann)
    table_id, token = _table(live_server, bots=2, key=ann["key"])
    page, errors = _seat_page(chromium_browser, live_server, table_id, token, identity=identity)
    expect(page.locator("[data-testid=conn]")).to_have_text(re.compile("Live"))
    expect(page.locator("#decision")).to_have_attribute("data-state", "ready")
    # The page says how long the game waits (idle_table_ttl + suspended_table_ttl: 7 days).
    note = page.locator("[data-testid=keep-note]")
    expect(note).to_be_visible()
    expect(note).to_contain_text("this game waits for you until")  # a date 7 days on
    before = httpx.get(f"{live_server}/api/health", timeout=10).json()["tables"]
    version = httpx.get(f"{live_server}/api/tables/{table_id}").json()["table"]["version"]
    page.context.close()  # the tab is closed: nobody is at the table now

    _wait_out_of_memory(live_server, before)  # suspended after IDLE seconds
    time.sleep(2 * IDLE)  # well past the old limit: nothing closes it

    # The lobby's "Your games": paused, Ann's turn, and until when it waits for her.
    page, errors = _seat_page(chromium_browser, live_server, table_id, token, 390, 844,
                              identity=identity, path="/")  # fmt: skip
    mine = page.locator(f"[data-testid=your-games] [data-table='{table_id}']")
    expect(mine).to_have_attribute("data-state", "suspended")
    expect(mine.locator("[data-testid=your-game-state]")).to_have_text("Your turn")
    expect(mine.locator("[data-testid=waits-until]")).to_contain_text("waits for you until")
    expect(mine).to_contain_text("Ann (you)")
    shot(page, "break-your-games-390.png")
    mine.get_by_role("link", name="Back to seat").click()
    expect(page.locator("[data-testid=conn]")).to_have_text(re.compile("Live"))
    expect(page.locator("#decision")).to_have_attribute("data-state", "ready")
    expect(page.locator("[data-testid=table-closed]")).to_have_count(0)
    table = httpx.get(f"{live_server}/api/tables/{table_id}").json()["table"]
    assert table["version"] == version and table["state"] == "playing"
    shot(page, "break-resumed-390.png")
    # And it plays on: Ann stays, from the page.
    page.locator('#decision .decision-main [data-decision="stay"]').click()
    deadline = time.monotonic() + 15
    while httpx.get(f"{live_server}/api/tables/{table_id}").json()["table"]["version"] <= version:
        assert time.monotonic() < deadline, "the move from the page was never applied"
        time.sleep(0.1)
    assert not errors, errors
    page.context.close()


def _player(url: str, table_id: str, token: str) -> Any:
    from server_helpers import SyncSocket, WsPlayer

    ws = SyncSocket(url.replace("http", "ws") + f"/ws/tables/{table_id}")
    player = WsPlayer(ws, None, token)
    player.seat = player.hello()["seat"]
    return player


@pytest.mark.parametrize("width,height", [(1366, 800), (360, 740)])
def test_a_closed_table_has_a_page_with_its_replays(
    live_server: str, chromium_browser: Any, width: int, height: int
) -> None:
    import httpx
    from playwright.sync_api import expect
    from server_helpers import play_to_end

    table_id, token = _table(live_server, bots=2, rules={"target_score": 30})
    ann = _player(live_server, table_id, token)
    play_to_end([ann], random.Random(width))
    ann.ws.close()  # the game is over and nobody stays: closed after IDLE seconds
    deadline = time.monotonic() + 15
    while httpx.get(f"{live_server}/api/tables/{table_id}").status_code != 410:
        assert time.monotonic() < deadline, "the finished table was never closed"
        time.sleep(0.1)

    page, errors = _seat_page(chromium_browser, live_server, table_id, token, width, height)
    closed = page.locator("[data-testid=table-closed]")
    expect(closed).to_be_visible()
    expect(closed.locator("h2")).to_have_text("This table is closed")
    expect(page.locator(".loading")).to_be_hidden()
    assert "/api/" not in closed.inner_text()
    replays = closed.locator("[data-testid=closed-replay]")
    expect(replays).to_have_count(1)
    expect(replays.first).to_have_text("Game 1")
    shot(page, f"table-closed-{width}.png")
    replays.first.click()
    expect(page).to_have_url(re.compile(r"/replay/game/"))
    assert not errors, errors
    page.context.close()


def test_a_closed_table_in_german(live_server: str, chromium_browser: Any) -> None:
    import httpx
    from playwright.sync_api import expect

    made = httpx.post(f"{live_server}/api/tables", json={"player": "Ann", "seats": 3})
    table_id = made.json()["table"]["id"]
    deadline = time.monotonic() + 15
    while httpx.get(f"{live_server}/api/tables/{table_id}").status_code != 410:
        assert time.monotonic() < deadline, "the waiting table was never closed"
        time.sleep(0.1)
    page, errors = new_page(chromium_browser, 390, 844, locale="de-DE")
    page.goto(f"{live_server}/t/{table_id}")
    closed = page.locator("[data-testid=table-closed]")
    expect(closed.locator("h2")).to_have_text("Dieser Tisch ist geschlossen")
    expect(closed).to_contain_text("An diesem Tisch wurde kein Spiel beendet.")
    assert not errors, errors
    page.context.close()
