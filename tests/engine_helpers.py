"""Helpers shared by the engine tests: drive an explicit game move by move."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from flip7 import Card, Game, Record, Rules, deck_counts
from flip7.core.events import Event, RoundScored


def cards(*codes: str) -> tuple[Card, ...]:
    return tuple(Card.parse(c) for c in codes)


def play(game: Game, *moves: str) -> list[Event]:
    """Feed moves in order: a card code when a card is due, else a decision string."""
    events: list[Event] = []
    for move in moves:
        if game.needs_card:
            events += game.draw(move)
        else:
            assert game.to_decide is not None, f"nothing to decide for {move!r}"
            events += game.apply(move)
    return events


def of_type(events: list[Event], kind: type) -> list[Event]:
    return [e for e in events if isinstance(e, kind)]


def options(game: Game) -> list[str]:
    return [str(d) for d in game.legal_decisions()]


def scored(events: list[Event]) -> RoundScored:
    """The one RoundScored event among ``events``."""
    found = of_type(events, RoundScored)
    assert len(found) == 1, events
    event = found[0]
    assert isinstance(event, RoundScored)
    return event


def conserved(game: Game) -> bool:
    """Every card of the decks is in exactly one place: pile, discard, a line, set aside."""
    held: Counter[Card] = game.draw_pile_counts() + Counter(game.discard_pile)
    for seat in range(game.n):
        held += Counter(game.line(seat)) + Counter(game.modifiers(seat))
    held += Counter(game.set_aside())
    return held == deck_counts(game.decks)


def reshuffled(game: Game, seed: int) -> Game:
    """A clone with the same public state but a different hidden draw pile order (when the
    pile holds two different cards) and another random state."""
    pile = list(game.draw_pile)
    before = list(pile)
    random.Random(seed).shuffle(pile)
    if len(set(before)) > 1:
        while pile == before:
            random.Random(seed := seed + 1).shuffle(pile)
    return game.clone(draw_pile=pile, rng=random.Random(seed + 1))


def played_record(
    target: int = 200, most_decisions: int | None = None, seed: int = 3
) -> dict[str, Any]:
    """A game's record: players stay at once (short rounds, many of them), or pick at
    random when they cannot; cut after ``most_decisions`` (an unfinished game)."""
    game = Game.new(["Ann", "Bob", "Cyd"], Rules(target_score=target), seed=seed)
    rng = random.Random(seed)
    while not game.over and (most_decisions is None or len(game.decisions) < most_decisions):
        legal = game.legal_decisions()
        stay = [d for d in legal if str(d) == "stay"]
        game.apply(stay[0] if stay and rng.random() < 0.7 else rng.choice(legal))
    return Record.from_game(game).to_json()
