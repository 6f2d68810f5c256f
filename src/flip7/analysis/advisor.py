"""The advisor: hit or stay, with the figures behind it, from public information only.

:func:`advise` takes a :class:`Situation` (every line, who stayed or busted, the totals,
whose decision it is and the draw pile's *composition*) and reports, for one player:

* ``p_bust_next``: the probability that the next card busts the line (exact);
* ``p_flip7_next``: the probability that the next card completes Flip 7 (exact);
* ``p_flip7_keep_hitting``: the probability of reaching Flip 7 by hitting until Flip 7 or a
  bust (exact within the model below, Unlucky 7 wipes included);
* ``ev_stay``: the round score of the line if the player stays now (RULES.md §8, §10);
* ``ev_hit``: the expected round score of hitting once and then playing on optimally;
* the recommendation, ``"hit"`` or ``"stay"``, with a one-line reason.

A situation comes from a :class:`~flip7.engine.game.Game` (:meth:`Situation.from_game` reads only
the public view: the draw pile's composition is worked out by counting cards, as anyone at
the table can), from a record of the game so far (:meth:`Situation.from_record`), or from
explicit fields (:meth:`Situation.from_fields`).

**The model** behind the multi-card figures (the one-card figures need none):

* Only the advised player's line and the draw pile matter. The cards other players draw in
  between are, by symmetry, no different from cards left in the pile, so the player is
  modelled as drawing alone from the pile as it is now.
* Action cards are neutral: drawn, used on someone else (or to no effect on this line) and
  gone. Modifier cards are neutral too, given to another player (§7.2), unless the player
  is the only one who has not busted in standard mode and must keep them (§7.3): then they
  join the line and count (§8).
* The pile's Number cards come in uniformly random order; the rules of §4 apply exactly:
  duplicates bust, The Zero forces hits and zeroes a line without Flip 7, Unlucky 7 wipes
  the line (and its Modifiers), Lucky 13 pairs, seven Number cards are Flip 7 (+15).
* ``ev_hit``: after an Unlucky 7 wipe the expected score is worked out as if the cards drawn
  before the wipe were back in the pile, and Modifiers drawn after it were neutral (the
  game after a wipe is then solved once, which keeps the calculation fast; for a whole
  solitaire round the difference is 0.0007 points). ``p_flip7_keep_hitting`` and the
  one-card figures have no such shortcut.
* ``ev_hit`` with the Modifiers kept: the model tells the Modifiers drawn apart (exact)
  while that takes about 4,096 states or fewer: late in a round, or with few Modifiers left
  in the pile. Otherwise, every set of Modifiers drawn multiplying the states, it counts
  them, up to two (:class:`~flip7.analysis.solver.LineModel`, ``count_modifiers``): the decisions
  depend on the line and on how many Modifiers were drawn, each score is the mean over
  which of the pile's Modifiers they are (every set of that many as likely), and a third
  or later one is left out. Against telling them apart, measured: at most 0.028 points off
  (0.005 on average) over the 69 counted of the 181 decisions with the Modifiers kept in
  120 self-played four-player games (the other 112 exact), at most 0.017 over 60 lines of
  one or two cards early in a round, at most 0.007 over 14 with two decks; no
  recommendation changed.
* If the draw pile is empty the next card comes from the reshuffled discard pile, which is
  then the pile; a later reshuffle is not modelled (the line is scored as it stands).
* The round ending early (someone else's Flip 7, or Actions that reach this line) is not
  modelled; a Brutal Flip 7 is worth +15 to the line.

>>> from flip7.engine.game import Game
>>> game = Game.new(["Ann", "Bob", "Cyd"], explicit=True, dealer=2)
>>> for code in ["12", "5", "9"]:
...     _ = game.draw(code)
>>> _ = game.apply("hit"); _ = game.draw("11")     # Ann: 12 and 11
>>> advice = advise(game)                             # Bob decides, on a 5
>>> advice.seat, advice.recommendation, advice.p_bust_next
(1, 'hit', Fraction(1, 26))
>>> print(advice.reason)
hit: 4% bust risk on the next card; a hit is worth 21.0 on average, staying 5
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING, Any

from flip7.analysis.solver import (
    NUMBER_SLOTS,
    LineModel,
    LineRules,
    always_hit_flip7,
    flip7_reached,
    key_cards,
    line_key,
    receive,
)
from flip7.core.cards import Card, deck_counts
from flip7.core.decisions import HIT, STAY, DecisionKind
from flip7.core.errors import CardError, Flip7Error, GameStateError
from flip7.core.lines import FLIP7_CARDS, busting_draws, has_duplicate, must_hit
from flip7.core.rules import Rules, decks_problem
from flip7.core.scoring import line_score
from flip7.engine.game import Game, Status

if TYPE_CHECKING:
    from flip7.engine.record import Record
    from flip7.engine.view import GameView

__all__ = ["Advice", "NextCard", "Situation", "advise", "benchmark", "bust_risk", "next_card"]

# With the Modifiers kept (§7.3), the model tells the Modifiers drawn apart while that takes
# at most about this many states, and otherwise counts them, up to two (the module
# docstring's model).
_EXACT_STATES = 4096
_COUNTED = 2
_MODIFIER_ORDER = (
    Card.DIVIDE_2, Card.MINUS_2, Card.MINUS_4, Card.MINUS_6, Card.MINUS_8, Card.MINUS_10,
)  # fmt: skip


def _codes(cards: Iterable[Card]) -> list[str]:
    return [card.code for card in cards]


def _parse(cards: Iterable[Card | str], what: str) -> tuple[Card, ...]:
    out = []
    for card in cards:
        if isinstance(card, Card):
            out.append(card)
        elif isinstance(card, str):
            out.append(Card.parse(card))
        else:
            raise CardError(f"{what}: a card is a Card or a card code, not {card!r}")
    return tuple(out)


def _counts(cards: Iterable[Card]) -> tuple[int, ...]:
    counts = [0] * len(Card)
    for card in cards:
        counts[card] += 1
    return tuple(counts)


def _unseen(view: GameView) -> tuple[int, ...]:
    """The draw pile's composition as the table sees it: the deck less every card in a
    line, on the discard pile or set aside (card counting), counts indexed by Card."""
    counts = [0] * len(Card)
    for card, n in deck_counts(view.decks).items():
        counts[card] = n
    for player in view.players:
        for card in player.line:
            counts[card] -= 1
        for card in player.modifiers:
            counts[card] -= 1
    for card in view.discard_pile:
        counts[card] -= 1
    for card in view.set_aside:
        counts[card] -= 1
    if min(counts) < 0:
        raise GameStateError("more cards are on the table than the decks hold")
    return tuple(counts)


def _seat_to_advise(view: GameView, seat: int | None) -> int:
    if seat is None:
        seat = view.to_decide
        if seat is None:
            raise GameStateError("nobody has to decide now: name the seat to advise")
    return seat


@dataclass(frozen=True, slots=True)
class Situation:
    """A table as the players see it, and the player to advise.

    ``numbers`` and ``modifiers`` hold each seat's line (Number cards in the order received,
    then the Modifiers above them); ``pile`` and ``discard`` are card counts indexed by
    :class:`Card` (27 entries): the draw pile's composition, not its order.
    """

    rules: Rules
    decks: int
    seat: int
    numbers: tuple[tuple[Card, ...], ...]
    modifiers: tuple[tuple[Card, ...], ...]
    statuses: tuple[Status, ...]
    totals: tuple[int, ...]
    to_decide: int | None
    pile: tuple[int, ...]
    discard: tuple[int, ...]

    def __post_init__(self) -> None:
        n = len(self.numbers)
        if not (len(self.modifiers) == len(self.statuses) == len(self.totals) == n) or n < 1:
            raise GameStateError("a situation needs one line, status and total per seat")
        if not 0 <= self.seat < n:
            raise GameStateError(f"seat must be from 0 to {n - 1}, got {self.seat}")
        if self.statuses[self.seat] is not Status.ACTIVE:
            raise GameStateError(
                f"seat {self.seat} has {self.statuses[self.seat]}: there is no Hit or Stay to "
                "advise"
            )
        if len(self.pile) != len(Card) or len(self.discard) != len(Card):
            raise GameStateError("pile and discard are counts for each of the 27 cards")
        if min(self.pile) < 0 or min(self.discard) < 0:
            raise GameStateError("card counts cannot be negative")
        line = self.numbers[self.seat]
        if any(not card.is_number for card in line) or any(
            not card.is_modifier for card in self.modifiers[self.seat]
        ):
            raise GameStateError("a line holds Number cards, with Modifiers apart")
        try:
            line_key(line)
        except Flip7Error as exc:
            raise GameStateError(f"seat {self.seat}'s line: {exc}") from None

    # ------------------------------------------------------------------ constructors

    @classmethod
    def from_view(cls, view: GameView, seat: int | None = None) -> Situation:
        """From what the table sees (a :class:`~flip7.engine.view.GameView`): the draw pile is the
        deck less every card in a line, on the discard pile or set aside (card counting)."""
        pile = _unseen(view)
        seat = _seat_to_advise(view, seat)
        return cls(
            rules=view.rules,
            decks=view.decks,
            seat=seat,
            numbers=tuple(p.line for p in view.players),
            modifiers=tuple(p.modifiers for p in view.players),
            statuses=tuple(p.status for p in view.players),
            totals=tuple(p.total for p in view.players),
            to_decide=view.to_decide,
            pile=pile,
            discard=_counts(view.discard_pile),
        )

    @classmethod
    def from_game(cls, game: Game, seat: int | None = None) -> Situation:
        """From a game, through its public (spectator's) view only: never the draw pile's
        order. ``seat`` defaults to the player who must decide now."""
        return cls.from_view(game.view(None), seat)

    @classmethod
    def from_record(
        cls, record: Record | dict[str, Any] | str, seat: int | None = None
    ) -> Situation:
        """From a record of the game so far (RECORD.md), replayed."""
        from flip7.engine.record import replay_game

        return cls.from_game(replay_game(record), seat)

    @classmethod
    def from_fields(
        cls,
        lines: Sequence[Iterable[Card | str]],
        *,
        seat: int,
        statuses: Sequence[Status | str] | None = None,
        totals: Sequence[int] | None = None,
        to_decide: int | None = None,
        pile: Mapping[Card | str, int] | Iterable[Card | str] | None = None,
        discard: Iterable[Card | str] = (),
        seen: Iterable[Card | str] = (),
        rules: Rules | None = None,
        decks: int = 1,
    ) -> Situation:
        """From explicit fields: each seat's line as cards or card codes (Number cards in the
        order received, Modifiers anywhere), statuses (``"active"``, ``"stayed"``,
        ``"busted"``; all active by default), totals, and the draw pile's composition as
        counts or as a list of cards. Without ``pile`` the draw pile is the deck(s) less
        every card in a line, on the discard pile, or in ``seen`` (any other card known to
        be out of the draw pile: set aside, or in a line not given). A player with no other
        non-busted seat listed is alone and must keep the Modifiers they draw (§7.3).

        >>> situation = Situation.from_fields([["5", "9", "/2"], ["13"], ["7", "7"]],
        ...                                   seat=0, statuses=["active", "stayed", "busted"])
        >>> sum(situation.pile), situation.numbers[0], situation.modifiers[0]
        (102, (Card.FIVE, Card.NINE), (Card.DIVIDE_2,))
        """
        problem = decks_problem(decks)
        if problem is not None:
            raise GameStateError(problem)
        parsed = [_parse(line, f"seat {s}'s line") for s, line in enumerate(lines)]
        if any(card.is_action for line in parsed for card in line):
            raise GameStateError("Action cards never stay in a line")
        n = len(parsed)
        status_list = [
            s if isinstance(s, Status) else _status(s)
            for s in (statuses if statuses is not None else [Status.ACTIVE] * n)
        ]
        discard_cards = _parse(discard, "discard")
        seen_cards = _parse(seen, "seen")
        if pile is None:
            counts = deck_counts(decks)
            counts.subtract(card for line in parsed for card in line)
            counts.subtract(discard_cards)
            counts.subtract(seen_cards)
            if any(k < 0 for k in counts.values()):
                raise GameStateError(
                    f"more cards are named than {decks} deck(s) hold: "
                    + ", ".join(f"{c.code} ×{-k}" for c, k in counts.items() if k < 0)
                )
            pile_counts = _counts(counts.elements())
        elif isinstance(pile, Mapping):
            pile_list: list[Card] = []
            for card, k in pile.items():
                (c,) = _parse([card], "pile")
                if type(k) is not int or k < 0:
                    raise GameStateError(f"pile: {c.code} count must be a whole number >= 0")
                pile_list.extend([c] * k)
            pile_counts = _counts(pile_list)
        else:
            pile_counts = _counts(_parse(pile, "pile"))
        return cls(
            rules=rules if rules is not None else Rules(),
            decks=decks,
            seat=seat,
            numbers=tuple(tuple(c for c in line if c.is_number) for line in parsed),
            modifiers=tuple(tuple(c for c in line if c.is_modifier) for line in parsed),
            statuses=tuple(status_list),
            totals=tuple(totals) if totals is not None else (0,) * n,
            to_decide=to_decide,
            pile=pile_counts,
            discard=_counts(discard_cards),
        )

    # ------------------------------------------------------------------ what the model needs

    @property
    def draw_counts(self) -> tuple[int, ...]:
        """The cards the next draw can be: the draw pile, or the discard pile when the draw
        pile is empty (it is reshuffled first, §3.5.1)."""
        return self.pile if sum(self.pile) else self.discard

    @property
    def keeps_modifiers(self) -> bool:
        """Whether a Modifier the player reveals must stay in their line: in standard mode,
        when every other player has busted (§7.3; in Brutal they may go to busted players)."""
        if self.rules.brutal:
            return len(self.statuses) < 2
        return all(st is Status.BUSTED for s, st in enumerate(self.statuses) if s != self.seat)

    def stay_score(self) -> int:
        """The advised line's round score if the round ended now (§8, §10)."""
        numbers, modifiers = self.numbers[self.seat], self.modifiers[self.seat]
        return line_score(numbers, modifiers, self.rules, busted=has_duplicate(numbers))

    def must_hit(self) -> str | None:
        """Why the player may not Stay (The Zero, §4.3.3; an empty line, §3.2.3), or None."""
        return must_hit(self.numbers[self.seat], self.modifiers[self.seat], self.rules)

    @classmethod
    def from_json(cls, data: Any) -> Situation:
        """From the JSON object :meth:`to_json` writes (``lines``, ``seat`` and ``pile`` are
        required; ``statuses``, ``totals``, ``to_decide``, ``discard``, ``rules`` and
        ``decks`` are optional).

        >>> s = Situation.from_fields([["5", "/2"], ["9"]], seat=0)
        >>> Situation.from_json(s.to_json()) == s
        True
        """
        if not isinstance(data, dict):
            raise GameStateError("a situation is a JSON object")
        for key in ("lines", "seat", "pile"):
            if key not in data:
                raise GameStateError(f"a situation needs {key!r}")
        unknown = set(data) - {
            "lines", "seat", "pile", "statuses", "totals", "to_decide", "discard", "rules",
            "decks",
        }  # fmt: skip
        if unknown:
            raise GameStateError(f"unknown situation keys: {', '.join(sorted(unknown))}")
        pile, discard = data["pile"], data.get("discard", {})
        if not isinstance(pile, dict) or not isinstance(discard, dict):
            raise GameStateError("pile and discard are objects of card code: count")
        discard_cards = []
        for code, k in discard.items():
            if type(k) is not int or k < 0:
                raise GameStateError(f"discard: {code} count must be a whole number >= 0")
            discard_cards.extend([code] * k)
        lines = data["lines"]
        if not isinstance(lines, list) or not all(isinstance(line, list) for line in lines):
            raise GameStateError("lines is a list of lists of card codes")
        return cls.from_fields(
            lines,
            seat=data["seat"],
            statuses=data.get("statuses"),
            totals=data.get("totals"),
            to_decide=data.get("to_decide"),
            pile=pile,
            discard=discard_cards,
            rules=Rules.from_json(data.get("rules", {})),
            decks=data.get("decks", 1),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_json(),
            "decks": self.decks,
            "seat": self.seat,
            "lines": [
                _codes(nums) + _codes(mods)
                for nums, mods in zip(self.numbers, self.modifiers, strict=True)
            ],
            "statuses": [str(s) for s in self.statuses],
            "totals": list(self.totals),
            "to_decide": self.to_decide,
            "pile": {Card(i).code: k for i, k in enumerate(self.pile) if k},
            "discard": {Card(i).code: k for i, k in enumerate(self.discard) if k},
        }


