"""The lobby read by index (issue 29): a page of the listed tables, newest first, and the
tables of bots only, each read through an index (the planners' own words say so),
whatever the number of finished tables; migration 0006 gives the tables stored before lobby
lines were (schema 0004) their line, replayed from their events, so the lobby lists them
before they are loaded; a lobby socket hears only of the lines its client shows and of new
tables, and pages with ``more``; a seated player's hint and grouped hand."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import event, insert, inspect, select
from sqlalchemy.ext.asyncio import AsyncEngine

from serverkit import (
    Client,
    LiveServer,
    Socket,
    database,
    play_out,
    sat_event,
    seated_table,
    server_settings,
)
from tienlen.apps.server import Server
from tienlen.apps.server.db import MIGRATIONS, PlayerRow, TableRow, connect
from tienlen.apps.server.hub import Collector, Hub, LobbyWatch
from tienlen.apps.server.lobby import NewTable, new_table
from tienlen.apps.server.messages import TableInfo
from tienlen.apps.server.tables import Refused

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def rows(specs: list[tuple[str, str, int, bool, int]]) -> list[dict[str, Any]]:
    """Table rows of player ``p0``: (id, status, seated, private, created second) each."""
    out = []
    for table_id, status, seated, private, second in specs:
        t = new_table("p0", NewTable(bots="random", private=private))
        t.id = table_id
        line = t.info().model_dump()
        out.append(
            {
                "id": table_id,
                "host_id": "p0",
                "config": t.config.to_dict(),
                "deal_secret": t.secret,
                "invite": t.invite,
                "created": T0 + timedelta(seconds=second),
                "status": status,
                "line": {**line, "status": status},
                "seated": seated,
            }
        )
    return out


def on_rows(
    backend: str, tmp: Path, specs: list[tuple[str, str, int, bool, int]]
) -> Callable[[Callable[[Server], Awaitable[None]]], None]:
    """Run a check on a started server whose database holds these table rows."""

    def run(check: Callable[[Server], Awaitable[None]]) -> None:
        async def main(url: str) -> None:
            srv = Server(server_settings(url, tmp))
            await srv.start()
            try:
                async with srv.engine.begin() as conn:
                    await conn.execute(insert(PlayerRow), [{"id": "p0", "name": "Host"}])
                    await conn.execute(insert(TableRow), rows(specs))
                await check(srv)
            finally:
                await srv.stop()

        with database(backend, tmp) as url:
            asyncio.run(main(url))

    return run


#: Listed: a..g (e and f made in the same second); not listed: finished, private.
LOBBY = [
    ("a", "waiting", 0, False, 1),
    ("b", "playing", 1, False, 2),
    ("x", "finished", 0, False, 3),
    ("c", "waiting", 1, False, 4),
    ("p", "waiting", 1, True, 5),
    ("d", "playing", 0, False, 6),
    ("e", "waiting", 0, False, 7),
    ("f", "waiting", 0, False, 7),
    ("y", "finished", 1, False, 8),
    ("g", "playing", 2, False, 9),
]


def test_the_lobby_is_listed_newest_first_a_page_at_a_time(backend: str, tmp_path: Path) -> None:
    async def check(srv: Server) -> None:
        pages, after = [], None
        while True:
            page = [t.id for t in await srv.listed(limit=3, after=after)]
            if not page:
                break
            pages.append(page)
            after = page[-1]
        assert pages == [["g", "f", "e"], ["d", "c", "b"], ["a"]]
        assert [t.id for t in await srv.listed()] == list("gfedcba")
        assert [t.id for t in await srv.listed(after="x")] == ["b", "a"]  # a finished one
        with pytest.raises(Refused) as e:
            await srv.listed(after="nope")
        assert e.value.code == "not_found" and "'nope'" in str(e.value)

    on_rows(backend, tmp_path, LOBBY)(check)


def test_get_api_tables_pages_with_limit_and_after(live: LiveServer) -> None:
    host = Client(live.base, "Host")
    made = [host.create(bots="random")["table"]["id"] for _ in range(3)]
    lobby = httpx.Client(base_url=live.base, timeout=10)
    first = [t["id"] for t in lobby.get("/api/tables", params={"limit": 2}).json()]
    assert first == made[:0:-1]  # the newest two
    rest = lobby.get("/api/tables", params={"after": first[-1]}).json()
    assert [t["id"] for t in rest] == made[:1]
    cases: list[tuple[dict[str, str | int], int, str]] = [
        ({"limit": 0}, 400, "bad_request"),
        ({"limit": 501}, 400, "bad_request"),
        ({"after": "nope"}, 404, "not_found"),
    ]
    for params, status, code in cases:
        r = lobby.get("/api/tables", params=params)
        assert (r.status_code, r.json()["code"]) == (status, code), r.text


def lines(frame: dict[str, Any]) -> list[str]:
    """The ids of a ``lobby`` or ``lobby_new`` frame's tables, or of a ``lobby_table`` frame's
    one."""
    if frame["type"] in ("lobby", "lobby_new"):
        return [t["id"] for t in frame["tables"]]
    assert frame["type"] == "lobby_table", frame
    return [frame["table"]["id"]]


def test_a_lobby_socket_hears_of_the_lines_it_shows_and_of_new_tables(live: LiveServer) -> None:
    host = Client(live.base, "Host")
    a, b, c = (host.create(bots="random")["table"]["id"] for _ in range(3))
    lobby = host.socket("", welcome=False, limit=2)
    first = lobby.recv()
    assert lines(first) == [c, b] and "after" not in first

    def sit(table: str) -> Socket:
        s = host.socket(table)
        s.send(type="sit", seat=0)
        s.until(sat_event(0))
        return s

    def stand(s: Socket) -> None:
        s.send(type="stand")
        s.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "stand")

    at_a = sit(a)  # not shown: not heard (the next frame is b's)
    at_b = sit(b)
    heard = lobby.recv()
    assert lines(heard) == [b] and heard["table"]["seats"][0]["player"] == host.id
    d = host.create(bots="random")["table"]["id"]
    assert lines(lobby.recv()) == [d]  # new: it goes first, and pushes b out (2 lines shown)
    stand(at_b)  # not heard: the next frame is the page asked for
    lobby.send(type="more", after=c)
    page = lobby.recv()
    assert (lines(page), page["after"]) == ([b, a], c)
    stand(at_a)  # shown now
    assert lines(lobby.recv()) == [a]
    lobby.send(type="ping")
    assert lobby.recv() == {"type": "pong"}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"type": "more"}, "bad_message"),
        ({"type": "more", "after": ""}, "bad_message"),
        ({"type": "sit", "seat": 0}, "bad_message"),  # a table's frame
        ({"type": "more", "after": "nope"}, "not_found"),
    ]
    for bad, code in cases:
        lobby.send(**bad)
        assert lobby.error()["code"] == code, bad
    long = host.socket("", welcome=False, limit=500)
    assert lines(long.recv()) == [d, c, b, a]
    long.send(type="more", after=a)
    assert long.recv() == {"type": "lobby", "tables": [], "after": a}  # 1,000 lines of room
    long.send(type="more", after=a)
    assert long.error()["code"] == "too_long"
    refused = host.socket("", welcome=False, limit=0)
    assert refused.error()["code"] == "bad_request"


def line(table_id: str) -> TableInfo:
    """A waiting table's line."""
    t = new_table("p0", NewTable(bots="random"))
    t.id = table_id
    return t.info()


