"""Operations: liveness, readiness and the Prometheus metrics (see :mod:`..health` and
:mod:`..metrics`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse

from ..deps import Node
from ..health import readiness
from ..metrics import CONTENT_TYPE

__all__ = ["router"]

router = APIRouter()


@router.get("/api/health")
async def health(srv: Node) -> dict[str, Any]:
    """Liveness: the process answers (nothing outside it is asked); which cluster node
    this is (``null`` on a single server)."""
    w = srv.writer
    return {
        "ok": True,
        "node": srv.cluster.node if srv.cluster is not None else None,
        "tables": len(srv.tables),
        "commits": w.commits,
        "writes": w.writes,
    }


@router.get("/api/ready")
async def ready(srv: Node) -> JSONResponse:
    """Readiness: 200 while this node can serve, 503 (with what failed) while not."""
    ok, checks = await readiness(srv)
    return JSONResponse({"ready": ok, "checks": checks}, status_code=200 if ok else 503)


@router.get("/metrics")
async def metrics(srv: Node) -> Response:
    """Prometheus metrics (text exposition format)."""
    return Response(srv.metrics.render(), media_type=CONTENT_TYPE)
