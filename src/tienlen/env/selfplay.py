"""RLCard-style self-play: whole games with one agent per seat, returned as trajectories.

An agent is a :class:`~tienlen.players.base.Player` (any bot) or a :class:`VectorAgent`,
which picks from the encodings directly. Games are played by the bots' toolkit
(:func:`~tienlen.players.toolkit.play_out`): forced moves (one legal move) are made without
asking, as the arena does; every decision asked for is recorded. A bot that fails gets the
arena's fallback move (:func:`~tienlen.players.base.choose_safely`), listed in
:attr:`SelfPlay.problems`.

>>> from tienlen.players.registry import make_bot
>>> env = SelfPlay("standard")
>>> env.set_agents([make_bot("greedy") for _ in range(4)])
>>> trajectories, payoffs = env.run(seed=7)
>>> sorted(payoffs)
[-1.0, -0.3333333333333333, 0.3333333333333333, 1.0]
>>> t = trajectories[0][0]
>>> t.moves.shape[0] > t.action >= 0
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from tienlen.combos import Choice
from tienlen.game import Game
from tienlen.observation import observe
from tienlen.players.base import Budget, Player, choose_safely
from tienlen.players.encoding import encode_moves, encode_observation
from tienlen.players.toolkit import play_out
from tienlen.rules import Rules

from . import deal, new_rng, resolve_rules, returns

__all__ = ["SelfPlay", "Transition", "VectorAgent"]


class Transition(NamedTuple):
    """One decision of one seat: the encodings it saw and the index it chose."""

    observation: npt.NDArray[np.float32]
    """:func:`~tienlen.players.encoding.encode_observation`, ``(OBS_DIM,)``."""
    moves: npt.NDArray[np.float32]
    """:func:`~tienlen.players.encoding.encode_moves` of every legal move."""
    action: int
    """Row of ``moves`` that was played."""


@runtime_checkable
class VectorAgent(Protocol):
    """An agent that chooses from the encodings: ``act(observation, moves)`` returns a row
    index of ``moves``."""

    def act(self, observation: npt.NDArray[np.float32], moves: npt.NDArray[np.float32]) -> int:
        """The chosen row of ``moves``."""
        ...


class SelfPlay:
    """Games of ``rules`` (for ``players`` seats) between the agents of :meth:`set_agents`."""

    def __init__(self, rules: Rules | str = "standard", *, players: int | None = None) -> None:
        self.rules = resolve_rules(rules, players)
        self.agents: list[Player | VectorAgent] = []
        self._rng: random.Random = new_rng(None)
        self.problems: list[str] = []
        """What went wrong with the bots of the last game (their fallback moves, as the
        arena reports them: ``seat N: ...``)."""

    def set_agents(self, agents: Sequence[Player | VectorAgent]) -> None:
        """One agent per seat."""
        if len(agents) != self.rules.players:
            raise ValueError(f"{len(agents)} agents for {self.rules.players} seats")
        self.agents = list(agents)

    def run(self, *, seed: int | None = None) -> tuple[list[list[Transition]], tuple[float, ...]]:
        """Play one game; ``(trajectories, payoffs)``: each seat's decisions in order and
        its return (:func:`tienlen.env.returns`). ``seed`` fixes this game and the later
        ones until the next seed."""
        if not self.agents:
            raise ValueError("set_agents() first")
        if seed is not None:
            self._rng = new_rng(seed)
        game = deal(self.rules, self._rng)
        trajectories: list[list[Transition]] = [[] for _ in self.agents]
        self.problems = []
        budget = Budget()

        def pick(game: Game, legal: Sequence[Choice]) -> Choice:
            seat = game.turn
            obs = observe(game, seat)
            o, m = encode_observation(obs), encode_moves(obs, legal)
            agent = self.agents[seat]
            if isinstance(agent, VectorAgent):
                i = int(agent.act(o, m))
                if not 0 <= i < len(legal):
                    raise ValueError(f"agent of seat {seat} chose row {i} of {len(legal)}")
            else:
                move, problem = choose_safely(agent, obs, legal, budget)
                if problem is not None:
                    self.problems.append(f"seat {seat}: {problem}")
                i = legal.index(move)
            trajectories[seat].append(Transition(o, m, i))
            return legal[i]

        play_out(game, pick)
        return trajectories, returns(game)
