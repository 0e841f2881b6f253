"""Engine benchmark (``make bench``): move generation and random self-play on one core.

Prints, per figure, the median of several repeats:

- leading-position generations per second: every combination of a fixed set of 13-card
  hands, generated from scratch (no cache) and grouped into a move table;
- random self-play games per second, with full legal-move generation at every turn,
  the moves applied unchecked (as a search would) and, separately, through the
  validating ``Game.play``.

``--compare build/compiled`` (what ``make bench`` runs) measures the interpreted source and
the compiled engine (``make compiled``) alternately, one fresh process per repeat and form,
and prints both medians and their ratio. ``--baseline DIR`` measures the same way another
engine (an older checkout's ``src`` folder, or its compiled build) against this one (its
source, or with ``--compare``, its compiled build): a before/after comparison in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tienlen import COMPILED, RULESETS, Game, Rules
from tienlen.cards import deck, mask_of
from tienlen.movegen import MoveTable, combinations_of, table_for

ROOT = Path(__file__).resolve().parent.parent


def fixed_hands(count: int, seed: int = 2026) -> list[int]:
    rng = random.Random(seed)
    cards = list(deck())
    hands = []
    for _ in range(count):
        rng.shuffle(cards)
        hands.append(mask_of(cards[:13]))
    return hands


def time_it(fn: Callable[[], int], repeats: int) -> tuple[float, list[float]]:
    """Run ``fn`` (which returns how many units it did) ``repeats`` times; units per second
    of this process's CPU time, which a busy shared machine disturbs far less than the
    wall clock (the work is single-threaded, so the two agree on an idle machine)."""
    rates = []
    for _ in range(repeats):
        start = time.process_time()
        units = fn()
        rates.append(units / (time.process_time() - start))
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


def measure(rules: Rules, hands: list[int], games: int, repeats: int) -> dict[str, float]:
    """The median of ``repeats`` runs of each figure for ``rules``."""
    sample = hands if rules.decks == 1 else []
    out = {"leads": float("nan"), "per_lead": float("nan")}
    if sample:
        out["leads"], _ = time_it(lambda: bench_leads(rules, sample), repeats)
        out["per_lead"] = statistics.mean(len(combinations_of(h, rules)) for h in sample)
    out["games"], _ = time_it(lambda: play_random_games(rules, games, 1, checked=False), repeats)
    out["checked"], _ = time_it(lambda: play_random_games(rules, games, 1, checked=True), repeats)
    return out


def child_run(path: str, compiled: bool, args: argparse.Namespace, name: str) -> dict[str, float]:
    """One repeat measured in a fresh process running the engine found at ``path``, which
    must be the ``compiled`` one or not."""
    command = [sys.executable, __file__, "--child", "--rules", name, "--repeats", "1"]
    command += ["--hands", str(args.hands), "--games", str(args.games)]
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout)
    if bool(figures.pop("compiled")) != compiled:
        form = "compiled" if compiled else "interpreted"
        raise SystemExit(f"the run did not load the {form} engine (PYTHONPATH={path})")
    return figures


def compare(args: argparse.Namespace, names: tuple[str, ...]) -> None:
    """Two engines' runs alternating (one fresh process per repeat and engine, so both see
    the same machine load), medians and their ratio: interpreted and compiled, or with
    ``--baseline``, before and after."""
    here = args.compare or str(ROOT / "src")
    forms: dict[str, tuple[str, bool]]
    if args.baseline:
        compiled = bool(args.compare)
        forms = {"before": (args.baseline, compiled), "after": (here, compiled)}
    else:
        forms = {"interpreted": (str(ROOT / "src"), False), "compiled": (here, True)}
    first, second = forms
    header = ("rules", "engine", "lead gens/s", "games/s", "games/s (play)")
    print(f"{header[0]:<15} {header[1]:<12} {header[2]:>12} {header[3]:>9} {header[4]:>15}")
    for name in names:
        runs: dict[str, list[dict[str, float]]] = {form: [] for form in forms}
        for _ in range(args.repeats):
            for form, (path, compiled) in forms.items():
                runs[form].append(child_run(path, compiled, args, name))
        medians = {
            form: {k: statistics.median(r[k] for r in runs[form]) for k in runs[form][0]}
            for form in forms
        }
        for form in forms:
            m = medians[form]
            print(
                f"{name:<15} {form:<12} {m['leads']:>12,.0f} {m['games']:>9,.0f} "
                f"{m['checked']:>15,.0f}"
            )
        ratio = {k: medians[second][k] / medians[first][k] for k in medians[second]}
        print(
            f"{name:<15} {'ratio':<12} {ratio['leads']:>11.2f}x {ratio['games']:>8.2f}x "
            f"{ratio['checked']:>14.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard", help="preset to measure (default standard)")
    parser.add_argument("--all", action="store_true", help="measure every preset")
    parser.add_argument("--hands", type=int, default=2000, help="fixed leading hands per repeat")
    parser.add_argument("--games", type=int, default=500, help="random games per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (the median is shown)")
    parser.add_argument(
        "--compare",
        metavar="DIR",
        help="also measure the compiled engine installed in DIR (make compiled: build/compiled), "
        "alternating with the interpreted source, and print the ratio",
    )
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        help="also measure the engine in DIR (an older checkout's src, or with --compare its "
        "compiled build), alternating with this one, and print the ratio after/before",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    hands = fixed_hands(args.hands)
    names = tuple(RULESETS) if args.all else (args.rules,)
    if args.child:
        figures: dict[str, float | bool] = {"compiled": COMPILED}
        figures.update(measure(Rules.preset(args.rules), hands, args.games, args.repeats))
        print(json.dumps(figures))
        return
    if args.compare or args.baseline:
        compare(args, names)
        return
    print(f"engine: {'compiled' if COMPILED else 'interpreted'}")
    header = ("rules", "lead gens/s", "moves/lead", "games/s", "games/s (play)")
    print(f"{header[0]:<15} {header[1]:>12} {header[2]:>10} {header[3]:>9} {header[4]:>15}")
    for name in names:
        m = measure(Rules.preset(name), hands, args.games, args.repeats)
        print(
            f"{name:<15} {m['leads']:>12,.0f} {m['per_lead']:>10.1f} {m['games']:>9,.0f} "
            f"{m['checked']:>15,.0f}"
        )


if __name__ == "__main__":
    main()