def _status(text: str) -> Status:
    try:
        return Status[text.strip().upper()]
    except (KeyError, AttributeError):
        raise GameStateError(
            f"unknown status {text!r}; statuses are active, stayed, busted"
        ) from None


# ---------------------------------------------------------------------------- one card


@dataclass(frozen=True, slots=True)
class NextCard:
    """The exact odds of the next card for the advised line (from counts alone)."""

    cards: int  # cards the next draw can be
    p_bust: Fraction
    p_flip7: Fraction
    p_number: Fraction

    def to_json(self) -> dict[str, Any]:
        return {
            "cards": self.cards,
            "p_bust": float(self.p_bust),
            "p_flip7": float(self.p_flip7),
            "p_number": float(self.p_number),
        }


def next_card(situation: Situation) -> NextCard:
    """The one-card figures: what the next card does to the advised line (exact, §4–§5).
    ``p_bust`` is *the* bust risk: the share of the cards the next draw can be that are
    Number cards the line cannot hold (:func:`flip7.core.lines.busting_draws`).

    >>> s = Situation.from_fields([["12", "11"], []], seat=0, pile=["12", "5", "JOM", "L13"])
    >>> odds = next_card(s)
    >>> odds.p_bust, odds.p_flip7, odds.p_number
    (Fraction(1, 4), Fraction(0, 1), Fraction(3, 4))
    """
    counts = situation.draw_counts
    size = sum(counts)
    if not size:
        zero = Fraction(0)
        return NextCard(0, zero, zero, zero)
    line = situation.numbers[situation.seat]
    busting = busting_draws(line)
    key = line_key(line)
    distinct = situation.rules.lucky13_pair_flip7_count == 1
    bust = sum(counts[card] for card in busting)
    flip = numbers = 0
    for slot in range(NUMBER_SLOTS):
        k = counts[slot]
        if not k:
            continue
        numbers += k
        if slot not in busting and flip7_reached(receive(key, slot), distinct=distinct):
            flip += k
    return NextCard(size, Fraction(bust, size), Fraction(flip, size), Fraction(numbers, size))


