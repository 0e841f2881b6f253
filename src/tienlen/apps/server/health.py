"""Liveness and readiness, for a load balancer or an orchestrator.

``GET /api/health`` (liveness) answers as long as the process serves requests: it touches
nothing outside the process, so a database outage never gets a healthy node restarted.
``GET /api/ready`` (readiness) answers 200 only while this node can do its work: started
(its migrations applied), not shutting down, the database answering with the schema this
code expects, and every extra probe (Redis, when the node uses it) passing; otherwise 503
with what failed, so the balancer sends clients elsewhere.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import text

if TYPE_CHECKING:
    from .app import Server

__all__ = ["PROBE_TIMEOUT", "Probe", "readiness"]

#: Seconds one probe may take before it counts as failed (a balancer's check is short).
PROBE_TIMEOUT = 2.0

#: A readiness probe: returns when the dependency is usable, raises when it is not.
Probe = Callable[[], Awaitable[None]]


async def readiness(server: Server) -> tuple[bool, dict[str, str]]:
    """Whether ``server`` is ready, and each check's result ("ok" or what is wrong)."""
    checks: dict[str, str] = {}
    if server.stopping:
        checks["server"] = "shutting down"
    elif server.schema is None:
        checks["server"] = "starting (migrating, loading tables)"
    else:
        checks["server"] = "ok"
    probes: dict[str, Probe] = {"database": lambda: _database(server), **server.probes}
    results = await asyncio.gather(*(_run(p) for p in probes.values()))
    checks.update(zip(probes, results, strict=True))
    return all(v == "ok" for v in checks.values()), checks


async def _run(probe: Probe) -> str:
    try:
        await asyncio.wait_for(probe(), PROBE_TIMEOUT)
    except TimeoutError:
        return f"no answer within {PROBE_TIMEOUT:g} s"
    except Exception as e:  # any failure is a "not ready", described
        first = str(e).splitlines()[0] if str(e) else ""
        return f"{type(e).__name__}: {first}"[:200]
    return "ok"


async def _database(server: Server) -> None:
    """The database answers, at the schema revision this server migrated to."""
    async with server.engine.connect() as conn:
        got: Any = await conn.scalar(text("SELECT version_num FROM alembic_version"))
    if server.schema is not None and got != server.schema:
        raise RuntimeError(f"schema is at {got}, this server runs {server.schema}")
