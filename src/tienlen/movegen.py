"""Legal-move generation from rank counts (never from subsets of the hand).

:func:`combinations_of` lists every combination a hand can form. A :class:`MoveTable`
holds them grouped by (kind, size) and sorted by top card, so that the plays beating a
pile's top are found by bisection; when the hand loses cards the table is filtered,
not rebuilt. Tables are immutable and shared between copies of a game.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import cache, lru_cache
from itertools import combinations
from typing import Final

from .cards import ACE, RANK_BITS, TWO
from .combos import (
    RUN_KINDS,
    SET_KINDS,
    Move,
    MoveKind,
    RulesIndex,
    beats,
    index,
    is_one_colour,
    min_run,
)
from .rules import Rules

__all__ = ["MoveTable", "combinations_of", "table_for"]

# For each byte (a rank's eight card bits): the masks of its 1-, 2-, 3- and 4-card subsets.
_SUBSETS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(
        tuple(
            sum(1 << i for i in combo)
            for combo in combinations([i for i in range(8) if byte >> i & 1], k)
        )
        for k in range(5)
    )
    for byte in range(256)
)


@cache
def _rank_sets(
    rank: int, byte: int
) -> tuple[tuple[int, tuple[str, int], tuple[int, ...], tuple[Move, ...]], ...]:
    """The sets (single, pair, triple, quad) the cards ``byte`` of ``rank`` can form, as
    ``(k, group key, masks, moves)`` for each k that has any. Set moves do not depend on
    the rules, so they are made once and shared."""
    shift = RANK_BITS * rank
    out = []
    for k in range(1, 5):
        # Sorted by top card, so that groups come out of ``generate`` already in order.
        masks = tuple(sorted((m << shift for m in _SUBSETS[byte][k]), key=int.bit_length))
        if masks:
            key = (SET_KINDS[k], 1)
            out.append((k, key, masks, tuple(Move(SET_KINDS[k], 1, m) for m in masks)))
    return tuple(out)


def generate(hand: int, rules: Rules) -> dict[tuple[str, int], list[Move]]:
    """Every combination of ``hand`` (a mask) under ``rules``, by (kind, size), each group
    sorted by top card."""
    groups: dict[tuple[str, int], list[Move]] = {}
    # sets[k][r]: masks of the k-card sets of rank r.
    sets: list[list[tuple[int, ...]]] = [[()] * 13 for _ in range(5)]
    # One byte per rank (little-endian: rank 0 first).
    for r, byte in enumerate(hand.to_bytes(13, "little")):
        if not byte:
            continue
        for k, key, masks, moves in _rank_sets(r, byte):
            sets[k][r] = masks
            group = groups.get(key)
            if group is None:
                groups[key] = list(moves)
            else:
                group += moves
    kinds = rules.kinds
    dragon = "dragon" in kinds
    for per in range(1, 5):
        kind = RUN_KINDS[per]
        if kind not in kinds:
            continue
        shortest = min_run(rules, per)
        twos = rules.twos_in_straight if per == 1 else rules.twos_in_pair_run
        one_colour = per == 2 and rules.pair_run_one_colour
        level = sets[per]
        top_rank = TWO if twos == "top" else TWO - 1
        # Each maximal stretch of consecutive ranks holding such sets yields its runs.
        r = 0
        while r <= top_rank:
            if not level[r]:
                r += 1
                continue
            first = r
            while r <= top_rank and level[r]:
                r += 1
            last = r - 1
            for start in range(first, last - shortest + 2):
                partial = list(level[start])
                for end in range(start + 1, last + 1):
                    # The top rank's card varies slowest: runs come out sorted by top.
                    partial = [c | p for c in level[end] for p in partial]
                    n = end - start + 1
                    if n < shortest:
                        continue
                    name: MoveKind = kind
                    if dragon and n == 12 and end == ACE and per == 1:
                        name = "dragon"
                    new = [Move(name, n, m) for m in partial if not one_colour or is_one_colour(m)]
                    if not new:
                        continue
                    group = groups.get((name, n))
                    if group is None:
                        groups[(name, n)] = new
                    else:
                        group += new
    if "multi_quad" in kinds:
        quad_ranks = [r for r in range(13) if sets[4][r]]
        consecutive_ok = "quad_run" in kinds
        for n in range(rules.min_quad_run, len(quad_ranks) + 1):
            for ranks in combinations(quad_ranks, n):
                if consecutive_ok and ranks[-1] - ranks[0] == n - 1:
                    continue  # already a quad_run
                partial = [0]
                for r in ranks:
                    partial = [p | c for p in partial for c in sets[4][r]]
                groups.setdefault(("multi_quad", n), []).extend(
                    Move("multi_quad", n, m) for m in partial
                )
        for key, ms in groups.items():
            if key[0] == "multi_quad":
                ms.sort(key=_top)
    return groups


def combinations_of(hand: int, rules: Rules) -> list[Move]:
    """Every combination the cards of ``hand`` (a mask) can form under ``rules``."""
    return [m for ms in generate(hand, rules).values() for m in ms]


class MoveTable:
    """The combinations of one hand, grouped by (kind, size) and sorted by top card."""

    __slots__ = ("_groups", "_moves", "_tops", "hand")

    def __init__(self, hand: int, groups: dict[tuple[str, int], list[Move]]) -> None:
        self.hand = hand
        self._groups = groups
        self._moves: tuple[Move, ...] | None = None
        # Top ids per group, made when a group is first searched (a cache, not state).
        self._tops: dict[tuple[str, int], list[int]] = {}

    @classmethod
    def build(cls, hand: int, rules: Rules) -> MoveTable:
        """Generate the table of ``hand`` from scratch."""
        return cls(hand, generate(hand, rules))

    @property
    def moves(self) -> tuple[Move, ...]:
        """Every combination of the hand."""
        if self._moves is None:
            self._moves = tuple(m for ms in self._groups.values() for m in ms)
        return self._moves

    def without(self, played: int) -> MoveTable:
        """The table of the hand after the cards of ``played`` leave it (order is kept)."""
        groups: dict[tuple[str, int], list[Move]] = {}
        for key, ms in self._groups.items():
            kept = [m for m in ms if not m.mask & played]
            if kept:
                groups[key] = kept
        return MoveTable(self.hand & ~played, groups)

    def beating(self, old: Move, rules: Rules, *, locked: bool = False) -> list[Move]:
        """Every combination of the hand that may be played on ``old``."""
        ix = index(rules)
        groups = self._groups
        out: list[Move] = []
        key = (old.kind, old.size)
        others, killer_only = _other_kinds(ix, old.kind, old.size, old.top_id >> 3)
        ms = groups.get(key) if key not in others else None
        if ms is not None:
            tops = self._tops.get(key)
            if tops is None:
                tops = self._tops[key] = [m.top_id for m in ms]
            # Candidates start at the first card of the same rank and suit (the other
            # copy of a double deck may tie); everything above is higher.
            start = bisect_left(tops, old.top_id & ~1)
            if _plain(ix, old, locked):
                first_higher = bisect_left(tops, (old.top_id | 1) + 1, start)
                out.extend(m for m in ms[start:first_higher] if _tie_ok(m, old, rules))
                out.extend(ms[first_higher:])
            else:
                out.extend(m for m in ms[start:] if beats(m, old, rules, locked=locked))
        for other in others:
            group = groups.get(other)
            if group is None:
                continue
            if killer_only and other == key and _plain(ix, old, locked):
                self._on_single(out, group, old, rules, ix.killer)
            else:
                out.extend(m for m in group if beats(m, old, rules, locked=locked))
        return out

    def _on_single(
        self, out: list[Move], singles: list[Move], old: Move, rules: Rules, killer: int
    ) -> None:
        """Append the ``singles`` that beat the single ``old`` where a killer card is the
        rules' only exception to "higher top" between singles, in the order of ``singles``
        (the order ``beats`` on each gave, at a fraction of the cost: the search bot's
        playouts ask this of nearly every single played under ``double-deck-13``)."""
        if old.top_id == killer:
            return  # no single beats the killer
        key = ("single", 1)
        tops = self._tops.get(key)
        if tops is None:
            tops = self._tops[key] = [m.top_id for m in singles]
        start = bisect_left(tops, old.top_id & ~1)
        k = bisect_left(tops, killer)
        if k < start and tops[k] == killer:  # the killer, from below the pile's top
            out.append(singles[k])
        first_higher = bisect_left(tops, (old.top_id | 1) + 1, start)
        out.extend(m for m in singles[start:first_higher] if _tie_ok(m, old, rules))
        out.extend(singles[first_higher:])


def _top(m: Move) -> int:
    return m.top_id


def _plain(ix: RulesIndex, old: Move, locked: bool) -> bool:
    """Whether "same kind and size, higher top" alone decides (no following, lock, ladder)."""
    return not (ix.follows or ix.ladder or (locked and old.kind == "straight"))


def _tie_ok(new: Move, old: Move, rules: Rules) -> bool:
    """Between candidates with the same rank and suit of top card: the tie rule decides."""
    if new.top_id >> 1 != old.top_id >> 1:
        return new.top_id > old.top_id
    return beats(new, old, rules)


# Keyed by the rules' index (one per rules value, hashed by identity), not by the Rules
# value itself, whose hash is a Python-level call on every lookup.
@lru_cache(maxsize=4096)
def _other_kinds(
    ix: RulesIndex, kind: str, size: int, top_rank: int
) -> tuple[tuple[tuple[str, int], ...], bool]:
    """(kind, size) groups that might beat a play other than by "same kind, higher top":
    bombs, triples on an Ace, singles under a killer card. A superset; every candidate is
    checked by ``beats``. With them, whether the killer card alone puts the singles among
    them (a single on a single: then the killer is the only exception to the order)."""
    keys: set[tuple[str, int]] = set()
    patterns = [b for t, b in ix.chops if t.matches(kind, size, top_rank)]
    if ix.rung_of(kind, size, top_rank) >= 0:
        patterns.extend(ix.ladder)
    for p in patterns:
        for k, lo, hi in _SIZES:
            if (p.kind is None or p.kind == k) and p.min_size <= hi and p.max_size >= lo:
                for s in range(max(lo, p.min_size), min(hi, p.max_size) + 1):
                    keys.add((k, s))
    if ix.triple_beats_ace and kind == "single":
        keys.add(("triple", 1))
    killer_only = False
    if ix.killer >= 0 and kind == "single":
        killer_only = ("single", 1) not in keys
        keys.add(("single", 1))  # the killer card sits below the pile's top
    return tuple(sorted(keys)), killer_only


# The sizes each kind can have (with up to two decks).
_SIZES: Final = (
    ("single", 1, 1),
    ("pair", 1, 1),
    ("triple", 1, 1),
    ("quad", 1, 1),
    ("straight", 2, 13),
    ("pair_run", 2, 13),
    ("triple_run", 2, 13),
    ("quad_run", 2, 13),
    ("multi_quad", 2, 13),
    ("dragon", 12, 12),
)


# 8,192 tables hit as often as 65,536 did in ismcts's games (151,985 misses against 151,132
# in 444,836 look-ups), and a full cache of 65,536 held some 1.3 million objects that every
# full garbage collection walks: up to a second each, in the middle of a bot's decision.
@lru_cache(maxsize=8192)
def table_for(hand: int, rules: Rules) -> MoveTable:
    """The move table of a hand (cached: search revisits the same hands)."""
    return MoveTable.build(hand, rules)
