"""What each card does, in a sentence or two, under the rules in play: the words a page
shows when a player points at a card (RULES.md §4–7, the options of §13 that change a card).

The numbers in these words (the Flip 7 count, its bonus, a card's copies) come from the
modules that own them; only the wording is written here.

>>> explain("L13", Rules())
'Worth 13, and it lets you hold a second 13 without busting: both score, and the pair
 counts as two cards toward Flip 7. A third 13 busts you.'
>>> explain("l13", Rules(lucky13_pair_flip7_count=1)).split(": ")[1]
'both score, and the pair counts as one card toward Flip 7. A third 13 busts you.'
>>> card_name(Card.FLIP_FOUR), card_name(Card.MINUS_4), card_name(Card.ZERO)
('Flip Four!', '−4', 'The Zero')
>>> explain("XX", Rules())
Traceback (most recent call last):
...
flip7.core.errors.CardError: unknown card code 'XX'; codes are 0-13, U7, L13, /2, ...
"""

from __future__ import annotations

from flip7.core.cards import FLIP_FOUR_CARDS, Card, deck_counts
from flip7.core.lines import FLIP7_CARDS
from flip7.core.rules import Rules
from flip7.core.scoring import FLIP7_BONUS

__all__ = ["card_explanations", "card_name", "explain"]

_NAMES: dict[Card, str] = {
    Card.ZERO: "The Zero",
    Card.UNLUCKY_7: "Unlucky 7",
    Card.LUCKY_13: "Lucky 13",
    Card.DIVIDE_2: "÷2",
    Card.JUST_ONE_MORE: "Just One More!",
    Card.FLIP_FOUR: "Flip Four!",
    Card.STEAL: "Steal",
    Card.SWAP: "Swap",
    Card.DISCARD: "Discard",
}


def card_name(card: Card) -> str:
    """A card's name as a player says it: ``5``, ``The Zero``, ``−4``, ``Flip Four!``."""
    name = _NAMES.get(card)
    if name is not None:
        return name
    if card.is_modifier:
        return f"−{card.penalty}"
    return str(card.value_points)


def _number(card: Card) -> str:
    value = card.value_points
    copies = deck_counts()[card]
    held = "just one" if copies == 1 else f"{copies} of them"
    plain = f"A Number card worth {value}; a deck holds {held}."
    if card is Card.SEVEN:
        return f"{plain} A second 7 busts you, and Unlucky 7 counts as a 7 once it is in your line."
    if card is Card.THIRTEEN:
        return f"{plain} Two 13s bust you unless one of them is Lucky 13; a third 13 always does."
    return f"{plain} A second {value} in your line busts you."


def _zero(rules: Rules) -> str:
    bonus = (
        f"+{FLIP7_BONUS} (or −{FLIP7_BONUS} on another player) included" if rules.brutal
        else f"+{FLIP7_BONUS} included"
    )
    return (
        "Worth 0, and while it is in your line you may not stay: you must hit (only Just One "
        f"More! can make you stop). Your round scores 0 unless you reach Flip 7 ({FLIP7_CARDS} "
        f"Number cards), which then scores in full, {bonus}."
    )


def _unlucky_7(rules: Rules) -> str:
    after = "Then it is your 7: a later 7 busts you."
    if rules.unlucky7_triggers_on_transfer:
        return (
            "When it reaches your line (drawn, dealt, stolen or swapped in), every other Number "
            f"and Modifier card there is discarded and it cannot bust you. {after}"
        )
    return (
        "Drawn or dealt, it discards every other Number and Modifier card in your line and "
        "cannot bust you; stolen or swapped in, it is a plain 7 and wipes nothing. "
        f"{after}"
    )


def _lucky_13(rules: Rules) -> str:
    pair = dict(Rules.option("lucky13_pair_flip7_count").words)[rules.lucky13_pair_flip7_count]
    return (
        "Worth 13, and it lets you hold a second 13 without busting: both score, and the pair "
        f"counts as {pair} toward Flip 7. A third 13 busts you."
    )


