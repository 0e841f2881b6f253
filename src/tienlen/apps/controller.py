"""The model behind the games against bots: one object owns the match and everything shown.

Widgets hold no game state. A :class:`MatchController` owns the :class:`~tienlen.match.Match`
(and so the current :class:`~tienlen.Game`), the person's card selection and the last
message; the user's intents (select, play, pass, hint …) are its methods, and
:meth:`MatchController.view` returns an immutable :class:`TableView` that screens render.
Listeners registered with :meth:`MatchController.subscribe` hear about every change.

Nothing here imports Textual: the terminal game (:mod:`tienlen.apps.tui`) and the plain
line-based game (:mod:`tienlen.apps.plain`) drive the same controller.
"""

from __future__ import annotations

import dataclasses
import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tienlen import (
    PASS,
    PASS_WORDS,
    Card,
    Game,
    IllegalMoveError,
    Move,
    Rules,
    format_move,
    parse_cards,
)
from tienlen.cards import cards_of_mask, format_cards, mask_of
from tienlen.combos import Choice, Give
from tienlen.game import why_refused
from tienlen.match import GameResult, Match
from tienlen.match_record import MatchRecord
from tienlen.observation import observe
from tienlen.players.base import Budget, Player, choose_safely, split_choices
from tienlen.players.bots.greedy import give_lowest
from tienlen.players.hint import hint
from tienlen.position import Gift
from tienlen.record import GameRecord, RecordError
from tienlen.scoring import Payment, payments
from tienlen.text import NAME_CHARS, printable

from .files import read_input, write_atomic
from .observable import Observable
from .seats import SEAT_NAMES, check_bot, make_player, plural, says

__all__ = [
    "HUMAN",
    "BotJob",
    "HandCard",
    "MatchController",
    "MatchSetup",
    "PileEntry",
    "SeatView",
    "TableView",
    "describe_move",
]

#: The seat of the person at the keyboard.
HUMAN = 0


# --- settings ----------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class MatchSetup:
    """Everything that starts a match: rules, the bots in seats 1…n-1, its length, seed."""

    rules: Rules = field(default_factory=lambda: Rules.preset("standard"))
    bots: tuple[str, ...] = ("easy", "easy", "easy")
    """The level (or built-in bot) of each opponent seat (seats 1 … players-1)."""
    games: int | None = 5
    """Games in the match (``None``: no fixed number)."""
    target: int | None = None
    """Points that end the match (``None``: none)."""
    seed: int | str | None = None
    """Seed of the deals and the bots (``None``: a random seed is drawn and shown)."""
    delay: float = 0.6
    """Seconds a bot waits before it plays (0: at once)."""

    def __post_init__(self) -> None:
        if len(self.bots) != self.rules.players - 1:
            raise ValueError(
                f"{self.rules.players} players need {self.rules.players - 1} bots, "
                f"not {len(self.bots)} ({', '.join(self.bots) or 'none'})"
            )
        for name in self.bots:
            check_bot(name)
        if self.games is not None and self.games < 1:
            raise ValueError(f"a match lasts at least one game, not {self.games!r}")
        if self.target is not None and self.target < 1:
            raise ValueError(f"the target must be at least 1 point, not {self.target!r}")
        if not 0 <= self.delay < math.inf:  # nan fails this too
            raise ValueError(f"the bot delay must be 0 seconds or more, not {self.delay!r}")

    @classmethod
    def of_record(cls, record: MatchRecord, *, delay: float = 0.6) -> MatchSetup:
        """The settings a saved match started from."""
        return cls(
            rules=record.rules,
            bots=record.bots,
            games=record.games,
            target=record.target,
            seed=record.seed,
            delay=delay,
        )


# --- views -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the table shows it."""

    seat: int
    name: str
    level: str
    cards: int | None
    """Cards held; ``None`` when the rules hide the count from the viewer (``hidden_counts``)
    and it was not asked."""
    score: int
    to_act: bool
    passed: bool
    locked: bool
    place: int | None
    """Finishing place (1 = first out), once the seat is out."""
    leads: bool
    """This seat made the play on top of the pile."""

    @classmethod
    def of(
        cls, game: Game, seat: int, *, name: str, level: str, score: int, cards: int | None
    ) -> SeatView:
        """How ``seat`` of ``game`` shows at the table, holding ``cards`` as far as the
        viewer knows."""
        finish = game.finish_order
        top = game.top
        return cls(
            seat=seat,
            name=name,
            level=level,
            cards=cards,
            score=score,
            to_act=not game.is_over and game.turn == seat,
            passed=seat in game.passed,
            locked=seat in game.locked_out,
            place=finish.index(seat) + 1 if seat in finish else None,
            leads=top is not None and top.seat == seat,
        )


