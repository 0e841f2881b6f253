"""A server holds what is being played (issue 29): a table is loaded from its event log the
first time it is needed and leaves memory once nobody has it open and it has nothing to run;
the lobby is listed from the tables' rows; a start reads no event, so it takes as long on a
large event log as on an empty one. Waits are bounded only to fail a hung test."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import event, insert

from serverkit import (
    HANG,
    Client,
    LiveServer,
    database,
    live_server,
    seated_table,
    server_settings,
    until,
)
from tienlen.apps.server import Server
from tienlen.apps.server.db import EventRow, PlayerRow, TableRow
from tienlen.apps.server.lobby import NewTable, new_table

#: Seconds a table nobody needs stays in memory in these tests.
EVICT = 0.2


def held(live: LiveServer) -> set[str]:
    assert live.server is not None
    return set(live.server.tables)


def test_a_table_nobody_needs_leaves_memory_and_comes_back_as_it_was(
    backend: str, tmp_path: Path
) -> None:
    with live_server(backend, tmp_path, evict_after=EVICT) as live:
        host = Client(live.base, "Host")
        table = host.create(bots="random")["table"]["id"]
        s = host.socket(table)
        s.until(lambda m: m["type"] == "state")
        s.send(type="sit", seat=0)
        s.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "sit")
        s.send(type="chat", text="back soon")
        said = s.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "chat")
        time.sleep(3 * EVICT)
        assert table in held(live)  # its socket is open
        s.close()
        until(lambda: table not in held(live), "the table leaves memory")
        # The lobby lists it from its row, seated player and all.
        listed = {t["id"]: t for t in host.http.get("/api/tables").json()}
        assert listed[table]["seats"][0]["player"] == host.id
        assert table not in held(live)
        # Opened again: loaded from its log (one load, by this opening), at the version it had.
        assert live.server is not None
        loads = live.server.memory.loads
        again = host.socket(table)
        state = again.until(lambda m: m["type"] == "state")
        assert state["version"] == said["version"]
        assert state["table"]["seats"][0]["player"] == host.id
        assert table in held(live)
        assert live.server.memory.loads == loads + 1


def test_a_finished_table_leaves_memory(backend: str, tmp_path: Path) -> None:
    with live_server(backend, tmp_path, evict_after=EVICT, abandon_after=0.1) as live:
        host = Client(live.base, "Host")
        table = host.create(bots="random", games=100)["table"]["id"]
        s = host.socket(table)
        s.until(lambda m: m["type"] == "state")
        s.send(type="start")  # four bots play, until the table is closed for nobody watching
        s.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "deal")
        s.close()
        until(lambda: table not in held(live), "the closed table leaves memory")
        info = host.http.get(f"/api/tables/{table}").json()
        assert info["status"] == "finished"
        assert table not in {t["id"] for t in host.http.get("/api/tables").json()}


def test_a_table_whose_players_are_away_is_loaded_and_waits(backend: str, tmp_path: Path) -> None:
    with live_server(backend, tmp_path, evict_after=EVICT, abandon_after=0.1) as live:
        clients, sockets, table = seated_table(
            live, ["An"], options={"players": 2}, bots="random", games=100
        )
        sockets[0].send(type="start")
        sockets[0].until_view()
        sockets[0].close()  # no grace in tests: the seat is away at once
        until(lambda: table not in held(live), "the waiting table leaves memory")
        before = clients[0].http.get(f"/api/tables/{table}").json()  # loaded again
        assert before["seats"][0]["away"] and before["status"] == "playing"
        watcher = Client(live.base, "Watcher").socket(table)
        version = watcher.until(lambda m: m["type"] == "state")["version"]
        time.sleep(5 * EVICT)  # time for bots to play on, if they wrongly did
        watcher.send(type="sync", version=version)
        assert watcher.recv()["type"] == "state"  # nothing happened since: a state again
        assert clients[0].http.get(f"/api/tables/{table}").json() == {**before, "spectators": 1}
        # Its player comes back: the match goes on.
        back = clients[0].socket(table)
        back.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "back")


@pytest.mark.slow  # a restart, then the abandon rule
def test_a_table_of_bots_left_playing_by_a_restart_is_closed(backend: str, tmp_path: Path) -> None:
    with database(backend, tmp_path) as url:
        first = LiveServer(server_settings(url, tmp_path))
        try:
            host = Client(first.base, "Host")
            table = host.create(bots="random", games=100)["table"]["id"]
            s = host.socket(table)
            s.until(lambda m: m["type"] == "state")
            s.send(type="start")  # nobody sits: four bots play
            s.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "deal")
        finally:
            first.close()
        again = LiveServer(server_settings(url, tmp_path, abandon_after=0.2))
        try:
            lobby = httpx.Client(base_url=again.base, timeout=HANG)

            def listed() -> set[str]:
                return {t["id"] for t in lobby.get("/api/tables").json()}

            assert table in listed()  # playing, as its row says
            until(lambda: table not in listed(), "the table is loaded and closed")
            host.http.base_url = httpx.URL(again.base)
            assert host.http.get(f"/api/tables/{table}").json()["status"] == "finished"
        finally:
            again.close()


#: The generated event log: this many tables of this many events each.
TABLES, EVENTS = 100, 2000


def generate_log(url: str, tmp: Path) -> list[str]:
    """A migrated database holding TABLES tables of EVENTS chat lines each (bulk inserted,
    as rows); their ids."""

    async def main() -> list[str]:
        srv = Server(server_settings(url, tmp))
        await srv.start()
        try:
            tables = [new_table("p0", NewTable(bots="random")) for _ in range(TABLES)]
            async with srv.engine.begin() as conn:
                await conn.execute(insert(PlayerRow), [{"id": "p0", "name": "Talker"}])
                await conn.execute(
                    insert(TableRow),
                    [
                        {
                            "id": t.id,
                            "host_id": "p0",
                            "config": t.config.to_dict(),
                            "deal_secret": t.secret,
                            "invite": None,
                            "status": t.status,
                            "line": t.info().model_dump(),
                        }
                        for t in tables
                    ],
                )
                said = {"player": "p0", "name": "Talker", "seat": None, "text": "hello"}
                for t in tables:
                    await conn.execute(
                        insert(EventRow),
                        [
                            {"table_id": t.id, "version": v, "kind": "chat", "public": said}
                            for v in range(1, EVENTS + 1)
                        ],
                    )
        finally:
            await srv.stop()
        return [t.id for t in tables]

    return asyncio.run(main())


@pytest.mark.slow  # 200,000 events generated
def test_a_start_reads_no_event_of_a_large_log(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'big.db'}"
    ids = generate_log(url, tmp_path)

    async def main() -> None:
        srv = Server(server_settings(url, tmp_path))
        read: list[str] = []

        def statement(_c: Any, _cur: Any, sql: str, *_args: Any) -> None:
            if "table_events" in sql:
                read.append(sql)

        event.listen(srv.engine.sync_engine, "before_cursor_execute", statement)
        await srv.start()
        try:
            assert read == [] and srv.tables == {}
            listed = await srv.listed()  # the lobby, from the rows
            assert sorted(t.id for t in listed) == sorted(ids) and read == []
            table = await srv.memory.held(ids[7])  # the first use loads one table, whole
            assert table.version == EVENTS and list(srv.tables) == [ids[7]]
            assert read
        finally:
            await srv.stop()

    asyncio.run(main())
