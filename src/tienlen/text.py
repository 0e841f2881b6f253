"""Outside text made safe to show: control characters escaped, long input cut.

Names in records, bot names, bot replies and typed lines reach the terminal;
:func:`printable` keeps a terminal from being retitled or cleared by them (error messages
quote with :func:`tienlen.inputs.quote_value`).

>>> printable("Ann\\x1b]0;owned\\x07")
'Ann\\\\x1b]0;owned\\\\x07'
"""

from __future__ import annotations

__all__ = ["NAME_CHARS", "printable"]

#: How many characters of a player's or bot's name are shown.
NAME_CHARS = 40


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str, *, limit: int | None = None) -> str:
    """``text`` with every non-printable character (ESC, newline, bidi overrides …) written
    as a ``\\x..``/``\\u....`` escape, cut to ``limit`` characters (``…`` marks the cut)."""
    cut = limit is not None and len(text) > limit
    if cut:
        text = text[:limit]
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else _escape(ch) for ch in text)
    return text + "…" if cut else text
