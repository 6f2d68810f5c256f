"""The REST API's error answers, all of one shape: ``{"detail": {"code", "message"}}``
(:class:`flip7.server.base.errors.ErrorAnswer`), whoever refused.

:data:`HANDLERS` is all the app has: one answer for every :class:`ServerError` (and for
the refusals of the layers below that are not one: Starlette's own 404 and 405, a body
that is not UTF-8, a database that refused a write), one for a request that does not
validate (422 ``bad_request``, saying what is wrong without echoing the input), and one for
a failure (500 ``server_error``: the traceback goes to the log, never to the client).

>>> safe_text("a\\ud800b")
'a\\\\ud800b'
>>> error_response(ServerError("no_table", "there is no table 'x'", 404)).body
b'{"detail":{"code":"no_table","message":"there is no table \\'x\\'"}}'
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from flip7.server.base.errors import ErrorAnswer, ServerError
from flip7.server.table.storage import StoreError

__all__ = [
    "ERROR_ANSWERS",
    "HANDLERS",
    "error_response",
    "errors",
    "safe_text",
    "validation_message",
]


def safe_text(text: str) -> str:
    """``text`` with lone surrogates written as ``\\udXXX`` escapes: a JSON answer encodes
    to UTF-8, which they would make fail (a 500 instead of the 4xx being answered)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def validation_message(exc: RequestValidationError) -> str:
    """What is wrong with a request, one ``where: what`` per problem, without echoing the
    input back."""
    problems = []
    for error in exc.errors():
        if error.get("type") == "json_invalid":
            return "the body is not valid JSON"
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
        what = str(error.get("msg", "is not valid"))
        problems.append(f"{where}: {what}" if where else what)
    return safe_text("; ".join(problems)[:1000] or "the request is not valid")


def error_response(error: ServerError, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """``error``'s answer (with ``Retry-After`` when waiting helps, and ``headers``)."""
    detail = error.detail()
    detail["message"] = safe_text(error.message)
    return JSONResponse(
        {"detail": detail}, status_code=error.status, headers={**error.headers, **(headers or {})}
    )


# Starlette's own refusals, by status: an unknown path, a method the path does not take, a
# body that is not UTF-8 (or a number too long for Python to read: over 4,300 digits).
_STARLETTE_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}
_UNREADABLE = "There was an error parsing the body"


async def _refused(_request: Request, exc: Exception) -> Response:
    if isinstance(exc, ServerError):
        return error_response(exc)
    if isinstance(exc, StoreError):
        # The database refused the write (gone, replaced, full, or the lease lost):
        # nothing was stored, so say so plainly rather than fail with a 500.
        return error_response(ServerError("server_error", "it could not be stored; try again "
                                          "later", 503))
    assert isinstance(exc, StarletteHTTPException)
    message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    if exc.status_code == 400 and message == _UNREADABLE:
        message = "the body is not valid JSON"
    code = _STARLETTE_CODES.get(exc.status_code, f"http_{exc.status_code}")
    return error_response(ServerError(code, message, exc.status_code), exc.headers)


async def _bad_request(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return error_response(ServerError("bad_request", validation_message(exc), 422))


async def _failed(_request: Request, _exc: Exception) -> Response:
    # The traceback goes to the log (uvicorn logs the exception), never to the client.
    return error_response(ServerError("server_error", "the server failed to answer; try again",
                                      500))


Handler = Callable[[Request, Exception], Coroutine[object, object, Response]]
HANDLERS: dict[int | type[Exception], Handler] = {
    ServerError: _refused,
    StoreError: _refused,
    StarletteHTTPException: _refused,
    RequestValidationError: _bad_request,
    Exception: _failed,
}


def errors(*statuses: int) -> dict[int | str, dict[str, object]]:
    """A route's documented error answers (its ``responses``), all :class:`ErrorAnswer`."""
    return {status: {"model": ErrorAnswer} for status in statuses}


# What most routes may answer besides success.
ERROR_ANSWERS = errors(400, 401, 403, 404, 409, 410, 413, 429)
