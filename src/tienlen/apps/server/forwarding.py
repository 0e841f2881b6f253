"""Forwarding, in a cluster: what a client asks at a node that does not own its table (an
action, opening the table, a catch-up) is published to the owner's channel
``{prefix}node:{id}``; the owner does it and answers on the sender's channel with success
(and the frames for the client, for an opening or a catch-up) or the refusal (its code,
message and reason), which the sender gives its client.

The owner is the table's lease in Redis (remembered from the owner's frames, read again
whenever it does not answer): a table without an owner is taken over by the node that needs
it (see :mod:`.cluster`), and a request the owner does not answer in ``forward_timeout`` goes
to whoever holds the lease then, so a hung owner delays a client only until its lease runs
out and another node takes its tables.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from redis.asyncio import Redis

from .bus import DOWN
from .limits import TokenBucket
from .tables import Refused

__all__ = ["Forwarding", "NotOwner", "Owners", "RemoteActor", "Reply"]

log = logging.getLogger("tienlen.cluster")

#: Seconds between tries at a request while its table changes hands.
RETRY_WAIT = 0.1

#: Called with the owner's answer as it is heard (before the next message is read).
Reply = Callable[[Mapping[str, Any]], None]


class NotOwner(Exception):
    """This node does not own the table (any more): the request goes to its owner."""


@dataclass
class RemoteActor:
    """Who an action forwarded from another node (or a timer) is made for."""

    player: str
    name: str
    chat: TokenBucket


class Owners(Protocol):
    """What forwarding uses of its cluster node: Redis, who owns a table (as last heard),
    whether this node owns it, taking a table over, and sending to another node."""

    @property
    def node(self) -> str:
        """This node's id."""

    @property
    def redis(self) -> Redis:
        """Redis, for commands."""

    @property
    def owners(self) -> dict[str, str]:
        """The node each table's frames last came from."""

    def owns(self, table_id: str) -> bool:
        """Whether this node owns the table now."""

    def owner_key(self, table_id: str) -> str:
        """The Redis key of a table's lease."""

    def channel(self, node: str) -> str:
        """The channel a node takes requests and answers on."""

    async def acquire(self, table_id: str) -> bool:
        """Take the table over if no node holds it (:class:`Refused` if there is none)."""

    def send(
        self,
        channel: str,
        message: Mapping[str, Any] | str,
        heard: asyncio.Future[int] | None = None,
    ) -> None:
        """Publish a message (in order, in the background; ``heard``: set to how many
        listened)."""


class Forwarding:
    """A node's requests to tables' owners, and the answers it waits for."""

    def __init__(self, cluster: Owners, *, lease: float, renew: float, timeout: float) -> None:
        self.cluster = cluster
        self.timeout = timeout
        """Seconds an owner has to answer a request."""
        self.patience = lease + timeout + 2 * renew
        """Seconds a request keeps trying while its table changes hands."""
        self.replies: dict[str, tuple[asyncio.Future[dict[str, Any]], Reply | None]] = {}

    async def route(
        self,
        table_id: str,
        here: Callable[[], Awaitable[None]],
        request: Mapping[str, Any],
        answered: Reply | None = None,
    ) -> None:
        """``here()`` if this node owns the table, else ``request`` at its owner (taking the
        table over if it has none); the owner's refusal is raised here, its answer given to
        ``answered`` as it is heard.

        While the table changes hands (its owner died or hangs and its lease has not run
        out yet), this tries again for up to a lease, a forward timeout and two renewals, so
        that a failover only delays the client."""
        cluster = self.cluster
        deadline = time.monotonic() + self.patience
        while time.monotonic() < deadline:
            if cluster.owns(table_id):
                try:
                    await here()
                    return
                except NotOwner:
                    continue
                except Refused as e:
                    if e.code != "moved":
                        raise
                    continue
            try:
                owner = cluster.owners.get(table_id) or await cluster.redis.get(
                    cluster.owner_key(table_id)
                )
                if owner is None:
                    if not await cluster.acquire(table_id):
                        await asyncio.sleep(RETRY_WAIT)  # another node took it first
                    continue
                if owner == cluster.node:  # this node is taking it over right now
                    cluster.owners.pop(table_id, None)
                    await asyncio.sleep(RETRY_WAIT)
                    continue
                reply = await self._request(str(owner), {**request, "table": table_id}, answered)
            except DOWN:
                raise Refused(
                    "unavailable",
                    "another server runs this table and the cluster's Redis is unreachable: "
                    "try again in a moment",
                ) from None
            if reply["ok"]:
                return
            if reply["code"] in ("not_owner", "moved", "timeout"):
                cluster.owners.pop(table_id, None)  # read the lease next time
                if reply["code"] != "timeout":
                    await asyncio.sleep(RETRY_WAIT)
                continue
            refused = Refused(reply["code"], reply["message"])
            refused.reason = reply.get("reason")
            raise refused
        raise Refused("unavailable", "this table is changing servers: try again in a moment")

    async def ask(self, table_id: str, here: Callable[[], Any], request: Mapping[str, Any]) -> Any:
        """``here()`` if this node owns the table, else the owner's ``answer`` to ``request``
        (routed as :meth:`route` routes a change)."""
        got: dict[str, Any] = {}

        async def local() -> None:
            got["answer"] = here()

        def answered(reply: Mapping[str, Any]) -> None:
            got["answer"] = reply["answer"]

        await self.route(table_id, local, request, answered)
        return got["answer"]

    async def _request(
        self, owner: str, payload: dict[str, Any], answered: Reply | None
    ) -> dict[str, Any]:
        """Send a request to ``owner`` and wait for its answer (``timeout``: none came)."""
        rid = secrets.token_hex(8)
        loop = asyncio.get_running_loop()
        done: asyncio.Future[dict[str, Any]] = loop.create_future()
        heard: asyncio.Future[int] = loop.create_future()
        self.replies[rid] = (done, answered)
        try:
            payload = {**payload, "op": "request", "id": rid, "from": self.cluster.node}
            # Through the outbox: in one pipeline with whatever else this node publishes.
            self.cluster.send(self.cluster.channel(owner), payload, heard)
            try:
                async with asyncio.timeout(self.timeout):
                    if not await heard:  # the owner is gone; its lease has not run out yet
                        await asyncio.sleep(RETRY_WAIT)
                        return {"ok": False, "code": "not_owner"}
                    return await done
            except TimeoutError:
                log.warning(
                    "node %s did not answer within %g s: reading the lease", owner, self.timeout
                )
                return {"ok": False, "code": "timeout"}
        finally:
            self.replies.pop(rid, None)

    def answered(self, reply: Mapping[str, Any]) -> None:
        """An owner's answer to a request this node sent (one that timed out is dropped)."""
        waiting = self.replies.pop(reply["id"], None)
        if waiting is None:
            return
        done, answered = waiting
        if done.done():
            return
        if reply["ok"] and answered is not None:
            answered(reply)
        done.set_result(dict(reply))
