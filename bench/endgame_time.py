"""The learned bot's endgame timed at a table with ``ismcts``, in one process.

``bench/bots.py`` times the endgame in a process of its own. In the arena and in the
server's bot pool it shares a process with other bots, and a search leaves a large heap
behind it (the move-table cache): a garbage collection in the middle of a solve then walks
all of it. This plays ``learned:endgame=8``, ``ismcts:iterations=N`` and two ``heuristic``
bots on duplicate deals (the arena's own deal loop, ``standard``) and prints the endgame's
decision times (median, 90th and 99th percentile, longest), the wall time, and the cyclic
collector's collections and seconds by generation.

Run: ``PYTHONPATH=build/compiled .venv/bin/python bench/endgame_time.py`` (``--deals``,
``--iterations``, ``--seed``).
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Sequence
from typing import Any

from bots import spread

import tienlen.players.bots.learned as learned
from tienlen.players.arena import _Job, _play_deal
from tienlen.players.base import Budget
from tienlen.rules import Rules


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--deals", type=int, default=2, help="duplicate deals (4 games each)")
    parser.add_argument("--iterations", type=int, default=1800, help="ismcts iterations a move")
    parser.add_argument("--seed", type=int, default=2, help="seed of the deals and bots")
    args = parser.parse_args(argv)

    times: list[float] = []
    solve = vars(learned)["forcing_choice"]

    def timed(*a: Any, **k: Any) -> Any:
        start = time.perf_counter()
        try:
            return solve(*a, **k)
        finally:
            times.append(time.perf_counter() - start)

    collections: dict[int, list[float]] = {0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}
    began = [0.0]

    def heard(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            c = collections[info["generation"]]
            c[0] += 1
            c[1] += time.perf_counter() - began[0]

    vars(learned)["forcing_choice"] = timed  # the bot looks it up in its module each time
    gc.callbacks.append(heard)
    bots = ("learned:endgame=8", f"ismcts:iterations={args.iterations}", "heuristic", "heuristic")
    rules = Rules.preset("standard")
    start = time.perf_counter()
    try:
        for deal in range(args.deals):
            _play_deal(_Job(rules, bots, args.seed, deal, Budget()))
            print(f"deal {deal + 1} of {args.deals} played", flush=True)
    finally:
        gc.callbacks.remove(heard)
        vars(learned)["forcing_choice"] = solve
    wall = time.perf_counter() - start
    print(spread("learned:endgame=8 in its endgame, beside ismcts", times))
    tracked = len(gc.get_objects())
    print(f"{args.deals * 4} games in {wall:.1f} s; objects the collector tracks: {tracked:,}")
    for generation, (count, seconds) in collections.items():
        print(f"collections of generation {generation}: {count:.0f}, {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
