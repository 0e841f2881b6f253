"""Load benchmark for ``tienlen serve`` (a script, not a test).

Starts one server process on loopback (SQLite in a temporary folder), opens N tables, each
with four client players over real WebSockets, plays every table's match at once, and prints:
actions per second, the p50/p99 latency from a client sending its action to its receiving the
broadcast event of that action, and the server's CPU time and memory per table.

    .venv/bin/python bench/server_load.py --tables 200 --games 1 [--think 1]

With ``--postgres URL`` the server uses a scratch database made on that PostgreSQL server
(and dropped at the end); with ``--nodes N`` (which needs ``--redis URL`` too) it starts N
cluster nodes on N ports, makes table ``n`` on node ``n % N`` and connects seat ``i`` of it
to node ``(n + i) % N``, so every table has clients on every node (actions forwarded to the
owner, events fanned out); CPU and memory are then the nodes' sums.

    .venv/bin/python bench/server_load.py --tables 200 --think 1 --nodes 2 \
        --postgres postgresql://127.0.0.1:5432/test --redis redis://127.0.0.1:6379/0

The clients run in this process (asyncio); each plays a uniformly random legal move when its
view says it is to act: at once (the server saturated: latency is then mostly queueing), or
after a pause of ``--think`` seconds on average, like a quick player.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

#: Refusals that say nothing was done and to try again.
RETRY = ("unavailable", "try_again", "moved")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def proc_cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Player:
    """One client seat: acts when its view says so, times action -> own broadcast."""

    def __init__(
        self,
        ws: ClientConnection,
        seat: int,
        rng: random.Random,
        think: float,
        *,
        local: bool,
        moves: int = 0,
    ) -> None:
        self.ws = ws
        self.local = local
        """Connected to the node the table was made on (its owner, in a cluster)."""
        self.think = think
        self.seat = seat
        self.rng = rng
        self.version = 0
        self.sent_at: float | None = None
        self.latencies: list[float] = []
        self.actions = 0
        self.frame = ""
        """The last action sent (sent again after a refusal that says "nothing was done")."""
        self.refusals = 0
        self.moves = moves
        """Times its socket was sent on to another node (the table's owner) when opened."""

    async def run(self) -> None:
        async for text in self.ws:
            msg: dict[str, Any] = json.loads(text)
            kind = msg["type"]
            if kind == "error":
                if msg["code"] in RETRY:  # a cluster changing hands or overloaded
                    self.refusals += 1
                    if self.frame:  # (a ``sit`` or the host's ``start``: counted only)
                        await asyncio.sleep(0.2)
                        await self.ws.send(self.frame)
                    continue
                if msg["code"] != "stale":
                    raise RuntimeError(f"seat {self.seat}: {msg}")
                self.sent_at = None
                continue
            if kind not in ("event", "state"):
                continue
            self.version = max(self.version, msg["version"])
            event = msg.get("event", {})
            if (
                self.sent_at is not None
                and event.get("seat") == self.seat
                and event.get("kind") in ("play", "pass", "give", "refuse")
            ):
                self.latencies.append(time.perf_counter() - self.sent_at)
                self.sent_at = None
            if event.get("kind") == "match_over":
                return
            if kind == "event" and msg["more"]:
                continue
            view = msg.get("view")
            if view and view.get("legal") is not None and self.sent_at is None:
                await self.act(view)

    async def act(self, view: dict[str, Any]) -> None:
        if self.think:  # a player's pause before acting (up to twice the mean)
            await asyncio.sleep(self.rng.uniform(0, 2 * self.think))
        move = self.rng.choice(view["legal"])
        trades = view["trades"]
        if view["phase"] == "trading" and trades and trades[-1].get("accepted") is None:
            frame: dict[str, Any] = {"type": "refuse"}
        elif view["phase"] == "exchange":
            frame = {"type": "give", "cards": move}
        elif move:
            frame = {"type": "play", "cards": move}
        else:
            frame = {"type": "pass"}
        frame["version"] = self.version
        self.sent_at = time.perf_counter()
        self.actions += 1
        self.frame = json.dumps(frame)
        await self.ws.send(self.frame)


async def open_table(
    bases: list[str],
    n: int,
    args: argparse.Namespace,
    *,
    humans: int = 4,
    bots: str | None = None,
    place: Callable[[str, int], Awaitable[list[int]]] | None = None,
    follow: bool = False,
) -> tuple[list[Player], ClientConnection]:
    """Table ``n``, made on node ``n % len(bases)``, with ``humans`` client players in the
    first seats (the others played by ``bots``); the socket of seat ``i`` goes to node
    ``(n + i) % len(bases)``, or to the node that ``place(table id, n)`` names for it
    (``follow``: and on to the node a ``moved`` frame names, as a browser does)."""
    async with httpx.AsyncClient(base_url=bases[n % len(bases)], timeout=60) as http:
        tokens = []
        for i in range(humans):
            r = await http.post("/api/guest", json={"name": f"t{n}p{i}"})
            tokens.append(r.json()["token"])
        body: dict[str, Any] = {"preset": args.preset, "games": args.games}
        if bots is not None:
            body["bots"] = bots
        r = await http.post(
            "/api/tables", json=body, headers={"Authorization": f"Bearer {tokens[0]}"}
        )
        table = r.json()["table"]["id"]
    nodes = await place(table, n) if place else [(n + i) % len(bases) for i in range(humans)]
    players = []
    for i, token in enumerate(tokens):
        ws_base = bases[nodes[i]].replace("http://", "ws://", 1)
        ws, moves = await table_socket(f"{ws_base}/ws/tables/{table}", token, follow)
        await ws.send(json.dumps({"type": "sit", "seat": i}))
        rng = random.Random(n * 4 + i)
        local = nodes[i] == n % len(bases)
        players.append(Player(ws, i, rng, args.think, local=local, moves=moves))
    # Wait until the host's socket shows every client's seat taken. Count seats, not ``sit``
    # events: a sit handled before the host's socket joined the table reaches the host in
    # its first ``state`` frame, not as an event (counting events stalled from 16 tables).
    host = players[0].ws
    taken = 0
    while taken < humans:
        msg = json.loads(await host.recv())
        table_info = msg.get("table")
        if isinstance(table_info, dict):
            taken = sum(1 for s in table_info["seats"] if s.get("player"))
    return players, host


async def table_socket(url: str, token: str, follow: bool) -> tuple[ClientConnection, int]:
    """A table socket opened at ``url`` (``follow``: read its first frame, and where it is
    ``moved``, open the socket at the URL it names instead); the moves followed."""
    moves = 0
    while True:
        ws = await connect(
            url, additional_headers={"Authorization": f"Bearer {token}"}, max_size=None
        )
        if not follow:
            return ws, moves
        first = json.loads(await ws.recv())  # (a welcome, else a moved; nothing else reads it)
        if first["type"] != "moved":
            return ws, moves
        await ws.close()
        moves += 1
        url = f"{first['url']}?moves={moves}"


def p99(latencies: list[float]) -> float:
    """The 99th percentile, in milliseconds."""
    lat = sorted(latencies)
    return round(lat[int(len(lat) * 0.99) - 1] * 1000, 1)


async def scratch_database(server_url: str, drop: str | None = None) -> str:
    """A new empty database on the PostgreSQL server of ``server_url`` (its asyncpg URL), or
    with ``drop``, that database dropped."""
    import asyncpg

    base = server_url.replace("postgresql+asyncpg://", "postgresql://", 1)
    conn = await asyncpg.connect(base)
    try:
        if drop is not None:
            await conn.execute(f'DROP DATABASE IF EXISTS "{drop}" WITH (FORCE)')
            return drop
        name = f"tienlen_bench_{secrets.token_hex(4)}"
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return base.replace("postgresql://", "postgresql+asyncpg://", 1).rsplit("/", 1)[0] + "/" + name


def start_nodes(
    args: argparse.Namespace, database_url: str | None, prefix: str, *, advertise: bool = False
) -> list[tuple[str, Any]]:
    """The server processes (``args.nodes``; cluster nodes on Redis key prefix ``prefix``
    when ``args.redis`` is given, each advertising its address if ``advertise``), each with
    its base URL."""
    data = Path(tempfile.mkdtemp(prefix="tienlen-bench-"))
    # Every client connects from this one address: lift the per-address caps on guests and
    # connection attempts, which are there for a crowd of addresses, not for a benchmark
    # (through the environment, which a server from before the caps ignores: the benchmark
    # compares servers old and new in one session).
    env = {
        **os.environ,
        "TIENLEN_GUESTS_PER_ADDRESS": "1000000/1",
        "TIENLEN_CONNECTIONS_PER_ADDRESS": "1000000/1",
    }
    out = []
    for _ in range(args.nodes):
        port = free_port()
        cmd = [sys.executable, "-m", "tienlen.apps.cli", "serve", "--data", str(data)]
        if advertise:  # (each node's address, where other nodes send its tables' sockets)
            cmd += ["--advertise-url", f"http://127.0.0.1:{port}"]
        cmd += ["--port", str(port), "--log-level", "warning", "--grace", "1000"]
        if database_url is not None:
            cmd += ["--database-url", database_url]
        if args.redis is not None:
            cmd += ["--redis-url", args.redis, "--redis-prefix", prefix]
        out.append((f"http://127.0.0.1:{port}", subprocess.Popen(cmd, env=env)))
    return out


async def wait_up(base: str) -> None:
    async with httpx.AsyncClient(base_url=base) as http:
        for _ in range(1200):
            try:
                if (await http.get("/api/ready")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise RuntimeError(f"the server at {base} did not start")


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    if args.nodes > 1 and (args.postgres is None or args.redis is None):
        raise SystemExit("--nodes > 1 needs --postgres and --redis")
    database_url = await scratch_database(args.postgres) if args.postgres else None
    nodes = start_nodes(args, database_url, f"tienlen-bench-{secrets.token_hex(4)}:")
    bases = [b for b, _p in nodes]
    pids = [p.pid for _b, p in nodes]
    try:
        for base in bases:
            await wait_up(base)
        print(f"{len(nodes)} node(s) up; opening {args.tables} tables", file=sys.stderr)
        rss_before = sum(proc_rss_mib(pid) for pid in pids)
        sem = asyncio.Semaphore(8)

        async def opened(n: int) -> tuple[list[Player], ClientConnection]:
            async with sem:
                return await open_table(bases, n, args)

        tables = await asyncio.gather(*(opened(n) for n in range(args.tables)))
        print("tables open; playing", file=sys.stderr)
        rss_open = sum(proc_rss_mib(pid) for pid in pids)
        cpu0, t0 = sum(proc_cpu_seconds(pid) for pid in pids), time.perf_counter()
        runs = [asyncio.create_task(p.run()) for players, _ in tables for p in players]
        for _players, host in tables:
            await host.send(json.dumps({"type": "start"}))
        await asyncio.gather(*runs)
        wall = time.perf_counter() - t0
        cpu = sum(proc_cpu_seconds(pid) for pid in pids) - cpu0
        rss_end = sum(proc_rss_mib(pid) for pid in pids)
        for players, _ in tables:
            for p in players:
                await p.ws.close()
        healths = []
        async with httpx.AsyncClient() as http:
            for base in bases:
                healths.append((await http.get(f"{base}/api/health")).json())
        health = {k: sum(h[k] for h in healths) for k in ("writes", "commits")}
        lat = sorted(x for players, _ in tables for p in players for x in p.latencies)
        actions = sum(p.actions for players, _ in tables for p in players)
        return {
            "nodes": args.nodes,
            "database": "PostgreSQL" if database_url else "SQLite",
            "tables": args.tables,
            "games per table": args.games,
            "preset": args.preset,
            "think seconds (mean)": args.think,
            "load average (1, 5, 15 min)": [round(x, 2) for x in os.getloadavg()],
            "actions": actions,
            "wall seconds": round(wall, 2),
            "actions per second": round(actions / wall, 1),
            "latency p50 ms": round(statistics.median(lat) * 1000, 1),
            "latency p99 ms": p99(lat),
            **(
                {
                    "p99 ms, clients on the table's node / another": [
                        p99([x for ps, _ in tables for p in ps if p.local for x in p.latencies]),
                        p99(
                            [x for ps, _ in tables for p in ps if not p.local for x in p.latencies]
                        ),
                    ]
                }
                if args.nodes > 1
                else {}
            ),
            "server CPU seconds (all nodes)": round(cpu, 2),
            "server CPU ms per action": round(cpu / actions * 1000, 2),
            "server RSS MiB (idle, tables open, end)": [
                round(rss_before, 1),
                round(rss_open, 1),
                round(rss_end, 1),
            ],
            "actions per commit": round(health["writes"] / max(1, health["commits"]), 2),
            "server RSS KiB per table": round((rss_end - rss_before) * 1024 / args.tables, 1),
        }
    finally:
        for _base, proc in nodes:
            proc.terminate()
        for _base, proc in nodes:
            proc.wait(30)
        if database_url is not None and args.postgres is not None:
            await scratch_database(args.postgres, drop=database_url.rsplit("/", 1)[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--preset", default="standard")
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds a client waits before acting (0: at once, the server saturated)",
    )
    parser.add_argument(
        "--postgres",
        help="a PostgreSQL server URL (postgresql://user@host/db) to make a scratch database on",
    )
    parser.add_argument("--redis", help="a Redis URL: the nodes run as a cluster")
    parser.add_argument("--nodes", type=int, default=1, help="server processes (a cluster)")
    args = parser.parse_args()
    for key, value in asyncio.run(main_async(args)).items():
        print(f"{key:>42}: {value}")


if __name__ == "__main__":
    main()
