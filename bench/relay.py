"""A client at a table's owner against one relayed through another node (a script, not a
test): what relaying costs, and so why the load balancer should send a table's sockets to
one node (consistent hashing by table id, docs/deploy.md).

Starts two cluster nodes on loopback (a scratch PostgreSQL database, a Redis key prefix of
its own) and one table: a human client in seat 0 and three greedy bots (``--games`` per
match, rematches as needed). The human plays its first legal move in blocks of
``--moves``, alternately connected to the owner and to the other node, ``--rounds`` times;
for each block: the median time from sending a move to hearing it accepted, and the CPU
time both node processes spent per event committed (bots' moves included). Prints each
block, then the medians of each way.

    .venv/bin/python bench/relay.py --postgres postgresql://127.0.0.1:5432/test \\
        --redis redis://127.0.0.1:6379/0 [--rounds 3 --moves 40]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import sys
import time

import httpx
import redis
from failover import Human, Node, tear_down  # this folder: the script's own path
from server_load import scratch_database

#: Clock ticks per second (the unit of /proc/PID/stat's CPU times).
TICKS = os.sysconf("SC_CLK_TCK")


def cpu(pid: int) -> float:
    """Seconds of CPU a process has used (user and system)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def block(human: Human, nodes: list[Node], moves: int) -> tuple[float, float]:
    """The human makes ``moves`` moves; the median seconds to each acceptance, and the CPU
    seconds the nodes spent per event committed meanwhile."""
    human.wait_turn()
    spent = sum(cpu(n.proc.pid) for n in nodes)
    first = human.version
    waits = []
    for _ in range(moves):
        human.wait_turn()
        began = time.perf_counter()
        human.act_until_accepted()
        waits.append(time.perf_counter() - began)
    events = max(human.version - first, 1)
    return statistics.median(waits), (sum(cpu(n.proc.pid) for n in nodes) - spent) / events


def run(args: argparse.Namespace) -> None:
    db = asyncio.run(scratch_database(args.postgres))
    prefix = f"tienlen-relay-{secrets.token_hex(4)}:"
    r = redis.Redis.from_url(args.redis, decode_responses=True)
    args.lease_ttl, args.lease_renew = 5.0, 1.0
    nodes = [Node(args, db, prefix) for _ in range(2)]
    try:
        ids = {n.wait_ready(): n for n in nodes}
        base = nodes[0].base
        guest = httpx.post(f"{base}/api/guest", json={"name": "Human"}).json()
        auth = {"Authorization": f"Bearer {guest['token']}"}
        spec = {"bots": "greedy", "games": args.games}
        table = httpx.post(f"{base}/api/tables", json=spec, headers=auth).json()["table"]["id"]
        human = Human(guest["token"], table)
        human.connect(nodes[0].port)  # the first socket: node 0 takes the table
        human.recv()  # welcome
        human.send({"type": "sit", "seat": 0})
        human.send({"type": "start"})
        human.wait_turn()
        owner = ids[r.get(f"{prefix}owner:{table}") or ""]
        other = next(n for n in nodes if n is not owner)
        got: dict[str, list[tuple[float, float]]] = {"at the owner": [], "relayed": []}
        for k in range(args.rounds):
            for way, node in (("at the owner", owner), ("relayed", other)):
                human.connect(node.port)
                wait, per = block(human, nodes, args.moves)
                got[way].append((wait, per))
                print(
                    f"round {k + 1} {way}: move answered in {wait * 1000:.2f} ms (median), "
                    f"{per * 1000:.2f} ms CPU per event",
                    file=sys.stderr,
                )
        for way, xs in got.items():
            wait = statistics.median(w for w, _ in xs) * 1000
            per = statistics.median(p for _, p in xs) * 1000
            print(f"{way:>14}: {wait:.2f} ms to an answer, {per:.2f} ms CPU per event")
        print(f"load average (1, 5, 15 min): {[round(x, 2) for x in os.getloadavg()]}")
    finally:
        tear_down(nodes, r, prefix, args.postgres, db)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", required=True, help="a PostgreSQL server URL")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--games", type=int, default=100)
    run(parser.parse_args())


if __name__ == "__main__":
    main()
