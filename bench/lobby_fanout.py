"""What the lobby's live updates cost (issue 29): the frames and bytes each lobby socket
receives while a site's tables change, and the CPU a node spends on one lobby line heard.

1. Sockets: a server (in this process, on loopback, SQLite in a temporary folder) with
   ``--tables`` open tables and ``--lobbies`` lobby sockets, each showing the first page (100
   tables, the default). Then ``--changes`` changes of a line (a player sits or stands at a
   table drawn at random, seeded) and, every ``--new-every`` changes, a new table. Printed:
   the frames and bytes each lobby socket received after its first frame (every one alike:
   each shows the same first page), and the first frame's size.
2. CPU: a node's work on one lobby line heard on Redis (read the JSON, validate the line,
   pass it to the node's lobby sockets that show it), timed over ``--lines`` lines: changes
   to tables drawn at random among ``--site-tables``, and new tables (all within one window
   of ``--lobby-new-every``: the frame each socket then gets is counted in); for 0, 100 and
   1,000 lobby sockets at the node, each showing the first page (the 100 newest tables; the
   sockets' queues are lists here). The median of 5 rounds, in microseconds per line.

The same script measures any version of the server: put its ``src`` first on
``PYTHONPATH`` (before the lobby sockets were filtered, ``git -C /work/main archive
<commit> src | tar -x -C /tmp/lobby-before`` and ``PYTHONPATH=/tmp/lobby-before/src``).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import random
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn
from websockets.asyncio.client import ClientConnection, connect

from tienlen.apps.server import Server, Settings, create_app
from tienlen.apps.server.hub import Collector, Hub
from tienlen.apps.server.limits import Rate
from tienlen.apps.server.lobby import NewTable, new_table
from tienlen.apps.server.messages import TableInfo

#: Far more than the bench uses: no limit of the server's is met.
PLENTY = Rate(10**7, 1.0)


def start_server(data: Path) -> tuple[str, uvicorn.Server, threading.Thread]:
    """A server on a free loopback port, run in a thread with its own event loop."""
    settings = Settings(
        data=data,
        database_url=f"sqlite+aiosqlite:///{data / 'bench.db'}",
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
    sock = socket.create_server(("127.0.0.1", 0))
    holder: dict[str, uvicorn.Server] = {}

    async def main() -> None:
        srv = Server(settings)
        await srv.start()
        uv = uvicorn.Server(uvicorn.Config(create_app(settings, server=srv), log_level="warning"))
        holder["uv"] = uv
        try:
            await uv.serve(sockets=[sock])
        finally:
            await srv.stop()

    thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
    thread.start()
    while "uv" not in holder or not holder["uv"].started:
        time.sleep(0.01)
    return f"127.0.0.1:{sock.getsockname()[1]}", holder["uv"], thread


class Lobby:
    """One lobby socket: the frames and bytes it received after its first frame."""

    def __init__(self, conn: ClientConnection, first: str) -> None:
        self.conn = conn
        self.first = len(first.encode())
        self.frames = 0
        self.bytes = 0

    async def read_until(self, host: str) -> None:
        """Count frames (read as they come) until the line of a table of ``host``'s."""
        while True:
            text = await self.conn.recv()
            assert isinstance(text, str)
            self.frames += 1
            self.bytes += len(text.encode())
            got = json.loads(text)
            if host in {
                t["host"] for t in [got.get("table", {"host": ""}), *got.get("tables", [])]
            }:
                return


async def sockets_phase(host: str, args: argparse.Namespace) -> dict[str, float]:
    async with httpx.AsyncClient(base_url=f"http://{host}", timeout=60) as http:
        token = (await http.post("/api/guest", json={"name": "Bench"})).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        last = (await http.post("/api/guest", json={"name": "Last"})).json()
        last_auth = {"Authorization": f"Bearer {last['token']}"}

        async def create(headers: dict[str, str] = auth) -> str:
            r = await http.post("/api/tables", json={"bots": "random"}, headers=headers)
            assert r.status_code == 201, r.text
            table_id: str = r.json()["table"]["id"]
            return table_id

        tables = [await create() for _ in range(args.tables)]
        lobbies = []
        for _ in range(args.lobbies):
            conn = await connect(
                f"ws://{host}/ws/lobby", additional_headers=auth, max_size=None, ping_interval=None
            )
            first = await conn.recv()
            assert isinstance(first, str)
            lobbies.append(Lobby(conn, first))
        readers = [asyncio.create_task(lobby.read_until(last["player"])) for lobby in lobbies]
        at: dict[str, ClientConnection] = {}
        seated: set[str] = set()
        rng = random.Random(29)
        began = time.perf_counter()
        for i in range(args.changes):
            if i % args.new_every == args.new_every - 1:
                tables.append(await create())
                continue
            table = rng.choice(tables)
            if table not in at:
                at[table] = await connect(
                    f"ws://{host}/ws/tables/{table}", additional_headers=auth, max_size=None
                )
            kind = "stand" if table in seated else "sit"
            seated ^= {table}
            conn = at[table]
            await conn.send(
                json.dumps({"type": kind, "seat": 0} if kind == "sit" else {"type": kind})
            )
            while True:
                msg = json.loads(await conn.recv())
                if msg["type"] == "event" and msg["event"]["kind"] == kind:
                    break
                assert msg["type"] != "error", msg
        await create(last_auth)  # new: every lobby socket hears of it, last
        await asyncio.gather(*readers)
        took = time.perf_counter() - began
        for conn in [*at.values(), *(lobby.conn for lobby in lobbies)]:
            await conn.close()
    return {
        "frames": statistics.mean(lobby.frames for lobby in lobbies),
        "bytes": statistics.mean(lobby.bytes for lobby in lobbies),
        "first": statistics.mean(lobby.first for lobby in lobbies),
        "seconds": took,
    }


