"""Bad input never breaks a table (issue 9, item 10): every case gets an error frame to its
sender only, the table's state is unchanged, and the server goes on serving everyone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from serverkit import (
    NO_REFILL,
    Client,
    LiveServer,
    Socket,
    live_server,
    seated_table,
)
from tienlen.apps.server import frames
from tienlen.apps.server.limits import Rate, TokenBucket


@pytest.fixture
def live_settings() -> dict[str, Any]:
    return {"creations": Rate(3, NO_REFILL)}


def snapshot(s: Socket) -> tuple[int, Any]:
    """The table's version and this seat's view, by a full resync."""
    s.send(type="sync")
    state = s.until(lambda m: m["type"] == "state")
    return state["version"], state.get("view")


def nothing_for(s: Socket) -> None:
    """``s`` was sent nothing since its last frame: its next frame answers its own ping."""
    s.send(type="ping")
    assert s.recv()["type"] == "pong"


@pytest.fixture
def started(live: LiveServer) -> tuple[list[Client], list[Socket], str]:
    clients, sockets, table = seated_table(live, ["An", "Binh", "Chi", "Dung"], games=1)
    sockets[0].send(type="start")
    for s in sockets:
        s.until_view()
    return clients, sockets, table


def refused(s: Socket, frame: str | dict[str, Any], code: str, others: list[Socket]) -> str:
    """Send a bad frame: an error with ``code`` comes back, the state is the same, and no
    other client heard of it. Returns the error's message."""
    before = snapshot(s)
    s.conn.send(frame if isinstance(frame, str) else json.dumps(frame))
    error = s.error()
    assert error["code"] == code, error
    assert snapshot(s) == before
    for o in others:
        nothing_for(o)
    return str(error["message"])


def test_bad_frames_and_illegal_moves(started: tuple[list[Client], list[Socket], str]) -> None:
    _clients, sockets, _table = started
    view = sockets[0].view
    assert view is not None
    turn = view["turn"]
    actor, idle = sockets[turn], sockets[(turn + 1) % 4]
    others = [s for s in sockets if s is not actor]
    version = actor.version
    assert "JSON" in refused(actor, "{not json", "bad_message", others)
    assert "type" in refused(actor, {"type": "teleport"}, "bad_message", others)
    assert "4096 bytes" in refused(
        actor, json.dumps({"type": "chat", "text": "x" * 5000}), "too_big", others
    )
    mine = set(actor.view["hand"])
    theirs = next(c for c in idle.view["hand"] if c not in mine)
    message = refused(
        actor, {"type": "play", "cards": [theirs], "version": version}, "illegal", others
    )
    assert message.startswith("you do not hold")
    assert "turn" in refused(
        idle,
        {"type": "pass", "version": version},
        "not_your_turn",
        [s for s in sockets if s is not idle],
    )
    assert "sync" in refused(actor, {"type": "pass", "version": version - 1}, "stale", others)
    refused(actor, {"type": "play", "cards": ["Zz"], "version": version}, "illegal", others)
    refused(actor, {"type": "give", "cards": [], "version": version}, "illegal", others)
    refused(actor, {"type": "accept", "version": version}, "illegal", others)
    # The table still plays: the actor's first legal move goes through.
    first = actor.view["legal"][0]
    actor.act("play", cards=first) if first else actor.act("pass")
    assert actor.batch()["event"]["seat"] == turn


