"""The person's hand: cards in strength order, selected ones raised, a cursor, and dots
under cards that complete a legal play with the selection. Clicking a card toggles it."""

from __future__ import annotations

from rich.text import Text
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from tienlen import Card

from ...controller import HandCard
from .cards import face_lines

__all__ = ["HandView"]

CARD_W = 4
GAP = 1
CELL = CARD_W + GAP
ROW_H = 4  # raise line, two face lines, marker line


class HandView(Widget, can_focus=True):
    """Renders a tuple of :class:`HandCard`; posts :class:`HandView.CardClicked`."""

    DEFAULT_CSS = """
    HandView { height: auto; min-height: 4; }
    """

    cards: reactive[tuple[HandCard, ...]] = reactive((), layout=True)

    class CardClicked(Message):
        """A card was clicked."""

        def __init__(self, card: Card) -> None:
            super().__init__()
            self.card = card

    def _per_row(self, width: int) -> int:
        return max(1, (width + GAP) // CELL)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        n = len(self.cards)
        if not n:
            return 1
        rows = -(-n // self._per_row(width))
        return rows * ROW_H

    def render(self) -> Text:
        cards = self.cards
        if not cards:
            return Text("(no cards)", style="dim")
        per_row = self._per_row(self.content_size.width or 80)
        out = Text()
        for start in range(0, len(cards), per_row):
            row = cards[start : start + per_row]
            lines = [Text() for _ in range(ROW_H)]
            for i, hc in enumerate(row):
                if i:
                    for line in lines:
                        line.append(" " * GAP)
                face_top = 0 if hc.selected else 1
                face = face_lines(hc.card, width=CARD_W, selected=hc.selected)
                for k in range(3):
                    j = k - face_top
                    if 0 <= j < 2:
                        lines[k].append_text(face[j])
                    else:
                        lines[k].append(" " * CARD_W)
                marker = " ▲  " if hc.cursor else "    "
                if hc.combinable:
                    marker = marker[:2] + "• "
                lines[3].append(marker, style="bold #5fd7ff" if hc.cursor else "bold #87d75f")
            for k, line in enumerate(lines):
                out.append_text(line)
                if start + per_row < len(cards) or k < ROW_H - 1:
                    out.append("\n")
        return out

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        per_row = self._per_row(self.content_size.width)
        col, within = divmod(offset.x, CELL)
        if within >= CARD_W or col >= per_row:
            return
        index = (offset.y // ROW_H) * per_row + col
        if 0 <= index < len(self.cards):
            self.post_message(self.CardClicked(self.cards[index].card))
