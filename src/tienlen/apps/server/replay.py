"""A table rebuilt from its stored row and events, the one way it is done: a table loaded
when first needed, taken over by a cluster node, rebuilt after a failed commit, and the
tables that migration 0006 gives a lobby line."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from .options import TableConfig
from .tables import Table, merged

__all__ = ["StoredEvent", "StoredTable", "replay"]


class StoredTable(Protocol):
    """A table's row, as the server's model or a migration reads it."""

    @property
    def id(self) -> str: ...
    @property
    def host_id(self) -> str: ...
    @property
    def config(self) -> Mapping[str, Any]: ...
    @property
    def deal_secret(self) -> str: ...
    @property
    def invite(self) -> str | None: ...


class StoredEvent(Protocol):
    """One of a table's stored events."""

    @property
    def kind(self) -> str: ...
    @property
    def public(self) -> Mapping[str, Any]: ...
    @property
    def private(self) -> Mapping[str, Any] | None: ...


def replay(row: StoredTable, events: Iterable[StoredEvent]) -> Table:
    """The table rebuilt from its row and its stored events (in version order)."""
    table = Table(
        id=row.id,
        host=row.host_id,
        config=TableConfig.from_dict(row.config),
        secret=row.deal_secret,
        invite=row.invite,
    )
    for e in events:
        table.apply(e.kind, merged(e.public, e.private))
    return table
