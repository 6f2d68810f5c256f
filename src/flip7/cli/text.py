"""Plain-text wording of cards, events and decisions, shared by ``play`` and ``replay``.

No Rich here: ``replay`` must work without it.

>>> from flip7.core.cards import Card
>>> names = Names(["You", "Bob", "Cyd"], you=0)
>>> card_name(Card.MINUS_4), card_name(Card.LUCKY_13), card_name(Card.FLIP_FOUR)
('−4', 'Lucky 13', 'Flip Four!')
>>> from flip7.core.decisions import Discard
>>> describe_decision(Discard(1, Card.ZERO), names, 0, Card.DISCARD)
"Discard Bob's Zero"
>>> from flip7.core.events import Busted, ModifierGiven
>>> describe_event(Busted(2, Card.NINE), names)
'Cyd busted on 9'
>>> describe_event(ModifierGiven(1, 0, Card.MINUS_4), names)
'Bob gave −4 to you'
>>> from flip7.core.decisions import Steal, Give
>>> describe_decision(Steal(1, Card.ELEVEN), names, 0, None)
"Steal Bob's 11"
>>> describe_decision(Give(2), names, 0, Card.MINUS_4)
'Give −4 to Cyd'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from flip7.core.cards import Card
from flip7.core.decisions import (
    Bonus,
    Decision,
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
from flip7.core.explain import card_name as core_card_name

__all__ = [
    "Names",
    "card_name",
    "card_short",
    "cards_text",
    "describe_decision",
    "describe_event",
    "owned",
    "winners_text",
]

def card_name(card: Card) -> str:
    """A card as a reader says it, mid-sentence: the player's name of it
    (:func:`flip7.core.explain.card_name`: ``7``, ``Lucky 13``, ``÷2``, ``−4``,
    ``Flip Four!``), with ``the Zero`` in lower case."""
    return "the Zero" if card is Card.ZERO else core_card_name(card)


def owned(card: Card) -> str:
    """A card after a possessive: ``Bob's Zero``, ``your Lucky 13``."""
    return card_name(card).removeprefix("the ")


def card_short(card: Card) -> str:
    """A card in a line, compactly: the code, with ÷ and − for the Modifiers."""
    if card.is_modifier:
        return card.code.replace("/", "÷").replace("-", "−")
    return card.code


def cards_text(cards: Iterable[Card]) -> str:
    """Cards in a row, compactly: ``3 11 U7 ÷2 −4``."""
    return " ".join(card_short(c) for c in cards)


class Names:
    """Player names for sentences; the human's seat (``you``) reads as You / you / your."""

    def __init__(self, names: Sequence[str], you: int | None = None) -> None:
        self.names = tuple(names)
        self.you = you

    def subject(self, seat: int) -> str:
        return "You" if seat == self.you else self.names[seat]

    def object(self, seat: int) -> str:
        return "you" if seat == self.you else self.names[seat]

    def possessive(self, seat: int) -> str:
        return "your" if seat == self.you else f"{self.names[seat]}'s"

    def possessive_start(self, seat: int) -> str:
        return "Your" if seat == self.you else f"{self.names[seat]}'s"

    def reflexive(self, user: int, seat: int) -> str:
        """``seat`` as the object of ``user``'s action."""
        if seat == user:
            return "yourself" if seat == self.you else "themself"
        return self.object(seat)


