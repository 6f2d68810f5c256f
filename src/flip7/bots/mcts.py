"""R5, ``mcts``: R4, with the decisions near the end of the game checked by search.

At a decision the bot first asks R4 (:class:`~flip7.bots.winprob.WinProbBot`) for its
choice. In the last rounds (a total within ``horizon`` of the target), where a decision
can win or lose the game and R4's models are roughest, it then compares candidate options
by simulation: Hit and Stay, or R4's choice and the next best uses of an Action or Modifier
by R4's judge (``top`` of them). Each iteration samples a *determinization*: an order of
the draw pile drawn from its public composition (and a seed for any later reshuffle) with
the bot's own random generator, never the real order (:meth:`PublicView.sample_games`).
Every candidate is played from a copy of that same sample (common random numbers: the
options meet the same cards), to the end of the round, by a fast rollout policy:

* every player hits below 27, or by its expected value over the pile's composition (the
  searching bot); a player keeps hitting while someone already done for the round is over
  the target and ahead of it, and stays when it would end the game on top;
* Actions and Modifiers go to the leader: Flip Four! and Just One More! on it, Modifiers to
  it, the best card from it stolen, discarded or swapped.

A rollout is worth the bot's chance to win at its end: 1 or 0 if the game is over, else
the chance to win from the totals by R4's normal model (:func:`~flip7.bots.winprob.win_chance`)
with the spread the totals really have left, which R4 underrates near the end
(:func:`~flip7.bots.winprob.calibrated_chance`: fitted to games of R4 players, calibrated
at 3, 4 and 6 players). The search stops at ``iters`` iterations or ``time`` seconds, or
earlier once more iterations could not change its choice. The bot leaves R4's choice only
for an option whose mean is better by more than ``z`` standard errors of the paired
difference. Earlier in the game the bot plays as R4.

The rollouts run here, in Python, unless a layer above hands over an engine that plays them
compiled (:func:`use_rollout_engine`): the ``flip7`` command line hands over
:mod:`flip7.fast.rollout` where flip7[fast] (numba) is installed, and ``compiled=0`` keeps a
bot to Python. The compiled rollouts play the same players to the same values (given the
same cards, the same end of the round: ``tests/fast/test_fast_rollout.py``) but draw their
own cards, from the same public composition, so a seed's choices differ; they take a
search from about 100 ms of CPU to a few (``docs/strength.md``).

The horizon (150 points), ``z``, ``top`` and the value of a rollout were chosen by
scoring searched decisions against the truth: for each option a search would prefer, 100 to
150 paired continuations of the real position played to the end of the game by R4 players.
Searching within 150 points of the target rather than 70 gained about +0.9 points of win
rate per game, the calibrated value of a rollout +1.1 (R4's model is far too sure near the
end), and searching 6 uses of an Action or Modifier rather than 4 +0.2. A tournament of
4,000 paired deals measured +4.4 [+2.8, +6.1] over R4 (``docs/strength.md``).

>>> from flip7.engine.game import Game
>>> game = Game.new(4, seed=11)
>>> bots = [MCTSBot(seed=1, iters=20)] + [MCTSBot(seed=s, iters=5) for s in (2, 3, 4)]
>>> game.play(bots)
>>> game.over
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import ClassVar, TypeAlias

from flip7.bots.base import Param
from flip7.bots.judge import USES_WITHIN
from flip7.bots.learned import ValueNet, load_net
from flip7.bots.lines import BUST, hit_once, score, try_key
from flip7.bots.public import PublicView
from flip7.bots.winprob import WinProbBot, calibrated_chance, endgame
from flip7.core.cards import PENALTY, VALUE, Card
from flip7.core.decisions import (
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
from flip7.engine.game import Game, Status

__all__ = ["MCTSBot", "RolloutEngine", "RolloutRun", "use_rollout_engine"]

_K_HIT_OR_STAY = DecisionKind.HIT_OR_STAY
_K_TARGET = DecisionKind.TARGET
_K_GIVE = DecisionKind.GIVE
_K_STEAL = DecisionKind.STEAL
_K_SWAP = DecisionKind.SWAP
_K_DISCARD = DecisionKind.DISCARD
_K_PASS = DecisionKind.PASS
_K_FLIP7 = DecisionKind.FLIP7_CHOICE
_BUSTED = Status.BUSTED
_ACTIVE = Status.ACTIVE
_FIRST_MODIFIER = Card.DIVIDE_2
_DIVIDE_2 = Card.DIVIDE_2
_JOM = Card.JUST_ONE_MORE
_CARDS = len(Card)


class _Stop(Exception):
    """The rollout reached the next round (or the end)."""


RolloutRun: TypeAlias = Callable[[int, int, int], tuple[Sequence[float], Sequence[float]]]
"""A searched decision's rollouts played elsewhere (compiled): ``run(seed, start, stop)``
plays iterations ``start`` … ``stop - 1`` of every candidate and returns, per candidate,
the sums of its paired differences to the first candidate's value and of their squares."""

