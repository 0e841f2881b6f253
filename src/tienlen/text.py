"""Outside text made safe to show: control characters escaped, long input cut.

Names in records, bot names, bot replies and typed lines reach the terminal and error
messages; :func:`printable` keeps a terminal from being retitled or cleared by them, and
:func:`quote` keeps an error about a 50 MB input a line long.

>>> printable("Ann\\x1b]0;owned\\x07")
'Ann\\\\x1b]0;owned\\\\x07'
>>> quote("3s 4s " * 1000, limit=12)
"'3s 4s 3s 4s '… (6000 characters)"
"""

from __future__ import annotations

__all__ = ["NAME_CHARS", "QUOTE_LIMIT", "printable", "quote"]

#: How many characters of an input an error message quotes.
QUOTE_LIMIT = 60
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


def quote(text: str, *, limit: int = QUOTE_LIMIT) -> str:
    """``repr`` of at most ``limit`` characters of ``text``, with its length when cut."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text)} characters)"
