"""Who may come in: guests and socket attempts per client address, open sockets per player.

The address caps are counted by the ``limits`` library (a fixed window per address: at most
``Rate.burst`` in each ``Rate.per`` seconds), in memory on a single server and in Redis for a
cluster, so they hold across nodes. A player's open sockets are counted in memory on a single
server; in a cluster each socket is an entry of a Redis sorted set per player, scored by when
it lapses, renewed by its node while it is open, so a node that dies frees its players'
sockets after :data:`SOCKET_TTL` seconds. Closed sockets are uncounted in batches, one
pipeline at a time (thousands closing at once take one round trip, not a connection each);
a batch Redis did not take is tried again at the next renewal. When Redis
does not answer, nobody is refused for it (the node serves its own clients as a single
server would).

The client address is where the request came from, unless that is one of the trusted proxies
(``Settings.trusted_proxies``): then it is the last address in ``X-Forwarded-For`` that is
not a trusted proxy.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
import logging
import math
import time
from collections.abc import Iterable, Mapping
from typing import Any

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import FixedWindowRateLimiter
from redis.asyncio import BlockingConnectionPool, Redis

from .config import Settings
from .limits import Rate, TokenBucket
from .tables import Refused

__all__ = ["SOCKET_TTL", "Admission", "client_address"]

log = logging.getLogger("tienlen.server")

#: Seconds a cluster node's count of one open socket lasts unrenewed.
SOCKET_TTL = 60.0

# Add a socket to a player's set unless it holds ARGV[3] live ones: 1 if added, else 0.
_OPEN = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
"""

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _networks(proxies: Iterable[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(p, strict=False) for p in proxies)


def client_address(
    peer: str | None, headers: Mapping[str, str], trusted: tuple[Network, ...]
) -> str:
    """The client's address: ``peer``, or behind trusted proxies the nearest address in
    ``X-Forwarded-For`` that is not one of them."""
    address = peer or "unknown"
    if not trusted or not _within(address, trusted):
        return address
    hops = [h.strip() for h in headers.get("x-forwarded-for", "").split(",") if h.strip()]
    for hop in reversed(hops):
        if not _within(hop, trusted):
            return hop[:64]
        address = hop
    return address


def _within(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in n for n in networks)


def _item(rate: Rate, name: str) -> RateLimitItem:
    return RateLimitItemPerSecond(rate.burst, max(1, math.ceil(rate.per)), namespace=name)


class Admission:
    """The caps of one server (or one cluster node; see the module's description)."""

    def __init__(self, settings: Settings, *, node: str = "") -> None:
        self.settings = settings
        self.trusted = _networks(settings.trusted_proxies)
        self._guests = _item(settings.guests_per_address, "guests")
        self._connections = _item(settings.connections_per_address, "connections")
        storage: Storage
        self.redis: Redis | None = None
        if settings.redis_url:
            options: dict[str, Any] = {
                "socket_timeout": settings.redis_timeout,
                "socket_connect_timeout": settings.redis_timeout,
            }
            storage = RedisStorage(
                "async+" + settings.redis_url,
                implementation="redispy",
                key_prefix=f"{settings.redis_prefix}limits",
                **options,
            )
            self.redis = Redis.from_pool(
                BlockingConnectionPool.from_url(
                    settings.redis_url,
                    decode_responses=True,
                    max_connections=settings.redis_connections,
                    timeout=settings.redis_timeout,
                    **options,
                )
            )
        else:
            storage = MemoryStorage()
        self._limiter = FixedWindowRateLimiter(storage)
        self._node = node
        self._ids = itertools.count()
        self.sockets: dict[str, set[str]] = {}
        """This server's open sockets, by player (each an id, unique to this node)."""
        self.buckets: dict[str, TokenBucket] = {}
        """The frame budget each player with a socket open here shares over them."""
        self._renewer: asyncio.Task[None] | None = None
        self._closed: dict[str, set[str]] = {}
        """Closed sockets not uncounted in Redis yet, by player."""
        self._failed: dict[str, set[str]] = {}
        """Closed sockets Redis did not take the uncounting of (tried again at renewals)."""
        self._uncounting = asyncio.Lock()

    # --- life -----------------------------------------------------------------------------
    def start(self) -> None:
        """Start renewing this node's socket entries (a cluster node only)."""
        if self.redis is not None:
            self._renewer = asyncio.get_running_loop().create_task(self._renew())

    async def stop(self) -> None:
        """Stop renewing; drop this node's socket entries."""
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
        if self.redis is not None:
            for player, ids in self.sockets.items():
                self._closed.setdefault(player, set()).update(ids)
            await self._uncount(retry=True)
            await self.redis.aclose()

    # --- address caps ---------------------------------------------------------------------
    def address(self, peer: str | None, headers: Mapping[str, str]) -> str:
        """The client address of a request (see :func:`client_address`)."""
        return client_address(peer, headers, self.trusted)

    async def guest(self, address: str) -> None:
        """Count a guest created from ``address``; :class:`Refused` past the cap."""
        if not await self._hit(self._guests, address):
            rate = self.settings.guests_per_address
            raise Refused(
                "rate_limited",
                f"too many guests from your address: {rate.burst} per {rate.per:g} seconds",
            )

    async def connection(self, address: str) -> None:
        """Count a socket attempt from ``address``; :class:`Refused` past the cap."""
        if not await self._hit(self._connections, address):
            rate = self.settings.connections_per_address
            raise Refused(
                "rate_limited",
                f"too many connections from your address: {rate.burst} per {rate.per:g} seconds",
            )

    async def _hit(self, item: RateLimitItem, address: str) -> bool:
        try:
            return await self._limiter.hit(item, address)
        except Exception as e:  # Redis down: nobody is refused for it
            log.warning("the address cap could not be counted: %s", type(e).__name__)
            return True

    # --- sockets per player ---------------------------------------------------------------
    async def open_socket(self, player: str) -> str:
        """Count a socket ``player`` opens; its id (for :meth:`close_socket`), or
        :class:`Refused` when the player holds the most sockets allowed."""
        cap = self.settings.sockets_per_player
        mine = self.sockets.setdefault(player, set())
        socket = f"{self._node}:{next(self._ids)}"
        allowed = len(mine) < cap
        if allowed and self.redis is not None:
            now = time.time()
            try:
                allowed = bool(
                    await self.redis.eval(
                        _OPEN,
                        1,
                        self._key(player),
                        now,
                        now + SOCKET_TTL,
                        cap,
                        socket,
                        int(SOCKET_TTL * 1000),
                    )
                )
            except Exception as e:  # Redis down: this node's own count still holds
                log.warning("the socket cap could not be counted: %s", type(e).__name__)
        if not allowed:
            if not mine:
                del self.sockets[player]
            raise Refused("too_many_sockets", f"a player may hold {cap} sockets open at once")
        mine.add(socket)
        return socket

    async def close_socket(self, player: str, socket: str) -> None:
        """A socket of ``player`` closed."""
        mine = self.sockets.get(player, set())
        mine.discard(socket)
        if not mine:
            self.sockets.pop(player, None)
            self._forget_buckets()
        if self.redis is not None:
            self._closed.setdefault(player, set()).add(socket)
            await self._uncount()

    async def _uncount(self, *, retry: bool = False) -> None:
        """Uncount the closed sockets in Redis, all of them in one pipeline; one batch at a
        time (sockets closing meanwhile wait for the next). A batch that fails is kept and
        tried again with ``retry`` (at each renewal, and at the stop); an entry no batch
        gets through lapses after :data:`SOCKET_TTL`."""
        async with self._uncounting:
            closed, self._closed = self._closed, {}
            if retry:
                for player, ids in self._failed.items():
                    closed.setdefault(player, set()).update(ids)
                self._failed = {}
            if not closed or self.redis is None:
                return
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for player, ids in closed.items():
                        pipe.zrem(self._key(player), *ids)
                    await pipe.execute()
            except Exception as e:
                for player, ids in closed.items():
                    self._failed.setdefault(player, set()).update(ids)
                log.warning(
                    "%d closed sockets could not be uncounted (tried again at the next "
                    "renewal): %s",
                    sum(map(len, closed.values())),
                    type(e).__name__,
                )

    def bucket(self, player: str) -> TokenBucket:
        """The frame budget ``player`` shares over their sockets here (kept when they close
        them all, until it has refilled: a reconnection gets no fresh budget)."""
        bucket = self.buckets.get(player)
        if bucket is None:
            bucket = self.buckets[player] = TokenBucket(self.settings.player_messages)
        return bucket

    def _forget_buckets(self) -> None:
        """Drop the buckets of players with no socket here that have refilled (looked for
        once there are more than twice as many buckets as players with sockets)."""
        if len(self.buckets) <= 2 * len(self.sockets) + 100:
            return
        for player in [p for p, b in self.buckets.items() if p not in self.sockets and b.full()]:
            del self.buckets[player]

    def _key(self, player: str) -> str:
        return f"{self.settings.redis_prefix}sockets:{player}"

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(SOCKET_TTL / 3)
            lapse = time.time() + SOCKET_TTL
            try:
                async with self.redis.pipeline(transaction=False) as pipe:  # type: ignore[union-attr]
                    for player, ids in self.sockets.items():
                        if ids:
                            pipe.zadd(self._key(player), dict.fromkeys(ids, lapse))
                            pipe.pexpire(self._key(player), int(SOCKET_TTL * 1000))
                    await pipe.execute()
            except Exception as e:
                log.warning("open sockets could not be renewed: %s", type(e).__name__)
            await self._uncount(retry=True)
