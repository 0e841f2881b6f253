"""Game analyses: a finished game's review, kept with the game so a restart keeps it.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "game_analyses",
        sa.Column("game_id", sa.String(24), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("analysis", sa.JSON(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("game_analyses")
