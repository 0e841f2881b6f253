"""Liveness and readiness, for a load balancer or an orchestrator.

``GET /api/health`` (liveness) answers as long as the process serves requests: it touches
nothing outside the process, so a database outage never gets a healthy node restarted.
``GET /api/ready`` (readiness) answers 200 only while this node can do its work: started
(its migrations applied), not shutting down, and the database answering with the schema
this code expects; otherwise 503 with what failed, so the balancer sends clients elsewhere.
An *advisory* probe (a cluster node's Redis) is reported but does not make the node unready:
a node rides a Redis outage out (it serves the tables it owns), and a readiness that failed
on every node at once would take the whole site down.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["PROBE_TIMEOUT", "Probe", "Ready", "readiness"]

#: Seconds one probe may take before it counts as failed (a balancer's check is short).
PROBE_TIMEOUT = 2.0

#: A readiness probe: returns when the dependency is usable, raises when it is not.
Probe = Callable[[], Awaitable[None]]


class Ready(Protocol):
    """What readiness reads of a server."""

    @property
    def stopping(self) -> bool:
        """Shutting down."""

    @property
    def schema(self) -> str | None:
        """The schema revision migrated to (``None`` while starting)."""

    @property
    def probes(self) -> dict[str, Probe]:
        """Readiness probes besides the database's, by name."""

    @property
    def advisory(self) -> set[str]:
        """The probes whose failure is reported without making the node unready."""

    @property
    def engine(self) -> AsyncEngine:
        """The database."""


async def readiness(server: Ready) -> tuple[bool, dict[str, str]]:
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
    ready = all(v == "ok" for k, v in checks.items() if k not in server.advisory)
    for name in server.advisory:
        if checks.get(name, "ok") != "ok":
            checks[name] += " (advisory: the node stays ready)"
    return ready, checks


async def _run(probe: Probe) -> str:
    try:
        await asyncio.wait_for(probe(), PROBE_TIMEOUT)
    except TimeoutError:
        return f"no answer within {PROBE_TIMEOUT:g} s"
    except Exception as e:  # any failure is a "not ready", described
        first = str(e).splitlines()[0] if str(e) else ""
        return f"{type(e).__name__}: {first}"[:200]
    return "ok"


async def _database(server: Ready) -> None:
    """The database answers, at the schema revision this server migrated to."""
    async with server.engine.connect() as conn:
        got: Any = await conn.scalar(text("SELECT version_num FROM alembic_version"))
    if server.schema is not None and got != server.schema:
        raise RuntimeError(f"schema is at {got}, this server runs {server.schema}")