def cpu_phase(args: argparse.Namespace) -> dict[tuple[str, int], float]:
    """Microseconds a node spends on one lobby line heard (a change to a table drawn among
    ``--site-tables``, or a new table), by the lobby sockets at the node (each showing the
    first page: the 100 newest tables)."""
    template = new_table("p0", NewTable(bots="random")).info().model_dump()
    ids = [f"t{i:06d}" for i in range(args.site_tables)]
    rng = random.Random(29)

    def heard(table_id: str, new: bool) -> str:
        line = {**template, "id": table_id}
        return json.dumps({"op": "lobby", "node": "n1", "line": line, "removed": False, "new": new})

    kinds = {
        "change": [heard(rng.choice(ids), False) for _ in range(args.lines)],
        "new": [heard(f"n{i:06d}", True) for i in range(args.lines)],
    }
    first = [TableInfo.model_validate({**template, "id": i}) for i in ids[-100:]]
    out = {}
    for kind, lines in kinds.items():
        for watchers in (0, 100, 1000):
            rounds = []
            for _ in range(5):
                hub = Hub()
                filtered = isinstance(hub.lobby, dict)
                for w in range(watchers):
                    client = Collector(f"p{w}")
                    if filtered:  # each socket keeps the lines it shows
                        from tienlen.apps.server.hub import LobbyWatch

                        # (after issue 29's batching: new tables held 1 s, in a running loop)
                        held = len(inspect.signature(LobbyWatch).parameters) > 3
                        watch = LobbyWatch(hub, client, 100, *([1.0] if held else []))
                        hub.lobby[client] = watch
                        watch.page(first, None)
                    else:  # before: every line to every lobby socket
                        hub.lobby.add(client)
                began = time.perf_counter()
                for data in lines:  # as cluster.py does
                    m = json.loads(data)
                    if filtered:
                        if hub.lobby_hears(m["line"]["id"], m["new"]):
                            info = TableInfo.model_validate(m["line"])
                            hub.lobby_line(info, m["removed"], new=m["new"])
                    else:
                        hub.lobby_line(TableInfo.model_validate(m["line"]), m["removed"])
                for watch in hub.lobby.values() if filtered else ():  # the window ends
                    getattr(watch, "send_new", lambda: None)()
                rounds.append((time.perf_counter() - began) / len(lines) * 1e6)
            out[kind, watchers] = statistics.median(rounds)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--lobbies", type=int, default=50)
    parser.add_argument("--changes", type=int, default=2000)
    parser.add_argument("--new-every", type=int, default=40)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--site-tables", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        host, uv, thread = start_server(Path(tmp))
        try:
            got = asyncio.run(sockets_phase(host, args))
        finally:
            uv.should_exit = True
            thread.join(60)
    changes = args.changes - args.changes // args.new_every
    print(
        f"{args.tables} tables, {args.lobbies} lobby sockets, {changes} changes of a line and "
        f"{args.changes // args.new_every + 1} new tables in {got['seconds']:.1f} s"
    )
    print(
        f"per lobby socket: {got['frames']:.0f} frames, {got['bytes'] / 1024:.0f} KiB after "
        f"the first frame ({got['first'] / 1024:.0f} KiB)"
    )

    async def timed() -> dict[tuple[str, int], float]:
        return cpu_phase(args)  # (in a running loop: a lobby socket may start a timer)

    for (kind, watchers), micros in asyncio.run(timed()).items():
        print(f"a lobby line heard ({kind}), {watchers} lobby sockets at the node: {micros:.1f} us")


if __name__ == "__main__":
    main()
