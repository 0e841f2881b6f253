"""Finished games and ratings: what is stored when a game ends (the game, its players'
places, their openskill ratings) or its review finishes (its analysis), and the read side: a
game's record and analysis, a player's games and ratings, the leaderboard, as typed response
models."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from .db import AnalysisRow, GamePlayerRow, GameRow, PlayerRow, RatingRow
from .tables import Refused

__all__ = [
    "PlayerCard",
    "PlayerGame",
    "Rated",
    "Rating",
    "game_analysis",
    "game_record",
    "games_of",
    "leaderboard",
    "player_card",
    "store_analysis",
    "store_game",
]

Sessions = async_sessionmaker[AsyncSession]


class PlayerGame(BaseModel):
    """One finished game of a player's, as their games list shows it."""

    game: str
    table: str
    match: int
    number: int
    rules_key: str
    seat: int
    place: int
    delta: int
    """Points won (or lost) in the game."""
    finished: str
    """When it ended (ISO 8601)."""


class Rating(BaseModel):
    """An openskill rating under one rule set; ``ordinal`` (mu - 3 sigma) ranks."""

    rules_key: str
    mu: float
    sigma: float
    ordinal: float
    games: int


class Rated(BaseModel):
    """A leaderboard line."""

    player: str
    name: str
    mu: float
    sigma: float
    ordinal: float
    games: int


class PlayerCard(BaseModel):
    """A player's name and ratings, most played rule set first."""

    player: str
    name: str
    ratings: list[Rating]


def _ordinal(r: RatingRow) -> float:
    return r.mu - 3 * r.sigma


async def game_record(sessions: Sessions, game_id: str) -> dict[str, Any]:
    """A finished game's record (``GameRecord.to_dict()``)."""
    async with sessions() as s:
        row = await s.get(GameRow, game_id)
    if row is None:
        raise Refused("not_found", f"no finished game {game_id[:40]!r}")
    return dict(row.record)


async def game_analysis(sessions: Sessions, game_id: str) -> dict[str, Any] | None:
    """A finished game's stored analysis, or ``None`` if it was never reviewed to the end."""
    async with sessions() as s:
        row = await s.get(AnalysisRow, game_id)
    return None if row is None else dict(row.analysis)


async def store_analysis(s: AsyncSession, game_id: str, analysis: Mapping[str, Any]) -> None:
    """Keep a finished game's analysis with it (a second one, from another node that reviewed
    the game at the same time, replaces the first: they are alike)."""
    await s.merge(AnalysisRow(game_id=game_id, analysis=dict(analysis)))


async def games_of(sessions: Sessions, player_id: str) -> list[PlayerGame]:
    """A player's finished games, newest first."""
    async with sessions() as s:
        rows = (
            await s.execute(
                select(GamePlayerRow, GameRow)
                .join(GameRow, GameRow.id == GamePlayerRow.game_id)
                .where(GamePlayerRow.player_id == player_id)
                .order_by(GameRow.finished.desc())
            )
        ).all()
    return [
        PlayerGame(
            game=g.id,
            table=g.table_id,
            match=g.match,
            number=g.number,
            rules_key=g.rules_key,
            seat=gp.seat,
            place=gp.place,
            delta=gp.delta,
            finished=g.finished.isoformat(),
        )
        for gp, g in rows
    ]


async def leaderboard(sessions: Sessions, rules_key: str, limit: int) -> list[Rated]:
    """The rated players under a rule set, best conservative rating first."""
    async with sessions() as s:
        rows = (
            await s.execute(
                select(RatingRow, PlayerRow.name)
                .join(PlayerRow, PlayerRow.id == RatingRow.player_id)
                .where(RatingRow.rules_key == rules_key)
            )
        ).all()
    board = [
        Rated(
            player=r.player_id,
            name=name,
            mu=r.mu,
            sigma=r.sigma,
            ordinal=_ordinal(r),
            games=r.games,
        )
        for r, name in rows
    ]
    board.sort(key=lambda e: -e.ordinal)
    return board[:limit]


async def player_card(sessions: Sessions, player_id: str) -> PlayerCard:
    """A player's name and ratings (one per rule set they were rated under)."""
    async with sessions() as s:
        player = await s.get(PlayerRow, player_id)
        if player is None:
            raise Refused("not_found", f"no player {player_id[:40]!r}")
        rows = (await s.scalars(select(RatingRow).where(RatingRow.player_id == player_id))).all()
    ratings = [
        Rating(rules_key=r.rules_key, mu=r.mu, sigma=r.sigma, ordinal=_ordinal(r), games=r.games)
        for r in rows
    ]
    ratings.sort(key=lambda r: -r.games)
    return PlayerCard(player=player.id, name=player.name, ratings=ratings)


async def store_game(s: AsyncSession, table_id: str, row: Mapping[str, Any]) -> None:
    """Store a finished game (``Pending.game_row``), its players' places, and (two humans
    or more) their new ratings."""
    s.add(
        GameRow(
            id=row["id"],
            table_id=table_id,
            match=row["match"],
            number=row["number"],
            rules_key=row["rules_key"],
            record=row["record"],
        )
    )
    await s.flush()
    for i, seat in enumerate(row["seats"]):
        s.add(
            GamePlayerRow(
                game_id=row["id"],
                seat=i,
                player_id=seat["player"],
                bot=seat["bot"],
                place=seat["place"],
                delta=seat["delta"],
            )
        )
    humans = [(seat["player"], seat["place"]) for seat in row["seats"] if seat["player"]]
    if len(humans) >= 2:
        await _rate(s, row["rules_key"], humans)


async def _rate(s: AsyncSession, rules_key: str, humans: list[tuple[str, int]]) -> None:
    """openskill Plackett-Luce update from the humans' finishing places."""
    from openskill.models import PlackettLuce  # (a heavy import, needed at a game's end)

    model = PlackettLuce()
    rows = []
    for player, _place in humans:
        row = await s.get(RatingRow, (player, rules_key))
        if row is None:
            fresh = model.rating()
            row = RatingRow(
                player_id=player, rules_key=rules_key, mu=fresh.mu, sigma=fresh.sigma, games=0
            )
            s.add(row)
        rows.append(row)
    teams = [[model.create_rating([r.mu, r.sigma])] for r in rows]
    rated = model.rate(teams, ranks=[place for _p, place in humans])
    for row, team in zip(rows, rated, strict=True):
        row.mu, row.sigma, row.games = team[0].mu, team[0].sigma, row.games + 1
