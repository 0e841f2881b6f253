"""The table around the hand: the seats, the pile, the log, and (in replays) every hand.

Each widget renders one immutable value from :class:`~..controller.TableView`; none keeps
game state of its own.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from tienlen import Card

from ...controller import PileEntry, SeatView, TableView
from .cards import card_text, faces

__all__ = ["HandsView", "LogView", "PileView", "SeatsView"]


class SeatsView(Widget):
    """One line per seat: name, bot level, cards left, what it did, its score."""

    DEFAULT_CSS = "SeatsView { height: auto; }"

    seats: reactive[tuple[SeatView, ...]] = reactive((), layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self.seats) + 1)

    def render(self) -> RenderableType:
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(width=1)
        table.add_column(no_wrap=True, overflow="ellipsis", min_width=4)
        table.add_column(no_wrap=True, overflow="ellipsis", min_width=6)
        table.add_column(justify="right", width=5)
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column(justify="right", width=4)
        head = ("", "player", "bot", "cards", "", "pts")
        table.add_row(*(Text(h, "dim") for h in head))
        for s in self.seats:
            if s.place is not None:
                state = Text(f"out #{s.place}", "bold green" if s.place == 1 else "green")
            elif s.to_act:
                state = Text("to play", "bold #5fd7ff")
            elif s.leads:
                state = Text("on top", "bold yellow")
            elif s.passed:
                state = Text("passed", "#d7875f")
            elif s.locked:
                state = Text("locked out", "dim")
            else:
                state = Text("")
            name_style = "bold" if s.seat == 0 else ""
            table.add_row(
                Text("▶", "bold #5fd7ff") if s.to_act else Text(" "),
                Text(s.name, name_style),
                Text(s.level, "dim" if s.seat else "italic"),
                _count(s),
                state,
                Text(f"{s.score:+d}", "green" if s.score > 0 else "red" if s.score < 0 else ""),
            )
        return table


class PileView(Widget):
    """The current pile: every play on it and who made it, the top play as card faces."""

    DEFAULT_CSS = "PileView { height: 1fr; }"

    entries: reactive[tuple[PileEntry, ...]] = reactive(())
    leader: reactive[str] = reactive("")

    def render(self) -> RenderableType:
        entries = self.entries
        if not entries:
            return Text(f"The pile is empty: {self.leader} to lead." if self.leader else "", "dim")
        height = max(1, self.content_size.height)
        top = entries[-1]
        room = max(0, height - 3)
        earlier = entries[:-1][-room:] if room else ()
        lines: list[RenderableType] = [
            Text.assemble((f"{e.name}: ", "dim"), (f"{e.move}  ", ""), (e.move.describe(), "dim"))
            for e in earlier
        ]
        lines.append(Text.assemble((f"{top.name}: ", "bold"), (top.move.describe(), "italic")))
        lines.append(faces(top.move.cards, width=self.content_size.width or 80))
        return Group(*lines)


class LogView(Widget):
    """The latest events of the game, newest at the bottom."""

    DEFAULT_CSS = "LogView { height: 1fr; }"

    lines: reactive[tuple[str, ...]] = reactive(())

    def render(self) -> RenderableType:
        height = max(1, self.content_size.height)
        shown = self.lines[-height:]
        out = Text()
        for i, line in enumerate(shown):
            if i:
                out.append("\n")
            style = "bold" if line.startswith(("Game", "—")) else ""
            out.append(line, style)
        return out


class HandsView(Widget):
    """Every seat's hand (replays show them all), one-line faces, wrapped to the width."""

    DEFAULT_CSS = "HandsView { height: auto; }"

    hands: reactive[tuple[tuple[str, tuple[Card, ...]], ...]] = reactive((), layout=True)
    turn: reactive[int] = reactive(-1)

    def _layout(self, width: int) -> tuple[int, int]:
        head = max((len(name) for name, _ in self.hands), default=0) + 8
        return head, max(1, (width - head + 1) // 5)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        _, per_line = self._layout(width)
        return max(1, sum(max(1, -(-len(cards) // per_line)) for _, cards in self.hands))

    def render(self) -> RenderableType:
        head_w, per_line = self._layout(self.content_size.width or 80)
        out = Text()
        first = True
        for seat, (name, cards) in enumerate(self.hands):
            head = f"{'▶' if seat == self.turn else ' '} {name} ({len(cards)})".ljust(head_w)
            for start in range(0, max(1, len(cards)), per_line):
                if not first:
                    out.append("\n")
                first = False
                out.append(
                    head if start == 0 else " " * head_w, "bold" if seat == self.turn else ""
                )
                for i, card in enumerate(cards[start : start + per_line]):
                    if i:
                        out.append(" ")
                    out.append_text(card_text(card, width=4))
        return out


def compose_table_top() -> ComposeResult:
    """The title line and the row of seats, pile and log that the game and replay
    screens share (call with ``yield from`` inside ``compose``)."""
    yield Static(id="title")
    with Horizontal(id="top"):
        with Vertical(id="seats-box"):
            yield SeatsView(id="seats")
        with Vertical(id="pile-box"):
            yield PileView(id="pile")
        with Vertical(id="log-box"):
            yield LogView(id="log")


def show_table_top(screen: Screen[Any], view: TableView) -> None:
    """Hand the title, seats, pile and log of ``view`` to the widgets of
    :func:`compose_table_top` on ``screen``."""
    screen.query_one("#title", Static).update(Text.assemble(("Tiến Lên ", "bold"), view.title))
    screen.query_one(SeatsView).seats = view.seats
    pile = screen.query_one(PileView)
    pile.entries = view.pile
    pile.leader = next((s.name for s in view.seats if s.to_act), "")
    screen.query_one(LogView).lines = view.log


def _count(s: SeatView) -> Text:
    """A seat's card count, ``?`` where the rules hide it (``hidden_counts``)."""
    if s.cards is None:
        return Text("?", "dim")
    return Text(str(s.cards), "bold" if s.cards <= 2 and s.place is None else "")
