"""Rules codes: a short, readable name for every :class:`~tienlen.Rules` value.

A code is the preset a value starts from, then one part per changed knob, joined by dots::

    standard                                   # a preset, unchanged
    standard.direction-anticlockwise.cong      # two knobs changed
    standard.quad-chops-pair-of-2              # one entry added to the chop table
    hawaii.no-quad-chops-single-of-2.players-3 # one chop removed, three players

Parts, by the knob's type (knob names are written with ``-`` for ``_``):

- yes/no knobs: ``cong`` (on), ``no-pass-locks`` (off);
- other single values: ``KNOB-VALUE``: ``players-5``, ``hand-size-all``,
  ``first-lead-holder-free``, ``single-killer-Kd``, ``few-players-hand-size-none``;
- tables (tuples): entries removed from the preset's table, ``no-KNOB-ENTRY``, then entries
  added at its end, ``KNOB-ENTRY``: ``extra-kinds-dragon``, ``no-instant-wins-four-twos``;
  a chop is written ``BOMB-chops-TARGET`` (``no-BOMB-chops-TARGET`` to remove one); when
  it is shorter, a table first takes another preset's whole table, ``chops-as-wikipedia``,
  or is emptied, ``no-instant-wins``;
- a label that is not a preset's name: ``name-LABEL``.

Patterns are written with words for their symbols: ``pair-run4up`` is ``pair_run4+``,
``single-of-2`` is ``single@2``, ``any`` is ``*``. Free text keeps letters, digits and
``-``; any other character is ``~`` and two hex digits per UTF-8 byte (``Kd~27`` is ``Kd'``).
A value that no ordinary word expresses is ``~~`` and its escaped text.

Codes use only letters, digits, ``-``, ``.`` and ``~``: the characters URLs never escape,
that chat formatting leaves alone. Everything here reads the knob schema
(:mod:`tienlen.knobs`), so a new knob gets a code part with no change to this module; this
module knows no rules value of its own: :mod:`tienlen.rules` makes its :class:`Codes` from
the schema and the presets (``Rules.code()``, ``Rules.from_code()``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any, Generic, Literal, Protocol, TypeVar

from .knobs import Knob, RulesError
from .patterns import KINDS, parse_pattern

__all__ = ["Codes"]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


#: A rules value: a dataclass with a field per knob, ``name`` among them.
R = TypeVar("R", bound=_Named)

_SEP = "."
_RAW = "~~"
_AS = "as-"
_SAFE = re.compile(r"[A-Za-z0-9-]")
_ESCAPED = re.compile(r"(?:~[0-9a-f]{2})+")
_INT = re.compile(r"-?\d+")
#: Longest part quoted in an error message.
_QUOTE = 60


def _quote(text: str) -> str:
    return repr(text if len(text) <= _QUOTE else text[:_QUOTE] + "…")


# --- free text ----------------------------------------------------------------------------
def _escape(text: str) -> str:
    return "".join(
        c if _SAFE.fullmatch(c) else "".join(f"~{b:02x}" for b in c.encode()) for c in text
    )


def _unescape(text: str) -> str:
    if re.fullmatch(r"(?:[A-Za-z0-9-]|~[0-9a-f]{2})*", text) is None:
        raise ValueError("text may hold only letters, digits, '-' and ~XX escapes")
    try:
        return _ESCAPED.sub(lambda m: bytes.fromhex(m[0].replace("~", "")).decode(), text)
    except UnicodeDecodeError:
        raise ValueError("its ~XX escapes are not UTF-8") from None


# --- words for one value -------------------------------------------------------------------
class _Word:
    """How one value of a knob (or one table entry) is written and read."""

    def __init__(
        self, write: Callable[[Any], str | None], read: Callable[[str], Any], what: str
    ) -> None:
        self._write, self._read, self.what = write, read, what

    def plain(self, value: Any) -> str | None:
        """The ordinary word for ``value``, if one reads back to exactly it."""
        word = self._write(value)
        if word is None or word.startswith(_RAW):
            return None
        try:
            return word if _same(self._read(word), value) else None
        except ValueError:
            return None

    def write(self, value: Any) -> str:
        """The value's word; ``~~`` and escaped text when no ordinary word reads back to it."""
        word = self.plain(value)
        if word is not None:
            return word
        if not isinstance(value, str):
            raise RulesError(f"cannot write {value!r} in a rules code")
        return _RAW + _escape(value)

    def read(self, word: str) -> Any:
        """The value a word stands for; ``ValueError`` saying what was expected."""
        if word.startswith(_RAW):
            return _unescape(word[len(_RAW) :])
        return self._read(word)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _vocabulary(words: Sequence[str], what: str) -> _Word:
    """Fixed words, written with ``-`` for ``_``."""
    by_word = {w.replace("_", "-"): w for w in words}
    what = f"{what} {', '.join(by_word)}"

    def read(word: str) -> str:
        try:
            return by_word[word]
        except KeyError:
            raise ValueError(f"must be {what}") from None

    return _Word(lambda v: v.replace("_", "-") if isinstance(v, str) else None, read, what)


