"""The bot protocol: JSON lines on a program's stdin and stdout (see docs/protocol.md).

The host (the arena, the terminal game, the server) starts the bot program and talks to it
one JSON object per line:

1. host → bot ``{"type": "hello", "protocol": 1}``;
   bot → host ``{"type": "hello", "protocol": 1, "name": "my-bot"}``;
2. for every decision, host → bot ``{"type": "move", "id": N, "observation": {...},
   "legal": ["3s 4s 5d", "pass", ...], "budget_ms": 100}``;
   bot → host ``{"type": "move", "id": N, "move": "3s 4s 5d"}`` (or ``"index": i`` into
   ``legal``);
3. host → bot ``{"type": "quit"}``; the bot exits.

:class:`ProtocolPlayer` is the host side, a :class:`~tienlen.players.base.Player` that
runs a program; :func:`serve` is the bot side, running any player over stdin/stdout.
:func:`observation_to_json` and :func:`observation_from_json` are the message format.
"""

from __future__ import annotations

import json
import logging
import queue
import shlex
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import IO, Any

from tienlen.cards import Card, cards_of_mask, format_cards, mask_of, parse_cards
from tienlen.combos import Move, format_move, parse_move
from tienlen.game import Action, TradeOffer
from tienlen.inputs import (
    MAX_ACTIONS,
    MAX_LINE,
    check_keys,
    expect_bool,
    expect_int,
    expect_list,
    expect_object,
    expect_str,
    fail,
    load_json,
    quote_value,
)
from tienlen.observation import Observation
from tienlen.players.base import Budget, Player
from tienlen.rules import Rules, RulesError

__all__ = [
    "PROTOCOL_VERSION",
    "ProtocolError",
    "ProtocolPlayer",
    "observation_from_json",
    "observation_to_json",
    "read_message",
    "read_move_reply",
    "read_move_request",
    "serve",
]

PROTOCOL_VERSION = 1
log = logging.getLogger("tienlen.players.protocol")


class ProtocolError(ValueError):
    """A bot program (or host) broke the protocol: bad JSON, a wrong message, an unknown
    move, silence. The message names the field and quotes the bad value."""


# --- the message format: moves in the core's notation (format_move / parse_move) ---------
def _action_json(a: Action) -> dict[str, Any]:
    return {"seat": a.seat, "move": format_move(a.move, ascii=True), "kind": a.move.kind}


def observation_to_json(obs: Observation) -> dict[str, Any]:
    """An observation as a JSON-ready dict (cards in ascii notation)."""
    return {
        "seat": obs.seat,
        "players": obs.players,
        "phase": obs.phase,
        "turn": obs.turn,
        "hand": format_cards(obs.hand, ascii=True),
        "card_counts": list(obs.card_counts),
        "pile": [_action_json(a) for a in obs.pile],
        "passed": sorted(obs.passed),
        "locked_out": sorted(obs.locked_out),
        "straight_locked": obs.straight_locked,
        "first_lead": (
            {"mode": obs.first_lead[0], "card": obs.first_lead[1].ascii()}
            if obs.first_lead
            else None
        ),
        "stuck": sorted(obs.stuck),
        "finish_order": list(obs.finish_order),
        "history": [_action_json(a) for a in obs.history],
        "trades": [
            {
                "proposer": t.proposer,
                "partner": t.partner,
                "give": format_cards(cards_of_mask(t.give), ascii=True),
                "take": format_cards(cards_of_mask(t.take), ascii=True),
                "accepted": t.accepted,
            }
            for t in obs.trades
        ],
        "leader": obs.leader,
        "rules": obs.rules.to_dict(),
    }


_OBSERVATION_FIELDS = (
    "seat",
    "players",
    "phase",
    "turn",
    "hand",
    "card_counts",
    "pile",
    "passed",
    "locked_out",
    "straight_locked",
    "first_lead",
    "finish_order",
    "history",
    "leader",
    "rules",
)
_PHASES = ("trading", "exchange", "play", "over")
_FIRST_LEADS = ("lowest-single", "must-include-lowest", "holder-may-decline")
#: Longest card text in a message (two decks' worth of notation).
_CARDS_TEXT = 1000


