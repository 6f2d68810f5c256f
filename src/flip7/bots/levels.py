"""Bot levels: the ladder as players name it, weakest first.

A player picks a bot by how hard it is to beat, not by how it works. Each level is a spec
of the ladder (:func:`flip7.bots.parse_bot_spec` reads a level's name, in any case,
wherever it reads a spec), a line that tells a player what to expect, and the first names
its seats are given ("Mia (Medium bot)").

The order is by strength: every rung of the ladder beats the one below it
(``docs/strength.md``), and the five levels at one table agree (``flip7 tournament --seats
beginner,easy,medium,hard,expert --games 300 --paired --seed 1``, 2026-12-03, the
project's 2-core machine, 14 minutes): win rates Beginner 0.0%, Easy 12.7%, Medium 16.0%,
Hard 34.3%, Expert 37.0% (fair share 20%). ``ev`` (R3) has no level of its own: between
Medium and Hard, it would be a sixth step too small for players to tell.

>>> [level.name for level in LEVELS]
['Beginner', 'Easy', 'Medium', 'Hard', 'Expert']
>>> level_named(" medium ") is DEFAULT_LEVEL, DEFAULT_LEVEL.spec
(True, 'targeting')
>>> level_named("targeting") is None
True
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LEVEL", "LEVELS", "Level", "level_named"]


@dataclass(frozen=True, slots=True)
class Level:
    """A bot level: its ``name`` for players, the ladder ``spec`` it plays with, a
    ``blurb`` saying how it plays, and the first ``names`` its seats are given."""

    name: str
    spec: str
    blurb: str
    names: tuple[str, ...]

    def to_json(self) -> dict[str, str]:
        """What ``GET /api/bots`` tells of the level (the seat names stay on the server)."""
        return {"name": self.name, "spec": self.spec, "blurb": self.blurb}


LEVELS: tuple[Level, ...] = (
    Level(
        "Beginner",
        "random",
        "Picks any legal move at random: good for learning the cards.",
        ("Bea", "Benny", "Bo", "Bella", "Bram", "Birdie"),
    ),
    Level(
        "Easy",
        "threshold",
        "Hits until its numbers look high enough, then stays; aims its Actions anywhere.",
        ("Eddie", "Ella", "Emil", "Eve", "Enzo", "Esme"),
    ),
    Level(
        "Medium",
        "targeting",
        "Stays at a safe total and aims every Action and Modifier at the leader.",
        ("Mia", "Max", "Milo", "Maya", "Miles", "Mona"),
    ),
    Level(
        "Hard",
        "winprob",
        "Counts the cards, weighs every hit by its odds and plays to win near the end.",
        ("Hugo", "Hana", "Hank", "Hazel", "Hector", "Holly"),
    ),
    # The search's budget is mcts's own default, at the web server's ceilings
    # (flip7.server.table.thinking.CEILINGS); tests hold every level to them.
    Level(
        "Expert",
        "mcts",
        "Plays like Hard, and near the end tries out its options on many shuffles of the deck.",
        ("Xena", "Xavi", "Xander", "Ximena", "Xia", "Xeno"),
    ),
)

# What a seat is filled with when a player does not choose: a fair fight, not a pushover.
DEFAULT_LEVEL: Level = LEVELS[2]

_BY_NAME = {level.name.casefold(): level for level in LEVELS}


def level_named(text: str) -> Level | None:
    """The level called ``text`` (any case, surrounding spaces ignored), or None."""
    return _BY_NAME.get(text.strip().casefold())
