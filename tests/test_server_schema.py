"""The protocol's JSON Schema in docs is the code's, and the migrations build the models'
schema."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from pydantic import ValidationError

from serverkit import database
from tienlen.apps.server.client_messages import parse_client
from tienlen.apps.server.db import Base, connect, migrate
from tienlen.apps.server.messages import json_schema, parse_server

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_the_schema_in_docs_is_current() -> None:
    checked_in = (DOCS / "web-protocol.schema.json").read_text(encoding="utf-8")
    assert checked_in == json_schema(), (
        "docs/web-protocol.schema.json is stale: regenerate it with\n"
        "  .venv/bin/python -c 'from tienlen.apps.server.messages import json_schema; "
        'print(json_schema(), end="")\' > docs/web-protocol.schema.json'
    )


def test_every_message_type_is_in_the_schema_and_the_protocol_doc() -> None:
    schema = json.loads(json_schema())
    doc = (DOCS / "web-protocol.md").read_text(encoding="utf-8")
    for side, least in (("client_message", 7), ("lobby_client_message", 2), ("server_message", 7)):
        kinds = sorted(schema[side]["discriminator"]["mapping"])
        assert len(kinds) >= least
        for kind in kinds:
            assert f'"type": "{kind}"' in doc, f"docs/web-protocol.md has no {kind!r} example"


def test_client_frames_are_read_strictly() -> None:
    assert parse_client('{"type": "play", "cards": ["3s", "4s"], "version": 3}').type == "play"
    for bad in (
        '{"type": "play", "cards": ["3s"]}',  # no version
        '{"type": "play", "cards": ["3s"], "version": 1, "extra": 1}',
        '{"type": "sit", "seat": "one"}',
        '{"type": "nope"}',
        "[1, 2]",
    ):
        with pytest.raises(ValidationError):
            parse_client(bad)
    assert parse_server('{"type": "pong"}').type == "pong"


def test_the_migrations_build_the_models_schema(backend: str, tmp_path: Path) -> None:
    async def diff(url: str) -> list[object]:
        engine, _ = connect(url)
        await migrate(engine)
        await migrate(engine)  # applying again is harmless
        async with engine.connect() as conn:
            changes = await conn.run_sync(
                lambda c: compare_metadata(MigrationContext.configure(c), Base.metadata)
            )
        await engine.dispose()
        return list(changes)

    with database(backend, tmp_path) as url:
        assert asyncio.run(diff(url)) == []