_KIND_WORDS = sorted((k.replace("_", "-") for k in KINDS), key=len, reverse=True)
_PATTERN_TEXT = re.compile(r"([a-z]+(?:_[a-z]+)*)(\d*)(\+?)(?:@([A-Za-z0-9]+))?")
_PATTERN_WORD = re.compile(rf"({'|'.join(_KIND_WORDS)})(\d*)(up)?(?:-of-([A-Za-z0-9]+))?")


def _write_pattern(text: Any) -> str | None:
    if text == "*":
        return "any"
    m = _PATTERN_TEXT.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        return None
    kind, size, more, rank = m.groups()
    of = f"-of-{rank}" if rank is not None else ""
    return kind.replace("_", "-") + size + ("up" if more else "") + of


def _read_pattern(word: str) -> str:
    if word == "any":
        return "*"
    m = _PATTERN_WORD.fullmatch(word)
    if m is None:
        raise ValueError("must be a pattern such as 'quad', 'pair-run3up', 'single-of-2', 'any'")
    kind, size, more, rank = m.groups()
    text = kind.replace("-", "_") + size + ("+" if more else "") + (f"@{rank}" if rank else "")
    parse_pattern(text)
    return text


def _read_int(word: str) -> int:
    if _INT.fullmatch(word) is None:
        raise ValueError("must be a whole number")
    return int(word)


def _read_none(word: str) -> None:
    if word != "none":
        raise ValueError("must be 'none'")


def _union(arms: Sequence[_Word]) -> _Word:
    """A value of one of several types: the first arm that reads a word wins."""

    def read(word: str) -> Any:
        for arm in arms:
            try:
                return arm.read(word)
            except ValueError:
                continue
        raise ValueError("must be " + " or ".join(a.what for a in arms))

    def write(value: Any) -> str | None:
        for arm in arms:
            word = arm.plain(value)
            if word is not None:
                return word
        return None

    return _Word(write, read, " or ".join(a.what for a in arms))


_PATTERN = _Word(_write_pattern, _read_pattern, "a pattern")
_NONE = _Word(lambda v: "none" if v is None else None, _read_none, "none")
_INT_WORD = _Word(lambda v: str(v) if type(v) is int else None, _read_int, "a whole number")
_TEXT = _Word(lambda v: _escape(v) if isinstance(v, str) else None, _unescape, "text")


def _word_for(knob: Knob) -> _Word:
    """How a value (for a table, an entry) of ``knob`` is written: the arms its schema allows,
    whole numbers first and free text last (it reads almost any word)."""
    arms = []
    if knob.number:
        arms.append(_INT_WORD)
    if knob.choices:
        what = f"{knob.choice_name}:" if knob.choice_name else "one of"
        arms.append(_vocabulary(knob.choices, what))
    if knob.optional:
        arms.append(_NONE)
    if knob.patterns:
        arms.append(_PATTERN)
    if knob.text:
        arms.append(_TEXT)
    if not arms:
        raise TypeError(f"rules codes cannot write knob {knob.name!r} of type {knob.type!r}")
    return arms[0] if len(arms) == 1 else _union(arms)


# --- knobs ---------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _Knob:
    name: str
    word: str  # the knob's name in a code
    kind: Literal["flag", "value", "table", "pairs"]
    value: _Word | None  # flag: None; table/pairs: the entry word


