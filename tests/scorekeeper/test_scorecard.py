"""The scorekeeper's model (flip7.scorekeeper.scorecard): scores, checks, end of game, live
mode, JSON."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

import pytest

from flip7.analysis.advisor import Situation, advise
from flip7.core.cards import FLIP_FOUR_CARDS, Card, deck_counts
from flip7.core.errors import Flip7Error
from flip7.core.rules import Rules
from flip7.engine.game import Status
from flip7.scorekeeper.scorecard import (
    LineEntry,
    LiveEvent,
    LiveRound,
    Problem,
    RoundInvalid,
    Scorecard,
    ScorecardError,
    StaleRound,
)

NAMES = ["Ann", "Bob", "Cyd"]


def card3(**rules: Any) -> Scorecard:
    return Scorecard.new(NAMES, rules=Rules(**rules))


def problems(card: Scorecard, lines: list[Any], choice: Any = None) -> list[Problem]:
    with pytest.raises(RoundInvalid) as info:
        card.check_round(lines, choice)
    assert str(info.value) == "; ".join(p.message for p in info.value.problems)
    return list(info.value.problems)


def messages(card: Scorecard, lines: list[Any], choice: Any = None) -> list[str]:
    return [p.message for p in problems(card, lines, choice)]


def score_of(line: str, **rules: Any) -> int:
    return card3(**rules).check_round([line, "", ""]).scores[0]


def ev(kind: str, seat: int | None = None, card: str | None = None, **more: int) -> dict[str, Any]:
    out: dict[str, Any] = {"type": kind}
    if seat is not None:
        out["seat"] = seat
    if card is not None:
        out["card"] = card
    if "src" in more:
        out["from"] = more["src"]
    if "to" in more:
        out["to"] = more["to"]
    return out


def deal(seat: int, *codes: str) -> list[dict[str, Any]]:
    return [ev("card", seat, code) for code in codes]


# ---------------------------------------------------------------------------- players


def test_new_scorecard_defaults() -> None:
    card = Scorecard.new(["Ann", " Bob ", "Cyd"])
    assert card.players == ("Ann", "Bob", "Cyd")
    assert card.decks == 1 and card.rules == Rules() and card.rounds == ()
    assert card.totals == (0, 0, 0) and not card.over and card.winners == ()
    assert card.status_line() == "No rounds yet; target 200"


@pytest.mark.parametrize(
    ("players", "kwargs", "message"),
    [
        (["Ann", "Bob"], {}, "a game needs 3 to 36 players (2 only with the rule"),
        (["Ann", "", "Cyd"], {}, "a player's name must be non-empty text"),
        (["Ann", "ann", "Cyd"], {}, "two players are called 'ann'"),
        (["Ann", "B" * 41, "Cyd"], {}, "at most 40 characters"),
        ([f"P{i}" for i in range(19)], {"decks": 1}, "19 players need 2 decks"),
        ([f"P{i}" for i in range(37)], {"decks": 2}, "a game needs 3 to 36 players"),
        (NAMES, {"decks": 3}, "decks must be 1 or 2"),
        ("Ann,Bob,Cyd", {}, "players are a list of names"),
    ],
)
def test_bad_players(players: Any, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ScorecardError, match=message.replace("(", r"\(")):
        Scorecard.new(players, **kwargs)


def test_two_players_and_two_decks() -> None:
    card = Scorecard.new(["Ann", "Bob"], rules=Rules(allow_two_players=True))
    assert card.add_round(["5", "6"]).totals == (5, 6)
    big = Scorecard.new([f"P{i}" for i in range(19)])
    assert big.decks == 2
    assert Scorecard.new(NAMES, decks=2).decks == 2


# ---------------------------------------------------------------------------- RULES §12 scores


@pytest.mark.parametrize(
    ("line", "rules", "expected"),
    [
        ("3 11 5 7 10 8 4 /2 -4", {}, 35),  # T2
        ("3 11 5 7 10 8 /2 -4", {}, 18),  # T3
        ("1 -10", {}, 0),  # T4
        ("1 -10", {"brutal": True}, -9),  # T5
        ("4 8 11 /2 -4", {}, 7),  # T6
        ("0 13", {}, 0),  # T7
        ("0 1 2 3 4 5 6", {}, 36),  # T8
        ("13 L13", {}, 26),  # T9
        ("L13 13", {}, 26),  # T9, either order (§4.5.3)
        ("1 2 3 4 5 L13 13", {}, 56),  # T12: Flip 7 by default (41 + 15)
        ("1 2 3 4 5 L13 13", {"lucky13_pair_flip7_count": 1}, 41),  # T12: no Flip 7
        ("1 2 3 4 5 6 L13 13", {"lucky13_pair_flip7_count": 1}, 62),  # 8 cards, 7 values
        ("-4 /2", {}, 0),  # only Modifiers
        ("-4 /2", {"brutal": True}, -4),
        ("", {}, 0),
        ("0 -10", {"brutal": True}, 0),  # §4.3.5
        ("9 /2", {}, 4),  # ÷2 rounds down
        ("U7 7", {}, None),  # T14 as a final line: a bust
    ],
)
def test_rules_vectors(line: str, rules: dict[str, Any], expected: int | None) -> None:
    if expected is None:
        with pytest.raises(RoundInvalid, match="is a bust"):
            score_of(line, **rules)
    else:
        assert score_of(line, **rules) == expected


def test_flip7_detected_from_the_cards() -> None:
    result = card3().check_round(["3 11 5 7 10 8 4 /2 -4", "5", "bust 9 9"])
    assert result.flip7_seat == 0 and result.scores == (35, 5, 0)
    assert result.busted == (2,) and result.flip7_choice is None


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("bust L13 13 13", 0),  # T10
        ("bust 13 13", 0),  # T11
        ("bust U7 7", 0),  # T14
        ("bust 5 5 -4", 0),  # standard: a busted line scores 0
        ("bust", 0),
    ],
)
def test_busted_lines_standard(line: str, expected: int) -> None:
    assert score_of(line) == expected


@pytest.mark.parametrize(
    ("line", "scoring", "expected"),
    [
        ("bust 5 5 -4 /2", "modifiers_only", -4),  # §10.2: ÷2 does nothing on a base of 0
        ("bust -4 -6", "modifiers_only", -10),
        ("bust 0 3 3 -2", "modifiers_only", -2),  # The Zero is ignored
        ("bust 5 5 -4", "zero", 0),
    ],
)
def test_busted_lines_brutal(line: str, scoring: str, expected: int) -> None:
    assert score_of(line, brutal=True, brutal_busted_scoring=scoring) == expected


def test_two_decks_allow_two_lucky_13s_and_two_halvings() -> None:
    card = Scorecard.new(NAMES, decks=2)
    result = card.check_round(["L13 L13 /2 /2", "0 13", "0 12"])
    # Two ÷2 halve twice: 26 → 13 → 6; two Zeros in different lines are fine with two decks.
    assert result.scores == (6, 0, 0)
    assert messages(card, ["U7 U7", "", ""]) == [
        "Ann: U7 U7 is a bust (two Unlucky 7s): mark Ann busted or correct the cards"
    ]


# ---------------------------------------------------------------------------- checks


def test_bust_not_marked() -> None:
    found = problems(card3(), ["3", "5 9 5", "4"])
    assert found == [
        Problem(1, "Bob: 5 9 5 is a bust (two 5s): mark Bob busted or correct the cards")
    ]


def test_unlucky7_beside_a_7_is_a_bust() -> None:
    assert messages(card3(), ["7 U7 3", "", ""]) == [
        "Ann: 7 U7 3 is a bust (Unlucky 7 and a 7): mark Ann busted or correct the cards"
    ]
    assert card3().check_round(["bust 7 U7 3", "", ""]).scores == (0, 0, 0)


def test_thirteens_messages() -> None:
    assert messages(card3(), ["13 13", "L13 13 13", ""]) == [
        "Ann: 13 13 is a bust (two 13s without Lucky 13): mark Ann busted or correct the cards",
        "Bob: L13 13 13 is a bust (three 13s): mark Bob busted or correct the cards",
    ]


def test_too_many_number_cards() -> None:
    assert messages(card3(), ["", "", "1 2 3 4 5 6 8 9"]) == [
        "Cyd: 8 Number cards cannot be in a line: the 7th ends the round (Flip 7)"
    ]
    # A busted line holds one more than the line before the bust, which had at most 6.
    assert card3().check_round(["bust 2 3 4 5 6 8 2", "", ""]).scores[0] == 0
    assert messages(card3(), ["bust 2 3 4 5 6 8 9 2", "", ""]) == [
        "Ann: 8 Number cards cannot be in a busted line: the 7th ends the round (Flip 7)"
    ]
    one = card3(lucky13_pair_flip7_count=1)
    assert messages(one, ["1 2 3 4 5 6 8 9", "", ""]) == [
        "Ann: 8 Number cards cannot be in a line: seven different values end the round (Flip 7)"
    ]
    assert one.check_round(["bust 2 3 4 5 6 13 L13 2", "", ""]).scores[0] == 0


def test_impossible_busted_lines() -> None:
    assert messages(card3(), ["bust 5 9", "bust 5 5 5", "bust 3 3 4 4"]) == [
        "Ann: 5 9 is marked busted but is not a bust (no two Number cards of the same value): "
        "correct the cards, or list none",
        "Bob: 5 5 5 cannot be a busted line: a player busts on the first duplicate (three 5s)",
        "Cyd: 3 3 4 4 cannot be a busted line: a player busts on the first duplicate "
        "(two 3s, two 4s)",
    ]


def test_action_and_unknown_cards() -> None:
    found = problems(card3(), ["3 STEAL", "14 5", "jom flip4"])
    assert found == [
        Problem(0, "Ann: Steal is an Action card: Actions never stay in a line"),
        Problem(1, 'Bob: "14" is not a card; cards are 0–13, U7, L13, /2, -2, -4, -6, -8, -10'),
        Problem(2, "Cyd: Just One More! is an Action card: Actions never stay in a line"),
        Problem(2, "Cyd: Flip Four! is an Action card: Actions never stay in a line"),
    ]


def test_deck_overflow_across_lines() -> None:
    assert messages(card3(), ["2 5", "2 9", "bust 2 2"]) == [
        "there are 4 cards 2 in this round, but the deck holds only 2"
    ]
    assert messages(card3(), ["0", "0", "-4 /2"]) == [
        "there are 2 cards 0 in this round, but the deck holds only 1"
    ]
    two = Scorecard.new(NAMES, decks=2)
    assert two.check_round(["0", "0", "1"]).scores == (0, 0, 1)
    assert messages(two, ["0", "0", "0"]) == [
        "there are 3 cards 0 in this round, but the 2 decks hold only 2"
    ]


def test_two_flip7s() -> None:
    found = messages(card3(), ["1 2 3 4 5 6 7", "8 9 10 11 12 13 L13", "9"])
    assert found == ["Ann and Bob both have Flip 7: only one player can reach Flip 7 in a round"]
    many = Scorecard.new(["A", "B", "C"])
    lines = ["2 3 4 5 6 7 8", "3 4 5 6 7 8 9", "4 5 6 7 8 9 10"]
    assert messages(many, lines) == [
        "A, B and C all have Flip 7: only one player can reach Flip 7 in a round"
    ]


def test_every_problem_at_once() -> None:
    found = problems(card3(), ["5 5", "STEAL", "14"], {"minus15": 1})
    assert [p.seat for p in found] == [0, 1, 2, None]
    assert found[-1].message == "the −15 Flip 7 choice is for Brutal mode only"


def test_wrong_number_of_lines() -> None:
    assert messages(card3(), ["5", "6"]) == [
        "a round needs one line per player: 3 players, 2 lines"
    ]


@pytest.mark.parametrize(
    ("rules", "lines", "choice", "message"),
    [
        ({}, ["1 2 3 4 5 6 7", "", ""], {"minus15": 1}, "the −15 Flip 7 choice is for Brutal"),
        ({"brutal": True}, ["1 2", "", ""], {"minus15": 1}, "no line is a Flip 7"),
        ({"brutal": True}, ["1 2 3 4 5 6 7", "", ""], {"minus15": 0}, "the −15 must go to another"),
        ({"brutal": True}, ["1 2 3 4 5 6 7", "", ""], {"minus15": 5}, "seat 5 is not one"),
        ({"brutal": True}, ["1 2 3 4 5 6 7", "", ""], "minus", 'a Flip 7 choice is "bonus"'),
        ({"brutal": True}, ["1 2 3 4 5 6 7", "", ""], {"minus15": "1"}, "a Flip 7 choice is"),
        (
            {"brutal": True, "brutal_minus15_targets": "non_busted_others"},
            ["1 2 3 4 5 6 7", "bust 9 9", ""],
            {"minus15": 1},
            "the −15 must go to another player who has not busted (Bob busted",
        ),
    ],
)
def test_bad_flip7_choices(
    rules: dict[str, Any], lines: list[str], choice: Any, message: str
) -> None:
    found = messages(card3(**rules), lines, choice)
    assert len(found) == 1 and message in found[0]


def test_minus15_on_a_busted_player_by_default() -> None:
    card = card3(brutal=True).add_round(["1 2 3 4 5 6 7", "bust 9 9", "3"], {"minus15": 1})
    assert card.rounds[0].scores == (28, 0, 3) and card.totals == (28, -15, 3)
    assert card.rounds[0].flip7_choice == {"minus15": 1} and card.rounds[0].minus15 == 1


def test_bonus_is_the_default_choice() -> None:
    card = card3(brutal=True)
    assert card.check_round(["1 2 3 4 5 6 7", "", ""]).scores[0] == 43
    result = card.check_round(["1 2 3 4 5 6 7", "", ""], "bonus")
    assert result.scores[0] == 43 and result.flip7_choice == "bonus"


def test_lines_as_entries_objects_and_text() -> None:
    card = card3()
    a = card.check_round([LineEntry.parse("3 11"), {"cards": ["5"], "busted": False}, "bust"])
    assert a.scores == (14, 5, 0)
    assert LineEntry.of([Card.FIVE, "l13", "÷2", "−4"]).cards == ("5", "L13", "/2", "-4")
    assert LineEntry.bust(["-4"]) == LineEntry(("-4",), True)
    assert LineEntry.parse("BUST, 5 5").busted
    assert messages(card, [{"cards": "5"}, "", ""]) == [
        "Ann: a line's cards are a list of card codes, not '5'"
    ]


# ---------------------------------------------------------------------------- end of the game


def _tie_at_205(**rules: Any) -> Scorecard:
    """T24: after four rounds Ann 205, Bob 205, Cyd 150."""
    card = card3(**rules)
    for _ in range(3):
        card = card.add_round(["12 11 10 9 8 7", "12 11 10 9 8 7", "13 12 11 10 4"])
    assert card.totals == (171, 171, 150) and not card.over
    return card.add_round(["13 12 9", "13 12 9", "bust"])


def test_t24_tie_means_an_extra_round() -> None:
    card = _tie_at_205()
    assert card.totals == (205, 205, 150)
    assert not card.over and card.extra_round and card.winners == ()
    assert card.status_line() == "Tie at the top: Ann and Bob have 205 — an extra round decides"
    assert card.summary_json()["extra_round"] is True
    card = card.add_round(["3", "3", "4"])  # still tied (208, 208): another extra round
    assert not card.over and card.extra_round
    card = card.add_round(["5", "4", "1"])
    assert card.over and card.winners == (0,) and card.status_line() == "Ann wins with 213"


def test_t24_shared_win() -> None:
    card = _tie_at_205(tie_break="shared_win")
    assert card.over and card.winners == (0, 1) and not card.extra_round
    assert card.status_line() == "Ann and Bob share the win with 205"
    assert messages(card, ["1", "2", "3"]) == [
        "the game is over: Ann and Bob shared the win with 205"
    ]


def test_highest_total_wins_when_several_pass_the_target() -> None:
    card = card3(target_score=20).add_round(["12 11", "10 11", "3"])
    assert card.over and card.winners == (0,) and card.status_line() == "Ann wins with 23"
    assert messages(card, ["1", "2", "3"]) == ["the game is over: Ann won with 23"]
    with pytest.raises(RoundInvalid) as info:
        card.add_round(["1", "2", "3"])
    assert info.value.problems == (Problem(None, "the game is over: Ann won with 23"),)


def test_leader_status_lines() -> None:
    card = card3().add_round(["12 11 10", "5", "5 6"])
    assert card.status_line() == "Ann leads with 33; target 200"
    card = card3().add_round(["5 6", "11", "2"])
    assert card.status_line() == "Ann and Bob lead with 11; target 200"
    assert card.leaders == (0, 1) and card.summary_json()["leader"] == "Ann and Bob"


def test_t25_brutal_minus15() -> None:
    card = card3(brutal=True).add_round(["3 11 5 7 10 8 4 /2 -4", "12", "1"], {"minus15": 1})
    assert card.rounds[0].scores == (20, 12, 1)  # no +15 for the flipper
    assert card.totals == (20, -3, 1)  # Bob's total −15, below 0
    assert card.rounds[0].flip7_seat == 0


def test_brutal_negative_totals_and_falling_back_below_the_target() -> None:
    card = card3(brutal=True, target_score=30).add_round(["10 11 9", "10 11 9", "1 -10"])
    assert card.totals == (30, 30, -9) and card.extra_round
    card = card.add_round(["1 -10", "2 -8", "4"])
    assert card.totals == (21, 24, -5)
    assert not card.over and not card.extra_round
    assert card.status_line() == "Bob leads with 24; target 30"
    card = card.add_round(["1 2 3 4 5 6 7", "9", "5"], {"minus15": 1})
    assert card.totals == (49, 18, 0) and card.over and card.winners == (0,)


def test_brutal_minus15_can_decide_a_tie() -> None:
    card = card3(brutal=True, target_score=30).add_round(["10 11 9", "10 11 9", ""])
    card = card.add_round(["", "", "1 2 3 4 5 6 7"], {"minus15": 0})
    assert card.totals == (15, 30, 28) and card.over and card.winners == (1,)


# ---------------------------------------------------------------------------- undo, edit


def _three_rounds() -> Scorecard:
    card = card3(target_score=50)
    card = card.add_round(["10 11 9", "12 8", "10"])  # 30 20 10
    card = card.add_round(["10", "5", "5"])  # 40 25 15
    return card.add_round(["7", "1", "2"])  # 47 26 17


def test_undo_and_edit_recompute_the_totals() -> None:
    card = _three_rounds()
    assert card.totals == (47, 26, 17) and card.version == 4
    undone = card.undo_round(revision=1)
    assert undone.totals == (40, 25, 15) and len(undone.rounds) == 2
    edited = card.edit_round(2, revision=1, lines=["10", "bust 5 5", "5"])
    assert edited.totals == (47, 21, 17)
    assert [r.revision for r in edited.rounds] == [1, 2, 1]
    assert [r.totals for r in edited.rounds] == [(30, 20, 10), (40, 20, 15), (47, 21, 17)]
    again = edited.edit_round(2, revision=2, lines=["10", "6", "5"])
    assert again.rounds[1].revision == 3 and again.totals == (47, 27, 17)
    with pytest.raises(ScorecardError, match="only the last round can be undone"):
        card.undo_round(revision=1, number=2)
    with pytest.raises(ScorecardError, match="there is no round to undo"):
        card3().undo_round(revision=1)
    with pytest.raises(ScorecardError, match="there is no round 4: the scorecard has 3 rounds"):
        card.edit_round(4, revision=1, lines=["1", "2", "3"])


def test_stale_revisions() -> None:
    card = _three_rounds().edit_round(3, revision=1, lines=["8", "1", "2"])
    with pytest.raises(StaleRound) as info:
        card.edit_round(3, revision=1, lines=["9", "1", "2"])
    assert info.value.current == 2
    assert "round 3 was changed meanwhile (it is at revision 2, not 1)" in str(info.value)
    with pytest.raises(StaleRound):
        card.undo_round(revision=1)
    assert card.undo_round(revision=2).totals == (40, 25, 15)


def test_edit_that_would_end_the_game_early_is_refused() -> None:
    card = _three_rounds()
    with pytest.raises(RoundInvalid) as info:
        card.edit_round(1, revision=1, lines=["10 11 9 12", "12 8", "10"])
    assert str(info.value) == "round 2 now ends the game (Ann 52): undo the rounds after it first"
    with pytest.raises(RoundInvalid, match=r"round 2 now ends the game \(Ann 60\)"):
        card.edit_round(2, revision=1, lines=["10 11 9", "5", "5"])
    # Ending the game in the last round is fine.
    over = card.edit_round(3, revision=1, lines=["7 3", "1", "2"])
    assert over.over and over.winners == (0,) and over.totals == (50, 26, 17)


def test_edit_reports_the_rounds_own_problems_unprefixed() -> None:
    with pytest.raises(RoundInvalid) as info:
        _three_rounds().edit_round(1, revision=1, lines=["5 5", "1", "2"])
    assert info.value.problems == (
        Problem(0, "Ann: 5 5 is a bust (two 5s): mark Ann busted or correct the cards"),
    )


def test_scorecards_are_immutable_values() -> None:
    card = card3()
    after = card.add_round(["5", "6", "7"])
    assert card.rounds == () and after.totals == (5, 6, 7)
    with pytest.raises(AttributeError):
        after.players = ("X", "Y", "Z")  # type: ignore[misc]


# ---------------------------------------------------------------------------- JSON and CSV


def test_json_round_trip() -> None:
    card = card3(brutal=True, target_score=100)
    card = card.add_round(["1 2 3 4 5 6 7", "bust 9 9 -4", "5 /2"], {"minus15": 2})
    card = card.edit_round(1, revision=1, lines=["1 2 3 4 5 6 7", "bust 9 9 -4", "6 /2"],
                           flip7_choice={"minus15": 2})  # fmt: skip
    card = card.live_round(deal(0, "12") + deal(1, "5"), based_on=0)
    data = json.loads(json.dumps(card.to_json()))
    assert data["format"] == "flip7-scorecard/1"
    assert data["rules"]["brutal"] is True and data["rules"]["tie_break"] == "extra_rounds"
    assert data["rounds"][0] == {
        "lines": [
            {"cards": ["1", "2", "3", "4", "5", "6", "7"], "busted": False},
            {"cards": ["9", "9", "-4"], "busted": True},
            {"cards": ["6", "/2"], "busted": False},
        ],
        "flip7_choice": {"minus15": 2},
        "revision": 2,
        "events": None,
    }
    back = Scorecard.from_json(data)
    assert back == card
    assert back.totals == (28, -4, -12) and back.live is not None
    assert back.live.numbers[0] == (Card.TWELVE,)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="x"), "format must be 'flip7-scorecard/1'"),
        (lambda d: d.update(extra=1), "unknown scorecard keys: extra"),
        (lambda d: d.update(players=["A", "B"]), "a game needs 3 to 36 players"),
        (lambda d: d.update(rules={"brutel": True}), "rules: unknown rule option 'brutel'"),
        (lambda d: d["rounds"][0]["lines"].pop(), "round 1: a round needs one line per player"),
        (lambda d: d["rounds"][1]["lines"][0].update(cards=["5", "5"]), "round 2: Ann: 5 5 is a"),
        (lambda d: d["rounds"][0].update(revision=0), r"rounds\[0\]: revision must be"),
        (lambda d: d["rounds"][0].update(flip7_choice=3), r"rounds\[0\]: a Flip 7 choice is"),
        (lambda d: d["rounds"][0].update(events=[{"type": "x"}]), "unknown event type 'x'"),
        (lambda d: d.update(rounds=d["rounds"] * 3), "round 2 now ends the game"),
        (lambda d: d.update(live={"events": [], "revision": 0}), "live: events is a list"),
        (lambda d: d.update(live={"events": [{"type": "stay", "seat": 9}]}), "live is null or"),
    ],
)
def test_from_json_refuses_bad_data(change: Any, message: str) -> None:
    card = card3(target_score=20).add_round(["5", "6", "7"]).add_round(["12 11", "5", "1"])
    data = json.loads(json.dumps(card.to_json()))
    change(data)
    with pytest.raises(ScorecardError, match=message):
        Scorecard.from_json(data)


def test_summary_json() -> None:
    card = card3(target_score=30).add_round(["1 2 3 4 5 6 7", "bust 5 5", "10"])
    summary = card.summary_json()
    assert summary["status"] == "over" and summary["winners"] == [0]
    assert summary["winner_names"] == ["Ann"] and summary["leader"] == "Ann"
    assert summary["message"] == "Ann wins with 43" and summary["totals"] == [43, 0, 10]
    assert summary["rounds"] == [
        {
            "number": 1,
            "revision": 1,
            "lines": [
                {"cards": ["1", "2", "3", "4", "5", "6", "7"], "busted": False},
                {"cards": ["5", "5"], "busted": True},
                {"cards": ["10"], "busted": False},
            ],
            "flip7_choice": None,
            "flip7_seat": 0,
            "minus15": None,
            "busted": [1],
            "scores": [43, 0, 10],
            "totals": [43, 0, 10],
            "live": False,
        }
    ]
    assert summary["live"] is None and summary["extra_round"] is False
    fresh = card3().summary_json()
    assert fresh["status"] == "playing" and fresh["leader"] is None and fresh["leaders"] == []
    json.dumps(summary)


def test_csv() -> None:
    card = card3(brutal=True).add_round(["1 2 3 4 5 6 7", "bust", "5 /2"], {"minus15": 1})
    card = card.add_round(["3", "", "bust 9 9 -2"])
    rows = list(csv.reader(io.StringIO(card.to_csv())))
    assert rows[0] == [
        "round", "Ann cards", "Ann score", "Ann total", "Bob cards", "Bob score", "Bob total",
        "Cyd cards", "Cyd score", "Cyd total", "note",
    ]  # fmt: skip
    assert rows[1] == [
        "1", "1 2 3 4 5 6 7", "28", "28", "bust", "0", "-15", "5 /2", "2", "2",
        "Flip 7: Ann; −15 on Bob",
    ]  # fmt: skip
    assert rows[2] == ["2", "3", "3", "31", "", "0", "-15", "bust: 9 9 -2", "-2", "0", ""]
    assert len(rows) == 3


# ---------------------------------------------------------------------------- live mode


def live(events: list[dict[str, Any]], **rules: Any) -> LiveRound:
    card = card3(**rules).live_round(events, based_on=0)
    assert card.live is not None
    return card.live


def test_live_bust() -> None:
    state = live(deal(0, "5") + deal(1, "9") + deal(2, "2") + deal(0, "5"))
    assert state.statuses == (Status.BUSTED, Status.ACTIVE, Status.ACTIVE)
    assert state.numbers[0] == (Card.FIVE, Card.FIVE) and state.to_decide == 1
    assert state.lines()[0] == LineEntry(("5", "5"), True)
    assert not state.over


def test_t13_unlucky7_wipes_the_line_and_its_modifiers() -> None:
    state = live(deal(0, "7", "9", "-2", "U7"))
    assert state.numbers[0] == (Card.UNLUCKY_7,) and state.modifiers[0] == ()
    assert state.statuses[0] is Status.ACTIVE
    assert state.discard_pile == {Card.SEVEN: 1, Card.NINE: 1, Card.MINUS_2: 1}
    pile = state.draw_pile
    assert pile[Card.SEVEN] == 5 and Card.UNLUCKY_7 not in pile and Card.MINUS_2 not in pile
    assert state.cards_left == 108 - 4


def test_t14_a_7_after_unlucky7_busts() -> None:
    state = live(deal(0, "U7", "7"))
    assert state.statuses[0] is Status.BUSTED


def test_live_lucky13_pair() -> None:
    state = live(deal(0, "13", "L13") + deal(1, "13", "13"))
    assert state.statuses[:2] == (Status.ACTIVE, Status.BUSTED)


def test_live_flip7_ends_the_round() -> None:
    events = deal(1, "9") + deal(0, "1", "2", "3", "4", "5", "6", "0")
    state = live(events)
    assert state.flip7_seat == 0 and state.over and state.to_decide is None
    assert state.scores_now() == (36, 9, 0)
    with pytest.raises(ScorecardError, match=r"event 9 \(stay\): the round is over \(Ann has"):
        live([*events, ev("stay", 1)])


def test_live_actions_are_recorded_and_discarded() -> None:
    state = live(deal(0, "STEAL", "5"))
    assert state.numbers[0] == (Card.FIVE,)
    assert state.discard_pile == {Card.STEAL: 1} and state.draw_pile[Card.STEAL] == 1


def test_live_steal_and_swap() -> None:
    base = deal(0, "10", "11") + deal(1, "10", "11") + deal(2, "4")
    state = live([*base, ev("card", 2, "STEAL"), ev("move", card="11", src=0, to=2)])
    assert state.numbers[0] == (Card.TEN,) and state.numbers[2] == (Card.FOUR, Card.ELEVEN)
    # T19: a Swap of Ann's 10 with Bob's 11 busts both (placed first, then checked).
    swap = [ev("card", 2, "SWAP"), ev("move", card="10", src=0, to=1),
            ev("move", card="11", src=1, to=0)]  # fmt: skip
    state = live(base + swap)
    assert state.statuses == (Status.BUSTED, Status.BUSTED, Status.ACTIVE)
    assert state.numbers[0] == (Card.ELEVEN, Card.ELEVEN)
    assert state.numbers[1] == (Card.TEN, Card.TEN)


def test_t20_steal_can_bust() -> None:
    state = live(deal(0, "13") + deal(1, "13") + [ev("move", card="13", src=1, to=0)])
    assert state.statuses[0] is Status.BUSTED and state.numbers[1] == ()


def test_swap_of_unlucky7_wipes_after_both_placements() -> None:
    base = deal(0, "U7") + deal(1, "5", "9")
    swap = [ev("move", card="U7", src=0, to=1), ev("move", card="5", src=1, to=0)]
    state = live(base + swap)
    assert state.numbers[0] == (Card.FIVE,) and state.numbers[1] == (Card.UNLUCKY_7,)
    assert state.discard_pile == {Card.NINE: 1}
    no_wipe = live(base + swap, unlucky7_triggers_on_transfer=False)
    assert no_wipe.numbers[1] == (Card.NINE, Card.UNLUCKY_7)


def test_steal_can_complete_flip7() -> None:
    events = deal(0, "1", "2", "3", "4", "5", "6") + deal(1, "8")
    state = live([*events, ev("move", card="8", src=1, to=0)])
    assert state.flip7_seat == 0 and state.over


def test_live_discard() -> None:
    state = live([*deal(0, "5", "9", "-4"), ev("discard", card="-4", src=0)])
    assert state.modifiers[0] == () and state.discard_pile == {Card.MINUS_4: 1}
    assert state.draw_pile.get(Card.MINUS_4) is None


def test_live_reshuffle_and_draw_pile_composition() -> None:
    events = [*deal(0, "5", "9"), ev("discard", card="9", src=0), *deal(1, "JOM")]
    state = live(events)
    expected = deck_counts()
    expected.subtract([Card.FIVE, Card.NINE, Card.JUST_ONE_MORE])
    assert state.draw_pile == {c: k for c, k in expected.items() if k}
    shuffled = live([*events, ev("reshuffle")])
    back = deck_counts()
    back.subtract([Card.FIVE])  # only the cards in lines stay out (§3.5.1)
    assert shuffled.draw_pile == {c: k for c, k in back.items() if k}
    assert shuffled.discard_pile == {}


def test_live_card_that_the_pile_cannot_hold() -> None:
    with pytest.raises(ScorecardError) as info:
        live(deal(0, "0") + deal(1, "0"))
    assert str(info.value) == (
        "event 2 (card): 0 cannot come from the draw pile: the deck holds 1 and 1 is already "
        "in players' lines"
    )
    # Out of the pile but not in a line: the pile must have been reshuffled meanwhile.
    state = live([*deal(0, "0", "5"), ev("discard", card="0", src=0), *deal(1, "0")])
    assert state.numbers[1] == (Card.ZERO,)
    assert state.notes == (
        "event 4 (card): no 0 was left in the draw pile: counted as a reshuffle",
    )
    assert state.draw_pile[Card.FIVE] == 4 and state.discard_pile == {}


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([ev("card", 3, "5")], "event 1 (card): seat must be a seat from 0 to 2, not 3"),
        ([ev("card", 0, "14")], 'event 1: card event: "14" is not a card'),
        ([ev("card", 0)], "event 1: a card event has the keys card, seat, type (missing card)"),
        ([ev("flip", 0)], "event 1: unknown event type 'flip'"),
        ([*deal(0, "5"), ev("discard", card="9", src=0)], "event 2 (discard): Ann has no 9"),
        ([*deal(0, "5"), ev("move", card="5", src=0, to=0)], "a card cannot move within one"),
        ([*deal(0, "5", "5"), ev("card", 0, "3")], "event 3 (card): Ann has busted: a busted"),
        ([*deal(0, "5", "5"), ev("card", 0, "-4")], "event 3 (card): Ann has busted"),
        ([*deal(0, "5", "5"), *deal(1, "9"), ev("move", card="5", src=0, to=1)],
         "event 4 (move): Ann has busted: Actions cannot touch"),
        ([*deal(0, "5"), ev("stay", 0), ev("stay", 0)], "event 3 (stay): Ann has already stayed"),
        ([ev("stay", 0), ev("stay", 1), ev("stay", 2), ev("reshuffle")],
         "event 4 (reshuffle): the round is over (every player has stayed or busted)"),
        ([{"type": "stay", "seat": True}], "stay event: seat is a seat number"),
    ],
)  # fmt: skip
def test_live_event_errors(events: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ScorecardError, match=re.escape(message)):
        live(events)


def test_live_brutal_modifier_to_a_busted_player() -> None:
    state = live(deal(0, "5", "5", "-4"), brutal=True)
    assert state.modifiers[0] == (Card.MINUS_4,) and state.scores_now()[0] == -4


def test_live_stayed_player_still_receives_cards() -> None:
    state = live([*deal(0, "5"), ev("stay", 0), *deal(0, "-2"), *deal(1, "9")])
    assert state.statuses[0] is Status.STAYED and state.modifiers[0] == (Card.MINUS_2,)
    assert state.to_decide == 2


def test_to_decide_follows_the_turns() -> None:
    state = live(deal(0, "5") + deal(1, "9") + deal(2, "2") + [ev("stay", 0)])
    assert state.to_decide == 1
    state = live([*deal(0, "5"), ev("stay", 1), ev("card", 2, "3")])
    assert state.to_decide == 0
    assert live([]).to_decide is None


def test_advice_matches_the_advisor() -> None:
    card = card3().add_round(["12 11 10", "bust 5 5", "8"])  # typed in: its cards are out
    events = (
        deal(0, "12", "-4") + deal(1, "9") + deal(2, "7", "7") + [ev("discard", card="-4", src=0)]
    )
    card = card.live_round(events, based_on=0)
    assert card.live is not None
    state = card.live
    assert state.to_decide == 0 and state.totals == (33, 0, 8)
    pile = deck_counts()
    pile.subtract([Card.TWELVE, Card.ELEVEN, Card.TEN, Card.FIVE, Card.FIVE, Card.EIGHT])
    pile.subtract([Card.TWELVE, Card.MINUS_4, Card.NINE, Card.SEVEN, Card.SEVEN])
    situation = Situation.from_fields(
        [["12"], ["9"], ["7", "7"]],
        seat=0,
        statuses=["active", "active", "busted"],
        totals=[33, 0, 8],
        to_decide=0,
        pile={c: k for c, k in pile.items() if k},
        discard=["12", "11", "10", "5", "5", "8", "-4"],
    )
    assert state.situation() == situation
    expected = advise(situation)
    got = state.advice()
    assert got == expected
    assert got.p_bust_next == expected.p_bust_next and got.recommendation == expected.recommendation
    assert state.advice(1) == advise(
        Situation.from_fields(
            [["12"], ["9"], ["7", "7"]], seat=1, statuses=["active", "active", "busted"],
            totals=[33, 0, 8], to_decide=0, pile={c: k for c, k in pile.items() if k},
            discard=["12", "11", "10", "5", "5", "8", "-4"],
        )
    )  # fmt: skip
    with pytest.raises(ScorecardError, match="Cyd has busted: there is no Hit or Stay"):
        state.advice(2)
    summary = card.summary_json()["live"]
    assert summary["advice"]["p_bust_next"] == float(expected.p_bust_next)
    assert summary["to_decide"] == 0 and summary["cards_left"] == sum(pile.values())


def test_live_round_added_as_a_round() -> None:
    events = deal(0, "5") + deal(1, "9", "9") + deal(2, "3") + [ev("stay", 0)]
    card = card3().live_round(events, based_on=0)
    with pytest.raises(ScorecardError, match="the round is not over: Cyd is still playing"):
        card.add_live_round()
    card = card.live_round([*events, *deal(2, "-2"), ev("stay", 2)], based_on=1)
    assert card.live is not None and card.live.over and card.live.revision == 2
    assert card.live.final_lines() == (
        LineEntry(("5",), False),
        LineEntry(("9", "9"), True),
        LineEntry(("3", "-2"), False),
    )
    added = card.add_live_round()
    assert added.live is None and added.totals == (5, 0, 1)
    assert added.rounds[0].live and added.rounds[0].events is not None
    assert len(added.rounds[0].events) == len(events) + 2
    # The same through add_round with the final lines (in any order).
    same = card.add_round(["5", "bust 9 9", "-2 3"])
    assert same.rounds[0].events == added.rounds[0].events
    other = card.add_round(["6", "bust 9 9", "-2 3"])
    assert other.rounds[0].events is None
    again = Scorecard.from_json(added.to_json())
    assert again == added and again.summary_json()["rounds"][0]["live"] is True


def test_live_revisions_are_checked() -> None:
    card = card3().live_round(deal(0, "5"), based_on=0)
    with pytest.raises(StaleRound, match="it is at revision 1, not 0") as info:
        card.live_round(deal(0, "6"), based_on=0)
    assert info.value.current == 1
    card = card.live_round(deal(0, "6"), based_on=1)
    assert card.live is not None and card.live.numbers[0] == (Card.SIX,)
    assert card.abandon_live().live is None


def test_discard_pile_carries_over_between_rounds() -> None:
    first = deal(0, "12", "JOM") + deal(1, "7", "U7") + [ev("stay", 0)] + deal(2, "4", "4")
    card = card3().live_round([*first, ev("stay", 1)], based_on=0).add_live_round()
    assert card.totals == (12, 7, 0)
    card = card.live_round(deal(0, "5"), based_on=0)
    assert card.live is not None
    out = [Card.TWELVE, Card.JUST_ONE_MORE, Card.SEVEN, Card.UNLUCKY_7, Card.FOUR, Card.FOUR,
           Card.FIVE]  # fmt: skip
    expected = deck_counts()
    expected.subtract(out)
    assert card.live.draw_pile == {c: k for c, k in expected.items() if k}
    assert card.live.discard_pile[Card.SEVEN] == 1  # wiped by Unlucky 7 in round 1
    # A reshuffle in a round empties the discard pile for the rounds after it.
    card = card.abandon_live().live_round([ev("reshuffle"), *deal(0, "5")], based_on=0)
    assert card.live is not None and card.live.discard_pile == {}
    assert card.live.cards_left == 107


def test_live_round_after_the_game_is_over() -> None:
    card = card3(target_score=10).add_round(["11", "1", "2"])
    with pytest.raises(ScorecardError, match="the game is over: Ann won with 11"):
        card.live_round(deal(0, "5"), based_on=0)


def test_edit_keeps_the_live_round_and_undo_ends_it() -> None:
    card = card3().add_round(["5", "6", "7"]).live_round(deal(0, "5"), based_on=0)
    edited = card.edit_round(1, revision=1, lines=["4", "6", "7"])
    assert edited.live is not None and edited.live.draw_pile[Card.FOUR] == 3
    assert card.undo_round(revision=1).live is None


def test_liveevent_json() -> None:
    data = {"type": "move", "card": "÷2", "from": 1, "to": 0}
    event = LiveEvent.from_json(data)
    assert event.card is Card.DIVIDE_2 and event.to_json() == {**data, "card": "/2"}
    with pytest.raises(ScorecardError, match="unknown from"):
        LiveEvent.from_json({"type": "stay", "seat": 1, "from": 0})
    with pytest.raises(Flip7Error):
        LiveEvent.from_json(["card"])


def test_typed_in_rounds_that_overflow_the_deck_count_as_a_reshuffle() -> None:
    card = card3(target_score=1000)
    for _ in range(5):
        card = card.add_round(["12 11 10 9 8", "12 11 10 9 8", "12 13"])
    # Round 5 cannot follow from rounds 1 to 4 without a reshuffle (15 cards 12 in all).
    card = card.live_round(deal(0, "5"), based_on=0)
    assert card.live is not None
    assert card.live.draw_pile[Card.TWELVE] == 12 - 3
    assert card.live.draw_pile[Card.THIRTEEN] == 12 - 1


def test_an_edit_that_ends_the_game_ends_the_live_round() -> None:
    card = card3(target_score=20).add_round(["5", "6", "7"])
    card = card.live_round(deal(0, "5"), based_on=0)
    over = card.edit_round(1, revision=1, lines=["12 11", "6", "7"])
    assert over.over and over.live is None


# ---------------------------------------------------------------------------- live: Flip Four!


def flip4(src: int, to: int) -> dict[str, Any]:
    return ev("flip4", src=src, to=to)


def give(card: str, src: int, to: int) -> dict[str, Any]:
    return ev("give", card=card, src=src, to=to)


def use(card: str, src: int) -> dict[str, Any]:
    return ev("use", card=card, src=src)


def refused(events: list[dict[str, Any]], message: str, **rules: Any) -> None:
    with pytest.raises(ScorecardError, match=re.escape(message)):
        live(events, **rules)


def step(state: LiveRound) -> dict[str, Any]:
    data = state.flip_four_json()
    assert data is not None
    return data


def pending(state: LiveRound) -> tuple[Any, ...] | None:
    """The Flip Four's next step, in short: (next, seat, card, drawn, set_aside)."""
    data = state.flip_four_json()
    if data is None:
        return None
    assert data["cards"] == FLIP_FOUR_CARDS
    return data["next"], data["seat"], data["card"], data["drawn"], tuple(data["set_aside"])


