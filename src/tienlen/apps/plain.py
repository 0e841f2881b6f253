"""``tienlen play --plain``: the game as lines of text, for dumb terminals, screen readers,
pipes and tests.

Each time it is your turn the table is printed (the pile, every opponent's card count and
state, your hand) and one line is read: cards in notation (``3s 4s 5d``), ``pass``,
``hint``, ``moves``, ``ask N`` (hidden card counts), ``help`` or ``quit``. Illegal input is
explained with the engine's own words and asked again. End of input ends the game cleanly. The same
:class:`~tienlen.apps.controller.MatchController` as the Textual game runs the match.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TextIO

from tienlen import Card
from tienlen.cards import format_cards
from tienlen.text import printable

from .controller import HUMAN, MatchController, MatchSetup, describe_move
from .seats import plural
from .tui.texts import HELP_PLAIN

__all__ = ["MAX_LINE", "PlainGame", "play_plain"]

#: How many legal moves ``moves`` lists.
_MOVES_SHOWN = 40
#: The longest input line read (a move of every card of two decks is under 450).
MAX_LINE = 1000


class PlainGame:
    """A line-based session over ``stdin``/``stdout`` (any text streams)."""

    def __init__(
        self,
        controller: MatchController,
        *,
        stdin: TextIO,
        stdout: TextIO,
        ascii: bool = False,
    ) -> None:
        self.ctl = controller
        self.stdin = stdin
        self.stdout = stdout
        self.ascii = ascii
        self._logged = 0
        isatty = getattr(stdin, "isatty", None)
        self._echo = not (isatty and isatty())

    def say(self, text: str = "") -> None:
        """Print one line (suit symbols become letters with ``ascii``; control characters,
        say from a typed line, are escaped)."""
        text = printable(text)
        if self.ascii:
            text = _asciify(text)
        print(text, file=self.stdout, flush=True)

    def cards(self, cards: Sequence[Card]) -> str:
        """Cards in notation."""
        return format_cards(cards, ascii=self.ascii)

    # --- the loop ---------------------------------------------------------------------
    def run(self) -> int:
        """Play until the match ends, ``quit`` or end of input; returns the exit status."""
        ctl = self.ctl
        r = ctl.rules
        seeded = f", seed {ctl.seed}" if ctl.seeded else ""
        self.say(f"Tiến Lên, {r.name} rules, {r.players} players{seeded}. Type help for commands.")
        for seat in range(1, r.players):
            self.say(f"Seat {seat}: {ctl.label(seat)}")
        while True:
            self._flush_log()
            if ctl.game_over:
                self._game_over()
                if ctl.match_over:
                    self._match_over()
                    return 0
                ctl.next_game()
                self._logged = 0
                continue
            if ctl.bot_to_act:
                ctl.step_bot()
                continue
            if not self._human_turn():
                return 0

    def _flush_log(self) -> None:
        log = self.ctl.log
        for line in log[self._logged :]:
            self.say(line)
        self._logged = len(log)

    def _human_turn(self) -> bool:
        """Show the table, read lines until a move is made; ``False`` to stop."""
        self._show_table()
        while True:
            self.stdout.write("> ")
            self.stdout.flush()
            line = self.stdin.readline(MAX_LINE + 1)
            if not line:
                self.say("")
                self.say("End of input: the game stops here.")
                return False
            if len(line) > MAX_LINE:
                while line and not line.endswith("\n"):  # skip the rest of it
                    line = self.stdin.readline(MAX_LINE)
                self.say(f"That line is longer than {MAX_LINE} characters; type a move.")
                continue
            text = line.strip()
            if self._echo:
                self.stdout.write(printable(text) + "\n")
            word = text.lower()
            ctl = self.ctl
            if not text:
                self.say("Type the cards to play, or pass (help lists the commands).")
            elif word in ("quit", "q", "exit"):
                self.say("Goodbye.")
                return False
            elif word in ("help", "?"):
                for help_line in HELP_PLAIN.splitlines():
                    self.say(help_line)
            elif word in ("hint", "h"):
                ctl.hint()
                note = ctl.note
                ctl.clear_selection()
                self.say(note[:1].upper() + note[1:])
            elif word.split()[:1] == ["ask"]:
                if ctl.ask_text(text):
                    self._flush_log()
                    self._show_table()
                else:
                    self.say(f"Not allowed: {ctl.note}")
            elif word in ("moves", "m"):
                legal = ctl.legal_moves()
                shown = "; ".join(describe_move(m) for m in legal[:_MOVES_SHOWN])
                more = len(legal) - _MOVES_SHOWN
                self.say("Legal: " + shown + (f"; … {len(legal)} in all" if more > 0 else ""))
            else:
                ok = ctl.play_text(text)
                if ok:
                    return True
                self.say(f"Not allowed: {ctl.note}")

    def _show_table(self) -> None:
        ctl = self.ctl
        view = ctl.view()
        self.say("")
        self.say(f"== {view.title} ==")
        for s in view.seats:
            if s.seat == HUMAN:
                continue
            state = []
            if s.place is not None:
                state.append(f"out, place {s.place}")
            if s.leads:
                state.append("on top")
            if s.passed:
                state.append("passed")
            cards = plural(s.cards, "card") if s.cards is not None else f"? cards (ask {s.seat})"
            self.say(f"{s.name} ({s.level}): {cards}" + (f", {', '.join(state)}" if state else ""))
        if view.pile:
            top = view.pile[-1]
            self.say(f"Pile: {top.name} played {describe_move(top.move)}")
        else:
            self.say("Pile: empty")
        self.say(f"Your hand: {self.cards(ctl.hand)}")
        self.say(view.status + ".")

    def _game_over(self) -> None:
        ctl = self.ctl
        result = ctl.result
        assert result is not None
        self.say("")
        self.say(f"Game {result.number} over. Finishing order:")
        scores = ctl.match.scores
        for place, seat in enumerate(result.finish_order, start=1):
            delta = result.deltas[seat]
            self.say(f"  {place}. {ctl.label(seat)}: {delta:+d} points (total {scores[seat]:+d})")

    def _match_over(self) -> None:
        ctl = self.ctl
        results = ctl.match.results
        self.say("")
        self.say(f"Match over after {len(results)} game{'s' if len(results) != 1 else ''}.")
        for rank, (seat, points) in enumerate(ctl.match.standings(), start=1):
            wins = sum(1 for r in results if r.winner == seat)
            self.say(f"  {rank}. {ctl.label(seat)}: {points:+d} points, {wins} won")


def _asciify(text: str) -> str:
    for sym, letter in zip("♠♣♦♥", "scdh", strict=True):
        text = text.replace(sym, letter)
    return text


def play_plain(
    settings: MatchSetup,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    ascii: bool = False,
    controller: MatchController | None = None,
) -> int:
    """Run a plain game of ``settings`` (or of ``controller``, e.g. a resumed match)."""
    ctl = controller or MatchController(settings)
    out = stdout or sys.stdout
    try:
        return PlainGame(ctl, stdin=stdin or sys.stdin, stdout=out, ascii=ascii).run()
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as pipe tools do.
        if out is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
