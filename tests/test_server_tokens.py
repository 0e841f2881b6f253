"""Guest tokens expire: an expired token is refused with HTTP 401 (or close code 4401) and a
message in words; an active browser's cookie is renewed before it runs out; an API client
renews with ``POST /api/token``."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from serverkit import (
    Client,
    LiveServer,
)
from tienlen.apps.server import auth

LIFETIME = 3600.0


@pytest.fixture
def live_settings() -> dict[str, Any]:
    return {"token_lifetime": LIFETIME}


def key_of(live: LiveServer) -> str:
    assert live.server is not None
    return live.server.key


def test_a_token_names_its_player_until_it_expires() -> None:
    key = auth.new_key()
    token = auth.issue(key, "3f5cb1ccb719e9c2", lifetime=60, now=1_000_000)
    assert auth.verify(key, token, now=1_000_059) == ("3f5cb1ccb719e9c2", 1_000_060)
    with pytest.raises(auth.TokenExpired, match="expired at 1970-01-12 13:47 UTC"):
        auth.verify(key, token, now=1_000_060)
    later = token.replace(".1000060.", ".9000060.")  # a forged expiry breaks the signature
    with pytest.raises(auth.TokenError, match="not signed by this server"):
        auth.verify(key, later, now=1_000_000)
    with pytest.raises(auth.TokenError, match="malformed token 'abc'"):
        auth.verify(key, "abc")


def test_an_expired_token_is_refused_in_words(live: LiveServer) -> None:
    a = Client(live.base, "An")
    table = a.create()["table"]["id"]
    expired = auth.issue(key_of(live), a.id, lifetime=LIFETIME, now=time.time() - 2 * LIFETIME)
    r = httpx.get(f"{live.base}/api/me", headers={"Authorization": f"Bearer {expired}"})
    assert r.status_code == 401
    assert r.json()["code"] == "auth" and "the token expired at" in r.json()["message"]
    s = a.socket(table, token=expired, welcome=False)
    error = s.recv()
    assert error["code"] == "auth" and "expired" in error["message"]
    # the same player with a live token is still welcome
    assert a.http.get("/api/me").json()["player"] == a.id


def test_an_active_browser_keeps_its_identity(live: LiveServer) -> None:
    browser = httpx.Client(base_url=live.base)
    player = browser.post("/api/guest", json={"name": "Web"}).json()["player"]
    fresh = browser.cookies[auth.COOKIE]
    r = browser.get("/api/me")
    assert r.json()["player"] == player and auth.COOKIE not in r.cookies  # not due yet
    # A cookie past half its lifetime is replaced by one that expires later.
    old = auth.issue(key_of(live), player, lifetime=LIFETIME, now=time.time() - 0.6 * LIFETIME)
    browser.cookies.set(auth.COOKIE, old)
    r = browser.get("/api/me")
    assert r.json()["player"] == player
    renewed = r.cookies[auth.COOKIE]
    key = key_of(live)
    assert auth.verify(key, renewed).expires > auth.verify(key, old).expires
    assert auth.verify(key, renewed).player == auth.verify(key, fresh).player == player


def test_an_api_client_renews_its_token(live: LiveServer) -> None:
    a = Client(live.base, "Bot owner")
    r = a.http.post("/api/token")
    assert r.status_code == 200 and r.json()["player"] == a.id
    assert auth.verify(key_of(live), r.json()["token"]).player == a.id
