"""Abuse stays with the abuser (issue 24): every limit is hit at its exact count and refused
in the documented form, errors are ``{"code", "message"}`` everywhere, frames are read
strictly by the schema, and tables nobody plays at stop."""

from __future__ import annotations

import asyncio
import os
import secrets
import time
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
from tienlen.apps.server.admission import Admission, client_address
from tienlen.apps.server.config import Settings
from tienlen.apps.server.frames import PINGS, FrameGate, Verdict, is_ping
from tienlen.apps.server.limits import Rate, TokenBucket
from tienlen.apps.server.tables import Refused


@pytest.fixture
def free_pings(monkeypatch: pytest.MonkeyPatch) -> int:
    """The pings outside the frame budget, made not to refill (as the test kit's limits do):
    how many a socket sends before its pings count."""
    monkeypatch.setattr(frames, "PINGS", Rate(PINGS.burst, NO_REFILL))
    return PINGS.burst


def opened(c: Client, table: str) -> Socket:
    s = c.socket(table)
    s.until(lambda m: m["type"] == "state")
    return s


def closed_with(s: Socket) -> tuple[int, str]:
    """Read until the server closes the socket; its close code and reason."""
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            s.recv()
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


def refused_at_open(c: Client, table: str) -> tuple[dict[str, Any], int]:
    """Open a socket that is refused: its error frame and close code."""
    s = c.socket(table, welcome=False)
    error = s.recv()
    return error, closed_with(s)[0]


# --- the frame budget -----------------------------------------------------------------------
def test_the_gate_drops_past_the_budget_notices_once_a_window_and_then_closes() -> None:
    now = [0.0]
    settings = Settings(messages=Rate(3, NO_REFILL), overflow=Rate(4, NO_REFILL), notice_every=1.0)
    gate = FrameGate(settings, TokenBucket(Rate(100, NO_REFILL)), clock=lambda: now[0])
    verdicts = [gate.admit() for _ in range(5)]
    assert verdicts == [Verdict.READ] * 3 + [Verdict.NOTICE, Verdict.DROP]
    now[0] = 1.0  # a new notice window
    assert [gate.admit() for _ in range(3)] == [Verdict.NOTICE, Verdict.DROP, Verdict.CLOSE]


def test_the_players_budget_is_shared_by_their_sockets() -> None:
    shared = TokenBucket(Rate(4, NO_REFILL))
    settings = Settings(messages=Rate(3, NO_REFILL), overflow=Rate(9, NO_REFILL))
    one, two = FrameGate(settings, shared), FrameGate(settings, shared)
    assert [one.admit() for _ in range(3)] == [Verdict.READ] * 3
    assert [two.admit(), two.admit()] == [Verdict.READ, Verdict.NOTICE]


def test_pings_within_their_allowance_spend_no_budget_and_the_rest_do() -> None:
    now = [0.0]
    settings = Settings(
        messages=Rate(3, NO_REFILL), overflow=Rate(9, NO_REFILL), notice_every=NO_REFILL
    )
    player = TokenBucket(Rate(100, NO_REFILL))
    gate = FrameGate(settings, player, clock=lambda: now[0])
    assert [gate.admit(ping=True) for _ in range(PINGS.burst)] == [Verdict.READ] * PINGS.burst
    assert [gate.admit() for _ in range(3)] == [Verdict.READ] * 3  # the whole budget
    assert gate.admit(ping=True) is Verdict.NOTICE  # past the allowance: counted, and over
    now[0] = PINGS.per / PINGS.burst  # the allowance refills a ping
    assert gate.admit(ping=True) is Verdict.READ
    assert gate.admit(ping=True) is Verdict.DROP
    # The player's budget lost the 3 frames only.
    assert [player.take() for _ in range(98)] == [True] * 97 + [False]


