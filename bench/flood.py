"""Flood benchmark for ``tienlen serve`` (a script, not a test): does one guest's flood slow
another table down?

Starts one server process on loopback (SQLite in a temporary folder, the default limits),
and one table where two client players play each other as fast as they can, timing each
action from sending it to receiving its event. It measures that latency while nothing else
happens (quiet), then while hostile sockets flood the server from another process, and
prints p50/p99 for each phase:

    .venv/bin/python bench/flood.py [--seconds 5] [--scenario 1:refused --scenario 10:json]

A scenario ``N:KIND`` is N hostile sockets of one guest, each sending as fast as it can:
``refused`` plays (a play at a table it does not sit at: refused by the server) or ``json``
(broken JSON). A socket the server closes is opened again at once, until the server refuses
to open it (the per-address cap on connection attempts); the hostile process reports how
its sockets were closed.

``python bench/flood.py hostile ...`` is that hostile process (the flood test runs it too).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

#: The frame each kind of hostile socket sends.
FRAMES = {
    "refused": json.dumps({"type": "play", "cards": ["3s"], "version": 0}),
    "json": '{"type": "play", "cards": ["3s"',
}
#: Mean seconds a measured player waits before acting.
THINK = 0.2
#: Seconds a hostile socket still open when its time is up waits for the server's close.
LATE_CLOSE = 5.0


# --- the hostile process ------------------------------------------------------------------
async def hostile_socket(
    url: str, token: str, frame: str, until: float, seen: Counter[str], address: str
) -> None:
    """Open, flood until the server closes the socket, open again at once (not waiting for
    the closing handshake): until ``until`` or the server refuses to open a socket."""
    headers = {"Authorization": f"Bearer {token}"}
    while time.monotonic() < until:
        try:
            ws = await connect(
                url,
                additional_headers=headers,
                max_size=None,
                max_queue=None,
                local_addr=(address, 0),
            )
        except (OSError, InvalidStatus):
            seen["open failed"] += 1
            return
        first = json.loads(await ws.recv())
        if first["type"] == "error":  # refused at opening (a cap): that is the end of it
            seen[f"refused at open: {first['code']}"] += 1
            await ws.close()
            return
        seen["opened"] += 1

        async def drain(ws: ClientConnection = ws) -> None:
            async for _ in ws:
                seen["answers"] += 1

        async def flood(ws: ClientConnection = ws) -> None:
            while True:
                for _ in range(64):
                    await ws.send(frame)
                seen["frames sent"] += 64
                await asyncio.sleep(0)  # the other sockets and the readers get a turn

        async def closed(ws: ClientConnection = ws) -> None:
            while ws.protocol.close_rcvd is None:
                await asyncio.sleep(0.005)

        tasks = [asyncio.create_task(each()) for each in (drain, flood, closed)]
        await asyncio.wait(
            tasks, timeout=max(0.0, until - time.monotonic()), return_when="FIRST_COMPLETED"
        )
        tasks[1].cancel()
        # Time is up: a server behind with the frames already sent still closes the socket
        # once it reads enough of them (it is given a few seconds for it).
        await asyncio.wait(tasks[::2], timeout=LATE_CLOSE, return_when="FIRST_COMPLETED")
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        rcvd = ws.protocol.close_rcvd
        seen[f"closed by the server: {rcvd.code}" if rcvd else "still open at the end"] += 1
        ws.transport.abort()


async def hostile_main(args: argparse.Namespace) -> None:
    until = time.monotonic() + args.seconds
    seen: Counter[str] = Counter()
    url = args.base.replace("http://", "ws://", 1) + f"/ws/tables/{args.table}"
    frame = FRAMES[args.kind]
    await asyncio.gather(
        *(
            hostile_socket(url, args.token, frame, until, seen, args.address)
            for _ in range(args.sockets)
        )
    )
    print(json.dumps(dict(seen), sort_keys=True))


def hostile(
    base: str, sockets: int, kind: str, seconds: float, address: str = "127.0.0.1"
) -> subprocess.Popen[str]:
    """Start the hostile process against the server at ``base``, from the loopback
    ``address`` (127.0.0.2, ...: another client address): a guest of its own, at a table of
    its own; its stdout is a JSON line of what its sockets saw."""
    with httpx.Client(transport=httpx.HTTPTransport(local_address=address)) as http:
        r = http.post(f"{base}/api/guest", json={"name": "Flood"})
        r.raise_for_status()
        token = r.json()["token"]
        r = http.post(f"{base}/api/tables", json={}, headers={"Authorization": f"Bearer {token}"})
        r.raise_for_status()
        table = r.json()["table"]["id"]
    cmd = [sys.executable, __file__, "hostile", f"--base={base}", f"--table={table}"]
    cmd += [f"--token={token}", f"--sockets={sockets}", f"--kind={kind}"]
    cmd += [f"--seconds={seconds}", f"--address={address}"]  # a table id may start with -
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)


# --- the measured table -------------------------------------------------------------------
class Duel:
    """Two players at one table, each acting after a pause when it is its turn (within the
    frame budget a connection has, as a quick human player would)."""

    def __init__(self, sockets: list[ClientConnection], seed: int) -> None:
        self.sockets = sockets
        self.version = 0
        self.latencies: list[float] = []
        self.views: dict[int, dict[str, Any]] = {}
        self.rng = random.Random(seed)

    async def play(self, seconds: float) -> list[float]:
        """Play for ``seconds``; the latencies of the actions made in that time (s)."""
        self.latencies = []
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            await self.step()
        return self.latencies

    async def step(self) -> None:
        """One action by the seat to act, timed to its own event."""
        seat, view = await self.turn()
        await asyncio.sleep(self.rng.uniform(0, 2 * THINK))
        move = self.rng.choice(view["legal"])
        frame: dict[str, Any] = {"type": "play", "cards": move} if move else {"type": "pass"}
        frame["version"] = self.version
        ws = self.sockets[seat]
        began = time.perf_counter()
        await ws.send(json.dumps(frame))
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] == "error":
                raise RuntimeError(f"seat {seat}: {msg}")
            self.absorb(seat, msg)
            if msg["type"] == "event" and msg["event"].get("seat") == seat:
                self.latencies.append(time.perf_counter() - began)
                return

    def absorb(self, seat: int, msg: dict[str, Any]) -> None:
        """Note a frame's version, and the view that ends a batch."""
        if msg["type"] != "event":
            return
        self.version = max(self.version, msg["version"])
        if not msg["more"] and "view" in msg:
            self.views[seat] = {"version": msg["version"], **msg["view"]}

    async def turn(self) -> tuple[int, dict[str, Any]]:
        """Read both sockets up to the newest version; the seat to act and its view."""
        for seat, ws in enumerate(self.sockets):
            while self.views.get(seat, {"version": -1})["version"] < self.version or (
                seat not in self.views
            ):
                self.absorb(seat, json.loads(await ws.recv()))
        for seat, view in self.views.items():
            if view["version"] == self.version and view.get("legal") is not None:
                return seat, view
        raise RuntimeError(f"nobody is to act at version {self.version}: {self.views}")


