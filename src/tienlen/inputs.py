"""Reading data that comes from outside: the limits, JSON read within them, and checks
that name the field and quote the bad value.

Every reader of an outside format (rules, game records, saved matches, bot messages) is
built on these helpers, so each failure is the format's own ``ValueError`` subclass with a
message like ``rules.players: must be an integer from 2 to 8, not 2.5`` and nothing is
built before the whole input has been checked.

>>> quote_value("3s 4s " * 1000)
"'3s 4s 3s 4s 3s 4s 3s 4s 3s 4s 3s 4s 3s 4s 3s 4s 3s 4s 3s 4s '… (6000 characters)"
>>> load_json('{"a": [[[1]]]}', error=ValueError, what="test", max_depth=3)
Traceback (most recent call last):
...
ValueError: test: JSON nested deeper than 3 levels
"""

from __future__ import annotations

import difflib
import json
import re
import reprlib
from collections.abc import Collection, Mapping, Sequence
from typing import Any, NoReturn

__all__ = [
    "MAX_ACTIONS",
    "MAX_DEPTH",
    "MAX_GAMES",
    "MAX_LINE",
    "MAX_NAME",
    "MAX_TEXT",
    "QUOTE_LIMIT",
    "check_keys",
    "decode",
    "expect_bool",
    "expect_int",
    "expect_list",
    "expect_object",
    "expect_str",
    "fail",
    "load_json",
    "quote_value",
]

#: Most characters of one record, saved match or rules file read from outside.
MAX_TEXT = 8 * 1024 * 1024
#: Deepest nesting of JSON read from outside (a record needs five levels).
MAX_DEPTH = 32
#: Most actions in one game record (a long eight-player game has well under 2,000).
MAX_ACTIONS = 20_000
#: Most games in one saved match.
MAX_GAMES = 1_000
#: Longest line of the bot protocol (an eight-player observation is about 30 kB).
MAX_LINE = 1024 * 1024
#: Longest name, seed or other label.
MAX_NAME = 200
#: How many characters of a bad value an error message shows.
QUOTE_LIMIT = 60

_SHORT = reprlib.Repr()
_SHORT.maxlevel = 3
_SHORT.maxstring = QUOTE_LIMIT
_SHORT.maxlong = 30
_SHORT.maxother = 30
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = 4


def quote_value(value: object, *, limit: int = QUOTE_LIMIT) -> str:
    """A one-line, length-capped ``repr`` of ``value`` for an error message (long strings
    are cut with ``…`` and their length; deep or long containers are abbreviated)."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}… ({len(value)} characters)"
    text = _SHORT.repr(value)
    return text if len(text) <= 2 * limit else text[: 2 * limit] + "…"


def fail(error: type[ValueError], path: str, message: str) -> NoReturn:
    """Raise ``error`` for the field at ``path`` (``"rules.players"``)."""
    raise error(f"{path}: {message}" if path else message)


def decode(data: str | bytes, *, error: type[ValueError], what: str, limit: int = MAX_TEXT) -> str:
    """Outside text as ``str``: bytes must be UTF-8; at most ``limit`` characters; a
    leading byte-order mark is dropped."""
    if len(data) > limit:
        fail(error, what, f"too large ({len(data):,} > {limit:,} characters)")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            fail(error, what, f"not UTF-8 text (byte {e.start}: {data[e.start : e.start + 1]!r})")
    return data.removeprefix("\ufeff")


# A string (to its closing quote, or to the end when unterminated) or a bracket: one linear
# pass that skips brackets inside strings.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def _too_deep(text: str, limit: int) -> bool:
    """Whether the JSON text nests brackets deeper than ``limit`` (checked before parsing,
    so the parser never recurses too deep)."""
    depth = 0
    for m in _TOKEN.finditer(text):
        token = m.group()
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return True
        elif token in ("]", "}"):
            depth -= 1
    return False


def _constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 30:
        raise ValueError(f"a {len(text)}-digit number is too long")
    return int(text)


def load_json(
    data: str | bytes,
    *,
    error: type[ValueError],
    what: str,
    limit: int = MAX_TEXT,
    max_depth: int = MAX_DEPTH,
) -> Any:
    """Parse outside JSON within the size and depth limits; every failure is ``error``
    naming ``what``. NaN, Infinity and numbers of more than 30 digits are refused."""
    text = decode(data, error=error, what=what, limit=limit)
    if _too_deep(text, max_depth):
        fail(error, what, f"JSON nested deeper than {max_depth} levels")
    try:
        return json.loads(text, parse_constant=_constant, parse_int=_int)
    except json.JSONDecodeError as e:
        fail(error, what, f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno})")
    except ValueError as e:
        fail(error, what, f"not valid JSON ({e})")


# --- field checks --------------------------------------------------------------------------
def expect_object(
    value: object,
    path: str,
    *,
    error: type[ValueError],
    required: Collection[str] = (),
    optional: Collection[str] = (),
) -> Mapping[str, Any]:
    """``value`` as a JSON object with exactly the ``required`` keys and any ``optional``."""
    if not isinstance(value, Mapping):
        fail(error, path, f"must be an object, not {quote_value(value)}")
    check_keys(value, path, error=error, required=required, optional=optional)
    return value


def check_keys(
    value: Mapping[Any, Any],
    path: str,
    *,
    error: type[ValueError],
    required: Collection[str] = (),
    optional: Collection[str] = (),
) -> None:
    """Refuse keys that are not strings, unknown keys and missing required keys."""
    for key in value:
        if not isinstance(key, str):
            fail(error, path, f"keys must be strings, not {quote_value(key)}")
        if key not in required and key not in optional:
            known = sorted([*required, *optional])
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"did you mean {close[0]!r}?" if close else "known: " + ", ".join(known)
            if not close and len(known) > 12:
                hint = f"{len(known)} fields are known"
            fail(error, path, f"unknown field {quote_value(key)}; {hint}")
    for key in required:
        if key not in value:
            fail(error, _join(path, key), "missing")


def expect_int(value: object, path: str, *, error: type[ValueError], lo: int, hi: int) -> int:
    """``value`` as an integer from ``lo`` to ``hi`` (booleans are not integers)."""
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        fail(error, path, f"must be an integer from {lo} to {hi}, not {quote_value(value)}")
    return value


def expect_bool(value: object, path: str, *, error: type[ValueError]) -> bool:
    """``value`` as ``true``/``false``."""
    if not isinstance(value, bool):
        fail(error, path, f"must be true or false, not {quote_value(value)}")
    return value


def expect_str(value: object, path: str, *, error: type[ValueError], limit: int = MAX_NAME) -> str:
    """``value`` as a string of at most ``limit`` characters."""
    if not isinstance(value, str):
        fail(error, path, f"must be a string, not {quote_value(value)}")
    if len(value) > limit:
        fail(error, path, f"longer than {limit} characters: {quote_value(value)}")
    return value


def expect_list(
    value: object,
    path: str,
    *,
    error: type[ValueError],
    limit: int,
    length: int | None = None,
) -> Sequence[Any]:
    """``value`` as a JSON array (a list or tuple) of at most ``limit`` items, or exactly
    ``length`` when given."""
    if not isinstance(value, (list, tuple)):
        fail(error, path, f"must be a list, not {quote_value(value)}")
    if length is not None and len(value) != length:
        fail(error, path, f"must have {length} items, not {len(value)}: {quote_value(value)}")
    if len(value) > limit:
        fail(error, path, f"more than {limit:,} items ({len(value):,})")
    return value


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
