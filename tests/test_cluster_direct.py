"""Direct routing (issue 29): nodes started with ``--advertise-url`` send a table socket that
reaches a node other than the table's owner on to the owner (one ``moved`` frame, close
4307), and the client plays there, with nothing relayed; without an advertised URL, when the
client asks (``relay=1``) or after two moves in a row, the node relays as before; when the
owner is paused past its lease or killed and another node takes the table, a client is sent
to the new owner. PostgreSQL and Redis as in test_cluster.py; waits are bounded only to fail
a hung test, and nothing is asserted on time."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from serverkit import Client, Socket, sat_event, until
from test_cluster import Driver, Node, check_record, pytestmark, site
from test_cluster_home import held, listeners

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
