"""The keys of the game screen."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ..texts import HELP_KEYS

__all__ = ["HelpScreen"]


class HelpScreen(ModalScreen[None]):
    """A box listing the keys; any of escape, enter, q or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q,question_mark", "close", "Close"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("[b]Keys[/b]", id="dialog-title")
            yield Static(HELP_KEYS)

    def action_close(self) -> None:
        self.dismiss(None)
