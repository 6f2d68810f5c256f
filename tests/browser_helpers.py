"""What the browser tests share (the ``chromium_browser`` fixture is in conftest.py): a live
server, pages that record script errors, and screenshots in ``test-artifacts/`` at the
repository root."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import BROWSER_TIMEOUT_MS, missing

from flip7.core.rules import Rules
from flip7.engine.game import Game
from flip7.server.table.views import seat_view

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


@contextmanager
def browser_server(
    tmp_path_factory: pytest.TempPathFactory, name: str, **settings: Any
) -> Iterator[str]:
    """A real uvicorn server on a free loopback port, with a fresh SQLite database and no
    bot delay (``settings`` add to those); its base URL."""
    try:
        import uvicorn  # noqa: F401

        from flip7.server.api.app import create_app  # noqa: F401
    except ImportError as exc:  # the server extra is not installed
        missing(f"the server dependencies ({exc})")
    # Only now: server_helpers skips the whole module without the server extra, and here
    # that must fail in CI instead.
    from server_helpers import threaded_server

    from flip7.server.base.settings import Settings

    db = tmp_path_factory.mktemp(name) / "t.db"
    with threaded_server(Settings(database_url=f"sqlite+aiosqlite:///{db}", bot_delay=0.0,
                              **settings)) as url:
        yield url


def new_page(
    browser: Any, width: int = 1280, height: int = 800, **options: Any
) -> tuple[Any, list[str]]:
    """A page in a fresh context (own localStorage) that records script errors. A request
    the test makes fail on purpose logs "Failed to load resource": only other errors count.
    ``options`` add to Playwright's ``new_context`` (``has_touch=True``, …)."""
    context = browser.new_context(viewport={"width": width, "height": height}, **options)
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console",
        lambda msg: (
            errors.append(msg.text)
            if msg.type == "error" and not msg.text.startswith("Failed to load resource")
            else None
        ),
    )
    return page, errors


AXE_JS = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"


def axe_problems(page: Any) -> list[str]:
    """The serious and critical accessibility violations axe-core (from npm, pinned in
    package-lock.json; ``make jscheck`` installs it) finds on ``page`` as it is now: each
    as "rule: the elements"."""
    if not AXE_JS.is_file():
        missing("axe-core (npm ci, as make jscheck runs it)")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_JS.read_text(encoding="utf-8"))  # evaluated, so the CSP allows it
    found: list[str] = page.evaluate("""async () => {
      const result = await axe.run(document, {resultTypes: ["violations"]});
      return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => v.id + ": " + v.nodes.map((n) => n.target.join(" ")).join(", "));
    }""")
    return found


# JS for page.evaluate(REACHABLE, handle): "ok" when the element's centre is on screen and a
# tap there reaches the element itself, else what is wrong ("covered by …", "off screen …").
REACHABLE = """(el) => {
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return "off screen at " + [x, y];
  const hit = document.elementFromPoint(x, y);
  if (!hit) return "nothing at " + [x, y];
  return el === hit || el.contains(hit) ? "ok" : "covered by " + hit.className;
}"""


def create_from_lobby(page: Any, base: str, player: str, name: str = "Friday",
                      seats: int | None = None) -> str:  # fmt: skip
    """Create a table in the lobby's form as ``player`` (``seats``: the form's default if
    None); the table's id, once its page shows the seats."""
    from playwright.sync_api import expect

    page.goto(base + "/")
    page.fill("#create-player", player)
    page.fill("#create-name", name)
    if seats is not None:
        page.select_option("#create-seats", str(seats))
    page.click("[data-testid=create]")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    expect(page.locator(".seat-row").first).to_be_visible()
    return str(page.url.rsplit("/", 1)[1])


def shot(target: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    target.screenshot(path=str(ARTIFACTS / name))


def playing_table(table_id: str, name: str, names: list[str], game: Game,
                  rules: Rules) -> dict[str, Any]:
    """A table's JSON (as GET /api/tables/{id} and the welcome send it) with ``names``
    seated, playing ``game`` as seat 0 sees it (the server's seat view, without bust odds)."""
    return {
        "id": table_id, "name": name, "state": "playing",
        "seats": [
            {"seat": s, "name": seated, "kind": "human", "bot": None, "left": False,
             "connected": True}
            for s, seated in enumerate(names)
        ],
        "rules": rules.to_json(), "turn_timer": None, "created_at": "2026-01-01T00:00:00Z",
        "game_number": 1, "version": 30, "game": seat_view(game, 0, bust_odds=False),
        "game_id": "g1", "turn_deadline": None, "finished_games": [],
    }  # fmt: skip


def open_table(page: Any, url: str, table: dict[str, Any], events: list[Any],
               connected: str) -> None:
    """The table page of ``table`` as seat 0, its WebSocket answered by the test with
    ``table`` and a history of ``events``; waits until the connection shows ``connected``
    (the page's own words for it)."""
    from playwright.sync_api import expect

    table_id = table["id"]
    page.add_init_script(f"localStorage.setItem('flip7.token.{table_id}', 'tok')")
    page.route(f"**/api/tables/{table_id}", lambda route: route.fulfill(json={"table": table}))

    def on_socket(ws: Any) -> None:
        def on_message(text: str | bytes) -> None:
            if json.loads(text)["type"] == "hello":
                ws.send(json.dumps({
                    "v": 1, "type": "welcome", "seat": 0, "table": table, "missed": [],
                    "history": [{"version": 1, "events": events}], "chat": [],
                }))  # fmt: skip

        ws.on_message(on_message)

    page.route_web_socket(re.compile(rf".*/ws/tables/{re.escape(table_id)}$"), on_socket)
    page.goto(f"{url}/t/{table_id}")
    expect(page.locator("[data-testid=conn]")).to_have_text(re.compile(connected))
