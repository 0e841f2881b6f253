"""Game records: a versioned JSON form and a compact text form, both replayed through
:class:`~tienlen.Game` when read, so a record can never disagree with the rules.

The JSON form (``docs/record-format.md`` describes every field)::

    {"format": "tienlen-game", "version": 1, "rules": {...}, "seed": "7/game1",
     "hands": ["3s 5d ...", ...], "actions": [{"seat": 0, "play": "3s 4s 5d"}, ...],
     "result": {"finish_order": [2, 0, 1, 3], "scores": [1, 2, -2, -1], "instant_win": null}}

The text form, in the spirit of chess's PGN: header tags, then the actions, one numbered line
per pile, then the result::

    [Format "tienlen-game"]
    [Version "1"]
    [Rules "standard"]
    [Players "4"]
    [Seat0 "3♠ 4♠ 5♦ ..."]
    ...
    1. S0 3♠ 4♠ 5♦  S1 6♠ 7♣ 8♦  S2 pass  S3 pass  S0 pass
    2. S1 ...
    Result: S1 S0 S3 S2

:func:`record_of` / :func:`to_json` / :func:`format_text` write records; :func:`load` (either
form) and :func:`parse_text` read one back into a :class:`~tienlen.Game` by replaying every
action; :func:`replay` yields the game after each action (for viewers). A record that does
not replay raises :class:`RecordError` (a ``ValueError``) naming the action number.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from .cards import CardParseError, format_cards, parse_cards
from .combos import PASS_WORDS, format_move
from .debts import CardDebt
from .game import Game, TradeOffer, why_refused
from .inputs import (
    MAX_ACTIONS,
    check_keys,
    decode,
    expect_int,
    expect_list,
    expect_object,
    expect_str,
    fail,
    load_json,
    quote_value,
)
from .match import parse_seed
from .position import Gift
from .reasons import reason
from .rules import INSTANT_WINS, RULESETS, Rules, RulesError

__all__ = [
    "FORMAT",
    "VERSION",
    "GameRecord",
    "RecordError",
    "RecordedAction",
    "Step",
    "apply_action",
    "format_text",
    "is_json",
    "load",
    "parse_text",
    "read_rules",
    "read_seed",
    "record_of",
    "replay",
    "to_json",
]

#: The ``format`` field of every record.
FORMAT = "tienlen-game"
#: The record version this module writes (and the newest it reads).
VERSION = 1

ActionKind = Literal["play", "pass", "give", "offer", "accept", "refuse", "ask"]


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message says where (the field,
    ``record.actions[3].seat``, or the action, ``action 4 (S1 3♠)``) and quotes the value."""


class RecordedAction(NamedTuple):
    """One action of a record.

    ``kind`` is ``play`` (``cards``), ``pass``, ``give`` (San Jose exchange: ``cards``),
    ``offer`` (mutual trading: ``cards`` to ``partner`` for ``take``), ``accept`` or
    ``refuse`` (the partner's answer), ``ask`` (``rules.hidden_counts``: the seat asks seat
    ``partner`` for its card count, out of turn; the answer is the replay's). A ``pass`` in
    the trading phase declines to offer.
    """

    seat: int
    kind: ActionKind
    cards: str = ""
    partner: int = -1
    take: str = ""

    def words(self, *, ascii: bool = False) -> str:
        """The action in the text form, e.g. ``"S0 3♠ 4♠"`` or ``"S2 offers 3♠ to 1 for 2♥"``."""
        cards, take = _notation(self.cards, ascii), _notation(self.take, ascii)
        match self.kind:
            case "play":
                return f"S{self.seat} {cards}"
            case "give":
                return f"S{self.seat} gives {cards}"
            case "offer":
                return f"S{self.seat} offers {cards} to {self.partner} for {take}"
            case "accept":
                return f"S{self.seat} accepts"
            case "refuse":
                return f"S{self.seat} refuses"
            case "ask":
                return f"S{self.seat} asks {self.partner}"
            case _:
                return f"S{self.seat} pass"


class Step(NamedTuple):
    """One replayed action: its number (from 1), the action, whether it led a fresh pile,
    the phase it was made in, and the game right after it (the same object each step:
    copy it to keep it)."""

    number: int
    action: RecordedAction
    leads: bool
    phase: str
    game: Game


