"""Bots: players that choose among the legal options using only what a seat can see.

A bot reads the table through the game's public accessors (lines, totals, statuses,
the legal options); it never looks at the draw pile's order or the random state.

>>> from flip7.game import Game
>>> game = Game.new(4, seed=3)
>>> bots = [make_bot("basic", seed=i) for i in range(4)]
>>> while not game.over:
...     _ = game.apply(bots[game.to_decide].choose(game))
>>> game.winners != ()
True
>>> sorted(BOTS)
['basic', 'random']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from flip7.cards import Card
from flip7.decisions import (
    BONUS,
    HIT,
    STAY,
    Decision,
    DecisionKind,
    Discard,
    Give,
    Minus,
    Pass,
    Steal,
    Swap,
    Target,
)
from flip7.errors import Flip7Error
from flip7.game import Game, Status
from flip7.scoring import has_duplicate, is_flip7, round_score

__all__ = ["BOTS", "BasicBot", "Bot", "RandomBot", "make_bot"]


class Bot(Protocol):
    """Anything that picks one of ``game.legal_decisions()`` for ``game.to_decide``."""

    name: str

    def choose(self, game: Game) -> Decision: ...


class RandomBot:
    """Picks uniformly among the legal options."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, game: Game) -> Decision:
        options = game.legal_decisions()
        return options[self._rng.randrange(len(options))]


class BasicBot:
    """Hits below a number sum of 27 and aims its attacks at the leader.

    Attacks (Flip Four!, Just One More!, Steal, Swap, Discard, Modifiers, the Brutal −15)
    are judged by how they change its own line's score against the leader's; the leader
    is the other player with the highest running total (ties: the bigger line).
    """

    name = "basic"
    stay_at = 27

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, game: Game) -> Decision:
        kind = game.decision_kind
        me = game.to_decide
        assert kind is not None and me is not None
        if kind is DecisionKind.HIT_OR_STAY:
            return HIT if game.number_sum(me) < self.stay_at else STAY
        options = game.legal_decisions()
        leader = _leader(game, me)
        if kind is DecisionKind.TARGET:
            # Just One More! (one card, then Stay) on ourselves when near our stop, else aim it.
            if (
                game.pending_card is Card.JUST_ONE_MORE
                and game.status(me) is Status.ACTIVE
                and (game.number_sum(me) >= self.stay_at - 7 or leader is None)
            ):
                return _pick(options, Target(me))
            return _pick(options, Target(leader if leader is not None else me))
        if kind is DecisionKind.PASS:
            return _pick(options, Pass(me))
        if kind is DecisionKind.FLIP7_CHOICE:
            if (
                leader is not None
                and Minus(leader) in options
                and game.totals[leader] >= game.totals[me]
            ):
                return Minus(leader)
            return BONUS
        return max(options, key=lambda d: _value(game, me, leader, d))


def _pick(options: Sequence[Decision], wanted: Decision) -> Decision:
    return wanted if wanted in options else options[0]


def _leader(game: Game, me: int) -> int | None:
    others = [s for s in range(game.n) if s != me and game.status(s) is not Status.BUSTED]
    if not others:
        return None
    return max(others, key=lambda s: (game.totals[s], game.number_sum(s)))


def _projected(game: Game, numbers: list[Card], modifiers: list[Card]) -> int:
    if has_duplicate(numbers):
        return 0
    flip7 = is_flip7(numbers, game.rules.lucky13_pair_flip7_count)
    return round_score(numbers, modifiers, flip7=flip7, brutal=game.rules.brutal)


def _value(game: Game, me: int, leader: int | None, decision: Decision) -> float:
    """Own projected round score gained, plus the leader's lost (others count half)."""
    lines = {s: (list(game.line(s)), list(game.modifiers(s))) for s in range(game.n)}
    before = {s: _projected(game, *lines[s]) for s in lines}

    def move(card: Card, src: int | None, dst: int | None) -> None:
        if src is not None:
            lines[src][0 if card.is_number else 1].remove(card)
        if dst is not None:
            if card is Card.UNLUCKY_7 and game.rules.unlucky7_triggers_on_transfer:
                lines[dst] = ([], [])
            lines[dst][0 if card.is_number else 1].append(card)

    if isinstance(decision, Steal):
        move(decision.card, decision.seat, me)
    elif isinstance(decision, Discard):
        move(decision.card, decision.seat, None)
    elif isinstance(decision, Swap):
        move(decision.card1, decision.seat1, None)
        move(decision.card2, decision.seat2, None)
        move(decision.card2, None, decision.seat1)
        move(decision.card1, None, decision.seat2)
    elif isinstance(decision, Give):
        card = game.pending_card
        if card is not None:
            move(card, None, decision.seat)
    value = 0.0
    for s in lines:
        delta = _projected(game, *lines[s]) - before[s]
        if s == me:
            value += delta
        elif s == leader:
            value -= delta
        else:
            value -= delta / 2
    return value


BOTS: dict[str, Callable[[int | None], Bot]] = {"random": RandomBot, "basic": BasicBot}


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by its registry name (``random``, ``basic``)."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise Flip7Error(f"unknown bot {name!r}; bots are {', '.join(sorted(BOTS))}") from None
    return factory(seed)
