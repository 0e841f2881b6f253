"""What a seat (or a spectator) sees of a game: the :class:`~.messages.GameView` frames carry.

Its play-state part is built field by field from the engine's
:class:`~tienlen.position.PlayState` (through the seat's
:func:`~tienlen.observation.observe`): :data:`PLAY_STATE` says how each of its fields shows,
so the view has every field the engine has (a test fails when the engine gains one the
view lacks); the rest is the table's (the game's number, dealer and commitment) and the
seat's (history, trades, legal moves).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from typing import Any

from tienlen import Game, Move
from tienlen.cards import Card, ids_of_mask
from tienlen.observation import Observation, observe
from tienlen.position import Action, Gift, PlayState

from .messages import GameView, Play, Trade

__all__ = ["PLAY_STATE", "card_ids", "game_view", "mask_ids"]

#: One PlayState field's value as the view shows it, from the seat's observation, the game
#: and the seat (``None``: a spectator).
Shown = Callable[[Observation, Game, "int | None"], Any]


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


def _first_lead(o: Observation) -> str | None:
    if o.first_lead is None:
        return None
    mode, card = o.first_lead
    return f"{mode} {card.ascii()}"


#: Each field of the engine's :class:`~tienlen.position.PlayState`: the
#: :class:`~.messages.GameView` field it shows as, and how (the seat's own hand only; a
#: spectator sees the counts the table is shown).
PLAY_STATE: Mapping[str, tuple[str, Shown]] = {
    "phase": ("phase", lambda o, g, s: o.phase),
    "turn": ("turn", lambda o, g, s: o.turn),
    "leader": ("leader", lambda o, g, s: o.leader),
    "hands": ("hand", lambda o, g, s: None if s is None else mask_ids(o.hand_mask)),
    "card_counts": (
        "card_counts",
        lambda o, g, s: list(o.card_counts if s is not None else g.shown_counts(None)),
    ),
    "pile": ("pile", lambda o, g, s: [_play(a.seat, a.move) for a in o.pile]),
    "passed": ("passed", lambda o, g, s: sorted(o.passed)),
    "locked_out": ("locked_out", lambda o, g, s: sorted(o.locked_out)),
    "straight_locked": ("straight_locked", lambda o, g, s: o.straight_locked),
    "first_lead": ("first_lead", lambda o, g, s: _first_lead(o)),
    "stuck": ("stuck", lambda o, g, s: sorted(o.stuck)),
    "finish_order": ("finish_order", lambda o, g, s: list(o.finish_order)),
    "opening": ("opening", lambda o, g, s: None if o.opening is None else list(o.opening)),
}
_FIELDS = tuple(f.name for f in fields(PlayState))


def game_view(
    game: Game,
    seat: int | None,
    *,
    number: int,
    dealer: int,
    commitment: str,
    history: bool = False,
    deadline: float | None = None,
) -> GameView:
    """What ``seat`` (``None``: a spectator) may see of ``game``, the match's game
    ``number`` (``history``: with every action so far, for a full resync; ``deadline``:
    when the seat to act must act, while a turn timer runs)."""
    obs = observe(game, 0 if seat is None else seat)
    legal = None
    if seat is not None and obs.is_my_turn():
        legal = [mask_ids(mv.mask) for mv in game.legal_moves()]
    state = {}
    for name in _FIELDS:
        shown, value = PLAY_STATE[name]
        state[shown] = value(obs, game, seat)
    return GameView(
        seat=seat,
        game=number,
        dealer=dealer,
        commitment=commitment,
        **state,
        history=[
            _play(a.seat, a.move) if isinstance(a, Action) else _give(a)
            for a in obs.history
            if seat is not None or isinstance(a, Action)
        ]
        if history
        else None,
        trades=_trades(obs, seat),
        legal=legal,
        hands=[card_ids(h) for h in game.dealt] if game.is_over else None,
        deadline=None if game.is_over else deadline,
    )


def _trades(obs: Observation, seat: int | None) -> list[Trade]:
    out = []
    for t in obs.trades:
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
