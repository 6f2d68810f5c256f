"""Game.fork: a cheap independent copy of a game (what search bots play forward in)."""

from __future__ import annotations

import copy
import random

from flip7.bots import make_bot
from flip7.bots.public import PublicView
from flip7.core.cards import Card
from flip7.core.decisions import DecisionKind
from flip7.engine.game import Game


def cards(*codes: str) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in codes)


def flip_four_in_progress() -> Game:
    """Explicit chance: seat 1 is under a Flip Four with −4 and Steal set aside, one draw
    left to come."""
    game = Game.new(3, explicit=True, dealer=2)
    for step in ["5", "6", "8", "hit", "FLIP4", "target 1", "-4", "STEAL", "3"]:
        if game.needs_card:
            game.draw(step)
        else:
            game.apply(step)
    assert game.needs_card and game.set_aside() == cards("FLIP4", "-4", "STEAL")
    return game


def play_out(game: Game, seed: int) -> None:
    bots = [make_bot("targeting", seed=seed + s) for s in range(game.n)]
    while not game.over:
        game.apply(bots[game.to_decide or 0].choose(game))


def at_an_action(seed: int) -> Game:
    """A random game stopped at a decision other than Hit/Stay, in round 2 or later."""
    game = Game.new(5, seed=seed, events=False)
    bots = [make_bot("targeting", seed=s) for s in range(5)]
    while game.decision_kind is DecisionKind.HIT_OR_STAY or game.round < 2:
        game.apply(bots[game.to_decide or 0].choose(game))
    return game


def test_a_fork_is_independent_of_the_original() -> None:
    game = at_an_action(9)
    before = (game.view(None), game.draws, game.decisions, game.draw_pile)
    fork = game.fork()
    assert fork.view(None) == game.view(None) and fork.legal_decisions() == game.legal_decisions()
    play_out(fork, 1)
    assert fork.over and not game.over
    assert (game.view(None), game.draws, game.decisions, game.draw_pile) == before
    # And the other way round: the original plays on, the fork stays where it is.
    fork2 = game.fork()
    snapshot = fork2.view(None)
    play_out(game, 2)
    assert fork2.view(None) == snapshot


def test_flip_four_frames_are_copied_once() -> None:
    """A Flip Four's frame (its cards set aside, its draws left) is shared by the pending
    draw and the Flip Four's step: the fork copies it once, for both, and apart from the
    original's. Seen from outside: the card the fork draws is set aside by the fork's Flip
    Four alone, and that Flip Four then ends, as the original's does on its last card."""
    game = flip_four_in_progress()
    fork = game.fork()
    assert fork.needs_card and fork.set_aside() == game.set_aside()
    fork.draw("-2")  # the last card of the fork's Flip Four: set aside, then resolved
    assert fork.decision_kind is DecisionKind.GIVE and fork.pending_card is Card.MINUS_4
    assert game.needs_card and game.set_aside() == cards("FLIP4", "-4", "STEAL")
    game.draw("3")  # the original busts seat 1: its set-aside cards are discarded
    assert game.line(1) == cards("6", "3", "3") and game.set_aside() == ()
    assert game.discard_pile == cards("FLIP4", "-4", "STEAL") and not game.needs_card
    # The fork resolves its set-aside cards in order: −4 first (pending), then Steal, −2.
    assert fork.set_aside() == cards("FLIP4", "-2", "STEAL", "-4")
    assert fork.line(1) == cards("6", "3") and fork.modifiers(1) == ()


def test_a_flip_four_from_a_flip_four_shares_nothing_with_the_original() -> None:
    game = Game.new(3, explicit=True, dealer=2)
    steps = ["5", "6", "8", "hit", "FLIP4", "target 1", "FLIP4", "1", "2", "4", "target 2", "-4"]
    for step in steps:
        if game.needs_card:
            game.draw(step)
        else:
            game.apply(step)
    # The first Flip Four waits to be discarded; the second, on seat 2, has −4 set aside.
    assert game.needs_card and game.set_aside() == cards("FLIP4", "FLIP4", "-4")
    fork = game.fork()
    assert fork.needs_card and fork.set_aside() == game.set_aside()
    for code in ["7", "9", "10"]:
        fork.draw(code)
    assert fork.decision_kind is DecisionKind.GIVE and fork.to_decide == 2
    assert fork.line(2) == cards("8", "7", "9", "10")
    assert game.needs_card and game.set_aside() == cards("FLIP4", "FLIP4", "-4")
    assert game.line(2) == cards("8")
    # The original's Flip Four still has all its cards to come: given the same cards, it
    # goes exactly where the fork went.
    for code in ["7", "9", "10"]:
        game.draw(code)
    assert game.view(None) == fork.view(None)
    assert game.legal_decisions() == fork.legal_decisions()