DEALT = deal(0, "5") + deal(1, "9") + deal(2, "2")


def test_flip_four_goes_to_its_target_then_its_set_aside_cards_resolve_in_order() -> None:
    """Ann flips a Flip Four and plays it on Bob: the next four cards are Bob's, Numbers at
    once, the −4 and the Steal set aside; then Bob gives the −4 and uses the Steal, in that
    order (§6.3.1, §6.3.4), and the turn passes on from Ann (§3.2.4)."""
    events = [*DEALT, ev("card", 0, "FLIP4")]
    state = live(events)
    assert pending(state) == ("play", 0, "FLIP4", 0, ())
    assert step(state)["targets"] == [0, 1, 2]
    assert state.to_decide is None and state.to_play == 0
    events.append(flip4(0, 1))
    cards = ["-4", "3", "STEAL", "4"]
    set_aside = [(), ("-4",), ("-4",), ("-4", "STEAL")]
    for k, code in enumerate(cards):
        state = live(events)
        assert pending(state) == ("draw", 1, None, k, set_aside[k])
        assert state.to_decide is None and state.advice(1) is not None
        events.append(ev("card", 1, code))
    state = live(events)
    assert state.numbers[1] == (Card.NINE, Card.THREE, Card.FOUR) and state.modifiers[1] == ()
    assert pending(state) == ("give", 1, "-4", 4, ("-4", "STEAL"))
    events.append(give("-4", 1, 2))
    state = live(events)
    assert state.modifiers[2] == (Card.MINUS_4,)
    assert pending(state) == ("use", 1, "STEAL", 4, ("STEAL",))
    events += [use("STEAL", 1), ev("move", card="5", src=0, to=1)]
    state = live(events)
    assert state.flip_fours == () and state.flip_four_json() is None
    assert state.numbers[0] == () and state.numbers[1][-1] is Card.FIVE
    assert state.to_decide == 1  # after Ann, whose turn it was
    assert state.discard_pile == {Card.FLIP_FOUR: 1, Card.STEAL: 1}
    summary = card3().live_round(events, based_on=0).summary_json()["live"]
    assert summary["flip_four"] is None and summary["to_decide"] == 1


