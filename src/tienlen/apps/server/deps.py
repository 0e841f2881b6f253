"""Who is asking: the token (a Bearer header, or the browser's cookie), the player it names
(the :data:`Me` dependency every router takes), the server an app runs, the cookie, and
whose pages may open sockets (the Origin check).

With a cookie domain (``tienlen serve --cookie-domain example.org``), the cookie is set for
that domain and its subdomains, so that a cluster's nodes on host names of their own
(``n1.example.org``, ``n2.example.org``) all receive it; a page of any of those hosts may
then open sockets at any other. That trusts no one new: a host that the domain covers
receives every browser's token anyway."""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, Request, Response
from starlette.requests import HTTPConnection

from . import auth
from .config import Settings
from .db import PlayerRow
from .node import Server

__all__ = [
    "BadCookieDomain",
    "Me",
    "Node",
    "cookie_domain",
    "origin_ok",
    "server_of",
    "set_cookie",
    "token_of",
]

#: A host name's label: letters, digits and inner hyphens.
_LABEL = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")


class BadCookieDomain(ValueError):
    """A cookie domain that is not a host name of two labels or more."""


def cookie_domain(text: str) -> str:
    """A cookie domain checked: a host name of two labels or more (``example.org``; a
    leading dot, which browsers ignore, is dropped), lower case; not an IP address (a
    browser keeps such a cookie for that one host only) nor a single label."""
    name = text.strip().removeprefix(".").lower()
    labels = name.split(".")
    try:
        ipaddress.ip_address(name)
        is_address = True
    except ValueError:
        is_address = False
    if (
        is_address
        or len(name) > 253
        or len(labels) < 2
        or not all(_LABEL.fullmatch(label) for label in labels)
    ):
        raise BadCookieDomain(
            "a cookie domain is the host name its nodes share, of two labels or more "
            f"(e.g. example.org for n1.example.org and n2.example.org), not {text[:80]!r}"
        )
    return name


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
        domain=settings.cookie_domain,
    )


def origin_ok(
    origin: str | None, host: str | None, allowed: tuple[str, ...], domain: str | None = None
) -> bool:
    """No Origin (not a browser), the server's own, one the settings allow, or (with a
    cookie ``domain``) a page of a host the cookie goes to: the domain or a subdomain."""
    if origin is None:
        return True
    parts = urlsplit(origin)
    if parts.netloc == host or origin in allowed:
        return True
    name = (parts.hostname or "").lower()
    return (
        domain is not None
        and parts.scheme in ("http", "https")
        and (name == domain or name.endswith("." + domain))
    )
