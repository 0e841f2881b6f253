"""A TCP proxy on loopback that can turn into a black hole: a database (or any server)
that still accepts connections and takes what is sent, and never answers.

``Blackhole(port)`` forwards connections to 127.0.0.1:``port``; :meth:`Blackhole.cut`
swallows everything from then on, both ways, on the open connections and on new ones (the
clients see no error, only silence); :meth:`Blackhole.mend` resets the connections made so
far (what they sent was lost) and forwards new ones again."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from urllib.parse import urlsplit

__all__ = ["Blackhole", "behind_a_blackhole"]


class Blackhole:
    """A proxy to ``127.0.0.1:port`` listening on its own :attr:`port` (an event loop in a
    thread of its own)."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.url = ""
        """The URL given to :func:`behind_a_blackhole`, through the proxy."""
        self._cut = threading.Event()
        self._open: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, name="blackhole", daemon=True).start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, "127.0.0.1", 0), self._loop
        ).result()
        self.port: int = self._server.sockets[0].getsockname()[1]

    def cut(self) -> None:
        """From now on nothing gets through, and nothing is refused."""
        self._cut.set()

    def mend(self) -> None:
        """Reset every connection made so far; new ones are forwarded again."""
        asyncio.run_coroutine_threadsafe(self._mend(), self._loop).result()

    def close(self) -> None:
        """Stop listening and reset every connection."""
        self._server.close()
        self.mend()
        self._loop.call_soon_threadsafe(self._loop.stop)

    async def _mend(self) -> None:
        stale, self._open = self._open, set()
        self._cut.clear()
        for writer in stale:
            writer.transport.abort()  # a reset, as a network that gave up on them

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._open.add(writer)
        if self._cut.is_set():
            await self._pipe(reader, None)  # taken in, never answered
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        self._open.add(up_writer)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter | None
    ) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                if writer is not None and not self._cut.is_set():
                    writer.write(data)
                    await writer.drain()
        if writer is not None and not self._cut.is_set():
            writer.close()


def behind_a_blackhole(url: str) -> Blackhole:
    """A proxy to the loopback server of ``url``; its :attr:`~Blackhole.url` goes through it."""
    parts = urlsplit(url)
    assert parts.hostname in ("127.0.0.1", "localhost"), url
    hole = Blackhole(parts.port or 5432)
    netloc = parts.netloc.rsplit("@", 1)
    netloc[-1] = f"127.0.0.1:{hole.port}"
    hole.url = parts._replace(netloc="@".join(netloc)).geturl()
    return hole
