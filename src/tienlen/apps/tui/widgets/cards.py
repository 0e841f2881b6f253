"""Drawing cards with Rich text: card faces with coloured suits (red ♦ ♥)."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

from tienlen import Card

__all__ = ["FACE", "FACE_RED", "card_label", "card_text", "cards_text"]

FACE = "#1a1a1a on #f2f2f2"
FACE_RED = "#c41e1e on #f2f2f2"
SELECTED_BG = "#ffd866"


def card_label(card: Card) -> str:
    """``"10♥"``, ``"3♠"``; a second-deck (red-backed) copy gets a trailing ``'``."""
    return str(card)


def card_style(card: Card, *, selected: bool = False) -> str:
    """The Rich style of a card face."""
    fg = "#c41e1e" if card.is_red else "#1a1a1a"
    bg = SELECTED_BG if selected else "#f2f2f2"
    return f"bold {fg} on {bg}"


def card_text(card: Card, *, width: int = 0) -> Text:
    """One card as a small face, e.g. `` 7♥ `` on a light background."""
    label = f" {card_label(card)} "
    if width:
        label = label.ljust(width)
    return Text(label, style=card_style(card))


def cards_text(cards: Iterable[Card]) -> Text:
    """Cards as faces separated by spaces."""
    out = Text()
    for i, card in enumerate(cards):
        if i:
            out.append(" ")
        out.append_text(card_text(card))
    return out
