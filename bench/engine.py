"""Engine benchmark (``make bench``): move generation and random self-play on one core.

Prints, per figure, the median of several repeats:

- leading-position generations per second: every combination of a fixed set of 13-card
  hands, generated from scratch (no cache) and grouped into a move table;
- random self-play games per second, with full legal-move generation at every turn,
  the moves applied unchecked (as a search would) and, separately, through the
  validating ``Game.play``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from tienlen import RULESETS, Game, Rules
from tienlen.cards import deck, mask_of
from tienlen.movegen import MoveTable, combinations_of, table_for


def fixed_hands(count: int, seed: int = 2026) -> list[int]:
    rng = random.Random(seed)
    cards = list(deck())
    hands = []
    for _ in range(count):
        rng.shuffle(cards)
        hands.append(mask_of(cards[:13]))
    return hands


def time_it(fn: Callable[[], int], repeats: int) -> tuple[float, list[float]]:
    """Run ``fn`` (which returns how many units it did) ``repeats`` times; units/second."""
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        units = fn()
        rates.append(units / (time.perf_counter() - start))
    return statistics.median(rates), rates


def bench_leads(rules: Rules, hands: list[int]) -> int:
    total = 0
    for hand in hands:
        MoveTable.build(hand, rules)
        total += 1
    return total


def play_random_games(rules: Rules, games: int, seed: int, *, checked: bool) -> int:
    rng = random.Random(seed)
    for i in range(games):
        table_for.cache_clear()  # every game generates its moves from scratch
        g = Game(rules, seed=seed * 100_003 + i)
        while not g.is_over:
            move = rng.choice(g.legal_moves())
            if checked:
                g.play(move)
            else:
                g.apply_unchecked(move)
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard", help="preset to measure (default standard)")
    parser.add_argument("--all", action="store_true", help="measure every preset")
    parser.add_argument("--hands", type=int, default=2000, help="fixed leading hands per repeat")
    parser.add_argument("--games", type=int, default=500, help="random games per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (the median is shown)")
    args = parser.parse_args()

    hands = fixed_hands(args.hands)
    names = RULESETS if args.all else (args.rules,)
    header = ("rules", "lead gens/s", "moves/lead", "games/s", "games/s (play)")
    print(f"{header[0]:<15} {header[1]:>12} {header[2]:>10} {header[3]:>9} {header[4]:>15}")
    for name in names:
        rules = Rules.preset(name)
        sample = hands if rules.decks == 1 else []
        if sample:
            leads, _ = time_it(lambda: bench_leads(rules, sample), args.repeats)  # noqa: B023
            per = statistics.mean(len(combinations_of(h, rules)) for h in sample)
        else:
            leads, per = float("nan"), float("nan")
        fast, _ = time_it(
            lambda: play_random_games(rules, args.games, 1, checked=False),  # noqa: B023
            args.repeats,
        )
        checked, _ = time_it(
            lambda: play_random_games(rules, args.games, 1, checked=True),  # noqa: B023
            args.repeats,
        )
        print(f"{name:<15} {leads:>12,.0f} {per:>10.1f} {fast:>9,.0f} {checked:>15,.0f}")


if __name__ == "__main__":
    main()
