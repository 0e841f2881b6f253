"""Direct routing (issue 29): nodes started with ``--advertise-url`` send a table socket that
reaches a node other than the table's owner on to the owner (one ``moved`` frame, close
4307), and the client plays there, with nothing relayed; without an advertised URL, when the
client asks (``relay=1``) or after two moves in a row, the node relays as before; when the
owner is paused past its lease or killed and another node takes the table, a client is sent
to the new owner; a client at a paused owner gives its socket up (no answer to its ping, or
no opening) and is relayed by its own node. PostgreSQL and Redis as in test_cluster.py;
waits are bounded only to fail a hung test, and nothing is asserted on time."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from serverkit import Client, Socket, sat_event, until
from test_cluster import LEASE, UNCAPPED, Driver, Node, check_record, pytestmark, site
from test_cluster_home import held, listeners
from tienlen.apps.server.direct import URL_RENEWALS

__all__ = ["pytestmark"]  # (the module's marks: PostgreSQL and Redis needed)


def socket_url(node: Node, table: str) -> str:
    """A node's table socket URL, as its advertised address makes it."""
    return f"ws://127.0.0.1:{node.port}/ws/tables/{table}"


def opened(client: Client, table: str, node: Node, *, since: int | None = None) -> Socket:
    """The table's socket opened at ``node`` as the browser opens it: on to the URL a
    ``moved`` frame names (each move checked: one frame, then the close 4307)."""
    sock = client.socket(table, since=since, welcome=False, via=node.base)
    first = sock.recv()
    moves = 0
    while first["type"] == "moved":
        with pytest.raises(ConnectionClosed):
            sock.recv()
        assert sock.conn.close_code == 4307
        moves += 1
        assert moves <= 2, "moved in a loop"
        sock = client.socket(table, since=since, welcome=False, at=first["url"], moves=moves)
        first = sock.recv()
    assert first["type"] == "welcome", first
    return sock


def moved_to(client: Client, table: str, node: Node, **query: object) -> str | None:
    """Where ``node`` sends the table's socket (``None``: it serves it, a welcome)."""
    sock = client.socket(table, welcome=False, via=node.base, **query)  # type: ignore[arg-type]
    first = sock.recv()
    sock.close()
    if first["type"] == "welcome":
        return None
    assert first["type"] == "moved", first
    return str(first["url"])


#: The browser's keep-alive (static/js/table.js) as the welcome's ``keepalive`` sets it for
#: the tests' lease: a ping after this long without a frame (0.4 of a lease, at least 1 s) ...
PING_EVERY = 1.0
#: ... and a socket that answers nothing for a lease's time (or does not open) given up.
SILENT = float(LEASE[1])


class Live:
    """A table socket kept as the browser keeps it (static/js/table.js; docs/web-protocol.md,
    "Keeping alive"): opened at its home node and moved on to the owner; pinged when quiet;
    given up when it does not open, or answers nothing for :data:`SILENT` seconds after a
    ping, and if it was at the owner, opened again relayed at the home node (``relay=1``)."""

    def __init__(self, client: Client, table: str, home: Node, url: str | None = None) -> None:
        self.client, self.table, self.home = client, table, home
        self.url = url or moved_to(client, table, home)
        """Where the home node sent it (``None``: it serves the table itself, or relays)."""
        self.given_up: list[Socket] = []
        """Sockets dropped as hung (never closed here: a hung node would not answer)."""
        self.sock = self._open_at_owner() if self.url else opened(client, table, home)

    def _open_at_owner(self) -> Socket:
        assert self.url is not None
        try:
            sock = self.client.socket(
                self.table, welcome=False, at=self.url, moves=1, open_within=SILENT, browser=True
            )
        except TimeoutError:  # not opened within the deadline: the owner hangs
            return self._relayed(0)
        first = sock.recv(timeout=SILENT)
        assert first["type"] == "welcome", first
        return sock

    def _relayed(self, since: int) -> Socket:
        sock = self.client.socket(
            self.table,
            via=self.home.base,
            relay=True,
            since=since or None,
            welcome=False,
            browser=True,
        )
        first = sock.recv()  # (a relayed welcome waits while the table changes owners)
        assert first["type"] == "welcome", first
        self.url = None
        return sock

    def ask(self, message: dict[str, Any], done: Callable[[dict[str, Any]], bool]) -> None:
        """Send ``message`` and read frames until one passes ``done``; on a socket given up,
        the message goes again on the new one (as a player acts again on the new view)."""
        self.sock.send(**message)
        waiting: float | None = None  # since when a pong is due
        while True:
            now = time.monotonic()
            wait = PING_EVERY if waiting is None else waiting + SILENT - now
            try:
                msg = self.sock.recv(timeout=max(wait, 0))
            except TimeoutError:
                if waiting is None:
                    self.sock.send(type="ping")
                    waiting = time.monotonic()
                    continue
                assert self.url is not None, "the home node hangs"
                self.given_up.append(self.sock)
                self.sock = self._relayed(self.sock.version)
                self.sock.send(**message)
                waiting = None
                continue
            waiting = None
            assert msg["type"] != "error", msg
            if done(msg):
                return