def observation_from_json(d: Any, *, path: str = "observation") -> Observation:
    """Read an observation written by :func:`observation_to_json`, checking every field
    (types, seats in range, card notation, counts) first; raises :class:`ProtocolError`
    naming the field and quoting the bad value."""
    err = ProtocolError
    obj = expect_object(
        d, path, error=err, required=_OBSERVATION_FIELDS, optional=("stuck", "trades")
    )
    try:
        rules = Rules.from_dict(obj["rules"], path=f"{path}.rules")
    except RulesError as e:
        raise ProtocolError(str(e)) from None
    n = rules.players
    players = expect_int(obj["players"], f"{path}.players", error=err, lo=n, hi=n)

    def seat(value: Any, where: str) -> int:
        return expect_int(value, where, error=err, lo=0, hi=players - 1)

    def seats(key: str) -> tuple[int, ...]:
        items = expect_list(obj.get(key, []), f"{path}.{key}", error=err, limit=players)
        out = tuple(seat(s, f"{path}.{key}[{i}]") for i, s in enumerate(items))
        if len(set(out)) != len(out):
            fail(err, f"{path}.{key}", f"names a seat twice: {quote_value(items)}")
        return out

    def mask(value: Any, where: str) -> int:
        text = expect_str(value, where, error=err, limit=_CARDS_TEXT)
        try:
            return mask_of(parse_cards(text))
        except ValueError as e:
            fail(err, where, str(e))

    def actions(key: str) -> tuple[Action, ...]:
        items = expect_list(obj[key], f"{path}.{key}", error=err, limit=MAX_ACTIONS)
        out = []
        for i, a in enumerate(items):
            where = f"{path}.{key}[{i}]"
            act = expect_object(a, where, error=err, required=("seat", "move"), optional=("kind",))
            kind = act.get("kind")
            if kind is not None and not isinstance(kind, str):
                fail(err, f"{where}.kind", f"must be a string, not {quote_value(kind)}")
            text = expect_str(act["move"], f"{where}.move", error=err, limit=_CARDS_TEXT)
            try:
                move = parse_move(text, rules, give=kind == "give")
            except ValueError as e:
                fail(err, f"{where}.move", str(e))
            out.append(Action(seat(act["seat"], f"{where}.seat"), move))
        return tuple(out)

    phase = obj["phase"]
    if phase not in _PHASES:
        fail(err, f"{path}.phase", f"must be one of {', '.join(_PHASES)}, not {quote_value(phase)}")
    counts = tuple(
        expect_int(c, f"{path}.card_counts[{i}]", error=err, lo=0, hi=104)
        for i, c in enumerate(
            expect_list(obj["card_counts"], f"{path}.card_counts", error=err, limit=n, length=n)
        )
    )
    first = obj["first_lead"]
    first_lead = None
    if first is not None:
        where = f"{path}.first_lead"
        fl = expect_object(first, where, error=err, required=("mode", "card"))
        if fl["mode"] not in _FIRST_LEADS:
            fail(
                err,
                f"{where}.mode",
                f"must be one of {', '.join(_FIRST_LEADS)}, not {quote_value(fl['mode'])}",
            )
        card = expect_str(fl["card"], f"{where}.card", error=err)
        try:
            first_lead = (fl["mode"], Card.parse(card))
        except ValueError as e:
            fail(err, f"{where}.card", str(e))
    trades = []
    for i, t in enumerate(expect_list(obj.get("trades", []), f"{path}.trades", error=err, limit=n)):
        where = f"{path}.trades[{i}]"
        tr = expect_object(
            t, where, error=err, required=("proposer", "partner", "give", "take", "accepted")
        )
        accepted = tr["accepted"]
        if accepted is not None and not isinstance(accepted, bool):
            fail(
                err,
                f"{where}.accepted",
                f"must be true, false or null, not {quote_value(accepted)}",
            )
        trades.append(
            TradeOffer(
                seat(tr["proposer"], f"{where}.proposer"),
                seat(tr["partner"], f"{where}.partner"),
                mask(tr["give"], f"{where}.give"),
                mask(tr["take"], f"{where}.take"),
                accepted,
            )
        )
    return Observation(
        seat=seat(obj["seat"], f"{path}.seat"),
        rules=rules,
        phase=phase,
        turn=seat(obj["turn"], f"{path}.turn"),
        hand_mask=mask(obj["hand"], f"{path}.hand"),
        card_counts=counts,
        pile=actions("pile"),
        passed=frozenset(seats("passed")),
        locked_out=frozenset(seats("locked_out")),
        straight_locked=expect_bool(obj["straight_locked"], f"{path}.straight_locked", error=err),
        first_lead=first_lead,
        stuck=frozenset(seats("stuck")),
        finish_order=seats("finish_order"),
        history=actions("history"),
        trades=tuple(trades),
        leader=seat(obj["leader"], f"{path}.leader"),
    )


