"""The open-hands solver's move order, measured on the deals the learned bot's endgame solves.

The solver proves "the seat forces going out next" by an AND-OR search; the order in which
it tries moves changes how many positions a proof takes, never its answer. This plays
``--deals`` duplicate deals of ``learned:endgame=8`` against three ``heuristic`` bots (the
arena's deal loop), keeps every deal of the unseen cards the endgame draws (8 a decision,
drawn from the bot's observation as it draws them), then solves each of them, within
``--nodes`` positions, with each order of the others' moves:

- ``shipped``: the solver as it is (:func:`tienlen.solver._order_resisting`);
- ``seat's``: the others' moves in the seat's own order (biggest plays first, highest top
  first among plays of a size), the solver's order before 2026-12-07.

Printed for each: positions searched (a deal too large counts its whole budget), deals too
large, seconds, and the deals whose verdicts differ between orders (solved by both: always 0,
or the bench fails). Runs on the interpreted engine (the order is switched by replacing a
module function, which a compiled build binds at build time).

Run: ``.venv/bin/python bench/solver_order.py`` (``--rules``, ``--deals``, ``--nodes``).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from itertools import islice
from typing import Any

import tienlen.players.bots.learned as learned
import tienlen.solver as solver
from tienlen.game import Game
from tienlen.observation import Observation
from tienlen.players.arena import _Job, _play_deal
from tienlen.players.base import Budget
from tienlen.players.bots.endgame import sampled_deals
from tienlen.rules import Rules

#: The orders compared: the name, and the function that orders the others' moves.
ORDERS: dict[str, Any] = {
    "shipped": solver._order_resisting,
    "seat's": solver._order,
}


def endgame_deals(rules: Rules, deals: int, seed: int) -> list[tuple[Game, int]]:
    """The games (and the bot's seat) the endgame of ``learned:endgame=8`` solves in
    ``deals`` duplicate deals against three ``heuristic`` bots."""
    asked: list[tuple[Observation, random.Random]] = []
    real = vars(learned)["forcing_choice"]

    def grab(
        obs: Observation, legal: Sequence[Any], values: Any, rng: random.Random, **k: Any
    ) -> Any:
        copy = random.Random()
        copy.setstate(rng.getstate())  # the deals the bot is about to draw
        asked.append((obs, copy))
        return real(obs, legal, values, rng, **k)

    vars(learned)["forcing_choice"] = grab  # the bot looks it up in its module each time
    bots = ("learned:endgame=8", "heuristic", "heuristic", "heuristic")
    try:
        for deal in range(deals):
            _play_deal(_Job(rules, bots, seed, deal, Budget()))
    finally:
        vars(learned)["forcing_choice"] = real
    return [(g, obs.seat) for obs, rng in asked for g in islice(sampled_deals(obs, rng), 8)]


def solve_all(games: list[tuple[Game, int]], nodes: int) -> tuple[int, int, float, list[Any]]:
    """(positions, deals too large, seconds, each deal's verdicts or ``None``)."""
    spent = large = 0
    verdicts: list[Any] = []
    start = time.perf_counter()
    for game, seat in games:
        try:
            solution = solver.Solver(nodes=nodes).solve(game, seat)
        except solver.TooLargeError:
            large += 1
            spent += nodes
            verdicts.append(None)
            continue
        spent += solution.nodes
        verdicts.append(solution.choices)
    return spent, large, time.perf_counter() - start, verdicts


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rules", default="standard", help="a preset (default standard)")
    parser.add_argument("--deals", type=int, default=10, help="duplicate deals (4 games each)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the deals and bots")
    parser.add_argument("--nodes", type=int, default=10_000, help="positions a deal at most")
    args = parser.parse_args(argv)

    games = endgame_deals(Rules.preset(args.rules), args.deals, args.seed)
    print(f"{len(games)} deals of {len(games) // 8} endgame decisions, {args.deals * 4} games")
    first: list[Any] | None = None
    shipped = solver._order_resisting
    try:
        for name, order in ORDERS.items():
            solver._order_resisting = order
            spent, large, seconds, verdicts = solve_all(games, args.nodes)
            differ = 0
            if first is None:
                first = verdicts
            else:
                differ = sum(1 for a, b in zip(first, verdicts, strict=True) if a and b and a != b)
            print(
                f"{name:8s} positions {spent:>11,}  too large {large:>4} of {len(games)}  "
                f"{seconds:6.1f} s  verdicts differing {differ}",
                flush=True,
            )
            if differ:
                raise SystemExit("the orders disagree on a solved deal: a solver bug")
    finally:
        solver._order_resisting = shipped
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
