"""The browser game: the pages ``tienlen serve`` serves, and the few read-only endpoints only
the browser needs (knob types for the create-table form, the rules and refusals in words).

Every page is one shell, ``static/index.html``, whose script picks the page from the URL;
the scripts, styles and card drawings are plain files under ``static/`` (package data, no
build step). The browser learns legality only from the server: legal moves in the views,
reasons in the error frames, hints from :func:`~tienlen.players.hint.hint` (:mod:`.tables`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse

from tienlen import RULESETS, Rules
from tienlen.describe import SUMMARIES, phrase_catalogue, rules_sections
from tienlen.knobs import Knob
from tienlen.reasons import reason_catalogue
from tienlen.rules import KNOBS

from ..tables import Refused

__all__ = ["STATIC", "knob_fields", "router"]

#: The browser's files (package data).
STATIC = Path(__file__).parent.parent / "static"
_SHELL = STATIC / "index.html"
#: The pages; each is the shell, whose script reads the path.
_PAGES = (
    "/",
    "/t/{table_id}",
    "/games/{game_id}",
    "/players/{player_id}",
    "/leaderboard",
    "/rules",
    "/pads",
    "/pads/{pad_id}",
)
_NO_CACHE = {"Cache-Control": "no-cache"}

router = APIRouter()


def _shell() -> FileResponse:
    return FileResponse(_SHELL, media_type="text/html", headers=_NO_CACHE)


for _path in _PAGES:
    router.add_api_route(_path, _shell, methods=["GET"], include_in_schema=False)


@router.get("/static/{path:path}", include_in_schema=False)
async def static(path: str) -> FileResponse:
    """One of the browser's files (never anything outside ``static/``)."""
    target = (STATIC / path).resolve()
    if not target.is_relative_to(STATIC.resolve()) or not target.is_file():
        raise Refused("not_found", f"no file {path[:80]!r}")
    return FileResponse(target, headers=_NO_CACHE)


def _field(knob: Knob) -> dict[str, Any]:
    """How the form edits a knob (from the schema, :data:`tienlen.rules.KNOBS`)."""
    if knob.shape == "flag":
        return {"type": "bool"}
    arms = [bool(knob.choices), knob.number, knob.text or knob.patterns]
    if knob.shape != "value" or sum(arms) != 1:
        return {"type": "json"}
    field: dict[str, Any]
    if knob.choices:
        field = {"type": "choice", "choices": list(knob.choices)}
    else:
        field = {"type": "int" if knob.number else "text"}
    return {**field, "optional": True} if knob.optional else field


def knob_fields() -> list[dict[str, Any]]:
    """Every knob of :class:`~tienlen.Rules` but the label, with what the form needs to edit
    it: ``bool``, ``int``, ``choice`` (with ``choices``), ``text``, or ``json`` (tables).

    >>> [f for f in knob_fields() if f["name"] == "direction"]
    [{'name': 'direction', 'type': 'choice', 'choices': ['clockwise', 'anticlockwise']}]
    """
    return [{"name": k.name, **_field(k)} for k in KNOBS if k.name != "name"]


@router.get("/api/knobs")
async def knobs() -> list[dict[str, Any]]:
    """The knobs a table's ``options`` may change, and how to edit each."""
    return knob_fields()


@router.get("/api/rules")
async def rules_words() -> list[dict[str, Any]]:
    """Every preset in words, from the engine's own explanations (``tienlen.describe``): each
    summary, heading and sentence as ``{code, params}``, worded from ``/api/descriptions``
    in the page's language."""
    return [
        {
            "preset": name,
            "summary": SUMMARIES[name].to_dict(),
            "sections": [
                {"heading": h.to_dict(), "sentences": [x.to_dict() for x in s]}
                for h, s in rules_sections(Rules.preset(name))
                if s
            ],
        }
        for name in RULESETS
    ]


@router.get("/api/descriptions")
async def descriptions() -> dict[str, Any]:
    """The catalogue the rule descriptions are worded from, in every language
    (``tienlen.describe.PHRASES``)."""
    return phrase_catalogue()


@router.get("/api/reasons")
async def reasons() -> dict[str, Any]:
    """The catalogue the engine's refusals are worded from, in every language
    (``tienlen.reasons``): error frames carry ``reason: {code, params}``."""
    return reason_catalogue()