@pytest.mark.parametrize(
    ("text", "ping"),
    [
        ('{"type":"ping"}', True),
        ('{"type": "ping"}', True),
        ('{ "type" : "ping" }\n', True),
        ('{"type":"pong"}', False),
        ('{"type":"ping","version":1}', False),
        ('{"type":"p\\u0069ng"}', False),
        ('{"type":"ping"}' + " " * 100, False),
    ],
    ids=["compact", "spaced", "newline", "pong", "more", "escaped", "long"],
)
def test_a_ping_is_known_by_its_text(text: str, ping: bool) -> None:
    assert is_ping(text) is ping


def test_a_pages_pings_leave_its_frame_budget_whole(
    backend: str, tmp_path: Path, free_pings: int
) -> None:
    """A socket's pings within the allowance are answered and cost none of its 3 frames;
    a ping past it is a frame like any other."""
    with live_server(
        backend, tmp_path, messages=Rate(3, NO_REFILL), notice_every=NO_REFILL
    ) as live:
        a = Client(live.base, "A")
        s = opened(a, a.create()["table"]["id"])
        for _ in range(free_pings):
            s.send(type="ping")
        assert [s.recv()["type"] for _ in range(free_pings)] == ["pong"] * free_pings
        s.send(type="sync")
        assert s.recv()["type"] == "state"
        for _ in range(2 + 1):  # the rest of the budget, and one past it
            s.send(type="ping")
        assert [s.recv()["type"] for _ in range(2)] == ["pong", "pong"]
        assert s.error()["code"] == "rate_limited"


@pytest.mark.slow  # seconds each (waits, whole games): left out of make test-fast
def test_a_flood_gets_one_notice_and_is_closed_with_1008(
    backend: str, tmp_path: Path, free_pings: int
) -> None:
    with live_server(
        backend,
        tmp_path,
        messages=Rate(10, NO_REFILL),
        overflow=Rate(20, NO_REFILL),
        notice_every=NO_REFILL,
    ) as live:
        a, b = Client(live.base, "A"), Client(live.base, "B")
        table = a.create()["table"]["id"]
        flood, other = opened(a, table), opened(b, table)
        for _ in range(free_pings + 10 + 20 + 5):  # the budget, the overflow, and more
            flood.send(type="ping")
        answers: list[dict[str, Any]] = []
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                answers.append(flood.recv())
        assert closed.value.rcvd is not None
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1008, "too many messages")
        assert [m["type"] for m in answers] == ["pong"] * (free_pings + 10) + ["error"]
        assert answers[-1]["code"] == "rate_limited"
        other.send(type="ping")
        assert other.recv()["type"] == "pong"


def test_a_binary_frame_is_a_bad_message_and_the_socket_goes_on(live: LiveServer) -> None:
    a = Client(live.base, "A")
    s = opened(a, a.create()["table"]["id"])
    s.conn.send(b'{"type": "ping"}')
    error = s.error()
    assert error["code"] == "bad_message" and "binary" in error["message"]
    s.send(type="ping")
    assert s.recv()["type"] == "pong"


@pytest.mark.slow  # seconds each (waits, whole games): left out of make test-fast
def test_the_lobby_socket_has_the_same_gate(backend: str, tmp_path: Path, free_pings: int) -> None:
    with live_server(
        backend,
        tmp_path,
        messages=Rate(3, NO_REFILL),
        overflow=Rate(2, NO_REFILL),
        notice_every=NO_REFILL,
    ) as live:
        a = Client(live.base, "A")
        lobby = a.socket("", welcome=False)
        assert lobby.recv()["type"] == "lobby"
        lobby.conn.send(b"\x00")
        assert lobby.recv()["code"] == "bad_message"
        for _ in range(free_pings + 2 + 3):
            lobby.send(type="ping")
        answers = [lobby.recv()["type"] for _ in range(free_pings + 3)]
        assert answers == ["pong"] * (free_pings + 2) + ["error"]
        assert closed_with(lobby) == (1008, "too many messages")


