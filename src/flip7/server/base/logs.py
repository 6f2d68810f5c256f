"""Operator logs: one JSON object per line on standard error.

>>> import logging
>>> formatter = JsonFormatter()
>>> record = logging.LogRecord("flip7.server", logging.INFO, "", 0,
...                            '{"event":"move","table":"abc"}', None, None)
>>> line = formatter.format(record)
>>> '"level":"info"' in line and '"event":"move"' in line
True
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

__all__ = ["JsonFormatter", "configure_logging"]


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        message = record.getMessage()
        try:
            payload = json.loads(message) if message.startswith("{") else None
        except ValueError:
            payload = None
        if isinstance(payload, dict):
            out.update(payload)
        else:
            out["message"] = message
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, separators=(",", ":"), default=str)


# uvicorn's line for every WebSocket opened and closed: the server logs its own events
# (a seat connected or not) and its refusals; these, a record formatted and written per
# socket, were a visible part of a storm of reconnecting spectators. Kept at debug.
_SOCKET_LINES = frozenset({"connection open", "connection closed"})


def _no_socket_lines(record: logging.LogRecord) -> bool:
    """Whether ``record`` is kept: not uvicorn's per-socket line (kept at debug level).

    >>> line = logging.LogRecord("uvicorn.error", logging.INFO, "", 0, "connection open",
    ...                          None, None)
    >>> _no_socket_lines(line), _no_socket_lines(logging.LogRecord(
    ...     "uvicorn.error", logging.INFO, "", 0, "Started server process", None, None))
    (False, True)
    """
    return record.msg not in _SOCKET_LINES


def configure_logging(level: str = "info") -> None:
    """Send the server's and uvicorn's logs to standard error as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    if level.lower() != "debug":
        handler.addFilter(_no_socket_lines)
    for name in ("flip7.server", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
