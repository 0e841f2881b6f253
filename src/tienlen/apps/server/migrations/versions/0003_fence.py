"""Fencing: the token of the node that owns a table, checked by every write of its events.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.add_column("tables", sa.Column("fence", sa.Integer(), nullable=False, server_default="0"))
    op.add_column(
        "table_events", sa.Column("fence", sa.Integer(), nullable=False, server_default="0")
    )


def downgrade() -> None:
    with op.batch_alter_table("table_events") as batch:
        batch.drop_column("fence")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("fence")
