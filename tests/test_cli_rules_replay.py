"""``tienlen rules`` and ``tienlen replay``, and the plain-words rules they print."""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
from pathlib import Path

import pytest

from tienlen import RULESETS, Game, Rules
from tienlen.apps.cli import build_parser, main
from tienlen.describe import PHRASES, SUMMARIES, describe_pattern, describe_rules
from tienlen.record import format_text, to_json
from tienlen.rules import KNOBS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


# --- tienlen rules ------------------------------------------------------------------
def test_rules_lists_every_preset_with_its_summary(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "rules")
    assert rc == 0
    for name in RULESETS:
        assert any(
            line.startswith(name + " ") and SUMMARIES[name] in line for line in out.splitlines()
        )


def test_rules_name_explains_one_set(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "rules", "pike")
    assert rc == 0
    assert "Exactly four hands of 13 are dealt" in out
    assert "Passing does not lock you out" in out
    assert "A single 2 may be chopped by a run of exactly 3 pairs." in out


def test_rules_players_option(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "rules", "lu", "--players", "3")
    assert "Each player is dealt 17 cards." in out
    assert "The one card left over goes to the player who leads first." in out


def test_rules_for_more_than_four_players_use_two_decks(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "rules", "standard", "--players", "6")
    assert "6 players, two 52-card decks" in out


def test_rules_json_is_the_knobs(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "rules", "proplay", "--json")
    assert rc == 0
    assert Rules.from_dict(json.loads(out)) == Rules.preset("proplay")
    _, out, _ = run(capsys, "rules", "--json")
    assert set(json.loads(out)) == set(RULESETS)


def test_rules_unknown_name_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(capsys, "rules", "poker")
    assert rc == 2
    assert "unknown rule set 'poker'" in err


def test_rules_code_explains_a_house_game(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "rules", "pike.pass-locks.cong")
    assert rc == 0
    assert "Passing locks you out of the pile until a new one starts." in out
    assert "Cóng: a player who has not played a card when someone goes out pays double." in out
    assert out.rstrip().endswith("Rules code: pike.pass-locks.cong")
    rc, out, _ = run(capsys, "rules", "standard.direction-anticlockwise", "--json")
    assert json.loads(out)["direction"] == "anticlockwise"