def seated(clients: list[Client], homes: list[Node], table: str) -> dict[int, Socket]:
    """Player ``i`` opens the table at ``homes[i]`` (following a move) and sits in seat i."""
    sockets = {i: opened(c, table, homes[i]) for i, c in enumerate(clients)}
    for i, sock in sockets.items():
        sock.send(type="sit", seat=i)
        sock.until(sat_event(i))
    return sockets


def test_a_socket_at_a_non_owner_is_sent_to_the_owner_and_plays_there(tmp_path: Path) -> None:
    with site(tmp_path) as s:
        nodes = s.start(2, advertise=True)
        clients = [Client(nodes[0].base, "P0"), Client(nodes[1].base, "P1")]
        table = clients[0].create(bots="greedy", games=1)["table"]["id"]
        first = opened(clients[0], table, nodes[0])  # node 0 takes the table
        assert s.owner_node(table) == 0
        keepalive = first.frames[0]["keepalive"]  # the browser's timings, from the lease
        assert keepalive["silent"] == keepalive["open"] == SILENT
        assert keepalive["ping"] == PING_EVERY
        first.close()
        assert moved_to(clients[1], table, nodes[1]) == socket_url(nodes[0], table)
        assert moved_to(clients[0], table, nodes[0]) is None  # the owner serves its own
        sockets = seated(clients, nodes, table)
        sockets[0].send(type="start")
        driver = Driver(sockets)
        driver.play()
        check_record(clients[0], driver)
        # Node 1 relayed nothing: it never held the table nor listened to its channel.
        assert held(nodes[1].base) == 0
        assert listeners(s.redis, f"{s.prefix}t:{table}") == 1


def test_a_node_relays_without_an_address_on_request_and_after_two_moves(
    tmp_path: Path,
) -> None:
    with site(tmp_path) as s:
        (plain,) = s.start(1)  # advertises no address
        (direct,) = s.start(1, advertise=True)
        host = Client(plain.base, "Host")
        here, there = (host.create(bots="random")["table"]["id"] for _ in range(2))
        host.socket(here, via=plain.base)  # owned by the plain node
        host.socket(there, via=direct.base)  # owned by the advertising one
        assert s.owner(here) == plain.id and s.owner(there) == direct.id
        guest = Client(direct.base, "Guest")
        assert moved_to(guest, here, direct) is None  # the owner has no address: relayed
        assert moved_to(guest, there, plain) == socket_url(direct, there)
        assert moved_to(guest, there, plain, relay=True) is None  # asked to be relayed
        assert moved_to(guest, there, plain, moves=1) == socket_url(direct, there)
        assert moved_to(guest, there, plain, moves=2) is None  # the bound: relayed
        # A relayed socket plays: its sit reaches the owner and comes back.
        relayed = guest.socket(there, via=plain.base, relay=True)
        assert relayed.frames[0]["keepalive"]["silent"] == SILENT  # the owner's, relayed
        relayed.send(type="sit", seat=1)
        relayed.until(sat_event(1))
        assert held(plain.base) == 1  # its own table only


def test_a_paused_owners_clients_are_sent_to_the_new_owner(tmp_path: Path) -> None:
    with site(tmp_path) as s:
        nodes = s.start(3, advertise=True)
        clients = [Client(nodes[0].base, "P0"), Client(nodes[1].base, "P1")]
        table = clients[0].create(bots="greedy", games=1)["table"]["id"]
        sockets = seated(clients, [nodes[0], nodes[1]], table)  # both at node 0, the owner
        assert s.owner_node(table) == 0
        sockets[0].send(type="start")
        driver = Driver(sockets)
        driver.play(actions=4)
        nodes[0].signal(signal.SIGSTOP)
        try:
            # A browser that could not reach node 0 falls back to its node, relayed: node 2
            # takes the table once node 0's lease runs out.
            watcher = Client(nodes[2].base, "W")
            watcher.socket(table, via=nodes[2].base, relay=True)
            until(lambda: s.owner(table) == nodes[2].id, "node 2 takes the table")
        finally:
            nodes[0].signal(signal.SIGCONT)
        # Node 0 wakes, finds its lease gone and sends its clients back where they came from.
        for seat, home in ((0, nodes[0]), (1, nodes[1])):
            old = driver.sockets[seat]
            old.until(lambda m: m["type"] == "moved" and "url" not in m)
            old.close()
            new = opened(clients[seat], table, home, since=old.version)
            new.version, new.view = old.version, old.view
            driver.sockets[seat] = new
        assert s.owner(table) == nodes[2].id
        driver.play()
        check_record(clients[0], driver)


