"""``tienlen analyse``: the review of a recorded game in the terminal and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tienlen import Game
from tienlen.apps.cli import main
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.bots.heuristic import HeuristicBot
from tienlen.players.toolkit import play_out
from tienlen.record import GameRecord


@pytest.fixture
def blunder_record() -> GameRecord:
    """Seat 0 could go out at once with 3♠ 4♠ 5♠ and led the 3♠ alone."""
    game = Game("standard", hands=["3s 4s 5s", "6c 7c", "9d 2h", "Kd Ks"])
    game.play("3s")
    bot = HeuristicBot()
    play_out(game, lambda g, legal: bot.choose(observe(g, g.turn), legal, Budget()))
    return GameRecord.from_game(game, names=["Ann", "Bo", "Cy", "Di"])


@pytest.mark.parametrize("form", ["json", "text"])
def test_analyse_shows_the_blunder_and_writes_the_json(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    blunder_record: GameRecord,
    form: str,
) -> None:
    monkeypatch.setenv("COLUMNS", "160")  # one table row a line
    path = tmp_path / f"game.{form}"
    path.write_text(blunder_record.to_json() if form == "json" else blunder_record.to_text())
    out_file = tmp_path / "analysis.json"
    rc = main(
        ["analyse", str(path), "--seat", "0", "--samples", "16", "--json", str(out_file), "--ascii"]
    )
    out = capsys.readouterr().out
    assert rc == 0
    row = next(line for line in out.splitlines() if "Ann (S0)" in line and "3s" in line)
    assert "blunder" in row and "3s 4s 5s" in row
    assert "missed the forced win 3s 4s 5s" in row
    data = json.loads(out_file.read_text())
    assert (data["format"], data["version"]) == ("tienlen-analysis", 1)
    (game,) = data["games"]
    first = game["decisions"][0]
    assert {k: first[k] for k in ("number", "seat", "choice", "best", "label")} == {
        "number": 1,
        "seat": 0,
        "choice": "3s",
        "best": "3s 4s 5s",
        "label": "blunder",
    }
    best = first["choices"][0]
    assert best == {
        "choice": "3s 4s 5s",
        "win": {"mean": 1.0, "error": 0.0},
        "place": {"mean": 1.0, "error": 0.0},
        "points": {"mean": 2.0, "error": 0.0},
        "samples": 16,
        "exact": True,
    }
    assert game["players"][0]["labels"]["blunder"] == 1


def test_analyse_quotes_a_record_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "tienlen-game", "version": 99}')
    assert main(["analyse", str(path)]) == 2
    assert str(path) in capsys.readouterr().err


def test_analyse_refuses_a_seat_that_is_not_in_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], blunder_record: GameRecord
) -> None:
    path = tmp_path / "game.json"
    path.write_text(blunder_record.to_json())
    assert main(["analyse", str(path), "--seat", "5"]) == 2
    assert "seat must be 0-3, not 5" in capsys.readouterr().err


def test_replay_marks_the_analysed_decisions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], blunder_record: GameRecord
) -> None:
    path = tmp_path / "game.json"
    path.write_text(blunder_record.to_json())
    analysis = tmp_path / "analysis.json"
    assert main(["analyse", str(path), "--samples", "8", "--json", str(analysis)]) == 0
    capsys.readouterr()
    assert main(["replay", str(path), "--analysis", str(analysis), "--no-hands"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("   1. Ann (S0) plays 3♠")
    # 8 deals that all came out alike: the error counts one deal more each way
    assert lines[at + 1] == "        ^ blunder (100% ± 20% lost); best: 3♠ 4♠ 5♠"


@pytest.mark.parametrize(
    ("decision", "message"),
    [
        ({"number": 1, "label": "awful"}, "games[0].decisions[0].label: not one of best"),
        ({"number": 0}, "games[0].decisions[0].number: must be an integer from 1"),
        (
            {"number": 1, "label": "good", "loss": {"mean": "x", "error": 0}},
            "games[0].decisions[0].loss.mean: must be a number, not 'x'",
        ),
    ],
)
def test_replay_quotes_a_bad_analysis_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    blunder_record: GameRecord,
    decision: dict[str, object],
    message: str,
) -> None:
    path = tmp_path / "game.json"
    path.write_text(blunder_record.to_json())
    analysis = tmp_path / "analysis.json"
    doc = {"format": "tienlen-analysis", "version": 1, "games": [{"decisions": [decision]}]}
    analysis.write_text(json.dumps(doc))
    assert main(["replay", str(path), "--analysis", str(analysis)]) == 2
    assert message in capsys.readouterr().err


def test_the_terminal_replay_viewer_marks_the_analysed_decisions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], blunder_record: GameRecord
) -> None:
    from tienlen.apps.tui.replay import ReplayModel

    path = tmp_path / "game.json"
    path.write_text(blunder_record.to_json())
    analysis = tmp_path / "analysis.json"
    assert main(["analyse", str(path), "--samples", "8", "--json", str(analysis)]) == 0
    model = ReplayModel.open(path, analysis=analysis)
    model.go(1)
    assert model.view().status.endswith("· blunder (100% ± 20% lost); best: 3♠ 4♠ 5♠")
    with pytest.raises(ValueError, match="an analysis of 1 games for 2 games"):
        ReplayModel([blunder_record, blunder_record], model.marks)
