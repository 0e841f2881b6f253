"""The cluster's Redis: a pool of connections for commands (a burst waits for one, up to
``redis_timeout``), one for pub/sub; the scripts the table leases are kept with; the
messages a node publishes, in order, from one queue on a connection of its own, whatever is
queued in one round trip; and the listener, which subscribes again after Redis was down. A
node listens on the site's channel (notices), its own (requests, answers, and the frames of
its clients at tables owned elsewhere), while it owns or watches a table, that table's
channel ``{prefix}t:{table}`` (presence), and for its lobby sockets (:mod:`.lobbies`): while
it has any, the new tables' channel ``{prefix}new``, and while one shows a table's line, that
line's channel ``{prefix}line:{table}``. Redis is only the signal: a message
that cannot be published is dropped, and once Redis answers again every node is told to
catch up (its clients at tables owned elsewhere ask the owner for what they missed)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError

from .config import Settings

__all__ = ["DOWN", "RELEASE", "RENEW", "SEP", "Bus", "bundle"]

log = logging.getLogger("tienlen.cluster")

#: Redis and connection failures: Redis is down or unreachable.
DOWN = (RedisError, OSError)

#: Messages published in one round trip at most.
PUBLISH_BATCH = 500

#: Between the messages of a bundle (JSON, and the frames a relay passes on, which are JSON,
#: have no raw control character).
SEP = "\x1e"

#: A message to publish: its channel, its text, and who waits to know how many heard it.
Outgoing = tuple[str, str, asyncio.Future[int] | None]

#: Renew each lease this node holds, or take it again if Redis lost it (restarted empty):
#: 1 per key still ours, 0 per key another node holds now.
RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
  local v = redis.call('GET', key)
  if v == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[i] = 1
  elseif not v then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""
#: Drop the leases still ours (a clean stop: the other nodes take over at once).
RELEASE = """
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key) end
end
return 0
"""


class Bus:
    """One node's Redis connections, its outgoing queue and its subscription."""

    def __init__(self, settings: Settings, url: str, node: str) -> None:
        self.settings = settings
        self.prefix = settings.redis_prefix
        self.redis = Redis.from_pool(
            BlockingConnectionPool.from_url(
                url,
                decode_responses=True,
                max_connections=settings.redis_connections,
                timeout=settings.redis_timeout,
                socket_timeout=settings.redis_timeout,
                socket_connect_timeout=settings.redis_timeout,
            )
        )
        # Pub/sub waits for messages as long as it takes: no read timeout.
        self.sub = Redis.from_url(
            url, decode_responses=True, socket_connect_timeout=settings.redis_timeout
        )
        self.events = f"{self.prefix}events"
        """The site's channel: notices, heard by every node."""
        self.inbox = self.channel(node)
        self.watched: set[str] = set()
        """The channels subscribed to besides those two (tables owned or watched here, the
        lobby's)."""
        self.asked = 0
        """Changes of subscription asked for so far (:meth:`barrier` counts on it)."""
        self._pongs: dict[str, asyncio.Future[None]] = {}
        self.pubsub: Any = None
        """The subscription, while there is one."""
        pool = self.redis.connection_pool
        self.publisher = pool.connection_class(**pool.connection_kwargs)
        """The connection the outbox is published on, held by :meth:`publishing` alone: a
        pipeline through the pool cost some 200 us of CPU a round trip here, most of it the
        pool's checkout and the client's wrappers, and a node publishes a few per action."""
        self.outbox: asyncio.Queue[Outgoing] = asyncio.Queue()
        self.subscribed = asyncio.Event()
        self._changes: set[asyncio.Task[None]] = set()
        self.dropped = False
        """A message could not be published: the others are told to read the log."""

    def channel(self, node: str) -> str:
        """The channel a node takes requests and answers on."""
        return f"{self.prefix}node:{node}"

    def table_channel(self, table_id: str) -> str:
        """A table's channel: presence (who watches it through which node)."""
        return f"{self.prefix}t:{table_id}"

    def lobby_channel(self, table_id: str | None) -> str:
        """The channel a table's lobby line goes on when it changes (``None``: the new
        tables')."""
        return f"{self.prefix}new" if table_id is None else f"{self.prefix}line:{table_id}"

    def watch(self, table_id: str) -> None:
        """Listen on the table's channel (now, and after every resubscription)."""
        self.listen(self.table_channel(table_id))

    def unwatch(self, table_id: str) -> None:
        """Stop listening on the table's channel."""
        self.unlisten(self.table_channel(table_id))

    def listen(self, channel: str) -> None:
        """Listen on ``channel`` (now, and after every resubscription)."""
        if channel not in self.watched:
            self.watched.add(channel)
            self._spawn_sub("subscribe", channel)

    def unlisten(self, channel: str) -> None:
        """Stop listening on ``channel``."""
        if channel in self.watched:
            self.watched.discard(channel)
            self._spawn_sub("unsubscribe", channel)

    async def barrier(self) -> int | None:
        """Wait until Redis has made every change of subscription asked for so far (it
        answers a ping on the subscription after them); how many there were (``None``: not
        known, Redis is down or slow)."""
        mark, wait = self.asked, self.settings.redis_timeout
        if self._changes:  # (each sends its command, in order)
            _done, sending = await asyncio.wait(set(self._changes), timeout=wait)
            if sending:
                return None
        pubsub, token = self.pubsub, secrets.token_hex(8)
        if pubsub is None:
            return None
        pong = self._pongs[token] = asyncio.get_running_loop().create_future()
        try:
            await pubsub.ping(token)
            await asyncio.wait_for(pong, wait)
        except (*DOWN, TimeoutError):
            return None
        finally:
            del self._pongs[token]
        return mark

    def _spawn_sub(self, verb: str, channel: str) -> None:
        self.asked += 1
        pubsub = self.pubsub
        if pubsub is None:
            return  # the next subscription takes every watched channel

        async def change() -> None:
            with contextlib.suppress(*DOWN):
                await getattr(pubsub, verb)(channel)

        task = asyncio.get_running_loop().create_task(change())
        self._changes.add(task)
        task.add_done_callback(self._changes.discard)

    def send(
        self,
        channel: str,
        message: Mapping[str, Any] | str,
        heard: asyncio.Future[int] | None = None,
    ) -> None:
        """Publish ``message`` on ``channel`` after what is queued already (as JSON; text
        as it is); ``heard``, if given, is then set to how many listened on the channel (or
        to the error if Redis is down)."""
        text = message if isinstance(message, str) else json.dumps(message)
        self.outbox.put_nowait((channel, text, heard))

    async def publishing(self) -> None:
        """Publish the queued messages in order, so a table's batches keep their order:
        whatever is queued (up to :data:`PUBLISH_BATCH`) in one round trip however many
        there are (a burst of answers does not wait a round trip each), what goes to one
        node as one message (:func:`bundle`; the listener splits it).

        What cannot be published is dropped; once Redis answers again, every node is told
        to catch up (its relayed clients ask their owners for what they missed; a node whose
        own connection did not break would not know to)."""
        while True:
            batch = [await self.outbox.get()]
            while len(batch) < PUBLISH_BATCH and not self.outbox.empty():
                batch.append(self.outbox.get_nowait())
            conn = self.publisher
            try:
                await self.tell_resync()
                bundles = bundle(batch, self.channel(""))
                commands = [("PUBLISH", channel, data) for channel, data, _ in bundles]
                await conn.send_packed_command(conn.pack_commands(commands), check_health=False)
                for _, _, waiting in bundles:
                    count = await conn.read_response()
                    for heard in waiting:
                        if not heard.done():
                            heard.set_result(int(count))
            except DOWN as e:
                self.dropped = True
                log.debug("publish: Redis is down (%s); the others will read the log", e)
                _fail(batch, e)
                with contextlib.suppress(*DOWN):
                    await conn.disconnect()  # (the replies not read: the next batch reconnects)
            except Exception as e:  # it must go on publishing
                self.dropped = True
                log.exception("publish failed")
                _fail(batch, e)
            finally:
                for _ in batch:
                    self.outbox.task_done()

    async def tell_resync(self) -> None:
        """If a message was dropped: tell every node to read the log."""
        if self.dropped:
            await self.redis.publish(self.events, json.dumps({"op": "resync"}))
            self.dropped = False

    async def listening(
        self, receive: Callable[[str, str], Awaitable[None]], back: Callable[[], None]
    ) -> None:
        """Give each message on the events channel and the inbox to ``receive``,
        subscribing again after Redis was down (then ``back`` is called: the node catches
        up)."""
        first = True
        while True:
            pubsub = self.sub.pubsub()
            try:
                done = set(self.watched)
                await pubsub.subscribe(self.events, self.inbox, *done)
                while done != self.watched:  # (changed meanwhile)
                    extra, gone = self.watched - done, done - self.watched
                    if extra:
                        await pubsub.subscribe(*extra)
                    if gone:
                        await pubsub.unsubscribe(*gone)
                    done = (done | extra) - gone
                self.pubsub = pubsub  # (changes go to it from here on)
                while True:
                    m = await pubsub.get_message(timeout=None)
                    if m is None:
                        continue
                    if m["type"] == "message":
                        for part in m["data"].split(SEP):
                            await receive(m["channel"], part)
                    elif m["type"] == "pong" and m["data"] in self._pongs:
                        self._pongs[m["data"]].set_result(None)
                    elif m["type"] == "subscribe" and m["channel"] == self.events:
                        # Subscribed for sure now: whatever the log has from here on
                        # comes as a message, and what it had is read now.
                        self.subscribed.set()
                        if not first:
                            log.info("Redis is back: relayed clients catch up from their owners")
                            back()
                        first = False
            except DOWN as e:
                if self.subscribed.is_set():
                    log.warning("Redis is unreachable (%s): running the tables owned here", e)
                self.subscribed.clear()
                first = False
            except Exception:  # anything else: listen again (and catch up) all the same
                log.exception("listening to Redis failed")
                self.subscribed.clear()
                first = False
            finally:
                self.pubsub = None
                with contextlib.suppress(*DOWN):
                    await pubsub.aclose()
            await asyncio.sleep(self.settings.lease_renew / 2)

    async def close(self) -> None:
        """Close both connections."""
        await self.publisher.disconnect()
        await self.redis.aclose()
        await self.sub.aclose()


