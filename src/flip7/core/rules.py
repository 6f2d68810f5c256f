"""Rule options (RULES.md §13), by exactly those names and defaults, and how many players a
game takes (§1.3).

Each option is written once, as a field of :class:`Rules` with its default, its allowed
values and a line of help; :meth:`Rules.options` describes them all (the web app's
``GET /api/rules`` serves that list). Every rule that depends only on the options is a
property here, so that no part of flip7 spells it out again.

>>> Rules()
Rules()
>>> rules = Rules.from_json({"brutal": True, "tie_break": "shared_win"})
>>> rules
Rules(brutal=True, tie_break='shared_win')
>>> rules.to_json()
{'brutal': True, 'tie_break': 'shared_win'}
>>> Rules.from_json({"brutel": True})
Traceback (most recent call last):
...
flip7.core.errors.RulesError: unknown rule option 'brutel'; options are brutal, target_score, ...
>>> Rules.option("tie_break").to_json()["choices"]
['extra_rounds', 'shared_win']
>>> Rules().min_players, Rules(allow_two_players=True).min_players, decks_for(19)
(3, 2, 2)
>>> players_problem(2, Rules())
'a game needs 3 to 36 players (2 only with allow_two_players), got 2'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from typing import Any, Literal, get_args

from flip7.core.errors import RulesError
from flip7.core.jsontypes import JSONObject

__all__ = [
    "DECKS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "ONE_DECK_MAX_PLAYERS",
    "TWO_PLAYERS",
    "RuleOption",
    "Rules",
    "decks_for",
    "decks_problem",
    "players_problem",
    "players_text",
]

TieBreak = Literal["extra_rounds", "shared_win"]
BrutalBustedScoring = Literal["modifiers_only", "zero"]
Minus15Targets = Literal["any_other_player", "non_busted_others"]
NoCardsLeft = Literal["end_round"]
OptionType = Literal["bool", "int", "choice"]

# §1.3: 3 or more players; one deck up to 18 players, a second deck from 19, up to 36.
MIN_PLAYERS = 3
TWO_PLAYERS = 2  # the fewest with allow_two_players
ONE_DECK_MAX_PLAYERS = 18
MAX_PLAYERS = 36
DECKS = (1, 2)


def _about(
    section: str,
    help: str,
    *,
    choices: tuple[Any, ...] | None = None,
    words: tuple[str, ...] = (),
    minimum: int | None = None,
    changes: str,
) -> dict[str, Any]:
    """A rule option's description, kept as its field's metadata: ``words`` says what each
    of the ``choices`` means, in their order; ``changes``, what play is like away from the
    default (for a page that explains the house rules)."""
    assert choices is None or len(words) == len(choices)
    return {
        "section": section,
        "help": help,
        "changes": changes,
        "choices": choices,
        "words": tuple(zip(choices or (), words, strict=True)),
        "minimum": minimum,
    }


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule option of RULES.md §13; the defaults are standard play."""

    brutal: bool = field(
        default=False,
        metadata=_about(
            "§10",
            "Round scores can go below zero, Modifiers may go to busted players, and a Flip 7 "
            "may take 15 off another player's total instead of +15",
            changes=(
                "On, a round score may end below 0, a Modifier may go to a player who busted, "
                "and whoever makes a Flip 7 picks between the bonus for themselves and taking "
                "as many points off another player's running total."
            ),
        ),
    )
    target_score: int = field(
        default=200,
        metadata=_about(
            "§1.4, §9.1",
            "The game ends after a round in which someone reaches it",
            minimum=1,
            changes=(
                "A lower target makes a shorter game, a higher one a longer game: the game ends "
                "after the round in which someone reaches it."
            ),
        ),
    )
    lucky13_pair_flip7_count: int = field(
        default=2,
        metadata=_about(
            "§4.5.4",
            "How many cards a pair of 13s counts toward Flip 7",
            choices=(1, 2),
            words=("one card", "two cards"),
            changes=(
                "At one card, a Flip 7 counts different values, so a line holding a Lucky 13 "
                "pair needs one Number card more to reach it."
            ),
        ),
    )
    unlucky7_triggers_on_transfer: bool = field(
        default=True,
        metadata=_about(
            "§4.4.5",
            "Unlucky 7 wipes the line also when it arrives by Steal or Swap",
            changes=(
                "Off, only an Unlucky 7 drawn or dealt wipes a line; one stolen or swapped in "
                "is a plain 7 and busts a line that already holds a 7."
            ),
        ),
    )
    can_stay_with_empty_line: bool = field(
        default=False,
        metadata=_about(
            "§3.2.3",
            "A player with no card at all in the line may stay",
            changes="On, a player with no card at all may stay instead of having to hit.",
        ),
    )
    deal_skips_inactive: bool = field(
        default=True,
        metadata=_about(
            "§3.1.4",
            "The deal skips players who already stayed or busted",
            changes=(
                "Off, a player who stayed before the deal reached them still gets a deal card "
                "and stays stayed; a busted player's deal card goes straight to the discard "
                "pile."
            ),
        ),
    )
    tie_break: TieBreak = field(
        default="extra_rounds",
        metadata=_about(
            "§9.2",
            "A tie for the highest total at or above the target: extra rounds, or a shared win",
            choices=get_args(TieBreak),
            words=("plays extra rounds", "is a shared win"),
            changes=(
                "With a shared win, every player tied on the highest total wins together, and "
                "no extra round is played."
            ),
        ),
    )
    brutal_busted_scoring: BrutalBustedScoring = field(
        default="modifiers_only",
        metadata=_about(
            "§10.2",
            "Brutal: a busted line scores its Modifiers on a base of 0, or scores 0",
            choices=get_args(BrutalBustedScoring),
            words=("their Modifiers only", "zero"),
            changes=(
                "With zero, a busted player scores 0 whatever Modifiers they hold, so giving "
                "them one does nothing."
            ),
        ),
    )
    brutal_minus15_targets: Minus15Targets = field(
        default="any_other_player",
        metadata=_about(
            "§10.3",
            "Brutal: who a Flip 7's −15 may hit: any other player, or only those still in",
            choices=get_args(Minus15Targets),
            words=("any other player", "only players still in"),
            changes=(
                "With only players still in, the Flip 7 penalty may not go to a player who "
                "busted this round."
            ),
        ),
    )
    swap_allow_cross_type: bool = field(
        default=True,
        metadata=_about(
            "§6.5.2",
            "Swap may exchange a Number card with a Modifier",
            changes=(
                "Off, a Swap exchanges a Number card for a Number card or a Modifier for a "
                "Modifier, never one for the other."
            ),
        ),
    )
    pass_actions: bool = field(
        default=False,
        metadata=_about(
            "§6.1.4",
            "Steal, Swap and Discard may be handed to another player to use",
            changes=(
                "On, whoever reveals a Steal, Swap or Discard may hand it to another player who "
                "has a use for it, and that player makes its choices."
            ),
        ),
    )
    no_cards_left: NoCardsLeft = field(
        default="end_round",
        metadata=_about(
            "§3.5.3",
            "When the deck and the discard pile are both empty: the round ends",
            choices=get_args(NoCardsLeft),
            words=("the round ends",),
            changes=(
                "This is the only choice so far: the round stops at once and is scored as it "
                "stands."
            ),
        ),
    )
    allow_two_players: bool = field(
        default=False,
        metadata=_about(
            "§1.3",
            "Two-player games, with the normal rules unchanged",
            changes="On, a table of two players may start; every other rule stays the same.",
        ),
    )

    def __post_init__(self) -> None:
        for option in _OPTIONS:
            option.check(getattr(self, option.name))

    @classmethod
    def options(cls) -> tuple[RuleOption, ...]:
        """Every rule option, in the order of §13: name, type, default, allowed values, help.

        >>> [(o.name, o.type, o.default) for o in Rules.options()][:2]
        [('brutal', 'bool', False), ('target_score', 'int', 200)]
        """
        return _OPTIONS

    @classmethod
    def option(cls, name: str) -> RuleOption:
        """One rule option's description (:class:`RulesError` for an unknown name)."""
        try:
            return _BY_NAME[name]
        except KeyError:
            raise RulesError(
                f"unknown rule option {name!r}; options are {', '.join(_BY_NAME)}"
            ) from None

    @classmethod
    def from_json(cls, data: object) -> Rules:
        """Read a ``rules`` object; missing keys take their defaults, unknown keys are errors."""
        if not isinstance(data, dict):
            raise RulesError(f"rules must be a JSON object, not {type(data).__name__}")
        for key in data:
            cls.option(key)
        return cls(**data)

    def to_json(self, *, full: bool = False) -> JSONObject:
        """The options as a JSON object: only those that differ from the default unless ``full``."""
        out: JSONObject = {}
        for option in _OPTIONS:
            value = getattr(self, option.name)
            if full or value != option.default:
                out[option.name] = value
        return out

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated like the constructor)."""
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------------ rules of the options

    @property
    def min_players(self) -> int:
        """The fewest players a game may have (§1.3): 3, or 2 with ``allow_two_players``."""
        return TWO_PLAYERS if self.allow_two_players else MIN_PLAYERS

    @property
    def busted_modifiers_count(self) -> bool:
        """Whether a busted line scores its Modifiers (§10.2): in Brutal, with
        ``brutal_busted_scoring = "modifiers_only"``; otherwise a busted line scores 0."""
        return self.brutal and self.brutal_busted_scoring == "modifiers_only"

    @property
    def minus15_may_hit_busted(self) -> bool:
        """Whether a Brutal Flip 7's −15 may go to a player who busted (§10.3): with
        ``brutal_minus15_targets = "any_other_player"``, not with ``"non_busted_others"``."""
        return self.brutal_minus15_targets == "any_other_player"

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.to_json().items())
        return f"Rules({inner})"


@dataclass(frozen=True, slots=True)
class RuleOption:
    """One rule option of §13: its name, its type (``"bool"``, ``"int"`` or ``"choice"``),
    its default, the values allowed (``choices``, or integers from ``minimum``), the section
    of RULES.md that says what it does, one line of help, a few words for each choice
    (``words``: (value, words) pairs), and a sentence on what play is like away from the
    default (``changes``)."""

    name: str
    type: OptionType
    default: bool | int | str
    choices: tuple[int | str, ...] | None
    minimum: int | None
    section: str
    help: str
    words: tuple[tuple[int | str, str], ...] = ()
    changes: str = ""

    def check(self, value: object) -> None:
        """Raise :class:`RulesError` unless ``value`` is allowed for this option."""
        if self.type == "bool":
            if type(value) is not bool:
                raise RulesError(f"rule option {self.name} must be true or false, not {value!r}")
        elif self.type == "int":
            if type(value) is not int or (self.minimum is not None and value < self.minimum):
                raise RulesError(
                    f"rule option {self.name} must be an integer >= {self.minimum}, not {value!r}"
                )
        else:
            allowed = self.choices or ()
            if type(value) is not type(self.default) or value not in allowed:
                shown = " or ".join(repr(a) for a in allowed)
                raise RulesError(f"rule option {self.name} must be {shown}, not {value!r}")

    def to_json(self) -> JSONObject:
        """``name``, ``type``, ``default`` and ``choices`` (``None`` unless a choice), and
        ``min`` for an integer (the web app's ``GET /api/rules`` serves these)."""
        out: JSONObject = {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "choices": None if self.choices is None else list(self.choices),
        }
        if self.minimum is not None:
            out["min"] = self.minimum
        return out


def _describe(f: dataclasses.Field[Any]) -> RuleOption:
    about = f.metadata
    default = f.default
    assert isinstance(default, bool | int | str)
    kind: OptionType
    if about["choices"] is not None:
        kind = "choice"
    elif type(default) is bool:
        kind = "bool"
    else:
        kind = "int"
    return RuleOption(
        name=f.name,
        type=kind,
        default=default,
        choices=about["choices"],
        minimum=about["minimum"],
        section=about["section"],
        help=about["help"],
        words=about["words"],
        changes=about["changes"],
    )


_OPTIONS: tuple[RuleOption, ...] = tuple(_describe(f) for f in fields(Rules))
_BY_NAME: dict[str, RuleOption] = {o.name: o for o in _OPTIONS}


# ---------------------------------------------------------------------------- players (§1.3)


def decks_for(players: int) -> int:
    """How many decks a game of ``players`` takes unless told otherwise (§1.3): one up to
    18 players, two from 19."""
    return 1 if players <= ONE_DECK_MAX_PLAYERS else 2


def decks_problem(decks: object) -> str | None:
    """Why ``decks`` is no number of decks a game can have (§1.3: 1 or 2), or ``None``."""
    if type(decks) is not int or decks not in DECKS:
        return f"decks must be {' or '.join(map(str, DECKS))}, got {decks!r}"
    return None


def players_text(
    rules: Rules, most: int = MAX_PLAYERS, *, option: str = "allow_two_players"
) -> str:
    """How many players a game takes under ``rules``, in words (``most``: a lower ceiling,
    such as a table's seats; ``option``: how to name the two-player option).

    >>> players_text(Rules()), players_text(Rules(allow_two_players=True), 18)
    ('3 to 36 players (2 only with allow_two_players)', '2 to 18 players')
    """
    note = "" if rules.allow_two_players else f" ({TWO_PLAYERS} only with {option})"
    return f"{rules.min_players} to {most} players{note}"


def players_problem(
    players: int,
    rules: Rules,
    decks: object = None,
    *,
    most: int = MAX_PLAYERS,
    option: str = "allow_two_players",
) -> str | None:
    """Why ``players`` players cannot play a game under ``rules`` with ``decks`` decks
    (§1.3), or ``None`` if they can. ``decks`` ``None`` is not checked (it defaults to
    :func:`decks_for`); ``most`` and ``option`` are as for :func:`players_text`.

    >>> players_problem(19, Rules(), 1)
    '19 players need 2 decks (one deck is for up to 18 players)'
    >>> players_problem(4, Rules(), 3)
    'decks must be 1 or 2, got 3'
    """
    if not rules.min_players <= players <= most:
        return f"a game needs {players_text(rules, most, option=option)}, got {players}"
    if decks is None:
        return None
    problem = decks_problem(decks)
    if problem is not None:
        return problem
    assert isinstance(decks, int)  # decks_problem found nothing wrong with it
    if decks < decks_for(players):
        return (
            f"{players} players need {decks_for(players)} decks (one deck is for up to "
            f"{ONE_DECK_MAX_PLAYERS} players)"
        )
    return None
