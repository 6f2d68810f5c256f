"""Views: what a seat or a spectator sees, and that it never holds hidden information."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from flip7 import Game, GameStateError, GameView, Rules, Status
from flip7.core.cards import Card
from flip7.core.decisions import (
    BONUS,
    HIT,
    STAY,
    Decision,
    Discard,
    Give,
    Minus,
    Pass,
    Steal,
    Swap,
    Target,
    parse_decision,
)
from flip7.core.scoring import busted_score, round_score
from flip7.server.table.views import seat_view


def _random_positions(seed: int, rules: Rules, players: int = 4, every: int = 3) -> list[Game]:
    """Clones of one randomly played game, taken every few decisions, up to its end."""
    rng = random.Random(seed)
    game = Game.new(players, rules, seed=seed)
    positions = [game.clone()]
    step = 0
    while not game.over:
        options = game.legal_decisions()
        game.apply(options[rng.randrange(len(options))])
        step += 1
        if step % every == 0 or game.over:
            positions.append(game.clone())
    return positions


RULE_SETS = [
    Rules(),
    Rules(brutal=True),
    Rules(pass_actions=True, target_score=80),
    Rules(brutal=True, brutal_busted_scoring="zero", deal_skips_inactive=False, target_score=60),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: repr(r))
def test_view_json_round_trip_everywhere(rules: Rules) -> None:
    for seed in range(3):
        for game in _random_positions(seed, rules):
            for viewer in (None, *range(game.n)):
                view = game.view(viewer)
                data = view.to_json()
                text = json.dumps(data)
                assert GameView.from_json(json.loads(text)) == view


def test_view_does_not_depend_on_the_draw_pile_order() -> None:
    game = Game.new(["Ann", "Bob", "Cyd", "Dee"], seed=11)
    for _ in range(6):
        game.apply(game.legal_decisions()[0])
    pile = list(game.draw_pile)
    random.Random(1).shuffle(pile)
    other = game.clone(draw_pile=pile)  # same public state, other hidden order
    assert other.draw_pile != game.draw_pile
    for viewer in (None, 0, 1, 2, 3):
        assert game.view(viewer) == other.view(viewer)
        assert game.view(viewer).to_json() == other.view(viewer).to_json()


def test_view_json_names_no_hidden_state() -> None:
    game = Game.new(4, seed=3)
    data = game.view(game.to_decide).to_json()
    text = json.dumps(data)
    for hidden in ("seed", "rng", "random", "draw_pile\""):
        assert hidden not in text
    assert isinstance(data["draw_pile_size"], int)


def test_only_the_deciding_seat_sees_the_options() -> None:
    game = Game.new(4, seed=5)
    seat = game.to_decide
    assert seat is not None
    assert game.view(seat).legal_decisions == game.legal_decisions()
    for viewer in (None, *[s for s in range(4) if s != seat]):
        view = game.view(viewer)
        assert view.legal_decisions == ()
        assert view.to_decide == seat
        assert view.decision_kind is game.decision_kind


def test_seat_views_match_the_game() -> None:
    for game in _random_positions(8, Rules(brutal=True), players=5, every=2):
        view = game.view(None)
        assert [p.total for p in view.players] == list(game.totals)
        assert view.draw_pile_size == game.draw_pile_size
        assert view.discard_pile == game.discard_pile
        for p in view.players:
            assert p.line == game.line(p.seat)
            assert p.modifiers == game.modifiers(p.seat)
            assert p.status is game.status(p.seat)
            if p.status is Status.BUSTED:
                expected = busted_score(p.modifiers, brutal=True, modifiers_only=True)
            else:
                expected = round_score(
                    p.line, p.modifiers, flip7=False, brutal=True
                ) if len(p.line) < 7 else p.round_score
            assert p.round_score == expected


def test_view_of_a_bad_seat_is_an_error() -> None:
    game = Game.new(3, seed=1)
    with pytest.raises(GameStateError, match="viewer must be a seat"):
        game.view(3)
    with pytest.raises(GameStateError):
        game.view(-1)


def test_finished_game_view() -> None:
    game = Game.new(3, seed=2)
    while not game.over:
        game.apply(game.legal_decisions()[-1])
    view = game.view(None)
    assert view.over and view.winners == game.winners
    assert view.rounds == game.rounds
    assert view.to_decide is None and view.legal_decisions == ()


def _fields(decision: Decision) -> dict[str, object]:
    """What the decision's JSON object must say: its text, its verb (the text's first word,
    RECORD.md §5) and each field of its class, a card as its code."""
    out: dict[str, object] = {"text": str(decision), "verb": str(decision).split()[0]}
    for field in dataclasses.fields(decision):
        value = getattr(decision, field.name)
        out[field.name] = value.code if isinstance(value, Card) else value
    return out


def test_the_deciding_seat_is_sent_its_options_as_objects() -> None:
    """seat_view's ``decisions``: ``decisions[i]`` is ``legal_decisions[i]`` as an object
    with the decision's own fields, for every verb; no other view has the key."""
    seen: set[str] = set()
    verbs = {"hit", "stay", "target", "give", "pass", "steal", "swap", "discard", "bonus",
             "minus"}
    for seed in range(20):
        rng = random.Random(seed)
        game = Game.new(4, Rules(brutal=True, pass_actions=True), seed=seed)
        while not game.over:
            seat = game.to_decide
            assert seat is not None
            legal = game.legal_decisions()
            data = seat_view(game, seat, bust_odds=False)
            assert [d["text"] for d in data["decisions"]] == data["legal_decisions"]
            assert data["decisions"] == [_fields(d) for d in legal]
            assert [parse_decision(d["text"]) for d in data["decisions"]] == list(legal)
            seen.update(d["verb"] for d in data["decisions"])
            for viewer in (None, (seat + 1) % game.n):
                assert "decisions" not in seat_view(game, viewer)
            hit = [d for d in legal if d == HIT]
            game.apply(hit[0] if hit and rng.random() < 0.8 else rng.choice(legal))
        if seen == verbs:
            break
    assert seen == verbs


def test_each_decision_says_its_fields() -> None:
    swap = Swap(3, Card.parse("L13"), 1, Card.parse("/2"))
    assert swap.to_json() == {"text": "swap 1 /2 3 L13", "verb": "swap", "seat1": 1,
                              "card1": "/2", "seat2": 3, "card2": "L13"}
    for decision in (HIT, STAY, BONUS, Target(1), Give(0), Pass(2), Minus(3), swap,
                     Steal(2, Card.parse("13")), Discard(0, Card.parse("FLIP4"))):
        assert decision.to_json() == _fields(decision)
