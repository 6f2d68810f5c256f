"""Browser tests of keeping the table going (issue 14), on a real server with Debian's
chromium (Playwright, sync API):

* a player closes their tab on their turn; after ``handover_grace`` the other player hands
  the seat to a bot from the seat's "Hand to a bot" button (counting down until then), the
  bot plays it, and the player who comes back gets the seat again;
* the rematch's ready check at the end screen: bots show ready, a player who closed the tab
  shows away and then leaving, and once the others are ready the next game starts without
  them.

The humans' moves are made by protocol clients holding the same seat tokens as the pages
(a seat may have several connections), so that the pages only show what happens; the
pages' own clicks are the hand-over and the ready buttons. Screenshots go to
``test-artifacts/``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import browser_server, new_page, shot

GRACE = 2.0  # handover_grace of the server, seconds
WAIT = 3.0  # rematch_wait


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with browser_server(tmp_path_factory, "table-life", seed=41, handover_grace=GRACE,
                        handover_auto=600.0, rematch_wait=WAIT) as url:
        yield url


def _table(url: str, humans: int, bots: int, **options: Any) -> tuple[str, list[str]]:
    """A table of ``humans`` (Ann, P1, P2, …) and ``bots``, not started; its id and tokens."""
    import httpx
    from server_helpers import seated_game

    with httpx.Client(base_url=url, timeout=20) as http:
        table = seated_game(http, humans=humans, bots=bots, **options)
    return table["id"], table["tokens"]


def _start(url: str, table_id: str, token: str) -> None:
    import httpx
    from server_helpers import auth

    answer = httpx.post(f"{url}/api/tables/{table_id}/start", headers=auth(token), timeout=20)
    assert answer.status_code == 200, answer.text


def _player(url: str, table_id: str, token: str) -> Any:
    from server_helpers import SyncSocket, WsPlayer

    ws = SyncSocket(url.replace("http", "ws") + f"/ws/tables/{table_id}")
    player = WsPlayer(ws, None, token)
    player.seat = player.hello()["seat"]
    return player


def _seat_page(browser: Any, url: str, table_id: str, token: str) -> tuple[Any, list[str]]:
    from playwright.sync_api import expect

    page, errors = new_page(browser, 1280, 860)
    page.add_init_script(f"localStorage.setItem('flip7.token.{table_id}', '{token}')")
    page.goto(f"{url}/t/{table_id}")
    expect(page.locator("[data-testid=conn]")).to_have_text(re.compile("Live"))
    return page, errors


def test_a_player_closes_the_tab_on_their_turn_and_the_seat_goes_to_a_bot(
        live_server: str, chromium_browser: Any) -> None:
    from playwright.sync_api import expect
    from server_helpers import until_turn_of

    table_id, tokens = _table(live_server, humans=2, bots=1)
    ann_page, ann_errors = _seat_page(chromium_browser, live_server, table_id, tokens[0])
    bob_page, bob_errors = _seat_page(chromium_browser, live_server, table_id, tokens[1])
    ann = _player(live_server, table_id, tokens[0])
    _start(live_server, table_id, tokens[0])
    # Ann's moves come from her protocol client, up to Bob's turn (his page alone holds
    # his seat).
    until_turn_of([ann], 1, random.Random(3))
    expect(bob_page.locator(".seat.is-me .seat-turn")).to_be_visible()
    bob_context = bob_page.context
    bob_page.close()  # Bob closes his tab on his turn

    bob_seat = ann_page.locator('.seat[data-seat="1"]')
    expect(bob_seat.locator("[data-testid=away]")).to_have_text("away")
    # The bar at the bottom, which everyone sees, says it too, with its own hand-over
    # button: on a phone the seat is usually scrolled away (issue "Tables that wait").
    note = ann_page.locator("#decision [data-testid=away-note]")
    expect(note).to_contain_text("P1 is away")
    expect(note.locator("[data-testid=handover]")).to_have_text(
        re.compile(r"Hand to a bot \(in \d+ s\)"))
    ann_page.set_viewport_size({"width": 390, "height": 844})
    ann_page.evaluate("window.scrollTo(0, 0)")
    box = note.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844, box
    shot(ann_page, "table-life-away-bar-390.png")
    ann_page.set_viewport_size({"width": 1280, "height": 860})
    button = bob_seat.locator("[data-testid=handover]")
    expect(button).to_be_disabled()
    expect(button).to_have_text(re.compile(r"Hand to a bot \(in \d+ s\)"))
    shot(ann_page, "table-life-away.png")
    expect(button).to_be_enabled(timeout=int(GRACE * 1000) + 3000)
    expect(button).to_have_text("Hand to a bot")
    button.click()
    expect(bob_seat.locator("[data-testid=stand-in]")).to_have_text("away · bot plays")
    expect(ann_page.locator("[data-testid=log]")).to_contain_text(
        "Ann handed P1’s seat to a bot until they are back")
    expect(bob_seat.locator("[data-testid=handover]")).to_have_count(0)
    expect(note).to_have_count(0)
    shot(ann_page, "table-life-stand-in.png")

    # Bob comes back (the same browser: his seat's token is still there).
    back = bob_context.new_page()
    back_errors: list[str] = []
    back.on("pageerror", lambda exc: back_errors.append(str(exc)))
    back.goto(f"{live_server}/t/{table_id}")
    expect(back.locator(".seat.is-me .seat-name")).to_have_text("P1")
    expect(back.locator("[data-testid=stand-in]")).to_have_count(0)
    expect(back.locator(".chip--watch:visible")).to_have_count(0)
    expect(bob_seat.locator("[data-testid=stand-in]")).to_have_count(0)
    expect(ann_page.locator("[data-testid=log]")).to_contain_text("P1 is back and plays again")
    shot(back, "table-life-returned.png")
    ann.ws.close()
    assert ann_errors == [] and bob_errors == [] and back_errors == [], (
        ann_errors, bob_errors, back_errors)


def test_the_rematch_ready_check_with_one_player_gone(
        live_server: str, chromium_browser: Any) -> None:
    from playwright.sync_api import expect
    from server_helpers import play_to_end

    table_id, tokens = _table(live_server, humans=3, bots=1, rules={"target_score": 30})
    pages = [_seat_page(chromium_browser, live_server, table_id, t) for t in tokens]
    (ann_page, ann_errors), (bob_page, bob_errors), (cyd_page, _) = pages
    players = [_player(live_server, table_id, t) for t in tokens]
    _start(live_server, table_id, tokens[0])
    play_to_end(players, random.Random(5))
    for p in players:
        p.ws.close()

    end = ann_page.locator("[data-testid=endscreen]")
    expect(end).to_be_visible()
    rows = end.locator(".ranking-row")
    # On a phone the player's own name stays whole beside "You" and "not ready" (their
    # badges go under it when the row is short of room).
    size = ann_page.viewport_size
    ann_page.set_viewport_size({"width": 360, "height": 740})
    own = rows.filter(has=ann_page.locator(".badge--you")).locator(".ranking-name")
    expect(own).to_have_text("Ann")
    assert own.evaluate("el => el.scrollWidth <= el.clientWidth"), "the own name is cut"
    shot(ann_page, "table-life-end-360.png")
    ann_page.set_viewport_size(size)
    bot = rows.filter(has_text="Basic bot 1")
    expect(bot.locator("[data-testid=ready-state]")).to_have_text("ready")
    expect(rows.filter(has_text="P1").locator("[data-testid=ready-state]")).to_have_text(
        "not ready")
    cyd_page.close()  # Cyd closes her tab at the end screen
    cyd = rows.filter(has_text="P2").locator("[data-testid=ready-state]")
    expect(cyd).to_have_text("away")

    ready = end.locator("[data-testid=rematch]")
    expect(ready).to_have_text("Ready for a rematch")
    ready.click()
    expect(ready).to_have_text("Not ready after all")
    expect(rows.filter(has_text="Ann").locator("[data-testid=ready-state]")).to_have_text("ready")
    expect(end.locator("[data-testid=ready-wait]")).to_contain_text("P1")
    shot(ann_page, "table-life-ready-check.png")
    # Away for rematch_wait, Cyd is leaving: the rematch waits only for Bob now.
    expect(cyd).to_have_text("leaving", timeout=int(WAIT * 1000) + 5000)
    expect(end.locator("[data-testid=ready-wait]")).not_to_contain_text("P2")
    expect(bob_page.locator("[data-testid=endscreen] .ranking-row").filter(has_text="Ann")
           .locator("[data-testid=ready-state]")).to_have_text("ready")
    shot(bob_page, "table-life-leaving.png")
    bob_page.locator("[data-testid=endscreen] [data-testid=rematch]").click()

    for page in (ann_page, bob_page):
        expect(page.locator(".chip--state")).to_have_text("Playing · game 2")
        expect(page.locator("[data-testid=endscreen]")).to_have_count(0)
        expect(page.locator(".board .seat")).to_have_count(3)
        expect(page.locator(".seat-name", has_text="P2")).to_have_count(0)
    shot(ann_page, "table-life-game-2.png")
    assert ann_errors == [] and bob_errors == [], (ann_errors, bob_errors)
