"""Operations: liveness and readiness for a load balancer, and the Prometheus metrics."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from serverkit import (
    LiveServer,
    backend,  # noqa: F401  (the fixture)
    database,
    play_out,
    seated_table,
    server_settings,
)
from tienlen.apps.server import Server, create_app


@pytest.fixture
def live(backend: str, tmp_path: Path) -> Iterator[LiveServer]:  # noqa: F811
    with database(backend, tmp_path) as url:
        server = LiveServer(server_settings(url, tmp_path))
        yield server
        server.close()


def test_a_started_server_is_live_and_ready(live: LiveServer) -> None:
    assert httpx.get(f"{live.base}/api/health").json()["ok"] is True
    r = httpx.get(f"{live.base}/api/ready")
    assert r.status_code == 200, r.text
    assert r.json() == {"ready": True, "checks": {"server": "ok", "database": "ok"}}


def test_a_failing_probe_makes_the_node_unready_and_liveness_stays(live: LiveServer) -> None:
    async def down() -> None:
        raise ConnectionError("Connection refused")

    assert live.server is not None
    live.server.probes["redis"] = down
    r = httpx.get(f"{live.base}/api/ready")
    assert r.status_code == 503
    assert r.json()["checks"] == {
        "server": "ok",
        "database": "ok",
        "redis": "ConnectionError: Connection refused",
    }
    assert httpx.get(f"{live.base}/api/health").status_code == 200
    del live.server.probes["redis"]
    assert httpx.get(f"{live.base}/api/ready").status_code == 200


def test_readiness_follows_the_server_through_start_and_stop(tmp_path: Path) -> None:
    """Not ready before the migrations and the tables are loaded, nor once stopping."""

    async def main() -> list[tuple[int, str]]:
        settings = server_settings(f"sqlite+aiosqlite:///{tmp_path / 't.db'}", tmp_path)
        srv = Server(settings)
        app = create_app(settings, server=srv)
        seen = []
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:

            async def probe() -> None:
                r = await http.get("/api/ready")
                seen.append((r.status_code, r.json()["checks"]["server"]))
                assert (await http.get("/api/health")).status_code == 200

            await probe()
            await srv.start()
            await probe()
            await srv.stop()
            await probe()
        return seen

    assert asyncio.run(main()) == [
        (503, "starting (migrating, loading tables)"),
        (200, "ok"),
        (503, "shutting down"),
    ]


def scrape(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample at ``/metrics``, by name and labels (parsed by the library's parser)."""
    r = httpx.get(f"{base}/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


def test_metrics_count_tables_sockets_actions_commits_and_bots(live: LiveServer) -> None:
    before = scrape(live.base)
    assert before[("tienlen_tables", (("status", "playing"),))] == 0
    assert before[("tienlen_action_seconds_count", ())] == 0
    clients, sockets, _table = seated_table(live, ["Ann"], bots="random")
    seated = scrape(live.base)
    assert seated[("tienlen_tables", (("status", "waiting"),))] == 1
    assert seated[("tienlen_connections", (("kind", "table"),))] == 1
    assert seated[("tienlen_actions_total", (("by", "player"),))] == 1  # the sit
    sockets[0].send(type="start")
    play_out({0: sockets[0]}, actions=3)
    after = scrape(live.base)
    assert after[("tienlen_tables", (("status", "playing"),))] == 1
    assert after[("tienlen_tables", (("status", "waiting"),))] == 0
    players = after[("tienlen_actions_total", (("by", "player"),))]
    assert players == 1 + 1 + 3  # the sit, the start and three moves
    # Every player action was timed to its broadcast; every commit was timed.
    assert after[("tienlen_action_seconds_count", ())] == players
    assert after[("tienlen_action_seconds_bucket", (("le", "+Inf"),))] == players
    assert after[("tienlen_db_commit_seconds_count", ())] == after[("tienlen_db_commits_total", ())]
    assert after[("tienlen_db_commits_total", ())] > before[("tienlen_db_commits_total", ())]
    bots = after[("tienlen_actions_total", (("by", "bot"),))]
    assert bots >= 3  # three bots moved between each of Ann's moves at least
    decisions = after[("tienlen_bot_decision_seconds_count", (("level", "random"),))]
    assert decisions >= bots
    assert after[("tienlen_db_commit_failures_total", ())] == 0
    sockets[0].close()
    clients[0].http.close()
