"""Players: guests and their tokens, who one is, a player's games and ratings, and the
leaderboard."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ConfigDict

from .. import history
from ..deps import Me, Node, set_cookie

__all__ = ["NewGuest", "router"]

router = APIRouter()


class NewGuest(BaseModel):
    """``POST /api/guest``: the display name."""

    model_config = ConfigDict(extra="forbid", strict=True)
    name: str


@router.post("/api/guest")
async def guest(body: NewGuest, request: Request, response: Response, srv: Node) -> dict[str, str]:
    """A new guest: its id, name and token (also set as the browser's cookie); the guests
    made from one address are capped."""
    peer = request.client.host if request.client else None
    await srv.admission.guest(srv.admission.address(peer, request.headers))
    player, token = await srv.identity.new_guest(body.name)
    set_cookie(response, token, srv.settings)
    return {"player": player.id, "name": player.name, "token": token}


@router.post("/api/token")
async def renew(player: Me, response: Response, srv: Node) -> dict[str, str]:
    """A fresh token for the caller."""
    token = srv.identity.issue(player.id)
    set_cookie(response, token, srv.settings)
    return {"player": player.id, "token": token}


@router.get("/api/me")
async def whoami(player: Me) -> dict[str, str]:
    """Who the token names."""
    return {"player": player.id, "name": player.name}


@router.get("/api/players/{player_id}/games")
async def player_games(player_id: str, srv: Node) -> list[history.PlayerGame]:
    """A player's finished games, newest first."""
    return await history.games_of(srv.sessions, player_id)


@router.get("/api/players/{player_id}")
async def player_card(player_id: str, srv: Node) -> history.PlayerCard:
    """A player's name and ratings (one per rule set they were rated under)."""
    return await history.player_card(srv.sessions, player_id)


@router.get("/api/leaderboard")
async def leaderboard(
    srv: Node, rules: str = "standard", limit: Annotated[int, Query(ge=1, le=500)] = 100
) -> list[history.Rated]:
    """The rated players under a rule set, best conservative rating first."""
    return await history.leaderboard(srv.sessions, rules, limit)
