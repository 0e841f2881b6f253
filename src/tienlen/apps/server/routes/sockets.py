"""The sockets: a table's (``/ws/tables/{id}``: the client's messages in, the table's events
out) and the lobby's (``/ws/lobby``: the open tables as they change). A socket is admitted
(:mod:`..admission`), its frames let through its budget (:mod:`..frames`) and read by the
schema here; a table message then goes to the server (:mod:`..node`)."""

from __future__ import annotations

import asyncio
import contextlib
import time

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ValidationError

from ..client_messages import parse_client
from ..db import PlayerRow
from ..deps import origin_ok, server_of, token_of
from ..errors import refuse_socket, validation_words
from ..frames import FrameGate, frames
from ..frames import close as close_flooded
from ..limits import TokenBucket
from ..messages import ErrorMsg, LobbyMsg, PongMsg
from ..node import Server
from ..tables import Refused

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


async def handle(srv: Server, conn: Conn, table_id: str, text: str) -> None:
    """One client frame (let through by :mod:`..frames`): refused with an error to this
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
        if not origin_ok(ws.headers.get("origin"), ws.headers.get("host"), srv.settings.origins):
            raise Refused("forbidden", "this Origin may not open a socket here")
        player = await srv.identity.player_of(token_of(ws))
        socket = await srv.admission.open_socket(player.id)
    except Refused as e:
        await refuse_socket(ws, e)
        return None
    return player, Conn(ws, player.id, player.name, srv, socket)


@router.websocket("/ws/tables/{table_id}")
async def table_socket(
    ws: WebSocket, table_id: str, since: int | None = None, invite: str | None = None
) -> None:
    """A client at a table: welcome and catch-up, then its messages until it closes."""
    srv = server_of(ws)
    got = await _opened(srv, ws)
    if got is None:
        return
    _player, conn = got
    try:
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
async def lobby_socket(ws: WebSocket) -> None:
    """The lobby: the newest page of the open tables, then each table's line as it changes."""
    srv = server_of(ws)
    got = await _opened(srv, ws)
    if got is None:
        return
    _player, conn = got
    srv.hub.lobby.add(conn)  # (a line changed while the list is read is queued before it)
    try:
        conn.send(LobbyMsg(tables=await srv.listed()))
    except Refused as e:  # the database is down: the browser reconnects later
        srv.hub.lobby.discard(conn)
        await refuse_socket(ws, e)
        await srv.admission.close_socket(conn.player, conn.socket)
        return
    writer = asyncio.create_task(conn.writer())
    try:
        async for frame in frames(ws, conn.gate, srv.settings.frame_cap):
            if isinstance(frame, Refused):
                conn.send(ErrorMsg(code=frame.code, message=str(frame)))
            else:
                conn.send(PongMsg())
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        srv.hub.lobby.discard(conn)
        conn.queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await writer
            await close_flooded(ws, conn.gate)
        await srv.admission.close_socket(conn.player, conn.socket)