RolloutEngine: TypeAlias = Callable[[Game, Sequence[Decision], int, int], RolloutRun | None]
"""Loads a position (a game sampled from the searching seat's view, the candidates, that
seat, the bot's ``value``: how a rollout's end is valued) for :data:`RolloutRun`; ``None``
where it cannot play it."""

_ENGINE: list[RolloutEngine] = []


def use_rollout_engine(engine: RolloutEngine | None) -> None:
    """Play the rollouts of the bots made from now on by ``engine`` (``None``: in Python).

    :mod:`flip7.fast.rollout` is one: the same rollout policies compiled (flip7[fast]).
    This layer may not import it, so the layers above that may (the command line) hand it
    over; a bot with ``compiled=0`` keeps to Python."""
    _ENGINE[:] = [] if engine is None else [engine]


class MCTSBot(WinProbBot):
    """R5: R4, with every close decision checked by simulation (see the module docstring)."""

    name = "mcts"
    rung = "R5"
    summary = "R4 checked by search over re-sampled draw piles near the end"
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("iters", int, 2000, 1, 10**7, "iterations per decision"),
        Param("time", float, 0.5, 0.001, 0.9, "seconds per decision at most (a safety net)"),
        Param("top", int, 6, 2, 64, "options searched, best first by R4's judge"),
        Param("z", float, 1.0, 0, 10, "standard errors needed to overrule R4"),
        Param("reach", int, 70, 0, 1000, "play for the win once a total is this near the target"),
        Param("horizon", int, 150, 0, 1000, "search once a total is this near the target"),
        Param("uses", int, 1, 0, 1, "search the uses of Actions and Modifiers too (0: "
              "Hit/Stay only)"),
        Param("depth", int, 3, 0, 6, "cards R4 looks ahead"),
        Param("compiled", int, 1, 0, 1, "rollouts by the compiled engine when one is given"),
        Param("value", int, 0, 0, 1, "a rollout's end valued by 0: the calibrated normal "
              "model, 1: R6's network"),
    )

    last_iterations = 0  # of the last search (0: the last decision was not searched)
    # The last search's mean gain of each candidate over the first (R4's choice), as a
    # share of a win: what flip7.learn.distill teaches R6.
    last_gains: tuple[float, ...] = ()

    def __init__(self, seed: int | None = None, **params: int | float) -> None:
        super().__init__(seed, **params)
        # The engine handed over when the bot is made goes wherever the bot goes: the
        # server pickles its bots to worker processes that start afresh (a module-level
        # function pickles as its name, and its module is imported there).
        self.engine: RolloutEngine | None = _ENGINE[0] if _ENGINE else None

    def decide(self, view: PublicView) -> Decision:
        start = time.perf_counter()
        self.last_iterations = 0
        default = super().decide(view)
        candidates = self.candidates(view, default)
        if len(candidates) < 2:
            return default
        deadline = start + float(self.params["time"])
        return self.search(view, candidates, default, deadline)

    def candidates(self, view: PublicView, default: Decision) -> list[Decision]:
        """The options worth searching, R4's choice first; fewer than two: no search.

        Only decisions in the last rounds are searched (a total within ``horizon`` of the
        target): earlier, R4's expected values are as good as the search can tell."""
        if not endgame(view, int(self.params["horizon"])):
            return [default]
        if view.kind is _K_HIT_OR_STAY:
            return [default, STAY if default is HIT else HIT]
        if not self.params["uses"]:
            return [default]
        options = view.options
        if view.kind is _K_PASS or len(options) < 2:
            return [default]
        top = int(self.params["top"])
        shortlist = self.judge(view).shortlist(options, top, USES_WITHIN)
        return [default, *(d for _, d in shortlist if d != default)][:top]

    def search(
        self, view: PublicView, candidates: list[Decision], default: Decision, deadline: float
    ) -> Decision:
        """Paired rollouts of every candidate until the budget is spent."""
        k = len(candidates)
        me = view.seat
        target = view.target_score
        iters = int(self.params["iters"])
        rng = self.rng
        diffs = [0.0] * k  # sum of (candidate - default)
        squares = [0.0] * k
        z = float(self.params["z"])
        done = 0
        clock = time.perf_counter
        leaf = _net_leaf if self.params["value"] else calibrated_chance
        run: RolloutRun | None = None
        if self.engine is not None and self.params["compiled"]:
            run = self.engine(
                view.sample_games(rng, 1)[0], candidates, me, int(self.params["value"])
            )
            seed = rng.getrandbits(63)
        while done < iters:
            if run is not None:
                # A batch up to the next check of whether the search has settled.
                stop = min(iters, done + _SETTLE_EVERY - done % _SETTLE_EVERY)
                batch, batch_squares = run(seed, done, stop)
                for i in range(k):
                    diffs[i] += batch[i]
                    squares[i] += batch_squares[i]
                done = stop
            else:
                games = view.sample_games(rng, k)
                values = [
                    _rollout(g, d, me, view.round, target, leaf)
                    for g, d in zip(games, candidates, strict=True)
                ]
                base = values[0]
                for i, v in enumerate(values):
                    diffs[i] += v - base
                    squares[i] += (v - base) ** 2
                done += 1
            if clock() >= deadline:
                break
            if done % _SETTLE_EVERY == 0 and _settled(diffs, squares, done, z):
                break
        self.last_iterations = done
        self.last_gains = tuple(d / done for d in diffs)
        best, best_gain = 0, 0.0
        for i in range(1, k):
            mean = diffs[i] / done
            if mean > z * _stderr(diffs[i], squares[i], done) and mean > best_gain:
                best, best_gain = i, mean
        return candidates[best]


