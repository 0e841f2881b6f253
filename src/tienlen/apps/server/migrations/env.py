"""Alembic environment: runs on the connection the server hands over (see db.migrate)."""

from __future__ import annotations

from alembic import context

from tienlen.apps.server.db import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
