"""Commit, then broadcast: a table's planned events are stored (one writer, group commits,
with the finished games and ratings they carry), then sent to every client of the table,
each seat its own share, each batch's last event with that seat's view; and catch-up: what a
(re)connecting client missed, from the event log or as a full state.

A commit that fails puts the table back to what was stored and refuses it until it is
rebuilt from the database; one fenced out (another cluster node owns the table now) hands
the table to the cluster code.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from .db import EventRow, TableRow
from .deadlines import arm_deadline
from .errors import TRY_AGAIN, database_needed
from .history import store_game
from .hub import Client, Collector, Hub
from .lobby import row_values
from .messages import EventMsg, GameView, StateMsg, TableEvent, TableInfo
from .metrics import Metrics
from .replay import replay
from .tables import Pending, Refused, Table, event_model
from .writer import Fenced, Writer

__all__ = ["Commits"]

log = logging.getLogger("tienlen.server")

#: Events after which the table's seats, status or scores may differ.
TABLE_KINDS = frozenset(
    {"sit", "stand", "start", "rematch", "deal", "game_over", "match_over", "closed"}
    | {"away", "back", "offline", "online"}
)
#: Seconds between attempts to rebuild a table from a database that does not answer.
_REBUILD_WAIT = (0.1, 2.0)


class Fanout(Protocol):
    """What commits use of a cluster node (:class:`.cluster.Cluster`)."""

    def publish(self, table: Table, pending: list[Pending]) -> None:
        """A batch committed here: to the other nodes' clients and lobbies."""

    def lost(self, table: Table) -> None:
        """This node no longer owns ``table`` (its write was fenced out)."""


