"""The knob schema: what each knob of :class:`~tienlen.Rules` is, derived once from its
declaration.

:func:`knob_schema` reads a rules dataclass's fields and their declared types once and says,
per knob, everything its readers and writers need: its shape (a yes/no flag, a single value,
a table of entries, a table of pattern pairs), the words a value may be (``choices``),
whether it takes a whole number (and in what ``range``), ``None``, free text or patterns, its
default, its allowed values in words, and the key of its own words in the phrase
catalogue (``description``). :mod:`tienlen.rules` builds :data:`tienlen.rules.KNOBS`
with it and checks values against it; :mod:`tienlen.codes` writes and reads codes from it;
:mod:`tienlen.describe` and the server's table form walk it. Nothing else reads the
annotations, so a new knob needs no change to any of them.

>>> from tienlen.rules import KNOBS
>>> players = next(k for k in KNOBS if k.name == "players")
>>> players.shape, players.number, players.range, players.default, players.description
('value', True, (2, 8), 4, 'knob.players')
>>> next(k for k in KNOBS if k.name == "direction").describe(lists=True)
"one of 'clockwise', 'anticlockwise'"
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

__all__ = ["Knob", "RulesError", "describe_type", "knob_schema"]


class RulesError(ValueError):
    """A :class:`~tienlen.Rules` value that cannot be played (bad knob value or unknown
    preset); the message names the knob (``rules.players``) and quotes the bad value."""


Shape = Literal["flag", "value", "table", "pairs"]


@dataclass(frozen=True)
class Knob:
    """One knob of the rules: a field of the dataclass, digested."""

    name: str
    """The field's name (``hand_size``)."""
    type: Any
    """The declared type, which the rules reader checks values against."""
    default: Any
    """The value a rules value has unless it says otherwise."""
    shape: Shape
    """``flag`` (yes/no), ``value`` (one value), ``table`` (a tuple of entries) or ``pairs``
    (a tuple of ``(target, bomb)`` pattern pairs: the chop table)."""
    choices: tuple[str, ...] = ()
    """The words a value (for a table, an entry) may be, where it is one of a fixed list."""
    choice_name: str = ""
    """What one of the ``choices`` is, where it has a name (``a combination kind``)."""
    number: bool = False
    """A value may be a whole number."""
    range: tuple[int, int] | None = None
    """The whole numbers allowed, lowest and highest."""
    optional: bool = False
    """A value may be ``None``."""
    text: bool = False
    """A value (an entry) may be free text."""
    patterns: bool = False
    """The values (entries) are combination patterns (:mod:`tienlen.patterns`)."""

    @property
    def description(self) -> str:
        """The key of the knob's own words in the phrase catalogue
        (:data:`tienlen.describe.PHRASES`, ``knob.hand_size``): every reader that names the
        knob to a player (``tienlen rules diff``, the server's table form) words it from this
        one key, in English and Vietnamese."""
        return f"knob.{self.name}"

    @property
    def word(self) -> str:
        """The knob's name as written in rules codes and command lines (``hand-size``)."""
        return self.name.replace("_", "-")

    def describe(self, *, lists: bool) -> str:
        """The allowed values in words (``"one of 'a', 'b'"``); tables are ``a list`` when
        ``lists`` (JSON), else ``a tuple``."""
        return describe_type(self.type, lists)


def knob_schema(
    rules_class: type,
    *,
    ranges: Mapping[str, tuple[int, int]],
    default_range: tuple[int, int],
    vocabularies: Mapping[str, tuple[str, tuple[str, ...]]],
    patterns: Collection[str],
) -> tuple[Knob, ...]:
    """The knobs of ``rules_class`` (a dataclass; its ``init`` fields), in declaration order:
    integer ranges from ``ranges`` (else ``default_range``), the words of the text knobs named
    in ``vocabularies`` (with what one of them is called), and which text knobs hold
    ``patterns``."""
    hints = get_type_hints(rules_class)
    out = []
    for f in dataclasses.fields(rules_class):
        if not f.init:
            continue
        tp = hints[f.name]
        default = f.default
        if tp is bool:
            out.append(Knob(f.name, tp, default, "flag"))
            continue
        shape: Shape = "value"
        value = tp
        if get_origin(tp) is tuple and get_args(tp)[1:] == (Ellipsis,):
            value = get_args(tp)[0]
            shape = "pairs" if get_origin(value) is tuple else "table"
            if shape == "pairs":
                value = get_args(value)[0]
        arms = get_args(value) if get_origin(value) in (Union, types.UnionType) else (value,)
        choices = tuple(str(a) for arm in arms if get_origin(arm) is Literal for a in get_args(arm))
        text = str in arms
        choice_name = ""
        if text and f.name in vocabularies:
            choice_name, words = vocabularies[f.name]
            choices, text = choices + words, False
        pattern = text and f.name in patterns
        number = int in arms
        out.append(
            Knob(
                f.name,
                tp,
                default,
                shape,
                choices=choices,
                choice_name=choice_name,
                number=number,
                range=ranges.get(f.name, default_range) if number else None,
                optional=type(None) in arms,
                text=text and not pattern,
                patterns=pattern,
            )
        )
    return tuple(out)


def describe_type(tp: Any, lists: bool) -> str:
    """A knob type in words: ``"an integer"``, ``"one of 'a', 'b'"``, ``"a list of ..."``."""
    origin = get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if origin in (Union, types.UnionType):
        return " or ".join(describe_type(a, lists) for a in get_args(tp))
    if origin is tuple:
        args = get_args(tp)
        seq = "a list" if lists else "a tuple"
        if len(args) == 2 and args[1] is Ellipsis:
            return f"{seq} of {_plural(describe_type(args[0], lists))}"
        if len(set(args)) == 1:
            return f"{seq} of {len(args)} {_plural(describe_type(args[0], lists))}"
        return f"{seq} ({', '.join(describe_type(a, lists) for a in args)})"
    return {int: "an integer", bool: "true or false", str: "a string", type(None): "null"}.get(
        tp, str(tp)
    )


def _plural(words: str) -> str:
    """``"a list of 2 strings"`` -> ``"lists of 2 strings"``."""
    head, _, rest = words.partition(" ")[2].partition(" ")
    return f"{head}s {rest}".rstrip()
