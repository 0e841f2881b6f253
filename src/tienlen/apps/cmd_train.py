r"""``tienlen train``: train the ``learned`` bot (needs the ``env`` extra).

Examples::

    tienlen train --out runs/a --minutes 30 --workers 2     # rollouts on standard
    tienlen train --out runs/m --minutes 30 --rules all --players 4 --vary-players 0.3 \
        --init old.npz                                       # every preset, from weights
    tienlen train --out runs/a --minutes 30 --workers 2 --resume   # go on where it stopped
    tienlen train --out runs/b --minutes 60 --method dmc --opponents heuristic --mix 0.75 \
        --explore-top 3 --win-weight 1.0 --candidates 2
    tienlen train --out runs/tiny --steps 2000 --checkpoint-every 1000 --eval-games 8
    tienlen train --out runs/c --minutes 60 --ray auto     # on the Ray cluster of this machine
    tienlen train --out both.npz --combine runs/a/latest.npz runs/b/latest.npz
"""

from __future__ import annotations

import argparse
import logging
import os
from collections import defaultdict
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from .argtypes import at_least_one

__all__ = ["log_line", "register", "run"]


def _defaults() -> dict[str, Any]:
    """TrainConfig's defaults, read from the class so that the help never disagrees with it
    (``?`` without the env extra: ``run`` then says what to install)."""
    try:
        from tienlen.env.train import TrainConfig
    except ImportError:
        return defaultdict(lambda: "?")
    return {
        f.name: ",".join(map(str, f.default)) if isinstance(f.default, tuple) else f.default
        for f in fields(TrainConfig)
    }