def new_lines(frame: str) -> list[str]:
    """The ids of a ``lobby_new`` frame's tables."""
    got = json.loads(frame)
    assert got["type"] == "lobby_new", got
    return [t["id"] for t in got["tables"]]


def test_a_lobby_watch_keeps_the_lines_its_client_shows() -> None:
    client, hub = Collector("p0"), Hub()
    watch = LobbyWatch(hub, client, 2, 0)  # new tables sent at once

    def offer(table_id: str, *, removed: bool = False, new: bool = False) -> None:
        watch.offer(line(table_id), f"{table_id} {removed} {new}", removed, new)

    watch.reads()
    offer("n", new=True)  # heard while the page is read: it goes after the page
    offer("x")  # not on the page: never sent
    watch.page([line("c"), line("b")], None)
    assert new_lines(client.frames[1]) == ["n"] and len(client.frames) == 2
    assert list(watch.shown) == ["n", "c"]  # two lines of room: b is pushed out
    offer("b")
    offer("c", removed=True)  # finished: it leaves the list
    offer("c")
    offer("n")
    assert client.frames[2:] == ["c True False", "n False False"]
    offer("m", new=True)
    assert (list(watch.shown), new_lines(client.frames[4])) == (["m", "n"], ["m"])
    assert {t: len(w) for t, w in hub.showing.items()} == {"m": 1, "n": 1}
    watch.close()
    assert hub.showing == {}


