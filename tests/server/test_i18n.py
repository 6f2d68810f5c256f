"""The web app's message catalogues (docs/i18n.md): every language has every key of
English in every area, the same placeholders and plural forms, no empty message and no
message left in English; every key the JavaScript asks for exists; and the JavaScript
shows no hard-coded English (a small lexer finds its string literals: those that read as
prose, outside a few non-display places, fail unless allow-listed below).

Also the server side: ``GET /api/messages/{lang}``, the rule options' words for every
option of flip7.core.rules, and the cards' explanations in German (``/api/cards?lang=de``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

STATIC = Path(__file__).resolve().parents[2] / "src" / "flip7" / "server" / "static"
LOCALES = STATIC / "locales"
JS = STATIC / "js"
SOURCE = "en"
LANGUAGES = ["en", "de"]

# German messages that may equal the English ones: proper names, words German uses as
# they are, and patterns made of placeholders and signs. Keep it short.
SAME_AS_ENGLISH = {
    "common.game_title",  # Flip 7: With a Vengeance (the game's name)
    "common.game_subtitle",  # With a Vengeance
    "common.lobby",  # Lobby
    "rules.badge_brutal",  # Brutal
    "rules.copies",  # ×{count}
    "scorekeeper.live",  # Live
    "lobby.pace_live",  # Live (a table played together now)
    "scorekeeper.flip7",  # Flip 7
    "scorekeeper.live.ev_card",  # {name} ← {card}
    "scorekeeper.live.ev_move",  # {card}: {from} → {to}
    "scorekeeper.live.verb_name",  # {verb} {name}
    "rules.step.flip7.title",  # Flip 7.
    "rules.card.name.flip_four",  # Flip Four! (the card's printed name)
    # Other areas add theirs here, each with why.
    "table.board.brutal",  # Brutal (the badge, as the glossary says)
    "table.sheet.flip7",  # Flip 7
    "table.page_title",  # {name} · Flip 7
    "table.banner.flip7",  # Flip 7! {name}
    "table.bots.spec_placeholder",  # threshold:30 (a bot spec: code)
    "chat.title",  # Chat (German uses the word)
    "cards.name.FLIP4",  # Flip Four! (the card's printed name)
    "cards.score.flip7",  # Flip 7
    "players.coach.title",  # Coach (German uses the word)
    "players.coach.title_for",  # Coach: {name}
    "players.end.flip7s",  # Flip 7
    "players.stats.flip7s",  # Flip 7s
    "players.leaderboard.bots",  # Bots
    "players.leaderboard.name",  # Name
    "players.transfer.code_label",  # Code
}
# Keys whose English message is also used as-is in other languages for reasons of form:
# nothing but placeholders, numbers and signs (no word of two letters or more).
_WORD = re.compile(r"[A-Za-zÄÖÜäöüß]{2,}")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _wordless(text: str) -> bool:
    return not _WORD.search(_PLACEHOLDER.sub("", text))


def _areas(lang: str) -> dict[str, dict[str, Any]]:
    return {
        path.stem: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((LOCALES / lang).glob("*.json"))
    }


def _forms(message: Any) -> list[str]:
    return list(message.values()) if isinstance(message, dict) else [message]


def _placeholders(message: Any) -> set[str]:
    return {name for form in _forms(message) for name in _PLACEHOLDER.findall(str(form))}


def test_no_card_name_follows_a_possessive_in_english() -> None:
    """A card's name may carry its article ("The Zero"): after "your", "their own" or
    "Ann's" it reads "your The Zero" (the review of issue 29 saw "discarded their own The
    Zero"); such messages take ``{bare}``, the name without it, or put the card first."""
    wrong = {key: text for area in _areas(SOURCE).values() for key, message in area.items()
             for text in _forms(message)
             if re.search(r"\b(your|their|their own|his|her|’s|'s)\s+\{card\}", text)}
    assert not wrong, wrong


def test_the_languages_are_there() -> None:
    assert sorted(p.name for p in LOCALES.iterdir() if p.is_dir()) == sorted(LANGUAGES)
    i18n = (JS / "i18n.js").read_text()
    for lang in LANGUAGES:
        assert f'code: "{lang}"' in i18n, f"{lang} is missing from LANGUAGES in i18n.js"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_area_file_holds_its_own_keys(lang: str) -> None:
    for area, messages in _areas(lang).items():
        assert isinstance(messages, dict), f"{lang}/{area}.json is not an object"
        for key, message in messages.items():
            assert key.startswith(f"{area}."), f"{lang}/{area}.json holds {key!r}"
            assert isinstance(message, str | dict), f"{lang}: {key} is not text"
            if isinstance(message, dict):
                assert "other" in message, f"{lang}: plural {key} has no 'other' form"
                assert set(message) <= {"zero", "one", "two", "few", "many", "other"} | {
                    k for k in message if re.fullmatch(r"=\d+", k)
                }, f"{lang}: plural {key} has unknown forms {sorted(message)}"
            for form in _forms(message):
                assert isinstance(form, str) and form.strip(), f"{lang}: {key} is empty"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != SOURCE])
