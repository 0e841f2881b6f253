"""Decision labels by paired rollouts from the real deal (the ``rollouts`` training method).

Games are played by ``heuristic`` bots, some seats by the network being trained. At each
play-phase decision with a choice, the candidates are the moves the ``ismcts`` bot searches
at its root: the ``heuristic`` bot's best ``top`` moves and the pass; beside them, the
network's own choice among every legal move and a few other legal moves at random, so that
the network learns to value the moves the heuristic would not make. Each candidate is
played on a copy of the real game, which is then played out with the ``heuristic`` scoring
for every seat (the ``ismcts`` bot's playout), or, with ``playout="network"``, with the
network choosing the deciding seat's own later moves from its observation and the
``heuristic`` the other seats' (policy iteration: a move is valued as the network would
go on from it, not as the heuristic would); the candidate's label is where the deciding
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
from typing import cast

import numpy as np
import numpy.typing as npt

from tienlen.combos import Choice, Move, index
from tienlen.game import Game
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.bots.heuristic import HeuristicBot
from tienlen.players.bots.ismcts import PolicyMemo, heuristic_policy, rollout_heuristic
from tienlen.players.bots.learned import (
    FEATURE_DIM,
    STATE_DIM,
    QNet,
    candidate_rows,
    move_features,
    state_features,
)
from tienlen.players.encoding import MOVE_DIM
from tienlen.players.toolkit import play_out
from tienlen.rules import Rules

from . import deal

__all__ = ["PLAYOUTS", "Labels", "check_playout", "label_games"]

#: Who plays the deciding seat's later moves in a label's play-out.
PLAYOUTS = ("heuristic", "network")


def check_playout(playout: str) -> None:
    """Raise :class:`ValueError`, quoting ``playout``, unless it is one of :data:`PLAYOUTS`."""
    if playout not in PLAYOUTS:
        raise ValueError(f"playout must be one of {', '.join(PLAYOUTS)}, not {playout!r}")


FloatArray = npt.NDArray[np.float32]
#: The move feature that is 1 for a move that empties the hand.
_GOES_OUT = MOVE_DIM - 1


@dataclass(frozen=True)
class Labels:
    """Labelled decisions, ``N`` of them with room for ``G`` candidates each: ``obs (N,
    STATE_DIM)`` and ``moves (N, G, FEATURE_DIM)`` (float16: every feature is a small count
    or a fraction of 5, 10 or 13 at most, which float16 holds closely enough), ``mask (N,
    G)`` (real candidates), ``place (N, G)``: where the deciding seat finished after each
    candidate (0: first out), and ``players (N,)``: the seats of the decision's game."""

    obs: npt.NDArray[np.float16]
    moves: npt.NDArray[np.float16]
    mask: npt.NDArray[np.bool_]
    place: npt.NDArray[np.int8]
    players: npt.NDArray[np.int8]

    def __len__(self) -> int:
        return len(self.obs)

    @property
    def won(self) -> npt.NDArray[np.bool_]:
        """Whether the deciding seat went out first after each (real) candidate."""
        out: npt.NDArray[np.bool_] = (self.place == 0) & self.mask
        return out

    def targets(self, win_weight: float) -> FloatArray:
        """``win_weight`` × (first out) + (1 − ``win_weight``) × (seats finished below) /
        (players − 1), per candidate: the ``ismcts`` bot's reward."""
        others = np.maximum(self.players.astype(np.float32) - 1, 1)[:, None]
        below = (others - self.place.astype(np.float32)) / others
        out: FloatArray = (win_weight * self.won + (1.0 - win_weight) * below).astype(np.float32)
        return out