def test_a_lobby_watch_sends_a_burst_of_new_tables_as_one_frame_of_the_newest() -> None:
    async def main() -> None:
        client, hub = Collector("p0"), Hub()
        watch = LobbyWatch(hub, client, 3, 0.05)
        watch.reads()
        watch.page([line("a")], None)

        def offer(table_id: str, *, removed: bool = False, new: bool = False) -> None:
            watch.offer(line(table_id), f"{table_id} {removed}", removed, new)

        for i in range(10):
            offer(f"n{i}", new=True)
        offer("n9")  # a held line changed: it goes in the frame as it is now
        offer("n8", removed=True)  # finished before it was sent: never sent
        offer("a")  # pushed out by the new tables: not heard
        offer("n7")
        assert client.frames[1:] == []  # held, and nothing shown has changed
        assert list(watch.shown) == ["n9", "n7"]
        await asyncio.sleep(0.1)  # (past the window: its timer has run)
        assert [new_lines(f) for f in client.frames[1:]] == [["n9", "n7"]]
        offer("n9")  # a change to a line shown goes at once, even while new ones are held
        offer("n10", new=True)
        offer("n7", removed=True)
        assert client.frames[2:] == ["n9 False", "n7 True"]
        watch.reads()  # a page asked for: the new tables held go before it
        watch.page([], "n9")
        assert new_lines(client.frames[4]) == ["n10"] and len(client.frames) == 6
        await asyncio.sleep(0.1)
        assert len(client.frames) == 6  # (sent: nothing more)
        watch.close()
        assert hub.showing == {}

    asyncio.run(main())


class Ears:
    """A cluster node's lobby listener: what it was told to listen on, in order."""

    def __init__(self) -> None:
        self.told: list[tuple[str, bool]] = []
        self.on: set[str] = set()

    def lobbies(self, on: bool) -> None:
        self.told.append(("new", on))
        self.on ^= {"new"}

    def shown(self, table_id: str, on: bool) -> None:
        self.told.append((table_id, on))
        assert (table_id in self.on) != on, "told twice"
        self.on ^= {table_id}


def test_a_node_listens_on_the_lines_its_lobby_sockets_show_or_read() -> None:
    ears, hub = Ears(), Hub()
    hub.listener = ears
    one, two = (LobbyWatch(hub, Collector(p), 2, 0) for p in ("p0", "p1"))
    one.open()
    two.open()
    assert ears.told == [("new", True)]  # once, for the first lobby socket
    one.reads()
    one.pin(["b", "a", "x"])  # the page read: listened on before it is sent
    assert ears.on == {"new", "b", "a", "x"}
    one.page([line("b"), line("a")], None)  # x left the list meanwhile: not on the page
    assert ears.on == {"new", "b", "a"}
    two.reads()
    two.pin(["b"])
    two.unread()  # the read failed
    two.reads()
    two.pin(["b", "a"])
    two.page([line("b"), line("a")], None)
    one.offer(line("n"), "n", False, True)  # new: it pushes a out of one's lines, not two's
    assert ears.on == {"new", "n", "b", "a"}
    two.close()  # a shown nowhere now
    assert ears.on == {"new", "n", "b"}
    one.close()
    assert ears.on == set() and ears.told[-1] == ("new", False)
    assert hub.showing == {} and hub.lobby == {}


