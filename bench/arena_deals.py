"""An arena run played deal by deal, each deal's games kept in a file as soon as it ends.

``tienlen arena`` prints its figures when the whole run is over. A long run (search bots at
a fixed iteration count on a shared machine, hours of CPU) may be cut short by a deadline,
and the arena's output does not say who finished ahead of whom in each game. This script
plays the same deals with the arena's own deal loop (so the games are those of
``tienlen arena`` with the same rules, bots, seed and budget), one deal at a time in this
process, appends each deal's games to a JSON-lines file, and on a second run of the same
file starts with the first deal not yet played. At the end it prints the arena's tables
and, with ``--ahead A,B`` (entry numbers, 0 = the first bot), the share of games in which
entry A finished ahead of entry B, with a 95% Wilson interval over games; with ``--versus
OTHER`` (a file of the same rules, seats and seed), how entry 0 of this file did against
entry 0 of the other on the deals both hold, paired by deal (a normal interval over the
deals' differences: the deal's luck cancels out of them).

Run::

    python bench/arena_deals.py --rules suited \\
        --bots learned,ismcts:iterations=120,heuristic,heuristic \\
        --games 120 --seed 2 --out suited_h2h.jsonl --ahead 0,1
    python bench/arena_deals.py --report suited_h2h.jsonl --ahead 0,1   # the figures of a file
    python bench/arena_deals.py --report new.jsonl --versus old.jsonl     # entry 0, paired by deal

A run split over processes: ``--shard 1/2`` plays deals 0, 2, 4, ... and ``--shard 2/2``
deals 1, 3, 5, ..., each into its own file (the same header); ``--report`` and ``--versus``
take several files and read them as one run::

    python bench/arena_deals.py --bots ... --games 300 --seed 2 --shard 1/2 --out a.jsonl &
    python bench/arena_deals.py --bots ... --games 300 --seed 2 --shard 2/2 --out b.jsonl
    python bench/arena_deals.py --report a.jsonl b.jsonl --ahead 0,1
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from tienlen.apps.cmd_arena import _play, _print
from tienlen.apps.files import rules_arg
from tienlen.inputs import quote_value
from tienlen.players.arena import (
    ArenaResult,
    GameOutcome,
    _Job,
    _play_deal,
    entry_labels,
    wilson,
)
from tienlen.players.base import Budget
from tienlen.rules import Rules


def header(rules: Rules, specs: Sequence[str], seed: int, iterations: int | None) -> dict[str, Any]:
    """What a file's first line records: a run may only go on with the same settings."""
    return {
        "rules": rules.code(),
        "players": rules.players,
        "bots": list(specs),
        "seed": seed,
        "iterations": iterations,
    }


def _outcome_row(o: GameOutcome) -> dict[str, Any]:
    return {
        "deal": o.deal,
        "rotation": o.rotation,
        "seats": o.seats,
        "positions": o.positions,
        "scores": o.scores,
        "decisions": o.decisions,
        "problems": o.problems,
        "names": o.names,
        "times": o.times,
    }


def _outcome(row: dict[str, Any]) -> GameOutcome:
    return GameOutcome(
        deal=row["deal"],
        rotation=row["rotation"],
        seats=tuple(row["seats"]),
        positions=tuple(row["positions"]),
        scores=tuple(row["scores"]),
        decisions=row["decisions"],
        problems=tuple(row["problems"]),
        names=tuple(row["names"]),
        times=tuple(tuple(t) for t in row["times"]),
    )


def read(*paths: Path) -> tuple[dict[str, Any], list[GameOutcome], float]:
    """The files' header, their games in deal order and the seconds their deals took: several
    files (the shards of one run) must hold the same run and no deal twice."""
    head: dict[str, Any] | None = None
    outcomes: list[GameOutcome] = []
    seconds = 0.0
    owner: dict[int, Path] = {}
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        if not lines:
            raise ValueError(f"{quote_value(str(path))} is empty: no header line")
        mine = json.loads(lines[0])
        if head is None:
            head = mine
        elif mine != head:
            raise ValueError(
                f"{quote_value(str(path))} holds another run ({json.dumps(mine)}) "
                f"than {quote_value(str(paths[0]))} ({json.dumps(head)})"
            )
        for line in lines[1:]:
            deal = json.loads(line)
            if deal["deal"] in owner:
                raise ValueError(
                    f"deal {deal['deal']} is in both {quote_value(str(owner[deal['deal']]))} "
                    f"and {quote_value(str(path))}"
                )
            owner[deal["deal"]] = path
            outcomes.extend(_outcome(r) for r in deal["games"])
            seconds += deal["seconds"]
    if head is None:
        raise ValueError("no file to read")
    outcomes.sort(key=lambda o: (o.deal, o.rotation))
    return head, outcomes, seconds


