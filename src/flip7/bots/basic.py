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
    discard_of,
    steal_of,
    swap_of,
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
_NOTHING = float("-inf")
_VALUE_OF = VALUE.__getitem__


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
        # The kinds by how often they come (Hit/Stay is the engine's, from hit_below).
        if kind is _K_GIVE:
            # Every Modifier of this deck hurts its holder. The options name every seat
            # that may get it (§7.2: the players still in; Brutal: everyone), the seats
            # the leader is looked for among.
            aimed, mine = _aim(game.options, game.totals, me)
            return aimed or mine or game.options[0]
        if kind is _K_TARGET:
            # The options name the players still in: the leader is one of them.
            aimed, mine = _aim(game.options, game.totals, me)
            if (
                game.pending_card is _C_JUST_ONE_MORE
                and game.status(me) is _S_ACTIVE
                and (game.number_sum(me) >= self.hit_below - 7 or aimed is None)
            ):
                return mine or game.options[0]
            return aimed or mine or game.options[0]
        if kind is _K_HIT_OR_STAY:
            return HIT if game.number_sum(me) < self.hit_below else STAY
        leader = _leader(game, me)
        if kind in _CARD_MOVES:
            return _best_card_move(game, kind, me, leader)
        options = game.options
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


def _aim(
    options: Sequence[Decision], totals: tuple[int, ...], me: int
) -> tuple[Decision | None, Decision | None]:
    """Of options that name a seat (Target, Give, Pass): the one naming the other seat with
    the highest running total (ties: the lowest seat), and the one naming ``me``."""
    leader: Decision | None = None
    mine: Decision | None = None
    top = 0
    for option in options:
        seat = option.seat  # type: ignore[union-attr]  # Target, Give and Pass name one
        if seat == me:
            mine = option
        elif leader is None or totals[seat] > top:
            leader, top = option, totals[seat]
    return leader, mine


def _leader(game: PublicView, me: int, *, busted_too: bool = False) -> int | None:
    """The other player with the highest running total (ties: the lowest seat)."""
    totals = game.totals
    best: int | None = None
    top = 0
    for seat in range(len(totals)) if busted_too else game.live():
        if seat != me and (best is None or totals[seat] > top):
            best, top = seat, totals[seat]
    return best


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


def _arrives(
    line: Sequence[Card], total: int, card: Card, wipe: bool, count: int, out: Card | None = None
) -> int:
    """:func:`_gain` of Number card ``card`` arriving at a line of ``line`` (number sum
    ``total``), where Number card ``out`` (if any) has just left it: ``line`` is then the
    line without ``out``, and ``total`` still counts it.

    >>> _arrives((Card.FIVE, Card.NINE), 14, Card.TEN, True, 2)
    10
    >>> _arrives((Card.FIVE, Card.NINE), 14, Card.FIVE, True, 2)
    -14
    >>> _arrives([Card.NINE], 14, Card.TEN, True, 2, out=Card.FIVE)
    5
    """
    if card is _C_UNLUCKY_7 and wipe:
        return VALUE[card] - total
    if busts(line, card):
        return -total
    gain = VALUE[card] if out is None else VALUE[card] - VALUE[out]
    if len(line) + 1 >= FLIP7_CARDS and is_flip7([*line, card], count):
        return gain + FLIP7_BONUS
    return gain


