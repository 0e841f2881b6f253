"""Puzzles: positions where exactly one choice forces the win, with every hand shown.

A puzzle is a position of the play phase, every hand known, where the seat to act can force
going out next (first, or with two seats left, ahead of the other) by exactly one of its
legal choices, cannot do it by going out at once, and has at least one other choice. The
open-hands solver (:mod:`tienlen.solver`) finds and checks them. Its *depth* is how many plays the
solver's winning line gives the seat, the winning one included: the deeper, the harder
(``easy`` 2, ``medium`` 3, ``hard`` 4 or more).

:func:`find_puzzle` looks at one position; :func:`puzzles_of_record` at every position of
a recorded game; :func:`starter_set` loads the set shipped with the package
(``puzzles.json``, written by ``bench/puzzles.py``). :func:`elo_update` keeps the rating of
the person solving them (docs/analysis.md).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from typing import Any

from tienlen.combos import format_move, parse_move
from tienlen.game import Game
from tienlen.record import GameRecord, apply_action
from tienlen.rules import Rules
from tienlen.solver import Solver, TooLargeError

__all__ = [
    "PUZZLE_FILE",
    "Puzzle",
    "check_data",
    "difficulty_of",
    "elo_update",
    "find_puzzle",
    "puzzle_rating",
    "puzzles_of_record",
    "starter_set",
]

#: The starter set's file in the package.
PUZZLE_FILE = "puzzles.json"


def difficulty_of(depth: int) -> str:
    """``easy`` (up to 2 plays deep), ``medium`` (3) or ``hard`` (4 or more)."""
    return "easy" if depth <= 2 else "medium" if depth == 3 else "hard"


def puzzle_rating(depth: int) -> int:
    """A puzzle's rating: 1200 at 2 plays deep, 200 more each play deeper."""
    return 1200 + 200 * (max(depth, 2) - 2)


@dataclass(frozen=True, slots=True)
class Puzzle:
    """One puzzle: find the winning play of ``position`` under ``rules``."""

    id: str
    rules: Rules
    position: str
    """Position notation, every hand known."""
    solution: str
    """The winning play, in ASCII card notation."""
    line: tuple[tuple[int, str], ...]
    """A winning line: (seat, play) from the solution to the seat going out."""
    source: str
    """Where the position comes from (a game and its action number)."""

    @property
    def seat(self) -> int:
        """The seat to find the play for (the seat to act)."""
        return self.game().turn

    @property
    def depth(self) -> int:
        """The seat's plays in the winning line (the solution included)."""
        return sum(1 for seat, move in self.line if seat == self.line[0][0] and move != "pass")

    @property
    def difficulty(self) -> str:
        """``easy``, ``medium`` or ``hard`` (:func:`difficulty_of`)."""
        return difficulty_of(self.depth)

    @property
    def rating(self) -> int:
        """The puzzle's rating (:func:`puzzle_rating`)."""
        return puzzle_rating(self.depth)

    def game(self) -> Game:
        """The position as a game."""
        return Game.from_position(self.position, rules=self.rules)

    def check(self, answer: str, *, solver: Solver | None = None) -> bool:
        """Whether ``answer`` (a play or ``pass``, in card notation) forces the win: checked
        by the solver, not against the stored solution. Raises ``ValueError`` quoting an
        answer that is no legal choice."""
        game = self.game()
        move = parse_move(answer, self.rules)
        legal = {m.mask: m for m in game.legal_plays()}
        if move.mask not in legal:
            raise ValueError(f"{answer!r} is not a legal choice of seat {game.turn} here")
        solution = (solver or Solver()).solve(game)
        return dict((m.mask, won) for m, won in solution.choices)[move.mask]

    def to_dict(self) -> dict[str, Any]:
        """The puzzle as JSON data."""
        return {
            "id": self.id,
            "rules": self.rules.code(),
            "position": self.position,
            "solution": self.solution,
            "line": [[seat, move] for seat, move in self.line],
            "depth": self.depth,
            "difficulty": self.difficulty,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Puzzle:
        """A puzzle from :meth:`to_dict`'s data (the shipped set: trusted)."""
        return cls(
            id=str(data["id"]),
            rules=Rules.from_code(data["rules"]),
            position=str(data["position"]),
            solution=str(data["solution"]),
            line=tuple((int(s), str(m)) for s, m in data["line"]),
            source=str(data["source"]),
        )


def find_puzzle(game: Game, solver: Solver, *, source: str = "") -> Puzzle | None:
    """The puzzle of ``game``'s position, if it is one (see the module docstring), else
    ``None`` (also for positions beyond the solver's budget)."""
    if game.phase != "play":
        return None
    left = [s for s in range(game.rules.players) if game.cards_left(s)]
    if game.finish_order and len(left) != 2:
        return None  # the stake is first place, or the better of the last two
    legal = game.legal_plays()
    seat = game.turn
    if len(legal) < 2 or any(m.mask == game.hand_masks[seat] for m in legal):
        return None
    try:
        solution = solver.solve(game)
    except TooLargeError:
        return None
    winning = solution.winning
    if len(winning) != 1:
        return None
    line = tuple((a.seat, format_move(a.move, ascii=True)) for a in solution.line)
    text = game.position.format()
    return Puzzle(
        id=hashlib.sha256(f"{game.rules.code()} {text}".encode()).hexdigest()[:8],
        rules=game.rules,
        position=text,
        solution=format_move(winning[0], ascii=True),
        line=line,
        source=source,
    )


def puzzles_of_record(
    record: GameRecord, solver: Solver, *, source: str = "", most_cards: int = 20
) -> Iterator[Puzzle]:
    """Every puzzle among the positions of a recorded game (before each of its play-phase
    actions) with at most ``most_cards`` cards in hand in all."""
    game = record.new_game()
    for number, action in enumerate(record.actions, 1):
        cards = sum(game.cards_left(s) for s in range(game.rules.players))
        if game.phase == "play" and action.kind in ("play", "pass") and cards <= most_cards:
            found = find_puzzle(game, solver, source=f"{source} action {number}".strip())
            if found is not None:
                yield found
        apply_action(game, action)


def check_data(data: dict[str, Any], answer: str) -> bool:
    """:meth:`Puzzle.check` of a puzzle given as :meth:`Puzzle.to_dict` data (for a worker
    process, which takes plain data)."""
    return Puzzle.from_dict(data).check(answer)


def starter_set() -> list[Puzzle]:
    """The puzzles shipped with the package, easiest first."""
    ref = resources.files("tienlen.analysis").joinpath(PUZZLE_FILE)
    data = json.loads(ref.read_text(encoding="utf-8"))
    return [Puzzle.from_dict(p) for p in data["puzzles"]]


def elo_update(rating: float, puzzle: int, solved: bool, *, k: float = 32.0) -> float:
    """The solver's new rating after a puzzle rated ``puzzle``: the Elo update, the puzzle
    as the opponent (its rating fixed by its depth)."""
    expected = 1.0 / (1.0 + math.pow(10.0, (puzzle - rating) / 400.0))
    return rating + k * ((1.0 if solved else 0.0) - expected)
