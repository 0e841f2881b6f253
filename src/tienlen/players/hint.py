"""Hints: the move the ``heuristic`` bot would make, with its reason in words.

>>> from tienlen import Game
>>> from tienlen.observation import observe
>>> game = Game("standard", hands=["3s 4s 5d 9h", "6c 7c", "8d 2h", "Kd Ks"])
>>> move, why = hint(observe(game, 0))
>>> str(move), why
('3♠ 4♠ 5♦', 'shed 3 cards: 3-card straight to 5♦')
"""

from __future__ import annotations

from collections.abc import Sequence

from tienlen.combos import Choice, Move
from tienlen.observation import Observation
from tienlen.play import legal_moves
from tienlen.players.bots.heuristic import HeuristicBot
from tienlen.reasons import Reason

__all__ = ["hint", "legal_moves_of"]

_BOT = HeuristicBot()


def legal_moves_of(obs: Observation) -> list[Move]:
    """The legal moves of the observing seat, from its observation alone (play phase, on
    its turn; :func:`tienlen.play.legal_moves`)."""
    if obs.phase != "play" or obs.turn != obs.seat:
        raise ValueError("a hint needs the play phase and this seat's turn")
    return legal_moves(obs, obs.hand_mask, obs.rules)


def hint(obs: Observation, legal: Sequence[Choice] | None = None) -> tuple[Choice, Reason]:
    """Suggest a move for the observing seat and say why: the reason is English as a
    ``str``, with a code and parameters to word it in Vietnamese too (``why.text("vi")``).
    ``legal`` defaults to the seat's legal moves (:func:`legal_moves_of`)."""
    moves: Sequence[Choice] = list(legal) if legal is not None else legal_moves_of(obs)
    if not moves:
        raise ValueError("no legal moves: nothing to hint")
    return _BOT.decide(obs, moves)
