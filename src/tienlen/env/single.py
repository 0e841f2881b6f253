"""A Gymnasium environment: one seat of a Tiến Lên game, the others played by bots of the
registry (:data:`tienlen.players.registry.BOTS`).

Observations and actions are those of :mod:`tienlen.env.aec`: a dict of ``"observation"``
and ``"action_mask"``, and an index into :meth:`TienLenGym.legal_moves`. An action outside
the mask ends the episode with the worst return, -1, and ``info["illegal_action"]``.
The reward is the seat's return (:func:`tienlen.env.returns`) when the game ends, 0 before;
the last step's ``info`` holds the ``finish_order``. A step after the episode has ended (or
before the first reset) raises :class:`~tienlen.env.ResetNeededError`.

For sb3-contrib's ``MaskablePPO``, :meth:`TienLenGym.action_masks` gives the mask; for
RLlib's action-masking models, :class:`tienlen.env.wrappers.RLlibObservation` renames the
keys. The game itself is private: the learner reads only its seat's observation. The
environment is registered with Gymnasium as ``tienlen/TienLen-v0``
(:data:`tienlen.env.GYM_ID`).

>>> env = TienLenGym("standard", opponents=["greedy"] * 3, seat=0)
>>> obs, info = env.reset(seed=3)
>>> obs["observation"].shape == env.observation_space["observation"].shape
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from tienlen.combos import Choice
from tienlen.game import Game
from tienlen.observation import observe
from tienlen.players.base import Budget, Player, choose_safely
from tienlen.players.encoding import encode_moves, encode_observation, max_legal_moves
from tienlen.players.registry import make_bot
from tienlen.players.toolkit import play_out
from tienlen.rules import Rules

from . import ResetNeededError, deal, new_rng, resolve_rules, returns
from .aec import observation_space

__all__ = ["TienLenGym"]


class TienLenGym(gym.Env[dict[str, np.ndarray], np.int64]):
    """One seat against ``opponents`` (registry names, one per other seat, in seat order
    after the learner's). ``seat``: the learner's seat, or ``None`` for a random seat each
    episode. ``budget``: the opponents' thinking allowance per move."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (gymnasium's own attribute)

    def __init__(
        self,
        rules: Rules | str = "standard",
        *,
        opponents: Sequence[str] = ("heuristic", "heuristic", "heuristic"),
        players: int | None = None,
        seat: int | None = None,
        budget: Budget | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.rules = resolve_rules(rules, players if players is not None else len(opponents) + 1)
        n = self.rules.players
        if len(opponents) != n - 1:
            raise ValueError(f"{len(opponents)} opponents given for {n} players: name {n - 1}")
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be 0-{n - 1}, not {seat!r}")
        for name in opponents:
            make_bot(name)  # refuses an unknown name now, not at the first reset
        self.opponents = tuple(opponents)
        self.fixed_seat = seat
        self.budget = budget or Budget()
        self.render_mode = render_mode
        self.observation_space = observation_space(self.rules)  # type: ignore[assignment]
        self._size = max_legal_moves(self.rules)
        self.action_space = spaces.Discrete(self._size)
        self._rng = new_rng(None)
        self._game: Game | None = None
        self._over = True
        self.seat = 0
        self._bots: dict[int, Player] = {}
        self._legal: Sequence[Choice] = []
        self.problems: list[str] = []
        """What went wrong with the bots this episode (their fallback moves, as the arena
        reports them: ``seat N: ...``)."""

    def _live(self) -> Game:
        if self._game is None:
            raise ResetNeededError("the environment has no episode yet: call reset() first")
        return self._game

    def _obs(self) -> dict[str, np.ndarray]:
        mask = np.zeros(self._size, dtype=np.int8)
        mask[: len(self._legal)] = 1
        return {
            "observation": encode_observation(observe(self._live(), self.seat)),
            "action_mask": mask,
        }

    def _info(self) -> dict[str, Any]:
        return {"seat": self.seat, "legal_moves": len(self._legal)}

    def legal_moves(self) -> list[Choice]:
        """The learner's legal moves now (action ``i`` plays ``legal_moves()[i]``)."""
        return list(self._legal)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, ``bool[action_space.n]`` (what sb3-contrib's
        ``MaskablePPO`` asks the environment for); all false once the episode is over."""
        mask = np.zeros(self._size, dtype=bool)
        mask[: len(self._legal)] = True
        return mask

    def move_features(self) -> np.ndarray:
        """The learner's legal moves encoded, ``(len(legal), MOVE_DIM)``."""
        return encode_moves(observe(self._live(), self.seat), self._legal)

    def _play_others(self) -> None:
        """Let the bots play until the learner is to act or the game is over."""
        game = self._live()

        def pick(game: Game, legal: Sequence[Choice]) -> Choice:
            seat = game.turn
            move, problem = choose_safely(self._bots[seat], observe(game, seat), legal, self.budget)
            if problem is not None:
                self.problems.append(f"seat {seat}: {problem}")
            return move

        play_out(game, pick, until=lambda game: game.turn == self.seat)
        self._legal = [] if game.is_over else game.legal_moves()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal a new game and play the bots up to the learner's first decision."""
        super().reset(seed=seed)
        if seed is not None:
            self._rng = new_rng(seed)
        n = self.rules.players
        self.problems = []
        while True:
            self._game = deal(self.rules, self._rng)
            self.seat = self._rng.randrange(n) if self.fixed_seat is None else self.fixed_seat
            self._bots = {
                (self.seat + 1 + i) % n: make_bot(name, seed=self._rng.getrandbits(32))
                for i, name in enumerate(self.opponents)
            }
            self._play_others()
            if not self._game.is_over:  # the learner may be out of the game before it acts
                self._over = False
                return self._obs(), self._info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Play legal move number ``action``, then the bots up to the next decision."""
        game = self._live()
        if self._over:
            raise ResetNeededError(
                f"the episode is over (finish order {'-'.join(map(str, game.finish_order))}"
                f", or an illegal action): call reset() before step({action!r})"
            )
        if not 0 <= int(action) < len(self._legal):
            info = self._info() | {"illegal_action": True}
            self._legal, self._over = [], True
            return self._obs(), -1.0, True, False, info
        game.apply_unchecked(self._legal[int(action)])
        self._play_others()
        if game.is_over:
            self._over = True
            info = self._info() | {"finish_order": game.finish_order}
            return self._obs(), returns(game)[self.seat], True, False, info
        return self._obs(), 0.0, False, False, self._info()

    def render(self) -> str | None:
        """The whole table as text, every hand shown (``render_mode="ansi"``): a spectator's
        view for debugging, never the learner's input."""
        if self.render_mode != "ansi" or self._game is None:
            return None
        return repr(self._game)
