"""The engine's state machine: where a game is (its :class:`Phase`), the work items of its
resolution stack (RULES.md §11) and the decision it waits for.

The stack holds :data:`Task` items, the last one first to run: :class:`Draw`,
:class:`Resolve`, :class:`ForceStay`, :class:`FlipFourStep` and :class:`Finish`. They are
values, never changed once built, and the engine dispatches on them with
``type(task) is Draw`` (every class is final). Only a :class:`FlipFour` frame changes while
it is on the stack; its steps and draws share it (:meth:`Game.fork` copies each once).

They are ``@dataclass(slots=True)`` but not frozen: a frozen dataclass costs three times as
much to build (about 1 µs against 0.3 µs), and the engine builds them on every Action.

>>> frame = FlipFour(target=2, card=Card.FLIP_FOUR, left=4, set_aside=[])
>>> step = FlipFourStep.of(frame)
>>> stack: list[Task] = [step, step.draw]
>>> [type(task).__name__ for task in stack], step.draw.frame is frame, frame.set_aside
(['FlipFourStep', 'Draw'], True, [])
>>> Pending(DecisionKind.GIVE, 1, Card.MINUS_4, ()).card
Card.MINUS_4

Standard library only; imports only :mod:`flip7.core`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TypeAlias, final

from flip7.core.cards import Card
from flip7.core.decisions import Decision, DecisionKind

__all__ = [
    "Draw",
    "Finish",
    "FlipFour",
    "FlipFourStep",
    "ForceStay",
    "Pending",
    "Phase",
    "Purpose",
    "Resolve",
    "Task",
]


class Phase(Enum):
    """Where the game is."""

    DEAL = "deal"
    TURNS = "turns"
    ROUND_END = "round_end"  # scored (or awaiting the Brutal Flip 7 choice); next deal pending
    OVER = "over"


class Purpose(Enum):
    """Why a card is drawn."""

    DEAL = "deal"
    # The deal card of a busted seat when deal_skips_inactive is false: discarded (§3.1).
    DEAL_BURN = "deal_burn"
    HIT = "hit"
    JUST_ONE_MORE = "just_one_more"
    FLIP_FOUR = "flip_four"


@final
@dataclass(slots=True, eq=False)
class FlipFour:
    """One Flip Four! in progress (§6.3): its target, its card, the draws still due and its
    own frame of set-aside cards. It changes as it runs, and the stack items of its steps
    and draws share it (compared by identity). A new one has ``left = 4`` draws due and
    an empty ``set_aside`` (no defaults: a default factory costs a fifth more to build)."""

    target: int
    card: Card
    left: int
    set_aside: list[Card]


@final
@dataclass(slots=True)
class Draw:
    """A card to draw for ``seat``; ``frame`` is the Flip Four it is drawn for."""

    purpose: Purpose
    seat: int
    frame: FlipFour | None = None


@final
@dataclass(slots=True)
class Resolve:
    """A revealed card waiting to reach ``user`` (a Flip Four's set-aside card, §6.3.4)."""

    card: Card
    user: int


@final
@dataclass(slots=True)
class ForceStay:
    """The end of ``user``'s Just One More! (``card``) on ``target``: the card is discarded
    and the target stays if still Active (§6.2)."""

    target: int
    card: Card
    user: int


@final
@dataclass(slots=True)
class FlipFourStep:
    """The next step of a Flip Four!: another draw, or resolving its set-aside cards.

    ``draw`` is the draw each step pushes (one value for all four: built once)."""

    frame: FlipFour
    draw: Draw

    @classmethod
    def of(cls, frame: FlipFour) -> FlipFourStep:
        return cls(frame, Draw(Purpose.FLIP_FOUR, frame.target, frame))


@final
@dataclass(slots=True)
class Finish:
    """A used Action (``user``'s) goes to the discard pile once all it caused has resolved
    (§6.1.5)."""

    card: Card
    user: int


Task: TypeAlias = Draw | Resolve | ForceStay | FlipFourStep | Finish
"""A work item on the resolution stack."""


@final
@dataclass(slots=True)
class Pending:
    """The decision a game waits for: ``seat`` must choose, a ``kind`` decision, about
    ``card`` (the Modifier to give, the Action to target, pass or use; None for Hit/Stay and
    the Brutal Flip 7 choice).

    ``options`` lists the legal options; None while a Steal, Swap or Discard waits, since
    listing every Swap of a big table is costly: the game lists them on demand, once. A
    pending decision never changes otherwise (nothing moves until it is made), so games
    forked from one another may share it."""

    kind: DecisionKind
    seat: int
    card: Card | None
    options: tuple[Decision, ...] | None
