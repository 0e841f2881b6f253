"""The database writer: writes waiting together share one commit, and a write that fails
fails alone (the others in its group still commit)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tienlen.apps.server.db import PlayerRow, connect, migrate
from tienlen.apps.server.writer import Job, Writer


def guest(player_id: str, name: str) -> Job:
    async def store(s: AsyncSession) -> None:
        s.add(PlayerRow(id=player_id, name=name))
        await s.flush()

    return store


async def names(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    async with sessions() as s:
        return sorted((await s.scalars(select(PlayerRow.name))).all())


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