def test_after_the_owner_is_killed_a_client_is_sent_to_the_new_owner(tmp_path: Path) -> None:
    with site(tmp_path) as s:
        nodes = s.start(3, advertise=True)
        clients = [Client(nodes[0].base, "P0"), Client(nodes[1].base, "P1")]
        table = clients[0].create(bots="greedy", games=1)["table"]["id"]
        sockets = seated(clients, [nodes[0], nodes[1]], table)
        sockets[0].send(type="start")
        driver = Driver(sockets)
        driver.play(actions=4)
        nodes[0].signal(signal.SIGKILL)
        nodes[0].proc.wait()
        watcher = Client(nodes[2].base, "W")
        watcher.socket(table, via=nodes[2].base, relay=True)  # node 2 takes the table
        until(lambda: s.owner(table) == nodes[2].id, "node 2 takes the table")
        for seat in (0, 1):  # both open it at node 1 again: sent to node 2
            old = driver.sockets[seat]
            assert moved_to(clients[seat], table, nodes[1]) == socket_url(nodes[2], table)
            new = opened(clients[seat], table, nodes[1], since=old.version)
            new.version, new.view = old.version, old.view
            driver.sockets[seat] = new
        driver.play()
        check_record(clients[1], driver)
        assert held(nodes[1].base) == 0


def test_a_paused_owners_direct_clients_fall_back_to_their_node_and_play_on(
    tmp_path: Path,
) -> None:
    """The owner is paused (SIGSTOP) while two clients are sent to it: one with its socket
    open there, one opening it. Both act: each gives its socket up (no pong; no opening) and
    opens the table relayed at its own node, where the action is done once the paused
    owner's lease runs out. Without that fallback neither would ever be answered: the owner
    stays paused until the end of the test, so a client that kept waiting (the sockets given
    up, still open) hears nothing at all, and the wait for the answer fails the test."""
    with site(tmp_path) as s:
        nodes = s.start(3, advertise=True)
        host = Client(nodes[0].base, "Host")
        table = host.create(bots="greedy", games=1)["table"]["id"]
        host.socket(table, via=nodes[0].base)  # node 0 takes the table
        assert s.owner_node(table) == 0
        guests = [Client(nodes[i].base, f"G{i}") for i in (1, 2)]
        live = Live(guests[0], table, nodes[1])  # open at the owner, directly
        assert live.url == socket_url(nodes[0], table) and not live.given_up
        sent = moved_to(guests[1], table, nodes[2])  # the other is sent there too
        assert sent == socket_url(nodes[0], table)
        live.ask({"type": "ping"}, lambda m: m["type"] == "pong")
        nodes[0].signal(signal.SIGSTOP)
        try:
            paused = time.monotonic()
            live.ask({"type": "sit", "seat": 1}, sat_event(1))
            took = time.monotonic() - paused
            (hung,) = live.given_up
            late = Live(guests[1], table, nodes[2], sent)  # the paused owner does not open it
            assert late.url is None and not late.given_up  # (opened relayed at node 2)
            late.ask({"type": "sit", "seat": 2}, sat_event(2))
            assert s.owner(table) in (nodes[1].id, nodes[2].id)
            with pytest.raises(TimeoutError):  # the hung socket: still not a word
                hung.recv(timeout=0)
            print(
                f"\nthe paused owner's direct client was answered after {took:.2f} s "
                f"(lease {SILENT} s, pings after {PING_EVERY} s quiet)"
            )
        finally:
            nodes[0].signal(signal.SIGCONT)
        # Woken, node 0 finds its lease gone and sends its client there away.
        hung.until(lambda m: m["type"] == "moved" and "url" not in m)
        live.ask({"type": "ping"}, lambda m: m["type"] == "pong")


def test_a_killed_owners_address_goes_before_its_lease_and_its_sockets_are_relayed(
    tmp_path: Path,
) -> None:
    """A node's advertised URL lasts two lease renewals (:data:`URL_RENEWALS`), its leases a
    lease's time (here 5 s, well apart): once a killed owner's URL is gone, a socket opened
    at another node for its table is no longer sent to the dead address (where it would
    fail, then come back relayed) but relayed at once, and welcomed when the lease runs out
    and that node takes the table over. Each node reads the URL every time: one that sent
    sockets to the owner before it died does not keep sending them there."""
    with site(tmp_path) as s:
        long_lease = ["--lease-ttl", "5", *UNCAPPED]
        nodes = s.start(2, advertise=True, extra=long_lease)
        client = Client(nodes[1].base, "P")
        table = client.create(bots="greedy", games=1)["table"]["id"]
        opened(client, table, nodes[0])  # node 0 takes the table
        assert moved_to(client, table, nodes[1]) == socket_url(nodes[0], table)
        import redis

        r = redis.Redis.from_url(s.redis, decode_responses=True)
        try:
            renew_ms = float(LEASE[3]) * 1000
            assert 0 < r.pttl(f"{s.prefix}url:{nodes[0].id}") <= URL_RENEWALS * renew_ms
            nodes[0].signal(signal.SIGKILL)
            nodes[0].proc.wait()
            until(lambda: not r.exists(f"{s.prefix}url:{nodes[0].id}"), "the URL goes")
            assert s.owner(table) == nodes[0].id  # the lease is still the dead node's
        finally:
            r.close()
        assert moved_to(client, table, nodes[1]) is None  # relayed, then taken over: welcome
        assert s.owner(table) == nodes[1].id
