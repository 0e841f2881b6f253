"""``tienlen solve``: the open-hands solver on position notation."""

from __future__ import annotations

import json

import pytest

from tienlen.apps.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_solve_lists_the_choices_of_the_seat_to_act_and_a_winning_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc, out, _ = run(capsys, "solve", "8d10d/4hJh/Jc/10h 1 0 0:4s - - -", "--ascii")
    assert rc == 0
    lines = out.splitlines()
    assert lines[1] == "Seat 1 can force going out next."
    assert lines[2].split() == ["4h", "does", "not", "win"]
    assert lines[3].split() == ["Jh", "wins"]
    assert "winning line: 1:Jh, 2:pass, 3:pass, 0:pass, 1:4h" in out
    for seat in (0, 2, 3):
        assert f"Seat {seat} cannot force going out next." in out


def test_solve_with_two_seats_left_says_who_goes_out_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc, out, _ = run(capsys, "solve", "-/3s2h/-/Ac4d 3 0 - - - 02")
    assert rc == 0
    # Seat 3 leads but cannot stop the 2♥ and the 3♠.
    assert "Seat 3 cannot force going out next." in out
    assert "With two seats left, seat 1 goes out first with best play." in out


def test_solve_json_holds_every_seat_and_choice(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "solve", "-/3s2h/-/Ac4d 1 0 - - - 02", "--json")
    assert rc == 0
    answer = json.loads(out)
    assert [s["seat"] for s in answer["seats"]] == [1, 3]
    assert answer["seats"][0]["choices"] == [
        {"move": "3s", "wins": True},
        {"move": "2h", "wins": True},
    ]
    assert answer["seats"][1]["wins"] is False


@pytest.mark.parametrize(
    ("position", "message"),
    [
        ("8d10d/4hJh/Jc 1 0 - - - -", "3 hands in '8d10d/4hJh/Jc' for 4 players"),
        ("8d10d/4hJh/Jc/10h 1 0 0:4x - - -", "no card at '4x'"),
        ("?2/4hJh/Jc/10h 1 0 - - - -", "needs every hand known"),
    ],
)
def test_solve_quotes_a_bad_position(
    capsys: pytest.CaptureFixture[str], position: str, message: str
) -> None:
    rc, _, err = run(capsys, "solve", position)
    assert rc == 2
    assert message in err


def test_solve_answers_too_large_past_its_node_budget(
    capsys: pytest.CaptureFixture[str],
) -> None:
    position = "3s4s5d9h6d7cJs/6c8c10c/8d2h9c/KsKdQh 0 0 - - i3s -"
    rc, _, err = run(capsys, "solve", position, "--nodes", "50")
    assert rc == 2
    assert "too large to solve: more than 50 positions searched" in err
