"""``tienlen bot NAME``: serve a built-in bot over the bot protocol on stdin/stdout.

Any host that speaks the protocol (docs/protocol.md) can then use it, for example the
arena itself::

    tienlen arena --bots "cmd:tienlen bot heuristic",greedy,greedy,greedy --games 40
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``bot`` subcommand."""
    from tienlen.players.registry import BOTS

    p = subparsers.add_parser(
        "bot",
        help="serve a built-in bot over the JSON-lines bot protocol",
        description="Run a built-in bot as a protocol bot on stdin/stdout (docs/protocol.md).",
    )
    p.add_argument("name", choices=list(BOTS), help="the bot to serve")
    p.add_argument("--seed", type=int, help="seed of a randomised bot")
    p.add_argument("--iterations", type=int, help="default iterations per move (ismcts)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve the bot until the host says quit."""
    from tienlen.players.protocol import serve
    from tienlen.players.registry import make_bot

    options = {"iterations": args.iterations} if args.iterations else {}
    return serve(make_bot(args.name, seed=args.seed, **options))
