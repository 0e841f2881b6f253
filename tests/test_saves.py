"""Saved matches: written atomically (a write that fails part-way leaves the previous save
whole), keeping what the program does not understand, and refused when they are from
other rules than the ones asked for."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tienlen import Gift, Give, Rules, format_move
from tienlen.apps.cli import main
from tienlen.apps.controller import MatchController, MatchSetup

SETTINGS = MatchSetup(rules=Rules.preset("standard"), bots=("greedy",) * 3, games=3, seed=11)


def played(settings: MatchSetup = SETTINGS, moves: int = 6) -> MatchController:
    """A match ``moves`` decisions of the person's in (its highest legal move each time)."""
    ctl = MatchController(settings)
    for _ in range(moves):
        while not ctl.human_to_act:
            if ctl.game_over:
                ctl.next_game()
            else:
                ctl.step_bot()
        assert ctl.play_text(format_move(ctl.legal_moves()[-1], ascii=True))
    return ctl


def test_a_write_cut_short_leaves_the_previous_save_whole(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    played(moves=2).save(path)
    before = path.read_bytes()
    assert len(before) > 2048
    # A longer match, saved where files may not grow past 2,048 bytes (like a full disk).
    child = textwrap.dedent(f"""
        import resource, signal, sys
        sys.path[:0] = {sys.path!r}
        from tests.test_saves import played
        ctl = played(moves=8)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
        try:
            ctl.save({str(path)!r})
        except OSError as e:
            print("failed:", e.strerror)
    """)
    proc = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, timeout=120
    )
    assert "failed: File too large" in proc.stdout, proc.stderr
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.json"]  # no temporary left
    MatchController.load(path)  # and it still resumes


def test_a_resave_keeps_extension_fields_and_recorded_names(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    played().save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["x-written-by"] = "a later version"
    data["games"][0]["x-comment"] = "a fine game"
    data["games"][0]["names"] = ["Ana", "Bảo", "Chi", "Dũng"]
    path.write_text(json.dumps(data), encoding="utf-8")

    ctl = MatchController.load(path)
    assert ctl.names == ("Ana", "Bảo", "Chi", "Dũng")
    while not ctl.human_to_act:
        ctl.step_bot()
    assert ctl.play_text(format_move(ctl.legal_moves()[-1], ascii=True))
    ctl.save(path)
    again = json.loads(path.read_text(encoding="utf-8"))
    assert again["x-written-by"] == "a later version"
    assert again["games"][0]["x-comment"] == "a fine game"
    assert again["games"][0]["names"] == ["Ana", "Bảo", "Chi", "Dũng"]
    assert len(again["games"][0]["actions"]) > len(data["games"][0]["actions"])


def test_recorded_names_are_shown_escaped(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    played().save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["games"][0]["names"] = ["Ana", "B\x1b]0;x\x07", "Chi", "Dũng"]
    path.write_text(json.dumps(data), encoding="utf-8")
    ctl = MatchController.load(path)
    assert ctl.names[1] == "B\\x1b]0;x\\x07"
    ctl.save(path)
    assert json.loads(path.read_text(encoding="utf-8"))["games"][0]["names"][1] == "B\x1b]0;x\x07"


def test_an_unseeded_match_stays_unseeded_when_resumed(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    ctl = played(dataclasses.replace(SETTINGS, seed=None))
    ctl.save(path)
    resumed = MatchController.load(path)
    assert not resumed.seeded and "seed" not in resumed.title()
    assert resumed.game.setup.hands == ctl.game.setup.hands


def test_a_game_recorded_under_other_rules_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    played().save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["games"][0]["rules"] = Rules.preset("pagat").to_dict()
    data["games"][0].pop("rules_code", None)  # the rules alone say pagat
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"match.games\[0\].rules: differ from the match's"):
        MatchController.load(path)


def test_resuming_under_other_rules_needs_switch_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "match.json"
    played().save(path)
    before = path.read_bytes()
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(""))
    assert main(["play", "--plain", "--resume", str(path), "--rules", "pagat"]) == 2
    err = capsys.readouterr().err
    assert "is a match under other rules (standard, 4 players)" in err
    assert "--switch-rules" in err
    assert path.read_bytes() == before
    assert (
        main(["play", "--plain", "--resume", str(path), "--rules", "pagat", "--switch-rules"]) == 0
    )
    assert "standard rules" in capsys.readouterr().out
    assert main(["play", "--plain", "--resume", str(path)]) == 0


def test_card_counts_asked_are_saved_and_resumed(tmp_path: Path) -> None:
    # 004: "When requested, a player must reveal the number of cards in his or her hand."
    rules = Rules.preset("standard", hidden_counts=True)
    ctl = MatchController(MatchSetup(rules=rules, bots=("random", "greedy", "heuristic"), seed=5))
    while ctl.bot_to_act:
        ctl.step_bot()
    assert ctl.view().seats[1].cards is None
    assert ctl.ask_text("ask 1")
    path = ctl.save(tmp_path / "match.json")
    resumed = MatchController.load(path)
    assert resumed.game.asks == ctl.game.asks and len(resumed.game.asks) == 1
    assert resumed.view().seats[1].cards == ctl.view().seats[1].cards == ctl.game.cards_left(1)
    assert resumed.log[-1] == f"You asked: Lan holds {ctl.game.cards_left(1)} cards"


@pytest.mark.parametrize("name", ["san-jose-match.json", "card-debts-match.json"])
def test_saves_with_gives_written_before_give_was_its_own_type_still_load(
    name: str, tmp_path: Path
) -> None:
    # Written by the engine of f45e18d, when a give was a Move of kind "give": the format
    # did not change, so they load, replay to the same scores and save back the same.
    path = Path(__file__).parent / "fixtures" / "saved" / name
    ctl = MatchController.load(path, delay=0)
    gifts = [a for g in [*ctl.finished, ctl.game] for a in g.history if isinstance(a, Gift)]
    assert gifts and all(isinstance(a.give, Give) for a in gifts)
    assert ctl.match_record().to_dict() == json.loads(path.read_text(encoding="utf-8"))
    ctl.save(tmp_path / name)
    assert json.loads((tmp_path / name).read_text(encoding="utf-8")) == json.loads(
        path.read_text(encoding="utf-8")
    )
