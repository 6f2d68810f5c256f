"""Unit tests of engine behaviour beyond the §12 vectors: options, special cards through
Steal/Swap/Discard, the deal, the draw pile, errors and the API contract.

Games use explicit chance. Most have three seats with seat 2 as dealer, so the deal and the first
turn go 0, 1, 2. ``play(game, *moves)`` gives each move in order: a card code when the game needs a
card, a decision string otherwise; it returns every event raised.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from engine_helpers import cards, conserved, of_type, options, play, scored

from flip7 import (
    BONUS,
    HIT,
    STAY,
    Card,
    CardError,
    DecisionError,
    DecisionKind,
    Discard,
    Flip7Error,
    Game,
    GameStateError,
    Give,
    Hit,
    Line,
    LineError,
    Minus,
    Pass,
    Record,
    RecordError,
    Rules,
    RulesError,
    Stay,
    Steal,
    Swap,
    Target,
    deck_counts,
    parse_decision,
    replay,
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
    ModifierGiven,
    Passed,
    Reshuffled,
    RoundStarted,
    SetAside,
    Stayed,
    Stolen,
    Unused,
    Wiped,
)
from flip7.core.lines import has_duplicate
from flip7.core.scoring import busted_score
from flip7.engine.game import Status

C = Card.parse




def new(n: int = 3, dealer: int = 2, **rules: Any) -> Game:
    return Game.new(n, Rules(**rules), explicit=True, dealer=dealer)










# --------------------------------------------------------------------------- Unlucky 7 moving


def test_unlucky7_by_steal_wipes_the_stealer() -> None:
    game = new()
    play(game, "7", "U7", "9", "hit", "5", "hit", "4", "stay", "hit", "STEAL")
    assert game.line(0) == cards("7", "5")
    events = play(game, "steal 1 U7")
    # §4.4.5: receiving Unlucky 7 by Steal wipes, and the 7 already there does not bust.
    assert of_type(events, Busted) == []
    assert of_type(events, Wiped) == [Wiped(0, cards("7", "5"))]
    assert game.line(0) == cards("U7")
    # The loser gets nothing back; its effect does not reverse.
    assert game.line(1) == cards("4")
    assert conserved(game)


def test_unlucky7_by_steal_without_transfer_trigger() -> None:
    game = new(unlucky7_triggers_on_transfer=False)
    play(game, "5", "U7", "9", "hit", "STEAL")
    events = play(game, "steal 1 U7")
    assert of_type(events, Wiped) == []
    assert game.line(0) == cards("5", "U7")
    assert game.status(0) is Status.ACTIVE


def test_unlucky7_by_steal_without_transfer_trigger_busts_a_7() -> None:
    game = new(unlucky7_triggers_on_transfer=False)
    play(game, "7", "U7", "9", "hit", "STEAL")
    events = play(game, "steal 1 U7")
    assert of_type(events, Busted) == [Busted(0, C("U7"))]
    assert of_type(events, Wiped) == []
    assert game.status(0) is Status.BUSTED


@pytest.mark.parametrize("trigger", [True, False])
def test_unlucky7_by_swap(trigger: bool) -> None:
    game = new(unlucky7_triggers_on_transfer=trigger)
    play(game, "5", "U7", "3", "hit", "9", "hit", "4", "hit", "SWAP")
    assert game.line(0) == cards("5", "9") and game.line(1) == cards("U7", "4")
    events = play(game, "swap 1 U7 0 5")
    assert of_type(events, Busted) == []
    assert game.line(1) == cards("4", "5")
    if trigger:
        assert of_type(events, Wiped) == [Wiped(0, cards("9"))]
        assert game.line(0) == cards("U7")
    else:
        assert of_type(events, Wiped) == []
        assert game.line(0) == cards("9", "U7")
    assert conserved(game)


@pytest.mark.parametrize("trigger", [True, False])
def test_unlucky7_swapped_for_a_regular_7(trigger: bool) -> None:
    # Seat 0 holds a regular 7 and receives Unlucky 7 in exchange for a 5.
    game = new(unlucky7_triggers_on_transfer=trigger)
    play(game, "7", "U7", "3", "hit", "5", "hit", "4", "hit", "SWAP")
    events = play(game, "swap 0 5 1 U7")
    if trigger:
        assert game.line(0) == cards("U7") and game.status(0) is Status.ACTIVE
        assert of_type(events, Wiped) == [Wiped(0, cards("7"))]
    else:
        assert game.status(0) is Status.BUSTED
        assert of_type(events, Busted) == [Busted(0, C("U7"))]


def test_unlucky7_drawn_into_empty_line_wipes_nothing() -> None:
    game = new()
    events = play(game, "U7")
    assert of_type(events, Wiped) == []
    assert game.line(0) == cards("U7") and game.discard_pile == ()


# --------------------------------------------------------------------------- Lucky 13 leaving


def _lucky_pair() -> Game:
    """Seat 0 holds {13, L13}, seat 1 {13}, seat 2 {2}; seat 1 is to decide."""
    game = new()
    play(game, "13", "13", "2", "hit", "L13")
    assert game.line(0) == cards("13", "L13") and game.status(0) is Status.ACTIVE
    assert game.to_decide == 1
    return game


def test_lucky13_discarded_leaves_a_lone_13() -> None:
    game = _lucky_pair()
    events = play(game, "hit", "DISCARD", "discard 0 L13")
    assert of_type(events, Discarded) == [Discarded(1, 0, C("L13"))]
    assert game.line(0) == cards("13") and game.status(0) is Status.ACTIVE


def test_lucky13_stolen_leaves_a_lone_13() -> None:
    game = new()
    play(game, "13", "12", "2", "hit", "L13", "hit", "STEAL")
    events = play(game, "steal 0 L13")
    assert of_type(events, Stolen) == [Stolen(1, 0, C("L13"))]
    assert game.line(0) == cards("13") and game.status(0) is Status.ACTIVE
    assert game.line(1) == cards("12", "L13") and game.status(1) is Status.ACTIVE


def test_lucky13_swapped_out_for_a_regular_13_busts() -> None:
    game = _lucky_pair()
    events = play(game, "hit", "SWAP", "swap 0 L13 1 13")
    # §4.5.5: seat 0 now holds two regular 13s and busts; seat 1 holds L13 alone.
    assert of_type(events, Busted) == [Busted(0, C("13"))]
    assert game.status(0) is Status.BUSTED
    assert game.line(1) == cards("L13") and game.status(1) is Status.ACTIVE


# --------------------------------------------------------------------------- The Zero


def test_zero_holder_is_never_offered_stay() -> None:
    game = new()
    play(game, "0", "9", "10")
    assert game.needs_card and game.to_decide is None  # forced hit of seat 0
    play(game, "1", "stay", "stay")
    for code in ("2", "3"):
        assert game.needs_card and game.to_decide is None
        play(game, code)
    assert game.line(0) == cards("0", "1", "2", "3")
    assert game.decisions == (STAY, STAY)


def test_zero_must_hit_ends_when_discarded() -> None:
    game = new()
    play(game, "0", "5", "6", "3")  # seat 0 is dealt The Zero and must hit: 3
    play(game, "hit", "DISCARD", "discard 0 0", "stay")
    assert game.line(0) == cards("3")
    # Seat 0 may now stay.
    assert game.to_decide == 0 and game.decision_kind is DecisionKind.HIT_OR_STAY
    play(game, "stay")
    assert game.status(0) is Status.STAYED


def test_zero_must_hit_moves_with_a_steal() -> None:
    game = new()
    play(game, "0", "5", "6", "3", "hit", "STEAL", "steal 0 0")
    assert game.line(1) == cards("5", "0")
    play(game, "stay")  # seat 2
    assert game.to_decide == 0  # seat 0 is free of The Zero
    play(game, "stay")
    # Seat 1 holds The Zero now: forced hit, no decision.
    assert game.needs_card and game.to_decide is None
    play(game, "8")
    assert game.line(1) == cards("5", "0", "8")


def test_zero_must_hit_moves_with_a_swap() -> None:
    game = new()
    play(game, "0", "5", "6", "3", "hit", "4", "hit", "SWAP", "swap 0 0 1 5")
    assert game.line(0) == cards("3", "5") and game.line(1) == cards("4", "0")
    assert game.to_decide == 0
    play(game, "stay")
    assert game.needs_card  # seat 1 must hit now


def test_zero_to_a_stayed_player_stays_stayed_and_scores_zero() -> None:
    game = new()
    play(game, "0", "5", "6", "3", "stay", "hit", "SWAP", "swap 0 0 1 5")
    assert game.status(1) is Status.STAYED and game.line(1) == cards("0")
    play(game, "stay", "stay")
    assert game.rounds[0].scores == (8, 0, 6)


def test_zero_holder_busts_out() -> None:
    game = new()
    events = play(game, "0", "5", "6", "3", "stay", "stay", "3")
    assert of_type(events, Busted) == [Busted(0, C("3"))]
    assert game.rounds[0].busted == (0,)


# --------------------------------------------------------------------------- empty lines


def test_empty_line_must_hit_by_default() -> None:
    game = new()
    play(game, "STEAL", "5", "6")
    assert game.line(0) == () and game.needs_card and game.to_decide is None
    play(game, "8")
    assert game.line(0) == cards("8")


def test_modifier_only_line_may_stay() -> None:
    game = new()
    play(game, "-2", "give 0", "5", "6")
    assert game.to_decide == 0 and options(game) == ["hit", "stay"]
    play(game, "stay", "stay", "stay")
    assert game.rounds[0].scores == (0, 5, 6)


def test_empty_line_may_stay_with_option() -> None:
    game = new(can_stay_with_empty_line=True)
    play(game, "STEAL", "5", "6")
    assert game.to_decide == 0 and options(game) == ["hit", "stay"]
    play(game, "stay", "stay", "stay")
    assert game.rounds[0].scores == (0, 5, 6)


# --------------------------------------------------------------------------- deal_skips_inactive


@pytest.mark.parametrize("skips", [True, False])
def test_deal_to_a_player_stayed_during_the_deal(skips: bool) -> None:
    game = new(deal_skips_inactive=skips)
    events = play(game, "JOM", "target 1", "5")
    assert of_type(events, Stayed) == [Stayed(1, True)]
    events = play(game, "6")
    if skips:
        assert events[0] == Dealt(2, C("6"))
        assert game.line(1) == cards("5") and game.line(2) == cards("6")
    else:
        assert events[0] == Dealt(1, C("6"))
        assert game.line(1) == cards("5", "6") and game.status(1) is Status.STAYED
        play(game, "8")
        assert game.line(2) == cards("8")


@pytest.mark.parametrize("skips", [True, False])
def test_deal_to_a_player_busted_during_the_deal(skips: bool) -> None:
    game = new(deal_skips_inactive=skips)
    events = play(game, "FLIP4", "target 1", "5", "5")
    assert of_type(events, Busted) == [Busted(1, C("5"))]
    assert game.needs_card
    events = play(game, "6")
    if skips:
        assert events[0] == Dealt(2, C("6"))
        assert game.line(2) == cards("6")
    else:
        # The busted player's deal card is drawn and discarded without effect.
        assert events[:2] == [Dealt(1, C("6")), Unused(1, C("6"), "busted")]
        assert game.line(1) == cards("5", "5") and C("6") in game.discard_pile
        play(game, "8")
        assert game.line(2) == cards("8")
    assert conserved(game)


def test_active_player_dealt_even_after_forced_cards() -> None:
    game = new()
    play(game, "JOM", "target 1", "FLIP4")  # seat 1's forced card is a Flip Four
    play(game, "target 1", "1", "2", "3", "4")
    # Seat 1 took four cards, then stayed (Just One More). Seat 0 (empty) stays Active.
    assert game.status(1) is Status.STAYED
    play(game, "8")  # seat 1 skipped (stayed), seat 2 dealt
    assert game.line(2) == cards("8")


def test_round_ends_after_deal_when_nobody_is_active() -> None:
    game = new()
    play(game, "JOM", "target 0", "5", "JOM", "target 1", "6")
    assert game.statuses()[:2] == (Status.STAYED, Status.STAYED)
    # Seat 2's deal card is a Flip Four on itself: it busts, and nobody is Active.
    events = play(game, "FLIP4", "target 2", "8", "8")
    assert of_type(events, Busted) == [Busted(2, C("8"))]
    assert scored(events).scores == (5, 6, 0)
    assert game.round == 2


# --------------------------------------------------------------------------- JOM, Flip Four


def test_just_one_more_on_self() -> None:
    game = new()
    play(game, "5", "6", "8", "hit", "JOM")
    assert game.decision_kind is DecisionKind.TARGET and options(game) == [
        "target 0", "target 1", "target 2",
    ]  # fmt: skip
    events = play(game, "target 0", "9")
    assert events == [
        ActionUsed(0, C("JOM"), 0),
        Drew(0, C("9"), "just_one_more"),
        Stayed(0, True),
    ]
    assert game.to_decide == 1
    assert C("JOM") in game.discard_pile


def test_just_one_more_on_self_reveals_modifier() -> None:
    game = new()
    play(game, "5", "6", "8", "hit", "JOM", "target 0", "-4")
    assert game.decision_kind is DecisionKind.GIVE and game.to_decide == 0
    assert game.status(0) is Status.ACTIVE  # stays only after the Modifier is resolved
    events = play(game, "give 2")
    assert events[:2] == [ModifierGiven(0, 2, C("-4")), Stayed(0, True)]


def test_just_one_more_reveals_flip_four_then_stays() -> None:
    game = new()
    play(game, "5", "6", "8", "hit", "JOM", "target 0", "FLIP4", "target 0")
    events = play(game, "1", "2", "3", "4")
    assert game.line(0) == cards("5", "1", "2", "3", "4")
    assert of_type(events, Stayed) == [Stayed(0, True)]
    assert game.to_decide == 1


def test_just_one_more_bust_no_stay() -> None:
    game = new()
    events = play(game, "5", "6", "8", "hit", "JOM", "target 1", "6")
    assert of_type(events, Busted) == [Busted(1, C("6"))]
    assert of_type(events, Stayed) == []


def test_nested_flip_four() -> None:
    game = new()
    play(game, "5", "6", "8", "hit", "FLIP4", "target 0")
    events = play(game, "FLIP4", "1", "2", "3")
    assert of_type(events, SetAside) == [SetAside(0, C("FLIP4"))]
    # The inner Flip Four resolves as a brand-new one, used by the target.
    assert game.decision_kind is DecisionKind.TARGET and game.to_decide == 0
    assert game.pending_card is C("FLIP4")
    assert Counter(game.set_aside()) == Counter(cards("FLIP4", "FLIP4"))
    assert conserved(game)
    events = play(game, "target 1", "4", "9", "10", "11")
    assert of_type(events, ActionUsed) == [ActionUsed(0, C("FLIP4"), 1)]
    assert [e.card for e in of_type(events, Drew)] == list(cards("4", "9", "10", "11"))  # type: ignore[attr-defined]
    assert game.line(1) == cards("6", "4", "9", "10", "11")
    assert game.set_aside() == ()
    assert Counter(game.discard_pile) == Counter(cards("FLIP4", "FLIP4"))
    assert game.to_decide == 1  # the player after seat 0, whose turn it was


def test_nested_flip_four_inner_bust_keeps_outer_set_aside() -> None:
    game = new()
    play(game, "5", "6", "8", "hit", "FLIP4", "target 0", "FLIP4", "-2", "STEAL", "3")
    # In order: the inner Flip Four (seat 0 targets seat 1, who busts at once) …
    events = play(game, "target 1", "6")
    assert of_type(events, Busted) == [Busted(1, C("6"))]
    # … then the −2, then the Steal, still used by seat 0.
    assert game.decision_kind is DecisionKind.GIVE and game.to_decide == 0
    play(game, "give 2")
    assert game.modifiers(2) == cards("-2")
    assert game.decision_kind is DecisionKind.STEAL
    assert options(game) == ["steal 2 8", "steal 2 -2"]


def test_flip_four_set_aside_action_without_target_is_discarded() -> None:
    game = new()
    play(game, "5", "6", "8", "hit", "9", "hit", "6", "hit", "8")
    assert game.statuses() == (Status.ACTIVE, Status.BUSTED, Status.BUSTED)
    # Only seat 0 is left: the Flip Four target is forced (no decision).
    events = play(game, "hit", "FLIP4", "STEAL", "1", "2", "3")
    assert of_type(events, ActionUsed) == [ActionUsed(0, C("FLIP4"), 0)]
    assert of_type(events, Unused) == [Unused(0, C("STEAL"), "no_legal_use")]
    assert game.to_decide == 0


def test_flip_four_flip7_discards_set_aside_unresolved() -> None:
    game = new()
    play(game, "1", "9", "10", "hit", "2", "stay", "stay", "hit", "3", "hit", "4", "hit", "8")
    play(game, "hit", "FLIP4")
    size = game.draw_pile_size
    events = play(game, "target 0", "-2", "5", "6")
    assert of_type(events, Flip7) == [Flip7(0)]
    assert Unused(0, C("-2"), "round_over") in events
    assert game.draw_pile_size == size - 3  # the 4th card is never drawn
    result = scored(events)
    assert result.modifiers[0] == ()
    assert result.scores[0] == 1 + 2 + 3 + 4 + 8 + 5 + 6 + 15


# --------------------------------------------------------------------------- turn order (§3.2.4)


def test_turn_order_after_just_one_more_to_a_later_player() -> None:
    game = new(4, dealer=3)
    play(game, "1", "2", "3", "4", "hit", "JOM", "target 2", "5")
    assert game.status(2) is Status.STAYED
    assert game.to_decide == 1
    play(game, "stay")
    assert game.to_decide == 3  # seat 2 has stayed and is skipped


def test_turn_order_after_flip_four_to_an_earlier_player() -> None:
    game = new(4, dealer=3)
    play(game, "1", "2", "3", "4", "stay", "stay", "hit", "FLIP4", "target 0", "5", "6", "8", "9")
    assert game.line(0) == cards("1", "5", "6", "8", "9")
    assert game.to_decide == 3  # after seat 2, whose turn it was; not after seat 0


def test_turn_order_after_steal() -> None:
    game = new(4, dealer=3)
    play(game, "1", "2", "3", "4", "hit", "STEAL", "steal 3 4")
    assert game.to_decide == 1


# --------------------------------------------------------------------------- the draw pile


def _policy_game(seed: int) -> tuple[Game, list[Card]]:
    """Three players, explicit chance, a huge target: cards come in a fixed shuffled order
    (the first still in the draw pile), everyone stays unless the pile is empty (then hits,
    to run into the reshuffle mid-round), and every other choice takes the first option."""
    game = new(target_score=10_000)
    order = sorted(deck_counts(), key=lambda c: (random.Random(seed + c).random(), c))
    # The single 1 and Lucky 13 come last, so they are in front of players at the reshuffle.
    order = [c for c in order if c not in (Card.ONE, Card.LUCKY_13)] + [Card.ONE, Card.LUCKY_13]
    return game, order


def test_reshuffle_mid_round_uses_only_the_discard_pile() -> None:
    game, order = _policy_game(3)
    for _ in range(5000):
        if game.needs_card:
            pile = game.draw_pile_counts()
            card = next(c for c in order if pile[c])
            events = game.draw(card)
        elif game.decision_kind is DecisionKind.HIT_OR_STAY:
            events = game.apply(HIT if game.draw_pile_size == 0 else STAY)
        else:
            events = game.apply(game.legal_decisions()[0])
        assert conserved(game)
        if any(isinstance(e, Reshuffled) for e in events):
            break
    else:
        pytest.fail("no reshuffle")
    reshuffled = next(e for e in events if isinstance(e, Reshuffled))
    in_lines: Counter[Card] = Counter()
    for seat in range(3):
        in_lines += Counter(game.line(seat)) + Counter(game.modifiers(seat))
    assert in_lines, "the reshuffle should happen mid-round"
    # Everything in the discard pile, and nothing else, became the draw pile.
    assert game.needs_card and game.discard_pile == ()
    assert game.draw_pile_size == reshuffled.cards
    assert game.draw_pile_counts() + in_lines + Counter(game.set_aside()) == deck_counts()
    # A card whose every copy is in front of players cannot be drawn.
    gone = [c for c in in_lines if game.draw_pile_counts()[c] == 0]
    assert Card.ONE in gone or Card.LUCKY_13 in gone
    before = (game.draw_pile_size, game.draws)
    for card in gone:
        with pytest.raises(CardError):
            game.draw(card)
    assert (game.draw_pile_size, game.draws) == before and game.needs_card
    card = next(c for c in order if game.draw_pile_counts()[c])
    game.draw(card)
    assert conserved(game)


def test_draw_of_unknown_code_or_type() -> None:
    game = new()
    with pytest.raises(CardError):
        game.draw("14")
    with pytest.raises(CardError):
        game.draw(5)  # type: ignore[arg-type]
    assert game.draw_pile_size == 108 and game.needs_card


def _numbers_plan() -> tuple[list[str], list[list[str]]]:
    """18 seats: a deal card each and up to five more cards each, with distinct values, that
    place all 92 Number cards and all 6 Modifiers in lines. Seat 17's last card is The Zero."""
    numbers = [c for c in deck_counts().elements() if c.is_number]
    numbers.remove(Card.ZERO)
    numbers.remove(Card.UNLUCKY_7)
    lines: list[list[Card]] = [[] for _ in range(18)]
    lines[0].append(Card.UNLUCKY_7)  # into an empty line: the wipe discards nothing
    by_count = sorted(numbers, key=lambda c: (-deck_counts()[c], c.value_points, c))
    for card in by_count:
        fits = [
            s
            for s in range(18)
            if card.value_points not in {c.value_points for c in lines[s]}
            and len(lines[s]) < (5 if s == 17 else 6)
        ]
        seat = min(fits, key=lambda s: (len(lines[s]), s))
        lines[seat].append(card)
    lines[17].append(Card.ZERO)
    modifiers = [c for c in deck_counts().elements() if c.is_modifier]
    for seat, mod in zip(range(1, 17), modifiers, strict=False):
        if len(lines[seat]) < 6:
            lines[seat].append(mod)
    used = sum(len(line) for line in lines)
    assert used == 98, used
    deal = [line[0].code for line in lines]
    hits = [[c.code for c in line[1:]] for line in lines]
    assert all(len(h) <= 5 for h in hits) and len(hits[17]) == 5
    return deal, hits


