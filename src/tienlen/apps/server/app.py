"""The server: the FastAPI app (lobby and history over HTTP, one WebSocket per client at a
table), the live tables, and the commit-then-broadcast path every change takes."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from concurrent.futures import BrokenExecutor, Executor
from typing import Annotated, Any, Literal, Protocol
from urllib.parse import urlsplit

from fastapi import Depends, FastAPI, Query, Request, Response, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from tienlen import RULESETS, GameRecord, Rules
from tienlen.observation import observe
from tienlen.players.base import fallback_move
from tienlen.rules import RulesError

from . import auth, bots, errors, idle, pads, web
from .admission import Admission
from .cluster import Cluster, NotOwner, RemoteActor
from .config import Settings
from .db import (
    UNREACHABLE,
    EventRow,
    GamePlayerRow,
    GameRow,
    PlayerRow,
    RatingRow,
    SettingRow,
    TableRow,
    connect,
    migrate,
)
from .errors import TRY_AGAIN, refuse_socket, validation_words
from .frames import FrameGate, frames
from .health import Probe, readiness
from .limits import TokenBucket
from .messages import (
    AcceptMsg,
    AskMsg,
    ClientMessage,
    ErrorMsg,
    EventMsg,
    GiveMsg,
    LobbyMsg,
    LobbyTableMsg,
    OfferMsg,
    PassMsg,
    PlayMsg,
    PongMsg,
    RefuseMsg,
    StateMsg,
    TableInfo,
    WelcomeMsg,
    parse_client,
)
from .metrics import CONTENT_TYPE, Metrics
from .tables import (
    Pending,
    Refused,
    Table,
    TableConfig,
    event_model,
    merged,
    move_action,
)
from .writer import Fenced, Writer

__all__ = ["Server", "create_app"]

log = logging.getLogger("tienlen.server")

#: Events after which the table's seats, status or scores may differ.
_TABLE_KINDS = frozenset(
    {"sit", "stand", "start", "rematch", "deal", "game_over", "match_over", "closed"}
    | {"away", "back"}
)
#: Events that change a table's status (stored in its row, for loading on start).
_STATUS_KINDS = frozenset({"start", "rematch", "match_over", "closed"})
_NAME = re.compile(r"^[^\x00-\x1f\x7f]{1,24}$")
#: Seconds between attempts to rebuild a table from a database that does not answer.
_REBUILD_WAIT = (0.1, 2.0)


class Actor(Protocol):
    """Who a change is made for: a client's socket here, or one at another node."""

    player: str
    name: str
    chat: TokenBucket


class Conn:
    """One client's socket: its identity, its rate limits and its outgoing queue."""

    def __init__(self, ws: WebSocket, player: str, name: str, server: Server, socket: str) -> None:
        self.ws = ws
        self.player = player
        self.name = name
        self.socket = socket
        """Its id in the count of the player's open sockets."""
        self.gate = FrameGate(server.settings, server.admission.bucket(player))
        self.chat = TokenBucket(server.settings.chat)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()

    def send(self, message: BaseModel) -> None:
        """Queue a frame (the writer task sends it, so a slow client delays no one)."""
        self.queue.put_nowait(message.model_dump_json(exclude_none=True))

    async def writer(self) -> None:
        """Send queued frames until the connection closes."""
        while (text := await self.queue.get()) is not None:
            await self.ws.send_text(text)


class NewTable(BaseModel):
    """``POST /api/tables``: a preset, the knobs changed on it, and the table's options."""

    model_config = ConfigDict(extra="forbid", strict=True)
    rules: Annotated[str, Field(max_length=2000)] | None = None
    """A rules code (``Rules.code()``, e.g. ``"standard.direction-anticlockwise"``), instead
    of ``preset`` and ``options``."""
    preset: str = "standard"
    options: dict[str, Any] = Field(default_factory=dict)
    bots: str | list[str] = "greedy"
    """One bot level for every empty seat, or one per seat."""
    turn_timer: Annotated[float, Field(ge=1, le=600)] | None = None
    games: Annotated[int, Field(ge=1, le=100)] | None = None
    target: Annotated[int, Field(ge=1, le=1000)] | None = None
    private: bool = False


