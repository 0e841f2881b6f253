"""Who is asking: the token (a Bearer header, or the browser's cookie), the player it names
(the :data:`Me` dependency every router takes), the server an app runs, and the cookie."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, Request, Response
from starlette.requests import HTTPConnection

from . import auth
from .config import Settings
from .db import PlayerRow
from .node import Server

__all__ = ["Me", "Node", "origin_ok", "server_of", "set_cookie", "token_of"]


def server_of(conn: HTTPConnection) -> Server:
    """The server the app runs (set by :func:`.app.create_app`)."""
    server: Server = conn.app.state.server
    return server


#: The server the app runs.
Node = Annotated[Server, Depends(server_of)]


def token_of(conn: HTTPConnection) -> str | None:
    """The token a request or socket carries: a Bearer header, else the cookie."""
    header = conn.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return conn.cookies.get(auth.COOKIE)


async def _me(request: Request, response: Response) -> PlayerRow:
    """The player making an HTTP request (from the cookie or the Bearer token); a browser's
    cookie is renewed once half its lifetime has passed, so an active browser keeps its
    identity."""
    server = server_of(request)
    identity = server.identity
    token = token_of(request)
    player = await identity.player_of(token)
    from_cookie = token is not None and token == request.cookies.get(auth.COOKIE)
    if from_cookie and token is not None and identity.renewal_due(token):
        set_cookie(response, identity.issue(player.id), server.settings)
    return player


#: The player making an HTTP request (from the cookie or the Bearer token).
Me = Annotated[PlayerRow, Depends(_me)]


def set_cookie(response: Response, token: str, settings: Settings) -> None:
    """Give the browser its token as an HTTP-only cookie."""
    response.set_cookie(
        auth.COOKIE,
        token,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookie,
        max_age=int(settings.token_lifetime),
    )


def origin_ok(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """No Origin (not a browser), the server's own, or one the settings allow."""
    if origin is None:
        return True
    return urlsplit(origin).netloc == host or origin in allowed