def test_the_tables_of_bots_only_are_read_from_their_rows(backend: str, tmp_path: Path) -> None:
    specs = [
        ("bots", "playing", 0, False, 1),
        ("hidden", "playing", 0, True, 2),  # private tables are closed all the same
        ("human", "playing", 1, False, 3),
        ("wait", "waiting", 0, False, 4),
        ("done", "finished", 0, False, 5),
    ]

    async def check(srv: Server) -> None:
        assert sorted(await srv.playing_bots_only()) == ["bots", "hidden"]

    on_rows(backend, tmp_path, specs)(check)


async def plans(srv: Server, reads: Callable[[], Awaitable[object]]) -> list[str]:
    """The database's plan of each statement ``reads`` makes on the tables' rows (a
    PostgreSQL planner told to avoid sequential and bitmap scans, as it would on a large
    table: it picks them on a small one)."""
    made: list[tuple[str, Any]] = []

    def seen(_c: Any, _cur: Any, sql: str, params: Any, *_args: Any) -> None:
        if "FROM tables" in sql and "tables.id = " not in sql:  # (not a read by key)
            made.append((sql, params))

    event.listen(srv.engine.sync_engine, "before_cursor_execute", seen)
    await reads()
    event.remove(srv.engine.sync_engine, "before_cursor_execute", seen)
    out = []
    async with srv.engine.connect() as conn:
        postgres = srv.engine.dialect.name == "postgresql"
        if postgres:
            await conn.exec_driver_sql("SET enable_seqscan = off")
            await conn.exec_driver_sql("SET enable_bitmapscan = off")
        for sql, params in made:
            explain = "EXPLAIN " if postgres else "EXPLAIN QUERY PLAN "
            got = (await conn.exec_driver_sql(explain + sql, params)).all()
            out.append("\n".join(str(r[-1]) for r in got))
    return out


def test_the_lobby_reads_go_through_their_indexes(backend: str, tmp_path: Path) -> None:
    async def check(srv: Server) -> None:
        async def lobby() -> None:
            await srv.listed(limit=2)
            await srv.listed(limit=2, after="d")

        listing = await plans(srv, lobby)
        assert len(listing) == 2
        for plan in listing:
            assert "ix_tables_listed" in plan, plan
            assert "Sort" not in plan and "TEMP B-TREE" not in plan, plan  # read in order
        [bots] = await plans(srv, srv.playing_bots_only)
        assert "ix_tables_status_seated" in bots, bots

    on_rows(backend, tmp_path, LOBBY)(check)


async def stored(engine: AsyncEngine) -> dict[str, dict[str, Any]]:
    """Each table row's status, line and seated players, by id."""
    async with engine.connect() as conn:
        got = await conn.execute(
            select(TableRow.id, TableRow.status, TableRow.line, TableRow.seated)
        )
        return {r.id: {"status": r.status, "line": r.line, "seated": r.seated} for r in got}


def test_a_rows_seated_players_follow_its_table(live: LiveServer) -> None:
    host = Client(live.base, "Host")
    seated = host.create(bots="random")["table"]["id"]
    s = host.socket(seated)
    s.until(lambda m: m["type"] == "state")
    s.send(type="sit", seat=0)
    s.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "sit")
    bots = host.create(bots="random", games=100)["table"]["id"]
    b = host.socket(bots)
    b.until(lambda m: m["type"] == "state")
    b.send(type="start")  # nobody sits: four bots play
    b.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "deal")
    assert live.server is not None

    async def main() -> None:
        engine, _ = connect(live.settings.url)
        try:
            rows = await stored(engine)
        finally:
            await engine.dispose()
        assert (rows[seated]["status"], rows[seated]["seated"]) == ("waiting", 1)
        assert (rows[bots]["status"], rows[bots]["seated"]) == ("playing", 0)

    asyncio.run(main())


