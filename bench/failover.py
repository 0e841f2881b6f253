"""Failover benchmark for a ``tienlen serve`` cluster (a script, not a test).

Starts N cluster nodes on loopback (a scratch PostgreSQL database, a Redis key prefix of its
own) and one table: a human client in seat 0 and three bots. Then, ``--kills`` times, when
the human is to act: SIGKILL the node that owns the table (its Redis lease), send the
human's move at once through another node, and time

- **takeover**: from the kill until another node holds the table's lease (Redis polled
  every 10 ms), and
- **answered**: from the kill until the human's move is accepted (refusals while the table
  has no owner are answered by sending the move again, every 50 ms),

then start the killed node again (same port) and go on. Prints each kill as it goes, then
the median and the worst of each.

    .venv/bin/python bench/failover.py --postgres postgresql://127.0.0.1:5432/test \\
        --redis redis://127.0.0.1:6379/0 --kills 20 [--lease-ttl 5 --lease-renew 1]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import signal
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import redis
from server_load import free_port, scratch_database  # this folder: the script's own path
from websockets.sync.client import ClientConnection, connect

#: Refusals that mean "the table is changing hands (or Redis is down): send it again".
RETRY = {"unavailable", "moved", "stale", "try_again"}
#: A hung step fails after this long.
HANG = 120.0


class Node:
    """One ``tienlen serve`` cluster node process on a fixed port."""

    def __init__(self, args: argparse.Namespace, db: str, prefix: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.cmd = [sys.executable, "-m", "tienlen.apps.cli", "serve", "--database-url", db]
        self.cmd += ["--redis-url", args.redis, "--redis-prefix", prefix]
        self.cmd += ["--port", str(self.port), "--grace", "1000", "--bot-pool", "thread"]
        # Every client comes from loopback: the per-address caps are lifted.
        self.cmd += ["--guests-per-address", "1000000/1", "--connections-per-address", "1000000/1"]
        self.cmd += ["--lease-ttl", str(args.lease_ttl), "--lease-renew", str(args.lease_renew)]
        self.cmd += ["--log-level", "warning"]
        self.proc = self.start()

    def start(self) -> subprocess.Popen[bytes]:
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL)
        return self.proc

    def wait_ready(self) -> str:
        """Wait until the node is ready; its node id."""
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the node on {self.port} exited ({self.proc.returncode})")
            try:
                if httpx.get(f"{self.base}/api/ready", timeout=5).status_code == 200:
                    node = httpx.get(f"{self.base}/api/health", timeout=5).json().get("node")
                    if not node:
                        raise RuntimeError("/api/health names no node: is this a cluster build?")
                    return str(node)
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the node on {self.port} did not become ready")

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Human:
    """Seat 0's client: one table socket, the latest version and view it has seen."""

    def __init__(self, token: str, table: str) -> None:
        self.token, self.table = token, table
        self.ws: ClientConnection | None = None
        self.sockets = contextlib.ExitStack()
        self.port = 0
        self.version = 0
        self.view: dict[str, Any] | None = None
        self.status = "waiting"
        self.settled = True

    def connect(self, port: int) -> None:
        self.sockets.close()  # the one open before, if any
        since = f"?since={self.version}" if self.version else ""
        self.ws = self.sockets.enter_context(
            connect(
                f"ws://127.0.0.1:{port}/ws/tables/{self.table}{since}",
                additional_headers={"Authorization": f"Bearer {self.token}"},
                max_size=None,
                open_timeout=HANG,
            )
        )
        self.port = port

    def recv(self, timeout: float = HANG) -> dict[str, Any]:
        assert self.ws is not None
        msg: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        if msg["type"] in ("state", "event", "welcome"):
            self.version = max(self.version, msg.get("version", 0))
        if msg["type"] == "event":
            self.settled = not msg["more"]
        if msg["type"] == "state" or (msg["type"] == "event" and not msg["more"]):
            self.view = msg.get("view") or self.view
        if isinstance(msg.get("table"), dict):
            self.status = msg["table"]["status"]
        return msg

    def to_act(self) -> bool:
        v = self.view
        return bool(
            self.settled
            and v is not None
            and v.get("legal") is not None
            and v.get("turn") == 0
            and v.get("phase") != "over"
        )

    def wait_turn(self) -> None:
        """Read until it is this seat's turn (starting a rematch when the match ended)."""
        deadline = time.monotonic() + HANG
        while not self.to_act():
            assert time.monotonic() < deadline, "the human's turn never came"
            if self.status == "finished" and self.settled:
                self.send({"type": "rematch"})
            try:
                self.recv(timeout=1.0)
            except TimeoutError:
                continue

    def send(self, frame: dict[str, Any]) -> None:
        assert self.ws is not None
        self.ws.send(json.dumps(frame))

    def move(self) -> dict[str, Any]:
        v = self.view
        assert v is not None
        move = v["legal"][0]
        trades = v["trades"]
        if v["phase"] == "trading" and trades and trades[-1].get("accepted") is None:
            return {"type": "refuse", "version": self.version}
        if v["phase"] == "exchange":
            return {"type": "give", "cards": move, "version": self.version}
        if not move:
            return {"type": "pass", "version": self.version}
        return {"type": "play", "cards": move, "version": self.version}

    def act_until_accepted(self) -> int:
        """Send the move until it is accepted; the number of refusals on the way."""
        refusals = 0
        deadline = time.monotonic() + HANG
        self.send(self.move())
        while True:
            assert time.monotonic() < deadline, "the move was never accepted"
            msg = self.recv()
            if msg["type"] == "error":
                if msg["code"] not in RETRY:
                    raise RuntimeError(f"refused: {msg}")
                refusals += 1
                time.sleep(0.05)
                while not self.settled:
                    self.recv()
                self.send(self.move())
            elif msg["type"] == "event" and _mine(msg["event"]):
                return refusals


