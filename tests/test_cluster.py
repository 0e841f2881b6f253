"""A cluster on loopback: ``tienlen serve`` node processes sharing PostgreSQL and Redis.

Three nodes on three ports, the four clients of one table spread over them: a whole match
played through forwarding and fan-out; the owner killed with SIGKILL mid-game and the game
finished through the other nodes; an owner frozen (SIGSTOP) past its lease, then resumed,
writing nothing; Redis (a private ``redis-server``) killed and started again mid-game;
``--workers 2`` on one port; the node that takes a table over runs its bots and turn timer;
a write under a token raised behind the owner's back is refused by the database.
Every stored record must equal a replay of the actions the clients saw acknowledged. Waits
are bounded only to fail a hung test; nothing asserts on time."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from backends import POSTGRES
from ports import free_port
from serverkit import HANG, Client, Served, Socket, database, first_legal, sat_event, until
from tienlen import Game, GameRecord
from tienlen.apps.server.actions import act

REDIS = os.environ.get("TIENLEN_TEST_REDIS_URL")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(POSTGRES is None, reason="needs PostgreSQL: TIENLEN_TEST_POSTGRES_URL"),
    pytest.mark.skipif(REDIS is None, reason="needs Redis: TIENLEN_TEST_REDIS_URL"),
    pytest.mark.skipif(sys.platform == "win32", reason="signals"),
]
#: The nodes' log level (their logs are in the test's tmp_path).
NODE_LOG = os.environ.get("TIENLEN_TEST_NODE_LOG", "warning")
#: Short leases, so a takeover comes within about a second or two.
LEASE = ["--lease-ttl", "1.5", "--lease-renew", "0.3"]
#: Every test client is on loopback: the per-address caps are lifted but where tested.
UNCAPPED = ["--guests-per-address", "100000/1", "--connections-per-address", "100000/1"]
#: Refusals a client answers by trying again (the table is changing servers, or Redis is
#: down; "stale": another event came first).
RETRY = {"unavailable", "moved", "stale"}


class Node:
    """``tienlen serve`` as a cluster node, in a child process."""

    def __init__(
        self,
        db: str,
        redis: str,
        prefix: str,
        log: Path,
        grace: float,
        extra: Sequence[str],
        advertise: bool = False,
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log
        args = ["serve", "--database-url", db, "--redis-url", redis, "--redis-prefix", prefix]
        if advertise:  # (its address: other nodes send its tables' sockets here)
            args += ["--advertise-url", self.base]
        args += ["--port", str(self.port), "--grace", str(grace), "--bot-pool", "thread", *LEASE]
        args += extra or UNCAPPED
        with log.open("ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tienlen.apps.cli", *args, "--log-level", NODE_LOG],
                stdout=subprocess.DEVNULL,
                stderr=err,
            )

    def wait_up(self) -> None:
        def up() -> str | None:
            assert self.proc.poll() is None, self.log.read_text()
            try:
                r = httpx.get(f"{self.base}/api/health")
            except httpx.TransportError:
                return None
            return str(r.json()["node"]) if r.status_code == 200 else None

        self.id = until(up, f"the node on {self.port} answers")
        """The node's id in the cluster (the value of the leases it holds)."""

    def signal(self, sig: int) -> None:
        os.kill(self.proc.pid, sig)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(HANG)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Site:
    """Nodes on one database and one Redis key prefix (so the shared Redis stays shared)."""

    def __init__(self, db: str, redis: str, tmp: Path) -> None:
        self.db, self.redis, self.tmp = db, redis, tmp
        self.prefix = f"tienlen-test-{secrets.token_hex(4)}:"
        self.nodes: list[Node] = []

    def start(
        self, n: int, *, grace: float = 1000, extra: Sequence[str] = (), advertise: bool = False
    ) -> list[Node]:
        """Start ``n`` more nodes (``extra``: their options, instead of :data:`UNCAPPED`;
        ``advertise``: each with its address as ``--advertise-url``)."""
        new = [
            Node(
                self.db,
                self.redis,
                self.prefix,
                self.tmp / f"node{len(self.nodes) + i}.log",
                grace,
                extra,
                advertise,
            )
            for i in range(n)
        ]
        for node in new:
            node.wait_up()
        self.nodes += new
        return new

    def owner(self, table: str) -> str | None:
        """The node id holding the table's lease (read from Redis)."""
        import redis

        r = redis.Redis.from_url(self.redis, decode_responses=True)
        try:
            return r.get(f"{self.prefix}owner:{table}")  # type: ignore[return-value]
        finally:
            r.close()

    def publish(self, channel: str, *messages: str) -> None:
        """Publish raw messages on one of the site's channels."""
        import redis

        r = redis.Redis.from_url(self.redis)
        try:
            for m in messages:
                r.publish(f"{self.prefix}{channel}", m)
        finally:
            r.close()

    def owner_node(self, table: str) -> int:
        """The index of the node that owns the table now."""
        owner = until(lambda: self.owner(table), "the table has an owner")
        return next(i for i, n in enumerate(self.nodes) if n.id == owner)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        import redis

        with contextlib.suppress(redis.RedisError):
            r = redis.Redis.from_url(self.redis)
            keys = list(r.scan_iter(f"{self.prefix}*"))
            if keys:
                r.delete(*keys)
            r.close()