def _given(rules: Rules) -> str:
    if rules.brutal:
        return "Whoever reveals it keeps it or gives it to any other player, even one who busted."
    return "Whoever reveals it keeps it or gives it to another player still in the round."


def _divide(rules: Rules) -> str:
    return (
        "At the end of the round your Number total is halved, rounded down, before any minus "
        f"card counts. {_given(rules)}"
    )


def _minus(card: Card, rules: Rules) -> str:
    n = card.penalty
    if not rules.brutal:
        floor = "but never below 0"
    elif rules.busted_modifiers_count:
        floor = "even below 0, and from a busted player too"
    else:
        floor = "even below 0 (a busted player still scores 0)"
    return f"Takes {n} off your round score, after any ÷2, {floor}. {_given(rules)}"


def _pass(rules: Rules) -> str:
    return " You may hand it to another player to use instead." if rules.pass_actions else ""


def _action(card: Card, rules: Rules) -> str:
    if card is Card.JUST_ONE_MORE:
        return (
            "Pick a player still in the round (yourself too): they flip one more card and then "
            "must stay, even if they hold The Zero."
        )
    if card is Card.FLIP_FOUR:
        return (
            f"Pick a player still in the round (yourself too): they flip {FLIP_FOUR_CARDS} "
            "cards one by one, stopping at once on a bust or a Flip 7. Actions and Modifiers "
            "among them wait until all of those cards are flipped."
        )
    if card is Card.STEAL:
        return (
            "Take a face-up card from another player still in the round into your own line; "
            f"it can bust you or give you Flip 7.{_pass(rules)}"
        )
    if card is Card.SWAP:
        kinds = (
            "any two face-up cards" if rules.swap_allow_cross_type
            else "two face-up cards of the same kind (Number for Number, Modifier for Modifier)"
        )
        return (
            f"Exchange {kinds} of two different players, yours or others'; each player gets "
            f"the other card as if it had just arrived, so a Swap can bust two at once."
            f"{_pass(rules)}"
        )
    return (
        "Pick a player still in the round (yourself too) and one of their face-up cards: it "
        f"goes to the discard pile and what it did stops.{_pass(rules)}"
    )


def explain(code: str | Card, rules: Rules) -> str:
    """What the card of ``code`` does under ``rules``, in one or two sentences (three for a
    few). An unknown code raises :class:`~flip7.core.errors.CardError`.

    >>> explain("5", Rules())
    'A Number card worth 5; a deck holds 5 of them. A second 5 in your line busts you.'
    >>> explain("-4", Rules(brutal=True))
    'Takes 4 off your round score, after any ÷2, even below 0, and from a busted player
     too. Whoever reveals it keeps it or gives it to any other player, even one who busted.'
    """
    card = code if isinstance(code, Card) else Card.parse(code)
    if card is Card.ZERO:
        return _zero(rules)
    if card is Card.UNLUCKY_7:
        return _unlucky_7(rules)
    if card is Card.LUCKY_13:
        return _lucky_13(rules)
    if card.is_number:
        return _number(card)
    if card is Card.DIVIDE_2:
        return _divide(rules)
    if card.is_modifier:
        return _minus(card, rules)
    return _action(card, rules)


def card_explanations(rules: Rules) -> dict[str, dict[str, str]]:
    """Every card's code, in the deck's order, with its name, its kind (``number``,
    ``modifier``, ``action``) and :func:`explain`'s words under ``rules``.

    >>> texts = card_explanations(Rules())
    >>> len(texts), texts["FLIP4"]["name"], texts["/2"]["kind"]
    (27, 'Flip Four!', 'modifier')
    """
    return {
        card.code: {"name": card_name(card), "kind": card.kind.value, "text": explain(card, rules)}
        for card in Card
    }

