"""Browser tests of the guided first game (js/tutorial.js) on a real server: the lobby's
"Learn to play", then the game played to its end on a 360 px phone by doing what each
lesson says ("Got it", or the highlighted move), and a second game skipped mid-way that
goes on as a normal game against the bots. Debian's chromium, Playwright (sync API);
screenshots in ``test-artifacts/``."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from browser_helpers import REACHABLE, browser_server, new_page, shot

from flip7.bots import LEVELS
from flip7.core.rules import Rules
from flip7.server.table.tutorial import FIRST_GAME

# Lessons photographed on the way (the others are only followed).
SHOTS = {"welcome", "bust", "hit", "modifier", "zero", "discard", "unlucky7",
         "just_one_more", "flip_four", "steal", "flip7_chance", "won"}

# JS: the banner's lesson moved on from ``was`` (or the banner went away).
_MOVED_ON = """(was) => {
  const box = document.querySelector("[data-testid=tutorial]");
  return !box || box.hidden || box.dataset.lesson !== was;
}"""


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with browser_server(tmp_path_factory, "tutorial") as url:
        yield url


def _learn(page: Any, url: str, name: str) -> None:
    """From the lobby: "Learn to play", a name, and the table of the guided game."""
    from playwright.sync_api import expect

    page.goto(url + "/")
    page.click("[data-testid=learn]")
    page.fill("#name-dialog-input", name)
    page.click("[data-testid=name-dialog-ok]")
    expect(page).to_have_url(re.compile(r"/t/[^/]+$"))
    expect(page.locator("[data-testid=conn]")).to_have_text(re.compile("Live"))
    expect(page.locator("[data-testid=tutorial]")).to_be_visible()


# Lessons about the learner's own cards, read while the learner's decision waits: their
# line must not be under the banner (at 360 px it hid Flip Four!'s four cards).
ABOUT_OWN_LINE = {"flip_four"}


def _reachable(page: Any, target: Any, lesson: str) -> None:
    """``target`` is in sight and not covered, once the page has settled: a new lesson's
    banner rises into place (0.3 s) and the page may still be scrolling."""
    handle = target.element_handle()
    reach = page.evaluate(REACHABLE, handle)
    settle = time.monotonic() + 3
    while reach != "ok" and time.monotonic() < settle:
        page.wait_for_timeout(100)
        reach = page.evaluate(REACHABLE, handle)
    assert reach == "ok", (lesson, reach)


def _follow(page: Any, until: str | None = None, photos: str | None = None,
            wander: bool = False) -> list[str]:
    """Do what each lesson says until ``until`` is on screen (or the lessons end); the ids
    of the lessons followed. ``photos``: the screenshots' name prefix. ``wander``: scroll to
    the foot of the page (the log) before each "Got it", as a reader does; the next lesson's
    move must still come into reach."""
    from playwright.sync_api import expect

    box = page.locator("[data-testid=tutorial]")
    got_it = page.locator("[data-testid=tutor-next]")
    expected = page.locator('#decision[data-state="ready"] .decision-main .is-expected')
    done: list[str] = []
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        if box.is_hidden():
            return done
        lesson = box.get_attribute("data-lesson") or ""
        if lesson and lesson == until:
            return done
        # Only a lesson (not a step where the bots play on) waits for "Got it" or its move:
        # read before a watch step's lesson appeared, "Got it" would be the next lesson's.
        if not lesson:
            page.wait_for_timeout(40)
            continue
        if got_it.is_visible() and got_it.is_enabled():
            target = got_it
        elif expected.count() == 1 and expected.is_enabled():
            target = expected
        else:
            page.wait_for_timeout(40)
            continue
        if lesson in ABOUT_OWN_LINE:
            _reachable(page, page.locator(".board .seat.is-me .seat-line"), lesson)
        if photos and lesson in SHOTS:
            page.wait_for_timeout(350)  # the cards have landed
            shot(page, f"{photos}-{len(done):02d}-{lesson}.png")
        if target is expected:
            _reachable(page, expected, lesson)
        if wander and target is got_it:
            page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
        # The counter counts lessons, one up each time (it counted decisions: it jumped
        # when the bots played several, and repeated when a decision had two lessons).
        ids = [item.id for item in FIRST_GAME.lessons]
        expect(box.locator(".tutor-progress")).to_have_text(
            f"Lesson {ids.index(lesson) + 1} of {len(ids)}")
        target.click()
        done.append(lesson)
        page.wait_for_function(_MOVED_ON, arg=lesson)
    raise AssertionError(f"the lessons stalled after {done}")


def test_the_guided_first_game_played_to_its_end_on_a_phone(
    live_server: str, chromium_browser: Any
) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 360, 740, device_scale_factor=2, is_mobile=True,
                            has_touch=True)
    _learn(page, live_server, "Ann")
    box = page.locator("[data-testid=tutorial]")
    expect(box).to_have_attribute("data-lesson", "welcome")
    expect(page.locator("[data-testid=tutor-skip]")).to_be_visible()
    # The banner fits the phone's width, and nothing scrolls sideways.
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 360, width
    banner = box.bounding_box()
    assert banner is not None and banner["x"] >= 0 and banner["x"] + banner["width"] <= 360

    done = _follow(page, photos="tutorial-phone", wander=True)
    # Every lesson, in the script's order; the game is over and Ann won.
    assert done == [lesson.id for lesson in FIRST_GAME.lessons]
    end = page.locator("[data-testid=endscreen]")
    expect(end).to_be_visible()
    expect(end).to_contain_text("You win!")
    expect(box).to_be_hidden()
    own = end.locator('.ranking-row[data-seat="0"] .ranking-name')
    assert own.evaluate("el => el.scrollWidth <= el.clientWidth"), "the own name is cut"
    shot(page, "tutorial-phone-end.png")
    # Not a rematch to the lesson's short target: a full game against bots of a level the
    # player picks, to the usual target.
    expect(end.locator("[data-testid=rematch]")).to_have_count(0)
    offer = end.locator("[data-testid=full-game-form]")
    offer.scroll_into_view_if_needed()
    expect(offer).to_be_in_viewport()
    offer.locator("[data-testid=full-game-level]").select_option("Hard")
    expect(offer).to_contain_text(LEVELS[3].blurb)
    guided = page.url
    offer.locator("[data-testid=full-game]").click()
    page.wait_for_url(lambda url: url != guided and "/t/" in url)
    expect(page.locator("[data-testid=endscreen]")).to_have_count(0)
    table_id = page.url.rsplit("/", 1)[1]
    table = httpx.get(f"{live_server}/api/tables/{table_id}").json()["table"]
    assert table["state"] == "playing" and table["tutorial"] is None
    assert table["rules"].get("target_score", Rules().target_score) == Rules().target_score
    assert table["seats"][0]["name"] == "Ann"
    assert [s["bot"] for s in table["seats"][1:]] == [LEVELS[3].spec] * 2
    # Not in the lobby's list: the tutorial's table is private (the full game's is not).
    listed = [t["id"] for t in httpx.get(f"{live_server}/api/tables").json()["tables"]]
    assert table_id in listed and guided.rsplit("/", 1)[1] not in listed
    assert not errors, errors


def test_a_move_the_lesson_does_not_ask_for_is_refused(
    live_server: str, chromium_browser: Any
) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1280, 800)
    _learn(page, live_server, "Bea")
    _follow(page, until="hit")
    hit = page.locator('#decision .decision-main [data-decision="hit"]')
    expect(hit).to_have_class(re.compile("is-expected"))
    page.click('#decision .decision-main [data-decision="stay"]')
    expect(page.locator(".toast")).to_contain_text("the lesson asks you to Hit now")
    expect(page.locator("[data-testid=tutorial]")).to_have_attribute("data-lesson", "hit")
    assert not errors, errors


def test_skip_mid_way_and_the_game_goes_on(live_server: str, chromium_browser: Any) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1280, 800)
    _learn(page, live_server, "Cy")
    _follow(page, until="zero")
    shot(page, "tutorial-before-skip.png")
    page.click("[data-testid=tutor-skip]")
    expect(page.locator("[data-testid=tutorial]")).to_be_hidden()
    # A normal game against the bots from here: play it out, any legal move will do.
    panel = page.locator("#decision")
    end = page.locator("[data-testid=endscreen]")
    deadline = time.monotonic() + 150
    while not end.is_visible():
        assert time.monotonic() < deadline, "the game did not end"
        if panel.get_attribute("data-state") != "ready":
            page.wait_for_timeout(40)
            continue
        cards = page.locator(".seat.is-me .seat-line .card").count()
        stay = page.locator('#decision .decision-main [data-decision="stay"]')
        if cards >= 3 and stay.count() and stay.is_enabled():
            stay.click()
        else:
            page.locator("#decision .decision-main .opt-main:not(:disabled)").first.click()
        page.wait_for_timeout(60)
    expect(page.locator("[data-testid=tutorial]")).to_be_hidden()
    shot(page, "tutorial-skipped-end.png")
    assert not errors, errors
