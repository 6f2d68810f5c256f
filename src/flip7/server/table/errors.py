"""What a table refuses, and why: :class:`TableError` with a code and an HTTP status.

>>> clean_name("  Ann   Lee ", "player name", 40)
'Ann Lee'
>>> clean_name("", "player name", 40)
Traceback (most recent call last):
...
flip7.server.table.errors.TableError: the player name must not be empty
"""

from __future__ import annotations

import math

from flip7.server.base.errors import ServerError
from flip7.server.base.limits import AddressBudget
from flip7.server.base.names import BadName, clean

__all__ = ["TableError", "clean_name", "not_stored", "spend"]


class TableError(ServerError):
    """A request the table refuses: ``code`` names why, ``status`` is the HTTP status."""


def spend(budget: AddressBudget, address: str | None, what: str, limit: str) -> None:
    """Take one of ``address``'s tokens of ``budget`` (the limit named ``limit``), or refuse
    with 429 ``rate_limited`` and how long to wait. ``None`` is the server's own call."""
    if address is None or budget.take(address):
        return
    wait = budget.retry_after(address)
    raise TableError(
        "rate_limited",
        f"too many {what} from your address: at most {budget.rate * 60:g} a minute "
        f"({budget.burst:g} at once, limit {limit}); try again in "
        f"{max(1, math.ceil(wait))} seconds",
        429,
        retry_after=wait,
    )


def not_stored(what: str) -> TableError:
    """The error for a change (or a message) the store refused: nothing was changed."""
    return TableError("server_error", f"{what} could not be stored; try again", 503)


def clean_name(value: str, what: str, limit: int) -> str:
    """A display name as :func:`flip7.server.base.names.clean` makes it (white space collapsed,
    at most ``limit`` characters counted in code points, refused rather than cut), or
    ``bad_name`` (400) saying what is wrong."""
    try:
        return clean(value, what, limit)
    except BadName as exc:
        raise TableError("bad_name", str(exc)) from None
