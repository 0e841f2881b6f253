"""``tienlen rules``: list the rule sets, explain one (a preset or a rules code), or say how
two differ."""

from __future__ import annotations

import argparse
import json
from typing import Any

from tienlen.describe import SUMMARIES, describe_differences, describe_rules
from tienlen.rules import RULESETS, Rules

from .files import rules_arg


def register(subparsers: Any) -> None:
    """Add the ``rules`` subcommand."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "rules",
        help="list the rule sets, explain one, or compare two",
        description=(
            "Without a name, list the rule sets with a one-line summary each. With a name or "
            "a rules code (such as standard.direction-anticlockwise.cong), explain those rules "
            "in plain words (or print their knobs with --json). 'tienlen rules diff A B' says, "
            "one line per rule, how rules A and B (names or codes) differ."
        ),
    )
    p.add_argument(
        "name",
        nargs="*",
        metavar="CODE",
        help=f"a rule set ({', '.join(RULESETS)}), a rules code or a JSON file of knobs; "
        "or: diff A B",
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
    """List, explain or compare rule sets."""
    words: list[str] = args.name
    if words[:1] == ["diff"]:
        if len(words) != 3:
            raise ValueError("write: tienlen rules diff A B (two rule sets or rules codes)")
        return _diff(rules_arg(words[1]), rules_arg(words[2]))
    if len(words) > 1:
        raise ValueError(f"explain one rule set at a time, not {len(words)}: {' '.join(words)}")
    if not words:
        if args.json:
            print(json.dumps({n: Rules.preset(n).to_dict() for n in RULESETS}, indent=2))
            return 0
        width = max(len(n) for n in RULESETS)
        for name in RULESETS:
            print(f"{name:<{width}}  {SUMMARIES.get(name, '')}".rstrip())
        print("\nRun 'tienlen rules NAME' for the full rules of one set, 'tienlen rules CODE'")
        print("for a house game's code, and 'tienlen rules diff A B' to compare two.")
        return 0
    rules = rules_arg(words[0])
    if args.players is not None:
        rules = rules.for_players(args.players)
    if args.json:
        print(json.dumps(rules.to_dict(), ensure_ascii=False, indent=2))
        return 0
    print(describe_rules(rules), end="")
    if rules.code() != rules.name:
        print(f"\nRules code: {rules.code()}")
    return 0


def _diff(a: Rules, b: Rules) -> int:
    lines = describe_differences(a, b)
    if not lines:
        print(f"{a.code()} and {b.code()} are the same rules.")
        return 0
    rules = "rule differs" if len(lines) == 1 else "rules differ"
    print(f"{a.code()} → {b.code()}: {len(lines)} {rules}")
    for line in lines:
        print(f"- {line}")
    return 0
