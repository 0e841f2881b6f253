"""Train RLlib's PPO with its action-masking module on ``tienlen/TienLen-v0`` (through
:class:`tienlen.env.wrappers.RLlibObservation`) for a few iterations, then measure the
policy against a random legal policy on the same deals.

    pip install 'tienlen[env]' 'ray[rllib]' torch
    python examples/rllib_ppo.py --iterations 2 --episodes 200

As with ``examples/maskable_ppo.py``, a run this short shows the pipeline working (the
masks honoured, no illegal action), not a strong bot: an action is an index into the
legal-move list, a weak fit for a plain policy network.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
    ActionMaskingTorchRLModule,
)
from ray.tune.registry import register_env

import tienlen.env
from tienlen.env.wrappers import RLlibObservation


def make_env(config: dict) -> gym.Env:
    """The environment RLlib builds on its runners: the wrapper's keys."""
    return RLlibObservation(gym.make(tienlen.env.GYM_ID, **config))


def first_out_rate(env: gym.Env, choose, episodes: int, seed: int) -> tuple[float, int]:
    """The learner's share of first places over ``episodes`` deals, and its illegal actions."""
    wins = illegal = 0
    for episode in range(episodes):
        obs, info = env.reset(seed=seed + episode)
        done = False
        while not done:
            obs, _, done, _, info = env.step(choose(obs))
            illegal += bool(info.get("illegal_action"))
        wins += info.get("finish_order", (-1,))[0] == info["seat"]
    return wins / episodes, illegal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=2, help="PPO training iterations")
    parser.add_argument("--batch", type=int, default=256, help="environment steps an iteration")
    parser.add_argument("--episodes", type=int, default=200, help="evaluation deals")
    parser.add_argument("--opponents", default="random", help="the three other seats' bot")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    register_env("tienlen", make_env)
    config = (
        PPOConfig()
        .environment("tienlen", env_config={"opponents": [args.opponents] * 3})
        .env_runners(num_env_runners=0)  # sample in this process: one core is enough here
        .training(train_batch_size=args.batch, minibatch_size=64, num_epochs=2)
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=ActionMaskingTorchRLModule,
                model_config={"head_fcnet_hiddens": [64, 64]},
            )
        )
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    module = algo.get_module()

    def policy(obs: dict) -> int:
        batch = {"obs": {k: torch.from_numpy(v[None]) for k, v in obs.items()}}
        with torch.no_grad():
            logits = module.forward_inference(batch)["action_dist_inputs"]
        return int(logits.argmax())

    env = make_env({"opponents": [args.opponents] * 3})
    before, _ = first_out_rate(env, policy, args.episodes, seed=10_000)
    start = time.perf_counter()
    returns = []
    for _ in range(args.iterations):
        result = algo.train()
        returns.append(result["env_runners"].get("episode_return_mean", float("nan")))
    seconds = time.perf_counter() - start
    module = algo.get_module()  # the trained weights, synchronised to the local runner

    rng = np.random.default_rng(args.seed)

    def uniform(obs: dict) -> int:
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    trained, bad = first_out_rate(env, policy, args.episodes, seed=10_000)
    baseline, _ = first_out_rate(env, uniform, args.episodes, seed=10_000)
    half = 1.96 * np.sqrt(0.25 / args.episodes)
    print(
        f"RLlib PPO: {args.iterations} iterations of {args.batch} steps in {seconds:.1f} s; "
        f"mean return by iteration: {', '.join(f'{r:+.3f}' for r in returns)}"
    )
    print(
        f"first out against 3 {args.opponents} bots over {args.episodes} deals: "
        f"before training {before:.1%}, after {trained:.1%}, random legal policy "
        f"{baseline:.1%} (±{half:.1%} at most); "
        f"illegal actions chosen: {bad}"
    )
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
