"""The Textual application: a setup screen, the game screen, and the replay viewer."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import App
from textual.binding import Binding, BindingType

from ..controller import MatchController, MatchSetup
from .replay import ReplayModel
from .screens import GameScreen, QuitScreen, ReplayScreen, SetupScreen

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

    @on(SetupScreen.StartMatch)
    def _start_asked(self, message: SetupScreen.StartMatch) -> None:
        self.start_match(message.settings)

    @on(SetupScreen.ResumeMatch)
    def _resume_asked(self, message: SetupScreen.ResumeMatch) -> None:
        self.start_controller(message.controller)

    @on(GameScreen.NewMatch)
    def _new_match_asked(self) -> None:
        self.new_match()

    async def action_quit(self) -> None:
        """Quit (ctrl+q); in the middle of a match, ask first, offering to save it (ctrl+q
        again on that question saves and quits)."""
        ctl = self.controller
        playing = any(isinstance(s, GameScreen) for s in self.screen_stack)
        if ctl is None or ctl.match_over or not playing:
            self.exit()
        elif isinstance(self.screen, QuitScreen):
            self.screen.dismiss("save")
        else:
            self.push_screen(QuitScreen(self.save_path), self._quit_answered)

    def _quit_answered(self, answer: str | None) -> None:
        if answer == "save" and self.controller is not None:
            try:
                self.controller.save(self.save_path)
            except OSError as e:
                self.notify(f"could not save: {e}", severity="error")
                return
            self.exit()
        elif answer == "quit":
            self.exit()
