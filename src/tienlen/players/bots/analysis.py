"""Hand analysis shared by the rule-based bots and the search bot.

Everything here reads a :class:`~tienlen.Rules` value (kinds, run lengths, 2s in runs, the
bomb tables) and never asks which preset it came from.

- :func:`counts_of` turns a hand mask into 13 rank counts;
- :class:`Planner` splits a hand into combinations ("a plan") and prices it: roughly the
  number of plays needed to shed the hand, with low cards costing a little more and 2s and
  bombs a little less (they win piles back);
- :func:`is_boss` tells whether a combination can still be beaten by the unseen cards.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from tienlen.cards import ACE, RANK_BITS, RANK_MASK, TWO
from tienlen.combos import SET_KINDS, Move, index
from tienlen.rules import Rules

__all__ = [
    "Planner",
    "Unit",
    "counts_of",
    "is_boss",
    "planner",
]

#: Per-rank card counts of a hand: 13 entries, the 3 first (a ``bytes`` value: indexing
#: gives ints, and it hashes fast as a memo key).
Counts = bytes

_POPCOUNT: Final = bytes(bin(b).count("1") for b in range(256))

_RUN_KINDS: Final = ((1, "straight"), (2, "pair_run"), (3, "triple_run"))


def counts_of(mask: int) -> Counts:
    """How many cards of each rank ``mask`` holds (``counts_of(m)[r]`` for rank ``r``)."""
    return mask.to_bytes(13, "little").translate(_POPCOUNT)


class Unit(NamedTuple):
    """One combination of a plan, by ranks only: ``per`` cards of each rank from ``low`` to
    ``top`` (a set when ``low == top``)."""

    kind: str
    per: int
    low: int
    top: int

    @property
    def cards(self) -> int:
        """How many cards the combination holds."""
        return self.per * (self.top - self.low + 1)


class Plan(NamedTuple):
    """A split of a hand into combinations, and its price (lower is better)."""

    cost: float
    units: tuple[Unit, ...]


_EMPTY: Final = Plan(0.0, ())


class Planner:
    """Splits hands into the fewest, cheapest combinations under one :class:`Rules`.

    A plan is found by a search over rank counts: at the lowest rank still held, either all
    its cards form one set, or a run (straight, pair run, triple run) starts there. Results
    are memoised by rank counts, so the many look-ups of one game cost little.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        kinds = rules.kinds
        runs: list[tuple[int, str, int, int]] = []
        for per, kind in _RUN_KINDS:
            if kind not in kinds:
                continue
            shortest = (0, rules.min_straight, rules.min_pair_run, rules.min_triple_run)[per]
            twos = rules.twos_in_straight if per == 1 else rules.twos_in_pair_run
            runs.append((per, kind, shortest, TWO if twos == "top" else ACE))
        self._runs = tuple(runs)
        self._bombs = index(rules).bombs
        self._memo: dict[Counts, Plan] = {}
        self._bomb_memo: dict[tuple[str, int, int], bool] = {}
        self._cost_memo: dict[tuple[str, int, int, int], float] = {}

    # --- pricing -------------------------------------------------------------------------
    def is_bomb_unit(self, kind: str, size: int, top: int) -> bool:
        """Whether a combination of this shape is a bomb under the rules."""
        key = (kind, size, top)
        found = self._bomb_memo.get(key)
        if found is None:
            found = self._bomb_memo[key] = any(p.matches(kind, size, top) for p in self._bombs)
        return found

    def unit_cost(self, kind: str, per: int, low: int, top: int) -> float:
        """Price of one combination: about one play, less for 2s and bombs, more for low
        singles and pairs (they are the hardest to get rid of)."""
        key = (kind, per, low, top)
        found = self._cost_memo.get(key)
        if found is None:
            found = self._cost_memo[key] = self._unit_cost(kind, per, low, top)
        return found

    def _unit_cost(self, kind: str, per: int, low: int, top: int) -> float:
        size = 1 if low == top else top - low + 1
        if self.is_bomb_unit(kind, size, top):
            return 0.3
        if top == TWO:
            return 0.55 if low == top else 0.5
        weight = (0.0, 0.45, 0.3, 0.15, 0.1)[per] if low == top else 0.12
        return 1.0 + weight * (ACE - top) / ACE

    def move_cost(self, move: Move) -> float:
        """Price of a played combination, as one unit of a plan."""
        cards = move.mask.bit_count()
        top = move.top_id >> 3
        if move.kind in ("single", "pair", "triple", "quad"):
            return self.unit_cost(move.kind, min(cards, 4), top, top)
        per = max(1, cards // max(1, move.size))
        return self.unit_cost(move.kind, min(per, 4), top - move.size + 1, top)

    # --- search --------------------------------------------------------------------------
    def plan(self, counts: Counts) -> Plan:
        """The cheapest split of a hand given by its rank counts."""
        found = self._memo.get(counts)
        if found is not None:
            return found
        if len(self._memo) > 200_000:
            self._memo.clear()
        found = self._search(counts)
        self._memo[counts] = found
        return found

    def cost(self, mask: int) -> float:
        """Price of the hand ``mask`` (0 for an empty hand)."""
        return self.plan(counts_of(mask)).cost if mask else 0.0

    def _search(self, counts: Counts) -> Plan:
        r = 0
        while r < 13 and not counts[r]:
            r += 1
        if r == 13:
            return _EMPTY
        c = counts[r]
        options: list[Plan] = []
        # All the cards of rank r as one set (a double deck may hold more than four).
        k = min(c, 4)
        rest = bytearray(counts)
        rest[r] -= k
        sub = self.plan(bytes(rest))
        kind = SET_KINDS[k]
        options.append(
            Plan(sub.cost + self.unit_cost(kind, k, r, r), (Unit(kind, k, r, r), *sub.units))
        )
        # A run starting at r.
        for per, run_kind, shortest, highest in self._runs:
            if per > c:
                continue
            end = r
            while end <= highest and counts[end] >= per:
                end += 1
            # ranks r .. end-1 can take part
            for last in range(r + shortest - 1, end):
                rest = bytearray(counts)
                for q in range(r, last + 1):
                    rest[q] -= per
                sub = self.plan(bytes(rest))
                unit_cost = self.unit_cost(run_kind, per, r, last)
                options.append(
                    Plan(sub.cost + unit_cost, (Unit(run_kind, per, r, last), *sub.units))
                )
        return min(options, key=_plan_key)


def _plan_key(p: Plan) -> tuple[float, int]:
    return (p.cost, len(p.units))


_PLANNERS: dict[Rules, Planner] = {}
_LAST: list[Planner] = []


def planner(rules: Rules) -> Planner:
    """The shared :class:`Planner` of ``rules`` (found by identity first: hashing a
    :class:`Rules` value is slow next to a decision of the search bot's playouts)."""
    if _LAST and _LAST[0].rules is rules:
        return _LAST[0]
    found = _PLANNERS.get(rules)
    if found is None:
        found = _PLANNERS[rules] = Planner(rules)
    _LAST[:] = [found]
    return found


def is_boss(move: Move, unseen: int, rules: Rules, uc: Counts | None = None) -> bool:
    """Whether no combination of the unseen cards can beat ``move`` in the plain way (same
    kind, higher top) or chop it with a quad. An estimate: suit-following rules and
    exotic bombs are ignored, which only makes the answer cautious or optimistic at the
    margins. ``uc`` may pass ``counts_of(unseen)`` when it is already known."""
    if move.is_pass:
        return False
    kind = move.kind
    top = move.top_id
    if uc is None:
        uc = counts_of(unseen)
    top_rank = top >> 3
    if kind in ("single", "pair", "triple", "quad"):
        per = move.mask.bit_count()
        # a higher card of the same rank (a single) or a higher set of the same size
        if per == 1 and unseen >> (top + 1) << (top + 1) & unseen:
            return False
        for r in range(top_rank + 1, 13):
            if uc[r] >= per:
                return False
        if per > 1 and uc[top_rank] >= per:
            # another set of the same rank can only be higher if it holds a higher card
            same = (unseen >> (RANK_BITS * top_rank)) & RANK_MASK
            if same.bit_length() - 1 > (top & 7):
                return False
        if top_rank == TWO and per <= 3 and index(rules).bombs:
            return not any(uc[r] >= 4 for r in range(13))
        return True
    if kind in ("straight", "pair_run", "triple_run"):
        per = {"straight": 1, "pair_run": 2, "triple_run": 3}[kind]
        length = move.size
        highest = (
            TWO
            if (rules.twos_in_straight if per == 1 else rules.twos_in_pair_run) == "top"
            else ACE
        )
        for last in range(top_rank, highest + 1):
            first = last - length + 1
            if first < 0:
                continue
            if all(uc[q] >= per for q in range(first, last + 1)):
                if last > top_rank:
                    return False
                same = (unseen >> (RANK_BITS * last)) & RANK_MASK
                if same.bit_length() - 1 > (top & 7):
                    return False
        return True
    return True  # bombs of rarer kinds: treat as winning