def test_t15_a_bust_stops_the_flip_four_and_discards_its_set_aside_cards() -> None:
    events = [*DEALT, ev("card", 0, "FLIP4"), flip4(0, 2), *deal(2, "STEAL", "2")]
    state = live(events)
    assert state.statuses[2] is Status.BUSTED and state.flip_fours == ()
    assert state.discard_pile == {Card.FLIP_FOUR: 1, Card.STEAL: 1}
    assert state.to_decide == 1 and not state.over
    refused([*events, use("STEAL", 2)], "no card set aside in a Flip Four is waiting")


def test_t16_set_aside_actions_resolve_in_the_order_they_came() -> None:
    events = [*DEALT, ev("card", 0, "FLIP4"), flip4(0, 1), *deal(1, "JOM", "DISCARD", "5", "6")]
    state = live(events)
    assert pending(state) == ("use", 1, "JOM", 4, ("JOM", "DISCARD"))
    refused(
        [*events, use("DISCARD", 1)],
        "event 10 (use): the next card set aside for Bob is JOM, not DISCARD: they are "
        "resolved in the order they came (JOM, DISCARD, §6.3.4)",
    )
    # Bob plays the Just One More on Cyd: its own events (Cyd's card, Cyd's stay) come
    # before the Discard.
    events += [use("JOM", 1), ev("card", 2, "8"), ev("stay", 2)]
    state = live(events)
    assert pending(state) == ("use", 1, "DISCARD", 4, ("DISCARD",))
    assert step(state)["after_action"] is True
    events += [use("DISCARD", 1), ev("discard", card="8", src=2)]
    state = live(events)
    assert state.flip_fours == () and state.statuses[2] is Status.STAYED
    assert state.numbers[2] == (Card.TWO,) and state.to_decide == 1