def test_no_cards_left_ends_the_round() -> None:
    game = Game.new(18, explicit=True, dealer=17)
    game.take_events()
    deal, hits = _numbers_plan()
    play(game, *deal)
    assert game.discard_pile == ()
    # Turns: each seat hits while it has planned cards (giving Modifiers to itself), then stays.
    while game.to_decide is not None:
        seat = game.to_decide
        assert game.decision_kind is DecisionKind.HIT_OR_STAY
        if hits[seat]:
            card = hits[seat].pop(0)
            play(game, "hit", card)
            if C(card).is_modifier:
                play(game, f"give {seat}")
        else:
            play(game, "stay")
    # Seat 17 holds The Zero and is the only Active seat: its forced hit is next.
    assert game.needs_card and game.line(17)[-1] is Card.ZERO
    assert not any(hits)
    assert game.draw_pile_size == 10 and game.discard_pile == ()
    assert all(not c.is_number and not c.is_modifier for c in game.draw_pile_counts())
    # Every Action ends up set aside at once: nothing goes to the discard pile.
    play(game, "JOM", "target 0", "FLIP4", "target 1", "JOM", "STEAL", "STEAL", "SWAP")
    play(game, "target 2", "FLIP4", "target 3", "SWAP", "DISCARD")
    assert game.draw_pile_size == 1 and game.discard_pile == ()
    assert len(game.set_aside()) == 9
    events = play(game, "DISCARD")
    # §3.5.3: draw pile and discard pile are both empty, so the round ends as it stands.
    assert Counter(e for e in events if isinstance(e, Unused)) == Counter(
        [
            Unused(1, C("STEAL"), "round_over"),
            Unused(1, C("STEAL"), "round_over"),
            Unused(1, C("SWAP"), "round_over"),
            Unused(3, C("SWAP"), "round_over"),
            Unused(3, C("DISCARD"), "round_over"),
            Unused(3, C("DISCARD"), "round_over"),
        ]
    )
    result = scored(events)
    assert result.flip7 is None and result.busted == ()
    for seat in range(18):
        assert result.scores[seat] == round_score(
            result.lines[seat], result.modifiers[seat], flip7=False
        )
    assert result.scores[17] == 0  # The Zero
    # The next round reshuffles all 108 cards.
    assert of_type(events, RoundStarted) == [RoundStarted(2, 0)]
    assert of_type(events, Reshuffled) == [Reshuffled(108)]
    assert game.needs_card and game.draw_pile_size == 108 and game.set_aside() == ()
    assert conserved(game)


