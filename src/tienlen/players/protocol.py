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

import contextlib
import io
import json
import logging
import math
import os
import selectors
import shlex
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import IO, Any, Final, NoReturn

from tienlen.cards import Card, cards_of_mask, format_cards, mask_of, parse_cards
from tienlen.combos import Choice, Give, format_move, parse_choice
from tienlen.game import CountAsk, TradeOffer
from tienlen.inputs import (
    MAX_ACTIONS,
    MAX_LINE,
    check_keys,
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
from tienlen.position import (
    Action,
    Entry,
    Gift,
    PlayState,
    PositionError,
    parse_position,
    state_fields,
)
from tienlen.rules import MAX_COMBINATIONS, Rules, RulesError
from tienlen.text import NAME_CHARS, printable

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
def _action_json(a: Entry) -> dict[str, Any]:
    if isinstance(a, Gift):
        return {"seat": a.seat, "move": format_move(a.give, ascii=True), "kind": "give"}
    return {"seat": a.seat, "move": format_move(a.move, ascii=True), "kind": a.move.kind}


def observation_to_json(obs: Observation) -> dict[str, Any]:
    """An observation as a JSON-ready dict (cards in ascii notation).

    ``position`` is its play state in position notation (docs/position-notation.md, the
    hands of the other seats hidden), which :func:`observation_from_json` reads; the same
    play-state fields are also written one by one under their
    :class:`~tienlen.position.PlayState` names (for bots that read them), with ``hand`` the
    seat's own cards; then what the seat has seen (``history``, ``trades``, ``asks``,
    ``spare_taker``) and the rules."""
    out: dict[str, Any] = {
        "seat": obs.seat,
        "players": obs.players,
        "position": obs.format(),
        "hand": format_cards(obs.hand, ascii=True),
    }
    for name, value in state_fields(obs).items():
        if name != "hands":
            out[name] = _STATE_JSON.get(name, _to_json)(value)
    out["history"] = [_action_json(a) for a in obs.history]
    out["trades"] = [
        {
            "proposer": t.proposer,
            "partner": t.partner,
            "give": format_cards(cards_of_mask(t.give), ascii=True),
            "take": format_cards(cards_of_mask(t.take), ascii=True),
            "accepted": t.accepted,
        }
        for t in obs.trades
    ]
    out["asks"] = [a._asdict() for a in obs.asks]
    out["spare_taker"] = obs.spare_taker
    out["rules"] = obs.rules.to_dict()
    return out


def _to_json(value: Any) -> Any:
    """A play-state field's value in JSON: seat sets sorted, tuples as lists, plays as
    ``{"seat", "move", "kind"}``."""
    if isinstance(value, Action):
        return _action_json(value)
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, tuple):
        return [_to_json(v) for v in value]
    return value


def _first_lead_json(value: tuple[str, Card] | None) -> dict[str, str] | None:
    return None if value is None else {"mode": value[0], "card": value[1].ascii()}


#: The play-state fields written otherwise than :func:`_to_json` does.
_STATE_JSON: Final[dict[str, Callable[[Any], Any]]] = {"first_lead": _first_lead_json}
#: The fields an observation must have; the play-state fields written one by one beside
#: ``position`` are read from it and may be left out.
_OBSERVATION_FIELDS = ("seat", "players", "position", "history", "rules")
_STATE_FIELDS = ("hand", *(f.name for f in fields(PlayState) if f.name != "hands"))
#: Longest card text in a message (two decks' worth of notation).
_CARDS_TEXT = 1000


