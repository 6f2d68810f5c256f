"""Issue 12, engine part: a bust drops the busted player's set-aside cards at once
(RULES.md §6.3.2, §11), so a reshuffle that follows includes them; and records are
checked exactly as RECORD.md §3–§4 say.

Games use explicit chance. ``drain`` plays whole rounds until the draw pile holds only the
cards a scenario needs, so that the scenario runs the draw pile empty in the middle of
nested Flip Fours.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from engine_helpers import cards, conserved, of_type, play

from flip7 import Card, Game, Record, RecordError, Rules, replay
from flip7.core.decisions import DecisionKind
from flip7.core.events import Busted, Reshuffled, Stayed, Unused
from flip7.engine.game import Phase, Status
from flip7.engine.record import replay_game

C = Card.parse
_JUNK = (Card.STEAL, Card.SWAP, Card.DISCARD)


def _at_round_start(game: Game) -> bool:
    return (
        game.needs_card
        and game.phase is Phase.DEAL
        and not any(game.line(s) or game.modifiers(s) for s in range(game.n))
    )


def drain(game: Game, keep: Counter[Card]) -> None:
    """Play whole rounds of three players until the draw pile holds exactly ``keep``.

    Every spare card is drawn: a Number or Modifier into a line (Modifiers kept by their
    revealer), a Steal, Swap or Discard as a round's first deal card (nothing face up: it is
    discarded), a Just One More or Flip Four on its revealer. Seats stay as soon as they may.
    The game is left at the start of a round, before its deal."""
    assert game.n == 3 and _at_round_start(game)
    spare = game.draw_pile_counts() - keep
    actions = sorted(c for c in spare.elements() if c.is_action)
    others: Counter[Card] = Counter({c: k for c, k in spare.items() if not c.is_action})
    assert Card.ZERO not in others, "The Zero would force hits: keep it for the scenario"

    def give(seat: int, numbers_only: bool = False) -> None:
        held = {c.value_points for c in game.line(seat)}
        fits = [
            c
            for c, k in others.items()
            if k
            and (
                (c.is_number and c.value_points not in held) or (c.is_modifier and not numbers_only)
            )
        ]
        card = max(fits, key=lambda c: (others[c], c))
        others[card] -= 1
        game.draw(card)
        if card.is_modifier:
            game.apply(f"give {seat}")

    while actions or sum(others.values()):
        assert _at_round_start(game)
        first = (game.dealer + 1) % 3
        order = [first, (first + 1) % 3, (first + 2) % 3]
        action = actions.pop() if actions else None
        if action in _JUNK:
            game.draw(action)  # no face-up card yet: discarded, and `first` gets no card
            give(order[1])
            give(order[2])
            give(first)  # an empty line must hit
        else:
            for seat in order:
                give(seat)
            if action is not None:
                play(game, "hit", action.code, f"target {first}")
                for _ in range(1 if action is Card.JUST_ONE_MORE else 4):
                    give(first, numbers_only=True)
            else:
                # The last rounds take one or two cards more, so that none is left over.
                left = sum(others.values())
                for seat in order[: left if left < 3 else 0]:
                    assert game.to_decide == seat
                    game.apply("hit")
                    give(seat)
        while game.decision_kind is DecisionKind.HIT_OR_STAY:
            game.apply("stay")
    assert game.draw_pile_counts() == keep and _at_round_start(game)


def _three(decks: int = 1) -> Game:
    return Game.new(3, Rules(target_score=10_000), decks=decks, explicit=True, dealer=2)


# --------------------------------------------------------------------------- the bust


def test_bust_in_own_flip_four_discards_its_set_aside_cards_at_once() -> None:
    game = Game.new(3, explicit=True, dealer=2)
    play(game, "5", "9", "11", "hit", "FLIP4", "target 0", "STEAL", "-4")
    assert Counter(game.set_aside()) == Counter(cards("FLIP4", "STEAL", "-4"))
    events = play(game, "5")
    assert of_type(events, Busted) == [Busted(0, C("5"))]
    # §6.3.2: the Flip Four stops; its card and both set-aside cards are discarded, unused.
    assert of_type(events, Unused) == [
        Unused(0, C("STEAL"), "busted"),
        Unused(0, C("-4"), "busted"),
    ]
    assert game.set_aside() == ()
    assert Counter(game.discard_pile) == Counter(cards("FLIP4", "STEAL", "-4"))
    assert game.to_decide == 1 and conserved(game)


def test_bust_by_another_players_swap_drops_waiting_cards_before_the_reshuffle() -> None:
    game = _three()
    # Seat 0 (left of the dealer) holds The Zero, so its Hit comes without a decision.
    keep = Counter(cards("0", "10", "5", "FLIP4", "FLIP4", "DISCARD", "DISCARD", "5"))
    keep += Counter(cards("SWAP", "JOM", "8", "9"))
    drain(game, keep)
    x, y, w = (game.dealer + 1) % 3, (game.dealer + 2) % 3, game.dealer
    play(game, "0", "10", "5")  # the deal
    # X's forced Hit reveals a Flip Four X plays on itself: a Flip Four and both Discards
    # are set aside for X; X's line is The Zero and a 5.
    play(game, "FLIP4", f"target {x}", "FLIP4", "DISCARD", "DISCARD", "5")
    assert game.line(x) == cards("0", "5")
    # X plays the set-aside Flip Four on Y, whose cards are a Swap, a Just One More, 8, 9.
    play(game, f"target {y}", "SWAP", "JOM", "8", "9")
    assert game.draw_pile_size == 0
    discarded = Counter(game.discard_pile)
    # Y swaps X's Zero with W's 5: X receives a second 5 and busts.
    events = play(game, f"swap {x} 0 {w} 5")
    assert of_type(events, Busted) == [Busted(x, C("5"))]
    # Both Discards set aside for X leave at once, while Y's Just One More waits to be used.
    assert of_type(events, Unused) == [Unused(x, C("DISCARD"), "busted")] * 2
    assert game.to_decide == y and game.pending_card is Card.JUST_ONE_MORE
    view = game.view(None)
    assert Counter(view.discard_pile) == discarded + Counter(cards("SWAP", "DISCARD", "DISCARD"))
    assert Card.DISCARD not in view.set_aside
    assert conserved(game)
    # Y's Just One More (a card of Y's frame: untouched) forces W to draw: the reshuffle
    # takes the whole discard pile, both Discards included.
    pile_to_be = Counter(game.discard_pile)
    events = play(game, f"target {w}")
    assert of_type(events, Reshuffled) == [Reshuffled(sum(pile_to_be.values()))]
    assert game.draw_pile_counts() == pile_to_be and game.discard_pile == ()
    # Only those two Discards can be drawn now: every other copy was drained with the junk.
    assert Counter(game.draw_pile_counts())[Card.DISCARD] == 2
    play(game, "DISCARD", f"discard {y} 8")
    # W, who holds The Zero after the Swap, is forced to stay by the Just One More.
    assert game.status(w) is Status.STAYED and game.status(x) is Status.BUSTED
    assert game.to_decide == y and conserved(game)
    # A record of this game replays to the same state (RECORD.md §4 takes the pile as it is).
    again = replay_game(Record.from_game(game))
    assert again.view(None) == game.view(None)


def test_bust_in_nested_flip_four_for_the_same_target_mid_reshuffle() -> None:
    game = _three(decks=2)
    keep = Counter(cards("2", "0", "0", "JOM", "FLIP4", "FLIP4", "DISCARD", "5", "6"))
    keep += Counter(cards("FLIP4", "JOM", "8", "9", "STEAL", "5"))
    drain(game, keep)
    x, y, w = (game.dealer + 1) % 3, (game.dealer + 2) % 3, game.dealer
    rnd = game.round
    play(game, "2", "0", "0")  # Y and W hold The Zeros of the two decks
    # X hits a Just One More for W; W's forced card is a Flip Four, played on X.
    play(game, "hit", "JOM", f"target {w}", "FLIP4", f"target {x}")
    # X's Flip Four: a Flip Four and a Discard set aside for X.
    play(game, "FLIP4", "DISCARD", "5", "6")
    # X plays its Flip Four on Y: a Flip Four and a Just One More set aside for Y.
    play(game, f"target {y}", "FLIP4", "JOM", "8", "9")
    # Y plays its Flip Four on X: nested in X's first one, for the same target.
    play(game, f"target {x}", "STEAL")
    assert game.draw_pile_size == 1
    discarded = Counter(game.discard_pile)
    events = play(game, "5")
    assert of_type(events, Busted) == [Busted(x, C("5"))]
    # The inner Flip Four (and the Steal set aside in it) and the Discard still waiting in
    # X's outer one are discarded at once; Y's Just One More waits for Y's choice.
    assert Counter(e for e in events if isinstance(e, Unused)) == Counter(
        [Unused(x, C("STEAL"), "busted"), Unused(x, C("DISCARD"), "busted")]
    )
    assert game.to_decide == y and game.pending_card is Card.JUST_ONE_MORE
    view = game.view(None)
    dropped = Counter(cards("FLIP4", "STEAL", "DISCARD"))
    assert Counter(view.discard_pile) == discarded + dropped
    # Still set aside: W's Just One More, the outer Flip Four, Y's Flip Four and Just One More.
    assert Counter(view.set_aside) == Counter(cards("JOM", "FLIP4", "FLIP4", "JOM"))
    assert conserved(game)
    # Y's Just One More on Y: the draw pile is empty, the reshuffle includes the dropped cards.
    pile_to_be = Counter(game.discard_pile)
    events = play(game, f"target {y}")
    assert of_type(events, Reshuffled) == [Reshuffled(sum(pile_to_be.values()))]
    assert game.draw_pile_counts() == pile_to_be
    events = play(game, "10")
    # Y is forced to stay; then the outer Just One More's forced Stay still applies to W,
    # who holds The Zero and was not touched by the bust.
    assert of_type(events, Stayed) == [Stayed(y, True), Stayed(w, True)]
    # X busted, Y and W stayed: the round is scored.
    assert len(game.rounds) == rnd and game.rounds[-1].busted == (x,)
    assert conserved(game)
    again = replay_game(Record.from_game(game))
    assert again.view(None) == game.view(None)


def test_busted_players_cards_go_but_others_set_aside_cards_still_resolve() -> None:
    """A bust in one frame leaves the cards set aside for other players where they are."""
    game = Game.new(3, explicit=True, dealer=2)
    play(game, "5", "9", "11", "hit", "FLIP4", "target 1", "-2", "JOM", "3", "4")
    # Seat 1 gives -2 to seat 0, then plays the Just One More on seat 0, who busts on a 5.
    play(game, "give 0")
    events = play(game, "target 0", "5")
    assert of_type(events, Busted) == [Busted(0, C("5"))]
    assert game.status(1) is Status.ACTIVE and game.line(1) == cards("9", "3", "4")
    assert game.modifiers(0) == cards("-2")
    assert game.to_decide == 1 and conserved(game)


# --------------------------------------------------------------------------- records


def _record(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "format": "flip7-record/1",
        "players": ["Ann", "Bob", "Cyd"],
        "draws": ["5", "9", "11"],
        "decisions": ["stay"],
    }
    base.update(changes)
    return base


@pytest.mark.parametrize("names", [["Ann", " ", "Cyd"], ["Ann", "\t\n", "Cyd"], ["", "B", "C"]])
def test_blank_player_names_are_rejected(names: list[str]) -> None:
    with pytest.raises(RecordError) as info:
        replay(_record(players=names))
    assert info.value.kind == "record" and str(info.value).startswith("record: players:")
    assert "blank" in str(info.value)


def test_non_string_player_name_is_named() -> None:
    with pytest.raises(RecordError, match=r"players: .*players\[1\].*3"):
        replay(_record(players=["Ann", 3, "Cyd"]))


@pytest.mark.parametrize("meta", [[], "x", 1, True])
def test_meta_must_be_an_object(meta: Any) -> None:
    with pytest.raises(RecordError, match=r"^record: meta: must be a JSON object") as info:
        Record.from_json(_record(meta=meta))
    assert info.value.kind == "record"


def test_meta_null_is_not_an_object() -> None:
    with pytest.raises(RecordError, match=r"^record: meta: must be a JSON object, not null"):
        Record.loads(json.dumps(_record(meta=None)))


def test_meta_object_is_kept_and_ignored() -> None:
    record = Record.from_json(_record(meta={"table": "t1"}))
    assert record.meta == {"table": "t1"}
    assert replay(record).over is False


def test_rules_null_is_an_error() -> None:
    with pytest.raises(RecordError, match=r"^record: rules: .*null"):
        Record.loads(json.dumps(_record(rules=None)))


def test_rules_not_an_object_is_an_error() -> None:
    with pytest.raises(RecordError, match=r"^record: rules: "):
        Record.from_json(_record(rules=[]))


def test_at_most_36_players() -> None:
    names = [f"P{i}" for i in range(37)]
    with pytest.raises(RecordError, match=r"^record: players: 37 players; a game has 3 to 36"):
        Record.from_json(_record(players=names, decks=2))
    Record.from_json(_record(players=names[:36], decks=2))


def test_players_must_be_a_list() -> None:
    with pytest.raises(RecordError, match=r"^record: players: must be a list"):
        Record.from_json(_record(players="Ann,Bob,Cyd"))


def test_first_failing_draw_beats_a_later_non_string() -> None:
    # draws[1] is a card that cannot be drawn (the only Zero is in seat 0's line); draws[4]
    # is not a string at all. The first entry that does not fit, in replay order, wins.
    record = _record(draws=["0", "0", "11", "5", 7], decisions=[])
    with pytest.raises(RecordError) as info:
        replay(record)
    assert (info.value.kind, info.value.index) == ("draws", 1)


def test_first_failing_decision_beats_a_later_non_string() -> None:
    record = _record(draws=["5", "9", "11", "3"], decisions=["hit", "fly", None])
    with pytest.raises(RecordError) as info:
        replay(record)
    assert (info.value.kind, info.value.index) == ("decisions", 1)


def test_draw_before_a_failing_decision_in_replay_order() -> None:
    # Replay needs decisions[0] before draws[3]: a non-string draw further on is not reached.
    record = _record(draws=["5", "9", "11", 3], decisions=["jump"])
    with pytest.raises(RecordError) as info:
        replay(record)
    assert (info.value.kind, info.value.index) == ("decisions", 0)


@pytest.mark.parametrize(
    ("draws", "decisions", "where"),
    [
        (["5", "9", 11], ["stay"], ("draws", 2)),
        (["5", "9", "11"], [{"hit": 1}], ("decisions", 0)),
        (["5", None, "11"], [], ("draws", 1)),
    ],
)
def test_a_non_string_entry_is_named_when_replay_reaches_it(
    draws: list[Any], decisions: list[Any], where: tuple[str, int]
) -> None:
    with pytest.raises(RecordError, match="must be a string") as info:
        replay(_record(draws=draws, decisions=decisions))
    assert (info.value.kind, info.value.index) == where


def test_entry_lists_must_be_lists() -> None:
    for key in ("draws", "decisions"):
        with pytest.raises(RecordError, match=rf"^record: {key}: must be a list"):
            Record.from_json(_record(**{key: "5 9 11"}))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"dealer": True}, "dealer: must be a seat from 0 to 2, not a boolean (true)"),
        ({"decks": None}, "decks: must be 1 or 2, not null"),
        ({"format": "flip7-record/2"}, 'format: must be "flip7-record/1", not a string'),
        ({"rules": "brutal"}, "rules: must be a JSON object of rule options"),
    ],
)
def test_header_errors_show_the_json_value(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(RecordError) as info:
        Record.from_json(_record(**changes))
    assert str(info.value).startswith(f"record: {message}")