def read_message(line: str | bytes, *, limit: int = MAX_LINE) -> dict[str, Any]:
    """One protocol line as a message: a JSON object (at most ``limit`` characters, nested
    at most :data:`~tienlen.inputs.MAX_DEPTH` deep) with a string ``type``; raises
    :class:`ProtocolError` saying what is wrong."""
    message = load_json(line, error=ProtocolError, what="message", limit=limit)
    if not isinstance(message, dict):
        fail(ProtocolError, "message", f"must be a JSON object, not {quote_value(message)}")
    kind = message.get("type")
    if kind not in _MESSAGE_TYPES:
        fail(
            ProtocolError,
            "message.type",
            f"must be one of {', '.join(_MESSAGE_TYPES)}, not {quote_value(kind)}",
        )
    return message


_MESSAGE_TYPES = ("hello", "move", "quit")
#: Most legal moves one request may list (a 26-card hand leading has a few thousand).
MAX_LEGAL = 100_000


def read_move_request(message: dict[str, Any]) -> tuple[Any, Observation, list[Move], Budget]:
    """A host's move request, checked: its id, the observation, the legal moves (each a
    combination under the rules) and the budget."""
    err = ProtocolError
    check_keys(
        message,
        "message",
        error=err,
        required=("type", "id", "observation", "legal"),
        optional=("budget_ms", "budget_iterations"),
    )
    ident = message["id"]
    if ident is not None and (type(ident) is not int and not isinstance(ident, str)):
        fail(err, "message.id", f"must be a number or a string, not {quote_value(ident)}")
    obs = observation_from_json(message["observation"], path="message.observation")
    texts = expect_list(message["legal"], "message.legal", error=err, limit=MAX_LEGAL)
    if not texts:
        fail(err, "message.legal", "no legal moves")
    legal = []
    for i, t in enumerate(texts):
        text = expect_str(t, f"message.legal[{i}]", error=err, limit=_CARDS_TEXT)
        try:
            legal.append(parse_move(text, obs.rules, give=obs.phase == "exchange"))
        except ValueError as e:
            fail(err, f"message.legal[{i}]", str(e))
    ms = message.get("budget_ms")
    if ms is not None:
        ms = expect_int(ms, "message.budget_ms", error=err, lo=0, hi=10**8)
    iterations = message.get("budget_iterations")
    if iterations is not None:
        iterations = expect_int(iterations, "message.budget_iterations", error=err, lo=1, hi=10**9)
    budget = Budget(seconds=ms / 1000 if ms is not None else None, iterations=iterations)
    return ident, obs, legal, budget


def read_move_reply(
    message: dict[str, Any], legal: Sequence[Move], rules: Rules, *, give: bool
) -> Move:
    """A bot's answer to a move request, checked: exactly one of ``move`` (notation) or
    ``index`` (into ``legal``), naming a legal move; raises :class:`ProtocolError`."""
    err = ProtocolError
    check_keys(message, "reply", error=err, required=("type",), optional=("id", "move", "index"))
    if message["type"] != "move":
        fail(err, "reply.type", f"must be 'move', not {quote_value(message['type'])}")
    if ("move" in message) == ("index" in message):
        fail(err, "reply", "needs one of 'move' or 'index'")
    if "index" in message:
        i = expect_int(message["index"], "reply.index", error=err, lo=0, hi=len(legal) - 1)
        return legal[i]
    text = expect_str(message["move"], "reply.move", error=err, limit=_CARDS_TEXT)
    try:
        move = parse_move(text, rules, give=give)
    except ValueError as e:
        fail(err, "reply.move", str(e))
    for m in legal:
        if m == move:
            return m
    fail(err, "reply.move", f"{quote_value(text)} is not a legal move now")


