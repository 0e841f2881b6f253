"""``greedy``: a rule-based player in the style of the classic rule agents of climbing games.

- Leading, it sheds its lowest rank with the largest combination that starts there (a
  straight or pair run from its lowest card if it has one, else all the cards of that rank),
  keeping 2s and bombs back while it has other plays.
- Following, it plays the lowest combination that beats the pile without breaking a
  stronger structure (a single from a pair, a pair from a triple, a straight through a
  pair); it plays a 2 only on an Ace or a 2, when an opponent is close to going out, or
  when its own hand is nearly gone; it chops 2s with the lowest bomb that does.
- Otherwise it passes.
- Offered a trade, it accepts when the cards offered outrank the cards asked for (the sum
  of their ranks).

The decision is a function of the hand, the legal moves, the pile's top play and the
fewest cards an opponent holds (:func:`greedy_pick`), so the search bot uses the same
function as its playout policy.
"""

from __future__ import annotations

from collections.abc import Sequence

from tienlen.cards import ACE, RANK_MASK, TWOS_MASK, bits_of_mask
from tienlen.combos import PASS, Choice, Give, Move, RulesIndex, index, is_twos
from tienlen.observation import Observation
from tienlen.players.base import Budget, split_choices

__all__ = ["GreedyBot", "give_lowest", "greedy_pick"]


def _clean(m: Move, hand: int) -> bool:
    """Whether ``m`` uses every card it touches of each rank (breaks no pair, triple, quad)."""
    mask = m.mask
    while mask:
        low = mask & -mask
        shift = ((low.bit_length() - 1) >> 3) << 3
        rank_hand = (hand >> shift) & RANK_MASK
        rank_move = (mask >> shift) & RANK_MASK
        if rank_hand != rank_move:
            return False
        mask &= ~(RANK_MASK << shift)
    return True


def give_lowest(legal: Sequence[Give]) -> Give:
    """For the exchanges: give the lowest cards."""
    return min(legal, key=lambda m: m.mask)


def greedy_pick(
    hand: int,
    legal: Sequence[Move],
    top: Move | None,
    fewest: int,
    ix: RulesIndex,
) -> Move:
    """The greedy choice among ``legal`` for a player holding ``hand`` when ``top`` is the
    play to beat (``None`` when leading) and the closest opponent holds ``fewest`` cards."""
    if len(legal) == 1:
        return legal[0]
    size = hand.bit_count()
    if top is None:
        return _lead(hand, legal, ix)
    urgent = fewest <= 2 or size <= 4
    top_rank = top.top_id >> 3
    twos_on_top = is_twos(top)
    best: Move | None = None
    fallback: Move | None = None
    bomb: Move | None = None
    for m in legal:
        if m.is_pass:
            continue
        if m.mask == hand:
            return m  # going out
        if ix.is_bomb(m):
            if bomb is None or m.top_id < bomb.top_id:
                bomb = m
            continue
        if m.mask & TWOS_MASK and not (urgent or top_rank >= ACE):
            continue
        if _clean(m, hand):
            if best is None or _rank_key(m) < _rank_key(best):
                best = m
        elif fallback is None or _rank_key(m) < _rank_key(fallback):
            fallback = m
    if bomb is not None and (twos_on_top or (urgent and best is None)):
        return bomb  # chop the 2s (or stop an opponent about to go out)
    if best is not None:
        return best
    if fallback is not None and urgent:
        return fallback
    return PASS if PASS in legal else legal[0]


def _ranks(mask: int) -> int:
    """The sum of the ranks of the cards of ``mask``."""
    return sum((bit.bit_length() - 1) >> 3 for bit in bits_of_mask(mask))


def _rank_key(m: Move) -> tuple[int, int]:
    return (m.top_id, -m.mask.bit_count())


def _lead(hand: int, legal: Sequence[Move], ix: RulesIndex) -> Move:
    plays = [m for m in legal if not m.is_pass]
    if not plays:
        return legal[0]
    for m in plays:
        if m.mask == hand:
            return m  # going out in one play
    keep = [m for m in plays if not (m.mask & TWOS_MASK) and not ix.is_bomb(m)]
    pool = keep or plays
    lowest = min((m.mask & -m.mask).bit_length() for m in pool) - 1
    lowest_rank = lowest >> 3
    best: Move | None = None
    best_key: tuple[int, int, int] = (0, 0, 0)
    for m in pool:
        low = (m.mask & -m.mask).bit_length() - 1
        if low >> 3 != lowest_rank:
            continue
        # most cards first; then plays that break nothing; then the lowest top
        key = (m.mask.bit_count(), int(_clean(m, hand)), -m.top_id)
        if best is None or key > best_key:
            best, best_key = m, key
    assert best is not None
    return best


class GreedyBot:
    """The ``greedy`` bot: plays low, keeps 2s and bombs for when they matter."""

    def __init__(self, *, name: str = "greedy") -> None:
        self.name = name

    def choose(self, obs: Observation, legal: Sequence[Choice], budget: Budget) -> Choice:
        """Pick a move with :func:`greedy_pick` (a give with :func:`give_lowest`, a trade
        answer by the ranks swapped)."""
        plays, gives = split_choices(legal)
        offer = obs.pending_trade
        if offer is not None and gives:
            # a trade offer: accept higher cards for its own (more rank in than out)
            return gives[0] if _ranks(offer.give) > _ranks(offer.take) else PASS
        if gives:
            return give_lowest(gives)
        top = obs.pile[-1].move if obs.pile else None
        fewest = min(
            (c for s, c in enumerate(obs.tracked_counts()) if s != obs.seat and c),
            default=99,
        )
        return greedy_pick(obs.hand_mask, plays, top, fewest, index(obs.rules))
