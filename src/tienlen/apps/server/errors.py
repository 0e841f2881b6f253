"""Errors in the documented form: every HTTP error is ``{"code", "message"}`` with the status
docs/web-protocol.md gives it, and a refused socket gets one ``error`` frame and a close code
of 4000 + that status."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException

from .db import UNREACHABLE
from .messages import ErrorMsg
from .tables import Refused

__all__ = [
    "HTTP_STATUS",
    "TRY_AGAIN",
    "database_needed",
    "error_response",
    "install",
    "refuse_socket",
    "status_of",
    "validation_words",
]

log = logging.getLogger("tienlen.server")

#: The HTTP status of each error code that is not a plain 400.
HTTP_STATUS = {
    "auth": 401,
    "forbidden": 403,
    "not_found": 404,
    "bad_method": 405,
    "rate_limited": 429,
    "too_many_sockets": 429,
    "try_again": 503,  # a socket closes with 4503: not final, the browser reconnects
}
#: The error code of an HTTP status the framework answers by itself (no route, no method).
_CODE_OF_STATUS = {404: "not_found", 405: "bad_method"}
#: What a client is told when the database cannot be reached (or a commit failed).
TRY_AGAIN = "the server cannot reach its database just now: try again in a moment"


def status_of(code: str) -> int:
    """The HTTP status of an error code (400 unless :data:`HTTP_STATUS` says otherwise)."""
    return HTTP_STATUS.get(code, 400)


def error_response(e: Refused) -> JSONResponse:
    """A refusal as an HTTP answer."""
    return JSONResponse({"code": e.code, "message": str(e)}, status_code=status_of(e.code))


def validation_words(e: ValidationError | RequestValidationError, *, whole: str = "message") -> str:
    """The first problem a validation found, where it is (``whole``: the whole input) and
    how many more there are."""
    errors = e.errors()
    if not errors:
        return "the request is not valid"
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"]) or whole
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {first['msg']}{more}"[:300]


@contextlib.contextmanager
def database_needed() -> Iterator[None]:
    """Database errors (unreachable, connection lost) as a "try again" refusal."""
    try:
        yield
    except UNREACHABLE:
        log.warning("the database did not answer", exc_info=True)
        raise Refused("try_again", TRY_AGAIN) from None


async def refuse_socket(ws: WebSocket, e: Refused) -> None:
    """Refuse a socket being opened: one ``error`` frame, then the close."""
    await ws.send_text(ErrorMsg(code=e.code, message=str(e)).model_dump_json(exclude_none=True))
    await ws.close(code=4000 + status_of(e.code))


def install(app: FastAPI) -> None:
    """Answer every error of ``app`` as ``{"code", "message"}``."""

    @app.exception_handler(Refused)
    async def refused(_request: Request, e: Refused) -> JSONResponse:
        return error_response(e)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, e: RequestValidationError) -> JSONResponse:
        return error_response(Refused("bad_request", validation_words(e)))

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, e: HTTPException) -> JSONResponse:
        code = _CODE_OF_STATUS.get(e.status_code, "bad_request")
        return JSONResponse(
            {"code": code, "message": str(e.detail)},
            status_code=e.status_code,
            headers=e.headers,
        )

    async def database_down(_request: Request, e: Exception) -> JSONResponse:
        log.warning("the database did not answer: %s", type(e).__name__)
        return error_response(Refused("try_again", TRY_AGAIN))

    for unreachable in UNREACHABLE:
        app.add_exception_handler(unreachable, database_down)
