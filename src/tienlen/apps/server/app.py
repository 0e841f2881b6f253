"""The ASGI application: the routers (:mod:`.routes`), the server's life with the app's, and
the error handlers that answer every refusal as ``{"code", "message"}``. Nothing imports
this module: it builds the application only."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI
from fastapi.middleware.gzip import GZipMiddleware

from . import errors
from .config import Settings
from .node import Server
from .routes import analysis, games, operations, pads, pages, players, sockets, tables

__all__ = ["create_app"]


def create_app(settings: Settings, *, server: Server | None = None) -> FastAPI:
    """The ASGI app; starts and stops its :class:`~.node.Server` with the app's lifespan
    unless one already started is given."""
    own = server is None
    srv = server if server is not None else Server(settings)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if own:
            await srv.start()
        yield
        if own:
            await srv.stop()

    app = FastAPI(title="tienlen", lifespan=lifespan)
    app.state.server = srv
    # The pages' files and the engine's catalogues are text: compressed, a page is a
    # fraction of its bytes (docs/web.md measures both).
    app.add_middleware(GZipMiddleware, minimum_size=1024)
    for router in (pages, pads, operations, players, tables, games, analysis, sockets):
        app.include_router(router.router)
    errors.install(app)
    return app
