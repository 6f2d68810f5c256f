"""Browser test of live mode's Flip Four! on phones: a real server, Debian's chromium,
Playwright (sync API).

Four friends keep a round live on a phone (360×640 and 390×844). Ann flips a Flip Four: the
page asks whom she plays it on, offering every player who has not busted (RULES.md
§6.1.2); she picks Bob, and the next four cards go to Bob ("Card 2 of 4 for Bob", the 4
coming from the server). For each of the four the card picker is wholly on screen, and a
tap at the centre of each of its buttons reaches that button (``elementFromPoint``); an
Undo in the middle steps back one card. Bob's −4 and Steal are set aside (§6.3.4) and
resolved after the four, in order: he gives the −4 to Cyd, then steals Ann's 5. The turn
then goes on from Ann (§3.2.4). A second Flip Four, Bob's on Dee, stops at Dee's bust
(§6.3.2).

Screenshots go to ``test-artifacts/`` at the repository root.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import browser_server, new_page, shot

from flip7.core.cards import FLIP_FOUR_CARDS

PLAYERS = ["Ann", "Bob", "Cyd", "Dee"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with browser_server(tmp_path_factory, "livekeeper") as url:
        yield url


# JS: every button of the picker is wholly on screen, and a tap at its centre reaches it.
_PICKER_REACHABLE = """(picker) => {
  const out = [];
  for (const el of picker.querySelectorAll("button")) {
    const r = el.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
      out.push(el.dataset.code + " off screen at " + [r.left, r.top, r.right, r.bottom]);
      continue;
    }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(el === hit || el.contains(hit))) {
      out.push(el.dataset.code + " covered by " + (hit ? hit.className : "nothing"));
    }
  }
  return out;
}"""


def _in_view(page: Any, locator: Any, width: int, height: int) -> None:
    box = locator.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["y"] >= 0, box
    assert box["x"] + box["width"] <= width + 0.5 and box["y"] + box["height"] <= height + 0.5, box


@pytest.mark.parametrize(("width", "height"), [(360, 640), (390, 844)])
def test_flip_four_live_on_a_phone(
    server: str, chromium_browser: Any, width: int, height: int
) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, width, height, has_touch=True)
    made = page.request.post(
        server + "/api/scorecards", data={"name": "Flip Four night", "players": PLAYERS}
    )
    assert made.ok, made.text()
    card = made.json()
    page.goto(f"{server}/scorekeeper/{card['id']}#key={card['key']}")
    page.tap("[data-testid=live-toggle]")
    live = page.locator("[data-testid=live]")
    recipient = live.locator("[data-testid=live-recipient]")
    flip4 = live.locator("[data-testid=live-flip4]")

    def seat(index: int) -> Any:
        return live.locator(f'.sk-live-seat[data-seat="{index}"]')

    def line(index: int) -> list[str | None]:
        return [c.get_attribute("data-code") for c in seat(index).locator(".sk-line .card").all()]

    def tap(code: str) -> None:
        live.locator(f'.sk-picker button[data-code="{code}"]').tap()

    for code, name in zip(["5", "9", "12", "3"], PLAYERS, strict=True):  # the deal
        expect(recipient.locator("strong")).to_have_text(name)
        tap(code)
    expect(recipient.locator("strong")).to_have_text("Ann")
    tap("FLIP4")

    # Who was hit? Every player who has not busted, Ann herself included.
    expect(flip4).to_have_attribute("data-step", "play")
    expect(flip4).to_contain_text("Ann flipped a Flip Four! Who does Ann play it on?")
    targets = flip4.locator("[data-testid=live-target]")
    expect(targets.locator("span:not(.avatar)")).to_have_text(PLAYERS)
    _in_view(page, flip4, width, height)
    expect(live.locator("[data-testid=live-stay]")).to_have_count(0)  # the Flip Four first
    shot(page, f"livekeeper-flip4-who-{width}.png")
    flip4.get_by_role("button", name="Flip Four on Bob").tap()

    # The next four cards are Bob's; the picker is on screen for each one.
    cards = ["-4", "3", "STEAL", "4"]
    in_line = [1, 1, 2, 2]  # Bob's cards before each of the four: 9, then 9 3
    k = 0
    undone = False
    while k < FLIP_FOUR_CARDS:
        expect(recipient).to_have_text(f"Card {k + 1} of {FLIP_FOUR_CARDS} for Bob")
        picker = live.locator("[data-testid=live-picker]")
        expect(picker).to_be_visible()
        _in_view(page, picker, width, height)
        assert page.evaluate(_PICKER_REACHABLE, picker.element_handle()) == []
        for s in range(len(PLAYERS)):  # nobody else can be picked for these cards
            expect(seat(s).locator(".sk-player-pick")).to_be_disabled()
        expect(live.locator("[data-testid=live-stay]")).to_have_count(0)
        # Bob's line is shown beside the picker (the set-aside cards are not in it).
        expect(flip4.locator("[data-testid=live-f4-line] .card")).to_have_count(in_line[k])
        shot(page, f"livekeeper-flip4-card{k + 1}-{width}.png")
        tap(cards[k])
        k += 1
        if k == 2 and not undone:  # Undo steps back one card, then it is entered again
            expect(recipient).to_have_text(f"Card 3 of {FLIP_FOUR_CARDS} for Bob")
            live.locator("[data-testid=live-undo]").tap()
            k, undone = 1, True
        if k == 1:
            # The −4 waits beside the picker, out of Bob's line.
            expect(live.locator("[data-testid=live-set-aside] .card")).to_have_count(1)
    expect(flip4).to_have_attribute("data-step", "give")
    assert line(1) == ["9", "3", "4"]

    # The set-aside cards, in the order they came: the −4 (to Cyd), then the Steal.
    expect(flip4).to_contain_text("Bob gives the set-aside −4. To whom?")
    expect(flip4.locator("[data-testid=live-set-aside] .card")).to_have_count(1)  # the Steal
    _in_view(page, flip4, width, height)
    shot(page, f"livekeeper-flip4-give-{width}.png")
    flip4.get_by_role("button", name="−4 to Cyd").tap()
    expect(flip4).to_have_attribute("data-step", "use")
    _in_view(page, flip4, width, height)
    flip4.locator("[data-testid=live-use]").tap()
    expect(live.locator(".sk-live-mode")).to_contain_text("Steal: tap the card that moves.")
    seat(0).get_by_role("button", name="Move 5 from Ann").tap()
    seat(1).get_by_role("button", name="Move 5 to Bob").tap()
    expect(flip4).to_have_count(0)
    expect(seat(1).locator(".sk-line .card")).to_have_count(4)
    assert line(1) == ["9", "3", "4", "5"] and line(2) == ["12", "-4"] and line(0) == []
    # The turn goes on from Ann, whose Flip Four it was (§3.2.4): Bob is next.
    expect(live.locator("[data-testid=live-recipient] strong")).to_have_text("Bob")
    shot(page, f"livekeeper-flip4-done-{width}.png")

    # Bob flips a Flip Four and plays it on Dee, whose first card busts her: it stops.
    tap("FLIP4")
    expect(flip4).to_have_attribute("data-step", "play")
    flip4.get_by_role("button", name="Flip Four on Dee").tap()
    expect(recipient).to_have_text(f"Card 1 of {FLIP_FOUR_CARDS} for Dee")
    tap("3")
    expect(seat(3).locator(".status")).to_have_text("Busted")
    expect(flip4).to_have_count(0)
    expect(live.locator("[data-testid=live-recipient] strong")).to_have_text("Cyd")
    log = live.locator(".sk-live-log")
    log.locator("summary").tap()
    expect(log).to_contain_text("Ann plays Flip Four on Bob")
    expect(log).to_contain_text("Bob gives the set-aside −4 to Cyd")
    expect(log).to_contain_text("Bob uses the set-aside Steal")
    shot(page, f"livekeeper-flip4-bust-{width}.png")
    assert errors == [], errors