# --------------------------------------------------------------------------- dealer rotation


def test_dealer_rotation() -> None:
    game = Game.new(4, explicit=True, dealer=2)
    assert game.take_events() == [RoundStarted(1, 2)]
    for rnd, dealer in enumerate([2, 3, 0, 1, 2], start=1):
        assert game.round == rnd and game.dealer == dealer
        order = [(dealer + 1 + i) % 4 for i in range(4)]
        events = play(game, "12", "11", "10", "9")
        assert [e.seat for e in of_type(events, Dealt)] == order  # type: ignore[attr-defined]
        assert game.to_decide == order[0]
        events = play(game, "stay", "stay", "stay", "stay")
        assert game.rounds[-1].dealer == dealer
        assert of_type(events, RoundStarted) == [RoundStarted(rnd + 1, (dealer + 1) % 4)]


def test_random_first_dealer_is_recorded() -> None:
    dealers = {Game.new(5, seed=seed).first_dealer for seed in range(40)}
    assert dealers <= set(range(5)) and len(dealers) > 1
    game = Game.new(5, seed=11)
    assert Record.from_game(game).dealer == game.first_dealer


# --------------------------------------------------------------------------- Brutal


def _brutal_busted(scoring: str) -> Game:
    game = new(brutal=True, brutal_busted_scoring=scoring)
    play(game, "5", "6", "8", "hit", "-2", "give 1", "hit", "6")
    assert game.status(1) is Status.BUSTED and game.modifiers(1) == cards("-2")
    # Modifiers may still go to the busted seat; ÷2 included.
    play(game, "hit", "-4", "give 1", "hit", "/2")
    assert "give 1" in options(game)
    play(game, "give 1", "stay", "stay")
    return game


