"""Learning the game in the app: every card explains itself (flip7.core.explain, served by
``GET /api/cards``), the house-rule options say what they change (``GET /api/rules``), and
the engine's events say why: a bust (``Busted.reason``), a forced stay (``Stayed.reason``),
a round score (``RoundScored.reasons``), without changing what events compare equal to or
what the conformance cases read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flip7.core.cards import Card, deck_counts
from flip7.core.errors import CardError, LineError
from flip7.core.events import Busted, RoundScored, Stayed
from flip7.core.explain import card_explanations, card_name, explain
from flip7.core.lines import FLIP7_CARDS, bust_reason, busts
from flip7.core.rules import Rules
from flip7.core.scoring import FLIP7_BONUS, score_reason
from flip7.engine.game import Game

C = Card.parse

# ---------------------------------------------------------------------- every card


def test_every_card_code_has_a_name_a_kind_and_a_text() -> None:
    texts = card_explanations(Rules())
    assert list(texts) == [c.code for c in Card]
    for card in Card:
        about = texts[card.code]
        assert about["kind"] == card.kind.value
        assert about["name"] == card_name(card)
        assert about["text"] == explain(card.code, Rules()) == explain(card, Rules())
        # One or two sentences (three at most), each a real one.
        sentences = [s for s in about["text"].split(". ") if s]
        assert 1 <= len(sentences) <= 3 and len(about["text"]) > 40, (card, about["text"])
    assert len({t["text"] for t in texts.values()}) == len(texts)  # no two cards alike


def test_the_numbers_in_the_words_come_from_core() -> None:
    assert f"({FLIP7_CARDS} Number cards)" in explain("0", Rules())
    assert f"+{FLIP7_BONUS} included" in explain("0", Rules())
    assert f"holds {deck_counts()[Card.NINE]} of them" in explain("9", Rules())
    assert "holds just one" in explain("1", Rules())


def test_a_code_is_read_as_everywhere_and_an_unknown_one_is_refused() -> None:
    assert explain("l13", Rules()) == explain("L13", Rules())
    assert explain("÷2", Rules()) == explain("/2", Rules())
    for bad in ("XX", "14", ""):
        with pytest.raises(CardError, match="unknown card code"):
            explain(bad, Rules())


@pytest.mark.parametrize(
    ("code", "option", "value", "words"),
    [
        ("U7", "unlucky7_triggers_on_transfer", False, "stolen or swapped in, it is a plain 7"),
        ("L13", "lucky13_pair_flip7_count", 1, "the pair counts as one card toward Flip 7"),
        ("SWAP", "swap_allow_cross_type", False, "Number for Number, Modifier for Modifier"),
        ("STEAL", "pass_actions", True, "hand it to another player to use"),
        ("SWAP", "pass_actions", True, "hand it to another player to use"),
        ("DISCARD", "pass_actions", True, "hand it to another player to use"),
        ("-4", "brutal", True, "even below 0, and from a busted player too"),
        ("/2", "brutal", True, "even one who busted"),
        ("0", "brutal", True, f"or −{FLIP7_BONUS} on another player"),
    ],
)
def test_the_words_follow_the_options(code: str, option: str, value: object, words: str) -> None:
    default = explain(code, Rules())
    changed = explain(code, Rules.from_json({option: value}))
    assert words not in default
    assert words in changed


def test_brutal_busted_scoring_zero_says_a_busted_player_still_scores_0() -> None:
    text = explain("-6", Rules(brutal=True, brutal_busted_scoring="zero"))
    assert "a busted player still scores 0" in text
    assert "never below 0" in explain("-6", Rules())


def test_every_option_says_what_it_changes() -> None:
    for option in Rules.options():
        assert option.changes.endswith(".") and len(option.changes) > 30, option.name
    assert len({o.changes for o in Rules.options()}) == len(Rules.options())


# ---------------------------------------------------------------------- why a bust


@pytest.mark.parametrize(
    ("line", "card", "reason"),
    [
        ("10 3", "10", "a second 10"),
        ("U7", "7", "a 7 beside Unlucky 7"),
        ("7 2", "7", "a second 7"),
        ("7", "U7", "Unlucky 7 beside a 7"),  # by Steal or Swap, with no wipe on transfer
        ("U7", "U7", "a second Unlucky 7"),  # two decks
        ("13", "13", "a second 13 without Lucky 13"),
        ("L13 13", "13", "a third 13"),
        ("13 L13", "L13", "a third 13"),  # two decks: a second Lucky 13 on a pair
        ("0 4", "0", "a second Zero"),  # two decks
    ],
)
def test_each_kind_of_bust_has_its_reason(line: str, card: str, reason: str) -> None:
    numbers = [C(c) for c in line.split()]
    assert busts(numbers, C(card))
    assert bust_reason(numbers, C(card)) == reason


@pytest.mark.parametrize(("line", "card"), [("13", "L13"), ("5", "6"), ("5", "-4"), ("", "3")])
def test_a_card_that_does_not_bust_has_no_reason(line: str, card: str) -> None:
    with pytest.raises(LineError, match="does not bust"):
        bust_reason([C(c) for c in line.split()], C(card))


# ---------------------------------------------------------------------- why a score


def test_score_reasons() -> None:
    rules = Rules()
    brutal = Rules(brutal=True)
    seven = [C(c) for c in ("0", "1", "2", "3", "4", "5", "6")]
    assert score_reason([C("0"), C("12")], [C("-2")], rules) == "The Zero without a Flip 7"
    assert score_reason(seven, [], rules, flip7=True) is None  # The Zero does nothing then
    assert score_reason([C("1")], [C("-10")], rules) == "its Modifiers would take it below 0"
    assert score_reason([C("1")], [C("-10")], brutal) == "in Brutal its Modifiers take it below 0"
    assert score_reason([C("8")], [C("/2"), C("-4")], rules) is None
    assert score_reason([], [], rules) == "no Number cards"
    assert score_reason([], [C("-2")], rules) == "no Number cards, only Modifiers"
    assert score_reason([C("5"), C("5")], [], rules, busted=True) == "busted"
    assert score_reason([C("5"), C("5")], [C("-2")], brutal, busted=True) == (
        "busted, but in Brutal its Modifiers still count"
    )
    zero = Rules(brutal=True, brutal_busted_scoring="zero")
    assert score_reason([C("5"), C("5")], [C("-2")], zero, busted=True) == "busted"
    assert score_reason([*seven[1:], C("9")], [], brutal, flip7=True, bonus=False) == (
        f"Flip 7, with {FLIP7_BONUS} taken off another player instead of +{FLIP7_BONUS}"
    )


def _play(game: Game, *steps: str) -> list[object]:
    events: list[object] = []
    for step in steps:
        events += game.draw(step) if game.needs_card else game.apply(step)
    return events


def test_the_engine_gives_its_reasons() -> None:
    game = Game.new(3, explicit=True, dealer=2)
    # Ann holds The Zero (and must hit), Bob busts on a second 5, Cyd stays, Ann's own
    # Just One More! makes her stay.
    events = _play(game, "0", "5", "9", "5", "hit", "5", "stay", "JOM", "target 0", "3")
    [busted] = [e for e in events if isinstance(e, Busted)]
    assert busted.reason == "a second 5" and busted.to_json()["reason"] == "a second 5"
    stays = [e for e in events if isinstance(e, Stayed)]
    assert [(s.seat, s.forced, s.reason) for s in stays] == [
        (2, False, None), (0, True, "Just One More!"),
    ]  # fmt: skip
    [scored] = [e for e in events if isinstance(e, RoundScored)]
    assert scored.scores == (0, 0, 9)
    assert scored.reasons == ("The Zero without a Flip 7", "busted", None)
    assert scored.to_json()["reasons"] == ["The Zero without a Flip 7", "busted", None]


def test_reasons_take_no_part_in_comparing_events() -> None:
    assert Busted(1, C("10"), "a second 10") == Busted(1, C("10"))
    assert hash(Stayed(0, True, "Just One More!")) == hash(Stayed(0, True))
    assert Busted(1, C("10")).to_json() == {"type": "busted", "seat": 1, "card": "10",
                                            "reason": None, "reason_code": None}


def test_the_unlucky_7_wipe_lists_its_cards() -> None:
    from flip7.core.events import Wiped

    game = Game.new(3, explicit=True, dealer=2)
    events = _play(game, "9", "5", "6", "hit", "11", "hit", "3", "hit", "4", "hit", "-4",
                   "give 0", "hit", "2", "hit", "8", "hit", "U7")
    [wiped] = [e for e in events if isinstance(e, Wiped)]
    assert wiped.seat == 0 and [c.code for c in wiped.cards] == ["9", "11", "-4"]


# ---------------------------------------------------------------------- GET /api/cards


def test_api_cards_serves_the_core_words(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from server_helpers import app_client

    with app_client(tmp_path / "db.sqlite") as client:
        answer = client.get("/api/cards")
        assert answer.status_code == 200
        data = answer.json()
        assert data["rules"] == {}
        assert data["cards"] == [
            {"code": code, **about} for code, about in card_explanations(Rules()).items()
        ]
        house = {"brutal": True, "pass_actions": True}
        data = client.get("/api/cards", params={"rules": json.dumps(house)}).json()
        assert data["rules"] == house
        texts = {c["code"]: c["text"] for c in data["cards"]}
        assert texts["STEAL"] == explain("STEAL", Rules(**house))
        # The options' words, for the rules page.
        about = client.get("/api/rules").json()["about"]
        assert {name: a["changes"] for name, a in about.items()} == {
            o.name: o.changes for o in Rules.options()
        }
        # The page itself is the client's.
        page = client.get("/rules")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]


@pytest.mark.parametrize(
    ("rules", "words"),
    [
        ("{", "JSON object"),
        ("[]", "must be a JSON object"),
        ('{"brutel": true}', "unknown rule option 'brutel'"),
        ('{"target_score": 0}', "target_score must be an integer >= 1"),
        ('{"tie_break": "coin"}', "tie_break must be"),
        ("1" * 5000, "at most 1024 characters"),
        ('{"brutal": 1}', "brutal must be true or false"),
        ("[" * 500 + "]" * 500, "JSON object"),
    ],
)
def test_api_cards_refuses_bad_rules(tmp_path: Path, rules: str, words: str) -> None:
    pytest.importorskip("fastapi")
    from server_helpers import app_client

    with app_client(tmp_path / "db.sqlite") as client:
        answer = client.get("/api/cards", params={"rules": rules})
    assert answer.status_code == 400, answer.text
    detail = answer.json()["detail"]
    assert detail["code"] == "bad_rules" and words in detail["message"], detail