# Most searched decisions are not close: in 120 games against R4, 84% of the searches
# ended with every other option more than 3 standard errors worse than R4's. Checking
# every 250 iterations whether more could still change the choice spends the budget on
# the close ones (a search that stops early chooses what it would have chosen at the end,
# but for a tail chance far below the noise of the decision itself).
_SETTLE_EVERY = 250
_SETTLE_MARGIN = 2.5  # standard errors between an option's gain and the bar to overrule


def _stderr(diff: float, square: float, done: int) -> float:
    """The standard error of a mean paired difference (infinite with one sample)."""
    if done < 2:
        return float("inf")
    mean = diff / done
    return math.sqrt(max(0.0, square / done - mean * mean) / (done - 1))


def _settled(diffs: list[float], squares: list[float], done: int, z: float) -> bool:
    """Whether the search's choice is clear: no other option is within ``_SETTLE_MARGIN``
    standard errors of overruling R4's, or exactly one is and it clears the bar by 3."""
    live = []
    for i in range(1, len(diffs)):
        mean = diffs[i] / done
        err = _stderr(diffs[i], squares[i], done)
        if err == 0.0:
            if mean > 0.0:
                live.append(math.inf)
            continue
        t = mean / err
        if t > z - _SETTLE_MARGIN:
            live.append(t)
    return not live or (len(live) == 1 and live[0] > z + 3.0)


