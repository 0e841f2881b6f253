"""The Textual application: a setup screen, the game screen, and the replay viewer."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from ..controller import MatchController, MatchSetup
from .replay import ReplayModel
from .screens import GameScreen, ReplayScreen, SetupScreen

__all__ = ["TienLenApp"]


class TienLenApp(App[None]):
    """Tiến Lên in the terminal.

    Give ``controller`` to open a match at once (tests, ``--resume``), ``settings`` with
    ``setup=False`` to start one at once, or ``replay`` to open the replay viewer; otherwise
    the new-match screen opens, filled in from ``settings``.
    """

    CSS_PATH = "tienlen.tcss"
    TITLE = "Tiến Lên"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]  # noqa: RUF012
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "Quit", priority=True)]
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        *,
        settings: MatchSetup | None = None,
        controller: MatchController | None = None,
        setup: bool = True,
        replay: ReplayModel | None = None,
        save_path: str | Path = "tienlen-match.json",
    ) -> None:
        super().__init__()
        self.settings = settings or MatchSetup()
        self.controller = controller
        self.show_setup = setup
        self.replay = replay
        self.save_path = Path(save_path)

    def on_mount(self) -> None:
        if self.replay is not None:
            self.push_screen(ReplayScreen(self.replay))
        elif self.controller is not None:
            self.start_controller(self.controller)
        elif self.show_setup:
            self.push_screen(SetupScreen(self.settings, save_path=self.save_path))
        else:
            self.start_match(self.settings)

    def start_match(self, settings: MatchSetup) -> None:
        """Start a new match with ``settings``."""
        self.settings = settings
        self.start_controller(MatchController(settings))

    def start_controller(self, controller: MatchController) -> None:
        """Show the game screen for ``controller`` (replacing any other screen)."""
        self.controller = controller
        screen = GameScreen(controller, save_path=self.save_path)
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def new_match(self) -> None:
        """Open the new-match screen."""
        self.switch_screen(SetupScreen(self.settings, save_path=self.save_path))
