"""Wrappers that fit :class:`~tienlen.env.single.TienLenGym` to a trainer's conventions.

RLlib's action-masking models (its ``ActionMaskingTorchRLModule`` example, and the older
``ActionMaskModel``) read a dict observation with ``"observations"`` (what the network sees)
and ``"action_mask"`` (one float per action, 1 for a legal one). :class:`RLlibObservation`
renames the environment's ``"observation"`` key to ``"observations"`` and gives the mask as
``float32``; the actions and rewards are unchanged.

sb3-contrib's ``MaskablePPO`` needs no wrapper: it calls the environment's
:meth:`~tienlen.env.single.TienLenGym.action_masks`.

>>> import gymnasium as gym
>>> import tienlen.env
>>> env = RLlibObservation(gym.make(tienlen.env.GYM_ID, opponents=["greedy"] * 3))
>>> obs, info = env.reset(seed=2)
>>> sorted(obs), obs["action_mask"].dtype.name
(['action_mask', 'observations'], 'float32')
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

__all__ = ["RLlibObservation"]


class RLlibObservation(gym.ObservationWrapper[dict[str, np.ndarray], Any, dict[str, np.ndarray]]):
    """``{"observations": float32[OBS_DIM], "action_mask": float32[n]}`` from the
    environment's ``{"observation", "action_mask"}``."""

    def __init__(self, env: gym.Env[dict[str, np.ndarray], Any]) -> None:
        super().__init__(env)
        inner = env.observation_space
        if not isinstance(inner, spaces.Dict) or set(inner.spaces) != {
            "observation",
            "action_mask",
        }:
            raise ValueError(
                "RLlibObservation wraps an environment whose observations are "
                f"{{'observation', 'action_mask'}}, not {inner!r}"
            )
        mask = inner["action_mask"]
        assert isinstance(mask, spaces.Box)
        self.observation_space = spaces.Dict(
            {
                "observations": inner["observation"],
                "action_mask": spaces.Box(0.0, 1.0, mask.shape, np.float32),
            }
        )

    def observation(self, observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The renamed observation, its mask as ``float32``."""
        return {
            "observations": observation["observation"],
            "action_mask": observation["action_mask"].astype(np.float32),
        }
