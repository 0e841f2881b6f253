"""The lobby of a cluster (issue 29): a table's changed line goes on its own channel, so a node
hears (on Redis: what its listener is given, before anything it drops) only the lines its
lobby sockets show, and the new tables while it has lobby sockets; a line pushed out of a
socket's lines, or the socket closed, stops them; a line that changes between a page's read
and the node listening on it reaches the socket all the same, as does one heard while the page
is read. Nodes run in this process (each a live server in a thread) on one PostgreSQL
database and one Redis key prefix. Waits are bounded only to fail a hung test; nothing
asserts on time."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from backends import POSTGRES
from serverkit import HANG, Client, LiveServer, Socket, database, sat_event, server_settings, until
from tienlen.apps.server import lobbies
from tienlen.apps.server.cluster import Cluster
from tienlen.apps.server.lobby import listed, listed_lines

REDIS = os.environ.get("TIENLEN_TEST_REDIS_URL")
pytestmark = [
    pytest.mark.skipif(POSTGRES is None, reason="needs PostgreSQL: TIENLEN_TEST_POSTGRES_URL"),
    pytest.mark.skipif(REDIS is None, reason="needs Redis: TIENLEN_TEST_REDIS_URL"),
]

#: Every message each node's listener was given, by node id: (channel, text).
Heard = dict[str, list[tuple[str, str]]]
#: The nodes whose listeners wait on an event before they take a new table's message.
HELD: dict[str, threading.Event] = {}


@pytest.fixture
def heard(monkeypatch: pytest.MonkeyPatch) -> Iterator[Heard]:
    """What each node of the test hears on Redis (every message its listener is given)."""
    out: Heard = {}
    receive = Cluster._receive

    async def counted(self: Cluster, channel: str, data: str) -> None:
        if self.node in HELD and channel.endswith(":new"):
            await asyncio.to_thread(HELD[self.node].wait, HANG)
        out.setdefault(self.node, []).append((channel, data))
        await receive(self, channel, data)

    monkeypatch.setattr(Cluster, "_receive", counted)
    yield out
    HELD.clear()


class Site:
    """Cluster nodes on a fresh database and key prefix (new tables reach a lobby socket at
    once), what each one's listener hears, and a spy on every lobby message published."""

    def __init__(self, heard: Heard, prefix: str) -> None:
        self.heard = heard
        self.prefix = prefix
        self.nodes: list[LiveServer] = []
        self.redis = redis.Redis.from_url(str(REDIS), decode_responses=True)
        self.spy = self.redis.pubsub()
        self.spy.psubscribe(f"{prefix}line:*", f"{prefix}new")
        self.spied: list[dict[str, Any]] = []
        self.marks = 0

    def id(self, node: LiveServer) -> str:
        assert node.server is not None and node.server.cluster is not None
        return node.server.cluster.node

    def published(self, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Wait until a lobby message that passes ``test`` has been published (Redis has
        then given it to every node listening on its channel)."""
        deadline = time.monotonic() + HANG
        while True:
            for m in self.spied:
                if test(m):
                    self.spied.remove(m)
                    return m
            assert time.monotonic() < deadline, "never published"
            got = self.spy.get_message(timeout=0.1)
            if got is not None and got["type"] == "pmessage":
                self.spied.append(json.loads(got["data"]))

    def line_published(self, table: str, *, new: bool = False) -> None:
        """Wait until a change to ``table``'s line (``new``: the table) was published."""
        self.published(lambda m: (m["line"]["id"], m["new"]) == (table, new))

    def settle(self) -> None:
        """Wait until every node has heard all that was published before now: a mark on the
        site's channel, which every node hears after whatever Redis gave it before."""
        self.marks += 1
        mark = json.dumps({"op": "mark", "n": self.marks})
        self.redis.publish(f"{self.prefix}events", mark)

        def marked() -> bool:
            return all((self.prefix + "events", mark) in self.heard[self.id(n)] for n in self.nodes)

        until(marked, "every node hears the mark")

    def lines(self, node: LiveServer) -> list[tuple[str, bool]]:
        """The lobby lines a node's listener was given: (table, new) each."""
        out = []
        for _channel, text in self.heard.get(self.id(node), []):
            m = json.loads(text) if text.startswith("{") else {}
            if m.get("op") == "lobby":
                out.append((m["line"]["id"], m["new"]))
        return out

    def listening(self, *channels: str) -> list[int]:
        """How many listen on each of these channels (names after the prefix)."""
        got = self.redis.pubsub_numsub(*(self.prefix + c for c in channels))
        return [int(n) for _c, n in got]


@contextlib.contextmanager
def site(tmp: Path, heard: Heard, n: int) -> Iterator[Site]:
    prefix = f"tienlen-test-{secrets.token_hex(4)}:"
    with database("postgresql", tmp) as url:
        s = Site(heard, prefix)
        try:
            for i in range(n):
                (tmp / f"n{i}").mkdir()
                settings = server_settings(
                    url, tmp / f"n{i}", redis_url=REDIS, redis_prefix=prefix, lobby_new_every=0.0
                )
                s.nodes.append(LiveServer(settings))
            yield s
        finally:
            for node in s.nodes:
                node.close()
            s.spy.close()
            s.redis.close()


def sit(client: Client, table: str, seat: int = 0) -> Socket:
    """``client`` sits through a socket at its own node (which takes the table if nobody
    holds it)."""
    s = client.socket(table)
    s.send(type="sit", seat=seat)
    s.until(sat_event(seat))
    return s


def stand(s: Socket) -> None:
    s.send(type="stand")
    s.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "stand")


