"""Browser tests of the players' pages (issue 16): the identity made on the first visit (or
skipped: anonymous play stays possible), a short rated game against bots with the rating
change on its end screen, the profile (statistics, rating chart, history with its replay,
"as I saw it", record and coach links), the leaderboard, renaming, and taking the identity
to a second browser with a transfer code.

A real server (fresh SQLite database, no bot delay), Debian's chromium, Playwright (sync
API); screenshots go to ``test-artifacts/`` (desktop and a 390 px phone).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import browser_server, new_page, shot

TARGET = 40  # a short game: a few rounds


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # Short games may be rated here (a 200-point game takes too long for a browser test).
    with browser_server(tmp_path_factory, "players", seed=370,
                        rated_min_target_score=TARGET) as url:
        yield url


def _identity(page: Any) -> dict[str, str]:
    raw = page.evaluate("() => window.localStorage.getItem('flip7.player')")
    assert raw, "no identity in localStorage"
    data: dict[str, str] = json.loads(raw)
    return data


def _decide(page: Any) -> None:
    """Make the decision the panel asks for: hit below 20, else stay; otherwise the first
    legal option (an opponent for a target)."""
    from test_browser import _decide as decide

    decide(page, {})


def play_game(page: Any, server: str, *, levels: tuple[str, ...] = ("Easy", "Medium"),
              target: int = TARGET, rated: bool | None = True, name: str = "Ann") -> str:
    """Create a table (with this page's identity, if it has one), add bots of ``levels``, and
    play to the end in the page, the human seat hitting below 20; the table's id."""
    from playwright.sync_api import expect

    raw = page.evaluate("() => window.localStorage.getItem('flip7.player')")
    me = json.loads(raw) if raw else None
    body: dict[str, Any] = {"name": "Rated night" if rated else "Friday", "seats": 1 + len(levels),
                            "player": me["name"] if me else name,
                            "rules": {"target_score": target}}
    if rated is not None:
        body["rated"] = rated
    created = page.request.post(server + "/api/tables", data=body,
                                headers={"X-Player-Key": me["key"]} if me else {})
    assert created.status == 201, created.text()
    answer = created.json()
    if rated is not None:
        assert answer["table"]["rated"] is rated
    table_id = answer["table"]["id"]
    page.evaluate("([k, v]) => window.localStorage.setItem(k, v)",
                  [f"flip7.token.{table_id}", answer["token"]])
    page.goto(f"{server}/t/{table_id}")
    for level in levels:
        before = page.locator('.seat-row[data-kind="bot"]').count()
        page.select_option("#bot-level", level)
        page.click("[data-testid=add-bot]")
        expect(page.locator('.seat-row[data-kind="bot"]')).to_have_count(before + 1)
    page.click("[data-testid=start]")
    expect(page.locator(".board")).to_be_visible()
    decided = 0
    while True:
        page.wait_for_selector("#decision[data-state=ready], [data-testid=endscreen]")
        if page.locator("[data-testid=endscreen]").count():
            break
        _decide(page)
        decided += 1
        assert decided < 300, "the game does not end"
    return str(table_id)


def test_first_visit_welcome_can_be_skipped(live_server: str, chromium_browser: Any) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1366, 800)
    page.goto(live_server + "/")
    welcome = page.locator("[data-testid=welcome]")
    expect(welcome).to_be_visible()
    # Why to keep an identity is said in words on a laptop too (it was only a tooltip).
    expect(welcome.locator(".welcome-why")).to_be_visible()
    shot(page, "players-welcome.png")
    page.click("[data-testid=identity-later]")
    expect(welcome).to_be_hidden()
    page.reload()
    expect(page.locator(".create-form")).to_be_visible()
    expect(welcome).to_be_hidden()  # "Not now" is remembered
    assert page.evaluate("() => window.localStorage.getItem('flip7.player')") is None
    # Anonymous: the chip leads to the page that makes an identity, and says it plainly.
    chip = page.locator("[data-testid=player-chip]")
    expect(chip).to_have_accessible_name(re.compile("anonymous"))
    chip.click()
    expect(page).to_have_url(live_server + "/me")
    expect(page.locator("[data-testid=identity-page]")).to_be_visible()
    expect(page.locator("[data-testid=no-recovery]").first).to_have_text(
        "There is no password and no e-mail: if you lose this browser's data and have no "
        "other device with your identity, it cannot be recovered.")
    page.fill("#identity-name", "Zed")
    page.click("[data-testid=identity-page] [data-testid=identity-save]")
    expect(page.locator("[data-testid=profile-name]")).to_contain_text("Zed")
    expect(chip).to_contain_text("Zed")
    me = _identity(page)
    assert me["name"] == "Zed" and me["key"].startswith(me["id"] + ".")

    # A key the server does not know: this browser plays anonymously again, nothing breaks.
    page.evaluate("() => window.localStorage.setItem('flip7.player', JSON.stringify("
                  "{id: 'nobody', name: 'Ghost', key: 'nobody.wrong'}))")
    page.goto(live_server + "/me")
    expect(page.locator("[data-testid=identity-page]")).to_be_visible()
    assert page.evaluate("() => window.localStorage.getItem('flip7.player')") is None
    assert errors == [], errors


