"""RULES.md §12 test vectors T1–T26, each driven directly through the engine with explicit chance.

Most games have three seats with seat 2 as dealer, so the deal and the first turn go 0, 1, 2.
``play(game, *moves)`` gives each move to the game in order: a card code when the game needs a
card (``draw``), a decision string otherwise (``apply``); it returns every event raised.
"""

from __future__ import annotations

from collections import Counter

import pytest
from engine_helpers import cards, of_type, play, scored

from flip7 import (
    BONUS,
    Card,
    CardError,
    CardKind,
    DecisionKind,
    Game,
    GameStateError,
    Line,
    Minus,
    Rules,
    Status,
    Target,
    deck_counts,
    new_deck,
    round_score,
)
from flip7.core.events import (
    ActionUsed,
    BonusTaken,
    Busted,
    Dealt,
    Discarded,
    Drew,
    Event,
    Flip7,
    GameOver,
    Minus15,
    ModifierGiven,
    RoundScored,
    RoundStarted,
    SetAside,
    Stayed,
    Stolen,
    Swapped,
    Unused,
    Wiped,
)
from flip7.core.scoring import busted_score

C = Card.parse




def new(n: int = 3, rules: Rules | None = None, dealer: int = 2, **kw: object) -> Game:
    game = Game.new(n, rules or Rules(), explicit=True, dealer=dealer, **kw)  # type: ignore[arg-type]
    assert game.needs_card
    return game








def kinds(events: list[Event]) -> list[str]:
    return [e.type for e in events]


# --------------------------------------------------------------------------- T1


def test_t01_deck_composition() -> None:
    deck = new_deck()
    assert len(deck) == 108
    counts = Counter(deck)
    assert counts == deck_counts()
    numbers = [c for c in deck if c.kind is CardKind.NUMBER]
    modifiers = [c for c in deck if c.kind is CardKind.MODIFIER]
    actions = [c for c in deck if c.kind is CardKind.ACTION]
    assert (len(numbers), len(modifiers), len(actions)) == (92, 6, 10)
    # Value n has n copies; the 7s are 6 regular + Unlucky 7, the 13s 12 regular + Lucky 13,
    # and the only 0 is The Zero.
    by_value = Counter(c.value_points for c in numbers)
    assert by_value == Counter({0: 1, **{v: v for v in range(1, 14)}})
    assert counts[C("0")] == 1
    assert (counts[C("7")], counts[C("U7")]) == (6, 1)
    assert (counts[C("13")], counts[C("L13")]) == (12, 1)
    for v in (1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12):
        assert counts[Card(v)] == v
    assert {c.code: counts[c] for c in modifiers} == {
        "/2": 1, "-2": 1, "-4": 1, "-6": 1, "-8": 1, "-10": 1,
    }  # fmt: skip
    assert {c.code: counts[c] for c in actions} == {
        "JOM": 2, "FLIP4": 2, "STEAL": 2, "SWAP": 2, "DISCARD": 2,
    }  # fmt: skip
    assert set(counts) == set(Card)
    assert deck_counts(2) == Counter({c: 2 * k for c, k in counts.items()})
    assert len(new_deck(2)) == 216
    # The engine starts from exactly this deck.
    game = new()
    assert game.draw_pile_size == 108
    assert game.draw_pile_counts() == deck_counts()


def test_t01_only_one_minus2_in_the_engine_deck() -> None:
    game = new()
    play(game, "-2", "give 0")
    assert game.modifiers(0) == cards("-2")
    with pytest.raises(CardError):
        game.draw("-2")
    # The failed draw changed nothing.
    assert game.needs_card and game.draw_pile_size == 107
    play(game, "5")
    assert game.line(1) == cards("5")


# --------------------------------------------------------------------------- T2–T7 scoring


