"""Legal-move generation from rank counts (never from subsets of the hand).

:func:`combinations_of` lists every combination a hand can form. A :class:`MoveTable`
holds them grouped by (kind, size) and sorted by top card, so that the plays beating a
pile's top are found by bisection; when the hand loses cards the table is filtered,
not rebuilt. Tables are immutable and shared between copies of a game.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from itertools import combinations
from typing import Final

from .cards import RANK_BITS, RANK_MASK, TWO
from .combos import (
    RUN_KINDS,
    SET_KINDS,
    Move,
    RulesIndex,
    index,
    min_run,
    why_not_beats,
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


def combinations_of(hand: int, rules: Rules) -> list[Move]:
    """Every combination the cards of ``hand`` (a mask) can form under ``rules``."""
    bytes_ = [(hand >> (RANK_BITS * r)) & RANK_MASK for r in range(13)]
    # sets[k][r]: masks of the k-card sets of rank r, already shifted into place.
    sets: list[list[tuple[int, ...]]] = [[()] * 13 for _ in range(5)]
    moves: list[Move] = []
    for r, byte in enumerate(bytes_):
        if not byte:
            continue
        shift = RANK_BITS * r
        subsets = _SUBSETS[byte]
        for k in range(1, 5):
            masks = tuple(m << shift for m in subsets[k])
            if not masks:
                break
            sets[k][r] = masks
            kind = SET_KINDS[k]
            moves.extend(Move(kind, 1, m) for m in masks)
    kinds = rules.kinds
    dragon = "dragon" in kinds
    for per in range(1, 5):
        kind = RUN_KINDS[per]
        if kind not in kinds:
            continue
        shortest = min_run(rules, per)
        twos = rules.twos_in_straight if per == 1 else rules.twos_in_pair_run
        top_rank = TWO if twos == "top" else TWO - 1
        level = sets[per]
        for start in range(top_rank - shortest + 2):
            partial: list[int] = [0]
            for end in range(start, top_rank + 1):
                choices = level[end]
                if not choices:
                    break
                partial = [p | c for p in partial for c in choices]
                n = end - start + 1
                if n >= shortest:
                    name = "dragon" if dragon and per == 1 and n == 12 and start == 0 else kind
                    moves.extend(Move(name, n, m) for m in partial)
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
                moves.extend(Move("multi_quad", n, m) for m in partial)
    return moves


class MoveTable:
    """The combinations of one hand, grouped for fast following."""

    __slots__ = ("_groups", "hand", "moves")

    def __init__(self, hand: int, moves: list[Move]) -> None:
        self.hand = hand
        self.moves: tuple[Move, ...] = tuple(moves)
        self._groups: dict[tuple[str, int], tuple[list[int], list[Move]]] | None = None

    def without(self, played: int) -> MoveTable:
        """The table of the hand after the cards of ``played`` leave it."""
        return MoveTable(self.hand & ~played, [m for m in self.moves if not m.mask & played])

    def groups(self) -> dict[tuple[str, int], tuple[list[int], list[Move]]]:
        """(kind, size) -> (sorted top ids, moves in that order)."""
        if self._groups is None:
            buckets: dict[tuple[str, int], list[Move]] = {}
            for m in self.moves:
                key = (m.kind, m.size)
                bucket = buckets.get(key)
                if bucket is None:
                    buckets[key] = [m]
                else:
                    bucket.append(m)
            groups = {}
            for key, ms in buckets.items():
                ms.sort(key=_top)
                groups[key] = ([m.top_id for m in ms], ms)
            self._groups = groups
        return self._groups

    def beating(self, old: Move, rules: Rules, *, locked: bool = False) -> list[Move]:
        """Every combination of the hand that may be played on ``old``."""
        ix = index(rules)
        groups = self.groups()
        out: list[Move] = []
        key = (old.kind, old.size)
        others = _other_kinds(rules, old.kind, old.size, old.top_id >> 3)
        same = groups.get(key) if key not in others else None
        if same is not None:
            tops, ms = same
            # Candidates start at the first card of the same rank and suit (the other
            # copy of a double deck may tie); everything above is higher.
            start = bisect_left(tops, old.top_id & ~1)
            if _plain(rules, ix, old, locked):
                first_higher = bisect_left(tops, (old.top_id | 1) + 1, start)
                out.extend(m for m in ms[start:first_higher] if _tie_ok(m, old, rules))
                out.extend(ms[first_higher:])
            else:
                out.extend(
                    m for m in ms[start:] if why_not_beats(m, old, rules, locked=locked) is None
                )
        for other in others:
            group = groups.get(other)
            if group is not None:
                out.extend(
                    m for m in group[1] if why_not_beats(m, old, rules, locked=locked) is None
                )
        return out


def _top(m: Move) -> int:
    return m.top_id


def _plain(rules: Rules, ix: RulesIndex, old: Move, locked: bool) -> bool:
    """Whether "same kind and size, higher top" alone decides (no following, lock, ladder)."""
    return not (ix.follows or ix.ladder or (locked and old.kind == "straight"))


def _tie_ok(new: Move, old: Move, rules: Rules) -> bool:
    """Between candidates with the same rank and suit of top card: the tie rule decides."""
    if new.top_id >> 1 != old.top_id >> 1:
        return new.top_id > old.top_id
    return why_not_beats(new, old, rules) is None


@lru_cache(maxsize=4096)
def _other_kinds(rules: Rules, kind: str, size: int, top_rank: int) -> tuple[tuple[str, int], ...]:
    """(kind, size) groups that might beat a play other than by "same kind, higher top":
    bombs, triples on an Ace. A superset; every candidate is checked by ``why_not_beats``."""
    ix = index(rules)
    keys: set[tuple[str, int]] = set()
    patterns = [b for t, b in ix.chops if t.matches(kind, size, top_rank)]
    if ix.rung_of(kind, size, top_rank) >= 0:
        patterns.extend(ix.ladder)
    for p in patterns:
        for k, lo, hi in _SIZES:
            if (p.kind is None or p.kind == k) and p.min_size <= hi and p.max_size >= lo:
                for s in range(max(lo, p.min_size), min(hi, p.max_size) + 1):
                    keys.add((k, s))
    if rules.triple_beats_ace and kind == "single":
        keys.add(("triple", 1))
    if ix.killer >= 0 and kind == "single":
        keys.add(("single", 1))  # the killer card sits below the pile's top
    return tuple(sorted(keys))


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


@lru_cache(maxsize=65536)
def table_for(hand: int, rules: Rules) -> MoveTable:
    """The move table of a hand (cached: search revisits the same hands)."""
    return MoveTable(hand, combinations_of(hand, rules))
