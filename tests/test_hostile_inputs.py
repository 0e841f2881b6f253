"""Hostile files and players: names and typed lines reach the screen with control
characters escaped, long lines are refused, and an unseeded match's deals cannot be
derived from what the game shows."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

from tienlen import Card, Game, Rules
from tienlen.apps.cli import main
from tienlen.apps.controller import MatchController, MatchSetup
from tienlen.apps.plain import MAX_LINE, play_plain
from tienlen.apps.tui.replay import ReplayModel
from tienlen.record import to_json

EVIL = "Eve\x1b]0;owned\x07\x1b[2J\u202e"
SETTINGS = MatchSetup(rules=Rules.preset("standard"), bots=("greedy",) * 3, games=1, seed=7)


def evil_record(tmp_path: Path) -> Path:
    game = Game("standard", hands=["3s 9d", "2h", "4d 5d", "Ks"])
    for move in ("3s", "2h", "pass", "pass", "pass", "4d", "Ks", "pass", "pass", "9d"):
        game.play(move)
    path = tmp_path / "evil.json"
    path.write_text(to_json(game, names=[EVIL, "Ben", "[b]Carla[/b]", "Dan"]), encoding="utf-8")
    return path


def test_replay_escapes_the_names_of_a_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(evil_record(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "1. Eve\\x1b]0;owned\\x07\\x1b[2J\\u202e (S0) plays 3♠" in out


def test_the_replay_viewer_escapes_the_names_too(tmp_path: Path) -> None:
    data = json.loads(evil_record(tmp_path).read_text(encoding="utf-8"))
    from tienlen.record import read

    model = ReplayModel([read(data)])
    assert model.names[0] == "Eve\\x1b]0;owned\\x07\\x1b[2J\\u202e"
    assert model.names[2] == "[b]Carla[/b]"  # shown as rich Text, never read as markup


def test_plain_game_escapes_what_is_typed_and_refuses_huge_lines() -> None:
    out = io.StringIO()
    lines = "3s\x1b[2J\x07\n" + "3s " * MAX_LINE + "\nquit\n"
    assert play_plain(SETTINGS, stdin=io.StringIO(lines), stdout=out) == 0
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text
    assert "3s\\x1b[2J\\x07" in text
    assert f"That line is longer than {MAX_LINE} characters" in text
    assert "3s 3s 3s 3s" not in text  # the long line is neither echoed nor quoted
    assert text.rstrip().endswith("Goodbye.")


def test_an_unseeded_match_shows_no_seed_and_deals_afresh_each_time() -> None:
    settings = dataclasses.replace(SETTINGS, seed=None)
    titles: set[str] = set()
    heads: set[str] = set()
    deals: set[tuple[tuple[Card, ...], ...]] = set()
    for _ in range(1000):
        ctl = MatchController(settings)
        titles.add(ctl.title())
        deals.add(ctl.game.setup.hands)
        if len(heads) < 3:
            out = io.StringIO()
            play_plain(settings, stdin=io.StringIO(""), stdout=out, controller=ctl)
            heads.add(out.getvalue().splitlines()[0])
    # what the person sees is the same for every match, so it tells nothing of the deal
    assert titles == {"standard · game 1 of 1"}
    assert heads == {"Tiến Lên, standard rules, 4 players. Type help for commands."}
    assert len(deals) == 1000
    # the seed is kept for the record: 128 secret bits, not a number one could try out
    assert isinstance(ctl.seed, str) and len(ctl.seed) == 32
    assert ctl.records()[0].seed == f"{ctl.seed}/game1"


def test_a_seeded_match_says_so() -> None:
    ctl = MatchController(SETTINGS)
    assert ctl.title().endswith("seed 7")
    again = MatchController(SETTINGS)
    assert again.game.setup.hands == ctl.game.setup.hands


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["arena", "--bots", "ismcts,greedy,greedy,greedy", "--budget-ms", "nan"], "finite"),
        (["arena", "--bots", "greedy,greedy,greedy,greedy", "--budget-ms", "inf"], "finite"),
        (["arena", "--bots", "greedy,greedy,greedy,greedy", "--jobs", "0"], "at least 1"),
        (["arena", "--bots", "greedy,greedy,greedy,greedy", "--games", "-3"], "at least 1"),
        (["arena", "--bots", "greedy,greedy,greedy,greedy", "--bot-timeout", "nan"], "finite"),
        (["play", "--plain", "--delay", "nan"], "0 to 60 seconds"),
    ],
)
def test_bad_numbers_are_refused_with_a_clear_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_no_budget_or_bot_takes_a_nan_time() -> None:
    from tienlen.players.base import Budget
    from tienlen.players.bots.ismcts import IsmctsBot

    for seconds in (float("nan"), float("inf"), -1.0):
        with pytest.raises(ValueError, match="finite number of seconds"):
            Budget(seconds=seconds)
        with pytest.raises(ValueError, match="finite number of seconds"):
            IsmctsBot(seconds=seconds)
    with pytest.raises(ValueError, match="at least 1"):
        Budget(iterations=0)
    with pytest.raises(ValueError, match="delay must be 0 seconds or more, not nan"):
        dataclasses.replace(SETTINGS, delay=float("nan"))


def test_an_arena_without_a_seed_draws_one_and_reports_it() -> None:
    from tienlen.players.arena import run_arena

    rules = Rules.preset("standard")
    first = run_arena(rules, ["greedy", "random", "greedy", "random"], games=4)
    second = run_arena(rules, ["greedy", "random", "greedy", "random"], games=4)
    assert first.seed != second.seed and first.to_dict()["seed"] == first.seed
    again = run_arena(rules, ["greedy", "random", "greedy", "random"], games=4, seed=first.seed)
    assert again.outcomes == first.outcomes
