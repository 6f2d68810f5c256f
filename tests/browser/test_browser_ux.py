"""Browser tests of the table's layout and its turn alerts: a real server for the page and
its static files, Debian's chromium, Playwright (sync API).

Every decision panel is reached deterministically: the engine itself plays a prepared deck
order (``Game.new(..., explicit=True)`` and ``Game.draw``, the engine's explicit chance) up
to the decision, and the page's WebSocket is answered by the test with that game's own
``GameView`` (``page.route_web_socket``, as in tests/browser/test_browser.py). So each view is a
real engine position: four players with full lines, Dee busted, and Ann (seat 0, the
viewer) to decide.

Checked: on phones (every kind at 360 px, the tallest at 390) each panel leaves the board
in view: the cards or players it asks Ann to pick are on screen and not covered
(``elementFromPoint`` at their centre hits them); the score sheet shows four players'
three-digit scores whole at 1366×800; the BUST stamp covers no badge or card; touch screens
show no key hints; the lobby's "Create table" is above the fold at 1366×800; on a laptop
both of Swap's steps leave every card to pick in reach; and "your turn" changes the title
and the favicon and shows a notification when the page is hidden (permission asked from
the switch, ``window.Notification`` stubbed to record its calls).

Screenshots go to ``test-artifacts/`` at the repository root.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import REACHABLE, axe_problems, browser_server, new_page, shot

from flip7.core.rules import Rules
from flip7.engine.game import Game
from flip7.server.table.views import seat_view

NAMES = ["Ann", "Bob", "Cyd", "Dee"]

# Four players, each with a few cards; Bob gives Cyd his −4; Dee busts on a second 11.
RICH = [
    "3", "5", "8", "11",
    "hit", "4", "hit", "6", "hit", "9", "hit", "12",
    "hit", "10", "hit", "-4", "give 2", "hit", "2", "hit", "11",
]  # fmt: skip

# kind -> (rules, steps after the deal): Ann (seat 0) is then asked that kind.
POSITIONS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "hit_or_stay": ({}, RICH),
    "target": ({}, [*RICH, "hit", "FLIP4"]),
    "give": ({}, [*RICH, "hit", "-6"]),
    "pass": ({"pass_actions": True}, [*RICH, "hit", "STEAL"]),
    "steal": ({}, [*RICH, "hit", "STEAL"]),
    "swap": ({}, [*RICH, "hit", "SWAP"]),
    "discard": ({}, [*RICH, "hit", "DISCARD"]),
    # Brutal: Ann reaches Flip 7 while the others have stayed.
    "flip7_choice": (
        {"brutal": True},
        ["1", "5", "8", "11", "hit", "2", "stay", "stay", "stay",
         "hit", "4", "hit", "6", "hit", "9", "hit", "10", "hit", "12"],
    ),
}


def engine_game(rules: dict[str, Any], steps: list[str]) -> Game:
    """The engine plays ``steps``: a card code wherever it waits for a card, else a decision."""
    game = Game.new(NAMES, Rules(**rules), explicit=True, dealer=3)
    for step in steps:
        if game.needs_card:
            game.draw(step)
        else:
            game.apply(step)
    return game


def seats(bots: tuple[int, ...] = (2, 3)) -> list[dict[str, Any]]:
    return [
        {
            "seat": s,
            "name": name,
            "kind": "bot" if s in bots else "human",
            "bot": "basic" if s in bots else None,
            "left": False,
            "connected": True,
        }
        for s, name in enumerate(NAMES)
    ]


def table_of(
    game_view: dict[str, Any], version: int = 10, name: str = "Game night"
) -> dict[str, Any]:
    """A TableState (docs/protocol.md) around an engine GameView."""
    return {
        "id": "ux",
        "name": name,
        "state": "over" if game_view["over"] else "playing",
        "seats": seats(),
        "rules": game_view["rules"],
        "turn_timer": None,
        "created_at": "2026-01-01T00:00:00Z",
        "game_number": 1,
        "version": version,
        "game": game_view,
        "game_id": "g1",
        "turn_deadline": None,
        "finished_games": [],
    }


class ScriptedTable:
    """Answers the page's WebSocket (and its GET of the table) with given table states;
    ``push`` sends an update later; the moves the page sends are kept in ``moves``."""

    def __init__(self, page: Any, table: dict[str, Any]) -> None:
        self.table = table
        self.socket: Any = None
        self.moves: list[dict[str, Any]] = []
        page.add_init_script("localStorage.setItem('flip7.token.ux', 'tok')")
        page.route(
            "**/api/tables/ux",
            lambda route: route.fulfill(json={"table": self.spectator(self.table)}),
        )
        page.route_web_socket(re.compile(r".*/ws/tables/ux$"), self._on_socket)

    @staticmethod
    def spectator(table: dict[str, Any]) -> dict[str, Any]:
        game = {k: v for k, v in table["game"].items() if k != "decisions"}
        return {**table, "game": {**game, "viewer": None, "legal_decisions": []}}

    def _on_socket(self, ws: Any) -> None:
        self.socket = ws

        def on_message(text: str | bytes) -> None:
            msg = json.loads(text)
            if msg["type"] == "hello":
                welcome = {"v": 1, "type": "welcome", "seat": 0, "table": self.table, "missed": []}
                ws.send(json.dumps(welcome))
            elif msg["type"] == "move":
                self.moves.append(msg)

        ws.on_message(on_message)

    def push(self, table: dict[str, Any], events: list[dict[str, Any]] | None = None) -> None:
        self.table = table
        update = {
            "v": 1,
            "type": "update",
            "version": table["version"],
            "events": events or [],
            "table": table,
        }
        self.socket.send(json.dumps(update))


def phone_page(browser: Any, width: int, height: int) -> tuple[Any, list[str]]:
    """A touch phone: small viewport, coarse pointer, no hover."""
    return new_page(browser, width, height, device_scale_factor=2, is_mobile=True,
                    has_touch=True)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with browser_server(tmp_path_factory, "ux") as url:
        yield url


def open_table(page: Any, url: str, game: Game, viewer: int = 0) -> ScriptedTable:
    from playwright.sync_api import expect

    scripted = ScriptedTable(page, table_of(seat_view(game, viewer, bust_odds=False)))
    page.goto(url + "/t/ux")
    expect(page.locator("[data-testid=conn]")).to_have_text(re.compile("Live"))
    return scripted



def _targets(page: Any) -> Any:
    """The cards and players on the board that the panel asks Ann to pick."""
    return page.locator(".board button.card.is-pickable, .board .seat-pick")


@pytest.mark.parametrize("width,height", [(360, 740), (390, 844)])
def test_decision_panels_leave_the_board_in_view_on_phones(
    live_server: str, chromium_browser: Any, width: int, height: int
) -> None:
    from playwright.sync_api import expect

    # Every kind at 360 px; at 390 the tallest panels only (the suite's time: each kind
    # is a page of its own).
    kinds = list(POSITIONS) if width == 360 else ["hit_or_stay", "target", "swap"]
    for kind in kinds:
        rules, steps = POSITIONS[kind]
        game = engine_game(rules, steps)
        assert game.to_decide == 0 and game.decision_kind is not None
        assert game.decision_kind.value == kind, (kind, game.decision_kind)
        page, errors = phone_page(chromium_browser, width, height)
        open_table(page, live_server, game)
        panel = page.locator("#decision")
        expect(panel).to_have_attribute("data-kind", kind)
        expect(panel).to_have_attribute("data-state", "ready")
        page.wait_for_timeout(150)  # the first target has been scrolled into view
        box = panel.bounding_box()
        assert box is not None
        # The panel stays a strip at the bottom: most of the screen shows the board.
        assert box["height"] <= 0.42 * height, (kind, box)
        assert box["y"] + box["height"] <= height + 1, (kind, box)
        shot(page, f"panel-{kind}-{width}.png")
        if width == 360:  # every kind of decision, once: no serious accessibility problem
            assert axe_problems(page) == [], kind

        targets = _targets(page)
        if kind == "hit_or_stay":
            # No pick on the board: Ann's own line is in view with Hit and Stay.
            first = page.locator(".seat.is-me .seat-line .card").last
            assert page.evaluate(REACHABLE, first.element_handle()) == "ok", kind
            for d in ("hit", "stay"):
                btn = page.locator(f'#decision .decision-main [data-decision="{d}"]')
                assert page.evaluate(REACHABLE, btn.element_handle()) == "ok", (kind, d)
        else:
            count = targets.count()
            assert count >= 3, (kind, count)
            # Without any scrolling by the player, the first target is already in view.
            assert page.evaluate(REACHABLE, targets.first.element_handle()) == "ok", kind
            # Each of the others can be brought into view, clear of the panel.
            for i in range(count):
                handle = targets.nth(i).element_handle()
                page.evaluate("(el) => el.scrollIntoView({block: 'nearest'})", handle)
                assert page.evaluate(REACHABLE, handle) == "ok", (kind, i)
            # Folding the panel shows even more of the board; unfolding brings it back.
            page.click("[data-testid=decision-toggle]")
            expect(panel).to_have_class(re.compile("is-collapsed"))
            folded = panel.bounding_box()
            assert folded is not None and folded["height"] < box["height"], kind
            page.click("[data-testid=decision-toggle]")
            expect(page.locator("#decision .decision-main")).to_be_visible()

        # A pick on the board sends the move.
        if kind in ("steal", "discard"):
            handle = targets.first.element_handle()
            page.evaluate("(el) => el.scrollIntoView({block: 'nearest'})", handle)
            targets.first.tap()
        elif kind == "swap":
            targets.first.tap()  # the first card, then its partner: a second step
            expect(page.locator("#decision .opt-step")).to_contain_text("2. Swap")
            page.wait_for_timeout(100)
            second = _targets(page)
            assert second.count() >= 2
            box2 = panel.bounding_box()
            assert box2 is not None and box2["height"] <= 0.42 * height
            shot(page, f"panel-swap-step2-{width}.png")
            pick = page.locator(".board button.card.is-pickable:not(.is-selected)").first
            page.evaluate("(el) => el.scrollIntoView({block: 'nearest'})", pick.element_handle())
            assert page.evaluate(REACHABLE, pick.element_handle()) == "ok"
            pick.tap()
        elif kind != "hit_or_stay":
            targets.first.tap()
        else:
            page.locator('#decision .decision-main [data-decision="hit"]').tap()
        expect(panel).to_have_attribute("data-state", "sending")
        page.context.close()
        assert errors == [], (kind, errors)


def test_moves_from_the_board_on_a_phone(live_server: str, chromium_browser: Any) -> None:
    """The picks on the board send the engine's own decisions."""
    from playwright.sync_api import expect

    for kind in ("steal", "discard", "target", "flip7_choice"):
        rules, steps = POSITIONS[kind]
        game = engine_game(rules, steps)
        legal = {str(d) for d in game.legal_decisions()}
        page, errors = phone_page(chromium_browser, 390, 844)
        scripted = open_table(page, live_server, game)
        expect(page.locator("#decision")).to_have_attribute("data-state", "ready")
        target = _targets(page).last
        page.evaluate("(el) => el.scrollIntoView({block: 'nearest'})", target.element_handle())
        target.tap()
        expect(page.locator("#decision")).to_have_attribute("data-state", "sending")
        assert len(scripted.moves) == 1 and scripted.moves[0]["decision"] in legal, scripted.moves
        page.context.close()
        assert errors == [], errors


