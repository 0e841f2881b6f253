"""The sockets: a table's (``/ws/tables/{id}``: the client's messages in, the table's events
out; in a cluster, sent to the table's owner first, :mod:`..direct`) and the lobby's
(``/ws/lobby``: the pages of open tables its client shows, as they change). A socket is
admitted (:mod:`..admission`), its frames let through its budget (:mod:`..frames`) and read
by the schema here; a table message then goes to the server (:mod:`..node`)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import TypeVar

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ValidationError

from ..client_messages import parse_client, parse_lobby
from ..db import PlayerRow
from ..deps import origin_ok, server_of, token_of
from ..direct import MAX_MOVES, MOVED_CLOSE
from ..errors import refuse_socket, validation_words
from ..frames import FrameGate, frames
from ..frames import close as close_flooded
from ..hub import SHOWN_MAX, LobbyWatch
from ..limits import TokenBucket
from ..lobby import PAGE, PAGE_MAX
from ..messages import ErrorMsg, MovedMsg, PongMsg
from ..node import Server
from ..tables import Refused

M = TypeVar("M")

__all__ = ["Conn", "handle", "router"]

router = APIRouter()


class Conn:
    """One client's socket: its identity, its rate limits and its outgoing queue."""

    def __init__(self, ws: WebSocket, player: str, name: str, srv: Server, socket: str) -> None:
        self.ws = ws
        self.player = player
        self.name = name
        self.socket = socket
        """Its id in the count of the player's open sockets."""
        self.gate = FrameGate(srv.settings, srv.admission.bucket(player))
        self.chat = TokenBucket(srv.settings.chat)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()

    def send(self, message: BaseModel) -> None:
        """Queue a frame (the writer task sends it, so a slow client delays no one)."""
        self.queue.put_nowait(message.model_dump_json(exclude_none=True))

    def send_text(self, text: str) -> None:
        """Queue a frame already written (by the table's owner, in a cluster)."""
        self.queue.put_nowait(text)

    async def writer(self) -> None:
        """Send queued frames until the connection closes."""
        while (text := await self.queue.get()) is not None:
            await self.ws.send_text(text)


def _parsed(parse: Callable[[str], M], text: str) -> M:
    """A client frame read by ``parse``, or refused as ``bad_message`` with the reason."""
    try:
        return parse(text)
    except ValidationError as e:
        raise Refused("bad_message", validation_words(e)) from None
    except ValueError as e:
        raise Refused("bad_message", f"not a JSON message: {e}"[:200]) from None


async def handle(srv: Server, conn: Conn, table_id: str, text: str) -> None:
    """One client frame (let through by :mod:`..frames`): refused with an error to this
    client only, or done."""
    msg = _parsed(parse_client, text)
    if msg.type == "ping":
        conn.send(PongMsg())
        return
    if msg.type == "sync":
        await srv.sync(conn, table_id, msg.version)
        return
    began = time.perf_counter()
    await srv.dispatch(conn, table_id, "msg", msg)
    srv.metrics.actions.labels("player").inc()
    srv.metrics.action_seconds.observe(time.perf_counter() - began)


async def _opened(srv: Server, ws: WebSocket) -> tuple[PlayerRow, Conn] | None:
    """Accept the socket; check the address's attempts, the Origin, the token and the
    player's open sockets (an error frame and close if any is wrong)."""
    await ws.accept()
    peer = ws.client.host if ws.client else None
    try:
        await srv.admission.connection(srv.admission.address(peer, ws.headers))
        origin, host = ws.headers.get("origin"), ws.headers.get("host")
        if not origin_ok(origin, host, srv.settings.origins, srv.settings.cookie_domain):
            raise Refused("forbidden", "this Origin may not open a socket here")
        player = await srv.identity.player_of(token_of(ws))
        socket = await srv.admission.open_socket(player.id)
    except Refused as e:
        await refuse_socket(ws, e)
        return None
    return player, Conn(ws, player.id, player.name, srv, socket)


