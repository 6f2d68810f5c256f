"""The one action encoding and the one observation encoding that every environment uses
(Gymnasium, PettingZoo, OpenSpiel).

Actions
-------

A game of ``n`` players has a fixed ``Discrete(size)`` action space: every decision of
RECORD.md §5 has one index, whatever the state. Steal, Discard and Swap name a face-up card
by its code 0–21 (:class:`~flip7.core.cards.Card` values: the 16 Number codes ``0`` … ``13``,
``U7``, ``L13``, then the 6 Modifiers ``/2``, ``-2`` … ``-10``). With ``C = 22``:

=====================================  ==========================  ==========================
decision                               first index                 count
=====================================  ==========================  ==========================
``hit``                                0                           1
``stay``                               1                           1
``bonus``                              2                           1
``target s``                           3 + s                       n
``give s``                             3 + n + s                   n
``pass s``                             3 + 2n + s                  n
``minus s``                            3 + 3n + s                  n
``steal s c``                          3 + 4n + s·C + c            n·C
``discard s c``                        3 + 4n + nC + s·C + c       n·C
``swap s1 c1 s2 c2`` (s1 < s2)         3 + 4n + 2nC + k·C² +       n(n−1)/2 · C²
                                       c1·C + c2
=====================================  ==========================  ==========================

where ``k`` numbers the seat pairs ``(s1, s2)``, ``s1 < s2``, in lexicographic order
(``(0,1), (0,2), …, (1,2), …``). Four players: 3,099 actions; three players: 1,599.

>>> codec = ActionEncoding(4)
>>> codec.size
3099
>>> from flip7.core.decisions import parse_decision
>>> [codec.index(parse_decision(t)) for t in ["hit", "stay", "target 2", "steal 1 L13"]]
[0, 1, 5, 56]
>>> str(codec.decision(codec.index(parse_decision("swap 3 /2 0 U7"))))
'swap 0 U7 3 /2'

Observations
------------

A seat's observation is a ``float32`` vector built from :meth:`Game.view(seat)
<flip7.engine.game.Game.view>` alone, so it holds nothing that seat could not see at the
table (never the draw pile's order). Seats are absolute (seat 0 first), and the viewer is
marked in its own block. One block of 32 values per seat, then the table:

========================  ======  ================================================  ===========
slice                     size    meaning                                           scaling
========================  ======  ================================================  ===========
seat block ``[0:3]``      3       status: active, stayed, busted (one-hot)          0/1
seat block ``[3:19]``     16      copies of each Number code in the line            count
seat block ``[19:25]``    6       copies of each Modifier above the line            count
seat block ``[25]``       1       sum of the Number cards                           ÷ 100
seat block ``[26]``       1       how many Number cards                             ÷ 7
seat block ``[27]``       1       what the line scores if the round ends now        ÷ 100
seat block ``[28]``       1       running total                                     ÷ target,
                                                                                    clipped ±2
seat block ``[29]``       1       is the dealer                                     0/1
seat block ``[30]``       1       must decide now                                   0/1
seat block ``[31]``       1       is the viewer (the seat observing)                0/1
``T = 32·n`` ``+[0:4]``   4       phase: deal, turns, round end, over (one-hot)     0/1
``T+[4:12]``              8       decision kind (one-hot, DecisionKind order)       0/1
``T+[12:39]``             27      the card the decision is about (one-hot by code)  0/1
``T+[39]``                1       a card must be drawn next (chance)                0/1
``T+[40]``                1       draw pile size                                    ÷ cards in
                                                                                    the deck(s)
``T+[41:68]``             27      draw pile composition (deck less every card       ÷ copies in
                                  on view: public by counting)                      the deck(s)
``T+[68:95]``             27      discard pile composition                          idem
``T+[95:122]``            27      cards set aside (resolving, Flip Four)            idem
``T+[122]``               1       round number                                      ÷ 40,
                                                                                    clipped 1
``T+[123]``               1       target score                                      ÷ 200,
                                                                                    clipped 5
``T+[124]``               1       two decks                                         0/1
``T+[125:135]``           10      rule switches (see :data:`RULE_SWITCHES`)         0/1
========================  ======  ================================================  ===========

Its size is ``32·n + 135`` (263 for four players).

>>> from flip7 import Game
>>> game = Game.new(4, seed=1)
>>> obs = ObservationEncoding(4)
>>> vector = obs.encode(game.view(game.to_decide))
>>> vector.shape, vector.dtype, obs.size
((263,), dtype('float32'), 263)
>>> bool(vector[32 * game.to_decide + 31]), bool(vector[32 * game.to_decide + 30])
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import numpy.typing as npt

from flip7.core.cards import Card, deck_counts
from flip7.core.decisions import (
    BONUS,
    HIT,
    STAY,
    Bonus,
    Decision,
    DecisionKind,
    Discard,
    Give,
    Hit,
    Minus,
    Pass,
    Stay,
    Steal,
    Swap,
    Target,
)
from flip7.core.errors import Flip7Error
from flip7.core.lines import Status
from flip7.core.rules import Rules
from flip7.engine.state import Phase
from flip7.engine.view import GameView

__all__ = [
    "FACE_UP",
    "PER_SEAT",
    "RULE_SWITCHES",
    "TABLE",
    "ActionEncoding",
    "IllegalActionError",
    "ObservationEncoding",
    "draw_pile_counts",
]

FACE_UP = 22
"""Card codes an Action can pick: the 16 Number codes and the 6 Modifiers (Card 0–21)."""

_CARDS = len(Card)  # 27
_KINDS = tuple(DecisionKind)
_PHASES = (Phase.DEAL, Phase.TURNS, Phase.ROUND_END, Phase.OVER)
_STATUSES = (Status.ACTIVE, Status.STAYED, Status.BUSTED)

_SWITCH_OPTIONS = (
    "brutal",
    "lucky13_pair_flip7_count",
    "unlucky7_triggers_on_transfer",
    "can_stay_with_empty_line",
    "deal_skips_inactive",
    "tie_break",
    "brutal_busted_scoring",
    "brutal_minus15_targets",
    "swap_allow_cross_type",
    "pass_actions",
)


def _other_choice(name: str) -> int | str:
    """The value of a two-way choice option that is not its default (core/rules.py's schema:
    the encoding names no option's value itself)."""
    option = Rules.option(name)
    (other,) = [c for c in option.choices or () if c != option.default]
    return other


RULE_SWITCHES: tuple[str, ...] = tuple(
    name if Rules.option(name).type == "bool" else f"{name} == {_other_choice(name)!r}"
    for name in _SWITCH_OPTIONS
)
"""The rule switches at the end of an observation, in order (1 when the text is true)."""

_SWITCH_VALUES = tuple(
    (name, None if Rules.option(name).type == "bool" else _other_choice(name))
    for name in _SWITCH_OPTIONS
)

PER_SEAT: tuple[tuple[str, int], ...] = (
    ("status", 3),
    ("numbers", 16),
    ("modifiers", 6),
    ("number_sum", 1),
    ("number_count", 1),
    ("round_score", 1),
    ("total", 1),
    ("dealer", 1),
    ("to_decide", 1),
    ("viewer", 1),
)
"""The fields of one seat's block, in order, with their sizes."""

TABLE: tuple[tuple[str, int], ...] = (
    ("phase", len(_PHASES)),
    ("decision_kind", len(_KINDS)),
    ("pending_card", _CARDS),
    ("needs_card", 1),
    ("draw_pile_size", 1),
    ("draw_pile", _CARDS),
    ("discard_pile", _CARDS),
    ("set_aside", _CARDS),
    ("round", 1),
    ("target_score", 1),
    ("two_decks", 1),
    ("rules", len(RULE_SWITCHES)),
)
"""The table's fields after the seat blocks, in order, with their sizes."""

_SEAT_SIZE = sum(size for _, size in PER_SEAT)  # 32
_TABLE_SIZE = sum(size for _, size in TABLE)  # 135


def _offsets(fields: Sequence[tuple[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    at = 0
    for name, size in fields:
        out[name] = at
        at += size
    return out


_S = _offsets(PER_SEAT)
_T = _offsets(TABLE)
_DECK = {d: np.array([deck_counts(d)[Card(i)] for i in range(_CARDS)], np.float32) for d in (1, 2)}


class IllegalActionError(Flip7Error):
    """An action index that is not one of the legal actions now (or not an action at all)."""


# ---------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class ActionEncoding:
    """The fixed action space of an ``players``-player game: decision ↔ index (module doc)."""

    players: int
    size: int = field(init=False)
    _target: int = field(init=False, repr=False)
    _give: int = field(init=False, repr=False)
    _pass: int = field(init=False, repr=False)
    _minus: int = field(init=False, repr=False)
    _steal: int = field(init=False, repr=False)
    _discard: int = field(init=False, repr=False)
    _swap: int = field(init=False, repr=False)
    _pairs: tuple[tuple[int, int], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        n = self.players
        if type(n) is not int or n < 2:
            raise Flip7Error(f"an action encoding needs 2 or more players, got {n!r}")
        pairs = tuple(combinations(range(n), 2))
        start = 3
        for name, count in (
            ("_target", n), ("_give", n), ("_pass", n), ("_minus", n),
            ("_steal", n * FACE_UP), ("_discard", n * FACE_UP),
            ("_swap", len(pairs) * FACE_UP * FACE_UP),
        ):  # fmt: skip
            object.__setattr__(self, name, start)
            start += count
        object.__setattr__(self, "_pairs", pairs)
        object.__setattr__(self, "size", start)

    def _pair(self, s1: int, s2: int) -> int:
        n = self.players
        return s1 * (2 * n - s1 - 1) // 2 + (s2 - s1 - 1)

    def index(self, decision: Decision) -> int:
        """The action index of ``decision``."""
        c = FACE_UP
        if isinstance(decision, Hit):
            return 0
        if isinstance(decision, Stay):
            return 1
        if isinstance(decision, Bonus):
            return 2
        if isinstance(decision, Swap):
            s1, s2 = decision.seat1, decision.seat2
            self._check_seat(s1, decision)
            self._check_seat(s2, decision)
            return (
                self._swap + self._pair(s1, s2) * c * c
                + self._card(decision.card1, decision) * c + self._card(decision.card2, decision)
            )  # fmt: skip
        self._check_seat(decision.seat, decision)
        s = decision.seat
        if isinstance(decision, Target):
            return self._target + s
        if isinstance(decision, Give):
            return self._give + s
        if isinstance(decision, Pass):
            return self._pass + s
        if isinstance(decision, Minus):
            return self._minus + s
        base = self._steal if isinstance(decision, Steal) else self._discard
        return base + s * c + self._card(decision.card, decision)

    def _check_seat(self, seat: int, decision: Decision) -> None:
        if not 0 <= seat < self.players:
            raise IllegalActionError(
                f"{decision} names seat {seat}; seats are 0 to {self.players - 1}"
            )

    @staticmethod
    def _card(card: Card, decision: Decision) -> int:
        if card >= FACE_UP:
            raise IllegalActionError(f"{decision} names {card.code}, which is never face up")
        return int(card)

    def decision(self, index: int) -> Decision:
        """The decision that action ``index`` stands for (a legal one or not)."""
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise IllegalActionError(f"an action is an integer index, not {index!r}")
        i = int(index)
        if not 0 <= i < self.size:
            raise IllegalActionError(
                f"action {i} is out of range: actions are 0 to {self.size - 1}"
            )
        c = FACE_UP
        if i < 3:
            return (HIT, STAY, BONUS)[i]
        if i < self._give:
            return Target(i - self._target)
        if i < self._pass:
            return Give(i - self._give)
        if i < self._minus:
            return Pass(i - self._pass)
        if i < self._steal:
            return Minus(i - self._minus)
        if i < self._discard:
            s, card = divmod(i - self._steal, c)
            return Steal(s, Card(card))
        if i < self._swap:
            s, card = divmod(i - self._discard, c)
            return Discard(s, Card(card))
        k, rest = divmod(i - self._swap, c * c)
        c1, c2 = divmod(rest, c)
        s1, s2 = self._pairs[k]
        return Swap(s1, Card(c1), s2, Card(c2))

    def indices(self, decisions: Iterable[Decision]) -> list[int]:
        """The action indices of ``decisions``, ascending."""
        return sorted({self.index(d) for d in decisions})

    def mask(self, decisions: Iterable[Decision]) -> npt.NDArray[np.int8]:
        """A 0/1 ``int8`` vector of length :attr:`size`: 1 at each of ``decisions``."""
        out = np.zeros(self.size, np.int8)
        for i in self.indices(decisions):
            out[i] = 1
        return out

    def legal(self, index: int, decisions: Sequence[Decision]) -> Decision:
        """The decision of action ``index`` if it is one of ``decisions``; otherwise an
        :class:`IllegalActionError` listing the legal actions."""
        try:
            decision = self.decision(index)
        except IllegalActionError as exc:
            raise IllegalActionError(f"{exc}; legal now: {self.describe(decisions)}") from None
        if decision not in decisions:
            raise IllegalActionError(
                f"action {int(index)} ({decision}) is not legal now; legal now: "
                f"{self.describe(decisions)}"
            )
        return decision

    def describe(self, decisions: Sequence[Decision]) -> str:
        """``"0 (hit), 1 (stay)"``: the legal actions as indices with their decisions."""
        if not decisions:
            return "none (no decision is due)"
        return ", ".join(f"{i} ({self.decision(i)})" for i in self.indices(decisions))


# ---------------------------------------------------------------------------- observations


@dataclass(frozen=True)
class ObservationEncoding:
    """A seat's observation of an ``players``-player game as a ``float32`` vector
    (layout in the module doc); :attr:`low` and :attr:`high` bound every entry."""

    players: int
    size: int = field(init=False)
    low: npt.NDArray[np.float32] = field(init=False, repr=False, compare=False)
    high: npt.NDArray[np.float32] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = self.players
        if type(n) is not int or n < 2:
            raise Flip7Error(f"an observation encoding needs 2 or more players, got {n!r}")
        size = _SEAT_SIZE * n + _TABLE_SIZE
        low = np.zeros(size, np.float32)
        high = np.ones(size, np.float32)
        for s in range(n):
            b = _SEAT_SIZE * s
            high[b + _S["numbers"] : b + _S["numbers"] + 16] = 2  # two decks: two copies
            high[b + _S["modifiers"] : b + _S["modifiers"] + 6] = 2
            low[b + _S["round_score"]] = -1
            low[b + _S["total"]] = -2
            high[b + _S["total"]] = 2
        t = _SEAT_SIZE * n
        high[t + _T["target_score"]] = 5
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    def fields(self) -> list[tuple[str, int, tuple[int, ...]]]:
        """``(name, size, shape)`` of each part of the vector, in order: ``seat0`` …
        ``seat{n-1}`` (each seat's block of 32, :data:`PER_SEAT`), then the table's fields
        (:data:`TABLE`). OpenSpiel's observer names its tensor's parts by them."""
        out: list[tuple[str, int, tuple[int, ...]]] = [
            (f"seat{s}", _SEAT_SIZE, (_SEAT_SIZE,)) for s in range(self.players)
        ]
        out.extend((name, size, (size,)) for name, size in TABLE)
        return out

    def blank(self, rules: Rules, decks: int, viewer: int) -> npt.NDArray[np.float32]:
        """The observation before a game has a dealer (OpenSpiel's first chance node): the
        viewer's mark and the rules only."""
        out = np.zeros(self.size, np.float32)
        out[_SEAT_SIZE * viewer + _S["viewer"]] = 1
        self._rules(out, rules, decks)
        return out

    def _rules(self, out: npt.NDArray[np.float32], rules: Rules, decks: int) -> None:
        t = _SEAT_SIZE * self.players
        out[t + _T["target_score"]] = min(rules.target_score / 200, 5.0)
        out[t + _T["two_decks"]] = decks == 2
        switches = [
            getattr(rules, name) == (True if Rules.option(name).type == "bool" else other)
            for name, other in _SWITCH_VALUES
        ]
        r = t + _T["rules"]
        out[r : r + len(switches)] = switches

    def encode(self, view: GameView) -> npt.NDArray[np.float32]:
        """The observation of ``view.viewer`` (a seat) from its view."""
        n = self.players
        if len(view.players) != n:
            raise Flip7Error(f"an encoding for {n} players cannot read a {len(view.players)}-"
                             "player game")  # fmt: skip
        if view.viewer is None:
            raise Flip7Error("an observation is a seat's: the view must have a viewer")
        out = np.zeros(self.size, np.float32)
        target = view.rules.target_score
        on_view = np.zeros(_CARDS, np.float32)
        for p in view.players:
            b = _SEAT_SIZE * p.seat
            out[b + _STATUSES.index(p.status)] = 1
            for card in p.line:
                out[b + _S["numbers"] + card] += 1
                on_view[card] += 1
            for card in p.modifiers:
                out[b + _S["modifiers"] + card - Card.DIVIDE_2] += 1
                on_view[card] += 1
            out[b + _S["number_sum"]] = p.number_sum / 100
            out[b + _S["number_count"]] = len(p.line) / 7
            out[b + _S["round_score"]] = max(-1.0, min(1.0, p.round_score / 100))
            out[b + _S["total"]] = max(-2.0, min(2.0, p.total / target))
            out[b + _S["dealer"]] = p.seat == view.dealer
            out[b + _S["to_decide"]] = p.seat == view.to_decide
            out[b + _S["viewer"]] = p.seat == view.viewer
        t = _SEAT_SIZE * n
        out[t + _T["phase"] + _PHASES.index(view.phase)] = 1
        if view.decision_kind is not None:
            out[t + _T["decision_kind"] + _KINDS.index(view.decision_kind)] = 1
        if view.pending_card is not None:
            out[t + _T["pending_card"] + view.pending_card] = 1
        out[t + _T["needs_card"]] = view.needs_card
        deck = _DECK[view.decks]
        out[t + _T["draw_pile_size"]] = view.draw_pile_size / deck.sum()
        discard = _counts(view.discard_pile)
        aside = _counts(view.set_aside)
        pile = deck - on_view - discard - aside
        out[t + _T["draw_pile"] : t + _T["draw_pile"] + _CARDS] = pile / deck
        out[t + _T["discard_pile"] : t + _T["discard_pile"] + _CARDS] = discard / deck
        out[t + _T["set_aside"] : t + _T["set_aside"] + _CARDS] = aside / deck
        out[t + _T["round"]] = min(view.round / 40, 1.0)
        self._rules(out, view.rules, view.decks)
        return out


def _counts(cards: Iterable[Card]) -> npt.NDArray[np.float32]:
    out = np.zeros(_CARDS, np.float32)
    for card in cards:
        out[card] += 1
    return out


def draw_pile_counts(vector: npt.NDArray[np.float32], players: int, decks: int) -> list[int]:
    """The draw pile composition an observation holds, as 27 counts by card code (the
    inverse of its scaling; for tests and readers of the vector)."""
    t = _SEAT_SIZE * players + _T["draw_pile"]
    return [round(float(x)) for x in vector[t : t + _CARDS] * _DECK[decks]]
