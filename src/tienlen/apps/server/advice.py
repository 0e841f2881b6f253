"""The seated player's helpers: a hint for their turn, their hand grouped. Each is worked out
where the table lives (its owner, in a cluster: another node forwards the request there,
rather than replay the table for it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tienlen import Move
from tienlen.observation import observe
from tienlen.players.bots.analysis import counts_of, planner
from tienlen.players.hint import hint

from .tables import Refused, Table

__all__ = ["ADVICE", "grouped", "hinted"]


def hinted(table: Table, player: str) -> dict[str, Any]:
    """The heuristic bot's suggestion for ``player``'s seat, on their turn in the play phase
    (``GET /api/tables/{id}/hint``)."""
    game, seat = table.game, table.seat_of(player)
    if game is None or seat is None or game.is_over or game.turn != seat:
        raise Refused("not_your_turn", "a hint is for the seat to act")
    if game.phase != "play":
        raise Refused("not_playing", "hints are for the play phase")
    move, why = hint(observe(game, seat), game.legal_moves())
    kind = move.kind if isinstance(move, Move) and move.cards else None
    return {
        "cards": [c.ascii() for c in move.cards],
        "kind": kind,
        "why": why,
        "reason": why.to_dict(),
    }


def grouped(table: Table, player: str) -> list[list[str]]:
    """``player``'s hand split into combinations, as the heuristic bot plans it, lowest
    group first (``GET /api/tables/{id}/groups``)."""
    game, seat = table.game, table.seat_of(player)
    if game is None or seat is None:
        raise Refused("not_seated", "only a seated player's hand can be grouped")
    left = list(game.hands[seat])
    groups = []
    for unit in planner(game.rules).plan(counts_of(game.hand_masks[seat])).units:
        group = [
            card
            for rank in range(unit.low, unit.top + 1)
            for card in [c for c in left if c.rank == rank][: unit.per]
        ]
        left = [c for c in left if c not in group]
        groups.append([c.ascii() for c in group])
    if left:
        groups.append([c.ascii() for c in left])
    return groups


#: The helpers by the name a request gives (the route's last part).
ADVICE: dict[str, Callable[[Table, str], Any]] = {"hint": hinted, "groups": grouped}
