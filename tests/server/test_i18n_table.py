"""The table side of the web app in every language (docs/i18n.md): what the server says in
English for a log or a lesson reaches the page as codes and ids, and the catalogues say the
same in every language.

- Events carry codes beside their English reasons (``busted.reason_code``, ``stayed.by``,
  ``round_scored.reason_codes``); the English catalogue built from a code (as cards.js's
  ``bustReason`` and ``scoreReason`` do) says word for word what ``flip7.core`` says.
- A tutorial lesson is sent with its ``id`` and ``params``; the catalogue has every lesson,
  in English word for word ``tutorial.py``'s, and names only what ``params`` holds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from flip7.core.cards import Card
from flip7.core.events import Busted, RoundScored, Stayed
from flip7.core.lines import bust_reason, bust_reason_code
from flip7.core.rules import Rules
from flip7.core.scoring import FLIP7_BONUS, score_reason, score_reason_code
from flip7.engine.game import Game

LOCALES = Path(__file__).resolve().parents[2] / "src" / "flip7" / "server" / "static" / "locales"
LANGUAGES = ["en", "de"]
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def C(code: str) -> Card:
    return Card.parse(code)


def _messages(lang: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path in sorted((LOCALES / lang).glob("*.json")):
        out.update(json.loads(path.read_text(encoding="utf-8")))
    return out


def _fill(message: str, **params: object) -> str:
    return _PLACEHOLDER.sub(lambda m: str(params.get(m.group(1), m.group(0))), message)


def _bust_words(messages: dict[str, Any], code: str, card: Card) -> str:
    """cards.js bustReason: a bust's reason from its code."""
    copy = re.fullmatch(r"copy_(\d+)", code)
    if copy:
        n = int(copy.group(1))
        nth = (
            messages[f"cards.ordinal.{n}"] if 2 <= n <= 8
            else _fill(messages["cards.ordinal.n"], n=n)
        )
        name = messages["cards.bust.zero_word"] if card is Card.ZERO else card.code.lstrip("LU")
        return _fill(messages["cards.bust.copy"], nth=nth, card=name)
    return str(messages[f"cards.bust.{code}"])


BUSTS = [
    ("10 3", "10"), ("U7", "7"), ("7 2", "7"), ("7", "U7"), ("U7", "U7"), ("13", "13"),
    ("L13 13", "13"), ("13 L13", "L13"), ("0 4", "0"), ("5 5", "5"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "card"), BUSTS)
def test_a_bust_reason_code_says_in_english_what_core_says(line: str, card: str) -> None:
    numbers = [C(c) for c in line.split()]
    code = bust_reason_code(numbers, C(card))
    assert _bust_words(_messages("en"), code, C(card)) == bust_reason(numbers, C(card))
    german = _bust_words(_messages("de"), code, C(card))
    assert german and "{" not in german and german != bust_reason(numbers, C(card))


def test_a_score_reason_code_says_in_english_what_core_says() -> None:
    rules, brutal = Rules(), Rules(brutal=True)
    seven = [C(c) for c in ("0", "1", "2", "3", "4", "5", "6")]
    cases: list[tuple[list[Card], list[Card], Rules, dict[str, bool]]] = [
        ([C("0"), C("12")], [C("-2")], rules, {}),
        ([C("1")], [C("-10")], rules, {}),
        ([C("1")], [C("-10")], brutal, {}),
        ([], [], rules, {}),
        ([], [C("-2")], rules, {}),
        ([C("5"), C("5")], [], rules, {"busted": True}),
        ([C("5"), C("5")], [C("-2")], brutal, {"busted": True}),
        ([*seven[1:], C("9")], [], brutal, {"flip7": True, "bonus": False}),
    ]
    english, german = _messages("en"), _messages("de")
    for numbers, modifiers, rule, flags in cases:
        code = score_reason_code(numbers, modifiers, rule, **flags)
        assert code is not None
        words = _fill(english[f"cards.score.{code}"], bonus=FLIP7_BONUS)
        assert words == score_reason(numbers, modifiers, rule, **flags)
        assert _fill(german[f"cards.score.{code}"], bonus=FLIP7_BONUS) != words
    assert score_reason_code([C("8")], [C("/2"), C("-4")], rules) is None
    assert score_reason_code(seven, [], rules, flip7=True) is None


def test_the_engine_sends_the_codes() -> None:
    game = Game.new(3, explicit=True, dealer=2)
    events: list[object] = []
    for step in ("0", "5", "9", "5", "hit", "5", "stay", "JOM", "target 0", "3"):
        events += game.draw(step) if game.needs_card else game.apply(step)
    [busted] = [e for e in events if isinstance(e, Busted)]
    assert busted.to_json()["reason_code"] == "copy_2"
    forced = [e for e in events if isinstance(e, Stayed) and e.forced]
    assert [e.to_json()["by"] for e in forced] == ["JOM"]
    [scored] = [e for e in events if isinstance(e, RoundScored)]
    assert scored.to_json()["reason_codes"] == ["zero", "busted", None]
    # The codes, like the words, take no part in comparing events.
    assert Busted(1, C("10"), "a second 10", "copy_2") == Busted(1, C("10"))


def test_every_lesson_is_in_every_language() -> None:
    pytest.importorskip("fastapi")
    from flip7.server.table.tutorial import FIRST_GAME, SCRIPTS, Tutorial

    names = ["Ann", "Eddie (Easy bot)", "Ella (Easy bot)"]
    game, _ = FIRST_GAME.new_game(names, FIRST_GAME.rules, 1)
    fields = set(Tutorial(FIRST_GAME).fields(game))
    for lang in LANGUAGES:
        messages = _messages(lang)
        for script in SCRIPTS.values():
            for lesson in script.lessons:
                key = f"tutorial.lesson.{lesson.id}"
                assert key in messages, (lang, key)
                assert set(_PLACEHOLDER.findall(messages[key])) <= fields, (lang, key)
                if lang == "en":
                    assert messages[key] == lesson.text, key
    # The state sends the lesson's id and params with its English text.
    state = Tutorial(FIRST_GAME).to_json(game)
    lesson = state["lesson"]
    assert lesson["id"] == "welcome" and lesson["params"]["p1"] == "Eddie"
    english = _messages("en")[f"tutorial.lesson.{lesson['id']}"]
    assert _fill(english, **lesson["params"]) == lesson["text"]