def test_every_language_has_every_key_of_english(lang: str) -> None:
    english, other = _areas(SOURCE), _areas(lang)
    problems = [f"{lang} has no {area}.json" for area in sorted(set(english) - set(other))]
    problems += [f"{lang}/{area}.json has no English" for area in sorted(set(other) - set(english))]
    for area, messages in english.items():
        theirs = other.get(area, {})
        if not theirs:
            continue
        missing = sorted(set(messages) - set(theirs))
        extra = sorted(set(theirs) - set(messages))
        if missing:
            problems.append(f"{lang}/{area}.json lacks {missing}")
        if extra:
            problems.append(f"{lang}/{area}.json has keys English lacks: {extra}")
        for key in sorted(set(messages) & set(theirs)):
            if _placeholders(messages[key]) != _placeholders(theirs[key]) and not (
                # a plural form may spell the number out ("eine Karte" for {count})
                isinstance(theirs[key], dict)
                and _placeholders(messages[key]) - {"count"}
                == _placeholders(theirs[key]) - {"count"}
            ):
                problems.append(
                    f"{key}: placeholders {sorted(_placeholders(theirs[key]))} in {lang}, "
                    f"{sorted(_placeholders(messages[key]))} in English"
                )
            if isinstance(messages[key], dict) != isinstance(theirs[key], dict):
                problems.append(f"{key}: a plural in one language, not in the other")
            if (
                theirs[key] == messages[key]
                and key not in SAME_AS_ENGLISH
                and not all(_wordless(form) for form in _forms(messages[key]))
            ):
                problems.append(f"{key}: not translated ({messages[key]!r})")
    assert not problems, "\n".join(problems)


# ---- the JavaScript ---------------------------------------------------------------------


class Literal:
    """A string literal of a JS file: its text (``${…}`` parts as ``{}``), where it starts,
    and the code just before it (its context)."""

    def __init__(self, text: str, start: int, before: str, template: bool) -> None:
        self.text, self.start, self.before, self.template = text, start, before, template


_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}