# ---------------------------------------------------------------------------- rollouts


def _rollout(
    game: Game,
    decision: Decision,
    me: int,
    round_: int,
    target: int,
    leaf: Callable[[tuple[int, ...], int, int], float] | None = None,
) -> float:
    """Play ``decision`` in ``game`` (a sampled copy), then the rest of the round; the
    bot's chance to win at the end (by ``leaf``, R4's calibrated chance
    :func:`~flip7.bots.winprob.calibrated_chance` unless given)."""
    try:
        game.apply(decision)
        if not game.over and game.round == round_:
            # Players who cannot reach the target this round hit below 27 inside the
            # engine's loop; the others decide in Python, watching the end of the game.
            totals = game.totals
            players = [
                _Me(s, round_, target) if s == me
                else (_Other if totals[s] + _CHASE_FROM >= target else _FastOther)(
                    s, round_, target)
                for s in range(game.n)
            ]  # fmt: skip
            game.play(players)
    except _Stop:
        pass
    if game.over:
        winners = game.winners
        return 1.0 / len(winners) if me in winners else 0.0
    return (leaf or calibrated_chance)(game.totals, me, target)


def value_net() -> ValueNet:
    """R6's network (:func:`flip7.bots.learned.load_net`), which values the ends of the
    rollouts of an ``mcts`` with ``value=1``."""
    return load_net()


def _net_leaf(totals: tuple[int, ...], me: int, target: int) -> float:
    """The bot's chance to win from the totals at the end of a rollout's round, by R6's
    network (:meth:`~flip7.bots.learned.ValueNet.chance`, exact for a game won)."""
    return value_net().chance_of(totals, me, target)



# The rollout players' settings (flip7.fast.rollout compiles the same players with them).
_HIT_BELOW = 27  # Hit below this number sum
_CHASE_FROM = 60  # an opponent this near the target watches the end of the game
_JOM_SELF = 20  # Just One More on itself from this number sum (while Active)
_LEAD_BONUS = 3  # an Action's use against the leader is worth this much more
_OWN_NUMBER = -20  # what discarding one of its own Number cards is worth
_DIVIDE_COST = 6  # what a ÷2 costs a line


class _Other:
    """An opponent in a rollout: hits below 27, chases near the end, aims at the leader."""

    def __init__(self, seat: int, round_: int, target: int) -> None:
        self.seat = seat
        self.round = round_
        self.target = target

    def choose(self, game: Game) -> Decision:
        if game.round != self.round or game.over:
            raise _Stop
        if game.decision_kind is _K_HIT_OR_STAY:
            return HIT if self.hits(game) else STAY
        return _aim(game, self.seat)

    def hits(self, game: Game) -> bool:
        seat = self.seat
        chase = _chase(game, seat, self.target)
        if chase is not None:
            return chase
        return game.number_sum(seat) < _HIT_BELOW


class _FastOther(_Other):
    """The same, with its Hit/Stay made by the engine (far from the end of the game)."""

    hit_below = _HIT_BELOW


class _Me(_Other):
    """The searching bot in a rollout: Hit/Stay by one card of lookahead over the pile's
    composition, chasing near the end."""

    def hits(self, game: Game) -> bool:
        seat = self.seat
        chase = _chase(game, seat, self.target)
        if chase is not None:
            return chase
        counts = [0] * _CARDS
        for card, k in game.draw_pile_counts().items():
            counts[card] = k
        if not any(counts):
            return False
        key = try_key(game.line(seat))
        mods = game.modifiers(seat)
        divides = sum(1 for c in mods if c is _DIVIDE_2)
        penalty = sum(PENALTY[c] for c in mods)
        once, _, cards = hit_once(key, counts, divides=divides, penalty=penalty)
        stay = score(key, divides=divides, penalty=penalty)
        return bool(cards) and once > stay


