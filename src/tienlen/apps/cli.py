"""The ``tienlen`` command. Each subcommand lives in its own ``cmd_*`` module that exposes
``register(subparsers)``; this file only assembles them."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

import tienlen
from tienlen.text import printable

# Subcommand modules, in the order ``tienlen --help`` lists them.
COMMANDS = (
    *("play", "rules", "replay", "analyse", "solve", "puzzle"),
    *("arena", "bot", "serve", "train"),
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tienlen",
        description="Tiến Lên (Thirteen, Killer, Viet Cong): play, study and measure bots.",
    )
    engine = "compiled with mypyc" if tienlen.COMPILED else "interpreted"
    parser.add_argument(
        "--version",
        action="version",
        version=f"tienlen {tienlen.__version__} (engine {engine})",
        help="print the version and whether the engine runs compiled, then exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"tienlen.apps.cmd_{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except (ValueError, OSError) as e:
        # one line, control characters escaped, cut short: it may quote a file or a bot
        print(f"tienlen: error: {printable(' '.join(str(e).split()), limit=2000)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