def literals(src: str) -> Iterator[Literal]:
    """Every string literal of ``src`` (comments and regular expressions skipped), those
    inside template ``${…}`` too."""
    i, n = 0, len(src)
    last = ""  # the last significant character outside strings and comments
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            i = src.find("\n", i)
            i = n if i < 0 else i
        elif src.startswith("/*", i):
            i = src.find("*/", i + 2) + 2
        elif c in "\"'":
            j = i + 1
            while src[j] != c:
                j += 2 if src[j] == "\\" else 1
            yield Literal(src[i + 1:j], i, src[max(0, i - 60):i], False)
            i, last = j + 1, c
        elif c == "`":
            j, depth, text, inner = i + 1, 0, [], []
            while True:
                ch = src[j]
                if ch == "\\":
                    text.append(src[j:j + 2])
                    j += 2
                elif ch == "`":
                    break
                elif src.startswith("${", j):
                    k, depth = j + 2, 1
                    while depth:  # the expression: may hold strings of its own
                        if src[k] in "\"'`":
                            q = src[k]
                            k += 1
                            while src[k] != q:
                                k += 2 if src[k] == "\\" else 1
                        elif src[k] == "{":
                            depth += 1
                        elif src[k] == "}":
                            depth -= 1
                        k += 1
                    inner.append((j + 2, src[j + 2:k - 1]))
                    text.append("{}")
                    j = k
                else:
                    text.append(ch)
                    j += 1
            yield Literal("".join(text), i, src[max(0, i - 60):i], True)
            for offset, expr in inner:
                for lit in literals(expr):
                    lit.start += offset
                    yield lit
            i, last = j + 1, "`"
        elif c == "/" and last in _REGEX_BEFORE:
            j, in_class = i + 1, False
            while j < n and (src[j] != "/" or in_class):
                if src[j] == "\\":
                    j += 1
                elif src[j] == "[":
                    in_class = True
                elif src[j] == "]":
                    in_class = False
                j += 1
            i, last = j + 1, "/"
        else:
            if not c.isspace():
                last = c if not (c.isalnum() or c in "_$)]") else "a"
            i += 1


# Places where a string is never shown: CSS classes and selectors, element and event
# names, attribute names, data-* values, comparisons, keys of the catalogue, URLs.
_NOT_SHOWN = re.compile(
    r"""(?:
        \bclass(?:Name)?\s*[:=]\s*(?:[^,;]*\?\s*|[^,;]*:\s*)?$  # class: x ? "a" : "b"
      | classList\.\w+\($ | querySelector(?:All)?\($ | closest\($ | matches\($
      | addEventListener\($ | removeEventListener\($ | createElement(?:NS)?\([^,]*,?\s*$
      | setAttribute\($ | getAttribute\($ | removeAttribute\($ | toggleAttribute\($
      | hasAttribute\($ | dataset\.\w+\s*=\s*$ | \b(?:type|role|rel|target|method|autocomplete
        |inputmode|accept|id|for|name|href|src|download|value|kind|tone|cls|state|step|mode)\s*:\s*$
      | [=!]==?\s*$ | \bcase\s+$ | \b(?:t|has|tt)\(\s*$ | \bimport\b[^;]*$ | \bfrom\s*$
      | \bapi\($ | \bfetch\($ | \bnew\s+URL\($ | \bstore\.\w+\($ | \.get\($ | \.set\($ | \.has\($
      | \.includes\($ | \.startsWith\($ | \.endsWith\($ | \.split\($ | \.join\($
      | \.replace\([^,]*,\s*$
      | \bicon\($ | toast\([^,]*,\s*$ | \bsvg\($ | \bh\($ | setProperty\($ | \.style\.\w+\s*=\s*$
      | Intl\.\w+\([^)]*$ | \bconsole\.\w+\($ | testid\s*:\s*$ | focusKey\s*:\s*$
    )""",
    re.VERBOSE,
)
# A literal reads as prose when it holds two words in a row ("Back to seat", "no cards"),
# or is one capitalised word ("Join", "Waiting"); paths, selectors and identifiers do not.
_TWO_WORDS = re.compile(r"[A-Za-zÄÖÜäöüß]{2,}[ ’',.!?:;–—-]*\s[ ’',.!?:;–—(]*[A-Za-zÄÖÜäöüß]{2,}")
_ONE_WORD = re.compile(r"^[A-Z][a-zäöüß]+(?:[^\w-]|$)|^[A-Za-z]+…$")
_CODE = re.compile(r"^(?:/|#|\.|\[|https?:|data:|[\w-]+=)")


def _prose(text: str) -> bool:
    text = text.replace("{}", " ").strip()
    if _CODE.match(text):
        return False
    return bool(_TWO_WORDS.search(text) or _ONE_WORD.match(text))


