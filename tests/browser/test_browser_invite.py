"""Browser tests of invites and names (issue 14): a real server, Debian's chromium,
Playwright (sync API).

Checked: a name that starts with an emoji shows the whole emoji as its avatar (in the
waiting room and on the board), never half a surrogate pair (U+FFFD); the name inputs count
characters against the server's limit (GET /api/limits) and cut nothing, the server's
refusal being shown; the invite panel of a page opened at 127.0.0.1 warns that friends
cannot open the link and says how to let them (restart with HOST=0.0.0.0) or offers the
network addresses the server listens on; with a public URL the link starts with it.

Screenshots go to ``test-artifacts/`` at the repository root.
"""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import browser_server, create_from_lobby, new_page, shot

from flip7.server.base.settings import Settings

REPLACEMENT = "\ufffd"


def test_emoji_avatar_name_limits_and_the_loopback_warning(
    tmp_path_factory: pytest.TempPathFactory, chromium_browser: Any
) -> None:
    import httpx
    from playwright.sync_api import expect

    most = Settings().player_name_chars
    with browser_server(tmp_path_factory, "invite-loopback") as base:
        page, errors = new_page(chromium_browser)
        page.goto(base + "/")
        # One emoji past the limit: counted in characters, not cut, refused by the server.
        too_long = "🎉" * (most + 1)
        page.fill("#create-player", too_long)
        counter = page.locator("#create-player-count")
        expect(counter).to_have_text(f"{most + 1} / {most} characters: 1 too many")
        assert page.input_value("#create-player") == too_long
        page.click("[data-testid=create]")
        expect(page.locator(".create-form .form-error")).to_contain_text(
            f"at most {most} characters")
        page.fill("#create-player", "🎉" * most)
        expect(counter).to_have_text(f"{most} / {most}")
        shot(page, "invite-name-counter.png")

        table_id = create_from_lobby(page, base, "🎉Ann")
        avatar = page.locator('.seat-row[data-seat="0"] .avatar')
        expect(avatar).to_have_text("🎉")
        warning = page.locator("[data-testid=invite-warning]")
        expect(warning).to_contain_text("Friends cannot open this link")
        expect(warning).to_contain_text("make serve HOST=0.0.0.0")
        link = page.locator("[data-testid=invite-url]")
        expect(link).to_have_value(f"{base}/t/{table_id}")
        shot(page, "invite-loopback-warning.png")

        # On the board too: two bots join and the game starts.
        token = page.evaluate(f"localStorage.getItem('flip7.token.{table_id}')")
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=base, headers=headers, timeout=10) as client:
            for _ in range(2):
                assert client.post(f"/api/tables/{table_id}/bots",
                                   json={"bot": "basic"}).status_code == 200
            assert client.post(f"/api/tables/{table_id}/start").status_code == 200
        expect(page.locator(".board")).to_be_visible()
        expect(page.locator(".board .avatar", has_text="🎉").first).to_be_visible()
        shot(page, "invite-emoji-board.png")
        assert REPLACEMENT not in page.locator("body").inner_text()
        assert not errors, errors


def test_the_invite_panel_offers_the_network_addresses(
    tmp_path_factory: pytest.TempPathFactory, chromium_browser: Any
) -> None:
    from playwright.sync_api import expect

    lan = "http://192.168.1.20:8000"
    with browser_server(tmp_path_factory, "invite-lan", host="0.0.0.0",
                        reachable_urls=(lan,)) as base:
        page, errors = new_page(chromium_browser, 390, 844)
        table_id = create_from_lobby(page, base, "Ann")
        warning = page.locator("[data-testid=invite-warning]")
        expect(warning).to_contain_text("Friends on your network can use")
        expect(warning.locator("input")).to_have_value(f"{lan}/t/{table_id}")
        expect(warning).not_to_contain_text("HOST=0.0.0.0")
        # In one step in the page: the waiting room may draw itself again meanwhile (the
        # bot levels arriving), and an element handle held across that is detached.
        warning.evaluate("(el) => el.scrollIntoView({block: 'nearest'})")
        shot(page, "invite-lan-addresses-phone.png")
        assert not errors, errors


def test_a_public_url_makes_the_invite_link(
    tmp_path_factory: pytest.TempPathFactory, chromium_browser: Any
) -> None:
    from playwright.sync_api import expect

    public = "https://flip7.example.org"
    with browser_server(tmp_path_factory, "invite-public", public_url=public) as base:
        page, errors = new_page(chromium_browser)
        table_id = create_from_lobby(page, base, "Ann")
        expect(page.locator("[data-testid=invite-url]")).to_have_value(
            f"{public}/t/{table_id}")
        expect(page.locator("[data-testid=invite-warning]")).to_have_count(0)
        assert not errors, errors