def test_seats_and_private_tables(live: LiveServer) -> None:
    host, guest = Client(live.base, "Host"), Client(live.base, "Guest")
    made = host.create(private=True)
    table, invite = made["table"]["id"], made["invite"]
    assert invite and len(invite) >= 16
    assert all(t["id"] != table for t in guest.http.get("/api/tables").json())
    r = guest.http.get(f"/api/tables/{table}")
    assert r.status_code == 403 and "invite" in r.json()["message"]
    s = guest.socket(table, welcome=False)
    assert s.recv()["code"] == "forbidden"
    with pytest.raises(ConnectionClosed) as closed:
        s.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    assert guest.http.get(f"/api/tables/{table}?invite={invite}").status_code == 200
    hs = host.socket(table)
    hs.until(lambda m: m["type"] == "state")
    hs.send(type="sit", seat=0)
    hs.batch()
    gs = guest.socket(table, invite=invite)
    gs.until(lambda m: m["type"] == "state")
    assert "taken" in refused(gs, {"type": "sit", "seat": 0}, "seat_taken", [hs])
    refused(gs, {"type": "sit", "seat": 9}, "bad_seat", [hs])
    refused(gs, {"type": "start"}, "forbidden", [hs])
    gs.send(type="sit", seat=1)
    assert gs.batch()["event"]["player"] == guest.id