def test_rules_bad_code_names_the_part(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(capsys, "rules", "standard.cong.players-eight")
    assert rc == 2
    assert "cannot read part 'players-eight': players must be a whole number" in err


def test_rules_diff_standard_pagat(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "rules", "diff", "standard", "pagat")
    assert rc == 0
    assert out.splitlines() == [
        "standard → pagat: 3 rules differ",
        "- twos_in_straight: …of any suits; 2s may not be in a straight. Runs never wrap… → "
        "…of any suits; a 2 may be its top card (K-A-2). Runs never wrap…",
        "- twos_in_pair_run: …3 consecutive pairs; it may not hold 2s. → "
        "…3 consecutive pairs; 2s may be its top pair.",
        "- scoring: Scoring (scorepad): +2 +1 −1 −2 by finishing place with four players; with "
        "two or three the last pays 1 to each. → Scoring (stake): the loser pays one point to "
        "every other player.",
    ]


def test_rules_diff_pagat_pang(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "rules", "diff", "pagat", "pang")
    lines = out.splitlines()
    assert lines[0] == "pagat → pang: 4 rules differ"
    assert [line.split(":")[0] for line in lines[1:]] == [
        "- first_lead",
        "- twos_in_straight",
        "- twos_in_pair_run",
        "- stacking",
    ]
    assert lines[1].endswith(
        "→ The holder of the lowest card dealt (the 3♠ when it is dealt) "
        "leads a play containing it, or may decline: then the next player "
        "leads anything."
    )
    assert lines[4].startswith("- stacking: (no such rule) → Stacking: when everyone else has")


def test_rules_diff_hawaii_akita_and_a_code(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "rules", "diff", "hawaii", "akita")
    lines = out.splitlines()
    assert lines[0] == "hawaii → akita: 9 rules differ"
    assert (
        "- pass_locks: Passing locks you out of the pile until a new one starts. No bombing "
        "after passing: a passed player waits for the next pile. → Passing does not lock you "
        "out: you may play again on the same pile." in lines
    )
    assert "- triple_beats_ace: (no such rule) → Any triple may be played on a single ace." in lines
    # A knob with nothing to say under these rules is shown by its values.
    _, out, _ = run(capsys, "rules", "diff", "standard", "standard.tie-rule-later-wins.cong")
    assert out.splitlines()[1:] == [
        "- tie_rule: Two identical cards (two decks): forbid → later-wins",
        "- cong: (no such rule) → Cóng: a player who has not played a card when someone goes "
        "out pays double.",
    ]


def test_rules_diff_words_a_knob_by_its_description_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The knob's words come from the catalogue entry its schema names, nowhere else.
    key = next(k for k in KNOBS if k.name == "tie_rule").description
    monkeypatch.setitem(PHRASES, key, {"en": "Twin cards", "vi": "Hai lá giống hệt"})
    _, out, _ = run(capsys, "rules", "diff", "standard", "standard.tie-rule-red-beats-blue")
    assert out.splitlines()[1:] == ["- tie_rule: Twin cards: forbid → red-beats-blue"]


def test_rules_diff_names_004s_house_rules_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    # 004's table settles chop debts, the loser's 2s and score-pad extras before the deal.
    house = (
        "standard.opening-bombs-pair-run3.score-extras-chop-twos.score-extras-three-spades-last"
        ".loser-owes-twos.chop-debts-doubling.debt-card-highest-card"
    )
    rc, out, _ = run(capsys, "rules", "diff", "standard", house)
    assert rc == 0
    lines = out.splitlines()
    assert lines[0] == f"standard → {house}: 5 rules differ"
    assert [line.split(":")[0] for line in lines[1:]] == [
        "- opening_bombs",
        "- score_extras",
        "- loser_owes_twos",
        "- chop_debts",
        "- debt_card",
    ]
    assert lines[1] == (
        "- opening_bombs: (no such rule) → Before the first lead of every game, each other "
        "player in turn may open out of turn with a run of exactly 3 pairs, without the lowest "
        "card; play then goes on from them."
    )
    assert lines[2].startswith(
        "- score_extras: (no such rule) → Chopping a 2 is paid at once by the chopped player: "
        "2 points for a black 2 and 3 for a red 2 chopped with a run of pairs"
    )
    assert lines[2].endswith(
        "A winner whose last play holds the 3♠ receives 2 more points from every other player."
    )
    assert lines[3].startswith(
        "- loser_owes_twos: (no such rule) → The loser owes the winner one card for each 2 "
        "still in hand at the end, given at the next deal."
    )
    assert lines[4].startswith(
        "- chop_debts: (no such rule) → Chop debts: the last player chopped in a game owes the "
        "player who chopped them one card, doubled for each 2 beyond the first and for each "
        "bomb played on a bomb above it, given at the next deal."
    )
    assert lines[5] == (
        "- debt_card: …with their highest 2s (a debtor without a 2 gives nothing); the receiver "
        "gives… → …with their highest cards; the receiver gives…"
    )
    # The other way round, every rule goes back to none.
    _, back, _ = run(capsys, "rules", "diff", house, "standard")
    assert back.splitlines()[0] == f"{house} → standard: 5 rules differ"
    assert "- loser_owes_twos: The loser owes the winner" in back
    assert back.splitlines()[3].endswith("→ (no such rule)")


def test_rules_diff_of_equal_rules_and_bad_use(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "rules", "diff", "pang", "pang")
    assert (rc, out) == (0, "pang and pang are the same rules.\n")
    rc, _, err = run(capsys, "rules", "diff", "pang")
    assert rc == 2 and "tienlen rules diff A B" in err


def subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]  # type: ignore[no-any-return]


@pytest.mark.parametrize("command", ["rules", "replay"])
def test_every_option_has_help(command: str) -> None:
    p = subparser(command)
    assert p.description
    for action in p._actions:
        assert action.help, f"{command}: {action.dest} has no help text"