def _mine(event: dict[str, Any]) -> bool:
    """Whether an event is seat 0's move."""
    return event.get("seat") == 0 and event["kind"] in ("play", "pass", "give", "refuse")


def watch_owner(r: redis.Redis, key: str, dead: str, found: list[float], t0: float) -> None:
    """Poll the lease until a node other than ``dead`` holds it; note when."""
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        owner = r.get(key)
        if owner is not None and owner != dead:
            found.append(time.perf_counter() - t0)
            return
        time.sleep(0.01)


def run(args: argparse.Namespace) -> None:
    db = asyncio.run(scratch_database(args.postgres))
    prefix = f"tienlen-failover-{secrets.token_hex(4)}:"
    r = redis.Redis.from_url(args.redis, decode_responses=True)
    nodes = [Node(args, db, prefix) for _ in range(args.nodes)]
    try:
        ids = {n.wait_ready(): n for n in nodes}
        print(f"{len(nodes)} nodes ready", file=sys.stderr)
        first = nodes[0].base
        guest = httpx.post(f"{first}/api/guest", json={"name": "Human"}).json()
        auth = {"Authorization": f"Bearer {guest['token']}"}
        made = httpx.post(
            f"{first}/api/tables", json={"bots": "greedy", "games": 100}, headers=auth
        )
        table = made.json()["table"]["id"]
        human = Human(guest["token"], table)
        human.connect(nodes[1].port)
        human.recv()  # welcome
        human.send({"type": "sit", "seat": 0})
        human.send({"type": "start"})
        key = f"{prefix}owner:{table}"
        takeovers: list[float] = []
        answers: list[float] = []
        for k in range(1, args.kills + 1):
            human.wait_turn()
            owner_id = r.get(key)
            if owner_id not in ids:
                raise RuntimeError(f"the lease names {owner_id!r}, not a running node")
            owner = ids[owner_id]
            if human.port == owner.port:  # the client keeps its socket on a node that lives
                other = next(n for n in nodes if n is not owner)
                human.connect(other.port)
                human.wait_turn()
            found: list[float] = []
            t0 = time.perf_counter()
            owner.kill()
            watcher = threading.Thread(target=watch_owner, args=(r, key, owner_id, found, t0))
            watcher.start()
            refusals = human.act_until_accepted()
            answered = time.perf_counter() - t0
            watcher.join()
            if not found:
                raise RuntimeError("no node took the table over")
            takeovers.append(found[0])
            answers.append(answered)
            print(
                f"kill {k}/{args.kills}: taken over after {found[0]:.2f} s, the move answered "
                f"after {answered:.2f} s ({refusals} refusals)",
                file=sys.stderr,
            )
            del ids[owner_id]
            owner.start()
            ids[owner.wait_ready()] = owner
        print(f"{'nodes':>34}: {args.nodes}")
        print(f"{'lease ttl, renew (s)':>34}: {args.lease_ttl}, {args.lease_renew}")
        print(f"{'kills':>34}: {len(answers)}")
        for name, xs in (("takeover", takeovers), ("move answered", answers)):
            print(f"{name + ' median, worst (s)':>34}: {statistics.median(xs):.2f}, {max(xs):.2f}")
        print(f"{'load average (1, 5, 15 min)':>34}: {[round(x, 2) for x in os.getloadavg()]}")
    finally:
        tear_down(nodes, r, prefix, args.postgres, db)


def tear_down(nodes: list[Node], r: redis.Redis, prefix: str, postgres: str, db: str) -> None:
    """Stop the nodes, delete the run's Redis keys and drop its scratch database."""
    for n in nodes:
        n.stop()
    for each in r.scan_iter(f"{prefix}*"):
        r.delete(each)
    r.close()
    asyncio.run(scratch_database(postgres, drop=db.rsplit("/", 1)[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", required=True, help="a PostgreSQL server URL")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--lease-ttl", type=float, default=5.0, help="the server's default")
    parser.add_argument("--lease-renew", type=float, default=1.0, help="the server's default")
    run(parser.parse_args())


if __name__ == "__main__":
    main()