def ids(frame: dict[str, Any]) -> tuple[str, list[str]]:
    """A lobby frame's type and the ids of its tables."""
    tables = frame["tables"] if "tables" in frame else [frame["table"]]
    return frame["type"], [t["id"] for t in tables]


def test_a_node_hears_only_the_lines_its_lobby_sockets_show(tmp_path: Path, heard: Heard) -> None:
    with site(tmp_path, heard, 3) as s:
        a, b, c = s.nodes
        host = Client(a.base, "Host")
        t1, t2, t3 = (host.create(bots="random")["table"]["id"] for _ in range(3))
        lobby = host.socket("", welcome=False, limit=1, via=b.base)
        assert ids(lobby.recv()) == ("lobby", [t3])
        at = {t: sit(host, t) for t in (t1, t2, t3)}  # taken by a, whose lines go on Redis
        for t in (t1, t2, t3):
            s.line_published(t)
        assert ids(lobby.recv()) == ("lobby_table", [t3])
        s.settle()
        assert s.lines(b) == [(t3, False)]  # b shows t3 only
        assert s.lines(c) == [] and s.lines(a) == []  # no lobby socket: no lobby message
        # A new table reaches the nodes with lobby sockets; it pushes t3 out of the lobby
        # socket's one line, and b stops listening on t3's line.
        t4 = host.create(bots="random")["table"]["id"]
        assert ids(lobby.recv()) == ("lobby_new", [t4])
        until(lambda: s.listening("line:" + t3) == [0], "b stops listening on t3's line")
        stand(at[t3])
        s.line_published(t3)
        s.settle()
        assert s.lines(b) == [(t3, False), (t4, True)]
        assert s.lines(c) == [] and s.lines(a) == []
        # Two sockets at b show t4: one closed, b still hears t4's line; both, it hears
        # no lobby message at all.
        other = host.socket("", welcome=False, limit=1, via=b.base)
        assert ids(other.recv()) == ("lobby", [t4])
        other.close()
        assert b.server is not None
        hub = b.server.hub
        until(lambda: len(hub.lobby) == 1, "b sees the other socket closed")
        assert s.listening("line:" + t4, "new") == [1, 1]
        at[t4] = sit(host, t4)
        assert ids(lobby.recv()) == ("lobby_table", [t4])
        lobby.close()
        until(lambda: s.listening("line:" + t4, "new") == [0, 0], "b stops listening")
        stand(at[t4])
        s.line_published(t4)
        s.line_published(host.create(bots="random")["table"]["id"], new=True)
        s.settle()
        assert s.lines(b) == [(t3, False), (t4, True), (t4, False)]
        assert s.lines(c) == [] and s.lines(a) == []


def test_a_line_changed_while_its_page_is_read_reaches_the_socket(
    tmp_path: Path, heard: Heard, monkeypatch: pytest.MonkeyPatch
) -> None:
    with site(tmp_path, heard, 2) as s:
        a, b = s.nodes
        host, guest = Client(a.base, "Host"), Client(a.base, "Guest")
        table = host.create(bots="random")["table"]["id"]
        at = host.socket(table)  # taken by a

        def host_sits() -> None:
            at.send(type="sit", seat=0)
            at.until(sat_event(0))

        async def read(*args: Any, **kwargs: Any) -> Any:
            """The page read at b; then, before b listens on its line, the host sits: the
            line is published, and no node hears it."""
            tables = await listed(*args, **kwargs)
            assert [t.seats[0].player for t in tables] == [None]
            await asyncio.to_thread(host_sits)
            await asyncio.to_thread(s.line_published, table)
            return tables

        async def read_again(*args: Any, **kwargs: Any) -> Any:
            """The line read again at b, listening on it now: a guest sits first, which b
            hears while the page is read."""
            await asyncio.to_thread(sit, guest, table, 1)
            await asyncio.to_thread(until, lambda: s.lines(b), "b hears the guest sit")
            return await listed_lines(*args, **kwargs)

        monkeypatch.setattr(lobbies, "listed", read)
        monkeypatch.setattr(lobbies, "listed_lines", read_again)
        lobby = host.socket("", welcome=False, via=b.base)
        page = lobby.recv()
        assert ids(page) == ("lobby", [table])
        seated = [host.id, guest.id]
        assert [seat.get("player") for seat in page["tables"][0]["seats"][:2]] == seated
        after = lobby.recv()  # the guest's sit, heard while the page was read: after it
        assert ids(after) == ("lobby_table", [table])
        assert [seat.get("player") for seat in after["table"]["seats"][:2]] == seated
        s.settle()
        assert s.lines(b) == [(table, False)]  # the host's sit was never heard at b


def test_a_new_tables_line_changed_before_a_node_listens_on_it_reaches_the_socket(
    tmp_path: Path, heard: Heard
) -> None:
    with site(tmp_path, heard, 2) as s:
        a, b = s.nodes
        host = Client(a.base, "Host")
        lobby = host.socket("", welcome=False, via=b.base)
        assert ids(lobby.recv()) == ("lobby", [])
        HELD[s.id(b)] = late = threading.Event()  # b takes its time with the new table
        table = host.create(bots="random")["table"]["id"]
        s.line_published(table, new=True)
        sit(host, table)  # taken by a: the line goes out before b listens on it
        s.line_published(table)
        late.set()
        assert ids(lobby.recv()) == ("lobby_new", [table])  # (new tables go at once here)
        again = lobby.recv()  # b read the line again once it listened on it
        assert ids(again) == ("lobby_table", [table])
        assert again["table"]["seats"][0].get("player") == host.id
        s.settle()
        assert s.lines(b) == [(table, True)]  # the sit itself was never heard at b
