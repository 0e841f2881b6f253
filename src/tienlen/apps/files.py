"""Reading the files the commands are given: size-capped bytes, and rules named by a preset
or a JSON file. The core's strict readers then check the content."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

from tienlen.inputs import MAX_TEXT
from tienlen.rules import RULESETS, Rules, RulesError

__all__ = ["read_input", "rules_arg", "write_atomic"]


def read_input(path: str | Path, *, limit: int = MAX_TEXT) -> bytes:
    """The bytes of ``path`` (``"-"``: standard input), refusing more than ``limit`` bytes
    with a ``ValueError`` before reading the rest; ``OSError`` if it cannot be read."""
    if str(path) == "-":
        data = sys.stdin.buffer.read(limit + 1)
    else:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path}: larger than {limit:,} bytes")
    return data


def rules_arg(text: str) -> Rules:
    """A ``--rules`` value: a preset name or rules code (:meth:`Rules.from_code`), or a JSON
    file of knobs (as ``tienlen rules NAME --json`` prints); raises
    :class:`~tienlen.RulesError` naming the file."""
    if text in RULESETS or not Path(text).is_file():
        return Rules.from_code(text)
    try:
        return Rules.from_json(read_input(text))
    except RulesError as e:
        raise RulesError(f"{text}: {e}") from None


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