def observation_from_json(d: Any, *, path: str = "observation") -> Observation:
    """Read an observation written by :func:`observation_to_json`: the play state from its
    ``position``, then what the seat has seen, checking every field (types, seats in range,
    card notation, counts) first; raises :class:`ProtocolError` naming the field and quoting
    the bad value."""
    err = ProtocolError
    obj = expect_object(
        d,
        path,
        error=err,
        required=_OBSERVATION_FIELDS,
        optional=("trades", "asks", "spare_taker", *_STATE_FIELDS),
    )
    try:
        rules = Rules.from_dict(obj["rules"], path=f"{path}.rules")
    except RulesError as e:
        raise ProtocolError(str(e)) from None
    n = rules.players
    players = expect_int(obj["players"], f"{path}.players", error=err, lo=n, hi=n)

    def seat(value: Any, where: str) -> int:
        return expect_int(value, where, error=err, lo=0, hi=players - 1)

    def mask(value: Any, where: str) -> int:
        text = expect_str(value, where, error=err, limit=_CARDS_TEXT)
        try:
            return mask_of(parse_cards(text))
        except ValueError as e:
            fail(err, where, str(e))

    own = seat(obj["seat"], f"{path}.seat")
    where = f"{path}.position"
    text = expect_str(obj["position"], where, error=err, limit=_CARDS_TEXT)
    try:
        state = parse_position(text, rules)
    except PositionError as e:
        fail(err, where, str(e))
    for s, (hand, count) in enumerate(zip(state.hands, state.card_counts, strict=True)):
        if (hand is None) == (s == own):
            known = "the seat's own hand only" if s == own else "no other seat's hand"
            fail(err, where, f"must show {known}: seat {s} in {quote_value(text)}")
        if count is None and not rules.hidden_counts:
            fail(err, where, f"hides seat {s}'s card count, which the rules show")
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
    history: list[Entry] = []
    items = expect_list(obj["history"], f"{path}.history", error=err, limit=MAX_ACTIONS)
    for i, a in enumerate(items):
        where = f"{path}.history[{i}]"
        act = expect_object(a, where, error=err, required=("seat", "move"), optional=("kind",))
        kind = act.get("kind")
        if kind is not None and not isinstance(kind, str):
            fail(err, f"{where}.kind", f"must be a string, not {quote_value(kind)}")
        move_text = expect_str(act["move"], f"{where}.move", error=err, limit=_CARDS_TEXT)
        who = seat(act["seat"], f"{where}.seat")
        try:
            move = parse_choice(move_text, rules, exchange=kind == "give")
        except ValueError as e:
            fail(err, f"{where}.move", str(e))
        history.append(Gift(who, move) if isinstance(move, Give) else Action(who, move))
    asks = []
    for i, a in enumerate(
        expect_list(obj.get("asks", []), f"{path}.asks", error=err, limit=MAX_ACTIONS)
    ):
        where = f"{path}.asks[{i}]"
        ask = expect_object(a, where, error=err, required=("asker", "seat", "cards", "at"))
        asks.append(
            CountAsk(
                seat(ask["asker"], f"{where}.asker"),
                seat(ask["seat"], f"{where}.seat"),
                expect_int(ask["cards"], f"{where}.cards", error=err, lo=0, hi=104),
                expect_int(ask["at"], f"{where}.at", error=err, lo=0, hi=len(history)),
            )
        )
    taker = obj.get("spare_taker")
    return Observation(
        **state_fields(state),
        seat=own,
        rules=rules,
        history=tuple(history),
        trades=tuple(trades),
        asks=tuple(asks),
        spare_taker=None if taker is None else seat(taker, f"{path}.spare_taker"),
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


def read_move_request(message: dict[str, Any]) -> tuple[Any, Observation, list[Choice], Budget]:
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
    legal: list[Choice] = []
    for i, t in enumerate(texts):
        text = expect_str(t, f"message.legal[{i}]", error=err, limit=_CARDS_TEXT)
        try:
            legal.append(parse_choice(text, obs.rules, exchange=obs.gives_now))
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
    message: dict[str, Any], legal: Sequence[Choice], rules: Rules, *, exchange: bool
) -> Choice:
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
        move = parse_choice(text, rules, exchange=exchange)
    except ValueError as e:
        fail(err, "reply.move", str(e))
    for m in legal:
        if m == move:
            return m
    fail(err, "reply.move", f"{quote_value(text)} is not a legal move now")


# --- the host side ------------------------------------------------------------------------
#: The longest line a bot may write (a move answer is a few hundred bytes).
MAX_REPLY_BYTES = 64 * 1024
#: The most a bot's output may run ahead of the host before it counts as a flood.
MAX_BUFFERED_BYTES = 1024 * 1024
#: How much of a bot's standard error is kept, to quote when it fails.
STDERR_TAIL_BYTES = 2048


