"""The live tables: each table, its lock, its clients and the lobby's (each lobby socket
hears only of the lines its client shows, and of the new tables a window at a time:
:class:`LobbyWatch`); and
:class:`TableHost`, the interface through which the cluster code (:mod:`.cluster`) drives a
node's tables.

Every change to a table is made under its lock, so a table's events are applied, stored and
sent in one order. A table whose commit failed is *restoring* until it is rebuilt from the
database (:mod:`.commits`): it is refused meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import OrderedDict
from collections.abc import Coroutine
from typing import Any, Protocol

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from .client_messages import ClientMessage
from .config import Settings
from .db import TableRow
from .errors import TRY_AGAIN
from .limits import Rate, TokenBucket
from .messages import LobbyMsg, LobbyNewMsg, LobbyTableMsg, TableInfo
from .tables import Pending, Refused, Table

__all__ = [
    "SHOWN_MAX",
    "Actor",
    "Client",
    "Collector",
    "Hub",
    "LobbyListener",
    "LobbyWatch",
    "TableHost",
]

log = logging.getLogger("tienlen.server")


class Actor(Protocol):
    """Who a change is made for: a client's socket here, or one at another node."""

    player: str
    name: str
    chat: TokenBucket


class Client(Actor, Protocol):
    """A client's open socket, as the tables see it: who it is, and its outgoing frames."""

    def send(self, message: BaseModel) -> None:
        """Queue a frame for the client."""

    def send_text(self, text: str) -> None:
        """Queue a frame already written (one another node made for this client)."""


class Collector:
    """A client at another node, as a table's owner sees it: the frames meant for it are
    kept (as they are sent on a socket), to go to its node."""

    def __init__(self, player: str, name: str = "") -> None:
        self.player = player
        self.name = name
        self.chat = TokenBucket(Rate(1, 1.0))
        self.frames: list[str] = []

    def send(self, message: BaseModel) -> None:
        """Keep the frame."""
        self.frames.append(message.model_dump_json(exclude_none=True))

    def send_text(self, text: str) -> None:
        """Keep the frame."""
        self.frames.append(text)


#: The most lines one lobby socket shows (its pages' limit times their number).
SHOWN_MAX = 1000


class LobbyListener(Protocol):
    """What a cluster node does as its lobby sockets come and go (:mod:`.lobbies`): it
    listens for the new tables while it has lobby sockets, and for a table's line while one
    of them shows it (or reads a page that holds it)."""

    def lobbies(self, on: bool) -> None:
        """The node has lobby sockets now (``on``), or none any more."""

    def shown(self, table_id: str, on: bool) -> None:
        """A lobby socket here shows the table now (``on``), or none does any more."""


