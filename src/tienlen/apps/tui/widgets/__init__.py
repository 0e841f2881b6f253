"""Widgets of the terminal game; each renders a value from the controller's view."""

from .hand import HandView
from .table import HandsView, LogView, PileView, SeatsView, compose_table_top, show_table_top

__all__ = [
    "HandView",
    "HandsView",
    "LogView",
    "PileView",
    "SeatsView",
    "compose_table_top",
    "show_table_top",
]
