"""Storage: the SQLAlchemy models, the engine (SQLite in WAL mode or PostgreSQL), and the
Alembic migrations applied on start.

A table is stored as its configuration plus its event log; the live state is rebuilt by
replaying the events through the engine (see :mod:`.tables`), so the log is the truth.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    and_,
    event,
    literal_column,
    text,
)
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.pool import ConnectionPoolEntry, NullPool

__all__ = [
    "LISTED",
    "UNATTENDED",
    "UNREACHABLE",
    "AnalysisRow",
    "Base",
    "EventRow",
    "GamePlayerRow",
    "GameRow",
    "PadRow",
    "PlayerRow",
    "RatingRow",
    "SettingRow",
    "TableRow",
    "connect",
    "migrate",
]

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: The PostgreSQL advisory lock the migrations run under ("tienlen" as a number).
MIGRATE_LOCK = int.from_bytes(b"tienlen", "big")
#: How long SQLite waits on a locked database before failing, in milliseconds.
BUSY_TIMEOUT_MS = 5000
#: What a database that cannot be reached just now raises: the driver's errors (the
#: connection refused or lost, a statement cancelled by the server's timeout), a timeout
#: (an :class:`OSError`: connecting or a statement ran past :func:`connect`'s bounds), or
#: the pool's timeout (every connection busy, none could be made in time). An action that
#: meets one is refused with ``try_again``.
UNREACHABLE: tuple[type[Exception], ...] = (DBAPIError, OSError, PoolTimeout)


def now() -> datetime:
    """The current time, in UTC."""
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """The models' base."""


