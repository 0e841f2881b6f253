"""Inference about the hidden hands from the opponents' public plays.

A determinization (a guess at every hidden hand) also fixes what each opponent held at
each of its past decisions: its hand then is its guessed hand now plus every card it has
played since. :class:`Inference` replays the public history once per decision to record
the opponents' recent decisions (the play to beat, card counts, cards played so far), and
:meth:`Inference.mismatches` counts how many of them a model opponent, the ``heuristic``
bot's scoring, would have made differently with the guessed hands. The search bot prefers
guesses that explain what the opponents did: a player who passed when it could have gone
out did not hold that play; a player who led a 9 single probably holds no lower loose card.
"""

from __future__ import annotations

from typing import NamedTuple

from tienlen.cards import deck_mask
from tienlen.combos import PASS, Move
from tienlen.game import Game
from tienlen.movegen import table_for
from tienlen.observation import Observation
from tienlen.players.bots.heuristic import Context
from tienlen.players.toolkit import placeholder_hands
from tienlen.position import Action, PlayState

__all__ = ["Inference"]


class _Decision(NamedTuple):
    seat: int
    top: Move | None
    locked: bool
    counts: tuple[int, ...]
    played_before: int
    """Cards on the table before this decision."""
    played_since: int
    """Cards this seat played at this decision and after it."""
    action: Move


class Inference:
    """The recent decisions of the opponents of one observation (see the module doc)."""

    def __init__(self, obs: Observation, *, per_seat: int = 4) -> None:
        self.rules = obs.rules
        # An engine error while replaying the public history is a bug: it is not caught.
        self.decisions: list[_Decision] = _record(obs, per_seat)

    def mismatches(self, hands: list[int], limit: int = 1 << 30) -> int:
        """How many recorded decisions the model opponent would have made differently if
        the hands were ``hands`` now (counting stops at ``limit``)."""
        rules = self.rules
        full = deck_mask(rules.decks)
        wrong = 0
        for d in self.decisions:
            hand = hands[d.seat] | d.played_since
            if wrong >= limit:
                break
            if d.action.mask & ~hand:
                wrong += 1
                continue
            table = table_for(hand, rules)
            if d.top is None:
                legal: list[Move] = list(table.moves)
            else:
                legal = table.beating(d.top, rules, locked=d.locked)
                legal.append(PASS)
            if len(legal) < 2:
                continue
            ctx = Context(rules, d.seat, hand, d.counts, d.top, full & ~hand & ~d.played_before)
            if ctx.best(legal).mask != d.action.mask:
                wrong += 1
        return wrong


def _record(obs: Observation, per_seat: int) -> list[_Decision]:
    """Replay the public history on placeholder hands (only the card counts matter for
    whose turn it is) and keep each opponent's last ``per_seat`` free decisions."""
    history = [a for a in obs.history if isinstance(a, Action)]
    rules = obs.rules
    n = rules.players
    if not history or len(history) != len(obs.history):
        return []  # gives changed the hands
    if any(t.accepted for t in obs.trades):
        return []
    played_by = [0] * n
    for a in history:
        played_by[a.seat] |= a.move.mask
    # Placeholder hands: the cards each seat played, plus filler for what it holds now.
    hands = [h | played for h, played in zip(placeholder_hands(obs), played_by, strict=True)]
    start = PlayState(
        turn=history[0].seat,
        leader=obs.leader,
        hands=tuple(hands),
        card_counts=tuple(h.bit_count() for h in hands),
    )
    game = Game.from_state(start, rules=rules)
    played = 0
    records: list[tuple[int, Move | None, bool, tuple[int, ...], int, int, Move]] = []
    for i, action in enumerate(history):
        seat = action.seat
        if game.turn != seat or game.is_over:
            return []  # the replay lost track (an unusual start): infer nothing
        on_top = game.top
        if seat != obs.seat and i > 0 and seat not in game.locked_out:
            counts = tuple(h.bit_count() for h in game.hand_masks)
            records.append(
                (
                    seat,
                    on_top.move if on_top else None,
                    game.straight_locked,
                    counts,
                    played,
                    i,
                    action.move,
                )
            )
        game.apply_unchecked(action.move)
        played |= action.move.mask
    # cards each seat played from decision i on
    since_at: list[list[int]] = [[0] * n for _ in range(len(history) + 1)]
    acc = [0] * n
    for i in range(len(history) - 1, -1, -1):
        acc[history[i].seat] |= history[i].move.mask
        since_at[i] = acc[:]
    out: list[_Decision] = []
    kept = [0] * n
    for seat, top, locked, counts, before, i, move in reversed(records):
        if kept[seat] >= per_seat:
            continue
        kept[seat] += 1
        out.append(_Decision(seat, top, locked, counts, before, since_at[i][seat], move))
    return out
