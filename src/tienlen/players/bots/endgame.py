"""The ``learned`` bot's endgame: the open-hands solver asked about deals of the unseen cards.

Near the end of a game a network's estimate can miss a line that forces going out, and
there the game is small enough to solve. Where the seat's stake is still open (nobody is
out, so the stake is the win; or two seats are left, so it is not being last) and at most
:data:`ENDGAME_CARDS` cards are in hand in all, :func:`forcing_choice` deals the unseen
cards ``samples`` times as the search bot does (:class:`~.determinize.Determinizer`: from the
observation only, preferring deals that explain the opponents' recent plays) and asks the
open-hands solver (:mod:`tienlen.solver`) in each deal whether the seat's choices still
force it out next whatever the others play. The bot then plays a choice that forces it in
the most deals, the network's values breaking ties (docs/bots.md measures what this gives).

The solver's question is the cautious one (the others all play against the seat), so a
deal with no forcing choice says nothing, and the network decides where no choice forces
in any deal. The choices are asked in the network's order, each only while it could still
force in more deals than the best one before it: where the network's own choice forces in
every deal, that is all the solver is asked. A deal gets :data:`ENDGAME_NODES` positions in
all its questions; a deal where the network's choice is too large to answer is skipped
(where the first one is, the others, of the same size, are not tried), and a later choice
whose question runs past the deal's budget counts as not forcing there.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import islice

from tienlen.combos import Choice, Move
from tienlen.game import Game
from tienlen.gc_pause import paused_gc
from tienlen.observation import Observation
from tienlen.players.bots.determinize import Determinizer
from tienlen.solver import Solver, TooLargeError, next_out_is_the_stake

__all__ = ["ENDGAME_CARDS", "ENDGAME_NODES", "forcing_choice", "in_endgame", "sampled_deals"]

#: The most cards in hand, all seats together, of a position the endgame solves.
ENDGAME_CARDS = 30
#: The solver's node budget for one deal (about 18 ms of CPU on the compiled engine, at the
#: 3.5 microseconds a position measured over 320 endgame solves). 5,000 won as often as
#: 10,000 in 1,000 games on each of two rule sets, in 60-80% of the time (docs/bots.md).
ENDGAME_NODES = 5_000


def in_endgame(obs: Observation, *, cards: int = ENDGAME_CARDS) -> bool:
    """Whether the endgame solves ``obs``'s decision: the play phase, the seat's stake is
    what the solver answers (nobody out, or two seats left), and at most ``cards`` cards
    are in hand in all (as a player who keeps count knows them)."""
    if obs.phase != "play" or obs.pending_trade is not None:
        return False
    counts = obs.tracked_counts()
    return next_out_is_the_stake(counts) and sum(counts) <= cards


def forcing_choice(
    obs: Observation,
    legal: Sequence[Choice],
    values: Sequence[float],
    rng: random.Random,
    *,
    samples: int,
    nodes: int = ENDGAME_NODES,
) -> int | None:
    """The index in ``legal`` of the choice to play: of those that let the seat force going
    out next in the most of ``samples`` deals of the unseen cards, the one of highest
    ``values`` (the network's, one per choice); ``None`` where no choice forces in any deal,
    or no deal could be solved (see the module docstring)."""
    plays = [(i, c) for i, c in enumerate(legal) if isinstance(c, Move)]
    if not plays:
        return None
    plays.sort(key=lambda play: -values[play[0]])  # stable: ties keep the order of legal
    # Paused over all the deals (not only each solve): each solver's memo is freed before
    # the collector runs again, so it never walks them.
    with paused_gc():
        best = _forcing_choice(obs, [c for _, c in plays], rng, samples, nodes)
    return None if best is None else plays[best][0]


def sampled_deals(obs: Observation, rng: random.Random) -> Iterator[Game]:
    """Deals of the unseen cards for ``obs``'s seat, without end, as the endgame draws them
    (:class:`~.determinize.Determinizer`), each as a game to solve."""
    draw = Determinizer(obs)
    while True:
        yield Game.from_state(obs, rules=obs.rules, hands=draw.sample(rng))


class _Deal:
    """One deal of the unseen cards, its solver (whose memo its questions share) and the
    positions its questions have left to spend."""

    __slots__ = ("game", "left", "seat", "solver")

    def __init__(self, game: Game, seat: int, nodes: int) -> None:
        self.game, self.seat, self.left = game, seat, nodes
        self.solver = Solver(nodes=nodes)

    def forces(self, move: Move) -> bool | None:
        """Whether the seat forces going out next after ``move``; ``None`` past the deal's
        budget."""
        if self.left <= 0:
            return None
        self.solver.nodes = self.left
        try:
            won = self.solver.forces_after(self.game, move, self.seat)
        except TooLargeError:
            self.left = 0
            return None
        self.left -= self.solver.spent
        return won


def _forcing_choice(
    obs: Observation, moves: list[Move], rng: random.Random, samples: int, nodes: int
) -> int | None:
    """:func:`forcing_choice` on ``moves``, given in the network's order: the index of the
    one to play in ``moves``."""
    deals: list[_Deal] = []
    best_count = 0
    for game in islice(sampled_deals(obs, rng), samples):  # the network's choice, in each
        deal = _Deal(game, obs.seat, nodes)
        won = deal.forces(moves[0])
        if won is None:
            if not deals:
                return None  # the other deals are as large
            continue
        deals.append(deal)
        best_count += won
    best = 0
    for k in range(1, len(moves)):
        if best_count == len(deals):
            break  # nothing forces in more deals
        count = misses = 0
        for deal in deals:  # stops once this choice cannot force in more deals than best
            if deal.forces(moves[k]):
                count += 1
            else:
                misses += 1
                if len(deals) - misses <= best_count:
                    break
        if count > best_count:
            best, best_count = k, count
    return best if best_count else None
