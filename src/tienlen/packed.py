"""The state a :class:`tienlen.Game` holds, packed for speed: one record, copied and
converted by one function each.

:class:`PackedState` has :class:`~tienlen.position.PlayState`'s fields under the same names,
most in the same encoding; where it differs (bitmasks for speed), the field says so. After
them come what a ``PlayState`` leaves out: the deal as set up, the history, the exchanges
before the play, the move-table cache. :func:`unpacked` makes a ``PlayState`` of it and
:func:`packed` the reverse, both reading the field list off the one declaration below: they
name only the fields that need more than their value carried over (the encodings that
differ, what a game built from a ``PlayState`` starts with). :meth:`PackedState.copy`, on
every node of a search, is the one place that writes the fields out again, for speed
(compiled, a copy read off the declaration costs six times as much); a test fails when it
misses one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, Final

from .cards import Card, ids_of_mask
from .debts import CardDebt, Settlement
from .exchanges import MutualTrading, SanJoseExchange
from .movegen import MoveTable
from .position import Action, Chop, CountAsk, Entry, Phase, PlayState
from .rules import FirstLead

__all__ = [
    "PackedState",
    "first_lead_of",
    "mask_of_seats",
    "packed",
    "seats_of_mask",
    "unpacked",
]

#: ``(hands as dealt, given leader, previous finish, card debts)``: what the game started from.
Setup = tuple[tuple[int, ...], int | None, tuple[int, ...] | None, tuple[CardDebt, ...]]


@dataclass(eq=False)
class PackedState:
    """Everything about one deal that changes (the rules aside): ``PlayState``'s fields first,
    by the same names, then the rest. A seat set is a bitmask (bit ``s`` for seat ``s``)."""

    # --- PlayState's fields (card_counts is not kept: it is each hand's bit count) ----------
    turn: int
    """The seat to act."""
    leader: int
    """The seat that led (or had to lead) the first pile."""
    hands: list[int]
    """Every seat's cards as a bitmask, all known (a list: a play changes one in place)."""
    phase: Phase = "play"
    """``"trading"``, ``"exchange"``, ``"play"`` or ``"over"``."""
    pile: tuple[Action, ...] = ()
    """Plays of the current pile, oldest first."""
    passed: int = 0
    """Seats that passed since the last play, as a bitmask."""
    locked_out: int = 0
    """Seats locked out of the current pile by passing, as a bitmask."""
    straight_locked: bool = False
    """A one-suit straight has locked the pile."""
    first_lead: FirstLead | None = None
    """The mode of the first-lead constraint still pending; its card is :attr:`lowest`
    (``PlayState`` pairs them: ``(mode, card)``)."""
    stuck: int = 0
    """Leaders who passed the lead for want of a legal play, as a bitmask."""
    finish_order: tuple[int, ...] = ()
    """Seats out so far, in order."""
    opening: tuple[int, ...] | None = None
    """Seats still to be asked whether they open out of turn (``rules.opening_bombs``)."""
    # --- beyond PlayState ----------------------------------------------------------------
    lowest: int = -1
    """The id of the lowest card dealt, which the first leader holds; -1 when the leader
    was given. It outlives :attr:`first_lead`: once cards change hands before the play,
    its holder leads."""
    setup: Setup = ((), None, None, ())
    """What the game was started from (see :class:`tienlen.game.GameSetup`), as masks."""
    dealt: tuple[int, ...] = ()
    """The hands when the play started (after a spare card, a trade or an exchange)."""
    spare: int = 0
    """The cards no seat was dealt."""
    spare_taker: int | None = None
    """The seat that took a lone spare card (``rules.starter_takes_spare``)."""
    unused: tuple[int, ...] = ()
    """Hands dealt but not played (``deal_four_hands``)."""
    redeals: int = 0
    """Deals void before this one."""
    instant: tuple[int, str] | None = None
    """``(seat, hand name)`` of a win at the deal."""
    history: list[Entry] = field(default_factory=list)
    """Every play, pass and give, in order."""
    chops: tuple[Chop, ...] = ()
    """Bombs played on plays of another kind."""
    receivers: tuple[int, ...] = ()
    """The seat that received each give of :attr:`history`."""
    asks: tuple[CountAsk, ...] = ()
    """Card counts asked for and answered (``rules.hidden_counts``)."""
    trading: MutualTrading | None = None
    """The mutual trading phase's offers, under ``rules.trading == "mutual"``."""
    exchange: Settlement | SanJoseExchange | None = None
    """The exchange before the play: card debts or the San Jose exchange."""
    tables: list[MoveTable | None] = field(default_factory=list)
    """Each seat's move table, made when first needed (a cache of :attr:`hands`)."""

    def copy(self) -> PackedState:
        """An independent copy: the lists and the exchanges, which change in place, copied;
        every other field shared (immutable values).

        Field by field, on a record made without ``__init__``: compiled, the dataclass's
        ``__init__`` is interpreted code (the dataclasses module writes it at import) and
        each field read by name off the declaration is a lookup, six times the cost of this
        copy in all (docs/benchmarks.md). tests/test_packed.py fails on a field left out."""
        out = PackedState.__new__(PackedState)
        out.turn = self.turn
        out.leader = self.leader
        out.hands = self.hands[:]
        out.phase = self.phase
        out.pile = self.pile
        out.passed = self.passed
        out.locked_out = self.locked_out
        out.straight_locked = self.straight_locked
        out.first_lead = self.first_lead
        out.stuck = self.stuck
        out.finish_order = self.finish_order
        out.opening = self.opening
        out.lowest = self.lowest
        out.setup = self.setup
        out.dealt = self.dealt
        out.spare = self.spare
        out.spare_taker = self.spare_taker
        out.unused = self.unused
        out.redeals = self.redeals
        out.instant = self.instant
        out.history = self.history[:]
        out.chops = self.chops
        out.receivers = self.receivers
        out.asks = self.asks
        out.trading = None if self.trading is None else self.trading.copy()
        out.exchange = None if self.exchange is None else self.exchange.copy()
        out.tables = self.tables[:]
        return out


