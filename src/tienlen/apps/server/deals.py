"""A table's deals: each game's seed a secret drawn from the table's secret, and the
commitment to it that the table publishes at the deal (see docs/web-protocol.md)."""

from __future__ import annotations

import functools
import hashlib
import hmac

from tienlen import Match, Rules

__all__ = ["ServerMatch", "commitment_of"]


@functools.lru_cache(maxsize=4096)  # a view repeats it on every action of the game
def commitment_of(seed: str) -> str:
    """The published commitment to a deal's seed: its SHA-256 in hex."""
    return hashlib.sha256(seed.encode()).hexdigest()


class ServerMatch(Match):
    """A :class:`~tienlen.Match` whose game seeds are independent secrets.

    Each game's seed is an HMAC of the table's secret, so revealing one game's seed (in its
    record, after the game) tells nothing about the next deal, while the whole match stays
    reproducible from the secret (which never leaves the server).
    """

    def __init__(
        self, rules: Rules, *, games: int | None, target: int | None, secret: str, match: int
    ) -> None:
        self._secret = f"{secret}/match{match}"
        super().__init__(rules, games=games, target=target, seed=self._secret)

    def seed_of(self, number: int) -> str:
        """Game ``number``'s seed (secret until that game is over)."""
        digest = hmac.new(self._secret.encode(), f"game{number}".encode(), hashlib.sha256)
        return digest.hexdigest()

    @property
    def deal_seed(self) -> str:
        """The seed the current game's cards came from (a two-player game dealt from a
        four-hand deal's spare hands shares the previous game's seed)."""
        seed = self.game_seed
        return seed if isinstance(seed, str) else self.seed_of(self.number - 1)
