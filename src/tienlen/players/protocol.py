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
from collections.abc import Sequence
from typing import IO, Any, NoReturn

from tienlen.cards import Card, cards_of_mask, format_cards, mask_of, parse_cards
from tienlen.combos import Move, format_move, parse_move
from tienlen.game import Action, TradeOffer
from tienlen.observation import Observation
from tienlen.players.base import Budget, Player
from tienlen.rules import MAX_COMBINATIONS, Rules
from tienlen.text import NAME_CHARS, QUOTE_LIMIT, printable, quote

__all__ = [
    "PROTOCOL_VERSION",
    "ProtocolError",
    "ProtocolPlayer",
    "observation_from_json",
    "observation_to_json",
    "serve",
]

PROTOCOL_VERSION = 1
log = logging.getLogger("tienlen.players.protocol")


class ProtocolError(ValueError):
    """A bot program broke the protocol (bad JSON, wrong message, unknown move, silence)."""


# --- the message format: moves in the core's notation (format_move / parse_move) ---------
def _action_json(a: Action) -> dict[str, Any]:
    return {"seat": a.seat, "move": format_move(a.move, ascii=True), "kind": a.move.kind}


def _action_from(d: dict[str, Any], rules: Rules) -> Action:
    return Action(int(d["seat"]), parse_move(d["move"], rules, give=d.get("kind") == "give"))


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


def observation_from_json(d: dict[str, Any]) -> Observation:
    """Read an observation written by :func:`observation_to_json`."""
    rules = Rules.from_dict(d["rules"])
    first = d.get("first_lead")
    return Observation(
        seat=int(d["seat"]),
        rules=rules,
        phase=str(d["phase"]),
        turn=int(d["turn"]),
        hand_mask=mask_of(parse_cards(d["hand"])),
        card_counts=tuple(int(c) for c in d["card_counts"]),
        pile=tuple(_action_from(a, rules) for a in d["pile"]),
        passed=frozenset(d["passed"]),
        locked_out=frozenset(d["locked_out"]),
        straight_locked=bool(d["straight_locked"]),
        first_lead=(first["mode"], Card.parse(first["card"])) if first else None,
        stuck=frozenset(d.get("stuck", ())),
        finish_order=tuple(d["finish_order"]),
        history=tuple(_action_from(a, rules) for a in d["history"]),
        trades=tuple(
            TradeOffer(
                t["proposer"],
                t["partner"],
                mask_of(parse_cards(t["give"])),
                mask_of(parse_cards(t["take"])),
                t["accepted"],
            )
            for t in d.get("trades", ())
        ),
        leader=int(d["leader"]),
    )


def _legal_from(texts: Sequence[str], obs: Observation) -> list[Move]:
    give = obs.phase == "exchange"
    return [parse_move(t, obs.rules, give=give) for t in texts]


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
                raise ProtocolError(f"bot {self.name!r} answered the hello with {_shown(reply)}")
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
        reply = self._exchange(request, ident, budget.seconds or 0.0)
        if reply.get("type") != "move":
            raise ProtocolError(f"bot {self.name!r} answered a move request with {_shown(reply)}")
        if "index" in reply:
            i = reply["index"]
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(legal):
                raise ProtocolError(
                    f"bot {self.name!r} chose index {_shown(i)} of {len(legal)} legal moves"
                )
            return legal[i]
        text = reply.get("move")
        if not isinstance(text, str):
            raise ProtocolError(f"bot {self.name!r} sent no move in {_shown(reply)}")
        try:
            move = parse_move(text, obs.rules, give=obs.phase == "exchange")
        except ValueError as e:
            raise ProtocolError(
                f"bot {self.name!r} sent an unreadable move {quote(text)}: "
                f"{printable(str(e), limit=200)}"
            ) from None
        for m in legal:
            if m == move:
                return m
        raise ProtocolError(f"bot {self.name!r} chose {quote(text)}, which is not a legal move now")

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


def _shown(value: Any) -> str:
    """A reply (or part of one) quoted for an error message."""
    return quote(json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value)


