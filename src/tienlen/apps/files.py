"""Writing files so that a failure part-way never costs the previous version."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

__all__ = ["MAX_FILE_CHARS", "read_text", "write_atomic"]

#: The most characters of a record or saved match read (a long match is well under 1 MB).
MAX_FILE_CHARS = 8 * 1024 * 1024


def read_text(path: str | Path, *, limit: int = MAX_FILE_CHARS) -> str:
    """The UTF-8 text of ``path`` (``"-"``: standard input), refused past ``limit``
    characters before more is read."""
    if str(path) == "-":
        text = sys.stdin.read(limit + 1)
    else:
        with open(path, encoding="utf-8") as f:
            text = f.read(limit + 1)
    if len(text) > limit:
        raise ValueError(f"{path}: longer than {limit:,} characters; not a tienlen file")
    return text


def write_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` all at once: into a temporary file in the same
    folder, flushed to disk, then renamed over ``path``. If anything fails (a full disk,
    a file size limit), ``path`` keeps what it held and the temporary file is removed."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    # the rename itself reaches the disk with the folder's entry
    with contextlib.suppress(OSError):
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return target