def test_t02_flip7_scoring_function() -> None:
    numbers = cards("3", "11", "5", "7", "10", "8", "4")
    mods = cards("/2", "-4")
    assert round_score(numbers, mods, flip7=True) == 35
    assert round_score(numbers, mods, flip7=False) == 20
    assert round_score(numbers, (), flip7=False) == 48
    assert round_score(numbers, cards("/2"), flip7=False) == 24
    line = Line.parse(["3", "11", "5", "7", "10", "8", "4", "/2", "-4"])
    assert line.flip7() and not line.busted()
    assert line.score() == 35


def test_t02_flip7_scoring_in_game() -> None:
    game = new()
    events = play(game, "3", "1", "2", "hit", "11", "stay", "stay")
    events += play(game, "hit", "/2", "give 0", "hit", "5", "hit", "7", "hit", "-4", "give 0")
    events += play(game, "hit", "10", "hit", "8", "hit")
    assert game.line(0) == cards("3", "11", "5", "7", "10", "8")
    events = play(game, "4")
    assert kinds(events)[:3] == ["drew", "flip7", "round_scored"]
    assert of_type(events, Flip7) == [Flip7(0)]
    result = scored(events)
    assert result.scores == (35, 1, 2)
    assert result.flip7 == 0 and result.busted == () and result.minus15 is None
    assert result.lines[0] == cards("3", "11", "5", "7", "10", "8", "4")
    assert result.modifiers[0] == cards("/2", "-4")
    assert game.totals == (35, 1, 2)
    # The round is over: the next round's deal needs a card.
    assert game.needs_card and game.round == 2 and game.dealer == 0


def test_t03_halve_then_subtract() -> None:
    numbers = cards("3", "11", "5", "7", "10", "8")
    assert round_score(numbers, cards("/2", "-4"), flip7=False) == 18
    assert round_score(numbers, cards("-4", "/2"), flip7=False) == 18  # order of arrival is moot
    assert Line.parse(["3", "11", "5", "7", "10", "8", "-4", "/2"]).score() == 18
    game = new()
    play(game, "3", "1", "2", "hit", "11", "stay", "stay")
    play(game, "hit", "/2", "give 0", "hit", "5", "hit", "7", "hit", "-4", "give 0")
    play(game, "hit", "10", "hit", "8")
    assert game.round_score(0) == 18
    result = scored(play(game, "stay"))
    assert result.scores == (18, 1, 2) and result.flip7 is None


def test_t04_minus_clamped_to_zero_standard() -> None:
    assert round_score(cards("1"), cards("-10"), flip7=False) == 0
    assert Line.parse(["1", "-10"]).score() == 0
    game = new()
    play(game, "1", "5", "6", "hit", "-10", "give 0", "stay", "stay", "stay")
    assert game.rounds[0].scores == (0, 5, 6)


def test_t05_minus_below_zero_brutal() -> None:
    assert round_score(cards("1"), cards("-10"), flip7=False, brutal=True) == -9
    assert Line.parse(["1", "-10"]).score(brutal=True) == -9
    game = new(rules=Rules(brutal=True))
    play(game, "1", "5", "6", "hit", "-10", "give 0", "stay", "stay", "stay")
    assert game.rounds[0].scores == (-9, 5, 6)
    assert game.totals == (-9, 5, 6)


def test_t06_halve_then_subtract_small_line() -> None:
    assert round_score(cards("4", "8", "11"), cards("/2", "-4"), flip7=False) == 7
    assert Line.parse(["4", "8", "11", "/2", "-4"]).score() == 7
    game = new()
    play(game, "4", "1", "9", "hit", "8", "stay", "hit", "/2", "give 0")
    play(game, "hit", "11", "hit", "-4", "give 0", "stay", "stay")
    assert game.rounds[0].scores == (7, 1, 9)


def test_t07_zero_without_flip7_scores_zero() -> None:
    assert round_score(cards("0", "13"), (), flip7=False) == 0
    assert round_score(cards("0", "13"), (), flip7=False, brutal=True) == 0
    assert round_score(cards("0", "13"), cards("-10"), flip7=False, brutal=True) == 0
    assert Line.parse(["0", "13"]).score() == 0
    game = new()
    play(game, "0", "JOM", "target 0", "13", "6", "5", "stay", "stay")
    assert game.rounds[0].scores == (0, 5, 6)


