"""What one seat may know: the single source of hidden-information truth.

Bots, the server and the RL environment see a game only through :func:`observe`. An
:class:`Observation` holds the seat's own hand and public facts (card counts, the pile,
passes, the public history). Nothing in it depends on another seat's hidden cards beyond
what the table has seen; a test checks that two games differing only in the other hands
give equal observations.

Under ``rules.hidden_counts`` the other seats' counts are ``None`` in
:attr:`Observation.card_counts` unless asked (:meth:`tienlen.Game.ask_count`). The plays stay
public, so a player who keeps count still knows them: :meth:`Observation.tracked_counts` is
that reckoning, the one way bots read counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import Card, cards_of_mask
from .debts import Settlement
from .exchanges import MutualTrading, SanJoseExchange
from .game import CountAsk, Game, TradeOffer
from .position import Action, Entry, Gift, PlayState, state_fields
from .rules import Rules

__all__ = ["Observation", "observe"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Observation(PlayState):
    """One seat's view of a game at one moment: the :class:`~tienlen.position.PlayState`
    with only this seat's hand known (under ``rules.hidden_counts`` ``card_counts`` is
    ``None`` for a count this seat was not shown, see :meth:`tienlen.Game.shown_counts`;
    bots read :meth:`tracked_counts` instead), and what the seat has seen."""

    seat: int
    """Whose view this is."""
    rules: Rules
    """The rules in force."""
    history: tuple[Entry, ...]
    """Every public action so far (gives show only to the two seats involved)."""
    trades: tuple[TradeOffer, ...]
    """Trade offers: full for offers this seat made or received; for others only who
    offered to whom and the answer (the cards, and so their number, are hidden)."""
    asks: tuple[CountAsk, ...] = ()
    """Card counts asked for so far and their answers (public; ``at`` counts the actions of
    :attr:`history` before each)."""
    spare_taker: int | None = None
    """The seat that took the lone card left over by the deal (``rules.starter_takes_spare``,
    :attr:`tienlen.Game.spare_taker`), ``None`` if none did. Public: the table sees the card
    taken, by the first leader as dealt, who is :attr:`leader` until a trade or an exchange
    moves the lowest card (and the first lead with it)."""
    exchange: MutualTrading | SanJoseExchange | Settlement | None = field(
        default=None, compare=False
    )
    """Before the play, the exchange in progress (trading, San Jose, card debts) as this
    seat sees it (the cards of offers and hand-overs it was not party to left out:
    :meth:`tienlen.Game.exchange_seen_by`), for building games in that phase
    (:meth:`tienlen.Game.from_state`); ``None`` in the play.
    Left out of comparisons and of the bot protocol (:mod:`tienlen.players.protocol`)."""

    @property
    def hand_mask(self) -> int:
        """This seat's cards as a bitmask (see :mod:`tienlen.cards`)."""
        return self.hands[self.seat] or 0

    def tracked_counts(self) -> tuple[int, ...]:
        """Every seat's card count as a player who keeps count works it out: the counts
        shown; for a hidden one, the last answer about that seat (else the number the rules
        deal it, one more for the :attr:`spare_taker`) less the cards it has played since.
        Exact when the hands were dealt by the rules; for hands set up otherwise a hidden
        count is a guess (at least 1 while the seat is in). Without ``rules.hidden_counts``
        it is :attr:`card_counts` as it is."""
        counts = self.card_counts
        if None not in counts:
            return counts  # type: ignore[return-value]  # no None in it
        rules = self.rules
        per_hand = rules.cards_per_hand
        start = [(per_hand, 0)] * len(counts)
        # The lone spare card went to the first leader as dealt: not self.leader once a
        # trade or an exchange moved the lowest card to another seat.
        if self.spare_taker is not None:
            start[self.spare_taker] = (per_hand + 1, 0)
        for ask in self.asks:
            start[ask.seat] = (ask.cards, ask.at)
        out = []
        for seat, shown in enumerate(counts):
            if shown is not None:
                out.append(shown)
                continue
            held, since = start[seat]
            for action in self.history[since:]:
                if action.seat == seat and isinstance(action, Action):
                    held -= action.move.mask.bit_count()
            out.append(max(held, 1))
        return tuple(out)

    @property
    def hand(self) -> tuple[Card, ...]:
        """This seat's cards, lowest first."""
        return cards_of_mask(self.hand_mask)

    @property
    def played_mask(self) -> int:
        """Every card played to the table so far (as a bitmask)."""
        out = 0
        for action in self.history:
            if isinstance(action, Action):
                out |= action.move.mask
        return out

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.rules.players

    @property
    def pending_trade(self) -> TradeOffer | None:
        """The trade offer awaiting an answer, if any (its cards shown only to the two
        seats party to it), as :attr:`tienlen.Game.pending_trade`."""
        last = self.trades[-1] if self.phase == "trading" and self.trades else None
        return last if last is not None and last.accepted is None else None

    @property
    def gives_now(self) -> bool:
        """Whether the choices of the seat to act are gives rather than plays: in an
        exchange, and answering a trade offer (accepting gives the cards asked for)."""
        return self.phase == "exchange" or self.pending_trade is not None

    def is_my_turn(self) -> bool:
        """Whether this seat is to act."""
        return self.turn == self.seat and self.phase != "over"


def observe(game: Game, seat: int) -> Observation:
    """``seat``'s :class:`Observation` of ``game``."""
    n = game.rules.players
    if not 0 <= seat < n:
        raise ValueError(f"seat must be 0-{n - 1}, not {seat!r}")
    history = full = game.history
    if any(isinstance(a, Gift) for a in history):
        # A give is seen by the giver and its receiver only.
        receivers = iter(game.give_receivers)
        history = tuple(
            a for a in history if isinstance(a, Action) or seat in (a.seat, next(receivers))
        )
    asks = game.asks
    if asks and len(history) != len(full):
        # ``at`` counts the observer's history: the gives hidden from it all come before
        # play, and so before every ask.
        hidden = len(full) - len(history)
        asks = tuple(a._replace(at=a.at - hidden) for a in asks)
    trades = tuple(
        t if seat in (t.proposer, t.partner) else t._replace(give=0, take=0) for t in game.trades
    )
    state = state_fields(game.position)
    state["hands"] = tuple(h if s == seat else None for s, h in enumerate(state["hands"]))
    state["card_counts"] = game.shown_counts(seat)
    return Observation(
        **state,
        seat=seat,
        rules=game.rules,
        history=history,
        trades=trades,
        asks=asks,
        spare_taker=game.spare_taker,
        exchange=game.exchange_seen_by(seat),
    )