def test_t17_flip7_during_the_flip_four_ends_the_round() -> None:
    # Bob holds six Numbers: the Flip Four's second card is his seventh (the Steal waits).
    events = [*deal(1, "1", "2", "3", "4", "5", "6"), *deal(0, "9"), ev("card", 0, "FLIP4"),
              flip4(0, 1), *deal(1, "STEAL", "7")]  # fmt: skip
    state = live(events)
    assert state.flip7_seat == 1 and state.over and state.flip_fours == ()
    assert state.flip_four_json() is None and state.discard_pile[Card.STEAL] == 1
    refused([*events, ev("card", 1, "7")], "the round is over (Bob has Flip 7)")


def test_t18_unlucky7_in_a_flip_four_counts_as_one_of_the_four() -> None:
    events = [*deal(0, "5", "8"), ev("card", 1, "FLIP4"), flip4(1, 0), *deal(0, "3", "-4", "U7")]
    state = live(events)
    assert state.numbers[0] == (Card.UNLUCKY_7,) and pending(state) == ("draw", 0, None, 3,
                                                                        ("-4",))  # fmt: skip
    state = live([*events, ev("card", 0, "9")])
    # The −4 was set aside, not in the line: the wipe left it, and it is Ann's to give.
    assert state.numbers[0] == (Card.UNLUCKY_7, Card.NINE)
    assert pending(state) == ("give", 0, "-4", 4, ("-4",))
    state = live([*events, ev("card", 0, "9"), give("-4", 0, 0)])
    assert state.lines()[0] == LineEntry(("U7", "9", "-4"), False) and state.flip_fours == ()