# Literals that are not prose although they read like it: code and command lines shown as
# code, key names, the languages' own names.
ALLOWED = {
    "English", "Deutsch",  # LANGUAGES: each language's name in itself
    "Flip 7",  # the game's name in the lobby's heading
    "make serve HOST=0.0.0.0", "flip7 serve --host 0.0.0.0",
    "ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End",
    "Enter", "Escape", "Tab", "Backspace", "Space",
    "Accept", "Content-Type", "Authorization", "X-Player-Key", "X-Scorecard-Key",
    "INPUT", "SELECT", "TEXTAREA", "BUTTON", "A", "Bearer {}",
}


def _js_files() -> list[Path]:
    return sorted(JS.glob("*.js"))


def _english_keys() -> set[str]:
    return {key for messages in _areas(SOURCE).values() for key in messages}


_T_BEFORE = re.compile(r"(?<![\w.$])(?:t|has)\(\s*$")


@pytest.mark.parametrize("path", _js_files(), ids=lambda p: p.name)
def test_every_key_the_javascript_uses_exists(path: Path) -> None:
    keys = _english_keys()
    missing = []
    for lit in literals(path.read_text()):
        if not _T_BEFORE.search(lit.before):
            continue
        key = lit.text
        if lit.template and "{}" in key:
            pattern = re.compile("^" + ".+".join(re.escape(part) for part in key.split("{}")) + "$")
            if not any(pattern.match(k) for k in keys):
                missing.append(key)
        elif key not in keys:
            missing.append(key)
    assert not missing, f"{path.name} asks for keys English lacks: {sorted(set(missing))}"


def hard_coded(src: str) -> list[str]:
    """The literals of ``src`` that read as English prose, in a place that may show them."""
    found = []
    for lit in literals(src):
        text = lit.text.strip()
        if not text or text in ALLOWED or _wordless(text.replace("{}", "")):
            continue
        if _NOT_SHOWN.search(lit.before):
            continue
        if not _prose(text):
            continue
        line = src.count("\n", 0, lit.start) + 1
        found.append(f"line {line}: {lit.text!r}")
    return found


@pytest.mark.parametrize("path", _js_files(), ids=lambda p: p.name)
def test_the_javascript_shows_no_hard_coded_english(path: Path) -> None:
    found = hard_coded(path.read_text())
    assert not found, f"{path.name} shows English not from a catalogue:\n" + "\n".join(found)


def test_the_scan_finds_hard_coded_english() -> None:
    src = """
    const a = h("button", { class: "btn btn--primary", "aria-label": "Close the dialog" }, "Close");
    toast(`Round ${n} saved`, "ok");
    el.title = "Pause (Space)";
    const b = h("p", { class: "muted empty", text: t("lobby.no_tables") });
    if (ev.key === "ArrowRight") go(1);
    document.querySelector("[data-testid=ok]");
    const c = h("span", { text: x ? "Waiting" : "Playing" });
    """
    found = "\n".join(hard_coded(src))
    for english in ("Close the dialog", "'Close'", "Round {} saved", "Pause (Space)",
                    "Waiting", "Playing"):
        assert english in found, f"{english} not found in:\n{found}"
    for quiet in ("btn btn--primary", "lobby.no_tables", "ArrowRight", "muted empty", "ok"):
        assert quiet not in found.replace("'Close'", ""), quiet


