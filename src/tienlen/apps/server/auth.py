"""Guest identity: a signed token that names a player id. No passwords.

The token is ``<player id>.<signature>``, the signature an HMAC-SHA256 of the id under the
server's key (kept in the database, made on first start). Browsers hold it in an HttpOnly,
SameSite cookie; API clients and bots send ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

__all__ = ["COOKIE", "TokenError", "issue", "new_key", "verify"]

#: The cookie that carries the token for browsers.
COOKIE = "tienlen_token"


class TokenError(ValueError):
    """A token that is malformed or not signed by this server."""


def new_key() -> str:
    """A fresh signing key."""
    return secrets.token_hex(32)


def _signature(key: str, player_id: str) -> str:
    digest = hmac.new(key.encode(), player_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def issue(key: str, player_id: str) -> str:
    """The token for ``player_id``."""
    return f"{player_id}.{_signature(key, player_id)}"


def verify(key: str, token: str) -> str:
    """The player id a token names; raises :class:`TokenError` for a forged one."""
    player_id, dot, signature = token.partition(".")
    if not dot or not player_id or len(token) > 200:
        raise TokenError(f"malformed token {token[:40]!r}")
    if not hmac.compare_digest(signature, _signature(key, player_id)):
        raise TokenError("the token is not signed by this server")
    return player_id
