"""Decision labels by paired rollouts from the real deal (the ``rollouts`` training method).

Games are played by ``heuristic`` bots, some seats by the network being trained. At each
play-phase decision with a choice, the candidates are the moves the ``ismcts`` bot searches
at its root: the ``heuristic`` bot's best ``top`` moves and the pass. Each candidate is
played on a copy of the real game, which is then played out with the ``heuristic`` scoring
for every seat (the ``ismcts`` bot's playout); the candidate's label is where the deciding
seat finished (first out or not, and its place).

The rollouts see the real hands, which no player does, but the labels are only regression
targets: averaged over the many deals behind what a seat knows, they estimate the value
of a move given what it knows, as a Monte-Carlo return does, with much less noise: every
candidate of a decision is played out from the same deal, so the luck of the deal cancels
out between them. The network's inputs are built from the seat's observation alone
(:func:`~tienlen.players.bots.learned.move_features`), so it never sees a hidden card.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tienlen.combos import Choice, index
from tienlen.game import Game
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.bots.heuristic import HeuristicBot
from tienlen.players.bots.ismcts import PolicyMemo, rollout_heuristic
from tienlen.players.bots.learned import FEATURE_DIM, QNet, candidate_rows, move_features
from tienlen.players.encoding import MOVE_DIM, OBS_DIM, encode_observation
from tienlen.players.toolkit import play_out
from tienlen.rules import Rules

from . import deal

__all__ = ["Labels", "label_games"]

FloatArray = npt.NDArray[np.float32]
#: The move feature that is 1 for a move that empties the hand.
_GOES_OUT = MOVE_DIM - 1


@dataclass(frozen=True)
class Labels:
    """Labelled decisions, ``N`` of them with room for ``G`` candidates each: ``obs (N,
    OBS_DIM)`` and ``moves (N, G, FEATURE_DIM)`` (float16: every feature is a small count
    or a fraction of 5, 10 or 13 at most, which float16 holds closely enough), ``mask (N,
    G)`` (real candidates) and ``place (N, G)``: where the deciding seat finished after
    each candidate (0: first out)."""

    obs: npt.NDArray[np.float16]
    moves: npt.NDArray[np.float16]
    mask: npt.NDArray[np.bool_]
    place: npt.NDArray[np.int8]

    def __len__(self) -> int:
        return len(self.obs)

    @property
    def won(self) -> npt.NDArray[np.bool_]:
        """Whether the deciding seat went out first after each (real) candidate."""
        out: npt.NDArray[np.bool_] = (self.place == 0) & self.mask
        return out

    def targets(self, players: int, win_weight: float) -> FloatArray:
        """``win_weight`` × (first out) + (1 − ``win_weight``) × (seats finished below) /
        (players − 1), per candidate: the ``ismcts`` bot's reward."""
        below = (players - 1 - self.place.astype(np.float32)) / max(players - 1, 1)
        out: FloatArray = (win_weight * self.won + (1.0 - win_weight) * below).astype(np.float32)
        return out


class _Labeller:
    """Plays and labels games, collecting the rows of :class:`Labels`."""

    def __init__(self, rules: Rules, *, seed: int, top: int, epsilon: float) -> None:
        self.ix = index(rules)
        self.rng = random.Random(seed)
        self.bot = HeuristicBot()
        self.top, self.epsilon = top, epsilon
        self.obs: list[FloatArray] = []
        self.moves: list[FloatArray] = []
        self.mask: list[npt.NDArray[np.bool_]] = []
        self.place: list[npt.NDArray[np.int8]] = []

    def play(self, game: Game, nets: Sequence[QNet | None]) -> None:
        """Play ``game`` out, ``nets[seat]`` choosing for a seat (``None``: the heuristic)."""
        memo: PolicyMemo = {}  # the playouts of one deal meet the same positions again

        def pick(game: Game, legal: Sequence[Choice]) -> Choice:
            return self.decide(game, legal, nets[game.turn], memo)

        play_out(game, pick)

    def decide(
        self, game: Game, legal: Sequence[Choice], net: QNet | None, memo: PolicyMemo
    ) -> Choice:
        """Label the decision (if it is one) and choose the move to play."""
        seat = game.turn
        view = observe(game, seat)
        if game.phase != "play":
            return self.bot.choose(view, legal, Budget())
        features = move_features(view, legal)
        rows = candidate_rows(features, self.top)
        if len(rows) == 1 or features[rows[0], _GOES_OUT]:
            return legal[rows[0]]
        o = encode_observation(view)
        group = self.top + 1
        m = np.zeros((group, FEATURE_DIM), np.float32)
        mask = np.zeros(group, bool)
        place = np.zeros(group, np.int8)
        for j, i in enumerate(rows):
            trial = game.copy()
            trial.apply_unchecked(legal[i])
            rollout_heuristic(trial, self.ix, memo)
            order = trial.finish_order
            m[j], mask[j] = features[i], True
            place[j] = order.index(seat)
        self.obs.append(o)
        self.moves.append(m)
        self.mask.append(mask)
        self.place.append(place)
        if self.rng.random() < self.epsilon:
            return legal[rows[self.rng.randrange(len(rows))]]
        if net is not None:
            return legal[rows[net.best(o, m[: len(rows)])]]
        return legal[rows[0]]

    def labels(self) -> Labels:
        group = self.top + 1
        return Labels(
            np.asarray(self.obs, np.float16).reshape(-1, OBS_DIM),
            np.asarray(self.moves, np.float16).reshape(-1, group, FEATURE_DIM),
            np.asarray(self.mask, bool).reshape(-1, group),
            np.asarray(self.place, np.int8).reshape(-1, group),
        )


def label_games(
    rules: Rules,
    games: int,
    *,
    seed: int,
    top: int = 3,
    epsilon: float = 0.1,
    net: QNet | None = None,
    net_share: float = 0.0,
) -> Labels:
    """Play ``games`` games and label every decision with a choice of their play phases
    (see the module docstring). A seat is played by ``net`` (choosing among the candidates)
    with probability ``net_share``, else by the ``heuristic`` bot; with probability
    ``epsilon`` a decision plays a random candidate instead."""
    labeller = _Labeller(rules, seed=seed, top=top, epsilon=epsilon)
    rng = labeller.rng
    for _ in range(games):
        game = deal(rules, rng)
        nets = [net if rng.random() < net_share else None for _ in range(rules.players)]
        labeller.play(game, nets)
    return labeller.labels()
