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
from concurrent.futures import Executor
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from . import idle, planner
from .admission import Admission
from .advice import ADVICE
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
from .lobbies import Lobbies
from .lobby import PAGE, NewTable, bots_only, listed, new_table, row_values
from .memory import Memory
from .messages import KeepAlive, TableInfo, WelcomeMsg
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
        self.memory = Memory(
            settings, self.hub, self.sessions, self.commits, self.turns, loaded=self._loaded
        )
        """The tables held: loaded when first needed, dropped when idle."""
        self.creations: dict[str, TokenBucket] = {}
        self.pad_buckets: dict[tuple[str, str], TokenBucket] = {}
        self.pad_locks: dict[str, asyncio.Lock] = {}
        self.schema: str | None = None
        """The schema revision migrated to (``None`` until :meth:`start` is done)."""
        self.stopping = False
        self.probes: dict[str, Probe] = {}
        """Readiness probes besides the database's (e.g. Redis), by name."""
        self.advisory: set[str] = set()
        """The probes reported without making the node unready (:mod:`.health`)."""
        self.cluster = Cluster(self, settings.redis_url) if settings.redis_url else None
        """A cluster node's ownership, fan-out and forwarding (``None``: a single server)."""
        self.commits.cluster = self.cluster
        self.lobbies = Lobbies(self, self.cluster.bus) if self.cluster else None
        """A cluster node's lobby on Redis (``None``: a single server)."""
        self.hub.listener = self.lobbies
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
        """Migrate the schema and load the signing key; no table is read (each is loaded
        when first needed, :mod:`.memory`), so a start takes as long on a database of a
        million events as on an empty one."""
        if self.settings.database_url is None:
            self.settings.data.mkdir(parents=True, exist_ok=True)
        schema = await migrate(self.engine)
        await self.identity.load_key()
        if self.cluster is not None:
            await self.cluster.start()
            self.probes["redis"] = self.cluster.ping
            self.advisory.add("redis")  # it serves the tables it owns while Redis is down
        evicted = self.cluster.evicted if self.cluster is not None else None
        self.hub.spawn(self.memory.sweeping(evicted or (lambda _table_id: None)))
        self.admission.start()
        self.hub.spawn(idle.close_abandoned(self))
        self.hub.spawn(idle.wake_abandoned(self))
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
        await self.writer.close()
        await self.engine.dispose()

    # --- TableHost: what the cluster code uses --------------------------------------------
    async def load(self, row: TableRow) -> Table:
        """A table rebuilt from its stored events."""
        return await self.commits.load(row)

    async def catch_up(self, conn: Client, table: Table, since: int) -> None:
        """The events after ``since`` for ``conn`` (under the table's lock)."""
        await self.commits.catch_up(conn, table, since)

    def frames(
        self, table: Table, pending: list[Pending], seats: set[int | None]
    ) -> dict[int | None, list[str]]:
        """A committed batch's frames for each of ``seats`` (:meth:`.commits.Commits.frames`)."""
        return self.commits.frames(table, pending, seats)

    def schedule(self, table: Table) -> None:
        """After a change: a bot's move or the turn timer (where this node runs it)."""
        self.turns.schedule(table)

    def start_graces(self, table: Table) -> None:
        """A table this node starts running: its absent seated players get their grace."""
        self.turns.start_graces(table)

    def start_grace(self, table: Table, seat: int, player: str) -> None:
        """``player`` left ``seat`` (watching nowhere now): their grace starts."""
        self.turns.start_grace(table, seat, player)

    def end_grace(self, table_id: str, player: str) -> None:
        """``player`` watches the table again: their grace (if running) ends."""
        self.turns.end_grace(table_id, player)

    def _loaded(self, table: Table) -> None:
        """A table just loaded: a single server runs it now (its absent seated players get
        their grace); a cluster node, once it owns it (:mod:`.cluster`)."""
        if self.cluster is None:
            self.schedule(table)
            self.start_graces(table)

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
                    **row_values(table.info()),
                )
            )
            await s.flush()

        await self.writer.write(store)
        self.hub.lobby_update(table, new=True)
        if self.cluster is None:
            self.hub.tables[table.id] = table
        else:  # taken by the node its first client opens it at (see cluster.py)
            self.cluster.send(
                self.cluster.lobby_channel(None),
                {
                    "op": "lobby",
                    "node": self.cluster.node,
                    "line": table.info().model_dump(),
                    "removed": False,
                    "new": True,
                },
            )
        return table

    async def listed(self, *, limit: int = PAGE, after: str | None = None) -> list[TableInfo]:
        """A page of the public tables not yet finished, newest first (:func:`.lobby.listed`)."""
        return await listed(self.sessions, self.hub.tables, limit=limit, after=after)

    async def advise(self, table_id: str, player: str, what: str) -> Any:
        """One of the seated player's helpers (:data:`.advice.ADVICE`), worked out where the
        table is held: here, loaded first if it is not in memory, or at its owner."""
        if self.cluster is not None:
            return await self.cluster.advise(table_id, player, what)
        return ADVICE[what](await self.memory.held(table_id), player)

    async def take(self, table_id: str) -> Table | None:
        """The table held here, loaded if it is not (a cluster node: taken if nobody owns
        it; ``None`` if another node does)."""
        if self.cluster is None:
            return await self.memory.held(table_id)
        return await self.cluster.held(table_id)

    async def playing_bots_only(self) -> list[str]:
        """The tables whose rows say they are played by bots only (:func:`.lobby.bots_only`)."""
        return await bots_only(self.sessions)

    async def info(self, table_id: str, player: str, invite: str | None) -> TableInfo:
        """The line of a table ``player`` may see (:meth:`.hub.Hub.table_for`), from its
        owner in a cluster."""
        if self.cluster is not None:
            return await self.cluster.info(table_id, player, invite)
        await self.memory.held(table_id)
        return self.hub.table_for(table_id, player, invite).info()

    # --- changes --------------------------------------------------------------------------
    async def dispatch(
        self, actor: Actor, table_id: str, op: str, msg: ClientMessage | None = None
    ) -> None:
        """:meth:`perform` here, or (a cluster node that does not own the table) at the
        owner, whose answer comes back: a :class:`Refused` is raised here as it was there."""
        if self.cluster is not None:
            await self.cluster.dispatch(actor, table_id, op, msg)
        else:
            await self.memory.held(table_id)
            await self.perform(actor, table_id, op, msg)

    async def perform(
        self, actor: Actor, table_id: str, op: str, msg: ClientMessage | None = None
    ) -> None:
        """Make a change at a table this node runs: ``op`` is ``"msg"`` (a client's
        message), ``"back"`` (a seated player returned), ``"offline"`` (a seated player's
        last connection closed) or ``"away"`` (a seated player's grace ran out). A cluster
        node that does not own the table raises :class:`NotOwner` and changes nothing."""
        async with self.hub.lock(table_id):
            if self.cluster is not None and not self.cluster.owns(table_id):
                raise NotOwner(table_id)
            if table_id not in self.hub.tables:
                raise Refused("not_found", f"no open table {table_id[:40]!r}")
            table = self.hub.live(table_id)
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
    async def open(
        self, conn: Client, table_id: str, invite: str | None, since: int | None
    ) -> None:
        """A client opened the table's socket: :meth:`join` here (a cluster node that does
        not own the table: relayed from its owner, :mod:`.relay`)."""
        if self.cluster is not None:
            await self.cluster.open(conn, table_id, invite, since)
            return
        await self.memory.held(table_id)
        await self.join(conn, self.hub.table_for(table_id, conn.player, invite), since)

    async def sync(self, conn: Client, table_id: str, since: int | None) -> None:
        """What ``conn`` missed since version ``since`` (from the owner, in a cluster)."""
        if self.cluster is not None:
            await self.cluster.sync(conn, table_id, since)
        else:
            await self.sync_here(conn, table_id, since)

    async def sync_here(self, conn: Client, table_id: str, since: int | None) -> None:
        """What ``conn`` missed since ``since``, at a table held here."""
        async with self.hub.lock(table_id):
            if self.cluster is not None and not self.cluster.owns(table_id):
                raise NotOwner(table_id)
            await self.commits.catch_up(conn, self.hub.live(table_id), since)

    async def join(
        self, conn: Client, table: Table, since: int | None, *, via: str | None = None
    ) -> bool:
        """A client opened a table held here (``via``: through that cluster node): welcome,
        catch-up, and a returning player (whose ``back`` is left to the caller if ``via``;
        returns whether they come back to a seat that was away)."""
        self.turns.end_grace(table.id, conn.player)
        async with self.hub.lock(table.id):
            if self.cluster is not None and not self.cluster.owns(table.id):
                raise NotOwner(table.id)
            table = self.hub.live(table.id)
            if via is None:
                self.hub.conns.setdefault(table.id, set()).add(conn)
                table.viewers[conn.player] = table.viewers.get(conn.player, 0) + 1
            else:
                table.remote_viewers[via] = table.remote_viewers.get(via, frozenset()) | {
                    conn.player
                }
            seat = table.seat_of(conn.player)
            conn.send(
                WelcomeMsg(
                    player=conn.player,
                    name=conn.name,
                    table=table.id,
                    seat=seat,
                    version=table.version,
                    now=round(time.time(), 3),
                    keepalive=KeepAlive(**self.settings.keepalive),
                )
            )
            await self.commits.catch_up(conn, table, since)
            away = seat is not None and (
                table.seats[seat].away or table.seats[seat].grace_until is not None
            )
        if away and via is None:
            try:
                await self.dispatch(conn, table.id, "back")
            except Refused as e:  # the seat stays with its bot until the player acts again
                log.warning("table %s: %s's return not recorded: %s", table.id, conn.player, e)
        return away

    def leave(self, conn: Client, table_id: str) -> None:
        """A client closed the table's socket: a seated player keeps the seat for the grace
        period."""
        self.hub.conns.get(table_id, set()).discard(conn)
        table = self.hub.tables.get(table_id)
        if self.cluster is not None and not self.cluster.owns(table_id):
            self.cluster.left(conn, table_id)
            return
        assert table is not None
        left = table.viewers.get(conn.player, 1) - 1
        if left:
            table.viewers[conn.player] = left
        else:
            table.viewers.pop(conn.player, None)
        seat = table.seat_of(conn.player)
        if seat is not None and table.status == "playing" and conn.player not in table.watching():
            self.turns.start_grace(table, seat, conn.player)

    def version_for(self, conn: Client, table_id: str) -> int | None:
        """The table's version as ``conn`` knows it (for an error frame)."""
        if table_id in self.hub.restoring:
            return self.hub.restoring[table_id]
        table = self.hub.tables.get(table_id)
        if table is not None:
            return table.version
        if self.cluster is not None:
            return self.cluster.relays.seen.get(table_id, {}).get(conn)
        return None
