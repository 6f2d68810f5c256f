"""How the server writes JSON and times, wherever it stores or sends them: compact JSON
text, and UTC moments with an ISO 8601 ``Z``.

>>> dumps({"seat": 1, "names": ["Ann", "Bob"]})
'{"seat":1,"names":["Ann","Bob"]}'
>>> from datetime import datetime
>>> iso(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)), iso(datetime(2026, 1, 2, 3, 4, 5))
('2026-01-02T03:04:05Z', '2026-01-02T03:04:05Z')
>>> utcnow().tzinfo is UTC
True
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

__all__ = ["dumps", "iso", "utcnow"]


def dumps(data: object) -> str:
    """``data`` (JSON values: anything else raises TypeError) as compact JSON text, no
    spaces: what the store keeps and clients get."""
    return json.dumps(data, separators=(",", ":"))


def as_utc(when: datetime) -> datetime:
    """``when`` with its time zone; a naive time (SQLite hands them back) is UTC.

    >>> as_utc(datetime(2026, 12, 4, 12)).isoformat()
    '2026-12-04T12:00:00+00:00'
    """
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when


def iso(when: datetime) -> str:
    """An ISO 8601 UTC time with a ``Z``; a naive time (SQLite hands them back) is UTC."""
    return as_utc(when).isoformat().replace("+00:00", "Z")


def utcnow() -> datetime:
    return datetime.now(UTC)
