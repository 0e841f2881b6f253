"""Score pads: games played with real cards, scored by the engine.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "score_pads",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("creator_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column("names", sa.JSON(), nullable=False),
        sa.Column("target", sa.Integer(), nullable=True),
        sa.Column("games", sa.JSON(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_score_pads_creator_id", "score_pads", ["creator_id"])


def downgrade() -> None:
    op.drop_index("ix_score_pads_creator_id", "score_pads")
    op.drop_table("score_pads")