class NewGuest(BaseModel):
    """``POST /api/guest``: the display name."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str


class Server:
    """Everything the app holds: settings, database, live tables and their sockets."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.engine, self.sessions = connect(
            settings.url, timeout=settings.db_timeout, connect_timeout=settings.db_connect_timeout
        )
        self.metrics = Metrics(self)
        self.writer = Writer(
            self.engine, EventRow, TableRow.__table__, timed=self.metrics.commit_seconds.observe
        )
        self.key = ""
        self.tables: dict[str, Table] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.conns: dict[str, set[Conn]] = {}
        self.lobby: set[Conn] = set()
        self.timers: dict[str, asyncio.Task[None]] = {}
        self.graces: dict[tuple[str, str], asyncio.Task[None]] = {}
        self.creations: dict[str, TokenBucket] = {}
        self.pad_buckets: dict[tuple[str, str], TokenBucket] = {}
        self.pad_locks: dict[str, asyncio.Lock] = {}
        self.pool = bots.make_pool(settings.bot_pool, settings.bot_workers)
        self.pool_restarts = 0
        self.tasks: set[asyncio.Task[None]] = set()
        self.restoring: dict[str, int] = {}
        """Tables whose commit failed, by the last version committed: refused until rebuilt
        from the database (their live state had moved ahead of it)."""
        self.schema: str | None = None
        """The schema revision migrated to (``None`` until :meth:`start` is done)."""
        self.stopping = False
        self.probes: dict[str, Probe] = {}
        """Readiness probes besides the database's (e.g. Redis), by name."""
        self.cluster = Cluster(self, settings.redis_url) if settings.redis_url else None
        """A cluster node's ownership, fan-out and forwarding (``None``: a single server)."""
        self.admission = Admission(settings, node=self.cluster.node if self.cluster else "")
        """The caps on guests, sockets and connection attempts."""

    # --- life -----------------------------------------------------------------------------
    async def start(self) -> None:
        """Migrate the schema, load the signing key, rebuild every table (a finished one too:
        its final state can be seen and its host can start a rematch)."""
        if self.settings.database_url is None:
            self.settings.data.mkdir(parents=True, exist_ok=True)
        schema = await migrate(self.engine)
        self.key = await self._token_key()
        async with self.sessions() as s:
            rows = (await s.scalars(select(TableRow))).all()
        for row in rows:
            table = await self._load(row)
            self.tables[table.id] = table
            if self.cluster is not None:
                continue  # a replica until this node takes it over (see cluster.py)
            self._schedule(table)
            self._start_graces(table)
        log.info("loaded %d tables", len(rows))
        if self.cluster is not None:
            await self.cluster.start()
            self.probes["redis"] = self.cluster.ping
        self.admission.start()
        self._spawn(idle.close_abandoned(self))
        self.schema = schema

    async def _token_key(self) -> str:
        """The token signing key, made by the first server to start (cluster nodes that
        start together all read the one stored first)."""
        key: str
        try:
            async with self.sessions.begin() as s:
                row = await s.get(SettingRow, "token_key")
                if row is None:
                    row = SettingRow(key="token_key", value=auth.new_key())
                    s.add(row)
                key = row.value
        except IntegrityError:  # another node stored its key first
            async with self.sessions() as s:
                stored = await s.get(SettingRow, "token_key")
            assert stored is not None
            key = stored.value
        return key

    async def stop(self) -> None:
        """Stop timers and the bot pool; close the database."""
        self.stopping = True
        if self.cluster is not None:
            await self.cluster.stop()
        for task in [*self.timers.values(), *self.graces.values(), *self.tasks]:
            task.cancel()
        self.pool.shutdown(wait=True, cancel_futures=True)
        await self.admission.stop()
        await self.engine.dispose()

    async def _load(self, row: TableRow) -> Table:
        table = Table(
            id=row.id,
            host=row.host_id,
            config=TableConfig.from_dict(row.config),
            secret=row.deal_secret,
            invite=row.invite,
        )
        for e in await self.events_since(row.id, 0):  # versions start at 1
            table.apply(e.kind, merged(e.public, e.private))
        return table

    def _lock(self, table_id: str) -> asyncio.Lock:
        return self.locks.setdefault(table_id, asyncio.Lock())

    def _spawn(self, coro: Any) -> asyncio.Task[None]:
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

    def _live(self, table_id: str) -> Table:
        """The table to read or change now (under its lock); :class:`Refused` while it is
        being rebuilt after a failed commit."""
        if table_id in self.restoring:
            raise Refused("try_again", TRY_AGAIN)
        return self.tables[table_id]

    # --- identity -------------------------------------------------------------------------
    async def player_of(self, token: str | None) -> PlayerRow:
        """The player a token names; :class:`Refused` if it is missing or forged."""
        if not token:
            raise Refused("auth", "no token: POST /api/guest first")
        try:
            player_id = auth.verify(self.key, token).player
        except auth.TokenError as e:
            raise Refused("auth", str(e)) from None
        with _database_needed():
            async with self.sessions() as s:
                player: PlayerRow | None = await s.get(PlayerRow, player_id)
        if player is None:
            raise Refused("auth", "the token names no player of this server")
        return player

    async def new_guest(self, name: str) -> tuple[PlayerRow, str]:
        """A new guest and its token."""
        name = name.strip()
        if not _NAME.match(name):
            raise Refused("bad_name", "a name is 1-24 characters, without control characters")
        player = PlayerRow(id=secrets.token_hex(8), name=name)

        async def store(s: AsyncSession) -> None:
            s.add(PlayerRow(id=player.id, name=player.name))
            await s.flush()

        await self.writer.write(store)
        return player, self.issue(player.id)

    def issue(self, player_id: str) -> str:
        """A fresh token for ``player_id``, valid for the configured lifetime."""
        return auth.issue(self.key, player_id, lifetime=self.settings.token_lifetime)

    def renewal_due(self, token: str) -> bool:
        """Whether a valid token has less than half its lifetime left."""
        left = auth.verify(self.key, token).expires - time.time()
        return left < self.settings.token_lifetime / 2

    # --- lobby ----------------------------------------------------------------------------
    async def create_table(self, host: PlayerRow, spec: NewTable) -> Table:
        """A new table from the host's choices; the engine validates the rules."""
        bucket = self.creations.setdefault(host.id, TokenBucket(self.settings.creations))
        if not bucket.take():
            raise Refused("rate_limited", "too many tables created: wait a minute")
        rules = rules_of(spec)
        levels = [spec.bots] * rules.players if isinstance(spec.bots, str) else spec.bots
        if len(levels) != rules.players:
            raise Refused("bad_bots", f"give one bot level or {rules.players}, not {len(levels)}")
        unknown = sorted({b for b in levels if b not in bots.BOT_NAMES})
        if unknown:
            raise Refused(
                "bad_bots",
                f"unknown bot level(s) {', '.join(unknown)}; valid: {', '.join(bots.BOT_NAMES)}",
            )
        games = spec.games if spec.games or spec.target else 1
        config = TableConfig(
            rules=rules,
            preset=rules.name,
            options=changed_knobs(rules),
            bots=tuple(levels),
            turn_timer=spec.turn_timer,
            games=games,
            target=spec.target,
            private=spec.private,
        )
        table = Table(
            id=secrets.token_urlsafe(6),
            host=host.id,
            config=config,
            secret=secrets.token_hex(32),
            invite=secrets.token_urlsafe(16) if spec.private else None,
        )

        async def store(s: AsyncSession) -> None:
            s.add(
                TableRow(
                    id=table.id,
                    host_id=host.id,
                    config=config.to_dict(),
                    deal_secret=table.secret,
                    invite=table.invite,
                    status=table.status,
                )
            )
            await s.flush()

        await self.writer.write(store)
        self.tables[table.id] = table
        self._lobby_update(table)
        if self.cluster is not None:
            await self.cluster.created(table)
        return table

    async def find(self, table_id: str, player: str, invite: str | None) -> Table:
        """:meth:`table_for`; a cluster node first loads a table another node just created."""
        if self.cluster is not None and table_id not in self.tables:
            await self.cluster.load(table_id)
        return self.table_for(table_id, player, invite)

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

    def listed(self) -> list[TableInfo]:
        """The public tables not yet finished."""
        return [
            t.info()
            for t in self.tables.values()
            if not t.config.private and t.status != "finished"
        ]

    def _lobby_update(self, table: Table) -> None:
        if table.config.private or not self.lobby:
            return
        msg = LobbyTableMsg(table=table.info(), removed=table.status == "finished")
        for c in self.lobby:
            c.send(msg)

    # --- the table socket -----------------------------------------------------------------
    async def handle(self, conn: Conn, table: Table, text: str) -> None:
        """One client frame (let through by :mod:`.frames`): refused with an error to this
        client only, or done."""
        try:
            msg = parse_client(text)
        except ValidationError as e:
            raise Refused("bad_message", validation_words(e)) from None
        except ValueError as e:
            raise Refused("bad_message", f"not a JSON message: {e}"[:200]) from None
        if msg.type == "ping":
            conn.send(PongMsg())
            return
        if msg.type == "sync":
            async with self._lock(table.id):
                table = self._live(table.id)
                if self.cluster is not None:
                    await self.cluster.refresh(table)
                await self.catch_up(conn, table, msg.version)
            return
        began = time.perf_counter()
        await self.dispatch(conn, table.id, "msg", msg)
        self.metrics.actions.labels("player").inc()
        self.metrics.action_seconds.observe(time.perf_counter() - began)

    async def dispatch(
        self, actor: Actor, table_id: str, op: str, msg: ClientMessage | None = None
    ) -> None:
        """:meth:`perform` here, or (a cluster node that does not own the table) at the
        owner, whose answer comes back: a :class:`Refused` is raised here as it was there."""
        if self.cluster is not None:
            await self.cluster.dispatch(actor, table_id, op, msg)
        else:
            await self.perform(actor, table_id, op, msg)

    async def perform(
        self, actor: Actor, table_id: str, op: str, msg: ClientMessage | None = None
    ) -> None:
        """Make a change at a table this node runs: ``op`` is ``"msg"`` (a client's
        message), ``"back"`` (a seated player returned) or ``"away"`` (a seated player's
        grace ran out). A cluster node that does not own the table raises :class:`NotOwner`
        and changes nothing."""
        async with self._lock(table_id):
            if table_id not in self.tables:
                raise Refused("not_found", f"no open table {table_id[:40]!r}")
            table = self._live(table_id)
            if self.cluster is not None and table.fence is None:
                raise NotOwner(table_id)
            if op == "msg":
                assert msg is not None
                pending = self._plan(actor, table, msg)
            else:
                pending = self._presence(table, actor.player, op)
            if pending:
                await self._commit(table, pending)

    def _presence(self, table: Table, player: str, op: str) -> list[Pending]:
        """A returning player's ``back``, or an absent one's ``away`` (none if it no longer
        applies: the player is here again, at this node or another, or left the seat)."""
        seat = table.seat_of(player)
        if seat is None:
            return []
        s = table.seats[seat]
        if op == "back":
            if not s.away:
                return []
            return [self._applied(table, Pending("back", {"seat": seat}, actor=player))]
        if player in table.watching() or s.away or table.status != "playing":
            return []
        return [self._applied(table, Pending("away", {"seat": seat}))]

    def _plan(self, conn: Actor, table: Table, msg: ClientMessage) -> list[Pending]:
        """The events a message makes (applied to the table already), or :class:`Refused`."""
        seat = table.seat_of(conn.player)
        if msg.type == "chat":
            text = msg.text.strip()
            if len(text) > self.settings.chat_max:
                raise Refused(
                    "too_long", f"chat lines are limited to {self.settings.chat_max} characters"
                )
            if not conn.chat.take():
                raise Refused("rate_limited", "too many chat lines: slow down")
            return [
                self._applied(
                    table,
                    Pending(
                        "chat",
                        {"player": conn.player, "name": conn.name, "seat": seat, "text": text},
                        actor=conn.player,
                    ),
                )
            ]
        if msg.type == "sit":
            if table.status != "waiting":
                raise Refused("not_waiting", "seats are taken before the match starts")
            if not 0 <= msg.seat < len(table.seats):
                raise Refused("bad_seat", f"seats are 0-{len(table.seats) - 1}")
            if table.seats[msg.seat].player is not None:
                raise Refused("seat_taken", f"seat {msg.seat} is taken")
            if seat is not None:
                raise Refused("seated", f"you already sit in seat {seat}")
            return [
                self._applied(
                    table,
                    Pending(
                        "sit",
                        {"seat": msg.seat, "player": conn.player, "name": conn.name},
                        actor=conn.player,
                    ),
                )
            ]
        if msg.type == "stand":
            if seat is None or table.status != "waiting":
                raise Refused("not_seated", "you can leave a seat you hold before the start")
            return [self._applied(table, Pending("stand", {"seat": seat}, actor=conn.player))]
        if msg.type in ("start", "rematch"):
            want = "waiting" if msg.type == "start" else "finished"
            if conn.player != table.host:
                raise Refused("forbidden", f"only the host may {msg.type}")
            if table.status != want:
                raise Refused("bad_status", f"the table is {table.status}")
            first = self._applied(table, Pending(msg.type, {}, actor=conn.player))
            return [first, table.deal_event(), *table.followups()]
        assert isinstance(
            msg, PlayMsg | PassMsg | GiveMsg | OfferMsg | AcceptMsg | RefuseMsg | AskMsg
        )
        if seat is None:
            raise Refused("not_seated", "spectators cannot play")
        version = msg.version
        # An ask depends on nothing the client saw: its answer is the count when it arrives.
        if msg.type != "ask" and (version < table.state_version or version > table.version):
            raise Refused(
                "stale",
                f"you saw version {version}, the game is at version "
                f"{table.state_version}: sync first",
            )
        fields = msg.model_dump(exclude={"type", "version"})
        if "give" in fields and msg.type == "offer":
            fields["cards"] = fields.pop("give")
        return self._action(table, seat, msg.type, fields, conn.player)

    def _action(
        self, table: Table, seat: int, kind: str, fields: Mapping[str, Any], actor: str | None
    ) -> list[Pending]:
        p = table.plan_action(seat, kind, fields)
        p.actor = actor
        self._applied(table, p)
        return [p, *table.followups()]

    @staticmethod
    def _applied(table: Table, p: Pending) -> Pending:
        seat = p.public.get("seat")
        share = p.private.get(str(seat), {}) if p.private and seat is not None else {}
        p.version = table.apply(p.kind, {**p.public, **share})
        return p

    async def _commit(self, table: Table, pending: list[Pending]) -> None:
        """Store the events (and finished games, ratings), then broadcast them."""
        rows = [
            {
                "table_id": table.id,
                "version": p.version,
                "kind": p.kind,
                "actor": p.actor,
                "public": p.public,
                "private": p.private,
                "fence": table.fence or 0,
            }
            for p in pending
        ]
        # A cluster node writes only under the token it owns the table with (-1, which no
        # table has, if it owns none: nothing is written).
        fences = None
        if self.cluster is not None:
            fences = {table.id: -1 if table.fence is None else table.fence}
        status_changed = any(p.kind in _STATUS_KINDS for p in pending)
        status = table.status

        games = [p.game_row for p in pending if p.game_row is not None]

        async def store(s: AsyncSession) -> None:
            for game in games:
                await self._store_game(s, table, game)
            if status_changed:
                await s.execute(
                    update(TableRow).where(TableRow.id == table.id).values(status=status)
                )

        try:
            await self.writer.write(
                store if games or status_changed else None, rows=rows, fences=fences
            )
        except Fenced:
            # Another node took the table over: this one writes nothing more for it.
            log.warning("table %s: fenced out (another node owns it now)", table.id)
            table.rollback(pending[0].version - 1)
            if self.cluster is not None:
                self.cluster.lost(table)
            raise Refused("moved", "another server runs this table now: try again") from None
        except Exception:
            self.metrics.commit_failures.inc()
            log.exception("table %s: commit failed; rebuilding it from the database", table.id)
            # Nothing of it is kept: the table goes back to what was committed, and is
            # refused until the database answers again and confirms it (or shows that the
            # commit landed after all).
            table.rollback(pending[0].version - 1)
            self.restoring[table.id] = table.version
            self._spawn(self._rebuild(table, pending))
            raise Refused("try_again", TRY_AGAIN) from None
        self._announce(table, pending)
        if self.cluster is not None:
            self.cluster.publish(table.id, rows)
        self._schedule(table)

    async def _rebuild(self, stale: Table, failed: list[Pending]) -> None:
        """Replace a table whose commit failed by its replay from the database, once the
        database answers; then its bots and timer go on.

        Until then the table is refused (:meth:`_live`): its live state holds the events that
        failed. If the commit did land after all (the connection broke after it), the
        replay holds them: they are broadcast, so no client misses them."""
        wait = _REBUILD_WAIT[0]
        while True:
            try:
                async with self.sessions() as s:
                    row = await s.get(TableRow, stale.id)
                assert row is not None
                fresh = await self._load(row)
                break
            except Exception as e:
                log.warning("table %s: cannot rebuild it yet: %s", stale.id, type(e).__name__)
                await asyncio.sleep(wait)
                wait = min(2 * wait, _REBUILD_WAIT[1])
        async with self._lock(stale.id):
            fresh.viewers, fresh.remote_viewers = stale.viewers, stale.remote_viewers
            fresh.fence = stale.fence
            self.tables[stale.id] = fresh
            del self.restoring[stale.id]
            if fresh.version >= failed[-1].version:
                self._broadcast(fresh, failed)
            log.info("table %s: rebuilt at version %d", stale.id, fresh.version)
            self._lobby_update(fresh)
            self._schedule(fresh)

    async def _store_game(self, s: AsyncSession, table: Table, row: Mapping[str, Any]) -> None:
        s.add(
            GameRow(
                id=row["id"],
                table_id=table.id,
                match=row["match"],
                number=row["number"],
                rules_key=row["rules_key"],
                record=row["record"],
            )
        )
        await s.flush()
        for i, seat in enumerate(row["seats"]):
            s.add(
                GamePlayerRow(
                    game_id=row["id"],
                    seat=i,
                    player_id=seat["player"],
                    bot=seat["bot"],
                    place=seat["place"],
                    delta=seat["delta"],
                )
            )
        humans = [(seat["player"], seat["place"]) for seat in row["seats"] if seat["player"]]
        if len(humans) >= 2:
            await _rate(s, row["rules_key"], humans)

    def _announce(self, table: Table, pending: list[Pending]) -> None:
        """Send committed events (committed here, or by a cluster's owner of the table) to
        the table's clients, and the table's line to the lobby if they changed it."""
        self._broadcast(table, pending)
        if any(p.kind in _TABLE_KINDS for p in pending):
            self._lobby_update(table)

    def _broadcast(self, table: Table, pending: list[Pending]) -> None:
        conns = self.conns.get(table.id, ())
        views: dict[int | None, Any] = {}
        info = table.info() if any(p.kind in _TABLE_KINDS for p in pending) else None
        for conn in conns:
            seat = table.seat_of(conn.player)
            if seat not in views:
                views[seat] = table.view(seat)
            for i, p in enumerate(pending):
                last = i == len(pending) - 1
                conn.send(
                    self._event_msg(
                        p.kind,
                        p.version,
                        p.public,
                        p.private,
                        seat,
                        views[seat] if last else None,
                        info if last else None,
                        more=not last,
                    )
                )

    @staticmethod
    def _event_msg(
        kind: str,
        version: int,
        public: Mapping[str, Any],
        private: Mapping[str, Any] | None,
        seat: int | None,
        view: Any = None,
        info: TableInfo | None = None,
        *,
        more: bool = False,
    ) -> EventMsg:
        share = private.get(str(seat), {}) if private and seat is not None else {}
        return EventMsg(
            version=version,
            event=event_model(kind, public, share),
            more=more,
            view=view,
            table=info,
        )

    async def events_since(self, table_id: str, since: int) -> Sequence[EventRow]:
        """A table's stored events after version ``since``, in order."""
        async with self.sessions() as s:
            events: Sequence[EventRow] = (
                await s.scalars(
                    select(EventRow)
                    .where(EventRow.table_id == table_id, EventRow.version > since)
                    .order_by(EventRow.version)
                )
            ).all()
        return events

    async def catch_up(self, conn: Conn, table: Table, since: int | None) -> None:
        """The events after ``since`` for this client's seat, or a full state (no ``since``,
        one past a gap, or the current version: the client gets the view either way).
        Called under the table's lock, so no broadcast interleaves."""
        seat = table.seat_of(conn.player)
        if since is None or not table.version - self.settings.catch_up <= since < table.version:
            view = table.view(seat, history=True)
            conn.send(StateMsg(version=table.version, table=table.info(), view=view))
            return
        with _database_needed():
            events = await self.events_since(table.id, since)
        for i, e in enumerate(events):
            last = i == len(events) - 1
            conn.send(
                self._event_msg(
                    e.kind,
                    e.version,
                    e.public,
                    e.private,
                    seat,
                    table.view(seat) if last else None,
                    table.info() if last else None,
                    more=not last,
                )
            )

    async def connect_table(self, conn: Conn, table: Table, since: int | None) -> None:
        """A client joined the table's socket: welcome, catch-up, and a returning player."""
        grace = self.graces.pop((table.id, conn.player), None)
        if grace is not None:
            grace.cancel()
        async with self._lock(table.id):
            table = self._live(table.id)
            if self.cluster is not None:
                await self.cluster.refresh(table)
            self.conns.setdefault(table.id, set()).add(conn)
            table.viewers[conn.player] = table.viewers.get(conn.player, 0) + 1
            if self.cluster is not None:
                self.cluster.viewing(table)
            seat = table.seat_of(conn.player)
            conn.send(
                WelcomeMsg(
                    player=conn.player,
                    name=conn.name,
                    table=table.id,
                    seat=seat,
                    version=table.version,
                )
            )
            await self.catch_up(conn, table, since)
            away = seat is not None and table.seats[seat].away
        if away:
            try:
                await self.dispatch(conn, table.id, "back")
            except Refused as e:  # the seat stays with its bot until the player acts again
                log.warning("table %s: %s's return not recorded: %s", table.id, conn.player, e)

    def disconnect_table(self, conn: Conn, table: Table) -> None:
        """A client left: a seated player keeps the seat for the grace period."""
        conns = self.conns.get(table.id, set())
        conns.discard(conn)
        left = table.viewers.get(conn.player, 1) - 1
        if left:
            table.viewers[conn.player] = left
        else:
            table.viewers.pop(conn.player, None)
        if self.cluster is not None:
            self.cluster.viewing(table)
        seat = table.seat_of(conn.player)
        if seat is not None and table.status == "playing" and not left:
            self._start_grace(table, seat, conn.player)

    def _start_graces(self, table: Table) -> None:
        """A table this process starts running (on start, or a cluster's takeover): its
        seated players who have it open nowhere get the grace period, then their bots play."""
        if table.status != "playing":
            return
        here = table.watching()
        for i, seat in enumerate(table.seats):
            if seat.player is not None and not seat.away and seat.player not in here:
                self._start_grace(table, i, seat.player)

    def _start_grace(self, table: Table, seat: int, player: str) -> None:
        key = (table.id, player)
        if key not in self.graces:
            self.graces[key] = self._spawn(self._grace(table, seat, player))

    async def _grace(self, table: Table, seat: int, player: str) -> None:
        await asyncio.sleep(self.settings.grace)
        self.graces.pop((table.id, player), None)
        if any(c.player == player for c in self.conns.get(table.id, ())):
            return
        try:
            someone = RemoteActor(player, "", TokenBucket(self.settings.chat))
            await self.dispatch(someone, table.id, "away")
        except Refused as e:
            log.warning("table %s: %s's absence not recorded: %s", table.id, player, e)

    async def close(self, table_id: str) -> None:
        """Close a table nobody plays at (:func:`.idle.abandoned`): its match stops."""
        async with self._lock(table_id):
            table = self._live(table_id)
            if self.runs(table) and idle.abandoned(table):
                await self._commit(table, [self._applied(table, Pending("closed", {}))])
                log.info("table %s: closed (only bots played it, and nobody watched)", table_id)

    # --- bots and the turn timer ----------------------------------------------------------
    def _schedule(self, table: Table) -> None:
        """After a change: let a bot move, or start the turn timer of the human to act."""
        old = self.timers.pop(table.id, None)
        if old is not None and old is not asyncio.current_task():
            old.cancel()
        game = table.game
        if game is None or game.is_over or table.status != "playing" or not self.runs(table):
            return
        if idle.humans_away(table):  # it waits for one of them to come back
            return
        seat = table.seats[game.turn]
        if seat.is_bot:
            self.timers[table.id] = self._spawn(self._bot_turn(table, table.state_version))
        elif table.config.turn_timer is not None:
            self.timers[table.id] = self._spawn(self._timeout(table, table.state_version))

    def runs(self, table: Table) -> bool:
        """Whether this process runs ``table``'s bots and timer (a cluster node: if it owns
        the table)."""
        return self.cluster is None or table.fence is not None

    async def _bot_turn(self, table: Table, version: int) -> None:
        game = table.game
        assert game is not None
        seat = game.turn
        obs, legal = observe(game, seat), game.legal_moves()
        level = table.seats[seat].bot
        loop = asyncio.get_running_loop()
        seed = bots.bot_seed(table.secret, version)
        pool = self.pool
        began = time.perf_counter()
        try:
            try:
                move = await loop.run_in_executor(pool, bots.choose, level, seed, obs, legal)
            except BrokenExecutor:  # a worker died (killed, out of memory): a fresh pool
                self._restart_pool(pool)
                move = await loop.run_in_executor(self.pool, bots.choose, level, seed, obs, legal)
        except Exception:  # a broken bot must not stall the table: play the fallback
            log.exception("table %s: the %s bot failed; playing the fallback move", table.id, level)
            move = fallback_move(legal)
        self.metrics.bot_seconds.labels(level).observe(time.perf_counter() - began)
        async with self._lock(table.id):
            if table.state_version != version or table.game is not game or not self.runs(table):
                return
            kind, fields = move_action(game, move)
            try:
                await self._commit(table, self._action(table, seat, kind, fields, None))
            except Refused:  # not saved (and logged): the table went back
                return
        self.metrics.actions.labels("bot").inc()

    def _restart_pool(self, broken: Executor) -> None:
        """Replace the bot pool that broke (unless another table's bot turn already did)."""
        if self.pool is not broken:
            return
        log.warning("the bot worker pool broke (a worker died); starting a new one")
        broken.shutdown(wait=False, cancel_futures=True)
        self.pool = bots.make_pool(self.settings.bot_pool, self.settings.bot_workers)
        self.pool_restarts += 1

    async def _timeout(self, table: Table, version: int) -> None:
        assert table.config.turn_timer is not None
        await asyncio.sleep(table.config.turn_timer)
        async with self._lock(table.id):
            game = table.game
            if table.state_version != version or game is None or not self.runs(table):
                return
            seat = game.turn
            note = self._applied(table, Pending("timeout", {"seat": seat}))
            kind, fields = table.auto_action()
            try:
                await self._commit(table, [note, *self._action(table, seat, kind, fields, None)])
            except Refused:  # not saved (and logged): the table went back
                return
        self.metrics.actions.labels("timer").inc()

    # --- history --------------------------------------------------------------------------
    async def game_record(self, game_id: str) -> dict[str, Any]:
        """A finished game's record."""
        async with self.sessions() as s:
            row = await s.get(GameRow, game_id)
        if row is None:
            raise Refused("not_found", f"no finished game {game_id[:40]!r}")
        return dict(row.record)

    async def games_of(self, player_id: str) -> list[dict[str, Any]]:
        """A player's finished games, newest first."""
        async with self.sessions() as s:
            rows = (
                await s.execute(
                    select(GamePlayerRow, GameRow)
                    .join(GameRow, GameRow.id == GamePlayerRow.game_id)
                    .where(GamePlayerRow.player_id == player_id)
                    .order_by(GameRow.finished.desc())
                )
            ).all()
        return [
            {
                "game": g.id,
                "table": g.table_id,
                "match": g.match,
                "number": g.number,
                "rules_key": g.rules_key,
                "seat": gp.seat,
                "place": gp.place,
                "delta": gp.delta,
                "finished": g.finished.isoformat(),
            }
            for gp, g in rows
        ]

    async def leaderboard(self, rules_key: str, limit: int) -> list[dict[str, Any]]:
        """The rated players under a rule set, best conservative rating first."""
        async with self.sessions() as s:
            rows = (
                await s.execute(
                    select(RatingRow, PlayerRow.name)
                    .join(PlayerRow, PlayerRow.id == RatingRow.player_id)
                    .where(RatingRow.rules_key == rules_key)
                )
            ).all()
        board = [
            {
                "player": r.player_id,
                "name": name,
                "mu": r.mu,
                "sigma": r.sigma,
                "ordinal": r.mu - 3 * r.sigma,
                "games": r.games,
            }
            for r, name in rows
        ]
        board.sort(key=lambda e: -e["ordinal"])
        return board[:limit]


