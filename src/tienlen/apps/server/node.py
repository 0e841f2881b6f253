"""One server process (a single server, or a cluster node): its parts wired together, its
start and stop, and the way every change to a table takes: planned (:mod:`.planner`) under
the table's lock, then committed and broadcast (:mod:`.commits`); bots and timers go on
from there (:mod:`.turns`). In a cluster, a change is made by the table's owner
(:mod:`.cluster`), which drives this server through :class:`.hub.TableHost`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from concurrent.futures import Executor

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from . import idle, planner
from .admission import Admission
from .client_messages import ClientMessage
from .cluster import Cluster
from .commits import Commits
from .config import Settings
from .db import EventRow, PlayerRow, TableRow, connect, migrate
from .forwarding import NotOwner
from .health import Probe
from .hub import Actor, Client, Hub
from .identity import Identity
from .limits import TokenBucket
from .lobby import NewTable, new_table
from .messages import WelcomeMsg
from .metrics import Metrics
from .tables import Pending, Refused, Table
from .turns import Turns
from .writer import Writer

__all__ = ["Server"]

log = logging.getLogger("tienlen.server")


class Server:
    """Everything a server process holds: settings, database, identity, live tables and
    their sockets, bots and timers, and (a cluster node) its cluster."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine, self.sessions = connect(
            settings.url, timeout=settings.db_timeout, connect_timeout=settings.db_connect_timeout
        )
        self.hub = Hub()
        self.metrics = Metrics(self)
        self.writer = Writer(
            self.engine, EventRow, TableRow.__table__, timed=self.metrics.commit_seconds.observe
        )
        self.identity = Identity(settings, self.sessions, self.writer)
        self.commits = Commits(
            self.hub,
            self.writer,
            self.sessions,
            self.metrics,
            catch_up=settings.catch_up,
            changed=self.schedule,
        )
        self.turns = Turns(
            settings,
            self.hub,
            self.commits,
            self.metrics,
            dispatch=self.dispatch,
        )
        self.creations: dict[str, TokenBucket] = {}
        self.pad_buckets: dict[tuple[str, str], TokenBucket] = {}
        self.pad_locks: dict[str, asyncio.Lock] = {}
        self.schema: str | None = None
        """The schema revision migrated to (``None`` until :meth:`start` is done)."""
        self.stopping = False
        self.probes: dict[str, Probe] = {}
        """Readiness probes besides the database's (e.g. Redis), by name."""
        self.cluster = Cluster(self, settings.redis_url) if settings.redis_url else None
        """A cluster node's ownership, fan-out and forwarding (``None``: a single server)."""
        self.commits.cluster = self.cluster
        self.admission = Admission(settings, node=self.cluster.node if self.cluster else "")
        """The caps on guests, sockets and connection attempts."""

    # --- what tests and metrics read ------------------------------------------------------
    @property
    def tables(self) -> dict[str, Table]:
        """The live tables, by id."""
        return self.hub.tables

    @property
    def restoring(self) -> dict[str, int]:
        """The tables being rebuilt after a failed commit (:attr:`.hub.Hub.restoring`)."""
        return self.hub.restoring

    @property
    def key(self) -> str:
        """The token signing key."""
        return self.identity.key

    @property
    def pool(self) -> Executor:
        """The bots' worker pool."""
        return self.turns.pool

    @property
    def pool_restarts(self) -> int:
        """Times the bot pool broke and was replaced."""
        return self.turns.pool_restarts

    # --- life -----------------------------------------------------------------------------
    async def start(self) -> None:
        """Migrate the schema, load the signing key, rebuild every table (a finished one too:
        its final state can be seen and its host can start a rematch)."""
        if self.settings.database_url is None:
            self.settings.data.mkdir(parents=True, exist_ok=True)
        schema = await migrate(self.engine)
        await self.identity.load_key()
        async with self.sessions() as s:
            rows = (await s.scalars(select(TableRow))).all()
        for row in rows:
            table = await self.load(row)
            self.hub.tables[table.id] = table
            if self.cluster is not None:
                continue  # a replica until this node takes it over (see cluster.py)
            self.schedule(table)
            self.start_graces(table)
        log.info("loaded %d tables", len(rows))
        if self.cluster is not None:
            await self.cluster.start()
            self.probes["redis"] = self.cluster.ping
        self.admission.start()
        self.hub.spawn(idle.close_abandoned(self))
        self.schema = schema

    async def stop(self) -> None:
        """Stop timers and the bot pool; close the database."""
        self.stopping = True
        if self.cluster is not None:
            await self.cluster.stop()
        for task in self.hub.tasks:
            task.cancel()
        self.turns.stop()
        await self.admission.stop()
        await self.engine.dispose()

    # --- TableHost: what the cluster code uses --------------------------------------------
    async def load(self, row: TableRow) -> Table:
        """A table rebuilt from its stored events."""
        return await self.commits.load(row)

    async def events_since(self, table_id: str, since: int) -> Sequence[EventRow]:
        """A table's stored events after version ``since``, in order."""
        return await self.commits.events_since(table_id, since)

    def announce(self, table: Table, pending: list[Pending]) -> None:
        """Send committed events to the table's clients here (and the lobby its line)."""
        self.commits.announce(table, pending)

    def schedule(self, table: Table) -> None:
        """After a change: a bot's move or the turn timer (where this node runs it)."""
        self.turns.schedule(table)

    def start_graces(self, table: Table) -> None:
        """A table this node starts running: its absent seated players get their grace."""
        self.turns.start_graces(table)

    def runs(self, table: Table) -> bool:
        """Whether this node runs ``table``'s bots and timer (a cluster node: if it owns it)."""
        return self.commits.runs(table)

    # --- lobby ----------------------------------------------------------------------------
    async def create_table(self, host: PlayerRow, spec: NewTable) -> Table:
        """A new table from the host's choices, stored; the engine validates the rules."""
        bucket = self.creations.setdefault(host.id, TokenBucket(self.settings.creations))
        if not bucket.take():
            raise Refused("rate_limited", "too many tables created: wait a minute")
        table = new_table(host.id, spec)

        async def store(s: AsyncSession) -> None:
            s.add(
                TableRow(
                    id=table.id,
                    host_id=host.id,
                    config=table.config.to_dict(),
                    deal_secret=table.secret,
                    invite=table.invite,
                    status=table.status,
                )
            )
            await s.flush()

        await self.writer.write(store)
        self.hub.tables[table.id] = table
        self.hub.lobby_update(table)
        if self.cluster is not None:
            await self.cluster.created(table)
        return table

    async def find(self, table_id: str, player: str, invite: str | None) -> Table:
        """:meth:`.hub.Hub.table_for`; a cluster node first loads a table another node just
        created."""
        if self.cluster is not None and table_id not in self.hub.tables:
            await self.cluster.load(table_id)
        return self.hub.table_for(table_id, player, invite)

    # --- changes --------------------------------------------------------------------------
    async def dispatch(
        self, actor: Actor, table_id: str, op: str, msg: ClientMessage | None = None
    ) -> None:
        """:meth:`perform` here, or (a cluster node that does not own the table) at the
        owner, whose answer comes back: a :class:`Refused` is raised here as it was there."""
        if self.cluster is not None:
            await self.cluster.dispatch(actor, table_id, op, msg)
        else:
            await self.perform(actor, table_id, op, msg)

    async def perform(
        self, actor: Actor, table_id: str, op: str, msg: ClientMessage | None = None
    ) -> None:
        """Make a change at a table this node runs: ``op`` is ``"msg"`` (a client's
        message), ``"back"`` (a seated player returned), ``"offline"`` (a seated player's
        last connection closed) or ``"away"`` (a seated player's grace ran out). A cluster
        node that does not own the table raises :class:`NotOwner` and changes nothing."""
        async with self.hub.lock(table_id):
            if table_id not in self.hub.tables:
                raise Refused("not_found", f"no open table {table_id[:40]!r}")
            table = self.hub.live(table_id)
            if self.cluster is not None and table.fence is None:
                raise NotOwner(table_id)
            if op == "msg":
                assert msg is not None
                pending = planner.plan(actor, table, msg, chat_max=self.settings.chat_max)
            else:
                pending = planner.presence(table, actor.player, op, grace=self.settings.grace)
            if pending:
                await self.commits.commit(table, pending)

    async def close(self, table_id: str) -> None:
        """Close a table nobody plays at (:func:`.idle.abandoned`): its match stops."""
        async with self.hub.lock(table_id):
            table = self.hub.live(table_id)
            if self.runs(table) and idle.abandoned(table):
                await self.commits.commit(table, [planner.applied(table, Pending("closed", {}))])
                log.info("table %s: closed (only bots played it, and nobody watched)", table_id)

    # --- a client at a table --------------------------------------------------------------
    async def sync(self, conn: Client, table_id: str, since: int | None) -> None:
        """What ``conn`` missed since version ``since`` (a replica caught up first)."""
        async with self.hub.lock(table_id):
            table = self.hub.live(table_id)
            if self.cluster is not None:
                await self.cluster.refresh(table)
            await self.commits.catch_up(conn, table, since)

    async def join(self, conn: Client, table: Table, since: int | None) -> None:
        """A client opened the table's socket: welcome, catch-up, and a returning player."""
        self.turns.end_grace(table.id, conn.player)
        async with self.hub.lock(table.id):
            table = self.hub.live(table.id)
            if self.cluster is not None:
                await self.cluster.refresh(table)
            self.hub.conns.setdefault(table.id, set()).add(conn)
            table.viewers[conn.player] = table.viewers.get(conn.player, 0) + 1
            if self.cluster is not None:
                self.cluster.viewing(table)
            seat = table.seat_of(conn.player)
            conn.send(
                WelcomeMsg(
                    player=conn.player,
                    name=conn.name,
                    table=table.id,
                    seat=seat,
                    version=table.version,
                    now=round(time.time(), 3),
                )
            )
            await self.commits.catch_up(conn, table, since)
            away = seat is not None and (
                table.seats[seat].away or table.seats[seat].grace_until is not None
            )
        if away:
            try:
                await self.dispatch(conn, table.id, "back")
            except Refused as e:  # the seat stays with its bot until the player acts again
                log.warning("table %s: %s's return not recorded: %s", table.id, conn.player, e)

    def leave(self, conn: Client, table: Table) -> None:
        """A client closed the table's socket: a seated player keeps the seat for the grace
        period."""
        self.hub.conns.get(table.id, set()).discard(conn)
        left = table.viewers.get(conn.player, 1) - 1
        if left:
            table.viewers[conn.player] = left
        else:
            table.viewers.pop(conn.player, None)
        if self.cluster is not None:
            self.cluster.viewing(table)
        seat = table.seat_of(conn.player)
        if seat is not None and table.status == "playing" and not left:
            self.turns.start_grace(table, seat, conn.player)
