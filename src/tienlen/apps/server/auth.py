"""Guest identity: a signed token that names a player id until it expires. No passwords.

The token is ``<player id>.<expiry>.<signature>``: the expiry in Unix seconds, the signature
an HMAC-SHA256 of the id and expiry under the server's key (kept in the database, made on
first start). Browsers hold it in an HttpOnly, SameSite cookie, renewed while they are active;
API clients and bots send ``Authorization: Bearer <token>`` and renew with ``POST /api/token``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from datetime import UTC, datetime
from typing import NamedTuple

__all__ = ["COOKIE", "Identity", "TokenError", "TokenExpired", "issue", "new_key", "verify"]

#: The cookie that carries the token for browsers.
COOKIE = "tienlen_token"


class TokenError(ValueError):
    """A token that is malformed or not signed by this server."""


class TokenExpired(TokenError):
    """A token signed by this server whose lifetime is over."""


class Identity(NamedTuple):
    """What a valid token says: the player and when the token expires (Unix seconds)."""

    player: str
    expires: int


def new_key() -> str:
    """A fresh signing key."""
    return secrets.token_hex(32)


def _signature(key: str, body: str) -> str:
    digest = hmac.new(key.encode(), body.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def issue(key: str, player_id: str, *, lifetime: float, now: float | None = None) -> str:
    """A token for ``player_id`` valid for ``lifetime`` seconds from ``now``."""
    expires = int((time.time() if now is None else now) + lifetime)
    body = f"{player_id}.{expires}"
    return f"{body}.{_signature(key, body)}"


def verify(key: str, token: str, *, now: float | None = None) -> Identity:
    """The identity a token carries; raises :class:`TokenError` for a malformed or forged
    token and :class:`TokenExpired` for one past its expiry."""
    player_id, _, rest = token.partition(".")
    expiry, _, signature = rest.partition(".")
    if not player_id or not expiry.isdigit() or not signature or len(token) > 200:
        raise TokenError(f"malformed token {token[:40]!r}")
    if not hmac.compare_digest(signature, _signature(key, f"{player_id}.{expiry}")):
        raise TokenError("the token is not signed by this server")
    expires = int(expiry)
    if expires <= (time.time() if now is None else now):
        when = datetime.fromtimestamp(expires, UTC).strftime("%Y-%m-%d %H:%M UTC")
        raise TokenExpired(f"the token expired at {when}: POST /api/guest for a new identity")
    return Identity(player_id, expires)
