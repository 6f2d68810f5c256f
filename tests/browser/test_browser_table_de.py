"""Browser tests of the table in German (docs/i18n.md): the log's reasons built from the
events' codes (never the server's English words), the decision panel, the score sheet, and
the guided first game's lessons from the ``tutorial`` catalogue. The table's WebSocket is
answered by the test with a real engine game (``page.route_web_socket``), as in
tests/browser/test_browser_learn.py; the tutorial runs on a real server. Debian's chromium,
Playwright (sync API); screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import browser_server, new_page, open_table, playing_table, shot

from flip7.core.rules import Rules
from flip7.engine.game import Game

NAMES = ["Ann", "Bob", "Cyd"]


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with browser_server(tmp_path_factory, "table-de") as url:
        yield url


def german_page(browser: Any, width: int = 1280, height: int = 900) -> tuple[Any, list[str]]:
    """A page in German (the switch's choice, remembered) that also records the catalogue's
    warnings about missing keys as errors."""
    page, errors = new_page(browser, width, height)
    page.add_init_script("localStorage.setItem('flip7.lang', 'de')")
    page.on("console", lambda msg: errors.append(msg.text) if "i18n" in msg.text else None)
    return page, errors


def _game(rules: Rules) -> tuple[Game, list[dict[str, Any]]]:
    """Ann holds The Zero, Bob busts on a second 5, Cyd stays, Ann's Just One More! makes
    her stay; in round 2 Unlucky 7 wipes Bob's line and Ann is to decide."""
    game = Game.new(NAMES, rules, explicit=True, dealer=2)
    events: list[dict[str, Any]] = []
    steps = [
        "0", "5", "9", "5", "hit", "5", "stay", "JOM", "target 0", "3",
        "9", "4", "6", "hit", "11", "hit", "-4", "give 1", "hit", "8", "hit", "U7", "stay",
    ]  # fmt: skip
    for step in steps:
        happened = game.draw(step) if game.needs_card else game.apply(step)
        events += [e.to_json() for e in happened]
    return game, events


def test_the_log_and_the_decision_in_german(chromium_browser: Any, live_server: str) -> None:
    from playwright.sync_api import expect

    rules = Rules(brutal=True)
    game, events = _game(rules)
    assert game.to_decide == 0
    # The events carry English words for the CLI; the page must not show them.
    busted = next(e for e in events if e["type"] == "busted")
    assert busted["reason"] == "a second 5" and busted["reason_code"] == "copy_2"
    page, errors = german_page(chromium_browser)
    table = playing_table("de", "Spieleabend", NAMES, game, rules)
    open_table(page, live_server, table, events, "Verbunden")
    log = page.locator("[data-testid=log]")
    expect(log).to_contain_text("Bob ist raus: eine zweite 5")
    expect(log).to_contain_text("Ann muss stoppen: Noch eine!")
    expect(log).to_contain_text("Ann zog 3 durch Noch eine!")
    expect(log).to_contain_text(
        "Runde 1 gewertet: Ann: 0 (Die Null ohne Flip 7), Bob: 0 (raus), Cyd: 9")
    expect(log).to_contain_text("Pech-7 hat 9, 11 und −4 von Bob abgeräumt")
    text = log.inner_text()
    for english in ("a second 5", "busted", "The Zero without", "Just One More!", "wiped"):
        assert english not in text, english
    # A card the log names explains itself in German (the server's /api/cards?lang=de).
    log.locator('.card-ref[data-code="U7"]').first.hover()
    tip = page.locator("#card-tip")
    expect(tip.locator("strong")).to_have_text("Pech-7")
    # The decision panel and the board.
    decision = page.locator("#decision")
    expect(decision).to_contain_text("Du bist dran – ziehen oder stoppen?")
    expect(decision.locator('[data-decision="hit"]').first).to_contain_text("Ziehen")
    expect(decision.locator('[data-decision="stay"]').first).to_contain_text("Stopp")
    expect(page.locator(".board-status")).to_contain_text("Runde 2")
    expect(page.locator(".board-status")).to_contain_text("Ziel 200")
    shot(page, "table-de-log.png")
    page.locator("#tab-scores").click()
    sheet = page.locator(".score-sheet-wrap")
    expect(sheet).to_contain_text("Gesamt")
    expect(sheet).to_contain_text("raus")
    assert errors == [], errors


def test_the_guided_first_game_speaks_german(chromium_browser: Any, live_server: str) -> None:
    from playwright.sync_api import expect

    page, errors = german_page(chromium_browser, 390, 844)
    page.goto(live_server + "/")
    page.click("[data-testid=learn]")
    page.fill("#name-dialog-input", "Bea")
    page.click("[data-testid=name-dialog-ok]")
    expect(page).to_have_url(re.compile(r"/t/[^/]+$"))
    box = page.locator("[data-testid=tutorial]")
    expect(box).to_have_attribute("data-lesson", "welcome")
    expect(box).to_contain_text("Spielen lernen")
    # The server names the table in English; the page says it in German.
    expect(page.locator(".table-title")).to_have_text("Spielen lernen")
    expect(box).to_contain_text("Willkommen bei Flip 7! Alle haben eine Karte bekommen.")
    expect(box).to_contain_text("Lektion 1 von")
    expect(page.locator("[data-testid=tutor-skip]")).to_have_text("Tutorial überspringen")
    got_it = page.locator("[data-testid=tutor-next]")
    expect(got_it).to_have_text("Verstanden")
    got_it.click()
    # The next lesson, with the bot's name the server sent as a param.
    expect(box).to_have_attribute("data-lesson", "bust")
    expect(box.locator("[data-testid=tutor-text]")).to_have_text(
        re.compile(r"^\S+ hat gezogen und eine zweite 8 bekommen: \S+ ist raus\."))
    # The bots' seat names say their level in German ("Eddie (Easy bot)" is kept in English).
    expect(page.locator(".seat-name").nth(1)).to_have_text(re.compile(r"^\S+ \(Bot Leicht\)$"))
    expect(page.locator("main")).not_to_contain_text("Easy bot")
    shot(page, "tutorial-de-390.png")
    assert errors == [], errors
