"""Score pads: the score of games played with a real deck (seed 003: "paper and pencil for the
score"), kept on the server behind an unguessable link.

A pad holds its players' names, a rules code, and what the players entered for each game:
the finishing order and, where the rules count them, the cards held when the first player
went out, cóng, the cards left at the end, chops, the 3♠ last, instant wins and guarantees. It never
stores points: every read scores each entry with the engine
(:func:`tienlen.scoring.outcome_payments`), so a pad and a played game are scored by the
same code. Anyone with the link may read the pad; a guest with the link may add or delete
games (a pad is shared by the people at one table).
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tienlen import RULESETS, Rules, RulesError, parse_cards
from tienlen.cards import mask_of
from tienlen.reasons import Reason, reason
from tienlen.scoring import (
    Outcome,
    OutcomeError,
    Payment,
    ScoredChop,
    net_points,
    outcome_fields,
    outcome_payments,
    uncounted_fields,
)

from .db import PadRow
from .errors import validation_words
from .tables import Refused

__all__ = [
    "MAX_BODY",
    "MAX_GAMES",
    "NewPad",
    "PadChop",
    "PadGame",
    "PadGuarantee",
    "entry_payments",
    "pad_rules",
    "pad_view",
    "read_body",
]

#: The largest request body a pad endpoint reads, in bytes.
MAX_BODY = 8192
#: Games one pad may hold.
MAX_GAMES = 500

_Seat = Annotated[int, Field(ge=0, le=7)]
_Name = Annotated[str, Field(min_length=1, max_length=24, pattern=r"^[^\x00-\x1f\x7f]+$")]


class NewPad(BaseModel):
    """``POST /api/pads``: the players (2-8), and the rules as a preset or a rules code (the
    player count is the names')."""

    model_config = ConfigDict(extra="forbid", strict=True)
    names: Annotated[list[_Name], Field(min_length=2, max_length=8)]
    preset: str | None = None
    rules: Annotated[str, Field(max_length=2000)] | None = None
    target: Annotated[int, Field(ge=1, le=1000)] | None = None
    """Points that end the match (003 suggests 10); none: play on."""


class PadChop(BaseModel):
    """A chop: seat ``by`` chopped seat ``of``'s play, cutting it with a pair run (``cut``) or
    bombing it; the play's red and black 2s (none: it was a bomb, the chop of index ``on``
    among this game's chops, from 0)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    by: _Seat
    of: _Seat
    cut: bool = False
    red_twos: Annotated[int, Field(ge=0, le=8)] = 0
    black_twos: Annotated[int, Field(ge=0, le=8)] = 0
    on: Annotated[int, Field(ge=0, le=31)] | None = None


class PadGuarantee(BaseModel):
    """Seat ``seat`` guaranteed to go out first (``blind``: before seeing their hand)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    seat: _Seat
    blind: bool = False


class PadGame(BaseModel):
    """``POST /api/pads/{id}/games``: one game as the players saw it. ``order`` is every
    seat, the winner first; the other fields only where the rules count them (the pad's
    ``fields``)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    order: Annotated[list[_Seat], Field(min_length=2, max_length=8)]
    cards_left: Annotated[list[Annotated[int, Field(ge=0, le=104)]], Field(max_length=8)] | None = (
        None
    )
    """Cards each seat held when the first player went out."""
    cong: Annotated[list[_Seat], Field(max_length=8)] = []
    hands: Annotated[list[Annotated[str, Field(max_length=200)]], Field(max_length=8)] | None = None
    """The cards each seat was left holding, in card notation ("" for none)."""
    chops: Annotated[list[PadChop], Field(max_length=32)] = []
    three_spades_last: bool = False
    instant_win: bool = False
    guarantees: Annotated[list[PadGuarantee], Field(max_length=8)] = []


_M = TypeVar("_M", bound=BaseModel)


def read_body(model: type[_M], body: bytes, *, names: list[str] | None = None) -> _M:
    """A pad request's body read strictly by ``model``; :class:`Refused` if it is not (a
    game's problem placed by the pad's player ``names``, see :func:`game_problem`)."""
    if len(body) > MAX_BODY:
        raise Refused("too_large", f"a score pad request is at most {MAX_BODY} bytes")
    try:
        return model.model_validate_json(body)
    except ValidationError as e:
        words = validation_words(e, whole="body") if names is None else game_problem(e, names)
        raise Refused("bad_pad", words) from None


_SEAT_FIELDS = frozenset({"by", "of", "seat"})


def game_problem(e: ValidationError, names: list[str]) -> str:
    """The first problem of a game's body, placed in players' words: "order, place 4",
    "cards_left of Dan", "chop 1, by" (positions from 1, never a seat from 0); a seat out of
    range is "not one of the players"."""
    errors = e.errors()
    first = errors[0]
    loc = first["loc"]
    field = str(loc[0]) if loc else "body"
    where, seat = field, False
    if len(loc) > 1 and isinstance(loc[1], int):
        i = loc[1]
        rest = "".join(f", {part}" for part in loc[2:])
        where = {
            "order": f"order, place {i + 1}",
            "cards_left": f"cards_left of {player_name(names, i)}",
            "hands": f"hands of {player_name(names, i)}",
            "chops": f"chop {i + 1}{rest}",
            "guarantees": f"guarantee {i + 1}{rest}",
        }.get(field, f"{field}, entry {i + 1}{rest}")
        seat = (len(loc) == 2 and field in ("order", "cong")) or str(loc[-1]) in _SEAT_FIELDS
    bound = first["type"] in ("less_than_equal", "greater_than_equal")
    problem = f"not one of the players ({', '.join(names)})" if seat and bound else first["msg"]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {problem}{more}"[:300]


def pad_rules(spec: NewPad) -> Rules:
    """The pad's rules: the preset or the rules code, for as many players as it names."""
    try:
        if spec.rules is not None:
            if spec.preset is not None:
                raise Refused("bad_rules", "give a rules code or a preset, not both")
            rules = Rules.from_code(spec.rules)
        else:
            name = spec.preset or "standard"
            if name not in RULESETS:
                raise Refused(
                    "bad_rules", f"unknown preset {name[:40]!r}; valid: {', '.join(RULESETS)}"
                )
            rules = Rules.preset(name)
        n = len(spec.names)
        return rules if rules.players == n else rules.for_players(n)
    except RulesError as e:
        raise Refused("bad_rules", str(e)) from None


