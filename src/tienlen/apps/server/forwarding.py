"""Forwarding, in a cluster: an action that reaches a node that does not own its table is
published to the owner's channel ``{prefix}node:{id}``; the owner makes the change and answers
on the sender's channel with success or the refusal (its code, message and reason), which
the sender gives its client. A table without an owner is taken over by the node that needs
it (see :mod:`.cluster`)."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from redis.asyncio import Redis

from .bus import DOWN
from .client_messages import ClientMessage, parse_client
from .hub import Actor, TableHost
from .limits import TokenBucket
from .tables import Refused

__all__ = ["Forwarding", "NotOwner", "Owners", "RemoteActor"]

log = logging.getLogger("tienlen.cluster")

#: Seconds between tries at an action while its table changes hands.
RETRY_WAIT = 0.1


class NotOwner(Exception):
    """This node does not own the table (any more): the action goes to its owner."""


@dataclass
class RemoteActor:
    """Who an action forwarded from another node (or a timer) is made for."""

    player: str
    name: str
    chat: TokenBucket


class Owners(Protocol):
    """What forwarding uses of its cluster node: Redis, who owns a table (as last heard),
    taking a table over, and sending to another node."""

    @property
    def node(self) -> str:
        """This node's id."""

    @property
    def redis(self) -> Redis:
        """Redis, for commands."""

    @property
    def owners(self) -> dict[str, str]:
        """The node that last published each table's events."""

    def owner_key(self, table_id: str) -> str:
        """The Redis key of a table's lease."""

    def channel(self, node: str) -> str:
        """The channel a node takes requests and answers on."""

    async def acquire(self, table_id: str) -> bool:
        """Take the table over if no node holds it."""

    def send(self, channel: str, message: Mapping[str, Any]) -> None:
        """Publish a message (in order, in the background)."""


class Forwarding:
    """A node's forwarded actions: those it sends to owners, and those it does for others."""

    def __init__(self, host: TableHost, cluster: Owners) -> None:
        self.host = host
        self.cluster = cluster
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.chat: dict[str, TokenBucket] = {}
        """Forwarded players' chat limits (at the owner)."""

    async def dispatch(
        self, actor: Actor, table_id: str, op: str, msg: ClientMessage | None
    ) -> None:
        """Make the change here if this node owns the table, else at its owner (taking the
        table over if it has none); a refusal there is raised here.

        While the table changes hands (its owner died and its lease has not run out yet),
        this waits for the new owner, up to a lease and two renewals, so that a failover
        only delays the client's action."""
        host, cluster = self.host, self.cluster
        s = host.settings
        deadline = time.monotonic() + s.lease_ttl + 2 * s.lease_renew
        while time.monotonic() < deadline:
            table = host.hub.tables.get(table_id)
            if table is None:
                raise Refused("not_found", f"no open table {table_id[:40]!r}")
            if table.fence is not None:
                try:
                    await host.perform(actor, table_id, op, msg)
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
                text = msg.model_dump_json() if msg is not None else ""
                reply = await self._request(
                    str(owner),
                    {
                        "op": "request",
                        "act": op,
                        "table": table_id,
                        "player": actor.player,
                        "name": actor.name,
                        "text": text,
                    },
                )
            except DOWN:
                raise Refused(
                    "unavailable",
                    "another server runs this table and the cluster's Redis is unreachable: "
                    "try again in a moment",
                ) from None
            if reply["ok"]:
                return
            if reply["code"] in ("not_owner", "moved"):
                cluster.owners.pop(table_id, None)  # read the lease next time
                await asyncio.sleep(RETRY_WAIT)
                continue
            refused = Refused(reply["code"], reply["message"])
            refused.reason = reply.get("reason")
            raise refused
        raise Refused("unavailable", "this table is changing servers: try again in a moment")

    async def _request(self, owner: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Send a request to ``owner`` and wait for its answer."""
        rid = secrets.token_hex(8)
        done: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[rid] = done
        try:
            payload = {**payload, "id": rid, "from": self.cluster.node}
            channel = self.cluster.channel(owner)
            heard = await self.cluster.redis.publish(channel, json.dumps(payload))
            if not heard:  # the owner is gone; its lease has not run out yet
                await asyncio.sleep(RETRY_WAIT)
                return {"ok": False, "code": "not_owner"}
            timeout = self.host.settings.forward_timeout
            try:
                return await asyncio.wait_for(done, timeout)
            except TimeoutError:
                raise Refused(
                    "unavailable",
                    f"the server running this table did not answer within {timeout:g} s: try again",
                ) from None
        finally:
            self.replies.pop(rid, None)

    def answered(self, reply: Mapping[str, Any]) -> None:
        """An owner's answer to a request this node sent."""
        done = self.replies.get(reply["id"])
        if done is not None and not done.done():
            done.set_result(dict(reply))

    async def serve(self, req: Mapping[str, Any]) -> None:
        """Do a request another node forwarded, and answer it."""
        chat = self.chat.setdefault(req["player"], TokenBucket(self.host.settings.chat))
        actor = RemoteActor(req["player"], req["name"], chat)
        reply: dict[str, Any] = {"op": "reply", "id": req["id"], "ok": True}
        try:
            msg = parse_client(req["text"]) if req["act"] == "msg" else None
            await self.host.perform(actor, req["table"], req["act"], msg)
        except NotOwner:
            reply.update(ok=False, code="not_owner")
        except Refused as e:
            reply.update(ok=False, code=e.code, message=str(e), reason=e.reason)
        except Exception as e:
            log.exception("table %s: a forwarded request failed", req["table"])
            reply.update(ok=False, code="server", message=f"the owner failed: {type(e).__name__}")
        self.cluster.send(self.cluster.channel(req["from"]), reply)
