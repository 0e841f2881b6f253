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
from tienlen.observation import Observation
from tienlen.players.base import Budget, Player
from tienlen.rules import Rules

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
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": player.name})
        elif kind == "move":
            obs = observation_from_json(message["observation"])
            legal = _legal_from(message["legal"], obs)
            ms = message.get("budget_ms")
            budget = Budget(
                seconds=ms / 1000 if ms is not None else None,
                iterations=message.get("budget_iterations"),
            )
            move = player.choose(obs, legal, budget)
            send({"type": "move", "id": message.get("id"), "move": format_move(move, ascii=True)})
        elif kind == "quit":
            return 0
    return 0
