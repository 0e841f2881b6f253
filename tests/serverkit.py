"""Test kit for the server: a real uvicorn server on loopback (in a thread, on SQLite or on
PostgreSQL when TIENLEN_TEST_POSTGRES_URL is set), and protocol clients over httpx and real
WebSockets. Waits are bounded only to fail a hung test; nothing asserts on time."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import httpx
import uvicorn
from websockets.sync.client import ClientConnection, connect

from backends import POSTGRES
from tienlen.apps.server import Server, Settings, create_app
from tienlen.apps.server.limits import Rate

#: A hung test fails after this long (no assertion is ever made on time).
HANG = float(os.environ.get("TIENLEN_TEST_HANG", "60"))


def until(test: Callable[[], Any], what: str, within: float = HANG) -> Any:
    """Poll ``test`` until it returns something true (bounded: a hang fails)."""
    deadline = time.monotonic() + within
    while not (got := test()):
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.02)
    return got


#: Rates that never refill during a test, so a limit is hit at an exact message count.
NO_REFILL = 1e9


def _asyncpg_url(url: str) -> str:
    return url.replace("postgresql://", "postgresql+asyncpg://", 1)


@contextlib.contextmanager
def database(backend: str, tmp: Path) -> Iterator[str]:
    """A fresh, empty database URL for one test."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp / 'tienlen.db'}"
        return
    import asyncpg

    assert POSTGRES is not None
    base = POSTGRES.replace("postgresql+asyncpg://", "postgresql://", 1)
    name = f"tienlen_{secrets.token_hex(6)}"

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(base)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    try:
        yield _asyncpg_url(base.rsplit("/", 1)[0] + "/" + name)
    finally:
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def server_settings(url: str, data: Path, **overrides: Any) -> Settings:
    """Settings for a test server: thread bots, no grace, limits that never refill."""
    base = Settings(
        data=data,
        database_url=url,
        grace=0.0,
        bot_pool="thread",
        bot_workers=2,
        messages=Rate(100, NO_REFILL),
        player_messages=Rate(1000, NO_REFILL),
        chat=Rate(5, NO_REFILL),
        creations=Rate(20, NO_REFILL),
        guests_per_address=Rate(10_000, NO_REFILL),
        connections_per_address=Rate(10_000, NO_REFILL),
        sockets_per_player=1000,
    )
    return dataclasses.replace(base, **overrides)


