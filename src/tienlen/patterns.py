"""Combination patterns: the small language the bomb tables of :class:`~tienlen.Rules` use.

A pattern names a set of combinations: ``KIND[SIZE][+][@RANK]`` or ``*``.

- ``KIND`` is a combination kind (``single``, ``pair``, ``triple``, ``quad``, ``straight``,
  ``pair_run``, ``triple_run``, ``quad_run``, ``multi_quad``, ``dragon``);
- ``SIZE`` is the number of units (cards of a straight, pairs of a pair run, quads of a
  multi-quad …); ``+`` means "that many or more"; no size means any size;
- ``@RANK`` requires the combination's top card to be of that rank (``single@2`` is a
  single 2, ``pair_run3@2`` is K-K-A-A-2-2);
- ``*`` is any combination.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Final, Literal, get_args

from .cards import RANKS
from .inputs import quote_value

__all__ = ["KINDS", "CombinationKind", "Pattern", "PatternError", "parse_pattern"]

#: The kind of a combination.
CombinationKind = Literal[
    "single",
    "pair",
    "triple",
    "quad",
    "straight",
    "pair_run",
    "triple_run",
    "quad_run",
    "multi_quad",
    "dragon",
]
#: Every combination kind, in the order the UI lists them.
KINDS: Final[tuple[CombinationKind, ...]] = get_args(CombinationKind)

_PATTERN = re.compile(r"^(?P<kind>[a-z_]+)(?P<size>\d+)?(?P<more>\+)?(?:@(?P<rank>\w+))?$")


class PatternError(ValueError):
    """A pattern that does not follow the ``KIND[SIZE][+][@RANK]`` form."""


@dataclass(frozen=True, slots=True)
class Pattern:
    """A parsed pattern; ``matches(kind, size, top_rank)`` tests one combination."""

    kind: str | None
    min_size: int = 0
    max_size: int = 1 << 30
    top_rank: int | None = None

    def matches(self, kind: str, size: int, top_rank: int) -> bool:
        """Whether a combination of this kind, size and top rank is in the pattern."""
        return (
            (self.kind is None or self.kind == kind)
            and self.min_size <= size <= self.max_size
            and (self.top_rank is None or self.top_rank == top_rank)
        )


@cache
def parse_pattern(text: str) -> Pattern:
    """Read a pattern such as ``"pair_run3+"`` or ``"single@2"``."""
    if text == "*":
        return Pattern(None)
    m = _PATTERN.match(text)
    if not m or m["kind"] not in KINDS:
        raise PatternError(
            f"not a combination pattern: {quote_value(text)} "
            "(write e.g. 'quad', 'pair_run3+', 'single@2')"
        )
    size = int(m["size"]) if m["size"] else None
    if m["more"] and size is None:
        raise PatternError(f"'+' needs a size in pattern {quote_value(text)}")
    top_rank = None
    if m["rank"] is not None:
        name = m["rank"].upper()
        if name not in RANKS:
            raise PatternError(
                f"unknown rank {quote_value(m['rank'])} in pattern {quote_value(text)}"
            )
        top_rank = RANKS.index(name)
    if size is None:
        return Pattern(m["kind"], top_rank=top_rank)
    return Pattern(m["kind"], size, (1 << 30) if m["more"] else size, top_rank)
