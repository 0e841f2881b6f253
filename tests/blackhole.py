"""A TCP proxy on loopback that can turn into a black hole: a database (or any server)
that still accepts connections and takes what is sent, and never answers.

``Blackhole(port)`` forwards connections to 127.0.0.1:``port``; :meth:`Blackhole.cut`
swallows everything from then on, both ways, on the open connections and on new ones (the
clients see no error, only silence); :meth:`Blackhole.mend` resets the connections made so
far (what they sent was lost) and forwards new ones again."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from urllib.parse import urlsplit

__all__ = ["Blackhole", "behind_a_blackhole"]


class Blackhole:
    """A proxy to ``127.0.0.1:port`` listening on its own :attr:`port`."""

    def __init__(self, port: int) -> None:
        self.target = ("127.0.0.1", port)
        self.url = ""
        """The URL given to :func:`behind_a_blackhole`, through the proxy."""
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._cut = threading.Event()
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, name="blackhole", daemon=True).start()

    def cut(self) -> None:
        """From now on nothing gets through, and nothing is refused."""
        self._cut.set()

    def mend(self) -> None:
        """Reset every connection made so far; new ones are forwarded again."""
        with self._lock:
            stale, self._open = self._open, []
            self._cut.clear()
        for s in stale:
            _reset(s)

    def close(self) -> None:
        """Stop listening and reset every connection."""
        self._closed = True
        self._listener.close()
        self.mend()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                self._open.append(client)
                if self._cut.is_set():
                    continue  # held open, never read from nor answered
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                _reset(client)
                continue
            with self._lock:
                self._open.append(upstream)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                if not self._cut.is_set():
                    dst.sendall(data)
        if not self._cut.is_set():
            _reset(dst)


def _reset(s: socket.socket) -> None:
    with contextlib.suppress(OSError):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()


def behind_a_blackhole(url: str) -> Blackhole:
    """A proxy to the loopback server of ``url``; its :attr:`~Blackhole.url` goes through it."""
    parts = urlsplit(url)
    assert parts.hostname in ("127.0.0.1", "localhost"), url
    hole = Blackhole(parts.port or 5432)
    netloc = parts.netloc.rsplit("@", 1)
    netloc[-1] = f"127.0.0.1:{hole.port}"
    hole.url = parts._replace(netloc="@".join(netloc)).geturl()
    return hole
