"""The refusals the server answers with: every one is ``{"code", "message"}`` (and a
``reason`` where the engine gave one), over HTTP with the status its code maps to, on a
socket in an ``error`` frame."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from fastapi.responses import JSONResponse
from pydantic import ValidationError
from sqlalchemy.exc import DBAPIError

from .tables import Refused

__all__ = [
    "HTTP_STATUS",
    "TRY_AGAIN",
    "database_needed",
    "refusal",
    "status_of",
    "validation_words",
]

log = logging.getLogger("tienlen.server")

#: The HTTP status of each refusal code that is not a plain 400.
HTTP_STATUS = {
    "auth": 401,
    "forbidden": 403,
    "not_found": 404,
    "rate_limited": 429,
    "try_again": 503,  # a socket closes with 4503: not final, the browser reconnects
}
#: What a client is told when the database cannot be reached (or a commit failed).
TRY_AGAIN = "the server cannot reach its database just now: try again in a moment"


def status_of(code: str) -> int:
    """The HTTP status of a refusal code (a socket closes with 4000 more)."""
    return HTTP_STATUS.get(code, 400)


def refusal(e: Refused) -> JSONResponse:
    """A refusal as an HTTP response."""
    return JSONResponse({"code": e.code, "message": str(e)}, status_code=status_of(e.code))


@contextlib.contextmanager
def database_needed() -> Iterator[None]:
    """Database errors (unreachable, connection lost) as a "try again" refusal."""
    try:
        yield
    except (DBAPIError, OSError):
        log.warning("the database did not answer", exc_info=True)
        raise Refused("try_again", TRY_AGAIN) from None


def validation_words(e: ValidationError, *, whole: str = "message") -> str:
    """A pydantic error in one line: where (``whole`` if the whole input is wrong), what, and
    how many more."""
    first = e.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or whole
    more = f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else ""
    return f"{where}: {first['msg']}{more}"[:300]
