"""Reinforcement-learning environments on top of the engine (needs the ``env`` extra:
numpy, pettingzoo, gymnasium).

- :mod:`tienlen.env.aec`: a PettingZoo AEC environment, every seat an agent;
- :mod:`tienlen.env.single`: a Gymnasium environment, one seat against registry bots
  (registered as ``tienlen/TienLen-v0`` when this package is imported, so
  ``gymnasium.make("tienlen/TienLen-v0")`` works);
- :mod:`tienlen.env.wrappers`: the observation keys RLlib's action-masking models read;
- :mod:`tienlen.env.selfplay`: an RLCard-style ``run()`` of whole self-play games;
- :mod:`tienlen.env.train`: Deep Monte-Carlo self-play training of the ``learned`` bot.

Observations and moves are encoded by :mod:`tienlen.players.encoding` from the seat's
:class:`~tienlen.observation.Observation` only. Actions index the current legal-move list
(``Game.legal_moves()`` order), within ``Discrete(max_legal_moves(rules))`` and masked by
``action_mask``; see ``docs/env.md``. The core and :mod:`tienlen.players` never import
this package.
"""

from __future__ import annotations

import random
import secrets

import gymnasium
from gymnasium.error import ResetNeeded

from tienlen.game import Game
from tienlen.rules import Rules

__all__ = ["GYM_ID", "ResetNeededError", "deal", "resolve_rules", "returns"]

#: The Gymnasium id of :class:`tienlen.env.single.TienLenGym` (its keyword arguments pass
#: through ``gymnasium.make``).
GYM_ID = "tienlen/TienLen-v0"

if GYM_ID not in gymnasium.registry:
    gymnasium.register(id=GYM_ID, entry_point="tienlen.env.single:TienLenGym")


class ResetNeededError(ResetNeeded, ValueError):
    """A step of an environment that has no episode running: never reset, or its episode
    has ended. Gymnasium's ``ResetNeeded`` (what its order-enforcing wrapper raises for a
    step before the first reset) and a ``ValueError``, as every error of this project."""


def resolve_rules(rules: Rules | str, players: int | None) -> Rules:
    """A rules value from a preset name or value, for ``players`` seats if given."""
    value = Rules.preset(rules) if isinstance(rules, str) else rules
    return value.for_players(players) if players is not None else value


def deal(rules: Rules, rng: random.Random) -> Game:
    """A new game dealt from ``rng``; a deal that ends at once (an instant win) is dealt
    again, so every episode has at least one decision."""
    while True:
        game = Game(rules, seed=rng.getrandbits(64))
        if not game.is_over:
            return game


def new_rng(seed: int | None) -> random.Random:
    """The episode generator of an environment: seeded, or from the system's entropy."""
    return random.Random(secrets.randbits(64) if seed is None else seed)


def returns(game: Game) -> tuple[float, ...]:
    """Each seat's return for a finished game: +1 for first out, -1 for last, evenly
    spaced in between (the finishing position, which is what the arena counts)."""
    n = game.rules.players
    order = game.finish_order
    out = [0.0] * n
    for place, seat in enumerate(order):
        out[seat] = (n - 1 - 2 * place) / (n - 1)
    return tuple(out)
