"""A server's start on a large event log: how long ``Server.start`` takes on an empty
database and on one holding ``--events`` stored events (``--tables`` tables of chat lines,
bulk inserted as rows), and how long the first use of one of those tables takes (its log
replayed). Starts alternate between the two databases, ``--rounds`` times; medians printed.

Run: ``TIENLEN_BENCH_POSTGRES_URL=postgresql://root@127.0.0.1:5432/test .venv/bin/python
bench/start_time.py --events 1000000`` (PostgreSQL: two scratch databases are made and
dropped), or without the variable on SQLite files in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy import insert

from tienlen.apps.server import Server, Settings
from tienlen.apps.server.db import EventRow, PlayerRow, TableRow
from tienlen.apps.server.lobby import NewTable, new_table

#: Events inserted per statement.
CHUNK = 20_000


@asynccontextmanager
async def scratch(base: str | None, folder: Path, name: str) -> AsyncIterator[str]:
    """A fresh database URL (PostgreSQL if ``base`` is given, else a SQLite file)."""
    if base is None:
        yield f"sqlite+aiosqlite:///{folder / name}.db"
        return
    import asyncpg

    db = f"bench_{name}_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(base)
    await admin.execute(f'CREATE DATABASE "{db}"')
    try:
        yield base.replace("postgresql://", "postgresql+asyncpg://", 1).rsplit("/", 1)[0] + "/" + db
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        await admin.close()


def settings(url: str, folder: Path) -> Settings:
    return Settings(data=folder, database_url=url, bot_pool="thread", bot_workers=1)


async def fill(url: str, folder: Path, tables: int, events: int) -> str:
    """Migrate, then bulk insert the tables and their chat lines; one table's id."""
    srv = Server(settings(url, folder))
    await srv.start()
    made = [new_table("p0", NewTable(bots="random")) for _ in range(tables)]
    per = events // tables if tables else 0
    said = {"player": "p0", "name": "Talker", "seat": None, "text": "hello"}
    try:
        async with srv.engine.begin() as conn:
            await conn.execute(insert(PlayerRow), [{"id": "p0", "name": "Talker"}])
            if made:
                rows = [
                    {
                        "id": t.id,
                        "host_id": "p0",
                        "config": t.config.to_dict(),
                        "deal_secret": t.secret,
                        "status": t.status,
                        "line": t.info().model_dump(),
                    }
                    for t in made
                ]
                await conn.execute(insert(TableRow), rows)
        batch: list[dict[str, object]] = []
        for i, t in enumerate(made):
            batch += [
                {"table_id": t.id, "version": v, "kind": "chat", "public": said}
                for v in range(1, per + 1)
            ]
            if len(batch) >= CHUNK or i == len(made) - 1:
                async with srv.engine.begin() as conn:
                    await conn.execute(insert(EventRow), batch)
                batch = []
                print(f"  inserted the events of {i + 1}/{tables} tables", flush=True)
    finally:
        await srv.stop()
    return made[0].id if made else ""


async def start_once(url: str, folder: Path, table: str) -> tuple[float, float]:
    """Seconds ``Server.start`` took; seconds the first use of ``table`` took (0 if none)."""
    srv = Server(settings(url, folder))
    began = time.perf_counter()
    await srv.start()
    started = time.perf_counter() - began
    first = 0.0
    try:
        if table:
            began = time.perf_counter()
            await srv.memory.held(table)
            first = time.perf_counter() - began
    finally:
        await srv.stop()
    return started, first


async def main(args: argparse.Namespace) -> None:
    base = os.environ.get("TIENLEN_BENCH_POSTGRES_URL")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        async with (
            scratch(base, folder, "empty") as empty,
            scratch(base, folder, "large") as large,
        ):
            await fill(empty, folder, 0, 0)
            print(f"filling: {args.tables} tables, {args.events} events", flush=True)
            table = await fill(large, folder, args.tables, args.events)
            times: dict[str, list[float]] = {"empty": [], "large": [], "first use": []}
            for r in range(args.rounds):
                times["empty"].append((await start_once(empty, folder, ""))[0])
                started, first = await start_once(large, folder, table)
                times["large"].append(started)
                times["first use"].append(first)
                print(
                    f"  round {r + 1}: empty {times['empty'][-1]:.3f} s, "
                    f"large {started:.3f} s, first use {first:.3f} s",
                    flush=True,
                )
    per = args.events // max(args.tables, 1)
    print(f"backend: {'PostgreSQL' if base else 'SQLite'}; medians of {args.rounds}:")
    print(f"  start, empty database:        {statistics.median(times['empty']):.3f} s")
    print(f"  start, {args.events} events: {statistics.median(times['large']):.3f} s")
    print(f"  first use of a table of {per} events: {statistics.median(times['first use']):.3f} s")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--events", type=int, default=1_000_000)
    p.add_argument("--tables", type=int, default=500)
    p.add_argument("--rounds", type=int, default=3)
    asyncio.run(main(p.parse_args()))
