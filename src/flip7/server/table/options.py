"""A table's options and limits beside its rules: how many seats, the turn timer, whether
its games are rated; and the states a table goes through.

**Rated by default.** A table is rated unless its rules differ from the defaults in an
option that changes the game (:func:`rated_by_default`); its creator may say otherwise, and
a tutorial's table never is (flip7.server.services.ratings rates the games). A table whose
target score is below ``rated_min_target_score`` (the rules' default) is never rated:
asking for it is 400 ``unratable`` (a one-point game is a coin toss a script repeats as
fast as it likes; a length floor in rounds would only be known once the game is over,
when the players have seen the table called rated).

>>> from flip7.core.rules import Rules
>>> rated_by_default(Rules()), rated_by_default(Rules(allow_two_players=True))
(True, True)
>>> rated_by_default(Rules(brutal=True)), game_changing(Rules(target_score=100))
(False, ['target_score'])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from flip7.core.errors import RulesError
from flip7.core.jsontypes import JSONObject
from flip7.core.rules import ONE_DECK_MAX_PLAYERS, Rules, players_problem
from flip7.server.table.errors import TableError

__all__ = [
    "DEFAULT_MOVE_HOURS",
    "DEFAULT_SEATS",
    "MAX_MOVE_HOURS",
    "MAX_SEATS",
    "MAX_TIMER",
    "MIN_MOVE_HOURS",
    "NEUTRAL_OPTIONS",
    "PACES",
    "Pace",
    "TableOptions",
    "TableState",
    "game_changing",
    "pace_of",
    "rated_by_default",
]

TableState = Literal["waiting", "playing", "over"]
"""A live table waits for its players, plays a game, or shows the end screen."""

DEFAULT_SEATS = 4
MAX_SEATS = ONE_DECK_MAX_PLAYERS  # a table plays with one deck (RULES.md §1.3)
# The longest turn timer, in seconds (the shortest is the operator's, min_turn_timer).
MAX_TIMER = 600

Pace = Literal["live", "turn_based"]
"""A table plays live (its players there together) or turn-based (each decision has
``move_hours``, its players coming and going over days)."""
PACES: tuple[Pace, ...] = ("live", "turn_based")
# A turn-based table's hours per decision: at least one, at most a week; by default a day.
MIN_MOVE_HOURS, MAX_MOVE_HOURS, DEFAULT_MOVE_HOURS = 1, 168, 24


def pace_of(move_hours: int | None) -> Pace:
    """A table's pace, from its hours per decision (None: live).

    >>> pace_of(None), pace_of(24)
    ('live', 'turn_based')
    """
    return "live" if move_hours is None else "turn_based"

# Rule options whose value does not change the game (RULES.md §13): two-player tables play
# the normal rules unchanged (§1.3), and no_cards_left has one choice. Every other option
# does (Brutal, a tie break, a Swap's or a Lucky 13's rule, a target score: a short game
# is mostly luck), so a table that sets one is unrated unless it asks to be rated.
NEUTRAL_OPTIONS = frozenset({"allow_two_players", "no_cards_left"})


def game_changing(rules: Rules) -> list[str]:
    """The options of ``rules`` that differ from the defaults and change the game."""
    return [name for name in rules.to_json() if name not in NEUTRAL_OPTIONS]


def rated_by_default(rules: Rules) -> bool:
    """Whether a table with ``rules`` is rated when its creator does not say."""
    return not game_changing(rules)


@dataclass(frozen=True, slots=True)
class TableOptions:
    """What a new table is asked to be, checked: how many ``seats``, its rules, its turn
    timer (seconds; None: none), whether the seat to Hit or Stay is told its bust risk,
    whether it is left out of the lobby's list (``private``: a tutorial's) and rated, and
    a turn-based table's hours per decision (``move_hours``; None: live)."""

    seats: int
    rules: Rules
    turn_timer: int | None
    bust_odds: bool
    private: bool
    rated: bool
    move_hours: int | None = None

    @classmethod
    def checked(
        cls,
        seats: int,
        rules: JSONObject | None,
        turn_timer: int | None,
        bust_odds: bool,
        private: bool,
        rated: bool | None,
        min_turn_timer: int,
        max_target_score: int,
        rated_min_target_score: int = Rules().target_score,
        pace: str = "live",
        move_hours: int | None = None,
    ) -> TableOptions:
        """The options asked for, or :class:`TableError` saying which is wrong:
        ``bad_rules`` (a ``target_score`` over ``max_target_score`` too), ``bad_seats``,
        ``bad_timer``, ``bad_bust_odds``, ``bad_rated``, ``unratable`` (rated asked for a
        target score below ``rated_min_target_score``), ``bad_pace`` (a pace that is
        neither, ``move_hours`` out of range or at a live table, a turn timer at a
        turn-based one). ``rated`` None: :func:`rated_by_default` (a private table is never
        rated). A turn-based table without ``move_hours`` has :data:`DEFAULT_MOVE_HOURS`.

        >>> TableOptions.checked(3, None, None, True, False, None, 5, 1000,
        ...                      pace="turn_based").move_hours
        24
        >>> TableOptions.checked(3, None, None, True, False, None, 5, 1000, move_hours=2)
        Traceback (most recent call last):
        ...
        flip7.server.table.errors.TableError: move_hours is for a turn-based table: ...

        >>> TableOptions.checked(3, {"target_score": 10**9}, None, True, False, None, 5, 1000)
        Traceback (most recent call last):
        ...
        flip7.server.table.errors.TableError: the rule option target_score may be at most 1000, ...
        """
        try:
            parsed = Rules.from_json(rules or {})
        except RulesError as exc:
            raise TableError("bad_rules", str(exc)) from None
        if parsed.target_score > max_target_score:
            # A game to 10^9 points never ends, and its history grows with every move.
            raise TableError(
                "bad_rules",
                f"the rule option target_score may be at most {max_target_score}, got "
                f"{parsed.target_score} (limit max_target_score)",
            )
        if type(seats) is not int:
            raise TableError("bad_seats", f"seats must be a whole number, not {seats!r}")
        problem = players_problem(seats, parsed, most=MAX_SEATS)
        if problem is not None:
            raise TableError("bad_seats", problem)
        if turn_timer is not None and not min_turn_timer <= turn_timer <= MAX_TIMER:
            raise TableError(
                "bad_timer",
                f"turn_timer must be {min_turn_timer} to {MAX_TIMER} seconds, or null",
            )
        if type(bust_odds) is not bool:
            raise TableError("bad_bust_odds", f"bust_odds must be true or false, not {bust_odds!r}")
        if rated is not None and type(rated) is not bool:
            raise TableError("bad_rated", f"rated must be true, false or null, not {rated!r}")
        if rated is True and not private and parsed.target_score < rated_min_target_score:
            raise TableError(
                "unratable",
                f"a table with target_score {parsed.target_score} cannot be rated: rated "
                f"games play to {rated_min_target_score} points at least "
                "(limit rated_min_target_score); leave rated out or false",
            )
        if rated is None:
            rated = rated_by_default(parsed) and parsed.target_score >= rated_min_target_score
        rated = False if private else rated
        hours = _move_hours(pace, move_hours, turn_timer)
        return cls(seats, parsed, turn_timer, bust_odds, private, rated, hours)


def _move_hours(pace: str, move_hours: int | None, turn_timer: int | None) -> int | None:
    """A table's hours per decision as asked for (None: live), or ``bad_pace``."""
    if pace not in PACES:
        raise TableError("bad_pace", f"pace must be one of {', '.join(PACES)}, not {pace!r}")
    if pace == "live":
        if move_hours is not None:
            raise TableError("bad_pace", 'move_hours is for a turn-based table: send "pace": '
                                         '"turn_based" with it')  # fmt: skip
        return None
    if turn_timer is not None:
        raise TableError("bad_pace", "a turn-based table has no turn_timer: each decision "
                                     "has move_hours instead")  # fmt: skip
    hours = DEFAULT_MOVE_HOURS if move_hours is None else move_hours
    if type(hours) is not int or not MIN_MOVE_HOURS <= hours <= MAX_MOVE_HOURS:
        raise TableError("bad_pace", f"move_hours must be a whole number of hours from "
                                     f"{MIN_MOVE_HOURS} to {MAX_MOVE_HOURS}, not {hours!r}")
    return hours
