"""``tienlen play``: play against bots in the terminal (Textual), or line by line (``--plain``).

Examples::

    tienlen play                                  # the new-match screen
    tienlen play --rules pagat --players 3 --start --fast
    tienlen play --plain --seed 7 --bots beginner,easy,medium < moves.txt
    tienlen play --resume tienlen-match.json
    tienlen play --replay game.json               # step through a record, every hand shown
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from tienlen import RULESETS
from tienlen.inputs import quote_value
from tienlen.match import parse_seed

from .files import rules_arg

__all__ = ["register", "run", "settings_from_args"]

_DEFAULT_SAVE = "tienlen-match.json"


def register(subparsers: Any) -> None:
    """Add the ``play`` subcommand."""
    from tienlen.players.levels import LEVELS
    from tienlen.players.registry import BOTS

    from .tui.texts import OPTIONS

    p = subparsers.add_parser(
        "play",
        help="play Tiến Lên against bots in the terminal",
        description=(
            "Play Tiến Lên against bots: a full-screen terminal game, or with --plain a "
            "line-based game for screen readers, dumb terminals and pipes."
        ),
        epilog="House-rule options: " + "; ".join(f"{o.key}: {o.label}" for o in OPTIONS),
    )
    p.add_argument(
        "--rules",
        metavar="CODE",
        help=f"rule set ({', '.join(RULESETS)}), a rules code such as standard.cong, "
        "or a JSON file of knobs (default standard)",
    )
    p.add_argument("--players", type=int, help="number of players, 2-8 (default: the rule set's)")
    p.add_argument("--decks", type=int, choices=(1, 2), help="1 or 2 decks (two for 5-8 players)")
    p.add_argument(
        "--bots",
        default="easy",
        help="levels for the other seats, comma-separated, one per seat or one for all "
        f"({', '.join(LEVELS)}; default easy), or built-in bots by name ({', '.join(BOTS)})",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY",
        help="switch on a house rule (repeatable)",
    )
    p.add_argument("--games", type=int, default=None, help="games in the match (default 5)")
    p.add_argument("--target", type=int, help="end the match when a player reaches this score")
    p.add_argument(
        "--seed",
        help="seed of the deals and bots, shown in the title (default: a secret random one, "
        "kept only in the saved records)",
    )
    p.add_argument("--fast", action="store_true", help="bots play at once (no pause)")
    p.add_argument(
        "--delay",
        type=_delay,
        default=0.6,
        help="seconds a bot pauses before playing (default 0.6)",
    )
    p.add_argument("--start", action="store_true", help="skip the new-match screen")
    p.add_argument(
        "--save",
        default=_DEFAULT_SAVE,
        metavar="FILE",
        help=f"where ctrl+s saves the match ({_DEFAULT_SAVE})",
    )
    p.add_argument("--resume", metavar="FILE", help="resume a saved match")
    p.add_argument(
        "--switch-rules",
        action="store_true",
        help="with --resume: play on under the save's rules even if --rules, --players, "
        "--decks or --option ask for others",
    )
    p.add_argument(
        "--replay",
        metavar="FILE",
        help="step through a game record or saved match, every hand visible",
    )
    p.add_argument("--plain", action="store_true", help="line-based game on stdin/stdout")
    p.add_argument("--ascii", action="store_true", help="with --plain: suits as letters (3s 10h)")
    p.set_defaults(func=run)


def _delay(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {quote_value(text)}") from None
    if not 0 <= value <= 60:  # nan fails this too
        raise argparse.ArgumentTypeError(f"must be 0 to 60 seconds, not {text}")
    return value


def settings_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~tienlen.apps.controller.MatchSetup` the options describe."""
    from .controller import MatchSetup
    from .tui.texts import apply_options

    rules = rules_arg(args.rules or "standard")
    if args.players is not None:
        rules = rules.for_players(args.players)
    if args.decks is not None:
        rules = dataclasses.replace(rules, decks=args.decks)
    rules = apply_options(rules, frozenset(args.option))
    names = [b.strip() for b in args.bots.split(",") if b.strip()]
    if not names:
        raise ValueError("--bots needs at least one level or bot name")
    others = rules.players - 1
    if len(names) == 1:
        names *= others
    elif len(names) != others:
        raise ValueError(
            f"--bots lists {len(names)} bots but {rules.players} players need {others}"
        )
    games = args.games
    if games is None and args.target is None:
        games = 5
    return MatchSetup(
        rules=rules,
        bots=tuple(names),
        games=games,
        target=args.target,
        seed=None if args.seed is None else parse_seed(args.seed),
        delay=0.0 if args.fast else args.delay,
    )


def needs_terminal(what: str) -> None:
    """Refuse to start a full-screen view unless stdin and stdout are a terminal (a
    Textual app on a pipe or /dev/null would spin instead of reading keys)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise ValueError(
            f"{what} needs a terminal on standard input and output; "
            "use --plain for the line-based game on pipes and files"
        )


def run(args: argparse.Namespace) -> int:
    """Run ``tienlen play``."""
    if not args.plain:
        needs_terminal("the terminal game")
    if args.replay:
        if args.plain:
            raise ValueError(
                "--replay shows the terminal viewer; use `tienlen replay FILE` for text"
            )
        from .tui import run_replay

        run_replay(args.replay)
        return 0
    settings = settings_from_args(args)
    controller = None
    if args.resume:
        from .controller import MatchController

        controller = MatchController.load(args.resume, delay=settings.delay)
        asked = args.rules or args.players or args.decks or args.option
        if asked and settings.rules != controller.rules and not args.switch_rules:
            raise ValueError(
                f"{args.resume} is a match under other rules ({controller.rules.name}, "
                f"{controller.rules.players} players) than you asked for "
                f"({settings.rules.name}, {settings.rules.players} players); resume it "
                "without rule options, or add --switch-rules to play on under the save's rules"
            )
    if args.plain:
        from .plain import play_plain

        return play_plain(settings, controller=controller, ascii=args.ascii)
    from .tui import run_play

    run_play(settings, controller=controller, setup=not args.start, save_path=args.save)
    return 0
