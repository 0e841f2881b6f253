"""How often a bot gives up a forced win: the open-hands solver asked on the real deal.

A bot plays seat 0 of ``--games`` games against ``heuristic`` bots (the arena's deals of
``--seed``, seat 0 never rotated). At each of its decisions while nobody is out and at most
``--cards`` cards are in hand in all, the solver is asked, with every hand known, whether a
choice forces seat 0 out first whatever the others play and whether the bot's choice is one.
Printed: the games with such a decision, the games where the bot played a choice that gave
the force up, and how many of those it still won. That bounds what an exact endgame can add
for a bot that could see the cards (docs/bots.md, "The endgame").

Run: ``.venv/bin/python bench/endgame_misses.py --rules wikipedia --games 200``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from rich.progress import track

from tienlen import Game, Rules
from tienlen.combos import Choice, Move
from tienlen.observation import observe
from tienlen.players.arena import deal_seed
from tienlen.players.base import Budget, Player
from tienlen.players.registry import make_bot, parse_spec
from tienlen.players.toolkit import play_out
from tienlen.solver import Solver, TooLargeError


def one_game(
    game: Game, players: Sequence[Player], *, cards: int, nodes: int
) -> tuple[bool, bool, int]:
    """Play ``game`` out; (a forced win was within seat 0's reach, seat 0 gave one up,
    decisions too large to solve)."""
    forced = missed = False
    too_large = 0

    def pick(game: Game, legal: Sequence[Choice]) -> Choice:
        nonlocal forced, missed, too_large
        seat = game.turn
        choice = players[seat].choose(observe(game, seat), legal, Budget())
        in_hand = sum(game.cards_left(s) for s in range(game.rules.players))
        if seat != 0 or game.finish_order or in_hand > cards:
            return choice
        try:
            solution = Solver(nodes=nodes).solve(game, 0)
        except TooLargeError:
            too_large += 1
            return choice
        if solution.wins:
            forced = True
            kept = {m.mask: won for m, won in solution.choices}
            if isinstance(choice, Move) and not kept[choice.mask]:
                missed = True
        return choice

    play_out(game, pick)
    return forced, missed, too_large


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="wikipedia", help="rule set (default wikipedia)")
    parser.add_argument("--bot", default="learned", help="the bot in seat 0 (a registry spec)")
    parser.add_argument("--games", type=int, default=200, help="games (default 200)")
    parser.add_argument("--seed", type=int, default=3, help="seed of the deals (default 3)")
    parser.add_argument("--cards", type=int, default=30, help="most cards in hand to solve")
    parser.add_argument("--nodes", type=int, default=20_000, help="positions a search may visit")
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    name, options = parse_spec(args.bot)
    forced_games = missed_games = won_after_miss = wins = too_large = 0
    start = time.perf_counter()
    for g in track(range(args.games), description="games"):
        seed = deal_seed(args.seed, g)
        players = [make_bot(name, seed=seed, **options)]
        players += [make_bot("heuristic") for _ in range(rules.players - 1)]
        game = Game(rules, seed=seed)
        forced, missed, large = one_game(game, players, cards=args.cards, nodes=args.nodes)
        too_large += large
        won = game.finish_order[0] == 0
        wins += won
        forced_games += forced
        missed_games += missed
        won_after_miss += missed and won
    print(
        f"{args.rules}, {args.bot}, {args.games} games (seed {args.seed}), "
        f"{time.perf_counter() - start:.0f} s: won {wins}; a forced win within reach in "
        f"{forced_games}; given up in {missed_games}, of which won anyway {won_after_miss}; "
        f"{too_large} decisions too large to solve"
    )


if __name__ == "__main__":
    main()
