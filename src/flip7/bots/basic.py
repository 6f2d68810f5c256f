"""``basic``: the first bot of the project, kept unchanged in its decisions.

It hits below a number sum of 27 and aims at the leader with card-by-card rules of thumb.
It reads the game through a :class:`~flip7.bots.public.PublicView` like every other bot.

>>> from flip7.engine.game import Game
>>> game = Game.new(4, seed=3)
>>> game.play([BasicBot(seed=s) for s in range(4)])
>>> game.over
True
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from flip7.bots.base import LadderBot
from flip7.bots.public import PublicView
from flip7.core.cards import PENALTY, VALUE, Card
from flip7.core.decisions import (
    BONUS,
    HIT,
    STAY,
    Decision,
    DecisionKind,
    Discard,
    Minus,
    Steal,
    Swap,
)
from flip7.core.lines import FLIP7_CARDS, busts, is_flip7, wipes
from flip7.core.scoring import FLIP7_BONUS
from flip7.engine.game import Status

__all__ = ["BasicBot"]

# Enum members as module constants: looking them up on the class is slow.
_C_DIVIDE_2 = Card.DIVIDE_2
_C_JUST_ONE_MORE = Card.JUST_ONE_MORE
_C_UNLUCKY_7 = Card.UNLUCKY_7
_K_DISCARD = DecisionKind.DISCARD
_K_FLIP7_CHOICE = DecisionKind.FLIP7_CHOICE
_K_GIVE = DecisionKind.GIVE
_K_HIT_OR_STAY = DecisionKind.HIT_OR_STAY
_K_PASS = DecisionKind.PASS
_K_STEAL = DecisionKind.STEAL
_K_SWAP = DecisionKind.SWAP
_K_TARGET = DecisionKind.TARGET
_S_ACTIVE = Status.ACTIVE
_S_BUSTED = Status.BUSTED

_FIRST_MODIFIER = _C_DIVIDE_2
_CARD_MOVES = (_K_STEAL, _K_SWAP, _K_DISCARD)


class BasicBot(LadderBot):
    """``basic``: the project's first bot, kept as it was (and fast: the bench and the web
    app's stand-in use it). Between R1 and R2 in strength.

    Hits below a number sum of 27 and aims its attacks at the leader.

    The leader is the other non-busted player with the highest running total (ties: the
    lowest seat). Flip Four! and Just One More! go to the leader (Just One More! to
    itself when its own line is near 27), Modifiers to the leader, and Steal, Swap and
    Discard pick the card move that most raises its own round score against the
    leader's, judged card by card (a duplicate counts as losing the line).
    """

    name = "basic"
    summary = "the first bot: hits below 27, aims at the leader card by card"
    # Declared so that Game.play makes this bot's Hit/Stay decisions without a call.
    hit_below = 27

    def decide(self, game: PublicView) -> Decision:
        kind = game.kind
        me = game.seat
        assert kind is not None
        if kind is _K_HIT_OR_STAY:
            return HIT if game.number_sum(me) < self.hit_below else STAY
        leader = _leader(game, me)
        if kind in _CARD_MOVES:
            return _best_card_move(game, kind, me, leader)
        options = game.options
        if kind is _K_TARGET:
            if (
                game.pending_card is _C_JUST_ONE_MORE
                and game.status(me) is _S_ACTIVE
                and (game.number_sum(me) >= self.hit_below - 7 or leader is None)
            ):
                return _pick(options, me)
            return _pick(options, me if leader is None else leader)
        if kind is _K_GIVE:
            # Every Modifier of this deck hurts its holder.
            victim = _leader(game, me, busted_too=True) if game.rules.brutal else leader
            return _pick(options, me if victim is None else victim)
        if kind is _K_PASS:
            return _pick(options, me)
        if kind is _K_FLIP7_CHOICE:
            totals = game.totals
            if leader is not None and Minus(leader) in options and totals[leader] >= totals[me]:
                return Minus(leader)
            return BONUS
        return options[0]


def _pick(options: Sequence[Decision], seat: int) -> Decision:
    """The option naming ``seat`` (Target, Give, Pass), else the first."""
    for option in options:
        if getattr(option, "seat", None) == seat:
            return option
    return options[0]


def _leader(game: PublicView, me: int, *, busted_too: bool = False) -> int | None:
    """The other player with the highest running total (ties: the lowest seat)."""
    for seat in _ranking(game.totals):
        if seat != me and (busted_too or game.status(seat) is not _S_BUSTED):
            return seat
    return None


@functools.lru_cache(maxsize=4096)
def _ranking(totals: tuple[int, ...]) -> tuple[int, ...]:
    """Seats from the highest running total down (the totals change once a round)."""
    return tuple(sorted(range(len(totals)), key=totals.__getitem__, reverse=True))


def _gain(
    line: Sequence[Card], total: int, out: Card | None, into: Card | None, wipe: bool, count: int
) -> int:
    """Roughly how the round score of a line (``line``, number sum ``total``) changes when
    ``out`` leaves it and ``into`` arrives: card values, a Modifier's bite, a bust costing
    the whole line. ``wipe``: whether Unlucky 7 wipes a line it reaches by Steal or Swap
    (§4.4.5); ``count``: the rules' ``lucky13_pair_flip7_count``.

    >>> _gain((Card.FIVE, Card.NINE), 14, Card.NINE, Card.FIVE, True, 2)
    -14
    >>> _gain((Card.FIVE, Card.NINE), 14, Card.DIVIDE_2, Card.TEN, True, 2)
    17
    """
    numbers = line
    if out is None:
        gain = 0
    elif out >= _FIRST_MODIFIER:
        gain = total // 2 if out is _C_DIVIDE_2 else PENALTY[out]
    elif into is None:
        return -VALUE[out]
    else:
        rest = list(line)
        rest.remove(out)
        numbers = rest
        gain = -VALUE[out]
    if into is None:
        return gain
    if into >= _FIRST_MODIFIER:
        return gain - (total // 2 if into is _C_DIVIDE_2 else PENALTY[into])
    if into is _C_UNLUCKY_7 and wipe:
        return VALUE[into] - total
    if busts(numbers, into):
        return -total
    gain += VALUE[into]
    if len(numbers) + 1 >= FLIP7_CARDS and is_flip7([*numbers, into], count):
        gain += FLIP7_BONUS
    return gain


class _Judge:
    """Scores card moves for one decision; each line is read from the game once."""

    def __init__(self, game: PublicView, me: int, leader: int | None) -> None:
        self.game = game
        self.me = me
        self.leader = leader
        self.lines: dict[int, tuple[tuple[Card, ...], int]] = {}
        rules = game.rules
        self.wipe = wipes(_C_UNLUCKY_7, rules, transfer=True)
        self.flip7_count = rules.lucky13_pair_flip7_count

    def line(self, seat: int) -> tuple[tuple[Card, ...], int]:
        """``seat``'s Number cards and their sum."""
        known = self.lines.get(seat)
        if known is None:
            known = self.lines[seat] = (self.game.line(seat), self.game.number_sum(seat))
        return known

    def weight(self, seat: int) -> float:
        return 1.0 if seat == self.me else -1.0 if seat == self.leader else -0.5

    def gain(self, seat: int, out: Card | None, into: Card | None) -> int:
        """:func:`_gain` of ``seat``'s line."""
        line, total = self.line(seat)
        return _gain(line, total, out, into, self.wipe, self.flip7_count)


