"""Guesses at the hidden hands: the determinizations the search bot and the ``learned``
bot's endgame play on, drawn from an observation alone."""

from __future__ import annotations

import math
import random

from tienlen.cards import bits_of_mask
from tienlen.observation import Observation
from tienlen.players.bots.analysis import planner
from tienlen.players.bots.inference import Inference
from tienlen.players.toolkit import sample_hands, unseen_mask

__all__ = ["Determinizer"]


class Determinizer:
    """Guesses at the hidden hands of one observation (step 1 of the ``ismcts`` bot's
    search, :mod:`.ismcts`): each :meth:`sample` deals the unseen cards at random to the
    other seats in their card counts, ``guesses`` times, and keeps the deal that best explains the
    opponents' ``recent`` last plays under the model opponent (:mod:`.inference`). With
    ``tidy``, it keeps instead the deal whose other hands are the cheapest to play out (the
    planner's cost): players shed their loose cards and keep their combinations, so the
    hands they still hold are tidier than a random split of the unseen cards (the game
    analysis measured it: docs/bots.md, calibration). It reads the observation only: it
    never sees a hidden card."""

    def __init__(
        self, obs: Observation, *, guesses: int = 3, recent: int = 2, tidy: bool = False
    ) -> None:
        self.obs = obs
        self.guesses = guesses
        self._pool = bits_of_mask(unseen_mask(obs))
        self._inference = Inference(obs, per_seat=recent) if guesses > 1 and not tidy else None
        self._planner = planner(obs.rules) if tidy else None

    def sample(self, rng: random.Random) -> list[int]:
        """One determinization: a hand (bitmask) for every seat, the observer's own."""
        if self._planner is not None:
            return self._tidiest(rng)
        obs, pool, inference = self.obs, self._pool, self._inference
        hands = sample_hands(obs, rng, pool)
        if inference is None or not inference.decisions:
            return hands
        best = inference.mismatches(hands)
        for _ in range(self.guesses - 1):
            if not best:
                break
            other = sample_hands(obs, rng, pool)
            wrong = inference.mismatches(other, best)
            if wrong < best:
                hands, best = other, wrong
        return hands

    def _tidiest(self, rng: random.Random) -> list[int]:
        obs, pool, pl = self.obs, self._pool, self._planner
        assert pl is not None
        best: tuple[float, list[int]] | None = None
        for _ in range(self.guesses):
            hands = sample_hands(obs, rng, pool)
            cost = math.fsum(pl.cost(h) for s, h in enumerate(hands) if s != obs.seat)
            if best is None or cost < best[0]:
                best = (cost, hands)
        assert best is not None
        return best[1]
