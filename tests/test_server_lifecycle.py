"""``tienlen serve``'s processes: none outlives its parent, and SIGTERM always ends a node.

A server killed with SIGKILL takes its bot workers with it; a ``--workers`` supervisor
killed with SIGKILL takes its node processes with it (and the port is free again); a node
whose Redis stopped answering still stops within ``--stop-timeout`` of SIGTERM. The process
tree is read from /proc (Linux). Waits are bounded: a process that lingers fails the test."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from backends import POSTGRES
from blackhole import behind_a_blackhole
from ports import free_port
from serverkit import Client, database, play_out, seated_table, until

REDIS = os.environ.get("TIENLEN_TEST_REDIS_URL")
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the process tree from /proc"
)
#: Seconds a child may take to go once its parent was killed (a node stops in order, within
#: its --stop-timeout, which these tests set to STOP).
STOP = 3.0
GONE_WITHIN = STOP + 10.0


def _stat(pid: int) -> tuple[str, int] | None:
    """A process's state letter and parent id (``None``: no such process)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1])


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (children, theirs, ...)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) and stat[0] != "Z":
            parents[int(entry.name)] = stat[1]
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    """Running (a zombie, dead but not yet reaped by its new parent, is not)."""
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


@dataclasses.dataclass
class At:
    """A server's address."""

    base: str


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The ``tienlen serve`` processes a test starts; any left running is killed."""
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        for pid in descendants(proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def serve(
    procs: list[subprocess.Popen[bytes]], port: int, log: Path, *args: str
) -> subprocess.Popen[bytes]:
    """``tienlen serve`` on ``port``, once it answers /api/ready."""
    argv = [sys.executable, "-m", "tienlen.apps.cli", "serve", "--port", str(port), *args]
    argv += ["--stop-timeout", str(STOP), "--log-level", "warning"]
    with log.open("ab") as err:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)
    procs.append(proc)

    def ready() -> bool:
        assert proc.poll() is None, log.read_text()
        try:
            return httpx.get(f"http://127.0.0.1:{port}/api/ready").status_code == 200
        except httpx.TransportError:
            return False

    until(ready, f"the server on {port} is ready")
    return proc


@pytest.mark.slow  # a server and its bot workers started and killed: seconds of waiting
def test_bot_workers_die_with_a_server_killed_with_sigkill(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    port = free_port()
    args = ["--data", str(tmp_path), "--bot-pool", "process", "--bot-workers", "2"]
    server = serve(started, port, tmp_path / "serve.log", *args)
    # The pool starts its workers when bots first move: play a game against three bots.
    at = At(f"http://127.0.0.1:{port}")
    _clients, sockets, _table = seated_table(at, ["Host"], bots="greedy", games=1)
    sockets[0].send(type="start")
    play_out({0: sockets[0]})
    children = descendants(server.pid)
    assert children, "the bots moved in worker processes"
    server.kill()
    server.wait()
    until(lambda: not any(alive(pid) for pid in children), "the bot workers exit", GONE_WITHIN)


needs_cluster = pytest.mark.skipif(
    POSTGRES is None or REDIS is None,
    reason="needs TIENLEN_TEST_POSTGRES_URL and TIENLEN_TEST_REDIS_URL",
)


@needs_cluster
def test_workers_die_with_a_supervisor_killed_with_sigkill(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    assert REDIS is not None
    port = free_port()
    with database("postgres", tmp_path) as db:
        args = ["--database-url", db, "--redis-url", REDIS, "--workers", "2"]
        args += ["--redis-prefix", f"tienlen-test-{os.getpid()}-{port}:"]
        supervisor = serve(started, port, tmp_path / "workers.log", *args)
        workers = until(lambda: len(descendants(supervisor.pid)) >= 2, "two workers")
        workers = descendants(supervisor.pid)
        supervisor.kill()
        supervisor.wait()
        until(lambda: not any(alive(pid) for pid in workers), "the workers exit", GONE_WITHIN)
        # Nothing holds the port any more.
        socket.create_server(("127.0.0.1", port)).close()


@needs_cluster
def test_sigterm_ends_a_node_whose_database_stopped_answering(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    """PostgreSQL blackholed (connections accepted, nothing ever answered) with a request in
    flight: the node cannot close its database connections in order, and its stop ends at
    its deadline all the same (it used to wait for ever)."""
    assert REDIS is not None
    port = free_port()
    with database("postgres", tmp_path) as db, contextlib.closing(behind_a_blackhole(db)) as hole:
        args = ["--database-url", hole.url, "--redis-url", REDIS]
        args += ["--redis-prefix", f"tienlen-test-{os.getpid()}-{port}:", "--bot-pool", "thread"]
        node = serve(started, port, tmp_path / "node.log", *args)
        host = Client(f"http://127.0.0.1:{port}", "Host")
        host.create(bots="greedy")  # the node owns it: a lease to give back
        hole.cut()
        waiting = threading.Thread(target=lambda: _try(host.create, bots="greedy"), daemon=True)
        waiting.start()
        time.sleep(0.5)  # the creation waits on the database
        node.terminate()
        try:
            node.wait(GONE_WITHIN)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the node still runs {GONE_WITHIN:g} s after SIGTERM")


def _try(action: Callable[..., Any], **fields: Any) -> None:
    with contextlib.suppress(httpx.HTTPError, AssertionError):
        action(**fields)
