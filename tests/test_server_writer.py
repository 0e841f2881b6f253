"""The database writer: writes waiting together share one commit, and a write that fails
fails alone (the others in its group still commit); a write under a fencing token that is no
longer its table's commits nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from backends import POSTGRES
from serverkit import database
from tienlen.apps.server.db import EventRow, PlayerRow, TableRow, connect, migrate
from tienlen.apps.server.writer import Fenced, Job, Writer


def guest(player_id: str, name: str) -> Job:
    async def store(s: AsyncSession) -> None:
        s.add(PlayerRow(id=player_id, name=name))
        await s.flush()

    return store


async def names(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    async with sessions() as s:
        return sorted((await s.scalars(select(PlayerRow.name))).all())


async def fenced_tables(
    url: str, fences: dict[str, int]
) -> tuple[AsyncEngine, async_sessionmaker[AsyncSession], Writer]:
    """A migrated database with a host and one table per entry of ``fences``, its token
    raised to that value (another node took it over); the engine, sessions and a writer."""
    engine, sessions = connect(url)
    await migrate(engine)
    writer = Writer(engine, EventRow, TableRow.__table__)
    await writer.write(guest("h", "Host"))
    async with sessions.begin() as s:
        for t in fences:
            s.add(TableRow(id=t, host_id="h", config={}, deal_secret="", status="waiting"))
    async with sessions.begin() as s:
        for t, fence in fences.items():
            await s.execute(update(TableRow).where(TableRow.id == t).values(fence=fence))
    return engine, sessions, writer


def test_waiting_writes_share_a_commit_and_a_bad_one_fails_alone(tmp_path: Path) -> None:
    async def main() -> None:
        engine, sessions = connect(f"sqlite+aiosqlite:///{tmp_path / 'w.db'}")
        await migrate(engine)
        writer = Writer(engine, PlayerRow)
        await writer.write(guest("a", "An"))
        results = await asyncio.gather(
            writer.write(guest("b", "Binh")),
            writer.write(guest("a", "An again")),  # the id is taken: this one fails
            writer.write(guest("c", "Chi")),
            return_exceptions=True,
        )
        assert results[0] is None and results[2] is None
        assert isinstance(results[1], Exception)
        assert await names(sessions) == ["An", "Binh", "Chi"]
        # one commit for An, then the group of three failed and Binh and Chi committed alone
        assert (writer.commits, writer.writes) == (3, 3)
        await asyncio.gather(*(writer.write(guest(f"p{i}", f"P{i}")) for i in range(5)))
        assert (writer.commits, writer.writes) == (4, 8)
        await engine.dispose()

    asyncio.run(main())


def test_rows_of_waiting_writes_go_in_one_statement_and_a_bad_one_fails_alone(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        engine, sessions = connect(f"sqlite+aiosqlite:///{tmp_path / 'w.db'}")
        await migrate(engine)
        writer = Writer(engine, PlayerRow)
        await writer.write(rows=[{"id": "a", "name": "An"}])
        results = await asyncio.gather(
            writer.write(rows=[{"id": "b", "name": "Binh"}, {"id": "d", "name": "Dung"}]),
            writer.write(rows=[{"id": "a", "name": "An again"}]),  # the id is taken
            writer.write(guest("c", "Chi"), rows=[{"id": "e", "name": "Em"}]),
            return_exceptions=True,
        )
        assert results[0] is None and results[2] is None
        assert isinstance(results[1], Exception)
        assert await names(sessions) == ["An", "Binh", "Chi", "Dung", "Em"]
        assert (writer.commits, writer.writes) == (3, 3)
        await engine.dispose()

    asyncio.run(main())


def test_a_lone_failed_write_raises_its_error(tmp_path: Path) -> None:
    async def main() -> None:
        engine, sessions = connect(f"sqlite+aiosqlite:///{tmp_path / 'w.db'}")
        await migrate(engine)
        writer = Writer(engine, PlayerRow)
        await writer.write(guest("a", "An"))
        with pytest.raises(Exception, match="UNIQUE"):
            await writer.write(guest("a", "An"))
        assert await names(sessions) == ["An"]
        await engine.dispose()

    asyncio.run(main())


def test_a_write_under_a_stale_fence_commits_nothing(backend: str, tmp_path: Path) -> None:
    def event(table: str, version: int, fence: int) -> dict[str, object]:
        return {
            "table_id": table,
            "version": version,
            "kind": "chat",
            "public": {},
            "fence": fence,
        }

    async def main(url: str) -> None:
        # another node took t1 over: its token is now 1
        engine, sessions, writer = await fenced_tables(url, {"t1": 1, "t2": 0})
        results = await asyncio.gather(
            writer.write(rows=[event("t1", 1, 0)], fences={"t1": 0}),  # the old owner's
            writer.write(rows=[event("t2", 1, 0)], fences={"t2": 0}),
            writer.write(rows=[event("t1", 1, 1)], fences={"t1": 1}),  # the new owner's
            return_exceptions=True,
        )
        assert isinstance(results[0], Fenced) and results[0].table_id == "t1"
        assert list(results[1:]) == [None, None]
        with pytest.raises(Fenced):  # a job's write is fenced too
            await writer.write(guest("late", "Late"), fences={"t1": 0})
        async with sessions() as s:
            stored = (
                await s.execute(
                    select(EventRow.table_id, EventRow.version, EventRow.fence).order_by(
                        EventRow.table_id
                    )
                )
            ).all()
        assert [tuple(r) for r in stored] == [("t1", 1, 1), ("t2", 1, 0)]
        assert "Late" not in await names(sessions)
        await writer.close()
        await engine.dispose()

    with database(backend, tmp_path) as url:
        asyncio.run(main(url))


def test_a_stale_fence_fails_even_beside_the_new_one_in_a_group(
    backend: str, tmp_path: Path
) -> None:
    """Two writes of one table under different tokens, waiting together: the stale one is
    fenced (its group's check must not keep only one of the two tokens)."""

    async def main(url: str) -> None:
        engine, sessions, writer = await fenced_tables(url, {"t": 1})
        new = {"table_id": "t", "version": 1, "kind": "chat", "public": {}, "fence": 1}
        old = {**new, "version": 2, "fence": 0}  # no clash of versions to fail it instead
        results = await asyncio.gather(
            writer.write(rows=[old], fences={"t": 0}),
            writer.write(rows=[new], fences={"t": 1}),
            return_exceptions=True,
        )
        assert isinstance(results[0], Fenced) and results[1] is None, results
        async with sessions() as s:
            stored = (await s.execute(select(EventRow.version, EventRow.fence))).all()
        assert [tuple(r) for r in stored] == [(1, 1)]
        await writer.close()
        await engine.dispose()

    with database(backend, tmp_path) as url:
        asyncio.run(main(url))


@pytest.mark.skipif(POSTGRES is None, reason="needs TIENLEN_TEST_POSTGRES_URL")
def test_a_fence_raised_while_a_write_waits_for_its_lock_fences_it(tmp_path: Path) -> None:
    """A takeover holds the table's row (raising its token) when the old owner's write
    arrives: the write waits for the row lock, then finds the new token and inserts nothing.
    On PostgreSQL the write is one statement (its lock is taken in a CTE): this is what
    shows that lock is taken, and that the token read is the one committed after it."""

    async def main(url: str) -> None:
        engine, sessions, writer = await fenced_tables(url, {"t": 1})
        row = {"table_id": "t", "version": 1, "kind": "chat", "public": {}, "fence": 1}
        async with engine.connect() as takeover:
            await takeover.execute(update(TableRow).where(TableRow.id == "t").values(fence=2))
            write = asyncio.ensure_future(writer.write(rows=[row], fences={"t": 1}))
            await asyncio.sleep(0.5)
            assert not write.done()  # it waits for the takeover's lock
            await takeover.commit()
        with pytest.raises(Fenced):
            await write
        # the new owner's write goes through, once
        await writer.write(rows=[{**row, "fence": 2}], fences={"t": 2})
        async with sessions() as s:
            stored = (await s.execute(select(EventRow.version, EventRow.fence))).all()
        assert [tuple(r) for r in stored] == [(1, 2)]
        await writer.close()
        await engine.dispose()

    with database("postgresql", tmp_path) as url:
        asyncio.run(main(url))


@pytest.mark.skipif(POSTGRES is None, reason="needs TIENLEN_TEST_POSTGRES_URL")
def test_the_kept_connection_is_replaced_once_the_database_has_closed_it(
    tmp_path: Path,
) -> None:
    """On PostgreSQL the one-statement writes keep one connection: when the database ends
    it (a restart, a failover, an operator), the next write opens another, and the write
    after a statement that failed on it does too."""

    async def main(url: str) -> None:
        engine, sessions, writer = await fenced_tables(url, {"t": 0})

        def event(version: int) -> dict[str, object]:
            return {"table_id": "t", "version": version, "kind": "chat", "public": {}}

        await writer.write(rows=[event(1)], fences={"t": 0})
        async with engine.connect() as admin:
            await admin.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE pid <> pg_backend_pid() AND datname = current_database()"
                )
            )
        await asyncio.sleep(0.2)  # the driver hears the connection close
        await writer.write(rows=[event(2)], fences={"t": 0})
        with pytest.raises(Exception, match="duplicate key"):  # a statement that fails
            await writer.write(rows=[event(2)], fences={"t": 0})
        await writer.write(rows=[event(3)], fences={"t": 0})
        async with sessions() as s:
            stored = (await s.scalars(select(EventRow.version).order_by(EventRow.version))).all()
        assert stored == [1, 2, 3]
        await writer.close()
        await engine.dispose()

    with database("postgresql", tmp_path) as url:
        asyncio.run(main(url))
