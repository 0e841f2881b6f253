"""The main screen: the table, the pile, the log and the person's hand.

The screen holds a :class:`~..controller.MatchController`; every key, click and typed line
becomes one controller intent, and after every change the screen hands the controller's
fresh :class:`~..controller.TableView` to its widgets. Bots move on a timer (the delay of
the settings) and think on a worker thread so the screen stays responsive.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import DescendantFocus, Key
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, WorkerState

from tienlen import PASS_WORDS, Move

from ...controller import BotJob, MatchController, TableView
from ..widgets import HandView, compose_table_top, show_table_top
from .help import HelpScreen
from .results import GameOverScreen, MatchOverScreen

__all__ = ["GameScreen"]

#: Keys that start typing a card (its rank): they move the focus to the entry line.
RANK_KEYS = frozenset("13456789tjqka2")


class GameScreen(Screen[None]):
    """Play a match against bots; posts :class:`GameScreen.NewMatch` for ctrl+n."""

    class NewMatch(Message):
        """The person asked for a new match (the app opens the new-match screen)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1)", "Left", show=False),
        Binding("right", "cursor(1)", "Right", show=False),
        Binding("up", "raise_card(True)", "Raise", show=False),
        Binding("down", "raise_card(False)", "Lower", show=False),
        Binding("space", "select_card", "Select"),
        Binding("enter", "play", "Play"),
        Binding("p", "pass_turn", "Pass"),
        Binding("h", "hint", "Hint"),
        # shown in the combinations line instead, so that the footer keeps Quit at 80 columns
        Binding("c", "combo", "Next play", show=False),
        Binding("escape", "clear", "Clear", show=False),
        Binding("ctrl+s", "save", "Save"),
        Binding("ctrl+n", "new_match", "New"),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(
        self, controller: MatchController, *, save_path: str | Path = "tienlen-match.json"
    ) -> None:
        super().__init__()
        self.controller = controller
        self.save_path = Path(save_path)
        self._bot_pending = False
        self._shown_over = -1
        self._typing = False
        """A key was sent to the entry line, whose focus has not arrived yet."""

    # --- layout -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield from compose_table_top()
        with Vertical(id="hand-box"):
            yield HandView(id="hand")
        yield Static(id="status")
        yield Static(id="note")
        yield Static(id="combos")
        yield Input(
            placeholder="type cards (3s 4s 5d) then enter · pass · hint · ? help",
            id="entry",
            compact=True,
            select_on_focus=False,
        )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#seats-box").border_title = "Table"
        self.query_one("#pile-box").border_title = "Pile"
        self.query_one("#log-box").border_title = "Log"
        self.controller.subscribe(self._on_change)
        self.query_one(HandView).focus()
        self._on_change()

    def on_unmount(self) -> None:
        self.controller.unsubscribe(self._on_change)

    # --- rendering --------------------------------------------------------------------
    def _on_change(self) -> None:
        self.show(self.controller.view())
        self._schedule_bot()
        if self.controller.game_over and self._shown_over != self.controller.match.number:
            self._shown_over = self.controller.match.number
            self.app.push_screen(GameOverScreen(self.controller), self._after_game)

    def show(self, view: TableView) -> None:
        """Hand ``view`` to the widgets."""
        show_table_top(self, view)
        hand = self.query_one(HandView)
        hand.cards = view.hand
        self.query_one("#hand-box").border_title = f"Your hand ({len(view.hand)})"
        status_style = "bold #5fd7ff" if view.your_turn else "bold"
        self.query_one("#status", Static).update(Text(view.status, status_style))
        note_style = {"error": "bold #ff5f5f", "hint": "bold #87d75f"}.get(view.note_kind, "")
        self.query_one("#note", Static).update(Text(view.note, note_style))
        self.query_one("#combos", Static).update(_combos_text(view))

    # --- bots -------------------------------------------------------------------------
    def _schedule_bot(self) -> None:
        if self._bot_pending or not self.controller.bot_to_act:
            return
        self._bot_pending = True
        delay = self.controller.settings.delay
        if delay > 0:
            self.set_timer(delay, self._start_bot)
        else:
            self.call_later(self._start_bot)

    def _start_bot(self) -> None:
        job = self.controller.bot_job()
        if job is None:
            self._bot_pending = False
            return
        self.run_worker(
            job.run, thread=True, group="bot", exit_on_error=False, name=f"bot{job.seat}"
        )
        self._job = job

    _job: BotJob | None = None

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "bot" or event.state not in (
            WorkerState.SUCCESS,
            WorkerState.ERROR,
        ):
            return
        job, self._job = self._job, None
        self._bot_pending = False
        if job is None:
            return
        move = event.worker.result if event.state == WorkerState.SUCCESS else None
        if not isinstance(move, Move):
            from tienlen.players.base import fallback_move

            move = fallback_move(job.legal)
        self.controller.apply_bot(job, move)

    # --- between games ----------------------------------------------------------------
    def _after_game(self, choice: str | None) -> None:
        ctl = self.controller
        if ctl.match_over:
            self.app.push_screen(MatchOverScreen(ctl), self._after_match)
        else:
            ctl.next_game()

    def _after_match(self, choice: str | None) -> None:
        if choice == "new":
            self.action_new_match()
        else:
            self.app.exit()

    # --- intents ------------------------------------------------------------------------
    def action_cursor(self, delta: int) -> None:
        self.controller.move_cursor(delta)

    def action_raise_card(self, up: bool) -> None:
        self.controller.raise_card(up)

    def action_select_card(self) -> None:
        self.controller.toggle()

    def action_play(self) -> None:
        self.controller.play_selection()

    def action_pass_turn(self) -> None:
        self.controller.pass_turn()

    def action_hint(self) -> None:
        self.controller.hint()

    def action_combo(self) -> None:
        self.controller.next_combo()

    def action_clear(self) -> None:
        entry = self.query_one("#entry", Input)
        entry.value = ""
        self.controller.clear_selection()
        self.query_one(HandView).focus()

    def action_save(self) -> None:
        try:
            self.controller.save(self.save_path)
        except OSError as e:
            self.notify(f"could not save: {e}", severity="error")

    def action_new_match(self) -> None:
        self.post_message(self.NewMatch())

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    @on(HandView.CardClicked)
    def _card_clicked(self, event: HandView.CardClicked) -> None:
        self.controller.toggle(event.card)

    def on_key(self, event: Key) -> None:
        """A rank key starts typing a play: it and the keys after it go to the entry line.

        Focus moves once the keys already queued are handled, so a burst of keys ("3s 4s"
        typed fast) reaches here before the entry has it: they are added to the entry
        too, in order, rather than read as the hand's keys (space, c, h, p)."""
        entry = self.query_one("#entry", Input)
        if self.focused is entry or not event.character or not event.character.isprintable():
            return
        if self._typing or event.character.lower() in RANK_KEYS:
            if not self._typing:
                entry.value = ""
                entry.focus()
                self._typing = True
            entry.value += event.character
            entry.cursor_position = len(entry.value)
            event.prevent_default()
            event.stop()

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        self._typing = False

    @on(Input.Changed, "#entry")
    def _typed(self, event: Input.Changed) -> None:
        text = event.value.strip()
        if text.lower() in _COMMAND_PREFIXES or text.lower().startswith("ask"):
            return
        self.controller.select_text(text, quiet=True)

    @on(Input.Submitted, "#entry")
    def _entered(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        word = text.lower()
        ctl = self.controller
        done = True
        if word in ("?", "help"):
            self.action_help()
        elif word in ("h", "hint"):
            ctl.hint()
        elif word in PASS_WORDS:
            done = ctl.pass_turn()
        elif word.split()[:1] == ["ask"]:
            done = ctl.ask_text(text)
        elif not text:
            done = ctl.play_selection()
        else:
            done = ctl.play_text(text)
        if done:
            event.input.value = ""
            self.query_one(HandView).focus()


#: What the entry may hold while a command is typed (no live card selection then).
_COMMAND_PREFIXES = PASS_WORDS | {"", "pa", "pas", "h", "hi", "hin", "hint", "?", "help"}


def _combos_text(view: TableView) -> Text:
    if not view.your_turn or view.phase != "play":
        return Text("")
    combos = view.combos
    if not combos:
        return Text("No legal play contains the selected cards.", "dim")
    selected = any(c.selected for c in view.hand)
    head = "Plays with these cards: " if selected else "Your legal plays: "
    out = Text(head, "dim")
    for i, move in enumerate(combos[:8]):
        if i:
            out.append(" · ", "dim")
        out.append(str(move))
    if len(combos) > 8:
        out.append(f" … {len(combos)} in all", "dim")
    out.append("  (c: select next)", "dim")
    return out
