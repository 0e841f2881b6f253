"""The lobby and tables: the presets and bot levels a table can have, new tables, the open
tables, one table, and the seated player's helpers (a hint, the hand grouped)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from tienlen import RULESETS, Move, Rules
from tienlen.observation import observe
from tienlen.players.bots.analysis import counts_of, planner
from tienlen.players.hint import hint
from tienlen.players.levels import LEVELS

from ..deps import Me, Node
from ..lobby import NewTable
from ..tables import Refused, Table

__all__ = ["router"]

router = APIRouter()


@router.get("/api/presets")
async def presets() -> dict[str, Any]:
    """Every preset's knobs."""
    return {"presets": {name: Rules.preset(name).to_dict() for name in RULESETS}}


@router.get("/api/levels")
async def levels() -> list[dict[str, Any]]:
    """The levels a bot seat can have, weakest first, each with its name and a line about
    it in every language of the pages (:data:`tienlen.players.levels.LEVELS`)."""
    return [level.to_dict() for level in LEVELS.values()]


@router.post("/api/tables", status_code=201)
async def new_table(body: NewTable, player: Me, srv: Node) -> dict[str, Any]:
    """A new table hosted by the caller (its invite, if private)."""
    table = await srv.create_table(player, body)
    return {"table": table.info().model_dump(), "invite": table.invite}


@router.get("/api/tables")
async def tables(srv: Node) -> list[dict[str, Any]]:
    """The public tables not yet finished."""
    return [t.model_dump() for t in await srv.listed()]


@router.get("/api/tables/{table_id}")
async def one_table(
    table_id: str, player: Me, srv: Node, invite: str | None = None
) -> dict[str, Any]:
    """One table the caller may see (a private one with its invite)."""
    return (await srv.info(table_id, player.id, invite)).model_dump()


async def _seat_of(srv: Node, table_id: str, player: str) -> tuple[Table, int | None]:
    table = await srv.read(table_id)
    return table, table.seat_of(player)


@router.get("/api/tables/{table_id}/hint")
async def table_hint(table_id: str, player: Me, srv: Node) -> dict[str, Any]:
    """The heuristic bot's suggestion for the caller's seat, on their turn in the play phase:
    ``why`` in English, ``reason`` its ``{code, params}`` (``GET /api/reasons``) to word it
    in the page's language."""
    table, seat = await _seat_of(srv, table_id, player.id)
    game = table.game
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


@router.get("/api/tables/{table_id}/groups")
async def hand_groups(table_id: str, player: Me, srv: Node) -> list[list[str]]:
    """The caller's hand split into combinations, as the heuristic bot plans it (the page's
    Group key): each group's cards, lowest group first."""
    table, seat = await _seat_of(srv, table_id, player.id)
    game = table.game
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