def seats_of_mask(mask: int) -> frozenset[int]:
    """The seats of a seat bitmask."""
    return frozenset(ids_of_mask(mask))


def mask_of_seats(seats: Iterable[int]) -> int:
    """The bitmask of some seats."""
    mask = 0
    for seat in seats:
        mask |= 1 << seat
    return mask


def first_lead_of(p: PackedState) -> tuple[FirstLead, Card] | None:
    """``PlayState.first_lead`` of ``p``: (mode, lowest card), or ``None``."""
    return (p.first_lead, Card.from_id(p.lowest)) if p.first_lead else None


# How a PlayState field is read off the record where the encodings differ (the others are
# the same value under the same name).
_TO_STATE: Final[dict[str, Callable[[PackedState], Any]]] = {
    "hands": lambda p: tuple(p.hands),
    "card_counts": lambda p: tuple(h.bit_count() for h in p.hands),
    "passed": lambda p: seats_of_mask(p.passed),
    "locked_out": lambda p: seats_of_mask(p.locked_out),
    "stuck": lambda p: seats_of_mask(p.stuck),
    "first_lead": first_lead_of,
}
# ... and the reverse (card_counts has no field: it follows from the hands).
_FROM_STATE: Final[dict[str, Callable[[PlayState], Any]]] = {
    "passed": lambda s: mask_of_seats(s.passed),
    "locked_out": lambda s: mask_of_seats(s.locked_out),
    "stuck": lambda s: mask_of_seats(s.stuck),
    "first_lead": lambda s: s.first_lead[0] if s.first_lead else None,
}
_STATE_FIELDS: Final = tuple(f.name for f in fields(PlayState))
_SHARED: Final = tuple(n for n in _STATE_FIELDS if n not in ("hands", "card_counts"))


# Each PlayState field with its reader (looked up once, not on every call).
_READERS: Final[tuple[tuple[str, Callable[[PackedState], Any]], ...]] = tuple(
    (name, _TO_STATE.get(name, attrgetter(name))) for name in _STATE_FIELDS
)


def unpacked(p: PackedState) -> PlayState:
    """The :class:`~tienlen.position.PlayState` of ``p``, every hand included."""
    return PlayState(**{name: read(p) for name, read in _READERS})


def packed(
    state: PlayState,
    hands: Sequence[int],
    played: Sequence[Action] = (),
    exchange: MutualTrading | Settlement | SanJoseExchange | None = None,
) -> PackedState:
    """A record in ``state`` holding ``hands`` (bitmasks, one per seat, in place of the
    state's, which may be hidden), as a game built from it starts: with ``played`` (the
    plays and passes that led to it) as its history, the hands as dealt and set up being
    ``hands`` and the cards each seat played, the first lead's card as
    :attr:`PackedState.lowest`, and ``exchange`` (the trading or an exchange) in progress
    (its first leader then the seat that holds that card once it is done)."""
    values = {
        name: _FROM_STATE[name](state) if name in _FROM_STATE else getattr(state, name)
        for name in _SHARED
    }
    masks = list(hands)
    lowest = state.first_lead[1].id if state.first_lead else -1
    held = masks[:]
    for action in played:
        held[action.seat] |= action.move.mask
    dealt = tuple(held)
    return PackedState(
        **values,
        hands=masks,
        lowest=lowest,
        setup=(dealt, None if exchange is not None and lowest >= 0 else state.leader, None, ()),
        dealt=dealt,
        history=list(played),
        trading=exchange if isinstance(exchange, MutualTrading) else None,
        exchange=None if isinstance(exchange, MutualTrading) else exchange,
        tables=[None] * len(masks),
    )
