"""Fingerprints of the bots' decisions: a hash of the moves of seeded self-play games.

For each bot, ``--games`` seeded games per rule set are played with the bot (seeded) in
every seat; every move made (seat, kind, cards) goes into one SHA-256 per bot. A refactor
that must not change how the bots play leaves the hashes as they were: run this before and
after and compare.

Run: ``.venv/bin/python bench/decisions.py`` (``--games`` to change the sample).
"""

from __future__ import annotations

import argparse
import hashlib
import random
from dataclasses import replace

from tienlen import Game, Give, Rules
from tienlen.debts import CardDebt
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.registry import make_bot


def rule_sets() -> list[Rules]:
    """Presets and variants that reach the different code paths (decks, trading, seats,
    the exchanges: see :func:`new_game`)."""
    std = Rules.preset("standard")
    return [
        std,
        Rules.preset("pagat"),
        Rules.preset("proplay"),
        Rules.preset("hawaii"),
        Rules.preset("double-deck-13"),
        replace(std, players=3),
        replace(std, trading="mutual"),
        replace(std, trading="san-jose"),
        replace(std, chop_debts="stacking", debt_card="any-two"),
    ]


def new_game(rules: Rules, seed: int) -> Game:
    """Deal ``seed``; under San Jose trading after a previous game (its finish order drawn
    from the seed), with card debts owed where the rules have them: the exchanges' gives
    are decisions too."""
    if rules.trading == "san-jose":
        previous = random.Random(seed).sample(range(rules.players), rules.players)
        return Game(rules, seed=seed, previous_finish=previous)
    if rules.chop_debts != "none":
        n = rules.players
        debts = [CardDebt(seed % n, (seed + 1) % n, 1 + seed % 2, "chop")]
        return Game(rules, seed=seed, debts=debts)
    return Game(rules, seed=seed)


def fingerprint(name: str, games: int, budget: Budget, sets: list[Rules]) -> str:
    """The hash of every move of ``games`` deals per rule set of ``sets`` played by bot
    ``name``."""
    digest = hashlib.sha256()
    for rules in sets:
        for seed in range(games):
            bot = make_bot(name, seed=seed)
            game = new_game(rules, seed)
            while not game.is_over:
                legal = game.legal_moves()
                seat = game.turn
                if len(legal) == 1:
                    move = legal[0]
                else:
                    move = bot.choose(observe(game, seat), legal, budget)
                kind = "give" if isinstance(move, Give) else move.kind
                digest.update(f"{seat}:{kind}:{move.mask:x};".encode())
                game.apply_unchecked(move)
            digest.update(b"|")
    return digest.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="seeded games per rule set")
    parser.add_argument("--ismcts-iterations", type=int, default=40)
    parser.add_argument(
        "--each", action="store_true", help="a hash per rule set too (which one changed)"
    )
    args = parser.parse_args()
    for name in ("random", "greedy", "heuristic", "ismcts"):
        budget = Budget(iterations=args.ismcts_iterations) if name == "ismcts" else Budget()
        games = max(1, args.games // 3) if name == "ismcts" else args.games
        sets = rule_sets()
        whole = fingerprint(name, games, budget, sets)
        print(f"{name:<10} {whole}  ({games} games x {len(sets)} rule sets)", flush=True)
        if args.each:
            for i, rules in enumerate(sets):
                print(f"  set {i} {rules.code()}: {fingerprint(name, games, budget, [rules])}")


if __name__ == "__main__":
    main()