def test_brutal_busted_scoring_modifiers_only() -> None:
    game = _brutal_busted("modifiers_only")
    assert game.rounds[0].scores == (5, -6, 8)
    assert busted_score(cards("-2", "-4", "/2"), brutal=True, modifiers_only=True) == -6


def test_brutal_busted_scoring_zero() -> None:
    game = _brutal_busted("zero")
    assert game.rounds[0].scores == (5, 0, 8)
    assert busted_score(cards("-2", "-4", "/2"), brutal=True, modifiers_only=False) == 0


def test_standard_busted_scores_zero_and_takes_no_modifier() -> None:
    game = new()
    play(game, "5", "6", "8", "hit", "9", "hit", "6", "hit", "-2")
    assert options(game) == ["give 0", "give 2"]
    assert busted_score(cards("-2"), brutal=False, modifiers_only=True) == 0


def _brutal_flip7_with_busted(targets: str) -> tuple[Game, list[Event]]:
    game = new(brutal=True, brutal_minus15_targets=targets)
    play(game, "1", "2", "3", "hit", "4", "hit", "2", "hit", "5")
    assert game.statuses() == (Status.ACTIVE, Status.BUSTED, Status.ACTIVE)
    play(game, "hit", "6", "stay", "hit", "8", "hit", "9", "hit", "10")
    events = play(game, "hit", "12")
    assert of_type(events, Flip7) == [Flip7(0)]
    return game, events