def test_tokens_and_origins(live: LiveServer) -> None:
    a, b = Client(live.base, "A"), Client(live.base, "B")
    table = a.create()["table"]["id"]
    forged = f"{b.id}.{a.token.split('.', 1)[1]}"  # B's id under A's signature
    for token in (forged, "garbage", a.token + "x"):
        r = httpx.get(f"{live.base}/api/me", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401
        s = a.socket(table, token=token, welcome=False)
        assert s.recv()["code"] == "auth"
    assert a.http.get("/api/me").json()["player"] == a.id
    # The cookie identifies a returning browser.
    browser = httpx.Client(base_url=live.base)
    browser.post("/api/guest", json={"name": "Web"})
    assert browser.get("/api/me").json()["name"] == "Web"
    bad = a.socket(table, origin="http://evil.example", welcome=False)
    assert bad.recv()["code"] == "forbidden"
    own = a.socket(table, origin=live.base)
    assert own.recv()["type"] == "state"


def test_floods_are_limited(live: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frames, "PINGS", Rate(frames.PINGS.burst, NO_REFILL))
    free = frames.PINGS.burst  # the pings outside the budget, then the budget's 100
    a = Client(live.base, "A")
    for _ in range(3):
        a.create()
    r = a.http.post("/api/tables", json={})
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    b = Client(live.base, "B")
    table = b.create()["table"]["id"]
    s, other = b.socket(table), a.socket(table)
    for sock in (s, other):
        sock.until(lambda m: m["type"] == "state")
    for _ in range(free + 100):
        s.send(type="ping")
    s.send(type="ping")
    replies = [s.until(lambda m: m["type"] in ("pong", "error")) for _ in range(free + 101)]
    assert [m["type"] for m in replies].count("pong") == free + 100
    assert replies[-1]["code"] == "rate_limited"
    nothing_for(other)


def test_the_welcome_tells_how_to_keep_the_socket_alive_from_the_lease(
    backend: str, tmp_path: Path
) -> None:
    """docs/web-protocol.md, "Keeping alive": a lease and forward timeout of 2.5 and 3
    seconds make a ping after 1 s (0.4 of a lease, at least 1), a socket given up after a
    lease silent or unopened, and 2 * (2.5 + 3) seconds for its welcome."""
    with live_server(backend, tmp_path, lease_ttl=2.5, forward_timeout=3.0) as live:
        a = Client(live.base, "A")
        s = a.socket(a.create()["table"]["id"])
        keepalive = s.frames[0]["keepalive"]
    assert keepalive == {"ping": 1.0, "silent": 2.5, "open": 2.5, "welcome": 11.0}


def test_a_default_welcome_keeps_the_browsers_former_timings(live: LiveServer) -> None:
    a = Client(live.base, "A")
    s = a.socket(a.create()["table"]["id"])
    assert s.frames[0]["keepalive"] == {"ping": 2.0, "silent": 5.0, "open": 5.0, "welcome": 20.0}


def test_chat_is_capped_and_rate_limited(live: LiveServer) -> None:
    a, b = Client(live.base, "A"), Client(live.base, "B")
    table = a.create()["table"]["id"]
    sa, sb = a.socket(table), b.socket(table)
    for sock in (sa, sb):
        sock.until(lambda m: m["type"] == "state")
    sa.send(type="chat", text="xin chào")
    heard = sb.batch()["event"]
    assert (heard["kind"], heard["text"], heard["name"]) == ("chat", "xin chào", "A")
    refused(sa, {"type": "chat", "text": "a" * 281}, "too_long", [sb])
    for i in range(4):
        sa.send(type="chat", text=f"line {i}")
        sb.batch()
    refused(sa, {"type": "chat", "text": "one too many"}, "rate_limited", [sb])


def test_oversized_frames_are_cut_at_the_transport(live: LiveServer) -> None:
    a, b = Client(live.base, "A"), Client(live.base, "B")
    table = a.create()["table"]["id"]
    sa, sb = a.socket(table), b.socket(table)
    for sock in (sa, sb):
        sock.until(lambda m: m["type"] == "state")
    sa.conn.send("x" * 70_000)
    with pytest.raises(ConnectionClosed) as closed:
        sa.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    nothing_for(sb)


def test_a_token_bucket_refills_with_its_clock() -> None:
    bucket = TokenBucket(Rate(2, 10.0), clock=iter([0.0, 0.0, 0.0, 0.0, 5.0]).__next__)
    assert [bucket.take(), bucket.take(), bucket.take(), bucket.take()] == [True, True, False, True]


def test_unknown_ids(live: LiveServer) -> None:
    a = Client(live.base, "A")
    assert a.http.get("/api/games/nope").status_code == 404
    s = a.socket("nope", welcome=False)
    assert s.recv()["code"] == "not_found"
    r = a.http.post("/api/tables", json={"preset": "standard", "options": {"players": 9}})
    assert r.status_code == 400 and "players" in r.json()["message"]
    r = a.http.post("/api/tables", json={"options": {"wild_jokers": True}})
    assert r.status_code == 400 and "wild_jokers" in r.json()["message"]
    r = a.http.post("/api/tables", json={"bots": "grandmaster"})
    assert r.status_code == 400 and "grandmaster" in r.json()["message"]


def test_tables_by_rules_code(live: LiveServer) -> None:
    a = Client(live.base, "A")
    code = "standard.players-2.hand-size-3"
    by_code = a.create(rules=code)["table"]
    assert by_code["rules_code"] == code and by_code["preset"] == "standard"
    assert by_code["players"] == 2 and by_code["options"] == {"players": 2, "hand_size": 3}
    # The same rules as a preset with options get the same code.
    by_knobs = a.create(preset="standard", options={"hand_size": 3, "players": 2})["table"]
    assert by_knobs["rules_code"] == code
    plain = a.create(preset="vietcong")["table"]
    assert plain["rules_code"] == "vietcong" and plain["options"] == {}
    listed = {t["id"]: t["rules_code"] for t in a.http.get("/api/tables").json()}
    assert listed == {by_code["id"]: code, by_knobs["id"]: code, plain["id"]: "vietcong"}
    # Errors in the engine's words, and nothing created (a guest each: 3 creations a minute).
    for spec, words in [
        ({"rules": "standard.bogus"}, "cannot read part 'bogus'"),
        ({"rules": "nosuch"}, "unknown rule set 'nosuch'"),
        ({"rules": code, "preset": "standard"}, "not both"),
        ({"options": {"playrs": 3}}, "did you mean 'players'"),
        ({"options": {"players": 9}}, "options.players: must be from 2 to 8, not 9"),
    ]:
        r = Client(live.base, "B").http.post("/api/tables", json=spec)
        assert r.status_code == 400 and r.json()["code"] == "bad_rules", r.text
        assert words in r.json()["message"]
    assert len(a.http.get("/api/tables").json()) == 3
