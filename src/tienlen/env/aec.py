"""A PettingZoo AEC environment: one game of Tiến Lên, every seat an agent.

Agents are ``"seat_0"`` … ``"seat_{n-1}"``; the agent to act is the game's seat to act.
``observe(agent)`` is a dict: ``"observation"`` (:func:`~tienlen.players.encoding.
encode_observation`, shape ``(OBS_DIM,)``) and ``"action_mask"`` (``int8``, shape
``(max_legal_moves(rules),)``, ones on the first ``len(legal)`` entries). An action is an
index into :meth:`TienLenAEC.legal_moves` (the engine's order); the moves' features, one
row per legal move with none dropped, come from :meth:`TienLenAEC.move_features`.
Rewards come at the end only (:func:`tienlen.env.returns`); a seat that goes out stays an
agent, not acting, until the game ends. A step once every agent has been removed (the
episode is over), or before the first reset, raises :class:`~tienlen.env.ResetNeededError`.
The game itself is private: an agent reads only its own observation.

>>> env = TienLenAEC("standard")
>>> env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.last()
>>> int(obs["action_mask"].sum()) == len(env.legal_moves(env.agent_selection))
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tienlen.combos import Choice
from tienlen.game import Game
from tienlen.observation import observe
from tienlen.players.encoding import OBS_DIM, encode_moves, encode_observation, max_legal_moves
from tienlen.rules import Rules

from . import ResetNeededError, deal, new_rng, resolve_rules, returns

__all__ = ["TienLenAEC", "observation_space"]


def observation_space(rules: Rules) -> spaces.Dict:
    """The observation space of a seat under ``rules``."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 2.0, (OBS_DIM,), np.float32),
            "action_mask": spaces.Box(0, 1, (max_legal_moves(rules),), np.int8),
        }
    )


class TienLenAEC(AECEnv):  # type: ignore[misc]
    """Tiến Lên as an AEC environment for ``rules`` (a preset name or a
    :class:`~tienlen.rules.Rules`) and ``players`` seats (default: the rules' own)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "tienlen_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | str = "standard",
        *,
        players: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = resolve_rules(rules, players)
        n = self.rules.players
        self.possible_agents = [f"seat_{s}" for s in range(n)]
        self.render_mode = render_mode
        self._obs_space = observation_space(self.rules)
        self._act_space = spaces.Discrete(max_legal_moves(self.rules))
        self._rng = new_rng(None)
        self._game: Game | None = None
        self._legal: Sequence[Choice] = []

    def observation_space(self, agent: str) -> spaces.Dict:
        """Every seat's observation space."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        """Every seat's action space: an index into the legal moves."""
        return self._act_space

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def _live(self) -> Game:
        """The game, which exists once the environment has been reset."""
        if self._game is None:
            raise ResetNeededError("the environment has no episode yet: call reset() first")
        return self._game

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game (``seed`` fixes it and every later one until the next seed)."""
        if seed is not None:
            self._rng = new_rng(seed)
        game = self._game = deal(self.rules, self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._legal = game.legal_moves()
        self.agent_selection = self.possible_agents[game.turn]

    def legal_moves(self, agent: str) -> list[Choice]:
        """The legal moves of ``agent`` (empty when it is not its turn)."""
        game = self._live()
        if self.terminations.get(agent) or self._seat(agent) != game.turn:
            return []
        return list(self._legal)

    def move_features(self, agent: str) -> np.ndarray:
        """``agent``'s legal moves encoded, ``(len(legal), MOVE_DIM)``; row ``i`` is action
        ``i``."""
        return encode_moves(observe(self._live(), self._seat(agent)), self.legal_moves(agent))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation dict (encoding and action mask)."""
        game = self._live()
        seat = self._seat(agent)
        mask = np.zeros(self._act_space.n, dtype=np.int8)
        if not self.terminations.get(agent) and seat == game.turn:
            mask[: len(self._legal)] = 1
        return {
            "observation": encode_observation(observe(game, seat)),
            "action_mask": mask,
        }

    def step(self, action: int | None) -> None:
        """Play legal move number ``action`` for the agent to act (``None`` for an agent
        whose episode has ended, which removes it, as PettingZoo's loop does)."""
        game = self._live()
        if not self.agents:
            raise ResetNeededError(
                f"the episode is over (finish order {'-'.join(map(str, game.finish_order))}) "
                f"and every agent has been removed: call reset() before step({action!r})"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not 0 <= int(action) < len(self._legal):
            raise ValueError(
                f"action {action!r} is not a legal move index (0-{len(self._legal) - 1})"
            )
        self._cumulative_rewards[agent] = 0.0
        game.apply_unchecked(self._legal[int(action)])
        self._clear_rewards()
        if game.is_over:
            for agent_name, value in zip(self.agents, returns(game), strict=True):
                self.rewards[agent_name] = value
                self.terminations[agent_name] = True
            self._legal = []
        else:
            self._legal = game.legal_moves()
            self.agent_selection = self.possible_agents[game.turn]
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The whole table as text, every hand shown (``render_mode="ansi"``): a spectator's
        view for debugging, never an agent's input."""
        if self.render_mode != "ansi" or self._game is None:
            return None
        return repr(self._game)

    def close(self) -> None:
        """Nothing to release."""