@contextlib.contextmanager
def site(tmp: Path, redis_url: str | None = None) -> Iterator[Site]:
    assert REDIS is not None
    with database("postgres", tmp) as db:
        s = Site(db, redis_url or REDIS, tmp)
        try:
            yield s
        finally:
            s.stop()


@dataclasses.dataclass
class At:
    """A server's address (the port ``--workers`` share)."""

    base: str


def seat_clients(
    nodes: Sequence[Served], homes: list[int], **spec: Any
) -> tuple[list[Client], dict[int, Socket], str]:
    """A table created at ``nodes[homes[0]]``; player i sits in seat i through
    ``nodes[homes[i]]``."""
    clients = [Client(nodes[h].base, f"P{i}") for i, h in enumerate(homes)]
    table = clients[0].create(**spec)["table"]["id"]
    sockets: dict[int, Socket] = {}
    for i, c in enumerate(clients):
        s = c.socket(table)
        s.until(lambda m: m["type"] == "state")
        sockets[i] = s
    for i, s in sockets.items():
        s.send(type="sit", seat=i)
        s.until(sat_event(i))
    return clients, sockets, table


class Driver:
    """Plays the seats' first legal moves over their sockets (see serverkit.play_out),
    trying again after a refusal in :data:`RETRY`; keeps every acknowledged action."""

    def __init__(self, sockets: dict[int, Socket]) -> None:
        self.sockets = sockets
        self.done: set[int] = set()
        self.refusals: list[str] = []
        self.actions: list[dict[str, Any]] = []
        """Every game action as its event reached seat 0's client, in version order."""
        self.seen: set[int] = set()

    def read(self, seat: int) -> dict[str, Any]:
        try:
            msg = self.sockets[seat].recv()
        except TimeoutError:
            versions = {k: (s.version, s.settled) for k, s in self.sockets.items()}
            last = {k: s.raw[-3:] for k, s in self.sockets.items()}
            raise AssertionError(f"seat {seat} hears nothing; {versions} {last}") from None
        if msg["type"] == "event":
            e = msg["event"]
            if e["kind"] == "match_over":
                self.done.add(seat)
            if e["kind"] in ("play", "pass", "give") and msg["version"] not in self.seen:
                self.seen.add(msg["version"])
                self.actions.append({"version": msg["version"], **e})
        return msg

    def next_actor(self) -> int | None:
        """The seat to act once every socket is up to date (reading until they are)."""
        while True:
            latest = max(s.version for s in self.sockets.values())
            behind = [
                seat
                for seat, s in self.sockets.items()
                if seat not in self.done and (s.version < latest or not s.settled)
            ]
            if not behind:
                break
            for seat in behind:
                self.read(seat)
        for seat, s in self.sockets.items():
            v = s.view
            if seat in self.done or v is None or v.get("legal") is None:
                continue
            if v["turn"] == seat and v["phase"] != "over":
                return seat
        return None

    def step(self, actor: int) -> str | None:
        """The actor plays; returns the refusal's code, if any."""
        kind, fields = first_legal(self.sockets[actor].view or {})
        self.sockets[actor].act(kind, **fields)
        while True:
            msg = self.read(actor)
            if msg["type"] == "error":
                assert msg["code"] in RETRY, msg
                self.refusals.append(msg["code"])
                if msg["code"] != "stale":
                    time.sleep(0.2)
                return str(msg["code"])
            if msg["type"] == "event" and not msg["more"]:
                return None

    def play(self, *, actions: int | None = None, until_seats: Iterable[int] = ()) -> None:
        """Play until the match is over everywhere, or ``actions`` more are acknowledged,
        or it is the turn of one of ``until_seats``."""
        stop = set(until_seats)
        made = 0
        tries = 0
        while len(self.done) < len(self.sockets):
            actor = self.next_actor()
            if len(self.done) == len(self.sockets):
                break
            if actor is None:
                self.read(min(set(self.sockets) - self.done))
                continue
            if actor in stop or made == actions:
                return
            tries += 1
            assert tries < 2000, f"no progress: {self.refusals[-20:]}"
            if self.step(actor) is None:
                made += 1

    def reconnect(self, seat: int, client: Client, table: str) -> None:
        """The seat's client opens its socket again (at another node), catching up."""
        old = self.sockets[seat]
        with contextlib.suppress(Exception):
            old.close()
        new = client.socket(table, since=old.version)
        new.version, new.view = old.version, old.view
        self.sockets[seat] = new


