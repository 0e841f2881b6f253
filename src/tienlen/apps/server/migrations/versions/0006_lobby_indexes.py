"""The lobby read by index: a table's row counts the seats players hold (``seated``); a
partial index selects the listed tables (public, not finished: newest first), and the index
on the status (now on the status and ``seated``) the tables played by bots only, so that
neither read scans the finished tables.

Every table not finished gets its ``seated`` from its lobby line; one stored before lobby
lines were (schema 0005) is replayed from its events first, by the server's own code, and
gets its line too, so that the lobby lists it before it is loaded. Finished tables are
listed nowhere and left as they are.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from alembic import op

from tienlen.apps.server.lobby import row_values
from tienlen.apps.server.messages import TableInfo
from tienlen.apps.server.replay import replay

revision = "0006"
down_revision = "0005"

#: Rows read and written at once.
CHUNK = 1000

TABLES = sa.table(
    "tables",
    sa.column("id", sa.String),
    sa.column("host_id", sa.String),
    sa.column("config", sa.JSON),
    sa.column("deal_secret", sa.String),
    sa.column("invite", sa.String),
    sa.column("status", sa.String),
    sa.column("line", sa.JSON),
    sa.column("seated", sa.Integer),
)
EVENTS = sa.table(
    "table_events",
    sa.column("table_id", sa.String),
    sa.column("version", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("public", sa.JSON),
    sa.column("private", sa.JSON),
)
LISTED = "status <> 'finished' AND invite IS NULL"


def unfinished(conn: sa.Connection) -> Iterator[list[sa.Row[Any]]]:
    """The rows of the tables not finished, a chunk at a time (in order of id)."""
    last = ""
    while True:
        rows = conn.execute(
            sa.select(TABLES)
            .where(TABLES.c.status != "finished", TABLES.c.id > last)
            .order_by(TABLES.c.id)
            .limit(CHUNK)
        ).all()
        if not rows:
            return
        yield list(rows)
        last = rows[-1].id


def values(conn: sa.Connection, row: sa.Row[Any]) -> dict[str, Any]:
    """The row's lobby values: from its line, or its events replayed if it has none."""
    if row.line is not None:
        return row_values(TableInfo.model_validate(row.line))
    events = conn.execute(
        sa.select(EVENTS).where(EVENTS.c.table_id == row.id).order_by(EVENTS.c.version)
    )
    return row_values(replay(row, events).info())


def upgrade() -> None:
    op.add_column("tables", sa.Column("seated", sa.Integer(), nullable=True))
    conn = op.get_bind()
    keep = (
        sa.update(TABLES)
        .where(TABLES.c.id == sa.bindparam("row"))
        .values(
            status=sa.bindparam("status"), line=sa.bindparam("line"), seated=sa.bindparam("seated")
        )
    )
    for rows in unfinished(conn):
        conn.execute(keep, [{"row": r.id, **values(conn, r)} for r in rows])
    op.create_index(
        "ix_tables_listed",
        "tables",
        ["created", "id"],
        sqlite_where=sa.text(LISTED),
        postgresql_where=sa.text(LISTED),
    )
    op.drop_index("ix_tables_status", "tables")
    op.create_index("ix_tables_status_seated", "tables", ["status", "seated"])


def downgrade() -> None:
    op.drop_index("ix_tables_status_seated", "tables")
    op.create_index("ix_tables_status", "tables", ["status"])
    op.drop_index("ix_tables_listed", "tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("seated")