# --------------------------------------------------------------------------- T8


def test_t08_zero_forced_hits_to_flip7() -> None:
    game = new()
    play(game, "0", "9", "10")
    # Seat 0 holds The Zero: it must hit, so no decision is asked of it.
    assert game.needs_card
    play(game, "1")
    assert game.to_decide == 1
    play(game, "stay", "stay")
    for code in ("2", "3", "4", "5"):
        assert game.needs_card and game.to_decide is None
        play(game, code)
    events = play(game, "6")
    assert of_type(events, Flip7) == [Flip7(0)]
    result = scored(events)
    assert result.scores == (36, 9, 10)
    assert result.lines[0] == cards("0", "1", "2", "3", "4", "5", "6")
    assert game.round == 2  # the round ended


# --------------------------------------------------------------------------- T9–T12 Lucky 13


def test_t09_lucky13_after_13_is_safe() -> None:
    game = new()
    events = play(game, "13", "5", "6", "hit", "L13")
    assert not of_type(events, Busted)
    assert game.status(0) is Status.ACTIVE
    assert game.line(0) == cards("13", "L13")
    assert game.number_sum(0) == 26
    play(game, "stay", "stay", "stay")
    assert game.rounds[0].scores == (26, 5, 6)


def test_t09_13_after_lucky13_is_safe() -> None:
    game = new()
    play(game, "L13", "5", "6", "hit", "13")
    assert game.status(0) is Status.ACTIVE and game.number_sum(0) == 26


def test_t10_third_13_busts() -> None:
    game = new()
    play(game, "L13", "5", "6", "hit", "13", "stay", "stay")
    events = play(game, "hit", "13")
    assert of_type(events, Busted) == [Busted(0, C("13"))]
    result = scored(events)
    assert result.busted == (0,) and result.scores == (0, 5, 6)
    assert result.lines[0] == cards("L13", "13", "13")
    assert Line.parse(["L13", "13", "13"]).busted()
    assert busted_score((), brutal=False, modifiers_only=True) == 0


def test_t11_two_regular_13s_bust() -> None:
    game = new()
    events = play(game, "13", "5", "6", "hit", "13")
    assert of_type(events, Busted) == [Busted(0, C("13"))]
    assert game.status(0) is Status.BUSTED


def _t12(count: int) -> tuple[Game, list[Event]]:
    game = new(rules=Rules(lucky13_pair_flip7_count=count))
    play(game, "1", "9", "10", "hit", "2", "stay", "stay")
    play(game, "hit", "3", "hit", "4", "hit", "5", "hit", "L13", "hit")
    assert game.line(0) == cards("1", "2", "3", "4", "5", "L13")
    return game, play(game, "13")


def test_t12_lucky13_pair_counts_two_by_default() -> None:
    _, events = _t12(2)
    assert of_type(events, Flip7) == [Flip7(0)]
    assert scored(events).scores == (56, 9, 10)


def test_t12_lucky13_pair_counts_one_option() -> None:
    game, events = _t12(1)
    assert not of_type(events, Flip7) and not of_type(events, RoundScored)
    assert game.status(0) is Status.ACTIVE and game.number_count(0) == 7
    assert game.to_decide == 0
    # One more different value makes seven different values: Flip 7 with 8 Number cards.
    events = play(game, "hit", "6")
    assert of_type(events, Flip7) == [Flip7(0)]
    result = scored(events)
    assert len(result.lines[0]) == 8
    assert result.scores[0] == 1 + 2 + 3 + 4 + 5 + 13 + 13 + 6 + 15


# --------------------------------------------------------------------------- T13–T14 Unlucky 7


