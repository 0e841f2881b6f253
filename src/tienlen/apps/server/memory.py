"""Which tables a process holds in memory: a table is loaded from the database (its event log
replayed) the first time it is needed (a socket opened, an HTTP read, an action), and it
leaves memory once nothing needs it for ``Settings.evict_after`` seconds: nobody has it open
here or (in a cluster) through another node, and it has nothing to run (no bot's move, turn
timer or grace pending: it is finished, waiting for players, or every seated player is away).

So a process starts without reading any event, and what it holds is what is being played.
The lobby is listed from the tables' rows (:mod:`.lobby`), not from the tables held.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from .commits import Commits
from .config import Settings
from .db import TableRow
from .errors import database_needed
from .hub import Hub
from .tables import Refused, Table
from .turns import Turns

__all__ = ["Memory"]

log = logging.getLogger("tienlen.server")


class Memory:
    """A process's tables in memory: loaded when needed, evicted when idle."""

    def __init__(
        self,
        settings: Settings,
        hub: Hub,
        sessions: async_sessionmaker[AsyncSession],
        commits: Commits,
        turns: Turns,
        *,
        loaded: Callable[[Table], None],
    ) -> None:
        self.settings = settings
        self.hub = hub
        self.sessions = sessions
        self.commits = commits
        self.turns = turns
        self.loaded = loaded
        """Called (under the table's lock) on a table just loaded: its bots, timer, graces."""
        self.loads = 0
        """Tables loaded since the start (a metric, and what tests read)."""
        self.evictions = 0
        """Tables evicted since the start."""

    async def held(self, table_id: str) -> Table:
        """The table, loaded first if it is not in memory; :class:`Refused` (``not_found``)
        if there is no such table (a name that is no table's costs one read, and no lock is
        made for it)."""
        table = self.hub.tables.get(table_id)
        if table is not None:
            return table
        with database_needed():
            async with self.sessions() as s:
                row = await s.get(TableRow, table_id)
        if row is None:
            raise Refused("not_found", f"no open table {table_id[:40]!r}")
        async with self.hub.lock(table_id):
            table = self.hub.tables.get(table_id)
            if table is None:
                table = await self.load_locked(row)
                self.loaded(table)
        return table

    async def load_locked(self, row: TableRow) -> Table:
        """Rebuild the table from its log and hold it (under its lock)."""
        with database_needed():
            table = await self.commits.load(row)
        self.hub.tables[table.id] = table
        self.loads += 1
        return table

    def unused(self, table: Table) -> bool:
        """Whether nothing needs ``table`` in memory now: nobody has it open, and it has
        nothing to run or write."""
        return (
            not self.hub.conns.get(table.id)
            and not table.remote_viewers
            and table.id not in self.hub.restoring
            and not self.turns.busy(table.id)
            and not self.hub.lock(table.id).locked()
        )

    def evict(self, table_id: str) -> bool:
        """Drop the table from memory if it is (still) unused; whether it was."""
        table = self.hub.tables.get(table_id)
        if table is None or not self.unused(table):
            return False
        del self.hub.tables[table_id]
        self.hub.conns.pop(table_id, None)
        self.hub.locks.pop(table_id, None)
        self.evictions += 1
        log.debug("table %s: left memory at version %d", table_id, table.version)
        return True

    async def sweeping(self, evicted: Callable[[str], None]) -> None:
        """Evict each table unused for ``evict_after`` seconds (looked at a few times within
        it), then call ``evicted`` with its id; runs until cancelled."""
        after = self.settings.evict_after
        every = min(max(after / 4, 0.05), 5.0)
        since: dict[str, float] = {}
        while True:
            await asyncio.sleep(every)
            now = time.monotonic()
            for table_id in list(since):
                if table_id not in self.hub.tables:
                    del since[table_id]
            for table_id, table in list(self.hub.tables.items()):
                if not self.unused(table):
                    since.pop(table_id, None)
                elif now - since.setdefault(table_id, now) >= after:
                    del since[table_id]
                    if self.evict(table_id):
                        evicted(table_id)