def play(
    path: Path,
    rules: Rules,
    specs: Sequence[str],
    *,
    games: int,
    seed: int,
    iterations: int | None = None,
    shard: tuple[int, int] = (1, 1),
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Play the deals of the run that ``path`` does not hold yet, appending each one; the
    file is created with its header when missing. ``shard=(k, n)``: only every n-th deal,
    from deal k - 1. ``progress(done, total)`` hears of each deal played, in games."""
    want = header(rules, specs, seed, iterations)
    if path.exists():
        head, outcomes, _ = read(path)
        if head != want:
            raise ValueError(
                f"{quote_value(str(path))} holds another run ({json.dumps(head)}), "
                f"not {json.dumps(want)}"
            )
        done = {o.deal for o in outcomes}
    else:
        path.write_text(json.dumps(want) + "\n", encoding="utf-8")
        done = set()
    k, n = shard
    if not 1 <= k <= n:
        raise ValueError(f"shard {k}/{n}: expected K/N with 1 <= K <= N")
    mine = range(k - 1, -(-games // rules.players), n)  # this shard's deals
    deals = len(mine)
    budget = Budget(iterations=iterations)
    left = [d for d in mine if d not in done]
    if progress is not None:
        progress((deals - len(left)) * rules.players, deals * rules.players)
    for i, d in enumerate(left, start=1):
        start = time.perf_counter()
        out = _play_deal(_Job(rules, tuple(specs), seed, d, budget))
        row = {
            "deal": d,
            "seconds": time.perf_counter() - start,
            "load": os.getloadavg()[0],
            "games": [_outcome_row(o) for o in out],
        }
        with path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        if progress is not None:
            progress((deals - len(left) + i) * rules.players, deals * rules.players)


def ahead(outcomes: Sequence[GameOutcome], a: int, b: int) -> tuple[int, int]:
    """In how many of the games entry ``a`` finished ahead of entry ``b``, and of how many."""
    return sum(1 for o in outcomes if o.positions[a] < o.positions[b]), len(outcomes)


def ahead_by_deal(outcomes: Sequence[GameOutcome], a: int, b: int) -> dict[int, float]:
    """In each deal, the share of its games in which entry ``a`` finished ahead of ``b``."""
    games: dict[int, list[bool]] = {}
    for o in outcomes:
        games.setdefault(o.deal, []).append(o.positions[a] < o.positions[b])
    return {d: sum(v) / len(v) for d, v in games.items()}


def per_deal(outcomes: Sequence[GameOutcome], entry: int) -> dict[int, tuple[float, float]]:
    """Entry ``entry``'s mean finishing position and share of wins in each deal's games."""
    games: dict[int, list[int]] = {}
    for o in outcomes:
        games.setdefault(o.deal, []).append(o.positions[entry])
    return {d: (sum(p) / len(p), sum(x == 1 for x in p) / len(p)) for d, p in games.items()}


def paired(diffs: Sequence[float]) -> tuple[float, float, float]:
    """The mean of ``diffs`` and its 95% normal interval."""
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def versus(paths: Sequence[Path], others: Sequence[Path], console: Console) -> None:
    """Print entry 0 of the run in ``paths`` against entry 0 of ``others``, paired by deal."""
    head, outcomes, _ = read(*paths)
    head_o, outcomes_o, _ = read(*others)
    for key in ("rules", "players", "seed"):
        if head.get(key) != head_o.get(key):
            raise ValueError(
                f"{quote_value(str(others[0]))} is another run ({key} {head_o.get(key)!r}, "
                f"not {head.get(key)!r}): its deals are not these"
            )
    mine, theirs = per_deal(outcomes, 0), per_deal(outcomes_o, 0)
    deals = sorted(mine.keys() & theirs.keys())
    if len(deals) < 2:
        raise ValueError(f"the two files share {len(deals)} deals: too few to pair")
    pos = paired([mine[d][0] - theirs[d][0] for d in deals])
    win = paired([100 * (mine[d][1] - theirs[d][1]) for d in deals])
    console.print(
        f"{head['bots'][0]} against {head_o['bots'][0]} on the same {len(deals)} deals: "
        f"mean position {pos[0]:+.3f} [{pos[1]:+.3f}, {pos[2]:+.3f}], "
        f"win rate {win[0]:+.1f} points [{win[1]:+.1f}, {win[2]:+.1f}] (paired by deal)"
    )


def report(paths: Sequence[Path], pair: tuple[int, int] | None, console: Console) -> None:
    """Print the arena's tables for the games in ``paths`` (and the share ``--ahead`` asks)."""
    head, outcomes, seconds = read(*paths)
    rules = rules_arg(head["rules"]).for_players(head["players"])
    specs = tuple(head["bots"])
    result = ArenaResult(
        rules,
        specs,
        tuple(entry_labels(specs)),
        head["seed"],
        Budget(iterations=head["iterations"]),
        outcomes=outcomes,
        seconds=seconds,
    )
    _print(console, result)
    if pair is not None:
        a, b = pair
        k, n = ahead(outcomes, a, b)
        low, high = wilson(k, n)
        share = 100 * k / n if n else float("nan")
        console.print(
            f"{result.labels[a]} finished ahead of {result.labels[b]}: {share:.1f}% "
            f"[{100 * low:.1f}–{100 * high:.1f}] ({k} of {n} games)"
        )
        mine, theirs = per_deal(outcomes, a), per_deal(outcomes, b)
        if len(mine) > 1:
            deals = sorted(mine)
            win = paired([100 * (mine[d][1] - theirs[d][1]) for d in deals])
            pos = paired([mine[d][0] - theirs[d][0] for d in deals])
            above = paired([100 * s for s in ahead_by_deal(outcomes, a, b).values()])
            console.print(
                f"{result.labels[a]} less {result.labels[b]}, paired by deal ({len(deals)} deals): "
                f"win rate {win[0]:+.1f} points [{win[1]:+.1f}, {win[2]:+.1f}], "
                f"mean position {pos[0]:+.3f} [{pos[1]:+.3f}, {pos[2]:+.3f}]; ahead "
                f"{above[0]:.1f}% [{above[1]:.1f}–{above[2]:.1f}] over the deals' shares"
            )


def _pair(text: str) -> tuple[int, int]:
    try:
        a, b = (int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected two entry numbers A,B, not {text!r}") from None
    return a, b


def _shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected K/N, as 1/2, not {text!r}") from None
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N, not {text!r}")
    return k, n


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0] if __doc__ else None,
        epilog="The file holds one JSON line of settings, then one line per deal played.",
    )
    parser.add_argument(
        "--rules", default="standard", help="preset or rules code (default standard)"
    )
    parser.add_argument("--players", type=int, help="seats (default: the number of bots)")
    parser.add_argument(
        "--bots", help="one bot per seat, comma-separated, as tienlen arena takes them"
    )
    parser.add_argument("--games", type=int, default=400, help="games, rounded up to whole deals")
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the deals and bots (default 1)"
    )
    parser.add_argument("--iterations", type=int, help="iterations per move for search bots")
    parser.add_argument("--out", type=Path, help="the JSON-lines file to fill (and go on with)")
    parser.add_argument(
        "--shard",
        type=_shard,
        default=(1, 1),
        metavar="K/N",
        help="play only every N-th deal from deal K-1 (one process's share of a run)",
    )
    parser.add_argument(
        "--report",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="only print the figures of a run's files",
    )
    parser.add_argument("--ahead", type=_pair, help="A,B: how often entry A finished ahead of B")
    parser.add_argument(
        "--versus",
        type=Path,
        nargs="+",
        metavar="OTHER",
        help="also compare entry 0 with entry 0 of OTHER (same rules, seats, seed), paired by deal",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 160)
    if args.report is not None:
        report(args.report, args.ahead, console)
        if args.versus is not None:
            versus(args.report, args.versus, console)
        return 0
    if args.bots is None or args.out is None:
        parser.error("--bots and --out are needed to play (or --report FILE)")
    specs = [s.strip() for s in args.bots.split(",") if s.strip()]
    rules = rules_arg(args.rules).for_players(args.players or len(specs))
    if len(specs) != rules.players:
        parser.error(f"{len(specs)} bots for {rules.players} seats")
    # The arena's own progress bar, in games (a deal's rotations are played together).
    _play(
        functools.partial(
            play,
            args.out,
            rules,
            specs,
            games=args.games,
            seed=args.seed,
            iterations=args.iterations,
            shard=args.shard,
        ),
        quiet=args.quiet,
    )
    report([args.out], args.ahead, console)
    if args.versus is not None:
        versus([args.out], args.versus, console)
    return 0


if __name__ == "__main__":
    sys.exit(main())