def bust_risk(table: Game | GameView, seat: int | None = None) -> Fraction:
    """The chance that the next card busts ``seat``'s line (by default the player who must
    decide), from what everyone at the table sees: :func:`next_card`'s ``p_bust``. The
    terminal game and the web app show this figure.

    >>> from flip7.engine.game import Game
    >>> game = Game.new(3, explicit=True, dealer=2)
    >>> for code in ["12", "5", "9"]:
    ...     _ = game.draw(code)
    >>> bust_risk(game)                                   # seat 0 on a 12: 11 of 105 cards
    Fraction(11, 105)
    """
    view = table.view(None) if isinstance(table, Game) else table
    # Sent with every state a deciding seat receives: worked out from the counts alone, the
    # same figure as next_card(Situation.from_view(view, seat)).p_bust (a test compares
    # them) without building the situation and its exact odds of Flip 7.
    seat = _seat_to_advise(view, seat)
    if not 0 <= seat < len(view.players):
        raise GameStateError(f"seat must be from 0 to {len(view.players) - 1}, got {seat}")
    player = view.players[seat]
    if player.status is not Status.ACTIVE:
        raise GameStateError(f"seat {seat} has {player.status}: there is no Hit or Stay to advise")
    counts = _unseen(view)
    if not sum(counts):
        counts = _counts(view.discard_pile)
    size = sum(counts)
    if not size:
        return Fraction(0)
    return Fraction(sum(counts[card] for card in busting_draws(player.line)), size)