def test_brutal_minus15_any_other_player_includes_busted() -> None:
    game, _ = _brutal_flip7_with_busted("any_other_player")
    assert set(game.legal_decisions()) == {BONUS, Minus(1), Minus(2)}
    play(game, "minus 1")
    assert game.totals == (50, -15, 8)


def test_brutal_minus15_non_busted_others() -> None:
    game, _ = _brutal_flip7_with_busted("non_busted_others")
    assert set(game.legal_decisions()) == {BONUS, Minus(2)}
    with pytest.raises(DecisionError):
        game.apply("minus 1")
    with pytest.raises(DecisionError):
        game.apply("minus 0")
    play(game, "minus 2")
    assert game.totals == (50, 0, 8 - 15)


def test_brutal_flip7_with_no_other_target_takes_bonus() -> None:
    game = new(brutal=True, brutal_minus15_targets="non_busted_others")
    play(game, "1", "2", "3", "hit", "4", "hit", "2", "hit", "3")
    play(game, "hit", "5", "hit", "6", "hit", "8", "hit", "9")
    events = play(game, "hit", "10")
    assert of_type(events, BonusTaken) == [BonusTaken(0)]
    assert scored(events).scores == (43 + 15, 0, 0)


def test_brutal_flip7_minus_with_zero_in_line() -> None:
    game = new(brutal=True)
    play(game, "0", "9", "10", "1", "stay", "stay", "2", "3", "4", "5")
    events = play(game, "6")
    assert of_type(events, Flip7) == [Flip7(0)]
    events = play(game, "minus 2")
    # Still a Flip 7, so The Zero does nothing; no +15.
    assert scored(events).scores == (21, 9, 10)
    assert game.totals == (21, 9, -5)


def test_brutal_zero_not_pushed_below_zero() -> None:
    assert round_score(cards("0", "5"), cards("-10"), flip7=False, brutal=True) == 0


def test_brutal_totals_may_fall_below_target_again() -> None:
    # §9.2: target 10; seats 0 and 1 tie at 10, so an extra round is played …
    game = new(brutal=True, target_score=10)
    play(game, "10", "10", "1", "stay", "stay", "stay")
    assert not game.over and game.totals == (10, 10, 1)
    # … in which both score below 0 (dealer 0: deal 1, 2, 0). Nobody is at 10 any more,
    # so the game goes on.
    play(game, "-10", "give 1", "-8", "give 0", "5", "stay", "2", "stay", "stay")
    assert game.rounds[1].scores == (-3, -10, 2)
    assert game.totals == (7, 0, 3)
    assert not game.over and game.round == 3


# --------------------------------------------------------------------------- Swap options


def test_swap_cross_type_options() -> None:
    game = new()
    play(game, "5", "6", "8", "hit", "-2", "give 0", "hit", "SWAP")
    assert "swap 0 -2 1 6" in options(game)
    assert "swap 0 5 1 6" in options(game)


def test_swap_without_cross_type() -> None:
    game = new(swap_allow_cross_type=False)
    play(game, "5", "6", "8", "hit", "-2", "give 0", "hit", "SWAP")
    for decision in game.legal_decisions():
        assert isinstance(decision, Swap)
        assert decision.card1.is_number == decision.card2.is_number
    assert "swap 0 -2 1 6" not in options(game)
    with pytest.raises(DecisionError):
        game.apply("swap 0 -2 1 6")


@pytest.mark.parametrize("cross", [True, False])
def test_swap_with_only_a_cross_pair(cross: bool) -> None:
    game = new(swap_allow_cross_type=cross)
    events = play(game, "-2", "give 0", "6", "SWAP")
    if cross:
        # The only legal swap is made without a decision.
        assert game.modifiers(1) == cards("-2") and game.line(0) == cards("6")
    else:
        assert Unused(2, C("SWAP"), "no_legal_use") in events
        assert game.modifiers(0) == cards("-2") and game.line(1) == cards("6")


def test_swap_of_two_equal_cards_is_legal_and_changes_nothing() -> None:
    game = new()
    play(game, "5", "5", "8", "hit", "SWAP")
    assert "swap 0 5 1 5" in options(game)
    play(game, "swap 1 5 0 5")
    assert game.line(0) == cards("5") and game.line(1) == cards("5")
    assert game.statuses() == (Status.ACTIVE,) * 3


def test_swap_can_give_flip7() -> None:
    game = new()
    play(game, "1", "9", "10", "hit", "-2", "give 0", "stay", "stay")
    play(game, "hit", "2", "hit", "3", "hit", "4", "hit", "5", "hit", "6")
    assert game.number_count(0) == 6
    # Seat 0 hits a Swap and trades its −2 for seat 1's 9: a 7th Number card.
    events = play(game, "hit", "SWAP", "swap 0 -2 1 9")
    assert of_type(events, Flip7) == [Flip7(0)]
    assert scored(events).scores == (30 + 15, 0, 10)


# --------------------------------------------------------------------------- pass_actions


def test_pass_actions_hands_steal_to_another_player() -> None:
    game = new(pass_actions=True)
    play(game, "5", "6", "8", "hit", "STEAL")
    assert game.decision_kind is DecisionKind.PASS and game.to_decide == 0
    assert options(game) == ["pass 0", "pass 1", "pass 2"]
    events = play(game, "pass 1")
    assert of_type(events, Passed) == [Passed(0, C("STEAL"), 1)]
    assert game.decision_kind is DecisionKind.STEAL and game.to_decide == 1
    assert options(game) == ["steal 0 5", "steal 2 8"]
    events = play(game, "steal 2 8")
    assert of_type(events, Stolen) == [Stolen(1, 2, C("8"))]
    assert game.line(1) == cards("6", "8")
    assert game.to_decide == 1  # turn order unaffected: after seat 0


def test_pass_actions_keep_it() -> None:
    game = new(pass_actions=True)
    events = play(game, "5", "6", "8", "hit", "DISCARD", "pass 0")
    assert of_type(events, Passed) == []
    assert game.decision_kind is DecisionKind.DISCARD and game.to_decide == 0


