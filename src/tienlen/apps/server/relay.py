"""Relays: a cluster node's clients at tables another node owns.

The node holds nothing of such a table: for each of its clients there it keeps only the
version that client was brought to. A client's frames go to the owner (:mod:`.forwarding`);
what the owner sends for them comes on this node's own channel (``{prefix}node:{id}``), one
message per committed batch with the frames of the audiences this node's clients have there
(each seat's, the spectators'): each client gets its audience's frames past its version. A
client that missed some (a message lost while Redis was down, a gap in the versions) asks
the owner for them, as a reconnecting client would (``sync``). The node says who its clients
there are on the table's channel ``{prefix}t:{table}``, which it listens on only while it
has clients there (:mod:`.owner` keeps who they are, and asks again there after a takeover),
so the owner sends only what is watched, and only to the nodes that watch it.

A batch's message (:func:`pack`) is text the relay reads without parsing the frames: a
marker, a small JSON header (table, owner, version range, each client's audience, the
audiences in order), then the frames one a line, each audience's in turn, one per version.
A frame is JSON as the owner's server writes it, which has no raw line break (JSON escapes
one in a string), so the relay splits the lines and sends each frame on as it is.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from .bus import Bus
from .forwarding import Forwarding, Reply
from .hub import Client, Hub
from .tables import Refused

__all__ = ["BATCH", "Batch", "Relays", "audience", "pack", "unpack"]

log = logging.getLogger("tienlen.cluster")

#: The first character of a batch's message (every other cluster message is a JSON object).
BATCH = "F"


def audience(seat: int | None) -> str:
    """The key of a seat's frames in a batch (``-``: the spectators')."""
    return "-" if seat is None else str(seat)


class Batch:
    """A batch's message as read by a relay: its header, and each audience's frames (one
    per version ``first`` to ``last``) as the owner wrote them."""

    __slots__ = ("_audiences", "_lines", "first", "last", "node", "seats", "table")

    def __init__(self, head: Mapping[str, Any], lines: list[str]) -> None:
        self.table: str = head["table"]
        self.node: str = head["node"]
        self.first: int = head["first"]
        self.last: int = head["last"]
        self.seats: dict[str, str] = head["seats"]
        """Each player's audience (whom the frames are for, at the receiving node)."""
        self._audiences: list[str] = head["audiences"]
        self._lines = lines
        if len(lines) != len(self._audiences) * (self.last - self.first + 1):
            raise ValueError(
                f"a batch of versions {self.first}-{self.last} for {self._audiences!r} "
                f"has {len(lines)} frames"
            )

    def frames(self, player: str) -> list[str] | None:
        """The frames for ``player``'s audience (``None``: none for them here)."""
        key = self.seats.get(player)
        if key is None:
            return None
        n = self.last - self.first + 1
        i = self._audiences.index(key)
        return self._lines[i * n : (i + 1) * n]


def pack(
    table_id: str,
    node: str,
    first: int,
    last: int,
    seats: Mapping[str, str],
    frames: Mapping[str, Sequence[str]],
) -> str:
    """A batch's message: versions ``first`` to ``last`` of ``table_id`` committed at
    ``node``, ``frames`` by audience (one frame per version each), ``seats`` each player's
    audience."""
    head = {
        "table": table_id,
        "node": node,
        "first": first,
        "last": last,
        "seats": seats,
        "audiences": list(frames),
    }
    lines = [line for each in frames.values() for line in each]
    return BATCH + json.dumps(head) + "\n" + "\n".join(lines)


def unpack(data: str) -> Batch:
    """A batch's message read (:class:`ValueError` if it is not one)."""
    if not data.startswith(BATCH):
        raise ValueError(f"not a batch of frames: {data[:40]!r}")
    head, _, body = data.partition("\n")
    return Batch(json.loads(head[len(BATCH) :]), body.split("\n"))


#: Does the request here (this node owns the table after all).
Here = Callable[[], Awaitable[None]]


class Relaying(Protocol):
    """What relays use of their cluster node."""

    @property
    def node(self) -> str:
        """This node's id."""

    @property
    def bus(self) -> Bus:
        """Redis."""

    @property
    def forwarding(self) -> Forwarding:
        """Requests to owners."""

    @property
    def owners(self) -> dict[str, str]:
        """The node each table's frames last came from."""

    def owns(self, table_id: str) -> bool:
        """Whether this node owns the table now."""


