"""The databases the server tests run on: SQLite always, and PostgreSQL when
TIENLEN_TEST_POSTGRES_URL is set. Standard library only, so conftest.py can read it
without importing the server."""

from __future__ import annotations

import os

POSTGRES = os.environ.get("TIENLEN_TEST_POSTGRES_URL")
BACKENDS = ["sqlite", *(["postgres"] if POSTGRES else [])]