def test_t26_a_stayed_target_stays_stayed_and_the_round_waits_for_its_set_aside_cards() -> None:
    # Ann and Bob have stayed; Cyd plays a Flip Four on Ann, whose set-aside Swap busts Cyd:
    # nobody is Active, but Ann's −6 still resolves before the round ends (§3.4.1).
    events = [*deal(0, "5"), ev("stay", 0), *deal(1, "9"), ev("stay", 1), *deal(2, "3", "7"),
              ev("card", 2, "FLIP4"), flip4(2, 0), *deal(0, "SWAP", "-6", "3", "10")]  # fmt: skip
    state = live(events)
    assert state.statuses[0] is Status.STAYED and state.numbers[0] == (
        Card.FIVE, Card.THREE, Card.TEN)  # fmt: skip
    events += [use("SWAP", 0), ev("move", card="3", src=0, to=2),
               ev("move", card="7", src=2, to=0)]  # fmt: skip
    state = live(events)
    assert state.statuses == (Status.STAYED, Status.STAYED, Status.BUSTED)
    assert not state.over and pending(state) == ("give", 0, "-6", 4, ("-6",))
    assert step(state)["targets"] == [0, 1]
    refused(
        [*events, give("-6", 0, 2)],
        "event 16 (give): Cyd has busted: a Modifier goes to a player who has not busted",
    )
    state = live([*events, give("-6", 0, 1)])
    assert state.over and state.final_lines()[1] == LineEntry(("9", "-6"), False)
    brutal = live([*events, give("-6", 0, 2)], brutal=True)
    assert brutal.over and brutal.scores_now()[2] == -6


