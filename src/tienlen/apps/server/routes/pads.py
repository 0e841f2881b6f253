"""Score pads over HTTP (see :mod:`..pads`): make one, read one, add or delete a game; the
bodies are read here, bounded in size, and every change is made under the pad's lock."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from tienlen import Rules

from ..db import PadRow, now
from ..deps import Me, Node
from ..limits import TokenBucket
from ..node import Server
from ..pads import (
    MAX_BODY,
    MAX_GAMES,
    NewPad,
    PadGame,
    entry_payments,
    pad_rules,
    pad_view,
    read_body,
)
from ..tables import Refused

__all__ = ["router"]

router = APIRouter()

#: A change to a pad's games: (the pad's rules, its players' names, its games) -> its games
#: after it.
Edit = Callable[[Rules, list[str], list[dict[str, Any]]], list[dict[str, Any]]]


async def _body(request: Request) -> bytes:
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > MAX_BODY:
        raise Refused("too_large", f"a score pad request is at most {MAX_BODY} bytes")
    return await request.body()


def _limit(srv: Server, player: str, kind: str) -> None:
    rate = srv.settings.pads if kind == "create" else srv.settings.pad_edits
    bucket = srv.pad_buckets.setdefault((kind, player), TokenBucket(rate))
    if not bucket.take():
        raise Refused("rate_limited", "too many score pad changes: wait a minute")


async def _row(srv: Server, pad_id: str) -> PadRow:
    async with srv.sessions() as s:
        row: PadRow | None = await s.get(PadRow, pad_id[:40])
    if row is None:
        raise Refused("not_found", f"no score pad {pad_id[:40]!r}")
    return row


@router.post("/api/pads", status_code=201)
async def new_pad(request: Request, player: Me, srv: Node) -> dict[str, Any]:
    """A new score pad; its id is the shareable link's key."""
    _limit(srv, player.id, "create")
    spec = read_body(NewPad, await _body(request))
    rules = pad_rules(spec)
    row = PadRow(
        id=secrets.token_urlsafe(16),
        creator_id=player.id,
        rules=rules.code(),
        names=list(spec.names),
        target=spec.target,
        games=[],
    )

    async def store(s: AsyncSession) -> None:
        s.add(
            PadRow(
                id=row.id,
                creator_id=row.creator_id,
                rules=row.rules,
                names=row.names,
                target=row.target,
                games=[],
            )
        )
        await s.flush()

    await srv.writer.write(store)
    return pad_view(row)


@router.get("/api/pads/{pad_id}")
async def one_pad(pad_id: str, srv: Node) -> dict[str, Any]:
    """A pad with every game scored by the engine (the link is all one needs)."""
    return pad_view(await _row(srv, pad_id))


async def _change(srv: Server, player: str, pad_id: str, edit: Edit) -> dict[str, Any]:
    """Apply ``edit`` to the pad under its lock, after the limits."""
    _limit(srv, player, "edit")
    lock = srv.pad_locks.setdefault(pad_id[:40], asyncio.Lock())
    async with lock:
        row = await _row(srv, pad_id)
        games = edit(Rules.from_code(row.rules), list(row.names), list(row.games))

        async def store(s: AsyncSession) -> None:
            await s.execute(
                update(PadRow).where(PadRow.id == row.id).values(games=games, updated=now())
            )

        await srv.writer.write(store)
        row.games = games
    return pad_view(row)


@router.post("/api/pads/{pad_id}/games", status_code=201)
async def add_game(pad_id: str, request: Request, player: Me, srv: Node) -> dict[str, Any]:
    """Add a game to the pad; the engine checks it against the pad's rules first."""
    body = await _body(request)

    def edit(rules: Rules, names: list[str], games: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if len(games) >= MAX_GAMES:
            raise Refused("too_large", f"a score pad holds at most {MAX_GAMES} games")
        entry = read_body(PadGame, body, names=names)
        entry_payments(rules, entry, names)
        return [*games, entry.model_dump(exclude_defaults=True)]

    return await _change(srv, player.id, pad_id, edit)


@router.delete("/api/pads/{pad_id}/games/{number}")
async def delete_game(pad_id: str, number: int, player: Me, srv: Node) -> dict[str, Any]:
    """Delete game ``number`` (from 1) from the pad, e.g. one entered by mistake."""

    def edit(_rules: Rules, _names: list[str], games: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not 1 <= number <= len(games):
            raise Refused("not_found", f"the pad has no game {number}: it has {len(games)}")
        return games[: number - 1] + games[number:]

    return await _change(srv, player.id, pad_id, edit)
