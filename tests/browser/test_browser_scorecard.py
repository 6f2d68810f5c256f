"""Browser test of the scorekeeper page (/scorekeeper): a real ``flip7 serve``, Debian's
chromium, Playwright (sync API).

Three friends keep score of a whole standard game to 200 by tapping cards: a bust, Flip 7s,
a line with a problem that is corrected, an edit of an earlier round, a round entered by
mistake and undone, and the winner. The last round is entered on a phone (360×740) opened
with the edit link; a watcher follows with the read-only link and sees the same totals and
no entry panel. Every total on the page is checked against the scores worked out by hand
(RULES.md §8: Flip 7 is the sum + 15, ÷2 rounds down).

Screenshots go to ``test-artifacts/`` at the repository root.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import new_page, shot
from conftest import missing

NAME = "Friday <i>night</i>"  # markup in a name stays text
PLAYERS = ["Ann", "Bob", "Cyd"]

# The game, one line per player: (cards, busted). Totals worked out by hand.
R1 = [("13 12 11 10 9 8 7", False), ("5 6 5", True), ("13 L13 4", False)]  # 85 (Flip 7), 0, 30
R1_EDITED_CYD = "13 L13 4 2"  # Cyd forgot a 2: 32
R2 = [("12 10", False), ("13 12 11 10 9 8 6", False), ("9 11 3", False)]  # 22, 84 (Flip 7), 23
R3_WRONG = [("10 11", False), ("2", False), ("3", False)]  # entered by mistake, undone
R3 = [("11 13 9 /2", False), ("4 4", True), ("0 1 2 3 4 5 6", False)]  # 16, 0, 36 (Flip 7)
R4 = [("13 12 11 10 9 8 5", False), ("10 -2", False), ("12", False)]  # 83 (Flip 7), 8, 12


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``flip7 serve`` on a free loopback port, with a fresh SQLite database."""
    try:
        import fastapi  # noqa: F401
        import httpx  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:  # the server extra is not installed
        missing(f"the server dependencies ({exc})")
    from server_helpers import ServerProcess

    db = tmp_path_factory.mktemp("scorekeeper") / "s.db"
    server = ServerProcess(f"sqlite:///{db}").start()
    try:
        yield server.url
    finally:
        server.stop()


def _page(browser: Any, width: int = 1280, height: int = 860) -> tuple[Any, list[str]]:
    return new_page(browser, width, height)


def _player(page: Any, seat: int) -> Any:
    return page.locator(f'.sk-player[data-seat="{seat}"]')


def _tap_line(page: Any, seat: int, cards: str, busted: bool = False) -> None:
    """Pick the player, tap their cards in the picker, and mark the bust."""
    row = _player(page, seat)
    row.locator(".sk-player-pick").click()
    for code in cards.split():
        row.locator(f'.sk-picker button[data-code="{code}"]').click()
    codes = [c.get_attribute("data-code") for c in row.locator(".sk-line .card").all()]
    assert codes == cards.split(), codes
    if busted:
        row.locator("[data-testid=bust]").click()


def _enter(page: Any, lines: list[tuple[str, bool]]) -> None:
    for seat, (cards, busted) in enumerate(lines):
        _tap_line(page, seat, cards, busted)


def _scores(page: Any, expected: list[str]) -> None:
    """The round scores the server worked out, shown next to each player."""
    from playwright.sync_api import expect

    expect(page.locator("[data-testid=check-state]")).to_have_text("All checks pass")
    expect(page.locator("[data-testid=round-score]")).to_have_text(expected)


def _save(page: Any, number: int) -> None:
    from playwright.sync_api import expect

    page.locator("[data-testid=save-round]").click()
    expect(page.locator(f'.sk-round[data-round="{number}"]')).to_have_count(1)


def _totals(page: Any, expected: list[int]) -> None:
    from playwright.sync_api import expect

    expect(page.locator("[data-testid=total]")).to_have_text([str(t) for t in expected])


