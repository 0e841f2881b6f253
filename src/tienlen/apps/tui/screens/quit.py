"""Quitting in the middle of a match: save it first, quit without saving, or play on."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

__all__ = ["QuitScreen"]


class QuitScreen(ModalScreen[str]):
    """Asks before a match in progress is left: dismissed with ``"save"`` (save, then quit),
    ``"quit"`` (quit without saving) or ``"stay"`` (escape: play on)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "choose('stay')", "Play on"),
    ]

    def __init__(self, save_path: Path) -> None:
        super().__init__()
        self.save_path = save_path

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text("Quit in the middle of the match?", "bold"), id="dialog-title")
            yield Static(
                f"Saved, it goes on later from where it is: Resume saved on the new-match "
                f"screen, or tienlen play --resume {self.save_path}."
            )
            with Horizontal(classes="buttons"):
                yield Button("Save and quit", id="save", variant="primary")
                yield Button("Quit", id="quit")
                yield Button("Play on", id="stay")

    def on_mount(self) -> None:
        self.query_one("#save", Button).focus()

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "stay")