@dataclass(frozen=True, slots=True)
class HandCard:
    """One card of the person's hand with its selection marks."""

    card: Card
    selected: bool
    cursor: bool
    combinable: bool
    """The card is part of a legal play that contains every selected card."""


@dataclass(frozen=True, slots=True)
class PileEntry:
    """One play of the current pile and who made it."""

    seat: int
    name: str
    move: Move


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything one frame of the game screen shows (immutable)."""

    version: int
    title: str
    seats: tuple[SeatView, ...]
    hand: tuple[HandCard, ...]
    pile: tuple[PileEntry, ...]
    status: str
    note: str
    note_kind: str
    """``"info"``, ``"error"`` or ``"hint"``."""
    combos: tuple[Choice, ...]
    """Legal plays containing the selection (all legal plays when nothing is selected)."""
    log: tuple[str, ...]
    your_turn: bool
    phase: str
    over: bool
    hands: tuple[tuple[Card, ...], ...] | None = None
    """Every hand, when all are visible (replays)."""


# --- helpers -----------------------------------------------------------------------------
def describe_move(move: Choice) -> str:
    """``"7♠ 7♥ (pair of 7s)"``, ``"pass"``, ``"3♠ 4♦ (given back)"``."""
    if isinstance(move, Give):
        return f"{format_cards(move.cards)} (given back)"
    if move.is_pass:
        return "pass"
    return f"{format_cards(move.cards)} ({move.describe()})"


@dataclass(slots=True)
class BotJob:
    """A bot's turn, prepared on the main thread; :meth:`run` may run on another thread."""

    game: Game
    seat: int
    player: Player
    obs: Any
    legal: Sequence[Choice]
    budget: Budget
    problem: str | None = None

    def run(self) -> Choice:
        """Ask the bot (errors and illegal answers fall back to a safe move)."""
        move, self.problem = choose_safely(self.player, self.obs, self.legal, self.budget)
        return move