def _coded(knob: Knob) -> _Knob:
    if knob.shape == "flag":
        return _Knob(knob.name, knob.word, "flag", None)
    if knob.shape == "pairs" and not knob.patterns:
        raise TypeError(f"rules codes cannot write the table of pairs {knob.name!r}")
    return _Knob(knob.name, knob.word, knob.shape, _word_for(knob))


def _table_delta(base: tuple[Any, ...], new: tuple[Any, ...]) -> tuple[list[Any], list[Any]]:
    """``(removed, added)`` with ``new`` = ``base`` less ``removed`` (each removal takes the
    first entry equal to it) followed by ``added``; as many of ``base``'s entries kept as can be."""
    for keep in range(len(new), -1, -1):
        head = new[:keep]
        counts: dict[Any, int] = {}
        for item in head:
            counts[item] = counts.get(item, 0) + 1
        # Removing first occurrences keeps, of each entry, its last occurrences in base.
        seen: dict[Any, int] = {}
        total = {item: base.count(item) for item in counts}
        if any(total[item] < n for item, n in counts.items()):
            continue
        kept, removed = [], []
        for item in base:
            seen[item] = seen.get(item, 0) + 1
            if item in counts and seen[item] > total[item] - counts[item]:
                kept.append(item)
            else:
                removed.append(item)
        if tuple(kept) == head:
            return removed, list(new[keep:])
    raise AssertionError("unreachable: keeping nothing always works")


def _entry_word(knob: _Knob, item: Any) -> str:
    assert knob.value is not None
    if knob.kind == "pairs":
        target, bomb = item
        return f"{knob.value.write(bomb)}-chops-{knob.value.write(target)}"
    word = knob.value.write(item)
    # "KNOB-as-PRESET" names a whole table, so an entry never reads "as-...".
    if word.startswith(_AS):
        word = _RAW + _escape(item)
    return f"{knob.word}-{word}"