class _CatalogueAttributes(HTMLParser):
    """The ``data-i18n`` and ``data-i18n-<attribute>`` attributes of a page, as parsed."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [(a, v) for a, v in attrs if a == "data-i18n" or a.startswith("data-i18n-")]


def test_index_html_keeps_its_words_in_the_catalogue() -> None:
    page = _CatalogueAttributes()
    page.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    page.close()
    keys = _english_keys()
    for attribute, key in page.found:
        assert key in keys, (attribute, key)
    assert ("data-i18n", "common.skip_to_content") in page.found


# ---- the server -------------------------------------------------------------------------


def test_the_rule_options_have_words_in_every_language() -> None:
    from flip7.core.rules import Rules

    for lang in LANGUAGES:
        messages = {k: v for area in _areas(lang).values() for k, v in area.items()}
        for option in Rules.options():
            for part in ("label", "help", "changes"):
                assert f"rules.option.{option.name}.{part}" in messages, (lang, option.name, part)
            for value, _words in option.words:
                assert f"rules.option.{option.name}.value.{value}" in messages, (lang, value)
        if lang == SOURCE:  # the English catalogue says what flip7.core says
            for option in Rules.options():
                assert messages[f"rules.option.{option.name}.help"] == option.help
                assert messages[f"rules.option.{option.name}.changes"] == option.changes
                for value, words in option.words:
                    assert messages[f"rules.option.{option.name}.value.{value}"] == words


def test_the_messages_endpoint() -> None:
    pytest.importorskip("fastapi")
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from flip7.server.api.routes.info import router
    from flip7.server.base.messages import catalogue

    app = FastAPI()
    app.include_router(router)
    client = TestClient(app)
    en = client.get("/api/messages/en")
    assert en.status_code == 200
    assert en.json()["common.rules"] == "Rules"
    de = client.get("/api/messages/de")
    assert de.json()["common.rules"] == "Regeln"
    assert de.json() == catalogue("de")  # completeness: test_every_language_has_every_key…
    etag = de.headers["etag"]
    again = client.get("/api/messages/de", headers={"If-None-Match": etag})
    assert again.status_code == 304
    missing = client.get("/api/messages/xx")
    assert missing.status_code == 404
    assert missing.json()["detail"]["code"] == "unknown_language"
    assert client.get("/api/messages/..%2F..%2Fetc").status_code == 404


def test_the_cards_are_explained_in_german() -> None:
    from flip7.core.cards import Card
    from flip7.core.explain import card_explanations
    from flip7.core.rules import Rules
    from flip7.server.base.messages import explainer

    english = card_explanations(Rules())
    for rules in (Rules(), Rules(brutal=True, pass_actions=True, swap_allow_cross_type=False,
                                 unlucky7_triggers_on_transfer=False,
                                 lucky13_pair_flip7_count=1)):
        german = card_explanations(rules, text=explainer("de"))
        assert len(german) == len(Card)
        for code, about in german.items():
            assert about["text"] and "{" not in about["text"], (code, about["text"])
            assert about["text"] != english[code]["text"], code
    # English through the catalogue is word for word what core says.
    for rules in (Rules(), Rules(brutal=True, pass_actions=True)):
        assert card_explanations(rules, text=explainer("en")) == card_explanations(rules)


def test_the_server_answers_in_the_language_asked(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from server_helpers import app_client

    from flip7.core.explain import card_explanations
    from flip7.core.rules import Rules

    with app_client(tmp_path / "t.db") as client:
        english = client.get("/api/cards").json()
        assert english["cards"][0]["text"] == card_explanations(Rules())["0"]["text"]
        german = client.get("/api/cards", params={"lang": "de"}).json()
        names = {c["code"]: c["name"] for c in german["cards"]}
        assert names["0"] == "Die Null" and names["STEAL"] == "Klauen"
        assert "Zahlenkarte" in {c["code"]: c["text"] for c in german["cards"]}["5"]
        client.cookies.set("flip7_lang", "de")
        by_cookie = client.get("/api/cards", params={"rules": '{"brutal": true}'}).json()
        assert {c["code"]: c["name"] for c in by_cookie["cards"]}["0"] == "Die Null"
        assert client.get("/api/cards", params={"lang": "en"}).json() == english
        client.cookies.clear()
        assert client.get("/api/messages/de").json()["lobby.create"] == "Tisch eröffnen"
        assert client.get("/api/messages/fr").status_code == 404
        page = client.get("/")
        assert page.status_code == 200 and "data-i18n" in page.text
        assert client.get("/static/js/i18n.js").status_code == 200
        assert client.get("/static/locales/de/common.json").status_code == 200