def describe_event(event: Event, names: Names) -> str:
    """One readable log line for ``event``."""
    s = names.subject
    if isinstance(event, RoundStarted):
        return f"Round {event.round}: {s(event.dealer)} deal{_s(names, event.dealer)}"
    if isinstance(event, Dealt):
        return f"{s(event.seat)} {'were' if event.seat == names.you else 'was'} dealt " + (
            card_name(event.card)
        )
    if isinstance(event, Drew):
        why = {"hit": "", "just_one_more": " (Just One More!)", "flip_four": " (Flip Four!)"}
        return f"{s(event.seat)} drew {card_name(event.card)}{why[event.cause]}"
    if isinstance(event, SetAside):
        return f"{s(event.seat)} set {card_name(event.card)} aside until Flip Four! is done"
    if isinstance(event, Reshuffled):
        return f"The discard pile was shuffled into a new draw pile ({event.cards} cards)"
    if isinstance(event, Wiped):
        return f"Unlucky 7 wiped {names.possessive(event.seat)} line: {cards_text(event.cards)}"
    if isinstance(event, Busted):
        return f"{s(event.seat)} busted on {card_name(event.card)}"
    if isinstance(event, Stayed):
        if event.forced:
            return f"{s(event.seat)} must stay (Just One More!)"
        return f"{s(event.seat)} stayed"
    if isinstance(event, Flip7):
        return f"{s(event.seat)} made FLIP 7!"
    if isinstance(event, ActionUsed):
        target = names.reflexive(event.seat, event.target)
        return f"{s(event.seat)} used {card_name(event.card)} on {target}"
    if isinstance(event, Unused):
        why = {
            "no_legal_use": "had no legal use",
            "busted": "went unused (busted)",
            "round_over": "went unused (round over)",
        }
        card = owned(event.card)
        return f"{names.possessive_start(event.seat)} {card} {why[event.reason]}: discarded"
    if isinstance(event, Passed):
        return f"{s(event.seat)} passed {card_name(event.card)} to {names.object(event.to)}"
    if isinstance(event, Stolen):
        return f"{s(event.seat)} stole {card_name(event.card)} from {names.object(event.victim)}"
    if isinstance(event, Swapped):
        return (
            f"{s(event.seat)} swapped {names.possessive(event.seat1)} {owned(event.card1)} "
            f"with {names.possessive(event.seat2)} {owned(event.card2)}"
        )
    if isinstance(event, Discarded):
        return (
            f"{s(event.seat)} discarded {names.possessive(event.victim)} {owned(event.card)}"
        )
    if isinstance(event, ModifierGiven):
        if event.to == event.seat:
            return f"{s(event.seat)} kept {card_name(event.card)}"
        return f"{s(event.seat)} gave {card_name(event.card)} to {names.object(event.to)}"
    if isinstance(event, BonusTaken):
        return f"{s(event.seat)} took the +15 bonus"
    if isinstance(event, Minus15):
        return f"{s(event.seat)} took 15 points off {names.possessive(event.target)} total"
    if isinstance(event, RoundScored):
        scores = ", ".join(f"{names.names[i]} {v:+d}" for i, v in enumerate(event.scores))
        return f"Round {event.round} scored: {scores}"
    assert isinstance(event, GameOver)
    return f"Game over: {winners_text(event.winners, event.totals, names)}"


def _s(names: Names, seat: int) -> str:
    return "" if seat == names.you else "s"


def winners_text(winners: Sequence[int], totals: Sequence[int], names: Names) -> str:
    """``Ann wins with 212`` / ``You win with 205`` / ``Ann and Bob share the win with 205``."""
    if not winners:
        return "no winner yet"
    best = totals[winners[0]]
    if len(winners) == 1:
        seat = winners[0]
        return f"{names.subject(seat)} win{_s(names, seat)} with {best}"
    who = [names.subject(w) if i == 0 else names.object(w) for i, w in enumerate(winners)]
    return f"{', '.join(who[:-1])} and {who[-1]} share the win with {best}"


def describe_decision(decision: Decision, names: Names, me: int, card: Card | None) -> str:
    """An option as a menu line for the player at ``me``; ``card`` is the pending card."""
    what = card_name(card) if card is not None else "it"
    if isinstance(decision, Hit):
        return "Hit"
    if isinstance(decision, Stay):
        return "Stay"
    if isinstance(decision, Target):
        return f"{what} on {names.reflexive(me, decision.seat)}"
    if isinstance(decision, Give):
        if decision.seat == me:
            return f"Keep {what}"
        return f"Give {what} to {names.object(decision.seat)}"
    if isinstance(decision, Pass):
        if decision.seat == me:
            return f"Use {what} yourself" if me == names.you else f"Use {what}"
        return f"Pass {what} to {names.object(decision.seat)}"
    if isinstance(decision, Steal):
        return f"Steal {names.possessive(decision.seat)} {owned(decision.card)}"
    if isinstance(decision, Discard):
        return f"Discard {names.possessive(decision.seat)} {owned(decision.card)}"
    if isinstance(decision, Swap):
        first, second = (decision.seat1, decision.card1), (decision.seat2, decision.card2)
        if second[0] == me:
            first, second = second, first  # your own card first reads better
        return (
            f"Swap {names.possessive(first[0])} {owned(first[1])} "
            f"with {names.possessive(second[0])} {owned(second[1])}"
        )
    if isinstance(decision, Bonus):
        return "Take the +15 bonus"
    assert isinstance(decision, Minus)
    return f"Take 15 off {names.possessive(decision.seat)} total"