class Codes(Generic[R]):
    """Rules codes for the values of one rules dataclass: its ``knobs`` (the schema, every
    field but ``name`` written by this schema), the names of its presets, and ``preset``,
    which gives the value a name stands for (raising :class:`~tienlen.knobs.RulesError`
    for an unknown one)."""

    def __init__(
        self, knobs: Sequence[Knob], presets: Sequence[str], preset: Callable[[str], R]
    ) -> None:
        self._presets = tuple(presets)
        self._preset = preset
        coded = [_coded(k) for k in knobs if k.name != "name"]
        #: Declaration order, in which a code's parts are written.
        self._in_order = tuple(coded)
        # Longest names first, so that a name that starts another one never takes its parts.
        self._by_length = tuple(sorted(coded, key=lambda k: len(k.word), reverse=True))

    def format(self, rules: R) -> str:
        """The code of ``rules`` (see the module docstring); :meth:`parse` reads it back."""
        name = rules.name
        if name in self._presets:
            return _SEP.join([name, *self._parts(rules, self._preset(name))])
        # A house label: start from the preset it differs from least.
        best = min(
            ([preset, *self._parts(rules, self._preset(preset))] for preset in self._presets),
            key=lambda parts: (len(parts), len(_SEP.join(parts))),
        )
        return _SEP.join(best)

    def parse(self, code: str) -> R:
        """The rules value a code names; :class:`~tienlen.knobs.RulesError` naming the part
        that could not be read."""
        if not isinstance(code, str) or not code.strip():
            raise RulesError(
                f"an empty rules code ({code!r}); write e.g. 'standard' or 'pagat.cong'"
            )
        head, *parts = code.strip().split(_SEP)
        if not parts:
            return self._preset(head)  # a preset's own error for an unknown name
        if head not in self._presets:
            raise RulesError(
                f"rules code {_quote(code)}: unknown rule set {_quote(head)}; "
                f"a code starts with one of: {', '.join(self._presets)}"
            )
        base = self._preset(head)
        values: dict[str, Any] = {}
        scalars: set[str] = set()
        for part in parts:
            try:
                name, value = self._read_part(part, base, values)
            except ValueError as e:
                raise RulesError(
                    f"rules code {_quote(code)}: cannot read part {_quote(part)}: {e}"
                ) from None
            if not isinstance(value, tuple):
                if name in scalars:
                    raise RulesError(
                        f"rules code {_quote(code)}: part {_quote(part)} sets {name} again"
                    )
                scalars.add(name)
            values[name] = value
        if not values:
            return base
        try:
            changed: R = dataclasses.replace(base, **values)  # type: ignore[type-var]
        except RulesError as e:
            raise RulesError(f"rules code {_quote(code)}: {e}") from None
        return changed

    def _parts(self, rules: R, base: R) -> list[str]:
        parts = []
        name = rules.name
        if name != base.name:
            parts.append(f"name-{_TEXT.write(name)}")
        for knob in self._in_order:
            new, old = getattr(rules, knob.name), getattr(base, knob.name)
            if _same(new, old):
                continue
            if knob.kind == "flag":
                parts.append(knob.word if new else f"no-{knob.word}")
            elif knob.kind == "value":
                assert knob.value is not None
                parts.append(f"{knob.word}-{knob.value.write(new)}")
            else:
                parts += self._table_parts(knob, old, new)
        return parts

    def _table_parts(self, knob: _Knob, old: tuple[Any, ...], new: tuple[Any, ...]) -> list[str]:
        """The fewest parts that turn table ``old`` into ``new``: entries removed and added,
        after taking another preset's whole table (``chops-as-wikipedia``) when that is
        shorter."""
        starts: dict[tuple[Any, ...], list[str]] = {old: []}
        starts.setdefault((), [f"no-{knob.word}"])
        for name in self._presets:
            table = getattr(self._preset(name), knob.name)
            starts.setdefault(table, [f"{knob.word}-{_AS}{name}"])
        options = []
        for table, first in starts.items():
            removed, added = _table_delta(table, new)
            options.append(
                first
                + [f"no-{_entry_word(knob, item)}" for item in removed]
                + [_entry_word(knob, item) for item in added]
            )
        # Ties go to editing the preset's own table (the first option): it says more.
        return min(options, key=len)

    def _read_part(self, part: str, base: R, values: dict[str, Any]) -> tuple[str, Any]:
        """``(knob, its new value)`` after applying one part."""
        if not part:
            raise ValueError("an empty part (two dots in a row, or a dot at an end)")
        if part.startswith("name-"):
            return "name", _TEXT.read(part[len("name-") :])

        def table(knob: str) -> tuple[Any, ...]:
            current: tuple[Any, ...] = values.get(knob, getattr(base, knob))
            return current

        negated = part.startswith("no-")
        rest = part[3:] if negated else part
        for knob in self._by_length:
            if knob.kind == "flag":
                if rest == knob.word:
                    return knob.name, not negated
                continue
            if knob.kind != "value" and part == f"no-{knob.word}":
                return knob.name, ()
            if knob.kind != "value" and part.startswith(f"{knob.word}-{_AS}"):
                preset = part[len(knob.word) + 1 + len(_AS) :]
                if preset not in self._presets:
                    names = ", ".join(self._presets)
                    raise ValueError(f"{_quote(preset)} is not a rule set ({names})")
                return knob.name, getattr(self._preset(preset), knob.name)
            if knob.kind == "pairs" or not rest.startswith(knob.word + "-"):
                continue
            assert knob.value is not None
            word = rest[len(knob.word) + 1 :]
            if knob.kind == "value" and negated:
                break
            try:
                value = knob.value.read(word)
            except ValueError as e:
                raise ValueError(f"{knob.word} {e}") from None
            if knob.kind == "value":
                return knob.name, value
            return knob.name, _edit(table(knob.name), value, negated, knob.word)
        if "-chops-" in rest:
            bomb, _, target = rest.partition("-chops-")
            pair = (_PATTERN.read(target), _PATTERN.read(bomb))
            return "chops", _edit(table("chops"), pair, negated, "chops")
        raise ValueError(
            "no knob of that name (a part is a knob such as 'cong' or 'no-pass-locks', "
            "'KNOB-VALUE' such as 'players-5', or a chop such as 'quad-chops-pair-of-2')"
        )


def _edit(current: tuple[Any, ...], item: Any, remove: bool, knob: str) -> tuple[Any, ...]:
    if not remove:
        return (*current, item)
    if item not in current:
        raise ValueError(f"{knob} has no entry {item!r} to remove")
    i = current.index(item)
    return current[:i] + current[i + 1 :]