# --- the controller ----------------------------------------------------------------------
class MatchController(Observable):
    """Owns a match against bots and the person's selection; see the module docstring."""

    def __init__(self, settings: MatchSetup, *, budget: Budget | None = None) -> None:
        seed = settings.seed
        self.seeded = seed is not None
        """Whether the person gave the seed (only then is it shown during the match)."""
        if seed is None:
            # 128 secret bits: the deals cannot be found by trying seeds against a hand
            seed = secrets.token_hex(16)
        self.settings = settings
        self.seed: int | str = seed
        self.budget = budget or Budget()
        self.match = Match(settings.rules, games=settings.games, target=settings.target, seed=seed)
        self.players: dict[int, Player] = {
            seat: make_player(name, f"{seed}/seat{seat}")
            for seat, name in enumerate(settings.bots, start=1)
        }
        self.names: tuple[str, ...] = tuple(
            SEAT_NAMES[s] if s < len(SEAT_NAMES) else f"Seat {s}"
            for s in range(settings.rules.players)
        )
        self.levels: tuple[str, ...] = ("you", *settings.bots)
        self.finished: list[Game] = []
        self.selected = 0
        self.cursor = 0
        self.note = ""
        self.note_kind = "info"
        self.log: list[str] = []
        self.problems: list[str] = []
        # what a resumed match's file held, kept for the next save
        self._file: MatchRecord | None = None
        self._file_names: tuple[str, ...] | None = None
        super().__init__()
        self._combo_index = -1
        self._combo_base = 0
        self._start_game()

    def _say(self, text: str, kind: str = "info") -> None:
        self.note, self.note_kind = text, kind

    # --- state questions --------------------------------------------------------------
    @property
    def game(self) -> Game:
        """The current game."""
        return self.match.game

    @property
    def rules(self) -> Rules:
        """The match's rules."""
        return self.match.rules

    @property
    def hand(self) -> tuple[Card, ...]:
        """The person's cards, lowest first (strength order)."""
        return self.game.hands[HUMAN]

    @property
    def human_to_act(self) -> bool:
        """Whether the game waits for the person."""
        g = self.game
        return not g.is_over and g.turn == HUMAN and g.phase in ("play", "exchange")

    @property
    def bot_to_act(self) -> bool:
        """Whether the game waits for a bot."""
        g = self.game
        return not g.is_over and g.turn != HUMAN

    @property
    def game_over(self) -> bool:
        """Whether the current game has ended."""
        return self.game.is_over

    @property
    def match_over(self) -> bool:
        """Whether the match has ended (the current game is over and it was the last)."""
        return self.game.is_over and self.match.is_over

    @property
    def result(self) -> GameResult | None:
        """The current game's result once it is over."""
        return self.match.record_game() if self.game.is_over else None

    def payments(self) -> list[Payment]:
        """The current (finished) game's payments, with reasons."""
        return payments(self.game)

    def label(self, seat: int) -> str:
        """``"Lan (easy)"`` or ``"You"``."""
        return self.names[seat] if seat == HUMAN else f"{self.names[seat]} ({self.levels[seat]})"

    def legal_moves(self) -> Sequence[Choice]:
        """The person's legal moves (empty when it is not their turn)."""
        return self.game.legal_moves() if self.human_to_act else []

    def combos(self) -> list[Choice]:
        """Legal plays (or gives) that contain every selected card, weakest first."""
        return self._containing(self.selected)

    def _containing(self, cards: int) -> list[Choice]:
        moves = [m for m in self.legal_moves() if m.mask and m.mask & cards == cards]
        return sorted(moves, key=lambda m: (m.mask.bit_count(), m.mask.bit_length()))

    # --- selection intents ------------------------------------------------------------
    def move_cursor(self, delta: int) -> None:
        """Move the hand cursor by ``delta`` cards (clamped)."""
        n = len(self.hand)
        if n:
            self.cursor = max(0, min(n - 1, self.cursor + delta))
        self._changed()

    def toggle(self, card: Card | None = None) -> None:
        """Select or unselect ``card`` (default: the card under the cursor)."""
        hand = self.hand
        if not hand:
            return
        if card is None:
            card = hand[min(self.cursor, len(hand) - 1)]
        elif card in hand:
            self.cursor = hand.index(card)
        if card not in hand:
            self._say(f"you do not hold {card}", "error")
        else:
            self.selected ^= card.bit
            self._say("")
        self._combo_index = -1
        self._changed()

    def raise_card(self, up: bool = True) -> None:
        """Select (``up``) or unselect the card under the cursor."""
        hand = self.hand
        if not hand:
            return
        card = hand[min(self.cursor, len(hand) - 1)]
        if bool(self.selected & card.bit) != up:
            self.toggle(card)

    def clear_selection(self) -> None:
        """Unselect every card."""
        self.selected = 0
        self._combo_index = -1
        self._say("")
        self._changed()

    def select_text(self, text: str, *, quiet: bool = False) -> bool:
        """Select the cards written in ``text`` (``"3s 4s 5d"``); on bad notation or a card
        not held, say why (unless ``quiet``) and keep the selection. Returns success."""
        try:
            cards = parse_cards(text) if text.strip() else ()
        except ValueError as e:
            if not quiet:
                self._say(str(e), "error")
                self._changed()
            return False
        mask = mask_of(cards)
        missing = mask & ~self.game.hand_masks[HUMAN]
        if missing:
            if not quiet:
                self._say(f"you do not hold {format_cards(cards_of_mask(missing))}", "error")
                self._changed()
            return False
        self.selected = mask
        self._combo_index = -1
        if cards:
            self.cursor = self.hand.index(max(cards))
        if not quiet:
            self._say("")
        self._changed()
        return True

    def next_combo(self) -> None:
        """Select the next legal play that contains the selected cards."""
        if not self.human_to_act:
            self._say("wait for your turn", "error")
            self._changed()
            return
        base = self.selected if self._combo_index < 0 else self._combo_base
        moves = self._containing(base)
        if not moves:
            self._say("no legal play contains the selected cards", "error")
            self._changed()
            return
        if self._combo_index < 0:
            self._combo_base = base
        self._combo_index = (self._combo_index + 1) % len(moves)
        move = moves[self._combo_index]
        self.selected = move.mask
        self._say(f"{self._combo_index + 1}/{len(moves)}: {describe_move(move)}")
        self._changed()

    # --- acting intents ---------------------------------------------------------------
    def play_selection(self) -> bool:
        """Play (or, in an exchange, give) the selected cards; explain if illegal."""
        if not self.human_to_act:
            self._say(
                "it is not your turn" if not self.game.is_over else "the game is over", "error"
            )
            self._changed()
            return False
        if not self.selected:
            self._say("select cards to play first, or press p to pass", "error")
            self._changed()
            return False
        return self._human_move(cards_of_mask(self.selected))

    def play_text(self, text: str) -> bool:
        """Play the move written in ``text`` (notation or ``"pass"``)."""
        if text.strip().lower() in PASS_WORDS:
            return self.pass_turn()
        if not self.human_to_act:
            self._say(
                "it is not your turn" if not self.game.is_over else "the game is over", "error"
            )
            self._changed()
            return False
        try:
            cards = parse_cards(text)
        except ValueError as e:
            self._say(str(e), "error")
            self._changed()
            return False
        if not cards:
            self._say("type the cards to play, e.g. 3s 4s 5d", "error")
            self._changed()
            return False
        return self._human_move(cards)

    def pass_turn(self) -> bool:
        """Pass; explain if passing is not allowed now."""
        if not self.human_to_act:
            self._say(
                "it is not your turn" if not self.game.is_over else "the game is over", "error"
            )
            self._changed()
            return False
        return self._human_move(None)

    def ask_text(self, text: str) -> bool:
        """``ask N`` (a seat number or name): ask that seat how many cards it holds, under
        ``rules.hidden_counts``; the answer goes to the log (the whole table hears it)."""
        words = text.split(maxsplit=1)
        target = words[1].strip().lower() if len(words) == 2 else ""
        seats = range(1, self.rules.players)
        seat = next(
            (s for s in seats if target in (str(s), self.names[s].lower())),
            None,
        )
        if seat is None:
            choices = ", ".join(f"{s} ({self.names[s]})" for s in seats)
            self._say(f"write ask and a seat: {choices}", "error")
            self._changed()
            return False
        try:
            self._ask(HUMAN, seat)
        except IllegalMoveError as e:
            self._say(str(e), "error")
            self._changed()
            return False
        self._changed()
        return True

    def _ask(self, asker: int, seat: int) -> None:
        """``asker`` asks ``seat``'s card count; the answer goes to the log and the note."""
        count = self.game.ask_count(asker, seat)
        answer = f"{says(self.names[seat], 'holds')} {plural(count, 'card')}"
        self.log.append(f"{self.names[asker]} asked: {answer}")
        self._say(answer)

    def _human_move(self, cards: Sequence[Card] | None) -> bool:
        g = self.game
        try:
            move = g.play(PASS if cards is None else cards)
        except ValueError as e:
            # the player chose the cards: the reason alone, not the move quoted back
            self._say(why_refused(e), "error")
            self._changed()
            return False
        self.selected = 0
        self._combo_index = -1
        self._say("")
        self._after_move(HUMAN, move)
        return True

    def hint(self) -> Choice | None:
        """Suggest a move, select its cards and say why."""
        if not self.human_to_act:
            self._say("hints come on your turn", "error")
            self._changed()
            return None
        move, reason = self._hint()
        self.selected = move.mask
        self._combo_index = -1
        shown = format_move(move)
        self._say(f"hint: {shown}" + (f" ({reason})" if reason else ""), "hint")
        self._changed()
        return move

    def _hint(self) -> tuple[Choice, str]:
        g = self.game
        plays, gives = split_choices(g.legal_moves())
        if gives:
            return give_lowest(gives), "give back your lowest cards"
        return hint(observe(g, HUMAN), plays)

    # --- bots -------------------------------------------------------------------------
    def bot_job(self) -> BotJob | None:
        """The bot turn to compute, or ``None`` when no bot is to act."""
        if not self.bot_to_act:
            return None
        g = self.game
        seat = g.turn
        return BotJob(g, seat, self.players[seat], observe(g, seat), g.legal_moves(), self.budget)

    def apply_bot(self, job: BotJob, move: Choice) -> bool:
        """Make ``job``'s move if the game is still where the job found it."""
        g = self.game
        if job.game is not g or g.turn != job.seat or g.is_over:
            return False
        if job.problem:
            self.problems.append(job.problem)
            self.log.append(f"({self.names[job.seat]}'s bot had a problem: {job.problem})")
        g.play(move)
        self._after_move(job.seat, move)
        return True

    def step_bot(self) -> Choice | None:
        """Let the bot to act move at once (no delay); returns its move."""
        job = self.bot_job()
        if job is None:
            return None
        move = job.run()
        self.apply_bot(job, move)
        return move

    # --- after moves and between games -------------------------------------------------
    def _after_move(self, seat: int, move: Choice) -> None:
        g = self.game
        who = self.names[seat]
        if isinstance(move, Give):
            n = move.mask.bit_count()
            self.log.append(f"{who} gave {plural(n, 'card')} back")
        elif move.is_pass:
            self.log.append(f"{who} passed")
        else:
            self.log.append(f"{who}: {describe_move(move)}")
            if g.cards_left(seat) == 0:
                place = g.finish_order.index(seat) + 1
                self.log.append(f"{says(who, 'is')} out (place {place})")
        if not g.is_over and not g.pile and g.phase == "play" and isinstance(move, Move):
            self.log.append(f"— {says(self.names[g.turn], 'leads')} a fresh pile")
        self._settle()
        if g.is_over:
            winner = says(self.names[g.finish_order[0]], "wins")
            self.log.append(f"Game {self.match.number} over: {winner}")
        self._changed()

    def _settle(self) -> None:
        """Play through what needs no decision: nobody offers trades in this game."""
        g = self.game
        while g.phase == "trading":
            g.play(PASS)
        n = len(self.hand)
        self.cursor = max(0, min(self.cursor, n - 1))

    def _start_game(self) -> None:
        g = self.game
        self.selected = 0
        self.cursor = 0
        self._combo_index = -1
        if g.redeals:
            times = "once" if g.redeals == 1 else f"{g.redeals} times"
            self.log.append(f"Four 2s were dealt: the cards were dealt again ({times})")
        self.log.append(f"Game {self.match.number}: {says(self.names[g.leader], 'leads')}")
        if g.phase == "trading":
            self.log.append("Nobody offers a trade this game")
        self._settle()
        if g.phase == "exchange":
            self.log.append("Exchange: the losers hand their highest cards to the winners")
        if g.instant_win is not None:
            seat, name = g.instant_win
            self.log.append(
                f"{says(self.names[seat], 'wins')} at once with {name.replace('-', ' ')}"
            )
        self._say("")

    def next_game(self) -> None:
        """Start the next game of the match (the current one must be over)."""
        if not self.game.is_over:
            raise ValueError("the game is not over yet")
        self.finished.append(self.game)
        self.match.new_game()
        self.log = []
        self._start_game()
        self._changed()

    # --- the view ---------------------------------------------------------------------
    def status(self) -> str:
        """What the game waits for, in words."""
        g = self.game
        if g.is_over:
            return "Game over" if not self.match.is_over else "Match over"
        if g.phase == "exchange":
            receiver = g.exchange_receiver(g.turn)
            count = len(g.legal_moves()[0].cards) if g.turn == HUMAN else 0
            if g.turn == HUMAN and receiver is not None:
                return f"Exchange: give {plural(count, 'card')} to {self.names[receiver]}"
            return f"Exchange: {says(self.names[g.turn], 'chooses')} cards to give back"
        if g.turn != HUMAN:
            return f"{self.label(g.turn)} to play"
        top = g.top
        if top is None:
            first = g.first_lead_rule
            if first is not None and first[0] == "lowest-single":
                return f"Your lead: play {first[1]} alone"
            if first is not None and first[0] == "must-include-lowest":
                return f"Your lead: play a combination with {first[1]}"
            return "Your lead: play any combination"
        return f"Your turn: beat {self.names[top.seat]}'s {top.move.describe()} or pass"

    def title(self) -> str:
        """The header line: rules, game number, match length, and the seed if one was given
        (an unseeded match's seed shows only in its saved records)."""
        m = self.match
        parts = [self.rules.code(), f"game {m.number}" + (f" of {m.games}" if m.games else "")]
        if m.target:
            parts.append(f"to {m.target} points")
        if self.seeded:
            parts.append(f"seed {self.seed}")
        return " · ".join(parts)

    def view(self) -> TableView:
        """An immutable picture of the table for the screens."""
        g = self.game
        scores = self.match.scores
        counts = g.shown_counts(HUMAN)
        seats = tuple(
            SeatView.of(
                g, s, name=self.names[s], level=self.levels[s], score=scores[s], cards=counts[s]
            )
            for s in range(self.rules.players)
        )
        combos = self.combos() if self.human_to_act and g.phase == "play" else []
        joinable = 0
        if self.selected:
            for m in combos:
                joinable |= m.mask
        hand = tuple(
            HandCard(
                card=c,
                selected=bool(self.selected & c.bit),
                cursor=i == self.cursor,
                combinable=bool(joinable & c.bit) and not self.selected & c.bit,
            )
            for i, c in enumerate(self.hand)
        )
        pile = tuple(PileEntry(a.seat, self.names[a.seat], a.move) for a in g.pile)
        return TableView(
            version=self.version,
            title=self.title(),
            seats=seats,
            hand=hand,
            pile=pile,
            status=self.status(),
            note=self.note,
            note_kind=self.note_kind,
            combos=tuple(combos),
            log=tuple(self.log),
            your_turn=self.human_to_act,
            phase=g.phase,
            over=g.is_over,
        )

    # --- saving -------------------------------------------------------------------------
    def records(self) -> list[GameRecord]:
        """Every game of the match so far as a game record (:mod:`tienlen.record`)."""
        games = [*self.finished, self.game]
        names = self._file_names or self.names
        return [
            GameRecord.from_game(g, seed=self.match.seed_of(number), names=names)
            for number, g in enumerate(games, start=1)
        ]

    def match_record(self) -> MatchRecord:
        """The match as a saved match: settings, scores and every game's record. A resumed
        match keeps its file's extension fields (``x-…``), game by game."""
        s = self.settings
        records = self.records()
        kept = self._file
        if kept is not None:
            records = [
                dataclasses.replace(new, extra=old.extra)
                for old, new in zip(kept.records, records, strict=False)
            ] + records[len(kept.records) :]
        return MatchRecord(
            rules=s.rules,
            bots=s.bots,
            games=s.games,
            target=s.target,
            seed=self.seed,
            seeded=self.seeded,
            scores=self.match.scores,
            records=tuple(records),
            extra=kept.extra if kept is not None else {},
        )

    def save(self, path: str | Path) -> Path:
        """Write the match to ``path`` (JSON) atomically: a failed write leaves the previous
        save as it was. Returns the path."""
        p = write_atomic(path, self.match_record().to_json())
        self._say(f"match saved to {p}")
        self._changed()
        return p

    @classmethod
    def of_record(cls, saved: MatchRecord, *, delay: float = 0.6) -> MatchController:
        """Resume a saved match: it is dealt again from its seed and every recorded move is
        played again (and so checked) in order. Raises :class:`~tienlen.record.RecordError`
        naming the game when the file does not replay."""
        try:
            settings = MatchSetup.of_record(saved, delay=delay)
        except ValueError as e:
            raise RecordError(f"match.settings: {e}") from None
        ctl = cls(settings)
        ctl.seeded = saved.seeded
        ctl._file = saved
        names = saved.records[0].names
        if names is not None and len(names) == len(ctl.names):
            ctl._file_names = names
            ctl.names = tuple(printable(n, limit=NAME_CHARS) for n in names)
        for number, record in enumerate(saved.records, start=1):
            where = f"match.games[{number - 1}]"
            if number > 1:
                ctl.next_game()
            try:
                recorded = record.game()
            except RecordError as e:
                raise RecordError(f"{where}: {e}") from None
            g = ctl.game
            if recorded.setup.hands != g.setup.hands:
                raise RecordError(f"{where}: the game was not dealt from the match's seed")
            if recorded.trades:
                raise RecordError(f"{where}: the game has card trades, which cannot be resumed")
            asks = list(recorded.asks)  # card counts asked, each after its first ``at`` moves
            for at, action in enumerate((*recorded.history, None)):
                ctl._settle()
                while asks and asks[0].at == at:
                    ask = asks.pop(0)
                    ctl._ask(ask.asker, ask.seat)
                if action is not None:
                    done = action.give if isinstance(action, Gift) else action.move
                    ctl._after_move(action.seat, g.play(done))
            if number < len(saved.records) and not g.is_over:
                raise RecordError(f"{where}: the game is not over, yet a later game follows")
        if saved.scores is not None and ctl.match.scores != saved.scores:
            raise RecordError(
                f"match.scores: {list(saved.scores)} do not match the replayed games "
                f"({list(ctl.match.scores)})"
            )
        ctl._say("match resumed")
        return ctl

    @classmethod
    def load(cls, path: str | Path, *, delay: float = 0.6) -> MatchController:
        """Resume the match saved at ``path``; errors name the file and the field."""
        data = read_input(path)
        try:
            return cls.of_record(MatchRecord.from_json(data), delay=delay)
        except RecordError as e:
            raise RecordError(f"{path}: {e}") from None
