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


def configure_logging(level: str = "info") -> None:
    """Send the server's and uvicorn's logs to standard error as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in ("flip7.server", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