def check_record(client: Client, driver: Driver) -> GameRecord:
    """The stored game equals a replay of the actions the clients saw acknowledged."""
    end = next(
        m["event"]
        for sock in driver.sockets.values()
        for m in sock.frames
        if m["type"] == "event" and m["event"]["kind"] == "game_over"
    )
    stored = GameRecord.from_dict(client.http.get(f"/api/games/{end['record']}").json())
    versions = [a["version"] for a in driver.actions]
    assert versions == sorted(versions)
    game = Game(stored.rules, seed=stored.seed)
    for a in driver.actions:
        act(game, a["kind"], a)
    assert game.is_over
    replay = GameRecord.from_game(game, seed=stored.seed, names=stored.names)
    assert stored.to_dict() == replay.to_dict()
    return stored


def event_log(db: str, table: str) -> list[tuple[int, int]]:
    """(version, fence) of each stored event of the table."""
    import asyncpg

    async def read() -> list[tuple[int, int]]:
        conn = await asyncpg.connect(db.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            rows = await conn.fetch(
                "SELECT version, fence FROM table_events WHERE table_id = $1 ORDER BY version",
                table,
            )
        finally:
            await conn.close()
        return [(r["version"], r["fence"]) for r in rows]

    return asyncio.run(read())


def test_a_match_is_played_over_three_nodes(tmp_path: Path) -> None:
    with site(tmp_path) as s:
        nodes = s.start(3)
        clients, sockets, table = seat_clients(nodes, [0, 1, 2, 1], bots="greedy", games=1)
        # The lobby is the site's: a node that did not make the table lists it.
        assert table in [t["id"] for t in httpx.get(f"{nodes[2].base}/api/tables").json()]
        assert clients[1].http.get("/api/tables/no-such-table").status_code == 404
        # So are the spectators: one watching through node 2 is counted at node 0.
        watcher = Client(nodes[2].base, "W")
        watching = watcher.socket(table)

        def spectators() -> int:
            return int(clients[0].http.get(f"/api/tables/{table}").json()["spectators"])

        until(lambda: spectators() == 1, "node 0 counts the spectator at node 2")
        watching.close()
        until(lambda: spectators() == 0, "node 0 sees the spectator leave")
        s.publish("events", "not JSON", '{"op": "no such op"}')  # the nodes keep listening
        sockets[0].send(type="start")
        driver = Driver(sockets)
        actor = driver.next_actor()
        while actor is None:
            driver.read(0)
            actor = driver.next_actor()
        # A refusal at the owner comes back through the node the client is on.
        wrong = next(seat for seat in (1, 2, 3) if seat != actor)  # at another node
        sockets[wrong].act("pass")
        refused = sockets[wrong].error()
        assert refused["code"] == "not_your_turn", refused
        # An engine's refusal keeps its reason code on the way back.
        elsewhere = [seat for seat, home in enumerate([0, 1, 2, 1]) if home != s.owner_node(table)]
        driver.play(until_seats=elsewhere)
        seat = driver.next_actor()
        assert seat in elsewhere
        hand = (sockets[seat].view or {})["hand"]
        sockets[seat].act("play", cards=[hand[0], hand[-1]])  # two ranks: no combination
        illegal = sockets[seat].error()
        assert illegal["code"] == "illegal" and illegal["reason"]["code"], illegal
        driver.play()
        stored = check_record(clients[0], driver)
        assert stored.finish_order is not None
        versions = [v for v, _fence in event_log(s.db, table)]
        assert versions == list(range(1, len(versions) + 1))


def test_a_lobby_socket_hears_only_its_lines_from_other_nodes(tmp_path: Path) -> None:
    with site(tmp_path) as s:
        nodes = s.start(2)
        host = Client(nodes[0].base, "Host")
        a, b = (host.create(bots="random")["table"]["id"] for _ in range(2))
        lobby = host.socket("", welcome=False, limit=1, via=nodes[1].base)
        assert [t["id"] for t in lobby.recv()["tables"]] == [b]
        for table in (a, b):  # taken by node 0, whose lines node 1 hears on Redis
            at = host.socket(table)
            at.send(type="sit", seat=0)
            at.until(sat_event(0))
        heard = lobby.recv()  # b's change, not a's (not shown)
        assert heard["table"]["id"] == b and heard["table"]["seats"][0]["player"] == host.id
        c = host.create(bots="random")["table"]["id"]  # made at node 0: new, for every lobby
        assert [t["id"] for t in lobby.recv()["tables"]] == [c]  # (a lobby_new frame)


def test_the_owner_killed_mid_game_the_others_finish_it(tmp_path: Path) -> None:
    with site(tmp_path) as s:
        nodes = s.start(3)
        # Seat 3 is a bot: the node that takes over must run it.
        clients, sockets, table = seat_clients(nodes, [0, 1, 2], bots="greedy", games=1)
        sockets[0].send(type="start")
        driver = Driver(sockets)
        driver.play(actions=6)
        dead = s.owner_node(table)  # where it was made, unless it changed hands since
        before = nodes[dead].id
        nodes[dead].signal(signal.SIGKILL)
        nodes[dead].proc.wait()
        live = nodes[(dead + 1) % 3]
        for seat, home in enumerate([0, 1, 2]):
            if home == dead:  # its client moves to a live node
                clients[seat].base = live.base
                clients[seat].http.base_url = httpx.URL(live.base)
                driver.reconnect(seat, clients[seat], table)
        driver.play()
        after = s.owner(table)
        assert after not in (None, before)
        check_record(clients[0], driver)
        log = event_log(s.db, table)
        assert [v for v, _f in log] == list(range(1, len(log) + 1))
        fences = [f for _v, f in log]
        assert fences == sorted(fences) and len(set(fences)) >= 2, fences


def test_a_frozen_owner_writes_nothing_after_it_wakes(tmp_path: Path) -> None:
    with site(tmp_path) as s:
        nodes = s.start(3)
        homes = [0, 1, 2, 1]
        clients, sockets, table = seat_clients(nodes, homes, bots="greedy", games=1)
        sockets[0].send(type="start")
        driver = Driver(sockets)
        driver.play(actions=4)
        owner = s.owner_node(table)
        there = [seat for seat, home in enumerate(homes) if home == owner]
        driver.play(until_seats=there)
        seat = driver.next_actor()
        assert seat in there
        frozen = nodes[owner].id
        fence_then = event_log(s.db, table)[-1][1]
        nodes[owner].signal(signal.SIGSTOP)
        # A move reaches the frozen owner's socket; it is read when the owner wakes.
        kind, fields = first_legal(sockets[seat].view or {})
        sockets[seat].act(kind, **fields)
        until(lambda: s.owner(table) not in (None, frozen), "another node takes the table")
        nodes[owner].signal(signal.SIGCONT)
        gave_up = "lost it to another node"  # by its lease's renewal, or its write fenced
        until(lambda: gave_up in nodes[owner].log.read_text(), "the woken node gives it up")
        driver.play()
        check_record(clients[0], driver)
        log = event_log(s.db, table)
        assert [v for v, _f in log] == list(range(1, len(log) + 1))
        # Nothing was written under the frozen owner's token once another node had one.
        first_new = next(i for i, (_v, f) in enumerate(log) if f > fence_then)
        assert all(f > fence_then for _v, f in log[first_new:]), log


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_redis_restarted_mid_game(tmp_path: Path) -> None:
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    argv += ["--appendonly", "no", "--dir", str(tmp_path)]

    def redis_server() -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def up() -> bool:
            with socket.socket() as c:
                return c.connect_ex(("127.0.0.1", port)) == 0

        until(up, "redis-server listens")
        return proc

    redis_proc = redis_server()
    try:
        with site(tmp_path, url) as s:
            nodes = s.start(3)
            clients, sockets, table = seat_clients(nodes, [0, 1, 2, 1], bots="greedy", games=1)
            sockets[0].send(type="start")
            driver = Driver(sockets)
            driver.play(actions=4)
            # Down when a client of another node than the owner's is to act.
            homes = [0, 1, 2, 1]
            owner = s.owner_node(table)
            driver.play(until_seats=[seat for seat, h in enumerate(homes) if h != owner])
            actor = driver.next_actor()
            redis_proc.kill()
            redis_proc.wait()
            assert actor is not None
            assert driver.step(actor) == "unavailable"  # its action cannot reach the owner
            redis_proc = redis_server()
            driver.play()
            check_record(clients[0], driver)
    finally:
        redis_proc.kill()
        redis_proc.wait()


def test_workers_share_one_port(tmp_path: Path) -> None:
    with site(tmp_path) as s:
        port = free_port()
        args = ["serve", "--database-url", s.db, "--redis-url", s.redis, "--workers", "2"]
        args += ["--redis-prefix", s.prefix, "--port", str(port), "--bot-pool", "thread", *LEASE]
        log = tmp_path / "workers.log"
        with log.open("ab") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "tienlen.apps.cli", *args, "--log-level", NODE_LOG],
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        try:
            base = f"http://127.0.0.1:{port}"

            def up() -> bool:
                assert proc.poll() is None, log.read_text()
                try:
                    return httpx.get(f"{base}/api/ready").status_code == 200
                except httpx.TransportError:
                    return False

            until(up, "the workers answer")
            # Each connection goes to whichever worker accepts it: a match is played anyway.
            clients, sockets, _table = seat_clients(
                [At(base)], [0, 0, 0, 0], bots="greedy", games=1
            )
            sockets[0].send(type="start")
            driver = Driver(sockets)
            driver.play()
            check_record(clients[0], driver)
            # Two node processes: two leases' worth of node channels listen in Redis.
            import redis

            r = redis.Redis.from_url(s.redis, decode_responses=True)
            try:
                listening = r.pubsub_numsub(f"{s.prefix}events")[0][1]
            finally:
                r.close()
            assert listening == 2
            proc.terminate()  # the supervisor stops its workers and exits cleanly
            assert proc.wait(HANG) == 0, log.read_text()
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(HANG)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def test_the_new_owner_runs_the_bots_and_the_turn_timer(tmp_path: Path) -> None:
    with site(tmp_path) as s:
        nodes = s.start(2)
        # One player who never acts (the turn timer plays for them) and three bots; the
        # player has the table open through both nodes.
        player = Client(nodes[1].base, "Idle")
        table = player.create(bots="greedy", games=1, turn_timer=1)["table"]["id"]
        socks = []
        for node in nodes:
            player.base = node.base
            socks.append(player.socket(table))
            socks[-1].until(lambda m: m["type"] == "state")
        socks[0].send(type="sit", seat=0)
        socks[0].send(type="start")
        socks[0].until(lambda m: m["type"] == "event" and m["event"]["kind"] == "timeout")
        dead = s.owner_node(table)  # node 1, where it was made, unless it moved since
        nodes[dead].signal(signal.SIGKILL)
        nodes[dead].proc.wait()
        # What the dead node wrote, read before the takeover: read after it, a slow poll
        # could miss the new owner's first moves, even the game's end, and wait forever.
        then = event_log(s.db, table)[-1][0]
        live = 1 - dead
        sock = socks[live]
        until(lambda: s.owner(table) == nodes[live].id, "the live node takes the table")

        # The clock and the bots go on at the other node: a timeout, and a bot's move after
        # (the game ending first would fail here, not hang).
        def after(m: dict[str, Any]) -> bool:
            return bool(m["type"] == "event" and m["version"] > then)

        got = sock.until(lambda m: after(m) and m["event"]["kind"] in ("timeout", "game_over"))
        assert got["event"]["kind"] == "timeout", got
        got = sock.until(
            lambda m: (
                after(m)
                and m["event"]["kind"] in ("play", "pass", "game_over")
                and m["event"].get("seat") != 0
            )
        )
        assert got["event"]["kind"] != "game_over", got
        assert s.owner(table) == nodes[live].id


