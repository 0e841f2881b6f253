"""A slow, deliberately plain model of the play phase, used only by the tests.

Nothing here calls the engine's classifier, move generator or turn logic. The model
restates RULES.md from the knobs of a :class:`~tienlen.Rules` value:

- :func:`ref_kind` names the combination formed by some cards, from their rank counts;
- :func:`ref_combinations` visits *every* subset of a hand (grouped by rank counts, since
  the kind of a set of cards depends on its rank counts only) and keeps those with a kind;
- :class:`RefTable` is the state of one deal's play phase (pile, passes, lock-outs,
  first-lead constraint, finish order) driven only by the moves played, with
  :meth:`RefTable.legal` the brute-force list of legal moves and :meth:`RefTable.apply`
  the turn order of RULES.md "Turn order, precisely".

The one engine function used is :func:`tienlen.combos.why_not_beats`, the documented
single source of how two combinations compare (the fixtures check it on their own).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tienlen.cards import Card
from tienlen.combos import Move, MoveKind, why_not_beats
from tienlen.position import Action, PlayState
from tienlen.rules import FirstLead, Rules

RANK_NAMES = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
TWO_RANK = 12
ALWAYS_KINDS = ("single", "pair", "triple", "quad", "straight", "pair_run")


# --- cards as plain numbers ------------------------------------------------------------
# The reference reads a card id as the engine documents it: id = (rank * 4 + suit) * 2 + copy.
def id_rank(card_id: int) -> int:
    return card_id // 8


def id_suit(card_id: int) -> int:
    return (card_id // 2) % 4


def ids_of(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def mask_from_ids(ids: Iterable[int]) -> int:
    out = 0
    for i in ids:
        out |= 1 << i
    return out


# --- combinations -----------------------------------------------------------------------
def ref_kind(rank_counts: Sequence[tuple[int, int]], rules: Rules) -> tuple[MoveKind, int] | None:
    """(kind, size) of cards with these ``(rank, count)`` pairs (ranks ascending, counts > 0),
    or ``None``. Reads only the rule knobs."""
    if not rank_counts:
        return None
    allowed = set(ALWAYS_KINDS) | set(rules.extra_kinds)
    ranks = [r for r, _ in rank_counts]
    per_rank = {c for _, c in rank_counts}
    if len(ranks) == 1:
        names: dict[int, MoveKind] = {1: "single", 2: "pair", 3: "triple", 4: "quad"}
        name = names.get(rank_counts[0][1])
        return (name, 1) if name else None
    if len(per_rank) != 1:
        return None  # every rank of a run must have the same number of cards
    per = per_rank.pop()
    n = len(ranks)
    consecutive = ranks == list(range(ranks[0], ranks[0] + n))
    ends_on_two = ranks[-1] == TWO_RANK
    if per == 1:
        if not consecutive:
            return None
        if "dragon" in allowed and n == 12 and ranks[0] == 0:
            return ("dragon", 12)  # 3 up to the Ace
        if n < rules.min_straight:
            return None
        if ends_on_two and rules.twos_in_straight != "top":
            return None
        return ("straight", n)
    if per in (2, 3):
        name = "pair_run" if per == 2 else "triple_run"
        shortest = rules.min_pair_run if per == 2 else rules.min_triple_run
        if name not in allowed or not consecutive or n < shortest:
            return None
        if ends_on_two and rules.twos_in_pair_run != "top":
            return None
        return (name, n)
    if per == 4:
        if (
            "quad_run" in allowed
            and consecutive
            and n >= rules.min_quad_run
            and not (ends_on_two and rules.twos_in_pair_run != "top")
        ):
            return ("quad_run", n)
        if "multi_quad" in allowed and n >= rules.min_quad_run:
            return ("multi_quad", n)
        return None
    return None  # five or more cards of one rank (two decks) form nothing


def ref_colours_ok(kind: str, ids: Iterable[int], rules: Rules) -> bool:
    """004 main rules: pair sequences are "in numerical sequence and same color" (all red,
    ♦ ♥, or all black, ♠ ♣), under ``pair_run_one_colour``."""
    if kind != "pair_run" or not rules.pair_run_one_colour:
        return True
    return len({id_suit(i) >= 2 for i in ids}) == 1


def ref_classify(ids: Iterable[int], rules: Rules) -> tuple[str, int] | None:
    """(kind, size) of the cards with these ids, or ``None``."""
    ids = list(ids)
    counts: dict[int, int] = {}
    for i in ids:
        counts[id_rank(i)] = counts.get(id_rank(i), 0) + 1
    kind = ref_kind(sorted(counts.items()), rules)
    return kind if kind is None or ref_colours_ok(kind[0], ids, rules) else None


def ref_combinations(hand: int, rules: Rules) -> list[Move]:
    """Every subset of ``hand`` that forms a combination, as engine :class:`Move` values.

    The subsets are visited rank by rank: for each rank, every subset of the hand's cards of
    that rank; a subset of the hand is one choice per rank. The kind depends only on how many
    cards of each rank are chosen, so it is decided once per choice of counts; every subset
    with a kind is then listed (pair runs checked for colour, where the rules ask)."""
    by_rank: dict[int, list[int]] = {}
    for i in ids_of(hand):
        by_rank.setdefault(id_rank(i), []).append(i)
    ranks = sorted(by_rank)
    out: list[Move] = []
    for counts in itertools.product(*(range(len(by_rank[r]) + 1) for r in ranks)):
        chosen = [(r, c) for r, c in zip(ranks, counts, strict=True) if c]
        kind = ref_kind(chosen, rules)
        if kind is None:
            continue
        per_rank_choices = [
            [mask_from_ids(ids) for ids in itertools.combinations(by_rank[r], c)] for r, c in chosen
        ]
        for parts in itertools.product(*per_rank_choices):
            mask = 0
            for p in parts:
                mask |= p
            if ref_colours_ok(kind[0], ids_of(mask), rules):
                out.append(Move(kind[0], kind[1], mask))
    return out


# --- the bomb tables, read with an independent pattern reader ---------------------------
@dataclass(frozen=True)
class RefPattern:
    kind: str | None  # None: any combination
    low: int = 0
    high: int = 10**9
    rank: int | None = None

    def matches(self, kind: str, size: int, top_rank: int) -> bool:
        if self.kind is not None and kind != self.kind:
            return False
        if not self.low <= size <= self.high:
            return False
        return self.rank is None or self.rank == top_rank


def ref_pattern(text: str) -> RefPattern:
    """Read ``KIND[SIZE][+][@RANK]`` or ``*`` (the notation of RULES tables)."""
    if text == "*":
        return RefPattern(None)
    body, _, rank_name = text.partition("@")
    rank = RANK_NAMES.index(rank_name.upper()) if rank_name else None
    more = body.endswith("+")
    body = body.rstrip("+")
    digits = ""
    while body and body[-1].isdigit():
        digits = body[-1] + digits
        body = body[:-1]
    if not digits:
        return RefPattern(body, rank=rank)
    size = int(digits)
    return RefPattern(body, size, 10**9 if more else size, rank)


def top_rank_of(move: Move) -> int:
    return id_rank(max(ids_of(move.mask)))


def is_bomb(move: Move, rules: Rules) -> bool:
    """A combination named on the bomb side of the chop table or on the bomb ladder."""
    patterns = [ref_pattern(b) for _, b in rules.chops] + [
        ref_pattern(p) for p in rules.bomb_ladder
    ]
    return any(p.matches(move.kind, move.size, top_rank_of(move)) for p in patterns)


def may_bomb_after_pass(move: Move, rules: Rules) -> bool:
    return is_bomb(move, rules) and any(
        ref_pattern(p).matches(move.kind, move.size, top_rank_of(move))
        for p in rules.after_pass_bombs
    )


def is_twos_play(move: Move) -> bool:
    """A single, pair or triple of 2s (what bombs chop)."""
    return move.kind in ("single", "pair", "triple") and all(
        id_rank(i) == TWO_RANK for i in ids_of(move.mask)
    )


def is_one_suit(move: Move) -> bool:
    return len({id_suit(i) for i in ids_of(move.mask)}) == 1


# --- the play phase ----------------------------------------------------------------------
@dataclass
class RefTable:
    """The play phase of one deal, restated from RULES.md.

    Build it from the hands at the start of play; ``leader=None`` applies
    ``rules.first_lead`` (the holder of the lowest dealt card leads, under its constraint).
    """

    rules: Rules
    hands: list[int]
    leader: int | None = None
    turn: int = field(init=False)
    top: Move | None = field(init=False, default=None)
    top_seat: int = field(init=False, default=-1)
    # The top is 2s, or (after_pass_on_chops) a bomb on 2s or on such a bomb: locked-out
    # players may come back with an after-pass bomb.
    on_twos: bool = field(init=False, default=False)
    passed: set[int] = field(init=False, default_factory=set)  # since the last play
    locked: set[int] = field(init=False, default_factory=set)  # out of this pile
    passed_in_pile: set[int] = field(init=False, default_factory=set)
    straight_lock: bool = field(init=False, default=False)
    first_mode: FirstLead | None = field(init=False, default=None)
    lowest: int = field(init=False, default=-1)
    stuck: set[int] = field(init=False, default_factory=set)
    finish: list[int] = field(init=False, default_factory=list)
    over: bool = field(init=False, default=False)
    # 004: "Three consecutive pairs can be played at the beginning of the game without being
    # the lead": before the first lead, the seats after the leader, in turn, may open with
    # one of ``rules.opening_bombs`` (or pass); then the leader leads.
    opening: list[int] = field(init=False, default_factory=list)
    first_leader: int = field(init=False, default=-1)
    fresh: bool = field(init=False, default=True)  # no card played yet this game
    lead_seat: int = field(init=False, default=-1)  # who leads (or must lead) the first pile
    pile: list[tuple[int, Move]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.hands = list(self.hands)
        if self.leader is None:
            everything = 0
            for h in self.hands:
                everything |= h
            self.lowest = min(ids_of(everything))
            self.turn = next(s for s, h in enumerate(self.hands) if h >> self.lowest & 1)
            mode = self.rules.first_lead
            self.first_mode = None if mode == "holder-free" else mode
        else:
            self.turn = self.leader
        self.lead_seat = self.turn
        if self.rules.opening_bombs:
            self.first_leader = self.turn
            seat = self.after(self.turn)
            while seat != self.first_leader:
                self.opening.append(seat)
                seat = self.after(seat)
            self.turn = self.opening[0]

    def opens(self, move: Move) -> bool:
        """Whether ``move`` is one of the bombs the game may open with, out of turn."""
        return any(
            ref_pattern(p).matches(move.kind, move.size, top_rank_of(move))
            for p in self.rules.opening_bombs
        )

    # -- helpers
    @property
    def n(self) -> int:
        return len(self.hands)

    def after(self, seat: int) -> int:
        step = 1 if self.rules.direction == "clockwise" else -1
        return (seat + step) % self.n

    def next_holding(self, seat: int) -> int:
        p = seat
        for _ in range(self.n):
            p = self.after(p)
            if self.hands[p]:
                return p
        return seat

    def state_kind(self) -> str:
        """What kind of decision the seat to act faces (for reporting)."""
        seat = self.turn
        if self.opening:
            return "open-out-of-turn"
        if self.top is None:
            return "first-lead" if self.first_mode else "lead"
        if seat == self.top_seat:
            return "stack"
        if seat in self.locked:
            return "rejoin"
        if seat in self.passed_in_pile:
            return "follow-after-pass"
        if self.straight_lock:
            return "follow-locked-straight"
        return "follow"

    # -- legal moves, by brute force
    def finishes_on_two(self, move: Move) -> bool:
        return move.mask == self.hands[self.turn] and any(
            id_rank(i) == TWO_RANK for i in ids_of(move.mask)
        )

    def legal(self, combos: list[Move] | None = None) -> list[Move]:
        """Every legal move of the seat to act (``Move`` values; the pass has mask 0)."""
        rules = self.rules
        seat = self.turn
        if combos is None:
            combos = ref_combinations(self.hands[seat], rules)
        out: list[Move] = []
        if self.opening:
            out = [m for m in combos if self.opens(m)]
            if not rules.may_finish_on_two:
                out = [m for m in out if not self.finishes_on_two(m)]
            return [*out, Move("pass", 0, 0)]
        if self.top is None:
            for m in combos:
                if self.fresh and self.opens(m):
                    # the game's first play may be one, the leader's too, without the
                    # lowest card and whether or not bombs may lead
                    if rules.may_finish_on_two or not self.finishes_on_two(m):
                        out.append(m)
                    continue
                if self.first_mode == "lowest-single" and m.mask != 1 << self.lowest:
                    continue
                if self.first_mode is not None and not m.mask >> self.lowest & 1:
                    continue
                # 004 Hawaii: "as a single, pair, or sequence" (first_lead_kinds).
                kinds = rules.first_lead_kinds
                if self.first_mode is not None and kinds and m.kind not in kinds:
                    continue
                if not rules.bombs_may_lead and is_bomb(m, rules):
                    continue
                if not rules.may_finish_on_two and self.finishes_on_two(m):
                    continue
                out.append(m)
            # The leader must play when able; the 3♠ holder under holder-may-decline may pass.
            if self.first_mode == "holder-may-decline" or not out:
                out.append(Move("pass", 0, 0))
            return out
        top = self.top
        for m in combos:
            if why_not_beats(m, top, rules, locked=self.straight_lock) is not None:
                continue
            # 001 Pang: stacking is "successively higher combinations of the same type";
            # bombs are for "the other players", so none on one's own play.
            if seat == self.top_seat and (m.kind, m.size) != (top.kind, top.size):
                continue
            # A passed player is back only to chop 2s (or, after_pass_on_chops, a chain of
            # bombs on 2s) with an after-pass bomb.
            passed_back = seat in self.locked and seat != self.top_seat
            if passed_back and not (self.on_twos and may_bomb_after_pass(m, rules)):
                continue
            if not rules.may_finish_on_two and self.finishes_on_two(m):
                continue
            out.append(m)
        out.append(Move("pass", 0, 0))
        return out

    # -- transitions
    def position(self) -> PlayState:
        """The state as the engine's :class:`~tienlen.position.PlayState` value, to compare
        the two whole."""
        first = (self.first_mode, Card.from_id(self.lowest)) if self.first_mode else None
        return PlayState(
            phase="over" if self.over else "play",
            turn=self.turn,
            leader=self.lead_seat,
            hands=tuple(self.hands),
            card_counts=tuple(h.bit_count() for h in self.hands),
            pile=tuple(Action(s, m) for s, m in self.pile),
            passed=frozenset(self.passed),
            locked_out=frozenset(self.locked),
            straight_locked=self.straight_lock,
            first_lead=first,
            stuck=frozenset(self.stuck),
            finish_order=tuple(self.finish),
            opening=tuple(self.opening) if self.rules.opening_bombs and self.fresh else None,
        )

    def apply(self, move: Move) -> None:
        seat = self.turn
        if move.mask == 0:
            self._pass(seat)
        else:
            self._play(seat, move)

    def _pass(self, seat: int) -> None:
        if self.opening:  # declined to open out of turn: the next seat is asked
            self.opening.pop(0)
            self.turn = self.opening[0] if self.opening else self.first_leader
            return
        if self.top is None:
            # The leader declines (holder-may-decline) or cannot lead: the next one leads.
            self.first_mode = None
            self.stuck.add(seat)
            if all(s in self.stuck for s in range(self.n) if self.hands[s]):
                self._end_rest(self.turn)  # nobody still in can lead: the game ends
                return
            self.turn = self.next_holding(seat)
            return
        if seat == self.top_seat:  # stacking declined: the pile is won
            self._fresh_pile(seat)
            return
        self.passed.add(seat)
        self.passed_in_pile.add(seat)
        if self.rules.pass_locks:
            self.locked.add(seat)
        self._move_on(seat)

    def _play(self, seat: int, move: Move) -> None:
        assert move.mask & ~self.hands[seat] == 0, "reference: card not held"
        self.opening.clear()
        self.fresh = False
        self.hands[seat] &= ~move.mask
        self.stuck.clear()
        # 2s on top, or (after_pass_on_chops) a bomb on 2s or on such a bomb.
        chained = self.rules.after_pass_on_chops and self.on_twos and is_bomb(move, self.rules)
        self.on_twos = is_twos_play(move) or chained
        self.top, self.top_seat = move, seat
        self.pile.append((seat, move))
        self.passed.clear()
        self.first_mode = None
        if self.rules.straight_lock and move.kind == "straight" and is_one_suit(move):
            self.straight_lock = True
        if not self.hands[seat]:
            self.finish.append(seat)
            if self.rules.end_at_first_out:
                self._end(seat)
                return
            holding = [s for s in range(self.n) if self.hands[s]]
            if len(holding) == 1:
                self.finish.append(holding[0])
                self.over = True
                return
            if self.rules.out_ends_pile:
                self._fresh_pile(self.next_holding(seat))
                return
        self._move_on(seat)

    def _move_on(self, seat: int) -> None:
        """RULES.md "Turn order, precisely"."""
        assert self.top is not None
        twos_open = bool(self.rules.after_pass_bombs) and self.on_twos
        p = seat
        while True:
            p = self.after(p)
            if p == self.top_seat:
                # Everyone else passed (or cannot act): the pile is won ...
                if self.rules.stacking and self.hands[p]:
                    self.turn = p  # ... unless the winner may stack on it.
                else:
                    self._fresh_pile(p if self.hands[p] else self.next_holding(p))
                return
            if not self.hands[p] or p in self.passed:
                continue
            if p in self.locked and not twos_open:
                continue
            self.turn = p
            return

    def _fresh_pile(self, leader: int) -> None:
        self.top, self.top_seat, self.on_twos = None, -1, False
        self.pile.clear()
        self.passed.clear()
        self.locked.clear()
        self.passed_in_pile.clear()
        self.straight_lock = False
        self.turn = leader

    def _end(self, first: int) -> None:
        """End at once with ``first`` the winner."""
        if first not in self.finish:
            self.finish.append(first)
        self._end_rest(first)

    def _end_rest(self, start: int) -> None:
        """The seats still in follow by fewest cards left, ties in playing order from
        ``start`` (the engine's documented call for games that end early)."""
        order = [start]
        while len(order) < self.n:
            order.append(self.after(order[-1]))
        rest = [s for s in order if s not in self.finish]
        rest.sort(key=lambda s: (self.hands[s].bit_count(), order.index(s)))
        self.finish.extend(rest)
        self.over = True


def public_state(game: Any) -> tuple[Any, ...]:
    """Everything a :class:`~tienlen.Game` exposes, as one comparable value (to check that
    a refused move changed nothing)."""
    return (
        game.position,
        game.dealt,
        game.history,
        game.chops,
        game.instant_win,
        game.trades,
        game.pending_trade,
        game.asks,
        game.unused_hands,
    )