@dataclass(frozen=True)
class GameRecord:
    """A game as data: what it started from, every action, and (if over) the result."""

    rules: Rules
    hands: tuple[str, ...] | None
    """Dealt hands in notation, before any spare card, trade or exchange (``None``: deal
    from ``seed``)."""
    actions: tuple[RecordedAction, ...] = ()
    leader: int | None = None
    """The seat that led freely, if one was set (otherwise ``rules.first_lead`` applied)."""
    previous_finish: tuple[int, ...] | None = None
    """The previous game's finish order, for a San Jose exchange."""
    debts: tuple[CardDebt, ...] = ()
    """Card debts from the previous game, settled after the deal."""
    seed: int | str | None = None
    names: tuple[str, ...] | None = None
    finish_order: tuple[int, ...] | None = None
    scores: tuple[int, ...] | None = None
    instant_win: tuple[int, str] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Extension fields of a JSON record (names starting ``x-``): kept, never read."""

    # --- building ---------------------------------------------------------------------
    @classmethod
    def from_game(
        cls,
        game: Game,
        *,
        seed: int | str | None = None,
        names: Sequence[str] | None = None,
    ) -> GameRecord:
        """The record of ``game`` so far (complete once the game is over)."""
        from .scoring import score

        setup = game.setup
        over = game.is_over
        return cls(
            rules=game.rules,
            hands=tuple(format_cards(h, ascii=True) for h in setup.hands),
            actions=tuple(_actions_of(game)),
            leader=setup.leader,
            previous_finish=setup.previous_finish,
            debts=setup.debts,
            seed=seed,
            names=tuple(names) if names is not None else None,
            finish_order=game.finish_order if over else None,
            scores=score(game) if over else None,
            instant_win=game.instant_win,
        )

    # --- JSON ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready record (see ``docs/record-format.md``)."""
        out: dict[str, Any] = {"format": FORMAT, "version": VERSION}
        out["rules"] = self.rules.to_dict()
        out["rules_code"] = self.rules.code()
        if self.seed is not None:
            out["seed"] = self.seed
        if self.names is not None:
            out["names"] = list(self.names)
        if self.leader is not None:
            out["leader"] = self.leader
        if self.previous_finish is not None:
            out["previous_finish"] = list(self.previous_finish)
        if self.debts:
            out["debts"] = [[d.debtor, d.creditor, d.cards] for d in self.debts]
        if self.hands is not None:
            out["hands"] = list(self.hands)
        out["actions"] = [_action_to_json(a) for a in self.actions]
        if self.finish_order is not None:
            out["result"] = {
                "finish_order": list(self.finish_order),
                "scores": list(self.scores) if self.scores is not None else None,
                "instant_win": (
                    {"seat": self.instant_win[0], "hand": self.instant_win[1]}
                    if self.instant_win
                    else None
                ),
            }
        out.update({k: v for k, v in self.extra.items() if k not in out})
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, path: str = "record") -> GameRecord:
        """Read a JSON record (as a dict). Every field's type, range and length is checked
        before anything is built (errors name the field under ``path``); the moves are
        checked when the record is replayed."""
        if not isinstance(data, Mapping):
            fail(RecordError, path, f"a record is a JSON object, not {quote_value(data)}")
        if data.get("format") != FORMAT:
            fail(
                RecordError, f"{path}.format", f"not a tienlen game record ({_got(data, 'format')})"
            )
        version = data.get("version")
        if type(version) is not int or not 1 <= version <= VERSION:
            fail(
                RecordError,
                f"{path}.version",
                f"{_got(data, 'version')} is not supported (1-{VERSION})",
            )
        fields = {k: v for k, v in data.items() if not (isinstance(k, str) and k.startswith("x-"))}
        check_keys(
            fields, path, error=RecordError, required=("format", "version"), optional=_OPTIONAL
        )
        rules = read_rules(data.get("rules"), data.get("rules_code"), path)
        n = rules.players

        def given(key: str) -> bool:
            return data.get(key) is not None

        seed = read_seed(data["seed"], f"{path}.seed") if given("seed") else None
        names = None
        if given("names"):
            names = tuple(
                expect_str(v, f"{path}.names[{i}]", error=RecordError)
                for i, v in enumerate(_list(data["names"], f"{path}.names", length=n))
            )
        leader = _seat_from(data["leader"], f"{path}.leader", n) if given("leader") else None
        previous = None
        if given("previous_finish"):
            previous = _seats_from(
                data["previous_finish"], f"{path}.previous_finish", n, every=True
            )
        debts = _debts_from(data["debts"], f"{path}.debts", n) if given("debts") else ()
        hands = None
        if given("hands"):
            hands = tuple(
                _ascii(
                    expect_str(h, f"{path}.hands[{i}]", error=RecordError, limit=_CARDS_TEXT),
                    f"{path}.hands[{i}]",
                )
                for i, h in enumerate(_list(data["hands"], f"{path}.hands", length=n))
            )
        elif seed is None:
            fail(RecordError, path, "the record has neither 'hands' nor 'seed'")
        raw_actions = expect_list(
            data.get("actions", []), f"{path}.actions", error=RecordError, limit=MAX_ACTIONS
        )
        actions = tuple(
            _action_from_json(a, f"{path}.actions[{i}]", n) for i, a in enumerate(raw_actions)
        )
        finish = scores = instant = None
        if given("result"):
            where = f"{path}.result"
            result = expect_object(
                data["result"],
                where,
                error=RecordError,
                required=("finish_order",),
                optional=("scores", "instant_win"),
            )
            finish = _seats_from(result["finish_order"], f"{where}.finish_order", n)
            if result.get("scores") is not None:
                scores = tuple(
                    expect_int(
                        v, f"{where}.scores[{i}]", error=RecordError, lo=-_MAX_SCORE, hi=_MAX_SCORE
                    )
                    for i, v in enumerate(_list(result["scores"], f"{where}.scores", length=n))
                )
            if result.get("instant_win") is not None:
                iw = expect_object(
                    result["instant_win"],
                    f"{where}.instant_win",
                    error=RecordError,
                    required=("seat", "hand"),
                )
                hand = iw["hand"]
                if hand not in INSTANT_WINS:
                    fail(
                        RecordError,
                        f"{where}.instant_win.hand",
                        f"unknown instant win {quote_value(hand)}; "
                        f"known: {', '.join(INSTANT_WINS)}",
                    )
                instant = (_seat_from(iw["seat"], f"{where}.instant_win.seat", n), hand)
        return cls(
            rules=rules,
            hands=hands,
            actions=actions,
            leader=leader,
            previous_finish=previous,
            debts=debts,
            seed=seed,
            names=names,
            finish_order=finish,
            scores=scores,
            instant_win=instant,
            extra={k: v for k, v in data.items() if k not in fields},
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        """Read a JSON record's text (size and depth limited; checked as :meth:`from_dict`)."""
        return cls.from_dict(load_json(text, error=RecordError, what="record"))

    def to_json(self, *, indent: int | None = None) -> str:
        """The record as JSON text (cards in ASCII notation)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    # --- text -----------------------------------------------------------------------------
    def to_text(self, *, ascii: bool = False) -> str:
        """The compact text form (header tags, one numbered line per pile, result)."""
        tags: list[tuple[str, str]] = [("Format", FORMAT), ("Version", str(VERSION))]
        tags.append(("Rules", self.rules.name))
        tags.append(("Players", str(self.rules.players)))
        knobs = _knobs_diff(self.rules)
        if knobs:
            tags.append(("Knobs", json.dumps(knobs, ensure_ascii=False, separators=(",", ":"))))
        if self.rules.code() != self.rules.name:  # a preset's code is its name: the Rules tag
            tags.append(("RulesCode", self.rules.code()))
        if self.seed is not None:
            tags.append(("Seed", str(self.seed)))
        if self.names is not None:
            tags.extend((f"Name{i}", name) for i, name in enumerate(self.names))
        if self.leader is not None:
            tags.append(("Leader", f"S{self.leader}"))
        if self.previous_finish is not None:
            tags.append(("PreviousFinish", _seats(self.previous_finish)))
        if self.debts:
            tags.append(
                ("Debts", " ".join(f"S{d.debtor}>S{d.creditor}x{d.cards}" for d in self.debts))
            )
        if self.hands is not None:
            tags.extend((f"Seat{i}", _notation(h, ascii) or "-") for i, h in enumerate(self.hands))
        if self.finish_order is not None:
            tags.append(("Finish", _seats(self.finish_order)))
        if self.scores is not None:
            tags.append(("Scores", " ".join(f"{s:+d}" for s in self.scores)))
        if self.instant_win is not None:
            tags.append(("InstantWin", f"S{self.instant_win[0]} {self.instant_win[1]}"))
        lines = [f"[{name} {json.dumps(value, ensure_ascii=False)}]" for name, value in tags]
        lines.append("")
        line: list[str] = []
        number = 0
        phase = ""
        for step in replay(self):
            if line and (step.leads or step.phase != phase):
                lines.append(_join(line))
                line = []
            phase = step.phase
            if not line:
                number += 1
                line.append(f"{number}.")
            line.append(step.action.words(ascii=ascii))
        if line:
            lines.append(_join(line))
        if self.finish_order is not None:
            lines.append(f"Result: {_seats(self.finish_order)}")
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str | bytes) -> GameRecord:
        """Read the text form; its shape is checked (as :meth:`from_dict`, which reads the
        JSON fields the tags stand for), its moves when it is replayed."""
        tags: dict[str, str] = {}
        where: dict[str, str] = {}
        body: list[str] = []
        for lineno, raw in enumerate(decode(text, error=RecordError, what="record").split("\n"), 1):
            line = raw.strip()
            if not line or line.startswith(";"):
                continue
            m = _TAG.match(line)
            if not m:
                if line.startswith("["):
                    fail(
                        RecordError,
                        f"line {lineno}",
                        f'bad tag {quote_value(line)} (write [Name "value"])',
                    )
                body.append(line)
                continue
            name = m.group(1)
            here = where[name] = f"line {lineno} [{name}]"
            if not _TAG_NAME.match(name):
                fail(RecordError, f"line {lineno}", f"unknown tag {quote_value(name)}")
            if name in tags:
                fail(RecordError, here, "the tag is given twice")
            try:
                tags[name] = json.loads(m.group(2))
            except ValueError:
                fail(
                    RecordError, here, f"the value is not a JSON string: {quote_value(m.group(2))}"
                )

        def tag(name: str, default: str) -> str:
            return tags.get(name, default)

        rules: dict[str, Any] = {"name": tag("Rules", "standard")}
        if "Players" in tags:
            rules["players"] = _int(tags["Players"], where["Players"])
        if "Knobs" in tags:
            knobs = load_json(tags["Knobs"], error=RecordError, what=where["Knobs"])
            if not isinstance(knobs, dict):
                fail(
                    RecordError, where["Knobs"], f"must be a JSON object, not {quote_value(knobs)}"
                )
            rules.update(knobs)
        data: dict[str, Any] = {
            "format": tag("Format", FORMAT),
            "version": _int(tag("Version", "1"), where.get("Version", "Version")),
        }
        if {"Rules", "Players", "Knobs"} & set(tags) or "RulesCode" not in tags:
            data["rules"] = rules
        if "RulesCode" in tags:
            data["rules_code"] = tags["RulesCode"]
        players = rules.get(
            "players", Rules.preset(rules["name"]).players if rules["name"] in RULESETS else 4
        )
        numbered = {int(name[4:]) for name in tags if name.startswith(("Name", "Seat"))}
        if isinstance(players, int) and numbered and max(numbered) >= players:
            fail(
                RecordError,
                "record",
                f"a Name or Seat tag numbers seat {max(numbered)} of {players} players",
            )
        seats = range(max(numbered, default=-1) + 1 if not isinstance(players, int) else players)
        if any(f"Seat{i}" in tags for i in seats):
            missing = [f"Seat{i}" for i in seats if f"Seat{i}" not in tags]
            if missing:
                fail(RecordError, "record", f"missing hand tag(s): {', '.join(missing)}")
            data["hands"] = [_hand_text(tags[f"Seat{i}"]) for i in seats]
        if "Seed" in tags:  # a seed of digits only is read as a number
            seed = tags["Seed"]
            data["seed"] = parse_seed(seed) if len(seed) <= 30 else seed
        if any(f"Name{i}" in tags for i in seats):
            data["names"] = [tags.get(f"Name{i}", "") for i in seats]
        if "Leader" in tags:
            data["leader"] = _seat(tags["Leader"], where["Leader"])
        if "PreviousFinish" in tags:
            data["previous_finish"] = _seat_list(tags["PreviousFinish"], where["PreviousFinish"])
        if "Debts" in tags:
            data["debts"] = [_debt_text(t, where["Debts"]) for t in tags["Debts"].split()]
        actions, finish = _parse_body(body)
        data["actions"] = [_action_to_json(a) for a in actions]
        if "Finish" in tags:
            tagged = _seat_list(tags["Finish"], where["Finish"])
            if finish is not None and finish != tagged:
                fail(RecordError, where["Finish"], "the Result line and the Finish tag disagree")
            finish = tagged
        if finish is not None or "Scores" in tags or "InstantWin" in tags:
            if finish is None:
                fail(
                    RecordError,
                    "record",
                    "Scores or InstantWin without a Finish tag or Result line",
                )
            result: dict[str, Any] = {"finish_order": list(finish)}
            if "Scores" in tags:
                result["scores"] = [_int(s, where["Scores"]) for s in tags["Scores"].split()]
            if "InstantWin" in tags:
                parts = tags["InstantWin"].split()
                if len(parts) != 2:
                    fail(
                        RecordError,
                        where["InstantWin"],
                        f"write 'S<seat> <hand>', not {quote_value(tags['InstantWin'])}",
                    )
                result["instant_win"] = {
                    "seat": _seat(parts[0], where["InstantWin"]),
                    "hand": parts[1],
                }
            data["result"] = result
        return cls.from_dict(data)

    # --- replay ---------------------------------------------------------------------------
    def new_game(self) -> Game:
        """The game as it stood before the first action."""
        try:
            return Game(
                self.rules,
                hands=list(self.hands) if self.hands is not None else None,
                seed=self.seed if self.hands is None else None,
                leader=self.leader,
                previous_finish=self.previous_finish,
                debts=self.debts,
            )
        except ValueError as e:
            raise RecordError(f"the record's deal cannot start a game: {e}") from None

    def game(self) -> Game:
        """Replay every action and return the game; checks the result if one is given."""
        game = self.new_game()
        for step in replay(self):
            game = step.game
        if self.finish_order is not None:
            if not game.is_over:
                raise RecordError(
                    f"the record gives a result but the game is not over after "
                    f"{len(self.actions)} actions"
                )
            if game.finish_order != self.finish_order:
                raise RecordError(
                    f"the record's finish order {_seats(self.finish_order)} differs from "
                    f"the replayed one {_seats(game.finish_order)}"
                )
        if self.instant_win is not None and game.instant_win != self.instant_win:
            raise RecordError(
                f"the record's instant win {self.instant_win} differs from the replay's "
                f"{game.instant_win}"
            )
        return game


# --- module-level API ----------------------------------------------------------------------
def record_of(
    game: Game, *, seed: int | str | None = None, names: Sequence[str] | None = None
) -> dict[str, Any]:
    """The JSON-ready record of ``game`` (``seed`` and ``names`` are stored if given;
    a :class:`~tienlen.Match` knows the seed as ``match.game_seed``)."""
    return GameRecord.from_game(game, seed=seed, names=names).to_dict()


def to_json(
    game: Game | Mapping[str, Any],
    *,
    seed: int | str | None = None,
    names: Sequence[str] | None = None,
    indent: int | None = None,
) -> str:
    """A game (or a record dict) as JSON text."""
    data = record_of(game, seed=seed, names=names) if isinstance(game, Game) else dict(game)
    return json.dumps(data, ensure_ascii=False, indent=indent)


def format_text(
    game: Game,
    *,
    seed: int | str | None = None,
    names: Sequence[str] | None = None,
    ascii: bool = False,
) -> str:
    """A game in the compact text form."""
    return GameRecord.from_game(game, seed=seed, names=names).to_text(ascii=ascii)


def parse_text(text: str | bytes) -> Game:
    """Replay a text-form record into a game."""
    return GameRecord.from_text(text).game()


def read(source: str | bytes | Mapping[str, Any]) -> GameRecord:
    """Read a record, JSON (text, bytes or a dict) or the text form, without replaying it."""
    if isinstance(source, Mapping):
        return GameRecord.from_dict(source)
    text = decode(source, error=RecordError, what="record")
    return GameRecord.from_json(text) if is_json(text) else GameRecord.from_text(text)


def is_json(text: str) -> bool:
    """Whether ``text`` is meant as JSON rather than the text form (whose tags open with
    ``[`` and a letter)."""
    return re.match(r"\s*(\{|\[(?![A-Za-z_]))", text) is not None


def load(source: str | bytes | Mapping[str, Any]) -> Game:
    """Replay a record (JSON text, a dict, or the text form) into a game, checking every
    action; raises :class:`RecordError` naming the first action that does not replay."""
    return read(source).game()


def replay(record: GameRecord | str | bytes | Mapping[str, Any]) -> Iterator[Step]:
    """Replay a record one action at a time, yielding a :class:`Step` after each."""
    rec = record if isinstance(record, GameRecord) else read(record)
    game = rec.new_game()
    for number, action in enumerate(rec.actions, 1):
        phase = game.phase
        # An ask is out of turn: it joins the line of the pile it was made in.
        leads = phase == "play" and game.top is None and action.kind != "ask"
        try:
            apply_action(game, action)
        except ValueError as e:  # the action is named already: the reason alone
            raise RecordError(f"action {number} ({action.words()}): {why_refused(e)}") from None
        yield Step(number, action, leads, phase, game)


# --- helpers ---------------------------------------------------------------------------------
_TAG = re.compile(r'^\[(\w+)\s+(".*")\]$')
_TAG_NAME = re.compile(
    r"^(Format|Version|Rules|Players|Knobs|Seed|Leader|PreviousFinish|Debts|Finish|Scores|"
    r"InstantWin|RulesCode|Name[0-7]|Seat[0-7])$"
)
_SEAT = re.compile(r"^S(\d{1,2})$")
_NUMBER = re.compile(r"^\d+\.$")
#: The JSON fields a record may have besides format, version and rules.
_OPTIONAL = (
    *("rules", "rules_code", "seed", "names", "leader", "previous_finish", "debts", "hands"),
    *("actions", "result"),
)
#: Longest card text (a hand or a play) in a record.
_CARDS_TEXT = 2000
#: Largest score of one game a record may give.
_MAX_SCORE = 10**9


def _actions_of(game: Game) -> list[RecordedAction]:
    out: list[RecordedAction] = []
    rules = game.rules
    if rules.trading == "mutual":
        out.extend(_trade_actions(game))
    asks = list(game.asks)
    for at, action in enumerate((*game.history, None)):
        while asks and asks[0].at == at:
            ask = asks.pop(0)
            out.append(RecordedAction(ask.asker, "ask", partner=ask.seat))
        if action is None:
            break
        if isinstance(action, Gift):
            out.append(RecordedAction(action.seat, "give", format_move(action.give, ascii=True)))
            continue
        m = action.move
        if m.is_pass:
            out.append(RecordedAction(action.seat, "pass"))
        else:
            out.append(RecordedAction(action.seat, "play", format_move(m, ascii=True)))
    return out


def _trade_actions(game: Game) -> list[RecordedAction]:
    """Each seat, from the leader round the table, offers a trade or passes."""
    from .cards import cards_of_mask

    n, step = game.rules.players, game.rules.step
    offers: list[TradeOffer] = list(game.trades)
    pending = game.pending_trade
    current = (pending.proposer if pending else game.turn) if game.phase == "trading" else None
    out: list[RecordedAction] = []
    seat = game.trading_leader
    assert seat is not None, "only a game with mutual trading has trade actions"
    for _ in range(n):
        if seat == current and pending is None:
            break
        if offers and offers[0].proposer == seat:
            o = offers.pop(0)
            give = format_cards(cards_of_mask(o.give), ascii=True)
            take = format_cards(cards_of_mask(o.take), ascii=True)
            out.append(RecordedAction(seat, "offer", give, o.partner, take))
            if o.accepted is not None:
                out.append(RecordedAction(o.partner, "accept" if o.accepted else "refuse"))
        else:
            out.append(RecordedAction(seat, "pass"))
        if seat == current:
            break
        seat = (seat + step) % n
    return out


def apply_action(game: Game, a: RecordedAction) -> None:
    """Make one recorded action in ``game`` (a record's replay, a server's live move): the
    phase and the turn must fit it; the engine raises a ``ValueError`` in words and changes
    nothing when it is illegal."""
    phase = game.phase
    if a.kind == "ask":  # out of turn
        game.ask_count(a.seat, a.partner)
        return
    if phase == "over":
        raise ValueError("the game is already over")
    if a.seat != game.turn:
        raise ValueError(f"it is S{game.turn}'s turn, not S{a.seat}'s")
    match a.kind:
        case "play":
            if phase != "play":
                raise ValueError(reason("wrong_phase", action="play", phase=phase))
            game.play(a.cards)
        case "give":
            if phase != "exchange":
                raise ValueError(reason("wrong_phase", action="give", phase=phase))
            game.play(a.cards)
        case "pass":
            if phase not in ("play", "trading"):
                raise ValueError(reason("wrong_phase", action="pass", phase=phase))
            if game.pending_trade is not None:
                raise ValueError(reason("offer_awaits"))
            game.play("pass")
        case "offer":
            game.offer_trade(a.partner, a.cards, a.take)
        case "accept":
            game.accept_trade()
        case "refuse":
            if game.pending_trade is None:
                raise ValueError(reason("no_offer_to_refuse"))
            game.play("pass")


def _action_to_json(a: RecordedAction) -> dict[str, Any]:
    match a.kind:
        case "play":
            return {"seat": a.seat, "play": a.cards}
        case "pass":
            return {"seat": a.seat, "play": "pass"}
        case "give":
            return {"seat": a.seat, "give": a.cards}
        case "offer":
            return {"seat": a.seat, "offer": {"to": a.partner, "give": a.cards, "take": a.take}}
        case "ask":
            return {"seat": a.seat, "ask": a.partner}
        case _:
            return {"seat": a.seat, "answer": a.kind}


def _action_from_json(data: Any, path: str, players: int) -> RecordedAction:
    kinds = ("play", "give", "offer", "answer", "ask")
    obj = expect_object(data, path, error=RecordError, required=("seat",), optional=kinds)
    seat = _seat_from(obj["seat"], f"{path}.seat", players)
    given = [k for k in kinds if k in obj]
    if len(given) != 1:
        fail(
            RecordError,
            path,
            f"needs one of 'play', 'give', 'offer', 'answer' or 'ask', not "
            f"{quote_value(dict(obj))}",
        )
    kind = given[0]
    value, where = obj[kind], f"{path}.{kind}"
    match kind:
        case "play" | "give":
            text = expect_str(value, where, error=RecordError, limit=_CARDS_TEXT)
            if kind == "play" and text.strip().lower() in PASS_WORDS:
                return RecordedAction(seat, "pass")
            return RecordedAction(seat, kind, _ascii(text, where))
        case "offer":
            o = expect_object(value, where, error=RecordError, required=("to", "give", "take"))
            give, take = (
                _ascii(
                    expect_str(o[k], f"{where}.{k}", error=RecordError, limit=_CARDS_TEXT),
                    f"{where}.{k}",
                )
                for k in ("give", "take")
            )
            return RecordedAction(
                seat, "offer", give, _seat_from(o["to"], f"{where}.to", players), take
            )
        case "ask":
            return RecordedAction(seat, "ask", partner=_seat_from(value, where, players))
        case _:
            if value == "accept":
                return RecordedAction(seat, "accept")
            if value == "refuse":
                return RecordedAction(seat, "refuse")
            fail(RecordError, where, f"must be 'accept' or 'refuse', not {quote_value(value)}")


def _got(data: Mapping[str, Any], key: str) -> str:
    return f"{key} {quote_value(data[key])}" if key in data else f"no {key!r}"


def _list(value: Any, path: str, *, length: int) -> Sequence[Any]:
    return expect_list(value, path, error=RecordError, limit=length, length=length)


def read_rules(knobs: Any, code: Any, path: str) -> Rules:
    """The rules at ``path`` from their knobs (``rules``), their code (``rules_code``) or
    both, which must agree; every failure is a :class:`RecordError`."""
    if knobs is None and code is None:
        fail(RecordError, path, "no 'rules' or 'rules_code'")
    try:
        by_knobs = Rules.from_dict(knobs, path=f"{path}.rules") if knobs is not None else None
        if code is not None:
            expect_str(code, f"{path}.rules_code", error=RecordError, limit=10_000)
            try:
                by_code = Rules.from_code(code)
            except RulesError as e:
                fail(RecordError, f"{path}.rules_code", str(e))
        else:
            by_code = None
    except RulesError as e:
        raise RecordError(str(e)) from None
    if by_knobs is not None and by_code is not None and by_knobs != by_code:
        fail(
            RecordError,
            path,
            f"'rules' and 'rules_code' disagree: the knobs are {quote_value(by_knobs.code())}, "
            f"the code is {quote_value(code)}",
        )
    rules = by_knobs or by_code
    assert rules is not None
    return rules


def read_seed(value: Any, path: str) -> int | str:
    """A seed read at ``path``: a number (64-bit) or a string; else a :class:`RecordError`."""
    if isinstance(value, str):
        return expect_str(value, path, error=RecordError)
    if type(value) is int and abs(value) < 2**63:
        return value
    fail(RecordError, path, f"must be a number or a string, not {quote_value(value)}")


def _seat_from(value: Any, path: str, players: int) -> int:
    if type(value) is not int or not 0 <= value < players:
        fail(RecordError, path, f"must be a seat from 0 to {players - 1}, not {quote_value(value)}")
    return value


#: The reason a card debt read from a record gives (records keep who owes whom how many).
_DEBT_REASON = "owed from the previous game"
_DEBT = re.compile(r"^S(\d{1,2})>S(\d{1,2})x(\d{1,3})$")


def _debts_from(value: Any, path: str, players: int) -> tuple[CardDebt, ...]:
    """``[[debtor, creditor, cards], ...]``: two different seats and 1-52 cards each."""
    out = []
    for i, item in enumerate(expect_list(value, path, error=RecordError, limit=2 * players)):
        where = f"{path}[{i}]"
        debtor, creditor, cards = expect_list(item, where, error=RecordError, limit=3, length=3)
        d = _seat_from(debtor, f"{where}[0]", players)
        c = _seat_from(creditor, f"{where}[1]", players)
        if d == c:
            fail(RecordError, where, f"a seat cannot owe itself: {quote_value(item)}")
        if type(cards) is not int or not 1 <= cards <= 52:
            fail(RecordError, f"{where}[2]", f"must be 1 to 52 cards, not {quote_value(cards)}")
        out.append(CardDebt(d, c, cards, _DEBT_REASON))
    return tuple(out)


def _debt_text(text: str, where: str) -> list[int]:
    m = _DEBT.match(text)
    if m is None:
        fail(
            RecordError,
            where,
            f"write a debt as S<debtor>>S<creditor>x<cards>, not {quote_value(text)}",
        )
    return [int(g) for g in m.groups()]


def _seats_from(value: Any, path: str, players: int, *, every: bool = False) -> tuple[int, ...]:
    """Distinct seats (``every``: each seat once)."""
    seats = expect_list(
        value, path, error=RecordError, limit=players, length=players if every else None
    )
    out = tuple(_seat_from(s, f"{path}[{i}]", players) for i, s in enumerate(seats))
    if len(set(out)) != len(out):
        fail(RecordError, path, f"names a seat twice: {quote_value(value)}")
    return out


def _parse_body(lines: list[str]) -> tuple[list[RecordedAction], tuple[int, ...] | None]:
    tokens: list[str] = []
    result: tuple[int, ...] | None = None
    for line in lines:
        if line.lower().startswith("result:"):
            result = _seat_list(line.split(":", 1)[1], "Result")
            continue
        tokens.extend(line.split())
    actions: list[RecordedAction] = []
    groups: list[tuple[int, list[str]]] = []
    for tok in tokens:
        if _NUMBER.match(tok):
            continue
        m = _SEAT.match(tok)
        if m:
            groups.append((int(m.group(1)), []))
        elif not groups:
            fail(
                RecordError, "record", f"{quote_value(tok)} before any seat (write e.g. 'S0 3♠ 4♠')"
            )
        else:
            groups[-1][1].append(tok)
    for seat, words in groups:
        number = len(actions) + 1
        where = f"action {number} ({quote_value(f'S{seat} ' + ' '.join(words))})"
        if not words:
            raise RecordError(f"{where}: nothing after the seat")
        head = words[0].lower()
        if head in PASS_WORDS and len(words) == 1:
            actions.append(RecordedAction(seat, "pass"))
        elif head in ("accepts", "refuses") and len(words) == 1:
            actions.append(RecordedAction(seat, "accept" if head == "accepts" else "refuse"))
        elif head == "asks" and len(words) == 2:
            actions.append(RecordedAction(seat, "ask", partner=_int(words[1].lstrip("Ss"), where)))
        elif head == "gives":
            actions.append(RecordedAction(seat, "give", _ascii(" ".join(words[1:]), where)))
        elif head == "offers":
            lower = [w.lower() for w in words]
            if "to" not in lower or "for" not in lower:
                raise RecordError(f"{where}: write 'S0 offers 3♠ to 2 for 2♥'")
            i, j = lower.index("to"), lower.index("for")
            if j != i + 2:
                raise RecordError(f"{where}: write 'S0 offers 3♠ to 2 for 2♥'")
            partner = _int(words[i + 1].lstrip("Ss"), where)
            give = _ascii(" ".join(words[1:i]), where)
            take = _ascii(" ".join(words[j + 1 :]), where)
            actions.append(RecordedAction(seat, "offer", give, partner, take))
        else:
            actions.append(RecordedAction(seat, "play", _ascii(" ".join(words), where)))
    return actions, result


def _join(line: list[str]) -> str:
    return f"{line[0]} " + "  ".join(line[1:])


def _ascii(text: str, where: str) -> str:
    """Card notation normalised to ASCII (``"3s 10h"``); raises naming ``where``."""
    try:
        cards = parse_cards(text)
    except CardParseError as e:
        raise RecordError(f"{where}: {e}") from None
    if not cards and text.strip():
        fail(RecordError, where, f"no cards in {quote_value(text)}")
    return format_cards(cards, ascii=True)


def _notation(text: str, ascii: bool) -> str:
    return text if ascii or not text else format_cards(parse_cards(text))


def _hand_text(value: str) -> str:
    return "" if value.strip() == "-" else value


def _seats(seats: Sequence[int]) -> str:
    return " ".join(f"S{s}" for s in seats)


def _seat(text: str, where: str) -> int:
    m = _SEAT.match(text.strip())
    if not m:
        fail(RecordError, where, f"{quote_value(text)} is not a seat (write S0, S1, ...)")
    return int(m.group(1))


def _seat_list(text: str, where: str) -> tuple[int, ...]:
    return tuple(_seat(t, where) for t in text.split())


def _int(text: str, where: str) -> int:
    try:
        return int(text)
    except ValueError:
        fail(RecordError, where, f"{quote_value(text)} is not a number")


def _knobs_diff(rules: Rules) -> dict[str, Any]:
    """The knobs that differ from the preset the record names (``players`` aside)."""
    base = Rules.preset(rules.name if rules.name in RULESETS else "standard")
    ours, theirs = rules.to_dict(), base.to_dict()
    return {k: v for k, v in ours.items() if k not in ("name", "players") and theirs.get(k) != v}
