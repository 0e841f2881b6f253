"""One home per table (issue 29): only a table's owner holds it; a node whose client plays
at a table owned elsewhere relays that client's frames and holds nothing of the table; a
paused owner's tables move to a node that needs them; the clients connected to a table's
owner play on while Redis is cut off (a proxy in front of it, cut and restored: the shared
Redis server is never stopped). PostgreSQL and Redis as in test_cluster.py; waits are
bounded only to fail a hung test, and no assertion is made on time (the times measured are
printed)."""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from serverkit import first_legal, until
from test_cluster import LEASE, REDIS, Driver, check_record, pytestmark, seat_clients, site

__all__ = ["pytestmark"]  # (the module's marks: PostgreSQL and Redis needed)


def held(base: str) -> int:
    """How many tables a node holds in memory."""
    return int(httpx.get(f"{base}/api/health").json()["tables"])


def listeners(redis_url: str, channel: str) -> int:
    """How many subscriptions a Redis channel has."""
    import redis

    r = redis.Redis.from_url(redis_url)
    try:
        return int(r.pubsub_numsub(channel)[0][1])
    finally:
        r.close()


def test_a_node_relays_a_table_it_does_not_own_and_holds_nothing_of_it(tmp_path: Path) -> None:
    with site(tmp_path) as s:
        nodes = s.start(3)
        # Seat 0 opens the table first, at node 0: node 0 takes it. Seat 1 plays at node 1.
        clients, sockets, table = seat_clients(nodes, [0, 1], bots="greedy", games=1)
        assert s.owner_node(table) == 0
        sockets[0].send(type="start")
        driver = Driver(sockets)
        driver.play(actions=6)
        assert held(nodes[0].base) == 1
        assert held(nodes[1].base) == 0  # its client plays through it all the same
        # Node 2 has no client there: it does not even listen to the table.
        assert listeners(s.redis, f"{s.prefix}t:{table}") == 2
        assert held(nodes[2].base) == 0
        driver.play()
        assert held(nodes[1].base) == 0
        check_record(clients[0], driver)


def replays(base: str) -> float:
    """How many tables a node rebuilt from their event log since it started."""
    text = httpx.get(f"{base}/metrics").text
    return float(
        next(
            line.split()[1]
            for line in text.splitlines()
            if line.startswith("tienlen_table_replays_total ")
        )
    )


def test_a_non_owner_answers_a_hint_from_the_owner_without_loading_the_table(
    tmp_path: Path,
) -> None:
    with site(tmp_path) as s:
        nodes = s.start(2)
        clients, sockets, table = seat_clients(nodes, [0, 1], bots="greedy", games=1)
        assert s.owner_node(table) == 0
        sockets[0].send(type="start")
        driver = Driver(sockets)
        driver.play(until_seats=[1])  # the turn of the player at node 1
        assert driver.next_actor() == 1
        view = sockets[1].view
        assert view is not None and view["phase"] == "play"
        before = replays(nodes[1].base)
        at_owner = httpx.Client(base_url=nodes[0].base, headers=clients[1].http.headers)
        for _ in range(3):
            for what in ("hint", "groups"):
                got = clients[1].http.get(f"/api/tables/{table}/{what}")
                assert got.status_code == 200, got.text
                assert got.json() == at_owner.get(f"/api/tables/{table}/{what}").json()
        hint = clients[1].http.get(f"/api/tables/{table}/hint").json()
        assert sorted(hint["cards"]) in [sorted(m) for m in view["legal"]]
        seat0_at_node1 = httpx.Client(base_url=nodes[1].base, headers=clients[0].http.headers)
        refused = seat0_at_node1.get(f"/api/tables/{table}/hint")
        assert (refused.status_code, refused.json()["code"]) == (400, "not_your_turn")
        assert replays(nodes[1].base) == before and held(nodes[1].base) == 0
        assert replays(nodes[0].base) == 1  # the owner loaded it once, when it took it
        driver.play()
        check_record(clients[0], driver)