async def open_duel(base: str, seed: int) -> Duel:
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        tokens = []
        for name in (f"Quiet {seed}A", f"Quiet {seed}B"):
            tokens.append((await http.post("/api/guest", json={"name": name})).json()["token"])
        r = await http.post(
            "/api/tables",
            json={"options": {"players": 2}, "target": 1000},
            headers={"Authorization": f"Bearer {tokens[0]}"},
        )
        table = r.json()["table"]["id"]
    sockets = []
    for seat, token in enumerate(tokens):
        ws = await connect(
            base.replace("http://", "ws://", 1) + f"/ws/tables/{table}",
            additional_headers={"Authorization": f"Bearer {token}"},
            max_size=None,
        )
        await ws.send(json.dumps({"type": "sit", "seat": seat}))
        sockets.append(ws)
    for ws in sockets:  # each sees both seats taken
        while True:
            msg = json.loads(await ws.recv())
            info = msg.get("table")
            if isinstance(info, dict) and all(s.get("player") for s in info["seats"]):
                break
    await sockets[0].send(json.dumps({"type": "start"}))
    return Duel(sockets, seed)


def figures(latencies: list[float]) -> dict[str, float]:
    """p50 and p99 (ms) and the count."""
    lat = sorted(latencies)
    if not lat:
        return {"actions": 0}
    return {
        "actions": len(lat),
        "p50 ms": round(statistics.median(lat) * 1000, 2),
        "p99 ms": round(lat[max(0, int(len(lat) * 0.99) - 1)] * 1000, 2),
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(
    base: str, server: int, scenarios: list[tuple[int, str]], seconds: float, tables: int
) -> None:
    duels = [await open_duel(base, n) for n in range(tables)]

    async def play(length: float) -> dict[str, float]:
        cpu = cpu_seconds(server)
        done = await asyncio.gather(*(d.play(length) for d in duels))
        out = figures([lat for each in done for lat in each])
        out["server CPU s"] = round(cpu_seconds(server) - cpu, 2)
        return out

    await play(1.0)  # warm up
    print(f"quiet: {await play(seconds)}", flush=True)
    for n, (sockets, kind) in enumerate(scenarios):
        address = f"127.0.0.{n + 2}"  # each flood from an address of its own
        flood = await asyncio.to_thread(hostile, base, sockets, kind, seconds, address)
        await asyncio.sleep(0.3)  # the hostile process starts and opens its sockets
        during = await play(seconds)
        out, _ = await asyncio.to_thread(flood.communicate)
        print(f"{sockets} x {kind}: {during}", flush=True)
        print(f"    hostile sockets: {out.strip()}", flush=True)
        print(f"quiet again: {await play(seconds)}", flush=True)


def scenario(text: str) -> tuple[int, str]:
    count, _, kind = text.partition(":")
    if kind not in FRAMES:
        raise argparse.ArgumentTypeError(f"a scenario is N:KIND, KIND one of {sorted(FRAMES)}")
    return int(count), kind


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    h = sub.add_parser("hostile", help="the hostile process (started by the benchmark)")
    h.add_argument("--base", required=True)
    h.add_argument("--table", required=True)
    h.add_argument("--token", required=True)
    h.add_argument("--sockets", type=int, default=1)
    h.add_argument("--kind", choices=sorted(FRAMES), default="refused")
    h.add_argument("--seconds", type=float, default=5.0)
    h.add_argument("--address", default="127.0.0.1", help="the loopback address to come from")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of each phase")
    parser.add_argument("--tables", type=int, default=4, help="measured tables (two players)")
    parser.add_argument(
        "--scenario",
        type=scenario,
        action="append",
        help="N:KIND hostile sockets (repeatable; default 1:refused and 10:json)",
    )
    args = parser.parse_args()
    if args.command == "hostile":
        asyncio.run(hostile_main(args))
        return
    scenarios = args.scenario or [(1, "refused"), (10, "json")]
    data = Path(tempfile.mkdtemp(prefix="tienlen-flood-"))
    port = free_port()
    cmd = [sys.executable, "-m", "tienlen.apps.cli", "serve", "--data", str(data)]
    cmd += ["--port", str(port), "--log-level", "warning"]
    server = subprocess.Popen(cmd, env={**os.environ})
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{base}/api/ready").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        asyncio.run(measure(base, server.pid, scenarios, args.seconds, args.tables))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