def test_t13_unlucky7_wipes_line() -> None:
    game = new()
    play(game, "7", "5", "6", "hit", "9", "stay", "stay", "hit", "-2", "give 0")
    assert game.line(0) == cards("7", "9") and game.modifiers(0) == cards("-2")
    discard_before = Counter(game.discard_pile)
    events = play(game, "hit", "U7")
    assert not of_type(events, Busted)
    assert of_type(events, Wiped) == [Wiped(0, cards("7", "9", "-2"))]
    assert game.line(0) == cards("U7") and game.modifiers(0) == ()
    assert Counter(game.discard_pile) - discard_before == Counter(cards("7", "9", "-2"))
    assert game.status(0) is Status.ACTIVE
    play(game, "stay")
    assert game.rounds[0].scores == (7, 5, 6)


def test_t14_regular_7_after_unlucky7_busts() -> None:
    game = new()
    events = play(game, "U7", "5", "6", "hit", "7")
    assert of_type(events, Busted) == [Busted(0, C("7"))]
    assert game.status(0) is Status.BUSTED


# --------------------------------------------------------------------------- T15–T18 Flip Four


def test_t15_flip_four_bust_discards_set_aside() -> None:
    game = new()
    events = play(game, "5", "8", "9", "hit", "FLIP4", "target 0", "STEAL")
    assert of_type(events, SetAside) == [SetAside(0, C("STEAL"))]
    assert game.needs_card
    events = play(game, "5")
    assert of_type(events, Busted) == [Busted(0, C("5"))]
    assert of_type(events, Unused) == [Unused(0, C("STEAL"), "busted")]
    assert not of_type(events, Stolen)
    # The sequence stopped: cards 3 and 4 are not drawn; seat 1 decides next.
    assert not game.needs_card and game.to_decide == 1
    assert C("STEAL") in game.discard_pile and C("FLIP4") in game.discard_pile
    assert game.set_aside() == ()
    play(game, "stay", "stay")
    assert game.rounds[0].scores == (0, 8, 9)


def test_t16_flip_four_set_aside_resolved_in_order() -> None:
    game = new()
    events = play(game, "2", "8", "9", "hit", "FLIP4", "target 0", "JOM", "DISCARD", "5", "6")
    assert of_type(events, SetAside) == [SetAside(0, C("JOM")), SetAside(0, C("DISCARD"))]
    assert game.line(0) == cards("2", "5", "6")
    # First the Just One More, used by the Flip Four's target.
    assert game.decision_kind is DecisionKind.TARGET and game.to_decide == 0
    assert game.pending_card is C("JOM")
    assert Counter(game.set_aside()) == Counter(cards("FLIP4", "JOM", "DISCARD"))
    events = play(game, "target 1", "10")
    assert of_type(events, ActionUsed) == [ActionUsed(0, C("JOM"), 1)]
    assert of_type(events, Stayed) == [Stayed(1, True)]
    # Then the Discard.
    assert game.decision_kind is DecisionKind.DISCARD and game.to_decide == 0
    events = play(game, "discard 1 10")
    assert of_type(events, Discarded) == [Discarded(0, 1, C("10"))]
    assert game.line(1) == cards("8")
    assert game.set_aside() == ()
    # Play goes on after seat 0: seat 1 has stayed, so seat 2.
    assert game.to_decide == 2
    play(game, "stay", "stay")
    assert game.rounds[0].scores == (13, 8, 9)


def test_t17_flip_four_first_card_flip7() -> None:
    game = new()
    play(game, "1", "2", "3", "stay", "hit", "4", "stay")
    play(game, "hit", "5", "hit", "6", "hit", "8", "hit", "9", "hit", "FLIP4")
    assert game.number_count(1) == 6
    size = game.draw_pile_size
    events = play(game, "target 1", "10")
    assert kinds(events) == [
        "action_used", "drew", "flip7", "round_scored", "round_started",
    ]  # fmt: skip
    assert scored(events).scores == (1, 59, 3)
    assert game.draw_pile_size == size - 1  # cards 2–4 were never drawn
    assert C("FLIP4") in game.discard_pile
    # Round 2's deal takes the next cards.
    events = play(game, "11", "12", "13")
    assert of_type(events, Dealt) == [Dealt(1, C("11")), Dealt(2, C("12")), Dealt(0, C("13"))]


