"""Screens of the terminal game."""

from .game import GameScreen
from .help import HelpScreen
from .quit import QuitScreen
from .replay import ReplayScreen
from .results import GameOverScreen, MatchOverScreen
from .setup import SetupScreen

__all__ = [
    "GameOverScreen",
    "GameScreen",
    "HelpScreen",
    "MatchOverScreen",
    "QuitScreen",
    "ReplayScreen",
    "SetupScreen",
]