def _played_game(seed: int) -> Game:
    """A four-player engine game played by a fixed policy until someone has 120+ points."""
    game = Game.new(NAMES, seed=seed)
    rng = random.Random(seed)
    while not game.over and max(game.totals) < 120:
        legal = game.legal_decisions()
        if game.decision_kind is not None and game.decision_kind.value == "hit_or_stay":
            me = game.to_decide
            assert me is not None
            game.apply("hit" if game.number_sum(me) < 20 and "hit" in map(str, legal) else "stay")
        else:
            game.apply(rng.choice(legal))
    return game


def test_score_sheet_shows_four_players_whole_at_1366(
    live_server: str, chromium_browser: Any
) -> None:
    from playwright.sync_api import expect

    seed = next(
        s
        for s in range(1, 200)
        if (g := _played_game(s)) and not g.over and min(g.totals) >= 100
        and any(r.busted for r in g.rounds) and g.to_decide is not None
    )  # fmt: skip
    game = _played_game(seed)
    page, errors = new_page(chromium_browser, 1366, 800)
    open_table(page, live_server, game, viewer=game.to_decide)
    page.click("#tab-scores")
    sheet = page.locator(".score-sheet")
    expect(sheet).to_be_visible()
    totals = sheet.locator("tfoot td").all_inner_texts()
    assert totals == [str(t) for t in game.totals]
    assert all(len(t) == 3 for t in totals), totals
    wrap = page.locator(".score-sheet-wrap")
    sizes = wrap.evaluate("(w) => [w.scrollWidth, w.clientWidth]")
    assert sizes[0] <= sizes[1], f"the score sheet scrolls sideways: {sizes}"
    clipped = sheet.evaluate(
        """(t) => [...t.querySelectorAll('tbody td, tfoot td')]
              .filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent)"""
    )
    assert clipped == [], f"cells cut off: {clipped}"
    # Every cell lies inside the panel.
    right = page.locator(".game-side").evaluate("(s) => s.getBoundingClientRect().right")
    cell_right = sheet.evaluate(
        "(t) => Math.max(...[...t.querySelectorAll('td')]"
        ".map((c) => c.getBoundingClientRect().right))"
    )
    assert cell_right <= right
    shot(page, "score-sheet-1366.png")
    assert errors == [], errors


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


