"""The one player interface every bot, the terminal game, the server and the arena use.

A player sees only its seat's :class:`~tienlen.observation.Observation` and the legal
moves (plays and the pass, or in an exchange, gives: :data:`~tienlen.combos.Choice`), plus
a :class:`Budget`, and returns one of the legal moves. Callers go through
:func:`choose_safely`, so a player that raises, overruns or answers with an illegal move
never crashes a game: the fallback move is played and the problem is logged.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tienlen.combos import PASS, Choice, Give, Move
from tienlen.observation import Observation
from tienlen.text import printable

__all__ = ["Budget", "Player", "choose_safely", "fallback_move", "split_choices"]

log = logging.getLogger("tienlen.players")


@dataclass(frozen=True, slots=True)
class Budget:
    """How much thinking a player may do for one move (``None``: the player's default)."""

    seconds: float | None = None
    iterations: int | None = None

    def __post_init__(self) -> None:
        # a nan or infinite time would make a search bot think forever
        if self.seconds is not None and not 0 <= self.seconds < math.inf:
            raise ValueError(
                f"a time budget must be a finite number of seconds, not {self.seconds!r}"
            )
        if self.iterations is not None and (
            isinstance(self.iterations, bool) or self.iterations < 1
        ):
            raise ValueError(f"an iteration budget must be at least 1, not {self.iterations!r}")


@runtime_checkable
class Player(Protocol):
    """Anything that picks a move from an observation."""

    name: str

    def choose(self, obs: Observation, legal: Sequence[Choice], budget: Budget) -> Choice:
        """Return one of ``legal``."""
        ...


def fallback_move(legal: Sequence[Choice]) -> Choice:
    """The move played for a player that failed: pass if allowed, else the lowest play (or
    give)."""
    if PASS in legal:
        return PASS
    return min(legal, key=lambda m: (m.mask.bit_length(), m.mask.bit_count()))


def split_choices(legal: Sequence[Choice]) -> tuple[list[Move], list[Give]]:
    """``legal`` as its plays (the pass included) and its gives: one of the two is empty,
    since a seat either plays or gives."""
    plays: list[Move] = []
    gives: list[Give] = []
    for m in legal:
        if isinstance(m, Give):
            gives.append(m)
        else:
            plays.append(m)
    return plays, gives


def choose_safely(
    player: Player,
    obs: Observation,
    legal: Sequence[Choice],
    budget: Budget,
    *,
    grace: float = 1.0,
) -> tuple[Choice, str | None]:
    """Ask ``player`` for a move; return ``(move, problem)``. On an exception, an illegal
    answer or a time overrun of more than ``grace`` seconds, the move is
    :func:`fallback_move` (or the late answer, if legal) and ``problem`` says what went wrong."""
    start = time.perf_counter()
    try:
        move = player.choose(obs, legal, budget)
    except Exception as e:  # a bot must never crash a game
        problem = printable(f"{player.name} raised {type(e).__name__}: {e}", limit=500)
        log.warning(problem)
        return fallback_move(legal), problem
    elapsed = time.perf_counter() - start
    if move not in legal:
        problem = printable(f"{player.name} chose an illegal move {move!r}", limit=500)
        log.warning(problem)
        return fallback_move(legal), problem
    if budget.seconds is not None and elapsed > budget.seconds + grace:
        problem = f"{player.name} took {elapsed:.2f}s for a {budget.seconds:.2f}s budget"
        log.warning(problem)
        return move, problem
    return move, None
