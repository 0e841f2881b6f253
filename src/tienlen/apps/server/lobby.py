"""The lobby: new tables (a host's choices, ``POST /api/tables``, read into a table's
configuration, the rules checked by the engine's strict readers, the bots by their levels)
and the list of open tables, read from the tables' rows (each keeps its lobby line), so that
listing them loads no table.

Both reads of the rows go through an index (:data:`.db.LISTED`, :data:`.db.UNATTENDED`) and
read only what they answer: a page of the listed tables, newest first, and the tables of bots
only. Neither reads the finished tables, however many."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Row, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tienlen import RULESETS, Rules
from tienlen.rules import RulesError

from . import bots
from .db import LISTED, UNATTENDED, TableRow
from .errors import database_needed
from .messages import TableInfo
from .options import TableConfig
from .tables import Refused, Table

__all__ = [
    "PAGE",
    "PAGE_MAX",
    "NewTable",
    "bots_only",
    "changed_knobs",
    "listed",
    "listed_lines",
    "new_table",
    "requested_rules",
    "row_values",
]

#: The tables listed in one answer unless asked for fewer (``GET /api/tables?limit=``) and
#: at most.
PAGE, PAGE_MAX = 100, 500


class NewTable(BaseModel):
    """``POST /api/tables``: a preset, the knobs changed on it, and the table's options."""

    model_config = ConfigDict(extra="forbid", strict=True)
    rules: Annotated[str, Field(max_length=2000)] | None = None
    """A rules code (``Rules.code()``, e.g. ``"standard.direction-anticlockwise"``), instead
    of ``preset`` and ``options``."""
    preset: str = "standard"
    options: dict[str, Any] = Field(default_factory=dict)
    bots: str | list[str] = "easy"
    """One bot level for every empty seat, or one per seat (a level, or a built-in bot by
    name)."""
    turn_timer: Annotated[float, Field(ge=0, le=600)] | None = None
    games: Annotated[int, Field(ge=1, le=100)] | None = None
    target: Annotated[int, Field(ge=1, le=1000)] | None = None
    private: bool = False


def new_table(host: str, spec: NewTable) -> Table:
    """A new table of ``host``'s, as ``spec`` asks (not stored yet); :class:`Refused` quotes
    what is wrong."""
    rules = requested_rules(spec)
    levels = [spec.bots] * rules.players if isinstance(spec.bots, str) else spec.bots
    if len(levels) != rules.players:
        raise Refused("bad_bots", f"give one bot level or {rules.players}, not {len(levels)}")
    unknown = sorted({b for b in levels if b not in bots.BOT_NAMES})
    if unknown:
        raise Refused(
            "bad_bots",
            f"unknown bot level(s) {', '.join(unknown)}; valid: {', '.join(bots.BOT_NAMES)}",
        )
    games = spec.games if spec.games or spec.target else 1
    config = TableConfig(
        rules=rules,
        preset=rules.name,
        options=changed_knobs(rules),
        bots=tuple(levels),
        turn_timer=spec.turn_timer,
        games=games,
        target=spec.target,
        private=spec.private,
    )
    return Table(
        id=secrets.token_urlsafe(6),
        host=host,
        config=config,
        secret=secrets.token_hex(32),
        invite=secrets.token_urlsafe(16) if spec.private else None,
    )


def requested_rules(spec: NewTable) -> Rules:
    """The rules a new table asks for: a rules code, or a preset and the knobs changed on it
    (read by the engine's strict readers); :class:`Refused` quotes what is wrong."""
    try:
        if spec.rules is not None:
            if {"preset", "options"} & spec.model_fields_set:
                raise Refused("bad_rules", "give a rules code or a preset with options, not both")
            return Rules.from_code(spec.rules)
        if spec.preset not in RULESETS:
            valid = ", ".join(RULESETS)
            raise Refused("bad_rules", f"unknown preset {spec.preset!r}; valid: {valid}")
        if "name" in spec.options:
            raise Refused("bad_rules", "'name' is the preset's label, not an option")
        return Rules.from_dict({**spec.options, "name": spec.preset}, path="options")
    except RulesError as e:
        raise Refused("bad_rules", str(e)) from None


def changed_knobs(rules: Rules) -> dict[str, Any]:
    """The knobs of ``rules`` that differ from its preset's (``Rules.to_dict()`` values)."""
    mine, preset = rules.to_dict(), Rules.preset(rules.name).to_dict()
    return {k: v for k, v in mine.items() if k != "name" and v != preset.get(k)}


def row_values(info: TableInfo) -> dict[str, Any]:
    """What a table's row keeps of its line: the line, the status, and how many seats a
    player holds (what the indexes of :mod:`.db` select by)."""
    return {
        "status": info.status,
        "line": info.model_dump(),
        "seated": sum(1 for seat in info.seats if seat.player is not None),
    }


async def listed(
    sessions: async_sessionmaker[AsyncSession],
    held: Mapping[str, Table],
    *,
    limit: int = PAGE,
    after: str | None = None,
) -> list[TableInfo]:
    """A page of the public tables not yet finished, newest first: at most ``limit``, those
    listed after table ``after`` (the last of the page before) if given. Each is its row's
    stored line, or the live table's where this process holds it (its spectators counted
    now); :class:`Refused` if ``after`` is no table."""
    query = select(TableRow.id, TableRow.line).where(LISTED)
    with database_needed():
        async with sessions() as s:
            if after is not None:
                created = await s.scalar(select(TableRow.created).where(TableRow.id == after))
                if created is None:
                    raise Refused("not_found", f"no table {after[:40]!r} to list after")
                query = query.where(tuple_(TableRow.created, TableRow.id) < (created, after))
            order = (TableRow.created.desc(), TableRow.id.desc())
            rows = (await s.execute(query.order_by(*order).limit(limit))).all()
    return _lines(rows, held)


async def listed_lines(
    sessions: async_sessionmaker[AsyncSession], held: Mapping[str, Table], ids: list[str]
) -> dict[str, TableInfo]:
    """The lines of those of tables ``ids`` still listed, read as :func:`listed` reads them
    (by the rows' primary key)."""
    query = select(TableRow.id, TableRow.line).where(LISTED, TableRow.id.in_(ids))
    with database_needed():
        async with sessions() as s:
            rows = (await s.execute(query)).all()
    return {line.id: line for line in _lines(rows, held)}


def _lines(rows: Sequence[Row[str, Any]], held: Mapping[str, Table]) -> list[TableInfo]:
    """Each row's stored line, or the live table's where this process holds it (its
    spectators counted now; none once it is finished)."""
    out = []
    for table_id, line in rows:
        table = held.get(table_id)
        if table is not None:
            if table.status != "finished":
                out.append(table.info())
        else:
            out.append(TableInfo.model_validate(line))
    return out


async def bots_only(sessions: async_sessionmaker[AsyncSession]) -> list[str]:
    """The tables whose rows say they are playing with bots in every seat."""
    with database_needed():
        async with sessions() as s:
            return list((await s.scalars(select(TableRow.id).where(UNATTENDED))).all())
