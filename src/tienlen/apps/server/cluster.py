"""A cluster node: table ownership in Redis, event fan-out, and forwarding to the owner.

``tienlen serve --redis-url ...`` (with a PostgreSQL database) makes the process a node of a
site: any number of nodes share one database and one Redis. Every node holds every table,
rebuilt from the event log; each table is *run* (its actions checked and stored, its bots and
turn timer) by exactly one node, its owner. The others hold replicas.

- **Ownership**: a lease per table, ``{prefix}owner:{table}`` = the node's id, set with
  ``SET NX PX`` (``Settings.lease_ttl``) and renewed every ``Settings.lease_renew``. A node
  that takes a table over raises the table's fencing token in PostgreSQL
  (``tables.fence``); every write of the table's events checks the token under a row lock
  (:mod:`.writer`), so an owner that lost its lease (frozen, cut off) can write nothing.
  The token lives in the database, not in a Redis counter, so a Redis that restarted empty
  cannot hand out a token already used.
- **Fan-out**: the owner publishes each committed batch of events on ``{prefix}events``;
  every node applies it to its replica and sends it to its own clients. Redis is only the
  signal: a node that sees a gap in the versions (or reconnects to Redis) reads what it
  missed from the event log, and a client's ``sync`` is answered from the log too.
- **Forwarding** (:mod:`.forwarding`): an action that reaches a node that does not own its
  table goes to the owner over Redis, and the answer comes back; a table without an owner is
  taken over by the node that needs it. Redis itself (the connections, the ordered outbox,
  the listener) is :mod:`.bus`.
- **Failover**: every node looks for tables whose lease is gone every ``lease_renew`` and
  takes them over: it raises the token, reads the log and starts the bots and turn timer.
- **Presence**: each node publishes who has each table open through it when that changes, and
  all of it every ``VIEWERS_EVERY`` renewals; a node's list not heard again for three times
  that is dropped (the node is gone), so a table's spectator count is the site's.
- **Redis down**: owners keep running their tables (the fencing token still guards every
  write); forwarding and takeovers are refused with ``unavailable``; when Redis returns, the
  owners renew their leases and every node catches its replicas up from the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
from collections.abc import Mapping, Sequence
from typing import Any

from redis.asyncio import Redis
from sqlalchemy import update

from .bus import DOWN, RELEASE, RENEW, Bus
from .client_messages import ClientMessage
from .db import TableRow
from .forwarding import Forwarding
from .hub import Actor, TableHost
from .tables import Pending, Refused, Table, merged

__all__ = ["Cluster"]

log = logging.getLogger("tienlen.cluster")

#: Tables taken over at once (each is a database transaction and a read of its log).
TAKEOVERS_AT_ONCE = 4
#: Renewals between two publications of all of a node's viewers (and a node's viewers not
#: heard of for three times as long are forgotten).
VIEWERS_EVERY = 5
#: The fields of a stored event that the nodes pass around (what a replica applies).
_ROW_FIELDS = ("version", "kind", "actor", "public", "private")


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
        """Redis: commands, the ordered outbox, the subscription."""
        self.forwarding = Forwarding(host, self)
        self.owners: dict[str, str] = {}
        """The node that last published each table's events: where its actions are sent
        first (the lease is read from Redis when that node no longer runs it)."""
        self.heard: dict[tuple[str, str], float] = {}
        """When each (table, other node)'s viewers were last heard of (monotonic)."""
        self.tasks: list[asyncio.Task[None]] = []

    @property
    def redis(self) -> Redis:
        """Redis, for commands."""
        return self.bus.redis

    def owner_key(self, table_id: str) -> str:
        """The Redis key of a table's lease."""
        return f"{self.prefix}owner:{table_id}"

    def channel(self, node: str) -> str:
        """The channel a node takes requests and answers on."""
        return self.bus.channel(node)

    def send(self, channel: str, message: Mapping[str, Any]) -> None:
        """Publish a message (after those queued before it)."""
        self.bus.send(channel, message)

    # --- life -----------------------------------------------------------------------------
    async def start(self) -> None:
        """Subscribe (waiting a little for Redis: a node also starts while it is down) and
        start renewing leases and taking over tables that have no owner."""
        loop = asyncio.get_running_loop()
        self.tasks = [
            loop.create_task(self.bus.listening(self._receive, self._back)),
            loop.create_task(self.bus.publishing()),
            loop.create_task(self._leases()),
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.bus.subscribed.wait(), self.host.settings.redis_timeout)

    async def stop(self) -> None:
        """Publish what is waiting, give back the leases this node holds and close the
        connections, each step within ``redis_timeout``: a Redis that takes connections and
        answers nothing must not hold the node's stop up (a command is tried again after a
        timeout, and a cancelled task may wait on a database that does not answer either)."""
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
        """Take the table over if no node holds its lease: raise its fencing token, read
        what its log has that this replica lacks, start its bots and timer."""
        s = self.host.settings
        taken = await self.redis.set(
            self.owner_key(table_id), self.node, nx=True, px=int(s.lease_ttl * 1000)
        )
        if not taken:
            return False
        try:
            async with self.host.engine.begin() as conn:
                token = await conn.scalar(
                    update(TableRow)
                    .where(TableRow.id == table_id)
                    .values(fence=TableRow.fence + 1)
                    .returning(TableRow.fence)
                )
            if token is None:
                raise LookupError(f"no table {table_id}")
            async with self.host.hub.lock(table_id):
                table = self.host.hub.tables.get(table_id) or await self._load_locked(table_id)
                table.fence = None  # (a lease this node had lost: what was written since)
                missed = await self.refresh(table)
                table.fence = token
                self.host.schedule(table)
                self._absent(table)
            if missed:  # a dead owner's last events may not have reached the others
                self.publish(table_id, missed)
        except Exception:
            log.exception("table %s: takeover failed; giving the lease back", table_id)
            with contextlib.suppress(*DOWN):
                key = self.owner_key(table_id)
                await self.redis.eval(RELEASE, 1, key, self.node)
            return False
        log.info("table %s: taken over by node %s (token %d)", table_id, self.node, token)
        return True

    def _absent(self, table: Table) -> None:
        """A table just taken over: its seated players connected nowhere (their node died,
        or the whole site restarted) get the grace period, then their bots play. Who watched
        through the last owner is forgotten: it died or stalled (if it lives, its next
        publication of its viewers, well within a grace period, says so again)."""
        last = self.owners.pop(table.id, None)
        if last is not None:
            table.remote_viewers.pop(last, None)
            self.heard.pop((table.id, last), None)
        self.host.start_graces(table)

    def lost(self, table: Table) -> None:
        """This node no longer owns ``table``: stop its bots and timer, free its lease if
        this node holds it still, and catch the replica up from the log."""
        if table.fence is not None:
            log.warning("table %s: node %s lost it to another node", table.id, self.node)
        table.fence = None
        self.host.schedule(table)  # cancels the timer; schedules nothing on a replica
        self.host.hub.spawn(self._catch_up(table))  # what the new owner wrote meanwhile

    async def _catch_up(self, table: Table) -> None:
        with contextlib.suppress(*DOWN):  # a lease retaken after Redis lost it: free it
            await self.redis.eval(RELEASE, 1, self.owner_key(table.id), self.node)
        async with self.host.hub.lock(table.id):
            await self.refresh(self.host.hub.tables[table.id])

    async def _leases(self) -> None:
        """Renew the leases held; take over the tables whose owner is gone."""
        s = self.host.settings
        beat = 0
        while True:
            beat += 1
            try:
                await self.bus.tell_resync()
                await self._renew()
                await self._orphans()
                if beat % VIEWERS_EVERY == 0:
                    self._viewers_beat()
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
                    self.lost(self.host.hub.tables[table.id])  # (rebuilt since, perhaps)

    async def _orphans(self) -> None:
        """Take over the unfinished tables that no node holds (a finished one is taken when
        someone acts there), a few at a time, for at most half a renewal interval: after a
        node with many tables died, this node's own leases are still renewed in time."""
        waiting = [
            t.id
            for t in self.host.hub.tables.values()
            if t.fence is None and t.status != "finished"
        ]
        if not waiting:
            return
        owners = await self.redis.mget([self.owner_key(t) for t in waiting])
        orphans = [t for t, owner in zip(waiting, owners, strict=True) if owner is None]
        random.shuffle(orphans)  # nodes looking at once spread the tables between them
        budget = time.monotonic() + self.host.settings.lease_renew / 2
        for i in range(0, len(orphans), TAKEOVERS_AT_ONCE):
            if time.monotonic() > budget:
                break  # the rest at the next look
            chunk = orphans[i : i + TAKEOVERS_AT_ONCE]
            await asyncio.gather(*(self.acquire(t) for t in chunk), return_exceptions=True)

    # --- fan-out --------------------------------------------------------------------------
    def publish(self, table_id: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Send a committed batch of events to the other nodes (in commit order; dropped if
        Redis is down: they catch up from the log)."""
        batch = [{k: r[k] for k in _ROW_FIELDS} for r in rows]
        message = {"op": "events", "table": table_id, "node": self.node, "rows": batch}
        self.bus.send(self.bus.events, message)

    def viewing(self, table: Table) -> None:
        """Who has ``table`` open through this node changed: tell the other nodes."""
        self.bus.send(
            self.bus.events,
            {"op": "viewers", "table": table.id, "node": self.node, "players": list(table.viewers)},
        )

    def _viewers_beat(self) -> None:
        """Publish every table's viewers here; forget those of nodes not heard of lately."""
        for table in self.host.hub.tables.values():
            if table.viewers:
                self.viewing(table)
        period = VIEWERS_EVERY * self.host.settings.lease_renew
        stale = time.monotonic() - 3 * period
        for (table_id, node), when in list(self.heard.items()):
            if when < stale:
                del self.heard[table_id, node]
                if table_id in self.host.hub.tables:
                    self.host.hub.tables[table_id].remote_viewers.pop(node, None)

    def _viewers(self, m: Mapping[str, Any]) -> None:
        table = self.host.hub.tables.get(m["table"])
        if table is None or m["node"] == self.node:
            return
        if m["players"]:
            table.remote_viewers[m["node"]] = frozenset(m["players"])
            self.heard[m["table"], m["node"]] = time.monotonic()
        else:
            table.remote_viewers.pop(m["node"], None)
            self.heard.pop((m["table"], m["node"]), None)

    async def created(self, table: Table) -> None:
        """A table made here: this node owns it."""
        with contextlib.suppress(*DOWN):
            await self.acquire(table.id)

    async def _load_locked(self, table_id: str) -> Table:
        async with self.host.sessions() as s:
            row = await s.get(TableRow, table_id)
        if row is None:
            raise Refused("not_found", f"no open table {table_id[:40]!r}")
        table = await self.host.load(row)
        self.host.hub.tables[table_id] = table
        self.host.hub.lobby_update(table)
        return table

    async def refresh(self, table: Table) -> list[dict[str, Any]]:
        """Bring a replica up to the log (under the table's lock): apply and send its
        clients the events it lacks; returns them."""
        if table.fence is not None:
            return []  # the owner is the log's writer: nothing is missing
        events = await self.host.events_since(table.id, table.version)
        rows = [{k: getattr(e, k) for k in _ROW_FIELDS} for e in events]
        self._apply(table, rows)
        return rows

    def _apply(self, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
        pending = []
        for r in rows:
            table.apply(r["kind"], merged(r["public"], r["private"]))
            pending.append(
                Pending(r["kind"], r["public"], r["private"], r["actor"], version=r["version"])
            )
        if not pending:
            return
        self.host.announce(table, pending)

    async def _replicate(self, table_id: str, rows: Sequence[Mapping[str, Any]]) -> None:
        if table_id not in self.host.hub.tables:
            return  # not held here: read whole from the log when needed
        async with self.host.hub.lock(table_id):
            table = self.host.hub.tables[table_id]
            if table.fence is not None:
                return  # this node's own events (or an old owner's, already in the log)
            fresh = [r for r in rows if r["version"] > table.version]
            if not fresh:
                return
            if fresh[0]["version"] != table.version + 1:
                await self.refresh(table)  # a message was missed: the log has it
            else:
                self._apply(table, fresh)

    async def _resync(self) -> None:
        """After Redis came back: catch every replica held up."""
        for table_id, table in list(self.host.hub.tables.items()):
            if table.fence is None:
                async with self.host.hub.lock(table_id):
                    await self.refresh(table)

    # --- forwarding and messages -----------------------------------------------------------
    async def dispatch(
        self, actor: Actor, table_id: str, op: str, msg: ClientMessage | None
    ) -> None:
        """Make the change here if this node owns the table, else at its owner (see
        :meth:`.forwarding.Forwarding.dispatch`)."""
        await self.forwarding.dispatch(actor, table_id, op, msg)

    def _back(self) -> None:
        """Redis is back: catch every replica up from the log."""
        self.host.hub.spawn(self._resync())

    async def _receive(self, channel: str, data: str) -> None:
        try:
            m = json.loads(data)
            if m["op"] == "events":
                self.owners[m["table"]] = m["node"]
                await self._replicate(m["table"], m["rows"])
            elif m["op"] == "viewers":
                self._viewers(m)
            elif m["op"] == "resync":
                self._back()
            elif m["op"] == "request":
                self.host.hub.spawn(self.forwarding.serve(m))
            elif m["op"] == "reply":
                self.forwarding.answered(m)
        except Exception:  # one bad message must not stop the node listening
            log.exception("cluster message on %s failed: %.200s", channel, data)