@router.websocket("/ws/tables/{table_id}")
async def table_socket(
    ws: WebSocket,
    table_id: str,
    since: int | None = None,
    invite: str | None = None,
    moves: int = 0,
    relay: bool = False,
) -> None:
    """A client at a table: welcome and catch-up, then its messages until it closes. In a
    cluster, a socket for a table another node owns is sent there (one ``moved`` frame and
    the close) unless it asks to be relayed (``relay``) or was moved often enough (``moves``
    in a row, :data:`..direct.MAX_MOVES`)."""
    srv = server_of(ws)
    got = await _opened(srv, ws)
    if got is None:
        return
    _player, conn = got
    try:
        if srv.cluster is not None and not relay and moves < MAX_MOVES:
            url = await srv.cluster.directory.elsewhere(table_id)
            if url is not None:
                await ws.send_text(MovedMsg(url=url).model_dump_json(exclude_none=True))
                await ws.close(code=MOVED_CLOSE)
                return
        await _at_table(srv, conn, table_id, since, invite)
    finally:
        await srv.admission.close_socket(conn.player, conn.socket)


async def _at_table(
    srv: Server, conn: Conn, table_id: str, since: int | None, invite: str | None
) -> None:
    ws = conn.ws
    try:
        await srv.open(conn, table_id, invite, since)
    except Refused as e:  # no such table, or the database is down: the browser retries later
        if conn in srv.hub.conns.get(table_id, ()):
            srv.leave(conn, table_id)
        await refuse_socket(ws, e)
        return
    writer = asyncio.create_task(conn.writer())
    try:
        async for frame in frames(ws, conn.gate, srv.settings.frame_cap):
            try:
                if isinstance(frame, Refused):
                    raise frame
                await handle(srv, conn, table_id, frame)
            except Refused as e:
                version = srv.version_for(conn, table_id)
                conn.send(ErrorMsg(code=e.code, message=str(e), reason=e.reason, version=version))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        srv.leave(conn, table_id)
        conn.queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await writer
            await close_flooded(ws, conn.gate)


@router.websocket("/ws/lobby")
async def lobby_socket(ws: WebSocket, limit: int = PAGE) -> None:
    """The lobby: the newest page of the open tables (``limit`` of them), each page asked for
    with ``more``, then the changes to the lines shown and the new tables
    (:class:`..hub.LobbyWatch`)."""
    srv = server_of(ws)
    got = await _opened(srv, ws)
    if got is None:
        return
    _player, conn = got
    watch = LobbyWatch(srv.hub, conn, limit, srv.settings.lobby_new_every)
    try:
        if not 1 <= limit <= PAGE_MAX:
            raise Refused("bad_request", f"limit must be from 1 to {PAGE_MAX}, not {limit}")
        watch.open()
        await _page(srv, watch, None)
    except Refused as e:  # the database is down: the browser reconnects later
        watch.close()
        await refuse_socket(ws, e)
        await srv.admission.close_socket(conn.player, conn.socket)
        return
    writer = asyncio.create_task(conn.writer())
    try:
        async for frame in frames(ws, conn.gate, srv.settings.frame_cap):
            try:
                if isinstance(frame, Refused):
                    raise frame
                await _in_lobby(srv, watch, frame)
            except Refused as e:
                conn.send(ErrorMsg(code=e.code, message=str(e)))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        watch.close()
        conn.queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await writer
            await close_flooded(ws, conn.gate)
        await srv.admission.close_socket(conn.player, conn.socket)


async def _in_lobby(srv: Server, watch: LobbyWatch, text: str) -> None:
    """One lobby client frame: ``ping``, or ``more`` (the next page, if the lines shown
    leave room for it)."""
    msg = _parsed(parse_lobby, text)
    if msg.type == "ping":
        watch.client.send(PongMsg())
        return
    if watch.room + watch.limit > SHOWN_MAX:
        raise Refused("too_long", f"a lobby socket shows at most {SHOWN_MAX} tables")
    await _page(srv, watch, msg.after)


async def _page(srv: Server, watch: LobbyWatch, after: str | None) -> None:
    """Send the page after table ``after`` (``None``: the first); the lines that change
    while it is read go after it (in a cluster, read as :mod:`..lobbies` says)."""
    watch.reads()
    try:
        if srv.lobbies is None:
            tables = await srv.listed(limit=watch.limit, after=after)
        else:
            tables = await srv.lobbies.page(watch, after)
    except Refused:
        watch.unread()
        raise
    watch.page(tables, after)
