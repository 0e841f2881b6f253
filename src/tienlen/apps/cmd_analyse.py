"""``tienlen analyse``: value and label every decision of a recorded game
(:mod:`tienlen.analysis.review`)."""

from __future__ import annotations

import argparse
import contextlib
import json
from typing import Any, NamedTuple

from tienlen.analysis.decisions import DEFAULT_SAMPLES, format_option
from tienlen.analysis.review import LABELS, THRESHOLDS, GameReview, review_game
from tienlen.cards import format_cards, parse_cards
from tienlen.inputs import (
    MAX_GAMES,
    expect_int,
    expect_list,
    expect_str,
    fail,
    load_json,
    quote_value,
)
from tienlen.match_record import read_games
from tienlen.record import GameRecord, RecordError
from tienlen.text import NAME_CHARS, printable

from .argtypes import at_least_one
from .files import read_input, write_atomic

#: The analysis file's ``format`` and version (docs/analysis.md).
ANALYSIS_FORMAT = "tienlen-analysis"
ANALYSIS_VERSION = 1

_STYLE = {
    "best": "bold green",
    "good": "green",
    "inaccuracy": "yellow",
    "mistake": "dark_orange",
    "blunder": "bold red",
}
_BARS = "▁▂▃▄▅▆▇█"


def register(subparsers: Any) -> None:
    """Add the ``analyse`` subcommand."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "analyse",
        help="find the mistakes of a recorded game: every decision valued and labelled",
        description=(
            "Replay a game record (JSON or text form; a saved match: every game) and value "
            "every choice of every decision of the chosen seats from that seat's own "
            "information: the cards it had not seen are dealt at random as the ismcts bot "
            "deals them, and the game is played out by the heuristic bot. The choice made "
            "is labelled by the probability of winning it gave up against the best one: "
            f"best, good, inaccuracy (from {THRESHOLDS['inaccuracy']:.0%}), mistake (from "
            f"{THRESHOLDS['mistake']:.0%}), blunder (from {THRESHOLDS['blunder']:.0%}), "
            "less two standard errors. Small endgames also get the open-hands solver's "
            "exact verdict. docs/analysis.md explains the figures."
        ),
    )
    p.add_argument("file", metavar="RECORD", help="the record or saved match ('-': standard input)")
    p.add_argument(
        "--seat",
        type=int,
        action="append",
        metavar="N",
        help="analyse seat N's decisions (repeat for more; default: every seat)",
    )
    p.add_argument(
        "--samples",
        type=at_least_one,
        default=DEFAULT_SAMPLES,
        metavar="K",
        help=f"deals the best choices are played out on (default {DEFAULT_SAMPLES}): more is "
        "slower and more precise",
    )
    p.add_argument("--seed", default="0", help="the seed of the sampled deals (default 0)")
    p.add_argument(
        "--json", metavar="FILE", help="also write the analysis as JSON to FILE (docs/analysis.md)"
    )
    p.add_argument("--all", action="store_true", help="list every decision, not only the errors")
    p.add_argument(
        "--ascii", action="store_true", help="write cards with letters (3s 10h) instead of ♠♥"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Analyse every game of the file."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    try:
        records = read_games(read_input(args.file))
    except RecordError as e:
        raise RecordError(f"{args.file}: {e}") from None
    console = Console(highlight=False)
    reviews = []
    for number, record in enumerate(records, 1):
        title = f"game {number} of {len(records)}" if len(records) > 1 else "the game"
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        ) as bar:
            task = bar.add_task(f"analysing {title}", total=None)

            def progress(done: int, total: int, task: Any = task, bar: Any = bar) -> None:
                bar.update(task, completed=done, total=total)

            try:
                review = review_game(
                    record,
                    seats=args.seat,
                    samples=args.samples,
                    seed=args.seed,
                    progress=progress,
                )
            except RecordError as e:
                where = f"{args.file}: game {number}" if len(records) > 1 else args.file
                raise RecordError(f"{where}: {e}") from None
        if len(records) > 1:
            console.rule(f"Game {number} of {len(records)}")
        show(review, console=console, ascii=args.ascii, every=args.all)
        reviews.append(review)
    if args.json:
        data = {
            "format": ANALYSIS_FORMAT,
            "version": ANALYSIS_VERSION,
            "games": [r.to_dict() for r in reviews],
        }
        write_atomic(args.json, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
        console.print(f"Analysis written to {printable(args.json, limit=200)}")
    return 0


def names_of(record: GameRecord) -> tuple[str, ...]:
    """Each seat's name as shown: the record's (escaped) or S0, S1, ..."""
    players = record.rules.players
    given = record.names or ()
    return tuple(
        f"{printable(given[s], limit=NAME_CHARS)} (S{s})" if s < len(given) else f"S{s}"
        for s in range(players)
    )


def sparkline(values: list[float]) -> str:
    """A one-line chart of probabilities (0 to 1)."""
    top = len(_BARS) - 1
    return "".join(_BARS[min(top, max(0, round(v * top)))] for v in values)


def show(review: GameReview, *, console: Any, ascii: bool = False, every: bool = False) -> None:
    """Print ``review``: the decisions that lost something (all with ``every``), then each
    player's accuracy, labels and curve."""
    from rich.markup import escape
    from rich.table import Table

    names = names_of(review.record)

    def cards(move: Any) -> str:
        return escape(format_option(move, ascii=ascii))

    table = Table(title="Decisions", title_justify="left")
    for heading in ("#", "player", "played", "label", "lost", "best", "win (best)", "exact"):
        table.add_column(heading, justify="right" if heading in ("#", "lost") else "left")
    for d in review.decisions:
        if d.label in ("best", "good") and not every:
            continue
        best = d.values.best
        lost = "" if d.label == "best" else f"{d.loss.mean:.0%} ± {d.loss.error:.0%}"
        exact = ""
        if d.exact is not None:
            forced = [m for m in d.values.choices if d.exact.get(m.choice.mask)]
            if not forced:
                exact = "no forced win"
            elif d.exact.get(d.played.mask):
                exact = "kept the forced win"
            else:
                exact = f"missed the forced win {cards(forced[0].choice)}"
        table.add_row(
            str(d.number),
            escape(names[d.seat]),
            cards(d.played),
            f"[{_STYLE[d.label]}]{d.label}[/]",
            lost,
            "" if d.label == "best" else cards(best.choice),
            f"{best.win.mean:.0%} ± {best.win.error:.0%}",
            exact,
        )
    if table.row_count:
        console.print(table)
    else:
        console.print("No decision lost anything measurable.")
    console.print("Players", style="italic")
    for seat in review.seats:
        player = review.player(seat)
        accuracy = player["accuracy"]
        if accuracy is None:
            console.print(f"  {escape(names[seat])}: no decision to analyse")
            continue
        counts = player["labels"]
        labels = ", ".join(
            f"{counts[name]} [{_STYLE[name]}]{name}[/]" for name in LABELS if counts[name]
        )
        curve = sparkline([w for _, w in player["curve"]])
        console.print(
            f"  {escape(names[seat])}: accuracy {accuracy:.1f}% over "
            f"{len(review.of(seat))} decisions ({labels})\n    win probability: {curve}"
        )
    console.print(
        f"{len(review.decisions)} decisions, {review.samples} deals each for the best choices."
    )


