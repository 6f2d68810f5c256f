"""Browser tests of learning the game in the app: the rules page (/rules), the cards that
explain themselves (hover, keyboard focus, a long-press on a touch screen) and the log's
reasons. A real server serves the page, /api/rules and /api/cards; the table's WebSocket
is answered by the test with a real engine game (``page.route_web_socket``), as in
tests/browser/test_browser_ux.py. Debian's chromium, Playwright (sync API); screenshots go to
``test-artifacts/``."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import browser_server, new_page, open_table, playing_table, shot

from flip7.core.cards import Card, deck_counts
from flip7.core.explain import card_name, explain
from flip7.core.rules import Rules
from flip7.engine.game import Game

NAMES = ["Ann", "Bob", "Cyd"]


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with browser_server(tmp_path_factory, "learn") as url:
        yield url


def _tip(page: Any) -> Any:
    return page.locator("#card-tip")


def test_the_rules_page_shows_every_card_and_option(
    chromium_browser: Any, live_server: str
) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1280, 900)
    page.goto(live_server + "/")
    link = page.locator("[data-testid=rules-link]")
    expect(link).to_be_visible()
    link.click()
    expect(page).to_have_url(live_server + "/rules")
    rules = page.locator("[data-testid=rules-page]")
    expect(rules.locator("h1")).to_have_text("How to play")
    expect(page).to_have_title(re.compile("Rules"))

    cards = rules.locator(".rules-card")
    expect(cards).to_have_count(len(Card))
    for card in Card:
        item = rules.locator(f'.rules-card[data-code="{card.code}"]')
        expect(item.locator(f'.card[data-code="{card.code}"]')).to_have_count(1)
        expect(item.locator("strong")).to_have_text(card_name(card))
        expect(item.locator("p")).to_have_text(explain(card, Rules()))

    # The plain Number cards at a glance with their copies in the deck; their alike
    # sentences folded away (the review of issue 29 counted 13 near-identical paragraphs).
    numbers = [c for c in Card if c.is_number and c.code.isdigit() and c.code != "0"]
    glance = rules.locator("[data-testid=rules-numbers] .rules-number")
    expect(glance).to_have_count(len(numbers))
    for card in numbers:
        item = rules.locator(f'[data-testid=rules-numbers] [data-code="{card.code}"]')
        expect(item.locator(".rules-number-copies")).to_have_text(f"×{deck_counts()[card]}")
    expect(rules.locator('.rules-card[data-code="5"]')).to_be_hidden()
    rules.get_by_text("Each Number card’s own sentence").click()
    expect(rules.locator('.rules-card[data-code="5"]')).to_be_visible()

    options = rules.locator(".rules-option")
    expect(options).to_have_count(len(Rules.options()))
    # Players read the options' labels, not their code names or RULES.md's sections.
    expect(rules.locator("#rules-house")).not_to_contain_text("RULES.md")
    expect(rules.locator("#rules-house code")).to_have_count(0)
    for option in Rules.options():
        item = rules.locator(f'.rules-option[data-option="{option.name}"]')
        expect(item).to_contain_text(option.help)
        expect(item).to_contain_text(option.changes)
        expect(item.locator(".rules-option-default")).to_contain_text("Default: ")
    target = rules.locator('.rules-option[data-option="target_score"] .rules-option-default')
    expect(target).to_have_text(f"Default: {Rules().target_score}")
    # The numbers of the rules are the server's.
    expect(rules.locator("#rules-round")).to_contain_text("Holding 7 Number cards")
    expect(rules.locator("#rules-goal")).to_contain_text(f"{Rules().target_score} points or more")

    # The table of contents scrolls to its section without redrawing the page.
    rules.locator(".rules-toc a", has_text="Brutal mode").click()
    expect(page).to_have_url(live_server + "/rules#rules-brutal")
    expect(rules.locator("#rules-brutal")).to_be_in_viewport()
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "rules-page.png")
    page.screenshot(path=str(_artifact("rules-page-full.png")), full_page=True)
    assert errors == []


def _artifact(name: str) -> Any:
    from browser_helpers import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name


def test_a_card_explains_itself_on_hover_and_on_focus(
    chromium_browser: Any, live_server: str
) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1280, 900)
    page.goto(live_server + "/rules")
    card = page.locator('.rules-card[data-code="U7"] .card')
    card.hover()
    tip = _tip(page)
    expect(tip).to_be_visible()
    expect(tip).to_have_attribute("role", "tooltip")
    expect(tip.locator("strong")).to_have_text("Unlucky 7")
    expect(tip.locator("span")).to_have_text(explain("U7", Rules()))
    expect(card).to_have_attribute("aria-describedby", "card-tip")
    # The tip sits by its card, on screen, and takes no pointer events.
    box, near = tip.bounding_box(), card.bounding_box()
    assert box is not None and near is not None
    assert box["y"] + box["height"] <= near["y"] or box["y"] >= near["y"] + near["height"]
    assert tip.evaluate("el => getComputedStyle(el).pointerEvents") == "none"
    shot(page, "card-tip-hover.png")
    page.mouse.move(5, 5)
    expect(tip).to_be_hidden()
    expect(card).not_to_have_attribute("aria-describedby", "card-tip")

    # From the keyboard: a card is a tab stop, focus explains it, Escape puts it away.
    zero = page.locator('.rules-card[data-code="0"] .card')
    zero.focus()
    expect(tip).to_be_visible()
    expect(tip.locator("span")).to_have_text(explain("0", Rules()))
    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()
    # A card inside a link or button is not a tab stop of its own; the lobby's fan of
    # cards is decoration (aria-hidden) and takes no focus either.
    page.goto(live_server + "/")
    expect(page.locator(".hero-fan .card").first).to_be_visible()
    assert page.locator(".hero-fan .card[tabindex]").count() == 0
    assert errors == []


def test_a_long_press_on_a_touch_screen_explains_a_card_without_a_click(
    chromium_browser: Any, live_server: str
) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 390, 844, device_scale_factor=2, is_mobile=True,
                            has_touch=True)
    page.goto(live_server + "/rules")
    card = page.locator('.rules-card[data-code="FLIP4"] .card')
    card.scroll_into_view_if_needed()
    card.evaluate(
        "el => { window.__clicks = 0; el.addEventListener('click', () => window.__clicks++); }"
    )
    box = card.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)
    tip = _tip(page)

    # A tap is a tap: it clicks, and explains nothing.
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait_for_timeout(700)
    expect(tip).to_be_hidden()
    assert page.evaluate("window.__clicks") == 1

    # A finger held on the card explains it, and the click it would make is not made.
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    page.wait_for_timeout(650)
    expect(tip).to_be_visible()
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait_for_timeout(300)
    expect(tip).to_be_visible()
    expect(tip.locator("span")).to_have_text(explain("FLIP4", Rules()))
    assert page.evaluate("window.__clicks") == 1
    tip_box = tip.bounding_box()
    assert tip_box is not None and tip_box["x"] >= 0 and tip_box["x"] + tip_box["width"] <= 390
    shot(page, "card-tip-long-press-390.png")
    # Touching anywhere else puts it away.
    elsewhere = {"type": "touchStart", "touchPoints": [{"x": 5, "y": 300}]}
    cdp.send("Input.dispatchTouchEvent", elsewhere)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    expect(tip).to_be_hidden()
    shot(page, "rules-page-390.png")
    assert errors == []


# ---------------------------------------------------------------------- the log's reasons


def _game(rules: Rules) -> tuple[Game, list[dict[str, Any]]]:
    """Ann holds The Zero, Bob busts on a second 5, Cyd stays, Ann's Just One More! makes
    her stay; in round 2 Unlucky 7 wipes Bob's line and a Flip Four! draws for Cyd."""
    game = Game.new(NAMES, rules, explicit=True, dealer=2)
    events: list[dict[str, Any]] = []
    steps = [
        "0", "5", "9", "5", "hit", "5", "stay", "JOM", "target 0", "3",
        # round 2 (dealer 0): Bob, Cyd, Ann are dealt
        "9", "4", "6", "hit", "11", "hit", "-4", "give 1", "hit", "8", "hit", "U7",
        "hit", "FLIP4", "target 2", "2", "3", "10", "12",
    ]  # fmt: skip
    for step in steps:
        happened = game.draw(step) if game.needs_card else game.apply(step)
        events += [e.to_json() for e in happened]
    return game, events


