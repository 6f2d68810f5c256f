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

from collections.abc import Callable

from flip7.core.cards import FLIP_FOUR_CARDS, Card, deck_counts
from flip7.core.lines import FLIP7_CARDS
from flip7.core.rules import Rules
from flip7.core.scoring import FLIP7_BONUS

__all__ = ["Text", "card_explanations", "card_name", "english", "explain"]

Text = Callable[..., str]
"""How the words are put: ``text(key, english, **params)`` gives the message of ``key``
(``rules.card.*`` in the web app's catalogues, docs/i18n.md) with its ``{placeholders}``
filled in from ``params``; ``english`` is the source wording, kept here."""


def english(key: str, message: str, **params: object) -> str:
    """The :data:`Text` of the source language: ``message`` with ``params`` filled in."""
    del key
    return message.format_map(params) if params else message


_NAMES: dict[Card, tuple[str, str]] = {
    Card.ZERO: ("zero", "The Zero"),
    Card.UNLUCKY_7: ("unlucky_7", "Unlucky 7"),
    Card.LUCKY_13: ("lucky_13", "Lucky 13"),
    Card.DIVIDE_2: ("divide_2", "÷2"),
    Card.JUST_ONE_MORE: ("just_one_more", "Just One More!"),
    Card.FLIP_FOUR: ("flip_four", "Flip Four!"),
    Card.STEAL: ("steal", "Steal"),
    Card.SWAP: ("swap", "Swap"),
    Card.DISCARD: ("discard", "Discard"),
}


def card_name(card: Card, text: Text = english) -> str:
    """A card's name as a player says it: ``5``, ``The Zero``, ``−4``, ``Flip Four!``."""
    named = _NAMES.get(card)
    if named is not None:
        return text(f"rules.card.name.{named[0]}", named[1])
    if card.is_modifier:
        return text("rules.card.name.minus", "−{n}", n=card.penalty)
    return str(card.value_points)


def _number(card: Card, text: Text) -> str:
    value = card.value_points
    copies = deck_counts()[card]
    if copies == 1:
        plain = text("rules.card.number_one", "A Number card worth {value}; a deck holds just "
                     "one.", value=value)
    else:
        plain = text("rules.card.number", "A Number card worth {value}; a deck holds {copies} "
                     "of them.", value=value, copies=copies)
    if card is Card.SEVEN:
        more = text("rules.card.number_7", "A second 7 busts you, and Unlucky 7 counts as a 7 "
                    "once it is in your line.")
    elif card is Card.THIRTEEN:
        more = text("rules.card.number_13", "Two 13s bust you unless one of them is Lucky 13; "
                    "a third 13 always does.")
    else:
        more = text("rules.card.number_second", "A second {value} in your line busts you.",
                    value=value)
    return f"{plain} {more}"


def _zero(rules: Rules, text: Text) -> str:
    bonus = (
        text("rules.card.zero_included_brutal", "+{bonus} (or −{bonus} on another player) "
             "included", bonus=FLIP7_BONUS) if rules.brutal
        else text("rules.card.zero_included", "+{bonus} included", bonus=FLIP7_BONUS)
    )
    return text(
        "rules.card.zero",
        "Worth 0, and while it is in your line you may not stay: you must hit (only Just One "
        "More! can make you stop). Your round scores 0 unless you reach Flip 7 ({cards} "
        "Number cards), which then scores in full, {included}.",
        cards=FLIP7_CARDS, included=bonus,
    )


def _unlucky_7(rules: Rules, text: Text) -> str:
    after = text("rules.card.unlucky_7_after", "Then it is your 7: a later 7 busts you.")
    if rules.unlucky7_triggers_on_transfer:
        return text(
            "rules.card.unlucky_7",
            "When it reaches your line (drawn, dealt, stolen or swapped in), every other Number "
            "and Modifier card there is discarded and it cannot bust you. {after}",
            after=after,
        )
    return text(
        "rules.card.unlucky_7_drawn",
        "Drawn or dealt, it discards every other Number and Modifier card in your line and "
        "cannot bust you; stolen or swapped in, it is a plain 7 and wipes nothing. {after}",
        after=after,
    )


def _lucky_13(rules: Rules, text: Text) -> str:
    value = rules.lucky13_pair_flip7_count
    pair = text(f"rules.option.lucky13_pair_flip7_count.value.{value}",
                dict(Rules.option("lucky13_pair_flip7_count").words)[value])
    return text(
        "rules.card.lucky_13",
        "Worth 13, and it lets you hold a second 13 without busting: both score, and the pair "
        "counts as {pair} toward Flip 7. A third 13 busts you.",
        pair=pair,
    )