def _best_card_move(game: PublicView, kind: DecisionKind, me: int, leader: int | None) -> Decision:
    """Steal, Swap or Discard: the move between us and the leader with the best sum of our
    gain and the leader's loss. Only when there is none are all legal moves weighed (other
    players counting half)."""
    judge = _Judge(game, me, leader)
    if leader is not None:
        # The leader's lines, read once, and _gain called directly: this runs at every
        # Steal, Swap and Discard of a simulation.
        wipe, count = judge.wipe, judge.flip7_count
        my_line, my_total = judge.line(me)
        their_line, their_total = judge.line(leader)
        theirs = dict.fromkeys(their_line + game.modifiers_of(leader))
        best: tuple[int, Card, Card | None] | None = None
        best_value: float = float("-inf")
        if kind is _K_STEAL:
            for card in theirs:
                value = _gain(my_line, my_total, None, card, wipe, count) - _gain(
                    their_line, their_total, card, None, wipe, count
                )
                if value > best_value:
                    best, best_value = (leader, card, None), value
            if best is not None:
                return Steal(best[0], best[1])
        elif kind is _K_DISCARD:
            for card in theirs:
                value = -_gain(their_line, their_total, card, None, wipe, count)
                if value > best_value:
                    best, best_value = (leader, card, None), value
            for card in dict.fromkeys(game.modifiers_of(me)):
                value = _gain(my_line, my_total, card, None, wipe, count)
                if value > best_value:
                    best, best_value = (me, card, None), value
            if best is not None:
                return Discard(best[0], best[1])
        else:
            # Worth giving: our Modifiers and lowest Number; worth taking: their highest
            # Numbers (their Modifiers only when they hold no Number).
            cross = game.rules.swap_allow_cross_type
            ours: list[Card] = list(dict.fromkeys(game.modifiers_of(me)))
            if my_line:
                ours.append(min(my_line, key=VALUE.__getitem__))  # the first of the lowest
            wanted = sorted(
                (c for c in theirs if c < _FIRST_MODIFIER), key=VALUE.__getitem__, reverse=True
            )[:3] or list(theirs)
            for mine_card in ours:
                for their_card in wanted:
                    if cross or (mine_card < _FIRST_MODIFIER) == (their_card < _FIRST_MODIFIER):
                        value = _gain(
                            my_line, my_total, mine_card, their_card, wipe, count
                        ) - _gain(their_line, their_total, their_card, mine_card, wipe, count)
                        if value > best_value:
                            best, best_value = (me, mine_card, their_card), value
            if best is not None and best[2] is not None:
                return Swap(me, best[1], leader, best[2])
    gain = judge.gain
    weight = judge.weight
    if kind is _K_SWAP and leader is not None:
        # Only the Swaps with the leader are weighed (below): listed by themselves, not
        # picked out of every Swap of the table (thousands with 18 players).
        best_swap: Swap | None = None
        best_score = float("-inf")
        for swap in game.swaps(leader):
            s1, c1, s2, c2 = swap.seat1, swap.card1, swap.seat2, swap.card2
            swap_score = weight(s1) * gain(s1, c1, c2) + weight(s2) * gain(s2, c2, c1)
            if swap_score > best_score:
                best_swap, best_score = swap, swap_score
        # None with the leader: the first legal Swap, as the loop below would keep.
        return best_swap if best_swap is not None else next(game.swaps())
    options = game.options
    chosen, chosen_score = options[0], float("-inf")
    for decision in options:
        score: float
        if isinstance(decision, Steal):
            victim, card = decision.seat, decision.card
            score = gain(me, None, card) + weight(victim) * gain(victim, card, None)
        elif isinstance(decision, Discard):
            score = weight(decision.seat) * gain(decision.seat, decision.card, None)
        elif isinstance(decision, Swap):
            s1, c1, s2, c2 = decision.seat1, decision.card1, decision.seat2, decision.card2
            score = weight(s1) * gain(s1, c1, c2) + weight(s2) * gain(s2, c2, c1)
        else:
            continue
        if score > chosen_score:
            chosen, chosen_score = decision, score
    return chosen