# --- caps on guests, sockets and connection attempts ---------------------------------------
def test_guests_per_address_are_capped(backend: str, tmp_path: Path) -> None:
    with live_server(backend, tmp_path, guests_per_address=Rate(2, NO_REFILL)) as live:
        Client(live.base, "A"), Client(live.base, "B")
        r = httpx.post(f"{live.base}/api/guest", json={"name": "C"})
        assert r.status_code == 429
        assert r.json() == {
            "code": "rate_limited",
            "message": "too many guests from your address: 2 per 1e+09 seconds",
        }
        # Without a trusted proxy, a claimed address changes nothing.
        spoofed = {"X-Forwarded-For": "203.0.113.9"}
        r = httpx.post(f"{live.base}/api/guest", json={"name": "C"}, headers=spoofed)
        assert r.status_code == 429


def test_behind_a_trusted_proxy_the_forwarded_address_counts(backend: str, tmp_path: Path) -> None:
    with live_server(
        backend,
        tmp_path,
        guests_per_address=Rate(1, NO_REFILL),
        trusted_proxies=("127.0.0.0/8",),
    ) as live:

        def guest(forwarded: str) -> int:
            headers = {"X-Forwarded-For": forwarded}
            r = httpx.post(f"{live.base}/api/guest", json={"name": "C"}, headers=headers)
            return r.status_code

        assert guest("203.0.113.9") == 200
        assert guest("203.0.113.9") == 429
        assert guest("198.51.100.7") == 200
        # A client's own claim in front of the proxy's entry is not believed.
        assert guest("198.51.100.7, 203.0.113.9") == 429


def test_the_client_address_is_read_from_trusted_proxies_only() -> None:
    import ipaddress

    proxies = (ipaddress.ip_network("10.0.0.0/8"),)
    chain = {"x-forwarded-for": "1.2.3.4, 5.6.7.8, 10.0.0.2"}
    assert client_address("10.0.0.1", chain, proxies) == "5.6.7.8"
    assert client_address("192.0.2.1", chain, proxies) == "192.0.2.1"
    assert client_address("10.0.0.1", chain, ()) == "10.0.0.1"
    assert client_address("10.0.0.1", {}, proxies) == "10.0.0.1"


def test_connection_attempts_per_address_are_capped(backend: str, tmp_path: Path) -> None:
    with live_server(backend, tmp_path, connections_per_address=Rate(2, NO_REFILL)) as live:
        a = Client(live.base, "A")
        table = a.create()["table"]["id"]
        opened(a, table).close()
        opened(a, table).close()
        error, code = refused_at_open(a, table)
        assert (error["code"], code) == ("rate_limited", 4429)
        assert "connections from your address" in error["message"]


def test_open_sockets_per_player_are_capped(backend: str, tmp_path: Path) -> None:
    with live_server(backend, tmp_path, sockets_per_player=2) as live:
        a, b = Client(live.base, "A"), Client(live.base, "B")
        table = a.create()["table"]["id"]
        first, _second = opened(a, table), opened(a, table)
        error, code = refused_at_open(a, table)
        assert (error["code"], code) == ("too_many_sockets", 4429)
        opened(b, table)  # another player is not held back
        first.close()
        for _ in range(100):  # the server counts the close once it has seen it
            s = a.socket(table, welcome=False)
            if s.recv()["type"] == "welcome":
                break
            time.sleep(0.05)
        else:
            pytest.fail("a closed socket was never uncounted")


@pytest.mark.skipif(
    os.environ.get("TIENLEN_TEST_REDIS_URL") is None, reason="needs Redis: TIENLEN_TEST_REDIS_URL"
)
def test_a_cluster_node_uncounts_every_socket_when_thousands_close_at_once() -> None:
    """1,000 sockets of 250 players open and close at once through two Redis connections:
    the counts never run past the pool, and every player's count is back to zero."""
    prefix = f"test-h29fix-{secrets.token_hex(4)}:"
    settings = Settings(
        redis_url=os.environ["TIENLEN_TEST_REDIS_URL"],
        redis_prefix=prefix,
        redis_connections=2,
        sockets_per_player=4,
    )
    players = [f"player-{n}" for n in range(250)]

    async def scenario() -> tuple[list[int], list[int], bool]:
        node = Admission(settings, node="n1")
        assert node.redis is not None
        try:
            sockets = await asyncio.gather(*(node.open_socket(p) for p in players * 4))
            counted = [await node.redis.zcard(f"{prefix}sockets:{p}") for p in players]
            await asyncio.gather(
                *(node.close_socket(p, s) for p, s in zip(players * 4, sockets, strict=True))
            )
            left = [await node.redis.zcard(f"{prefix}sockets:{p}") for p in players]
            try:  # and the player is let in again
                await node.open_socket(players[0])
                refused = False
            except Refused:
                refused = True
            return counted, left, refused
        finally:
            keys = [k async for k in node.redis.scan_iter(f"{prefix}*")]
            if keys:
                await node.redis.delete(*keys)
            await node.stop()

    counted, left, refused = asyncio.run(scenario())
    assert counted == [4] * len(players)
    assert left == [0] * len(players)
    assert not refused