async def _rate(s: AsyncSession, rules_key: str, humans: list[tuple[str, int]]) -> None:
    """openskill Plackett-Luce update from the humans' finishing places."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rows = []
    for player, _place in humans:
        row = await s.get(RatingRow, (player, rules_key))
        if row is None:
            fresh = model.rating()
            row = RatingRow(
                player_id=player, rules_key=rules_key, mu=fresh.mu, sigma=fresh.sigma, games=0
            )
            s.add(row)
        rows.append(row)
    teams = [[model.create_rating([r.mu, r.sigma])] for r in rows]
    rated = model.rate(teams, ranks=[place for _p, place in humans])
    for row, team in zip(rows, rated, strict=True):
        row.mu, row.sigma, row.games = team[0].mu, team[0].sigma, row.games + 1


def rules_of(spec: NewTable) -> Rules:
    """The rules a new table asks for: a rules code, or a preset and the knobs changed on it
    (read by the engine's strict readers); :class:`Refused` quotes what is wrong."""
    try:
        if spec.rules is not None:
            if {"preset", "options"} & spec.model_fields_set:
                raise Refused("bad_rules", "give a rules code or a preset with options, not both")
            return Rules.from_code(spec.rules)
        if spec.preset not in RULESETS:
            valid = ", ".join(RULESETS)
            raise Refused("bad_rules", f"unknown preset {spec.preset!r}; valid: {valid}")
        if "name" in spec.options:
            raise Refused("bad_rules", "'name' is the preset's label, not an option")
        return Rules.from_dict({**spec.options, "name": spec.preset}, path="options")
    except RulesError as e:
        raise Refused("bad_rules", str(e)) from None


def changed_knobs(rules: Rules) -> dict[str, Any]:
    """The knobs of ``rules`` that differ from its preset's (``Rules.to_dict()`` values)."""
    mine, preset = rules.to_dict(), Rules.preset(rules.name).to_dict()
    return {k: v for k, v in mine.items() if k != "name" and v != preset.get(k)}


@contextlib.contextmanager
def _database_needed() -> Iterator[None]:
    """Database errors (unreachable, connection lost) as a "try again" refusal."""
    try:
        yield
    except UNREACHABLE:
        log.warning("the database did not answer", exc_info=True)
        raise Refused("try_again", TRY_AGAIN) from None


def _origin_ok(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """No Origin (not a browser), the server's own, or one the settings allow."""
    if origin is None:
        return True
    return urlsplit(origin).netloc == host or origin in allowed


def _token(request: Request | WebSocket) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return request.cookies.get(auth.COOKIE)


async def _me(request: Request) -> PlayerRow:
    """The player making an HTTP request (from the cookie or the Bearer token)."""
    server: Server = request.app.state.server
    return await server.player_of(_token(request))


async def _me_renewed(request: Request, response: Response) -> PlayerRow:
    """:func:`_me`, and a browser's cookie renewed once half its lifetime has passed, so an
    active browser keeps its identity."""
    server: Server = request.app.state.server
    token = _token(request)
    player = await server.player_of(token)
    from_cookie = token is not None and token == request.cookies.get(auth.COOKIE)
    if from_cookie and token is not None and server.renewal_due(token):
        _set_cookie(response, server.issue(player.id), server.settings)
    return player


def _set_cookie(response: Response, token: str, settings: Settings) -> None:
    response.set_cookie(
        auth.COOKIE,
        token,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookie,
        max_age=int(settings.token_lifetime),
    )


#: The player making an HTTP request (from the cookie or the Bearer token).
Me = Annotated[PlayerRow, Depends(_me_renewed)]


# --- the app -------------------------------------------------------------------------------
def create_app(settings: Settings, *, server: Server | None = None) -> FastAPI:
    """The ASGI app; starts and stops its :class:`Server` with the app's lifespan unless one
    already started is given."""
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
    app.include_router(web.router)  # the browser game's pages and helpers
    app.include_router(pads.router)  # score pads for games with real cards
    errors.install(app)

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
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

    @app.get("/api/ready")
    async def ready() -> JSONResponse:
        """Readiness: 200 while this node can serve, 503 (with what failed) while not."""
        ok, checks = await readiness(srv)
        return JSONResponse({"ready": ok, "checks": checks}, status_code=200 if ok else 503)

    @app.get("/metrics")
    async def metrics() -> Response:
        """Prometheus metrics (text exposition format)."""
        return Response(srv.metrics.render(), media_type=CONTENT_TYPE)

    @app.post("/api/guest")
    async def guest(body: NewGuest, request: Request, response: Response) -> dict[str, str]:
        peer = request.client.host if request.client else None
        await srv.admission.guest(srv.admission.address(peer, request.headers))
        player, token = await srv.new_guest(body.name)
        _set_cookie(response, token, settings)
        return {"player": player.id, "name": player.name, "token": token}

    @app.post("/api/token")
    async def renew(player: Me, response: Response) -> dict[str, str]:
        token = srv.issue(player.id)
        _set_cookie(response, token, settings)
        return {"player": player.id, "token": token}

    @app.get("/api/me")
    async def whoami(player: Me) -> dict[str, str]:
        return {"player": player.id, "name": player.name}

    @app.get("/api/presets")
    async def presets() -> dict[str, Any]:
        from tienlen.players.registry import BOTS

        return {
            "presets": {name: Rules.preset(name).to_dict() for name in RULESETS},
            "bots": [
                {"name": b.name, "difficulty": b.difficulty, "description": b.description}
                for b in BOTS.values()
            ],
        }

    @app.post("/api/tables", status_code=201)
    async def new_table(body: NewTable, player: Me) -> dict[str, Any]:
        table = await srv.create_table(player, body)
        return {"table": table.info().model_dump(), "invite": table.invite}

    @app.get("/api/tables")
    async def tables() -> list[dict[str, Any]]:
        return [t.model_dump() for t in srv.listed()]

    @app.get("/api/tables/{table_id}")
    async def one_table(table_id: str, player: Me, invite: str | None = None) -> dict[str, Any]:
        return (await srv.find(table_id, player.id, invite)).info().model_dump()

    @app.get("/api/games/{game_id}", response_model=None)
    async def one_game(
        game_id: str, format: Literal["json", "text"] = "json"
    ) -> dict[str, Any] | PlainTextResponse:
        record = await srv.game_record(game_id)
        if format == "text":
            return PlainTextResponse(GameRecord.from_dict(record).to_text())
        return record

    @app.get("/api/players/{player_id}/games")
    async def player_games(player_id: str) -> list[dict[str, Any]]:
        return await srv.games_of(player_id)

    @app.get("/api/leaderboard")
    async def leaderboard(
        rules: str = "standard", limit: Annotated[int, Query(ge=1, le=500)] = 100
    ) -> list[dict[str, Any]]:
        return await srv.leaderboard(rules, limit)

    async def opened(ws: WebSocket) -> tuple[PlayerRow, Conn] | None:
        """Accept the socket; check the address's attempts, the Origin, the token and the
        player's open sockets (an error frame and close if any is wrong)."""
        await ws.accept()
        peer = ws.client.host if ws.client else None
        try:
            await srv.admission.connection(srv.admission.address(peer, ws.headers))
            if not _origin_ok(ws.headers.get("origin"), ws.headers.get("host"), settings.origins):
                raise Refused("forbidden", "this Origin may not open a socket here")
            player = await srv.player_of(_token(ws))
            socket = await srv.admission.open_socket(player.id)
        except Refused as e:
            await refuse_socket(ws, e)
            return None
        return player, Conn(ws, player.id, player.name, srv, socket)

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(
        ws: WebSocket, table_id: str, since: int | None = None, invite: str | None = None
    ) -> None:
        got = await opened(ws)
        if got is None:
            return
        _player, conn = got
        try:
            await _table_socket(conn, table_id, since, invite)
        finally:
            await srv.admission.close_socket(conn.player, conn.socket)

    async def _table_socket(
        conn: Conn, table_id: str, since: int | None, invite: str | None
    ) -> None:
        ws = conn.ws
        try:
            table = await srv.find(table_id, conn.player, invite)
        except Refused as e:
            await refuse_socket(ws, e)
            return
        try:
            await srv.connect_table(conn, table, since)
        except Refused as e:  # the database is down: the browser reconnects later
            if conn in srv.conns.get(table.id, ()):
                srv.disconnect_table(conn, srv.tables[table.id])
            await refuse_socket(ws, e)
            return
        writer = asyncio.create_task(conn.writer())
        try:
            async for frame in frames(ws, conn.gate, settings.frame_cap):
                try:
                    if isinstance(frame, Refused):
                        raise frame
                    await srv.handle(conn, table, frame)
                except Refused as e:
                    version = srv.restoring.get(table.id, srv.tables[table.id].version)
                    conn.send(
                        ErrorMsg(code=e.code, message=str(e), reason=e.reason, version=version)
                    )
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            srv.disconnect_table(conn, srv.tables[table.id])
            conn.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await writer

    @app.websocket("/ws/lobby")
    async def lobby_socket(ws: WebSocket) -> None:
        got = await opened(ws)
        if got is None:
            return
        _player, conn = got
        writer = asyncio.create_task(conn.writer())
        srv.lobby.add(conn)
        conn.send(LobbyMsg(tables=srv.listed()))
        try:
            async for frame in frames(ws, conn.gate, settings.frame_cap):
                if isinstance(frame, Refused):
                    conn.send(ErrorMsg(code=frame.code, message=str(frame)))
                else:
                    conn.send(PongMsg())
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            srv.lobby.discard(conn)
            conn.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await writer
            await srv.admission.close_socket(conn.player, conn.socket)

    return app
