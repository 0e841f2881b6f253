"""What each cluster node hears of the lobby on Redis (issue 29): ``--nodes`` cluster nodes in
this process (each a server on loopback in a thread of its own) on one PostgreSQL database
and one Redis, ``--tables`` open tables and ``--lobbies`` lobby sockets at each node, each
showing the first page (the 100 newest tables). Then ``--changes`` changes of a line (a
player sits or stands at a table drawn at random, seeded, through a socket at a node drawn
with it: that node takes the table, so the owners are spread) and, every ``--new-every``
changes, a new table (made at a node drawn likewise); a last new table ends the count once
every lobby socket has it. Printed: for each node, the lobby messages its listener was given
from the first change on (what Redis delivered to it: changes of lines and new tables) and
their bytes (the text, the channel's name left out), with the median over the nodes; the
frames and bytes each lobby socket received after its first (the same before and after: no
line is lost); and the time from connecting a lobby socket to its first page (the first at
each node, and the median socket).

The same script measures any version of the server: put its ``src`` first on ``PYTHONPATH``
(``git -C /work/main archive <commit> src | tar -x -C /tmp/before``). Needs PostgreSQL
(``TIENLEN_BENCH_POSTGRES_URL``, a scratch database is made and dropped) and Redis
(``TIENLEN_BENCH_REDIS_URL``, a fresh key prefix).
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
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import uvicorn
from lobby_fanout import Lobby as Counted  # this folder: the script's own path
from start_time import scratch
from websockets.asyncio.client import ClientConnection, connect

from tienlen.apps.server import Server, Settings, create_app
from tienlen.apps.server.cluster import Cluster
from tienlen.apps.server.limits import Rate

#: Far more than the bench uses: no limit of the server's is met.
PLENTY = Rate(10**7, 1.0)
#: What each node's listener was given of the lobby: (node, "change" or "new") -> messages;
#: the same keys with " bytes" for their text's bytes, with " own" for those it published.
HEARD: Counter[tuple[str, str]] = Counter()


def count_lobby_messages() -> None:
    """Count what every node's listener is given of the lobby (before the nodes start)."""
    receive = Cluster._receive

    async def counted(self: Cluster, channel: str, data: str) -> None:
        if data.startswith("{") and '"op": "lobby"' in data:
            m = json.loads(data)
            kind = "new" if m.get("new") else "change"
            HEARD[self.node, kind] += 1
            HEARD[self.node, kind + " bytes"] += len(data.encode())
            HEARD[self.node, kind + " own"] += m["node"] == self.node
        await receive(self, channel, data)

    Cluster._receive = counted  # type: ignore[method-assign]


def start_node(settings: Settings) -> tuple[str, str, uvicorn.Server, threading.Thread]:
    """A node on a free loopback port, in a thread with its own event loop: its address, its
    id in the cluster, its server and thread."""
    sock = socket.create_server(("127.0.0.1", 0))
    holder: dict[str, object] = {}

    async def main() -> None:
        srv = Server(settings)
        await srv.start()
        assert srv.cluster is not None
        holder["node"] = srv.cluster.node
        uv = uvicorn.Server(uvicorn.Config(create_app(settings, server=srv), log_level="warning"))
        holder["uv"] = uv
        try:
            await uv.serve(sockets=[sock])
        finally:
            await srv.stop()

    thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
    thread.start()
    while not (isinstance(uv := holder.get("uv"), uvicorn.Server) and uv.started):
        time.sleep(0.01)
    return f"127.0.0.1:{sock.getsockname()[1]}", str(holder["node"]), uv, thread


class Lobby(Counted):
    """One lobby socket: the frames and bytes it received after its first frame."""

    def __init__(self, conn: ClientConnection, opened: float) -> None:
        self.conn = conn
        self.opened = opened
        """Seconds from connecting to the first frame (the first page)."""
        self.frames = 0
        self.bytes = 0


