"""The first rungs of the bot ladder: R0 random, R1 threshold, R2 targeting, R3 ev.

>>> from flip7.engine.game import Game
>>> game = Game.new(4, seed=3)
>>> game.play([EVBot(seed=1), TargetingBot(), ThresholdBot(seed=2, t=25), RandomBot(seed=3)])
>>> game.over
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ClassVar

from flip7.analysis.solver import NUMBER_SLOTS, LineModel, LineRules
from flip7.bots.base import LadderBot, Param
from flip7.bots.judge import Judge, leader_weights
from flip7.bots.lines import BUST, hit_once, modifier_effects, score, try_key
from flip7.bots.public import PublicView
from flip7.core.cards import Card
from flip7.core.decisions import (
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
from flip7.engine.game import Game, Status

__all__ = ["EVBot", "RandomBot", "TargetingBot", "ThresholdBot", "ev_hit"]

_K_HIT_OR_STAY = DecisionKind.HIT_OR_STAY
_BUSTED = Status.BUSTED
_MODS = slice(int(Card.DIVIDE_2), int(Card.DIVIDE_2) + 6)


class RandomBot(LadderBot):
    """R0: picks uniformly among the legal options."""

    name = "random"
    rung = "R0"
    summary = "uniformly random legal option"

    def choose(self, game: Game) -> Decision:
        # The legal options are all it reads, and the game lists them for the seat that
        # decides: no view to build (a game of random bots asks for every Hit and Stay).
        return self._any(game.legal_decisions())

    def decide(self, view: PublicView) -> Decision:
        return self._any(view.options)

    def _any(self, options: tuple[Decision, ...]) -> Decision:
        return options[self.rng.randrange(len(options))]


class ThresholdBot(LadderBot):
    """R1: hits while its number sum is below ``t``; aims at random: each Action and
    Modifier goes to a random opponent (itself only when no one else can take it)."""

    name = "threshold"
    rung = "R1"
    summary = "hits while its number sum is below t (27); random targets"
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("t", int, 27, 0, 200, "hit while the number sum is below t"),
    )

    def __init__(self, seed: int | None = None, **params: int | float) -> None:
        super().__init__(seed, **params)
        if "t" in self.params:
            # Declared so that Game.play makes the Hit/Stay decisions itself (the fast path).
            self.hit_below = int(self.params["t"])

    def decide(self, view: PublicView) -> Decision:
        if view.kind is _K_HIT_OR_STAY:
            return HIT if view.sums[view.seat] < self.hit_below else STAY
        options = view.options
        aimed = [d for d in options if _aims_at_others(d, view.seat)]
        if aimed:
            options = tuple(aimed)
        return options[self.rng.randrange(len(options))]


def _aims_at_others(decision: Decision, me: int) -> bool:
    """Whether an option hits someone else: a target, a recipient, a Steal (always), a
    Discard or Swap that leaves the bot's own cards alone; Pass to itself; never the +15
    bonus when a -15 is possible."""
    if isinstance(decision, (Target, Give, Discard, Minus)):
        return decision.seat != me
    if isinstance(decision, Swap):
        return True
    if isinstance(decision, Pass):
        return decision.seat == me
    return isinstance(decision, Steal)


class TargetingBot(ThresholdBot):
    """R2: R1's Hit/Stay, and every Action and Modifier used where the judge
    (:mod:`flip7.bots.judge`) finds it does the most damage to the leader and the most good
    to itself. It does not count the discards: draws are judged over the deck less the
    cards in front of the players."""

    name = "targeting"
    rung = "R2"
    summary = "R1 plus leader-focused targeting of every Action and Modifier"
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("t", int, 27, 0, 200, "hit while the number sum is below t"),
        Param("spread", float, 40, 1, 1000, "how far behind an opponent's points weigh least"),
    )

    def decide(self, view: PublicView) -> Decision:
        if view.kind is _K_HIT_OR_STAY:
            return HIT if view.sums[view.seat] < self.hit_below else STAY
        return self.act(view, view.table_pile)

    def act(self, view: PublicView, pile: tuple[int, ...]) -> Decision:
        """Any decision but Hit/Stay: the judge's best option."""
        judge = Judge(view, (), pile)
        judge.weights = leader_weights(view, judge.values, float(self.params["spread"]))
        return judge.best(view.options)


