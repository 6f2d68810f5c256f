"""What a table socket's server side says besides the table's own frames: its error frame
and its pong (docs/protocol.md; its close codes: flip7.server.base.closecodes).

>>> error_frame("hello_first", "send hello first")
'{"v":1,"type":"error","code":"hello_first","message":"send hello first","id":null,"table":null}'
"""

from __future__ import annotations

from flip7.core.jsontypes import JSONObject
from flip7.server.base.formats import dumps

__all__ = ["PONG", "error_frame"]

PONG = '{"v":1,"type":"pong"}'


def error_frame(
    code: str, message: str, move_id: str | None = None, table: JSONObject | None = None
) -> str:
    """An ``error`` frame: ``code`` and ``message``, with the move's id it answers and the
    table as the client sees it, when a move was refused."""
    return dumps(
        {"v": 1, "type": "error", "code": code, "message": message, "id": move_id,
         "table": table}
    )
