"""``tienlen serve``: an authoritative online game server (lobby, tables, bots, history).

The server never decides a rule itself: moves and their reasons come from
:class:`tienlen.Game`, what a seat may see from :func:`tienlen.observation.observe`,
records from :mod:`tienlen.record`, scores and rotation from :class:`tienlen.Match`.
``docs/server.md`` says how to run it; ``docs/web-protocol.md`` is the protocol.
"""

from .app import Server, create_app
from .config import Settings

__all__ = ["Server", "Settings", "create_app"]