class Commits:
    """Stores a node's table events and sends them to the table's clients."""

    def __init__(
        self,
        hub: Hub,
        writer: Writer,
        sessions: async_sessionmaker[AsyncSession],
        metrics: Metrics,
        *,
        catch_up: int,
        changed: Callable[[Table], None],
    ) -> None:
        self.hub = hub
        self.writer = writer
        self.sessions = sessions
        self.metrics = metrics
        self.catch_up_max = catch_up
        """At most this many missed events are replayed; past that, a full state."""
        self.changed = changed
        """Called once a table's change is committed (its bots and timer go on)."""
        self.cluster: Fanout | None = None
        """The node's cluster (fences, fan-out), if it is one."""

    async def load(self, row: TableRow) -> Table:
        """A table rebuilt from its stored events."""
        self.metrics.replays.inc()
        return replay(row, await self.events_since(row.id, 0))  # versions start at 1

    async def events_since(self, table_id: str, since: int) -> Sequence[EventRow]:
        """A table's stored events after version ``since``, in order."""
        async with self.sessions() as s:
            events: Sequence[EventRow] = (
                await s.scalars(
                    select(EventRow)
                    .where(EventRow.table_id == table_id, EventRow.version > since)
                    .order_by(EventRow.version)
                )
            ).all()
        return events

    async def commit(self, table: Table, pending: list[Pending]) -> None:
        """Store the events (and finished games, ratings), then broadcast them."""
        rows = [
            {
                "table_id": table.id,
                "version": p.version,
                "kind": p.kind,
                "actor": p.actor,
                "public": p.public,
                "private": p.private,
                "fence": table.fence or 0,
            }
            for p in pending
        ]
        # A cluster node writes only under the token it owns the table with (-1, which no
        # table has, if it owns none: nothing is written).
        fences = None
        if self.cluster is not None:
            fences = {table.id: -1 if table.fence is None else table.fence}
        # The row keeps the table's status and lobby line (the lobby is listed from rows).
        kept = row_values(table.info()) if any(p.kind in TABLE_KINDS for p in pending) else None
        games = [p.game_row for p in pending if p.game_row is not None]

        async def store(s: AsyncSession) -> None:
            for game in games:
                await store_game(s, table.id, game)
            if kept is not None:
                await s.execute(update(TableRow).where(TableRow.id == table.id).values(**kept))

        try:
            await self.writer.write(
                store if games or kept is not None else None, rows=rows, fences=fences
            )
        except Fenced:
            # Another node took the table over: this one writes nothing more for it.
            log.warning("table %s: fenced out (another node owns it now)", table.id)
            table.rollback(pending[0].version - 1)
            if self.cluster is not None:
                self.cluster.lost(table)
            raise Refused("moved", "another server runs this table now: try again") from None
        except Exception:
            self.metrics.commit_failures.inc()
            log.exception("table %s: commit failed; rebuilding it from the database", table.id)
            # Nothing of it is kept: the table goes back to what was committed, and is
            # refused until the database answers again and confirms it (or shows that the
            # commit landed after all).
            table.rollback(pending[0].version - 1)
            self.hub.restoring[table.id] = table.version
            self.hub.spawn(self._rebuild(table, pending))
            raise Refused("try_again", TRY_AGAIN) from None
        arm_deadline(table, time.time(), runs=self.runs(table))
        self.announce(table, pending)
        if self.cluster is not None:
            self.cluster.publish(table, pending)
        self.changed(table)

    async def _rebuild(self, stale: Table, failed: list[Pending]) -> None:
        """Replace a table whose commit failed by its replay from the database, once the
        database answers; then its bots and timer go on.

        Until then the table is refused (:meth:`.hub.Hub.live`): its live state holds the
        events that failed. If the commit did land after all (the connection broke after
        it), the replay holds them: they are broadcast, so no client misses them."""
        wait = _REBUILD_WAIT[0]
        while True:
            try:
                async with self.sessions() as s:
                    row = await s.get(TableRow, stale.id)
                assert row is not None
                fresh = await self.load(row)
                break
            except Exception as e:
                log.warning("table %s: cannot rebuild it yet: %s", stale.id, type(e).__name__)
                await asyncio.sleep(wait)
                wait = min(2 * wait, _REBUILD_WAIT[1])
        hub = self.hub
        async with hub.lock(stale.id):
            fresh.viewers, fresh.remote_viewers = stale.viewers, stale.remote_viewers
            fresh.fence = stale.fence
            hub.tables[stale.id] = fresh
            del hub.restoring[stale.id]
            arm_deadline(fresh, time.time(), runs=self.runs(fresh))
            if fresh.version >= failed[-1].version:
                self._broadcast(fresh, failed)
            log.info("table %s: rebuilt at version %d", stale.id, fresh.version)
            hub.lobby_update(fresh)
            self.changed(fresh)

    def runs(self, table: Table) -> bool:
        """Whether this process runs ``table``'s bots and timer (a cluster node: if it owns
        the table)."""
        return self.cluster is None or table.fence is not None

    def announce(self, table: Table, pending: list[Pending]) -> None:
        """Send committed events (committed here, or by a cluster's owner of the table) to
        the table's clients, and the table's line to the lobby if they changed it."""
        self._broadcast(table, pending)
        if any(p.kind in TABLE_KINDS for p in pending):
            self.hub.lobby_update(table)

    def frames(
        self, table: Table, pending: list[Pending], seats: set[int | None]
    ) -> dict[int | None, list[str]]:
        """A committed batch's frames for each of ``seats`` (``None``: the spectators), as
        :meth:`announce` sends them: for another node's clients."""
        views = table.views(seats)
        info = table.info() if any(p.kind in TABLE_KINDS for p in pending) else None
        public = [event_model(p.kind, p.public, {}) for p in pending]
        out = {}
        for seat in seats:
            client = Collector("")
            _send(client, seat, pending, views.get(seat), info, public)
            out[seat] = client.frames
        return out

    def _broadcast(self, table: Table, pending: list[Pending]) -> None:
        seats = {conn: table.seat_of(conn.player) for conn in self.hub.conns.get(table.id, ())}
        if not seats:
            return
        views = table.views(set(seats.values()))
        info = table.info() if any(p.kind in TABLE_KINDS for p in pending) else None
        public = [event_model(p.kind, p.public, {}) for p in pending]
        for conn, seat in seats.items():
            _send(conn, seat, pending, views.get(seat), info, public)

    async def catch_up(self, conn: Client, table: Table, since: int | None) -> None:
        """The events after ``since`` for this client's seat, or a full state (no ``since``,
        one past a gap, or the current version: the client gets the view either way).
        Called under the table's lock, so no broadcast interleaves."""
        seat = table.seat_of(conn.player)
        if since is None or not table.version - self.catch_up_max <= since < table.version:
            view = table.views([seat], history=True).get(seat)
            conn.send(StateMsg(version=table.version, table=table.info(), view=view))
            return
        with database_needed():
            events = await self.events_since(table.id, since)
        _send(conn, seat, events, table.views([seat]).get(seat), table.info())


class _Event(Protocol):
    """An event to send: a committed one, or one read from the log."""

    @property
    def kind(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def public(self) -> Mapping[str, Any]: ...
    @property
    def private(self) -> Mapping[str, Any] | None: ...


def _send(
    conn: Client,
    seat: int | None,
    events: Sequence[_Event],
    view: GameView | None,
    info: TableInfo | None,
    public: Sequence[TableEvent] | None = None,
) -> None:
    """A batch of events to one client: the last one with the seat's view and the table
    (``public``: the events as a client with no private share in them sees them, made once
    for all the clients of a broadcast)."""
    for i, e in enumerate(events):
        last = i == len(events) - 1
        share = e.private.get(str(seat)) if e.private and seat is not None else None
        if public is not None and not share:
            event = public[i]
        else:
            event = event_model(e.kind, e.public, share or {})
        conn.send(
            EventMsg(
                version=e.version,
                event=event,
                more=not last,
                view=view if last else None,
                table=info if last else None,
            )
        )
