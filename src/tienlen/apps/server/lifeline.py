"""Process lifetimes: children that die with their parent, and a stop that cannot hang.

A server's child processes (the bot pool's workers, the node processes of ``tienlen serve
--workers``) must not outlive it: one left behind after ``kill -9`` of its parent keeps
the listening port, or spins with nobody to ask it anything. :func:`die_with_parent`, run
first thing in the child, asks Linux for a signal when the parent dies
(``prctl(PR_SET_PDEATHSIG)``); elsewhere a daemon thread of the child watches its parent's
id and sends the signal itself once the child was given to another parent.

:class:`Deadline` bounds a stop: armed when SIGTERM arrives, it ends the process
(``os._exit``) if the orderly shutdown has not finished in time, whatever it waits on.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import threading
import time

__all__ = ["Deadline", "die_with_parent"]

log = logging.getLogger("tienlen.lifeline")

#: ``prctl`` option: the signal the calling process gets when its parent dies (Linux).
PR_SET_PDEATHSIG = 1
#: Seconds between two looks at the parent's id where the kernel cannot signal its death.
WATCH_EVERY = 0.5
#: The exit status of a process whose stop ran past its deadline.
OVERDUE = 3


def die_with_parent(parent: int, sig: int = signal.SIGKILL) -> None:
    """Make this process get ``sig`` when the process ``parent`` (its parent's id, read in
    the parent: the child may start after the parent died) is gone, even when the parent
    was killed with SIGKILL.

    ``SIGKILL`` suits workers with nothing to save; ``SIGTERM`` lets a node stop in order
    (hand its leases back) within its own deadline."""
    if not (sys.platform.startswith("linux") and _pdeathsig(sig)):
        threading.Thread(
            target=_watch, args=(parent, sig), name="tienlen-parent-watch", daemon=True
        ).start()
    if os.getppid() != parent:  # it died before the signal was asked for
        os.kill(os.getpid(), sig)


def _pdeathsig(sig: int) -> bool:
    """Ask the kernel for ``sig`` at the parent's death; False if it cannot be asked."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int, sig: int) -> None:
    """A dead parent's children are given to another process (init, or a subreaper)."""
    while os.getppid() == parent:
        time.sleep(WATCH_EVERY)
    os.kill(os.getpid(), sig)


class Deadline:
    """Ends the process ``seconds`` after :meth:`arm` unless it exited first.

    The timer is a daemon thread, so it fires even while the event loop is blocked, and a
    process that finished its shutdown in time exits without waiting for it."""

    def __init__(self, seconds: float, *, what: str = "the shutdown") -> None:
        self.seconds = seconds
        self.what = what
        self._timer: threading.Timer | None = None
        self._armed_at: float | None = None

    def arm(self) -> None:
        """Start counting (later calls change nothing)."""
        if self._timer is not None:
            return
        self._armed_at = time.monotonic()
        self._timer = threading.Timer(self.seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        """Seconds until the process is ended (all of them if not armed yet)."""
        if self._armed_at is None:
            return self.seconds
        return max(0.0, self._armed_at + self.seconds - time.monotonic())

    def _expire(self) -> None:
        print(
            f"tienlen serve: {self.what} took more than {self.seconds:g} s: exiting now",
            file=sys.stderr,
            flush=True,
        )
        os._exit(OVERDUE)
