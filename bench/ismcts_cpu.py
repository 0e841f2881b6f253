"""How many iterations ``ismcts`` reaches in a budget of CPU time, on this machine.

The bot's time budget is wall-clock (``time.perf_counter``), so on a loaded machine it
gets fewer iterations than on a quiet one. To compare bots fairly there, measure the
iterations one CPU-second buys once and give the bot that fixed ``iterations`` count in
the arena. This script swaps the bot's clock for ``time.process_time`` (CPU time of this
process) and plays real games: ``ismcts`` at seat 0 (deciding with the first budget)
against ``heuristic`` bots. Every decision that searches is searched once per budget; the
iterations reached are printed per budget: median, quartiles, 10th and 90th percentiles.

Run: ``python bench/ismcts_cpu.py --rules standard --games 10 --budgets-ms 1000,100``

The table has the preset's own seat count unless ``--players`` says otherwise, as ``tienlen
arena --players`` does: ``double-deck-13`` seats eight, and an iteration there costs about
twice as much as at four seats (docs/bots.md, "Why an iteration costs more on
`double-deck-13`"), so calibrate at the seat count the arena will play.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import types
from collections.abc import Sequence

from tienlen import Game, Rules
from tienlen.combos import Choice
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.bots import ismcts
from tienlen.players.bots.heuristic import HeuristicBot
from tienlen.players.toolkit import play_out


def iterations_per_budget(
    rules: Rules, games: int, budgets: Sequence[float], seed: int
) -> list[list[int]]:
    """For each budget (CPU seconds), the iterations of every searching decision of
    ``ismcts`` at seat 0 of ``games`` deals."""
    # Only this module's reference to ``time`` changes: the search's deadline becomes
    # CPU time of this process.
    ismcts.time = types.SimpleNamespace(perf_counter=time.process_time)  # type: ignore[assignment]
    bot = ismcts.IsmctsBot(seed=seed)
    others = HeuristicBot()
    found: list[list[int]] = [[] for _ in budgets]

    def pick(game: Game, legal: Sequence[Choice]) -> Choice:
        obs = observe(game, game.turn)
        if game.turn != 0:
            return others.choose(obs, legal, Budget())
        move = None
        for i, seconds in enumerate(budgets):
            bot.last_iterations = 0
            chosen = bot.choose(obs, legal, Budget(seconds=seconds))
            if bot.last_iterations:
                found[i].append(bot.last_iterations)
            move = chosen if move is None else move
        assert move is not None
        return move

    for deal in range(games):
        play_out(Game(rules, seed=seed * 1000 + deal), pick)
    return found


def _quantile(sorted_values: list[int], q: float) -> int:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard", help="preset (default standard)")
    parser.add_argument("--games", type=int, default=10, help="deals played (default 10)")
    parser.add_argument("--budgets-ms", default="1000,100", help="CPU budgets, comma-separated")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals and the bot")
    parser.add_argument(
        "--players", type=int, default=None, help="seats (default: the preset's own count)"
    )
    args = parser.parse_args()
    budgets = [float(b) / 1000 for b in args.budgets_ms.split(",")]
    start = time.perf_counter()
    cpu = time.process_time()
    rules = Rules.preset(args.rules)
    if args.players is not None:
        rules = rules.for_players(args.players)
    print(f"{rules.name}, {rules.players} seats, {rules.decks} deck(s)")
    found = iterations_per_budget(rules, args.games, budgets, args.seed)
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    for seconds, counts in zip(budgets, found, strict=True):
        s = sorted(counts)
        print(
            f"{seconds * 1000:.0f} ms of CPU: median {statistics.median(s):.0f} iterations "
            f"(quartiles {_quantile(s, 0.25)}-{_quantile(s, 0.75)}, "
            f"p10-p90 {_quantile(s, 0.1)}-{_quantile(s, 0.9)}, "
            f"min {s[0]}, max {s[-1]}; {len(s)} decisions)"
        )
    load = os.getloadavg()
    print(f"{wall:.0f} s wall, {used:.0f} s CPU; load average at the end {load[0]:.1f}")


if __name__ == "__main__":
    main()
