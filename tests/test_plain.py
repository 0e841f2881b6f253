"""``tienlen play --plain``: whole games piped in as lines of card notation.

The input of each test is made by playing the same seeded match on a controller first:
at each of the person's turns one legal move is chosen and written as the line a person
would type (``3s 4s 5d`` or ``pass``). Fed to the plain game, those lines must replay the
very same match, whatever illegal or helper lines are mixed in.
"""

from __future__ import annotations

import dataclasses
import io
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from tienlen import PASS, Gift, Rules, format_move
from tienlen.apps.controller import MatchController, MatchSetup
from tienlen.apps.plain import play_plain

STANDARD = Rules.preset("standard")


def make_settings(**changes: object) -> MatchSetup:
    base = MatchSetup(rules=STANDARD, bots=("random", "greedy", "heuristic"), games=1, seed=7)
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def scripted_lines(
    settings: MatchSetup, *, choice_seed: int = 0
) -> tuple[list[str], MatchController]:
    """Play ``settings``'s match, choosing moves at random; return the typed lines and the
    finished controller."""
    rng = random.Random(choice_seed)
    ctl = MatchController(settings)
    lines: list[str] = []
    while not ctl.match_over:
        if ctl.game_over:
            ctl.next_game()
        elif ctl.bot_to_act:
            ctl.step_bot()
        else:
            legal = ctl.legal_moves()
            plays = [m for m in legal if m.mask]
            move = (
                PASS if not plays or (PASS in legal and rng.random() < 0.25) else rng.choice(plays)
            )
            text = format_move(move, ascii=True)
            lines.append(text)
            assert ctl.play_text(text), ctl.note
    return lines, ctl


def run_plain(settings: MatchSetup, lines: list[str], **kwargs: Any) -> tuple[int, str]:
    out = io.StringIO()
    status = play_plain(
        settings, stdin=io.StringIO("".join(f"{x}\n" for x in lines)), stdout=out, **kwargs
    )
    return status, out.getvalue()


def standings_lines(ctl: MatchController) -> list[str]:
    return [
        f"  {rank}. {ctl.label(seat)}: {points:+d} points, "
        f"{sum(1 for r in ctl.match.results if r.winner == seat)} won"
        for rank, (seat, points) in enumerate(ctl.match.standings(), start=1)
    ]


def test_a_whole_game_piped_through_a_real_pipe() -> None:
    settings = make_settings()
    lines, ctl = scripted_lines(settings)
    assert len(lines) >= 5
    cmd = [sys.executable, "-m", "tienlen.apps.cli", "play", "--plain", "--seed", "7"]
    cmd += ["--bots", "random,greedy,heuristic", "--games", "1"]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        cmd,
        input="".join(f"{x}\n" for x in lines),
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.count("\n> ") == len(lines)  # one prompt per line typed, none left over
    assert "Not allowed" not in out
    assert "End of input" not in out
    assert "Game 1 over. Finishing order:" in out
    assert "Match over after 1 game." in out
    assert out.rstrip().splitlines()[-len(ctl.match.standings()) :] == standings_lines(ctl)


def test_illegal_and_helper_lines_are_answered_and_change_nothing() -> None:
    settings = make_settings(seed=21)
    lines, ctl = scripted_lines(settings, choice_seed=3)
    noisy = ["help", "moves", "hint", "2z", "", "3s 3s"]
    # Before the first real line: each is answered, then the same match goes on.
    status, out = run_plain(settings, noisy + lines)
    assert status == 0
    assert "Type the cards to play in notation" in out
    assert "Legal: " in out
    assert "Hint: " in out
    assert "Not allowed: unknown suit in '2z'" in out
    assert "Type the cards to play, or pass" in out
    assert out.count("Not allowed: ") == 2
    assert out.rstrip().splitlines()[-4:] == standings_lines(ctl)


def test_an_illegal_move_is_explained_with_the_engines_reason() -> None:
    # Find a seeded game whose first move is the person's, holding 3♠: then passing and
    # leading without the 3♠ are both illegal, with the engine's own words.
    for seed in range(1, 200):
        settings = make_settings(seed=seed)
        ctl = MatchController(settings)
        if ctl.human_to_act and ctl.game.first_lead_rule is not None:
            break
    else:
        raise AssertionError("no seed deals the 3♠ to the person")
    other = next(c for c in ctl.hand if c.ascii() != "3s")
    expected_pass = ctl.game.why_illegal("pass")
    expected_card = ctl.game.why_illegal(other.ascii())
    assert expected_pass and expected_card
    status, out = run_plain(settings, ["pass", other.ascii()])
    assert status == 0
    assert f"Not allowed: {expected_pass}" in out
    assert f"Not allowed: {expected_card}" in out
    assert "End of input: the game stops here." in out


def test_a_match_with_exchanges_and_several_games() -> None:
    # pang with the San Jose exchange: from game 2 on, the losers give cards back.
    rules = dataclasses.replace(Rules.preset("pang"), trading="san-jose")
    settings = make_settings(rules=rules, bots=("greedy", "random", "random"), games=3, seed=5)
    lines, ctl = scripted_lines(settings, choice_seed=1)
    assert any(isinstance(a, Gift) for g in ctl.finished for a in g.history) or any(
        isinstance(a, Gift) for a in ctl.game.history
    )
    status, out = run_plain(settings, lines, ascii=True)
    assert status == 0
    assert "Game 3 over" in out
    assert "♠" not in out and "♥" not in out  # --ascii
    assert out.rstrip().splitlines()[-4:] == standings_lines(ctl)


