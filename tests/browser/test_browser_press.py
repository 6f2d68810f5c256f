"""A tap is not lost to a frame that comes while the finger is down (static/js/presshold.js).

The pages draw their parts anew from the server's frames: a button drawn anew between the
press and the release is another element, and the browser then sends no click at all. On a
slow phone (or a test machine under load: Start stayed disabled after "Add bot" once) a
frame often comes in that moment. Here the frame comes for sure: Ann presses "Add bot",
Cid joins the table while her button is down, then she lets go.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from browser_helpers import create_from_lobby, new_page


def test_a_press_on_add_bot_outlives_the_frame_of_a_player_joining(
    tmp_path: Path, chromium_browser: Any
) -> None:
    from playwright.sync_api import expect
    from server_helpers import threaded_server

    from flip7.server.base.settings import Settings

    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 't.db'}", seed=3,
                        bot_delay=0.0)  # fmt: skip
    with threaded_server(settings) as url:
        ann, errors = new_page(chromium_browser, 390, 844)
        table_id = create_from_lobby(ann, url, "Ann", seats=4)
        joined = httpx.post(f"{url}/api/tables/{table_id}/join", json={"player": "Bob"})
        assert joined.status_code == 200, joined.text
        humans = ann.locator('.seat-row[data-kind="human"]')
        expect(humans).to_have_count(2)

        add_bot = ann.locator("[data-testid=add-bot]")
        add_bot.scroll_into_view_if_needed()
        expect(add_bot).to_be_enabled()
        box = add_bot.bounding_box()
        assert box is not None
        ann.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        ann.mouse.down()
        joined = httpx.post(f"{url}/api/tables/{table_id}/join", json={"player": "Cid"})
        assert joined.status_code == 200, joined.text
        # Cid's frame reaches the page while the button is down: it waits for the release.
        ann.wait_for_timeout(600)
        expect(humans).to_have_count(2)
        ann.mouse.up()

        expect(humans).to_have_count(3)  # drawn once the press was over
        expect(ann.locator('.seat-row[data-kind="bot"]')).to_have_count(1)  # the tap counted
        seats = httpx.get(f"{url}/api/tables/{table_id}").json()["table"]["seats"]
        assert [s["kind"] for s in seats] == ["human", "human", "human", "bot"]
        expect(ann.locator("[data-testid=start]")).to_be_enabled()
        assert not errors, errors
