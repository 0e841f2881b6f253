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
from .game import Game, TradeOffer
from .match import parse_seed
from .rules import RULESETS, Rules, RulesError
from .text import quote

__all__ = [
    "FORMAT",
    "VERSION",
    "GameRecord",
    "RecordError",
    "RecordedAction",
    "Step",
    "format_text",
    "load",
    "parse_text",
    "record_of",
    "replay",
    "to_json",
]

#: The ``format`` field of every record.
FORMAT = "tienlen-game"
#: The record version this module writes (and the newest it reads).
VERSION = 1

ActionKind = Literal["play", "pass", "give", "offer", "accept", "refuse"]


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message says where."""


class RecordedAction(NamedTuple):
    """One action of a record.

    ``kind`` is ``play`` (``cards``), ``pass``, ``give`` (San Jose exchange: ``cards``),
    ``offer`` (mutual trading: ``cards`` to ``partner`` for ``take``), ``accept`` or
    ``refuse`` (the partner's answer). A ``pass`` in the trading phase declines to offer.
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
    seed: int | str | None = None
    names: tuple[str, ...] | None = None
    finish_order: tuple[int, ...] | None = None
    scores: tuple[int, ...] | None = None
    instant_win: tuple[int, str] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Fields of a JSON record this version does not know (kept, never read)."""

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
    def from_dict(cls, data: Mapping[str, Any]) -> GameRecord:
        """Read a JSON record (as a dict); checks its shape, not yet its moves."""
        if not isinstance(data, Mapping):
            raise RecordError(f"a record is a JSON object, not {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise RecordError(f"not a tienlen game record (format {data.get('format')!r})")
        version = data.get("version")
        if not isinstance(version, int) or not 1 <= version <= VERSION:
            raise RecordError(f"record version {version!r} is not supported (1-{VERSION})")
        rules = _rules_of(data.get("rules"), data.get("rules_code"), "'rules'", "'rules_code'")
        hands = data.get("hands")
        if hands is not None and (
            not isinstance(hands, list) or not all(isinstance(h, str) for h in hands)
        ):
            raise RecordError("'hands' must be a list of card strings, one per seat")
        if hands is None and data.get("seed") is None:
            raise RecordError("the record has neither 'hands' nor 'seed'")
        raw_actions = data.get("actions", [])
        if not isinstance(raw_actions, list):
            raise RecordError("'actions' must be a list")
        actions = tuple(_action_from_json(a, i) for i, a in enumerate(raw_actions, 1))
        result = data.get("result")
        finish = scores = instant = None
        if result is not None:
            if not isinstance(result, Mapping):
                raise RecordError("'result' must be an object")
            finish = _int_tuple(result.get("finish_order"), "result.finish_order")
            if result.get("scores") is not None:
                scores = _int_tuple(result["scores"], "result.scores")
            iw = result.get("instant_win")
            if iw is not None:
                try:
                    instant = (int(iw["seat"]), str(iw["hand"]))
                except (KeyError, TypeError, ValueError):
                    raise RecordError("'result.instant_win' must be {seat, hand}") from None
        known = {"format", "version", "rules", "rules_code", "seed", "names", "leader"}
        known.add("previous_finish")
        known |= {"hands", "actions", "result"}
        leader = data.get("leader")
        names = data.get("names")
        previous = data.get("previous_finish")
        return cls(
            rules=rules,
            hands=tuple(hands) if hands is not None else None,
            actions=actions,
            leader=int(leader) if leader is not None else None,
            previous_finish=_int_tuple(previous, "previous_finish")
            if previous is not None
            else None,
            seed=data.get("seed"),
            names=tuple(str(n) for n in names) if names is not None else None,
            finish_order=finish,
            scores=scores,
            instant_win=instant,
            extra={k: v for k, v in data.items() if k not in known},
        )

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
    def from_text(cls, text: str) -> GameRecord:
        """Read the text form; checks its shape, not yet its moves."""
        tags: dict[str, str] = {}
        body: list[str] = []
        for lineno, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith(";"):
                continue
            m = _TAG.match(line)
            if m:
                try:
                    value = json.loads(m.group(2))
                except json.JSONDecodeError:
                    raise RecordError(f"line {lineno}: bad tag value in {quote(line)}") from None
                tags[m.group(1)] = str(value)
                continue
            if line.startswith("["):
                raise RecordError(f'line {lineno}: bad tag {quote(line)} (write [Name "value"])')
            body.append(line)
        if tags.get("Format", FORMAT) != FORMAT:
            raise RecordError(f"not a tienlen game record (Format {quote(tags['Format'])})")
        version = tags.get("Version", "1")
        if not version.isdigit() or not 1 <= int(version) <= VERSION:
            raise RecordError(f"record version {version!r} is not supported (1-{VERSION})")
        data: dict[str, Any] | None = None
        if {"Rules", "Players", "Knobs"} & set(tags) or "RulesCode" not in tags:
            data = {"name": tags.get("Rules", "standard")}
            if "Players" in tags:
                data["players"] = _int(tags["Players"], "Players")
            if "Knobs" in tags:
                try:
                    knobs = json.loads(tags["Knobs"])
                except json.JSONDecodeError:
                    raise RecordError(
                        f"the Knobs tag is not JSON: {quote(tags['Knobs'])}"
                    ) from None
                if not isinstance(knobs, dict):
                    raise RecordError("the Knobs tag must be a JSON object")
                data.update(knobs)
        rules = _rules_of(data, tags.get("RulesCode"), "the Rules tags", "the RulesCode tag")
        n = rules.players
        hands: tuple[str, ...] | None = None
        if any(f"Seat{i}" in tags for i in range(n)):
            missing = [f"Seat{i}" for i in range(n) if f"Seat{i}" not in tags]
            if missing:
                raise RecordError(f"missing hand tag(s): {', '.join(missing)}")
            hands = tuple(_ascii(_hand_text(tags[f"Seat{i}"]), f"Seat{i}") for i in range(n))
        seed: int | str | None = None
        if "Seed" in tags:  # a seed of digits only is read as a number
            text_seed = tags["Seed"]
            seed = parse_seed(text_seed)
        if hands is None and seed is None:
            raise RecordError("the record has neither Seat tags nor a Seed tag")
        names = None
        if "Name0" in tags:
            names = tuple(tags.get(f"Name{i}", "") for i in range(n))
        actions, result = _parse_body(body)
        finish = _seat_list(tags["Finish"], "Finish") if "Finish" in tags else None
        if result is not None:
            if finish is not None and finish != result:
                raise RecordError("the Result line and the Finish tag disagree")
            finish = result
        scores = None
        if "Scores" in tags:
            scores = tuple(_int(s, "Scores") for s in tags["Scores"].split())
        instant = None
        if "InstantWin" in tags:
            parts = tags["InstantWin"].split()
            if len(parts) != 2:
                raise RecordError("the InstantWin tag is 'S<seat> <hand>'")
            instant = (_seat(parts[0], "InstantWin"), parts[1])
        return cls(
            rules=rules,
            hands=hands,
            actions=tuple(actions),
            leader=_seat(tags["Leader"], "Leader") if "Leader" in tags else None,
            previous_finish=_seat_list(tags["PreviousFinish"], "PreviousFinish")
            if "PreviousFinish" in tags
            else None,
            seed=seed,
            names=names,
            finish_order=finish,
            scores=scores,
            instant_win=instant,
        )

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


def parse_text(text: str) -> Game:
    """Replay a text-form record into a game."""
    return GameRecord.from_text(text).game()


def read(source: str | Mapping[str, Any]) -> GameRecord:
    """Read a record, JSON (text or dict) or the text form, without replaying it."""
    if isinstance(source, Mapping):
        return GameRecord.from_dict(source)
    text = source.lstrip("\ufeff").strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise RecordError(f"the record is not valid JSON: {e}") from None
        return GameRecord.from_dict(data)
    return GameRecord.from_text(text)


def load(source: str | Mapping[str, Any]) -> Game:
    """Replay a record (JSON text, a dict, or the text form) into a game, checking every
    action; raises :class:`RecordError` naming the first action that does not replay."""
    return read(source).game()


def replay(record: GameRecord | str | Mapping[str, Any]) -> Iterator[Step]:
    """Replay a record one action at a time, yielding a :class:`Step` after each."""
    rec = record if isinstance(record, GameRecord) else read(record)
    game = rec.new_game()
    for number, action in enumerate(rec.actions, 1):
        phase = game.phase
        leads = phase == "play" and game.top is None
        try:
            _apply(game, action)
        except ValueError as e:
            raise RecordError(f"action {number} ({action.words()}): {e}") from None
        yield Step(number, action, leads, phase, game)


# --- helpers ---------------------------------------------------------------------------------
_TAG = re.compile(r'^\[(\w+)\s+(".*")\]$')
_SEAT = re.compile(r"^S(\d+)$")
_NUMBER = re.compile(r"^\d+\.$")


def _actions_of(game: Game) -> list[RecordedAction]:
    out: list[RecordedAction] = []
    rules = game.rules
    if rules.trading == "mutual":
        out.extend(_trade_actions(game))
    for action in game.history:
        m = action.move
        if m.kind == "give":
            out.append(RecordedAction(action.seat, "give", format_cards(m.cards, ascii=True)))
        elif m.is_pass:
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
    seat = game.leader
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


def _apply(game: Game, a: RecordedAction) -> None:
    phase = game.phase
    if phase == "over":
        raise ValueError("the game is already over")
    if a.seat != game.turn:
        raise ValueError(f"it is S{game.turn}'s turn, not S{a.seat}'s")
    match a.kind:
        case "play":
            if phase != "play":
                raise ValueError(f"a play during the {phase} phase")
            game.play(a.cards)
        case "give":
            if phase != "exchange":
                raise ValueError(f"a give during the {phase} phase")
            game.play(a.cards)
        case "pass":
            if phase not in ("play", "trading"):
                raise ValueError(f"a pass during the {phase} phase")
            if game.pending_trade is not None:
                raise ValueError("a trade offer awaits an answer: accept or refuse")
            game.play("pass")
        case "offer":
            game.offer_trade(a.partner, a.cards, a.take)
        case "accept":
            game.accept_trade()
        case "refuse":
            if game.pending_trade is None:
                raise ValueError("there is no trade offer to refuse")
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
        case _:
            return {"seat": a.seat, "answer": a.kind}


def _action_from_json(data: Any, number: int) -> RecordedAction:
    def bad(why: str) -> RecordError:
        return RecordError(f"action {number} ({json.dumps(data, ensure_ascii=False)}): {why}")

    if not isinstance(data, Mapping) or not isinstance(data.get("seat"), int):
        raise bad("an action is an object with an integer 'seat'")
    seat = data["seat"]
    try:
        if "play" in data:
            text = str(data["play"])
            if text.strip().lower() in PASS_WORDS:
                return RecordedAction(seat, "pass")
            return RecordedAction(seat, "play", _ascii(text, f"action {number}"))
        if "give" in data:
            return RecordedAction(seat, "give", _ascii(str(data["give"]), f"action {number}"))
        if "offer" in data:
            o = data["offer"]
            return RecordedAction(
                seat,
                "offer",
                _ascii(str(o["give"]), f"action {number}"),
                int(o["to"]),
                _ascii(str(o["take"]), f"action {number}"),
            )
        if "answer" in data:
            if data["answer"] not in ("accept", "refuse"):
                raise bad("'answer' is 'accept' or 'refuse'")
            return RecordedAction(seat, data["answer"])
    except (KeyError, TypeError, ValueError) as e:
        if isinstance(e, RecordError):
            raise
        raise bad(f"malformed ({e})") from None
    raise bad("an action has one of 'play', 'give', 'offer' or 'answer'")


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
            raise RecordError(f"{quote(tok)} before any seat (write e.g. 'S0 3♠ 4♠')")
        else:
            groups[-1][1].append(tok)
    for seat, words in groups:
        number = len(actions) + 1
        where = f"action {number} (S{seat} {' '.join(words)})"
        if not words:
            raise RecordError(f"{where}: nothing after the seat")
        head = words[0].lower()
        if head in PASS_WORDS and len(words) == 1:
            actions.append(RecordedAction(seat, "pass"))
        elif head in ("accepts", "refuses") and len(words) == 1:
            actions.append(RecordedAction(seat, "accept" if head == "accepts" else "refuse"))
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
        raise RecordError(f"{where}: no cards in {quote(text)}")
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
        raise RecordError(f"{where}: {quote(text)} is not a seat (write S0, S1, ...)")
    return int(m.group(1))


def _seat_list(text: str, where: str) -> tuple[int, ...]:
    return tuple(_seat(t, where) for t in text.split())


def _int(text: str, where: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise RecordError(f"{where}: {quote(text)} is not a number") from None


def _int_tuple(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
        raise RecordError(f"'{where}' must be a list of integers")
    return tuple(value)


def _rules_of(knobs: Any, code: Any, knobs_where: str, code_where: str) -> Rules:
    """The record's rules from its knobs, its rules code, or both (which must agree)."""
    if knobs is None and code is None:
        raise RecordError(f"the record has no {knobs_where}")
    try:
        from_knobs = Rules.from_dict(knobs) if knobs is not None else None
        if code is not None and not isinstance(code, str):
            raise RulesError(f"a rules code is text, not {type(code).__name__}")
        from_code = Rules.from_code(code) if code is not None else None
    except (RulesError, TypeError) as e:
        raise RecordError(f"bad rules in the record: {e}") from None
    if from_knobs is not None and from_code is not None and from_knobs != from_code:
        raise RecordError(
            f"{knobs_where} and {code_where} disagree: the knobs are {from_knobs.code()!r}, "
            f"the code is {code!r}"
        )
    rules = from_knobs or from_code
    assert rules is not None
    return rules


def _knobs_diff(rules: Rules) -> dict[str, Any]:
    """The knobs that differ from the preset the record names (``players`` aside)."""
    base = Rules.preset(rules.name if rules.name in RULESETS else "standard")
    ours, theirs = rules.to_dict(), base.to_dict()
    return {k: v for k, v in ours.items() if k not in ("name", "players") and theirs.get(k) != v}
