"""Operations: liveness and readiness for a load balancer, and the Prometheus metrics."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from serverkit import (
    LiveServer,
    backend,  # noqa: F401  (the fixture)
    database,
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
