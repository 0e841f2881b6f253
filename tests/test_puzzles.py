"""Puzzles: the shipped set checked by the solver, finding them, the rating, and
``tienlen puzzle``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tienlen import Game
from tienlen.analysis.puzzles import Puzzle, elo_update, find_puzzle, starter_set
from tienlen.apps.cli import main
from tienlen.combos import format_move
from tienlen.solver import Solver


def test_every_shipped_puzzle_has_exactly_one_winning_choice_and_a_line_that_wins() -> None:
    puzzles = starter_set()
    assert len(puzzles) >= 30
    assert {p.difficulty for p in puzzles} == {"easy", "medium", "hard"}
    assert len({p.id for p in puzzles}) == len(puzzles)
    for puzzle in puzzles:
        game = puzzle.game()
        solution = Solver().solve(game)
        assert [format_move(m, ascii=True) for m in solution.winning] == [puzzle.solution]
        assert len(solution.choices) >= 2
        assert puzzle.line[0] == (game.turn, puzzle.solution)
        out = len(game.finish_order)
        for seat, move in puzzle.line:
            assert seat == game.turn
            game.play(move)
        assert game.finish_order[out] == puzzle.line[0][0]


def test_a_position_with_one_winning_play_is_a_puzzle_and_its_depth_grades_it() -> None:
    # S0 must lead the 2♥ first: the 3♠ led lets S1 out with its 5♣.
    game = Game("standard", hands=["3s 2h", "5c", "7h", "9c"], leader=0)
    puzzle = find_puzzle(game, Solver(), source="by hand")
    assert puzzle is not None
    assert (puzzle.solution, puzzle.depth, puzzle.difficulty) == ("2h", 2, "easy")
    assert puzzle.check("2h") and not puzzle.check("3s")
    with pytest.raises(ValueError, match="'4s' is not a legal choice of seat 0"):
        puzzle.check("4s")


def test_positions_without_exactly_one_winning_play_are_no_puzzles() -> None:
    # Both plays win (S0's 2♥ stops every single): no puzzle.
    both = Game("standard", hands=["3s 2h", "5c 6c", "7h 8h", "9c 10c"], leader=0)
    assert len(Solver().solve(both).winning) == 2
    assert find_puzzle(both, Solver()) is None
    # Going out at once is no puzzle either.
    at_once = Game("standard", hands=["3s 4s 5s", "5c", "7h", "9c"])
    assert find_puzzle(at_once, Solver()) is None


def test_the_rating_gains_more_for_a_harder_puzzle_and_loses_for_a_miss() -> None:
    assert elo_update(1500, 1600, True) - 1500 > elo_update(1500, 1400, True) - 1500 > 0
    assert elo_update(1500, 1400, False) < 1500
    assert elo_update(1500, 1500, True) == pytest.approx(1516.0)


def first_puzzle() -> Puzzle:
    return starter_set()[0]


def test_puzzle_command_checks_the_answer_and_keeps_the_rating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    puzzle = first_puzzle()
    rating = tmp_path / "rating.json"
    args = ["puzzle", "--id", puzzle.id, "--rating", str(rating), "--ascii"]
    assert main([*args, "--answer", puzzle.solution]) == 0
    out = capsys.readouterr().out
    assert f"Right: {puzzle.solution} forces it." in out
    assert "A winning line: " + ", ".join(f"S{s} {m}" for s, m in puzzle.line) in out
    kept = json.loads(rating.read_text())
    assert kept["seen"] == {puzzle.id: True} and kept["rating"] > 1500
    # the same puzzle again leaves the rating as it is
    assert main([*args, "--answer", puzzle.solution]) == 0
    assert json.loads(rating.read_text()) == kept
    assert "Seen before" in capsys.readouterr().out


def test_puzzle_command_with_a_wrong_answer_shows_the_solution(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    puzzle = first_puzzle()
    game = puzzle.game()
    wrong = next(m for m in game.legal_plays() if format_move(m, ascii=True) != puzzle.solution)
    rating = tmp_path / "rating.json"
    answer = format_move(wrong, ascii=True)
    rc = main(["puzzle", "--id", puzzle.id, "--rating", str(rating), "--answer", answer, "--ascii"])
    assert rc == 1
    assert f"the play that forces it is {puzzle.solution}." in capsys.readouterr().out
    assert json.loads(rating.read_text())["rating"] < 1500


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"rating": "high", "seen": {}}', "rating: must be a number"),
        ('{"rating": 1500, "seen": {"x": 1}}', "seen.x: must be true or false"),
        ("[1, 2", "not valid JSON"),
    ],
)
def test_puzzle_command_quotes_a_bad_rating_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    rating = tmp_path / "rating.json"
    rating.write_text(content)
    assert main(["puzzle", "--rating", str(rating), "--answer", "pass"]) == 2
    assert message in capsys.readouterr().err
