"""What one seat may know: the single source of hidden-information truth.

Bots, the server and the RL environment see a game only through :func:`observe`. An
:class:`Observation` holds the seat's own hand and public facts (card counts, the pile,
passes, the public history). Nothing in it depends on another seat's hidden cards beyond
what the table has seen; a test checks that two games differing only in the other hands
give equal observations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card, cards_of_mask
from .game import Action, Game, TradeOffer
from .rules import Rules

__all__ = ["Observation", "observe"]


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of a game at one moment."""

    seat: int
    """Whose view this is."""
    rules: Rules
    """The rules in force."""
    phase: str
    """``"trading"``, ``"exchange"``, ``"play"`` or ``"over"``."""
    turn: int
    """The seat to act."""
    hand_mask: int
    """This seat's cards as a bitmask (see :mod:`tienlen.cards`)."""
    card_counts: tuple[int, ...]
    """Cards held by every seat."""
    pile: tuple[Action, ...]
    """Plays of the current pile, oldest first; empty when the seat to act leads."""
    passed: frozenset[int]
    """Seats that passed since the last play."""
    locked_out: frozenset[int]
    """Seats locked out of the current pile."""
    straight_locked: bool
    """A one-suit straight has locked the pile."""
    first_lead: tuple[str, Card] | None
    """The constraint on the opening play, while it is pending."""
    stuck: frozenset[int]
    """Leaders who passed the lead because they had no legal play (since the last play)."""
    finish_order: tuple[int, ...]
    """Seats out so far, in order (every seat, loser last, once over)."""
    history: tuple[Action, ...]
    """Every public action so far (exchanges show only to the two seats involved)."""
    trades: tuple[TradeOffer, ...]
    """Trade offers: full for offers this seat made or received; for others only who
    offered to whom and the answer (the cards, and so their number, are hidden)."""
    leader: int
    """The seat that led the first pile."""
    opening: tuple[int, ...] | None = None
    """Before the game's first play under ``rules.opening_bombs``, the seats still to be
    asked whether they open out of turn (see :attr:`tienlen.Game.opening`)."""

    @property
    def hand(self) -> tuple[Card, ...]:
        """This seat's cards, lowest first."""
        return cards_of_mask(self.hand_mask)

    @property
    def top(self) -> Action | None:
        """The play to beat, if any."""
        return self.pile[-1] if self.pile else None

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
    return Observation(
        seat=seat,
        rules=game.rules,
        phase=game.phase,
        turn=game.turn,
        hand_mask=game.hand_masks[seat],
        card_counts=tuple(m.bit_count() for m in game.hand_masks),
        pile=game.pile,
        passed=game.passed,
        locked_out=game.locked_out,
        straight_locked=game.straight_locked,
        first_lead=game.first_lead_rule,
        stuck=game.stuck,
        finish_order=game.finish_order,
        history=history,
        trades=trades,
        leader=game.leader,
        opening=game.opening,
    )


def game_from_observation(obs: Observation, hands: Sequence[int]) -> Game:
    """A game in the observed play-phase state with the given hands (bitmasks, one per seat;
    ``hands[obs.seat]`` must be the observer's own). Used to sample determinizations."""
    return Game.from_state(
        obs.rules,
        hands=hands,
        turn=obs.turn,
        pile=obs.pile,
        passed=obs.passed,
        locked_out=obs.locked_out,
        straight_locked=obs.straight_locked,
        first_lead=obs.first_lead,
        stuck=obs.stuck,
        finish_order=obs.finish_order,
        leader=obs.leader,
        opening=obs.opening,
    )
