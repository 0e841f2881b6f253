"""Direct routing, in a cluster: a table socket opened at a node that does not own the table
is sent to the owner, so that the client plays there and nothing is relayed.

A node started with ``--advertise-url`` (its base URL as a browser reaches it, e.g.
``https://example.org/node/n2``) keeps it in Redis under ``{prefix}url:{node id}``, renewed
with its leases but lasting only :data:`URL_RENEWALS` renewals, so that a node that dies
loses its URL well before its leases. A table socket opened at another node whose table
that node owns gets one :class:`.messages.MovedMsg` frame naming the owner's socket URL, and
is closed with :data:`MOVED_CLOSE`; the client opens the socket there (docs/web-protocol.md,
"Moved"). Relaying (:mod:`.relay`) stays as the fallback:

- the owner advertises no URL, or no longer does (it died: the node relaying the socket
  takes the table over once the owner's lease runs out), or Redis cannot say;
- the client asks for it (``relay=1``: it could not reach the URL it was sent to);
- the client was moved :data:`MAX_MOVES` times in a row (``moves=N``: ownership changing
  under it), which bounds the moves.

A node that loses a table it served directly (its lease ran out while it was paused) sends
its clients there a ``moved`` frame without a URL: they open the socket again where they
first opened it, and are sent to the new owner from there.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Protocol
from urllib.parse import quote, urlsplit

from redis.asyncio import Redis

from .bus import DOWN
from .hub import Client
from .messages import MovedMsg

__all__ = [
    "MAX_MOVES",
    "MOVED_CLOSE",
    "URL_RENEWALS",
    "BadAdvertiseUrl",
    "Directory",
    "advertised",
    "socket_url",
]

#: Moves a table socket follows in a row; past them the node it reached relays it.
MAX_MOVES = 2

#: The close code after a ``moved`` frame (4000 + HTTP's 307 Temporary Redirect).
MOVED_CLOSE = 4307

#: Lease renewals an advertised URL lasts unrenewed (at most a lease's time).
URL_RENEWALS = 2


class BadAdvertiseUrl(ValueError):
    """An advertised URL that is not a node's base URL."""


def advertised(text: str) -> str:
    """A node's advertised base URL, checked (``http`` or ``https``, a host, an optional
    path; no query, fragment or credentials), without a trailing ``/``."""
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (a bad port raises here)
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.query
        or parts.fragment
        or parts.username is not None
    ):
        raise BadAdvertiseUrl(
            "an advertised URL is the node's base URL as a browser reaches it, "
            f"http(s)://host[:port][/path] (e.g. https://example.org/node/n2), not {text[:80]!r}"
        )
    return text.rstrip("/")


def socket_url(base: str, table_id: str) -> str:
    """The table socket's URL (no query) at the node whose advertised URL is ``base``."""
    scheme, rest = base.split(":", 1)
    return f"{'wss' if scheme == 'https' else 'ws'}:{rest}/ws/tables/{quote(table_id, safe='')}"


class Routes(Protocol):
    """What the directory uses of its cluster node."""

    @property
    def node(self) -> str:
        """This node's id."""

    @property
    def prefix(self) -> str:
        """The site's Redis key prefix."""

    @property
    def redis(self) -> Redis:
        """Redis, for commands."""

    def owner_key(self, table_id: str) -> str:
        """The Redis key of a table's lease."""

    def owns(self, table_id: str) -> bool:
        """Whether this node owns the table now."""


class Directory:
    """The nodes' advertised URLs: this node's, kept in Redis; the others', looked up."""

    def __init__(self, cluster: Routes, url: str | None, ttl: float, renew: float) -> None:
        self.cluster = cluster
        self.url = url
        """This node's advertised base URL (``None``: its tables' clients are relayed)."""
        self.renew = renew
        self.ttl = min(ttl, URL_RENEWALS * renew)
        """Seconds this node's URL lasts unrenewed: shorter than its leases, so that for
        most of a dead node's lease time its tables' sockets are relayed, not sent to it."""

    def key(self, node: str) -> str:
        """The Redis key of a node's advertised URL."""
        return f"{self.cluster.prefix}url:{node}"

    async def advertising(self) -> None:
        """Keep this node's URL in Redis (every lease renewal; it lasts :attr:`ttl`)."""
        if self.url is None:
            return
        while True:
            with contextlib.suppress(*DOWN):
                px = int(self.ttl * 1000)
                await self.cluster.redis.set(self.key(self.cluster.node), self.url, px=px)
            await asyncio.sleep(self.renew)

    async def elsewhere(self, table_id: str) -> str | None:
        """The table socket's URL at the table's owner, if another node owns it and
        advertises a URL; ``None``: open it here (owned here, taken here, or relayed). The
        URL is read each time (not kept): its absence is how a dead owner shows first."""
        if self.cluster.owns(table_id):
            return None
        redis = self.cluster.redis
        try:
            owner = await redis.get(self.cluster.owner_key(table_id))
            if owner is None or owner == self.cluster.node:
                return None
            base = await redis.get(self.key(str(owner)))
        except DOWN:
            return None
        return None if base is None else socket_url(str(base), table_id)

    def redirect(self, conns: Iterable[Client]) -> None:
        """A table this node served lost: its clients here (if this node advertises a URL,
        so they came directly) open the socket again where they first did."""
        if self.url is not None:
            for conn in conns:
                conn.send(MovedMsg())