def test_a_set_aside_flip_four_nests_and_the_outer_one_resumes() -> None:
    """Bob's Flip Four sets aside another Flip Four and a −2: Bob plays it on Cyd, whose
    four cards and set-aside −8 resolve first; then Bob gives his −2 (§6.3.5, §11)."""
    events = [*DEALT, ev("card", 0, "FLIP4"), flip4(0, 1), *deal(1, "FLIP4", "-2", "3", "4")]
    state = live(events)
    assert pending(state) == ("play", 1, "FLIP4", 4, ("FLIP4", "-2"))
    refused([*events, give("-2", 1, 1)], "the next card set aside for Bob is FLIP4, not -2")
    events += [flip4(1, 2), *deal(2, "-8", "6", "7", "8")]
    state = live(events)
    assert len(state.flip_fours) == 2 and pending(state) == ("give", 2, "-8", 4, ("-8",))
    assert step(state)["depth"] == 2
    events.append(give("-8", 2, 0))
    state = live(events)
    assert pending(state) == ("give", 1, "-2", 4, ("-2",)) and len(state.flip_fours) == 1
    state = live([*events, give("-2", 1, 1)])
    assert state.flip_fours == () and state.to_decide == 1
    assert state.lines()[2] == LineEntry(("2", "6", "7", "8"), False)
    assert state.modifiers[0] == (Card.MINUS_8,) and state.modifiers[1] == (Card.MINUS_2,)