# --- describe: written from the knobs ------------------------------------------------
def test_one_summary_per_preset_in_order() -> None:
    assert tuple(SUMMARIES) == RULESETS


@pytest.mark.parametrize("name", RULESETS)
def test_every_preset_is_described(name: str) -> None:
    text = describe_rules(Rules.preset(name))
    assert text.startswith(f"{name}: {SUMMARIES[name]}")
    for heading in (
        "Deal",
        "Who starts",
        "Combinations",
        "Bombs (chopping)",
        "End of the game and scoring",
    ):
        assert f"\n{heading}\n" in text


def test_description_follows_the_knobs_not_the_name() -> None:
    standard = Rules.preset("standard")
    house = dataclasses.replace(standard, pass_locks=False, cong=True, stacking=True)
    text = describe_rules(house)
    assert "Passing does not lock you out" in text
    assert "Cóng" in text and "Stacking" in text
    assert "Passing does not lock you out" not in describe_rules(standard)
    # A preset's knobs under another name read the same, title aside.
    renamed = dataclasses.replace(Rules.preset("akita"), name="my-house")
    assert (
        describe_rules(renamed).split("\n", 1)[1]
        == describe_rules(Rules.preset("akita")).split("\n", 1)[1]
    )


def test_a_changed_preset_is_not_titled_with_the_presets_summary() -> None:
    pagat = Rules.preset("pagat")
    assert describe_rules(pagat).startswith(f"pagat: {SUMMARIES['pagat']}\n")
    changed = dataclasses.replace(pagat, after_pass_bombs=())
    text = describe_rules(changed)
    assert text.startswith("pagat (changed from the preset)\n")
    assert "bombs allowed after passing" not in text
    assert "No bombing after passing" in text


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        ("single@2", "a single 2"),
        ("pair@2", "a pair of 2s"),
        ("triple@2", "three 2s"),
        ("quad", "a four of a kind"),
        ("pair_run3", "a run of exactly 3 pairs"),
        ("pair_run4+", "a run of 4 or more pairs"),
        ("triple_run4@2", "a run of exactly 4 triples topped by 2s"),
        ("quad_run2", "exactly 2 consecutive quads"),
        ("multi_quad3", "exactly 3 quads played together"),
        ("straight@2", "a straight ending in a 2"),
        ("*", "any play"),
    ],
)
def test_patterns_in_words(pattern: str, words: str) -> None:
    assert describe_pattern(pattern) == words


# --- tienlen replay ---------------------------------------------------------------------
def finished_game() -> Game:
    game = Game("standard", hands=["3s 9d", "2h", "4d 5d", "Ks"])
    for move in ("3s", "2h", "pass", "pass", "pass", "4d", "Ks", "pass", "pass", "9d"):
        game.play(move)
    return game


