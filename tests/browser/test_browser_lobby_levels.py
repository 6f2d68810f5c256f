"""The browser (issue 14): bots chosen by level in the waiting room (the default level
preselected, its blurb, an advanced spec field), the lobby's "Show bust odds" switch, the
lobby's recent games opening their replay, and a replay's jump to any round (by the round
selector, by Page Down / Page Up, and by a ?round=N link). Screenshots in test-artifacts/.

Needs Chromium and Playwright, like tests/browser/test_browser.py (skipped without them, unless
CI=true).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import browser_server, new_page, shot

from flip7.bots import DEFAULT_LEVEL, LEVELS, bot_names

PAGE = 20  # replay_page_steps: the later rounds start on later pages


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with browser_server(tmp_path_factory, "levels", seed=7, replay_page_steps=PAGE) as url:
        yield url


def _finished_game(url: str, name: str) -> dict[str, Any]:
    """A game played to its end at a table called ``name``: Ann (over a real WebSocket,
    a simple policy) and two basic bots. Its finished state."""
    import httpx
    from server_helpers import SyncSocket, WsPlayer, auth, choose

    with httpx.Client(base_url=url, timeout=30) as http:
        created = http.post("/api/tables", json={"name": name, "player": "Ann", "seats": 3})
        table_id, token = created.json()["table"]["id"], created.json()["token"]
        for _ in range(2):
            added = http.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                              headers=auth(token))  # fmt: skip
            assert added.status_code == 200, added.text
        ann = WsPlayer(SyncSocket(url.replace("http", "ws") + f"/ws/tables/{table_id}"), None,
                       token)  # fmt: skip
        ann.hello()
        assert http.post(f"/api/tables/{table_id}/start", headers=auth(token)).status_code == 200
        rng = random.Random(1)
        try:
            for _ in range(2000):
                state = ann.settle()
                if state["game"]["over"]:
                    return state
                assert ann.move(choose(state["game"], rng))["type"] == "result"
        finally:
            ann.ws.close()
    raise AssertionError("the game did not end")  # pragma: no cover


def test_bots_by_level_in_the_waiting_room(live_server: str, chromium_browser: Any) -> None:
    import httpx
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1280, 900)
    page.goto(live_server + "/")
    expect(page.locator("#rule-tie_break")).to_have_count(1)
    page.locator(".more-rules summary").click()  # with the house rules
    odds = page.locator("#create-bust-odds")
    expect(odds).to_be_checked()  # on unless the players turn it off
    page.fill("#create-player", "Ann")
    page.fill("#create-name", "Levels")
    page.select_option("#create-seats", "6")
    page.locator("label[for=create-bust-odds]").click()
    expect(odds).not_to_be_checked()
    page.click("[data-testid=create]")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    table_id = page.url.rsplit("/", 1)[1]
    assert httpx.get(f"{live_server}/api/tables/{table_id}").json()["table"]["bust_odds"] is False

    level = page.locator("#bot-level")
    names = [level.name for level in LEVELS]
    # The five levels first, by name, weakest first; the default level preselected.
    expect(level.locator(":scope > option")).to_have_text(names)
    expect(level).to_have_value(DEFAULT_LEVEL.name)
    blurb = page.locator("[data-testid=bot-blurb]")
    expect(blurb).to_have_text(DEFAULT_LEVEL.blurb)
    # The technical specs are offered under Advanced only, never in the level menu.
    expect(level.locator("option")).to_have_count(len(names))
    expect(page.locator("[data-testid=bot-specs] option")).to_have_count(len(bot_names()))
    shot(page, "bot-levels-waiting.png")

    page.click("[data-testid=add-bot]")  # the default, as offered
    bots = page.locator('.seat-row[data-kind="bot"]')
    expect(bots).to_have_count(1)
    expect(bots.first).to_contain_text("Mia (Medium bot)")
    # Chosen by keyboard: Hard is the level after Medium.
    level.focus()
    page.keyboard.press("ArrowDown")
    expect(level).to_have_value("Hard")
    expect(blurb).to_have_text(LEVELS[3].blurb)
    page.click("[data-testid=add-bot]")
    expect(bots).to_have_count(2)
    expect(bots.nth(1)).to_contain_text("Hugo (Hard bot)")
    expect(level).to_have_value("Hard")  # the last choice stays chosen

    # Advanced: a spec typed in (Enter adds it); one over the server's ceilings is refused
    # with the server's message.
    page.locator("[data-testid=bot-advanced] summary").click()
    spec = page.locator("#bot-spec")
    spec.fill("threshold:30")
    expect(blurb).to_contain_text("threshold:30")
    spec.press("Enter")
    expect(bots).to_have_count(3)
    expect(bots.nth(2)).to_contain_text("Threshold bot 1")
    expect(page.locator("#bot-spec")).to_have_value("threshold:30")  # kept across the update
    page.locator("#bot-spec").fill("mcts:iters=99999")
    page.click("[data-testid=add-bot]")
    expect(page.locator(".toast-text").last).to_have_text(
        "Bot mcts: iters may be at most 2000 on this server, got 99999")
    expect(bots).to_have_count(3)
    expect(page.locator("[data-testid=add-bot]")).to_be_enabled()  # try again
    shot(page, "bot-levels-advanced.png")
    seats = httpx.get(f"{live_server}/api/tables/{table_id}").json()["table"]["seats"]
    assert [s["bot"] for s in seats if s["kind"] == "bot"] == ["targeting", "winprob",
                                                                "threshold:30"]
    # The seats' badges name the level, never the spec (the spec is the badge's title); a
    # spec that is no level's is just "bot" (issue "Tables that wait": "bot · threshold").
    badges = bots.locator(".badge--bot")
    expect(badges).to_have_text(["bot · Medium", "bot · Hard", "bot"])
    expect(badges.nth(0)).to_have_attribute("title", "targeting")
    page.click("[data-testid=start]")
    board = page.locator(".board .badge--bot")
    expect(board).to_have_text(["bot · Medium", "bot · Hard", "bot"])
    page.reload()  # drawn before the levels are known, then again
    expect(page.locator(".board .badge--bot")).to_have_text(["bot · Medium", "bot · Hard", "bot"])
    assert errors == [], errors


def test_recent_games_open_their_replay_which_jumps_to_any_round(
    live_server: str, chromium_browser: Any
) -> None:
    import httpx
    from playwright.sync_api import expect

    state = _finished_game(live_server, "Game night")
    game_id = state["finished_games"][0]
    rounds = len(state["game"]["rounds"])
    assert rounds >= 3
    first_page = httpx.get(f"{live_server}/api/games/{game_id}/replay").json()
    starts = first_page["round_starts"]
    total = first_page["total_steps"]
    assert len(starts) == rounds and starts[-1] > PAGE

    page, errors = new_page(chromium_browser, 1280, 900)
    page.goto(live_server + "/")
    recent = page.locator("[data-testid=recent-games] .recent-item")
    expect(recent.first).to_contain_text("Game night")
    expect(recent.first.locator(".recent-scores")).to_contain_text("Ann")
    shot(page, "lobby-recent-games.png")
    recent.first.locator("[data-testid=recent-replay]").click()
    page.wait_for_url(f"{live_server}/replay/game/{game_id}")
    info = page.locator("[data-testid=step-info]")
    expect(info).to_have_text(re.compile(rf"^Step 1 of {total}\b"))

    select = page.locator("[data-testid=round-select]")
    expect(select.locator("option")).to_have_text([f"Round {n}" for n in range(1, rounds + 1)])
    expect(select).to_have_value("1")
    # Straight to the start of the last round, on a later page of the replay.
    select.select_option(str(rounds))
    expect(info).to_have_attribute("data-index", str(starts[-1]))
    expect(info).to_contain_text(f"Round {rounds}")
    assert page.url.endswith(f"?round={rounds}")
    shot(page, "replay-round-jump.png")
    # By keyboard: Page Up goes back a round, and from inside a round to its start.
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("PageUp")
    expect(info).to_have_attribute("data-index", str(starts[-2]))
    expect(select).to_have_value(str(rounds - 1))
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("PageUp")
    expect(info).to_have_attribute("data-index", str(starts[-2]))
    page.keyboard.press("PageDown")
    expect(info).to_have_attribute("data-index", str(starts[-1]))
    # The round selector itself, from the keyboard.
    select.focus()
    page.keyboard.press("ArrowUp")
    expect(info).to_have_attribute("data-index", str(starts[-2]))
    assert errors == [], errors

    # A link to a round opens there; one to a round that is not there opens at the start.
    deep, deep_errors = new_page(chromium_browser, 390, 844)
    deep.goto(f"{live_server}/replay/game/{game_id}?round=2")
    expect(deep.locator("[data-testid=step-info]")).to_have_attribute("data-index", str(starts[1]))
    expect(deep.locator("[data-testid=round-select]")).to_have_value("2")
    shot(deep, "replay-round-deep-link-phone.png")
    deep.goto(f"{live_server}/replay/game/{game_id}?round={rounds + 5}")
    expect(deep.locator("[data-testid=step-info]")).to_have_attribute("data-index", "0")
    assert deep_errors == [], deep_errors
