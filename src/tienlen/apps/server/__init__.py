"""``tienlen serve``: an authoritative online game server (lobby, tables, bots, history).

The server never decides a rule itself: moves and their reasons come from
:class:`tienlen.Game`, what a seat may see from :func:`tienlen.observation.observe`,
records from :mod:`tienlen.record`, scores and rotation from :class:`tienlen.Match`.
``docs/server.md`` says how to run it; ``docs/web-protocol.md`` is the protocol.
"""

from typing import TYPE_CHECKING, Any

from .config import Settings

if TYPE_CHECKING:
    from .app import create_app
    from .node import Server


def __getattr__(name: str) -> Any:
    # The app (FastAPI, SQLAlchemy, Redis, Prometheus) loads on first use: every command's
    # parser reads the settings' defaults, and `tienlen play` should not import a server.
    if name == "Server":
        from .node import Server

        return Server
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Server", "Settings", "create_app"]
