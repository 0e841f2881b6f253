"""End of a game (finishing order, score change) and end of a match (standings)."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ...controller import MatchController
from ...seats import says

__all__ = ["GameOverScreen", "MatchOverScreen"]

_PLACES = ("1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th")


class GameOverScreen(ModalScreen[str]):
    """The finishing order of the game just played and what each seat won or lost."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "next", "Continue"),
        Binding("escape", "next", "Continue", show=False),
    ]

    def __init__(self, controller: MatchController) -> None:
        super().__init__()
        self.controller = controller

    def compose(self) -> ComposeResult:
        ctl = self.controller
        result = ctl.result
        assert result is not None
        game = ctl.game
        scores = ctl.match.scores
        table = Table(expand=True, box=None, padding=(0, 1))
        table.add_column("place")
        table.add_column("player", ratio=1)
        table.add_column("left", justify="right")
        table.add_column("change", justify="right")
        table.add_column("total", justify="right")
        for place, seat in enumerate(result.finish_order):
            delta = result.deltas[seat]
            table.add_row(
                _PLACES[place],
                Text(ctl.label(seat), "bold" if seat == 0 else ""),
                str(game.cards_left(seat)),
                Text(f"{delta:+d}", "green" if delta > 0 else "red" if delta < 0 else ""),
                f"{scores[seat]:+d}",
            )
        head = f"Game {result.number} over: {ctl.names[result.winner]} won"
        if result.instant_win is not None:
            head += f" at once ({result.instant_win[1].replace('-', ' ')})"
        reasons = _reasons(ctl)
        label = "Match summary" if ctl.match_over else "Next game"
        with Vertical(id="dialog"):
            yield Static(Text(head, "bold"), id="dialog-title")
            yield Static(table)
            if reasons:
                yield Static(Text(reasons, "dim"), id="reasons")
            with Horizontal(classes="buttons"):
                yield Button(label, id="next", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#next", Button).focus()

    def action_next(self) -> None:
        self.dismiss("next")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss("next")


def _reasons(ctl: MatchController) -> str:
    """The payments in words, compressed to a few lines."""
    lines = []
    for p in ctl.payments()[:4]:
        payer = says(ctl.names[p.payer], "pays")
        lines.append(f"{payer} {ctl.names[p.payee]} {p.amount}: {p.reason}")
    more = len(ctl.payments()) - 4
    if more > 0:
        lines.append(f"… and {more} more payment{'s' if more > 1 else ''}")
    return "\n".join(lines)


class MatchOverScreen(ModalScreen[str]):
    """The final standings of the match."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "choose('new')", "New match"),
        Binding("q", "choose('quit')", "Quit"),
        Binding("escape", "choose('quit')", "Quit", show=False),
    ]

    def __init__(self, controller: MatchController) -> None:
        super().__init__()
        self.controller = controller

    def compose(self) -> ComposeResult:
        ctl = self.controller
        results = ctl.match.results
        table = Table(expand=True, box=None, padding=(0, 1))
        table.add_column("", width=4)
        table.add_column("player", ratio=1)
        table.add_column("points", justify="right")
        table.add_column("wins", justify="right")
        table.add_column("last", justify="right")
        for rank, (seat, points) in enumerate(ctl.match.standings(), start=1):
            wins = sum(1 for r in results if r.winner == seat)
            losses = sum(1 for r in results if r.loser == seat)
            table.add_row(
                _PLACES[rank - 1],
                Text(ctl.label(seat), "bold" if seat == 0 else ""),
                f"{points:+d}",
                str(wins),
                str(losses),
            )
        best = ctl.match.standings()[0][0]
        head = f"Match over after {len(results)} game{'s' if len(results) > 1 else ''}: "
        head += "you win the match!" if best == 0 else f"{ctl.names[best]} wins the match"
        with Vertical(id="dialog"):
            yield Static(Text(head, "bold"), id="dialog-title")
            yield Static(table)
            with Horizontal(classes="buttons"):
                yield Button("New match", id="new", variant="primary")
                yield Button("Quit", id="quit")

    def on_mount(self) -> None:
        self.query_one("#new", Button).focus()

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "quit")
