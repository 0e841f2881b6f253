"""One writer for the database: every write goes through it, in group commits.

Tables commit each accepted action before broadcasting it. Letting every table open its own
write transaction made SQLite writers queue on the file lock (its busy handler sleeps, and
past the busy timeout a commit fails with "database is locked"), and cost one commit per
action. Here writes wait in one queue; one task runs all that are waiting in a single
transaction, so a burst of actions at many tables costs one commit. If that transaction
fails, each write is retried alone, so only the one at fault fails (unless the database did
not answer at all: then they all fail at once).

Most writes are a table's new event rows: they are given as rows, not as a job, so that a
group inserts all of its rows in one statement (every statement is a round trip to the
database driver's thread, which cost more than the SQL itself).

In a cluster a write may carry fences: the fencing token each table's owner holds. The group
reads those tables' tokens under a row lock (``SELECT ... FOR UPDATE``) in its transaction and
fails with :class:`Fenced` when one differs, so a node that lost a table to another (which
raised the token, under the same lock) cannot commit anything for it.

On PostgreSQL a group of rows only (a cluster's usual group: one action's event rows) is one
statement in its own implicit transaction: the rows inserted from arrays under a condition
that counts the fences matched in the locked rows. Begin, check, insert and commit were four
round trips; the wake-ups they cost each node were most of the CPU that an action cost more
on three nodes than on one (docs/benchmarks.md). That statement goes straight to the driver's
connection, which the writer takes from the pool once and keeps (it runs one group at a
time): a pool checkout and SQLAlchemy's execution layer cost twice the statement's own CPU.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, cast

from sqlalchemy import FromClause, Table, insert, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

__all__ = ["Fenced", "Job", "Writer"]

#: A write: adds or changes rows in the session it is given (it may run more than once: a
#: retry after its group failed runs it again in a fresh session).
Job = Callable[[AsyncSession], Awaitable[None]]
_Write = tuple[Job | None, Sequence[Mapping[str, Any]], Mapping[str, int], asyncio.Future[None]]


class Fenced(RuntimeError):
    """A write made under a fencing token that is no longer its table's: another node owns
    the table now. Nothing of the write was committed."""

    def __init__(self, table_id: str, mine: int, now: int | None) -> None:
        super().__init__(f"table {table_id}: fenced out (token {mine}, the table's is {now})")
        self.table_id = table_id


class Writer:
    """Runs :data:`Job` s, and inserts rows into the table of ``rows_into`` (a mapped
    class), in group commits, one transaction at a time; fences are checked against the
    ``id`` and ``fence`` columns of ``fences_in``."""

    def __init__(
        self,
        engine: AsyncEngine,
        rows_into: type[Any],
        fences_in: FromClause | None = None,
        *,
        timed: Callable[[float], None] | None = None,
    ) -> None:
        self._engine = engine
        self._timed = timed
        """Told each committed transaction's duration in seconds (the metrics)."""
        self._sessions = async_sessionmaker(engine)
        # One statement is its own transaction: no BEGIN and COMMIT round trips around it.
        self._autocommit = engine.execution_options(isolation_level="AUTOCOMMIT")
        self._statements: dict[
            tuple[tuple[str, ...], bool], tuple[str, list[Callable[[Any], Any] | None]]
        ] = {}
        self._rows_into = rows_into
        self._fences_in = fences_in
        self._queue: list[_Write] = []
        self._task: asyncio.Task[None] | None = None
        self._held: AsyncConnection | None = None
        """The pool's connection kept for one-statement writes (its driver's is ``_driver``)."""
        self._driver: Any = None
        self.commits = 0
        """Transactions committed (with :attr:`writes`, how well writes are grouped)."""
        self.writes = 0

    async def write(
        self,
        job: Job | None = None,
        *,
        rows: Sequence[Mapping[str, Any]] = (),
        fences: Mapping[str, int] | None = None,
    ) -> None:
        """Run ``job`` and insert ``rows`` (after the job) in a committed transaction, if each
        table of ``fences`` still has that token; raises what made it fail (:class:`Fenced`
        for a token that changed)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((job, rows, fences or {}, done))
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._drain())
        await done

    async def _drain(self) -> None:
        while self._queue:
            group, self._queue = self._queue, []
            try:
                await self._run(group)
            except Exception as e:
                if len(group) == 1 or _no_answer(e):
                    for one in group:
                        _settle(one[3], e)
                    continue
                for one in group:  # find the one at fault; the others still commit
                    try:
                        await self._run([one])
                    except Exception as alone:
                        _settle(one[3], alone)

    async def _run(self, group: list[_Write]) -> None:
        began = time.perf_counter()
        rows = [row for _job, some, _fences, _done in group for row in some]
        # Pairs, not a dict: two writes of one table under different tokens are both checked.
        fences = [(t, f) for _job, _rows, some, _done in group for t, f in some.items()]
        if (
            rows
            and self._engine.dialect.name == "postgresql"
            and all(row.keys() == rows[0].keys() for row in rows)
            and all(job is None for job, _rows, _fences, _done in group)
        ):
            sql, params = self._fenced_insert(rows, fences)
            inserted = await self._statement(sql, params)
            if inserted != len(rows):
                # A fence moved, so nothing was inserted: the transaction finds which one
                # (and raises :class:`Fenced`), or commits if the tokens match after all.
                await self._transact(group, rows, fences)
        else:
            await self._transact(group, rows, fences)
        if self._timed is not None:
            self._timed(time.perf_counter() - began)
        self.commits += 1
        self.writes += len(group)
        for _job, _rows, _fences, done in group:
            _settle(done, None)

    async def _statement(self, sql: str, params: tuple[Any, ...]) -> int:
        """Run one statement on the kept connection; the rows it changed. A connection that
        failed a statement (or was interrupted in one) is dropped, never used again."""
        if self._driver is None or self._driver.is_closed():
            await self.close()
            self._held = await self._autocommit.connect()
            self._driver = (await self._held.get_raw_connection()).driver_connection
        driver = self._driver
        try:
            status: str = await driver.execute(sql, *params)
        except BaseException:
            # Its state is unknown (asyncpg refuses a connection still busy with a cancelled
            # statement): close it at once, and give the pool its place back.
            driver.terminate()
            if driver is self._driver:
                await self.close()
            raise
        return int(status.rsplit(" ", 1)[-1])

    async def close(self) -> None:
        """Give the kept connection back (before the engine is disposed of)."""
        held, self._held, self._driver = self._held, None, None
        if held is not None:
            with contextlib.suppress(Exception):
                await held.invalidate()
            await held.close()

    async def _transact(
        self, group: list[_Write], rows: list[Mapping[str, Any]], fences: list[tuple[str, int]]
    ) -> None:
        """The group in one transaction: lock and check the fences, run the jobs, insert."""
        if all(job is None for job, _rows, _fences, _done in group):
            # Rows only: a Core transaction, without an ORM session's cost.
            async with self._engine.begin() as conn:
                await self._check(conn, fences)
                if rows:
                    await conn.execute(insert(self._rows_into), rows)
            return
        async with self._sessions.begin() as s:
            await self._check(await s.connection(), fences)
            for job, _rows, _fences, _done in group:
                if job is not None:
                    await job(s)
            if rows:  # one executemany for the whole group
                await (await s.connection()).execute(insert(self._rows_into), rows)

    def _fenced_insert(
        self, rows: list[Mapping[str, Any]], fences: list[tuple[str, int]]
    ) -> tuple[str, tuple[Any, ...]]:
        """One statement (SQL and its parameters) that inserts ``rows`` only if every fence
        still holds: the rows come as one array a column (``unnest``), under a condition
        that counts the fences matched in the tables' rows, locked in one order (``FOR
        UPDATE``) until its implicit commit. Its text depends only on the columns given, so
        the database prepares it once a connection and nothing is compiled per write."""
        target: Table = self._rows_into.__table__
        given = tuple(rows[0])
        # Columns the rows leave out get their Python-side defaults (the executemany of the
        # transaction path applies those itself; an INSERT ... SELECT does not).
        filled = tuple(c.name for c in target.columns if c.name not in given and c.default)
        names = given + filled
        key = (names, bool(fences))
        if key not in self._statements:
            self._statements[key] = self._insert_sql(names, bool(fences))
        sql, convert = self._statements[key]
        defaults = [_default(target.c[n]) for n in filled]
        columns = [
            [to(row[n]) for row in rows] if to else [row[n] for row in rows]
            for n, to in zip(given, convert, strict=False)
        ]
        columns += [[d] * len(rows) for d in defaults]
        params: tuple[Any, ...] = tuple(columns)
        if fences:
            params += (
                sorted({t for t, _f in fences}),
                [t for t, _f in fences],
                [f for _t, f in fences],
                len(fences),
            )
        return sql, params

    def _insert_sql(
        self, names: tuple[str, ...], fenced: bool
    ) -> tuple[str, list[Callable[[Any], Any] | None]]:
        """The text of :meth:`_fenced_insert`'s statement for these columns, and each
        column's conversion to what the driver takes (the column type's own)."""
        dialect = self._engine.dialect
        quote = dialect.identifier_preparer.quote
        target: Table = self._rows_into.__table__
        types = [target.c[n].type for n in names]
        arrays = ", ".join(f"${i}::{t.compile(dialect=dialect)}[]" for i, t in enumerate(types, 1))
        sql = f"INSERT INTO {target.name} ({', '.join(names)}) SELECT * FROM unnest({arrays})"
        if fenced:
            t = cast(Table, self._fences_in)
            assert t is not None, "a writer given fences needs the table they are kept in"
            k = len(names)
            id_type = t.c.id.type.compile(dialect=dialect)
            sql = (
                f"WITH locked AS (SELECT id, fence FROM {quote(t.name)} "
                f"WHERE id = ANY(${k + 1}::{id_type}[]) ORDER BY id FOR UPDATE) {sql} "
                f"WHERE (SELECT count(*) FROM locked JOIN unnest(${k + 2}::{id_type}[], "
                f"${k + 3}::INTEGER[]) AS held(id, fence) USING (id, fence)) = ${k + 4}"
            )
        return sql, [t.bind_processor(dialect) for t in types]

    async def _check(self, conn: AsyncConnection, fences: Sequence[tuple[str, int]]) -> None:
        """Lock the fenced tables' rows until the commit; :class:`Fenced` if a token moved."""
        if not fences:
            return
        ids = sorted({table_id for table_id, _mine in fences})  # one lock order: no deadlock
        t = self._fences_in
        assert t is not None, "a writer given fences needs the table they are kept in"
        found = dict(
            (
                await conn.execute(
                    select(t.c.id, t.c.fence)
                    .where(t.c.id.in_(ids))
                    .order_by(t.c.id)
                    .with_for_update()
                )
            ).all()
        )
        for table_id, mine in fences:
            if found.get(table_id) != mine:
                raise Fenced(table_id, mine, found.get(table_id))


def _no_answer(e: Exception) -> bool:
    """The group failed for want of an answer from the database (a timeout, a connection
    lost), not because of one of its writes: each would fail alike, one timeout after the
    other, so none is tried again alone."""
    if isinstance(e, DBAPIError):
        return bool(e.connection_invalidated)
    return isinstance(e, (OSError, PoolTimeout, *_LOST))


def _lost() -> tuple[type[Exception], ...]:
    """The driver's errors for a connection lost (a one-statement write meets them raw)."""
    try:
        from asyncpg import exceptions
    except ImportError:  # a server on SQLite alone
        return ()
    return (exceptions.PostgresConnectionError, exceptions.InterfaceError)


_LOST = _lost()


def _default(c: Any) -> Any:
    """The Python-side default of column ``c`` (a value, or a callable's result)."""
    default = c.default
    return default.arg(None) if default.is_callable else default.arg


def _settle(done: asyncio.Future[None], error: BaseException | None) -> None:
    if done.done():  # its waiter was cancelled
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)