def test_t18_flip_four_unlucky7_mid_sequence() -> None:
    game = new()
    play(game, "5", "2", "4", "hit", "8", "hit", "FLIP4", "target 0", "3")
    assert game.line(0) == cards("5", "8", "3")
    events = play(game, "U7")
    assert of_type(events, Wiped) == [Wiped(0, cards("5", "8", "3"))]
    assert game.line(0) == cards("U7")
    assert game.needs_card  # the Flip Four goes on: U7 was card 2 of 4
    play(game, "9", "10")
    assert game.line(0) == cards("U7", "9", "10")
    assert game.to_decide == 2  # after seat 1, whose turn it was
    play(game, "stay", "stay", "stay")
    assert game.rounds[0].scores == (26, 2, 4)


def test_t18_unlucky7_does_not_wipe_flip_four_set_aside() -> None:
    game = new()
    play(game, "5", "2", "4", "hit", "8", "hit", "FLIP4", "target 0", "-6", "U7", "9", "10")
    assert game.line(0) == cards("U7", "9", "10")
    # The −6 was set aside, not in the line: it survives the wipe and is given afterwards.
    assert game.decision_kind is DecisionKind.GIVE and game.pending_card is C("-6")
    play(game, "give 2")
    assert game.modifiers(2) == cards("-6")


# --------------------------------------------------------------------------- T19–T20


def test_t19_swap_busts_two_players() -> None:
    game = new()
    play(game, "10", "10", "2", "hit", "11", "hit", "11", "hit", "SWAP")
    assert game.decision_kind is DecisionKind.SWAP and game.to_decide == 2
    events = play(game, "swap 1 11 0 10")
    assert of_type(events, Swapped) == [Swapped(2, 0, C("10"), 1, C("11"))]
    assert sorted(e.seat for e in of_type(events, Busted)) == [0, 1]  # type: ignore[attr-defined]
    assert game.statuses() == (Status.BUSTED, Status.BUSTED, Status.ACTIVE)
    result = scored(play(game, "stay"))
    assert result.busted == (0, 1) and result.scores == (0, 0, 2)


def test_t20_steal_13_busts_stealer() -> None:
    game = new()
    events = play(game, "13", "13", "3", "hit", "STEAL", "steal 1 13")
    assert of_type(events, Stolen) == [Stolen(0, 1, C("13"))]
    assert of_type(events, Busted) == [Busted(0, C("13"))]
    assert game.line(1) == ()
    # Seat 1 now has an empty line and must hit: no decision.
    assert game.needs_card
    play(game, "6", "stay", "stay")
    assert game.rounds[0].scores == (0, 6, 3)


# --------------------------------------------------------------------------- T21–T23


def test_t21_just_one_more_on_zero_holder_stays() -> None:
    game = new()
    events = play(game, "0", "JOM", "target 0", "13")
    assert of_type(events, Stayed) == [Stayed(0, True)]
    assert game.status(0) is Status.STAYED
    play(game, "6", "5", "stay", "stay")
    assert game.rounds[0].scores == (0, 5, 6)


def test_t21_just_one_more_on_zero_holder_can_still_flip7() -> None:
    game = new()
    play(game, "0", "9", "10", "1", "stay", "stay")
    play(game, "2", "3", "4", "5")  # The Zero: forced hits, no decisions
    assert game.line(0) == cards("0", "1", "2", "3", "4", "5") and game.needs_card
    play(game, "JOM")  # seat 0's forced hit reveals Just One More
    assert game.decision_kind is DecisionKind.TARGET and game.to_decide == 0
    events = play(game, "target 0", "6")
    # The forced card is the 7th Number: Flip 7 beats The Zero (21 + 15).
    assert of_type(events, Flip7) == [Flip7(0)]
    assert not of_type(events, Stayed)
    assert scored(events).scores == (36, 9, 10)


