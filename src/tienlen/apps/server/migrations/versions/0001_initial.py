"""The first schema: players, tables and their events, games, ratings, settings.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def _when() -> sa.Column[object]:
    return sa.Column("created", sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    op.create_table(
        "settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        _when(),
    )
    op.create_table(
        "tables",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("host_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("deal_secret", sa.String(64), nullable=False),
        sa.Column("invite", sa.String(64), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        _when(),
    )
    op.create_index("ix_tables_status", "tables", ["status"])
    op.create_table(
        "table_events",
        sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("actor", sa.String(32), nullable=True),
        sa.Column("public", sa.JSON(), nullable=False),
        sa.Column("private", sa.JSON(), nullable=True),
        _when(),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("match", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("rules_key", sa.String(64), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_games_table_id", "games", ["table_id"])
    op.create_table(
        "game_players",
        sa.Column("game_id", sa.String(24), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("bot", sa.String(16), nullable=True),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("delta", sa.Integer(), nullable=False),
    )
    op.create_index("ix_game_players_player_id", "game_players", ["player_id"])
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("rules_key", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    for name in ("ratings", "game_players", "games", "table_events", "tables", "players"):
        op.drop_table(name)
    op.drop_table("settings")
