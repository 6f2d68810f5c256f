"""Browser tests of the second language (German, docs/i18n.md): the lobby, the rules page,
a table with bots, the scorekeeper (live mode too) and a replay, in German when the
browser's language is German (Playwright ``locale="de-DE"``) and after the language switch
in the top bar; no English word of a known list left on those pages (text, labels, titles,
placeholders); numbers and dates the German way. Debian's chromium, Playwright (sync API);
screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import browser_server, new_page, shot

from flip7.core.rules import Rules

# English words that no German page of the app should show. Words German shares (in,
# an, Name, Start, Link, Bot, Live, Lobby) and the game's name (Flip 7: With a Vengeance)
# are left out.
ENGLISH = {
    "the", "and", "your", "you", "table", "tables", "create", "open", "recent", "games",
    "join", "watch", "players", "player", "round", "rounds", "rules", "back", "loading",
    "replay", "score", "scores", "seats", "seat", "target", "cards", "card", "number",
    "deck", "decks", "bust", "busted", "stay", "stays", "hit", "waiting", "playing",
    "finished", "upload", "record", "house", "timer", "turn", "next", "save", "undo",
    "edit", "copy", "share", "totals", "winner", "leader", "after", "before", "each",
    "every", "other", "when", "what", "who", "this", "that", "not", "yet", "of", "to",
    "is", "are", "on", "off", "at", "how", "play", "learn", "new", "show", "odds",
    "keep", "refresh", "nobody", "choices", "default", "points", "wins", "game",
}

# Everything a reader (or a screen reader) gets from the page: its text, and the labels,
# titles and placeholders of its elements; the player names of a test are left out.
PAGE_WORDS = """(skip) => {
  const parts = [document.title, document.body.innerText];
  for (const el of document.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
    for (const a of ["aria-label", "title", "placeholder", "alt"]) {
      const v = el.getAttribute(a);
      if (v) parts.push(v);
    }
  }
  let text = parts.join("\\n");
  for (const s of [...skip].sort((a, b) => b.length - a.length)) text = text.split(s).join(" ");
  return text;
}"""

NAMES = ["Anna", "Jörg", "Lena"]


def english_left(page: Any, skip: tuple[str, ...] = ()) -> list[str]:
    text = page.evaluate(PAGE_WORDS, [*NAMES, "RULES.md", "flip7-record/1", *skip])
    found = set()
    for match in re.finditer(r"[A-Za-zÄÖÜäöüß]+", text):
        if match.group().lower() in ENGLISH:
            found.add(text[max(0, match.start() - 30):match.end() + 30].replace("\n", " | "))
    return sorted(found)


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with browser_server(tmp_path_factory, "i18n") as url:
        yield url


def test_the_browser_language_picks_german(chromium_browser: Any, live_server: str) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1280, 900, locale="de-DE")
    page.goto(live_server + "/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("#create-title")).to_have_text("Neuer Tisch")
    expect(page.locator("[data-testid=create]")).to_have_text("Tisch eröffnen")
    expect(page.locator("[data-testid=lang-switch]")).to_have_value("de")
    expect(page.locator("[data-testid=rules-link]")).to_have_text("Regeln")
    expect(page.locator("#create-seats option").first).to_have_text(re.compile(r"^\d+ Spieler$"))
    expect(page.locator("#rule-tie_break")).to_have_count(1)  # the options, in German too
    expect(page.locator("label[for=rule-tie_break]")).to_have_text("Bei Gleichstand an der Spitze")
    left = english_left(page)
    assert left == [], "\n".join(left)
    shot(page, "i18n-lobby-de.png")

    # Numbers and dates the German way (i18n.js, Intl), and the catalogue's plurals.
    formatted = page.evaluate("""async () => {
      const m = await import("/static/js/i18n.js");
      return [m.formatNumber(1234567.5), m.formatDate("2026-03-05T14:07:00Z",
        { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }),
        m.t("scorekeeper.rounds", { count: 1 }), m.t("scorekeeper.rounds", { count: 1500 }),
        m.formatList(["Anna", "Jörg", "Lena"]), m.lang()];
    }""")
    assert formatted == ["1.234.567,5", "05.03.2026, 14:07", "1 Runde", "1.500 Runden",
                         "Anna, Jörg und Lena", "de"]

    # A table with a target of 1000 (the most a table may play to: max_target_score) shows
    # "Bis 1.000" in the list of open tables, and is
    # unrated (a target score changes the game): "Ungewertet".
    page.fill("#create-player", NAMES[0])
    page.fill("#create-name", "Spieleabend")
    page.fill("#create-target", "1000")
    page.click("[data-testid=create]")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    lobby, lobby_errors = new_page(chromium_browser, 1280, 900, locale="de-DE")
    lobby.goto(live_server + "/")
    row = lobby.locator("[data-testid=tables] .table-item")
    expect(row).to_have_count(1)
    expect(row.locator(".badge--rule")).to_have_text(["Bis 1.000", "Ungewertet"])
    expect(row.locator(".chip--state")).to_have_text("Wartet")
    assert english_left(lobby, ("Spieleabend",)) == []

    # The table, with a bot, started: in German as far as this page's words go.
    expect(page.locator("[data-testid=add-bot]")).to_be_visible()
    page.click("[data-testid=add-bot]")
    expect(page.locator('.seat-row[data-kind="bot"]')).to_have_count(1)
    page.click("[data-testid=add-bot]")
    expect(page.locator('.seat-row[data-kind="bot"]')).to_have_count(2)
    page.click("[data-testid=start]")
    expect(page.locator(".board")).to_be_visible()
    page.wait_for_selector("#decision[data-state=ready], [data-testid=endscreen]")
    page.wait_for_timeout(800)
    shot(page, "i18n-table-de.png")
    # (The bots' seat names, "Mia (Medium bot)", are names: none of them is in ENGLISH.)
    left = english_left(page, ("Spieleabend",))
    assert left == [], f"English on the table page: {left}"
    assert not errors and not lobby_errors, errors + lobby_errors


def test_the_rules_page_in_german(chromium_browser: Any, live_server: str) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 1280, 900, locale="de-DE")
    page.goto(live_server + "/rules")
    rules = page.locator("[data-testid=rules-page]")
    expect(rules.locator("h1")).to_have_text("So wird gespielt")
    expect(page).to_have_title(re.compile("Regeln"))
    expect(rules.locator(".rules-card")).to_have_count(27)
    five = rules.locator('.rules-card[data-code="5"] p')
    expect(five).to_have_text(re.compile("Zahlenkarte mit dem Wert 5"))
    option = rules.locator('.rules-option[data-option="tie_break"]')
    expect(option.locator(".rules-option-default")).to_have_text(
        "Standard: werden Extrarunden gespielt")
    left = english_left(page, tuple(o.name for o in Rules.options()))  # the options' code names
    assert left == [], "\n".join(left)
    shot(page, "i18n-rules-de.png")
    assert not errors, errors


def test_the_switch_changes_the_language(chromium_browser: Any, live_server: str) -> None:
    from playwright.sync_api import expect

    page, errors = new_page(chromium_browser, 390, 844, locale="en-US")
    page.goto(live_server + "/scorekeeper")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#sk-create-title")).to_have_text("New scorecard")
    switch = page.locator("[data-testid=lang-switch]")
    expect(switch).to_have_value("en")
    with page.expect_navigation():
        switch.select_option("de")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("#sk-create-title")).to_have_text("Neuer Punkteblock")
    assert page.evaluate("localStorage.getItem('flip7.lang')") == "de"
    assert english_left(page) == []

    # A scorecard in German: three players, a target of 1000, one round.
    names = page.locator("[data-testid=player-name]")
    for i, name in enumerate(NAMES):
        names.nth(i).fill(name)
    page.fill("#sk-target", "1000")
    page.click("[data-testid=create-scorecard]")
    page.wait_for_url(re.compile(r"/scorekeeper/[^/#]+"))
    expect(page.locator("[data-testid=mode]")).to_have_text("Punkte eintragen")
    expect(page.locator(".sk-total-foot").first).to_contain_text("1.000 zum Sieg")
    for seat, cards in enumerate((["12", "11"], ["5"], ["9", "9"])):
        page.locator(f'[data-testid=player][data-seat="{seat}"] .sk-player-pick').click()
        for card in cards:
            page.locator(f'[data-testid=picker] [data-code="{card}"]').click()
    # The server's check, in German: Lena's two 9s are a bust she is not marked with.
    lena = page.locator('[data-testid=player][data-seat="2"]')
    expect(lena.locator("[data-testid=problems]")).to_contain_text(
        "Lena: 9 9 ist raus: Markiere Lena als raus")
    expect(page.locator("[data-testid=check-state]")).to_have_text(
        "1 Fehler vor dem Speichern zu beheben")
    assert english_left(page) == []
    lena.locator("[data-testid=bust]").click()
    expect(page.locator("[data-testid=check-state]")).to_have_text("Alle Prüfungen bestanden")
    page.click("[data-testid=save-round]")
    expect(page.locator('[data-testid=history] .sk-round')).to_have_count(1)
    expect(page.locator("[data-testid=total]").first).to_have_text("23")
    expect(page.locator("[data-testid=status]")).to_have_text("Anna führt mit 23; Ziel 1.000")
    page.wait_for_timeout(300)
    assert english_left(page) == []
    shot(page, "i18n-scorekeeper-de-phone.png")

    # Live mode: the advice for the player to decide, in German.
    page.click("[data-testid=live-toggle]")
    live = page.locator("[data-testid=live]")
    for code in ("5", "9", "12"):  # the deal: the next card follows the turn
        live.locator(f'.sk-picker button[data-code="{code}"]').click()
        page.wait_for_timeout(150)
    advice = page.locator("[data-testid=advice]")
    expect(advice).to_contain_text("Aus-Risiko")
    expect(advice.locator(".sk-advice-rec")).to_have_text(
        re.compile("^(Ziehen|Stopp|Muss ziehen)$"))
    expect(advice.locator(".sk-advice-reason")).to_have_text(re.compile("^(ziehen|stoppen): "))
    assert english_left(page) == []
    shot(page, "i18n-livekeeper-de-phone.png")
    page.click("[data-testid=live-toggle]")
    dialog = page.locator("dialog")
    expect(dialog.locator("h2")).to_have_text("Live-Modus beenden?")
    assert english_left(page) == []
    dialog.locator("[data-testid=confirm-ok]").click()
    expect(page.locator("[data-testid=live]")).to_have_count(0)

    # The list of scorecards: "aktualisiert gerade eben", and back to English.
    page.goto(page.url.split("/scorekeeper/")[0] + "/scorekeeper")
    expect(page.locator(".sk-list-facts").first).to_contain_text("1 Runde")
    with page.expect_navigation():
        page.locator("[data-testid=lang-switch]").select_option("en")
    expect(page.locator("#sk-create-title")).to_have_text("New scorecard")
    expect(page.locator(".sk-list-facts").first).to_contain_text("1 round")
    assert not errors, errors


def test_a_replay_in_german(chromium_browser: Any, live_server: str) -> None:
    from engine_helpers import played_record
    from playwright.sync_api import expect

    record = played_record(target=60, seed=5)
    steps = 1 + len(record["draws"]) + len(record["decisions"])
    page, errors = new_page(chromium_browser, 1280, 900, locale="de-DE")
    created = page.request.post(live_server + "/api/replays", data=record)
    assert created.status == 201
    page.goto(f"{live_server}/replay/{created.json()['id']}")
    info = page.locator("[data-testid=step-info]")
    expect(info).to_have_text(re.compile(rf"^Schritt 1 von {steps}\b"))
    page.keyboard.press("End")
    expect(info).to_have_text(re.compile(rf"^Schritt {steps} von {steps} · "))
    expect(page.locator("[data-testid=play]")).to_have_attribute("aria-label", "Abspielen")
    page.wait_for_timeout(300)
    left = english_left(page, ("Ann", "Bob", "Cyd"))
    assert left == [], "\n".join(left)
    shot(page, "i18n-replay-de.png")
    assert not errors, errors
