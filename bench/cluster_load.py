"""Scaling benchmark for a ``tienlen serve`` cluster (a script, not a test).

For each N of ``--nodes`` (1, 2 and 3 by default), in one invocation: makes a scratch
PostgreSQL database (dropped at the end) and a Redis key prefix of its own (its keys deleted
at the end), starts N cluster nodes on N ports, opens ``--tables`` tables of four seats,
``--humans`` of them client players over real WebSockets (the rest the table's ``--bots``),
plays for ``--warmup`` seconds, then measures ``--seconds`` seconds of play:

- actions per second and games per minute (counted in the event log);
- server CPU per action, summed over the N nodes, each node's process and its children (the
  bot workers) read from ``/proc/<pid>/stat``, and that figure over one node's;
- each node's memory (RSS of the node's process; of its bot workers apart) and the tables it
  holds (``/api/health``), and the memory per table held;
- events per action and bytes per stored event, rows and bytes written to PostgreSQL per
  second, and the Redis pub/sub messages and bytes per second under the prefix (published,
  and delivered: one copy per subscriber).

Where a table's sockets go (``--routing``): ``spread``, seat ``i`` of table ``n`` to node
``(n + i) % N`` (every node has clients of every table; the table is made on node
``n % N``); ``hash``, every socket of a table to one node picked by hashing the table id, as
a proxy that routes by table id does; ``owner``, every socket of a table to the node that
holds its lease once it is made (the node that made it, where no lease is found).
``--direct on`` starts the nodes with ``--advertise-url``: a socket that reaches a node
other than its table's owner is sent to the owner (a ``moved`` frame, which the clients
follow as a browser does) instead of being relayed; ``--direct alternate`` measures each N
relayed, then direct.

    .venv/bin/python bench/cluster_load.py --postgres postgresql://127.0.0.1:5432/test \\
        --redis redis://127.0.0.1:6379/0 --tables 100 --think 1 --seconds 60

The clients (``bench/server_load.py``'s) play a uniformly random legal move after a pause
of up to twice ``--think`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import hashlib
import json
import os
import secrets
import statistics
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from redis.asyncio import Redis
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from server_load import (  # this folder: the script's own path
    Player,
    open_table,
    p99,
    proc_rss_mib,
    scratch_database,
    start_nodes,
    wait_up,
)

#: The event kinds that are a player's (or a bot's) action.
ACTIONS = ("play", "pass", "give", "offer", "accept", "refuse", "ask")

console = Console(stderr=True)


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def descendants(pid: int) -> list[int]:
    """Every live process under ``pid`` (children, their children, ...)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                parents.setdefault(int(_stat(int(entry.name))[1]), []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        kids = parents.get(todo.pop(), [])
        out += kids
        todo += kids
    return out


def tree_cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a process, its live descendants and the children it
    waited for."""
    ticks = 0
    for each in [pid, *descendants(pid)]:
        with contextlib.suppress(OSError):
            f = _stat(each)
            ticks += sum(int(x) for x in f[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


@dataclass
class Sample:
    """What the site had done at one moment."""

    at: float
    cpu: float
    actions: int
    events: int
    games: int
    event_bytes: int
    rows_written: int
    commits: int
    db_bytes: int
    redis: Counter[str] = field(default_factory=Counter)


class RedisWatch:
    """Counts the pub/sub messages (and their bytes) on every channel under a prefix."""

    def __init__(self, url: str, prefix: str) -> None:
        self.url, self.prefix = url, prefix
        self.messages: Counter[str] = Counter()
        self.bytes: Counter[str] = Counter()
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        redis = Redis.from_url(self.url)
        pubsub = redis.pubsub()
        await pubsub.psubscribe(f"{self.prefix}*")

        async def listen() -> None:
            try:
                async for msg in pubsub.listen():
                    if msg["type"] == "pmessage":
                        channel = msg["channel"].decode()
                        self.messages[channel] += 1
                        self.bytes[channel] += len(msg["data"])
            finally:
                await pubsub.aclose()
                await redis.aclose()

        self.task = asyncio.create_task(listen())

    def snapshot(self) -> Counter[str]:
        """Messages and bytes so far, by channel (``m:`` and ``b:`` keys)."""
        out: Counter[str] = Counter()
        for ch, n in self.messages.items():
            out[f"m:{ch}"] = n
            out[f"b:{ch}"] = self.bytes[ch]
        return out

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


async def sample(pids: list[int], db: asyncpg.Connection, watch: RedisWatch) -> Sample:
    """CPU of every node (with its children), the event log's counts and sizes, PostgreSQL's
    own counters for the database, and the Redis messages heard so far."""
    cpu = sum(tree_cpu_seconds(pid) for pid in pids)
    log = await db.fetchrow(
        "SELECT count(*) FILTER (WHERE kind = ANY($1::text[])) AS actions, count(*) AS events,"
        " count(*) FILTER (WHERE kind = 'game_over') AS games,"
        " coalesce(sum(pg_column_size(e.*)), 0) AS bytes FROM table_events e",
        list(ACTIONS),
    )
    await db.execute("SELECT pg_stat_clear_snapshot()")
    stats = await db.fetchrow(
        "SELECT tup_inserted + tup_updated + tup_deleted AS rows, xact_commit,"
        " pg_database_size(datname) AS size FROM pg_stat_database"
        " WHERE datname = current_database()"
    )
    return Sample(
        at=time.perf_counter(),
        cpu=cpu,
        actions=log["actions"],
        events=log["events"],
        games=log["games"],
        event_bytes=log["bytes"],
        rows_written=stats["rows"],
        commits=stats["xact_commit"],
        db_bytes=stats["size"],
        redis=watch.snapshot(),
    )


def node_rss(pid: int) -> tuple[float, float]:
    """RSS (MiB) of a node's process, and of its children together."""
    kids = 0.0
    for each in descendants(pid):
        with contextlib.suppress(OSError):
            kids += proc_rss_mib(each)
    return proc_rss_mib(pid), kids


async def placer(
    args: argparse.Namespace, bases: list[str], redis: Redis, prefix: str
) -> Callable[[str, int], Awaitable[list[int]]] | None:
    """The ``place`` function for ``open_table`` that ``--routing`` asks for (or None)."""
    if args.routing == "spread":
        return None
    count = len(bases)

    async def place(table: str, n: int) -> list[int]:
        if args.routing == "hash":
            node = int.from_bytes(hashlib.sha1(table.encode()).digest()[:8], "big") % count
        else:  # owner: the node whose id holds the lease
            owner = await redis.get(f"{prefix}owner:{table}")
            node = ids.get(str(owner), n % count)
        return [node] * args.humans

    ids: dict[str, int] = {}
    async with httpx.AsyncClient() as http:
        for i, base in enumerate(bases):
            ids[str((await http.get(f"{base}/api/health")).json()["node"])] = i
    return place


async def one_size(
    args: argparse.Namespace,
    count: int,
    direct: bool,
    progress: Progress,
    *,
    share: int | None = None,
) -> dict[str, Any]:
    """Start ``count`` nodes (``direct``: each advertising its address), play ``share``
    tables (by default as ``--tables`` and ``--per-node`` say), measure, stop; the figures."""
    run = copy.copy(args)
    run.nodes = count
    run.direct = direct
    if share is not None:
        run.tables = share
    elif args.per_node:
        run.tables = args.tables * count
    prefix = f"tienlen-cluster-bench-{secrets.token_hex(4)}:"
    database_url = await scratch_database(args.postgres)
    name = database_url.rsplit("/", 1)[1]
    base_url = args.postgres.replace("postgresql+asyncpg://", "postgresql://", 1)
    redis = Redis.from_url(args.redis, decode_responses=True)
    watch = RedisWatch(args.redis, prefix)
    nodes = start_nodes(run, database_url, prefix, advertise=direct)
    bases = [b for b, _p in nodes]
    pids = [p.pid for _b, p in nodes]
    tables: list[tuple[list[Player], Any]] = []
    runs: list[asyncio.Task[None]] = []
    db: asyncpg.Connection | None = None
    try:
        for base in bases:
            await wait_up(base)
        db = await asyncpg.connect(base_url.rsplit("/", 1)[0] + "/" + name)
        await watch.start()
        idle = [node_rss(pid) for pid in pids]
        quiet = sum(tree_cpu_seconds(pid) for pid in pids), time.perf_counter()
        await asyncio.sleep(args.idle)
        idle_cpu = (sum(tree_cpu_seconds(pid) for pid in pids) - quiet[0]) / (
            time.perf_counter() - quiet[1]
        )
        place = await placer(run, bases, redis, prefix)
        bots = args.bots if args.humans < 4 else None
        sem = asyncio.Semaphore(8)
        opening = progress.add_task(f"N={count}: opening tables", total=run.tables)

        async def opened(n: int) -> tuple[list[Player], Any]:
            async with sem:
                got = await open_table(
                    bases, n, run, humans=args.humans, bots=bots, place=place, follow=direct
                )
                progress.advance(opening)
                return got

        tables = list(await asyncio.gather(*(opened(n) for n in range(run.tables))))
        progress.remove_task(opening)
        runs = [asyncio.create_task(p.run()) for players, _ in tables for p in players]
        for _players, host in tables:
            await host.send(json.dumps({"type": "start"}))
        playing = progress.add_task(
            f"N={count}: warming up, then measuring", total=args.warmup + args.seconds
        )
        for _ in range(int(args.warmup)):
            await asyncio.sleep(1)
            progress.advance(playing)
            _raise_failed(runs)
        first = await sample(pids, db, watch)
        lat0 = sum(len(p.latencies) for players, _ in tables for p in players)
        while time.perf_counter() - first.at < args.seconds:
            await asyncio.sleep(1)
            progress.advance(playing)
            _raise_failed(runs)
        last = await sample(pids, db, watch)
        progress.remove_task(playing)
        async with httpx.AsyncClient() as http:
            held = [(await http.get(f"{b}/api/health")).json()["tables"] for b in bases]
        end = [node_rss(pid) for pid in pids]
        lat = [x for players, _ in tables for p in players for x in p.latencies]
        channels = [k[2:] for k in last.redis if k.startswith("m:")]
        numsub = {str(c): n for c, n in await redis.pubsub_numsub(*channels)} if channels else {}
        size = await db.fetchval(
            "SELECT pg_total_relation_size('table_events')::float / greatest(count(*), 1)"
            " FROM table_events"
        )
        per_game = await db.fetchval(
            "WITH last AS (SELECT table_id, max(version) AS v FROM table_events"
            " WHERE kind = 'game_over' GROUP BY table_id)"
            " SELECT count(*) FILTER (WHERE kind = ANY($1::text[]))::float"
            " / nullif(count(*) FILTER (WHERE kind = 'game_over'), 0)"
            " FROM table_events e JOIN last USING (table_id) WHERE e.version <= last.v",
            list(ACTIONS),
        )
        return figures(
            run,
            count,
            first,
            last,
            idle,
            end,
            held,
            lat[lat0:],
            numsub,
            size,
            per_game,
            idle_cpu,
            sum(p.refusals for players, _ in tables for p in players),
            [p.moves for players, _ in tables for p in players],
        )
    finally:
        for task in runs:
            task.cancel()
        await asyncio.gather(*runs, return_exceptions=True)
        for players, _ in tables:
            for p in players:
                with contextlib.suppress(Exception):
                    await p.ws.close()
        await watch.stop()
        for _base, proc in nodes:
            proc.terminate()
        for _base, proc in nodes:
            proc.wait(30)
        if db is not None:
            await db.close()
        async for key in redis.scan_iter(f"{prefix}*"):
            await redis.delete(key)
        await redis.aclose()
        await scratch_database(args.postgres, drop=name)


def _raise_failed(runs: list[asyncio.Task[None]]) -> None:
    """A client that failed (the server refused an action) stops the run."""
    for task in runs:
        if task.done() and not task.cancelled() and task.exception() is not None:
            raise RuntimeError("a client failed") from task.exception()


def figures(
    args: argparse.Namespace,
    count: int,
    first: Sample,
    last: Sample,
    idle: list[tuple[float, float]],
    end: list[tuple[float, float]],
    held: list[int],
    lat: list[float],
    numsub: dict[str, int],
    row_bytes: float,
    per_game: float | None,
    idle_cpu: float,
    refused: int,
    moves: list[int],
) -> dict[str, Any]:
    """The printed figures of one cluster size."""
    wall = last.at - first.at
    actions = last.actions - first.actions
    events = last.events - first.events
    published = delivered = pub_bytes = del_bytes = 0
    for key, n in last.redis.items():
        if key.startswith("m:"):
            channel = key[2:]
            msgs, size = (
                n - first.redis[key],
                last.redis["b:" + channel] - first.redis["b:" + channel],
            )
            readers = numsub.get(channel, 0)  # (a pattern subscriber, this script, not counted)
            published, pub_bytes = published + msgs, pub_bytes + size
            delivered, del_bytes = delivered + msgs * readers, del_bytes + size * readers
    per_table = [
        round((e[0] - i[0]) * 1024 / h, 1) if h else None
        for i, e, h in zip(idle, end, held, strict=True)
    ]
    return {
        "nodes": count,
        "routing": args.routing,
        "direct (nodes advertise their address)": args.direct,
        "sockets sent to another node when opened, of all": f"{sum(1 for m in moves if m)}"
        f" of {len(moves)}",
        "tables": args.tables,
        "humans per table (and bots)": args.humans
        if args.humans == 4
        else f"{args.humans} ({args.bots})",
        "think seconds (mean)": args.think,
        "load average (1, 5, 15 min)": [round(x, 2) for x in os.getloadavg()],
        "measured seconds": round(wall, 1),
        "actions": actions,
        "actions per second": round(actions / wall, 1),
        "actions per table per minute": round(actions / wall * 60 / args.tables, 1),
        "games per minute": round((last.games - first.games) / wall * 60, 1),
        # Games end in bursts while the tables are in their first games (they all began
        # together): the steady rate is the action rate over the actions a game takes.
        "actions per finished game; games/min at that": [
            round(per_game, 1) if per_game else None,
            round(actions / wall * 60 / per_game, 1) if per_game else None,
        ],
        "latency p50, p99 ms": [
            round(statistics.median(lat) * 1000, 1) if lat else None,
            p99(lat) if len(lat) >= 100 else None,
        ],
        "actions refused and sent again (unavailable, try_again)": refused,
        "server CPU seconds (all nodes)": round(last.cpu - first.cpu, 2),
        "server CPU ms per action": round((last.cpu - first.cpu) / max(1, actions) * 1000, 3),
        # What the nodes spend with no table open (ticks, lease renewals) is paid once per
        # node however many actions it runs: at a low action rate it weighs on the sum.
        "idle nodes' CPU ms per second (all nodes)": round(idle_cpu * 1000, 1),
        "server CPU ms per action, less the idle CPU": round(
            (last.cpu - first.cpu - idle_cpu * wall) / max(1, actions) * 1000, 3
        ),
        "tables held, by node": held,
        "RSS MiB by node (idle -> end)": [
            f"{i[0]:.0f} -> {e[0]:.0f}" for i, e in zip(idle, end, strict=True)
        ],
        "bot workers' RSS MiB by node": [round(e[1]) for e in end],
        "RSS KiB per table held, by node": per_table,
        "events per action": round(events / max(1, actions), 2),
        "bytes per stored event (row; with indexes)": [
            round((last.event_bytes - first.event_bytes) / max(1, events)),
            round(row_bytes),
        ],
        "PostgreSQL rows written per second": round(
            (last.rows_written - first.rows_written) / wall, 1
        ),
        "PostgreSQL commits per second": round((last.commits - first.commits) / wall, 1),
        "PostgreSQL database growth KiB/s": round(
            (last.db_bytes - first.db_bytes) / wall / 1024, 1
        ),
        "Redis messages/s published, delivered": [
            round(published / wall, 1),
            round(delivered / wall, 1),
        ],
        "Redis KiB/s published, delivered": [
            round(pub_bytes / wall / 1024, 1),
            round(del_bytes / wall / 1024, 1),
        ],
    }


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    out = []
    columns = (TextColumn("{task.description}"), BarColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        modes = {"off": [False], "on": [True], "alternate": [False, True]}[args.direct]
        for count in args.nodes:
            for direct in modes:
                got = await one_size(args, count, direct, progress)
                out.append(got)
                for key, value in got.items():
                    print(f"{key:>44}: {value}", flush=True)
                if args.reference and count > 1 and not args.per_node:
                    # One node with each of the N nodes' share of the tables: what an action
                    # costs at that load per node without a cluster around it.
                    alone = await one_size(
                        args, 1, direct, progress, share=max(1, round(args.tables / count))
                    )
                    alone["reference for nodes"] = count
                    out.append(alone)
                    for key, value in alone.items():
                        print(f"{key:>44}: {value}", flush=True)
    return out


def positive_ints(text: str) -> list[int]:
    """``1,2,3`` -> ``[1, 2, 3]``."""
    try:
        out = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of node counts: {text!r}") from None
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError(f"node counts must be 1 or more: {text!r}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--postgres",
        required=True,
        help="a PostgreSQL server URL (postgresql://user@host/db) to make scratch databases on",
    )
    parser.add_argument(
        "--redis",
        default="redis://127.0.0.1:6379/0",
        help="the Redis URL the nodes share (each run under a key prefix of its own)",
    )
    parser.add_argument(
        "--nodes",
        type=positive_ints,
        default=[1, 2, 3],
        help="cluster sizes to measure, one after the other (default 1,2,3)",
    )
    parser.add_argument("--tables", type=int, default=100, help="tables played at once (100)")
    parser.add_argument(
        "--per-node",
        action="store_true",
        help="--tables per node: N nodes play N times as many tables (the same load per node)",
    )
    parser.add_argument(
        "--reference",
        action="store_true",
        help="after each N > 1, also one node with --tables / N tables (the same load per "
        "node as each of the N), and the N nodes' figure over that one's",
    )
    parser.add_argument(
        "--humans",
        type=int,
        choices=range(1, 5),
        default=4,
        help="client players per table, seats 0.. (4); the other seats are played by --bots",
    )
    parser.add_argument("--bots", default="greedy", help="bot level of the seats left (greedy)")
    parser.add_argument(
        "--routing",
        choices=("spread", "hash", "owner"),
        default="spread",
        help="where a table's sockets go: spread over the nodes, all on the node hashed from "
        "the table id, or all on the table's owner (spread)",
    )
    parser.add_argument(
        "--direct",
        choices=("off", "on", "alternate"),
        default="off",
        help="nodes advertise their address and a socket at a non-owner is sent to the owner "
        "(on), or relayed (off), or each N measured both ways, relayed first (off)",
    )
    parser.add_argument(
        "--think", type=float, default=1.0, help="mean seconds a client waits before acting (1)"
    )
    parser.add_argument(
        "--games", type=int, default=100, help="games per table's match (100: play never stops)"
    )
    parser.add_argument("--preset", default="standard", help="the tables' rules (standard)")
    parser.add_argument(
        "--warmup", type=float, default=10.0, help="seconds played before measuring (10)"
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds measured (60)")
    parser.add_argument(
        "--idle",
        type=float,
        default=5.0,
        help="seconds the nodes' CPU is measured with no table open, before the tables (5)",
    )
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    direct = "direct (nodes advertise their address)"
    for mode in dict.fromkeys(r[direct] for r in results):
        how = "direct" if mode else "relayed"
        for figure in ("server CPU ms per action", "server CPU ms per action, less the idle CPU"):
            ours = [r for r in results if r[direct] == mode]
            medians = {
                n: statistics.median(
                    r[figure] for r in ours if r["nodes"] == n and "reference for nodes" not in r
                )
                for n in dict.fromkeys(args.nodes)
            }
            for n, ms in medians.items():
                against = f", {ms / medians[1]:.2f}x one node's" if 1 in medians else ""
                alone = [r[figure] for r in ours if r.get("reference for nodes") == n]
                if alone:
                    one = statistics.median(alone)
                    against += f"; one node at 1/{n} of the tables {one:.3f}, {ms / one:.2f}x"
                print(f"{figure}, {how}, {n} node(s): {ms:.3f} (median of runs){against}")


if __name__ == "__main__":
    main()