def _fail(batch: list[Outgoing], error: Exception) -> None:
    """Tell whoever waits on a message of ``batch`` that it was not published."""
    for _, _, heard in batch:
        if heard is not None and not heard.done():
            heard.set_exception(ConnectionError(f"not published: {error}"))


def bundle(batch: list[Outgoing], inboxes: str) -> list[tuple[str, str, list[asyncio.Future[int]]]]:
    """The messages of ``batch`` to publish, those to one node's channel (a name that starts
    with ``inboxes``) joined by :data:`SEP` into one message where only other nodes'
    channels come between: so an owner's answer to a node and the frames of the same
    commit for it are one message. Only one node hears a node's channel, so moving its
    messages past another node's changes the order no node hears; a message on any other
    channel is not passed."""
    out: list[tuple[str, str, list[asyncio.Future[int]]]] = []
    run: dict[str, tuple[list[str], list[asyncio.Future[int]]]] = {}

    def flush() -> None:
        out.extend((channel, SEP.join(texts), waiting) for channel, (texts, waiting) in run.items())
        run.clear()

    for channel, text, heard in batch:
        if not channel.startswith(inboxes):
            flush()
            out.append((channel, text, [] if heard is None else [heard]))
            continue
        texts, waiting = run.setdefault(channel, ([], []))
        texts.append(text)
        if heard is not None:
            waiting.append(heard)
    flush()
    return out
