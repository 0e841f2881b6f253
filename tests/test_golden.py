"""Golden transcripts: one seeded whole game per preset, compared line by line.

The deal comes from a fixed seed and a deterministic policy picks each move (passing now
and then, otherwise a random legal play; the legal moves are sorted first, so only the
rules, never the order the engine lists moves in, decide the transcript). A change in any
rule's behaviour shows up as a changed line. After an intended change, regenerate with
``pytest tests/test_golden.py --update-golden`` and read the diff before committing it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tienlen import PASS, RULESETS, Game, Move, Rules
from tienlen.cards import format_cards

GOLDEN = Path(__file__).parent / "golden"
PASS_CHANCE = 0.25


def transcript(preset: str) -> list[str]:
    """The lines of ``preset``'s golden game."""
    seed = f"golden/{preset}"
    rules = Rules.preset(preset)
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    lines = [
        f"# tienlen golden transcript: rules {preset}, deal seed {seed!r}",
        "# policy: pass with chance 1/4 when allowed, else a random legal play",
    ]
    for seat, hand in enumerate(game.dealt):
        lines.append(f"# dealt S{seat}: {format_cards(hand)}")
    if game.instant_win:
        seat, name = game.instant_win
        lines.append(f"# instant win: S{seat} ({name})")
    for _ in range(2_000):
        if game.is_over:
            break
        legal = sorted(game.legal_plays(), key=lambda m: m.mask)
        plays = [m for m in legal if not m.is_pass]
        if PASS in legal and (not plays or rng.random() < PASS_CHANCE):
            move = PASS
        else:
            move = rng.choice(plays)
        lines.append(_line(game, move))
        game.play(move)
    assert game.is_over, f"{preset}: golden game did not end"
    order = " ".join(f"S{s}" for s in game.finish_order)
    lines.append(f"# over: finish order {order}")
    return lines


def _line(game: Game, move: Move) -> str:
    seat = game.turn
    if move.is_pass:
        return f"S{seat} pass"
    top = game.top
    if top is None:
        verb = "lead"
    elif (top.move.kind, top.move.size) != (move.kind, move.size):
        verb = "chop"
    else:
        verb = "play"
    return f"S{seat} {verb} {format_cards(move.cards)} | {move.kind}"


@pytest.mark.parametrize("preset", RULESETS)
def test_golden_transcript(preset: str, update_golden: bool) -> None:
    path = GOLDEN / f"{preset}.txt"
    lines = transcript(preset)
    if update_golden:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return
    assert path.is_file(), f"no golden transcript {path}; run pytest --update-golden"
    expected = path.read_text(encoding="utf-8").splitlines()
    for n, (want, got) in enumerate(zip(expected, lines, strict=False), 1):
        assert got == want, f"{path.name} line {n}:\n  golden: {want}\n  now:    {got}"
    assert len(lines) == len(expected), f"{path.name}: {len(expected)} lines, now {len(lines)}"


def test_transcripts_are_reproducible() -> None:
    """The same seed and policy give the same game (the golden files rely on it)."""
    assert transcript("standard") == transcript("standard")


def test_transcripts_differ_between_rule_sets() -> None:
    """Each preset's golden game is its own (not one game relabelled twelve times)."""
    bodies = {tuple(line for line in transcript(p) if not line.startswith("#")) for p in RULESETS}
    assert len(bodies) == len(RULESETS)