def test_pass_actions_does_not_affect_jom_flip4_or_modifiers() -> None:
    game = new(pass_actions=True)
    play(game, "5", "6", "8", "hit", "JOM")
    assert game.decision_kind is DecisionKind.TARGET
    play(game, "target 0", "-2")
    assert game.decision_kind is DecisionKind.GIVE


def test_pass_is_illegal_without_the_option() -> None:
    game = new()
    play(game, "5", "6", "8", "hit", "STEAL")
    assert game.decision_kind is DecisionKind.STEAL
    with pytest.raises(DecisionError):
        game.apply("pass 1")


# --------------------------------------------------------------------------- two decks


def test_two_decks_by_player_count() -> None:
    assert Game.new(18, seed=1).decks == 1
    game = Game.new(19, explicit=True, dealer=18)
    assert game.decks == 2 and game.draw_pile_size == 216
    assert game.draw_pile_counts() == deck_counts(2)
    assert Game.new(36, seed=1).decks == 2
    assert Game.new(3, decks=2, seed=1).decks == 2


def test_two_lucky_13s_are_a_safe_pair() -> None:
    game = Game.new(3, explicit=True, dealer=2, decks=2)
    events = play(game, "L13", "5", "6", "hit", "L13")
    assert of_type(events, Busted) == []
    assert game.number_sum(0) == 26
    # A third 13 busts.
    events = play(game, "stay", "stay", "hit", "13")
    assert of_type(events, Busted) == [Busted(0, C("13"))]
    assert has_duplicate(cards("L13", "L13", "13"))
    assert not has_duplicate(cards("L13", "L13"))
    assert not has_duplicate(cards("L13", "13"))
    assert has_duplicate(cards("13", "13"))


def test_two_identical_cards_are_one_option() -> None:
    game = Game.new(3, explicit=True, dealer=2, decks=2)
    play(game, "L13", "5", "6", "hit", "L13", "hit", "STEAL")
    assert options(game) == ["steal 0 L13", "steal 2 6"]
    play(game, "steal 0 L13")
    assert game.line(0) == cards("L13") and game.line(1) == cards("5", "L13")


def test_two_halves_halve_twice() -> None:
    assert round_score(cards("10", "12"), cards("/2", "/2"), flip7=False) == 5
    assert round_score(cards("10", "12"), cards("/2", "-2", "/2"), flip7=False) == 3
    assert Line.parse(["10", "12", "/2", "/2"]).score() == 5
    game = Game.new(3, explicit=True, dealer=2, decks=2)
    play(game, "10", "5", "6", "hit", "12", "hit", "/2", "give 0", "hit", "/2", "give 0")
    play(game, "stay", "stay", "stay")
    assert game.rounds[0].scores == (5, 5, 6)


# --------------------------------------------------------------------------- player counts


def test_player_count_limits() -> None:
    with pytest.raises(GameStateError):
        Game.new(2)
    assert Game.new(2, Rules(allow_two_players=True), seed=1).n == 2
    with pytest.raises(GameStateError):
        Game.new(1, Rules(allow_two_players=True))
    with pytest.raises(GameStateError):
        Game.new(37)
    with pytest.raises(GameStateError):
        Game.new(37, decks=2)
    assert Game.new(36, seed=2).n == 36
    with pytest.raises(GameStateError):
        Game.new(19, decks=1)
    with pytest.raises(GameStateError):
        Game.new(3, decks=3)
    with pytest.raises(GameStateError):
        Game.new(3, dealer=3)
    with pytest.raises(GameStateError):
        Game.new(["Ann", "", "Cyd"])


@pytest.mark.parametrize(
    "header",
    [
        {"players": ["A", "B"]},
        {"players": ["P"] * 37},
        {"players": ["P"] * 19, "decks": 1},
        {"players": ["A", "B", "C"], "decks": 3},
        {"players": ["A", "B", "C"], "dealer": 3},
        {"players": ["A", "B", "C"], "dealer": True},
        {"players": ["A", "B", "C"], "rules": {"brutal": 1}},
        {"players": ["A", "B", "C"], "extra": 1},
        {"players": ["A", "B", "C"], "format": "flip7-record/2"},
        {"players": "ABC"},
    ],
)
def test_record_header_errors(header: dict[str, Any]) -> None:
    record = {"format": "flip7-record/1", "draws": [], "decisions": [], **header}
    with pytest.raises(RecordError) as info:
        replay(record)
    assert info.value.kind == "record" and info.value.index is None


def test_record_two_players_with_option() -> None:
    record = {
        "format": "flip7-record/1",
        "players": ["A", "B"],
        "rules": {"allow_two_players": True},
        "draws": ["5", "6"],
        "decisions": ["stay", "stay"],
    }
    assert replay(record).totals == (6, 5)


# --------------------------------------------------------------------------- rules validation


def test_rules_defaults_match_section_13() -> None:
    assert Rules().to_json(full=True) == {
        "brutal": False,
        "target_score": 200,
        "lucky13_pair_flip7_count": 2,
        "unlucky7_triggers_on_transfer": True,
        "can_stay_with_empty_line": False,
        "deal_skips_inactive": True,
        "tie_break": "extra_rounds",
        "brutal_busted_scoring": "modifiers_only",
        "brutal_minus15_targets": "any_other_player",
        "swap_allow_cross_type": True,
        "pass_actions": False,
        "no_cards_left": "end_round",
        "allow_two_players": False,
    }
    assert Rules().to_json() == {}
    assert Rules.from_json({}) == Rules()


@pytest.mark.parametrize(
    "data",
    [
        {"flip_three": True},
        {"Brutal": True},
        {"brutal": 1},
        {"brutal": 0},
        {"brutal": "true"},
        {"brutal": None},
        {"pass_actions": 1},
        {"allow_two_players": "yes"},
        {"target_score": True},
        {"target_score": 0},
        {"target_score": -5},
        {"target_score": 200.0},
        {"target_score": "200"},
        {"lucky13_pair_flip7_count": 3},
        {"lucky13_pair_flip7_count": True},
        {"lucky13_pair_flip7_count": 2.0},
        {"tie_break": "shared"},
        {"tie_break": True},
        {"brutal_busted_scoring": "Zero"},
        {"brutal_minus15_targets": "any"},
        {"no_cards_left": "reshuffle"},
        {"swap_allow_cross_type": 1},
    ],
)
def test_rules_validation(data: dict[str, Any]) -> None:
    with pytest.raises(RulesError):
        Rules.from_json(data)
    if set(data) <= set(Rules().to_json(full=True)):
        with pytest.raises(RulesError):
            Rules(**data)
        with pytest.raises(RulesError):
            Rules().replace(**data)


@pytest.mark.parametrize("data", [None, [], "brutal", 1])
def test_rules_must_be_an_object(data: Any) -> None:
    with pytest.raises(RulesError):
        Rules.from_json(data)


def test_rules_errors_are_flip7_errors() -> None:
    assert issubclass(RulesError, Flip7Error) and issubclass(RulesError, ValueError)


