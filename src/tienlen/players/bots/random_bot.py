"""``random``: a uniform choice among the legal moves (the floor every bot must beat)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from tienlen.combos import Choice
from tienlen.observation import Observation
from tienlen.players.base import Budget

__all__ = ["RandomBot"]


class RandomBot:
    """Picks uniformly among the legal moves; reproducible for a given ``seed``."""

    def __init__(self, *, seed: int | None = None, name: str = "random") -> None:
        self.name = name
        self._rng = random.Random(seed)

    def choose(self, obs: Observation, legal: Sequence[Choice], budget: Budget) -> Choice:
        """A uniformly random legal move."""
        return legal[self._rng.randrange(len(legal))]
