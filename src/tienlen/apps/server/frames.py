"""Reading a client's frames, cheaply, before any of them is acted on.

Every frame a socket receives is first counted against the connection's budget (and its
player's, over all their connections); past it the frame is dropped unread and unanswered,
one ``rate_limited`` notice goes out per :attr:`Settings.notice_every` seconds, and a
connection that goes on past :attr:`Settings.overflow` more frames is closed with 1008. Only
then is its size checked, and only a frame within the size cap is handed on to be parsed as
JSON. A binary frame is refused as ``bad_message``. So a flood costs the server a counter
per frame and a closed socket, not a parse and an answer per frame.

A ping (:func:`is_ping`, known by its text) is first counted against an allowance of its own
(:data:`PINGS`), outside the budget, so that a page keeping a quiet socket alive spends none
of it; a ping beyond the allowance counts as any other frame.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from enum import Enum

from fastapi import WebSocket

from .config import Settings
from .limits import Rate, TokenBucket
from .tables import Refused

__all__ = ["FLOOD_CLOSE", "PINGS", "FrameGate", "Verdict", "close", "frames", "is_ping"]

#: The close code (policy violation) and reason of a connection that kept flooding.
FLOOD_CLOSE = (1008, "too many messages")

#: The pings a connection may send outside its frame budget. The browser pings a quiet socket
#: at most once a second (``Settings.keepalive``), waiting for each pong: one a second, with
#: room for a burst of five, leaves its keep-alive out of the budget under any lease.
PINGS = Rate(5, 5.0)

#: A ping's text once its whitespace is taken out, and the longest text read as one (so a
#: long frame is never searched for whitespace).
_PING = '{"type":"ping"}'
_PING_MAX = 64


def is_ping(text: str) -> bool:
    """Whether a text frame is a ping, ``{"type": "ping"}`` with any whitespace (a ping
    written otherwise, e.g. with escapes, counts against the budget like any frame)."""
    return len(text) <= _PING_MAX and "".join(text.split()) == _PING


class Verdict(Enum):
    """What becomes of one frame at the gate."""

    READ = "read"
    """Within the budget: read it."""
    NOTICE = "notice"
    """Over the budget: dropped, and the client is told (once per notice window)."""
    DROP = "drop"
    """Over the budget: dropped without an answer."""
    CLOSE = "close"
    """Over the budget for too long: the connection is closed."""


class FrameGate:
    """One connection's frame budget (its own bucket and its player's shared one)."""

    __slots__ = (
        "_clock",
        "_last_notice",
        "_notice_every",
        "_overflow",
        "_own",
        "_pings",
        "_player",
        "flooded",
    )

    def __init__(
        self,
        settings: Settings,
        player: TokenBucket,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._own = TokenBucket(settings.messages, clock=clock)
        self._player = player
        self._pings = TokenBucket(PINGS, clock=clock)
        self._overflow = TokenBucket(settings.overflow, clock=clock)
        self._notice_every = settings.notice_every
        self._last_notice = -float("inf")
        self._clock = clock
        self.flooded = False
        """The connection went on past its overflow: it is to be closed (:func:`close`)."""

    def admit(self, *, ping: bool = False) -> Verdict:
        """Count one frame (``ping``: a ping, first counted against :data:`PINGS`) and say
        what to do with it."""
        if ping and self._pings.take():
            return Verdict.READ
        if self._own.take() and self._player.take():
            return Verdict.READ
        if not self._overflow.take():
            self.flooded = True
            return Verdict.CLOSE
        now = self._clock()
        if now - self._last_notice >= self._notice_every:
            self._last_notice = now
            return Verdict.NOTICE
        return Verdict.DROP


async def frames(ws: WebSocket, gate: FrameGate, cap: int) -> AsyncIterator[str | Refused]:
    """The socket's frames until it closes: the text of each frame to act on, or the
    :class:`Refused` to answer it with (too big, binary, over the budget). The iteration
    also ends when the connection floods (``gate.flooded``): once the frames queued for it
    are sent, :func:`close` closes it."""
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        verdict = gate.admit(ping=text is not None and is_ping(text))
        if verdict is Verdict.DROP:
            continue
        if verdict is Verdict.CLOSE:
            return
        if verdict is Verdict.NOTICE:
            yield Refused("rate_limited", "too many messages: slow down")
            continue
        if text is None:
            yield Refused("bad_message", "frames are JSON text, not binary")
        elif len(text) > cap or (len(text) * 4 > cap and len(text.encode()) > cap):
            yield Refused("too_big", f"frames are limited to {cap} bytes")
        else:
            yield text


async def close(ws: WebSocket, gate: FrameGate) -> None:
    """Close a connection that flooded (:data:`FLOOD_CLOSE`), and read nothing more from
    it; nothing for any other."""
    if gate.flooded:
        code, reason = FLOOD_CLOSE
        await ws.close(code=code, reason=reason)
        _stop_reading(ws)


def _stop_reading(ws: WebSocket) -> None:
    """Stop reading a connection whose close frame is sent.

    The server would otherwise parse (and throw away) every frame the client still sends
    until it answers the close, for up to ten seconds: a client that floods without reading
    never answers, and that parsing took most of a core. Unread, the client's sends soon
    block, it reads the close (1008) and stops; the server drops the connection when its
    close times out. ASGI cannot pause a connection, so this pauses the server's transport
    where it can find it (the protocol that owns the receive channel, as in uvicorn)."""
    protocol = getattr(getattr(ws, "_receive", None), "__self__", None)
    transport = getattr(protocol, "transport", None)
    if isinstance(transport, asyncio.ReadTransport) and transport.is_reading():
        transport.pause_reading()