def test_keep_score_of_a_whole_game(live_server: str, chromium_browser: Any) -> None:
    from playwright.sync_api import expect

    page, errors = _page(chromium_browser)

    # The lobby links to the scorekeeper; create a scorecard there.
    page.goto(live_server + "/")
    page.click("[data-testid=scorekeeper-link]")
    page.wait_for_url(re.compile(r"/scorekeeper$"))
    names = page.locator("[data-testid=player-name]")
    expect(names).to_have_count(3)
    for i, name in enumerate(PLAYERS):
        names.nth(i).fill(name)
    page.fill("#sk-name", NAME)
    expect(page.locator("#sk-target")).to_have_value("200")
    page.click("[data-testid=create-scorecard]")
    page.wait_for_url(re.compile(r"/scorekeeper/[^/#]+$"))  # the key leaves the address bar
    card_url = page.url
    card_id = card_url.rsplit("/", 1)[1]
    expect(page.locator("[data-testid=scorecard-name]")).to_have_text(NAME)
    expect(page.locator("[data-testid=mode]")).to_have_text("Keeping score")
    edit_link = page.locator("[data-testid=edit-link]").input_value()
    read_link = page.locator("[data-testid=read-link]").input_value()
    assert re.fullmatch(rf"{re.escape(card_url)}#key=[\w-]+", edit_link), edit_link
    assert read_link == card_url
    key = edit_link.split("#key=")[1]
    assert page.evaluate(f"localStorage.getItem('flip7.scorecard.key.{card_id}')") == key
    _totals(page, [0, 0, 0])
    expect(page.locator("[data-testid=status]")).to_have_text("No rounds yet; target 200")

    # Round 1: Ann's Flip 7, Bob's bust (5 6 5), Cyd's Lucky 13 pair.
    expect(page.locator("#entry-title")).to_have_text("Round 1")
    _enter(page, R1)
    _scores(page, ["+85", "0", "+30"])
    expect(_player(page, 0).locator(".sk-badge-flip7")).to_be_visible()
    _save(page, 1)
    _totals(page, [85, 0, 30])
    expect(page.locator(".sk-total.is-leader")).to_have_attribute("data-seat", "0")

    # A watcher opens the read-only link: no entry panel, and it refreshes by itself.
    watcher, watcher_errors = _page(chromium_browser, 390, 844)
    watcher.goto(read_link)
    _totals(watcher, [85, 0, 30])
    expect(watcher.locator("[data-testid=mode]")).to_have_text("Read-only")
    expect(watcher.locator("#entry")).to_be_hidden()
    expect(watcher.locator("[data-testid=save-round]")).to_have_count(0)
    expect(watcher.locator("[data-testid=edit-round]")).to_have_count(0)
    expect(watcher.locator("[data-testid=undo]")).to_have_count(0)

    # Round 2: Bob's Flip 7; Cyd's line 9 11 9 is a bust that is not marked: the problem
    # shows as the cards are tapped, the save is refused, and nothing typed is lost.
    expect(page.locator("#entry-title")).to_have_text("Round 2")
    _enter(page, [*R2[:2], ("9 11 9", False)])
    cyd = _player(page, 2)
    expect(cyd.locator("[data-testid=problems]")).to_contain_text("9 11 9 is a bust")
    expect(page.locator("[data-testid=check-state]")).to_have_text("1 problem to fix before saving")
    # A clean screenshot: toasts leave by themselves on a timer, so clicking one can race it.
    page.evaluate("document.querySelectorAll('.toast').forEach((t) => t.remove())")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "scorekeeper-round.png")
    page.locator("[data-testid=save-round]").click()
    expect(page.locator("[data-testid=notice]")).to_contain_text("was not saved")
    expect(cyd.locator("[data-testid=problems]")).to_contain_text("mark Cyd busted")
    assert len(page.locator(".sk-round").all()) == 1
    # Correct it: tap the second 9 to take it out, then add the 3.
    cyd.locator('.sk-line .card[data-index="2"]').click()
    cyd.locator('.sk-picker button[data-code="3"]').click()
    _scores(page, ["+22", "+84", "+23"])
    expect(cyd.locator("[data-testid=problems]")).to_have_count(0)
    _save(page, 2)
    _totals(page, [107, 84, 53])
    _totals(watcher, [107, 84, 53])  # polled

    # Edit round 1: Cyd had a 2 too. The totals after it follow.
    page.locator('.sk-round[data-round="1"] [data-testid=edit-round]').click()
    expect(page.locator("#entry-title")).to_have_text("Editing round 1")
    row = _player(page, 2)
    row.locator(".sk-player-pick").click()
    row.locator('.sk-picker button[data-code="2"]').click()
    codes = [c.get_attribute("data-code") for c in row.locator(".sk-line .card").all()]
    assert codes == R1_EDITED_CYD.split()
    _scores(page, ["+85", "0", "+32"])
    expect(row.locator(".sk-player-total")).to_have_text("→ 32")  # checked as round 1
    page.locator("[data-testid=save-round]").click()
    expect(page.locator("#entry-title")).to_have_text("Round 3")
    _totals(page, [107, 84, 55])
    expect(page.locator('.sk-round[data-round="1"] .sk-round-total')).to_have_text(
        ["85", "0", "32"]
    )
    expect(page.locator('.sk-round[data-round="1"] .badge', has_text="Edited")).to_be_visible()

    # A round entered by mistake, then undone.
    _enter(page, R3_WRONG)
    _scores(page, ["+21", "+2", "+3"])
    _save(page, 3)
    _totals(page, [128, 86, 58])
    page.click("[data-testid=undo]")
    page.click("[data-testid=confirm-ok]")
    expect(page.locator(".sk-round")).to_have_count(2)
    _totals(page, [107, 84, 55])

    # Round 3: ÷2 rounds down (33 → 16), Bob busts on a second 4, Cyd's Flip 7 with The Zero.
    expect(page.locator("#entry-title")).to_have_text("Round 3")
    _enter(page, R3)
    _scores(page, ["+16", "0", "+36"])
    _save(page, 3)
    _totals(page, [123, 84, 91])

    # Round 4 on a phone, opened with the edit link: Ann's Flip 7 takes her past 200.
    phone, phone_errors = _page(chromium_browser, 360, 740)
    phone.goto(edit_link)
    expect(phone.locator("[data-testid=mode]")).to_have_text("Keeping score")
    expect(phone.locator("#entry-title")).to_have_text("Round 4")
    expect(phone.locator("[data-testid=check-state]")).to_have_text("All checks pass")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the page is {width}px wide on a 360px phone"
    picker = _player(phone, 0).locator(".sk-picker button")
    expect(picker).to_have_count(22)  # 0-13, U7, L13, /2, -2 ... -10
    for box in (picker.nth(i).bounding_box() for i in range(22)):
        assert box is not None and box["width"] >= 44 and box["height"] >= 44, box
    _enter(phone, R4)
    _scores(phone, ["+83", "+8", "+12"])
    _player(phone, 0).locator(".sk-player-pick").click()  # the picker under Ann again
    phone.evaluate("window.scrollTo(0, 0)")
    shot(phone, "scorekeeper-phone.png")
    _save(phone, 4)

    # The winner, on every device; the entry panel is gone.
    for p in (phone, page, watcher):
        if p is page:
            page.reload()
        winner = p.locator("[data-testid=winner]")
        expect(winner.locator(".endscreen-title")).to_have_text("Ann wins!")
        expect(winner).to_contain_text("with 206 points")
        _totals(p, [206, 92, 103])
        expect(p.locator("#entry")).to_be_hidden()
        expect(p.locator(".sk-total.is-winner")).to_have_attribute("data-seat", "0")
    expect(page.locator("[data-testid=status]")).to_have_text("Ann wins with 206")

    # The history and the chart: one line per player, the target line, a legend.
    rounds = page.locator(".sk-round")
    expect(rounds).to_have_count(4)
    expect(page.locator('.sk-round[data-round="3"] .sk-round-score')).to_have_text(
        ["+16", "0", "+36"]
    )
    expect(page.locator('.sk-round[data-round="4"] .sk-round-total')).to_have_text(
        ["206", "92", "103"]
    )
    chart = page.locator("[data-testid=chart]")
    expect(chart.locator("polyline")).to_have_count(3)
    expect(chart.locator(".chart-target")).to_have_count(1)
    expect(chart.locator(".chart-legend-name")).to_have_text(PLAYERS)
    expect(chart.locator(".chart-legend-total")).to_have_text(["206", "92", "103"])
    panel = page.locator(".sk-chart")
    panel.scroll_into_view_if_needed()
    shot(panel, "scorekeeper-chart.png")

    # The exports: the history as CSV and JSON.
    csv_href = page.locator("[data-testid=export-csv]").get_attribute("href")
    json_href = page.locator("[data-testid=export-json]").get_attribute("href")
    csv_text = page.request.get(live_server + csv_href).text()
    assert "206" in csv_text and "Cyd" in csv_text
    exported = page.request.get(live_server + json_href).json()
    assert len(exported["rounds"]) == 4

    # The list shows it, finished, with its winner.
    page.goto(live_server + "/scorekeeper")
    item = page.locator(f'.table-item[data-scorecard="{card_id}"]')
    expect(item.locator(".sk-list-link")).to_have_text(NAME)
    expect(item).to_contain_text("4 rounds")
    expect(item).to_contain_text("won by Ann with 206")
    assert page.evaluate("document.querySelectorAll('i').length") == 0

    assert errors == [], errors
    assert watcher_errors == [], watcher_errors
    assert phone_errors == [], phone_errors


