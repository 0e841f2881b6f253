"""The lobby and tables: the presets and bot levels a table can have, new tables, the open
tables, one table, and the seated player's helpers (a hint, the hand grouped)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from tienlen import RULESETS, Rules
from tienlen.players.levels import LEVELS

from ..deps import Me, Node
from ..lobby import PAGE, PAGE_MAX, NewTable

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
async def tables(
    srv: Node,
    limit: Annotated[int, Query(ge=1, le=PAGE_MAX)] = PAGE,
    after: Annotated[str | None, Query(max_length=64)] = None,
) -> list[dict[str, Any]]:
    """The public tables not yet finished, newest first: ``limit`` of them, those after the
    table ``after`` (the last one of the page before) if given."""
    return [t.model_dump() for t in await srv.listed(limit=limit, after=after)]


@router.get("/api/tables/{table_id}")
async def one_table(
    table_id: str, player: Me, srv: Node, invite: str | None = None
) -> dict[str, Any]:
    """One table the caller may see (a private one with its invite)."""
    return (await srv.info(table_id, player.id, invite)).model_dump()


@router.get("/api/tables/{table_id}/hint")
async def table_hint(table_id: str, player: Me, srv: Node) -> dict[str, Any]:
    """The heuristic bot's suggestion for the caller's seat, on their turn in the play phase:
    ``why`` in English, ``reason`` its ``{code, params}`` (``GET /api/reasons``) to word it
    in the page's language."""
    answer: dict[str, Any] = await srv.advise(table_id, player.id, "hint")
    return answer


@router.get("/api/tables/{table_id}/groups")
async def hand_groups(table_id: str, player: Me, srv: Node) -> list[list[str]]:
    """The caller's hand split into combinations, as the heuristic bot plans it (the page's
    Group key): each group's cards, lowest group first."""
    answer: list[list[str]] = await srv.advise(table_id, player.id, "groups")
    return answer