def test_a_write_under_a_token_taken_over_is_refused_and_made_again(tmp_path: Path) -> None:
    """The fence itself: the table's token is raised behind its owner's back (as a node that
    took the table over would), Redis left as it was. The owner's next write is refused by
    the database; it gives the table up, takes it over again under a new token and makes the
    action then: written once, never under the old token."""
    import asyncpg

    with site(tmp_path) as s:
        (node,) = s.start(1)
        client = Client(node.base, "Talker")
        table = client.create(bots="greedy")["table"]["id"]
        sock = client.socket(table)
        sock.until(lambda m: m["type"] == "state")

        def chat(text: str) -> None:
            sock.send(type="chat", text=text)
            sock.until(lambda m: m["type"] == "event" and m["event"].get("text") == text)

        chat("before")
        token = event_log(s.db, table)[-1][1]

        async def raise_token() -> None:
            conn = await asyncpg.connect(s.db.replace("postgresql+asyncpg://", "postgresql://"))
            try:
                await conn.execute("UPDATE tables SET fence = fence + 1 WHERE id = $1", table)
            finally:
                await conn.close()

        asyncio.run(raise_token())
        chat("after")
        log = event_log(s.db, table)
        assert len(log) == 2, log  # each chat line once
        assert log[0][1] == token and log[1][1] > token + 1, log


