"""The model of the replay viewer: step through recorded games with every hand visible.

A file is a game record (:mod:`tienlen.record`, JSON or text form) or a saved match (its
games are the match's records). The states are made by :func:`tienlen.record.replay`, so a
replay shows exactly what the engine accepts. Nothing here imports Textual.
"""

from __future__ import annotations

from pathlib import Path

from tienlen import Action, Game
from tienlen.match_record import read_games
from tienlen.record import GameRecord, RecordError, replay
from tienlen.text import NAME_CHARS, printable

from ..cmd_analyse import AnalysisError, Mark, read_analysis
from ..controller import PileEntry, SeatView, TableView, describe_move
from ..files import read_input
from ..observable import Observable
from ..seats import SEAT_NAMES, says

__all__ = ["ReplayModel"]


class ReplayModel(Observable):
    """Which game and which action of a recording is shown; every state precomputed."""

    def __init__(
        self, records: list[GameRecord], marks: list[dict[int, Mark]] | None = None
    ) -> None:
        if not records:
            raise ValueError("nothing to replay")
        if marks is not None and len(marks) != len(records):
            raise ValueError(f"an analysis of {len(marks)} games for {len(records)} games")
        self.records = records
        #: Each game's analysed decisions by action number (``tienlen analyse --json``).
        self.marks = marks or [{} for _ in records]
        self.index = 0
        self.step = 0
        super().__init__()
        self._load()

    @classmethod
    def open(cls, path: str | Path, *, analysis: str | Path | None = None) -> ReplayModel:
        """A model of the file at ``path`` (a game record or a saved match), its decisions
        marked from the ``analysis`` file if given."""
        try:
            records = read_games(read_input(path))
        except RecordError as e:
            raise RecordError(f"{path}: {e}") from None
        marks = None
        if analysis is not None:
            try:
                marks = read_analysis(read_input(analysis))
            except AnalysisError as e:
                raise AnalysisError(f"{analysis}: {e}") from None
        return cls(records, marks)

    def _load(self) -> None:
        rec = self.records[self.index]
        self.states: list[Game] = [rec.new_game()]
        self.words: list[str] = []
        self.leads: list[bool] = []
        marks = self.marks[self.index]
        for step in replay(rec):
            self.states.append(step.game.copy())
            words = self._words(step.action.seat, step.game, len(self.states) - 1)
            mark = marks.get(step.number)
            if mark is not None:
                words += f" · {printable(mark.words(), limit=200)}"
            self.words.append(words)
            self.leads.append(step.leads)
        self.step = 0

    def _words(self, seat: int, after: Game, number: int) -> str:
        before = self.states[number - 1]
        action = self.records[self.index].actions[number - 1]
        who = self.names[seat]
        match action.kind:
            case "play":
                last = after.history[-1] if after.history else None
                if isinstance(last, Action):
                    return f"{who}: {describe_move(last.move)}"
                return f"{who}: {action.cards}"
            case "pass":
                return (
                    f"{who} passed" if before.phase == "play" else f"{says(who, 'makes')} no trade"
                )
            case "give":
                return f"{says(who, 'gives')} {action.cards} back"
            case _:
                verb, _, rest = action.words().split(" ", 1)[1].partition(" ")
                return f"{says(who, verb)} {rest}".rstrip()

    # --- questions ---------------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        """Seat names: the record's own (control characters escaped), else the game's
        defaults."""
        rec = self.records[self.index]
        n = rec.rules.players
        if rec.names and len(rec.names) == n:
            return tuple(printable(name, limit=NAME_CHARS) for name in rec.names)
        return tuple(SEAT_NAMES[s] if s < len(SEAT_NAMES) else f"Seat {s}" for s in range(n))

    @property
    def game(self) -> Game:
        """The game as it stands after the shown step."""
        return self.states[self.step]

    @property
    def last_step(self) -> int:
        """The number of actions of the shown game."""
        return len(self.states) - 1

    # --- intents -------------------------------------------------------------------------
    def go(self, step: int) -> None:
        """Show the state after ``step`` actions (clamped)."""
        self.step = max(0, min(self.last_step, step))
        self._changed()

    def forward(self, n: int = 1) -> None:
        """Step ``n`` actions on (back if negative)."""
        self.go(self.step + n)

    def next_pile(self) -> None:
        """Jump to the end of the current pile."""
        for s in range(self.step + 1, self.last_step + 1):
            if s == self.last_step or self.leads[s]:
                self.go(s)
                return

    def select_game(self, index: int) -> None:
        """Show game ``index`` (clamped) from its start."""
        index = max(0, min(len(self.records) - 1, index))
        if index != self.index:
            self.index = index
            self._load()
        self._changed()

    # --- view -----------------------------------------------------------------------------
    def view(self) -> TableView:
        """The table at the shown step, every hand visible."""
        g = self.game
        rec = self.records[self.index]
        names = self.names
        finish = g.finish_order
        seats = tuple(
            SeatView.of(
                g,
                s,
                name=names[s],
                level="",
                score=0 if rec.scores is None or not g.is_over else rec.scores[s],
                cards=g.cards_left(s),  # a replay shows every hand
            )
            for s in range(rec.rules.players)
        )
        title = f"replay · {rec.rules.code()} · game {self.index + 1} of {len(self.records)}"
        title += f" · move {self.step} of {self.last_step}"
        if self.step == self.last_step and g.is_over:
            status = "Game over: " + ", ".join(names[s] for s in finish)
        elif self.step == 0:
            status = f"Dealt. {names[g.turn]} to act."
        else:
            status = self.words[self.step - 1]
        return TableView(
            version=self.version,
            title=title,
            seats=seats,
            hand=(),
            pile=tuple(PileEntry(a.seat, names[a.seat], a.move) for a in g.pile),
            status=status,
            note="",
            note_kind="info",
            combos=(),
            log=tuple(self.words[: self.step]),
            your_turn=False,
            phase=g.phase,
            over=g.is_over,
            hands=g.hands,
        )
