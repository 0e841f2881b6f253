"""``tienlen puzzle``: find the one play that forces the win, every hand shown
(:mod:`tienlen.analysis.puzzles`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from tienlen.analysis.puzzles import Puzzle, elo_update, starter_set
from tienlen.cards import cards_of_mask, format_cards, parse_cards
from tienlen.combos import format_move
from tienlen.inputs import expect_bool, expect_object, fail, load_json, quote_value

from .files import read_input, write_atomic

#: Where the rating is kept by default (the current folder, as saved matches are).
DEFAULT_RATING_FILE = "tienlen-puzzles.json"
#: The rating of someone who has not solved a puzzle yet.
START_RATING = 1500.0


class RatingFileError(ValueError):
    """A rating file that cannot be read; the message says where."""


def register(subparsers: Any) -> None:
    """Add the ``puzzle`` subcommand."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "puzzle",
        help="solve a puzzle: the one play that forces the win, every hand shown",
        description=(
            "Show a position from a real or self-played game with every hand face up, where "
            "exactly one play of the seat to act forces going out first (or, with two seats "
            "left, ahead of the other) whatever the others do. Type the play; the open-hands "
            "solver checks it and shows a winning line. Your puzzle rating (Elo, each puzzle "
            "rated by how many plays deep its win is) is kept in a file. Without --id the "
            "next puzzle is the unseen one rated nearest to you."
        ),
    )
    p.add_argument("--id", help="the puzzle to show (its id)")
    p.add_argument("--difficulty", choices=("easy", "medium", "hard"), help="only these")
    p.add_argument("--answer", metavar="PLAY", help="answer at once (cards or 'pass')")
    p.add_argument(
        "--rating",
        default=DEFAULT_RATING_FILE,
        metavar="FILE",
        help=f"where your rating and the puzzles you have seen are kept ({DEFAULT_RATING_FILE})",
    )
    p.add_argument(
        "--ascii", action="store_true", help="write cards with letters (3s 10h) instead of ♠♥"
    )
    p.set_defaults(func=run)


def read_rating(path: str) -> tuple[float, dict[str, bool]]:
    """(rating, {puzzle id: solved}) from the rating file, a fresh start if there is none."""
    if not Path(path).exists():
        return START_RATING, {}
    data = load_json(read_input(path), error=RatingFileError, what=path)
    doc = expect_object(data, path, error=RatingFileError, required=("rating", "seen"))
    rating = doc["rating"]
    if not isinstance(rating, (int, float)) or isinstance(rating, bool) or not 0 < rating < 5000:
        fail(RatingFileError, f"{path}: rating", f"must be a number from 0 to 5000: {rating!r}")
    seen = doc["seen"]
    if not isinstance(seen, dict) or len(seen) > 100_000:
        fail(RatingFileError, f"{path}: seen", "must be an object of puzzle ids")
    out = {}
    for key, value in seen.items():
        if not isinstance(key, str) or len(key) > 64:
            fail(RatingFileError, f"{path}: seen", f"not a puzzle id: {quote_value(key)}")
        out[key] = expect_bool(value, f"{path}: seen.{key}", error=RatingFileError)
    return float(rating), out


def pick(puzzles: list[Puzzle], rating: float, seen: dict[str, bool]) -> Puzzle:
    """The unseen puzzle rated nearest to ``rating`` (all seen: the nearest one failed or,
    failing that, any)."""
    pool = (
        [p for p in puzzles if p.id not in seen]
        or [p for p in puzzles if not seen.get(p.id)]
        or puzzles
    )
    return min(pool, key=lambda p: (abs(p.rating - rating), p.id))


def show(puzzle: Puzzle, *, ascii: bool) -> str:
    """The puzzle as text: every hand, the pile, who is out, whose turn."""
    game = puzzle.game()
    seat = game.turn
    lines = [f"Puzzle {puzzle.id} ({puzzle.difficulty}, rated {puzzle.rating}; {puzzle.source})"]
    lines.append(f"Rules: {puzzle.rules.code()}")
    for s, mask in enumerate(game.hand_masks):
        cards = format_cards(cards_of_mask(mask), ascii=ascii) or "(out)"
        mark = "  <- to play" if s == seat else ""
        lines.append(f"  S{s}: {cards}{mark}")
    top = game.top
    if top is None:
        lines.append(f"S{seat} leads a fresh pile.")
    else:
        lines.append(f"To beat: {format_move(top.move, ascii=ascii)} (S{top.seat})")
    left = [s for s in range(game.rules.players) if game.cards_left(s)]
    if game.finish_order:
        other = next(s for s in left if s != seat)
        lines.append(
            f"Find the play that makes S{seat} go out before S{other}, whatever S{other} does."
        )
    else:
        lines.append(f"Find the play that makes S{seat} go out first, whatever the others do.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Show a puzzle, read the answer, check it and keep the rating."""
    puzzles = starter_set()
    if args.difficulty:
        puzzles = [p for p in puzzles if p.difficulty == args.difficulty]
    rating, seen = read_rating(args.rating)
    if args.id is not None:
        found = [p for p in puzzles if p.id == args.id]
        if not found:
            raise ValueError(f"no puzzle {args.id!r} (tienlen puzzle shows the next one)")
        puzzle = found[0]
    else:
        puzzle = pick(puzzles, rating, seen)
    print(show(puzzle, ascii=args.ascii))
    answer = args.answer
    while True:
        if answer is None:
            try:
                answer = input("Your play: ")
            except EOFError:
                print()
                return 1
        try:
            solved = puzzle.check(answer)
            break
        except ValueError as e:
            if args.answer is not None:
                raise
            print(f"  {e}")
            answer = None
    line = ", ".join(f"S{s} {_cards(m, args.ascii)}" for s, m in puzzle.line)
    if solved:
        print(f"Right: {_cards(answer, args.ascii)} forces it.")
    else:
        print(f"Not this one: the play that forces it is {_cards(puzzle.solution, args.ascii)}.")
    print(f"A winning line: {line}")
    first_try = puzzle.id not in seen
    if first_try:
        new = elo_update(rating, puzzle.rating, solved)
        seen[puzzle.id] = solved
        doc = {"rating": round(new, 1), "seen": seen}
        write_atomic(args.rating, json.dumps(doc, indent=1) + "\n")
        print(f"Rating: {rating:.0f} -> {new:.0f} ({args.rating})")
    else:
        print(f"Seen before: the rating stays {rating:.0f}.")
    return 0 if solved else 1


def _cards(text: str, ascii: bool) -> str:
    """A play written in ASCII notation (or typed), shown as the command shows cards."""
    if text.strip().lower() == "pass":
        return "pass"
    return format_cards(parse_cards(text), ascii=ascii)
