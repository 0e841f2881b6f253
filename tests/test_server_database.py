"""PostgreSQL failing under a live server: its connections dropped mid-game, the
database refusing connections for a while, and the database blackholed (it takes every
packet and answers none). Actions are refused with "try_again", nothing is
half-written (a table never runs ahead of what was committed), play resumes by itself, and
the stored log replays to exactly the live state. Runs on PostgreSQL only."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from sqlalchemy import text

from backends import POSTGRES
from blackhole import behind_a_blackhole
from serverkit import (
    HANG,
    Client,
    LiveServer,
    Socket,
    database,
    first_legal,
    play_out,
    seated_table,
    server_settings,
)
from tienlen.apps.server.db import TableRow, connect
from tienlen.apps.server.limits import Rate
from tienlen.apps.server.node import Server
from tienlen.apps.server.tables import Table

pytestmark = pytest.mark.skipif(POSTGRES is None, reason="needs TIENLEN_TEST_POSTGRES_URL")

#: Generous message limits: refused actions are sent again.
LIMITS: dict[str, Any] = {
    "messages": Rate(10_000, 1e9),
    "player_messages": Rate(10_000, 1e9),
}


@pytest.fixture
def pg(tmp_path: Path) -> Iterator[str]:
    with database("postgres", tmp_path) as url:
        yield url


def admin(sql: str, *args: Any) -> None:
    """Run SQL on the test cluster's base database (as the test user, a superuser)."""
    assert POSTGRES is not None

    async def run() -> None:
        conn = await asyncpg.connect(POSTGRES.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            await conn.execute(sql, *args)
        finally:
            await conn.close()

    asyncio.run(run())


def name_of(url: str) -> str:
    return url.rsplit("/", 1)[1]


def drop_connections(url: str) -> None:
    """Terminate every backend the server holds on its database."""
    admin(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = $1 AND pid <> pg_backend_pid()",
        name_of(url),
    )


def refuse_connections(url: str, refuse: bool) -> None:
    """Make the database refuse (or accept again) every new connection; refusing drops the
    open ones too."""
    allow = "false" if refuse else "true"
    admin(f'ALTER DATABASE "{name_of(url)}" WITH ALLOW_CONNECTIONS {allow}')
    if refuse:
        drop_connections(url)


def bot_table(server: LiveServer, games: int) -> tuple[Socket, str]:
    """A started table of four bots (a long match) and a spectator's socket on it."""
    host = Client(server.base, "Host")
    table = host.create(bots="greedy", games=games)["table"]["id"]
    watch = host.socket(table)
    watch.until(lambda m: m["type"] == "state")
    watch.send(type="start")
    return watch, table


def watch_to_the_end(watch: Socket) -> list[int]:
    """Every version the spectator hears until the match is over."""
    seen = [watch.version]
    while True:
        msg = watch.recv()
        if msg["type"] == "event":
            seen.append(msg["version"])
            if msg["event"]["kind"] == "match_over":
                return seen


def replayed(url: str, tmp: Path, tables: list[str]) -> dict[str, Table]:
    """The tables rebuilt from their stored logs as a restarted server rebuilds them, by a
    server that is not started (a started one would record the seated players as offline)."""

    async def main() -> dict[str, Table]:
        srv = Server(server_settings(url, tmp))
        try:
            out: dict[str, Table] = {}
            for tid in tables:
                async with srv.sessions() as s:
                    row = await s.get(TableRow, tid)
                assert row is not None, tid
                out[tid] = await srv.load(row)
            return out
        finally:
            srv.turns.stop()
            await srv.engine.dispose()

    return asyncio.run(main())


def assert_replay_is_live(live: LiveServer, url: str, tmp: Path, tables: list[str]) -> None:
    """Each table rebuilt from the database is exactly the live server's: every seat's view,
    hands included."""
    assert live.server is not None
    for tid, b in replayed(url, tmp, tables).items():
        a = live.server.tables[tid]
        assert (b.version, b.state_version, b.status) == (a.version, a.state_version, a.status)
        seats = [None, *range(len(a.seats))]
        assert b.views(seats, history=True) == a.views(seats, history=True)
        assert b.info().model_copy(update={"spectators": 0}) == a.info().model_copy(
            update={"spectators": 0}
        )


def act_until_accepted(sock: Socket, kind: str, **fields: Any) -> int:
    """Send an action until it is accepted; the number of "try_again" refusals."""
    refusals = 0
    deadline = time.monotonic() + HANG
    while True:
        sock.act(kind, **fields)
        msg = sock.until(lambda m: m["type"] == "error" or (m["type"] == "event" and not m["more"]))
        if msg["type"] == "event":
            return refusals
        assert msg["code"] == "try_again", msg
        refusals += 1
        assert time.monotonic() < deadline, "the table did not come back"
        time.sleep(0.1)  # pacing only: the server rebuilds the table on its own


def test_connections_dropped_mid_game_lose_nothing(pg: str, tmp_path: Path) -> None:
    live = LiveServer(server_settings(pg, tmp_path, **LIMITS))
    try:
        watch, bots = bot_table(live, games=20)
        # A long match: one game may end within Ann's twelve actions (about one deal in
        # twenty, first legal move against three greedy bots), and a match's end stops play.
        _clients, sockets, ann = seated_table(live, ["Ann"], bots="greedy", games=20)
        sockets[0].send(type="start")
        ann_sock = {0: sockets[0]}
        play_out(ann_sock, actions=2)
        for _ in range(5):  # the bots' table is mid-match each time
            drop_connections(pg)
            play_out(ann_sock, actions=2)
        versions = watch_to_the_end(watch)
        # No event lost, none twice, none out of order.
        assert versions == list(range(versions[0], versions[-1] + 1))
        assert_replay_is_live(live, pg, tmp_path, [bots, ann])
    finally:
        live.close()


def test_a_database_refusing_for_a_while_refuses_actions_then_play_resumes(
    pg: str, tmp_path: Path
) -> None:
    live = LiveServer(server_settings(pg, tmp_path, **LIMITS))
    try:
        assert live.server is not None
        watch, bots = bot_table(live, games=15)
        clients, sockets, ann = seated_table(live, ["Ann"], bots="greedy")
        sock = sockets[0]
        sock.send(type="start")
        play_out({0: sock}, actions=3)  # stops with Ann to act
        assert sock.view is not None
        before = sock.version
        refuse_connections(pg, True)
        try:
            kind, fields = first_legal(sock.view)
            for _ in range(3):  # the same action, seen at the same version: never "stale"
                sock.act(kind, **fields)
                err = sock.error()
                assert err["code"] == "try_again", err
                assert err["version"] == before
            assert live.server.tables[ann].version == before
            # The bots' table tried to commit too: it waits, set aside, to be rebuilt.
            deadline = time.monotonic() + HANG
            while bots not in live.server.restoring:
                assert time.monotonic() < deadline, "the bots' table never failed a commit"
                time.sleep(0.05)
            ready = httpx.get(f"{live.base}/api/ready")
            assert ready.status_code == 503
            assert ready.json()["checks"]["database"] != "ok"
            assert httpx.get(f"{live.base}/api/health").status_code == 200
            # A new socket on the table is refused for now, with a code that is not final.
            late = clients[0].socket(ann, welcome=False)
            assert late.recv()["code"] == "try_again"
            # HTTP that needs the database says so too.
            r = clients[0].http.get("/api/me")
            assert (r.status_code, r.json()["code"]) == (503, "try_again")
        finally:
            refuse_connections(pg, False)
        act_until_accepted(sock, kind, **fields)
        play_out({0: sock}, actions=4)
        versions = watch_to_the_end(watch)
        assert versions == list(range(versions[0], versions[-1] + 1))
        assert_replay_is_live(live, pg, tmp_path, [bots, ann])
    finally:
        live.close()


#: The statement and connection timeouts of the blackhole test, and what the refusal may
#: take besides (a loaded test machine): a blackholed database used to hang an action for
#: as long as TCP kept trying (20 s and more).
TIMEOUTS = {"db_timeout": 1.0, "db_connect_timeout": 1.0}
SLACK = 4.0


def test_a_blackholed_database_answers_try_again_within_its_timeouts(
    pg: str, tmp_path: Path
) -> None:
    hole = behind_a_blackhole(pg)
    live = LiveServer(server_settings(hole.url, tmp_path, **TIMEOUTS, **LIMITS))
    bound = sum(TIMEOUTS.values()) + SLACK
    try:
        assert live.server is not None
        clients, sockets, ann = seated_table(live, ["Ann"], bots="greedy")
        sock = sockets[0]
        sock.send(type="start")
        play_out({0: sock}, actions=2)  # stops with Ann to act
        assert sock.view is not None
        before = sock.version
        hole.cut()
        kind, fields = first_legal(sock.view)
        began = time.monotonic()
        sock.act(kind, **fields)
        err = sock.error()
        assert (err["code"], err["version"]) == ("try_again", before), err
        assert time.monotonic() - began < bound
        began = time.monotonic()
        r = clients[0].http.get("/api/me")
        assert (r.status_code, r.json()["code"]) == (503, "try_again")
        assert time.monotonic() - began < bound
        hole.mend()
        act_until_accepted(sock, kind, **fields)
        play_out({0: sock}, actions=2)
        assert_replay_is_live(live, pg, tmp_path, [ann])
    finally:
        live.close()
        hole.close()


def test_a_connection_the_database_closed_is_replaced_before_use(pg: str) -> None:
    """Idle pooled connections terminated by the database: the next use gets a fresh one
    (a plain pool would fail it)."""

    async def main() -> tuple[int, int]:
        engine, _sessions = connect(pg)
        try:
            async with engine.connect() as conn:
                first = await conn.scalar(text("SELECT pg_backend_pid()"))
            await asyncio.to_thread(drop_connections, pg)
            await asyncio.sleep(0.2)  # the driver reads the server's goodbye
            async with engine.connect() as conn:
                second = await conn.scalar(text("SELECT pg_backend_pid()"))
        finally:
            await engine.dispose()
        return first, second

    first, second = asyncio.run(main())
    assert first != second
