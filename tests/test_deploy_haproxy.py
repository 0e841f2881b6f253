"""The HAProxy configuration of docs/deploy.md, run: a real ``haproxy`` in front of two
``tienlen serve`` nodes puts every socket of a table on one node (consistent hashing of the
path, which is the table id). The configuration is taken from the document itself, with
only its listening address and its servers' ports changed, so the document is what is
tested. Skipped without the ``haproxy`` binary (``apt-get install haproxy``), PostgreSQL or
Redis."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from backends import POSTGRES
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def documented_config(listen: int, nodes: list[int]) -> str:
    """The ``haproxy`` block of docs/deploy.md, listening on ``listen`` in plain HTTP, its
    servers 127.0.0.1:8001, :8002 ... on ``nodes`` (the servers past those are left out)."""
    block = re.search(r"```haproxy\n(.*?)```", DEPLOY.read_text(encoding="utf-8"), re.S)
    assert block is not None, "docs/deploy.md has an HAProxy configuration"
    lines = []
    for line in block.group(1).splitlines():
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


def test_haproxy_puts_a_tables_sockets_on_one_node(tmp_path: Path) -> None:
    assert REDIS is not None
    ports = [free_port(), free_port()]
    listen = free_port()
    with contextlib.ExitStack() as stack:
        db = stack.enter_context(database("postgres", tmp_path))
        for i, port in enumerate(ports):
            args = ["serve", "--port", str(port), "--database-url", db, "--redis-url", REDIS]
            args += ["--redis-prefix", f"tienlen-test-{os.getpid()}-{listen}:"]
            args += ["--bot-pool", "thread", "--log-level", "warning"]
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
        config.write_text(documented_config(listen, ports), encoding="utf-8")
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
        host, guest = Client(base, "Host"), Client(base, "Guest")
        for _ in range(TABLES):
            table = host.create(bots="greedy")["table"]["id"]
            before = [table_sockets(p) for p in ports]
            host.socket(table)
            guest.socket(table)
            after = [table_sockets(p) for p in ports]
            added = sorted(a - b for a, b in zip(after, before, strict=True))
            assert added == [0, 2], f"table {table}: {before} -> {after}"
