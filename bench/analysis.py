"""Game analysis measured: its speed against the sample count, and the calibration of its
win probabilities.

``speed``: one 4-player ``standard`` game (self-play of the heuristic bot, ``--seed``) is
reviewed at each sample count of ``--samples``, every seat; the CPU time of this process
(one core) is reported with the mean standard error of the losses and how many labels agree
with the review at the largest count.

``calibration``: arena games (``--bots``, seats rotated), and at a random quarter of the
decisions made while nobody is out, the win probability of the choice made as the analysis
values it from the deciding seat's observation (``--samples`` deals); once the game is over,
whether that seat won. The predictions are bucketed by tenths and set against the outcomes.

``offers``: the first offer decision of ``--positions`` deals of ``vietcong`` with mutual
trading, valued at ``--samples``: CPU time a decision, the choices valued, how often the
best choice is an offer and by how much it beats making none, on the deals that chose it
and on fresh deals (the first is flattered: the best of many noisy values).

``solver``: the open-hands solver (default node budget) on positions of self-played games
with a given number of cards in hand in all: CPU time, and how many are too large.

Run: ``.venv/bin/python bench/analysis.py speed``,
``.venv/bin/python bench/analysis.py calibration --positions 2000``,
``.venv/bin/python bench/analysis.py offers`` and
``.venv/bin/python bench/analysis.py solver`` (docs/analysis.md and docs/bots.md hold the
figures).
"""

from __future__ import annotations

import argparse
import math
import random
import time

from rich.progress import MofNCompleteColumn, Progress

from tienlen import Game, Rules
from tienlen.analysis.decisions import OfferTrade, analyse_decision
from tienlen.analysis.review import review_game
from tienlen.combos import PASS, Move
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.registry import make_bot
from tienlen.players.toolkit import play_out
from tienlen.record import GameRecord


def self_play(seed: int, bots: list[str]) -> Game:
    """A ``standard`` game dealt by ``seed`` and played by ``bots`` (one a seat)."""
    game = Game("standard", seed=seed)
    players = [make_bot(name, seed=seed * 10 + i) for i, name in enumerate(bots)]
    budget = Budget()
    play_out(game, lambda g, legal: players[g.turn].choose(observe(g, g.turn), legal, budget))
    return game


def speed(args: argparse.Namespace) -> None:
    record = GameRecord.from_game(self_play(args.seed, ["heuristic"] * 4))
    counts = sorted(args.samples)
    reviews = {}
    for k in counts:
        started = time.process_time()
        reviews[k] = review_game(record, samples=k)
        seconds = time.process_time() - started
        decisions = reviews[k].decisions
        errors = [d.loss.error for d in decisions if d.label != "best"]
        best_err = [d.values.best.win.error for d in decisions]
        print(
            f"samples {k:>4}: {seconds:6.1f} s CPU for {len(decisions)} decisions "
            f"({seconds / len(decisions):.2f} s each); mean error of the best choice's win "
            f"{sum(best_err) / len(best_err):.3f}, of a loss {_mean(errors):.3f}",
            flush=True,
        )
    top = reviews[counts[-1]].decisions
    for k in counts[:-1]:
        same = sum(a.label == b.label for a, b in zip(reviews[k].decisions, top, strict=True))
        same_best = sum(
            a.best.mask == b.best.mask for a, b in zip(reviews[k].decisions, top, strict=True)
        )
        print(
            f"samples {k:>4} against {counts[-1]}: the same label {same}/{len(top)}, "
            f"the same best choice {same_best}/{len(top)}"
        )


