"""Perft for Tiến Lên: the sizes of whole move trees from fixed positions (like chess perft).

``perft(game, d)`` counts the move sequences of length ``d`` from ``game``'s position, a
game that ends sooner counting once where it ends. tests/perft/<preset>.txt holds, for
every preset, fixed positions in position notation (docs/position-notation.md) with their
counts at depths 1, 2, ...; tests/test_perft.py checks them, so a change in move generation
or turn order shows as a changed count.

Run: ``.venv/bin/python bench/perft.py`` prints nodes per second per preset;
``--write`` regenerates the files (only when a rule change is meant to change them).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from tienlen import RULESETS, Game, Rules

FILES = Path(__file__).resolve().parent.parent / "tests" / "perft"


def perft(game: Game, depth: int) -> int:
    """Move sequences of length ``depth`` from ``game`` (a game over counts once)."""
    if depth == 0 or game.is_over:
        return 1
    total = 0
    for move in game.legal_moves():
        child = game.copy()
        child.apply_unchecked(move)
        total += perft(child, depth - 1)
    return total


def positions(rules: Rules) -> list[tuple[Game, int]]:
    """The fixed positions of a preset (seeded, so the same every run) and their depths:
    two starts of small hands (five cards a seat, depth 8), a whole deal's start (depth 4)
    and a whole deal after a few random moves (depth 5)."""
    out: list[tuple[Game, int]] = []
    for seed in (1, 2):
        full = Game(rules, seed=seed)
        small = Game(rules, hands=[h[:5] for h in full.hands])
        out.append((_to_play(small), 8))
    deal = _to_play(Game(rules, seed=3))
    out.append((deal, 4))
    later = _to_play(Game(rules, seed=4))
    rng = random.Random(4)
    for _ in range(12):
        if later.is_over:
            break
        later.apply_unchecked(rng.choice(later.legal_moves()))
    out.append((later, 5))
    return [(g, d) for g, d in out if not g.is_over]


def _to_play(game: Game) -> Game:
    """Past trading and exchanges (every offer passed, the first give taken)."""
    while game.phase in ("trading", "exchange"):
        game.apply_unchecked(game.legal_moves()[0])
    return Game.from_position(game.position.format(), rules=game.rules)


def write(name: str) -> None:
    rules = Rules.preset(name)
    lines = [
        f"# perft counts under the {name} preset (bench/perft.py --write; tests/test_perft.py)",
        "# position | counts at depth 1, 2, ...",
    ]
    for game, depth in positions(rules):
        counts = [perft(game, d) for d in range(1, depth + 1)]
        lines.append(f"{game.position.format()} | {' '.join(map(str, counts))}")
    (FILES / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="regenerate tests/perft/*.txt")
    args = parser.parse_args()
    for name in sorted(RULESETS):
        if args.write:
            write(name)
        nodes = 0
        start = time.process_time()
        for game, depth in positions(Rules.preset(name)):
            nodes += perft(game, depth)
        spent = time.process_time() - start
        print(f"{name:<16} {nodes:>9,} nodes  {nodes / spent:>10,.0f} nodes/s")


if __name__ == "__main__":
    main()