# --- the host side ------------------------------------------------------------------------
class ProtocolPlayer:
    """A player that is an external program speaking the protocol.

    ``command`` is a shell-like command line (``"python my_bot.py"``). The program is
    started at once and greeted; ``timeout`` is the number of seconds allowed for the
    greeting and, beyond the move budget, for each answer. Every failure raises
    :class:`ProtocolError` with a clear message; callers use
    :func:`~tienlen.players.base.choose_safely`, which logs it and plays a fallback move.
    """

    def __init__(self, command: str | Sequence[str], *, timeout: float = 10.0) -> None:
        args = shlex.split(command) if isinstance(command, str) else list(command)
        if not args:
            raise ValueError("empty bot command")
        self.command = args
        self.timeout = timeout
        self.name = args[-1]
        self._next_id = 0
        self._proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._send({"type": "hello", "protocol": PROTOCOL_VERSION})
        reply = self._receive(self.timeout, "the hello")
        if reply.get("type") != "hello":
            raise ProtocolError(f"bot {self.name!r} answered the hello with {reply!r}")
        self.name = str(reply.get("name") or self.name)

    def _read(self) -> None:
        out = self._proc.stdout
        assert out is not None
        for line in out:
            self._lines.put(line)
        self._lines.put(None)

    def _send(self, message: dict[str, Any]) -> None:
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise ProtocolError(f"bot {self.name!r} is not running ({e})") from None

    def _receive(self, timeout: float, what: str) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise ProtocolError(
                f"bot {self.name!r} sent nothing for {what} in {timeout:.1f}s"
            ) from None
        if line is None:
            self._lines.put(None)  # stays closed
            raise ProtocolError(
                f"bot {self.name!r} closed its output (exit code {self._proc.poll()})"
            )
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            raise ProtocolError(
                f"bot {self.name!r} sent a line that is not JSON: {line.strip()[:200]!r}"
            ) from None
        if not isinstance(message, dict):
            raise ProtocolError(f"bot {self.name!r} sent {line.strip()[:200]!r}, not a JSON object")
        return message

    def choose(self, obs: Observation, legal: Sequence[Move], budget: Budget) -> Move:
        """Send the observation and legal moves; read, check and return the answer."""
        self._next_id += 1
        ident = self._next_id
        texts = [format_move(m, ascii=True) for m in legal]
        request: dict[str, Any] = {
            "type": "move",
            "id": ident,
            "observation": observation_to_json(obs),
            "legal": texts,
        }
        if budget.seconds is not None:
            request["budget_ms"] = round(budget.seconds * 1000)
        if budget.iterations is not None:
            request["budget_iterations"] = budget.iterations
        self._send(request)
        wait = self.timeout + (budget.seconds or 0.0)
        while True:
            reply = self._receive(wait, f"move request {ident}")
            if reply.get("type") == "move" and reply.get("id") not in (ident, None):
                continue  # a late answer to an earlier request
            break
        if reply.get("type") != "move":
            raise ProtocolError(f"bot {self.name!r} answered a move request with {reply!r}")
        if "index" in reply:
            i = reply["index"]
            if not isinstance(i, int) or not 0 <= i < len(legal):
                raise ProtocolError(
                    f"bot {self.name!r} chose index {i!r} of {len(legal)} legal moves"
                )
            return legal[i]
        text = reply.get("move")
        if not isinstance(text, str):
            raise ProtocolError(f"bot {self.name!r} sent no move in {reply!r}")
        try:
            move = parse_move(text, obs.rules, give=obs.phase == "exchange")
        except ValueError as e:
            raise ProtocolError(
                f"bot {self.name!r} sent an unreadable move {text!r}: {e}"
            ) from None
        for m in legal:
            if m == move:
                return m
        raise ProtocolError(f"bot {self.name!r} chose {text!r}, which is not a legal move now")

    def close(self) -> None:
        """Say quit and wait briefly for the program to end (then kill it)."""
        if self._proc.poll() is None:
            try:
                self._send({"type": "quit"})
                self._proc.wait(timeout=2)
            except (ProtocolError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                stream.close()

    def __enter__(self) -> ProtocolPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- the bot side ---------------------------------------------------------------------------
def serve(player: Player, *, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Run ``player`` as a protocol bot on ``stdin``/``stdout`` until ``quit`` or end of
    input. Returns an exit status."""
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n")
        out.flush()

    for line in inp:
        if not line.strip():
            continue
        message = read_message(line)
        kind = message["type"]
        if kind == "hello":
            send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": player.name})
        elif kind == "move":
            ident, obs, legal, budget = read_move_request(message)
            move = player.choose(obs, legal, budget)
            send({"type": "move", "id": ident, "move": format_move(move, ascii=True)})
        else:
            return 0
    return 0
