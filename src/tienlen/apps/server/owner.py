"""What a table's owner does for the other nodes of a cluster: it answers their requests
(an action, a client opening the table, a catch-up, the table's line, a seated player's hint
or hand grouped), keeps who watches the table through each of them (presence), and sends each
committed batch to each node that watches the table, on that node's channel: the frames of
the audiences that node's clients have (each seat's own share and view, the spectators'
public one), each made once, in the text a relay sends on without parsing
(:func:`.relay.pack`).

Presence: a node with clients at a table it does not own says who they are on the table's
channel when that changes, when the owner asks (``who``, after a takeover) and every
``VIEWERS_EVERY`` lease renewals; a node not heard of for three times that is forgotten (it
died), and its seated players get their grace, as do players who closed their last socket.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any, Protocol

from .advice import ADVICE
from .client_messages import parse_client
from .commits import TABLE_KINDS
from .forwarding import NotOwner, RemoteActor
from .hub import Collector, TableHost
from .limits import TokenBucket
from .relay import audience, pack
from .tables import Pending, Refused, Table

__all__ = ["VIEWERS_EVERY", "Owner"]

log = logging.getLogger("tienlen.cluster")

#: Renewals between two publications of who watches each table through a node (and a
#: node's viewers not heard of for three times as long are forgotten).
VIEWERS_EVERY = 5


class Sender(Protocol):
    """What the owner's side uses of its cluster node: its id, the channels, the outbox."""

    @property
    def node(self) -> str:
        """This node's id."""

    def lobby_channel(self, table_id: str | None) -> str:
        """The channel a table's changed lobby line goes on (``None``: the new tables')."""

    def channel(self, node: str) -> str:
        """A node's channel."""

    def send(self, channel: str, message: Mapping[str, Any] | str) -> None:
        """Publish a message, or text as it is (in order, in the background)."""


class Owner:
    """One node's side as the owner of its tables."""

    def __init__(self, host: TableHost, sender: Sender) -> None:
        self.host = host
        self.sender = sender
        self.chat: dict[str, TokenBucket] = {}
        """Forwarded players' chat limits."""
        self.heard: dict[tuple[str, str], float] = {}
        """When each (table, other node)'s viewers were last heard of (monotonic)."""

    def _owned(self, table_id: str) -> Table:
        table = self.host.hub.tables.get(table_id)
        if table is None or table.fence is None:
            raise NotOwner(table_id)
        return table

    # --- requests -------------------------------------------------------------------------
    async def serve(self, req: Mapping[str, Any]) -> None:
        """Do a request another node sent, and answer it."""
        reply: dict[str, Any] = {"op": "reply", "id": req["id"], "ok": True}
        table_id, player = req["table"], req["player"]
        back = False
        try:
            act = req["act"]
            if act in ("open", "sync"):
                client = Collector(player, req.get("name", ""))
                table = self._owned(table_id)
                if act == "open":
                    table = self.host.hub.table_for(table_id, player, req.get("invite"))
                    back = await self.host.join(client, table, req.get("since"), via=req["from"])
                    self.heard[table_id, req["from"]] = time.monotonic()
                else:
                    await self.host.sync_here(client, table_id, req.get("since"))
                # (nothing awaited since the catch-up: the version it was made at)
                reply.update(frames=client.frames, version=table.version)
            elif act == "info":
                table = self._owned(table_id)
                info = self.host.hub.table_for(table_id, player, req.get("invite")).info()
                reply.update(answer=info.model_dump())
            elif act in ADVICE:
                reply.update(answer=ADVICE[act](self._owned(table_id), player))
            else:
                chat = self.chat.setdefault(player, TokenBucket(self.host.settings.chat))
                actor = RemoteActor(player, req.get("name", ""), chat)
                msg = parse_client(req["text"]) if act == "msg" else None
                self._owned(table_id)
                await self.host.perform(actor, table_id, act, msg)
        except NotOwner:
            reply.update(ok=False, code="not_owner")
        except Refused as e:
            reply.update(ok=False, code=e.code, message=str(e), reason=e.reason)
        except Exception as e:
            log.exception("table %s: a forwarded request failed", table_id)
            reply.update(ok=False, code="server", message=f"the owner failed: {type(e).__name__}")
        self.sender.send(self.sender.channel(req["from"]), reply)
        if back:  # after the answer: its node hears the event once its client is there
            try:
                someone = RemoteActor(
                    player, req.get("name", ""), TokenBucket(self.host.settings.chat)
                )
                await self.host.perform(someone, table_id, "back")
            except (Refused, NotOwner) as e:
                log.warning("table %s: %s's return not recorded: %s", table_id, player, e)

    # --- frames for other nodes' clients ----------------------------------------------------
    def publish(self, table: Table, pending: list[Pending]) -> None:
        """A batch committed here: its frames for the clients at other nodes (if any), each
        node sent its clients' audiences; and the table's lobby line, if it changed, on that
        line's channel (for the nodes whose lobby sockets show it, :mod:`.lobbies`)."""
        if table.remote_viewers and pending:
            seats = {
                node: {p: table.seat_of(p) for p in players}
                for node, players in table.remote_viewers.items()
            }
            wanted = {s for each in seats.values() for s in each.values()}
            frames = {audience(s): f for s, f in self.host.frames(table, pending, wanted).items()}
            first, last = pending[0].version, pending[-1].version
            for node, theirs in seats.items():
                keys = {p: audience(s) for p, s in theirs.items()}
                mine = {k: frames[k] for k in sorted(set(keys.values()))}
                text = pack(table.id, self.sender.node, first, last, keys, mine)
                self.sender.send(self.sender.channel(node), text)
        if not table.config.private and any(p.kind in TABLE_KINDS for p in pending):
            self.sender.send(
                self.sender.lobby_channel(table.id),
                {
                    "op": "lobby",
                    "node": self.sender.node,
                    "line": table.info().model_dump(),
                    "removed": table.status == "finished",
                    "new": False,
                },
            )

    # --- presence -------------------------------------------------------------------------
    def viewers(self, m: Mapping[str, Any]) -> None:
        """Who watches a table owned here through another node."""
        table = self.host.hub.tables.get(m["table"])
        if table is None or table.fence is None or m["node"] == self.sender.node:
            return
        before = table.watching()
        if m["players"]:
            table.remote_viewers[m["node"]] = frozenset(m["players"])
            self.heard[m["table"], m["node"]] = time.monotonic()
        else:
            table.remote_viewers.pop(m["node"], None)
            self.heard.pop((m["table"], m["node"]), None)
        self.changed(table, before)

    def changed(self, table: Table, before: set[str]) -> None:
        """Who watches ``table`` changed: a seated player who came ends their grace; one no
        longer watching anywhere gets theirs."""
        now = table.watching()
        for player in now - before:
            self.host.end_grace(table.id, player)
        for player in before - now:
            seat = table.seat_of(player)
            if seat is not None and table.status == "playing":
                self.host.start_grace(table, seat, player)

    def forget_stale(self, period: float) -> None:
        """Forget the viewers of nodes not heard of for three periods (gone)."""
        stale = time.monotonic() - 3 * period
        for (table_id, node), when in list(self.heard.items()):
            if when < stale:
                del self.heard[table_id, node]
                table = self.host.hub.tables.get(table_id)
                if table is not None and node in table.remote_viewers:
                    before = table.watching()
                    del table.remote_viewers[node]
                    self.changed(table, before)
