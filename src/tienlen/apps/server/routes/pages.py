"""The browser game: the pages ``tienlen serve`` serves, and the few read-only endpoints only
the browser needs (knob types for the create-table form, the rules and refusals in words).

Every page is one shell, ``static/index.html``, whose script picks the page from the URL;
the scripts, styles and card drawings are plain files under ``static/`` (package data, no
build step). The browser learns legality only from the server: legal moves in the views,
reasons in the error frames, hints from :func:`~tienlen.players.hint.hint` (:mod:`.tables`).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse

from tienlen import RULESETS, Rules
from tienlen.describe import SUMMARIES, Phrase, phrase_catalogue, rules_sections
from tienlen.knobs import Knob
from tienlen.reasons import reason_catalogue
from tienlen.rules import KNOBS

from ..tables import Refused

__all__ = ["STATIC", "knob_fields", "knob_options", "router"]

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


@router.get("/sw.js", include_in_schema=False)
async def service_worker() -> FileResponse:
    """The service worker, served from the root so that it looks after every page."""
    return FileResponse(STATIC / "sw.js", media_type="text/javascript", headers=_NO_CACHE)


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
    """Every knob of :class:`~tienlen.Rules` but the label, with its own words
    (``description``, ``{code, params}`` from :attr:`~tienlen.knobs.Knob.description`) and
    what the form needs to edit it: ``bool``, ``int``, ``choice`` (with ``choices``),
    ``text``, or ``json`` (tables).

    >>> [f for f in knob_fields() if f["name"] == "direction"]  # doctest: +NORMALIZE_WHITESPACE
    [{'name': 'direction', 'description': {'code': 'knob.direction', 'params': {}},
      'type': 'choice', 'choices': ['clockwise', 'anticlockwise']}]
    """
    return [
        {"name": k.name, "description": Phrase(k.description).to_dict(), **_field(k)}
        for k in KNOBS
        if k.name != "name"
    ]


#: The values offered for the knobs that hold a number (others: the preset's and the rules code's).
_NUMBERS = {
    "players": range(2, 9),
    "decks": range(1, 3),
    "min_straight": range(3, 7),
    "min_pair_run": range(2, 5),
    "min_triple_run": range(2, 4),
    "min_quad_run": range(2, 4),
}


def _sentences(rules: Rules) -> list[dict[str, Any]]:
    return [s.to_dict() for _, sentences in rules_sections(rules) for s in sentences]


@functools.cache
def knob_options(preset: str) -> list[dict[str, Any]]:
    """The knobs of ``preset`` a table may change, each in its own words (``description``)
    and each value in the engine's own words: for
    every value the rules accept, the sentences of its explanation (``{code, params}``)
    that differ between the values (none: the rule is simply not there). A knob none of
    whose values changes a sentence here is left out, as are those that hold tables (a
    rules code changes them).

    >>> opts = {o["name"]: o for o in knob_options("standard")}
    >>> [(c["value"], [w["code"] for w in c["words"]]) for c in opts["hidden_counts"]["choices"]]
    [(False, []), (True, ['deal.hidden_counts'])]
    """
    base = Rules.preset(preset)
    out = []
    for f in knob_fields():
        name = f["name"]
        if f["type"] == "bool":
            values: list[Any] = [False, True]
        elif f["type"] == "choice":
            values = list(f["choices"])
        elif f["type"] == "int" and name in _NUMBERS:
            values = list(_NUMBERS[name])
        else:
            continue
        worded = []
        for value in values:
            try:
                worded.append((value, _sentences(dataclasses.replace(base, **{name: value}))))
            except ValueError:  # not a value these rules can take
                continue
        if len(worded) < 2:
            continue
        common = [s for s in worded[0][1] if all(s in w for _, w in worded[1:])]
        choices = [{"value": v, "words": [s for s in w if s not in common]} for v, w in worded]
        if any(c["words"] for c in choices):
            value = getattr(base, name)
            out.append(
                {
                    "name": name,
                    "description": f["description"],
                    "type": f["type"],
                    "value": value,
                    "choices": choices,
                }
            )
    return out


@router.get("/api/options")
async def options_words(preset: str = "standard") -> list[dict[str, Any]]:
    """The knobs the create-table form offers under ``preset``, each value in words
    (:func:`knob_options`)."""
    if preset not in RULESETS:
        raise Refused("bad_rules", f"no preset named {preset[:40]!r}")
    return copy.deepcopy(knob_options(preset))


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
