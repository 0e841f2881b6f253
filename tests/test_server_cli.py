"""``tienlen serve`` start-up: one clear line when the port is taken or the database cannot
be reached; the lobby socket's live updates; bots in worker processes."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ports import free_port
from serverkit import HANG, Client, LiveServer, database, play_out, server_settings
from tienlen.apps.cli import main


def test_a_taken_port_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["serve", "--data", str(tmp_path), "--port", str(port)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert err.startswith(f"tienlen serve: cannot listen on 127.0.0.1:{port}: ")


def test_an_unreachable_database_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = free_port()  # nothing listens there
    url = f"postgresql+asyncpg://nobody@127.0.0.1:{dead}/none"
    args = ["serve", "--data", str(tmp_path), "--port", "0", "--database-url", url]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert err.startswith(f"tienlen serve: cannot use the database {url}: ")


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_shuts_down_cleanly(tmp_path: Path, sig: signal.Signals) -> None:
    """Stopped with SIGTERM or SIGINT (Ctrl-C), the server closes its bot pool and database
    and exits 0 (uvicorn raising the signal again used to kill it, or cancel the shutdown,
    first: the pool's semaphores leaked)."""
    port = free_port()
    args = ["serve", "--data", str(tmp_path), "--port", str(port), "--log-level", "warning"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tienlen.apps.cli", *args],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + HANG
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health").status_code == 200:
                break
        except httpx.TransportError:
            assert proc.poll() is None and time.monotonic() < deadline, "it did not start"
            time.sleep(0.05)
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=HANG)
    assert proc.returncode == 0, err
    assert "leaked" not in err and "Traceback" not in err, err


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    with database("sqlite", tmp_path) as url:
        server = LiveServer(server_settings(url, tmp_path, bot_pool="process", bot_workers=1))
        yield server
        server.close()


def test_the_lobby_is_live_and_bots_think_in_worker_processes(live: LiveServer) -> None:
    watcher, host = Client(live.base, "Watcher"), Client(live.base, "Host")
    lobby = watcher.socket("", welcome=False)
    assert lobby.recv() == {"type": "lobby", "tables": []}
    table = host.create(bots=["random", "greedy", "heuristic", "random"])["table"]["id"]
    listed = lobby.recv()
    assert listed["type"] == "lobby_new" and [t["id"] for t in listed["tables"]] == [table]
    s = host.socket(table)
    s.until(lambda m: m["type"] == "state")
    s.send(type="sit", seat=0)
    s.batch()
    assert lobby.recv()["table"]["seats"][0]["player"] == host.id
    s.send(type="start")
    play_out({0: s})
    assert s.table is not None and s.table["status"] == "finished"
    while True:  # the finished table leaves the list
        update = lobby.recv()
        if update["table"]["status"] == "finished":
            assert update["removed"]
            break


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--workers", "2"], "--workers runs several nodes on one port: they need --redis-url"),
        (["--redis-url", "redis://127.0.0.1:1/0"], "needs a PostgreSQL --database-url"),
        (
            [
                *("--redis-url", "redis://127.0.0.1:1/0"),
                *("--database-url", "postgresql+asyncpg://x/y"),
                *("--lease-ttl", "1", "--lease-renew", "2"),
            ],
            "--lease-renew must be positive and shorter than --lease-ttl",
        ),
        (["--advertise-url", "https://n1.example.org"], "it needs --redis-url, one worker"),
    ],
)
def test_cluster_options_that_cannot_work_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], says: str
) -> None:
    assert main(["serve", "--data", str(tmp_path), "--port", "0", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert err.startswith("tienlen serve: ") and says in err, err


@pytest.mark.parametrize(
    "url", ["n2.example.org", "ftp://n2.example.org", "https://", "https://x/n2?a=1", "http://x:no"]
)
def test_an_advertised_url_that_is_not_a_base_url_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--data", str(tmp_path), "--advertise-url", url])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "an advertised URL is the node's base URL" in err and repr(url) in err, err


def test_an_advertised_url_is_kept_without_its_trailing_slash() -> None:
    from tienlen.apps.server.direct import advertised, socket_url

    assert advertised("https://example.org/node/n2/") == "https://example.org/node/n2"
    assert socket_url("https://example.org/node/n2", "T 1") == (
        "wss://example.org/node/n2/ws/tables/T%201"
    )
    assert socket_url("http://127.0.0.1:8002", "T") == "ws://127.0.0.1:8002/ws/tables/T"


@pytest.mark.slow
def test_workers_that_cannot_start_stop_the_server(tmp_path: Path) -> None:
    """``--workers``: a node process that cannot use the database exits 2 and says why; the
    server then stops the others and exits 2 too (instead of starting them again forever)."""
    dead = free_port()  # nothing listens there
    url = f"postgresql+asyncpg://nobody@127.0.0.1:{dead}/none"
    args = ["serve", "--port", "0", "--database-url", url, "--workers", "2"]
    args += ["--redis-url", f"redis://127.0.0.1:{dead}/0", "--log-level", "warning"]
    proc = subprocess.run(
        [sys.executable, "-m", "tienlen.apps.cli", *args],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert proc.returncode == 2
    assert "tienlen serve: cannot use the database" in proc.stderr