class LobbyWatch:
    """One lobby socket and the lines its client shows, newest first: up to ``limit`` lines
    for each page it was sent (the first, then one per ``more``), those of the pages and the
    tables listed since. A new table goes first and pushes the last line out when the lines
    fill the pages' room (the client drops it too); a table that leaves the list (finished)
    leaves them. The socket hears of a change to a line it shows at once, and of the new
    tables (the first page is where they go) ``every`` seconds at most, in one frame: those
    listed meanwhile that the room still holds (a site lists hundreds a second). The hub
    finds a line's sockets by the table (:attr:`Hub.showing`), so a line costs what its own
    sockets cost."""

    def __init__(self, hub: Hub, client: Client, limit: int, every: float) -> None:
        self.hub = hub
        self.client = client
        self.limit = limit
        self.every = every
        self.room = 0
        """``limit`` times the pages sent."""
        self.shown: OrderedDict[str, None] = OrderedDict()
        self.held: dict[str, TableInfo] = {}
        """The new tables shown but not sent yet, oldest first."""
        self.timer: asyncio.TimerHandle | None = None
        self.waiting: list[tuple[TableInfo, str, bool, bool]] | None = None
        """While a page is read: the lines heard meanwhile, to go after it (the newest line
        last)."""
        self.pinned: set[str] = set()
        """While a page is read: its tables not shown yet, listened for all the same."""

    def open(self) -> None:
        """The socket is open: one of the hub's lobby sockets."""
        if not self.hub.lobby and self.hub.listener is not None:
            self.hub.listener.lobbies(True)
        self.hub.lobby[self.client] = self

    def reads(self) -> None:
        """A page is being read: the lines heard meanwhile wait for it."""
        self.waiting = []
        self.hub.lobby_reading.add(self)

    def page(self, tables: list[TableInfo], after: str | None) -> None:
        """Send the page read (after table ``after``; ``None``: the first), then the lines
        heard while it was read."""
        self.send_new()  # (the client's lines then are the server's, the page goes last)
        self.room += self.limit
        for t in tables:
            self._show(t.id)
        self.client.send(LobbyMsg(tables=tables, after=after))
        self.unread()

    def pin(self, table_ids: list[str]) -> None:
        """The page being read holds these tables: their lines are listened for from now."""
        for table_id in table_ids:
            if table_id not in self.shown and table_id not in self.pinned:
                self.pinned.add(table_id)
                self._listen(table_id)

    def unread(self) -> None:
        """No page is being read (any more): the lines that waited go out."""
        waiting, self.waiting = self.waiting or [], None
        self.hub.lobby_reading.discard(self)
        self._unpin()
        for line in waiting:
            self.offer(*line)

    def offer(self, info: TableInfo, text: str, removed: bool, new: bool) -> None:
        """A listed table's line (``info``; ``text``, its ``lobby_table`` frame) changed, or
        it is new."""
        table_id = info.id
        if self.waiting is not None:
            self.waiting.append((info, text, removed, new))
        elif table_id in self.held:  # not sent yet: the frame of the new tables has it
            if removed:
                self._hide(table_id)
            else:
                self.held[table_id] = info
        elif table_id in self.shown:
            if removed:
                self._hide(table_id)
            self.client.send_text(text)
        elif new and not removed:
            self._show(table_id)
            self.shown.move_to_end(table_id, last=False)
            if len(self.shown) > self.room:
                self._hide(next(reversed(self.shown)))
            self.held[table_id] = info
            if self.every <= 0:
                self.send_new()
            elif self.timer is None:
                self.timer = asyncio.get_running_loop().call_later(self.every, self.send_new)

    def send_new(self) -> None:
        """Send the new tables held, newest first, in one frame."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.held:
            self.client.send_text(self.hub.new_frame(tuple(reversed(self.held.values()))))
            self.held = {}

    def close(self) -> None:
        """The socket closed: it shows nothing, and is none of the hub's lobby sockets."""
        if self.timer is not None:
            self.timer.cancel()
        self.hub.lobby_reading.discard(self)
        for table_id in list(self.shown):
            self._hide(table_id)
        self._unpin()
        was = self.hub.lobby.pop(self.client, None)
        if was is not None and not self.hub.lobby and self.hub.listener is not None:
            self.hub.listener.lobbies(False)

    def _show(self, table_id: str) -> None:
        self.shown[table_id] = None
        self._listen(table_id)

    def _hide(self, table_id: str) -> None:
        del self.shown[table_id]
        self.held.pop(table_id, None)
        if table_id not in self.pinned:
            self._unlisten(table_id)

    def _unpin(self) -> None:
        pinned, self.pinned = self.pinned, set()
        for table_id in pinned - self.shown.keys():
            self._unlisten(table_id)

    def _listen(self, table_id: str) -> None:
        watches = self.hub.showing.setdefault(table_id, set())
        if not watches and self.hub.listener is not None:
            self.hub.listener.shown(table_id, True)
        watches.add(self)

    def _unlisten(self, table_id: str) -> None:
        watches = self.hub.showing[table_id]
        watches.discard(self)
        if not watches:
            del self.hub.showing[table_id]
            if self.hub.listener is not None:
                self.hub.listener.shown(table_id, False)