class EVBot(TargetingBot):
    """R3: R2's targeting over the exact draw pile (card counting), and Hit or Stay by the
    exact expected value of hitting against staying (:func:`ev_hit`)."""

    name = "ev"
    rung = "R3"
    summary = "R2 plus card counting and the exact expected value of Hit vs Stay"
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("spread", float, 40, 1, 1000, "how far behind an opponent's points weigh least"),
    )

    def decide(self, view: PublicView) -> Decision:
        if view.kind is _K_HIT_OR_STAY:
            return HIT if ev_hit(view, lambda: self.judge(view)) else STAY
        return self.judge(view).best(view.options)

    def judge(self, view: PublicView) -> Judge:
        """The judge over the exact draw pile, with leader-focused weights."""
        judge = Judge(view, (), view.pile)
        judge.weights = leader_weights(view, judge.values, float(self.params["spread"]))
        return judge


def keeps_modifiers(view: PublicView) -> bool:
    """Whether a Modifier the bot reveals must stay in its own line (§7.3)."""
    if view.rules.brutal:
        return False
    me = view.seat
    return all(st is _BUSTED for s, st in enumerate(view.statuses) if s != me)


_OTHER_CARDS = tuple(Card(i) for i in range(int(Card.DIVIDE_2), len(Card)))


def ev_hit(
    view: PublicView,
    judge: Callable[[], Judge] | None = None,
    window: tuple[float, float] = (-3.0, 1.0),
) -> bool:
    """Whether hitting is worth more than staying, over the exact composition of the draw
    pile (Hit is the better choice on a tie of nothing).

    The bot's own line follows the model of :mod:`flip7.analysis.advisor`: the Number cards of the
    pile come in random order, the other players' draws are as good as random, and the
    line is played on optimally (:class:`flip7.analysis.solver.LineModel`). A Modifier or Action
    card drawn is worth its best use (``judge``: :meth:`Judge.draw_worth`; without one,
    nothing). Shortcuts keep it fast, without changing the answer: one Number card then
    Stay is a lower bound of the line's value after a hit, so when it beats staying by more
    than ``window[1]`` the answer is Hit; when it trails by more than ``-window[0]`` (and a
    tenth of the stay score) the answer is Stay; only in between are the other cards and
    the optimal continuation worked out.
    """
    me = view.seat
    key = try_key(view.lines[me])
    if key == BUST:  # cannot happen for a player asked to Hit or Stay
        return False
    divides, penalty = modifier_effects(view.modifiers[me])
    rules = view.rules
    brutal = rules.brutal
    distinct = rules.lucky13_pair_flip7_count == 1
    keep = keeps_modifiers(view)
    counts = view.draw_counts
    stay = score(key, divides=divides, penalty=penalty, brutal=brutal)
    once, _, cards = hit_once(key, counts, divides=divides, penalty=penalty, brutal=brutal,
                              distinct=distinct, keep_modifiers=keep)  # fmt: skip
    gap = once - stay
    if cards and gap > window[1]:
        return True
    if gap < window[0] - 0.1 * stay:
        return False
    other = 0.0
    if judge is not None:
        made = judge()
        for card in _OTHER_CARDS:
            c = counts[card]
            if c and not (keep and card < Card.JUST_ONE_MORE):
                other += c * made.draw_worth(card)
    if not cards:
        return other > 0
    if cards * gap + other > 0:
        return True
    exact = _exact_hit(key, divides, penalty, keep, counts[:_MODS.stop], brutal, distinct,
                       rules.can_stay_with_empty_line)  # fmt: skip
    return cards * (exact - stay) + other > 0


@functools.lru_cache(maxsize=1 << 14)
def _exact_hit(
    key: int,
    divides: int,
    penalty: int,
    keep: bool,
    counts: tuple[int, ...],
    brutal: bool,
    distinct: bool,
    can_stay_empty: bool,
) -> float:
    """The expected round score of taking the next card of the model, then playing on
    optimally (:meth:`flip7.analysis.solver.LineModel.hit_value`)."""
    rules = LineRules(
        flip7_distinct=distinct,
        can_stay_empty=can_stay_empty,
        brutal=brutal,
        divides=divides,
        penalty=penalty,
    )
    model = LineModel(list(counts[:NUMBER_SLOTS]), rules,
                      modifiers=list(counts[_MODS]) if keep else None)  # fmt: skip
    return model.hit_value(key)
