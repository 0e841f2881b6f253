"""``tienlen arena``: measure bots against each other on duplicate deals.

Examples::

    tienlen arena --rules standard --bots ismcts,greedy,greedy,greedy --games 2000 --seed 1
    tienlen arena --bots heuristic,greedy,greedy,greedy --games 2000 --jobs 2 --json out.json
    tienlen arena --bots "cmd:python examples/protocol_bot.py",greedy,greedy,greedy --games 40
    tienlen arena --rules hawaii --players 3 --bots ismcts,heuristic,greedy --budget-ms 50
    tienlen arena --bots learned,ismcts,ismcts,ismcts --games 4000 --ray auto
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import math
import os
import sys
from typing import Any

from tienlen import RULESETS
from tienlen.inputs import quote_value
from tienlen.text import printable

from .argtypes import at_least_one
from .files import rules_arg

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``arena`` subcommand."""
    p = subparsers.add_parser(
        "arena",
        help="play bots against each other and measure them",
        description=(
            "Play many games between bots on duplicate deals (every deal replayed with the "
            "seats rotated, so each bot plays every hand) and print, per bot, win and loss "
            "rates, mean finishing position and mean score with 95%% confidence intervals, "
            "and an openskill rating table."
        ),
        epilog=__doc__.split("Examples::", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--rules",
        default="standard",
        metavar="CODE",
        help=f"rule set ({', '.join(RULESETS)}), a rules code such as standard.cong, "
        "or a JSON file of knobs",
    )
    p.add_argument(
        "--players", type=int, help="number of players, 2-8 (default: the number of bots)"
    )
    p.add_argument(
        "--bots",
        required=True,
        help="one bot per seat, comma-separated: random, greedy, heuristic, ismcts, learned, "
        "each with options after colons (ismcts:playout=learned:roots=learned), or "
        "'cmd:PROGRAM ARGS' for a program speaking the bot protocol",
    )
    p.add_argument(
        "--games", type=at_least_one, default=400, help="games to play, rounded up to whole deals"
    )
    p.add_argument(
        "--seed",
        type=int,
        help="seed of the deals and bots (default: a random one, shown with the results)",
    )
    p.add_argument(
        "--jobs",
        type=at_least_one,
        default=None,
        help="worker processes (default: every core); with --ray, not used",
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="play the deals as Ray tasks on the cluster at ADDRESS: 'auto' (the one 'ray "
        "start' runs on this machine), HOST:PORT, or 'local' (a Ray instance started for "
        "this run); needs the ray extra; cmd: bots are refused",
    )
    p.add_argument("--budget-ms", type=_milliseconds, help="thinking time per move for search bots")
    p.add_argument("--iterations", type=at_least_one, help="iterations per move for search bots")
    p.add_argument(
        "--bot-timeout",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="a cmd: bot's time to greet and, beyond the budget, to answer (default 10); "
        "a bot that overruns it is stopped and the rest of its moves are fallbacks",
    )
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _milliseconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {quote_value(text)}") from None
    if not 0 <= value < math.inf:  # nan fails this too
        raise argparse.ArgumentTypeError(f"must be a finite number, 0 or more, not {text}")
    return value


def _seconds(text: str) -> float:
    value = _milliseconds(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    return value


def _specs(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def run(args: argparse.Namespace) -> int:
    """Run the arena and print the tables."""
    from tienlen.players.arena import run_arena
    from tienlen.players.base import Budget
    from tienlen.players.executors import RayExecutor

    specs = _specs(args.bots)
    rules = rules_arg(args.rules)
    rules = rules.for_players(args.players or len(specs))
    budget = Budget(
        seconds=args.budget_ms / 1000 if args.budget_ms is not None else None,
        iterations=args.iterations,
    )
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    logging.basicConfig(level=logging.ERROR, format="%(name)s: %(message)s")

    from rich.console import Console

    console = Console(width=None if sys.stdout.isatty() else 140)
    cluster = RayExecutor(args.ray) if args.ray is not None else None
    run = functools.partial(
        run_arena,
        rules,
        specs,
        games=args.games,
        seed=args.seed,
        jobs=jobs,
        budget=budget,
        bot_timeout=args.bot_timeout,
        executor=cluster,
    )
    try:
        result = _play(run, quiet=args.quiet)
    finally:
        if cluster is not None:
            cluster.close()
    if args.json:  # first: the figures are kept whatever the printing meets
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result.to_dict(), f, indent=2)
            f.write("\n")
    _print(console, result)
    return 0


def _play(run: Any, *, quiet: bool) -> Any:
    """The arena's result, with a progress bar unless ``quiet``."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    if quiet:
        result = run()
    else:
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        ) as bar:
            task = bar.add_task("games", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            result = run(progress=progress)
    return result


def _ci(pair: tuple[float, float], fmt: str) -> str:
    return f"{format(pair[0], fmt)}–{format(pair[1], fmt)}"


def _ms(value: float) -> str:
    """Milliseconds, two significant figures below 10 (``-`` for none)."""
    if math.isnan(value):
        return "-"
    return f"{value:#.2g}" if value < 10 else f"{value:.0f}"


def _print(console: Any, result: Any) -> None:
    from rich.table import Table
    from rich.text import Text

    games = len(result.outcomes)
    deals = len({o.deal for o in result.outcomes})
    title = (
        f"{result.rules.code()}, {result.rules.players} players: {games} games "
        f"({deals} duplicate deals × {result.rules.players} rotations), seed {result.seed}"
    )
    table = Table(title=title)
    columns = (
        "bot",
        "games",
        "win % [95% CI]",
        "loss % [95% CI]",
        "mean position",
        "mean score",
        "ms median, p99",
    )
    for col in columns:
        table.add_column(col, justify="left" if col == "bot" else "right", no_wrap=True)
    for s in result.stats():
        table.add_row(
            Text(printable(s.label)),
            str(s.games),
            f"{100 * s.win_rate:.1f} [{_ci((100 * s.win_ci[0], 100 * s.win_ci[1]), '.1f')}]",
            f"{100 * s.loss_rate:.1f} [{_ci((100 * s.loss_ci[0], 100 * s.loss_ci[1]), '.1f')}]",
            f"{s.mean_position:.3f} [{_ci(s.position_ci, '.3f')}]",
            f"{s.mean_score:+.3f} [{_ci(s.score_ci, '+.3f')}]",
            f"{_ms(s.decision_ms_median)}, {_ms(s.decision_ms_p99)}",
        )
    console.print(table)
    console.print(
        "Intervals: rates by Wilson score over games; means by a normal interval over "
        "per-deal means (the rotated games of a deal are correlated)."
    )
    rated = result.ratings()
    if rated is None:
        console.print("Ratings: install openskill (the 'apps' extra) for the rating table.")
    else:
        rt = Table(title="openskill Plackett-Luce ratings (ordinal = mu − 3·sigma)")
        for col in ("bot", "mu", "sigma", "ordinal"):
            rt.add_column(col, justify="left" if col == "bot" else "right")
        for r in rated:
            rt.add_row(
                Text(printable(r["label"])),
                f"{r['mu']:.2f}",
                f"{r['sigma']:.2f}",
                f"{r['ordinal']:.2f}",
            )
        console.print(rt)
    decisions = sum(o.decisions for o in result.outcomes)
    per_game = result.seconds / max(games, 1) * 1000
    console.print(
        f"{result.seconds:.1f} s with {result.jobs} job(s): {per_game:.1f} ms per game, "
        f"{decisions} decisions"
    )
    problems = result.problems
    if problems:
        console.print(
            Text.assemble(
                (f"{len(problems)} fallback move(s) played", "yellow"),
                f"; first: {printable(problems[0], limit=500)}",
            )
        )
    sys.stdout.flush()
