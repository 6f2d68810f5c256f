"""Numbers in query parameters (``?limit=``, ``?offset=``, ``?seat=``), read strictly: ASCII
digits only, and a refusal that says what is allowed.

>>> query_number("42"), query_number("-1"), query_number("٣"), query_number("9" * 13)
(42, None, None, None)
>>> page_number(None, "limit", 20, 1, 50), page_number("50", "limit", 20, 1, 50)
(20, 50)
>>> page_number("51", "limit", 20, 1, 50)
Traceback (most recent call last):
...
flip7.server.base.errors.ServerError: limit must be a whole number from 1 to 50, not '51'
"""

from __future__ import annotations

from flip7.server.base.errors import ServerError

__all__ = ["page_number", "query_number"]


def query_number(text: str) -> int | None:
    """A query parameter as a whole number, or None: ASCII digits only."""
    # ASCII digits only (str.isdigit also takes other scripts' digits), and not so many
    # that int() would refuse them.
    if text.isascii() and text.isdigit() and len(text) <= 12:
        return int(text)
    return None


def page_number(text: str | None, parameter: str, default: int, low: int, high: int) -> int:
    """A page's ``offset`` or ``limit`` (``parameter``) as a number from ``low`` to ``high``
    (``default`` when not given), or 400 ``bad_<parameter>``."""
    if text is None:
        return default
    value = query_number(text)
    if value is not None and low <= value <= high:
        return value
    shown = text if len(text) <= 20 else text[:20] + "…"
    raise ServerError(f"bad_{parameter}", f"{parameter} must be a whole number from {low} to "
                      f"{high}, not {shown!r}")
