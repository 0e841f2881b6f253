"""``tienlen train``: train the ``learned`` bot by self-play (needs the ``env`` extra).

Examples::

    tienlen train --out runs/a --minutes 90 --seed 1
    tienlen train --out runs/a --minutes 30 --resume      # go on where runs/a stopped
    tienlen train --out runs/b --minutes 60 --opponents heuristic --mix 0.5
    tienlen train --out runs/tiny --steps 2000 --checkpoint-every 1000 --eval-games 8
"""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path
from typing import Any

from tienlen import RULESETS

from .argtypes import at_least_one

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``train`` subcommand."""
    p = subparsers.add_parser(
        "train",
        help="train the learned bot by self-play",
        description=(
            "Deep Monte-Carlo self-play training of the learned bot's move-value network "
            "(numpy). Writes checkpoints to --out, each evaluated through the arena against "
            "the bot ladder, and a log of loss and win rates (log.jsonl)."
        ),
        epilog=__doc__.split("Examples::", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--out", required=True, type=Path, help="checkpoint folder")
    p.add_argument("--resume", action="store_true", help="go on from the state in --out")
    p.add_argument("--rules", default="standard", choices=RULESETS, help="rule set")
    p.add_argument("--players", type=int, help="number of players (default: the rules')")
    p.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    p.add_argument(
        "--workers", type=at_least_one, default=1, help="self-play worker processes (default 1)"
    )
    p.add_argument("--steps", type=at_least_one, help="stop after this many frames (decisions)")
    p.add_argument("--minutes", type=float, help="stop after this many minutes")
    p.add_argument(
        "--checkpoint-every",
        type=at_least_one,
        default=50_000,
        metavar="FRAMES",
        help="frames between checkpoints (default 50000)",
    )
    p.add_argument(
        "--eval-bots",
        default="random,greedy,heuristic",
        help="bots the checkpoints play (three of each against the learned bot); '' for none",
    )
    p.add_argument(
        "--eval-games", type=at_least_one, default=200, help="games per evaluation (default 200)"
    )
    p.add_argument("--games-per-round", type=at_least_one, default=16, help="games per update")
    p.add_argument("--lr", type=float, default=5e-4, help="Adam learning rate")
    p.add_argument("--epsilon", type=float, default=0.05, help="exploration rate")
    p.add_argument(
        "--opponents",
        default="",
        help="registry bots that may take seats in training games, comma-separated "
        "(default: none, pure self-play); their moves are samples too",
    )
    p.add_argument(
        "--mix",
        type=float,
        default=0.5,
        help="chance that a seat goes to one of --opponents (default 0.5)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train, showing a progress bar and a line per checkpoint."""
    if args.steps is None and args.minutes is None:
        raise ValueError("give --steps or --minutes (or both)")
    if (args.out / "state.npz").exists() and not args.resume:
        raise ValueError(f"{args.out} holds a run already: add --resume, or pick another --out")
    if args.resume and not (args.out / "state.npz").exists():
        raise ValueError(f"nothing to resume in {args.out}")
    cpus = os.cpu_count() or 1
    if args.workers > cpus:
        raise ValueError(f"--workers {args.workers} is more than the {cpus} cores here")
    try:
        from tienlen.env.train import TrainConfig, Trainer
    except ImportError as e:
        raise ValueError(f"training needs the env extra (pip install 'tienlen[env]'): {e}") from e
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    logging.basicConfig(level=logging.ERROR, format="%(name)s: %(message)s")
    config = TrainConfig(
        rules=args.rules,
        players=args.players,
        seed=args.seed,
        workers=args.workers,
        games_per_round=args.games_per_round,
        lr=args.lr,
        epsilon=args.epsilon,
        checkpoint_every=args.checkpoint_every,
        eval_bots=tuple(b for b in args.eval_bots.split(",") if b),
        eval_games=args.eval_games,
        opponents=tuple(b for b in args.opponents.split(",") if b),
        mix=args.mix,
    )
    trainer = Trainer(config, args.out)
    console = Console(stderr=True)
    total = args.steps
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        TextColumn("{task.completed:,} frames"),
        TextColumn("loss {task.fields[loss]}"),
        TimeElapsedColumn(),
        console=console,
    ) as bar:
        task = bar.add_task("self-play", total=total, completed=trainer.frames, loss="-")

        def progress(t: Trainer) -> None:
            bar.update(task, completed=t.frames, loss=f"{t.last_loss:.4f}")

        def on_checkpoint(entry: dict[str, Any]) -> None:
            rates = ", ".join(
                f"{bot} {e['win_rate']:.1%} [{e['win_ci95'][0]:.1%}-{e['win_ci95'][1]:.1%}]"
                for bot, e in entry["eval"].items()
            )
            bar.console.print(
                f"{entry['checkpoint']}: {entry['games']:,} games, loss {entry['loss']:.4f}"
                + (f"; wins vs 3x {rates}" if rates else "")
            )

        trainer.run(
            steps=args.steps, minutes=args.minutes, progress=progress, on_checkpoint=on_checkpoint
        )
    best = args.out / "best.npz"
    print(f"done: {trainer.frames:,} frames, {trainer.games:,} games; best: {best}")
    return 0