def test_identity_rated_game_profile_leaderboard_transfer(
    live_server: str, chromium_browser: Any
) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1280, 860)
    page.goto(live_server + "/")
    expect(page.locator("[data-testid=welcome]")).to_be_visible()
    page.fill("#welcome-name", "Ann")
    page.click("[data-testid=welcome] [data-testid=identity-save]")
    expect(page.locator("[data-testid=welcome]")).to_be_hidden()
    chip = page.locator("[data-testid=player-chip]")
    expect(chip).to_contain_text("Ann")
    me = _identity(page)
    assert me["name"] == "Ann"

    # A short rated game against two bots; the end screen shows the rating changes.
    table_id = play_game(page, live_server)
    end = page.locator("[data-testid=endscreen]")
    summary = end.locator("[data-testid=end-summary]")
    expect(summary.locator("[data-testid=end-rated]")).to_have_text("Rated")
    mine = summary.locator("tr.is-self [data-testid=end-rating-delta]")
    expect(mine).to_have_count(1)
    expect(summary.locator("[data-testid=end-rating-delta]")).to_have_count(3)
    delta = int(mine.get_attribute("data-delta") or "0")
    assert re.fullmatch(r"[+−±]\d+", mine.locator("span[aria-hidden]").nth(1).inner_text())
    page.wait_for_timeout(400)
    shot(page, "players-end-screen.png")
    game_id = page.locator("[data-testid=replay-link]").get_attribute("href").rsplit("/", 1)[-1]
    served = page.request.get(f"{live_server}/api/games/{game_id}/summary").json()
    seat0 = next(s for s in served["seats"] if s["player_id"] == me["id"])
    assert seat0["rating"]["delta"] == delta
    rows = summary.locator("[data-testid=end-seat]")
    expect(rows).to_have_count(3)

    # The profile, from the end screen.
    summary.locator("[data-testid=end-profile]").click()
    expect(page).to_have_url(live_server + "/me")
    profile = page.locator("[data-testid=profile]")
    expect(profile.locator("[data-testid=profile-name]")).to_contain_text("Ann")
    expect(profile.locator("[data-testid=stat-games] .stat-value")).to_have_text("1")
    wins = "1" if seat0["winner"] else "0"
    expect(profile.locator("[data-testid=stat-wins] .stat-value")).to_have_text(wins)
    expect(profile.locator("[data-testid=rating-chart] circle")).to_have_count(1)
    rating = profile.locator("[data-testid=profile-rating] .profile-rating-value")
    expect(rating).to_have_text(str(seat0["rating"]["after"]))
    # One rated game: a provisional rating, and so marked.
    expect(profile.locator("[data-testid=profile-rating] [data-testid=rating-provisional]")
           ).to_have_count(1)
    history = profile.locator("[data-testid=history] .history-item")
    expect(history).to_have_count(1)
    item = history.first
    expect(item.locator("[data-testid=rating-delta]")).to_have_attribute("data-delta", str(delta))
    expect(item.locator("[data-testid=history-seat-replay]")).to_have_attribute(
        "href", f"/replay/game/{game_id}?seat={seat0['seat']}")
    expect(item.locator("[data-testid=history-record]")).to_have_attribute(
        "href", f"/api/games/{game_id}/record")
    expect(item.locator("[data-testid=history-coach]")).to_have_attribute(
        "href", f"/coach/{game_id}/{seat0['seat']}")
    shot(page, "players-profile.png")
    page.screenshot(path=str(_artifact("players-profile-full.png")), full_page=True)

    # "As I saw it": the seat's replay.
    item.locator("[data-testid=history-seat-replay]").click()
    expect(page.locator("[data-testid=seat-view]")).to_contain_text("Ann")
    expect(page.locator("[data-testid=step-info]")).to_have_text(re.compile(r"^Step 1 of \d+"))
    page.go_back()
    expect(page.locator("[data-testid=profile-name]")).to_contain_text("Ann")

    # The leaderboard: Ann and the two bot levels.
    page.click("[data-testid=leaderboard-link]")
    expect(page).to_have_url(live_server + "/leaderboard")
    board = page.locator("[data-testid=leaderboard]")
    ann = board.locator("[data-testid=board-players-row]", has_text="Ann")
    expect(ann).to_have_count(1)
    expect(ann).to_have_class(re.compile("is-self"))
    expect(ann.locator("[data-testid=board-rating]")).to_have_text(str(seat0["rating"]["after"]))
    expect(ann.locator("[data-testid=rating-provisional]")).to_have_count(1)
    bots = board.locator("[data-testid=board-bots-row]")
    expect(bots.filter(has_text="Easy")).to_have_count(1)
    expect(bots.filter(has_text="Medium")).to_have_count(1)
    shot(page, "players-leaderboard.png")

    # Use on another device: a transfer code, opened on a phone.
    page.goto(live_server + "/me")
    page.click("[data-testid=transfer-make]")
    code = page.locator("[data-testid=transfer-code]")
    expect(code).to_be_visible()
    link = page.locator("[data-testid=transfer-link]").input_value()
    assert link.endswith("/link/" + code.inner_text())
    page.locator("[data-testid=transfer-link]").scroll_into_view_if_needed()
    shot(page, "players-transfer.png")

    phone, phone_errors = new_page(chromium_browser, 390, 844, has_touch=True, is_mobile=True)
    phone.goto(live_server + "/link/" + code.inner_text())
    expect(phone.locator("[data-testid=claim-page]")).to_be_visible()
    shot(phone, "players-claim-phone.png")
    phone.click("[data-testid=claim-accept]")
    expect(phone).to_have_url(live_server + "/me")
    expect(phone.locator("[data-testid=profile-name]")).to_contain_text("Ann")
    expect(phone.locator("[data-testid=stat-games] .stat-value")).to_have_text("1")
    other = _identity(phone)
    assert other["id"] == me["id"] and other["key"] != me["key"]
    shot(phone, "players-profile-phone.png")
    phone.screenshot(path=str(_artifact("players-profile-phone-full.png")), full_page=True)
    # The code works once.
    again = phone.request.post(live_server + "/api/players/claim", data={"code": code.inner_text()})
    assert again.status == 404

    # Rename on the phone; the first browser keeps its own key and sees the new name.
    phone.fill("#rename-name", "Ann B")
    phone.click("[data-testid=rename-save]")
    expect(phone.locator("[data-testid=profile-name]")).to_contain_text("Ann B")
    page.reload()
    expect(page.locator("[data-testid=profile-name]")).to_contain_text("Ann B")
    phone.goto(live_server + "/leaderboard")
    expect(phone.locator("[data-testid=board-players-row]", has_text="Ann B")).to_have_count(1)
    shot(phone, "players-leaderboard-phone.png")
    # Nothing wider than the phone.
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390

    # The end screen on the phone (watching the table): the same rating changes.
    phone.goto(f"{live_server}/t/{table_id}")
    phone_summary = phone.locator("[data-testid=endscreen] [data-testid=end-summary]")
    expect(phone_summary.locator("[data-testid=end-rating-delta]")).to_have_count(3)
    row = phone_summary.locator(f'tr[data-seat="{seat0["seat"]}"]')
    expect(row.locator("[data-testid=end-rating-delta]")).to_have_attribute(
        "data-delta", str(delta))
    phone.wait_for_timeout(400)
    shot(phone, "players-end-screen-phone.png")

    # In German: the profile's words come from the catalogue.
    phone.evaluate("() => window.localStorage.setItem('flip7.lang', 'de')")
    phone.goto(live_server + "/me")
    expect(phone.locator("#stats-title")).to_have_text("Statistiken")
    expect(phone.locator("[data-testid=history-coach]")).to_have_text("Mit dem Coach analysieren")
    shot(phone, "players-profile-phone-de.png")

    # Anyone's view of Ann's profile: the figures and the games, none of her own panels.
    guest, guest_errors = new_page(chromium_browser, 1280, 860)
    guest.goto(f"{live_server}/players/{me['id']}")
    expect(guest.locator("[data-testid=profile-name]")).to_have_text("Ann B")
    expect(guest.locator("[data-testid=stat-games] .stat-value")).to_have_text("1")
    expect(guest.locator("[data-testid=history-seat-replay]")).to_have_text("As Ann B saw it")
    expect(guest.locator("[data-testid=transfer-panel]")).to_have_count(0)
    expect(guest.locator("#rename-name")).to_have_count(0)
    assert errors == [], errors
    assert phone_errors == [], phone_errors
    assert guest_errors == [], guest_errors