def test_t22_deal_actions_without_face_up_cards() -> None:
    game = new()
    events = play(game, "STEAL", "SWAP", "DISCARD")
    assert of_type(events, Unused) == [
        Unused(0, C("STEAL"), "no_legal_use"),
        Unused(1, C("SWAP"), "no_legal_use"),
        Unused(2, C("DISCARD"), "no_legal_use"),
    ]
    assert Counter(game.discard_pile) == Counter(cards("STEAL", "SWAP", "DISCARD"))
    assert game.needs_card and game.to_decide is None  # empty lines: forced hits
    play(game, "5", "6", "8", "stay", "stay", "stay")
    assert game.rounds[0].scores == (5, 6, 8)


def test_t22_deal_steal_after_a_face_up_card_is_used() -> None:
    game = new()
    play(game, "5", "STEAL")
    # Seat 1 steals seat 0's 5 (the only legal steal, so no decision).
    assert game.line(1) == cards("5") and game.line(0) == ()


def test_t23_lone_survivor_keeps_modifier() -> None:
    game = new()
    play(game, "5", "6", "8", "hit", "9", "hit", "6", "hit", "8")
    assert game.statuses() == (Status.ACTIVE, Status.BUSTED, Status.BUSTED)
    events = play(game, "hit", "SWAP", "hit", "STEAL")
    assert of_type(events, Unused) == [
        Unused(0, C("SWAP"), "no_legal_use"),
        Unused(0, C("STEAL"), "no_legal_use"),
    ]
    events = play(game, "hit", "-2")
    assert of_type(events, ModifierGiven) == [ModifierGiven(0, 0, C("-2"))]
    assert game.to_decide == 0 and game.decision_kind is DecisionKind.HIT_OR_STAY
    play(game, "stay")
    assert game.rounds[0].scores == (12, 0, 0)


def test_t23_brutal_lone_survivor_may_give_to_busted() -> None:
    game = new(rules=Rules(brutal=True))
    play(game, "5", "6", "8", "hit", "9", "hit", "6", "hit", "8", "hit", "-2")
    assert game.decision_kind is DecisionKind.GIVE
    assert [str(d) for d in game.legal_decisions()] == ["give 0", "give 1", "give 2"]


# --------------------------------------------------------------------------- T24


def _t24(tie_break: str) -> tuple[Game, list[Event]]:
    """Totals 21, 21, 15 against a target of 20 (a scaled A 205, B 205, C 150)."""
    game = new(rules=Rules(target_score=20, tie_break=tie_break))  # type: ignore[arg-type]
    events = play(game, "10", "10", "5", "hit", "11", "hit", "11", "hit", "10")
    events += play(game, "stay", "stay", "stay")
    assert game.rounds[0].scores == (21, 21, 15)
    return game, events


def test_t24_tie_plays_extra_round() -> None:
    game, events = _t24("extra_rounds")
    assert not game.over and game.winners == ()
    assert not of_type(events, GameOver)
    assert game.round == 2 and game.needs_card
    # Round 2 (dealer 0, deal 1, 2, 0): seat 0 pulls ahead and wins alone.
    events = play(game, "1", "2", "12", "stay", "stay", "stay")
    assert game.totals == (33, 22, 17)
    assert game.over and game.winners == (0,)
    assert of_type(events, GameOver) == [GameOver((0,), (33, 22, 17))]


