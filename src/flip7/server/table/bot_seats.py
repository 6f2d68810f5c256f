"""The bots a seat can be filled with, and the names they sit under.

A seat takes a level's bot by its name ("Medium": "Mia (Medium bot)"), one of the ladder's
bots by a spec ("threshold:30": "Threshold bot 1"), or a bot of the operator's own
(``flip7 serve --bot``). A request names bots only from these: a spec is never parsed
before its bot is known to be offered, since parsing imports the module it names.

>>> from flip7.bots import DEFAULT_LEVEL
>>> level_seat_name(DEFAULT_LEVEL, ["Ann", "mia"])
'Max (Medium bot)'
>>> bot_seat_name("Threshold", None, ["Threshold bot 1"])
'Threshold bot 2'
>>> bot_choice("threshold:30", ())
('threshold:30', 'Threshold', None)
"""

from __future__ import annotations

from collections.abc import Iterable

from flip7.bots import LEVELS, Level, bot_names, level_named, parse_bot_spec
from flip7.core.errors import Flip7Error
from flip7.server.base.names import taken_by
from flip7.server.table.errors import TableError
from flip7.server.table.thinking import over_ceiling

__all__ = ["bot_choice", "bot_seat_name", "level_seat_name", "offered_bots"]


def offered_bots(extra: Iterable[str]) -> list[str]:
    """The bots a seat can be filled with: the ladder, then the operator's own (``extra``)."""
    return [*bot_names(), *(b for b in extra if b not in bot_names())]


def bot_choice(spec: str, extra: tuple[str, ...]) -> tuple[str, str, Level | None]:
    """A bot asked for (a level's name, a spec, or one of the operator's ``extra``): the
    spec to store, the label its seat name starts with, and the level asked for by name
    (None: a spec). Refused: ``bad_bot``."""
    spec = spec.strip()
    if spec in extra:
        return spec, spec.rpartition(":")[2], None
    level = level_named(spec)
    if level is not None:
        # Checked below as any spec is: a level is a spec under a player's name for it.
        spec = level.spec
    if spec.partition(":")[0] not in bot_names():
        # Never parsed: a module named by a request would be imported, running anyone's
        # code on the server.
        raise TableError(
            "bad_bot",
            f"bot {spec!r} is not offered here; levels are "
            f"{', '.join(level.name for level in LEVELS)}, and bots are "
            f"{', '.join(offered_bots(extra))} "
            "(the server's operator adds bots of their own with flip7 serve --bot)",
        )
    try:
        parsed = parse_bot_spec(spec)
    except Flip7Error as exc:
        raise TableError("bad_bot", str(exc)) from None
    # The library's bounds are for people running bots on their own machine; what a
    # stranger may ask of this server's CPU is less (flip7.server.table.thinking.CEILINGS).
    too_much = over_ceiling(parsed)
    if too_much is not None:
        raise TableError("bad_bot", too_much)
    return parsed.text, spec.partition(":")[0].title(), level


def level_seat_name(level: Level, taken: Iterable[str]) -> str:
    """The seat name of a new bot of ``level``: "Mia (Medium bot)", with the first of the
    level's first names that no seated name looks like (a human called Mia keeps hers),
    then "Mia 2 (Medium bot)" and so on once all are in use."""
    names = list(taken)
    suffix = f" ({level.name} bot)"
    number = 1
    while True:
        for first in level.names:
            called = first if number == 1 else f"{first} {number}"
            if taken_by(called, names) is None and taken_by(called + suffix, names) is None:
                return called + suffix
        number += 1


def bot_seat_name(label: str, level: Level | None, taken: Iterable[str]) -> str:
    """The seat name of a new bot: a level's first name (:func:`level_seat_name`), else
    ``label`` numbered ("Threshold bot 1") past the names ``taken``."""
    names = list(taken)
    if level is not None:
        return level_seat_name(level, names)
    number = 1
    while taken_by(f"{label} bot {number}", names) is not None:
        number += 1
    return f"{label} bot {number}"