@pytest.mark.parametrize("form", ["json", "text"])
def test_replay_prints_every_move_and_the_result(
    form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = finished_game()
    path = tmp_path / f"game.{form}"
    names = ["Anna", "Ben", "Carla", "Dan"]
    path.write_text(
        to_json(game, names=names) if form == "json" else format_text(game, names=names),
        encoding="utf-8",
    )
    rc, out, _ = run(capsys, "replay", str(path))
    assert rc == 0
    assert "  Anna (S0): 3♠ 9♦" in out
    assert "   1. Anna (S0) plays 3♠" in out
    assert "        Anna (S0) holds 9♦" in out
    assert "   2. Ben (S1) plays 2♥" in out
    assert "Ben (S1) is out, place 1" in out
    assert "-- Carla (S2) leads a fresh pile --" in out
    assert "Result: 1. Ben (S1), 2. Dan (S3), 3. Anna (S0), 4. Carla (S2)" in out
    assert "Scores: Anna (S0) -1, Ben (S1) +2, Carla (S2) -2, Dan (S3) +1" in out


def test_replay_shows_the_card_counts_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 004: "When requested, a player must reveal the number of cards in his or her hand."
    rules = Rules.preset("standard", hidden_counts=True)
    game = Game(rules, hands=["3s 9d", "2h 5c", "4d 5d", "Ks"])
    game.play("3s")
    game.ask_count(3, 0)
    game.play("2h")
    path = tmp_path / "g.txt"
    path.write_text(format_text(game), encoding="utf-8")
    assert "1. S0 3♠  S3 asks 0  S1 2♥" in path.read_text(encoding="utf-8")
    _, out, _ = run(capsys, "replay", str(path))
    assert "   2. S3 asks S0: 1 card" in out
    assert "1 cards" not in out
    assert "   3. S1 plays 2♥" in out


def test_replay_ascii_and_no_hands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.txt"
    path.write_text(format_text(finished_game()), encoding="utf-8")
    _, out, _ = run(capsys, "replay", "--ascii", "--no-hands", str(path))
    assert "   1. S0 plays 3s" in out
    assert " holds " not in out


def test_replay_step_waits_for_enter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "g.json"
    path.write_text(to_json(finished_game()), encoding="utf-8")
    prompts: list[str] = []

    def answer(prompt: str = "") -> str:
        prompts.append(prompt)
        return ""

    monkeypatch.setattr("builtins.input", answer)
    rc, _, _ = run(capsys, "replay", "--step", str(path))
    assert rc == 0
    assert len(prompts) == 9  # after every action but the last


def test_replay_of_a_bad_record_names_the_action(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(to_json(finished_game()))
    data["actions"][1]["play"] = "4d"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    rc, _, err = run(capsys, "replay", str(path))
    assert rc == 2
    assert "action 2 (S1 4♦): you do not hold 4♦" in err


def test_replay_of_a_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, _, err = run(capsys, "replay", str(tmp_path / "none.json"))
    assert rc == 2 and "No such file" in err


def test_replay_of_a_random_game_of_every_preset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in RULESETS:
        rng = random.Random(name)
        game = Game(name, seed=name)
        while not game.is_over:
            game.apply_unchecked(rng.choice(game.legal_moves()))
        path = tmp_path / f"{name}.txt"
        path.write_text(format_text(game), encoding="utf-8")
        rc, out, _ = run(capsys, "replay", str(path))
        assert rc == 0
        assert f"{len(game.history):4}. " in out
        assert "Scores: " in out


def test_replay_of_a_saved_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tienlen import Match, record_of
    from tienlen.match_record import MatchRecord
    from tienlen.record import GameRecord

    match = Match("standard", games=2, seed=3)
    rng = random.Random(3)
    records = []
    while True:
        while not match.game.is_over:
            match.game.apply_unchecked(rng.choice(match.game.legal_moves()))
        records.append(record_of(match.game, seed=match.game_seed))
        if match.is_over:
            break
        match.new_game()

    def saved() -> str:
        return MatchRecord(
            rules=match.rules,
            bots=("random",) * 3,
            games=2,
            target=None,
            seed=3,
            scores=match.scores,
            records=tuple(GameRecord.from_dict(r) for r in records),
        ).to_json()

    path = tmp_path / "match.json"
    path.write_text(saved(), encoding="utf-8")
    rc, out, _ = run(capsys, "replay", "--no-hands", str(path))
    assert rc == 0
    assert "=== Game 1 of 2 ===" in out and "=== Game 2 of 2 ===" in out
    assert out.count("Scores: ") == 2
    records[1]["actions"][0]["seat"] = (records[1]["actions"][0]["seat"] + 1) % 4
    path.write_text(saved(), encoding="utf-8")
    rc, _, err = run(capsys, "replay", str(path))
    assert rc == 2 and f"{path}: game 2: action 1 " in err


def test_replay_tui_needs_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    from tienlen.apps.cli import main

    assert main(["replay", "--tui", "-"]) == 2
    assert "--tui needs a file name" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["arena", "--games", "x"], "argument --games: not a whole number: 'x'"),
        (["arena", "--jobs", "0"], "argument --jobs: must be at least 1, not 0"),
        (["train", "--workers", "0"], "argument --workers: must be at least 1, not 0"),
        (["train", "--steps", "1.5"], "argument --steps: not a whole number: '1.5'"),
    ],
)
def test_counts_on_the_command_line_are_whole_and_positive(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    assert words in capsys.readouterr().err
