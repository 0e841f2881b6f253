"""The environments meet the trainers' conventions: Gymnasium's registry, sb3-contrib's
``action_masks()``, RLlib's observation keys, a clear error for a step with no episode
running, and no public way to the whole game."""

from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="the env extra (numpy) is not installed")
pytest.importorskip("pettingzoo", reason="the env extra (pettingzoo) is not installed")
gym = pytest.importorskip("gymnasium", reason="the env extra (gymnasium) is not installed")

from gymnasium.error import ResetNeeded  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from tienlen import Game  # noqa: E402
from tienlen.env import GYM_ID, ResetNeededError  # noqa: E402
from tienlen.env.aec import TienLenAEC  # noqa: E402
from tienlen.env.single import TienLenGym  # noqa: E402
from tienlen.env.wrappers import RLlibObservation  # noqa: E402


def _play_to_the_end(env: TienLenGym) -> dict[str, Any]:
    """Step the first legal move until the episode ends; the last info."""
    done = False
    info: dict[str, Any] = {}
    while not done:
        _, _, done, _, info = env.step(0)
    return info


# --- Gymnasium's registry -------------------------------------------------------------------


def test_gym_make_builds_the_registered_environment_with_its_options() -> None:
    env = gym.make(GYM_ID, rules="hawaii", opponents=["greedy", "heuristic"], seat=1)
    inner = env.unwrapped
    assert isinstance(inner, TienLenGym)
    assert inner.rules.name == "hawaii" and inner.rules.players == 3
    obs, info = env.reset(seed=5)
    assert info["seat"] == 1 and env.observation_space.contains(obs)


def test_gym_make_imports_the_package_itself_when_named_in_the_id() -> None:
    code = (
        "import gymnasium as gym\n"
        "env = gym.make('tienlen.env:tienlen/TienLen-v0', opponents=['random'] * 3)\n"
        "obs, info = env.reset(seed=1)\n"
        "print(type(env.unwrapped).__name__, int(obs['action_mask'].sum()) > 0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["TienLenGym", "True"]


# --- sb3-contrib: action_masks() --------------------------------------------------------------


def test_action_masks_marks_the_legal_moves_through_gyms_wrappers() -> None:
    env = gym.make(GYM_ID, opponents=["greedy"] * 3, seat=0)
    obs, _ = env.reset(seed=7)
    masks = env.get_wrapper_attr("action_masks")()
    assert masks.dtype == np.bool_ and masks.shape == (env.action_space.n,)
    assert masks.sum() == len(env.unwrapped.legal_moves()) > 0
    assert np.array_equal(masks, obs["action_mask"].astype(bool))
    assert masks[: masks.sum()].all()  # the legal moves are the first indices
    _play_to_the_end(env.unwrapped)
    assert not env.get_wrapper_attr("action_masks")().any()


# --- RLlib: "observations" and "action_mask" --------------------------------------------------


def test_the_rllib_wrapper_renames_the_observation_and_floats_the_mask() -> None:
    env = RLlibObservation(TienLenGym("standard", opponents=["greedy"] * 3, seat=3))
    obs, _ = env.reset(seed=2)
    assert set(obs) == {"observations", "action_mask"}
    assert obs["action_mask"].dtype == np.float32
    gym_env = env.unwrapped
    assert isinstance(gym_env, TienLenGym)
    assert obs["action_mask"].sum() == len(gym_env.legal_moves())
    assert env.observation_space.contains(obs)
    obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert env.observation_space.contains(obs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(RLlibObservation(TienLenGym("standard", opponents=["random"] * 3)))


def test_the_rllib_wrapper_refuses_other_observations() -> None:
    with pytest.raises(ValueError, match="RLlibObservation wraps"):
        RLlibObservation(gym.make("CartPole-v1"))


# --- a step with no episode running ----------------------------------------------------------


def test_the_reset_needed_error_is_gymnasiums_and_a_value_error() -> None:
    assert issubclass(ResetNeededError, ResetNeeded) and issubclass(ResetNeededError, ValueError)


def test_a_gym_step_before_reset_or_after_the_end_raises_reset_needed() -> None:
    env = TienLenGym("standard", opponents=["greedy"] * 3, seat=0)
    with pytest.raises(ResetNeededError, match="call reset"):
        env.step(0)
    env.reset(seed=4)
    info = _play_to_the_end(env)
    with pytest.raises(ResetNeededError, match=r"episode is over .*reset.* before step"):
        env.step(0)
    assert sorted(info["finish_order"]) == [0, 1, 2, 3]
    env.reset(seed=4)
    _, reward, done, _, info = env.step(10_000)  # an illegal action ends the episode
    assert done and reward == -1.0 and info["illegal_action"]
    with pytest.raises(ResetNeededError):
        env.step(0)
    env.reset(seed=4)
    _, reward, *_ = env.step(0)  # a reset starts a new episode
    assert reward == 0.0


def test_an_aec_step_before_reset_or_after_every_agent_left_raises_reset_needed() -> None:
    env = TienLenAEC("standard", players=3)
    with pytest.raises(ResetNeededError, match="call reset"):
        env.step(0)
    env.reset(seed=6)
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else len(env.legal_moves(agent)) - 1)
    assert env.agents == []
    with pytest.raises(ResetNeededError, match=r"episode is over \(finish order \d-\d-\d\)"):
        env.step(0)
    env.reset(seed=6)
    env.step(0)  # playing again after a reset


# --- the game stays private ------------------------------------------------------------------


@pytest.mark.parametrize(
    "env",
    [TienLenGym("standard", opponents=["greedy"] * 3), TienLenAEC("standard")],
    ids=["gym", "aec"],
)
def test_no_public_attribute_holds_the_game(env: TienLenGym | TienLenAEC) -> None:
    env.reset(seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated attributes warn when read
        public = {name: getattr(env, name, None) for name in dir(env) if not name.startswith("_")}
    assert [name for name, value in public.items() if isinstance(value, Game)] == []
    assert "game" not in public


# --- a trainer on top: sb3-contrib's MaskablePPO ---------------------------------------------


@pytest.mark.slow  # torch and 64 steps of PPO: about 20 s of CPU
def test_maskable_ppo_trains_on_the_registered_env_and_only_picks_legal_moves() -> None:
    sb3 = pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed")
    env = gym.make(GYM_ID, opponents=["random"] * 3, seat=0)
    model = sb3.MaskablePPO("MultiInputPolicy", env, n_steps=32, batch_size=32, seed=1)
    model.learn(total_timesteps=64)  # the library reaches action_masks() through the wrappers
    obs, _ = env.reset(seed=9)
    done, info = False, {}
    while not done:
        masks = env.get_wrapper_attr("action_masks")()
        action = int(model.predict(obs, action_masks=masks, deterministic=True)[0])
        assert masks[action]
        obs, _, done, _, info = env.step(action)
    assert "illegal_action" not in info and len(info["finish_order"]) == 4