class Hub:
    """A node's live tables, their locks and clients, and the lobby's clients."""

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.conns: dict[str, set[Client]] = {}
        """Each table's open sockets at this node (in a cluster, at tables owned here or
        elsewhere)."""
        self.lobby: dict[Client, LobbyWatch] = {}
        self.showing: dict[str, set[LobbyWatch]] = {}
        """Each table's lobby sockets that show its line (or read a page that holds it)."""
        self.listener: LobbyListener | None = None
        """A cluster node's ears for its lobby sockets (``None``: a single server)."""
        self.lobby_reading: set[LobbyWatch] = set()
        """The lobby sockets reading a page (they hear every line meanwhile)."""
        self._new_frame: tuple[tuple[TableInfo, ...], str] = ((), "")
        self.restoring: dict[str, int] = {}
        """Tables whose commit failed, by the last version committed: refused until rebuilt
        from the database (their live state had moved ahead of it)."""
        self.tasks: set[asyncio.Task[None]] = set()

    def lock(self, table_id: str) -> asyncio.Lock:
        """The lock every change to the table is made under."""
        return self.locks.setdefault(table_id, asyncio.Lock())

    def spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``coro`` in the background (cancelled on stop; a failure is logged)."""
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._reap)
        return task

    def _reap(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        # A refused commit (database down) was logged where it failed; the table is rebuilt.
        if error is not None and not isinstance(error, Refused):
            log.error("a background task failed", exc_info=error)

    def live(self, table_id: str) -> Table:
        """The table to read or change now (under its lock); :class:`Refused` while it is
        being rebuilt after a failed commit."""
        if table_id in self.restoring:
            raise Refused("try_again", TRY_AGAIN)
        return self.tables[table_id]

    def table_for(self, table_id: str, player: str, invite: str | None) -> Table:
        """A table ``player`` may see (a private one needs its invite, or a seat there)."""
        table = self.tables.get(table_id)
        if table is None:
            raise Refused("not_found", f"no open table {table_id[:40]!r}")
        member = player == table.host or table.seat_of(player) is not None
        invited = invite is not None and secrets.compare_digest(invite, table.invite or "")
        if table.invite is not None and not member and not invited:
            raise Refused("forbidden", "this table is private: use its invite link")
        return table

    def lobby_update(self, table: Table, *, new: bool = False) -> None:
        """Send the table's line to the lobby's clients that show it (a public table's;
        ``new``: to every one)."""
        if table.config.private or not self.lobby_hears(table.id, new):
            return  # (the line is not even made)
        self.lobby_line(table.info(), table.status == "finished", new=new)

    def lobby_line(self, info: TableInfo, removed: bool, *, new: bool = False) -> None:
        """Send a table's line to the lobby's clients that show it (``removed``: it is
        finished; ``new``: it was just listed, for every lobby client)."""
        if not self.lobby_hears(info.id, new):
            return
        text = LobbyTableMsg(table=info, removed=removed).model_dump_json(exclude_none=True)
        watches = self.lobby.values() if new else self.showing.get(info.id, set())
        for watch in {*watches, *self.lobby_reading}:
            watch.offer(info, text, removed, new)

    def new_frame(self, tables: tuple[TableInfo, ...]) -> str:
        """The ``lobby_new`` frame of these new tables (the last one made is made once for
        the lobby sockets whose windows end together, as most do: they hold the same)."""
        if self._new_frame[0] != tables:
            text = LobbyNewMsg(tables=list(tables)).model_dump_json(exclude_none=True)
            self._new_frame = (tables, text)
        return self._new_frame[1]

    def lobby_hears(self, table_id: str, new: bool) -> bool:
        """Whether any lobby client here is to hear of a table's line."""
        return bool(self.lobby if new else table_id in self.showing or self.lobby_reading)


class TableHost(Protocol):
    """What a cluster node's code uses of the server it runs in: the live tables and their
    locks, the log they are rebuilt from, and the hooks of a table changing hands."""

    @property
    def settings(self) -> Settings:
        """The server's settings."""

    @property
    def engine(self) -> AsyncEngine:
        """The database."""

    @property
    def sessions(self) -> async_sessionmaker[AsyncSession]:
        """Sessions on the database."""

    @property
    def hub(self) -> Hub:
        """The live tables, their locks and clients."""

    async def load(self, row: TableRow) -> Table:
        """A table rebuilt from its stored events."""

    def schedule(self, table: Table) -> None:
        """After a change (or a change of owner): a bot's move or the turn timer."""

    def start_graces(self, table: Table) -> None:
        """A table this node starts running: its absent seated players get their grace."""

    def start_grace(self, table: Table, seat: int, player: str) -> None:
        """``player`` left ``seat`` (watching nowhere now): their grace starts."""

    def end_grace(self, table_id: str, player: str) -> None:
        """``player`` watches the table again: their grace (if running) ends."""

    async def join(
        self, conn: Client, table: Table, since: int | None, *, via: str | None = None
    ) -> bool:
        """A client opened the table (``via``: at that node): welcome and catch-up; whether
        they come back to a seat that is away (done here unless ``via``)."""

    async def sync_here(self, conn: Client, table_id: str, since: int | None) -> None:
        """What ``conn`` missed since ``since``, at a table held here."""

    async def catch_up(self, conn: Client, table: Table, since: int) -> None:
        """The events after ``since`` for ``conn`` (under the table's lock)."""

    def frames(
        self, table: Table, pending: list[Pending], seats: set[int | None]
    ) -> dict[int | None, list[str]]:
        """A committed batch's frames for each of ``seats`` (``None``: spectators)."""

    async def perform(
        self, actor: Actor, table_id: str, op: str, msg: ClientMessage | None = None
    ) -> None:
        """Make a change at a table this node owns (see :meth:`.node.Server.perform`)."""
