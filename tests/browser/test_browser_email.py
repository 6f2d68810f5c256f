"""Turn alerts by e-mail in the browser (issue "Tables that wait"), on a real server that
mails a local SMTP server the test starts (aiosmtpd): on a phone, Ann adds her address on
her profile, opens the link the e-mail carries, and her profile says the alerts go there;
the unsubscribe link of a message opens a page that turns them off.

Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from browser_helpers import browser_server, new_page, shot
from mail_helpers import Inbox, link_of, local_smtp

pytest.importorskip("aiosmtpd")


@pytest.fixture(scope="module")
def mail_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Inbox]]:
    with local_smtp() as (smtp_url, inbox), browser_server(
            tmp_path_factory, "email", smtp_url=smtp_url, email_batch_seconds=0.2) as url:
        yield url, inbox


def test_add_and_verify_an_address_then_unsubscribe(
    mail_server: tuple[str, Inbox], chromium_browser: Any
) -> None:
    from playwright.sync_api import expect

    url, inbox = mail_server
    ann = httpx.post(f"{url}/api/players", json={"name": "Ann"}, timeout=10).json()
    page, errors = new_page(chromium_browser, 390, 844)
    page.add_init_script(f"localStorage.setItem('flip7.player', {json.dumps(json.dumps(ann))})")
    page.goto(url + "/me")
    panel = page.locator("[data-testid=email-panel]")
    expect(panel).to_be_visible()
    panel.locator("[data-testid=email-input]").fill("ann@example.org")
    panel.locator("[data-testid=email-send]").click()
    expect(panel.locator("[data-testid=email-state]")).to_contain_text("Open the link we sent")
    [message] = inbox.wait(1)
    page.goto(f"{url}/email/verify/{link_of(message, 'verify')}")
    expect(page.locator("[data-testid=email-result]")).to_have_text(
        "Done: turn alerts go to ann@example.org.")
    page.locator("[data-testid=email-page]").get_by_role("link", name="Your profile").click()
    expect(panel.locator("[data-testid=email-state]")).to_have_text(
        "Alerts go to ann@example.org.")
    expect(panel.locator("[data-testid=email-alerts]")).to_be_checked()
    panel.scroll_into_view_if_needed()
    shot(page, "email-verified-390.png")

    page.goto(f"{url}/email/unsubscribe/{link_of(message, 'unsubscribe')}")
    expect(page.locator("[data-testid=email-result]")).to_contain_text(
        re.compile("no more turn alerts go to ann@example.org"))
    page.goto(url + "/me")
    expect(panel.locator("[data-testid=email-alerts]")).not_to_be_checked()
    assert not errors, errors
    page.context.close()
