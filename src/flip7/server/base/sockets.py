"""What a table socket's server side says besides the table's own frames: its close codes
and its error frame (both described in docs/protocol.md).

>>> error_frame("hello_first", "send hello first")
'{"v":1,"type":"error","code":"hello_first","message":"send hello first","id":null,"table":null}'
>>> int(Close.gone("closed")), int(Close.gone("no_table"))
(4410, 4404)
"""

from __future__ import annotations

import json
from enum import IntEnum

from flip7.core.jsontypes import JSONObject

__all__ = ["PONG", "Close", "error_frame"]

PONG = '{"v":1,"type":"pong"}'


class Close(IntEnum):
    """The codes a table socket is closed with: RFC 6455's, and 4xxx ones of flip7 after
    the HTTP status they mean."""

    # Too many messages, or connections, from one client.
    POLICY = 1008
    # Handling a message failed.
    SERVER_ERROR = 1011
    # "Service restart": the table moved to another process, or the link to it broke.
    # Clients answer it by reconnecting.
    RESTART = 1012
    # "Try again later": the server cannot serve the socket now (Redis or the database do
    # not answer, or the client does not read its frames).
    TRY_AGAIN_LATER = 1013
    NOT_FOUND = 4404
    HELLO_TIMEOUT = 4408
    # The table was closed (flip7.server.table.expiry.CLOSED_CODE).
    CLOSED = 4410

    @classmethod
    def gone(cls, code: str) -> Close:
        """The close of a socket whose table is not open, as ``lobby.gone`` said why:
        ``closed`` (410), else not found."""
        return cls.CLOSED if code == "closed" else cls.NOT_FOUND


def error_frame(
    code: str, message: str, move_id: str | None = None, table: JSONObject | None = None
) -> str:
    """An ``error`` frame: ``code`` and ``message``, with the move's id it answers and the
    table as the client sees it, when a move was refused."""
    return json.dumps(
        {"v": 1, "type": "error", "code": code, "message": message, "id": move_id,
         "table": table},
        separators=(",", ":"),
    )
