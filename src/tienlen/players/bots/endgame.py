"""The ``learned`` bot's endgame: the open-hands solver asked about deals of the unseen cards.

Near the end of a game a network's estimate can miss a line that forces going out, and
there the game is small enough to solve. Where the seat's stake is still open (nobody is
out, so the stake is the win; or two seats are left, so it is not being last) and at most
:data:`ENDGAME_CARDS` cards are in hand in all, :func:`forcing_counts` deals the unseen
cards ``samples`` times as the search bot does (:class:`~.determinize.Determinizer`: from the
observation only, preferring deals that explain the opponents' recent plays) and asks the
open-hands solver (:mod:`tienlen.solver`) in each deal which of the seat's choices
still force it out next whatever the others play. The bot then plays a choice that forces
it in the most deals (docs/bots.md measures what this gives).

The solver's question is the cautious one (the others all play against the seat), so a
deal with no forcing choice says nothing, and the network decides where no choice forces
in any deal. A deal too large to solve within :data:`ENDGAME_NODES` positions is skipped;
where the first one is, the others (of the same size) are not tried.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from tienlen.combos import Choice, Move
from tienlen.game import Game
from tienlen.gc_pause import paused_gc
from tienlen.observation import Observation
from tienlen.players.bots.determinize import Determinizer
from tienlen.solver import Solver, TooLargeError, next_out_is_the_stake

__all__ = ["ENDGAME_CARDS", "ENDGAME_NODES", "forcing_counts", "in_endgame"]

#: The most cards in hand, all seats together, of a position the endgame solves.
ENDGAME_CARDS = 30
#: The solver's node budget for one deal (about 35 ms of CPU on the compiled engine, at the
#: 3.5 microseconds a position measured over 320 endgame solves).
ENDGAME_NODES = 10_000


def in_endgame(obs: Observation, *, cards: int = ENDGAME_CARDS) -> bool:
    """Whether the endgame solves ``obs``'s decision: the play phase, the seat's stake is
    what the solver answers (nobody out, or two seats left), and at most ``cards`` cards
    are in hand in all (as a player who keeps count knows them)."""
    if obs.phase != "play" or obs.pending_trade is not None:
        return False
    counts = obs.tracked_counts()
    return next_out_is_the_stake(counts) and sum(counts) <= cards


def forcing_counts(
    obs: Observation,
    legal: Sequence[Choice],
    rng: random.Random,
    *,
    samples: int,
    nodes: int = ENDGAME_NODES,
) -> list[int] | None:
    """For each of ``legal``, in how many of ``samples`` deals of the unseen cards it still
    lets the seat force going out next (see the module docstring); ``None`` where no deal
    could be solved."""
    # Paused over all the deals (not only each solve): each solver's memo is freed before
    # the collector runs again, so it never walks them.
    with paused_gc():
        counts = _forcing(obs, rng, samples, nodes)
    if counts is None:
        return None
    return [counts[c.mask] if isinstance(c, Move) else 0 for c in legal]


def _forcing(obs: Observation, rng: random.Random, samples: int, nodes: int) -> Counter[int] | None:
    deals = Determinizer(obs)
    forcing: Counter[int] = Counter()
    solved = 0
    for _ in range(samples):
        game = Game.from_state(obs, rules=obs.rules, hands=deals.sample(rng))
        try:
            solution = Solver(nodes=nodes).solve(game, obs.seat)
        except TooLargeError:
            if not solved:
                return None  # the other deals are as large
            continue
        solved += 1
        for move, wins in solution.choices:
            forcing[move.mask] += wins
    return forcing if solved else None