class Relays:
    """A node's clients at tables owned elsewhere, by table."""

    def __init__(self, hub: Hub, cluster: Relaying) -> None:
        self.hub = hub
        self.cluster = cluster
        self.seen: dict[str, dict[Client, int]] = {}
        """Per table relayed: each client's version (what it was sent up to)."""
        self.pulling: set[Client] = set()
        """Clients whose missed frames are being asked of the owner."""

    def tables(self) -> list[str]:
        """The tables relayed here."""
        return list(self.seen)

    # --- a client opens, asks, leaves -----------------------------------------------------
    async def open(
        self, conn: Client, table_id: str, invite: str | None, since: int | None, here: Here
    ) -> None:
        """Open the table for ``conn`` at its owner (or ``here()`` if this node owns it):
        the owner's welcome and catch-up are sent to it, and it hears the table from then."""
        self.cluster.bus.watch(table_id)  # before asking: no frame after the answer is missed
        seen = self.seen.setdefault(table_id, {})

        def answered(reply: Mapping[str, Any]) -> None:
            self.hub.conns.setdefault(table_id, set()).add(conn)
            seen[conn] = reply["version"]
            for frame in reply["frames"]:
                conn.send_text(frame)

        request = {"act": "open", "player": conn.player, "name": conn.name}
        try:
            await self.cluster.forwarding.route(
                table_id, here, {**request, "invite": invite, "since": since}, answered
            )
        finally:
            if not seen:
                self._drop(table_id)
        if conn in seen:
            self.say(table_id)

    async def sync(self, conn: Client, table_id: str, since: int | None, here: Here) -> None:
        """What ``conn`` missed since ``since``, from the owner (or ``here()``)."""
        request = {"act": "sync", "player": conn.player, "since": since}
        await self.cluster.forwarding.route(table_id, here, request, self._deliver(conn, table_id))

    def _deliver(self, conn: Client, table_id: str) -> Reply:
        def answered(reply: Mapping[str, Any]) -> None:
            for frame in reply["frames"]:
                conn.send_text(frame)
            seen = self.seen.get(table_id)
            if seen is not None and conn in seen:
                seen[conn] = max(seen[conn], reply["version"])

        return answered

    def left(self, conn: Client, table_id: str) -> None:
        """``conn`` closed its socket at a table relayed here."""
        seen = self.seen.get(table_id)
        if seen is None or seen.pop(conn, None) is None:
            return
        self.pulling.discard(conn)
        self.say(table_id)
        if not seen:
            self._drop(table_id)

    def _drop(self, table_id: str) -> None:
        self.seen.pop(table_id, None)
        if not self.cluster.owns(table_id):
            self.cluster.bus.unwatch(table_id)

    # --- presence -------------------------------------------------------------------------
    def say(self, table_id: str) -> None:
        """Tell the table's owner who has it open through this node."""
        seen = self.seen.get(table_id, {})
        self.cluster.bus.send(
            self.cluster.bus.table_channel(table_id),
            {
                "op": "viewers",
                "table": table_id,
                "node": self.cluster.node,
                "players": sorted({c.player for c in seen}),
            },
        )

    def say_all(self) -> None:
        """Every relayed table's viewers (the periodic beat: the owner forgets a node it
        stops hearing of)."""
        for table_id in self.seen:
            self.say(table_id)

    # --- frames from the owner ------------------------------------------------------------
    def frames(self, batch: Batch, pull: Callable[[str, Client, int], None]) -> None:
        """A batch the owner sent this node: each client here gets its audience's frames
        past its version; one that would skip versions asks for them (``pull``)."""
        table_id = batch.table
        seen = self.seen.get(table_id)
        if not seen:
            return
        self.cluster.owners[table_id] = batch.node
        first, last = batch.first, batch.last
        for conn, at in list(seen.items()):
            if conn in self.pulling or last <= at:
                continue
            frames = batch.frames(conn.player)
            if at < first - 1 or frames is None:  # a gap, or the owner does not know it yet
                pull(table_id, conn, at)
                continue
            for frame in frames[at + 1 - first :]:
                conn.send_text(frame)
            seen[conn] = last

    async def pull(self, table_id: str, conn: Client, since: int, here: Here) -> None:
        """Ask the owner what ``conn`` missed since ``since`` (frames for it meanwhile are
        left: the answer has them)."""
        if conn in self.pulling:
            return
        self.pulling.add(conn)
        try:
            await self.sync(conn, table_id, since, here)
        except Refused as e:
            log.info("table %s: catching a client up failed (%s); it asks again", table_id, e)
        finally:
            self.pulling.discard(conn)
