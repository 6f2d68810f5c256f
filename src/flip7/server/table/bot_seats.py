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

Bots that think in a worker process (flip7.server.table.thinking: Medium and up) are
capped, as the CPU they may ask for is: ``search_bots_per_table`` at one table, and
``search_bot_tables_per_owner`` open tables seating them per owner (the address that
created the table, and its creator's identity). The cheap bots that decide on the event
loop, and the operator's own ``--bot`` bots (trusted, as the operator chose them), are
not capped.

>>> searches("targeting", ()), searches("threshold:30", ()), searches("my:Bot", ("my:Bot",))
(True, False, False)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from flip7.bots import LEVELS, Level, bot_names, level_named, parse_bot_spec
from flip7.core.errors import Flip7Error
from flip7.server.base.names import taken_by
from flip7.server.base.settings import Settings
from flip7.server.table.errors import TableError
from flip7.server.table.thinking import IN_PROCESS, over_ceiling

if TYPE_CHECKING:
    from flip7.server.table.table import Table

__all__ = [
    "bot_choice",
    "bot_seat_name",
    "check_search_bot",
    "level_seat_name",
    "offered_bots",
    "searches",
]


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


def searches(spec: str, extra: tuple[str, ...]) -> bool:
    """Whether the bot ``spec`` thinks in a worker process and is capped: not one of the
    cheap bots of :data:`~flip7.server.table.thinking.IN_PROCESS`, nor one of the
    operator's own (``extra``)."""
    return spec not in extra and spec.partition(":")[0] not in IN_PROCESS


def _levels(cheap: bool) -> list[str]:
    return [level.name for level in LEVELS if (level.spec.partition(":")[0] in IN_PROCESS) == cheap]


def _search_bots(table: Table, extra: tuple[str, ...]) -> int:
    return sum(
        1 for place in table.seats
        if place is not None and place.kind == "bot" and place.bot is not None
        and searches(place.bot, extra)
    )


def _left_by_all(table: Table) -> bool:
    """Whether every human seated at ``table`` has left it (its seats are bots' for good)."""
    return not any(p is not None and p.kind == "human" and not p.left for p in table.seats)


def check_search_bot(spec: str, table: Table, tables: Iterable[Table], settings: Settings) -> None:
    """Refuse (409) to seat the bot ``spec`` at ``table`` past the caps on bots that think
    in a worker: ``too_many_search_bots`` with ``search_bots_per_table`` of them seated
    already, ``too_many_bot_tables`` when ``table``'s owner has
    ``search_bot_tables_per_owner`` other open ``tables`` seating them. A finished table
    that no seated human is connected to does not count, nor one every human has left:
    their bots think no more (a left seat never comes back, so this cannot be undone by
    reconnecting, as a merely disconnected player could)."""
    extra = settings.extra_bots
    if not searches(spec, extra):
        return
    cheap, costly = " or ".join(_levels(True)), _levels(False)
    upward = f"{costly[0]} and up" if costly else "searching bots"
    seated = _search_bots(table, extra)
    if seated >= settings.search_bots_per_table:
        raise TableError(
            "too_many_search_bots",
            f"this table already seats {seated} bots that think hard ({upward}), the most "
            f"this server allows at one table (limit search_bots_per_table); add {cheap} "
            "bots instead",
            409,
        )
    if seated:  # the table is counted already
        return
    others = sum(
        1 for other in tables
        if other is not table and not other.closed and other.owner.shares(table.owner)
        and not (other.state == "over" and not other.humans_here) and not _left_by_all(other)
        and _search_bots(other, extra) > 0
    )
    if others >= settings.search_bot_tables_per_owner:
        raise TableError(
            "too_many_bot_tables",
            f"whoever opened this table has bots that think hard ({upward}) at {others} "
            "other open tables, the most this server allows (limit "
            "search_bot_tables_per_owner); finish or leave one of them first (a finished "
            "table nobody is connected to, or one every player has left, does not count), "
            f"or add {cheap} bots here",
            409,
        )