def _given(rules: Rules, text: Text) -> str:
    if rules.brutal:
        return text("rules.card.given_brutal", "Whoever reveals it keeps it or gives it to any "
                    "other player, even one who busted.")
    return text("rules.card.given", "Whoever reveals it keeps it or gives it to another player "
                "still in the round.")


def _divide(rules: Rules, text: Text) -> str:
    return text(
        "rules.card.divide_2",
        "At the end of the round your Number total is halved, rounded down, before any minus "
        "card counts. {given}",
        given=_given(rules, text),
    )


def _minus(card: Card, rules: Rules, text: Text) -> str:
    if not rules.brutal:
        floor = text("rules.card.minus_floor", "but never below 0")
    elif rules.busted_modifiers_count:
        floor = text("rules.card.minus_floor_brutal", "even below 0, and from a busted player "
                     "too")
    else:
        floor = text("rules.card.minus_floor_brutal_zero", "even below 0 (a busted player "
                     "still scores 0)")
    return text(
        "rules.card.minus",
        "Takes {n} off your round score, after any ÷2, {floor}. {given}",
        n=card.penalty, floor=floor, given=_given(rules, text),
    )


def _pass(rules: Rules, text: Text) -> str:
    if not rules.pass_actions:
        return ""
    return " " + text("rules.card.pass", "You may hand it to another player to use instead.")


def _action(card: Card, rules: Rules, text: Text) -> str:
    if card is Card.JUST_ONE_MORE:
        return text(
            "rules.card.just_one_more",
            "Pick a player still in the round (yourself too): they flip one more card and then "
            "must stay, even if they hold The Zero.",
        )
    if card is Card.FLIP_FOUR:
        return text(
            "rules.card.flip_four",
            "Pick a player still in the round (yourself too): they flip {cards} "
            "cards one by one, stopping at once on a bust or a Flip 7. Actions and Modifiers "
            "among them wait until all of those cards are flipped.",
            cards=FLIP_FOUR_CARDS,
        )
    if card is Card.STEAL:
        return text(
            "rules.card.steal",
            "Take a face-up card from another player still in the round into your own line; "
            "it can bust you or give you Flip 7.",
        ) + _pass(rules, text)
    if card is Card.SWAP:
        if rules.swap_allow_cross_type:
            kinds = text("rules.card.swap_kinds", "any two face-up cards")
        else:
            kinds = text("rules.card.swap_kinds_same", "two face-up cards of the same kind "
                         "(Number for Number, Modifier for Modifier)")
        return text(
            "rules.card.swap",
            "Exchange {kinds} of two different players, yours or others'; each player gets "
            "the other card as if it had just arrived, so a Swap can bust two at once.",
            kinds=kinds,
        ) + _pass(rules, text)
    return text(
        "rules.card.discard",
        "Pick a player still in the round (yourself too) and one of their face-up cards: it "
        "goes to the discard pile and what it did stops.",
    ) + _pass(rules, text)


def explain(code: str | Card, rules: Rules, text: Text = english) -> str:
    """What the card of ``code`` does under ``rules``, in one or two sentences (three for a
    few), put by ``text`` (English by default). An unknown code raises
    :class:`~flip7.core.errors.CardError`.

    >>> explain("5", Rules())
    'A Number card worth 5; a deck holds 5 of them. A second 5 in your line busts you.'
    >>> explain("-4", Rules(brutal=True))
    'Takes 4 off your round score, after any ÷2, even below 0, and from a busted player
     too. Whoever reveals it keeps it or gives it to any other player, even one who busted.'
    """
    card = code if isinstance(code, Card) else Card.parse(code)
    if card is Card.ZERO:
        return _zero(rules, text)
    if card is Card.UNLUCKY_7:
        return _unlucky_7(rules, text)
    if card is Card.LUCKY_13:
        return _lucky_13(rules, text)
    if card.is_number:
        return _number(card, text)
    if card is Card.DIVIDE_2:
        return _divide(rules, text)
    if card.is_modifier:
        return _minus(card, rules, text)
    return _action(card, rules, text)


def card_explanations(rules: Rules, text: Text = english) -> dict[str, dict[str, str]]:
    """Every card's code, in the deck's order, with its name, its kind (``number``,
    ``modifier``, ``action``) and :func:`explain`'s words under ``rules``, put by ``text``.

    >>> texts = card_explanations(Rules())
    >>> len(texts), texts["FLIP4"]["name"], texts["/2"]["kind"]
    (27, 'Flip Four!', 'modifier')
    """
    return {
        card.code: {
            "name": card_name(card, text),
            "kind": card.kind.value,
            "text": explain(card, rules, text),
        }
        for card in Card
    }