def _artifact(name: str) -> Any:
    from browser_helpers import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name


def test_the_lobby_rated_switch_follows_the_rules_until_set(
    live_server: str, chromium_browser: Any
) -> None:
    """The create form's "Rated game" switch shows the server's default for the rules chosen
    (a house rule that changes the game: unrated), and the player's own choice wins."""
    import httpx
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1280, 900)
    page.goto(live_server + "/")
    page.locator("[data-testid=identity-later]").click()
    page.locator(".more-rules summary").click()
    rated = page.locator("#create-rated")
    expect(rated).to_be_checked()  # the default rules: rated
    page.locator("label[for=create-brutal]").click()  # Brutal changes the game
    expect(rated).not_to_be_checked()
    page.locator("label[for=create-brutal]").click()
    expect(rated).to_be_checked()
    page.fill("#create-target", "150")
    expect(rated).not_to_be_checked()
    page.fill("#create-player", "Ann")
    page.fill("#create-name", "Short game")
    page.click("[data-testid=create]")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    table_id = page.url.rsplit("/", 1)[1]
    assert httpx.get(f"{live_server}/api/tables/{table_id}").json()["table"]["rated"] is False

    # Set by hand: a short game the players want rated all the same.
    page.goto(live_server + "/")
    page.locator(".more-rules summary").click()
    page.fill("#create-target", "150")
    expect(rated).not_to_be_checked()
    page.locator("label[for=create-rated]").click()
    expect(rated).to_be_checked()
    page.fill("#create-target", "120")
    expect(rated).to_be_checked()  # the player's choice stays
    page.fill("#create-player", "Ann")
    page.fill("#create-name", "Short but rated")
    page.click("[data-testid=create]")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    table_id = page.url.rsplit("/", 1)[1]
    assert httpx.get(f"{live_server}/api/tables/{table_id}").json()["table"]["rated"] is True
    # The lobby marks the unrated table.
    page.goto(live_server + "/")
    expect(page.locator(".badge--unrated").first).to_have_text("Unrated")
    assert errors == [], errors