def test_t24_tie_extra_round_repeats_while_tied() -> None:
    game, _ = _t24("extra_rounds")
    # Round 2 (dealer 0, deal 1, 2, 0): seats 0 and 1 both score 2 and stay tied.
    play(game, "2", "1", "2", "stay", "stay", "stay")
    assert game.totals == (23, 23, 16)
    assert not game.over and game.round == 3
    # Round 3 (dealer 1, deal 2, 0, 1): seat 1 pulls ahead.
    events = play(game, "3", "4", "5", "stay", "stay", "stay")
    assert game.totals == (27, 28, 19)
    assert game.over and game.winners == (1,)
    assert of_type(events, GameOver) == [GameOver((1,), (27, 28, 19))]


def test_t24_tie_shared_win() -> None:
    game, events = _t24("shared_win")
    assert game.over and game.winners == (0, 1)
    assert of_type(events, GameOver) == [GameOver((0, 1), (21, 21, 15))]
    with pytest.raises(GameStateError):
        game.draw("1")


# --------------------------------------------------------------------------- T25


def _t25() -> tuple[Game, list[Event]]:
    game = new(rules=Rules(brutal=True))
    play(game, "1", "2", "3", "hit", "4", "stay", "stay")
    play(game, "hit", "5", "hit", "6", "hit", "8", "hit", "9", "hit")
    events = play(game, "10")
    assert of_type(events, Flip7) == [Flip7(0)]
    assert not of_type(events, RoundScored)
    assert game.decision_kind is DecisionKind.FLIP7_CHOICE and game.to_decide == 0
    assert set(game.legal_decisions()) == {BONUS, Minus(1), Minus(2)}
    return game, events


def test_t25_brutal_flip7_minus15() -> None:
    game, _ = _t25()
    events = play(game, "minus 1")
    assert of_type(events, Minus15) == [Minus15(0, 1)]
    result = scored(events)
    assert result.scores == (43, 2, 3)  # no +15 for the flipper
    assert result.minus15 == 1 and result.flip7 == 0
    assert result.totals == (43, -13, 3)
    assert game.totals == (43, -13, 3)
    assert game.rounds[0].minus15 == 1


def test_t25_brutal_flip7_bonus() -> None:
    game, _ = _t25()
    events = play(game, "bonus")
    assert of_type(events, BonusTaken) == [BonusTaken(0)]
    result = scored(events)
    assert result.scores == (58, 2, 3) and result.minus15 is None
    assert game.totals == (58, 2, 3)


# --------------------------------------------------------------------------- T26


def test_t26_flip_four_on_stayed_player() -> None:
    game = new()
    play(game, "2", "3", "4", "stay", "hit", "FLIP4")
    assert game.decision_kind is DecisionKind.TARGET
    assert Target(0) in game.legal_decisions()  # stayed players are legal targets
    events = play(game, "target 0", "5", "STEAL", "6", "8")
    assert of_type(events, SetAside) == [SetAside(0, C("STEAL"))]
    assert game.status(0) is Status.STAYED
    # Seat 0 resolves its set-aside Steal: seat 1's 3 or seat 2's 4.
    assert game.decision_kind is DecisionKind.STEAL and game.to_decide == 0
    events = play(game, "steal 2 4")
    assert of_type(events, Stolen) == [Stolen(0, 2, C("4"))]
    assert game.status(0) is Status.STAYED
    assert not of_type(events, Stayed)
    play(game, "9", "stay", "stay")
    assert game.rounds[0].scores == (25, 3, 9)


# --------------------------------------------------------------------------- events of a round


def test_round_events_in_order() -> None:
    game = Game.new(3, explicit=True, dealer=2)
    assert game.take_events() == [RoundStarted(1, 2)]
    events = play(game, "5", "6", "8")
    assert events == [Dealt(0, C("5")), Dealt(1, C("6")), Dealt(2, C("8"))]
    events = play(game, "hit", "9")
    assert events == [Drew(0, C("9"), "hit")]
    events = play(game, "stay", "stay", "stay")
    assert kinds(events) == ["stayed", "stayed", "stayed", "round_scored", "round_started"]
    result = scored(events)
    assert result.lines == (cards("5", "9"), cards("6"), cards("8"))
    assert result.modifiers == ((), (), ())
