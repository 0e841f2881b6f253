"""bench/arena_deals.py: an arena run played deal by deal into a file, resumed where it
stopped, giving the games of ``run_arena`` itself."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tienlen import Rules
from tienlen.players.arena import GameOutcome, run_arena

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from arena_deals import ahead, main, play, read  # noqa: E402

SPECS = ["greedy", "heuristic", "random", "greedy"]


def test_a_run_cut_short_and_resumed_gives_the_arenas_own_games(tmp_path: Path) -> None:
    rules = Rules.preset("suited")
    path = tmp_path / "run.jsonl"
    play(path, rules, SPECS, games=4, seed=7)  # one deal, as if the run had been stopped
    heard: list[tuple[int, int]] = []
    play(path, rules, SPECS, games=12, seed=7, progress=lambda d, t: heard.append((d, t)))
    _, outcomes, seconds = read(path)
    expected = run_arena(rules, SPECS, games=12, seed=7).outcomes
    assert outcomes == expected
    assert [o.deal for o in outcomes] == [0] * 4 + [1] * 4 + [2] * 4
    assert heard == [(4, 12), (8, 12), (12, 12)]  # the deal already played was not played again
    assert seconds > 0


def test_a_file_of_another_run_is_refused(tmp_path: Path) -> None:
    rules = Rules.preset("standard")
    path = tmp_path / "run.jsonl"
    play(path, rules, SPECS, games=4, seed=7)
    with pytest.raises(ValueError, match="holds another run"):
        play(path, rules, SPECS, games=8, seed=8)
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2  # left as it was


def test_ahead_counts_the_games_where_one_entry_finished_above_another() -> None:
    def game(positions: tuple[int, ...]) -> GameOutcome:
        return GameOutcome(0, 0, (0, 1, 2), positions, (0, 0, 0), 1)

    games = [game((1, 2, 3)), game((3, 1, 2)), game((2, 3, 1))]
    assert ahead(games, 0, 1) == (2, 3)
    assert ahead(games, 1, 0) == (1, 3)
    assert ahead(games, 2, 1) == (1, 3)


def test_the_command_line_plays_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.jsonl"
    argv = ["--rules", "pagat", "--bots", ",".join(SPECS), "--games", "8", "--seed", "3"]
    assert main([*argv, "--out", str(path), "--ahead", "1,0", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert json.loads(path.read_text(encoding="utf-8").splitlines()[0])["bots"] == SPECS
    _, outcomes, _ = read(path)
    k, n = ahead(outcomes, 1, 0)
    assert n == 8
    assert f"heuristic finished ahead of greedy#1: {100 * k / n:.1f}%" in printed
    assert f"({k} of 8 games)" in printed
    assert main(["--report", str(path)]) == 0
    assert "heuristic" in capsys.readouterr().out
