"""One writer for the database: every write goes through it, in group commits.

Tables commit each accepted action before broadcasting it. Letting every table open its own
write transaction made SQLite writers queue on the file lock (its busy handler sleeps, and
past the busy timeout a commit fails with "database is locked"), and cost one commit per
action. Here writes wait in one queue; one task runs all that are waiting in a single
transaction, so a burst of actions at many tables costs one commit. If that transaction
fails, each write is retried alone, so only the one at fault fails.

Most writes are a table's new event rows: they are given as rows, not as a job, so that a
group inserts all of its rows in one statement (every statement is a round trip to the
database driver's thread, which cost more than the SQL itself).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

__all__ = ["Job", "Writer"]

#: A write: adds or changes rows in the session it is given (it may run more than once: a
#: retry after its group failed runs it again in a fresh session).
Job = Callable[[AsyncSession], Awaitable[None]]
_Write = tuple[Job | None, Sequence[Mapping[str, Any]], asyncio.Future[None]]


class Writer:
    """Runs :data:`Job` s, and inserts rows into the table of ``rows_into`` (a mapped
    class), in group commits, one transaction at a time."""

    def __init__(
        self,
        engine: AsyncEngine,
        rows_into: type[Any],
        *,
        timed: Callable[[float], None] | None = None,
    ) -> None:
        self._engine = engine
        self._timed = timed
        """Told each committed transaction's duration in seconds (the metrics)."""
        self._sessions = async_sessionmaker(engine)
        self._rows_into = rows_into
        self._queue: list[_Write] = []
        self._task: asyncio.Task[None] | None = None
        self.commits = 0
        """Transactions committed (with :attr:`writes`, how well writes are grouped)."""
        self.writes = 0

    async def write(
        self, job: Job | None = None, *, rows: Sequence[Mapping[str, Any]] = ()
    ) -> None:
        """Run ``job`` and insert ``rows`` (after the job) in a committed transaction; raises
        what made it fail."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((job, rows, done))
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._drain())
        await done

    async def _drain(self) -> None:
        while self._queue:
            group, self._queue = self._queue, []
            try:
                await self._run(group)
            except Exception as e:
                if len(group) == 1:
                    _settle(group[0][2], e)
                    continue
                for one in group:  # find the one at fault; the others still commit
                    try:
                        await self._run([one])
                    except Exception as alone:
                        _settle(one[2], alone)

    async def _run(self, group: list[_Write]) -> None:
        began = time.perf_counter()
        rows = [row for _job, some, _done in group for row in some]
        if all(job is None for job, _rows, _done in group):
            # Rows only (most groups): a Core transaction, without an ORM session's cost.
            async with self._engine.begin() as conn:
                if rows:
                    await conn.execute(insert(self._rows_into), rows)
        else:
            async with self._sessions.begin() as s:
                for job, _rows, _done in group:
                    if job is not None:
                        await job(s)
                if rows:  # one executemany for the whole group
                    await (await s.connection()).execute(insert(self._rows_into), rows)
        if self._timed is not None:
            self._timed(time.perf_counter() - began)
        self.commits += 1
        self.writes += len(group)
        for _job, _rows, done in group:
            _settle(done, None)


def _settle(done: asyncio.Future[None], error: BaseException | None) -> None:
    if done.done():  # its waiter was cancelled
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)