class Mark(NamedTuple):
    """An analysed decision as a replay shows it."""

    label: str
    choice: str
    best: str
    loss: float
    error: float

    def words(self, *, ascii: bool = False) -> str:
        """E.g. ``"mistake (12% ± 3% lost); best: 9♠"``."""
        if self.label == "best":
            return "best"
        best = self.best
        if not ascii and best != "pass":
            with contextlib.suppress(ValueError):  # else shown as written
                best = format_cards(parse_cards(best))
        return f"{self.label} ({self.loss:.0%} ± {self.error:.0%} lost); best: {best}"


class AnalysisError(ValueError):
    """An analysis file that cannot be read; the message says where."""


def read_analysis(data: str | bytes) -> list[dict[int, Mark]]:
    """The marks of each game of an analysis file (what ``tienlen analyse --json`` writes),
    by action number. Fields it does not use are not checked."""
    doc = load_json(data, error=AnalysisError, what="analysis")
    if not isinstance(doc, dict) or doc.get("format") != ANALYSIS_FORMAT:
        fail(AnalysisError, "analysis", f"not a {ANALYSIS_FORMAT} file")
    version = expect_int(doc.get("version"), "version", error=AnalysisError, lo=1, hi=1)
    assert version == ANALYSIS_VERSION
    games = expect_list(doc.get("games"), "games", error=AnalysisError, limit=MAX_GAMES)
    out = []
    for g, game in enumerate(games):
        where = f"games[{g}]"
        game = _object(game, where)
        decisions = expect_list(
            game.get("decisions"), f"{where}.decisions", error=AnalysisError, limit=10_000
        )
        marks: dict[int, Mark] = {}
        for i, d in enumerate(decisions):
            at = f"{where}.decisions[{i}]"
            d = _object(d, at)
            number = expect_int(
                d.get("number"), f"{at}.number", error=AnalysisError, lo=1, hi=10**6
            )
            label = expect_str(d.get("label"), f"{at}.label", error=AnalysisError)
            if label not in LABELS:
                fail(AnalysisError, f"{at}.label", f"not one of {', '.join(LABELS)}: {label!r}")
            loss = _object(d.get("loss"), f"{at}.loss")
            mean, error = (_number(loss.get(k), f"{at}.loss.{k}") for k in ("mean", "error"))
            marks[number] = Mark(
                label,
                expect_str(d.get("choice"), f"{at}.choice", error=AnalysisError, limit=2000),
                expect_str(d.get("best"), f"{at}.best", error=AnalysisError, limit=2000),
                mean,
                error,
            )
        out.append(marks)
    return out


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        fail(AnalysisError, where, f"must be an object, not {quote_value(value)}")
    return value


def _number(value: object, where: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        fail(AnalysisError, where, f"must be a number, not {quote_value(value)}")
    return float(value)
