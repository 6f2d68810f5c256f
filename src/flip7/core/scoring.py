"""Scoring (RULES.md §8 and §10): a round's score of a line, busted or not, the scores and
running totals of a completed round, the end of the game (§9), and a completed round's
result.

>>> round_score([Card.FOUR, Card.EIGHT, Card.ELEVEN], [Card.DIVIDE_2, Card.MINUS_4], flip7=False)
7
>>> lines = [([Card.FIVE], [], False), ([Card.NINE, Card.NINE], [Card.MINUS_4], True)]
>>> scores = score_round(lines, Rules(brutal=True), flip7=None)
>>> scores, add_round((190, 30), scores), game_winners((195, 26), Rules(target_score=195))
((5, -4), (195, 26), (0,))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from flip7.core.cards import PENALTY, VALUE, Card
from flip7.core.jsontypes import JSONObject
from flip7.core.rules import Rules

__all__ = [
    "FLIP7_BONUS",
    "RoundResult",
    "add_round",
    "busted_score",
    "game_winners",
    "line_score",
    "round_score",
    "score_reason",
    "score_reason_code",
    "score_reason_words",
    "score_round",
    "total_score",
]

FLIP7_BONUS = 15
"""§8 step 4: what a Flip 7 adds to its line; §10.3: what a Brutal Flip 7 may take off
another player's running total instead."""

_DIVIDE_2 = Card.DIVIDE_2


def total_score(
    number_sum: int,
    *,
    divides: int = 0,
    penalty: int = 0,
    zero: bool = False,
    flip7: bool = False,
    brutal: bool = False,
    bonus: bool = True,
) -> int:
    """The round score of a line that has not busted, from its figures, in the mandatory
    order of §8: the number sum halved (rounding down) once per ÷2, less the −N penalties,
    no lower than 0 in standard mode (§10.1 lifts that), +15 for Flip 7 (unless ``bonus``
    is False: a Brutal Flip 7 took −15 on someone else instead, §10.3), and 0 for a line
    holding The Zero (``zero``) without Flip 7 (§4.3).

    >>> total_score(48, divides=1, penalty=4, flip7=True), total_score(1, penalty=10)
    (35, 0)
    """
    return _total(number_sum, divides, penalty, zero, flip7, brutal, bonus)


def _total(
    total: int, divides: int, penalty: int, zero: bool, flip7: bool, brutal: bool, bonus: bool
) -> int:
    # total_score's arithmetic, called positionally by round_score (the engine's path).
    for _ in range(divides):
        total //= 2
    # Every halving comes before any subtraction, whatever order the cards arrived in.
    total -= penalty
    if total < 0 and not brutal:
        total = 0
    if flip7:
        return total + FLIP7_BONUS if bonus else total
    return 0 if zero else total


def round_score(
    numbers: Iterable[Card],
    modifiers: Iterable[Card],
    *,
    flip7: bool,
    brutal: bool = False,
    bonus: bool = True,
) -> int:
    """The round score of a line that has not busted (:func:`total_score` of its cards).

    ``bonus`` is False when a Brutal Flip 7 took −15 on someone else instead (§10.3).

    >>> numbers = [Card.FOUR, Card.EIGHT, Card.ELEVEN]
    >>> round_score(numbers, [Card.DIVIDE_2, Card.MINUS_4], flip7=False)
    7
    """
    total = 0
    has_zero = False
    for card in numbers:
        total += VALUE[card]
        if card == 0:  # The Zero (plain ints work too)
            has_zero = True
    divides = 0
    penalty = 0
    for card in modifiers:
        if card == _DIVIDE_2:
            divides += 1
        else:
            penalty += PENALTY[card]
    return _total(total, divides, penalty, has_zero, flip7, brutal, bonus)


def busted_score(modifiers: Iterable[Card], *, brutal: bool, modifiers_only: bool) -> int:
    """A busted line's score: 0, except in Brutal with ``modifiers_only`` (§10.2), where
    the Modifiers apply to a base of 0 (÷2 does nothing, each −N subtracts N).
    :attr:`Rules.busted_modifiers_count <flip7.core.rules.Rules.busted_modifiers_count>`
    says both at once; :func:`line_score` takes the rules."""
    if not (brutal and modifiers_only):
        return 0
    return -sum(PENALTY[card] for card in modifiers)


def line_score(
    numbers: Iterable[Card],
    modifiers: Iterable[Card],
    rules: Rules,
    *,
    busted: bool = False,
    flip7: bool = False,
    bonus: bool = True,
) -> int:
    """A line's round score under ``rules``: a busted line's (§2.3, §10.2), or else
    :func:`round_score` (§8, with Brutal's §10.1 and §10.3).

    >>> line_score([Card.FIVE, Card.FIVE], [Card.MINUS_4], Rules(brutal=True), busted=True)
    -4
    """
    if busted:
        return busted_score(
            modifiers, brutal=rules.brutal, modifiers_only=rules.busted_modifiers_count
        )
    return round_score(numbers, modifiers, flip7=flip7, brutal=rules.brutal, bonus=bonus)