def test_a_round_entered_live(live_server: str, chromium_browser: Any) -> None:
    """Live mode: the cards as they are flipped, the advice, a Steal, the round's end."""
    from playwright.sync_api import expect

    page, errors = _page(chromium_browser, 390, 844)
    made = page.request.post(
        live_server + "/api/scorecards", data={"name": "Live", "players": PLAYERS}
    )
    assert made.ok, made.text()
    card = made.json()
    page.goto(f"{live_server}/scorekeeper/{card['id']}#key={card['key']}")
    page.click("[data-testid=live-toggle]")
    live = page.locator("[data-testid=live]")
    recipient = page.locator("[data-testid=live-recipient] strong")

    def flip(code: str, to: str) -> None:
        expect(recipient).to_have_text(to)  # the next card follows the turn
        live.locator(f'.sk-picker button[data-code="{code}"]').click()

    def seat(index: int) -> Any:
        return live.locator(f'.sk-live-seat[data-seat="{index}"]')

    flip("5", "Ann")  # the deal
    flip("9", "Bob")
    flip("12", "Cyd")
    advice = page.locator("[data-testid=advice]")
    expect(advice).to_contain_text("Ann to play")
    expect(advice).to_contain_text("Bust risk")
    expect(advice.locator(".sk-advice-rec")).to_have_text(re.compile("^(Hit|Stay)$"))
    expect(advice.locator(".sk-advice-reason")).to_contain_text("bust risk")
    page.click("[data-testid=live-stay]")  # Ann stays on 5
    expect(seat(0).locator(".status")).to_have_text("Stayed")
    flip("9", "Bob")  # Bob busts
    expect(seat(1).locator(".status")).to_have_text("Busted")
    flip("STEAL", "Cyd")  # Cyd steals Ann's 5
    page.click("[data-testid=live-steal]")
    seat(0).get_by_role("button", name="Move 5 from Ann").click()
    seat(2).get_by_role("button", name="Move 5 to Cyd").click()
    expect(seat(2).locator("[data-testid=live-score]")).to_have_text("+17")
    expect(seat(0).locator(".sk-line .card")).to_have_count(0)
    page.click("[data-testid=live-stay]")  # Cyd stays: the round is over

    # The round's lines are in the entry panel, checked, and saved as a live round.
    expect(live).to_have_count(0)
    expect(page.locator("[data-testid=notice]")).to_contain_text("live round is over")
    _scores(page, ["0", "0", "+17"])
    codes = [c.get_attribute("data-code") for c in _player(page, 1).locator(".sk-line .card").all()]
    assert codes == ["9", "9"]
    expect(_player(page, 1).locator("[data-testid=bust]")).to_have_attribute("aria-pressed", "true")
    _save(page, 1)
    _totals(page, [0, 0, 17])
    expect(page.locator('.sk-round[data-round="1"] .badge', has_text="Live")).to_be_visible()
    assert errors == [], errors


