"""The lobby's reads on a large history: a database holding ``--finished`` finished tables and
``--open`` open ones (half waiting, half playing; ``--bots-only`` of those played by bots
only), bulk inserted as rows at schema 0005 and then migrated to the newest schema by the
server under test; then the median time, over ``--rounds``, of the lobby's list
(``Server.listed``, what ``GET /api/tables`` and the lobby socket's first frame send) and of
the look for tables of bots only (``Server.playing_bots_only``, every ``--abandon-after``).

The rows are generated (seeded: the same rows each run), so the same script measures any
version of the server: put its ``src`` first on ``PYTHONPATH``. Before issue 29's lobby
indexes, ``git -C /work/main archive HEAD src | tar -x -C /tmp/lobby-before``, then
``PYTHONPATH=/tmp/lobby-before/src .venv/bin/python bench/lobby_scale.py``.

PostgreSQL: ``TIENLEN_BENCH_POSTGRES_URL=postgresql://root@127.0.0.1:5432/test`` (a scratch
database is made, ANALYZEd as autovacuum would, and dropped); without it, a SQLite file in a
temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import inspect
import itertools
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from start_time import scratch  # this folder: the script's own path

from tienlen.apps.server import Server, Settings
from tienlen.apps.server.db import MIGRATIONS, connect, migrate
from tienlen.apps.server.lobby import NewTable, new_table

#: When the generated history begins.
T0 = datetime(2026, 11, 1, tzinfo=UTC)
#: Rows inserted per statement.
CHUNK = 5_000
#: The rows as schema 0005 has them (whatever the server under test's models say now).
TABLES = sa.table(
    "tables",
    sa.column("id", sa.String),
    sa.column("host_id", sa.String),
    sa.column("config", sa.JSON),
    sa.column("deal_secret", sa.String),
    sa.column("invite", sa.String),
    sa.column("status", sa.String),
    sa.column("created", sa.DateTime(timezone=True)),
    sa.column("fence", sa.Integer),
    sa.column("line", sa.JSON),
)
PLAYERS = sa.table(
    "players",
    sa.column("id", sa.String),
    sa.column("name", sa.String),
    sa.column("created", sa.DateTime(timezone=True)),
)


def rows(finished: int, open_: int, bots_only: int) -> Iterator[dict[str, Any]]:
    """The table rows, in random order of creation over 30 days: finished ones, then open
    ones (waiting with one player seated; playing with one to four, or ``bots_only`` with
    none)."""
    rng = random.Random(29)
    made = new_table("p0", NewTable(bots="random"))
    template = made.info().model_dump()
    config = made.config.to_dict()
    for i in range(finished + open_):
        n = i - finished
        status = "finished" if n < 0 else ("waiting" if n % 2 else "playing")
        seated = 0 if 0 <= n < 2 * bots_only and status == "playing" else rng.randint(1, 4)
        if status == "waiting":
            seated = 1
        line = copy.deepcopy(template)
        line.update(id=f"t{i:07d}", status=status)
        for seat in line["seats"][:seated]:
            seat.update(player=f"p{rng.randrange(1000)}", name="Player", bot=None)
        yield {
            "id": f"t{i:07d}",
            "host_id": "p0",
            "config": config,
            "deal_secret": "0" * 64,
            "invite": None,
            "status": status,
            "created": T0 + timedelta(seconds=rng.uniform(0, 30 * 86400)),
            "fence": 0,
            "line": line,
        }


async def fill(url: str, generated: Iterator[dict[str, Any]]) -> float:
    """Schema 0005, the rows bulk inserted, then the newest schema; the migration's seconds."""
    engine, _ = connect(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))

    def to_0005(sync_conn: Any) -> None:
        cfg.attributes["connection"] = sync_conn
        command.upgrade(cfg, "0005")

    try:
        async with engine.begin() as conn:
            await conn.run_sync(to_0005)
            await conn.execute(
                sa.insert(PLAYERS),
                [{"id": f"p{i}", "name": "Player", "created": T0} for i in range(1000)],
            )
        while chunk := list(itertools.islice(generated, CHUNK)):
            async with engine.begin() as conn:
                await conn.execute(sa.insert(TABLES), chunk)
        began = time.perf_counter()
        await migrate(engine)
        migrated = time.perf_counter() - began
        if engine.dialect.name == "postgresql":
            async with engine.connect() as conn:
                await conn.execution_options(isolation_level="AUTOCOMMIT")
                await conn.exec_driver_sql("ANALYZE")
    finally:
        await engine.dispose()
    return migrated


async def timed(rounds: int, read: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    """The median seconds of ``read()`` over ``rounds`` (after one not counted), and what
    it gave."""
    got = await read()
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        got = await read()
        times.append(time.perf_counter() - began)
    return statistics.median(times), got


async def main(args: argparse.Namespace) -> None:
    base = os.environ.get("TIENLEN_BENCH_POSTGRES_URL")
    import tienlen.apps.server

    print(f"server under test: {Path(tienlen.apps.server.__file__).parent}")
    generated = rows(args.finished, args.open, args.bots_only)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        async with scratch(base, folder, "lobby") as url:
            began = time.perf_counter()
            migrated = await fill(url, generated)
            print(
                f"filled: {args.finished} finished and {args.open} open tables in "
                f"{time.perf_counter() - began:.1f} s; migrating from 0005 took {migrated:.2f} s",
                flush=True,
            )
            srv = Server(Settings(data=folder, database_url=url, bot_pool="thread", bot_workers=1))
            await srv.start()
            try:
                lobby_s, lobby = await timed(args.rounds, srv.listed)
                bots_s, bots = await timed(args.rounds, srv.playing_bots_only)
                paged = None
                if "after" in inspect.signature(srv.listed).parameters:
                    last = lobby[-1].id

                    async def next_page() -> Any:
                        return await srv.listed(after=last)

                    paged = await timed(args.rounds, next_page)
            finally:
                await srv.stop()
    size = len(json.dumps([t.model_dump() for t in lobby]))
    print(f"backend: {'PostgreSQL' if base else 'SQLite'}; medians of {args.rounds}:")
    print(f"  lobby list: {lobby_s * 1000:8.2f} ms ({len(lobby)} tables, {size / 1024:.0f} KiB)")
    if paged is not None:
        print(f"  next page:  {paged[0] * 1000:8.2f} ms ({len(paged[1])} tables)")
    print(f"  bots only:  {bots_s * 1000:8.2f} ms ({len(bots)} tables)")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--finished", type=int, default=100_000)
    p.add_argument("--open", type=int, default=10_000)
    p.add_argument("--bots-only", type=int, default=100)
    p.add_argument("--rounds", type=int, default=20)
    asyncio.run(main(p.parse_args()))