def score_reason(
    numbers: Sequence[Card],
    modifiers: Sequence[Card],
    rules: Rules,
    *,
    busted: bool = False,
    flip7: bool = False,
    bonus: bool = True,
) -> str | None:
    """Why a line's round score under ``rules`` (:func:`line_score`, same arguments) is not
    just the total of its Number cards, in a few words for a log; ``None`` when it is, or
    when its Modifiers simply apply.

    >>> score_reason([Card.ZERO, Card.NINE], [], Rules())
    'The Zero without a Flip 7'
    >>> score_reason([Card.ONE], [Card.MINUS_10], Rules()), score_reason([Card.FIVE], [], Rules())
    ('its Modifiers would take it below 0', None)
    >>> score_reason([Card.NINE, Card.NINE], [Card.MINUS_4], Rules(brutal=True), busted=True)
    'busted, but in Brutal its Modifiers still count'
    """
    code = score_reason_code(
        numbers, modifiers, rules, busted=busted, flip7=flip7, bonus=bonus
    )
    return score_reason_words(code)


def score_reason_words(code: str | None) -> str | None:
    """The words of a :func:`score_reason_code` (``None`` for ``None``): what
    :func:`score_reason` says.

    >>> score_reason_words("zero"), score_reason_words(None)
    ('The Zero without a Flip 7', None)
    """
    return None if code is None else _SCORE_WORDS[code]


_SCORE_WORDS = {
    "busted_modifiers": "busted, but in Brutal its Modifiers still count",
    "busted": "busted",
    "flip7_minus": (
        f"Flip 7, with {FLIP7_BONUS} taken off another player instead of +{FLIP7_BONUS}"
    ),
    "zero": "The Zero without a Flip 7",
    "no_numbers": "no Number cards",
    "only_modifiers": "no Number cards, only Modifiers",
    "below_zero_brutal": "in Brutal its Modifiers take it below 0",
    "below_zero": "its Modifiers would take it below 0",
}


def score_reason_code(
    numbers: Sequence[Card],
    modifiers: Sequence[Card],
    rules: Rules,
    *,
    busted: bool = False,
    flip7: bool = False,
    bonus: bool = True,
) -> str | None:
    """:func:`score_reason` as a code, for clients that say it in their own words (the
    events' ``reason_codes``): ``busted_modifiers``, ``busted``, ``flip7_minus``, ``zero``,
    ``no_numbers``, ``only_modifiers``, ``below_zero_brutal``, ``below_zero``, or None.

    >>> score_reason_code([Card.ZERO, Card.NINE], [], Rules())
    'zero'
    """
    if busted:
        if rules.busted_modifiers_count and any(PENALTY[card] for card in modifiers):
            return "busted_modifiers"
        return "busted"
    if flip7:
        return None if bonus else "flip7_minus"
    if any(card is Card.ZERO for card in numbers):  # §4.3.1, as round_score applies it
        return "zero"
    if not numbers:
        return "no_numbers" if not modifiers else "only_modifiers"
    number_sum, divides, penalty = _figures(numbers, modifiers)
    unclamped = _total(number_sum, divides, penalty, False, False, True, True)
    if unclamped < 0:
        return "below_zero_brutal" if rules.brutal else "below_zero"
    return None


def _figures(numbers: Iterable[Card], modifiers: Iterable[Card]) -> tuple[int, int, int]:
    # A line's number sum, its ÷2 count and its penalty, as _total takes them.
    divides = 0
    penalty = 0
    for card in modifiers:
        if card == _DIVIDE_2:
            divides += 1
        else:
            penalty += PENALTY[card]
    return sum(VALUE[card] for card in numbers), divides, penalty


def score_round(
    lines: Iterable[tuple[Iterable[Card], Iterable[Card], bool]],
    rules: Rules,
    *,
    flip7: int | None,
    minus15: int | None = None,
) -> tuple[int, ...]:
    """Every seat's round score once a round has ended (§3.4.2): ``lines`` holds each
    seat's (numbers, modifiers, busted); ``flip7`` is the seat with Flip 7, if any, and
    ``minus15`` the seat its Brutal Flip 7 took 15 from (its own line is then scored
    without the +15, §10.3; the −15 comes off the totals in :func:`add_round`)."""
    bonus = minus15 is None
    return tuple(
        line_score(numbers, modifiers, rules, busted=busted, flip7=seat == flip7, bonus=bonus)
        for seat, (numbers, modifiers, busted) in enumerate(lines)
    )


def add_round(
    totals: Sequence[int], scores: Sequence[int], minus15: int | None = None
) -> tuple[int, ...]:
    """The running totals after a round: each round score added (§3.4.2), then 15 off
    ``minus15``'s total if a Brutal Flip 7 chose so (§10.3; it may go below 0)."""
    return tuple(
        total + score - (FLIP7_BONUS if seat == minus15 else 0)
        for seat, (total, score) in enumerate(zip(totals, scores, strict=True))
    )


def game_winners(totals: Sequence[int], rules: Rules) -> tuple[int, ...]:
    """§9: who has won once a round has ended with these running totals: the player alone
    on the highest total when it reaches ``target_score`` (with ``tie_break = "shared_win"``
    every player on it); ``()`` while the game goes on, tied at the top included (§9.2)."""
    best = max(totals)
    if best < rules.target_score:
        return ()
    leaders = tuple(s for s, total in enumerate(totals) if total == best)
    if len(leaders) == 1 or rules.tie_break == "shared_win":
        return leaders
    return ()


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One completed round, as in RECORD.md §6."""

    dealer: int
    scores: tuple[int, ...]
    busted: tuple[int, ...]
    flip7: int | None
    minus15: int | None

    def to_json(self) -> JSONObject:
        return {
            "dealer": self.dealer,
            "scores": list(self.scores),
            "busted": list(self.busted),
            "flip7": self.flip7,
            "minus15": self.minus15,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoundResult:
        return cls(
            dealer=data["dealer"],
            scores=tuple(data["scores"]),
            busted=tuple(data["busted"]),
            flip7=data["flip7"],
            minus15=data["minus15"],
        )
