"""The ``heuristic`` bot's answer to trade offers measured: accepting by its rule
(:func:`~tienlen.players.bots.heuristic.accepts_trade`) against refusing every offer.

On each deal (``vietcong`` with mutual trading, four players) one seat, the answerer,
rotating with the deal, receives an offer from each other seat in turn and answers it; the
heuristic bot then plays every seat. Each deal is played twice with the same offers: the
answerer refusing them all (the rule before), then answering by the rule; the difference in
its results is paired by deal. The offers come from a scripted offerer that knows the
answerer's hand (so that every offer can be accepted):

- ``random``: a random card of the offerer's for a random card of the answerer's;
- ``selfish``: the swap that leaves the offerer's own hand the cheapest to play out
  (:func:`~tienlen.players.bots.heuristic.rank_swaps` among the answerer's cards).

Run: ``nice -n 10 .venv/bin/python bench/trade_answers.py --deals 400`` (docs/bots.md holds
the figures).
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Callable

from tienlen import Game, Rules
from tienlen.cards import bits_of_mask, cards_of_mask
from tienlen.combos import PASS, index
from tienlen.players.bots.heuristic import accepts_trade, rank_swaps
from tienlen.players.bots.ismcts import PolicyMemo, rollout_heuristic
from tienlen.scoring import outcome_of, score_outcome

#: An offerer: (rules, offerer's hand, answerer's hand, random) to (give, take) masks.
Offerer = Callable[[Rules, int, int, random.Random], tuple[int, int]]


def random_offer(rules: Rules, mine: int, theirs: int, rng: random.Random) -> tuple[int, int]:
    """A random card of ``mine`` for a random card of ``theirs``."""
    return rng.choice(bits_of_mask(mine)), rng.choice(bits_of_mask(theirs))


def selfish_offer(rules: Rules, mine: int, theirs: int, rng: random.Random) -> tuple[int, int]:
    """The swap best for the offerer's own hand."""
    return rank_swaps(rules, mine, theirs)[0]


OFFERERS: dict[str, Offerer] = {"random": random_offer, "selfish": selfish_offer}


def play(
    rules: Rules, deal: int, offerer: Offerer, *, answer: bool, memo: PolicyMemo
) -> tuple[float, float, int]:
    """(first place won, points, offers accepted) of the answerer on ``deal``."""
    game = Game(rules, seed=deal)
    me = deal % rules.players
    rng = random.Random(deal)
    accepted = 0
    while game.phase == "trading":
        seat = game.turn
        if seat == me:
            game.play(PASS)
            continue
        give, take = offerer(rules, game.hand_masks[seat], game.hand_masks[me], rng)
        game.offer_trade(me, cards_of_mask(give), cards_of_mask(take))
        if answer and accepts_trade(rules, game.hand_masks[me], give, take):
            game.accept_trade()
            accepted += 1
        else:
            game.play(PASS)
    rollout_heuristic(game, index(rules), memo)
    won = 1.0 if game.finish_order[0] == me else 0.0
    return won, float(score_outcome(rules, outcome_of(game))[me]), accepted


def _paired(diffs: list[float]) -> str:
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    return f"{mean:+.4f} ± {sd / math.sqrt(n):.4f}"


def main() -> None:
    """Print, per offerer, the answerer's results refusing and by the rule."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=400)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    rules = Rules.preset("vietcong", trading="mutual")
    memo: PolicyMemo = {}
    for name, offerer in OFFERERS.items():
        wins = {False: 0.0, True: 0.0}
        win_diffs, point_diffs = [], []
        offers = accepted = 0
        for k in range(args.deals):
            deal = args.seed * 1_000_003 + k
            old = play(rules, deal, offerer, answer=False, memo=memo)
            new = play(rules, deal, offerer, answer=True, memo=memo)
            wins[False] += old[0]
            wins[True] += new[0]
            win_diffs.append(new[0] - old[0])
            point_diffs.append(new[1] - old[1])
            offers += rules.players - 1
            accepted += new[2]
        n = args.deals
        print(
            f"{name}: {n} deals, {accepted}/{offers} offers accepted; answerer first "
            f"{wins[False] / n:.3f} refusing, {wins[True] / n:.3f} by the rule "
            f"(paired {_paired(win_diffs)}); points {_paired(point_diffs)} a deal",
            flush=True,
        )


if __name__ == "__main__":
    main()