def test_a_player_gone_with_the_owner_gets_the_grace_then_a_bot(tmp_path: Path) -> None:
    """The owner dies with a seated player connected to it only; the node that takes the
    table over gives that player the grace period, then seats their bot; a player watching
    through another node is never marked away."""
    with site(tmp_path) as s:
        nodes = s.start(2, grace=1)
        _clients, sockets, table = seat_clients(nodes, [0, 1], bots="greedy", games=1)
        sockets[0].send(type="start")
        driver = Driver(sockets)
        driver.play(actions=2)
        dead = s.owner_node(table)  # node 0, where it was made, unless it moved since
        nodes[dead].signal(signal.SIGKILL)
        nodes[dead].proc.wait()
        live = 1 - dead  # seat i is connected to node i
        away = sockets[live].until(lambda m: m["type"] == "event" and m["event"]["kind"] == "away")
        assert away["event"]["seat"] == dead
        # The dead node's seat is played by its bot now: the match goes on.
        driver = Driver({live: sockets[live]})
        driver.play()
        assert all(
            f["event"]["seat"] == dead
            for f in sockets[live].frames
            if f["type"] == "event" and f["event"]["kind"] == "away"
        )


def test_the_caps_hold_across_nodes(tmp_path: Path) -> None:
    caps = ["--sockets-per-player", "2", "--guests-per-address", "3/3600"]
    caps += ["--connections-per-address", "100000/1"]
    with site(tmp_path) as s:
        a, b = s.start(2, extra=caps)
        # Guests per address: three over the site, wherever they are made.
        one, _two = Client(a.base, "One"), Client(b.base, "Two")
        three = Client(a.base, "Three")
        r = httpx.post(f"{b.base}/api/guest", json={"name": "Four"})
        assert r.status_code == 429 and r.json()["code"] == "rate_limited", r.text
        # Sockets per player: two over the site.
        table = one.create()["table"]["id"]
        at_a = one.socket(table)
        second = one.socket(table, via=b.base)
        refused = one.socket(table, via=b.base, welcome=False)
        error = refused.recv()
        assert error["code"] == "too_many_sockets", error
        three.socket(table)  # another player is not held back
        second.close()

        def reopened() -> bool:
            s = one.socket(table, welcome=False)
            return bool(s.recv()["type"] == "welcome")

        until(reopened, "the socket closed at node b is uncounted at node a")
        at_a.close()