def _chase(game: Game, seat: int, target: int) -> bool | None:
    """The end of the game: Hit if someone done for the round ends it at or over the
    target, ahead of this line; Stay if this line would end it on top; else None."""
    totals = game.totals
    score_of = game.round_score
    brutal = game.rules.brutal
    mine = totals[seat] + score_of(seat)
    best = -1e9
    for s, status in enumerate(game.statuses()):
        if s == seat:
            continue
        if status is _ACTIVE:
            final = totals[s] + score_of(s)
        else:
            final = totals[s] + (score_of(s) if brutal or status is not _BUSTED else 0)
            if final >= target and final >= mine:
                return True
        if final > best:
            best = final
    if mine >= target and mine > best:
        return False
    return None


def _aim(game: Game, me: int) -> Decision:
    """A fast use of an Action or Modifier: at the leader (most points, line included)."""
    kind = game.decision_kind
    options = game.legal_decisions()
    totals = game.totals
    live = [s for s in range(game.n) if game.status(s) is not _BUSTED]
    others = [s for s in live if s != me]
    lead = max(others, key=lambda s: totals[s] + game.number_sum(s)) if others else None
    if kind is _K_TARGET:
        if (
            game.pending_card is _JOM
            and game.status(me) is _ACTIVE
            and (game.number_sum(me) >= _JOM_SELF or lead is None)
        ):
            return _pick(options, me)
        return _pick(options, me if lead is None else lead)
    if kind is _K_GIVE:
        return _pick(options, me if lead is None else lead)
    if kind is _K_PASS:
        return _pick(options, me)
    if kind is _K_FLIP7:
        if lead is not None and totals[lead] >= totals[me]:
            return _pick(options, lead)
        return BONUS
    mine = game.line(me)
    # Ties go to the lower seat, then the lower card code (not the order the cards came
    # into the lines): the compiled rollouts, which hold lines as counts, do the same.
    options = tuple(sorted(options, key=_order))
    best, best_value = options[0], -1e9
    for decision in options:
        if isinstance(decision, Steal):
            value = _gain(mine, decision.card) + (_LEAD_BONUS if decision.seat == lead else 0)
        elif isinstance(decision, Discard):
            if decision.seat == me:
                value = (
                    PENALTY[decision.card] if decision.card >= _FIRST_MODIFIER else _OWN_NUMBER
                )
            else:
                value = (
                    VALUE[decision.card] + (_LEAD_BONUS if decision.seat == lead else 0)
                    if decision.card < _FIRST_MODIFIER
                    else -PENALTY[decision.card]
                )
        elif isinstance(decision, Swap):
            if me == decision.seat1:
                give, take = decision.card1, decision.card2
            elif me == decision.seat2:
                give, take = decision.card2, decision.card1
            else:
                continue
            rest = list(mine)
            if give < _FIRST_MODIFIER:
                rest.remove(give)
            value = _gain(rest, take) - _worth(give)
        else:
            continue
        if value > best_value:
            best, best_value = decision, value
    return best


def _order(decision: Decision) -> tuple[int, ...]:
    """A Steal's or Discard's seat and card, a Swap's two seats then two cards."""
    if isinstance(decision, Swap):
        return (decision.seat1, decision.seat2, decision.card1, decision.card2)
    if isinstance(decision, (Steal, Discard)):
        return (decision.seat, decision.card)
    return ()


def _worth(card: Card) -> int:
    if card < _FIRST_MODIFIER:
        return VALUE[card]
    return -PENALTY[card] - _DIVIDE_COST * (card is _DIVIDE_2)


def _gain(line: tuple[Card, ...] | list[Card], card: Card) -> int:
    """What ``card`` adds to a line: its value, or minus the line if it busts it."""
    if card >= _FIRST_MODIFIER:
        return _worth(card)
    if try_key([*line, card]) == BUST:
        return -sum(VALUE[c] for c in line)
    return VALUE[card]


def _pick(options: tuple[Decision, ...], seat: int) -> Decision:
    for option in options:
        if isinstance(option, (Target, Give, Pass, Minus)) and option.seat == seat:
            return option
    return options[0]
