"""Measure the ladder of levels: one round-robin arena run over the levels the apps offer.

Every four of the levels sit at one table (all the ways of choosing them; five levels make
five tables) and play the same duplicate deals, each in its four seat rotations
(:func:`tienlen.players.roundrobin.round_robin`). Printed: each level's Bradley-Terry
rating on the Elo scale (``beginner`` at 0) with its 95% bootstrap interval over deals, its
win rate over all its games, and how often each level finished ahead of the one below it
and of every other (95% Wilson intervals).

Run: ``nice -n 10 .venv/bin/python bench/ladder.py --deals 40 --seed 7 --jobs 2``;
``--entry NAME=SPEC`` puts a candidate (a registry bot spec) in the round robin as well, or
in a level's place when NAME is a level's.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from tienlen import Rules
from tienlen.players.levels import LEVELS
from tienlen.players.registry import parse_spec
from tienlen.players.roundrobin import RoundRobin, round_robin


def _entry(text: str) -> tuple[str, str]:
    name, eq, spec = text.partition("=")
    if not eq or not name or not spec:
        raise argparse.ArgumentTypeError(f"write NAME=SPEC, not {text!r}")
    try:
        parse_spec(spec)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return name, spec


def entries_of(extra: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The levels (a level named in ``extra`` takes its spec from there), then the other
    ``extra`` entries."""
    given = dict(extra)
    out = [(name, given.pop(name, level.spec)) for name, level in LEVELS.items()]
    return out + list(given.items())


def report(rr: RoundRobin, console: Console) -> dict[str, object]:
    """Print the ratings and the head-to-head table; return the figures for ``--json``."""
    ratings = rr.ratings()
    table = Table(title=f"ladder: {rr.players} players, {len(rr.tables)} tables")
    for column in ("level", "spec", "Elo [95% CI]", "win % (games)", "ahead of the one below"):
        table.add_column(column, justify="left" if column in ("level", "spec") else "right")
    rows = []
    for i, (r, spec) in enumerate(zip(ratings, rr.specs, strict=True)):
        won, played = rr.win_rate(r.label)
        below = rr.head_to_head(r.label, rr.labels[i - 1]) if i else None
        gap = (
            f"{100 * below.rate:.1f}% [{100 * below.ci[0]:.1f}–{100 * below.ci[1]:.1f}] "
            f"of {below.games}"
            if below
            else ""
        )
        table.add_row(
            r.label,
            spec,
            f"{r.elo:+.0f} [{r.low:+.0f}–{r.high:+.0f}]",
            f"{100 * won / played:.1f} ({played})",
            gap,
        )
        rows.append(
            {
                "label": r.label,
                "spec": spec,
                "elo": r.elo,
                "elo_ci95": [r.low, r.high],
                "wins": won,
                "games": played,
            }
        )
    console.print(table)
    matrix = Table(title="finished ahead of (row against column), % of the games both played")
    matrix.add_column("")
    for label in rr.labels:
        matrix.add_column(label, justify="right")
    pairs = []
    for a in rr.labels:
        cells = []
        for b in rr.labels:
            if a == b:
                cells.append("")
                continue
            h = rr.head_to_head(a, b)
            cells.append(f"{100 * h.rate:.1f}")
            pairs.append({"first": a, "second": b, "ahead": h.ahead, "games": h.games})
        matrix.add_row(a, *cells)
    console.print(matrix)
    console.print(f"{rr.seconds:.0f} s of arena time")
    return {"entries": rows, "head_to_head": pairs, "seconds": rr.seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog="Run it with nice -n 10 on a shared machine; see docs/bots.md, 'Levels'.",
    )
    parser.add_argument("--rules", default="standard", help="rule set (default standard)")
    parser.add_argument("--players", type=int, default=4, help="seats at each table (default 4)")
    parser.add_argument("--deals", type=int, default=40, help="deals at each table (default 40)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the deals and bots")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--entry",
        type=_entry,
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="a candidate entry (replaces the level NAME if there is one); repeatable",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    rules = Rules.from_code(args.rules).for_players(args.players)
    entries = entries_of(args.entry)
    console = Console() if sys.stdout.isatty() else Console(width=140)  # no wrapped rows
    with Progress(
        *Progress.get_default_columns(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as bar:
        task = bar.add_task("games", total=None)

        def heard(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        rr = round_robin(
            rules, entries, deals=args.deals, seed=args.seed, jobs=args.jobs, progress=heard
        )
    figures = report(rr, console)
    if args.json:
        figures |= {
            "rules": rules.code(),
            "deals": args.deals,
            "seed": args.seed,
            "command": " ".join(sys.argv),
        }
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
