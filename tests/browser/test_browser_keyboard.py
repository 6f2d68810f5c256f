"""A whole game with the keyboard alone (issue "Tables that wait"), on a real server with
Debian's chromium: Tab to the lobby's form, type a name and a short target, Enter; Tab to
"Add bot" twice and to "Start"; then every decision by its key (S or H, the number keys
for the options), to the end screen, and Tab to "Ready for a rematch". No click, no tap.
Turn changes reach a screen reader through the page's live region."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import browser_server, new_page, shot


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with browser_server(tmp_path_factory, "keyboard", seed=31) as url:
        yield url


def _tab_to(page: Any, selector: str, most: int = 60) -> None:
    """Press Tab until ``selector`` has the focus (a keyboard user reaches it)."""
    for _ in range(most):
        if page.evaluate("(s) => document.activeElement?.matches(s) ?? false", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} was not reached with Tab in {most} presses")


def test_a_whole_game_with_the_keyboard_alone(live_server: str, chromium_browser: Any) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1366, 800)
    page.goto(live_server + "/")
    _tab_to(page, "#create-player")
    page.keyboard.type("Kim")
    _tab_to(page, "#create-target")
    page.keyboard.press("Control+A")
    page.keyboard.type("40")
    _tab_to(page, "[data-testid=create]")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/t/[^/]+$"))
    for _ in range(2):
        _tab_to(page, "[data-testid=add-bot]")
        page.keyboard.press("Enter")
        page.wait_for_timeout(200)
    expect(page.locator('.seat-row[data-kind="bot"]')).to_have_count(2)
    _tab_to(page, "[data-testid=start]")
    page.keyboard.press("Enter")

    panel = page.locator("#decision")
    announcer = page.locator(".table-page > [role=status][aria-live=assertive]")
    rng = random.Random(4)
    heard: set[str] = set()
    decisions = 0
    deadline = time.monotonic() + 240
    while not page.locator("[data-testid=rematch]").count():
        assert time.monotonic() < deadline, "the game did not end"
        if panel.get_attribute("data-state") != "ready":
            page.wait_for_timeout(50)
            continue
        heard.add(announcer.inner_text())
        lines = page.locator("[data-testid=log] li").count()
        if panel.locator('[data-decision="stay"]').count():
            page.keyboard.press("h" if rng.random() < 0.4 else "s")
        else:
            page.keyboard.press("1")
        decisions += 1
        # The key was taken: the move's events reach the log.
        page.wait_for_function(
            "(n) => document.querySelectorAll('[data-testid=log] li').length > n",
            arg=lines, timeout=15_000)
    assert decisions >= 3, decisions
    assert any(text.strip() for text in heard), "no turn was announced in the live region"
    # The end screen on a laptop: the ready check above the fold, the figures' short heads
    # and why the game was not rated said in words, not in a hover title.
    end = page.locator("[data-testid=endscreen]")
    expect(end.locator("[data-testid=rematch]")).to_be_in_viewport()
    # Two Medium bots, Mia and Max: their avatars tell them apart by two letters, on the
    # board and in the ranking, in colours from one palette.
    assert sorted(page.locator(".seat-head .avatar").all_inner_texts()) == ["K", "Ma", "Mi"]
    assert sorted(end.locator(".ranking .avatar").all_inner_texts()) == ["K", "Ma", "Mi"]
    expect(end.locator("[data-testid=end-legend]")).to_contain_text(
        "Ø / round: points a round on average")
    expect(end.locator("[data-testid=end-unrated-note]")).to_contain_text(
        "Unrated: ratings change only at a table made with “Rated game” on")
    shot(page, "keyboard-end-1366.png")
    _tab_to(page, "[data-testid=rematch]")
    page.keyboard.press("Enter")
    expect(page.locator("[data-testid=rematch]")).to_have_count(0, timeout=20_000)
    assert not errors, errors
    page.context.close()