@pytest.mark.parametrize("width,height", [(1366, 800), (390, 844)])
def test_bust_stamp_covers_no_badge_or_card(
    live_server: str, chromium_browser: Any, width: int, height: int
) -> None:
    from playwright.sync_api import expect

    game = engine_game(*POSITIONS["hit_or_stay"])
    page, errors = new_page(chromium_browser, width, height)
    open_table(page, live_server, game)
    dee = page.locator('.seat[data-seat="3"]')
    stamp = dee.locator(".stamp--bust")
    expect(stamp).to_be_visible()
    box = stamp.bounding_box()
    assert box is not None
    others = dee.locator(".badge, .status, .card, .seat-name, .avatar, .score")
    assert others.count() >= 4
    for i in range(others.count()):
        other = others.nth(i).bounding_box()
        if other is not None:
            assert not _overlap(box, other), (i, others.nth(i).inner_text(), box, other)
    dee.scroll_into_view_if_needed()
    shot(dee, f"bust-stamp-{width}.png")
    assert errors == [], errors


def test_no_key_hints_on_touch_screens(live_server: str, chromium_browser: Any) -> None:
    from playwright.sync_api import expect

    game = engine_game(*POSITIONS["hit_or_stay"])
    desk, desk_errors = new_page(chromium_browser, 1280, 800)
    open_table(desk, live_server, game)
    expect(desk.locator('#decision .opt-main[data-decision="hit"] .key')).to_be_visible()
    phone, phone_errors = phone_page(chromium_browser, 390, 844)
    open_table(phone, live_server, game)
    expect(phone.locator('#decision .opt-main[data-decision="hit"]')).to_be_visible()
    keys = phone.locator("#decision .key")
    assert keys.count() >= 2
    for i in range(keys.count()):
        expect(keys.nth(i)).to_be_hidden()
    assert desk_errors == [] and phone_errors == [], desk_errors + phone_errors


