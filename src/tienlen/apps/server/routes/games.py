"""Finished games: a game's record (JSON or text), and its replay step by step."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from tienlen import Game, GameRecord, parse_cards
from tienlen.record import replay

from .. import history
from ..deps import Node

__all__ = ["router"]

router = APIRouter()


@router.get("/api/games/{game_id}", response_model=None)
async def one_game(
    game_id: str, srv: Node, format: Literal["json", "text"] = "json"
) -> dict[str, Any] | PlainTextResponse:
    """A finished game's record, as JSON or in the text notation."""
    record = await history.game_record(srv.sessions, game_id)
    if format == "text":
        return PlainTextResponse(GameRecord.from_dict(record).to_text())
    return record


@router.get("/api/games/{game_id}/steps")
async def game_steps(game_id: str, srv: Node) -> dict[str, Any]:
    """A finished game replayed through the engine: every hand and the pile after each
    action, for stepping through it move by move (the game is over: nothing is secret)."""
    data = await history.game_record(srv.sessions, game_id)
    record = GameRecord.from_dict(data)
    start = record.new_game()

    def hands(game: Game) -> list[list[str]]:
        return [[c.ascii() for c in h] for h in game.hands]

    steps = [
        {
            "number": s.number,
            "seat": s.action.seat,
            "kind": s.action.kind,
            "cards": [c.ascii() for c in parse_cards(s.action.cards)] if s.action.cards else [],
            "words": s.action.words(),
            "partner": s.action.partner if s.action.kind in ("offer", "ask") else None,
            "phase": s.phase,
            "leads": s.leads,
            "hands": hands(s.game),
            "pile": [
                {"seat": a.seat, "kind": a.move.kind, "cards": [c.ascii() for c in a.move.cards]}
                for a in s.game.pile
            ],
        }
        for s in replay(record)
    ]
    return {
        "id": game_id,
        "rules": record.rules.name,
        "names": list(record.names or [f"S{i}" for i in range(record.rules.players)]),
        "hands": hands(start),
        "steps": steps,
        "result": data.get("result"),
        "seed": data.get("seed"),
    }
