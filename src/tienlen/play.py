"""The play phase's legal moves, as pure functions of the state and one hand.

:func:`legal_moves` answers from a :class:`~tienlen.position.PlayState` and the hand of the
seat to act alone: legality never depends on the other hands, so hints and searches need
no stand-in cards for them. :class:`tienlen.Game` uses the same functions on its record
(:class:`~tienlen.packed.PackedState`), to stay fast.

>>> from tienlen import Game
>>> from tienlen.observation import observe
>>> game = Game("standard", hands=["3s 4s 5d 9h", "6c 7c", "8d 2h", "Kd Ks"])
>>> obs = observe(game, 0)
>>> [str(m) for m in legal_moves(obs, obs.hand_mask, obs.rules)]
['3♠', '3♠ 4♠ 5♦']
"""

from __future__ import annotations

from .cards import TWOS_MASK
from .combos import PASS, Move, index, is_twos
from .movegen import MoveTable, table_for
from .packed import PackedState, packed
from .position import Action, PlayState
from .rules import FirstLead, Rules

__all__ = ["legal_moves"]


def legal_moves(state: PlayState, hand: int, rules: Rules) -> list[Move]:
    """Every legal move (the pass included when it is legal) of the seat to act in the play
    phase of ``state``, holding ``hand`` (a bitmask), under ``rules``."""
    if state.phase != "play":
        raise ValueError(f"legal moves are worked out here in the play phase, not {state.phase!r}")
    # The other hands play no part: they are packed as empty.
    hands = [hand if seat == state.turn else 0 for seat in range(len(state.hands))]
    return play_moves(table_for(hand, rules), rules, packed(state, hands))


def play_moves(table: MoveTable, rules: Rules, state: PackedState) -> list[Move]:
    """:func:`legal_moves` from a game's record: ``table`` is the move table of the hand of
    the seat to act."""
    seat = state.turn
    pile = state.pile
    if state.opening:
        moves = [m for m in table.moves if opens(m, rules)]
        if not rules.may_finish_on_two:
            moves = [m for m in moves if not finishes_on_two(m, table.hand)]
        return [*moves, PASS]
    if not pile:
        moves = leads(table, rules, state)
        if state.first_lead == "holder-may-decline" or (not moves and table.moves):
            moves.append(PASS)
        return moves
    last = pile[-1]
    top = last.move
    locked = state.straight_locked
    if seat == last.seat:  # stacking: the same kind and size only, never a bomb
        same = (top.kind, top.size)
        moves = [m for m in table.beating(top, rules, locked=locked) if (m.kind, m.size) == same]
    elif state.locked_out >> seat & 1:
        ix = index(rules)
        if not twos_under(pile, rules):
            return [PASS]
        moves = [
            m
            for m in table.beating(top, rules, locked=locked)
            if ix.is_bomb(m) and any(p.matches(m.kind, m.size, m.top_rank) for p in ix.after_pass)
        ]
    else:
        moves = table.beating(top, rules, locked=locked)
    if not rules.may_finish_on_two:
        moves = [m for m in moves if not finishes_on_two(m, table.hand)]
    moves.append(PASS)
    return moves


def finishes_on_two(m: Move, hand: int) -> bool:
    """Whether ``m`` plays out the whole ``hand`` with a 2 in it."""
    return m.mask == hand and bool(m.mask & TWOS_MASK)


def opens(m: Move, rules: Rules) -> bool:
    """Whether ``m`` is one of the bombs the game may open with out of turn."""
    return any(p.matches(m.kind, m.size, m.top_rank) for p in index(rules).opening)


def leads(table: MoveTable, rules: Rules, state: PackedState) -> list[Move]:
    """The plays that may lead a fresh pile (the pass aside) in ``state``."""
    moves = constrained_leads(table, rules, state.first_lead, state.lowest)
    if state.opening is not None:
        # 004: the game's first play may be an opening bomb "without being the lead or
        # having three of spades", whatever else constrains the leader.
        known = {m.mask for m in moves}
        extra = [m for m in table.moves if m.mask not in known and opens(m, rules)]
        if not rules.may_finish_on_two:
            extra = [m for m in extra if not finishes_on_two(m, table.hand)]
        moves += extra
    return moves


def constrained_leads(
    table: MoveTable, rules: Rules, first: FirstLead | None, lowest: int
) -> list[Move]:
    """The leads the first-lead constraint and the lead knobs allow."""
    moves = list(table.moves)
    if first is not None:
        bit = 1 << lowest
        if first == "lowest-single":
            moves = [m for m in moves if m.mask == bit]
        else:
            moves = [m for m in moves if m.mask & bit]
        if rules.first_lead_kinds:
            moves = [m for m in moves if m.kind in rules.first_lead_kinds]
    if not rules.bombs_may_lead:
        ix = index(rules)
        moves = [m for m in moves if not ix.is_bomb(m)]
    if not rules.may_finish_on_two:
        hand = table.hand
        moves = [m for m in moves if not finishes_on_two(m, hand)]
    return moves


def twos_under(pile: tuple[Action, ...], rules: Rules) -> bool:
    """Whether locked-out players may come back now: 2s are on top of the pile, or, under
    ``rules.after_pass_on_chops``, bombs played on 2s (each on the one before)."""
    if is_twos(pile[-1].move):
        return True
    if not rules.after_pass_on_chops:
        return False
    ix = index(rules)
    for action in reversed(pile):
        if is_twos(action.move):
            return True
        if not ix.is_bomb(action.move):
            return False
    return False