def test_a_bust_drops_every_flip_four_on_the_busted_player() -> None:
    # Bob plays his set-aside Flip Four on himself and busts: his first Flip Four's −2 is
    # discarded unresolved too (§11).
    events = [*DEALT, ev("card", 0, "FLIP4"), flip4(0, 1), *deal(1, "FLIP4", "-2", "3", "4"),
              flip4(1, 1), *deal(1, "10", "3")]  # fmt: skip
    state = live(events)
    assert state.statuses[1] is Status.BUSTED and state.flip_fours == ()
    assert state.discard_pile == {Card.FLIP_FOUR: 2, Card.MINUS_2: 1}


def test_a_flip_four_with_only_the_revealer_left() -> None:
    # Bob and Cyd have busted: Ann's Flip Four can only be played on herself (§6.1.2).
    events = [*deal(0, "5"), *deal(1, "9", "9"), *deal(2, "2", "2"), ev("card", 0, "FLIP4")]
    state = live(events)
    assert step(state)["targets"] == [0]
    refused(
        [*events, flip4(0, 1)],
        "event 7 (flip4): Bob has busted: an Action cannot target a busted player (§6.1.2)",
    )
    assert pending(live([*events, flip4(0, 0)])) == ("draw", 0, None, 0, ())


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([*DEALT, flip4(0, 1)], "event 4 (flip4): Ann has no Flip Four to play: a flip4 event "
         "follows the FLIP4 card that Ann flipped"),
        ([*DEALT, ev("card", 0, "FLIP4"), flip4(1, 2)], "event 5 (flip4): Bob has no Flip Four"),
        ([*DEALT, ev("card", 0, "FLIP4"), ev("card", 1, "3"), flip4(0, 1)],
         "event 6 (flip4): Ann has no Flip Four to play"),
        ([*DEALT, ev("card", 0, "FLIP4"), flip4(0, 1), ev("card", 0, "3")],
         "event 6 (card): card 1 of 4 of the Flip Four on Bob goes to Bob, not Ann (§6.3.1)"),
        ([*DEALT, ev("card", 0, "FLIP4"), flip4(0, 1), ev("card", 1, "3"), ev("stay", 1)],
         "event 7 (stay): the Flip Four on Bob is under way: card 2 of 4 goes to Bob before"),
        ([*DEALT, ev("card", 0, "FLIP4"), flip4(0, 1), *deal(1, "-4", "3", "4", "6"),
          ev("card", 2, "7")], "event 10 (card): Bob first resolves the cards set aside in the "
         "Flip Four, in the order they came (-4): give the -4 to a player (a give event)"),
        ([*DEALT, ev("card", 0, "FLIP4"), flip4(0, 1), *deal(1, "-4", "3", "4", "6"),
          give("-4", 0, 0)], "the cards set aside in the Flip Four on Bob are Bob's to resolve, "
         "not Ann's"),
        ([*DEALT, ev("card", 0, "FLIP4"), flip4(0, 1), *deal(1, "-4", "3", "4", "6"),
          use("-4", 1)], "a use event uses a set-aside Action; -4 is not an Action: a "
         "set-aside Modifier is given with a give event"),
        ([*DEALT, ev("card", 0, "FLIP4"), flip4(0, 1), *deal(1, "STEAL", "3", "4", "6"),
          give("STEAL", 1, 1)], "a give event gives a set-aside Modifier, and STEAL is not one"),
        ([*DEALT, use("FLIP4", 0)], "a set-aside FLIP4 is played with a flip4 event"),
        ([*DEALT, give("-4", 0, 1)], "event 4 (give): no card set aside in a Flip Four"),
        ([{"type": "flip4", "from": 0}], "a flip4 event has the keys from, to, type (missing to)"),
    ],
)  # fmt: skip
def test_flip_four_event_errors(events: list[dict[str, Any]], message: str) -> None:
    refused(events, message)


