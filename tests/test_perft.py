"""Perft counts (tests/perft/<preset>.txt): the sizes of whole move trees from fixed
positions, recounted by the engine, and at small depth by the brute-force reference.

A change in move generation or turn order changes a count. The files are written by
``bench/perft.py --write``; rewrite them only for a rule change meant to change them.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

from quick import presets
from reference import RefTable
from tienlen import RULESETS, Game, Rules
from tienlen.position import parse_position

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from perft import perft  # noqa: E402

FILES = ROOT / "tests" / "perft"


def entries(name: str) -> list[tuple[str, list[int]]]:
    out = []
    for line in (FILES / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        position, _, counts = line.partition(" | ")
        out.append((position, [int(c) for c in counts.split()]))
    return out


def test_every_preset_has_a_count_file() -> None:
    assert {p.stem for p in FILES.glob("*.txt")} == set(RULESETS)
    for name in RULESETS:
        assert len(entries(name)) >= 3, name


@pytest.mark.parametrize("name", presets(sorted(RULESETS)))
def test_the_engine_recounts_the_trees(name: str) -> None:
    rules = Rules.preset(name)
    for position, counts in entries(name):
        game = Game.from_position(position, rules=rules)
        got = [perft(game, d) for d in range(1, len(counts) + 1)]
        assert got == counts, position


def ref_perft(ref: RefTable, depth: int) -> int:
    if depth == 0 or ref.over:
        return 1
    total = 0
    for move in ref.legal():
        child = copy.deepcopy(ref)
        child.apply(move)
        total += ref_perft(child, depth - 1)
    return total


@pytest.mark.parametrize("name", presets(sorted(RULESETS)))
def test_the_brute_force_reference_recounts_the_starts(name: str) -> None:
    """The positions at the start of play (no card played yet) are rebuilt by the reference
    from the hands alone, and their trees recounted to depth 3 (hands of 5 cards) or 1."""
    rules = Rules.preset(name)
    checked = 0
    for position, counts in entries(name):
        state = parse_position(position, rules)
        if state.pile or state.finish_order or state.stuck or state.passed:
            continue
        hands = [h or 0 for h in state.hands]
        ref = RefTable(rules, hands, leader=None)
        assert ref.position() == state, position  # the reference sees the same start
        depth = 3 if max(state.card_counts, key=lambda c: c or 0) == 5 else 1
        assert [ref_perft(ref, d) for d in range(1, depth + 1)] == counts[:depth], position
        checked += 1
    assert checked >= 2
