"""``tienlen rules``: list the rule sets, or explain one in plain words."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tienlen.describe import SUMMARIES, describe_rules
from tienlen.rules import RULESETS, Rules

from .files import rules_arg


def register(subparsers: Any) -> None:
    """Add the ``rules`` subcommand."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "rules",
        help="list the rule sets, or explain one",
        description=(
            "Without a name, list the rule sets with a one-line summary each. With a name, "
            "explain that rule set in plain words (or print its knobs with --json)."
        ),
    )
    p.add_argument(
        "name",
        nargs="?",
        metavar="NAME",
        help=f"a rule set to explain, one of: {', '.join(RULESETS)}; or a JSON file of "
        "knobs (as --json prints) to check and explain",
    )
    p.add_argument(
        "--players",
        type=int,
        metavar="N",
        help="explain the rules for N players (2-8) instead of the rule set's default",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the rule set's knobs as JSON (the form game records store)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List or explain rule sets."""
    if args.name is None:
        if args.json:
            print(json.dumps({n: Rules.preset(n).to_dict() for n in RULESETS}, indent=2))
            return 0
        width = max(len(n) for n in RULESETS)
        for name in RULESETS:
            print(f"{name:<{width}}  {SUMMARIES.get(name, '')}".rstrip())
        print("\nRun 'tienlen rules NAME' for the full rules of one set.")
        return 0
    rules = rules_arg(args.name)
    if args.players is not None:
        rules = rules.for_players(args.players)
    if args.json:
        print(json.dumps(rules.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(describe_rules(rules), end="")
    return 0