class _Help(argparse.RawDescriptionHelpFormatter):
    """Fills ``{field}`` in an option's help with TrainConfig's default when the help is
    shown: reading them while the parser is built imported numpy and the trainer for every
    ``tienlen`` command."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        return text.format_map(_defaults()) if text else text


def _names(text: str) -> tuple[str, ...]:
    """A comma-separated list of names ('' for none)."""
    return tuple(name for name in text.split(",") if name)


def _combine(paths: list[Path], out: Path) -> int:
    """Write the ensemble of the checkpoints ``paths`` to ``out``."""
    from tienlen.players.bots.learned import QNet

    nets = []
    for path in paths:
        try:
            nets.append(QNet.load(path))
        except (OSError, KeyError, ValueError) as e:
            raise ValueError(f"cannot read the weights {str(path)!r}: {e}") from e
    kinds = {(net.meta.get("rules"), net.meta.get("players")) for net in nets}
    if len(kinds) > 1:
        raise ValueError(
            f"the checkpoints were trained for different rules: {sorted(map(str, kinds))}"
        )
    rules, players = kinds.pop()
    ensemble = QNet.ensemble(nets, {"rules": str(rules), "players": int(players or 0)})
    ensemble.save(out)
    print(f"{out}: an ensemble of {len(ensemble.members)} networks from {len(paths)} files")
    return 0


def log_line(entry: dict[str, Any]) -> str:
    """One line of the training log (``log.jsonl``) in words: the checkpoint, its games and
    loss, and its win rates (95% intervals) by preset and evaluation bot."""
    parts = []
    for preset, by_bot in entry["eval"].items():
        rates = ", ".join(
            f"{bot} {e['win_rate']:.1%} [{e['win_ci95'][0]:.1%}-{e['win_ci95'][1]:.1%}]"
            for bot, e in by_bot.items()
        )
        parts.append(f"{preset}: {rates}")
    head = f"{entry['checkpoint']}: {entry['games']:,} games, loss {entry['loss']:.4f}"
    if "score" in entry:
        head += f", score {entry['score']:.1%}"
    return head + ("; wins " + "; ".join(parts) if parts else "")


def _show_log(path: Path) -> int:
    """Print the training log at ``path`` a checkpoint a line."""
    import json

    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ValueError(f"cannot read the training log {str(path)!r}: {e}") from e
    for line in lines:
        if line.strip():
            print(log_line(json.loads(line)))
    return 0


def _sizes(text: str) -> tuple[int, int]:
    """Two hidden layer sizes, ``A,B``."""
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"two positive sizes such as 256,128, not {text!r}")
    return int(parts[0]), int(parts[1])


def register(subparsers: Any) -> None:
    """Add the ``train`` subcommand."""
    p = subparsers.add_parser(
        "train",
        help="train the learned bot",
        description=(
            "Training of the learned bot's move-value network (numpy), by Deep Monte-Carlo "
            "self-play (--method dmc) or on decisions labelled by paired rollouts of the "
            "ismcts bot's root moves from the real deal (--method rollouts). Writes "
            "checkpoints to --out, each evaluated through the arena against the bot ladder, "
            "and a log of loss and win rates (log.jsonl)."
        ),
        epilog=__doc__.split("Examples::", 1)[1] if __doc__ else None,
        formatter_class=_Help,
    )
    p.add_argument("--out", type=Path, help="checkpoint folder (with --combine: the file)")
    p.add_argument(
        "--show-log",
        type=Path,
        metavar="LOG",
        help="print a training log (a run's log.jsonl, or a shipped specialist's "
        "in docs/training/) a checkpoint a line, and train nothing",
    )
    p.add_argument(
        "--combine",
        nargs="+",
        type=Path,
        metavar="WEIGHTS",
        help="write to --out the ensemble of these checkpoints (a move's value: the mean of "
        "theirs), and train nothing",
    )
    p.add_argument("--resume", action="store_true", help="go on from the state in --out")
    p.add_argument(
        "--rules",
        help="a preset, several comma-separated, or 'all': each game is dealt under one of "
        "them, and every checkpoint is evaluated on each (default {rules})",
    )
    p.add_argument("--players", type=int, help="number of players (default: the rules')")
    p.add_argument(
        "--vary-players",
        type=float,
        metavar="P",
        help="chance that a training game has any seat count its rules allow instead "
        "(default {vary_players})",
    )
    p.add_argument(
        "--init",
        metavar="WEIGHTS",
        help="start from these weights (a checkpoint or an ensemble; every member is "
        "trained); --hidden is then theirs",
    )
    p.add_argument("--seed", type=int, help="seed of the run (default {seed})")
    p.add_argument(
        "--method", choices=("dmc", "rollouts"), help="training method (default {method})"
    )
    p.add_argument(
        "--workers",
        type=at_least_one,
        help="jobs a round is split into: local worker processes, or Ray tasks with --ray "
        "(default {workers}; with --ray, the cluster's CPUs)",
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="play the rounds and evaluations as Ray tasks on the cluster at ADDRESS: 'auto' "
        "(the one 'ray start' runs on this machine), HOST:PORT, or 'local' (a Ray instance "
        "started for this run); needs the ray extra",
    )
    p.add_argument("--steps", type=at_least_one, help="stop after this many frames (decisions)")
    p.add_argument("--minutes", type=float, help="stop after this many minutes")
    p.add_argument(
        "--checkpoint-every",
        type=at_least_one,
        metavar="FRAMES",
        help="frames between checkpoints (default {checkpoint_every})",
    )
    p.add_argument(
        "--eval-bots",
        type=_names,
        help="bots the checkpoints play (three of each against the learned bot); '' for none "
        "(default {eval_bots})",
    )
    p.add_argument(
        "--eval-games",
        type=at_least_one,
        help="games per evaluation (default {eval_games})",
    )
    p.add_argument(
        "--games-per-round",
        type=at_least_one,
        help="games per update (default {games_per_round})",
    )
    p.add_argument("--lr", type=float, help="Adam learning rate (default {lr})")
    p.add_argument("--epsilon", type=float, help="exploration rate (default {epsilon})")
    p.add_argument(
        "--explore-top",
        type=int,
        help="exploring moves are drawn from the heuristic bot's best N "
        "(default {explore_top}: from every legal move)",
    )
    p.add_argument(
        "--candidates",
        type=int,
        help="the network chooses among the heuristic bot's best N moves and the pass (0: "
        "among all), in training and in the evaluations (default {candidates})",
    )
    p.add_argument(
        "--opponents",
        type=_names,
        help="registry bots that may take seats in training games, comma-separated; '' for "
        "none (pure self-play); with dmc their moves are samples too, rollouts takes only "
        "heuristic (default {opponents})",
    )
    p.add_argument(
        "--mix",
        type=float,
        help="chance that a seat goes to one of --opponents (default {mix})",
    )
    p.add_argument(
        "--win-weight",
        type=float,
        help="weight of winning against the finishing position in the training target "
        "(default {win_weight})",
    )
    p.add_argument(
        "--top",
        type=at_least_one,
        help="rollouts: the heuristic bot's best N moves (and the pass) are labelled "
        "(default {top})",
    )
    p.add_argument(
        "--others",
        type=int,
        help="rollouts: this many more legal moves, drawn at random, are labelled too "
        "(default {others})",
    )
    p.add_argument(
        "--buffer",
        type=at_least_one,
        metavar="DECISIONS",
        help="rollouts: labelled decisions kept for the updates (default {buffer})",
    )
    p.add_argument(
        "--passes",
        type=float,
        help="rollouts: each round draws this many times its new decisions from the buffer "
        "(default {passes})",
    )
    p.add_argument(
        "--playout",
        choices=("heuristic", "network"),
        help="rollouts: who plays the deciding seat's later moves in each play-out, the "
        "heuristic bot or the network being trained (policy iteration; some five times the "
        "labelling time); the other seats are always the heuristic's (default {playout})",
    )
    p.add_argument("--batch", type=at_least_one, help="decisions per update (default {batch})")
    p.add_argument(
        "--hidden",
        type=_sizes,
        help="the network's two hidden layer sizes, e.g. 512,256 (default {hidden})",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train, showing a progress bar and a line per checkpoint (or combine checkpoints)."""
    if args.show_log:
        return _show_log(args.show_log)
    if args.out is None:
        raise ValueError("give --out (or --show-log)")
    if args.combine:
        return _combine(args.combine, args.out)
    if args.steps is None and args.minutes is None:
        raise ValueError("give --steps or --minutes (or both)")
    if (args.out / "state.npz").exists() and not args.resume:
        raise ValueError(f"{args.out} holds a run already: add --resume, or pick another --out")
    if args.resume and not (args.out / "state.npz").exists():
        raise ValueError(f"nothing to resume in {args.out}")
    cpus = os.cpu_count() or 1
    if args.ray is None and args.workers is not None and args.workers > cpus:
        raise ValueError(f"--workers {args.workers} is more than the {cpus} cores here")
    from tienlen.env.train import TrainConfig
    from tienlen.players.executors import executor

    logging.basicConfig(level=logging.ERROR, format="%(name)s: %(message)s")
    # an option named as a TrainConfig field sets it; one left out keeps the field's default
    given = {
        f.name: value
        for f in fields(TrainConfig)
        if (value := getattr(args, f.name, None)) is not None
    }
    if given.get("candidates") == 0:
        given["candidates"] = None
    config = TrainConfig(**given)
    # with --ray and no --workers: as many jobs a round as the cluster has CPUs
    workers = executor(args.ray, given.get("workers") if args.ray else config.workers)
    with workers:
        if config.workers != workers.workers:
            config = replace(config, workers=workers.workers)
        return _train(args, config, workers)


def _train(args: argparse.Namespace, config: Any, workers: Any) -> int:
    """Run the training with a progress bar on ``workers`` (an executor)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from tienlen.env.train import Trainer

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
        task = bar.add_task(config.method, total=total, completed=trainer.frames, loss="-")

        def progress(t: Trainer) -> None:
            bar.update(task, completed=t.frames, loss=f"{t.last_loss:.4f}")

        def on_checkpoint(entry: dict[str, Any]) -> None:
            bar.console.print(log_line(entry))

        bar.console.print(f"{config.workers} jobs a round on {workers.where}")
        trainer.run(
            steps=args.steps,
            minutes=args.minutes,
            progress=progress,
            on_checkpoint=on_checkpoint,
            executor=workers,
        )
    best = args.out / "best.npz"
    print(f"done: {trainer.frames:,} frames, {trainer.games:,} games; best: {best}")
    return 0
