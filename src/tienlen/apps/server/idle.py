"""Tables nobody is at: they stop, rather than play bot games for no one.

A table whose seats are all bots, playing with nobody watching for
``Settings.abandon_after`` seconds, is closed (a ``closed`` event ends its match). A table
whose seated players are all away waits: its bots do not play on (the server schedules no
move at it) until one of them comes back.

Tables are loaded when needed (:mod:`.memory`), so one of bots only left playing by a restart
(or by a cluster node that died) would wait unloaded, listed as playing, forever: every
``abandon_after`` the rows of the tables played by bots only are read (by index:
:data:`.db.UNATTENDED`), and such a table that no node holds is loaded (a cluster node takes
it), to be closed as above.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Protocol

from .config import Settings
from .tables import Refused, Table

__all__ = ["abandoned", "close_abandoned", "humans_away", "wake_abandoned"]

log = logging.getLogger("tienlen.server")


class Closer(Protocol):
    """The server's part that :func:`close_abandoned` uses."""

    @property
    def settings(self) -> Settings:
        """The server's settings."""

    @property
    def tables(self) -> Mapping[str, Table]:
        """The live tables, by id."""

    def runs(self, table: Table) -> bool:
        """Whether this process runs the table (a cluster node: if it owns it)."""

    async def close(self, table_id: str) -> None:
        """Close the table if it is (still) abandoned."""

    async def take(self, table_id: str) -> Table | None:
        """The table held here, loaded (a cluster node: taken) if nobody holds it."""

    async def playing_bots_only(self) -> list[str]:
        """The tables whose rows say they are played by bots only."""


def abandoned(table: Table) -> bool:
    """Whether a playing table has no player in a seat and nobody with it open."""
    return (
        table.status == "playing"
        and all(seat.player is None for seat in table.seats)
        and not table.watching()
    )


def humans_away(table: Table) -> bool:
    """Whether the table has seated players and every one of them is away."""
    players = [seat for seat in table.seats if seat.player is not None]
    return bool(players) and all(seat.away for seat in players)


async def close_abandoned(server: Closer) -> None:
    """Close each table this process runs once it has been abandoned for the configured
    time (looked at a few times within it); runs until cancelled."""
    after = server.settings.abandon_after
    every = min(max(after / 4, 0.05), 5.0)
    since: dict[str, float] = {}
    while True:
        await asyncio.sleep(every)
        now = time.monotonic()
        for table_id, table in list(server.tables.items()):
            if not (server.runs(table) and abandoned(table)):
                since.pop(table_id, None)
            elif now - since.setdefault(table_id, now) >= after:
                del since[table_id]
                try:
                    await server.close(table_id)
                except Refused:  # being rebuilt (its database did not answer): later
                    continue


async def wake_abandoned(server: Closer) -> None:
    """Every ``abandon_after`` seconds, load the tables of bots only left playing that no
    node holds, so that :func:`close_abandoned` closes them; runs until cancelled."""
    every = max(server.settings.abandon_after, 1.0)
    while True:
        await asyncio.sleep(every)
        try:
            waiting = [t for t in await server.playing_bots_only() if t not in server.tables]
            for table_id in waiting:
                await server.take(table_id)
        except Exception:  # the database or Redis does not answer: next time
            log.warning("waking tables of bots only failed; trying again later", exc_info=True)