def test_end_of_input_and_quit_stop_cleanly() -> None:
    settings = make_settings()
    status, out = run_plain(settings, [])
    assert status == 0
    assert out.rstrip().endswith("End of input: the game stops here.")
    status, out = run_plain(settings, ["quit", "3s"])
    assert status == 0
    assert out.rstrip().endswith("Goodbye.")


def test_resume_a_saved_match_in_plain_mode(tmp_path: Path) -> None:
    # Deterministic bots: a resumed match has fresh bots, so random ones would differ.
    settings = make_settings(bots=("greedy", "heuristic", "greedy"), games=2, seed=13)
    lines, ctl = scripted_lines(settings)
    # Save the same match after the first three lines, then finish it in plain mode.
    half = MatchController(settings)
    fed = 0
    while fed < 3:
        if half.bot_to_act:
            half.step_bot()
        else:
            assert half.play_text(lines[fed])
            fed += 1
    path = half.save(tmp_path / "m.json")
    cmd = [sys.executable, "-m", "tienlen.apps.cli", "play", "--plain", "--resume", str(path)]
    proc = subprocess.run(
        cmd,
        input="".join(f"{x}\n" for x in lines[3:]),
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().splitlines()[-4:] == standings_lines(ctl)


def test_play_options_build_the_settings() -> None:
    from tienlen.apps.cli import build_parser
    from tienlen.apps.cmd_play import settings_from_args

    def parse(*argv: str) -> MatchSetup:
        return settings_from_args(build_parser().parse_args(["play", *argv]))  # type: ignore[no-any-return]

    s = parse("--players", "6", "--bots", "greedy", "--seed", "12", "--fast")
    assert (s.rules.players, s.rules.decks) == (6, 2)  # more than 52 cards: two decks
    assert s.bots == ("greedy",) * 5 and s.seed == 12 and s.delay == 0 and s.games == 5
    s = parse("--rules", "pagat", "--players", "3", "--bots", "random,expert", "--target", "10")
    assert s.rules.name == "pagat" and s.bots == ("random", "expert")  # a bot or a level
    assert parse().bots == ("easy",) * 3
    assert (s.games, s.target) == (None, 10)
    s = parse("--option", "anticlockwise", "--option", "cong", "--seed", "abc")
    assert s.rules.direction == "anticlockwise" and s.rules.cong and s.seed == "abc"
    s = parse("--rules", "pike.pass-locks.players-3", "--option", "cong")
    assert s.rules == Rules.preset("pike", pass_locks=True, players=3, cong=True)


def test_play_option_errors_are_clear(capsys: object) -> None:
    from tienlen.apps.cli import main

    assert main(["play", "--plain", "--bots", "random,greedy"]) == 2
    assert main(["play", "--plain", "--players", "9"]) == 2
    assert main(["play", "--plain", "--bots", "nobody"]) == 2
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert "--bots lists 2 bots but 4 players need 3" in err
    assert "rules.players: must be from 2 to 8, not 9" in err
    assert "unknown level 'nobody'; choose a level (beginner, easy" in err


def test_hidden_card_counts_show_as_a_question_mark_until_asked() -> None:
    # 004: "When requested, a player must reveal the number of cards in his or her hand."
    settings = make_settings(rules=Rules.preset("standard", hidden_counts=True), seed=5)
    lines, _ = scripted_lines(settings)
    first = MatchController(settings)
    while first.bot_to_act:
        first.step_bot()
    count = first.game.cards_left(2)
    name = first.names[2]
    status, out = run_plain(settings, ["ask 2", "ask 9", "ask", *lines])
    assert status == 0
    tables = out.split("== ")
    assert f"{name} (greedy): ? cards (ask 2)" in tables[1]
    assert f"You asked: {name} holds {count} cards" in out
    # The answer shows at the table until that seat plays again.
    assert f"{name} (greedy): {count} cards" in tables[2]
    assert out.count("Not allowed: write ask and a seat: 1 (") == 2
    # Under rules that show every count there is nothing to ask.
    _, shown = run_plain(
        make_settings(seed=5), ["ask 2", *scripted_lines(make_settings(seed=5))[0]]
    )
    assert "Not allowed: card counts are shown under these rules" in shown
    assert "? cards" not in shown
    # The ask, by seat number or name, is part of the game's record and replays.
    assert first.ask_text("ask minh") and first.game.asks[-1][:3] == (0, 2, count)
    record = first.records()[-1]
    assert record.actions[-1].words() == "S0 asks 2"
    assert record.game().asks == first.game.asks


def test_a_void_deal_of_four_twos_is_logged() -> None:
    # 004: "the player with that four 2s will no long be a winner. He would like to tell
    # another players and they will have the game restarted."
    rules = Rules.preset("standard", redeal_four_twos=True)
    ctl = MatchController(make_settings(rules=rules, seed=187))
    assert ctl.game.redeals == 1 and ctl.game.instant_win is None
    assert ctl.log[0] == "Four 2s were dealt: the cards were dealt again (once)"
    record = ctl.records()[0]
    assert record.game().hand_masks == ctl.game.hand_masks  # the record keeps the new deal