# ---------------------------------------------------------------------------- advice


@dataclass(frozen=True, slots=True)
class Advice:
    """What :func:`advise` reports for one player's Hit or Stay."""

    seat: int
    recommendation: str  # "hit" or "stay"
    reason: str
    must_hit: bool
    p_bust_next: Fraction
    p_flip7_next: Fraction
    p_flip7_keep_hitting: Fraction
    ev_stay: int
    ev_hit: float
    keeps_modifiers: bool
    cards_left: int

    @property
    def ev_best(self) -> float:
        """The expected round score of playing on as recommended."""
        return self.ev_hit if self.recommendation == "hit" else float(self.ev_stay)

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "recommendation": self.recommendation,
            "reason": self.reason,
            "must_hit": self.must_hit,
            "p_bust_next": float(self.p_bust_next),
            "p_bust_next_exact": str(self.p_bust_next),
            "p_flip7_next": float(self.p_flip7_next),
            "p_flip7_next_exact": str(self.p_flip7_next),
            "p_flip7_keep_hitting": float(self.p_flip7_keep_hitting),
            "p_flip7_keep_hitting_exact": str(self.p_flip7_keep_hitting),
            "ev_stay": self.ev_stay,
            "ev_hit": self.ev_hit,
            "keeps_modifiers": self.keeps_modifiers,
            "cards_left": self.cards_left,
        }


