"""Browser test of the coach's page (issue 16): /coach/<game_id>/<seat> over a finished game
asks for the analysis, shows its progress, then the graded decisions (a grade is a colour,
a sign and a word), the summary, the seat picker, and a decision's link into the seat's
replay at that step. The game: a player (seat 0, played in the page) against a Beginner bot
and an Easy bot.

A real server (fresh SQLite database, no bot delay), Debian's chromium, Playwright (sync
API); screenshots go to ``test-artifacts/`` (desktop and a 390 px phone).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import browser_server, new_page, shot

GRADES = {"best": "Best", "inaccuracy": "Inaccuracy", "mistake": "Mistake", "blunder": "Blunder"}


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with browser_server(tmp_path_factory, "coach", seed=11) as url:
        yield url


def _finished_game(page: Any, server: str) -> str:
    """A game played to its end in the page (seat 0) against a Beginner and an Easy bot;
    its id."""
    from test_browser_players import play_game

    table_id = play_game(page, server, levels=("Beginner", "Easy"), target=30, rated=None)
    games = page.request.get(f"{server}/api/tables/{table_id}/games").json()["games"]
    assert games and games[0]["over"]
    return str(games[0]["id"])


RAW_DECISION = re.compile(r"(hit|stay|bonus|target|give|pass|minus|steal|discard|swap)( \S+)*")


def _check_decisions(page: Any) -> int:
    from playwright.sync_api import expect

    summary = page.locator("[data-testid=coach-summary]")
    expect(summary).to_be_visible(timeout=120_000)
    # With something to improve, only those moves are shown at first: all of them here.
    only = page.locator("#coach-only")
    shown_first = only.is_checked()
    if shown_first:
        page.locator("label[for=coach-only]").click()
    items = page.locator("[data-testid=coach-decision]")
    n: int = items.count()
    assert n > 0
    total = int(re.sub(r"\D", "", summary.locator(".coach-count-total").inner_text()))
    assert total == n
    counts = {g: 0 for g in GRADES}
    for i in range(n):
        item = items.nth(i)
        grade = item.get_attribute("data-grade")
        assert grade in GRADES
        counts[grade] += 1
        badge = item.locator("[data-testid=grade]").first
        # Not colour alone: the sign and the word are there too.
        assert badge.locator(".grade-word").inner_text() == GRADES[grade]
        assert badge.locator(".grade-mark").inner_text() != ""
        made = item.locator("[data-testid=coach-made] .coach-move-name").inner_text().strip()
        # Said in words from the server's decision object, never the report's raw string.
        assert made and not RAW_DECISION.fullmatch(made), made
        if grade != "best":
            assert item.locator("[data-testid=coach-better]").count() == 1
        # Why, in a line: who led, and at a hit or stay the score and the bust risk; the
        # card an Action's or a Modifier's aim is about is named.
        why = item.locator("[data-testid=coach-reason]").inner_text()
        assert re.search(r"led by \d+ points?|level with the leader", why), why
        kind = item.locator(".coach-kind").inner_text()
        if kind == "Hit or stay":
            assert re.search(r"\d+ points with a \d+% chance to bust on a hit", why), why
        elif kind in ("Who gets the action card", "Who gets the modifier"):
            assert item.locator("[data-testid=coach-card]").inner_text().strip(), kind
    for grade, count in counts.items():
        chip = summary.locator(f'.coach-grades [data-grade="{grade}"] .grade-count')
        expect(chip).to_have_text(str(count))
    assert shown_first == any(g != "best" and c for g, c in counts.items()), counts
    return n


def test_coach_view_progress_grades_and_replay_link(
    live_server: str, chromium_browser: Any
) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1280, 900)
    page.goto(live_server + "/")
    game_id = _finished_game(page, live_server)
    record = page.request.get(f"{live_server}/api/games/{game_id}/record").json()
    beginner = next(i for i, name in enumerate(record["players"]) if "Beginner" in name)

    page.goto(f"{live_server}/coach/{game_id}/{beginner}")
    # The analysis runs off the request path: first its progress, then the result.
    progress = page.locator("[data-testid=coach-progress]")
    progress.wait_for(state="attached", timeout=10_000)
    shot(page, "coach-progress.png")
    n = _check_decisions(page)
    expect(progress).to_have_count(0)
    expect(page.locator("[data-testid=coach-title]")).to_contain_text(record["players"][beginner])
    page.wait_for_timeout(300)
    shot(page, "coach.png")
    page.screenshot(path=str(_artifact("coach-full.png")), full_page=True)

    # Only the moves to improve.
    page.locator("label[for=coach-only]").click()
    shown = page.locator("[data-testid=coach-decision]")
    assert shown.count() <= n
    for i in range(shown.count()):
        assert shown.nth(i).get_attribute("data-grade") != "best"
    page.locator("label[for=coach-only]").click()
    expect(shown).to_have_count(n)

    # A decision's link opens the seat's replay at that step.
    first = page.locator("[data-testid=coach-decision]").first
    href = first.locator("[data-testid=coach-step]").get_attribute("href")
    found = re.search(r"step=(\d+)", href or "")
    assert found is not None, href
    step = int(found.group(1))
    first.locator("[data-testid=coach-step]").click()
    expect(page.locator("[data-testid=seat-view]")).to_contain_text(record["players"][beginner])
    info = page.locator("[data-testid=step-info]")
    expect(info).to_have_text(re.compile(rf"^Step {step + 1} of "))
    page.go_back()

    # The seat picker: another seat's analysis; asked again, it comes from the cache.
    other = (beginner + 1) % len(record["players"])
    page.select_option("[data-testid=coach-seat]", str(other))
    expect(page).to_have_url(f"{live_server}/coach/{game_id}/{other}")
    _check_decisions(page)
    page.goto(f"{live_server}/coach/{game_id}/{beginner}")
    expect(page.locator("[data-testid=coach-summary]")).to_be_visible(timeout=10_000)

    phone, phone_errors = new_page(chromium_browser, 390, 844, has_touch=True, is_mobile=True)
    phone.goto(f"{live_server}/coach/{game_id}/{beginner}")
    _check_decisions(phone)
    shot(phone, "coach-phone.png")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
    assert errors == [], errors
    assert phone_errors == [], phone_errors


def _artifact(name: str) -> Any:
    from browser_helpers import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name
