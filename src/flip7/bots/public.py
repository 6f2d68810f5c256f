"""The information barrier: what a bot may read of a game.

A bot gets the :class:`~flip7.engine.game.Game` it plays in, and reads it only through a
:class:`PublicView`: every line, Modifier, status and running total, the dealer, the round,
who decides what, the legal options, and the draw pile's *composition*, worked out the way
anyone at the table can: the deck(s) less every card on view (in a line, on the discard
pile, or set aside while it resolves). It never holds the draw pile's order or the random
state.

>>> from flip7.engine.game import Game
>>> game = Game.new(["Ann", "Bob", "Cyd"], explicit=True, dealer=2)
>>> for code in ["12", "5", "9"]:
...     _ = game.draw(code)
>>> view = PublicView(game)
>>> view.seat, view.lines[0], view.kind.value
(0, (Card.TWELVE,), 'hit_or_stay')
>>> view.pile[Card.TWELVE], view.pile_size, view.pile_size == game.draw_pile_size
(11, 105, True)

Search bots need games to play forward in. :meth:`PublicView.sample_game` gives a copy of the
game whose draw pile is a fresh random order of the public composition, shuffled with the
bot's own random generator, and whose future reshuffles use a generator seeded from it too:
nothing of the real order or of the game's random state reaches it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from flip7.core.cards import Card, deck_counts
from flip7.core.decisions import Decision, DecisionKind, Swap
from flip7.core.rules import Rules
from flip7.core.scoring import busted_score, round_score
from flip7.engine.game import Game, RoundResult, Status
from flip7.engine.view import GameView

__all__ = ["PublicView", "leader"]

_T = TypeVar("_T")


class _lazy(Generic[_T]):
    """A property computed once, on first use (without :func:`functools.cached_property`'s
    lock: a view lives for one decision, and most of its fields are read once)."""

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.name = func.__name__

    def __get__(self, obj: Any, cls: Any = None) -> _T:
        value = self.func(obj)
        obj.__dict__[self.name] = value
        return value


_CARDS = len(Card)
_CARD_LIST = tuple(Card)
_DECK_COUNTS = {d: tuple(deck_counts(d)[Card(i)] for i in range(_CARDS)) for d in (1, 2)}
_BUSTED = Status.BUSTED
_ACTIVE = Status.ACTIVE


class PublicView:
    """One seat's view of a game at a decision: public information only.

    Everything is read when first asked for (the game must not move on meanwhile).
    ``pile`` is the draw pile's composition as 27 counts indexed by :class:`Card`;
    ``draw_counts`` is what the next card can be (the discard pile once the draw pile is
    empty: it is reshuffled first, RULES.md §3.5).
    """

    def __init__(self, game: Game, seat: int | None = None) -> None:
        self._game = game
        if seat is None:
            seat = game.to_decide
        self.seat: int = 0 if seat is None else seat
        self.kind: DecisionKind | None = game.decision_kind
        # Read by nearly every decision, and cheaper to copy than to compute on demand.
        self.rules: Rules = game.rules
        self.totals: tuple[int, ...] = game.totals  # after the completed rounds

    @_lazy
    def decks(self) -> int:
        return self._game.decks

    @_lazy
    def n(self) -> int:
        return self._game.n

    # ------------------------------------------------------------------ the table

    @_lazy
    def round(self) -> int:
        return self._game.round

    @_lazy
    def dealer(self) -> int:
        return self._game.dealer

    @_lazy
    def target_score(self) -> int:
        return self.rules.target_score

    @_lazy
    def rounds(self) -> tuple[RoundResult, ...]:
        """The completed rounds: dealer, scores, who busted, Flip 7, the Brutal −15."""
        return self._game.rounds

    @_lazy
    def draws(self) -> tuple[Card, ...]:
        """Every card drawn so far, in order (each was turned face up for all to see)."""
        return self._game.draws

    @_lazy
    def decisions(self) -> tuple[Decision, ...]:
        """Every decision taken so far, in order."""
        return self._game.decisions

    @_lazy
    def player_view(self) -> GameView:
        """The engine's own view of this seat (:mod:`flip7.engine.view`), JSON-ready."""
        return self._game.view(self.seat)

    @_lazy
    def pending_card(self) -> Card | None:
        """The Modifier to give or the Action to use that the decision is about."""
        return self._game.pending_card

    @_lazy
    def options(self) -> tuple[Decision, ...]:
        """The legal options of the decision (empty unless ``seat`` decides)."""
        game = self._game
        return game.legal_decisions() if game.to_decide == self.seat else ()

    @_lazy
    def lines(self) -> tuple[tuple[Card, ...], ...]:
        """Each seat's Number cards, in the order received (a busted line keeps its cards)."""
        line = self._game.line
        return tuple(line(s) for s in range(self.n))

    @_lazy
    def modifiers(self) -> tuple[tuple[Card, ...], ...]:
        mods = self._game.modifiers
        return tuple(mods(s) for s in range(self.n))

    @_lazy
    def statuses(self) -> tuple[Status, ...]:
        return self._game.statuses()

    @_lazy
    def sums(self) -> tuple[int, ...]:
        """Each seat's number sum."""
        number_sum = self._game.number_sum
        return tuple(number_sum(s) for s in range(self.n))

    @_lazy
    def scores(self) -> tuple[int, ...]:
        """What each line scores if the round ends now (no Flip 7 in it)."""
        rules = self.rules
        out = []
        for s in range(self.n):
            if self.statuses[s] is _BUSTED:
                out.append(
                    busted_score(
                        self.modifiers[s],
                        brutal=rules.brutal,
                        modifiers_only=rules.busted_modifiers_count,
                    )
                )
            elif not self.modifiers[s] and Card.ZERO not in self.lines[s]:
                out.append(self.sums[s])
            else:
                out.append(round_score(self.lines[s], self.modifiers[s], flip7=False,
                                       brutal=rules.brutal))  # fmt: skip
        return tuple(out)

    @_lazy
    def discard(self) -> tuple[int, ...]:
        """The discard pile's composition (27 counts)."""
        return _count(self._game.discard_pile)

    @_lazy
    def set_aside(self) -> tuple[Card, ...]:
        return self._game.set_aside()

    @_lazy
    def pile(self) -> tuple[int, ...]:
        """The draw pile's composition: the deck(s) less every card on view."""
        counts = list(_DECK_COUNTS[self.decks])
        for cards in (*self.lines, *self.modifiers, self.set_aside):
            for card in cards:
                counts[card] -= 1
        for i, k in enumerate(self.discard):
            counts[i] -= k
        return tuple(counts)

    @_lazy
    def pile_size(self) -> int:
        return sum(self.pile)

    @_lazy
    def draw_counts(self) -> tuple[int, ...]:
        """What the next card can be: the draw pile, or the discard pile if that is empty."""
        return self.pile if self.pile_size else self.discard

    @_lazy
    def table_pile(self) -> tuple[int, ...]:
        """A rougher estimate of the draw pile for a player who does not count the discards:
        the deck(s) less the cards in front of the players."""
        counts = list(_DECK_COUNTS[self.decks])
        for cards in (*self.lines, *self.modifiers):
            for card in cards:
                counts[card] -= 1
        return tuple(counts)

    # One seat at a time, straight from the game (cheaper when only a few seats matter).

    def line(self, seat: int) -> tuple[Card, ...]:
        return self._game.line(seat)

    def modifiers_of(self, seat: int) -> tuple[Card, ...]:
        return self._game.modifiers(seat)

    def number_sum(self, seat: int) -> int:
        return self._game.number_sum(seat)

    def status(self, seat: int) -> Status:
        return self._game.status(seat)

    def swaps(self, seat: int | None = None) -> Iterator[Swap]:
        """The Swaps the table allows (:meth:`Game.legal_swaps`: public), with ``seat``
        only those it is part of."""
        return self._game.legal_swaps(seat)

    def live(self) -> tuple[int, ...]:
        """The seats that have not busted, in seat order."""
        return self._game.live_seats()

    def active(self) -> list[int]:
        return [s for s in range(self.n) if self.statuses[s] is _ACTIVE]

    # ------------------------------------------------------------------ games to search in

    def sample_game(self, rng: random.Random) -> Game:
        """A copy of the game to play forward in, built from public information: its draw
        pile is the public composition in an order drawn from ``rng``, its random generator
        is seeded from ``rng``, and it makes no events. The real order is never copied."""
        return self.sample_games(rng, 1)[0]

    @_lazy
    def _pile_cards(self) -> list[Card]:
        """The draw pile's composition as a list of cards, in card order (a search
        shuffles a copy of it on every iteration)."""
        return [_CARD_LIST[i] for i, k in enumerate(self.pile) for _ in range(k)]

    def sample_games(self, rng: random.Random, copies: int) -> list[Game]:
        """``copies`` identical games of :meth:`sample_game` (one sampled order, one seed),
        to compare options on the same cards."""
        pile = self._pile_cards[:]
        rand = rng.random
        for i in range(len(pile) - 1, 0, -1):
            j = int(rand() * (i + 1))
            pile[i], pile[j] = pile[j], pile[i]
        seed = rng.getrandbits(64)
        fork = self._game.fork  # each fork copies the pile
        return [fork(draw_pile=pile, rng=random.Random(seed)) for _ in range(copies)]


def _count(cards: Sequence[Card]) -> tuple[int, ...]:
    counts = [0] * _CARDS
    for card in cards:
        counts[card] += 1
    return tuple(counts)


def leader(totals: Sequence[int], me: int, live: Sequence[int] | None = None) -> int | None:
    """The other seat with the highest running total (ties: the lowest seat), among
    ``live`` seats if given.

    >>> leader((40, 90, 90, 10), 1), leader((40, 90, 90, 10), 1, live=[0, 1, 3])
    (2, 0)
    """
    best: int | None = None
    for s in live if live is not None else range(len(totals)):
        if s != me and (best is None or totals[s] > totals[best]):
            best = s
    return best
