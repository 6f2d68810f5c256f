"""The bot API in the browser: the host sees the bot accounts that take invitations (in
the waiting room, and in the lobby beside the table) and invites one with a click;
``flip7 bot connect`` (its own process) takes the seat, which the waiting room and the
board show with a "bot account" badge, and plays a whole game beside the browser's human
(whose moves a socket of the same seat makes) and a built-in bot. Another seat of the table
is offered no invitations in the lobby; on a 390 px phone the lobby's list of bot accounts
and the badge fit the screen (screenshots in ``test-artifacts/``)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import time
from typing import Any

import pytest
from browser_helpers import browser_server, create_from_lobby, new_page, shot


def test_the_host_invites_a_bot_account_that_plays_a_game(
    tmp_path_factory: pytest.TempPathFactory, chromium_browser: Any
) -> None:
    import httpx
    from playwright.sync_api import expect
    from server_helpers import SyncSocket, WsPlayer, choose

    from flip7.client.table_client import ws_url

    with browser_server(tmp_path_factory, "bot-api") as base, \
            httpx.Client(base_url=base, timeout=20) as http:
        player = http.post("/api/players", json={"name": "Outsider"}).json()
        token = http.post("/api/players/me/bot",
                          headers={"X-Player-Key": player["key"]}).json()["token"]
        bearer = {"Authorization": f"Bearer {token}"}
        assert http.put("/api/bot/available", json={"available": True},
                        headers=bearer).status_code == 200
        process = subprocess.Popen(
            [sys.executable, "-m", "flip7", "bot", "connect", base, "--token", token,
             "--games", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 20
            while not http.get("/api/bot/account", headers=bearer).json()["online"]:
                assert time.monotonic() < deadline, "the bot never connected"
                time.sleep(0.05)
            page, errors = new_page(chromium_browser)
            table_id = create_from_lobby(page, base, "Ann")
            invite = page.locator("[data-testid=bot-accounts] [data-testid=invite-bot]")
            expect(invite).to_have_count(1)
            # The lobby offers the same list beside the table; the invitation goes from there.
            page.goto(base + "/")
            invites = page.locator(f'[data-table="{table_id}"] [data-testid=lobby-bot-invites]')
            invites.locator("summary").click()
            invites.locator("[data-testid=invite-bot]").click()
            expect(invites.locator("[data-testid=invite-bot]")).to_have_text("Invited")
            page.goto(f"{base}/t/{table_id}")
            seat = page.locator('.seat-row[data-seat="1"]')
            expect(seat).to_contain_text("Outsider")
            expect(seat.locator("[data-testid=bot-account]")).to_have_text("bot account")
            shot(page, "bot-api-waiting-room.png")
            seat_token = page.evaluate(f"localStorage.getItem('flip7.token.{table_id}')")
            host = {"Authorization": f"Bearer {seat_token}"}
            assert http.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                             headers=host).status_code == 200
            page.click("[data-testid=start]")
            expect(page.locator(".seat [data-testid=bot-account]")).to_have_count(1)
            shot(page, "bot-api-board.png")
            # The human's moves: a second socket of the same seat plays them.
            ann = WsPlayer(SyncSocket(f"{ws_url(base)}/ws/tables/{table_id}"), None, seat_token)
            ann.hello()
            rng = random.Random(1)
            while not (ann.state.get("game") or {}).get("over"):
                game = ann.state.get("game")
                if game and game["to_decide"] == game["viewer"] and game["legal_decisions"]:
                    ann.move(choose(game, rng))
                else:
                    ann.recv()
            ann.ws.close()
            out, err = process.communicate(timeout=60)
            assert process.returncode == 0, err
            assert "1 game(s) played" in out
            expect(page.locator(".turn-winner")).to_be_visible()
            assert not errors, errors
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()


# JS for page.evaluate(WIDER_THAN, [selector, width]): the elements of ``selector`` that
# reach past the page's ``width`` (or start left of it), and whether the page itself does.
WIDER_THAN = """([selector, width]) => {
  const past = [...document.querySelectorAll(selector)]
    .filter((el) => { const r = el.getBoundingClientRect(); return r.left < 0 || r.right > width; })
    .map((el) => el.outerHTML.slice(0, 120));
  if (document.documentElement.scrollWidth > width) past.push("the page scrolls sideways");
  return past;
}"""

PHONE = (390, 844)


def scroll_to(locator: Any) -> None:
    """Scroll ``locator``'s element into view at once. Playwright's own scroll first waits for
    the element to keep still, and the lobby's poll or a table update can render it anew
    meanwhile (the element it had found is then detached: the test failed so in CI)."""
    locator.evaluate("element => element.scrollIntoView({block: 'center'})")


def test_only_the_host_is_offered_invitations_and_they_fit_a_phone(
    tmp_path_factory: pytest.TempPathFactory, chromium_browser: Any
) -> None:
    """The lobby offers bot invitations beside a waiting table only to its host (the list
    says ``hosting``), not to another seat's browser; at 390 × 844, in English and German,
    the lobby's list of bot accounts (a long name, the badge, "offline", Invite) and the
    "bot account" badge of the waiting room and the board stay within the screen."""
    import httpx
    from playwright.sync_api import expect

    with browser_server(tmp_path_factory, "bot-api-phone") as base, \
            httpx.Client(base_url=base, timeout=20) as http:
        player = http.post("/api/players", json={"name": "Wolfeschlegelsteinhausen"}).json()
        token = http.post("/api/players/me/bot",
                          headers={"X-Player-Key": player["key"]}).json()["token"]
        bearer = {"Authorization": f"Bearer {token}"}
        assert http.put("/api/bot/available", json={"available": True},
                        headers=bearer).status_code == 200
        made = http.post("/api/tables", json={"player": "Ann", "name": "Friday", "seats": 4})
        table_id, host = made.json()["table"]["id"], made.json()["token"]
        zed = http.post(f"/api/tables/{table_id}/join", json={"player": "Zed"}).json()["token"]
        seat_token = f"localStorage.setItem('flip7.token.{table_id}', '{{}}')"

        guest, guest_errors = new_page(chromium_browser, *PHONE)
        guest.add_init_script(seat_token.format(zed))
        guest.goto(base + "/")
        item = guest.locator(f'[data-table="{table_id}"]')
        expect(item).to_contain_text("Zed")
        expect(item.locator(".btn--primary")).to_be_visible()  # back to its seat: it holds one
        expect(item.locator("[data-testid=lobby-bot-invites]")).to_have_count(0)
        assert not guest_errors, guest_errors
        guest.context.close()

        pages = {}
        for locale, suffix in (("en-US", ""), ("de-DE", "-de")):
            page, errors = pages[suffix] = new_page(chromium_browser, *PHONE, locale=locale)
            page.add_init_script(seat_token.format(host))
            page.goto(base + "/")
            invites = page.locator(f'[data-table="{table_id}"] [data-testid=lobby-bot-invites]')
            invites.locator("summary").click()
            rows = invites.locator(".bot-account-row")
            expect(rows).to_have_count(1)
            expect(rows.locator("[data-testid=bot-account]")).to_be_visible()
            expect(rows.locator("[data-testid=invite-bot]")).to_be_visible()
            scroll_to(invites)
            shot(page.locator(f'[data-table="{table_id}"]'), f"bot-api-lobby-390{suffix}.png")
            assert page.evaluate(WIDER_THAN, [
                "[data-testid=lobby-bot-invites], .bot-account-row, .bot-account-row > *",
                PHONE[0]]) == []
        # The bot account takes the seat it is invited to (by REST: no stream needed).
        page = pages[""][0]
        with page.expect_response(re.compile(r"/invitations$")) as answer:
            page.locator("[data-testid=invite-bot]").click()
        expect(page.locator("[data-testid=invite-bot]")).to_have_text("Invited")
        taken = http.post(f"/api/bot/invitations/{answer.value.json()['id']}/accept",
                          headers=bearer)
        assert taken.status_code == 200, taken.text
        for suffix, (page, _errors) in pages.items():
            page.goto(f"{base}/t/{table_id}")
            badge = page.locator(".seat-row [data-testid=bot-account]")
            expect(badge).to_be_visible()
            scroll_to(badge)
            shot(page, f"bot-api-waiting-room-390{suffix}.png")
            assert page.evaluate(WIDER_THAN, [
                ".seat-row, .seat-row > *, .seat-row [data-testid=bot-account]",
                PHONE[0]]) == []
        # At play, on the board (the bot account's seat waits: no stream plays it here).
        assert http.post(f"/api/tables/{table_id}/start", headers={
            "Authorization": f"Bearer {host}"}).status_code == 200
        for suffix, (page, errors) in pages.items():
            badge = page.locator(".seat [data-testid=bot-account]")
            expect(badge).to_have_count(1)
            scroll_to(badge)
            shot(page, f"bot-api-board-390{suffix}.png")
            assert page.evaluate(WIDER_THAN, [
                ".seat, .seat [data-testid=bot-account]", PHONE[0]]) == []
            assert not errors, errors
            page.context.close()