class SettingRow(Base):
    """Server-wide values kept in the database (the token signing key)."""

    __tablename__ = "settings"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class PlayerRow(Base):
    """A guest identity: an id (inside the signed token) and a display name."""

    __tablename__ = "players"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class TableRow(Base):
    """A table's configuration; its state is the replay of its events."""

    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    host_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    deal_secret: Mapped[str] = mapped_column(String(64))
    """Never sent: every game's seed derives from it, and each seed is revealed after its game."""
    invite: Mapped[str | None] = mapped_column(String(64), nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    fence: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The fencing token of the node that owns the table (a cluster's takeover raises it);
    a write of the table's events commits only under the token it was made with."""
    line: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """The table's lobby line (:class:`.messages.TableInfo`) as of its last change of seats,
    status or scores: the lobby is listed from the rows, not from tables loaded."""
    seated: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """How many seats a player holds, as of the line (``None``: a finished table stored
    before schema 0006): the tables of bots only are found by index."""


# The lobby's list is read through a partial index; its query uses this same predicate,
# written with literals (not bound parameters), so that both databases' planners match it.
LISTED = and_(TableRow.status != literal_column("'finished'"), TableRow.invite.is_(None))
"""The tables the lobby lists: public, not finished."""
Index(
    "ix_tables_listed", TableRow.created, TableRow.id, sqlite_where=LISTED, postgresql_where=LISTED
)
UNATTENDED = and_(TableRow.status == "playing", TableRow.seated == 0)
"""The tables being played by bots only (read by the index on status and seated players)."""
Index("ix_tables_status_seated", TableRow.status, TableRow.seated)


class EventRow(Base):
    """One versioned table event: public data, and per-seat private data (or none)."""

    __tablename__ = "table_events"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    actor: Mapped[str | None] = mapped_column(String(32), nullable=True)
    public: Mapped[dict[str, Any]] = mapped_column(JSON)
    private: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    fence: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The fencing token it was written under (0 on a single server): which owner wrote it."""


class GameRow(Base):
    """A finished game and its record (the engine's JSON record format)."""

    __tablename__ = "games"
    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    match: Mapped[int] = mapped_column(Integer)
    number: Mapped[int] = mapped_column(Integer)
    rules_key: Mapped[str] = mapped_column(String(64))
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
    finished: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class AnalysisRow(Base):
    """A finished game's analysis, stored when its review in the browser finished."""

    __tablename__ = "game_analyses"
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    analysis: Mapped[dict[str, Any]] = mapped_column(JSON)
    """One game of ``tienlen analyse --json``, as ``GET /api/games/{id}/analysis`` gives it."""
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class GamePlayerRow(Base):
    """Who sat where in a finished game, and what they scored."""

    __tablename__ = "game_players"
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str | None] = mapped_column(
        ForeignKey("players.id"), nullable=True, index=True
    )
    bot: Mapped[str | None] = mapped_column(String(16), nullable=True)
    place: Mapped[int] = mapped_column(Integer)
    delta: Mapped[int] = mapped_column(Integer)


class RatingRow(Base):
    """A player's openskill rating under one rule set."""

    __tablename__ = "ratings"
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    rules_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)


class PadRow(Base):
    """A score pad for games played with real cards: its players, its rules, and what was
    entered for each game (the scores are worked out by the engine when it is read)."""

    __tablename__ = "score_pads"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    """Unguessable: the shareable link is the pad's only key."""
    creator_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    rules: Mapped[str] = mapped_column(Text)
    """The rules code (``Rules.code()``)."""
    names: Mapped[list[str]] = mapped_column(JSON)
    target: Mapped[int | None] = mapped_column(Integer, nullable=True)
    games: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    """Each game's entry, as the API took it (``PadGame``), oldest first."""
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


def connect(
    url: str, *, timeout: float | None = None, connect_timeout: float | None = None
) -> tuple[AsyncEngine, async_sessionmaker[Any]]:
    """An engine and a session factory for ``url``; SQLite gets WAL and a busy timeout.

    On a server database, ``timeout`` bounds each statement (asyncpg gives up on its answer,
    and the server cancels the statement itself) and ``connect_timeout`` both connecting
    and waiting for a pooled connection, so that a database that stopped answering (a
    network that drops its packets) fails an action with one of :data:`UNREACHABLE`
    within about the two together, instead of hanging it for as long as TCP waits.

    A server database's connection that the driver knows to be closed (the database
    restarted, failed over or terminated it) is replaced when taken from the pool, before it
    fails an action; one dropped mid-transaction still fails that transaction ("try again").
    The check is local: SQLAlchemy's ``pool_pre_ping`` costs three round trips to the
    database per checkout (begin, a query, rollback), on every commit."""
    sqlite = url.startswith("sqlite")
    options: dict[str, Any] = {}
    if sqlite:
        options["connect_args"] = {"timeout": BUSY_TIMEOUT_MS / 1000}
    elif url.startswith("postgresql+asyncpg"):
        args: dict[str, Any] = {}
        if timeout is not None:
            args["command_timeout"] = timeout
            args["server_settings"] = {"statement_timeout": str(max(1, round(timeout * 1000)))}
        if connect_timeout is not None:
            args["timeout"] = connect_timeout
            options["pool_timeout"] = connect_timeout
        options["connect_args"] = args
    engine = create_async_engine(url, **options)
    if not sqlite:

        @event.listens_for(engine.sync_engine, "checkout")
        def _alive(dbapi: Any, _record: ConnectionPoolEntry, _proxy: Any) -> None:
            closed = getattr(dbapi.driver_connection, "is_closed", None)
            if closed is not None and closed():
                raise DisconnectionError("the database closed this connection")

    if sqlite:

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
            cur = dbapi.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

    return engine, async_sessionmaker(engine, expire_on_commit=False)


async def migrate(engine: AsyncEngine) -> str:
    """Bring the schema to the newest Alembic revision; returns that revision.

    A migration may take long (a new index on a big table), and a node waits for another
    that migrates first: on a server database they run without the statement timeout."""
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))

    def upgrade(sync_conn: Any) -> None:
        cfg.attributes["connection"] = sync_conn
        command.upgrade(cfg, "head")

    untimed = engine
    if engine.dialect.name == "postgresql":
        untimed = create_async_engine(engine.url, poolclass=NullPool)
    try:
        async with untimed.begin() as conn:
            if engine.dialect.name == "postgresql":
                # Cluster nodes starting together migrate one at a time (until this commits).
                await conn.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATE_LOCK}
                )
            await conn.run_sync(upgrade)
    finally:
        if untimed is not engine:
            await untimed.dispose()
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None
    return head