def downgrade(url: str, revision: str) -> set[str]:
    """Take the schema back to ``revision``; the tables' columns then."""

    async def main() -> set[str]:
        engine, _ = connect(url)
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS))

        def back(sync_conn: Any) -> set[str]:
            cfg.attributes["connection"] = sync_conn
            command.downgrade(cfg, revision)
            return {c["name"] for c in inspect(sync_conn).get_columns("tables")}

        try:
            async with engine.begin() as conn:
                if engine.dialect.name == "sqlite":  # (a table is rebuilt to drop a column)
                    await conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
                return await conn.run_sync(back)
        finally:
            await engine.dispose()

    return asyncio.run(main())


def test_tables_stored_before_lobby_lines_are_listed_once_migrated(
    backend: str, tmp_path: Path
) -> None:
    with database(backend, tmp_path) as url:
        live = LiveServer(server_settings(url, tmp_path))
        try:
            clients, sockets, playing = seated_table(live, ["Host", "Guest"], bots="random")
            sockets[0].send(type="start")
            sockets[0].until(lambda m: m["type"] == "event" and m["event"]["kind"] == "deal")
            waiting = clients[0].create(bots="easy", games=3)["table"]["id"]
            bots = clients[1].create(bots="random", games=100)["table"]["id"]
            b = clients[1].socket(bots)
            b.until(lambda m: m["type"] == "state")
            b.send(type="start")
            b.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "deal")
            private = clients[1].create(private=True)["table"]["id"]
            lobby = httpx.get(f"{live.base}/api/tables").json()
        finally:
            live.close()
        assert {t["id"] for t in lobby} == {playing, waiting, bots}

        async def before() -> dict[str, dict[str, Any]]:
            engine, _ = connect(url)
            try:
                return await stored(engine)
            finally:
                await engine.dispose()

        made = asyncio.run(before())
        assert made[private]["seated"] == 0 and made[playing]["seated"] == 2
        columns = downgrade(url, "0004")  # as stored before schema 0005
        assert "line" not in columns and "seated" not in columns
        for row in made.values():  # a line replayed counts nobody watching
            row["line"]["spectators"] = 0

        async def after() -> None:
            srv = Server(server_settings(url, tmp_path))
            await srv.start()  # migrates: each line is replayed from the table's events
            try:
                assert await stored(srv.engine) == made
                listed = [t.model_dump() for t in await srv.listed()]
                assert listed == [made[t]["line"] for t in (bots, waiting, playing)]
                assert await srv.playing_bots_only() == [bots]
                assert srv.tables == {}  # none of them loaded
            finally:
                await srv.stop()

        asyncio.run(after())


def test_a_seated_player_gets_a_hint_and_their_hand_grouped(live: LiveServer) -> None:
    clients, sockets, table = seated_table(live, ["Solo"], bots="greedy")
    sockets[0].send(type="start")
    play_out({0: sockets[0]}, actions=0)  # up to the player's first turn
    view = sockets[0].view
    assert view is not None and view["turn"] == 0 and view["phase"] == "play"
    hint = clients[0].http.get(f"/api/tables/{table}/hint").json()
    assert sorted(hint["cards"]) in [sorted(m) for m in view["legal"]] and hint["reason"]["code"]
    groups = clients[0].http.get(f"/api/tables/{table}/groups").json()
    assert sorted(c for g in groups for c in g) == sorted(view["hand"])
    watcher = Client(live.base, "Watcher")
    r = watcher.http.get(f"/api/tables/{table}/hint")
    assert (r.status_code, r.json()["code"]) == (400, "not_your_turn")
    r = watcher.http.get(f"/api/tables/{table}/groups")
    assert (r.status_code, r.json()["code"]) == (400, "not_seated")