def player_name(names: list[str], seat: int) -> str:
    """Seat ``seat``'s (from 0) name on a pad; "player 8" (from 1) for a seat it lacks."""
    return names[seat] if 0 <= seat < len(names) else f"player {seat + 1}"


def named(error: OutcomeError, names: list[str]) -> Reason:
    """The engine's refusal of an outcome, with each seat in it written as its player's name."""
    params = dict(error.params)
    if "player" in params:
        params["player"] = player_name(names, params["player"])
    if "players" in params:
        params["players"] = ", ".join(player_name(names, s) for s in params["players"])
    return reason(error.code, **params)


def entry_payments(rules: Rules, entry: PadGame, names: list[str]) -> list[Payment]:
    """The engine's payments for an entry (made an :class:`~tienlen.scoring.Outcome`);
    :class:`Refused` if the entry gives what the rules do not count, or the engine finds it
    does not fit them, the players named by ``names`` (a :class:`~tienlen.reasons.Reason`,
    so the browser words it in its language)."""
    try:
        hands: tuple[int, ...] = ()
        if entry.hands is not None:
            if len(entry.hands) != rules.players:
                raise OutcomeError(
                    "hands needs one hand per player",
                    "outcome_hands_count",
                    count=rules.players,
                    given=len(entry.hands),
                )
            hands = tuple(_hand(text, seat, names) for seat, text in enumerate(entry.hands))
        outcome = Outcome(
            order=tuple(entry.order),
            cards_left=tuple(entry.cards_left or ()),
            cong=frozenset(entry.cong),
            hands=hands,
            chops=tuple(
                ScoredChop(c.by, c.of, c.cut, c.red_twos, c.black_twos, c.on) for c in entry.chops
            ),
            three_spades_last=entry.three_spades_last,
            instant_win=entry.instant_win,
            guarantees=tuple((g.seat, g.blind) for g in entry.guarantees),
        )
        extra = uncounted_fields(rules, outcome)
        if extra:
            raise Refused("bad_game", reason("outcome_uncounted", fields=", ".join(extra)))
        return outcome_payments(rules, outcome)  # which checks the outcome too
    except OutcomeError as e:
        raise Refused("bad_game", named(e, names)) from None
    except Refused:
        raise
    except ValueError as e:  # no seat in it: the engine's words as they are
        raise Refused("bad_game", str(e)) from None


def _hand(text: str, seat: int, names: list[str]) -> int:
    if not text.strip():
        return 0
    try:
        return mask_of(parse_cards(text))
    except ValueError as e:
        error = reason("outcome_hand", player=player_name(names, seat), error=str(e))
        raise Refused("bad_game", error) from None


def pad_view(row: PadRow) -> dict[str, Any]:
    """A pad as the API shows it: every game scored by the engine, the totals, standings."""
    rules = Rules.from_code(row.rules)
    n = rules.players
    totals = [0] * n
    games = []
    for number, entry in enumerate(row.games, 1):
        pays = entry_payments(rules, PadGame.model_validate(entry), list(row.names))
        deltas = list(net_points(pays, n))
        totals = [t + d for t, d in zip(totals, deltas, strict=True)]
        games.append(
            {
                "number": number,
                "entry": entry,
                "deltas": deltas,
                "payments": [p._asdict() for p in pays],
            }
        )
    standings = sorted(range(n), key=lambda s: (-totals[s], s))
    return {
        "id": row.id,
        "rules": row.rules,
        "preset": rules.name,
        "scoring": rules.scoring,
        "names": list(row.names),
        "target": row.target,
        "fields": list(outcome_fields(rules)),
        "cards_per_hand": rules.cards_per_hand,
        "games": games,
        "totals": totals,
        "standings": [{"seat": s, "name": row.names[s], "points": totals[s]} for s in standings],
        "over": row.target is not None and max(totals) >= row.target,
    }
