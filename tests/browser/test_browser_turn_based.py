"""A turn-based game in the browser (issue "Tables that wait"), on a real server with
Debian's chromium: Ann makes a turn-based table in the lobby's form (two days a move),
Bob finds it among the turn-based tables on his phone and joins, Ann adds a bot and starts;
the board says until when the player to decide has; the server restarts on the same port
and database: both pages come back by themselves, the clock is the one it was (a stored
deadline, not a fresh one), and the game goes on from the page.

Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path
from typing import Any

import httpx
from browser_helpers import new_page, shot


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _table(url: str, table_id: str) -> dict[str, Any]:
    table: dict[str, Any] = httpx.get(f"{url}/api/tables/{table_id}", timeout=10).json()["table"]
    return table


def _decide(page: Any) -> None:
    """The page's player takes the first decision its panel offers (Stay when it may)."""
    from playwright.sync_api import expect

    panel = page.locator("#decision")
    expect(panel).to_have_attribute("data-state", "ready")
    stay = panel.locator('.decision-main [data-decision="stay"]')
    (stay if stay.count() else panel.locator(".decision-main button:not(:disabled)").first).click()


def test_a_turn_based_game_by_two_browsers_across_a_server_restart(
    tmp_path: Path, chromium_browser: Any
) -> None:
    from playwright.sync_api import expect
    from server_helpers import threaded_server

    from flip7.server.base.settings import Settings

    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 't.db'}", seed=21,
                        bot_delay=0.0)  # fmt: skip
    port = _free_port()
    with threaded_server(settings, port) as url:
        ann, ann_errors = new_page(chromium_browser, 1366, 800)
        ann.goto(url + "/")
        ann.fill("#create-player", "Ann")
        ann.select_option("#create-pace", "turn_based")
        expect(ann.locator("#create-timer-on")).to_be_hidden()
        ann.select_option("#create-move-hours", "48")
        ann.select_option("#create-seats", "3")
        ann.click("[data-testid=create]")
        ann.wait_for_url(re.compile(r"/t/[^/]+$"))
        table_id = ann.url.rsplit("/", 1)[1]
        assert _table(url, table_id)["pace"] == "turn_based"
        assert _table(url, table_id)["move_hours"] == 48

        bob, bob_errors = new_page(chromium_browser, 390, 844)
        bob.goto(url + "/")
        item = bob.locator(f"[data-testid=turn-based-tables] [data-table='{table_id}']")
        expect(item).to_contain_text("2 days per move")
        expect(bob.locator(f"[data-testid=tables] [data-table='{table_id}']")).to_have_count(0)
        shot(bob.locator("section[aria-labelledby=turn-based-title]"), "turn-based-lobby-390.png")
        item.get_by_role("button", name=re.compile("^Join")).click()
        bob.fill("#name-dialog-input", "Bob")
        bob.click("[data-testid=name-dialog-ok]")
        bob.wait_for_url(re.compile(rf"/t/{table_id}$"))

        expect(ann.locator('.seat-row[data-kind="human"]')).to_have_count(2)
        ann.click("[data-testid=add-bot]")
        ann.click("[data-testid=start]")
        pages = {0: ann, 1: bob}
        table = _table(url, table_id)
        deadline = time.monotonic() + 20
        while table["game"] is None or table["game"]["to_decide"] not in pages:
            assert time.monotonic() < deadline, table  # the bot moves at once
            time.sleep(0.1)
            table = _table(url, table_id)
        clock = table["turn_deadline"]
        assert clock is not None and 47 * 3600 < clock - time.time() <= 48 * 3600
        decider = pages[table["game"]["to_decide"]]
        countdown = decider.locator(".countdown").first
        expect(countdown).to_contain_text("until")
        shown = countdown.inner_text()
        shot(ann, "turn-based-board-1366.png")
        version = table["version"]

    # A restart on the same port and database: the pages reconnect by themselves.
    with threaded_server(settings, port) as url:
        for page in (ann, bob):
            expect(page.locator("[data-testid=conn]")).to_have_text(re.compile("Live"),
                                                                    timeout=30_000)
        table = _table(url, table_id)
        assert table["version"] == version and table["turn_deadline"] == clock
        countdown = decider.locator(".countdown").first
        expect(countdown).to_have_text(shown)
        shot(bob, "turn-based-after-restart-390.png")
        _decide(decider)
        deadline = time.monotonic() + 15
        while _table(url, table_id)["version"] <= version:
            assert time.monotonic() < deadline, "the move from the page was never applied"
            time.sleep(0.1)
        # Chromium itself logs each reconnection the pages tried while the server was
        # down (how many depends on how long the restart took): not the app's errors.
        refused = re.compile(r"WebSocket connection to '.*' failed: .*ERR_CONNECTION_REFUSED")
        ann_errors[:] = [e for e in ann_errors if not refused.fullmatch(e)]
        bob_errors[:] = [e for e in bob_errors if not refused.fullmatch(e)]
        assert not ann_errors and not bob_errors, (ann_errors, bob_errors)
        ann.context.close()
        bob.context.close()
