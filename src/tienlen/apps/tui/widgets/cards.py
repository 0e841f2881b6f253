"""Drawing cards with Rich text: card faces with coloured suits (red ♦ ♥)."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

from tienlen import Card

__all__ = ["card_label", "card_style", "card_text", "cards_text", "face_lines", "faces"]

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
    """One card as a one-line face, e.g. `` 7♥ `` on a light background; ``width`` pads
    it (``" 7♥ "`` and ``" 10♥"`` are both 4 wide)."""
    label = f" {card_label(card)}"
    label = label.ljust(width) if width else label + " "
    return Text(label, style=card_style(card))


def cards_text(cards: Iterable[Card]) -> Text:
    """Cards as faces separated by spaces."""
    out = Text()
    for i, card in enumerate(cards):
        if i:
            out.append(" ")
        out.append_text(card_text(card))
    return out


def face_lines(card: Card, *, width: int = 4, selected: bool = False) -> tuple[Text, Text]:
    """A card face two lines high: the label on top, the suit again at the bottom right."""
    style = card_style(card, selected=selected)
    label = card_label(card)
    suit = label.rstrip("'")[-1]
    return (
        Text(label.ljust(width), style=style),
        Text(suit.rjust(width - 1) + " ", style=style),
    )


def faces(cards: Iterable[Card], *, width: int = 80, gap: int = 1) -> Text:
    """Cards side by side as two-line faces, in rows that fit ``width`` cells."""
    cards = tuple(cards)
    per_row = max(1, (width + gap) // (4 + gap))
    rows: list[Text] = []
    for start in range(0, len(cards), per_row):
        top, bottom = Text(), Text()
        for i, card in enumerate(cards[start : start + per_row]):
            if i:
                top.append(" " * gap)
                bottom.append(" " * gap)
            a, b = face_lines(card)
            top.append_text(a)
            bottom.append_text(b)
        rows += [top, bottom]
    return Text("\n").join(rows)
