"""The game: a state machine over rounds, turns and nested card effects (RULES.md §3–§11).

A game stops at every point where a player must choose between two or more legal
options (``to_decide``, ``legal_decisions()``, ``apply()``), and, when chance is
explicit, wherever a card must come off the draw pile (``needs_card``, ``draw()``).
Choices with one legal option are made for the player. Every call returns the typed
events it caused.

>>> game = Game.new(["Ann", "Bob", "Cyd"], seed=7)
>>> game.to_decide is not None, game.decision_kind
(True, <DecisionKind.HIT_OR_STAY: 'hit_or_stay'>)
>>> while not game.over:
...     _ = game.apply(game.legal_decisions()[0])
>>> max(game.totals) >= 200
True

Explicit chance, as replay and a physical table use it:

>>> game = Game.new(3, explicit=True, dealer=2)
>>> for code in ["5", "11", "9"]:
...     _ = game.draw(code)
>>> [list(map(str, game.line(seat))) for seat in range(3)]
[['5'], ['11'], ['9']]
>>> game.to_decide, [str(d) for d in game.legal_decisions()]
(0, ['hit', 'stay'])
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import repeat
from math import floor
from operator import is_
from typing import Protocol, TypeAlias

from flip7.core.cards import FLIP_FOUR_CARDS, VALUE, Card, new_deck
from flip7.core.decisions import (
    BONUS,
    HIT,
    STAY,
    Decision,
    DecisionKind,
    Discard,
    Give,
    Hit,
    Minus,
    Pass,
    Steal,
    Swap,
    Target,
    discard_of,
    parse_decision,
    steal_of,
    swap_of,
)
from flip7.core.errors import CardError, DecisionError, GameStateError
from flip7.core.events import (
    ActionUsed,
    BonusTaken,
    Busted,
    Dealt,
    Discarded,
    Drew,
    Event,
    Flip7,
    GameOver,
    Minus15,
    ModifierGiven,
    Passed,
    Reshuffled,
    RoundScored,
    RoundStarted,
    SetAside,
    Stayed,
    Stolen,
    Swapped,
    Unused,
    Wiped,
)
from flip7.core.explain import card_name
from flip7.core.lines import (
    COPY_BUSTS,
    FLIP7_CARDS,
    MUST_HIT_CARD,
    Status,
    bust_reason,
    bust_reason_code,
    busts,
    is_flip7,
    must_hit,
    wipes,
)
from flip7.core.rules import MAX_PLAYERS, ONE_DECK_MAX_PLAYERS, Rules, decks_for, players_problem
from flip7.core.scoring import (
    FLIP7_BONUS,
    RoundResult,
    busted_score,
    game_winners,
    round_score,
    score_reason_code,
    score_reason_words,
)
from flip7.engine.state import (
    Draw,
    Finish,
    FlipFour,
    FlipFourStep,
    ForceStay,
    Pending,
    Phase,
    Purpose,
    Resolve,
    Task,
)
from flip7.engine.view import GameView, SeatView

# MAX_PLAYERS and ONE_DECK_MAX_PLAYERS (RULES.md §1.3) are flip7.core.rules', named here too.
__all__ = [
    "MAX_PLAYERS", "ONE_DECK_MAX_PLAYERS", "Game", "Phase", "Player", "RoundResult", "Status",
]  # fmt: skip


class Player(Protocol):
    """Anything that picks one of ``game.legal_decisions()`` for ``game.to_decide``."""

    def choose(self, game: Game) -> Decision: ...


# The phases as module constants: the engine loop reads them at every step.
_PH_DEAL, _PH_TURNS, _PH_ROUND_END, _PH_OVER = Phase.DEAL, Phase.TURNS, Phase.ROUND_END, Phase.OVER


# Statuses as plain ints on the hot path.
_ACTIVE, _STAYED, _BUSTED = 0, 1, 2
_STATUSES = tuple(Status)
# Number cards whose only check is a copy of the same card in the line (all but the 7s and
# the 13s): the hot loop's bust check; every other card goes through core.lines.busts.
_PLAIN = COPY_BUSTS
# A line this long takes its next Number card in the hot loop: the card after it may be
# the seventh, which asks is_flip7.
_BELOW_FLIP7 = FLIP7_CARDS - 1

# Why a card is drawn (the work items of the resolution stack, RULES.md §11, are the
# classes of flip7.engine.state).
_P_DEAL = Purpose.DEAL
_P_DEAL_BURN = Purpose.DEAL_BURN  # deal card of a busted player with deal_skips_inactive = false
_P_HIT = Purpose.HIT
_P_JOM = Purpose.JUST_ONE_MORE
_P_FLIP4 = Purpose.FLIP_FOUR

# A completed round as a plain row: dealer, scores, busted, Flip 7 seat, Brutal −15 seat.
_RoundRow: TypeAlias = tuple[int, tuple[int, ...], tuple[int, ...], int | None, int | None]

_MUST_HIT = MUST_HIT_CARD
_ZERO = Card.ZERO
_U7 = Card.UNLUCKY_7
# The 7 and the 13 with the other card of their value: as the first of its value in a line
# (neither it nor its twin there), each is a Number card the line holds without a check
# (§4.1, §4.4.3, §4.5), worth its code; the hot loop takes it then. None for every other card.
_TWIN_OF: tuple[Card | None, ...] = tuple(
    _U7 if card is Card.SEVEN else Card.LUCKY_13 if card is Card.THIRTEEN else None for card in Card
)
_FIRST_MODIFIER = Card.DIVIDE_2
_FIRST_ACTION = Card.JUST_ONE_MORE
_JOM = Card.JUST_ONE_MORE
_FLIP4 = Card.FLIP_FOUR
_STEAL = Card.STEAL
_SWAP = Card.SWAP
_DISCARD = Card.DISCARD

_HIT_OR_STAY = DecisionKind.HIT_OR_STAY
_K_FLIP7_CHOICE = DecisionKind.FLIP7_CHOICE
_K_GIVE = DecisionKind.GIVE
_K_PASS = DecisionKind.PASS
_K_TARGET = DecisionKind.TARGET
_HIT_STAY_OPTIONS: tuple[Decision, ...] = (HIT, STAY)
_KIND_OF_ACTION = {
    _STEAL: DecisionKind.STEAL,
    _SWAP: DecisionKind.SWAP,
    _DISCARD: DecisionKind.DISCARD,
}


_DEFAULT_RULES = Rules()
_DEFAULT_NAMES = tuple(f"Player {i + 1}" for i in range(MAX_PLAYERS + 1))
_DECKS = {1: tuple(new_deck(1)), 2: tuple(new_deck(2))}
# The seat to the left of each seat (clockwise), for each number of players.
_LEFT_OF = tuple(tuple((s + 1) % n for s in range(n)) for n in range(MAX_PLAYERS + 1))


# Options are built at every Action; sharing one object per option spares the
# dataclass constructor and lets apply() find the chosen one by identity.
_TARGET = tuple(Target(s) for s in range(MAX_PLAYERS))
_GIVE = tuple(Give(s) for s in range(MAX_PLAYERS))
_PASS = tuple(Pass(s) for s in range(MAX_PLAYERS))
_MINUS = tuple(Minus(s) for s in range(MAX_PLAYERS))
# Stack items and pending decisions are values: those that depend on a seat alone are built
# once, here, and shared by every game (no constructor on the hot path).
_DEAL_DRAW = tuple(Draw(_P_DEAL, s) for s in range(MAX_PLAYERS))
_BURN_DRAW = tuple(Draw(_P_DEAL_BURN, s) for s in range(MAX_PLAYERS))
_HIT_DRAW = tuple(Draw(_P_HIT, s) for s in range(MAX_PLAYERS))
_JOM_DRAW = tuple(Draw(_P_JOM, s) for s in range(MAX_PLAYERS))
_HIT_STAY = tuple(Pending(_HIT_OR_STAY, s, None, _HIT_STAY_OPTIONS) for s in range(MAX_PLAYERS))
_FINISH_F4 = tuple(Finish(_FLIP4, s) for s in range(MAX_PLAYERS))
_FORCE_STAY = tuple(
    tuple(ForceStay(target, _JOM, user) for user in range(MAX_PLAYERS))
    for target in range(MAX_PLAYERS)
)


def _shuffle(cards: list[Card], rng: random.Random) -> None:
    """Fisher–Yates with ``rng.random()``: a third faster than ``Random.shuffle``'s
    ``_randbelow``, and for at most 216 cards the float's rounding bias (below 2**-45)
    is far beneath anything a game could show."""
    rand = rng.random
    for i in range(len(cards) - 1, 0, -1):
        # floor() of a product that is never negative is int()'s truncation, the same
        # index, for a quarter fewer instructions a card than calling the int type.
        j = floor(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def _copy_frame(frame: FlipFour, frames: dict[int, FlipFour]) -> FlipFour:
    """``frame``'s copy in a fork, made once however many stack items share it."""
    found = frames.get(id(frame))
    if found is None:
        found = frames[id(frame)] = FlipFour(
            frame.target, frame.card, frame.left, frame.set_aside[:]
        )
    return found


