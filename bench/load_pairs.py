"""Before and after for the load benchmark: the server of two source trees, run in turn.

Runs ``bench/server_load.py`` (with the options after ``--``) against the server code of the
``--before`` tree, then of the ``--after`` tree (each a ``src`` folder, put on ``PYTHONPATH``
of the server process), ``--pairs`` times, alternating; prints each run's server CPU time per
action as it ends, then both medians and their ratio (after / before). Alternating pairs and
CPU time (not wall time) are what stay comparable on a machine that other work shares: a
change of load moves both trees alike.

    .venv/bin/python bench/load_pairs.py --before ../old/src --after src --pairs 6 \\
        -- --tables 32 --games 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).with_name("server_load.py")
FIGURE = "server CPU ms per action"


def one_run(src: Path, options: list[str]) -> float:
    """One load benchmark against the server in ``src``: its CPU milliseconds per action."""
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    out = subprocess.run(
        [sys.executable, str(BENCH), *options],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in out.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == FIGURE:
            return float(value)
    raise RuntimeError(f"no {FIGURE!r} in the benchmark's output:\n{out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the old tree's src folder")
    parser.add_argument("--after", type=Path, required=True, help="the new tree's src folder")
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("options", nargs="*", help="server_load.py's options (after --)")
    args = parser.parse_args()
    runs: dict[str, list[float]] = {"before": [], "after": []}
    loads = []
    for pair in range(1, args.pairs + 1):
        for name in ("before", "after"):
            figure = one_run(getattr(args, name), args.options)
            runs[name].append(figure)
            load = os.getloadavg()
            loads.append(load[0])
            print(
                f"{time.strftime('%H:%M:%S')} pair {pair} {name}: {figure:.2f} ms "
                f"(load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})",
                flush=True,
            )
    before, after = (statistics.median(runs[k]) for k in ("before", "after"))
    print(f"before: {', '.join(f'{x:.2f}' for x in runs['before'])}; median {before:.3f} ms")
    print(f"after:  {', '.join(f'{x:.2f}' for x in runs['after'])}; median {after:.3f} ms")
    print(f"after / before: {after / before:.3f}")
    cheaper = sum(a < b for a, b in zip(runs["after"], runs["before"], strict=True))
    print(f"pairs where after < before: {cheaper} of {args.pairs}")
    print(f"1-minute load average: {min(loads):.2f} to {max(loads):.2f}")


if __name__ == "__main__":
    main()
