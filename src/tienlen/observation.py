"""What one seat may know: the single source of hidden-information truth.

Bots, the server and the RL environment see a game only through :func:`observe`. An
:class:`Observation` holds the seat's own hand and public facts (card counts, the pile,
passes, the public history). Nothing in it depends on another seat's hidden cards beyond
what the table has seen; a test checks that two games differing only in the other hands
give equal observations.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card, cards_of_mask
from .game import Game, TradeOffer
from .position import Action, PlayState, state_fields
from .rules import Rules

__all__ = ["Observation", "observe"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Observation(PlayState):
    """One seat's view of a game at one moment: the :class:`~tienlen.position.PlayState`
    with only this seat's hand known, and what the seat has seen."""

    seat: int
    """Whose view this is."""
    rules: Rules
    """The rules in force."""
    history: tuple[Action, ...]
    """Every public action so far (exchanges show only to the two seats involved)."""
    trades: tuple[TradeOffer, ...]
    """Trade offers: full for offers this seat made or received; for others only who
    offered to whom and the answer (the cards, and so their number, are hidden)."""

    @property
    def hand_mask(self) -> int:
        """This seat's cards as a bitmask (see :mod:`tienlen.cards`)."""
        return self.hands[self.seat] or 0

    @property
    def hand(self) -> tuple[Card, ...]:
        """This seat's cards, lowest first."""
        return cards_of_mask(self.hand_mask)

    @property
    def played_mask(self) -> int:
        """Every card played to the table so far (as a bitmask)."""
        out = 0
        for action in self.history:
            if action.move.kind != "give":
                out |= action.move.mask
        return out

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.rules.players

    def is_my_turn(self) -> bool:
        """Whether this seat is to act."""
        return self.turn == self.seat and self.phase != "over"


def observe(game: Game, seat: int) -> Observation:
    """``seat``'s :class:`Observation` of ``game``."""
    n = game.rules.players
    if not 0 <= seat < n:
        raise ValueError(f"seat must be 0-{n - 1}, not {seat!r}")
    history = game.history
    if any(a.move.kind == "give" for a in history):
        # A give is seen by the giver and its receiver only.
        receivers = iter(game.give_receivers)
        history = tuple(
            a for a in history if a.move.kind != "give" or seat in (a.seat, next(receivers))
        )
    trades = tuple(
        t if seat in (t.proposer, t.partner) else t._replace(give=0, take=0) for t in game.trades
    )
    state = state_fields(game.position)
    state["hands"] = tuple(h if s == seat else None for s, h in enumerate(state["hands"]))
    return Observation(**state, seat=seat, rules=game.rules, history=history, trades=trades)
