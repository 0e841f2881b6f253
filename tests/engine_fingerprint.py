"""The engine's fingerprint: a hash of every legal-move list and outcome of seeded games.

Run as a script (``python tests/engine_fingerprint.py [GAMES]``) it prints whether the engine
runs compiled and the hash. ``tests/test_compiled.py`` runs it once on the interpreted source
and once on the compiled build and compares the two: the same rules must give the same
moves, in the same order, and the same results.
"""

from __future__ import annotations

import hashlib
import random
import sys

from tienlen import COMPILED, RULESETS, Game, Rules


def fingerprint(games: int) -> str:
    """SHA-256 over ``games`` seeded random games of every preset: each decision's legal
    moves (kind and cards, in the generator's order), the move chosen, and the finish order."""
    digest = hashlib.sha256()
    for name in RULESETS:
        rules = Rules.preset(name)
        for seed in range(games):
            rng = random.Random(seed)
            game = Game(rules, seed=f"fingerprint-{seed}")
            while not game.is_over:
                legal = game.legal_plays()
                digest.update(" ".join(f"{m.kind}:{m.mask:x}" for m in legal).encode())
                move = rng.choice(legal)
                digest.update(f"|{game.turn}>{move.kind}:{move.mask:x};".encode())
                game.play(move)
            digest.update(f"={game.finish_order}/{game.instant_win}\n".encode())
    return digest.hexdigest()


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    print(f"compiled={COMPILED} {fingerprint(count)}")
