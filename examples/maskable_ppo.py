"""Train sb3-contrib's MaskablePPO on ``tienlen/TienLen-v0`` for a few hundred steps and
measure it against a random legal policy on the same deals.

    pip install 'tienlen[env]' sb3-contrib
    python examples/maskable_ppo.py --steps 512 --episodes 200

A run this short learns next to nothing: the figures show the pipeline working (masks
honoured, every action legal), not a strong bot. An action is an index into the legal-move
list, which means a different move in each position, so a plain policy network over the
indices is a weak fit for the game; the ``learned`` bot scores each move's features instead
(``docs/bots.md``).
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
from sb3_contrib import MaskablePPO

import tienlen.env


def first_out_rate(env: gym.Env, choose, episodes: int, seed: int) -> tuple[float, int]:
    """The learner's share of first places over ``episodes`` deals, and the illegal actions
    it chose (always 0 with the mask honoured)."""
    wins = illegal = 0
    for episode in range(episodes):
        obs, info = env.reset(seed=seed + episode)
        done = False
        while not done:
            masks = env.get_wrapper_attr("action_masks")()
            obs, _, done, _, info = env.step(choose(obs, masks))
            illegal += bool(info.get("illegal_action"))
        wins += info.get("finish_order", (-1,))[0] == info["seat"]
    return wins / episodes, illegal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=512, help="training steps")
    parser.add_argument("--episodes", type=int, default=200, help="evaluation deals")
    parser.add_argument("--opponents", default="random", help="the three other seats' bot")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    env = gym.make(tienlen.env.GYM_ID, opponents=[args.opponents] * 3)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=128, batch_size=64, seed=args.seed)

    def policy(obs, masks):
        return int(model.predict(obs, action_masks=masks, deterministic=True)[0])

    eval_env = gym.make(tienlen.env.GYM_ID, opponents=[args.opponents] * 3)
    before, _ = first_out_rate(eval_env, policy, args.episodes, seed=10_000)
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    seconds = time.perf_counter() - start

    rng = np.random.default_rng(args.seed)

    def uniform(obs, masks):
        return int(rng.choice(np.flatnonzero(masks)))

    trained, bad = first_out_rate(eval_env, policy, args.episodes, seed=10_000)
    baseline, _ = first_out_rate(eval_env, uniform, args.episodes, seed=10_000)
    half = 1.96 * np.sqrt(0.25 / args.episodes)  # the widest 95% half-interval at this size
    print(f"MaskablePPO: {args.steps} steps in {seconds:.1f} s")
    print(
        f"first out against 3 {args.opponents} bots over {args.episodes} deals: "
        f"before training {before:.1%}, after {trained:.1%}, random legal policy "
        f"{baseline:.1%} (±{half:.1%} at most); "
        f"illegal actions chosen: {bad}"
    )


if __name__ == "__main__":
    main()