def test_create_table_above_the_fold_at_1366(live_server: str, chromium_browser: Any) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1366, 800)
    page.goto(live_server + "/")
    create = page.locator("[data-testid=create]")
    expect(create).to_be_visible()
    expect(page.locator("#rule-tie_break")).to_have_count(1)  # the rules have loaded
    box = create.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800, box
    assert page.evaluate("window.scrollY") == 0
    shot(page, "lobby-1366.png")
    assert errors == [], errors


# A window.Notification that records what the page does with it.
NOTIFICATION_STUB = """
(() => {
  window.__notes = [];
  window.__asked = 0;
  class FakeNotification {
    constructor(title, options) {
      this.title = title; this.options = options || {}; this.closed = false;
      window.__notes.push(this);
    }
    close() { this.closed = true; }
    static requestPermission() {
      window.__asked += 1;
      FakeNotification.permission = "granted";
      return Promise.resolve("granted");
    }
  }
  FakeNotification.permission = "default";
  window.Notification = FakeNotification;
  window.__chimes = 0;
  const make = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () {
    window.__chimes += 1; return make.call(this); };
})();
"""

SET_HIDDEN = """(hidden) => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  Object.defineProperty(document, "visibilityState",
    { configurable: true, get: () => hidden ? "hidden" : "visible" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_turn_alerts_in_a_hidden_tab(live_server: str, chromium_browser: Any) -> None:
    from playwright.sync_api import expect

    # Bob (seat 1) is to decide; Ann (seat 0) watches her tab.
    game = engine_game({}, ["3", "5", "8", "11", "hit", "4"])
    assert game.to_decide == 1
    page, errors = new_page(chromium_browser, 1280, 800)
    page.context.grant_permissions(["notifications"], origin=live_server)
    page.add_init_script(NOTIFICATION_STUB)
    scripted = open_table(page, live_server, game)
    expect(page).to_have_title("Game night · Flip 7")
    icon = page.locator('link[rel="icon"]')
    expect(icon).to_have_attribute("href", "/static/favicon.svg")

    # The settings menu: notifications are asked for from the click on their switch.
    page.click("[data-testid=alerts-toggle]")
    menu = page.locator("[data-testid=alerts-menu]")
    expect(menu).to_be_visible()
    expect(menu.locator('[data-alert="title"]')).to_be_checked()
    expect(menu.locator('[data-alert="notify"]')).not_to_be_checked()
    menu.locator('label[for$="-notify"]').click()
    expect(menu.locator('[data-alert="notify"]')).to_be_checked()
    assert page.evaluate("window.__asked") == 1
    menu.locator('label[for$="-sound"]').click()
    expect(menu.locator('[data-alert="sound"]')).to_be_checked()
    chimes = page.evaluate("window.__chimes")
    assert chimes >= 2  # switching the sound on plays it once (two notes)
    shot(page, "alerts-menu.png")
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    saved = json.loads(page.evaluate("localStorage.getItem('flip7.alerts')"))
    assert saved == {"title": True, "sound": True, "notify": True}

    # Ann switches to another tab; Bob hits and it becomes her turn.
    page.evaluate(SET_HIDDEN, True)
    game.apply("stay")
    game.apply("stay")  # Cyd
    game.apply("stay")  # Dee
    assert game.to_decide == 0
    scripted.push(table_of(seat_view(game, 0, bust_odds=False), version=11))
    expect(page).to_have_title(re.compile(r"^▶ Your turn · Game night · Flip 7$"))
    expect(icon).to_have_attribute("href", "/static/favicon-turn.svg")
    notes = page.evaluate("window.__notes.map((n) => [n.title, n.options.body, n.closed])")
    assert len(notes) == 1, notes
    title, body, closed = notes[0]
    assert title == "Your turn in Flip 7" and body.startswith("Game night: ") and not closed
    assert page.evaluate("window.__chimes") > chimes
    shot(page, "turn-alert.png")

    # Back to the tab: the notification closes; once Ann has moved, the title is plain again.
    page.evaluate(SET_HIDDEN, False)
    assert page.evaluate("window.__notes[0].closed") is True
    page.locator('#decision .opt-main[data-decision="stay"]').click()
    game.apply("stay")
    scripted.push(table_of(seat_view(game, 0, bust_odds=False), version=12))
    expect(page).to_have_title(re.compile(r"^(Game night · Flip 7)$"))
    expect(icon).to_have_attribute("href", "/static/favicon.svg")

    # The choices are remembered: a reload keeps them; the title alert can be switched off.
    page.reload()
    expect(page.locator("[data-testid=conn]")).to_have_text(re.compile("Live"))
    page.click("[data-testid=alerts-toggle]")
    expect(menu.locator('[data-alert="notify"]')).to_be_checked()
    expect(menu.locator('[data-alert="sound"]')).to_be_checked()
    menu.locator('label[for$="-title"]').click()
    expect(menu.locator('[data-alert="title"]')).not_to_be_checked()
    assert json.loads(page.evaluate("localStorage.getItem('flip7.alerts')"))["title"] is False
    assert errors == [], errors


def test_notifications_blocked_by_the_browser(live_server: str, chromium_browser: Any) -> None:
    """A refused permission leaves the switch off, with a message saying where to allow it."""
    from playwright.sync_api import expect

    game = engine_game({}, ["3", "5", "8", "11", "hit", "4"])
    page, errors = new_page(chromium_browser, 1280, 800)
    page.add_init_script(
        NOTIFICATION_STUB.replace('"granted";\n      return', '"denied";\n      return').replace(
            'Promise.resolve("granted")', 'Promise.resolve("denied")'
        )
    )
    open_table(page, live_server, game)
    page.click("[data-testid=alerts-toggle]")
    menu = page.locator("[data-testid=alerts-menu]")
    menu.locator('label[for$="-notify"]').click()
    expect(menu.locator('[data-alert="notify"]')).to_be_disabled()
    expect(menu.locator('[data-alert="notify"]')).not_to_be_checked()
    expect(menu).to_contain_text("Blocked for this site")
    assert errors == [], errors


def test_round_score_changes_when_the_card_lands(live_server: str, chromium_browser: Any) -> None:
    """The score of a seat keeps its old value while the drawn card flies in."""
    from playwright.sync_api import expect

    game = engine_game({}, ["3", "5", "8", "11"])
    page, errors = new_page(chromium_browser, 1280, 800)
    scripted = open_table(page, live_server, game)
    score = page.locator('.seat[data-seat="0"] .score--round b')
    expect(score).to_have_text("3")
    game.apply("hit")
    events = [e.to_json() for e in game.draw("9")]
    assert game.round_score(0) == 12
    # Every frame for 1.5 s: the score shown, and whether the 9 is still on its way.
    page.evaluate(
        """() => { window.__frames = []; const t0 = performance.now();
          const tick = () => {
            const card = document.querySelector('.seat[data-seat="0"] .card[data-code="9"]');
            const score = document.querySelector('.seat[data-seat="0"] .score--round b');
            window.__frames.push([performance.now() - t0, score && score.textContent,
              card ? (card.classList.contains('incoming') ? 'incoming'
                : card.classList.contains('arrive') ? 'arriving' : 'landed') : 'none']);
            if (performance.now() - t0 < 1500) requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick); }"""
    )
    scripted.push(table_of(seat_view(game, 0, bust_odds=False), version=11), events)
    expect(score).to_have_text("12")
    page.wait_for_timeout(1600)
    frames = page.evaluate("window.__frames")
    shown = [f for f in frames if f[2] != "none"]
    assert any(f[2] in ("incoming", "arriving") for f in shown), frames
    # While the card is on its way or landing, the old score stays.
    assert all(f[1] == "3" for f in shown if f[2] in ("incoming",)), frames
    first_new = next(i for i, f in enumerate(shown) if f[1] == "12")
    assert all(f[2] != "incoming" for f in shown[first_new:]), frames
    assert any(f[2] == "arriving" for f in shown[:first_new]), frames
    assert errors == [], errors



def test_a_long_game_of_six_keeps_its_score_sheet_in_the_side_column(
    live_server: str, chromium_browser: Any
) -> None:
    """The review of issue "Tables that wait": from about round 9 at 1366x800 the score
    sheet ran under the chat (its wrapper scrolled only sideways), and with six players
    its last column was clipped (a fixed layout only for 2 to 5 players)."""
    import httpx
    from playwright.sync_api import expect
    from server_helpers import SyncSocket, WsPlayer, auth, choose, seated_game

    with httpx.Client(base_url=live_server, timeout=20) as http:
        table = seated_game(http, humans=1, bots=5, rules={"target_score": 1000})
        table_id, token = table["id"], table["tokens"][0]
        ws = SyncSocket(live_server.replace("http", "ws") + f"/ws/tables/{table_id}")
        ann = WsPlayer(ws, None, token)
        ann.seat = ann.hello()["seat"]
        assert http.post(f"/api/tables/{table_id}/start", headers=auth(token)).status_code == 200
    rng = random.Random(9)
    ann.settle()
    while ann.state["game"]["round"] < 11:
        game = ann.state["game"]
        assert not game["over"]
        if game["to_decide"] == ann.seat:
            legal = game["legal_decisions"]
            version = ann.state["version"]
            ann.move("stay" if "stay" in legal else choose(game, rng))
            ann.settle(after=version)
        else:
            ann.settle(after=ann.state["version"])

    page, errors = new_page(chromium_browser, 1366, 800)
    page.add_init_script(f"localStorage.setItem('flip7.token.{table_id}', '{token}')")
    page.goto(f"{live_server}/t/{table_id}")
    expect(page.locator("[data-testid=conn]")).to_have_text(re.compile("Live"))
    page.click("#tab-scores")
    wrap = page.locator(".game-side .score-sheet-wrap")
    expect(wrap).to_be_visible()
    chat = page.locator(".game-side .chat")
    sheet, talk = wrap.bounding_box(), chat.bounding_box()
    assert sheet is not None and talk is not None
    assert sheet["y"] + sheet["height"] <= talk["y"] + 1, (sheet, talk)
    # Every round can be scrolled to inside the side column, the totals too.
    assert page.evaluate("(el) => el.scrollHeight > el.clientHeight", wrap.element_handle())
    page.locator(".game-side .score-sheet tfoot").scroll_into_view_if_needed()
    # All six players' columns are within the sheet's width, nothing cut at the right.
    last = page.locator(".game-side .score-sheet thead th").last
    box = last.bounding_box()
    assert box is not None and box["x"] + box["width"] <= sheet["x"] + sheet["width"] + 1
    assert page.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1", wrap.element_handle())
    shot(page, "score-sheet-six-round-11-1366.png")
    assert not errors, errors
    page.context.close()
    ws.close()


def test_the_swap_panel_leaves_every_seat_in_reach_on_a_laptop(
    live_server: str, chromium_browser: Any
) -> None:
    """The review of issue 29: on a laptop the Swap panel covered the last seat. Both of
    Swap's steps: every card to pick can be brought into view clear of the panel."""
    from playwright.sync_api import expect

    game = engine_game(*POSITIONS["swap"])
    page, errors = new_page(chromium_browser, 1366, 800)
    open_table(page, live_server, game)
    panel = page.locator("#decision")
    expect(panel).to_have_attribute("data-kind", "swap")
    expect(panel).to_have_attribute("data-state", "ready")
    for step in (1, 2):
        targets = _targets(page)
        assert targets.count() >= 2, step
        for i in range(targets.count()):
            handle = targets.nth(i).element_handle()
            page.evaluate("(el) => el.scrollIntoView({block: 'nearest'})", handle)
            assert page.evaluate(REACHABLE, handle) == "ok", (step, i)
        shot(page, f"panel-swap-step{step}-1366.png")
        if step == 1:
            targets.first.click()
            expect(page.locator("#decision .opt-step")).to_contain_text("2. Swap")
            page.wait_for_timeout(100)
    assert errors == [], errors
