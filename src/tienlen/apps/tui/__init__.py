"""The terminal game (Textual). Importing this package does not import Textual: the
controller and the plain game work without it; :func:`run_play` and :func:`run_replay`
import the app when called."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..controller import MatchController, MatchSetup

__all__ = ["run_play", "run_replay"]


def run_play(
    settings: MatchSetup | None = None,
    *,
    controller: MatchController | None = None,
    setup: bool = True,
    save_path: str | Path = "tienlen-match.json",
) -> None:
    """Run the terminal game (see :class:`~tienlen.apps.tui.app.TienLenApp`)."""
    from .app import TienLenApp

    TienLenApp(settings=settings, controller=controller, setup=setup, save_path=save_path).run()


def run_replay(path: str | Path, *, analysis: str | Path | None = None) -> None:
    """Step through the game record (or saved match) at ``path`` with every hand visible,
    each analysed decision marked when an ``analysis`` file is given."""
    from .app import TienLenApp
    from .replay import ReplayModel

    TienLenApp(replay=ReplayModel.open(path, analysis=analysis)).run()
