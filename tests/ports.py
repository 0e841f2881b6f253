"""Free TCP ports for the servers tests start, chosen outside the kernel's ephemeral range.

A port the kernel hands out for ``bind(("127.0.0.1", 0))`` is one of its ephemeral ports,
which it also gives any outgoing connection (to PostgreSQL, Redis, another test's server):
between the test closing its probe and the server binding it, one such connection may take
it ("Address already in use"; seen in CI). Ports below the range are never handed out that
way, so only another test choosing the same one at random could take it.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

__all__ = ["free_port"]


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on, below the ephemeral range."""
    high = _ephemeral_low()
    for _ in range(200):
        port = random.randrange(10_000, high)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port found between 10000 and {high}")