class Game:
    """A game of Flip 7: With a Vengeance. Create one with :meth:`Game.new`."""

    def __init__(
        self,
        players: Sequence[str],
        rules: Rules,
        decks: int,
        dealer: int,
        rng: random.Random | None,
        events: bool,
    ) -> None:
        n = len(players)
        self.players: tuple[str, ...] = tuple(players)
        self.rules = rules
        self.decks = decks
        self.first_dealer = dealer
        self._n = n
        self._rng = rng
        self._events_on = events
        self._events: list[Event] = []
        self._unclaimed: list[Event] = []  # events no call has returned: new(), play()
        self._brutal = rules.brutal
        self._busted_modifiers_count = rules.busted_modifiers_count
        # must_hit's second case (an empty line, §3.2.3) as a flag; its first is _MUST_HIT.
        self._empty_may_stay = must_hit((), (), rules) is None

        deck = _DECKS[decks]
        self._draw_pile: list[Card] = list(deck)
        if rng is not None:
            _shuffle(self._draw_pile, rng)
        self._discard_pile: list[Card] = []
        self._numbers: list[list[Card]] = [[] for _ in range(n)]
        self._modifiers: list[list[Card]] = [[] for _ in range(n)]
        self._sums: list[int] = [0] * n
        self._status: list[int] = [_ACTIVE] * n
        self._live_seats: list[int] = list(range(n))
        self._left_of: tuple[int, ...] = _LEFT_OF[n]
        # A new tuple each round, so that readers can keep it (and compare by identity).
        self._totals: tuple[int, ...] = (0,) * n
        self._stack: list[Task] = []

        self._round = 0
        self._dealer = dealer
        self._phase = _PH_DEAL
        self._deal_i = 0
        self._turn = 0  # the seat whose turn it was last; the next turn is clockwise of it
        self._flip7_seat: int | None = None
        # Completed rounds as plain rows; RoundResult values are made when asked for,
        # since a frozen dataclass costs more to build than a simulated round's scoring.
        self._rounds: list[_RoundRow] = []
        self._winners: tuple[int, ...] = ()

        # The pending decision (None: nothing to decide) and the pending draw (explicit
        # chance: the card that draw() must give).
        self._pending: Pending | None = None
        self._need: Draw | None = None

        self._draw_log: list[Card] = []
        self._decision_log: list[Decision] = []

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(
        cls,
        players: int | Sequence[str],
        rules: Rules | None = None,
        *,
        decks: int | None = None,
        dealer: int | None = None,
        seed: int | None = None,
        explicit: bool = False,
        events: bool = True,
    ) -> Game:
        """Start a game and run it to the first decision (or, if ``explicit``, the first card).

        ``players`` is a count or the display names in seat (clockwise) order. With
        ``explicit`` every card drawn must be given by :meth:`draw`; otherwise the deck is
        shuffled with ``random.Random(seed)``. ``dealer`` defaults to a random seat (seat 0
        when explicit). ``events=False`` skips building event objects (for simulations).
        """
        rules = rules if rules is not None else _DEFAULT_RULES
        default_names = isinstance(players, int)
        names = _DEFAULT_NAMES[:players] if isinstance(players, int) else tuple(players)
        n = players if isinstance(players, int) else len(names)
        problem = players_problem(n, rules, decks)
        if problem is not None:
            raise GameStateError(problem)
        for name in () if default_names else names:
            if not isinstance(name, str) or not name.strip():
                raise GameStateError(f"player names must be non-empty strings, got {name!r}")
        if decks is None:
            decks = decks_for(n)
        rng = None if explicit else random.Random(seed)
        if dealer is None:
            dealer = 0 if rng is None else int(rng.random() * n)
        if type(dealer) is not int or not 0 <= dealer < n:
            raise GameStateError(f"dealer must be a seat from 0 to {n - 1}, got {dealer!r}")
        game = cls(names, rules, decks, dealer, rng, events)
        game._start_round()
        game._run()
        game._unclaimed = game._events
        game._events = []
        return game

    def fork(
        self,
        *,
        draw_pile: Sequence[Card] | None = None,
        rng: random.Random | None = None,
        events: bool = False,
    ) -> Game:
        """A cheap independent copy of the game as it stands, to play on separately (a
        search plays many forks of one position: a few microseconds each, where a deep
        copy takes hundreds).

        ``draw_pile`` is the fork's draw pile, bottom first (the last card is drawn next);
        by default a copy of this game's. ``rng`` is the fork's random generator, taken as
        it is; by default a copy of this game's, so that the fork has the same future (a
        fork of an explicit game stays explicit unless given one; if it waits for a card,
        the fork draws that card from its pile at once). ``events``: whether the fork makes
        events. Its draws, decisions and events start empty: they hold what the fork plays.

        >>> game = Game.new(4, seed=3)
        >>> fork = game.fork()
        >>> while not fork.over:
        ...     _ = fork.apply(fork.legal_decisions()[0])
        >>> fork.over, game.over, game.round, len(game.decisions)
        (True, False, 1, 0)
        >>> again = game.fork()  # the same pile and a copy of the random state
        >>> while not again.over:
        ...     _ = again.apply(again.legal_decisions()[0])
        >>> again.totals == fork.totals and again.draws == fork.draws
        True
        """
        if rng is None and self._rng is not None:
            rng = random.Random()
            rng.setstate(self._rng.getstate())
        # A Flip Four frame changes as it runs and is shared by the stack items of its steps
        # and draws (and by the pending draw): each is copied once. Every other item is a
        # value and is shared.
        frames: dict[int, FlipFour] = {}
        stack: list[Task] = []
        for task in self._stack:
            if type(task) is FlipFourStep:
                task = FlipFourStep.of(_copy_frame(task.frame, frames))
            elif type(task) is Draw and task.frame is not None:
                task = Draw(task.purpose, task.seat, _copy_frame(task.frame, frames))
            stack.append(task)
        need = self._need
        if need is not None and need.frame is not None:
            need = Draw(need.purpose, need.seat, _copy_frame(need.frame, frames))
        # Every attribute, in the order of __init__ (instances then share one key table).
        out: Game = object.__new__(Game)
        out.players = self.players
        out.rules = self.rules
        out.decks = self.decks
        out.first_dealer = self.first_dealer
        out._n = self._n
        out._rng = rng
        out._events_on = events
        out._events = []
        out._unclaimed = []
        out._brutal = self._brutal
        out._busted_modifiers_count = self._busted_modifiers_count
        out._empty_may_stay = self._empty_may_stay
        out._draw_pile = list(self._draw_pile if draw_pile is None else draw_pile)
        out._discard_pile = self._discard_pile[:]
        out._numbers = [line[:] for line in self._numbers]
        out._modifiers = [mods[:] for mods in self._modifiers]
        out._sums = self._sums[:]
        out._status = self._status[:]
        out._live_seats = self._live_seats[:]
        out._left_of = self._left_of
        out._totals = self._totals
        out._stack = stack
        out._round = self._round
        out._dealer = self._dealer
        out._phase = self._phase
        out._deal_i = self._deal_i
        out._turn = self._turn
        out._flip7_seat = self._flip7_seat
        out._rounds = self._rounds[:]
        out._winners = self._winners
        out._pending = self._pending
        out._need = need
        out._draw_log = []
        out._decision_log = []
        if need is not None and rng is not None:
            # Random chance now: the card this game waits for comes off the fork's pile.
            out._need = None
            stack.append(need)
            out._run()
            out._unclaimed = out._events
            out._events = []
        return out

    def clone(
        self, *, draw_pile: Sequence[Card] | None = None, rng: random.Random | None = None
    ) -> Game:
        """An independent copy (random state, draws, decisions and unclaimed events
        included) that can be played on separately: :meth:`fork` keeping everything.

        ``draw_pile`` and ``rng`` are :meth:`fork`'s: another hidden order and another
        random generator under the same history, such as a test of what a seat cannot see
        (its view, a bot's choice) compares with the real game.

        >>> game = Game.new(4, seed=3)
        >>> other = game.clone(draw_pile=sorted(game.draw_pile), rng=random.Random(1))
        >>> other.draw_pile == game.draw_pile, other.view(0) == game.view(0)
        (False, True)
        >>> other.draws == game.draws and other.take_events() == game.take_events() != []
        True
        """
        out = self.fork(draw_pile=draw_pile, rng=rng, events=self._events_on)
        # What the fork played at once (an explicit game given an rng draws the card it
        # waits for) comes after this game's history.
        out._unclaimed = self._unclaimed + out._unclaimed
        out._draw_log = self._draw_log + out._draw_log
        out._decision_log = self._decision_log + out._decision_log
        return out

    # ------------------------------------------------------------------ reading the state

    @property
    def n(self) -> int:
        """The number of players."""
        return self._n

    @property
    def over(self) -> bool:
        return self._phase is _PH_OVER

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def explicit(self) -> bool:
        """Whether cards are given by :meth:`draw` rather than drawn from a shuffled deck."""
        return self._rng is None

    @property
    def round(self) -> int:
        """The current round, counting from 1 (the last one once the game is over)."""
        return self._round

    @property
    def dealer(self) -> int:
        return self._dealer

    @property
    def winners(self) -> tuple[int, ...]:
        return self._winners

    @property
    def totals(self) -> tuple[int, ...]:
        """Running totals after the completed rounds."""
        return self._totals

    @property
    def rounds(self) -> tuple[RoundResult, ...]:
        return tuple(RoundResult(*row) for row in self._rounds)

    @property
    def to_decide(self) -> int | None:
        """The seat that must decide now, or None (game over, or a card is needed)."""
        pending = self._pending
        return None if pending is None else pending.seat

    @property
    def decision_kind(self) -> DecisionKind | None:
        pending = self._pending
        return None if pending is None else pending.kind

    @property
    def pending_card(self) -> Card | None:
        """The card the pending decision is about (the Modifier to give, the Action to use)."""
        pending = self._pending
        return None if pending is None else pending.card

    @property
    def needs_card(self) -> bool:
        """Explicit chance: a card must be given with :meth:`draw` before play goes on."""
        return self._need is not None

    def legal_decisions(self) -> tuple[Decision, ...]:
        """Every legal option of the pending decision (empty when nobody must decide)."""
        pending = self._pending
        if pending is None:
            return ()
        options = pending.options
        if options is None:
            assert pending.card is not None  # a Steal, Swap or Discard
            options = pending.options = tuple(self._options_for(pending.card, pending.seat))
        return options

    def line(self, seat: int) -> tuple[Card, ...]:
        """The Number cards of ``seat``'s line, in the order received."""
        return tuple(self._numbers[seat])

    def modifiers(self, seat: int) -> tuple[Card, ...]:
        """The Modifier cards above ``seat``'s line."""
        return tuple(self._modifiers[seat])

    def number_sum(self, seat: int) -> int:
        """The sum of ``seat``'s Number cards."""
        return self._sums[seat]

    def number_count(self, seat: int) -> int:
        return len(self._numbers[seat])

    def status(self, seat: int) -> Status:
        return _STATUSES[self._status[seat]]

    def live_seats(self) -> tuple[int, ...]:
        """The seats that have not busted this round, in seat order.

        >>> Game.new(4, seed=3).live_seats()
        (0, 1, 2, 3)
        """
        return tuple(self._live_seats)

    def statuses(self) -> tuple[Status, ...]:
        return tuple(map(_STATUSES.__getitem__, self._status))

    @property
    def draw_pile_size(self) -> int:
        return len(self._draw_pile)

    @property
    def draw_pile(self) -> tuple[Card, ...]:
        """The draw pile in order, bottom first: the last card is drawn next.

        Hidden information: no seat sees the order (a view gives :attr:`draw_pile_size`,
        counting gives :meth:`draw_pile_counts`). Only a referee, a solver or a test may
        read it, for instance to give a :meth:`fork` the same or another order. A copy:
        changing the game changes it no more than it changes the game.

        >>> game = Game.new(3, seed=4)
        >>> pile = game.draw_pile
        >>> len(pile) == game.draw_pile_size and Counter(pile) == game.draw_pile_counts()
        True
        >>> _ = game.apply("hit")
        >>> game.draws[-1] == pile[-1] and game.draw_pile == pile[:-1]
        True
        """
        return tuple(self._draw_pile)

    @property
    def discard_pile(self) -> tuple[Card, ...]:
        return tuple(self._discard_pile)

    def set_aside(self) -> tuple[Card, ...]:
        """Cards out of the piles and out of the lines: Actions being resolved, Flip Four
        set-asides, a Modifier waiting for its recipient."""
        out: list[Card] = []
        for task in self._stack:
            if type(task) is Resolve or type(task) is Finish or type(task) is ForceStay:
                out.append(task.card)
            elif type(task) is FlipFourStep:
                out.append(task.frame.card)
                out.extend(task.frame.set_aside)
        card = self.pending_card
        if card is not None:
            out.append(card)
        return tuple(out)

    def draw_pile_counts(self) -> Counter[Card]:
        """How many of each card the draw pile holds. Public at a physical table only by
        counting; a seat's view gives the size, never the order."""
        return Counter(self._draw_pile)

    def chance_outcomes(self) -> list[tuple[Card, Fraction]]:
        """The cards the next draw can be, with their probabilities (after a reshuffle
        when the draw pile is empty)."""
        pile = self._draw_pile or self._discard_pile
        counts = Counter(pile)
        total = len(pile)
        return [(card, Fraction(k, total)) for card, k in sorted(counts.items())]

    def view(self, viewer: int | None = None) -> GameView:
        """What seat ``viewer`` (or a spectator, with None) may see (:mod:`flip7.engine.view`)."""
        if viewer is not None and not (type(viewer) is int and 0 <= viewer < self.n):
            raise GameStateError(f"viewer must be a seat from 0 to {self.n - 1} or None")
        totals = self.totals
        players = tuple(
            SeatView(
                seat=s,
                name=self.players[s],
                status=self.status(s),
                line=self.line(s),
                modifiers=self.modifiers(s),
                number_sum=self.number_sum(s),
                round_score=self.round_score(s),
                total=totals[s],
            )
            for s in range(self.n)
        )
        to_decide = self.to_decide
        return GameView(
            viewer=viewer,
            players=players,
            rules=self.rules,
            decks=self.decks,
            round=self.round,
            dealer=self.dealer,
            phase=self.phase,
            draw_pile_size=self.draw_pile_size,
            discard_pile=self.discard_pile,
            set_aside=self.set_aside(),
            to_decide=to_decide,
            decision_kind=self.decision_kind,
            pending_card=self.pending_card,
            legal_decisions=self.legal_decisions() if viewer is not None and viewer == to_decide
            else (),
            needs_card=self.needs_card,
            rounds=self.rounds,
            over=self.over,
            winners=self.winners,
        )

    def round_score(self, seat: int) -> int:
        """What ``seat``'s line would score if the round ended now (no Flip 7 choice)."""
        if self._status[seat] == _BUSTED:
            return busted_score(
                self._modifiers[seat],
                brutal=self._brutal,
                modifiers_only=self.rules.busted_modifiers_count,
            )
        return round_score(
            self._numbers[seat],
            self._modifiers[seat],
            flip7=self._flip7_seat == seat,
            brutal=self._brutal,
        )

    @property
    def draws(self) -> tuple[Card, ...]:
        """Every card taken from the draw pile so far, in order (a record's ``draws``)."""
        return tuple(self._draw_log)

    @property
    def decisions(self) -> tuple[Decision, ...]:
        """Every decision taken from a player so far (a record's ``decisions``)."""
        return tuple(self._decision_log)

    # ------------------------------------------------------------------ driving the game

    def apply(self, decision: Decision | str) -> list[Event]:
        """Make the pending decision (a value or its record string) and run the game on to
        the next decision, card or the end. Returns the events that happened."""
        self._apply(decision)
        return self._take_events()

    def _apply(self, decision: Decision | str) -> None:
        """:meth:`apply`, leaving the events where the engine loop put them (play() hands
        them on once, at its end)."""
        pending = self._pending
        if pending is None:
            if self._phase is _PH_OVER:
                raise GameStateError("the game is over: no more decisions")
            raise GameStateError("no decision is due: a card must be drawn first (draw)")
        kind = pending.kind
        # Hit and Stay are both legal whenever they are asked; anything else is checked.
        if kind is not _HIT_OR_STAY or not (decision is HIT or decision is STAY):
            if isinstance(decision, str):
                decision = parse_decision(decision)
            # Bots hand back one of the option objects: find it by identity (in C) before
            # falling back to comparing values.
            options = pending.options
            if options is None:
                if not self._is_legal_move(decision, pending):
                    raise DecisionError(self._illegal_message(decision))
            elif not any(map(is_, options, repeat(decision))) and decision not in options:
                raise DecisionError(self._illegal_message(decision))
        self._pending = None
        self._decision_log.append(decision)
        self._decide(kind, pending.seat, pending.card, decision)
        self._run()

    def play(self, players: Sequence[Player]) -> None:
        """Play to the end with ``players[seat]`` making each seat's decisions.

        Chance must be random. A player with an integer ``hit_below`` attribute declares
        the threshold rule "Hit while my number sum is below it": the engine makes those
        Hit/Stay decisions itself (the same decisions, recorded the same way) instead of
        calling the player, which is how simulations stay fast. The events (if the game
        makes them) are kept for :meth:`take_events`.

        >>> class Cautious:
        ...     hit_below = 20
        ...     def choose(self, game):
        ...         return game.legal_decisions()[0]
        >>> game = Game.new(3, seed=5)
        >>> game.play([Cautious()] * 3)
        >>> game.over
        True
        """
        if self._rng is None:
            raise GameStateError("play() needs random chance; drive an explicit game with draw()")
        if len(players) != self._n:
            raise GameStateError(f"play() needs {self._n} players, got {len(players)}")
        thresholds = [getattr(p, "hit_below", None) for p in players]
        try:
            while self._phase is not _PH_OVER:
                pending = self._pending
                assert pending is not None  # random chance: the game runs to a decision
                seat = pending.seat
                if pending.kind is _HIT_OR_STAY and thresholds[seat] is not None:
                    self._threshold_turns(thresholds, seat)
                else:
                    self._apply(players[seat].choose(self))
        finally:
            # Also when a player fails: what was played is kept for take_events().
            self._unclaimed.extend(self._take_events())

    def _threshold_turns(self, thresholds: list[int | None], seat: int) -> None:
        """Hit/Stay turns of threshold players, one after another, in one tight loop: the
        hot path of every simulation. A Stay, or a Hit that draws a plain Number card (one
        the line can hold, or a copy that busts it) or the first 7 or 13 of a line, is done
        here; anything else goes to the general machinery.

        The pending decision, ``seat``'s Hit/Stay on entry, is None while the loop runs
        (the general machinery expects that) and set again only on the way out."""
        pile = self._draw_pile
        numbers = self._numbers
        sums = self._sums
        status = self._status
        log_decision = self._decision_log.append
        log_card = self._draw_log.append
        # Events go where the engine loop puts them: play() hands them on.
        events = self._events if self._events_on else None
        left_of = self._left_of
        below_flip7 = _BELOW_FLIP7
        plain = _PLAIN
        twin_of = _TWIN_OF
        active = status.count(_ACTIVE)
        self._pending = None
        while True:
            below = thresholds[seat]
            if below is None:
                self._turn = seat
                self._pending = _HIT_STAY[seat]
                return  # that player decides for itself
            if sums[seat] >= below:
                log_decision(STAY)
                status[seat] = _STAYED
                if events is not None:
                    events.append(Stayed(seat, False))
                active -= 1
            else:
                log_decision(HIT)
                if not pile:
                    self._turn = seat
                    self._stack.append(_HIT_DRAW[seat])
                    break
                card = pile.pop()
                line = numbers[seat]
                # A card that may make a seventh is _receive's (the Flip 7 check); a copy
                # of a plain card in the line busts it whatever its length.
                if plain[card]:
                    here = len(line) < below_flip7 or card in line
                else:
                    twin = twin_of[card]
                    here = (
                        twin is not None
                        and len(line) < below_flip7
                        and card not in line
                        and twin not in line
                    )
                if not here:
                    self._turn = seat
                    self._drawn(_HIT_DRAW[seat], card)
                    if self._stack or self._pending is not None or self._phase is not _PH_TURNS:
                        break
                    active = status.count(_ACTIVE)
                else:
                    log_card(card)
                    if events is not None:
                        events.append(Drew(seat, card, "hit"))
                    if card in line:
                        line.append(card)
                        self._bust(seat, card)
                        active -= 1
                    else:
                        line.append(card)
                        sums[seat] += card
            if not active:
                self._turn = seat
                self._end_round()
                break
            # The next turn, as _offer_turn gives it, for the common case.
            seat = left_of[seat]
            while status[seat]:  # not ACTIVE
                seat = left_of[seat]
            line = numbers[seat]
            if _MUST_HIT in line or not (line or self._modifiers[seat] or self._empty_may_stay):
                self._turn = seat
                self._stack.append(_HIT_DRAW[seat])
                break
        if self._pending is None:  # else a decision is due already (most ways out)
            self._run()

    def draw(self, card: Card | str) -> list[Event]:
        """Explicit chance: the next card off the draw pile is ``card``."""
        need = self._need
        if need is None:
            if self._rng is not None:
                raise GameStateError("this game shuffles its own deck: cards cannot be given")
            raise GameStateError(self._no_card_message())
        if isinstance(card, str):
            card = Card.parse(card)
        elif not isinstance(card, Card):
            raise CardError(f"a card must be a Card or a card code, not {card!r}")
        try:
            self._draw_pile.remove(card)
        except ValueError:
            raise CardError(
                f"{card.code} is not in the draw pile (it holds {len(self._draw_pile)} cards; "
                "every copy is in a line, set aside or discarded)"
            ) from None
        self._need = None
        self._drawn(need, card)
        self._run()
        return self._take_events()

    def take_events(self) -> list[Event]:
        """The events that no call has returned yet: those of :meth:`new` (the first deal)
        and of :meth:`play`. Each is returned once."""
        out = self._unclaimed
        self._unclaimed = []
        return out

    def _take_events(self) -> list[Event]:
        if not self._events_on:
            return []
        out = self._events
        self._events = []
        return out

    def _no_card_message(self) -> str:
        if self._phase is _PH_OVER:
            return "the game is over: no more cards"
        pending = self._pending
        if pending is None:
            return "no card is due"
        return f"no card is due: seat {pending.seat} must decide ({pending.kind.value})"

    def _illegal_message(self, decision: Decision) -> str:
        """The one message for a decision that is not legal now (the server sends it to the
        client as ``illegal_move``): what was asked, of whom, and the options."""
        most_shown = 24  # options listed; the rest are counted
        options = self.legal_decisions()
        shown = ", ".join(str(d) for d in options[:most_shown])
        if len(options) > most_shown:
            shown += f" and {len(options) - most_shown} more"
        pending = self._pending
        assert pending is not None  # only asked while a decision is pending
        return (
            f"'{decision}' is not a legal option now (seat {pending.seat} must decide "
            f"{pending.kind.value}); the options are {shown}"
        )

    # ------------------------------------------------------------------ the engine loop

    def _run(self) -> None:
        """Work through the stack and the round until a decision, a card or the end."""
        stack = self._stack
        while self._pending is None and self._need is None:
            if stack:
                # The kinds by how often they come: draws, then Flip Four steps.
                task = stack.pop()
                if type(task) is Draw:
                    pile = self._draw_pile
                    if pile and self._rng is not None:
                        self._drawn(task, pile.pop())
                    else:
                        card = self._take_card(task)
                        if card is not None:
                            self._drawn(task, card)
                elif type(task) is FlipFourStep:
                    self._flip_four_step(task)
                elif type(task) is ForceStay:
                    self._discard_pile.append(task.card)
                    target = task.target
                    if self._status[target] == _ACTIVE:
                        self._status[target] = _STAYED
                        if self._events_on:
                            self._events.append(
                                Stayed(target, True, card_name(task.card), task.card)
                            )
                elif type(task) is Resolve:
                    self._resolve(task.card, task.user)
                else:  # Finish
                    self._discard_pile.append(task.card)
            elif self._phase is _PH_TURNS:
                self._offer_turn()
            elif self._phase is _PH_DEAL:
                self._deal_next()
            elif self._phase is _PH_ROUND_END:
                self._next_round()
            else:
                return

    def _take_card(self, task: Draw) -> Card | None:
        pile = self._draw_pile
        if not pile:
            if not self._discard_pile:
                # no_cards_left = "end_round" (§3.5.3): score the round as it stands.
                self._end_round()
                return None
            pile.extend(self._discard_pile)
            self._discard_pile.clear()
            if self._rng is not None:
                _shuffle(pile, self._rng)
            if self._events_on:
                self._events.append(Reshuffled(len(pile)))
        if self._rng is None:
            self._need = task
            return None
        return pile.pop()

    def _start_round(self) -> None:
        """Set up a round; every line is empty by now (see _next_round)."""
        self._round += 1
        n = self._n
        self._sums = [0] * n
        self._status = [_ACTIVE] * n
        self._live_seats = list(range(n))
        self._flip7_seat = None
        self._phase = _PH_DEAL
        self._deal_i = 0
        if self._events_on:
            self._events.append(RoundStarted(self._round, self._dealer))

    def _deal_next(self) -> None:
        n = self._n
        i = self._deal_i
        first = self._dealer + 1
        pile = self._draw_pile
        numbers = self._numbers
        status = self._status
        shuffled = self._rng is not None
        while i < n:
            seat = (first + i) % n
            i += 1
            if status[seat] == _ACTIVE:
                if not pile or not shuffled:
                    self._deal_i = i
                    self._stack.append(_DEAL_DRAW[seat])
                    return
                # Nothing is pending between deal cards, so draw at once (no stack trip)
                # and go on dealing while the card left nothing to resolve.
                card = pile.pop()
                line = numbers[seat]
                if card < _U7 and not line:  # a first Number worth its code: nothing to check
                    self._draw_log.append(card)
                    line.append(card)
                    self._sums[seat] += card
                    if self._events_on:
                        self._events.append(Dealt(seat, card))
                    continue
                self._deal_i = i
                self._drawn(_DEAL_DRAW[seat], card)
                if self._stack or self._pending is not None or self._phase is not _PH_DEAL:
                    return
                continue
            if not self.rules.deal_skips_inactive:
                self._deal_i = i
                draws = _BURN_DRAW if status[seat] == _BUSTED else _DEAL_DRAW
                self._stack.append(draws[seat])
                return
        self._deal_i = i
        self._phase = _PH_TURNS
        self._turn = self._dealer  # turns start left of the dealer (§3.2.1)

    def _offer_turn(self) -> None:
        n = self._n
        status = self._status
        left_of = self._left_of
        seat = left_of[self._turn]
        left = n
        while status[seat]:  # not ACTIVE
            left -= 1
            if not left:
                self._end_round()
                return
            seat = left_of[seat]
        self._turn = seat
        line = self._numbers[seat]
        if _MUST_HIT in line or not (line or self._modifiers[seat] or self._empty_may_stay):
            # The Zero (§4.3.3) or an empty line (§3.2.3): Hit is the only option.
            self._stack.append(_HIT_DRAW[seat])
            return
        self._pending = _HIT_STAY[seat]

    def _drawn(self, task: Draw, card: Card) -> None:
        self._draw_log.append(card)
        events_on = self._events_on
        purpose = task.purpose
        seat = task.seat
        if purpose is _P_FLIP4:
            frame = task.frame
            assert frame is not None
            if events_on:
                self._events.append(Drew(seat, card, "flip_four"))
            if card < _FIRST_MODIFIER:
                self._receive(seat, card, False)
            else:
                frame.set_aside.append(card)
                if events_on:
                    self._events.append(SetAside(seat, card))
            return
        if events_on:
            if purpose is _P_HIT:
                self._events.append(Drew(seat, card, "hit"))
            elif purpose is _P_JOM:
                self._events.append(Drew(seat, card, "just_one_more"))
            else:
                self._events.append(Dealt(seat, card))
        if purpose is _P_DEAL_BURN:
            self._discard_pile.append(card)
            if events_on:
                self._events.append(Unused(seat, card, "busted"))
            return
        if card < _FIRST_MODIFIER:
            self._receive(seat, card, False)
        else:
            self._resolve(card, seat)

    # ------------------------------------------------------------------ receiving cards

    def _receive(self, seat: int, card: Card, transfer: bool, check_flip7: bool = True) -> None:
        """``card`` enters ``seat``'s line by any route (§2.5): Unlucky 7, bust, Flip 7."""
        if card >= _FIRST_MODIFIER:
            self._modifiers[seat].append(card)
            return
        line = self._numbers[seat]
        if _PLAIN[card]:
            if card in line:
                line.append(card)
                self._bust(seat, card)
                return
            line.append(card)
            self._sums[seat] += card
        elif card is _U7 and wipes(card, self.rules, transfer=transfer):
            # §4.4: discard every other Number and Modifier; no bust on Unlucky 7 itself.
            wiped = line + self._modifiers[seat]
            self._discard_pile.extend(wiped)
            line.clear()
            self._modifiers[seat].clear()
            line.append(card)
            self._sums[seat] = VALUE[card]
            if self._events_on and wiped:
                self._events.append(Wiped(seat, tuple(wiped)))
        else:
            dup = busts(line, card)
            line.append(card)
            if dup:
                self._bust(seat, card)
                return
            self._sums[seat] += VALUE[card]
        if check_flip7 and len(line) >= FLIP7_CARDS:
            self._check_flip7(seat)

    def _bust(self, seat: int, card: Card) -> None:
        self._status[seat] = _BUSTED
        self._live_seats.remove(seat)
        if self._events_on:
            line = self._numbers[seat]  # the card that busted it came last
            self._events.append(Busted(
                seat, card, bust_reason(line[:-1], card), bust_reason_code(line[:-1], card)
            ))
        if self._stack:
            self._drop_set_aside(seat)

    def _drop_set_aside(self, seat: int) -> None:
        """§6.3.2, §11: a bust discards at once, unresolved, every card set aside for
        ``seat`` in every Flip Four frame where it is the target, so that a reshuffle
        before those frames are reached already holds them. Everything else on the stack
        (other players' set-aside cards, a Just One More's forced Stay) is left alone.

        They go to the discard pile in the order the stack would have reached them: a Flip
        Four's own card, then its set-aside cards, innermost frame first."""
        stack = self._stack
        discard = self._discard_pile.append
        events = self._events if self._events_on else None
        kept: list[Task] = []
        for task in reversed(stack):
            if type(task) is Resolve:
                if task.user != seat:
                    kept.append(task)
                    continue
                discard(task.card)
                if events is not None:
                    events.append(Unused(seat, task.card, "busted"))
            elif type(task) is FlipFourStep:
                frame = task.frame
                if frame.target != seat:
                    kept.append(task)
                    continue
                # The Flip Four stops at once: its own card leaves with its set-aside cards.
                discard(frame.card)
                for card in frame.set_aside:
                    discard(card)
                    if events is not None:
                        events.append(Unused(seat, card, "busted"))
                frame.set_aside.clear()
            elif type(task) is Draw and task.frame is not None:
                # A draw still due for the frame is dropped along with it.
                if task.frame.target != seat:
                    kept.append(task)
            else:
                kept.append(task)
        kept.reverse()
        stack[:] = kept

    def _check_flip7(self, seat: int) -> None:
        if is_flip7(self._numbers[seat], self.rules.lucky13_pair_flip7_count):
            self._flip7_seat = seat
            if self._events_on:
                self._events.append(Flip7(seat))
            self._end_round()

    def _remove(self, seat: int, card: Card) -> None:
        if card < _FIRST_MODIFIER:
            self._numbers[seat].remove(card)
            self._sums[seat] -= VALUE[card]
        else:
            self._modifiers[seat].remove(card)

    # ------------------------------------------------------------------ Actions and Modifiers

    def _live(self) -> list[int]:
        """The seats that have not busted, in seat order (kept up to date; do not change)."""
        return self._live_seats

    def _ask(
        self, kind: DecisionKind, seat: int, options: Sequence[Decision], card: Card | None
    ) -> None:
        if len(options) == 1:
            self._decide(kind, seat, card, options[0])
        else:
            self._pending = Pending(kind, seat, card, tuple(options))

    def _resolve(self, card: Card, user: int) -> None:
        """A revealed card reaches ``user`` (§3.3)."""
        # No card reaches a busted user: their set-aside cards left at the bust (_bust).
        if card < _FIRST_MODIFIER:
            self._receive(user, card, False)
        elif card < _FIRST_ACTION:
            # §7.2–7.3, §10.2: any non-busted player, or anyone in Brutal.
            seats = range(self._n) if self._brutal else self._live()
            self._ask(_K_GIVE, user, tuple(map(_GIVE.__getitem__, seats)), card)
        elif card is _JOM or card is _FLIP4:
            self._ask(_K_TARGET, user, tuple(map(_TARGET.__getitem__, self._live())), card)
        elif self.rules.pass_actions:
            users = [s for s in self._live() if self._has_use(card, s)]
            if not users:
                self._unused(user, card)
            else:
                self._ask(_K_PASS, user, [_PASS[s] for s in users], card)
        else:
            self._use(card, user)

    def _unused(self, user: int, card: Card) -> None:
        self._discard_pile.append(card)
        if self._events_on:
            self._events.append(Unused(user, card, "no_legal_use"))

    def _face_up(self, seat: int) -> list[Card]:
        """The distinct cards of a line that Actions may pick (two equal cards are one option)."""
        return list(dict.fromkeys(self._numbers[seat] + self._modifiers[seat]))

    def _has_use(self, card: Card, user: int) -> bool:
        """Whether Steal, Swap or Discard has a legal use for ``user`` (§6.1.4)."""
        holders = [s for s in self._live() if self._numbers[s] or self._modifiers[s]]
        if card is _STEAL:
            return any(s != user for s in holders)
        if card is _DISCARD:
            return bool(holders)
        if self.rules.swap_allow_cross_type:
            return len(holders) >= 2
        with_numbers = sum(1 for s in holders if self._numbers[s])
        with_modifiers = sum(1 for s in holders if self._modifiers[s])
        return with_numbers >= 2 or with_modifiers >= 2

    def _options_for(self, card: Card, user: int) -> list[Decision]:
        live = self._live()
        if card is _STEAL:
            return [steal_of(s, c) for s in live if s != user for c in self._face_up(s)]
        if card is _DISCARD:
            return [discard_of(s, c) for s in live for c in self._face_up(s)]
        return list(self.legal_swaps())

    def legal_swaps(self, seat: int | None = None) -> Iterator[Swap]:
        """The Swaps the table allows as it stands, lower seat first, in the order of
        :meth:`legal_decisions` at a Swap; with ``seat``, only those ``seat`` is part of (a
        bot that weighs its Swaps with one player need not list the table's: thousands
        with 18 players).

        >>> game = Game.new(3, explicit=True)
        >>> for code in ["5", "9", "11"]:  # seat 1 first: left of the dealer
        ...     _ = game.draw(code)
        >>> [str(swap) for swap in game.legal_swaps(1)]
        ['swap 0 11 1 5', 'swap 1 5 2 9']
        >>> next(game.legal_swaps()) == Swap(0, Card.ELEVEN, 1, Card.FIVE)
        True
        """
        live = self._live()
        cross = self.rules.swap_allow_cross_type
        faces: dict[int, list[Card]] = {}  # each seat's distinct cards, read when needed

        def face_up(s: int) -> list[Card]:
            cards = faces.get(s)
            if cards is None:
                cards = faces[s] = self._face_up(s)
            return cards

        for i, s1 in enumerate(live):
            for s2 in live[i + 1 :]:
                if seat is not None and seat != s1 and seat != s2:
                    continue
                for c1 in face_up(s1):
                    for c2 in face_up(s2):
                        if cross or (c1 < _FIRST_MODIFIER) == (c2 < _FIRST_MODIFIER):
                            yield swap_of(s1, c1, s2, c2)

    def _count_moves(self, card: Card, user: int) -> int:
        """How many legal options Steal, Swap or Discard has, counting no further than 2
        (all that matters: none, one made automatically, or a choice)."""
        count = 0
        seen: list[tuple[int, int]] = []
        cross = self.rules.swap_allow_cross_type
        for s in self._live():
            numbers, modifiers = self._numbers[s], self._modifiers[s]
            if not (numbers or modifiers):
                continue
            # Distinct cards, as far as a count capped at 2 needs: 0, 1 (all alike) or at
            # least 2 (the length stands in for the exact number: no set to build).
            a = len(numbers)
            if a > 1 and numbers.count(numbers[0]) == a:
                a = 1
            b = len(modifiers)
            if b > 1 and modifiers.count(modifiers[0]) == b:
                b = 1
            if card is _SWAP:
                for a0, b0 in seen:
                    count += (a + b) * (a0 + b0) if cross else a * a0 + b * b0
                seen.append((a, b))
            elif card is _DISCARD or s != user:
                count += a + b
            if count >= 2:
                return 2
        return count

    def _holds(self, seat: int, card: Card) -> bool:
        return (
            0 <= seat < self._n
            and self._status[seat] != _BUSTED
            and (card in self._numbers[seat] or card in self._modifiers[seat])
        )

    def _is_legal_move(self, decision: Decision, pending: Pending) -> bool:
        """Whether a Steal, Swap or Discard decision is one of ``pending``'s options."""
        card, user = pending.card, pending.seat
        if card is _STEAL:
            return (
                isinstance(decision, Steal)
                and decision.seat != user
                and self._holds(decision.seat, decision.card)
            )
        if card is _DISCARD:
            return isinstance(decision, Discard) and self._holds(decision.seat, decision.card)
        return (
            isinstance(decision, Swap)
            and decision.seat1 != decision.seat2
            and self._holds(decision.seat1, decision.card1)
            and self._holds(decision.seat2, decision.card2)
            and (
                self.rules.swap_allow_cross_type
                or decision.card1.is_number == decision.card2.is_number
            )
        )

    def _use(self, card: Card, user: int) -> None:
        count = self._count_moves(card, user)
        if count == 0:
            self._unused(user, card)  # §6.1.1
        elif count == 1:
            only = self._options_for(card, user)[0]
            self._decide(_KIND_OF_ACTION[card], user, card, only)
        else:
            # Listing every Swap of a big table is costly; legal_decisions() does it on demand.
            self._pending = Pending(_KIND_OF_ACTION[card], user, card, None)

    def _decide(self, kind: DecisionKind, seat: int, card: Card | None, decision: Decision) -> None:
        """Carry out ``seat``'s decision (made by the player, or the only legal option) about
        ``card`` (see :class:`Pending`)."""
        events_on = self._events_on
        if kind is _HIT_OR_STAY:
            if isinstance(decision, Hit):
                self._stack.append(_HIT_DRAW[seat])
            else:
                self._status[seat] = _STAYED
                if events_on:
                    self._events.append(Stayed(seat, False))
        elif kind is _K_GIVE:
            assert isinstance(decision, Give) and card is not None
            self._modifiers[decision.seat].append(card)
            if events_on:
                self._events.append(ModifierGiven(seat, decision.seat, card))
        elif kind is _K_TARGET:
            assert isinstance(decision, Target) and card is not None
            target = decision.seat
            if events_on:
                self._events.append(ActionUsed(seat, card, target))
            if card is _JOM:
                self._stack.append(_FORCE_STAY[target][seat])
                self._stack.append(_JOM_DRAW[target])
            else:
                frame = FlipFour(target, card, FLIP_FOUR_CARDS, [])
                self._stack.append(FlipFourStep(frame, Draw(_P_FLIP4, target, frame)))
        elif kind is _K_PASS:
            assert isinstance(decision, Pass) and card is not None
            if events_on and decision.seat != seat:
                self._events.append(Passed(seat, card, decision.seat))
            self._use(card, decision.seat)
        elif kind is _K_FLIP7_CHOICE:
            if isinstance(decision, Minus):
                if events_on:
                    self._events.append(Minus15(seat, decision.seat))
                self._score_round(decision.seat)
            else:
                if events_on:
                    self._events.append(BonusTaken(seat))
                self._score_round(None)
        else:
            assert card is not None
            self._discard_pile.append(card)  # the used Action leaves play first (§6.1.5)
            if isinstance(decision, Steal):
                self._remove(decision.seat, decision.card)
                if events_on:
                    self._events.append(Stolen(seat, decision.seat, decision.card))
                self._receive(seat, decision.card, True)
            elif isinstance(decision, Discard):
                self._remove(decision.seat, decision.card)
                self._discard_pile.append(decision.card)
                if events_on:
                    self._events.append(Discarded(seat, decision.seat, decision.card))
            else:
                assert isinstance(decision, Swap)
                s1, c1, s2, c2 = decision.seat1, decision.card1, decision.seat2, decision.card2
                self._remove(s1, c1)
                self._remove(s2, c2)
                if events_on:
                    self._events.append(Swapped(seat, s1, c1, s2, c2))
                # §6.5.4: both placements first, then the checks; Flip 7 last.
                self._receive(s1, c2, True, check_flip7=False)
                self._receive(s2, c1, True, check_flip7=False)
                for s in (s1, s2):
                    if self._status[s] != _BUSTED and self._flip7_seat is None:
                        self._check_flip7(s)

    def _flip_four_step(self, step: FlipFourStep) -> None:
        frame = step.frame
        target = frame.target
        if frame.left:
            frame.left -= 1
            # Values: the same step and draw come back for each of the four.
            self._stack.append(step)
            self._stack.append(step.draw)
            return
        # §6.3.4: resolve the set-aside cards in the order they appeared; the Flip Four
        # card itself is discarded once all it caused has resolved (§6.1.5).
        own = frame.card
        self._stack.append(_FINISH_F4[target] if own is _FLIP4 else Finish(own, target))
        for card in reversed(frame.set_aside):
            self._stack.append(Resolve(card, target))

    # ------------------------------------------------------------------ end of round

    def _end_round(self) -> None:
        """Flip 7, no Active player, or no cards left: drop every pending effect, then score."""
        events_on = self._events_on
        for task in self._stack:
            if type(task) is Resolve:
                self._discard_pile.append(task.card)
                if events_on:
                    self._events.append(Unused(task.user, task.card, "round_over"))
            elif type(task) is Finish or type(task) is ForceStay:
                self._discard_pile.append(task.card)
            elif type(task) is FlipFourStep:
                frame = task.frame
                self._discard_pile.append(frame.card)
                for card in frame.set_aside:
                    self._discard_pile.append(card)
                    if events_on:
                        self._events.append(Unused(frame.target, card, "round_over"))
        self._stack.clear()
        seat = self._flip7_seat
        if self._brutal and seat is not None:
            self._phase = _PH_ROUND_END
            if self.rules.minus15_may_hit_busted:
                others = [s for s in range(self._n) if s != seat]
            else:
                others = [s for s in self._live() if s != seat]
            options: list[Decision] = [BONUS, *(_MINUS[s] for s in others)]
            self._ask(_K_FLIP7_CHOICE, seat, options, None)
        else:
            self._score_round(None)

    def _score_round(self, minus15: int | None) -> None:
        n = self._n
        brutal = self._brutal
        count_modifiers = self._busted_modifiers_count
        flip7 = self._flip7_seat
        status, numbers, modifiers, sums = self._status, self._numbers, self._modifiers, self._sums
        totals = list(self._totals)
        scores = []
        busted = []
        for s in range(n):
            if status[s] == _BUSTED:
                busted.append(s)
                # busted_score is 0 unless busted Modifiers count (§10.2): no call then.
                score = (
                    busted_score(modifiers[s], brutal=brutal, modifiers_only=True)
                    if count_modifiers
                    else 0
                )
            elif s != flip7 and not modifiers[s] and _ZERO not in numbers[s]:
                score = sums[s]  # the common line (no Modifier, no Zero): just its numbers
            else:
                score = round_score(
                    numbers[s], modifiers[s], flip7=s == flip7, brutal=brutal,
                    bonus=minus15 is None,
                )  # fmt: skip
            scores.append(score)
            totals[s] += score
        if minus15 is not None:
            totals[minus15] -= FLIP7_BONUS
        self._totals = tuple(totals)
        row = (self._dealer, tuple(scores), tuple(busted), flip7, minus15)
        self._rounds.append(row)
        if self._events_on:
            rules = self.rules
            codes = tuple(
                score_reason_code(
                    numbers[s], modifiers[s], rules, busted=status[s] == _BUSTED,
                    flip7=s == flip7, bonus=minus15 is None,
                )
                for s in range(n)
            )  # fmt: skip
            reasons = tuple(score_reason_words(code) for code in codes)
            self._events.append(
                RoundScored(
                    self._round, self._dealer, row[1], row[2], flip7, minus15,
                    tuple(totals),
                    tuple(tuple(line) for line in self._numbers),
                    tuple(tuple(mods) for mods in self._modifiers),
                    reasons,
                    codes,
                )
            )
        winners = game_winners(totals, self.rules)
        if winners:
            self._phase = _PH_OVER
            self._winners = winners
            if self._events_on:
                self._events.append(GameOver(winners, tuple(totals)))
            return
        # The next round starts from the engine loop, once every caller up the stack has
        # returned: nothing may touch the lines of a round that has been scored.
        self._phase = _PH_ROUND_END

    def _next_round(self) -> None:
        # §3.4.3: every card of the round goes to the discard pile, unshuffled; the deck
        # passes left with the deal.
        discard = self._discard_pile
        for line in self._numbers:
            discard.extend(line)
            line.clear()
        for mods in self._modifiers:
            discard.extend(mods)
            mods.clear()
        self._dealer = (self._dealer + 1) % self._n
        self._start_round()

    def __repr__(self) -> str:
        mode = "explicit" if self._rng is None else "random"
        return (
            f"<Game {self._n} players, {mode}, round {self._round}, phase {self._phase.value}, "
            f"totals {list(self._totals)}>"
        )