class _Judge:
    """Scores card moves for one decision; each line is read from the game once."""

    def __init__(
        self, game: PublicView, me: int, leader: int | None, wipe: bool, flip7_count: int
    ) -> None:
        self.game = game
        self.me = me
        self.leader = leader
        self.lines: dict[int, tuple[tuple[Card, ...], int]] = {}
        self.wipe = wipe
        self.flip7_count = flip7_count

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
    rules = game.rules
    wipe = wipes(_C_UNLUCKY_7, rules, transfer=True)
    count = rules.lucky13_pair_flip7_count
    if leader is not None:
        # This runs at every Steal, Swap and Discard of a simulation: the lines are read
        # once, and the gains of a card that only leaves or only arrives are worked out
        # here (what _gain would give) instead of calling it.
        my_line, my_total = game.line(me), game.number_sum(me)
        their_line, their_total = game.line(leader), game.number_sum(leader)
        their_mods = game.modifiers_of(leader)
        theirs = dict.fromkeys(their_line + their_mods if their_mods else their_line)
        best_card: Card | None = None
        best_value = _NOTHING
        if kind is _K_STEAL:
            for card in theirs:
                if card >= _FIRST_MODIFIER:
                    # Ours bites us as much as it stops biting them.
                    bite = my_total // 2 if card is _C_DIVIDE_2 else PENALTY[card]
                    value = -bite - (their_total // 2 if card is _C_DIVIDE_2 else PENALTY[card])
                else:
                    value = _arrives(my_line, my_total, card, wipe, count) + VALUE[card]
                if value > best_value:
                    best_card, best_value = card, value
            if best_card is not None:
                return steal_of(leader, best_card)
        elif kind is _K_DISCARD:
            best_seat = leader
            for card in theirs:
                if card >= _FIRST_MODIFIER:
                    value = -(their_total // 2 if card is _C_DIVIDE_2 else PENALTY[card])
                else:
                    value = VALUE[card]
                if value > best_value:
                    best_card, best_value = card, value
            my_mods = game.modifiers_of(me)
            for card in dict.fromkeys(my_mods) if my_mods else ():
                value = my_total // 2 if card is _C_DIVIDE_2 else PENALTY[card]
                if value > best_value:
                    best_seat, best_card, best_value = me, card, value
            if best_card is not None:
                return discard_of(best_seat, best_card)
        elif theirs:
            # Worth giving: our Modifiers and lowest Number; worth taking: their highest
            # Numbers (their Modifiers only when they hold no Number).
            cross = rules.swap_allow_cross_type
            my_mods = game.modifiers_of(me)
            ours = list(dict.fromkeys(my_mods)) if my_mods else []
            if my_line:
                ours.append(min(my_line, key=_VALUE_OF))  # the first of the lowest
            if their_line:
                wanted = sorted(dict.fromkeys(their_line), key=_VALUE_OF, reverse=True)[:3]
            else:
                wanted = list(theirs)
            best_pair: tuple[Card, Card] | None = None
            for mine_card in ours:
                mine_is_number = mine_card < _FIRST_MODIFIER
                if mine_is_number:
                    my_rest = list(my_line)
                    my_rest.remove(mine_card)
                for their_card in wanted:
                    if mine_is_number and their_card < _FIRST_MODIFIER:
                        # Number for Number, the common Swap: each line's rest receives a card.
                        their_rest = list(their_line)
                        their_rest.remove(their_card)
                        value = _arrives(
                            my_rest, my_total, their_card, wipe, count, mine_card
                        ) - _arrives(their_rest, their_total, mine_card, wipe, count, their_card)
                    elif cross or mine_is_number == (their_card < _FIRST_MODIFIER):
                        value = _gain(
                            my_line, my_total, mine_card, their_card, wipe, count
                        ) - _gain(their_line, their_total, their_card, mine_card, wipe, count)
                    else:
                        continue
                    if value > best_value:
                        best_pair, best_value = (mine_card, their_card), value
            if best_pair is not None:
                return swap_of(me, best_pair[0], leader, best_pair[1])
        else:
            # The leader holds nothing to swap: no Swap with the leader to weigh below.
            return next(game.swaps())
    if kind is _K_SWAP and leader is not None:
        # Only the Swaps with the leader are weighed (below): listed by themselves, not
        # picked out of every Swap of the table (thousands with 18 players). Each line is
        # read once; a seat weighs as _Judge.weight says.
        lines = {seat: (game.line(seat), game.number_sum(seat)) for seat in game.live()}
        weights = {me: 1.0, leader: -1.0}
        best_swap: Swap | None = None
        best_score = _NOTHING
        for swap in game.swaps(leader):
            s1, c1, s2, c2 = swap.seat1, swap.card1, swap.seat2, swap.card2
            line1, total1 = lines[s1]
            line2, total2 = lines[s2]
            swap_score = weights.get(s1, -0.5) * _gain(
                line1, total1, c1, c2, wipe, count
            ) + weights.get(s2, -0.5) * _gain(line2, total2, c2, c1, wipe, count)
            if swap_score > best_score:
                best_swap, best_score = swap, swap_score
        # None with the leader: the first legal Swap, as the loop below would keep.
        return best_swap if best_swap is not None else next(game.swaps())
    judge = _Judge(game, me, leader, wipe, count)
    gain = judge.gain
    weight = judge.weight
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