# --- errors in the documented form ---------------------------------------------------------
@pytest.mark.parametrize(
    ("method", "path", "body", "status", "code", "words"),
    [
        ("post", "/api/tables", {"turn_timer": -1}, 400, "bad_request", "body.turn_timer"),
        ("post", "/api/tables", {"turn_timer": 601}, 400, "bad_request", "body.turn_timer"),
        ("post", "/api/tables", {"games": "4"}, 400, "bad_request", "valid integer"),
        ("post", "/api/tables", {"private": "yes"}, 400, "bad_request", "valid boolean"),
        ("post", "/api/tables", {"colour": "red"}, 400, "bad_request", "body.colour"),
        ("post", "/api/tables", "{not json", 400, "bad_request", "JSON"),
        ("post", "/api/guest", {}, 400, "bad_request", "body.name"),
        ("post", "/api/guest", {"name": 7}, 400, "bad_request", "valid string"),
        ("post", "/api/guest", {"name": "\x07"}, 400, "bad_name", "control characters"),
        ("get", "/api/leaderboard?limit=9999", None, 400, "bad_request", "query.limit"),
        ("get", "/api/games/x?format=pdf", None, 400, "bad_request", "query.format"),
        ("get", "/api/nothing-here", None, 404, "not_found", "Not Found"),
        ("delete", "/api/tables", None, 405, "bad_method", "Method Not Allowed"),
        ("get", "/api/tables/nope", None, 404, "not_found", "no open table"),
    ],
)
def test_every_http_error_is_a_code_and_a_message(
    live: LiveServer, method: str, path: str, body: Any, status: int, code: str, words: str
) -> None:
    a = Client(live.base, "A")
    content = body if isinstance(body, str) else None
    kwargs: dict[str, Any] = {"json": body} if not isinstance(body, str) else {}
    r = a.http.request(
        method.upper(),
        path,
        content=content,
        headers={"Content-Type": "application/json"},
        **kwargs,
    )
    assert r.status_code == status, r.text
    answer = r.json()
    assert set(answer) == {"code", "message"}, answer
    assert answer["code"] == code and words in answer["message"], answer


def test_a_request_without_a_token_is_a_401_in_the_same_form(live: LiveServer) -> None:
    r = httpx.post(f"{live.base}/api/tables", json={})
    assert r.status_code == 401
    assert r.json() == {"code": "auth", "message": "no token: POST /api/guest first"}


# --- strict frames ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "frame",
    [
        {"type": "sit", "seat": "1"},
        {"type": "sit", "seat": 1.0},
        {"type": "sit", "seat": True},
        {"type": "sync", "version": "0"},
        {"type": "chat", "text": 5},
    ],
)
def test_frames_are_read_strictly_by_the_schema(live: LiveServer, frame: dict[str, Any]) -> None:
    a = Client(live.base, "A")
    table = a.create()["table"]["id"]
    s = opened(a, table)
    s.send(**frame)
    error = s.error()
    assert error["code"] == "bad_message" and frame["type"] in error["message"], error
    s.send(type="sync")
    state = s.until(lambda m: m["type"] == "state")
    assert all(seat.get("player") is None for seat in state["table"]["seats"])