# --------------------------------------------------------------------------- decisions


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "hold",
        "Hit",
        "HIT",
        "hit 1",
        "stay now",
        "target",
        "target x",
        "target -1",
        "target 1.0",
        "target ١",
        "give",
        "pass 1 2",
        "steal 1",
        "steal 1 14",
        "steal x 5",
        "discard 0",
        "swap 0 5 1",
        "swap 0 5 1 6 2",
        "swap 0 Q 1 6",
        "bonus 1",
        "minus",
    ],
)
def test_parse_decision_errors(text: str) -> None:
    with pytest.raises(DecisionError):
        parse_decision(text)


def test_parse_decision_non_string() -> None:
    with pytest.raises(DecisionError):
        parse_decision(5)  # type: ignore[arg-type]


def test_parse_decision_values() -> None:
    assert parse_decision("hit") == HIT and parse_decision("stay") == STAY
    assert parse_decision("bonus") == BONUS
    assert parse_decision("target 12") == Target(12)
    assert parse_decision("give 0") == Give(0)
    assert parse_decision("pass 3") == Pass(3)
    assert parse_decision("minus 2") == Minus(2)
    assert parse_decision("steal 1 l13") == Steal(1, Card.LUCKY_13)
    assert parse_decision("discard  2   ÷2") == Discard(2, Card.DIVIDE_2)
    assert parse_decision("swap 2 8 0 5") == parse_decision("swap 0 5 2 8")
    assert str(parse_decision("swap 2 8 0 −4")) == "swap 0 -4 2 8"
    assert str(parse_decision(" steal 1  u7 ")) == "steal 1 U7"
    assert str(HIT) == "hit" and str(STAY) == "stay" and str(BONUS) == "bonus"
    assert Hit() == HIT and Stay() == STAY


# --------------------------------------------------------------------------- card codes


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("0", Card.ZERO),
        ("7", Card.SEVEN),
        ("u7", Card.UNLUCKY_7),
        ("U7", Card.UNLUCKY_7),
        ("l13", Card.LUCKY_13),
        ("13", Card.THIRTEEN),
        ("/2", Card.DIVIDE_2),
        ("÷2", Card.DIVIDE_2),
        ("-4", Card.MINUS_4),
        ("−4", Card.MINUS_4),
        ("−10", Card.MINUS_10),
        ("jom", Card.JUST_ONE_MORE),
        ("Flip4", Card.FLIP_FOUR),
        ("steal", Card.STEAL),
        ("Swap", Card.SWAP),
        ("DISCARD", Card.DISCARD),
    ],
)
def test_card_parse_variants(text: str, card: Card) -> None:
    assert Card.parse(text) is card


@pytest.mark.parametrize("text", ["", "14", "-1", "+2", "x2", "L7", "U13", "7.0", "-12", "FLIP3"])
def test_card_parse_errors(text: str) -> None:
    with pytest.raises(CardError):
        Card.parse(text)


def test_card_parse_non_string() -> None:
    with pytest.raises(CardError):
        Card.parse(5)  # type: ignore[arg-type]


def test_card_codes_round_trip() -> None:
    for card in Card:
        assert Card.parse(card.code) is card
        assert Card.parse(card.code.lower()) is card
        assert str(card) == card.code
    assert [c.code for c in Card] == [
        *(str(v) for v in range(14)),
        "U7", "L13", "/2", "-2", "-4", "-6", "-8", "-10",
        "JOM", "FLIP4", "STEAL", "SWAP", "DISCARD",
    ]  # fmt: skip


def test_line_parse_errors() -> None:
    with pytest.raises(LineError):
        Line.parse(["5", "STEAL"])
    with pytest.raises(LineError):
        Line.parse(["1", "2", "3", "4", "5", "6", "8", "9"])
    with pytest.raises(LineError):
        Line.parse(["5", "Q"])


# --------------------------------------------------------------------------- illegal moves


def test_illegal_decision_lists_legal_options() -> None:
    game = new()
    play(game, "5", "U7", "9", "hit", "STEAL")
    state = (game.to_decide, game.legal_decisions(), game.line(0), game.decisions)
    with pytest.raises(DecisionError) as info:
        game.apply("target 1")
    for option in ("steal 1 U7", "steal 2 9"):
        assert option in str(info.value)
    with pytest.raises(DecisionError):
        game.apply("steal 0 5")  # from yourself
    with pytest.raises(DecisionError):
        game.apply("steal 1 9")  # not in that line
    assert (game.to_decide, game.legal_decisions(), game.line(0), game.decisions) == state
    play(game, "steal 2 9")
    assert game.line(0) == cards("5", "9")


def test_illegal_hit_or_stay_decision() -> None:
    game = new()
    play(game, "5", "6", "8")
    with pytest.raises(DecisionError) as info:
        game.apply("bonus")
    assert "hit" in str(info.value) and "stay" in str(info.value)
    with pytest.raises(DecisionError):
        game.apply("give 0")


def test_apply_when_a_card_is_due() -> None:
    game = new()
    assert game.needs_card and game.to_decide is None and game.legal_decisions() == ()
    with pytest.raises(GameStateError):
        game.apply("hit")
    with pytest.raises(GameStateError):
        game.apply(HIT)


def test_draw_when_a_decision_is_due() -> None:
    game = new()
    play(game, "5", "6", "8")
    assert not game.needs_card
    with pytest.raises(GameStateError):
        game.draw("9")


def test_draw_in_a_shuffled_game() -> None:
    game = Game.new(3, seed=4)
    with pytest.raises(GameStateError):
        game.draw("5")


def test_no_moves_after_game_over() -> None:
    game = new(target_score=1)
    play(game, "5", "6", "8", "stay", "stay", "stay")
    assert game.over and game.winners == (2,)
    assert game.to_decide is None and not game.needs_card and game.legal_decisions() == ()
    with pytest.raises(GameStateError):
        game.apply("hit")
    with pytest.raises(GameStateError):
        game.draw("9")


def test_errors_share_a_base_class() -> None:
    for error in (CardError, DecisionError, GameStateError, RecordError, RulesError, LineError):
        assert issubclass(error, Flip7Error)


# --------------------------------------------------------------------------- clone


def test_clone_is_independent() -> None:
    game = new()
    play(game, "5", "6", "8", "hit", "9")
    copy = game.clone()
    play(copy, "stay", "hit", "JOM", "target 0", "10")
    assert game.line(0) == cards("5", "9") and game.to_decide == 1
    assert game.draw_pile_size == 104 and copy.draw_pile_size == 102
    assert copy.line(1) == cards("6") and copy.status(0) is Status.STAYED
    assert game.status(0) is Status.ACTIVE
    # The original plays on as if the copy did not exist.
    play(game, "hit", "10")
    assert game.line(1) == cards("6", "10")