def test_the_log_gives_reasons_and_its_cards_explain_themselves(
    chromium_browser: Any, live_server: str
) -> None:
    from playwright.sync_api import expect

    rules = Rules(brutal=True)
    game, events = _game(rules)
    table = playing_table("learn", "Learning", NAMES, game, rules)
    page, errors = new_page(chromium_browser, 1280, 900)
    open_table(page, live_server, table, events, "Live")
    log = page.locator("[data-testid=log]")
    expect(log).to_contain_text("Bob busted: a second 5")
    expect(log).to_contain_text("Ann must stay: Just One More!")
    expect(log).to_contain_text("Ann drew 3 for Just One More!")
    expect(log).to_contain_text("Round 1 scored: Ann 0 (The Zero without a Flip 7), Bob 0 (busted)")
    expect(log).to_contain_text("Unlucky 7 wiped Bob’s 9, 11 and −4")
    expect(log).to_contain_text("Cyd drew 2 for the Flip Four!")
    assert "(Flip Four!)" not in log.inner_text()
    assert "(Just One More!)" not in log.inner_text()

    # The cards a log line names explain themselves, in the words of this table's rules
    # (Brutal here: a minus card may take a score below 0).
    wipe = log.locator(".log-item", has_text="Unlucky 7 wiped")
    minus = wipe.locator('.card-ref[data-code="-4"]')
    expect(minus).to_have_text("−4")
    minus.hover()
    tip = _tip(page)
    expect(tip).to_be_visible()
    expect(tip.locator("span")).to_have_text(explain("-4", rules))
    assert explain("-4", rules) != explain("-4", Rules())
    shot(page, "log-reasons.png")
    # A card in a line explains itself too.
    page.mouse.move(5, 5)
    line_card = page.locator('.seat[data-seat="2"] .card[data-code="10"]')
    line_card.hover()
    expect(tip.locator("span")).to_have_text(explain("10", rules))
    # The table's header links to the rules, in a new tab so that the game stays open.
    link = page.locator("[data-testid=rules-link]")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("href", "/rules")
    assert errors == []

    # On a phone the header still holds the brand, the Rules link and the connection.
    phone, phone_errors = new_page(chromium_browser, 360, 740, device_scale_factor=2,
                                   is_mobile=True, has_touch=True)
    open_table(phone, live_server, table, events, "Live")
    boxes = [phone.locator(sel).bounding_box()
             for sel in (".brand", "[data-testid=rules-link]", "[data-testid=conn]")]
    assert all(box is not None for box in boxes)
    for left, right in itertools.pairwise(boxes):
        assert left is not None and right is not None
        assert left["x"] + left["width"] <= right["x"], boxes
    assert boxes[-1] is not None and boxes[-1]["x"] + boxes[-1]["width"] <= 360
    shot(phone.locator(".topbar"), "topbar-rules-link-360.png")
    assert phone_errors == []