def test_names_are_refused_whole_and_an_emoji_is_an_avatar(
    live_server: str, chromium_browser: Any
) -> None:
    """The scorekeeper's name fields cut nothing (a maxlength counts UTF-16 units and halves
    an emoji): a name over the server's limit is refused with its message, and a name that
    starts with an emoji shows the whole emoji as its avatar."""
    from playwright.sync_api import expect

    from flip7.scorekeeper.scorecard import MAX_NAME

    page, errors = _page(chromium_browser, 390, 844)
    page.goto(live_server + "/scorekeeper")
    names = page.locator("[data-testid=player-name]")
    expect(names).to_have_count(3)
    too_long = "🎉" * (MAX_NAME + 1)
    for i, name in enumerate(["🎉Ann", "Bob", too_long]):
        names.nth(i).fill(name)
    assert names.nth(2).input_value() == too_long  # nothing cut in the field
    page.click("[data-testid=create-scorecard]")
    error = page.locator("[data-testid=create-error]")
    expect(error).to_be_visible()
    expect(error).to_contain_text(str(MAX_NAME))
    names.nth(2).fill("Cyd")
    page.click("[data-testid=create-scorecard]")
    page.wait_for_url(re.compile(r"/scorekeeper/[^/#]+$"))
    avatar = _player(page, 0).locator(".avatar").first
    expect(avatar).to_have_text("🎉")
    shot(page, "scorekeeper-emoji-avatar-390.png")
    assert not errors, errors