def test_a_paused_owners_table_moves_to_the_node_its_client_is_at(tmp_path: Path) -> None:
    with site(tmp_path) as s:
        fast = ["--forward-timeout", "1", "--guests-per-address", "100000/1"]
        fast += ["--connections-per-address", "100000/1"]
        nodes = s.start(2, extra=fast)
        homes = [0, 1]
        clients, sockets, table = seat_clients(nodes, homes, bots="greedy", games=1)
        sockets[0].send(type="start")
        driver = Driver(sockets)
        driver.play(actions=2)
        driver.play(until_seats=[1])  # the turn of the client at node 1
        assert driver.next_actor() == 1
        owner = s.owner_node(table)
        assert owner == 0
        nodes[0].signal(signal.SIGSTOP)
        try:
            began = time.monotonic()
            kind, fields = first_legal(sockets[1].view or {})
            sockets[1].act(kind, **fields)
            while True:  # acknowledged by the node that took the table over
                msg = driver.read(1)
                assert msg["type"] != "error", msg
                if msg["type"] == "event" and not msg["more"]:
                    break
            took = time.monotonic() - began
            assert s.owner(table) == nodes[1].id
            assert held(nodes[1].base) == 1
            lease = float(LEASE[1])
            print(f"\nthe paused owner's table answered after {took:.2f} s (lease {lease} s)")
        finally:
            nodes[0].signal(signal.SIGCONT)
        gave_up = "lost it to another node"
        until(lambda: gave_up in nodes[0].log.read_text(), "the woken node gives it up")
        until(lambda: held(nodes[0].base) == 0, "the woken node drops the table")
        driver.play()
        check_record(clients[0], driver)


class Cuttable:
    """A TCP proxy to Redis that can be cut (every connection closed, new ones refused)
    and restored: Redis down, as the nodes see it."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.cut = False
        self.open: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            if self.cut:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def down(self) -> None:
        self.cut = True
        with self.lock:
            for s in self.open:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
            self.open.clear()

    def up(self) -> None:
        self.cut = False

    def close(self) -> None:
        self.down()
        self.server.close()


@contextlib.contextmanager
def cuttable_redis() -> Iterator[tuple[Cuttable, str]]:
    assert REDIS is not None
    url = httpx.URL(REDIS)
    proxy = Cuttable((url.host, url.port or 6379))
    try:
        yield proxy, f"redis://127.0.0.1:{proxy.port}{url.path}"
    finally:
        proxy.close()


def test_clients_of_the_owner_play_on_while_redis_is_cut_off(tmp_path: Path) -> None:
    with cuttable_redis() as (proxy, url), site(tmp_path, url) as s:
        nodes = s.start(2)
        # Both players at node 0, which owns the table; node 1 has a spectator.
        clients, sockets, table = seat_clients(nodes, [0, 0], bots="greedy", games=1)
        assert s.owner_node(table) == 0
        sockets[0].send(type="start")
        driver = Driver(sockets)
        driver.play(actions=4)
        proxy.down()
        try:
            time.sleep(float(LEASE[1]) + 0.5)  # past the lease: nobody may take it meanwhile
            driver.play(actions=8)  # acknowledged by the owner, Redis or not
            ready = httpx.get(f"{nodes[0].base}/api/ready")
            assert ready.status_code == 200, ready.text  # it rides the outage out
            assert ready.json()["checks"]["redis"] != "ok"
        finally:
            proxy.up()
        driver.play()
        check_record(clients[0], driver)
        until(lambda: s.owner(table) == nodes[0].id, "the owner renews its lease")


def test_a_table_nobody_needs_leaves_its_owner_and_the_next_node_takes_it(
    tmp_path: Path,
) -> None:
    with site(tmp_path) as s:
        quick = ["--evict-after", "0.3", "--guests-per-address", "100000/1"]
        quick += ["--connections-per-address", "100000/1"]
        nodes = s.start(2, extra=quick)
        clients, sockets, table = seat_clients(nodes, [0], bots="greedy")
        assert s.owner_node(table) == 0
        sockets[0].send(type="chat", text="see you at the other node")
        sockets[0].until(lambda m: m["type"] == "event" and m["event"]["kind"] == "chat")
        sockets[0].close()
        until(lambda: held(nodes[0].base) == 0, "the table leaves its owner's memory")
        until(lambda: s.owner(table) is None, "its lease is given back")
        again = clients[0].socket(table, via=nodes[1].base)
        state = again.until(lambda m: m["type"] == "state")
        assert state["table"]["seats"][0]["player"] == clients[0].id
        assert s.owner(table) == nodes[1].id and held(nodes[1].base) == 1