def test_clone_of_shuffled_game_has_the_same_future() -> None:
    game = Game.new(4, seed=99)
    copy = game.clone()
    for _ in range(60):
        if game.over:
            break
        decision = str(game.legal_decisions()[-1])
        assert [e.to_json() for e in game.apply(decision)] == [
            e.to_json() for e in copy.apply(decision)
        ]
    assert game.totals == copy.totals and game.draws == copy.draws


def test_clone_legal_hit_option_hits() -> None:
    # Regression: Game._decide once tested ``decision is HIT``, so a clone's own (deep-copied)
    # Hit option made the player stay.
    game = new()
    play(game, "5", "6", "8")
    copy = game.clone()
    hit = copy.legal_decisions()[0]
    assert str(hit) == "hit"
    copy.apply(hit)
    assert copy.needs_card and copy.status(0) is Status.ACTIVE


def test_apply_a_new_hit_value_hits() -> None:
    # Regression: ``apply(Hit())`` (a Hit value other than ``HIT``) once made the player stay.
    game = new()
    play(game, "5", "6", "8")
    game.apply(Hit())
    assert game.needs_card and game.status(0) is Status.ACTIVE


def test_apply_typed_decisions() -> None:
    game = new()
    play(game, "5", "6", "8")
    game.apply(HIT)
    play(game, "STEAL")
    game.apply(Steal(1, Card.SIX))
    assert game.line(0) == cards("5", "6")
    assert game.needs_card  # seat 1 (empty line) must hit
    game.draw(Card.NINE)
    game.apply(Stay())
    assert game.status(2) is Status.STAYED and game.to_decide == 0


# --------------------------------------------------------------------------- more resolution order


def test_set_aside_still_resolves_after_the_last_active_player_stays() -> None:
    # §3.4.1: condition (a) is checked only once every pending effect has resolved.
    game = new()
    play(game, "5", "6", "8", "stay", "stay", "hit", "FLIP4", "target 2", "JOM", "STEAL")
    play(game, "1", "2")
    assert game.decision_kind is DecisionKind.TARGET and game.pending_card is C("JOM")
    events = play(game, "target 2", "3")
    assert of_type(events, Stayed) == [Stayed(2, True)]
    assert all(s is Status.STAYED for s in game.statuses())
    # Nobody is Active, but the set-aside Steal still resolves before the round ends.
    assert game.decision_kind is DecisionKind.STEAL and game.to_decide == 2
    events = play(game, "steal 0 5")
    assert of_type(events, Stolen) == [Stolen(2, 0, C("5"))]
    assert scored(events).scores == (0, 6, 8 + 1 + 2 + 3 + 5)


def test_stayed_player_reaches_flip7_through_flip_four() -> None:
    game = new()
    play(game, "1", "9", "10", "hit", "2", "stay", "hit", "11", "hit", "3", "hit", "12")
    play(game, "hit", "4", "hit", "8", "hit", "5", "hit", "6", "stay")
    assert game.status(0) is Status.STAYED and game.line(0) == cards("1", "2", "3", "4", "5")
    events = play(game, "hit", "FLIP4", "target 0", "6", "9")
    assert of_type(events, Flip7) == [Flip7(0)]
    assert scored(events).scores == (30 + 15, 9, 10 + 11 + 12 + 8 + 6)


def test_stayed_player_steals_the_zero_and_stays_stayed() -> None:
    game = new()
    play(game, "0", "5", "6", "3", "stay", "hit", "JOM", "target 1", "STEAL")
    assert game.decision_kind is DecisionKind.STEAL and game.to_decide == 1
    play(game, "steal 0 0")
    assert game.line(1) == cards("5", "0") and game.status(1) is Status.STAYED
    # Seat 0 lost The Zero: it is offered Hit or Stay again.
    assert game.to_decide == 0 and game.decision_kind is DecisionKind.HIT_OR_STAY
    play(game, "stay", "stay")
    assert game.rounds[0].scores == (3, 0, 6)


def test_brutal_busted_cards_cannot_be_picked() -> None:
    game = new(brutal=True)
    play(game, "5", "6", "8", "hit", "9", "hit", "6", "hit", "-4", "give 1")
    assert game.status(1) is Status.BUSTED and game.modifiers(1) == cards("-4")
    play(game, "hit", "DISCARD")
    assert options(game) == ["discard 0 5", "discard 0 9", "discard 2 8"]
    with pytest.raises(DecisionError):
        game.apply("discard 1 -4")
    play(game, "discard 2 8")
    assert game.line(2) == ()
    # Seat 2 (empty line) must hit: a Flip Four. Actions never target busted players,
    # even in Brutal (§10.4).
    play(game, "FLIP4")
    assert options(game) == ["target 0", "target 2"]


# --------------------------------------------------------------------------- record entries


def _rec(draws: list[Any], decisions: list[Any], **header: Any) -> dict[str, Any]:
    return {
        "format": "flip7-record/1",
        "players": ["A", "B", "C"],
        "dealer": 2,
        "draws": draws,
        "decisions": decisions,
        **header,
    }


@pytest.mark.parametrize(
    ("record", "kind", "index"),
    [
        # The game needs a card, draws are used up: the first unused decision is left over.
        (_rec(["5", "6"], ["stay"]), "decisions", 0),
        # The game needs a decision, decisions are used up: the first unused draw is left over.
        (_rec(["5", "6", "8", "9"], []), "draws", 3),
        (_rec(["5", "Q"], []), "draws", 1),
        (_rec(["5", 6], []), "draws", 1),
        (_rec(["5", "6", "8"], ["jump"]), "decisions", 0),
        (_rec(["5", "6", "8"], ["stay", 7]), "decisions", 1),
        (_rec(["5", "6", "8", "STEAL"], ["hit", "steal 2 9"]), "decisions", 1),
        # After the game is over a left-over draw is reported before a left-over decision.
        (
            _rec(["5", "6", "8", "9"], ["stay", "stay", "stay", "hit"], rules={"target_score": 1}),
            "draws",
            3,
        ),
        (
            _rec(["5", "6", "8"], ["stay", "stay", "stay", "hit"], rules={"target_score": 1}),
            "decisions",
            3,
        ),
    ],
)
def test_record_entry_errors(record: dict[str, Any], kind: str, index: int) -> None:
    with pytest.raises(RecordError) as info:
        replay(record)
    assert (info.value.kind, info.value.index) == (kind, index), str(info.value)
    assert f"{kind}[{index}]" in str(info.value)


def test_unfinished_record_reports_the_state_reached() -> None:
    result = replay(_rec(["5", "6", "8"], []))
    assert result.to_json() == {"over": False, "rounds": [], "totals": [0, 0, 0], "winners": []}
    # A Brutal Flip 7 whose choice is not made yet is not a completed round.
    draws = ["1", "2", "3", "4", "5", "6", "8", "9", "10"]
    decisions = ["hit", "stay", "stay", "hit", "hit", "hit", "hit", "hit"]
    result = replay(_rec(draws, decisions, rules={"brutal": True}))
    assert not result.over and result.rounds == ()