def test_the_same_pile_and_rng_give_the_same_continuation() -> None:
    game = at_an_action(4)
    pile = list(game.draw_pile)
    fork = game.fork(draw_pile=pile, rng=random.Random(3))
    clone = game.clone(draw_pile=pile, rng=random.Random(3))
    again = game.fork()  # the game's own pile and a copy of its random state
    deep = copy.deepcopy(game)  # the same, copied without fork
    for each in (fork, clone, again, deep):
        each.play([make_bot("ev", seed=s) for s in range(5)])
    assert fork.totals == clone.totals and fork.winners == clone.winners
    assert fork.draws == clone.draws[len(game.draws) :]
    assert fork.decisions == clone.decisions[len(game.decisions) :]
    assert again.totals == deep.totals and again.winners == deep.winners
    assert again.draws == deep.draws[len(game.draws) :]
    assert again.decisions == deep.decisions[len(game.decisions) :]
    play_out(game, 0)
    assert game.over and again.over
    fork2 = at_an_action(4).fork()
    fork2.play([make_bot("ev", seed=s) for s in range(5)])
    assert again.totals == fork2.totals  # a copied random state: the same future


def test_the_given_pile_and_rng_are_used() -> None:
    game = Game.new(4, seed=2, events=False)
    future = game.fork()  # the game's own continuation
    play_out(future, 0)
    pile = sorted(game.draw_pile)
    rng = random.Random(5)
    fork = game.fork(draw_pile=pile, rng=rng)
    pile.reverse()  # the fork holds a copy of the pile given
    assert fork.draw_pile == tuple(sorted(game.draw_pile)) != game.draw_pile
    state = rng.getstate()
    play_out(fork, 0)
    assert len(fork.draws) > len(pile)  # past a reshuffle: the fork's generator was used
    assert rng.getstate() != state  # the generator given, taken as it is (not a copy)
    # The game keeps its own generator: its continuation is what it was.
    again = game.fork()
    play_out(again, 0)
    assert (again.draws, again.totals) == (future.draws, future.totals)


def test_events_are_off_by_default_and_logs_start_empty() -> None:
    game = Game.new(4, seed=11)
    assert game.take_events()
    fork = game.fork()
    assert fork.take_events() == [] and fork.draws == () and fork.decisions == ()
    assert fork.apply(fork.legal_decisions()[0]) == []
    loud = game.fork(events=True)
    clone = game.clone()
    decision = clone.legal_decisions()[0]
    assert loud.apply(decision) == clone.apply(decision) != []
    assert loud.draws == clone.draws[len(game.draws) :] and loud.draws


def test_clone_keeps_the_logs_and_unclaimed_events() -> None:
    game = Game.new(3, seed=8)
    clone = game.clone()
    assert clone.draws == game.draws and clone.take_events() == game.take_events() != []


def test_an_explicit_fork_given_an_rng_draws_the_card_it_waits_for() -> None:
    game = flip_four_in_progress()
    pile = list(game.draw_pile)
    assert game.fork().needs_card and game.fork().explicit
    fork = game.fork(draw_pile=[*pile, Card.NINE], rng=random.Random(0))
    assert not fork.needs_card and not fork.explicit
    assert fork.draws == cards("9") and fork.line(1) == cards("6", "3", "9")
    assert fork.decision_kind is DecisionKind.GIVE  # the −4 resolves first
    assert game.needs_card and game.draws[-1] == Card.THREE


def test_a_fork_at_a_steal_lists_the_same_options() -> None:
    for seed in range(200):
        game = Game.new(4, seed=seed, events=False)
        bots = [make_bot("basic", seed=s) for s in range(4)]
        while not game.over and game.decision_kind not in (
            DecisionKind.STEAL, DecisionKind.SWAP, DecisionKind.DISCARD,
        ):  # fmt: skip
            game.apply(bots[game.to_decide or 0].choose(game))
        if not game.over:
            break
    else:
        raise AssertionError("no Steal, Swap or Discard with a choice in 200 games")
    # The options are listed on demand; the pending decision is shared, and so are they.
    before = game.decisions
    fork = game.fork()
    options = fork.legal_decisions()
    assert len(options) >= 2 and game.legal_decisions() == options
    fork.apply(options[-1])
    seat = game.to_decide
    assert game.legal_decisions() == options and game.decisions == before
    assert fork.decisions == (options[-1],) and seat is not None
    game.apply(options[0])
    assert game.decisions == (*before, options[0])


def test_sample_games_are_forks_on_the_public_pile() -> None:
    game = at_an_action(6)
    view = PublicView(game)
    a, b = view.sample_games(random.Random(1), 2)
    assert a.draw_pile == b.draw_pile
    assert sorted(a.draw_pile) == sorted(game.draw_pile)
    assert a.view(0) == game.view(0) and a.draws == ()
    again = PublicView(game).sample_games(random.Random(1), 1)[0]
    assert again.draw_pile == a.draw_pile  # seeded: the same sample
    pile = b.draw_pile
    play_out(a, 0)  # each sample has a pile of its own
    assert b.draw_pile == pile and a.draws
