"""The judge: what every legal use of an Action or a Modifier does to the lines on the table.

Each seat's line has a *value*, its expected round score: a busted line scores what it
scores (0 in standard mode), a stayed line its score as it stands, and an Active line what
it is worth if its player hits on below a number sum of 27 (from a full deck,
:func:`flip7.bots.lines.continuation`). A use of a card changes some of those values:

* a Modifier given: the holder's line with it;
* Just One More!: one card drawn (over the draw pile's composition), then the target stays;
* Flip Four!: four cards drawn, a bust on the first duplicate, Flip 7 on the seventh Number
  (the chances of the four draws are counted as sets, as generating functions do);
* Steal, Swap, Discard: the lines with the cards moved, a duplicate busting its receiver,
  Unlucky 7 wiping, Flip 7 (+15).

An option is worth the sum over seats of ``weight[seat] * change in value``; the judge
picks the best. The weights say whose points matter: +1 for the bot itself, negative for
opponents (the leader most).

>>> from flip7.engine.game import Game
>>> from flip7.bots.public import PublicView
>>> game = Game.new(3, explicit=True, dealer=2)
>>> for code in ["12", "5", "-4"]:
...     _ = game.draw(code)
>>> view = PublicView(game)             # seat 2 gives the -4 it was dealt
>>> judge = Judge(view, [-1.0, -0.3, 1.0], view.pile)
>>> [(str(d), round(judge.worth(d), 1)) for d in view.options]
[('give 0', 4.0), ('give 1', 1.2), ('give 2', -4.0)]
>>> str(judge.best(view.options))
'give 0'
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from math import comb, factorial

from flip7.analysis.solver import flip7_reached
from flip7.bots.lines import (
    BUST,
    NUMBER_SLOTS,
    continuation,
    gain_after,
    hit_once,
    key_count,
    key_sum,
    modifier_effects,
    receive,
    score,
    try_key,
)
from flip7.bots.public import PublicView
from flip7.core.cards import PENALTY, VALUE, Card
from flip7.core.decisions import (
    Bonus,
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
from flip7.core.lines import FLIP7_CARDS, wipes
from flip7.core.scoring import FLIP7_BONUS, busted_score
from flip7.engine.game import Status

__all__ = ["USES_WITHIN", "Judge", "leader_weights"]

USES_WITHIN = 20.0
"""Uses of an Action or Modifier that the judge puts this many points (of its weighted
damage) below its best are not worth a second look: R5 does not search them."""

_DIVIDE_2 = Card.DIVIDE_2
_FIRST_MODIFIER = Card.DIVIDE_2
_FIRST_ACTION = Card.JUST_ONE_MORE
_ACTIVE = Status.ACTIVE
_BUSTED = Status.BUSTED
_K_TARGET = DecisionKind.TARGET
_K_GIVE = DecisionKind.GIVE
_K_PASS = DecisionKind.PASS
_K_FLIP7_CHOICE = DecisionKind.FLIP7_CHOICE
# Value classes for "two cards of one value": the 7s together, the 13s together.
_CLASS = tuple(VALUE[s] for s in range(NUMBER_SLOTS))


def leader_weights(view: PublicView, values: Sequence[float], spread: float = 40.0) -> list[float]:
    """+1 for the bot; for each opponent a negative weight, -1 for the leader (the one with
    the most points, counting the value of its line this round) and less the further an
    opponent is behind the leader (down to -0.15 at ``spread`` points behind).

    >>> class View:
    ...     seat, n, totals = 0, 4, (50, 120, 100, 40)
    >>> leader_weights(View(), [0.0] * 4)
    [1.0, -1.0, -0.5, -0.15]
    """
    me = view.seat
    threat = [view.totals[s] + values[s] for s in range(view.n)]
    best = max((threat[s] for s in range(view.n) if s != me), default=0.0)
    return [
        1.0 if s == me else -max(0.15, 1.0 - (best - threat[s]) / spread) for s in range(view.n)
    ]


@functools.lru_cache(maxsize=1 << 16)
def _line_value(
    numbers: tuple[Card, ...],
    mods: tuple[Card, ...],
    active: bool,
    flip7: bool,
    brutal: bool,
    distinct: bool,
    modifiers_count: bool,
) -> float:
    key = try_key(numbers)
    if key == BUST:
        return float(busted_score(mods, brutal=brutal, modifiers_only=modifiers_count))
    divides = 0
    penalty = 0
    for card in mods:
        if card is _DIVIDE_2:
            divides += 1
        else:
            penalty += PENALTY[card]
    if flip7 or flip7_reached(key, distinct=distinct):
        return score(key, divides=divides, penalty=penalty, brutal=brutal, flip7=True)
    if not active:
        return score(key, divides=divides, penalty=penalty, brutal=brutal)
    value = continuation(key)
    if divides or penalty:
        value = value / (1 << divides) - penalty
        if value < 0 and not brutal:
            value = 0.0
    return value


class Judge:
    """Values every line of ``view`` and weighs the options of its decision.

    ``pile`` is the composition the draws are judged over (27 counts). ``weights`` (one per
    seat) may be set after construction: they often depend on :attr:`values`.
    """

    def __init__(self, view: PublicView, weights: Sequence[float], pile: Sequence[int]) -> None:
        self.view = view
        self.weights = list(weights)
        rules = view.rules
        self.brutal = rules.brutal
        self.distinct = rules.lucky13_pair_flip7_count == 1
        self.rules = rules
        self.modifiers_count = rules.busted_modifiers_count
        if not sum(pile):
            pile = view.discard
        self.pile = pile
        self._values: list[float] | None = None
        self._draw_worth: dict[Card, float] = {}
        self._moves: dict[tuple[int, Card | None, Card | None], float] = {}

    # ------------------------------------------------------------------ values

    def line_value(
        self, numbers: Sequence[Card], mods: Sequence[Card], active: bool, flip7: bool = False
    ) -> float:
        """The expected round score of a line (``active``: its player plays on)."""
        return _line_value(
            tuple(numbers), tuple(mods), active, flip7, self.brutal, self.distinct,
            self.modifiers_count,
        )  # fmt: skip

    def _busted(self, mods: Sequence[Card]) -> float:
        return float(busted_score(mods, brutal=self.brutal, modifiers_only=self.modifiers_count))

    @property
    def values(self) -> list[float]:
        """Every seat's line value now."""
        if self._values is None:
            view = self.view
            self._values = [
                self._busted(view.modifiers[s]) if view.statuses[s] is _BUSTED
                else self.line_value(view.lines[s], view.modifiers[s],
                                     view.statuses[s] is _ACTIVE)
                for s in range(view.n)
            ]  # fmt: skip
        return self._values

    def after_move(self, seat: int, out: Card | None, into: Card | None) -> float:
        """The value of ``seat``'s line once ``out`` leaves it and ``into`` arrives."""
        found = self._moves.get((seat, out, into))
        if found is not None:
            return found
        numbers, mods = self.line_after(seat, out, into)
        value = self.line_value(numbers, mods, self.view.statuses[seat] is _ACTIVE)
        self._moves[seat, out, into] = value
        return value

    def line_after(
        self, seat: int, out: Card | None, into: Card | None
    ) -> tuple[list[Card], list[Card]]:
        """``seat``'s Number cards and Modifiers once ``out`` leaves and ``into`` arrives."""
        view = self.view
        numbers = list(view.lines[seat])
        mods = list(view.modifiers[seat])
        if out is not None:
            (numbers if out < _FIRST_MODIFIER else mods).remove(out)
        if into is not None:
            if into >= _FIRST_MODIFIER:
                mods.append(into)
            elif wipes(into, self.rules, transfer=True):
                numbers, mods = [into], []
            else:
                numbers.append(into)
        return numbers, mods

    def after_modifier(self, seat: int, card: Card) -> float:
        view = self.view
        mods = (*view.modifiers[seat], card)
        if view.statuses[seat] is _BUSTED:
            return self._busted(mods)
        return self.line_value(view.lines[seat], mods, view.statuses[seat] is _ACTIVE)

    def _mods(self, seat: int) -> tuple[int, int]:
        divides, penalty = modifier_effects(self.view.modifiers[seat])
        return divides, penalty

    def after_just_one_more(self, seat: int) -> float:
        """One card over the pile's composition, then ``seat`` stays."""
        view = self.view
        key = try_key(view.lines[seat])
        if key == BUST:
            return self._busted(view.modifiers[seat])
        divides, penalty = self._mods(seat)
        counts = self.pile
        expected, _, cards = hit_once(
            key, counts, divides=divides, penalty=penalty, brutal=self.brutal,
            distinct=self.distinct,
            bust_score=int(self._busted(view.modifiers[seat])),
        )  # fmt: skip
        stay = score(key, divides=divides, penalty=penalty, brutal=self.brutal)
        total = sum(counts)
        if not total:
            return float(stay)
        return (expected * cards + stay * (total - cards)) / total

    def after_flip_four(self, seat: int) -> float:
        """Four cards over the pile's composition (drawn with replacement), a bust on the
        first duplicate, Flip 7 at the seventh Number card; an Active target plays on."""
        view = self.view
        key = try_key(view.lines[seat])
        bust_value = self._busted(view.modifiers[seat])
        if key == BUST:
            return bust_value
        counts = self.pile
        total = sum(counts)
        if not total:
            return self.values[seat]
        divides, penalty = self._mods(seat)
        a = [0.0] * 14  # per value class: the chance of a card of it that the line can take
        b = [0.0] * 14  # the same weighted by the card's value
        numbers = 0
        for slot in range(NUMBER_SLOTS):
            c = counts[slot]
            if not c:
                continue
            numbers += c
            if receive(key, slot) != BUST:
                p = c / total
                a[_CLASS[slot]] += p
                b[_CLASS[slot]] += p * VALUE[slot]
        q = 1 - numbers / total
        e = [1.0, 0.0, 0.0, 0.0, 0.0]
        t = [0.0] * 5
        for v in range(14):
            if a[v]:
                for k in range(4, 0, -1):
                    t[k] += a[v] * t[k - 1] + b[v] * e[k - 1]
                    e[k] += a[v] * e[k - 1]
        cards = key_count(key)
        base = key_sum(key)
        need = FLIP7_CARDS - cards
        active = view.statuses[seat] is _ACTIVE
        zero = bool(key & 1)
        value = 0.0
        alive = 0.0
        for k in range(min(4, need - 1) + 1):
            p = comb(4, k) * q ** (4 - k) * factorial(k) * e[k]
            if p <= 0:
                continue
            alive += p
            new_sum = base + t[k] / e[k]
            if zero:
                worth = 0.0
            elif active:
                worth = new_sum + gain_after(new_sum, cards + k)
            else:
                worth = new_sum
            value += p * self._apply(worth, divides, penalty)
        if need <= 4:
            p = sum(comb(d - 1, need - 1) * q ** (d - need) for d in range(need, 5))
            p *= factorial(need) * e[need]
            if p > 0:
                alive += p
                new_sum = base + t[need] / e[need]
                value += p * (self._apply(new_sum, divides, penalty) + FLIP7_BONUS)
        return value + (1 - alive) * bust_value

    def _apply(self, total: float, divides: int, penalty: int) -> float:
        total = total / (1 << divides) - penalty
        return total if total > 0 or self.brutal else 0.0

    # ------------------------------------------------------------------ options

    def worth(self, decision: Decision, card: Card | None = None) -> float:
        """How much ``decision`` is worth to the bot: the weighted change of line values.
        ``card`` is the Modifier or Action it is about (by default the pending one)."""
        if isinstance(decision, Pass):
            return 1.0 if decision.seat == self.view.seat else 0.0
        if isinstance(decision, Minus):
            return -float(FLIP7_BONUS) * self.weights[decision.seat]
        if isinstance(decision, Bonus):
            return float(FLIP7_BONUS) * self.weights[self.view.seat]
        w = self.weights
        values = self.values
        return sum(w[s] * (after - values[s]) for s, after in self.changes(decision, card))

    def changes(self, decision: Decision, card: Card | None = None) -> list[tuple[int, float]]:
        """The line values that ``decision`` changes: (seat, value after) for each seat it
        touches (none for a Pass or a Flip 7 choice, which move no card)."""
        view = self.view
        if isinstance(decision, Give):
            card = card if card is not None else view.pending_card
            assert card is not None
            return [(decision.seat, self.after_modifier(decision.seat, card))]
        if isinstance(decision, Target):
            card = card if card is not None else view.pending_card
            s = decision.seat
            if card is Card.JUST_ONE_MORE:
                return [(s, self.after_just_one_more(s))]
            return [(s, self.after_flip_four(s))]
        return [(s, self.after_move(s, out, into)) for s, out, into in self.moves(decision)]

    def moves(self, decision: Decision) -> list[tuple[int, Card | None, Card | None]]:
        """The cards a Steal, Swap or Discard moves: (seat, card out of its line, card into
        it) for each line it touches; none for any other decision."""
        if isinstance(decision, Steal):
            return [(self.view.seat, None, decision.card), (decision.seat, decision.card, None)]
        if isinstance(decision, Swap):
            s1, c1, s2, c2 = decision.seat1, decision.card1, decision.seat2, decision.card2
            return [(s1, c1, c2), (s2, c2, c1)]
        if isinstance(decision, Discard):
            return [(decision.seat, decision.card, None)]
        return []

    def uses(self, card: Card) -> list[Decision]:
        """Every legal use of ``card`` if the bot drew it now (none: it is discarded)."""
        view = self.view
        me = view.seat
        live = view.live()
        if card < _FIRST_ACTION:
            seats = range(view.n) if self.brutal else live
            return [Give(s) for s in seats]
        if card is Card.JUST_ONE_MORE or card is Card.FLIP_FOUR:
            return [Target(s) for s in live]
        faces = {s: list(dict.fromkeys(view.lines[s] + view.modifiers[s])) for s in live}
        if card is Card.STEAL:
            return [Steal(s, c) for s in live if s != me for c in faces[s]]
        if card is Card.DISCARD:
            return [Discard(s, c) for s in live for c in faces[s]]
        cross = view.rules.swap_allow_cross_type
        out: list[Decision] = []
        for i, s1 in enumerate(live):
            for s2 in live[i + 1 :]:
                for c1 in faces[s1]:
                    for c2 in faces[s2]:
                        if cross or (c1 < _FIRST_MODIFIER) == (c2 < _FIRST_MODIFIER):
                            out.append(Swap(s1, c1, s2, c2))
        return out

    def draw_worth(self, card: Card) -> float:
        """What drawing ``card`` (a Modifier or an Action) is worth to the bot now: its
        best use (0 if it has none)."""
        found = self._draw_worth.get(card)
        if found is None:
            options = self.uses(card)
            found = max((self.worth(d, card) for d in options), default=0.0)
            self._draw_worth[card] = found
        return found

    def ranked(self, options: Sequence[Decision]) -> list[tuple[float, Decision]]:
        """The options with their worth, best first (ties keep the options' order)."""
        scored = [(self.worth(d), -i, d) for i, d in enumerate(options)]
        scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
        return [(value, d) for value, _, d in scored]

    def shortlist(
        self, options: Sequence[Decision], top: int, within: float
    ) -> list[tuple[float, Decision]]:
        """The ``top`` best options (at most) with their worth, best first, leaving out
        those more than ``within`` below the best: what R5 searches, and R6 weighs."""
        ranked = self.ranked(options)
        best = ranked[0][0] if ranked else 0.0
        return [(v, d) for v, d in ranked[:top] if v >= best - within]

    def best(self, options: Sequence[Decision]) -> Decision:
        best, best_value = options[0], float("-inf")
        for decision in options:
            value = self.worth(decision)
            if value > best_value:
                best, best_value = decision, value
        return best
