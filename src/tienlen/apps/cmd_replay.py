"""``tienlen replay``: show a recorded game move by move."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from tienlen.cards import cards_of_mask, format_cards
from tienlen.match_record import read_games
from tienlen.record import GameRecord, RecordedAction, RecordError, replay
from tienlen.scoring import payments
from tienlen.text import NAME_CHARS, printable

from .cmd_analyse import AnalysisError, Mark, read_analysis
from .files import read_input


def register(subparsers: Any) -> None:
    """Add the ``replay`` subcommand."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "replay",
        help="show a recorded game move by move",
        description=(
            "Replay a game record (the JSON form or the text form) through the rules engine "
            "and print every action with the hands, then the result and the scores. A saved "
            "match (tienlen-match JSON) is replayed game by game."
        ),
    )
    p.add_argument(
        "file",
        metavar="FILE",
        help="the record or saved match to replay ('-' reads standard input)",
    )
    p.add_argument(
        "--step", action="store_true", help="wait for Enter after each action before the next"
    )
    p.add_argument(
        "--ascii", action="store_true", help="write cards with letters (3s 10h) instead of ♠♥"
    )
    p.add_argument(
        "--tui",
        action="store_true",
        help="step through the game in the terminal game's viewer, every hand visible",
    )
    p.add_argument(
        "--analysis",
        metavar="FILE",
        help="mark each analysed decision with its label and the best choice (a file "
        "written by tienlen analyse --json)",
    )
    p.add_argument(
        "--no-hands",
        dest="hands",
        action="store_false",
        help="do not show the hands after each action",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Replay one record file."""
    if args.tui:
        if args.file == "-":
            raise ValueError("--tui needs a file name, not standard input")
        from .cmd_play import needs_terminal
        from .tui import run_replay

        needs_terminal("the replay viewer (--tui)")

        run_replay(args.file, analysis=args.analysis)
        return 0
    try:
        records = read_games(read_input(args.file))
    except RecordError as e:
        raise RecordError(f"{args.file}: {e}") from None
    marks: list[dict[int, Mark]] = [{} for _ in records]
    if args.analysis:
        try:
            marks = read_analysis(read_input(args.analysis))
        except AnalysisError as e:
            raise AnalysisError(f"{args.analysis}: {e}") from None
        if len(marks) != len(records):
            raise ValueError(
                f"{args.analysis} analyses {len(marks)} games, {args.file} holds {len(records)}"
            )
    for number, record in enumerate(records, 1):
        if len(records) > 1:
            print(f"{'' if number == 1 else chr(10)}=== Game {number} of {len(records)} ===")
        try:
            show(
                record,
                out=sys.stdout,
                step=args.step,
                ascii=args.ascii,
                hands=args.hands,
                marks=marks[number - 1],
            )
        except ValueError as e:
            where = f"{args.file}: game {number}" if len(records) > 1 else args.file
            raise RecordError(f"{where}: {e}") from None
    return 0


def show(
    record: GameRecord,
    *,
    out: TextIO,
    step: bool = False,
    ascii: bool = False,
    hands: bool = True,
    marks: Mapping[int, Mark] | None = None,
) -> None:
    """Print ``record`` action by action (the replay raises on an illegal action), with the
    label of each decision ``marks`` holds (by action number)."""
    rules = record.rules
    # names come from the file: escaped, so a record cannot retitle or clear the terminal
    names = tuple(printable(n, limit=NAME_CHARS) for n in record.names or ()) or tuple(
        f"S{i}" for i in range(rules.players)
    )

    def cards(mask: int) -> str:
        return format_cards(cards_of_mask(mask), ascii=ascii) or "-"

    def who(seat: int) -> str:
        return names[seat] if names[seat] == f"S{seat}" else f"{names[seat]} (S{seat})"

    game = record.new_game()
    print(f"{rules.code()}, {rules.players} players, {len(record.actions)} actions", file=out)
    if record.seed is not None:
        print(f"seed {printable(str(record.seed), limit=200)}", file=out)
    print("Hands dealt:", file=out)
    for seat, mask in enumerate(game.hand_masks):
        print(f"  {who(seat)}: {cards(mask)}", file=out)
    if game.instant_win is not None:
        seat, hand = game.instant_win
        print(f"{who(seat)} wins at once with {hand} (tới trắng).", file=out)
    for s in replay(record):
        g = s.game
        if s.leads:
            print(f"-- {who(s.action.seat)} leads a fresh pile --", file=out)
        words = _words(s.action, ascii)
        if s.action.kind == "ask":
            asked = s.action.partner
            n = g.cards_left(asked)
            words = f"asks {who(asked)}: {n} card{'s' if n != 1 else ''}"
        print(f"{s.number:4}. {who(s.action.seat)} {words}", file=out)
        mark = (marks or {}).get(s.number)
        if mark is not None:
            print(f"        ^ {printable(mark.words(ascii=ascii), limit=300)}", file=out)
        if hands:
            for seat in _involved(s.action):
                print(f"        {who(seat)} holds {cards(g.hand_masks[seat])}", file=out)
        if g.phase == "play" and s.action.kind in ("play", "pass"):
            left = g.cards_left(s.action.seat)
            if left == 0:
                place = g.finish_order.index(s.action.seat) + 1
                print(f"        {who(s.action.seat)} is out, place {place}", file=out)
        if step and not g.is_over:
            out.flush()
            try:
                input("[Enter] ")
            except EOFError:
                step = False
        game = g
    print("", file=out)
    if not game.is_over:
        print("The record stops before the end of the game.", file=out)
        return
    order = ", ".join(f"{i}. {who(seat)}" for i, seat in enumerate(game.finish_order, 1))
    print(f"Result: {order}", file=out)
    deltas = [0] * rules.players
    for p in payments(game):
        deltas[p.payer] -= p.amount
        deltas[p.payee] += p.amount
        print(f"  {who(p.payer)} pays {who(p.payee)} {p.amount}: {p.reason}", file=out)
    print("Scores: " + ", ".join(f"{who(s)} {d:+d}" for s, d in enumerate(deltas)), file=out)


def _words(a: RecordedAction, ascii: bool) -> str:
    text = a.words(ascii=ascii).split(" ", 1)[1]
    if a.kind == "play":
        return f"plays {text}"
    if a.kind == "pass":
        return "passes"
    return text


def _involved(a: RecordedAction) -> tuple[int, ...]:
    if a.kind == "offer":
        return ()
    if a.kind == "accept":
        return (a.seat,)
    if a.kind in ("pass", "refuse", "ask"):
        return ()
    return (a.seat,)