class ProtocolPlayer:
    """A player that is an external program speaking the protocol.

    ``command`` is a shell-like command line (``"python my_bot.py"``). The program is
    started at once, in a process group of its own, and greeted (``name`` is what to call
    it until it gives its own name; by default its last word); ``timeout`` is the number
    of seconds allowed for the greeting and, beyond the move budget, for each answer: the
    whole exchange (writing the request, reading the answer, skipping late answers to
    earlier requests) must fit in it. Lines longer than :data:`MAX_REPLY_BYTES` are refused.

    Every failure raises :class:`ProtocolError` with a clear message; callers use
    :func:`~tienlen.players.base.choose_safely`, which logs it and plays a fallback move.
    A bot that breaks the exchange itself (it exits, overruns the time, floods or stops
    reading) is stopped, with its whole process group, and every later request fails at
    once with the reason; a bot that merely answers badly is asked again next time.
    Its name and everything it says are quoted with control characters escaped.
    """

    def __init__(
        self, command: str | Sequence[str], *, timeout: float = 10.0, name: str | None = None
    ) -> None:
        args = shlex.split(command) if isinstance(command, str) else list(command)
        if not args:
            raise ValueError("empty bot command")
        if not math.isfinite(timeout) or timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        self.command = args
        self.timeout = timeout
        self.name = printable(name or os.path.basename(args[-1]) or args[-1], limit=NAME_CHARS)
        self._next_id = 0
        self._stopped: str | None = None
        self._buffer = bytearray()
        self._stderr_tail = b""
        self._output_open = True
        self._proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        # the process group goes with this object at the latest at interpreter exit
        self._reaper = weakref.finalize(self, _kill_group, self._proc)
        assert self._proc.stdin and self._proc.stdout and self._proc.stderr
        self._stdin = self._proc.stdin.fileno()
        self._stdout = self._proc.stdout.fileno()
        self._stderr: int | None = self._proc.stderr.fileno()
        for fd in (self._stdin, self._stdout, self._stderr):
            os.set_blocking(fd, False)
        try:
            reply = self._exchange({"type": "hello", "protocol": PROTOCOL_VERSION}, None)
            if reply.get("type") != "hello":
                raise ProtocolError(
                    f"bot {self.name!r} answered the hello with {quote_value(reply)}"
                )
        except BaseException:
            self.close()
            raise
        name = reply.get("name")
        if isinstance(name, str) and name.strip():
            self.name = printable(name.strip(), limit=NAME_CHARS)

    # --- the exchange -----------------------------------------------------------------
    def _exchange(self, message: dict[str, Any], ident: int | None, extra: float = 0.0) -> Any:
        """Send ``message`` and return the answer (skipping late answers to earlier move
        requests), all within ``timeout + extra`` seconds."""
        what = "the hello" if ident is None else f"move request {ident}"
        if self._stopped is not None:
            raise ProtocolError(f"bot {self.name!r} was stopped earlier: {self._stopped}")
        wait = self.timeout + extra
        deadline = time.monotonic() + wait
        data = (json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n").encode()
        pending = memoryview(data)
        while pending:
            pending = pending[self._pump(deadline, pending, what, wait) :]
        while True:
            line = self._line()
            while line is None:
                if not self._output_open:
                    self._gone("closed its output")
                self._pump(deadline, None, what, wait)
                line = self._line()
            reply = _decode(line, self.name)
            if (
                ident is not None
                and reply.get("type") == "move"
                and reply.get("id") not in (ident, None)
            ):
                if time.monotonic() > deadline:  # a flood of them must not outlast the time
                    self._stop(f"sent only late answers for {what} in {wait:.1f}s")
                continue  # a late answer to an earlier request
            return reply

    def _line(self) -> bytes | None:
        """The next complete line the bot wrote, if there is one."""
        end = self._buffer.find(b"\n", 0, MAX_REPLY_BYTES + 1)
        if end < 0:
            if len(self._buffer) > MAX_REPLY_BYTES:
                self._stop(f"sent a line longer than {MAX_REPLY_BYTES} bytes")
            return None
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return line

    def _pump(self, deadline: float, pending: memoryview | None, what: str, wait: float) -> int:
        """Wait once (until ``deadline`` at most) for the bot's pipes; write what it takes of
        ``pending``, read what it wrote. Returns the number of bytes written."""
        left = deadline - time.monotonic()
        if left <= 0:
            if pending is not None:
                self._stop(f"did not read {what} in {wait:.1f}s")
            self._stop(f"sent nothing for {what} in {wait:.1f}s")
        with selectors.DefaultSelector() as sel:
            if pending is not None:
                sel.register(self._stdin, selectors.EVENT_WRITE)
            if self._output_open:
                sel.register(self._stdout, selectors.EVENT_READ)
            if self._stderr is not None:
                sel.register(self._stderr, selectors.EVENT_READ)
            ready = sel.select(left)
        written = 0
        for key, _ in ready:
            fd = key.fd
            if fd == self._stdin and pending is not None:
                try:
                    written = os.write(fd, pending)
                except BlockingIOError:
                    pass
                except OSError:  # the bot closed its input (or died)
                    self._gone("stopped reading its input")
            elif fd == self._stdout:
                chunk = _read(fd)
                if chunk is None:
                    continue
                if chunk == b"":
                    self._output_open = False
                self._buffer += chunk
                if len(self._buffer) > MAX_BUFFERED_BYTES:
                    self._stop(f"wrote more than {MAX_BUFFERED_BYTES} bytes without being asked")
            elif fd == self._stderr:
                chunk = _read(fd)
                if chunk is None:
                    continue
                if chunk == b"":
                    self._stderr = None
                self._stderr_tail = (self._stderr_tail + chunk)[-STDERR_TAIL_BYTES:]
        return written

    def _gone(self, what: str) -> NoReturn:
        """A pipe closed: say so, or that the bot exited if it did."""
        try:
            self._proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            self._stop(what)
        self._stop("exited")

    def _stop(self, reason: str) -> NoReturn:
        """End the bot's process group and fail this and every later request."""
        self._reaper()
        code = self._proc.poll()
        if code is not None:
            reason += f" (exit code {code})"
        tail = self._stderr_tail.decode("utf-8", "replace").strip().splitlines()
        if tail:
            reason += f"; its last error line: {printable(tail[-1], limit=200)!r}"
        self._stopped = reason
        raise ProtocolError(f"bot {self.name!r} {reason}")

    # --- the player ---------------------------------------------------------------------
    def choose(self, obs: Observation, legal: Sequence[Choice], budget: Budget) -> Choice:
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
        reply = self._exchange(request, ident, budget.seconds or 0.0)
        try:
            return read_move_reply(reply, legal, obs.rules, exchange=obs.gives_now)
        except ProtocolError as e:
            raise ProtocolError(f"bot {self.name!r} answered badly: {e}") from None

    def close(self) -> None:
        """Say quit, give the program a moment to end, then end its whole process group."""
        if self._reaper.alive and self._stopped is None and self._proc.poll() is None:
            quit_line = memoryview(b'{"type":"quit"}\n')
            try:
                while quit_line:
                    quit_line = quit_line[self._pump(time.monotonic() + 1.0, quit_line, "", 1) :]
                self._proc.stdin.close()  # type: ignore[union-attr]
                self._proc.wait(timeout=2)
            except (ProtocolError, OSError, subprocess.TimeoutExpired):
                pass
        self._reaper()
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> ProtocolPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc``'s process group (the bot and anything it started) and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # already gone
        os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _read(fd: int) -> bytes | None:
    """What the pipe holds (``b""`` at its end, ``None`` if nothing after all)."""
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return None


def _decode(line: bytes, name: str) -> dict[str, Any]:
    """One line from a bot as a message (:class:`ProtocolError` naming the bot if not)."""
    try:
        return read_message(line, limit=MAX_REPLY_BYTES)
    except ProtocolError as e:
        raise ProtocolError(f"bot {name!r} sent a bad line: {e}") from None


# --- the bot side ---------------------------------------------------------------------------
def serve(player: Player, *, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Run ``player`` as a protocol bot on ``stdin``/``stdout`` until ``quit`` or end of
    input. Returns an exit status. A line it cannot use (not JSON, not a request, a request
    with missing or wrong fields, longer than :data:`~tienlen.inputs.MAX_LINE`) is answered with
    ``{"type": "error", "id": ..., "message": ...}`` and the bot goes on."""
    if stdin is None:
        if isinstance(sys.stdin, io.TextIOWrapper):  # a stray byte must not end the bot
            sys.stdin.reconfigure(errors="replace")
        inp: IO[str] = sys.stdin
    else:
        inp = stdin
    out = stdout if stdout is not None else sys.stdout

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n")
        out.flush()

    while True:
        line = inp.readline(MAX_LINE + 1)
        if not line:
            return 0
        if len(line) > MAX_LINE:
            while line and not line.endswith("\n"):  # skip the rest of it
                line = inp.readline(MAX_LINE)
            send(_error(None, f"a line longer than {MAX_LINE} characters"))
            continue
        if not line.strip():
            continue
        try:
            message = read_message(line)
        except ProtocolError as e:
            send(_error(None, printable(str(e), limit=200)))
            continue
        kind = message["type"]
        if kind == "quit":
            return 0
        if kind == "hello":
            send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": player.name})
            continue
        ident = message.get("id")
        try:
            send(_answer(player, message))
        except Exception as e:  # a bad request (or a failing player) must not end the bot
            why = printable(str(e), limit=200) or type(e).__name__
            send(_error(ident if isinstance(ident, int | str) else None, why))


def _error(ident: int | str | None, message: str) -> dict[str, Any]:
    return {"type": "error", "id": ident, "message": message}


def _answer(player: Player, message: dict[str, Any]) -> dict[str, Any]:
    """The answer to one move request (:class:`ProtocolError` when it is not usable)."""
    ident, obs, legal, budget = read_move_request(message)
    counts = [b.bit_count() for b in obs.hand_mask.to_bytes(13, "little")]
    if obs.rules.combinations_in(counts) > MAX_COMBINATIONS:
        raise ProtocolError("the hand in the observation forms too many combinations")
    move = player.choose(obs, legal, budget)
    return {"type": "move", "id": ident, "move": format_move(move, ascii=True)}
