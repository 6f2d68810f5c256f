"""What the server answers when it refuses a request: one error type, one answer.

Every refusal a user can cause (a table's, a replay's, a player's, the coach's, the
scorekeeper's, a frame's) is a :class:`ServerError`: a ``code`` for programs, a
``message`` for people (what was wrong, and what is allowed), the HTTP ``status``, and for
a refusal that passes with time (a rate limit, a queue full) how long to wait. Over HTTP it
is answered as :class:`ErrorAnswer` (``flip7.server.api.errors`` does that, once for all);
on a table's socket as an ``error`` frame with the same code and message.

>>> error = ServerError("rate_limited", "too many tables; try again in 3 s", 429,
...                     retry_after=2.2)
>>> error.answer()
{'detail': {'code': 'rate_limited', 'message': 'too many tables; try again in 3 s'}}
>>> error.headers
{'Retry-After': '3'}
>>> ErrorAnswer.model_validate(error.answer()).detail.code
'rate_limited'
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict

from flip7.core.errors import Flip7Error
from flip7.core.jsontypes import JSONObject

__all__ = ["ErrorAnswer", "ErrorDetail", "ServerError"]


class ErrorDetail(BaseModel):
    """What was refused: ``code`` (stable, for programs) and ``message`` (for people)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    code: str
    message: str


class ErrorAnswer(BaseModel):
    """Every error answer of the REST API: ``{"detail": {"code", "message"}}``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    detail: ErrorDetail


class ServerError(Flip7Error):
    """A request the server refuses: ``code`` names why, ``status`` is the HTTP status,
    ``retry_after`` the seconds until it may succeed (sent as ``Retry-After``)."""

    def __init__(
        self, code: str, message: str, status: int = 400, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after

    def detail(self) -> JSONObject:
        """What the answer's ``detail`` holds (a subclass may say more: the scorekeeper's
        problems)."""
        return {"code": self.code, "message": self.message}

    def answer(self) -> JSONObject:
        """The JSON answer, of :class:`ErrorAnswer`'s shape."""
        return {"detail": self.detail()}

    @property
    def headers(self) -> dict[str, str]:
        """The answer's own headers: ``Retry-After`` when waiting helps."""
        if self.retry_after is None:
            return {}
        # Whole seconds (RFC 9110), rounded up so that a retry then succeeds.
        return {"Retry-After": str(max(1, math.ceil(self.retry_after)))}