async def run(hosts: list[str], args: argparse.Namespace) -> tuple[list[Lobby], float]:
    """The lobby sockets (each having read to the last new table), and the seconds taken."""
    https = [httpx.AsyncClient(base_url=f"http://{h}", timeout=60) for h in hosts]
    token = (await https[0].post("/api/guest", json={"name": "Bench"})).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    last = (await https[0].post("/api/guest", json={"name": "Last"})).json()
    rng = random.Random(29)

    async def create(at: int, headers: dict[str, str] = auth) -> str:
        r = await https[at].post("/api/tables", json={"bots": "random"}, headers=headers)
        assert r.status_code == 201, r.text
        table_id: str = r.json()["table"]["id"]
        return table_id

    tables = [await create(0) for _ in range(args.tables)]
    lobbies = []
    for host in hosts:
        for _ in range(args.lobbies):
            began = time.perf_counter()
            conn = await connect(
                f"ws://{host}/ws/lobby", additional_headers=auth, max_size=None, ping_interval=None
            )
            await conn.recv()
            lobbies.append(Lobby(conn, time.perf_counter() - began))
    readers = [asyncio.create_task(lobby.read_until(last["player"])) for lobby in lobbies]
    await asyncio.sleep(1.0)  # (the tables made so far heard where they are heard)
    HEARD.clear()  # from here on
    at: dict[str, ClientConnection] = {}
    seated: set[str] = set()
    began = time.perf_counter()
    for i in range(args.changes):
        if i % args.new_every == args.new_every - 1:
            tables.append(await create(rng.randrange(len(hosts))))
            continue
        table = rng.choice(tables)
        if table not in at:
            host = hosts[rng.randrange(len(hosts))]
            at[table] = await connect(
                f"ws://{host}/ws/tables/{table}", additional_headers=auth, max_size=None
            )
        kind = "stand" if table in seated else "sit"
        seated ^= {table}
        conn = at[table]
        await conn.send(json.dumps({"type": kind, "seat": 0} if kind == "sit" else {"type": kind}))
        while True:
            msg = json.loads(await conn.recv())
            if msg["type"] == "event" and msg["event"]["kind"] == kind:
                break
            assert msg["type"] != "error", msg
    await create(0, {"Authorization": f"Bearer {last['token']}"})
    await asyncio.gather(*readers)
    took = time.perf_counter() - began
    await asyncio.sleep(1.0)  # (what is still on its way to a listener)
    for conn in [*at.values(), *(lobby.conn for lobby in lobbies)]:
        await conn.close()
    for http in https:
        await http.aclose()
    return lobbies, took


async def main_async(args: argparse.Namespace) -> None:
    base = os.environ.get("TIENLEN_BENCH_POSTGRES_URL")
    redis_url = os.environ.get("TIENLEN_BENCH_REDIS_URL")
    assert base and redis_url, "set TIENLEN_BENCH_POSTGRES_URL and TIENLEN_BENCH_REDIS_URL"
    count_lobby_messages()
    prefix = f"tienlen-bench-{secrets.token_hex(4)}:"
    with tempfile.TemporaryDirectory() as tmp:
        async with scratch(base, Path(tmp), "lobbych") as url:
            nodes = []
            try:
                for i in range(args.nodes):
                    (Path(tmp) / f"n{i}").mkdir()
                    settings = Settings(
                        data=Path(tmp) / f"n{i}",
                        database_url=url,
                        redis_url=redis_url,
                        redis_prefix=prefix,
                        bot_pool="thread",
                        grace=0.0,
                        messages=PLENTY,
                        player_messages=PLENTY,
                        creations=PLENTY,
                        guests_per_address=PLENTY,
                        connections_per_address=PLENTY,
                        sockets_per_player=10**6,
                        evict_after=3600.0,
                        log_level="warning",
                    )
                    nodes.append(start_node(settings))
                lobbies, took = await run([n[0] for n in nodes], args)
            finally:
                for _host, _node, uv, _thread in nodes:
                    uv.should_exit = True
                for _host, _node, _uv, thread in nodes:
                    await asyncio.to_thread(thread.join, 60)
    news = args.changes // args.new_every + 1
    print(
        f"{args.nodes} nodes, {args.tables} tables, {args.lobbies} lobby sockets a node; "
        f"{args.changes - args.changes // args.new_every} changes of a line and {news} new "
        f"tables in {took:.1f} s"
    )
    rows = []
    for i, (_host, node, _uv, _thread) in enumerate(nodes):
        rows.append([HEARD[node, k] for k in ("change", "change bytes", "new", "new bytes")])
        c, cb, n, nb = rows[-1]
        own = HEARD[node, "change own"]
        print(f"node {i}: {c} changes heard ({cb / 1024:.0f} KiB; {own} its own), ", end="")
        print(f"{n} new ({nb / 1024:.0f} KiB)")
    c, cb, n, nb = (statistics.median(col) for col in zip(*rows, strict=True))
    print(f"median node: {c:.0f} changes heard ({cb / 1024:.0f} KiB), ", end="")
    print(f"{n:.0f} new ({nb / 1024:.0f} KiB)")
    frames = statistics.median(lobby.frames for lobby in lobbies)
    kib = statistics.median(lobby.bytes for lobby in lobbies) / 1024
    print(f"per lobby socket (median): {frames:.0f} frames, {kib:.0f} KiB after the first frame")
    first = sorted(lobby.opened * 1000 for lobby in lobbies[:: args.lobbies])
    rest = statistics.median(lobby.opened * 1000 for lobby in lobbies) if lobbies else 0.0
    print(f"opening a lobby socket: the first at each node {', '.join(f'{t:.1f}' for t in first)}")
    print(f"ms, the median socket {rest:.1f} ms (connecting to the first page)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=3, help="cluster nodes (default 3)")
    parser.add_argument(
        "--tables", type=int, default=1000, help="open tables made first (default 1000)"
    )
    parser.add_argument(
        "--lobbies", type=int, default=5, help="lobby sockets at each node (default 5)"
    )
    parser.add_argument(
        "--changes", type=int, default=2000, help="line changes measured (default 2000)"
    )
    parser.add_argument(
        "--new-every",
        type=int,
        default=40,
        help="a new table after every this many changes (default 40)",
    )
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
