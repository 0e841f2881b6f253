"""Environment benchmark: steps per second on one core, with observation encoding.

Every figure is random play (a uniform legal move), the median of ``--repeats`` runs of
``--games`` games each, in this one process:

- engine: ``Game.legal_moves`` + ``apply_unchecked`` only (the engine's own figure);
- encoded: the same, plus ``observe`` and the observation and move encodings of the seat
  to act (what ``SelfPlay.run`` and the trainer do per decision);
- AEC: ``TienLenAEC`` through ``agent_iter`` / ``last`` / ``step`` with a masked random
  index; ``AEC + moves`` also asks ``move_features`` (a learner scoring every move);
- Gymnasium: ``TienLenGym`` steps against three ``random`` bots (a step includes the bots'
  moves up to the learner's next decision);
- RLCard Dou Dizhu (when the ``rlcard`` package is installed): its ``step`` with a random
  legal action, for comparison.

Run: ``python bench/env.py [--games 200] [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import numpy as np

from tienlen import Game
from tienlen.env.aec import TienLenAEC
from tienlen.env.single import TienLenGym
from tienlen.observation import observe
from tienlen.players.encoding import encode_moves, encode_observation


def engine(games: int, encode: bool) -> int:
    rng = random.Random(1)
    steps = 0
    for i in range(games):
        g = Game("standard", seed=i)
        while not g.is_over:
            legal = g.legal_moves()
            if encode:
                obs = observe(g, g.turn)
                encode_observation(obs)
                encode_moves(obs, legal)
            g.apply_unchecked(rng.choice(legal))
            steps += 1
    return steps


def aec(games: int, moves: bool) -> int:
    env = TienLenAEC("standard")
    rng = np.random.default_rng(1)
    steps = 0
    for i in range(games):
        env.reset(seed=i)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if moves:
                env.move_features(agent)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps


def gym(games: int) -> int:
    env = TienLenGym("standard", opponents=["random"] * 3)
    rng = np.random.default_rng(1)
    steps = 0
    for i in range(games):
        obs, _ = env.reset(seed=i)
        done = False
        while not done:
            obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps


def rlcard_doudizhu(games: int) -> int:
    import rlcard  # type: ignore[import-not-found]

    env = rlcard.make("doudizhu", config={"seed": 1})
    rng = random.Random(1)
    steps = 0
    for _ in range(games):
        state, _ = env.reset()
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            steps += 1
    return steps


def rate(fn: Callable[[], int], repeats: int) -> float:
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        steps = fn()
        rates.append(steps / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (the median is shown)")
    args = parser.parse_args()
    n, r = args.games, args.repeats
    figures = {
        "engine (legal moves + apply)": lambda: engine(n, False),
        "encoded (+ observe + encodings)": lambda: engine(n, True),
        "AEC env": lambda: aec(n, False),
        "AEC env + move features": lambda: aec(n, True),
        "Gymnasium env vs 3 random": lambda: gym(n),
    }
    try:
        import rlcard  # type: ignore[import-not-found]  # noqa: F401

        figures["RLCard Dou Dizhu (comparison)"] = lambda: rlcard_doudizhu(n)
    except ImportError:
        print("(rlcard is not installed: no Dou Dizhu comparison)")
    base = None
    print(f"{'standard rules, random play, one core':<36} {'steps/s':>10} {'vs engine':>10}")
    for name, fn in figures.items():
        value = rate(fn, r)
        base = base or value
        print(f"{name:<36} {value:>10,.0f} {value / base:>9.2f}x")


if __name__ == "__main__":
    main()