def _decode(line: bytes, name: str) -> dict[str, Any]:
    """One line from a bot as a JSON object (:class:`ProtocolError` if it is not one)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError(
            f"bot {name!r} sent a line that is not UTF-8: {line[:QUOTE_LIMIT]!r}"
        ) from None
    try:
        message = json.loads(text)
    except RecursionError:
        raise ProtocolError(f"bot {name!r} sent JSON nested too deeply") from None
    except ValueError:
        raise ProtocolError(
            f"bot {name!r} sent a line that is not JSON: {quote(text.strip())}"
        ) from None
    if not isinstance(message, dict):
        raise ProtocolError(f"bot {name!r} sent {quote(text.strip())}, not a JSON object")
    return message


# --- the bot side ---------------------------------------------------------------------------
#: The longest request line :func:`serve` reads (an observation with a long history is
#: tens of kilobytes).
MAX_REQUEST_CHARS = 4 * 1024 * 1024


def serve(player: Player, *, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Run ``player`` as a protocol bot on ``stdin``/``stdout`` until ``quit`` or end of
    input. Returns an exit status. A line it cannot use (not JSON, not a request, a request
    with missing or wrong fields, longer than :data:`MAX_REQUEST_CHARS`) is answered with
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
        line = inp.readline(MAX_REQUEST_CHARS + 1)
        if not line:
            return 0
        if len(line) > MAX_REQUEST_CHARS:
            while line and not line.endswith("\n"):  # skip the rest of it
                line = inp.readline(MAX_REQUEST_CHARS)
            send(_error(None, f"a line longer than {MAX_REQUEST_CHARS} characters"))
            continue
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except RecursionError:
            send(_error(None, "JSON nested too deeply"))
            continue
        except ValueError:
            send(_error(None, f"not JSON: {quote(line.strip())}"))
            continue
        if not isinstance(message, dict):
            send(_error(None, f"not a JSON object: {quote(line.strip())}"))
            continue
        kind = message.get("type")
        if kind == "quit":
            return 0
        if kind == "hello":
            send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": player.name})
        elif kind == "move":
            ident = message.get("id")
            try:
                send(_answer(player, message))
            except Exception as e:  # a bad request (or a failing player) must not end the bot
                why = printable(str(e), limit=200) or type(e).__name__
                send(_error(ident if _is_int(ident) else None, why))
        else:
            send(_error(None, f"unknown message type {quote(str(kind))}"))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _error(ident: int | None, message: str) -> dict[str, Any]:
    return {"type": "error", "id": ident, "message": message}


def _answer(player: Player, message: dict[str, Any]) -> dict[str, Any]:
    """The answer to one move request (``ValueError`` when the request is not usable)."""
    ident = message.get("id")
    if ident is not None and not _is_int(ident):
        raise ProtocolError(f"id must be a whole number, not {_shown(ident)}")
    obs_data = message.get("observation")
    if not isinstance(obs_data, dict):
        raise ProtocolError("the request has no observation object")
    texts = message.get("legal")
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise ProtocolError("legal must be a non-empty list of moves in card notation")
    ms = message.get("budget_ms")
    if ms is not None and (
        isinstance(ms, bool) or not isinstance(ms, int | float) or not 0 <= ms < math.inf
    ):
        raise ProtocolError(f"budget_ms must be a number of milliseconds, not {_shown(ms)}")
    iterations = message.get("budget_iterations")
    if iterations is not None and (not _is_int(iterations) or iterations < 1):
        raise ProtocolError(
            f"budget_iterations must be a whole number above 0, not {_shown(iterations)}"
        )
    try:
        obs = observation_from_json(obs_data)
        legal = _legal_from(texts, obs)
    except (KeyError, TypeError, AttributeError) as e:
        raise ProtocolError(f"the observation is not readable ({type(e).__name__}: {e})") from None
    counts = [b.bit_count() for b in obs.hand_mask.to_bytes(13, "little")]
    if obs.rules.combinations_in(counts) > MAX_COMBINATIONS:
        raise ProtocolError("the hand in the observation forms too many combinations")
    budget = Budget(seconds=ms / 1000 if ms is not None else None, iterations=iterations)
    move = player.choose(obs, legal, budget)
    return {"type": "move", "id": ident, "move": format_move(move, ascii=True)}
