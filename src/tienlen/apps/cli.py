"""The ``tienlen`` command. Each subcommand lives in its own ``cmd_*`` module that exposes
``register(subparsers)``; this file only assembles them."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import re
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


#: The extra each command needs beyond a bare install (the terminal game's packages are the
#: package's own dependencies; every other command runs on them).
COMMAND_EXTRAS = {"serve": "server", "train": "env"}


def extra_for(module: str, command: str | None = None) -> str | None:
    """The extra of the installed package's metadata that installs ``module`` (a top-level
    import name): ``command``'s own extra (:data:`COMMAND_EXTRAS`) when it lists it, else the
    first that does; ``""`` for a dependency of the bare package; ``None`` when no extra
    lists it (or the package metadata is not installed)."""
    try:
        requires = importlib.metadata.requires("tienlen") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    holders: list[str] = []
    for line in requires:
        spec, _, marker = line.partition(";")
        name = re.match(r"[A-Za-z0-9_.-]*", spec.strip())
        if name is None or name.group(0).lower().replace("-", "_") != module.lower():
            continue
        extra = re.search(r"""extra\s*==\s*['"]([^'"]+)['"]""", marker)
        holders.append(extra.group(1) if extra else "")
    if not holders:
        return None
    preferred = COMMAND_EXTRAS.get(command or "")
    return preferred if preferred in holders else holders[0]


def missing_module_message(error: ModuleNotFoundError, command: str | None) -> str:
    """One line for a command that stopped on a module that is not installed: which extra
    installs it and the command that does."""
    module = (error.name or "").split(".")[0]
    extra = extra_for(module, command)
    what = f"tienlen {command}" if command else "tienlen"
    if extra is None:
        return f"{what} needs {module!r}, which is not installed"
    if not extra:
        return f"{what} needs {module!r}, one of tienlen's own dependencies: pip install tienlen"
    return f"{what} needs the {extra} extra: pip install 'tienlen[{extra}]' ({error})"


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
    except ModuleNotFoundError as e:
        if (e.name or "tienlen").split(".")[0] == "tienlen":
            raise  # a module of our own is missing: a broken install, not a missing extra
        print(f"tienlen: error: {missing_module_message(e, args.command)}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as e:
        # one line, control characters escaped, cut short: it may quote a file or a bot
        print(f"tienlen: error: {printable(' '.join(str(e).split()), limit=2000)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