def offers(args: argparse.Namespace) -> None:
    rules = Rules.preset("vietcong", trading="mutual")
    times, counts, gains, fresh = [], [], [], []
    for seed in range(args.seed, args.seed + args.positions):
        game = Game(rules, seed=seed)
        started = time.process_time()
        values = analyse_decision(observe(game, game.turn), samples=args.samples)
        times.append(time.process_time() - started)
        counts.append(len(values.choices))
        best = values.best.choice
        if isinstance(best, OfferTrade):
            gains.append(values.loss(PASS).mean)
            again = analyse_decision(
                observe(game, game.turn), samples=args.samples, seed="fresh", choices=(PASS, best)
            )
            fresh.append(again.value_of(best).win.mean - again.value_of(PASS).win.mean)
    times.sort()
    print(
        f"{args.positions} offer decisions at {args.samples} samples: "
        f"{times[len(times) // 2]:.2f} s CPU each (median; 90th percentile "
        f"{times[len(times) * 9 // 10]:.2f} s), {_mean(counts):.0f} choices; the best is an "
        f"offer in {len(gains)}, beating no offer by {_mean(gains):.3f} on average "
        f"({_mean(fresh):.3f} on fresh deals)"
    )


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def calibration(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    bots = args.bots.split(",")
    pairs: list[tuple[float, bool]] = []
    by_bot: dict[str, list[tuple[float, bool]]] = {name: [] for name in bots}
    started = time.process_time()
    game_seed = args.seed * 100_000
    with Progress(*Progress.get_default_columns(), MofNCompleteColumn()) as bar:
        task = bar.add_task("positions", total=args.positions)
        while len(pairs) < args.positions:
            game_seed += 1
            shift = game_seed % 4
            seated = bots[shift:] + bots[:shift]
            players = [make_bot(name, seed=game_seed * 10 + i) for i, name in enumerate(seated)]
            game = Game("standard", seed=game_seed)
            picked: list[tuple[int, float]] = []
            while not game.is_over:
                legal = game.legal_plays()
                seat = game.turn
                obs = observe(game, seat)
                if len(legal) == 1:
                    game.apply_unchecked(legal[0])
                    continue
                move = players[seat].choose(obs, legal, Budget())
                assert isinstance(move, Move)
                wanted = len(pairs) + len(picked) < args.positions
                if wanted and not game.finish_order and rng.random() < 0.25:
                    values = analyse_decision(
                        obs, samples=args.samples, seed=game_seed, choices=[move]
                    )
                    picked.append((seat, values.choices[0].win.mean))
                    bar.advance(task)
                game.apply_unchecked(move)
            before = len(pairs) // args.every
            for seat, p in picked:
                pairs.append((p, game.finish_order[0] == seat))
                by_bot[seated[seat]].append(pairs[-1])
            if len(pairs) // args.every > before and len(pairs) < args.positions:
                _table(pairs, "so far", started)
    _table(pairs, f"{args.bots}, {args.samples} deals each", started)
    print("| seat played by | positions | mean predicted | won |")
    print("|---|---|---|---|")
    for name, mine in by_bot.items():
        if mine:
            n = len(mine)
            mean_p = sum(p for p, _ in mine) / n
            print(f"| {name} | {n} | {mean_p:.3f} | {sum(w for _, w in mine) / n:.3f} |")


def _table(pairs: list[tuple[float, bool]], what: str, started: float) -> None:
    """The calibration table of (predicted, won) pairs so far."""
    seconds = time.process_time() - started
    print(f"{len(pairs)} positions ({what}), {seconds:.0f} s CPU")
    print("| predicted | positions | mean predicted | won | ± |")
    print("|---|---|---|---|---|")
    for b in range(10):
        lo, hi = b / 10, (b + 1) / 10
        bucket = [(p, w) for p, w in pairs if lo <= p < hi or (b == 9 and p == 1.0)]
        if not bucket:
            continue
        n = len(bucket)
        mean_p = sum(p for p, _ in bucket) / n
        won = sum(w for _, w in bucket) / n
        se = math.sqrt(max(won * (1 - won), 1e-9) / n)
        print(f"| {lo:.1f}-{hi:.1f} | {n} | {mean_p:.3f} | {won:.3f} | {se:.3f} |")
    brier = sum((p - w) ** 2 for p, w in pairs) / len(pairs)
    base = sum(w for _, w in pairs) / len(pairs)
    print(f"Brier score {brier:.4f} (always {base:.3f}: {base * (1 - base):.4f})", flush=True)


def solver(args: argparse.Namespace) -> None:
    """The solver on positions of self-played games with a given number of cards in hand
    in all (the first position of each game at or under it): time and share too large."""
    from tienlen.solver import Solver, TooLargeError

    print("| cards in hand | positions | solved | median s | max s | too large | s to say so |")
    print("|---|---|---|---|---|---|---|")
    for total in args.cards:
        times: list[float] = []
        large = 0
        give_up = 0.0
        for i in range(args.positions):
            game = Game("standard", seed=args.seed * 100_000 + i)
            bot = make_bot("heuristic")

            def small(g: Game, total: int = total) -> bool:
                return sum(g.cards_left(s) for s in range(4)) <= total

            play_out(
                game,
                lambda g, legal, bot=bot: bot.choose(observe(g, g.turn), legal, Budget()),
                until=small,
            )
            if game.is_over:
                continue
            started = time.process_time()
            try:
                Solver().solve(game)
                times.append(time.process_time() - started)
            except TooLargeError:
                large += 1
                give_up = max(give_up, time.process_time() - started)
        n = len(times) + large
        times.sort()
        median = times[len(times) // 2] if times else 0.0
        print(
            f"| {total} | {n} | {len(times)} | {median:.3f} | "
            f"{max(times, default=0.0):.3f} | {large} | {give_up:.2f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("speed", help="review time and precision against the sample count")
    p.add_argument("--seed", type=int, default=21)
    p.add_argument("--samples", type=int, nargs="+", default=[8, 16, 32, 48, 96])
    p.set_defaults(func=speed)
    c = sub.add_parser("calibration", help="predicted win probability against outcomes")
    c.add_argument("--positions", type=int, default=2000)
    c.add_argument("--samples", type=int, default=32)
    c.add_argument("--bots", default="learned,heuristic,greedy,heuristic")
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--every", type=int, default=500, help="print the table so far this often")
    c.set_defaults(func=calibration)
    o = sub.add_parser("offers", help="the cost and outcome of valuing offers of trades")
    o.add_argument("--positions", type=int, default=20)
    o.add_argument("--samples", type=int, default=128)
    o.add_argument("--seed", type=int, default=1)
    o.set_defaults(func=offers)
    v = sub.add_parser("solver", help="the solver's time against the cards in hand")
    v.add_argument("--cards", type=int, nargs="+", default=[12, 16, 20, 24, 28, 32])
    v.add_argument("--positions", type=int, default=50)
    v.add_argument("--seed", type=int, default=3)
    v.set_defaults(func=solver)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
