"""``tienlen solve``: the open-hands solver on a position written in position notation."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from tienlen.combos import Move, format_move
from tienlen.game import Game
from tienlen.position import parse_position
from tienlen.solver import DEFAULT_NODES, Solution, Solver

from .argtypes import at_least_one
from .files import rules_arg


def register(subparsers: Any) -> None:
    """Add the ``solve`` subcommand."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "solve",
        help="solve a position with every hand known: who can force going out next",
        description=(
            "Solve a position of the play phase with every hand known (position notation, "
            "docs/position-notation.md, quoted: one argument): "
            "whether each seat still in can force going out next whatever the others play, "
            "every choice of the seat to act with its verdict, and a winning line. With two "
            "seats left one of them always can: that is who goes out first with best play. "
            "A position that needs more than the node budget is answered 'too large'."
        ),
        epilog="example: tienlen solve '8d10d/4hJh/Jc/10h 1 0 0:4s - - -'",
    )
    p.add_argument("position", nargs="+", metavar="POSITION", help="the position notation")
    p.add_argument(
        "--rules",
        type=rules_arg,
        default="standard",
        metavar="CODE",
        help="the rules the position is played under (a preset, a rules code or a JSON "
        "file; default standard)",
    )
    p.add_argument(
        "--seat",
        type=int,
        metavar="N",
        help="answer for seat N alone (default: every seat still in)",
    )
    p.add_argument(
        "--nodes",
        type=at_least_one,
        default=DEFAULT_NODES,
        metavar="N",
        help=f"the node budget of each search (default {DEFAULT_NODES:,}, about a second)",
    )
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.add_argument(
        "--ascii", action="store_true", help="write cards with letters (3s 10h) instead of ♠♥"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Solve the position and print the answer."""
    text = " ".join(args.position)
    rules = args.rules
    state = parse_position(text, rules)
    if state.phase != "play":
        raise ValueError(f"the solver needs a position in the play phase: {text!r}")
    if any(h is None for h in state.hands):
        raise ValueError(f"the solver needs every hand known ('?' is hidden): {text!r}")
    game = Game.from_state(state, rules=rules)
    seats = [s for s in range(rules.players) if game.cards_left(s)]
    if args.seat is not None:
        if args.seat not in seats:
            raise ValueError(f"--seat {args.seat} is no seat still in of {text!r}")
        seats = [args.seat]
    solver = Solver(nodes=args.nodes)
    started = time.perf_counter()
    # The seat to act first: its answer lists its choices.
    seats.sort(key=lambda s: s != game.turn)
    solutions = [solver.solve(game, s) for s in seats]
    seconds = time.perf_counter() - started
    if args.json:
        print(json.dumps(_as_json(text, rules.code(), solutions, seconds), ensure_ascii=False))
        return 0

    def words(move: Move) -> str:
        return format_move(move, ascii=args.ascii)

    print(f"{text}  ({rules.code()}, seat {game.turn} to act)")
    for sol in solutions:
        verdict = "can force going out next" if sol.wins else "cannot force going out next"
        print(f"Seat {sol.seat} {verdict}.")
        if sol.seat == game.turn:
            for move, won in sol.choices:
                print(f"  {words(move):<24} {'wins' if won else 'does not win'}")
        if sol.line:
            line = ", ".join(f"{a.seat}:{words(a.move)}" for a in sol.line)
            print(f"  winning line: {line}")
    if len(game.finish_order) == rules.players - 2 and args.seat is None:
        first = next(s.seat for s in solutions if s.wins)
        print(f"With two seats left, seat {first} goes out first with best play.")
    print(f"Searched {sum(s.nodes for s in solutions):,} positions in {seconds:.2f} s.")
    return 0


def _as_json(text: str, code: str, solutions: list[Solution], seconds: float) -> dict[str, object]:
    return {
        "position": text,
        "rules": code,
        "seats": [
            {
                "seat": s.seat,
                "wins": s.wins,
                "choices": [{"move": format_move(m, ascii=True), "wins": w} for m, w in s.choices],
                "line": [{"seat": a.seat, "move": format_move(a.move, ascii=True)} for a in s.line],
                "nodes": s.nodes,
            }
            for s in solutions
        ],
        "seconds": round(seconds, 3),
    }
