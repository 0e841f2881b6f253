"""The HAProxy configurations of docs/deploy.md, run: a real ``haproxy`` in front of two
``tienlen serve`` nodes puts every socket of a table on one node, with the first
configuration by consistent hashing of the path (the table id), with the second by sending
a socket to the owner's own path prefix (``--advertise-url``; the client follows the
``moved`` frame through the proxy). Each configuration is taken from the document itself,
with only its listening address and its servers' ports changed, so the document is what is
tested. Skipped without the ``haproxy`` binary (``apt-get install haproxy``), PostgreSQL or
Redis."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from backends import POSTGRES
from ports import free_port
from serverkit import HANG, Client, database

REDIS = os.environ.get("TIENLEN_TEST_REDIS_URL")
pytestmark = [
    pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs haproxy"),
    pytest.mark.skipif(
        POSTGRES is None or REDIS is None,
        reason="needs TIENLEN_TEST_POSTGRES_URL and TIENLEN_TEST_REDIS_URL",
    ),
]
DEPLOY = Path(__file__).resolve().parent.parent / "docs" / "deploy.md"
TABLES = 6


def documented_config(listen: int, nodes: list[int], which: int = 0) -> str:
    """The ``which``-th ``haproxy`` block of docs/deploy.md, listening on ``listen`` in plain
    HTTP, its servers 127.0.0.1:8001, :8002 ... on ``nodes`` (the servers past those are
    left out)."""
    blocks = re.findall(r"```haproxy\n(.*?)```", DEPLOY.read_text(encoding="utf-8"), re.S)
    assert len(blocks) > which, "docs/deploy.md has the HAProxy configurations"
    lines = []
    for line in blocks[which].splitlines():
        if re.match(r"\s*(bind |http-request redirect)", line):
            continue  # TLS and its redirect: plain HTTP on loopback here
        server = re.search(r"127\.0\.0\.1:800(\d)", line)
        if server:
            index = int(server.group(1)) - 1
            if index >= len(nodes):
                continue
            line = line.replace(server.group(0), f"127.0.0.1:{nodes[index]}")
        lines.append(line)
        if line.startswith("frontend "):
            lines.append(f"    bind 127.0.0.1:{listen}")
    return "\n".join(lines) + "\n"


def until(test: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + HANG
    while not test():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


@contextlib.contextmanager
def running(argv: list[str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as err:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(HANG)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def table_sockets(port: int) -> int:
    """Open table sockets on the node at ``port`` (its metrics)."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics").text
    found = re.search(r'^tienlen_connections\{kind="table"\} (\S+)$', text, re.M)
    assert found is not None, text
    return int(float(found.group(1)))


@contextlib.contextmanager
def proxied(tmp_path: Path, which: int, advertise: bool) -> Iterator[tuple[str, list[int]]]:
    """Two nodes (``advertise``: each with ``--advertise-url`` at its path prefix on the
    proxy, ``/node/n1`` and ``/node/n2``) behind ``haproxy`` run with the ``which``-th
    documented configuration; the proxy's base URL and the nodes' ports."""
    assert REDIS is not None
    ports = [free_port(), free_port()]
    listen = free_port()
    with contextlib.ExitStack() as stack:
        db = stack.enter_context(database("postgres", tmp_path))
        for i, port in enumerate(ports):
            args = ["serve", "--port", str(port), "--database-url", db, "--redis-url", REDIS]
            args += ["--redis-prefix", f"tienlen-test-{os.getpid()}-{listen}:"]
            args += ["--bot-pool", "thread", "--log-level", "warning"]
            # Every socket comes from the proxy's (loopback) address.
            args += ["--connections-per-address", "1000/60"]
            if advertise:
                args += ["--advertise-url", f"http://127.0.0.1:{listen}/node/n{i + 1}"]
            log = tmp_path / f"node{i}.log"
            node = stack.enter_context(
                running([sys.executable, "-m", "tienlen.apps.cli", *args], log)
            )

            def ready(
                node: subprocess.Popen[bytes] = node, port: int = port, log: Path = log
            ) -> bool:
                assert node.poll() is None, log.read_text()
                try:
                    return httpx.get(f"http://127.0.0.1:{port}/api/ready").status_code == 200
                except httpx.TransportError:
                    return False

            until(ready, f"node {i} is ready")
        config = tmp_path / "haproxy.cfg"
        config.write_text(documented_config(listen, ports, which), encoding="utf-8")
        check = subprocess.run(["haproxy", "-c", "-f", str(config)], capture_output=True, text=True)
        assert check.returncode == 0, check.stdout + check.stderr
        proxy = stack.enter_context(
            running(["haproxy", "-db", "-f", str(config)], tmp_path / "h.log")
        )
        base = f"http://127.0.0.1:{listen}"
        # Through the proxy, the other requests reach both nodes (least connections).
        seen: set[str] = set()

        def both_nodes() -> bool:
            assert proxy.poll() is None, (tmp_path / "h.log").read_text()
            with contextlib.suppress(httpx.TransportError):
                r = httpx.get(f"{base}/api/health")
                if r.status_code == 200:
                    seen.add(r.json()["node"])
            return len(seen) == 2

        until(both_nodes, "the proxy sends requests to both nodes")
        yield base, ports


def test_haproxy_puts_a_tables_sockets_on_one_node(tmp_path: Path) -> None:
    with proxied(tmp_path, 0, advertise=False) as (base, ports):
        host, guest = Client(base, "Host"), Client(base, "Guest")
        for _ in range(TABLES):
            table = host.create(bots="greedy")["table"]["id"]
            before = [table_sockets(p) for p in ports]
            host.socket(table)
            guest.socket(table)
            after = [table_sockets(p) for p in ports]
            added = sorted(a - b for a, b in zip(after, before, strict=True))
            assert added == [0, 2], f"table {table}: {before} -> {after}"


def test_haproxy_routes_each_nodes_prefix_and_a_socket_follows_its_move(tmp_path: Path) -> None:
    with proxied(tmp_path, 1, advertise=True) as (base, ports):
        ws = base.replace("http://", "ws://")
        host, guest = Client(base, "Host"), Client(base, "Guest")
        table = host.create(bots="greedy")["table"]["id"]
        # The host opens it at node 1's own address: node 1 takes it.
        at_1 = f"{ws}/node/n1/ws/tables/{table}"
        host.socket(table, at=at_1, origin=base)
        assert [table_sockets(p) for p in ports] == [1, 0]
        # The guest, at node 2's address, is sent to node 1's, through the proxy.
        sock = guest.socket(table, at=f"{ws}/node/n2/ws/tables/{table}", origin=base, welcome=False)
        moved = sock.recv()
        assert moved == {"type": "moved", "url": at_1}
        guest.socket(table, at=at_1, moves=1, origin=base)
        # And a socket at the site's own path (either node) ends at node 1 too.
        third = Client(base, "Third")
        sock = third.socket(table, origin=base, welcome=False)
        first = sock.recv()
        if first["type"] == "moved":
            assert first["url"] == at_1
            third.socket(table, at=at_1, moves=1, origin=base)
        else:
            assert first["type"] == "welcome", first
        until(lambda: [table_sockets(p) for p in ports] == [3, 0], "every socket on node 1")