class LiveServer:
    """A uvicorn server on a free loopback port, run in a thread with its own event loop."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.server: Server | None = None
        self._uv: uvicorn.Server | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + HANG
        while not (self._uv is not None and self._uv.started):
            if self._error is not None:
                raise self._error
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.01)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as e:
            self._error = e

    async def _main(self) -> None:
        self.server = Server(self.settings)
        await self.server.start()
        config = uvicorn.Config(
            create_app(self.settings, server=self.server),
            log_level="warning",
            ws_max_size=self.settings.transport_cap,
            proxy_headers=False,  # as `tienlen serve`: the server reads X-Forwarded-For itself
        )
        self._uv = uvicorn.Server(config)
        try:
            await self._uv.serve(sockets=[self.sock])
        finally:
            await self.server.stop()

    def close(self) -> None:
        """Stop the server and wait for it."""
        if self._uv is not None:
            self._uv.should_exit = True
        self._thread.join(HANG)
        self.sock.close()


@contextlib.contextmanager
def live_server(backend: str, tmp: Path, **overrides: Any) -> Iterator[LiveServer]:
    """A server on a fresh database of ``backend``, with :func:`server_settings` and
    ``overrides``, stopped after use (what conftest.py's ``live`` fixture yields)."""
    with database(backend, tmp) as url:
        server = LiveServer(server_settings(url, tmp, **overrides))
        try:
            yield server
        finally:
            server.close()


class Socket:
    """One table WebSocket: every frame received is kept, parsed, in ``frames``."""

    def __init__(self, conn: ClientConnection) -> None:
        self.conn = conn
        self.frames: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.version = 0
        self.view: dict[str, Any] | None = None
        self.table: dict[str, Any] | None = None
        self.settled = True
        """The last event read ended its batch (so ``view`` is current as of ``version``)."""

    def recv(self, timeout: float = HANG) -> dict[str, Any]:
        """The next frame (its version, view and table are remembered); :class:`TimeoutError`
        if none comes within ``timeout`` seconds (by default only a hung test's)."""
        text = self.conn.recv(timeout=timeout)
        assert isinstance(text, str)
        self.raw.append(text)
        msg: dict[str, Any] = json.loads(text)
        self.frames.append(msg)
        if "version" in msg and msg["type"] in ("state", "event", "welcome"):
            self.version = max(self.version, msg["version"])
        if msg["type"] == "event":
            self.settled = not msg["more"]
        if msg["type"] == "state" or (msg["type"] == "event" and not msg["more"]):
            self.view = msg.get("view")
        if msg.get("table") is not None:
            self.table = msg["table"]
        return msg

    def until(self, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Read frames until one passes ``test``; return it."""
        while True:
            msg = self.recv()
            if test(msg):
                return msg

    def send(self, **message: Any) -> None:
        """Send a JSON frame."""
        self.conn.send(json.dumps(message))

    def act(self, kind: str, **fields: Any) -> None:
        """Send an action with the version this socket last saw."""
        self.send(type=kind, version=self.version, **fields)

    def error(self) -> dict[str, Any]:
        """Read frames until an error arrives."""
        return self.until(lambda m: m["type"] == "error")

    def batch(self) -> dict[str, Any]:
        """Read until the end of the next event batch (the event that carries a view)."""
        return self.until(lambda m: m["type"] == "event" and not m["more"])

    def until_view(self) -> dict[str, Any]:
        """Read until the end of a batch that carries a game view."""
        return self.until(lambda m: m["type"] == "event" and not m["more"] and "view" in m)

    def close(self) -> None:
        """Close the socket."""
        self.conn.close()


class Client:
    """A guest: an HTTP client holding the guest token, and its sockets."""

    def __init__(self, base: str, name: str) -> None:
        self.base = base
        self.http = httpx.Client(base_url=base, timeout=HANG)
        r = self.http.post("/api/guest", json={"name": name})
        assert r.status_code == 200, r.text
        self.id: str = r.json()["player"]
        self.token: str = r.json()["token"]
        self.http.headers["Authorization"] = f"Bearer {self.token}"
        self._sockets = contextlib.ExitStack()

    def create(self, **spec: Any) -> dict[str, Any]:
        """Create a table; returns ``{"table": ..., "invite": ...}``."""
        r = self.http.post("/api/tables", json=spec)
        assert r.status_code == 201, r.text
        out: dict[str, Any] = r.json()
        return out

    def socket(
        self,
        table: str,
        *,
        since: int | None = None,
        invite: str | None = None,
        token: str | None = None,
        origin: str | None = None,
        welcome: bool = True,
        via: str | None = None,
        limit: int | None = None,
        at: str | None = None,
        moves: int | None = None,
        relay: bool = False,
        open_within: float = HANG,
        browser: bool = False,
    ) -> Socket:
        """Open the table's socket (reading the welcome frame unless told not to); an empty
        ``table`` opens the lobby's (``limit``: its pages' length). ``via``: another server's
        base URL (a cluster's node); ``at``: the socket's whole URL (as a ``moved`` frame
        gives it), ``moves`` and ``relay`` in its query. ``open_within``: seconds the opening
        may take (:class:`TimeoutError` past them); ``browser``: without the WebSocket
        pings of this client library (a browser sends none)."""
        path = f"/ws/tables/{table}" if table else "/ws/lobby"
        url = at or f"ws://127.0.0.1:{(via or self.base).rsplit(':', 1)[1]}{path}"
        asked = {"since": since, "invite": invite, "limit": limit, "moves": moves}
        if relay:
            asked["relay"] = 1
        query = {k: v for k, v in asked.items() if v is not None}
        if query:
            url += "?" + "&".join(f"{k}={v}" for k, v in query.items())
        headers = {"Authorization": f"Bearer {token if token is not None else self.token}"}
        conn = self._sockets.enter_context(
            connect(
                url,
                additional_headers=headers,
                origin=origin,  # type: ignore[arg-type]
                max_size=None,
                max_queue=None,
                open_timeout=open_within,
                ping_interval=None if browser else 20,
            )
        )
        sock = Socket(conn)
        if welcome:
            first = sock.recv()
            assert first["type"] == "welcome", first
        return sock


class Served(Protocol):
    """Anything with a server's base URL (a :class:`LiveServer` or a server process)."""

    base: str


def sat_event(seat: int) -> Callable[[dict[str, Any]], bool]:
    """A test for :meth:`Socket.until`: the event that ``seat`` sat down."""
    return lambda m: (
        m["type"] == "event" and m["event"]["kind"] == "sit" and m["event"]["seat"] == seat
    )


def seated_table(
    server: Served, names: list[str], **spec: Any
) -> tuple[list[Client], list[Socket], str]:
    """A table with these players in seats 0.., each with an open socket, not started."""
    clients = [Client(server.base, n) for n in names]
    table = clients[0].create(**spec)["table"]["id"]
    sockets = []
    for i, c in enumerate(clients):
        s = c.socket(table)
        s.until(lambda m: m["type"] == "state")
        s.send(type="sit", seat=i)
        s.until(sat_event(i))
        sockets.append(s)
    return clients, sockets, table


def first_legal(view: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The action for the first legal move in a view (the tests' deterministic player)."""
    move = view["legal"][0]
    trades = view["trades"]
    if view["phase"] == "trading" and trades and trades[-1].get("accepted") is None:
        return "refuse", {}
    if view["phase"] == "exchange":
        return "give", {"cards": move}
    if not move:
        return "pass", {}
    return "play", {"cards": move}


def play_out(
    sockets: dict[int, Socket], *, until_kind: str = "match_over", actions: int | None = None
) -> None:
    """Every human seat plays its first legal move when it is to act, until an event of
    ``until_kind`` has reached every socket.

    A socket acts only once it has read up to the newest version any socket has seen, so it
    never acts on a stale view; when every socket is up to date and no human is to act, a
    bot (or a timer) is about to move, so reading blocks only where a frame must come.
    ``actions`` stops after that many actions by these sockets (mid-game)."""
    done: set[int] = set()
    sent = 0

    def read(seat: int) -> dict[str, Any]:
        msg = sockets[seat].recv()
        if msg["type"] == "event" and msg["event"]["kind"] == until_kind:
            done.add(seat)
        return msg

    while len(done) < len(sockets):
        latest = max(s.version for s in sockets.values())
        behind = [
            seat
            for seat, s in sockets.items()
            if seat not in done and (s.version < latest or not s.settled)
        ]
        if behind:
            for seat in behind:
                read(seat)
            continue
        actor = next(
            (
                seat
                for seat, s in sockets.items()
                if seat not in done
                and s.view is not None
                and s.view.get("legal") is not None
                and s.view["turn"] == seat
                and s.view["phase"] != "over"
            ),
            None,
        )
        if actor is None:
            read(min(set(sockets) - done))
            continue
        if actions is not None and sent == actions:
            break
        kind, fields = first_legal(sockets[actor].view or {})
        sockets[actor].act(kind, **fields)
        sent += 1
        while True:
            msg = read(actor)
            if msg["type"] == "error":
                # stale: a bot moved first: read on. try_again: the database did not answer
                # (the tests that cut it off): the same move is sent again, after a pause.
                assert msg["code"] in ("stale", "try_again"), msg
                if msg["code"] == "try_again":
                    time.sleep(0.05)
                break
            if msg["type"] == "event" and not msg["more"]:
                break
    for s in sockets.values():  # leave every socket at the end of a batch
        while not s.settled:
            s.recv()
    # A match that ends first would leave a later call waiting for frames that never come.
    assert actions is None or sent == actions, f"the match ended after {sent} of {actions} actions"


def store_finished_game(url: str, game_id: str, record: dict[str, Any]) -> None:
    """Store ``record`` in the database at ``url`` (migrated first) as the finished game
    ``game_id`` of a finished table, as a table's last commit does: for a server started
    on that database afterwards."""
    from tienlen import Rules
    from tienlen.apps.server import db
    from tienlen.apps.server.options import TableConfig

    config = TableConfig(rules=Rules(), preset="standard", options={}, bots=("greedy",) * 4)

    async def store() -> None:
        engine, sessions = db.connect(url)
        try:
            await db.migrate(engine)
            async with sessions.begin() as s:
                s.add(db.PlayerRow(id="host", name="Host"))
                await s.flush()
                s.add(
                    db.TableRow(
                        id="t1",
                        host_id="host",
                        config=config.to_dict(),
                        deal_secret="",
                        status="finished",
                    )
                )
                await s.flush()
                s.add(
                    db.GameRow(
                        id=game_id,
                        table_id="t1",
                        match=1,
                        number=1,
                        rules_key="standard",
                        record=record,
                    )
                )
        finally:
            await engine.dispose()

    asyncio.run(store())


def guest_cookie(settings: Settings, db: Path) -> str:
    """The ``Set-Cookie`` header a new guest gets from a server of ``settings`` on a fresh
    SQLite database at ``db`` (run in process, through the ASGI app)."""
    settings = dataclasses.replace(settings, database_url=f"sqlite+aiosqlite:///{db}")

    async def main() -> str:
        srv = Server(settings)
        await srv.start()
        try:
            transport = httpx.ASGITransport(app=create_app(settings, server=srv))
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
                r = await http.post("/api/guest", json={"name": "Ann"})
            return r.headers["set-cookie"]
        finally:
            await srv.stop()

    return asyncio.run(main())