def test_a_play_with_a_string_version_is_refused(live: LiveServer) -> None:
    _clients, sockets, _table = seated_table(live, ["An", "Binh"], options={"players": 2})
    sockets[0].send(type="start")
    view = sockets[0].until_view()["view"]
    actor = sockets[view["turn"]]
    actor.send(type="pass", version=str(actor.version))
    error = actor.error()
    assert error["code"] == "bad_message" and "valid integer" in error["message"]
    assert error["version"] == actor.version  # nothing changed


# --- catching up at the current version -----------------------------------------------------
def test_since_the_current_version_answers_with_the_view(live: LiveServer) -> None:
    clients, sockets, table = seated_table(live, ["An", "Binh"], options={"players": 2})
    sockets[0].send(type="start")
    for s in sockets:
        s.until_view()
    version = sockets[0].version
    again = clients[0].socket(table, since=version)
    state = again.recv()
    assert state["type"] == "state" and state["version"] == version
    assert state["view"]["hand"] == sockets[0].view["hand"]  # type: ignore[index]


# --- tables nobody plays at -----------------------------------------------------------------
def test_a_table_of_bots_nobody_watches_is_closed(backend: str, tmp_path: Path) -> None:
    with live_server(backend, tmp_path, abandon_after=0.2) as live:
        host = Client(live.base, "Host")
        table = host.create(bots="random", games=100)["table"]["id"]
        s = opened(host, table)
        s.send(type="start")  # nobody sits: four bots play
        s.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "deal")
        s.close()
        for _ in range(200):
            info = host.http.get(f"/api/tables/{table}").json()
            if info["status"] == "finished":
                break
            time.sleep(0.05)
        assert info["status"] == "finished" and info["game"] < 100
        assert table not in {t["id"] for t in host.http.get("/api/tables").json()}
        back = host.socket(table)
        state = back.until(lambda m: m["type"] == "state")
        assert state["table"]["status"] == "finished"
        back.send(type="sync", version=state["version"] - 1)
        assert back.batch()["event"]["kind"] == "closed"


def test_a_table_whose_players_are_all_away_waits_for_them(backend: str, tmp_path: Path) -> None:
    with live_server(backend, tmp_path, abandon_after=0.2) as live:
        clients, sockets, table = seated_table(
            live, ["An"], options={"players": 2}, bots="random", games=100
        )
        watcher = opened(Client(live.base, "Watcher"), table)
        sockets[0].send(type="start")
        sockets[0].until_view()
        sockets[0].close()  # no grace in tests: the seat is away at once
        away = watcher.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "away")
        version = away["version"]
        watcher.close()
        time.sleep(0.5)  # time for bots to play on, and for the table to be closed
        back = clients[0].socket(table, since=version)
        first = back.recv()  # nothing happened since: the view, then the player is back
        assert (first["type"], first["version"]) == ("state", version)
        assert first["table"]["status"] == "playing"
        assert back.batch()["event"]["kind"] == "back"


# --- the options ----------------------------------------------------------------------------
def test_the_limits_are_options_and_environment_variables(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tienlen.apps.cli import build_parser
    from tienlen.apps.cmd_serve import settings_of

    monkeypatch.setenv("TIENLEN_GUESTS_PER_ADDRESS", "5/60")
    monkeypatch.setenv("TIENLEN_TRUSTED_PROXY", "10.0.0.0/8")
    args = build_parser().parse_args(
        ["serve", "--sockets-per-player", "3", "--trusted-proxy", "::1", "--messages", "7/2"]
    )
    s = settings_of(args)
    assert (s.guests_per_address.burst, s.guests_per_address.per) == (5, 60.0)
    assert (s.messages.burst, s.messages.per) == (7, 2.0)
    assert s.sockets_per_player == 3
    assert s.trusted_proxies == ("10.0.0.0/8", "::1")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--connections-per-address", "lots"])
    assert "a rate is COUNT/SECONDS" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--trusted-proxy", "proxy.example"])
    assert "a trusted proxy is an address or a network" in capsys.readouterr().err