def test_a_flip_four_entered_before_flip4_events_still_replays() -> None:
    """Live rounds stored before ``flip4`` events: the FLIP4 card is only recorded, and the
    cards that followed it were entered by hand, as any card."""
    events = [*DEALT, ev("card", 0, "FLIP4"), *deal(1, "3", "4"), ev("stay", 0)]
    state = live(events)
    assert state.flip_fours == () and state.to_play is None and state.to_decide == 1
    assert state.numbers[1] == (Card.NINE, Card.THREE, Card.FOUR)


def test_undo_steps_back_through_a_flip_four() -> None:
    """Undo is the events less the last one: every step back replays to the state before."""
    events = [*DEALT, ev("card", 0, "FLIP4"), flip4(0, 1), *deal(1, "-4", "3", "4", "6"),
              give("-4", 1, 0)]  # fmt: skip
    steps = [pending(live(events[:n])) for n in range(len(DEALT), len(events) + 1)]
    assert steps == [
        None, ("play", 0, "FLIP4", 0, ()), ("draw", 1, None, 0, ()),
        ("draw", 1, None, 1, ("-4",)), ("draw", 1, None, 2, ("-4",)),
        ("draw", 1, None, 3, ("-4",)), ("give", 1, "-4", 4, ("-4",)), None,
    ]  # fmt: skip
    card = card3().live_round(events, based_on=0)
    card = card.live_round(events[:-1], based_on=1)  # the page's Undo
    assert card.live is not None and card.live.modifiers[0] == ()
    assert Scorecard.from_json(card.to_json()) == card


def test_a_flip_four_flipped_in_a_set_aside_just_one_more() -> None:
    """Bob uses his set-aside Just One More on Cyd, whose card is a Flip Four: Cyd plays it
    on Ann; after Ann's four, the Just One More ends (Cyd stays), then Bob's Discard."""
    events = [*DEALT, ev("card", 0, "FLIP4"), flip4(0, 1), *deal(1, "JOM", "DISCARD", "5", "6"),
              use("JOM", 1), ev("card", 2, "FLIP4")]  # fmt: skip
    state = live(events)
    assert pending(state) == ("play", 2, "FLIP4", 4, ("DISCARD",))
    assert step(state)["revealed"] is True and step(state)["after_action"] is False
    events += [flip4(2, 0), *deal(0, "1", "2", "3", "4")]
    state = live(events)
    assert step(state)["after_action"] is True and pending(state) == (
        "use", 1, "DISCARD", 4, ("DISCARD",))  # fmt: skip
    state = live([*events, ev("stay", 2), use("DISCARD", 1), ev("discard", card="4", src=0)])
    assert state.flip_fours == () and state.statuses[2] is Status.STAYED
    assert state.numbers[0] == (Card.FIVE, Card.ONE, Card.TWO, Card.THREE)
    assert state.to_decide == 1
