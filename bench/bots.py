"""Bot benchmark: decision times, search speed and arena time per game, on one core.

Prints

- the median, 90th and 99th-percentile and longest decision time of ``greedy``,
  ``heuristic``, ``learned`` and ``learned:endgame=8`` (the network with the open-hands
  endgame) over every non-forced decision of seeded self-play games (``standard``, four
  players), and for the last also over the decisions its endgame solved;
- ``ismcts`` iterations per second at a fixed time budget, on the same kind of positions;
- the arena's time per game for ``greedy`` self-play (duplicate deals, one process).

Run: ``.venv/bin/python bench/bots.py`` (``--games`` to change the sample sizes; ``--bots``
to time some bots only; ``--busy N`` to keep N other processes spinning meanwhile, as a
shared server's other tables would: the learned bot's BLAS products measure the difference).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from tienlen import Game, Rules
from tienlen.combos import Choice
from tienlen.observation import observe
from tienlen.players.arena import run_arena
from tienlen.players.base import Budget
from tienlen.players.bots.endgame import in_endgame
from tienlen.players.bots.ismcts import IsmctsBot
from tienlen.players.registry import make_bot, parse_spec
from tienlen.players.toolkit import play_out


def decision_times(spec: str, games: int, rules: Rules) -> tuple[list[float], list[float]]:
    """Seconds per decision of bot ``spec`` (a registry spec) playing every seat of
    ``games`` deals: every decision's, and those of decisions in the endgame the
    ``learned`` bot solves (:func:`~tienlen.players.bots.endgame.in_endgame`)."""
    name, options = parse_spec(spec)
    bot = make_bot(name, seed=1, **options)
    times: list[float] = []
    endgame: list[float] = []

    def timed(game: Game, legal: Sequence[Choice]) -> Choice:
        obs = observe(game, game.turn)
        start = time.perf_counter()
        move = bot.choose(obs, legal, Budget())
        times.append(time.perf_counter() - start)
        if in_endgame(obs):
            endgame.append(times[-1])
        return move

    for seed in range(games):
        play_out(Game(rules, seed=seed), timed)
    return times, endgame


def spread(label: str, seconds: list[float]) -> str:
    """One line: the median, 90th and 99th percentile and longest of ``seconds``, in ms."""
    t = sorted(seconds)
    if not t:
        return f"{label}: none"
    ms = [
        x * 1000 for x in (statistics.median(t), t[int(len(t) * 0.9)], t[int(len(t) * 0.99)], t[-1])
    ]
    return (
        f"{label}: median {ms[0]:.3f} ms, p90 {ms[1]:.3f} ms, p99 {ms[2]:.2f} ms, "
        f"max {ms[3]:.2f} ms ({len(t)} decisions)"
    )


def ismcts_rate(budget_ms: float, positions: int, rules: Rules) -> tuple[float, float]:
    """(median iterations per second, median iterations per decision) of ``ismcts``."""
    bot = IsmctsBot(seed=1)
    greedy = make_bot("greedy")
    rates: list[float] = []
    counts: list[float] = []
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


def _spin() -> None:
    while True:
        pass


@contextmanager
def busy(processes: int) -> Iterator[None]:
    """``processes`` other processes spinning on the CPU while the block runs."""
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(processes)]
    for p in spinners:
        p.start()
    try:
        yield
    finally:
        for p in spinners:
            p.terminate()
            p.join()


BOTS = ("greedy", "heuristic", "learned", "learned:endgame=8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="self-play deals for timings")
    parser.add_argument(
        "--endgame-games", type=int, default=40, help="self-play deals for learned:endgame=8"
    )
    parser.add_argument("--arena-games", type=int, default=2000, help="greedy self-play games")
    parser.add_argument("--positions", type=int, default=60, help="ismcts positions")
    parser.add_argument(
        "--bots", default=",".join(BOTS), help="the bots to time, comma-separated (default: all)"
    )
    parser.add_argument(
        "--busy", type=int, default=0, help="other processes spinning during the timings"
    )
    args = parser.parse_args()
    rules = Rules.preset("standard")

    with busy(args.busy):
        for spec in args.bots.split(","):
            games = args.endgame_games if "endgame" in spec else args.games
            every, endgame = decision_times(spec, games, rules)
            slow = sum(t > 0.005 for t in every) / len(every)
            print(spread(f"{spec} decision time", every) + f"; {slow:.1%} over 5 ms")
            if "endgame" in spec:
                print(spread(f"{spec} in its endgame", endgame))
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
