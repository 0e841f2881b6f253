"""The server's settings (the ``tienlen serve`` options, and limits tests may tighten)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .limits import Rate

__all__ = ["Settings", "default_data_dir"]


def default_data_dir() -> Path:
    """The per-user data folder: ``$XDG_DATA_HOME/tienlen`` (``~/.local/share/tienlen``)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "tienlen"


@dataclass(frozen=True)
class Settings:
    """Everything the server is configured with."""

    data: Path = field(default_factory=default_data_dir)
    database_url: str | None = None
    """``None``: SQLite in ``data``/tienlen.db; or e.g. ``postgresql+asyncpg://host/db``."""
    db_timeout: float = 5.0
    """Seconds a statement on a PostgreSQL database may take (the client stops waiting, and
    the database cancels it): an action that runs past it is refused with ``try_again``."""
    db_connect_timeout: float = 3.0
    """Seconds connecting to PostgreSQL may take, and an action may wait for a pooled
    connection. A database that stops answering gets an action its ``try_again`` within
    about ``db_connect_timeout + db_timeout``."""
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "info"
    redis_url: str | None = None
    """``None``: a single server; e.g. ``redis://host:6379/0``: a cluster node (PostgreSQL
    needed), see docs/server.md "Running a cluster"."""
    redis_prefix: str = "tienlen:"
    """Every Redis key and channel of the site starts with it (sites may share a Redis)."""
    advertise_url: str | None = None
    """The node's own base URL as a browser reaches it (e.g. ``https://example.org/node/n2``):
    a table socket opened at another node is sent here when this node owns the table
    (:mod:`.direct`); ``None``: such sockets are relayed."""
    lease_ttl: float = 5.0
    """Seconds a table's ownership lease lasts unrenewed: an owner that died is replaced
    after about this long."""
    lease_renew: float = 1.0
    """Seconds between lease renewals (well under ``lease_ttl``), and between the looks for
    tables whose owner is gone."""
    forward_timeout: float = 5.0
    """Seconds a node waits for the owner's answer to a forwarded action."""
    redis_timeout: float = 2.0
    """Seconds a Redis command (or connecting) may take before Redis counts as down."""
    redis_connections: int = 32
    """Redis connections a node opens at most for commands, per client (the cluster's, the
    admission counts'); a burst of commands beyond waits for one (up to ``redis_timeout``)
    rather than failing."""
    stop_timeout: float = 10.0
    """Seconds a node has to stop after SIGTERM: it closes its sockets (up to a third of
    it), hands its leases back and closes the database; past it the process exits at once
    (its leases then run out after ``lease_ttl``)."""
    grace: float = 20.0
    """Seconds a disconnected player keeps their seat before a bot plays for them."""
    bot_pool: str = "process"
    bot_workers: int = 2
    frame_cap: int = 4096
    """Largest client frame (bytes) the server reads; a larger one is refused."""
    transport_cap: int = 65536
    """The WebSocket layer closes the connection on a frame larger than this."""
    lobby_new_every: float = 1.0
    """Seconds a lobby socket's new tables are held, to go in one frame (0: each at once)."""
    catch_up: int = 500
    """At most this many missed events are replayed; past that, a full state resync."""
    messages: Rate = field(default_factory=lambda: Rate(100, 20.0))
    """Per connection (lichess's spirit: 100 messages per 20 s)."""
    player_messages: Rate = field(default_factory=lambda: Rate(200, 20.0))
    """Per player, over all their connections."""
    overflow: Rate = field(default_factory=lambda: Rate(20, 10.0))
    """Frames past its budget a connection may send (dropped unanswered) before it is
    closed with 1008: a client that ignores ``rate_limited`` is cut off."""
    notice_every: float = 1.0
    """Seconds between two ``rate_limited`` notices to one connection (frames dropped in
    between get no answer)."""
    sockets_per_player: int = 20
    """Sockets one player may hold open at once (tables and lobby, over every node)."""
    guests_per_address: Rate = field(default_factory=lambda: Rate(60, 3600.0))
    """Guests one client address may create."""
    connections_per_address: Rate = field(default_factory=lambda: Rate(10, 10.0))
    """Sockets one client address may try to open."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses or networks (``10.0.0.0/8``) of proxies whose ``X-Forwarded-For`` names the
    client; empty: the client is the address a request comes from, whatever it claims."""
    abandon_after: float = 60.0
    """Seconds a table whose seats are all bots may play with nobody watching before it is
    closed."""
    evict_after: float = 30.0
    """Seconds a table nobody has open, with nothing to run (finished, waiting for players,
    or every seated player away), stays in memory before it is dropped (loaded again from
    the database when next needed)."""
    chat: Rate = field(default_factory=lambda: Rate(5, 10.0))
    chat_max: int = 280
    creations: Rate = field(default_factory=lambda: Rate(10, 60.0))
    """Tables one player may create."""
    pads: Rate = field(default_factory=lambda: Rate(10, 60.0))
    """Score pads one player may create."""
    pad_edits: Rate = field(default_factory=lambda: Rate(60, 60.0))
    """Games one player may add to or delete from score pads."""
    origins: tuple[str, ...] = ()
    """Origins allowed besides the server's own (e.g. a client served elsewhere)."""
    secure_cookie: bool = False
    cookie_domain: str | None = None
    """``None``: the guest cookie is the host's own; e.g. ``example.org``: it is set for that
    domain and its subdomains, so that nodes on host names of their own share it, and pages
    of those hosts may open sockets at one another (:func:`.deps.origin_ok`)."""
    token_lifetime: float = 30 * 24 * 3600.0
    """Seconds a guest token is valid; an active browser's is renewed after half of it."""

    @cached_property
    def keepalive(self) -> dict[str, float]:
        """How a browser keeps its table socket alive (the welcome's ``keepalive``;
        docs/web-protocol.md, "Keeping alive"), from the lease and the forward timeout: 2, 5,
        5 and 20 seconds by default. A socket that answers nothing for a lease (``silent``),
        or does not open within one (``open``), is given up: by then a hung owner's lease has
        run out, and the node the page falls back to takes the table at once. A quiet socket
        is pinged after 0.4 of a lease (``ping``), so a hung owner is left in about 1.4 leases;
        never under a second, the refill of :data:`.frames.PINGS`. A relayed welcome may wait
        for a forward to time out and the lease to run out: twice that (``welcome``). Plain
        numbers, the fields of :class:`.messages.KeepAlive` (every command reads these
        settings' defaults; the message models are the server's alone)."""
        lease = self.lease_ttl
        return {
            "ping": round(max(1.0, 0.4 * lease), 3),
            "silent": lease,
            "open": lease,
            "welcome": round(2 * (lease + self.forward_timeout), 3),
        }

    @property
    def url(self) -> str:
        """The database URL in use."""
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{self.data / 'tienlen.db'}"