def advise(situation: Situation | Game, seat: int | None = None) -> Advice:
    """Advise one player (by default the one who must decide) whether to hit or stay.

    A :class:`~flip7.engine.game.Game` is read through its public view only (see
    :meth:`Situation.from_game`). The figures are described in the module docstring.
    """
    if isinstance(situation, Game):
        situation = Situation.from_game(situation, seat)
    elif seat is not None and seat != situation.seat:
        raise GameStateError("give the seat when the situation is built")
    odds = next_card(situation)
    counts = situation.draw_counts
    rules = situation.rules
    s = situation.seat
    numbers = list(counts[:NUMBER_SLOTS])
    keep = situation.keeps_modifiers
    modifiers = [counts[c] for c in _MODIFIER_ORDER] if keep else None
    own_mods = situation.modifiers[s]
    line_rules = LineRules(
        the_zero=True,
        flip7_distinct=rules.lucky13_pair_flip7_count == 1,
        can_stay_empty=rules.can_stay_with_empty_line,
        brutal=rules.brutal,
        busted_modifiers_count=rules.busted_modifiers_count,
        divides=own_mods.count(Card.DIVIDE_2),
        penalty=sum(card.penalty for card in own_mods),
    )
    key = line_key(situation.numbers[s])
    counted = None
    if modifiers is not None and _kept_states(key, numbers, modifiers) > _EXACT_STATES:
        counted = _COUNTED
    model = LineModel(numbers, line_rules, modifiers=modifiers, count_modifiers=counted)
    stay = situation.stay_score()
    forced = situation.must_hit()
    modelled = sum(numbers) + (sum(modifiers) if modifiers is not None else 0)
    size = odds.cards
    if modelled:
        now = model.value(key)
        after = model.hit_value(key)
        neutral = Fraction(size - modelled, size)
        ev_hit = float(neutral) * now + float(1 - neutral) * after
    else:
        ev_hit = float(stay)  # only neutral cards (or none) left: a hit changes nothing
    p_flip7 = always_hit_flip7(numbers, key, flip7_distinct=line_rules.flip7_distinct)
    if forced is not None:
        recommendation = "hit"
        reason = f"hit: {forced}; {_pct(p_flip7)} to reach Flip 7 by hitting on"
    elif not size:
        recommendation = "stay"
        reason = "stay: no card is left to draw"
    elif ev_hit > stay:
        recommendation = "hit"
        reason = (
            f"hit: {_pct(odds.p_bust)} bust risk on the next card; a hit is worth "
            f"{ev_hit:.1f} on average, staying {stay}"
        )
    else:
        recommendation = "stay"
        reason = (
            f"stay: {_pct(odds.p_bust)} bust risk on the next card; a hit is worth "
            f"{ev_hit:.1f} on average, staying {stay}"
        )
    return Advice(
        seat=s,
        recommendation=recommendation,
        reason=reason,
        must_hit=forced is not None,
        p_bust_next=odds.p_bust,
        p_flip7_next=odds.p_flip7,
        p_flip7_keep_hitting=p_flip7,
        ev_stay=stay,
        ev_hit=ev_hit,
        keeps_modifiers=keep,
        cards_left=size,
    )


