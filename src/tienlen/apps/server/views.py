"""What each seat (or a spectator) sees of a game: the :class:`~.messages.GameView` frames
carry.

Its play-state part is built field by field from the engine's
:class:`~tienlen.position.PlayState`: :data:`TABLE_FIELDS` and :data:`SEAT_FIELDS` say how
each of its fields shows, so the view has every field the engine has (a test fails when the
engine gains one the view lacks); the rest is the table's (the game's number, dealer and
commitment) and the seat's (history, trades, legal moves).

A change goes out to every seat at once, so :func:`game_views` builds all their views from
one reading of the game's position: the fields every seat sees alike once, then each seat's
own (its hand, the counts shown to it, its trades' cards) as the seat's
:func:`~tienlen.observation.observe` holds them; tests check both against each seat's
observation, and the history of a full resync is the observation's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from tienlen import Game, Move
from tienlen.cards import Card, ids_of_mask
from tienlen.observation import observe
from tienlen.position import Action, Gift, PlayState

from .messages import GameView, Play, Trade

__all__ = ["SEAT_FIELDS", "TABLE_FIELDS", "Views", "card_ids", "game_views", "mask_ids"]

#: One PlayState field's value as a seat's view shows it, from the game's position (every
#: hand in it), the game and the seat (``None``: a spectator).
Shown = Callable[[PlayState, Game, "int | None"], Any]
#: Each seat's view (``None``: a spectator's).
Views = dict["int | None", GameView]


def card_ids(cards: Iterable[Card]) -> list[str]:
    """Cards as identifiers (``"3s"``)."""
    return [c.ascii() for c in cards]


@functools.cache
def _card_id(card: int) -> str:
    return Card.from_id(card).ascii()


def mask_ids(mask: int) -> list[str]:
    """The cards of a mask as identifiers (each card's text made once: views list every
    hand and legal move on each action)."""
    return [_card_id(i) for i in ids_of_mask(mask)]


@functools.lru_cache(maxsize=8192)  # the pile's plays repeat in every seat's view
def _play(seat: int, move: Move) -> Play:
    return Play(seat=seat, kind=move.kind, cards=mask_ids(move.mask))


def _give(gift: Gift) -> Play:
    return Play(seat=gift.seat, kind="give", cards=mask_ids(gift.give.mask))


def _first_lead(first_lead: tuple[str, Card] | None) -> str | None:
    if first_lead is None:
        return None
    mode, card = first_lead
    return f"{mode} {card.ascii()}"


def _same(value: Any) -> Any:
    return value


def _opening(seats: tuple[int, ...] | None) -> list[int] | None:
    return None if seats is None else list(seats)


#: The fields of the engine's :class:`~tienlen.position.PlayState` that every seat sees as
#: they are in the game's position: the :class:`~.messages.GameView` field each shows as,
#: and how (made once per change, for all the seats; a test checks that each seat's
#: observation holds them so).
TABLE_FIELDS: Mapping[str, tuple[str, Callable[[Any], Any]]] = {
    "phase": ("phase", _same),
    "turn": ("turn", _same),
    "leader": ("leader", _same),
    "pile": ("pile", lambda pile: [_play(a.seat, a.move) for a in pile]),
    "passed": ("passed", sorted),
    "locked_out": ("locked_out", sorted),
    "straight_locked": ("straight_locked", _same),
    "first_lead": ("first_lead", _first_lead),
    "stuck": ("stuck", sorted),
    "finish_order": ("finish_order", list),
    "opening": ("opening", _opening),
}
#: The fields each seat sees its own way, and how, as its observation holds them (a test
#: checks): its own hand only (a spectator none), the counts shown to it.
SEAT_FIELDS: Mapping[str, tuple[str, Shown]] = {
    "hands": ("hand", lambda state, g, s: None if s is None else mask_ids(state.hands[s] or 0)),
    "card_counts": ("card_counts", lambda state, g, s: list(g.shown_counts(s))),
}


def game_views(
    game: Game,
    seats: Collection[int | None],
    *,
    number: int,
    dealer: int,
    commitment: str,
    history: bool = False,
    deadline: float | None = None,
) -> Views:
    """What each of ``seats`` (``None``: a spectator) may see of ``game``, the match's game
    ``number`` (``history``: with every action so far, for a full resync; ``deadline``:
    when the seat to act must act, while a turn timer runs)."""
    state = game.position
    over = state.phase == "over"
    shared: dict[str, Any] = {
        shown: show(getattr(state, name)) for name, (shown, show) in TABLE_FIELDS.items()
    }
    shared.update(
        game=number,
        dealer=dealer,
        commitment=commitment,
        hands=[card_ids(h) for h in game.dealt] if over else None,
        deadline=None if over else deadline,
    )
    views: Views = {}
    for seat in seats:
        own = {shown: show(state, game, seat) for shown, show in SEAT_FIELDS.values()}
        legal = None
        if seat == state.turn and not over:
            legal = [mask_ids(mv.mask) for mv in game.legal_moves()]
        views[seat] = GameView(
            seat=seat,
            **shared,
            **own,
            history=_history(game, seat) if history else None,
            trades=_trades(game, seat),
            legal=legal,
        )
    return views


def _history(game: Game, seat: int | None) -> list[Play]:
    """Every action so far that ``seat`` saw (a spectator sees no give)."""
    entries = observe(game, 0 if seat is None else seat).history
    return [
        _play(a.seat, a.move) if isinstance(a, Action) else _give(a)
        for a in entries
        if seat is not None or isinstance(a, Action)
    ]


def _trades(game: Game, seat: int | None) -> list[Trade]:
    """The trade offers, their cards only for their two seats."""
    out = []
    for t in game.trades:
        mine = seat is not None and seat in (t.proposer, t.partner)
        out.append(
            Trade(
                proposer=t.proposer,
                partner=t.partner,
                give=mask_ids(t.give) if mine else None,
                take=mask_ids(t.take) if mine else None,
                accepted=t.accepted,
            )
        )
    return out
