"""What one fenced write of the event writer costs on PostgreSQL (a script, not a test).

On a scratch database (created, migrated and dropped at the end), one table under a fencing
token, ``--writes`` sequential writes of ``--rows`` event rows each (a cluster's usual write:
one action's events), timed ``--repeat`` times three ways:

- ``writer``: :meth:`Writer.write`, as a node calls it (the statement on the connection the
  writer keeps);
- ``pool``: the same statement through a pool checkout and SQLAlchemy's execution layer
  (``AsyncConnection.exec_driver_sql`` on a connection taken for each write), the way the
  writer sent it before it kept a connection;
- ``driver``: the same statement on an asyncpg connection of its own (the floor).

It prints the median CPU (this process's) and wall time per write of each way, and each
median over the writer's.

    .venv/bin/python bench/writer.py --postgres postgresql://root@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import asyncpg
from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from server_load import scratch_database  # this folder: the script's own path

from tienlen.apps.server.db import EventRow, PlayerRow, TableRow, connect, migrate
from tienlen.apps.server.writer import Writer

TABLE = "bench-table"
FENCE = 3


def event_rows(version: int, count: int) -> list[Mapping[str, Any]]:
    """``count`` event rows of the bench's table from ``version`` on."""
    return [
        {"table_id": TABLE, "version": version + i, "kind": "chat", "public": {}, "fence": FENCE}
        for i in range(count)
    ]


async def timed(
    write: Callable[[int], Awaitable[None]], writes: int, start: int, step: int
) -> tuple[float, float]:
    """CPU and wall seconds per write for ``writes`` sequential calls of ``write``, given
    the versions from ``start`` on, ``step`` apart."""
    cpu, wall = time.process_time(), time.perf_counter()
    for n in range(writes):
        await write(start + n * step)
    return (time.process_time() - cpu) / writes, (time.perf_counter() - wall) / writes


async def main_async(args: argparse.Namespace) -> dict[str, list[tuple[float, float]]]:
    url = await scratch_database(args.postgres)
    name = url.rsplit("/", 1)[1]
    engine, sessions = connect(url)
    try:
        await migrate(engine)
        async with sessions.begin() as s:
            s.add(PlayerRow(id="h", name="Host"))
        async with sessions.begin() as s:
            s.add(TableRow(id=TABLE, host_id="h", config={}, deal_secret="", status="waiting"))
        async with sessions.begin() as s:
            row = await s.get(TableRow, TABLE)
            assert row is not None
            row.fence = FENCE
        writer = Writer(engine, EventRow, TableRow.__table__)
        fences = [(TABLE, FENCE)]
        sql, _ = writer._fenced_insert(event_rows(0, args.rows), fences)
        pooled = engine.execution_options(isolation_level="AUTOCOMMIT")
        own = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://", 1))

        async def by_writer(version: int) -> None:
            await writer.write(rows=event_rows(version, args.rows), fences={TABLE: FENCE})

        async def by_pool(version: int) -> None:
            _, params = writer._fenced_insert(event_rows(version, args.rows), fences)
            async with pooled.connect() as conn:
                inserted = (await conn.exec_driver_sql(sql, params)).rowcount
            assert inserted == args.rows

        async def by_driver(version: int) -> None:
            _, params = writer._fenced_insert(event_rows(version, args.rows), fences)
            status = await own.execute(sql, *params)
            assert status.endswith(f" {args.rows}"), status

        ways = {"writer": by_writer, "pool": by_pool, "driver": by_driver}
        got: dict[str, list[tuple[float, float]]] = {way: [] for way in ways}
        version = 1
        with Progress(console=Console(stderr=True), transient=True) as progress:
            task = progress.add_task("writing", total=args.repeat * len(ways))
            for _ in range(args.repeat):  # the ways alternate, so drift hits each alike
                for way, write in ways.items():
                    # warm: the statement prepared, the pool filled
                    await timed(write, 20, version, args.rows)
                    version += 20 * args.rows
                    got[way].append(await timed(write, args.writes, version, args.rows))
                    version += args.writes * args.rows
                    progress.advance(task)
        await own.close()
        await writer.close()
        return got
    finally:
        await engine.dispose()
        await scratch_database(args.postgres, drop=name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--postgres",
        required=True,
        help="a PostgreSQL server URL (postgresql://user@host/db) to make a scratch database on",
    )
    parser.add_argument("--writes", type=int, default=1000, help="writes a timing (1000)")
    parser.add_argument("--rows", type=int, default=2, help="event rows a write (2)")
    parser.add_argument("--repeat", type=int, default=5, help="timings of each way (5)")
    args = parser.parse_args()
    if min(args.writes, args.rows, args.repeat) < 1:
        parser.error("--writes, --rows and --repeat must be 1 or more")
    got = asyncio.run(main_async(args))
    base = statistics.median(cpu for cpu, _wall in got["writer"])
    table = Table(title=f"{args.writes} writes of {args.rows} rows, {args.repeat} timings")
    for column in (
        "way",
        "CPU µs a write (median)",
        "wall µs a write (median)",
        "CPU over writer's",
    ):
        table.add_column(column, justify="right")
    for way, runs in got.items():
        cpu = statistics.median(c for c, _w in runs)
        wall = statistics.median(w for _c, w in runs)
        table.add_row(way, f"{cpu * 1e6:.0f}", f"{wall * 1e6:.0f}", f"{cpu / base:.2f}x")
    Console().print(table)


if __name__ == "__main__":
    main()
