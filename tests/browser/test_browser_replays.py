"""The browser's replay page over a replay that comes in many pages (issue 12, finding 1):
stepping across page boundaries both ways, jumping to either end, the slider and play.

Needs Chromium and Playwright, like tests/browser/test_browser.py (skipped without them, unless
CI=true).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import browser_server, new_page

PAGE = 20  # replay_page_steps of the server: a game of a few hundred steps is many pages


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live server whose replays come in pages of ``PAGE`` steps."""
    with browser_server(tmp_path_factory, "replays", replay_page_steps=PAGE) as url:
        yield url


def test_a_paged_replay_steps_across_pages(live_server: str, chromium_browser: Any) -> None:
    from engine_helpers import played_record
    from playwright.sync_api import expect

    from flip7.engine.record import replay

    record = played_record(target=300, seed=4)
    steps = 1 + len(record["draws"]) + len(record["decisions"])
    assert steps > 5 * PAGE
    totals = [str(t) for t in replay(record).totals]
    page, errors = new_page(chromium_browser)
    pages: list[str] = []
    page.on("request", lambda r: pages.append(r.url) if "/api/replays/" in r.url else None)
    created = page.request.post(live_server + "/api/replays", data=record)
    assert created.status == 201
    page.goto(f"{live_server}/replay/{created.json()['id']}")
    info = page.locator("[data-testid=step-info]")
    expect(info).to_have_text(re.compile(rf"^Step 1 of {steps}\b"))

    page.keyboard.press("End")
    expect(info).to_have_text(re.compile(rf"^Step {steps} of {steps} · Game over"))
    assert page.locator(".score-sheet tfoot td").all_inner_texts() == totals
    for _ in range(PAGE + 5):  # back over a page boundary, one step at a time
        page.keyboard.press("ArrowLeft")
    expect(info).to_have_text(re.compile(rf"^Step {steps - PAGE - 5} of {steps}\b"))

    page.click("[data-testid=first]")
    expect(info).to_have_text(re.compile(rf"^Step 1 of {steps}\b"))
    for _ in range(PAGE + 5):  # forward over a page boundary
        page.click("[data-testid=next]")
    expect(info).to_have_text(re.compile(rf"^Step {PAGE + 6} of {steps}\b"))
    # The log holds the lines of the steps before, from the page before too.
    assert page.locator("[data-testid=replay-log] .log-item").count() > 10

    page.locator("[data-testid=slider]").fill(str(steps // 2))
    expect(info).to_have_text(re.compile(rf"^Step {steps // 2 + 1} of {steps}\b"))
    page.click("[data-testid=play]")
    expect(info).not_to_have_attribute("data-index", str(steps // 2))
    page.click("[data-testid=play]")  # pause

    # Pages, not one document: far fewer requests than steps, none asking for more.
    assert 3 <= len(pages) < steps // 4, pages
    assert errors == [], errors
