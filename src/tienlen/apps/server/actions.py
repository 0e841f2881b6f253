"""Game actions as the server writes them: a bot's (or the timer's) choice as an action's
kind and fields, and an action's fields made in a game by the record module's step (the
same step a stored record replays with)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args

from tienlen import Game
from tienlen.cards import TWO
from tienlen.combos import Choice, Give
from tienlen.record import ActionKind, RecordedAction, apply_action

from .views import card_ids

__all__ = ["act", "chop_made", "move_action"]


def move_action(game: Game, move: Choice) -> tuple[str, dict[str, Any]]:
    """A chosen :class:`~tienlen.Move` (or :class:`~tienlen.combos.Give`) as an action
    (kind, fields) in ``game``'s phase: a give answering a trade offer accepts it."""
    if isinstance(move, Give):
        if game.pending_trade is not None:
            return "accept", {}
        return "give", {"cards": card_ids(move.cards)}
    if move.is_pass:
        return ("refuse" if game.pending_trade is not None else "pass"), {}
    return "play", {"cards": card_ids(move.cards)}


def act(game: Game, kind: str, data: Mapping[str, Any]) -> None:
    """Make one action (a client's or a stored event's fields) in ``game`` with the record
    module's step; the engine raises (a ``ValueError``) and changes nothing when it is
    illegal."""
    if kind not in get_args(ActionKind):
        raise ValueError(f"unknown action {kind!r}")
    apply_action(
        game,
        RecordedAction(
            seat=data["seat"],
            kind=kind,  # type: ignore[arg-type]
            cards=" ".join(data.get("cards") or ()),
            partner=data.get("partner", -1),
            take=" ".join(data.get("take") or ()),
        ),
    )


def chop_made(before: Game, after: Game) -> dict[str, int] | None:
    """The chop the play from ``before`` to ``after`` made, as the engine counts chops (a
    bomb on a play of another kind): ``{"victim": seat, "twos": 2s in the play it beat}``."""
    if len(after.chops) == len(before.chops):
        return None
    chop = after.chops[-1]
    return {"victim": chop.victim, "twos": sum(1 for c in chop.target.cards if c.rank == TWO)}