class _Labeller:
    """Plays and labels games, collecting the rows of :class:`Labels`."""

    def __init__(
        self, *, seed: int, top: int, others: int, epsilon: float, playout_net: QNet | None = None
    ) -> None:
        self.rng = random.Random(seed)
        self.bot = HeuristicBot()
        self.top, self.others, self.epsilon = top, others, epsilon
        self.playout_net = playout_net  # the network that goes on for the deciding seat, if any
        self.group = top + 2 + others
        self.obs: list[FloatArray] = []
        self.moves: list[FloatArray] = []
        self.mask: list[npt.NDArray[np.bool_]] = []
        self.place: list[npt.NDArray[np.int8]] = []
        self.players: list[int] = []

    def play(self, game: Game, nets: Sequence[QNet | None]) -> None:
        """Play ``game`` out, ``nets[seat]`` choosing for a seat (``None``: the heuristic)."""
        memo: PolicyMemo = {}  # the playouts of one deal meet the same positions again

        def pick(game: Game, legal: Sequence[Choice]) -> Choice:
            return self.decide(game, legal, nets[game.turn], memo)

        play_out(game, pick)

    def candidates(
        self, features: FloatArray, o: FloatArray, net: QNet | None
    ) -> tuple[list[int], int]:
        """The rows to label, and the row the seat plays unless it explores: the
        ``heuristic`` bot's best ``top`` and the pass, the network's own choice among every
        legal move (when it plays the seat), and ``others`` more legal moves at random (so
        that the network learns the value of moves the heuristic would not make)."""
        rows = candidate_rows(features, self.top)
        chosen = rows[0]
        if net is not None:
            chosen = net.best(o, features)
            if chosen not in rows:
                rows.append(chosen)
        rest = [i for i in range(len(features)) if i not in rows]
        rows += self.rng.sample(rest, min(self.others, len(rest)))
        return rows, chosen

    def decide(
        self, game: Game, legal: Sequence[Choice], net: QNet | None, memo: PolicyMemo
    ) -> Choice:
        """Label the decision (if it is one) and choose the move to play."""
        seat = game.turn
        view = observe(game, seat)
        if game.phase != "play":
            return self.bot.choose(view, legal, Budget())
        features = move_features(view, legal)
        o = state_features(view)
        rows, chosen = self.candidates(features, o, net)
        if len(rows) == 1 or features[rows[0], _GOES_OUT]:
            return legal[rows[0]]
        m = np.zeros((self.group, FEATURE_DIM), np.float32)
        mask = np.zeros(self.group, bool)
        place = np.zeros(self.group, np.int8)
        ix = index(game.rules)
        for j, i in enumerate(rows):
            trial = game.copy()
            trial.apply_unchecked(legal[i])
            if self.playout_net is None:
                rollout_heuristic(trial, ix, memo)
            else:
                _rollout_own(trial, seat, self.playout_net, memo)
            m[j], mask[j] = features[i], True
            place[j] = trial.finish_order.index(seat)
        self.obs.append(o)
        self.moves.append(m)
        self.mask.append(mask)
        self.place.append(place)
        self.players.append(game.rules.players)
        if self.rng.random() < self.epsilon:
            return legal[rows[self.rng.randrange(len(rows))]]
        return legal[chosen]

    def labels(self) -> Labels:
        return Labels(
            np.asarray(self.obs, np.float16).reshape(-1, STATE_DIM),
            np.asarray(self.moves, np.float16).reshape(-1, self.group, FEATURE_DIM),
            np.asarray(self.mask, bool).reshape(-1, self.group),
            np.asarray(self.place, np.int8).reshape(-1, self.group),
            np.asarray(self.players, np.int8),
        )


def _rollout_own(game: Game, seat: int, net: QNet, memo: PolicyMemo) -> None:
    """Play ``game`` to its end, ``net`` choosing ``seat``'s moves among every legal move
    from that seat's observation, the ``heuristic`` scoring every other seat's."""

    def pick(game: Game, legal: Sequence[Choice]) -> Choice:
        if game.turn != seat:
            return heuristic_policy(game, cast(Sequence[Move], legal), memo)
        view = observe(game, seat)
        return legal[net.best(state_features(view), move_features(view, legal))]

    play_out(game, pick)


def label_games(
    rules: Rules | Sequence[Rules],
    games: int,
    *,
    seed: int,
    top: int = 3,
    others: int = 0,
    epsilon: float = 0.1,
    net: QNet | None = None,
    net_share: float = 0.0,
    playout: str = "heuristic",
) -> Labels:
    """Play ``games`` games and label every decision with a choice of their play phases
    (see the module docstring); each game is dealt under ``rules`` or, given several, under
    one of them drawn at random. A seat is played by ``net`` (choosing among every legal
    move) with probability ``net_share``, else by the ``heuristic`` bot; with probability
    ``epsilon`` a decision plays a random candidate instead. The candidates are the
    ``heuristic`` bot's best ``top``, the pass, the network's choice and ``others`` random
    legal moves (:meth:`_Labeller.candidates`). ``playout`` says who plays the deciding
    seat's later moves in the play-outs: the ``heuristic`` bot or the ``network`` (``net``)."""
    check_playout(playout)
    if playout == "network" and net is None:
        raise ValueError("playout='network' needs a net")
    mix = [rules] if isinstance(rules, Rules) else list(rules)
    own = net if playout == "network" else None
    labeller = _Labeller(seed=seed, top=top, others=others, epsilon=epsilon, playout_net=own)
    rng = labeller.rng
    for _ in range(games):
        game_rules = mix[rng.randrange(len(mix))] if len(mix) > 1 else mix[0]
        game = deal(game_rules, rng)
        nets = [net if rng.random() < net_share else None for _ in range(game_rules.players)]
        labeller.play(game, nets)
    return labeller.labels()
