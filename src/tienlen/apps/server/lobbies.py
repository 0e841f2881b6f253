"""A cluster node's lobby on Redis (issue 29): the node hears of the lines its lobby sockets
show, and of the new tables while it has lobby sockets; nothing else of the lobby.

A table's owner publishes its changed line on that line's channel
(:meth:`.bus.Bus.lobby_channel`), a new table goes on the new tables' channel. A node
listens on a line's channel while one of its lobby sockets shows the line (the union of what
they show, :attr:`.hub.Hub.showing`) and on the new tables' while it has lobby sockets
(:class:`.hub.LobbyListener`): a change costs one message for each node that shows it, not
one for every node.

A page is read so that no change to its lines is lost between the read and the listening:
the node waits until Redis has made the subscriptions asked for so far
(:meth:`.bus.Bus.barrier`), reads the page, listens on its lines and, once Redis has made
those subscriptions too, reads again the lines it was not listening on before the first
read. A change heard meanwhile goes to the socket after the page
(:meth:`.hub.LobbyWatch.reads`); the changes of one line come in the order they were made.
A new table a socket shows is listened on once it is heard of, so its line too is read again
once Redis has made that subscription (those listened on within :data:`CATCH_UP_EVERY` in one
read): a change made before is not lost (the socket holds a new table a while,
:class:`.hub.LobbyWatch`, so that line mostly goes in the same frame)."""

from __future__ import annotations

import asyncio

from .bus import Bus
from .hub import LobbyWatch, TableHost
from .lobby import listed, listed_lines
from .messages import TableInfo

__all__ = ["CATCH_UP_EVERY", "Lobbies"]

#: Seconds between two reads of the new tables' lines (a site makes hundreds of tables a
#: second: one read for those listened on meanwhile, not one each).
CATCH_UP_EVERY = 0.2


class Lobbies:
    """The channels a node listens on for its lobby sockets, and the pages they read."""

    def __init__(self, host: TableHost, bus: Bus) -> None:
        self.host = host
        self.bus = bus
        self.since: dict[str, int] = {}
        """Each line listened on: the change of subscription that began it (the count of
        :attr:`.bus.Bus.asked` then)."""
        self.reading = False
        """A page's lines are being listened on (they are read again by :meth:`page`)."""
        self.young: set[str] = set()
        """New tables listened on, whose lines are to be read again."""
        self.catching: asyncio.Task[None] | None = None

    def lobbies(self, on: bool) -> None:
        """Listen on the new tables' channel while the node has lobby sockets."""
        channel = self.bus.lobby_channel(None)
        if on:
            self.bus.listen(channel)
        else:
            self.bus.unlisten(channel)

    def shown(self, table_id: str, on: bool) -> None:
        """Listen on a table's line while a lobby socket here shows it."""
        channel = self.bus.lobby_channel(table_id)
        if on:
            self.bus.listen(channel)
            self.since[table_id] = self.bus.asked
            if not self.reading:  # a new table shown
                self.young.add(table_id)
                if self.catching is None:
                    self.catching = self.host.hub.spawn(self._catch_up())
        else:
            self.bus.unlisten(channel)
            del self.since[table_id]

    async def page(self, watch: LobbyWatch, after: str | None) -> list[TableInfo]:
        """The page after table ``after`` (``None``: the first) for ``watch``, which
        :meth:`.hub.LobbyWatch.reads`: read as the module's description says."""
        mark = await self.bus.barrier()
        sessions, held = self.host.sessions, self.host.hub.tables
        tables = await listed(sessions, held, limit=watch.limit, after=after)
        unsure = {t.id for t in tables if mark is None or self.since.get(t.id, mark + 1) > mark}
        self.reading = True
        try:
            watch.pin([t.id for t in tables])
        finally:
            self.reading = False
        if not unsure:
            return tables
        await self.bus.barrier()
        again = await listed_lines(sessions, held, sorted(unsure))
        # (a table no longer listed, finished meanwhile, leaves the page)
        return [
            again[t.id] if t.id in unsure else t
            for t in tables
            if t.id in again or t.id not in unsure
        ]

    async def _catch_up(self) -> None:
        """The lines of the new tables listened on, read again once Redis has made their
        subscriptions, to the lobby sockets that show them (as if heard)."""
        try:
            while self.young:
                await asyncio.sleep(CATCH_UP_EVERY)
                young, self.young = self.young, set()  # (those asked for before the barrier)
                await self.bus.barrier()
                hub, shown = self.host.hub, sorted(young & self.since.keys())
                lines = await listed_lines(self.host.sessions, hub.tables, shown) if shown else {}
                for line in lines.values():
                    hub.lobby_line(line, False)
        finally:
            self.catching = None
