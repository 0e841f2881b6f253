"""Saved matches: a match's settings, its scores and every game's record, as data.

The JSON form (``"format": "tienlen-match"``, version 1; ``docs/record-format.md``)::

    {"format": "tienlen-match", "version": 1,
     "settings": {"rules": {...}, "bots": ["greedy", ...], "games": 5, "target": null,
                  "seed": 7},
     "scores": [3, -1, 0, -2],
     "games": [{"format": "tienlen-game", ...}, ...]}

``bots`` names the player of each seat after the first (the person's); which names exist
is the apps' business. :class:`MatchRecord` reads and writes this form (no files: the apps
do that); :func:`read_games` finds the game records in a record or a saved match.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .inputs import (
    MAX_GAMES,
    decode,
    expect_bool,
    expect_int,
    expect_list,
    expect_object,
    expect_str,
    fail,
    load_json,
    quote_value,
)
from .record import GameRecord, RecordError, is_json, read_rules, read_seed
from .rules import Rules

__all__ = ["MATCH_FORMAT", "MATCH_VERSION", "MatchRecord", "read_games"]

#: The ``format`` field of a saved match.
MATCH_FORMAT = "tienlen-match"
#: The saved-match version this module writes (and the newest it reads).
MATCH_VERSION = 1
#: Largest score total or points target a saved match may hold.
_MAX_POINTS = 10**9


@dataclass(frozen=True, kw_only=True)
class MatchRecord:
    """A match so far: what started it, the running scores and each game's record."""

    rules: Rules
    bots: tuple[str, ...]
    """The player of seats 1 … players-1 (names the apps know)."""
    games: int | None
    """Games in the match (``None``: no fixed number)."""
    target: int | None
    """Points that end the match (``None``: none)."""
    seed: int | str
    """The match's seed: the deals and the bots follow from it."""
    scores: tuple[int, ...] | None
    """Running totals per seat after the finished games, if saved."""
    records: tuple[GameRecord, ...]
    """Every game so far, the last one possibly unfinished."""
    seeded: bool = True
    """Whether the person gave the seed (else it was drawn in secret and is not shown
    during the match)."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Extension fields (names starting ``x-``) at the top of the file: kept, never read."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready saved match."""
        out: dict[str, Any] = {
            "format": MATCH_FORMAT,
            "version": MATCH_VERSION,
            "settings": {
                "rules": self.rules.to_dict(),
                "rules_code": self.rules.code(),
                "bots": list(self.bots),
                "games": self.games,
                "target": self.target,
                "seed": self.seed,
                "seeded": self.seeded,
            },
        }
        if self.scores is not None:
            out["scores"] = list(self.scores)
        out["games"] = [r.to_dict() for r in self.records]
        out.update({k: v for k, v in self.extra.items() if k not in out})
        return out

    def to_json(self) -> str:
        """The saved match as JSON text (one field per line at the top)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1) + "\n"

    @classmethod
    def from_dict(cls, data: Any, *, path: str = "match") -> MatchRecord:
        """Read a saved match (as a dict), checking every field and every game's record
        before anything is built; errors are :class:`~tienlen.record.RecordError` naming
        the field (``match.games[2].actions[7].seat``)."""
        if not isinstance(data, Mapping):
            fail(RecordError, path, f"a saved match is a JSON object, not {quote_value(data)}")
        if data.get("format") != MATCH_FORMAT:
            got = quote_value(data["format"]) if "format" in data else "none"
            fail(RecordError, f"{path}.format", f"not a saved tienlen match (format {got})")
        extra = {k: v for k, v in data.items() if isinstance(k, str) and k.startswith("x-")}
        obj = expect_object(
            {k: v for k, v in data.items() if k not in extra},
            path,
            error=RecordError,
            required=("format", "version", "settings", "games"),
            optional=("scores",),
        )
        version = obj["version"]
        if type(version) is not int or not 1 <= version <= MATCH_VERSION:
            fail(
                RecordError,
                f"{path}.version",
                f"{quote_value(version)} is not supported (1-{MATCH_VERSION})",
            )
        where = f"{path}.settings"
        settings = expect_object(
            obj["settings"],
            where,
            error=RecordError,
            required=("bots", "seed"),
            optional=("rules", "rules_code", "games", "target", "seeded"),
        )
        rules = read_rules(settings.get("rules"), settings.get("rules_code"), where)
        n = rules.players
        bots = tuple(
            expect_str(b, f"{where}.bots[{i}]", error=RecordError)
            for i, b in enumerate(
                expect_list(
                    settings["bots"], f"{where}.bots", error=RecordError, limit=n, length=n - 1
                )
            )
        )
        games = settings.get("games")
        if games is not None:
            games = expect_int(games, f"{where}.games", error=RecordError, lo=1, hi=MAX_GAMES)
        target = settings.get("target")
        if target is not None:
            target = expect_int(target, f"{where}.target", error=RecordError, lo=1, hi=_MAX_POINTS)
        seed = read_seed(settings["seed"], f"{where}.seed")
        # older saves showed their seed, so they count as seeded
        seeded = expect_bool(settings.get("seeded", True), f"{where}.seeded", error=RecordError)
        scores = None
        if obj.get("scores") is not None:
            scores = tuple(
                expect_int(
                    s, f"{path}.scores[{i}]", error=RecordError, lo=-_MAX_POINTS, hi=_MAX_POINTS
                )
                for i, s in enumerate(
                    expect_list(
                        obj["scores"], f"{path}.scores", error=RecordError, limit=n, length=n
                    )
                )
            )
        raw = expect_list(
            obj["games"], f"{path}.games", error=RecordError, limit=games or MAX_GAMES
        )
        if not raw:
            fail(RecordError, f"{path}.games", "the saved match has no games")
        records = tuple(
            GameRecord.from_dict(g, path=f"{path}.games[{i}]") for i, g in enumerate(raw)
        )
        for i, record in enumerate(records):
            if record.rules != rules:
                fail(RecordError, f"{path}.games[{i}].rules", "differ from the match's settings")
        return cls(
            rules=rules,
            bots=bots,
            games=games,
            target=target,
            seed=seed,
            seeded=seeded,
            scores=scores,
            records=records,
            extra=extra,
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> MatchRecord:
        """Read a saved match's text (size and depth limited; checked as :meth:`from_dict`)."""
        return cls.from_dict(load_json(text, error=RecordError, what="match"))


def read_games(source: str | bytes) -> list[GameRecord]:
    """The game records in ``source``: a game record (JSON or text form) gives one, a saved
    match each of its games. Nothing is replayed yet."""
    text = decode(source, error=RecordError, what="record")
    if not is_json(text):
        return [GameRecord.from_text(text)]
    data = load_json(text, error=RecordError, what="record")
    if isinstance(data, Mapping) and data.get("format") == MATCH_FORMAT:
        return list(MatchRecord.from_dict(data).records)
    return [GameRecord.from_dict(data)]