def _kept_states(key: int, numbers: Sequence[int], modifiers: Sequence[int]) -> int:
    """About how many states the own-line model takes when it tells the kept Modifiers
    apart: the lines the line can grow into (at most six cards) times the sets of Modifiers
    the pile can give."""
    held = len(key_cards(key))
    free = sum(
        1
        for value in range(14)
        if not key >> value & 1 and (numbers[value] or (value == 13 and numbers[NUMBER_SLOTS - 1]))
    )
    lines = sum(comb(free, k) for k in range(max(0, FLIP7_CARDS - 1 - held) + 1))
    sets = 1
    for count in modifiers:
        sets *= count + 1
    return lines * sets


def _pct(p: Fraction) -> str:
    value = float(p) * 100
    if 0 < value < 1:
        return "under 1%"
    if 99 < value < 100:
        return "over 99%"
    return f"{value:.0f}%"


# ---------------------------------------------------------------------------- timing


def benchmark(games: int = 20, players: int = 4, seed: int = 0) -> dict[str, Any]:
    """Time the advisor at every Hit or Stay of ``games`` self-played games (players hit
    below a number sum of 27 and take the first legal option otherwise): the one-card
    figures and the full advice, in milliseconds (median, 95th percentile, maximum, the share
    over 50 ms), and how many decisions were timed.

    >>> result = benchmark(games=1, players=3)
    >>> result["decisions"] > 0 and result["full_ms"]["median"] > 0
    True
    """
    one: list[float] = []
    full: list[float] = []
    for g in range(games):
        game = Game.new(players, seed=seed * 1000 + g)
        while not game.over:
            seat = game.to_decide
            assert seat is not None
            if game.decision_kind is DecisionKind.HIT_OR_STAY:
                situation = Situation.from_game(game)
                start = time.perf_counter()
                next_card(situation)
                middle = time.perf_counter()
                advise(situation)
                end = time.perf_counter()
                one.append((middle - start) * 1000)
                full.append((end - middle) * 1000)
                game.apply(HIT if game.number_sum(seat) < 27 else STAY)
            else:
                game.apply(game.legal_decisions()[0])
    return {
        "decisions": len(full),
        "one_card_ms": _summary(one),
        "full_ms": _summary(full),
    }


def _summary(times: list[float]) -> dict[str, float]:
    if not times:
        return {"median": 0.0, "p95": 0.0, "max": 0.0, "over_50ms": 0.0}
    ordered = sorted(times)
    return {
        "median": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
        "max": ordered[-1],
        "over_50ms": sum(1 for t in ordered if t > 50) / len(ordered),
    }
