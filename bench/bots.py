"""Bot benchmark: decision times, search speed and arena time per game, on one core.

Prints

- the median and 90th-percentile decision time of ``greedy``, ``heuristic`` and ``learned``
  over every non-forced decision of seeded self-play games (``standard``, four players);
- ``ismcts`` iterations per second at a fixed time budget, on the same kind of positions;
- the arena's time per game for ``greedy`` self-play (duplicate deals, one process).

Run: ``.venv/bin/python bench/bots.py`` (``--games`` to change the sample sizes).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

from tienlen import Game, Move, Rules
from tienlen.observation import observe
from tienlen.players.arena import run_arena
from tienlen.players.base import Budget
from tienlen.players.bots.ismcts import IsmctsBot
from tienlen.players.registry import make_bot
from tienlen.players.toolkit import play_out


def decision_times(name: str, games: int, rules: Rules) -> list[float]:
    """Seconds per decision of bot ``name`` playing every seat of ``games`` deals."""
    bot = make_bot(name, seed=1)
    times = []

    def timed(game: Game, legal: Sequence[Move]) -> Move:
        obs = observe(game, game.turn)
        start = time.perf_counter()
        move = bot.choose(obs, legal, Budget())
        times.append(time.perf_counter() - start)
        return move

    for seed in range(games):
        play_out(Game(rules, seed=seed), timed)
    return times


def ismcts_rate(budget_ms: float, positions: int, rules: Rules) -> tuple[float, float]:
    """(median iterations per second, median iterations per decision) of ``ismcts``."""
    bot = IsmctsBot(seed=1)
    greedy = make_bot("greedy")
    rates, counts = [], []
    seed = 0
    while len(rates) < positions:
        game = Game(rules, seed=seed)
        seed += 1
        while not game.is_over and len(rates) < positions:
            legal = game.legal_moves()
            if len(legal) == 1:
                game.apply_unchecked(legal[0])
                continue
            obs = observe(game, game.turn)
            if len(rates) % 2 == 0:
                bot.last_iterations = 0
                start = time.perf_counter()
                bot.choose(obs, legal, Budget(seconds=budget_ms / 1000))
                elapsed = time.perf_counter() - start
                if bot.last_iterations:
                    rates.append(bot.last_iterations / elapsed)
                    counts.append(bot.last_iterations)
            else:
                rates.append(float("nan"))
            game.apply_unchecked(greedy.choose(obs, legal, Budget()))
    real = [r for r in rates if r == r]
    return statistics.median(real), statistics.median(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="self-play deals for timings")
    parser.add_argument("--arena-games", type=int, default=2000, help="greedy self-play games")
    parser.add_argument("--positions", type=int, default=60, help="ismcts positions")
    args = parser.parse_args()
    rules = Rules.preset("standard")

    for name in ("greedy", "heuristic", "learned"):
        t = sorted(decision_times(name, args.games, rules))
        median = statistics.median(t) * 1000
        p90 = t[int(len(t) * 0.9)] * 1000
        n = len(t)
        print(f"{name:<10} decision time: median {median:.3f} ms, p90 {p90:.3f} ms ({n} decisions)")
    for ms in (25, 100):
        rate, count = ismcts_rate(ms, args.positions, rules)
        print(f"ismcts     at {ms} ms/move: median {rate:,.0f} iterations/s, {count:.0f} per move")
    start = time.perf_counter()
    result = run_arena(rules, ["greedy"] * 4, games=args.arena_games, seed=1, jobs=1)
    per_game = (time.perf_counter() - start) / len(result.outcomes) * 1000
    games = len(result.outcomes)
    print(f"arena      greedy self-play, one core: {per_game:.2f} ms per game ({games} games)")


if __name__ == "__main__":
    main()
