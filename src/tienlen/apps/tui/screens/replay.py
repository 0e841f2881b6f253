"""Step through a recorded game in the game's own layout, with every hand visible."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..replay import ReplayModel
from ..widgets import HandsView, compose_table_top, show_table_top

__all__ = ["ReplayScreen"]


class ReplayScreen(Screen[None]):
    """Arrow keys step through the actions; page keys jump piles; [ and ] change game."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,space", "step(1)", "Next"),
        Binding("left", "step(-1)", "Back"),
        Binding("down,pagedown", "pile", "End of pile"),
        Binding("home", "go(0)", "Start"),
        Binding("end", "go(-1)", "End"),
        Binding("left_square_bracket", "game(-1)", "Prev game"),
        Binding("right_square_bracket", "game(1)", "Next game"),
        Binding("q,escape", "app.quit", "Quit", show=False),
    ]

    def __init__(self, model: ReplayModel) -> None:
        super().__init__()
        self.model = model

    def compose(self) -> ComposeResult:
        yield from compose_table_top()
        with Vertical(id="hands-box"):
            yield HandsView(id="hands")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#seats-box").border_title = "Table"
        self.query_one("#pile-box").border_title = "Pile"
        self.query_one("#log-box").border_title = "Moves"
        self.query_one("#hands-box").border_title = "Every hand"
        self.model.subscribe(self._show)
        self._show()

    def on_unmount(self) -> None:
        self.model.unsubscribe(self._show)

    def _show(self) -> None:
        view = self.model.view()
        show_table_top(self, view)
        hands = self.query_one(HandsView)
        hands.hands = tuple((s.name, h) for s, h in zip(view.seats, view.hands or (), strict=True))
        hands.turn = next((s.seat for s in view.seats if s.to_act), -1)
        self.query_one("#status", Static).update(Text(view.status, "bold"))

    def action_step(self, n: int) -> None:
        self.model.forward(n)

    def action_go(self, step: int) -> None:
        self.model.go(self.model.last_step if step < 0 else step)

    def action_pile(self) -> None:
        self.model.next_pile()

    def action_game(self, delta: int) -> None:
        self.model.select_game(self.model.index + delta)
