"""A cluster node: table ownership in Redis, one home per table, relaying to the owner.

``tienlen serve --redis-url ...`` (with a PostgreSQL database) makes the process a node of a
site: any number of nodes share one database and one Redis. **A table has one home**: only
the node that owns it holds it in memory, applies its events and runs it (its actions
checked and stored, its bots and turn timer). Other nodes hold nothing of it.

- **Ownership**: a lease per table, ``{prefix}owner:{table}`` = the node's id, set with
  ``SET NX PX`` (``Settings.lease_ttl``) and renewed every ``Settings.lease_renew``. The node
  that first needs a table (a client opens it, an action or an HTTP read reaches it) and
  finds no lease takes it: it raises the table's fencing token in PostgreSQL
  (``tables.fence``) and loads the table from its log. Every write of the table's events
  checks the token under a row lock (:mod:`.writer`), so an owner that lost its lease
  (frozen, cut off) can write nothing. The token lives in the database, not in a Redis
  counter, so a Redis that restarted empty cannot hand out a token already used. A table
  nobody needs leaves its owner's memory and its lease is given back (:mod:`.memory`).
- **Relaying** (:mod:`.relay`, :mod:`.owner`): a client at a node that does not own its
  table is served through the owner: its frames go to the owner (:mod:`.forwarding`), and
  the owner sends each committed batch to each node that has clients there, on that node's
  channel (the frames of their audiences, as text the relay passes on unparsed); a node
  listens on a table's channel ``{prefix}t:{table}`` (presence: who watches it through
  which node) only while it owns the table or has clients there, so it hears nothing of
  other tables. A gap in the versions is filled by asking the owner.
  Relaying is the exception: a node with ``--advertise-url`` has other nodes send its
  tables' sockets to it (:mod:`.direct`), or the load balancer routes them by table id.
- **Failover**: a node with clients at a table whose lease is gone (its owner died, hangs or
  was cut off) takes it over within a renewal, loads it from the log and runs it; a request
  its owner does not answer in ``forward_timeout`` goes to whoever holds the lease then.
- **Lobby**: each table's row keeps its lobby line (the lobby is listed from the rows);
  an owner publishes a changed line on the line's channel, heard by the nodes whose lobby
  sockets show it, and the node that makes a table its first line on the new tables',
  heard by the nodes with lobby sockets (:mod:`.lobbies`, :class:`.hub.LobbyWatch`).
- **Redis down**: owners keep running their tables for the clients connected to them (the
  fencing token still guards every write; nobody can take a lease meanwhile); requests to
  other nodes' tables are refused with ``unavailable``; when Redis returns, the owners renew
  their leases (taking them again if Redis restarted empty) and relayed clients ask their
  tables' owners for what they missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import Counter
from collections.abc import Mapping
from typing import Any

from redis.asyncio import Redis
from sqlalchemy import update

from .advice import ADVICE
from .bus import DOWN, RELEASE, RENEW, Bus
from .client_messages import ClientMessage
from .db import TableRow
from .direct import Directory
from .forwarding import Forwarding
from .hub import Actor, Client, TableHost
from .messages import TableInfo
from .owner import VIEWERS_EVERY, Owner
from .relay import BATCH, Relays, unpack
from .tables import Pending, Refused, Table

__all__ = ["Cluster"]

log = logging.getLogger("tienlen.cluster")

#: Tables taken over at once (each is a database transaction and a read of its log).
TAKEOVERS_AT_ONCE = 4


class Cluster:
    """One node's side of the cluster (see the module's description)."""

    def __init__(self, host: TableHost, url: str) -> None:
        s = host.settings
        self.host = host
        """The server this node's tables live in."""
        self.node = secrets.token_hex(8)
        """This node's id (its leases' value, its channel's name)."""
        self.prefix = s.redis_prefix
        self.bus = Bus(s, url, self.node)
        """Redis: commands, the ordered outbox, the subscriptions."""
        self.forwarding = Forwarding(
            self, lease=s.lease_ttl, renew=s.lease_renew, timeout=s.forward_timeout
        )
        self.owner = Owner(host, self)
        """This node as the owner of its tables (requests, presence, frames out)."""
        self.relays = Relays(host.hub, self)
        """This node's clients at tables owned elsewhere."""
        self.directory = Directory(self, s.advertise_url, s.lease_ttl, s.lease_renew)
        """The nodes' advertised URLs, where table sockets are sent (:mod:`.direct`)."""
        self.owners: dict[str, str] = {}
        """The node each table's frames last came from (where its requests go first)."""
        self.tasks: list[asyncio.Task[None]] = []

    @property
    def redis(self) -> Redis:
        """Redis, for commands."""
        return self.bus.redis

    def lobby_channel(self, table_id: str | None) -> str:
        """The channel a table's changed lobby line goes on (``None``: the new tables')."""
        return self.bus.lobby_channel(table_id)

    def owner_key(self, table_id: str) -> str:
        """The Redis key of a table's lease."""
        return f"{self.prefix}owner:{table_id}"

    def channel(self, node: str) -> str:
        """The channel a node takes requests and answers on."""
        return self.bus.channel(node)

    def table_channel(self, table_id: str) -> str:
        """A table's channel."""
        return self.bus.table_channel(table_id)

    def send(
        self,
        channel: str,
        message: Mapping[str, Any] | str,
        heard: asyncio.Future[int] | None = None,
    ) -> None:
        """Publish a message, or text as it is (after those queued before it; ``heard``: set
        to how many listened)."""
        self.bus.send(channel, message, heard)

    def owns(self, table_id: str) -> bool:
        """Whether this node owns the table now."""
        table = self.host.hub.tables.get(table_id)
        return table is not None and table.fence is not None

    # --- life -----------------------------------------------------------------------------
    async def start(self) -> None:
        """Subscribe (waiting a little for Redis: a node also starts while it is down) and
        start renewing leases and taking over the tables its clients watch that have no
        owner."""
        loop = asyncio.get_running_loop()
        self.tasks = [
            loop.create_task(self.bus.listening(self._receive, self._back)),
            loop.create_task(self.bus.publishing()),
            loop.create_task(self._leases()),
            loop.create_task(self.directory.advertising()),
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.bus.subscribed.wait(), self.host.settings.redis_timeout)

    async def stop(self) -> None:
        """Publish what is waiting, give back the leases this node holds and close the
        connections, each step within ``redis_timeout``: a Redis that takes connections and
        answers nothing must not hold the node's stop up."""
        wait = self.host.settings.redis_timeout
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.bus.outbox.join(), wait)
        for task in self.tasks:
            task.cancel()
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=wait)
        owned = [self.owner_key(t.id) for t in self.host.hub.tables.values() if t.fence is not None]
        if owned:
            with contextlib.suppress(*DOWN):  # (a timeout is an OSError)
                await asyncio.wait_for(
                    self.redis.eval(RELEASE, len(owned), *owned, self.node), wait
                )
        for table in self.host.hub.tables.values():
            table.fence = None
        with contextlib.suppress(*DOWN):
            await asyncio.wait_for(self.bus.close(), wait)

    async def ping(self) -> None:
        """Readiness: Redis answers."""
        await self.redis.ping()

    # --- ownership ------------------------------------------------------------------------
    async def acquire(self, table_id: str) -> bool:
        """Take the table if no node holds its lease: raise its fencing token, load it from
        its log, start its bots and timer; this node's clients there are served from it
        now. :class:`Refused` if there is no such table."""
        s = self.host.settings
        key = self.owner_key(table_id)
        if not await self.redis.set(key, self.node, nx=True, px=int(s.lease_ttl * 1000)):
            return False
        try:
            async with self.host.sessions() as db, db.begin():
                token = await db.scalar(
                    update(TableRow)
                    .where(TableRow.id == table_id)
                    .values(fence=TableRow.fence + 1)
                    .returning(TableRow.fence)
                )
                row = await db.get(TableRow, table_id) if token is not None else None
            if row is None or token is None:
                raise Refused("not_found", f"no open table {table_id[:40]!r}")
            async with self.host.hub.lock(table_id):
                table = await self.host.load(row)
                table.fence = token
                here = self.host.hub.conns.get(table_id, set())
                table.viewers = dict(Counter(c.player for c in here))
                self.host.hub.tables[table_id] = table
                self.bus.watch(table_id)
                for conn, at in self.relays.seen.pop(table_id, {}).items():
                    await self.host.catch_up(conn, table, at)  # what the old owner sent not
                self.owners.pop(table_id, None)
                self.host.schedule(table)
            self.send(self.table_channel(table_id), {"op": "who", "table": table_id})
            self.host.hub.spawn(self._graces(table))
        except BaseException:
            with contextlib.suppress(*DOWN):
                await self.redis.eval(RELEASE, 1, key, self.node)
            raise
        log.info("table %s: taken by node %s (token %d)", table_id, self.node, token)
        return True

    async def _graces(self, table: Table) -> None:
        """A table just taken: once the nodes watching it had a renewal to say so, its
        seated players watching nowhere get the grace period, then their bots play."""
        await asyncio.sleep(self.host.settings.lease_renew)
        if self.host.hub.tables.get(table.id) is table and table.fence is not None:
            self.host.start_graces(table)

    def lost(self, table: Table) -> None:
        """This node no longer owns ``table``: it leaves memory (its bots and timer stop),
        its lease is freed if this node holds it still, and its clients here are relayed
        from the new owner."""
        if table.fence is not None:
            log.warning("table %s: node %s lost it to another node", table.id, self.node)
        table.fence = None
        self.host.schedule(table)  # cancels the timer
        hub = self.host.hub
        if hub.tables.get(table.id) is table:
            del hub.tables[table.id]
        here = hub.conns.get(table.id)
        if here:
            self.relays.seen[table.id] = dict.fromkeys(here, table.version)
            self.relays.say(table.id)
            self.directory.redirect(here)
        else:
            self.bus.unwatch(table.id)
        self.host.hub.spawn(self._release(table.id))

    async def _release(self, table_id: str) -> None:
        with contextlib.suppress(*DOWN):
            await self.redis.eval(RELEASE, 1, self.owner_key(table_id), self.node)

    def evicted(self, table_id: str) -> None:
        """A table left memory (nobody needed it): its lease is given back."""
        if not self.host.hub.conns.get(table_id):
            self.bus.unwatch(table_id)
        self.host.hub.spawn(self._release(table_id))

    async def _leases(self) -> None:
        """Renew the leases held; take over the watched tables whose owner is gone."""
        s = self.host.settings
        beat = 0
        while True:
            beat += 1
            try:
                await self.bus.tell_resync()
                await self._renew()
                await self._orphans()
                if beat % VIEWERS_EVERY == 0:
                    self.relays.say_all()
                    self.owner.forget_stale(VIEWERS_EVERY * s.lease_renew)
            except DOWN as e:
                log.debug("leases: Redis is down (%s)", e)
            except Exception:
                log.exception("leases: unexpected failure")
            await asyncio.sleep(s.lease_renew)

    async def _renew(self) -> None:
        owned = [t for t in self.host.hub.tables.values() if t.fence is not None]
        if not owned:
            return
        ttl = int(self.host.settings.lease_ttl * 1000)
        keys = [self.owner_key(t.id) for t in owned]
        kept = await self.redis.eval(RENEW, len(keys), *keys, self.node, ttl)
        for table, ok in zip(owned, kept, strict=True):
            if not ok:
                async with self.host.hub.lock(table.id):
                    self.lost(table)

    async def _orphans(self) -> None:
        """Take over the tables this node's clients watch that no node holds."""
        waiting = self.relays.tables()
        if not waiting:
            return
        owners = await self.redis.mget([self.owner_key(t) for t in waiting])
        orphans = [t for t, owner in zip(waiting, owners, strict=True) if owner is None]
        for i in range(0, len(orphans), TAKEOVERS_AT_ONCE):
            chunk = orphans[i : i + TAKEOVERS_AT_ONCE]
            for t, result in zip(
                chunk,
                await asyncio.gather(*(self.acquire(t) for t in chunk), return_exceptions=True),
                strict=True,
            ):
                if isinstance(result, Exception) and not isinstance(result, DOWN):
                    log.error("table %s: takeover failed", t, exc_info=result)

    # --- what the server asks of the cluster ------------------------------------------------
    def publish(self, table: Table, pending: list[Pending]) -> None:
        """A batch committed here: to the other nodes' clients and lobbies."""
        self.owner.publish(table, pending)

    async def held(self, table_id: str) -> Table | None:
        """The table if this node owns it, taking it if nobody does; ``None`` if another
        node owns it."""
        for _ in range(3):
            table = self.host.hub.tables.get(table_id)
            if table is not None and table.fence is not None:
                return table
            try:
                owner = await self.redis.get(self.owner_key(table_id))
                if owner is None:
                    await self.acquire(table_id)
                    continue
            except DOWN:
                return None  # nobody can take it now
            if owner != self.node:
                return None
            await asyncio.sleep(0.1)
        return None

    async def open(
        self, conn: Client, table_id: str, invite: str | None, since: int | None
    ) -> None:
        """A client opened the table's socket here: joined here if this node owns the
        table, else relayed from its owner."""

        async def here() -> None:
            table = self.host.hub.table_for(table_id, conn.player, invite)
            await self.host.join(conn, table, since)

        await self.relays.open(conn, table_id, invite, since, here)

    async def sync(self, conn: Client, table_id: str, since: int | None) -> None:
        """What a client here missed since ``since``."""

        async def here() -> None:
            await self.host.sync_here(conn, table_id, since)

        await self.relays.sync(conn, table_id, since, here)

    def left(self, conn: Client, table_id: str) -> None:
        """A client here closed its socket at a table relayed here."""
        self.relays.left(conn, table_id)

    async def info(self, table_id: str, player: str, invite: str | None) -> TableInfo:
        """The table's line, from its owner (taking it if nobody owns it)."""

        def here() -> Any:
            return self.host.hub.table_for(table_id, player, invite).info().model_dump()

        request = {"act": "info", "player": player, "invite": invite}
        return TableInfo.model_validate(await self.forwarding.ask(table_id, here, request))

    async def advise(self, table_id: str, player: str, what: str) -> Any:
        """One of the seated player's helpers (:data:`.advice.ADVICE`), from the table's
        owner (taking it if nobody owns it): no node replays a table it does not own."""
        request = {"act": what, "player": player}
        return await self.forwarding.ask(
            table_id, lambda: ADVICE[what](self.host.hub.live(table_id), player), request
        )

    async def dispatch(
        self, actor: Actor, table_id: str, op: str, msg: ClientMessage | None
    ) -> None:
        """Make the change here if this node owns the table, else at its owner."""

        async def here() -> None:
            await self.host.perform(actor, table_id, op, msg)

        text = msg.model_dump_json() if msg is not None else ""
        request = {"act": op, "player": actor.player, "name": actor.name, "text": text}
        await self.forwarding.route(table_id, here, request)

    # --- messages -------------------------------------------------------------------------
    def _back(self) -> None:
        """Redis is back: every relayed client asks its owner for what it missed."""
        for table_id, seen in self.relays.seen.items():
            for conn, at in list(seen.items()):
                self._pull(table_id, conn, at)

    def _pull(self, table_id: str, conn: Client, since: int) -> None:
        async def here() -> None:
            await self.host.sync_here(conn, table_id, since)

        self.host.hub.spawn(self.relays.pull(table_id, conn, since, here))

    async def _receive(self, channel: str, data: str) -> None:
        try:
            if data.startswith(BATCH):
                self.relays.frames(unpack(data), self._pull)
                return
            m = json.loads(data)
            op = m["op"]
            if op == "viewers":
                self.owner.viewers(m)
            elif op == "who":
                if m["table"] in self.relays.seen:
                    self.relays.say(m["table"])
            elif op == "lobby":
                if m["node"] != self.node:
                    # (a node of an older release sends no "new": its new tables show on reload)
                    new = m.get("new", False)
                    if self.host.hub.lobby_hears(m["line"]["id"], new):  # (else not read)
                        line = TableInfo.model_validate(m["line"])
                        self.host.hub.lobby_line(line, m["removed"], new=new)
            elif op == "resync":
                self._back()
            elif op == "request":
                self.host.hub.spawn(self.owner.serve(m))
            elif op == "reply":
                self.forwarding.answered(m)
        except Exception:  # one bad message must not stop the node listening
            log.exception("cluster message on %s failed: %.200s", channel, data)
