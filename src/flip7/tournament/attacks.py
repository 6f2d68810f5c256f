"""Attack points: what each player took from the other players' round scores by its attacks.

Read from a game's events (``Game.new(..., events=True)``). Only harm done to *other*
players counts, and every attack is credited to the player whose decision made it:

* **Steal, Discard**: the face value the victim's line loses: a Number card's value (Lucky 13
  13, Unlucky 7 7, The Zero 0); a minus Modifier taken away counts minus its penalty (it
  helped the victim); ÷2 and Actions count 0.
* **Swap**: for each other player in the swap, the face value of the card it gave up less
  that of the card it got (a Modifier's face value is minus its penalty, ÷2 is 0).
* **A Modifier given to another player**: what it cost them in that round's scoring: their
  round score without it less their score with it, at the end of the round (0 if it left
  their line before then; a busted line scores 0 either way, except in Brutal mode where a
  busted line's Modifiers still count).
* **Busts and wipes caused**: when another player busts, or has its line wiped by an
  Unlucky 7, on a card drawn by the user's Just One More! or Flip Four!, or received in the
  user's Swap: the round score the victim's line had just before (a bust), or the face value
  of the cards wiped.
* **Brutal −15**: 15.

>>> from flip7.core.cards import Card
>>> from flip7.core.events import Stolen, Swapped
>>> attack_points([Stolen(0, 2, Card.TEN), Swapped(1, 1, Card.TWO, 2, Card.NINE)], 3)
[10, 7, 0]
"""

from __future__ import annotations

from collections.abc import Iterable

from flip7.core.cards import PENALTY, VALUE, Card
from flip7.core.events import (
    ActionUsed,
    Busted,
    Dealt,
    Drew,
    Event,
    Minus15,
    ModifierGiven,
    RoundScored,
    Stayed,
    Stolen,
    Swapped,
    Wiped,
)
from flip7.core.events import Discarded as DiscardedEvent
from flip7.core.rules import Rules
from flip7.core.scoring import FLIP7_BONUS, line_score

__all__ = ["attack_points", "face_value"]

_DEFAULT_RULES = Rules()
# A card's face value in a line: a Number's value, minus a minus Modifier's penalty.
_FACE = tuple(VALUE[c] - PENALTY[c] for c in Card)


def face_value(card: Card) -> int:
    """A card's face value in a line: a Number card's value, minus a minus Modifier's
    penalty, 0 for ÷2 and the Actions.

    >>> face_value(Card.LUCKY_13), face_value(Card.MINUS_4), face_value(Card.DIVIDE_2)
    (13, -4, 0)
    """
    return _FACE[card]


def _score(
    numbers: tuple[Card, ...] | list[Card],
    modifiers: list[Card],
    busted: bool,
    flip7: bool,
    bonus: bool,
    rules: Rules,
) -> int:
    return line_score(numbers, modifiers, rules, busted=busted, flip7=flip7, bonus=bonus)


def attack_points(events: Iterable[Event], players: int, rules: Rules | None = None) -> list[int]:
    """Attack points per seat over ``events`` (a whole game's, or whole rounds'); see the
    module's description for what counts."""
    rules = rules if rules is not None else _DEFAULT_RULES
    points = [0] * players
    last_action_on: dict[int, int] = {}  # target -> user of the latest JOM/Flip Four on it
    busts: list[tuple[int, int, Card]] = []  # (attacker, victim, card) of this round
    given: list[tuple[int, int, Card]] = []  # (attacker, victim, Modifier) of this round
    swap: Swapped | None = None  # the Swap whose consequences are being reported
    prev: Event | None = None
    for event in events:
        kind = type(event)
        if kind is Drew or kind is Dealt or kind is Stayed:
            swap = None
        elif kind is Busted or kind is Wiped:
            assert isinstance(event, Busted | Wiped)
            victim = event.seat
            attacker: int | None = None
            if swap is not None and victim in (swap.seat1, swap.seat2):
                attacker = swap.seat
            elif (
                isinstance(prev, Drew)
                and prev.seat == victim
                and prev.cause != "hit"
                and (kind is Busted or prev.card is Card.UNLUCKY_7)
            ):
                attacker = last_action_on.get(victim)
            if attacker is not None and attacker != victim:
                if isinstance(event, Busted):
                    busts.append((attacker, victim, event.card))
                else:
                    points[attacker] += sum(_FACE[c] for c in event.cards)
        elif kind is Stolen or kind is DiscardedEvent:
            assert isinstance(event, Stolen | DiscardedEvent)
            swap = None
            if event.victim != event.seat:
                points[event.seat] += _FACE[event.card]
        elif kind is Swapped:
            assert isinstance(event, Swapped)
            swap = event
            user = event.seat
            if event.seat1 != user:
                points[user] += _FACE[event.card1] - _FACE[event.card2]
            if event.seat2 != user:
                points[user] += _FACE[event.card2] - _FACE[event.card1]
        elif kind is ModifierGiven:
            assert isinstance(event, ModifierGiven)
            swap = None
            if event.to != event.seat:
                given.append((event.seat, event.to, event.card))
        elif kind is ActionUsed:
            assert isinstance(event, ActionUsed)
            swap = None
            last_action_on[event.target] = event.seat
        elif kind is Minus15:
            assert isinstance(event, Minus15)
            if event.target != event.seat:
                points[event.seat] += FLIP7_BONUS
        elif kind is RoundScored:
            assert isinstance(event, RoundScored)
            swap = None
            _settle(event, busts, given, points, rules)
            busts.clear()
            given.clear()
            last_action_on.clear()
        else:
            swap = None
        prev = event
    return points


def _settle(
    scored: RoundScored,
    busts: list[tuple[int, int, Card]],
    given: list[tuple[int, int, Card]],
    points: list[int],
    rules: Rules,
) -> None:
    """Value the round's caused busts and given Modifiers from the lines as scored."""
    bonus = scored.minus15 is None
    for attacker, victim, card in busts:
        line = list(scored.lines[victim])
        if line and line[-1] is card:
            line.pop()  # the busting card came last
        modifiers = list(scored.modifiers[victim])
        before = _score(line, modifiers, False, False, bonus, rules)
        points[attacker] += before - _score(line, modifiers, True, False, bonus, rules)
    for attacker, victim, card in given:
        modifiers = list(scored.modifiers[victim])
        if card not in modifiers:
            continue
        numbers = scored.lines[victim]
        busted = victim in scored.busted
        flip7 = scored.flip7 == victim
        with_it = _score(numbers, modifiers, busted, flip7, bonus, rules)
        modifiers.remove(card)
        points[attacker] += _score(numbers, modifiers, busted, flip7, bonus, rules) - with_it
