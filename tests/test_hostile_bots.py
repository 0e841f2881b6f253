"""Hostile protocol bots: each one a few lines of Python that misbehaves in one way. The
arena (run as the command, in a subprocess with a time limit) must finish, print its
tables, write its JSON with the problems listed, and leave no bot process behind.
``tienlen bot`` must answer every bad line with an error and go on."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tienlen import Game
from tienlen.cards import deck
from tienlen.combos import format_move
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.protocol import (
    ProtocolError,
    ProtocolPlayer,
    observation_to_json,
)

# Every bot starts like this: it notes its pid (and its children's) in PIDS, then greets.
PRELUDE = """
import json, os, sys, time
PIDS = sys.argv[1]
def note(pid):
    with open(PIDS, "a") as f:
        f.write(f"{pid}\\n")
note(os.getpid())
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()
def hello(name="hostile"):
    sys.stdin.readline()
    send({"type": "hello", "protocol": 1, "name": name})
def requests():
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "quit":
            return
        yield m
def lowest(m):
    return {"type": "move", "id": m["id"], "index": len(m["legal"]) - 1}
"""

BOTS = {
    # exits after its first move request
    "dies": """
hello()
for m in requests():
    sys.exit(3)
""",
    # answers every request without reading them: the host's writes fill the pipe
    "deaf": """
hello()
while True:
    send({"type": "move", "index": 0})
    time.sleep(0.02)
""",
    # floods answers to an old request, never the one asked
    "stale-flood": """
hello()
next(requests())
line = json.dumps({"type": "move", "id": -5, "index": 0}) + "\\n"
while True:
    sys.stdout.write(line * 1000)
""",
    # plays well, but leaves a child holding its stdout when it quits
    "child-keeps-stdout": """
import subprocess
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
note(child.pid)
hello()
for m in requests():
    send(lowest(m))
""",
    # one answer that is not UTF-8, then good answers
    "not-utf8": """
hello()
first = True
for m in requests():
    if first:
        sys.stdout.buffer.write(b"\\xff\\xfe{\\n")
        sys.stdout.flush()
        first = False
    else:
        send(lowest(m))
""",
    # a hello nested 30,000 deep (under the line limit)
    "deep-hello": """
sys.stdin.readline()
sys.stdout.write('{"type": "hello", "name": "deep", "x": ' + "[" * 30000 + "]" * 30000 + "}\\n")
sys.stdout.flush()
for m in requests():
    pass
""",
    # a name full of rich markup and terminal escapes
    "markup-name": """
hello("[bold red]pwn[/] [/nope] \\x1b]0;owned\\x07\\x1b[2J")
for m in requests():
    send({"type": "move", "id": m["id"], "move": "[/] \\x1b[31m"})
""",
    # never greets (and is started once per worker)
    "no-hello": """
time.sleep(600)
""",
    # a 10 MB line
    "huge-line": """
hello()
for m in requests():
    sys.stdout.write("x" * 10_000_000 + "\\n")
    sys.stdout.flush()
""",
    # garbage of every kind, then good answers
    "garbage": """
hello()
junk = iter(["null", "[1, 2]", "42", '"pass"', '{"type": "move", "index": true}',
             '{"type": "move", "move": 7}', '{"type": "move", "index": 999}',
             '{"type": "error"}', "{" * 5])
for m in requests():
    bad = next(junk, None)
    if bad is None:
        send(lowest(m))
    else:
        sys.stdout.write(bad + "\\n")
        sys.stdout.flush()
""",
    # never answers (and never reads again)
    "silent": """
hello()
time.sleep(600)
""",
}


def write_bot(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.py"
    path.write_text(PRELUDE + textwrap.dedent(BOTS[kind]))
    return path


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running (not zombie) process."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def arena(tmp_path: Path, *seats: str, jobs: int = 1, games: int = 4) -> tuple[str, dict[str, Any]]:
    """Run ``tienlen arena`` (bounded in time); return its output and its JSON."""
    out = tmp_path / "out.json"
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "tienlen.apps.cli", "arena", "--bots", ",".join(seats)),
            *("--games", str(games), "--seed", "5", "--jobs", str(jobs), "--quiet"),
            *("--bot-timeout", "2", "--json", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, json.loads(out.read_text())


def no_process_left(pids: Path) -> None:
    started = [int(line) for line in pids.read_text().split()]
    assert started
    assert [pid for pid in started if alive(pid)] == []


@pytest.mark.parametrize(
    ("kind", "problem"),
    [
        ("dies", "exited (exit code 3)"),
        ("deaf", "did not read move request"),
        ("stale-flood", "sent only late answers for move request 1"),
        ("not-utf8", "sent a bad line: message: not UTF-8 text (byte 0: b'\\xff')"),
        ("deep-hello", "did not start: bot 'deep-hello.py' sent a bad line: message: JSON nested"),
        ("huge-line", "sent a line longer than 65536 bytes"),
        ("garbage", "sent a bad line: message: must be a JSON object, not None"),
        ("silent", "sent nothing for move request 1 in 2.0s"),
    ],
)
@pytest.mark.slow  # seconds each (waits, whole games): left out of make test-fast
def test_the_arena_finishes_writes_its_results_and_reaps_the_bot(
    tmp_path: Path, kind: str, problem: str
) -> None:
    bot = write_bot(tmp_path, kind)
    pids = tmp_path / "pids"
    text, data = arena(tmp_path, f"cmd:{sys.executable} {bot} {pids}", "greedy", "greedy", "greedy")
    assert "mean position" in text and "fallback move(s) played" in text
    assert data["games"] == 4 and len(data["entries"]) == 4
    assert data["problems"] == len(data["problem_lines"]) > 0
    assert problem in data["problem_lines"][0]
    no_process_left(pids)


def test_a_bad_answer_costs_one_move_not_the_game(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "garbage")
    pids = tmp_path / "pids"
    _, data = arena(tmp_path, f"cmd:{sys.executable} {bot} {pids}", "greedy", "greedy", "greedy")
    lines = data["problem_lines"]
    assert len(lines) == 9  # one per piece of junk; later answers are good
    assert "reply.index: must be an integer from 0 to 1, not True" in lines[4]
    assert "reply.move: must be a string" in lines[5]
    assert "reply.index: must be an integer from 0 to" in lines[6]
    assert "message.type: must be one of hello, move, quit, not 'error'" in lines[7]


def test_a_child_holding_stdout_does_not_block_the_end(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "child-keeps-stdout")
    pids = tmp_path / "pids"
    cmd = f"cmd:{sys.executable} {bot} {pids}"
    # two workers, each with its own bot: both are ended when their worker ends
    _, data = arena(tmp_path, cmd, "greedy", "greedy", "greedy", jobs=2, games=8)
    assert data["problems"] == 0 and data["games"] == 8
    started = pids.read_text().split()
    assert len(started) in (2, 4)  # a bot and its child per worker that got a deal
    no_process_left(pids)


def test_markup_and_escapes_in_what_a_bot_says_are_shown_escaped(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "markup-name")
    pids = tmp_path / "pids"
    text, data = arena(
        tmp_path, f"cmd:{sys.executable} {bot} {pids} [red]x[/]", "greedy", "greedy", "greedy"
    )
    assert "\x1b" not in text and "\x07" not in text
    assert "[/nope]" in text  # shown as text, not read as markup
    assert "\\x1b]0;owned\\x07" in text
    assert data["problems"] > 0
    no_process_left(pids)


@pytest.mark.slow  # seconds each (waits, whole games): left out of make test-fast
def test_bots_that_never_greet_are_reaped_in_every_worker(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "no-hello")
    pids = tmp_path / "pids"
    cmd = f"cmd:{sys.executable} {bot} {pids}"
    _, data = arena(tmp_path, cmd, "greedy", cmd, "greedy", jobs=2, games=16)
    assert data["games"] == 16
    assert (
        "did not start: bot 'no-hello.py' sent nothing for the hello in 2.0s"
        in (data["problem_lines"][0])
    )
    assert len(pids.read_text().split()) >= 2
    no_process_left(pids)


def test_two_seats_with_the_same_command_get_two_processes(tmp_path: Path) -> None:
    bot = tmp_path / "seats.py"
    bot.write_text(
        PRELUDE
        + textwrap.dedent("""
        hello()
        for m in requests():
            with open(PIDS + f".{os.getpid()}", "a") as f:
                f.write(f"{m['observation']['seat']}\\n")
            send(lowest(m))
        """)
    )
    pids = tmp_path / "pids"
    cmd = f"cmd:{sys.executable} {bot} {pids}"
    _, data = arena(tmp_path, cmd, cmd, "greedy", "greedy")
    assert data["problems"] == 0
    started = pids.read_text().split()
    assert len(set(started)) == 2
    # entry e sits at seat (e + rotation) % 4: one seat per game and process, never two
    for pid in started:
        seats = Path(f"{pids}.{pid}").read_text().split()
        assert len(seats) > 4
    no_process_left(pids)


def test_a_stopped_bot_fails_at_once_with_the_reason(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, "dies")
    pids = tmp_path / "pids"
    game = Game("standard", seed=3)
    obs = observe(game, game.turn)
    with ProtocolPlayer([sys.executable, str(bot), str(pids)], timeout=5) as player:
        for _ in range(2):
            with pytest.raises(ProtocolError, match=r"exited \(exit code 3\)"):
                player.choose(obs, game.legal_moves(), Budget())
    no_process_left(pids)


# --- tienlen bot ------------------------------------------------------------------------------
def test_the_bot_command_answers_every_bad_line_and_goes_on() -> None:
    game = Game("standard", seed=6)
    obs = observation_to_json(observe(game, game.turn))
    legal = [format_move(m, ascii=True) for m in game.legal_moves()]
    good = {"type": "move", "id": 9, "observation": obs, "legal": legal}
    # 52 cards in the seat's hand: three million straights
    hands = obs["position"].split(" ")[0].split("/")
    hands[game.turn] = "".join(c.ascii() for c in deck(1))
    huge_hand = " ".join(["/".join(hands), *obs["position"].split(" ")[1:]])
    bad_lines: list[bytes] = [
        b"[1, 2]",
        b"null",
        b"12",
        b'"move"',
        b"not json at all",
        b"\xff\xfe not utf-8",
        b"[" * 100_000,
        b'{"type": "dance"}',
        json.dumps({"type": "move", "id": 1, "legal": legal}).encode(),
        json.dumps({"type": "move", "id": 2, "observation": obs}).encode(),
        json.dumps({**good, "id": 3, "budget_ms": "fast"}).encode(),
        json.dumps({**good, "id": 4, "legal": []}).encode(),
        json.dumps({**good, "id": 5, "observation": {"seat": 0}}).encode(),
        json.dumps({**good, "id": 6, "legal": ["9z"]}).encode(),
        json.dumps({**good, "id": 7, "budget_iterations": 0}).encode(),
        json.dumps({**good, "id": 8, "observation": {**obs, "position": huge_hand}}).encode(),
    ]
    stdin = b"\n".join([b'{"type": "hello", "protocol": 1}', *bad_lines, json.dumps(good).encode()])
    proc = subprocess.run(
        [sys.executable, "-m", "tienlen.apps.cli", "bot", "greedy"],
        input=stdin + b"\n",
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    replies = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert replies[0]["type"] == "hello"
    errors = replies[1:-1]
    assert [r["type"] for r in errors] == ["error"] * len(bad_lines)
    assert [r["id"] for r in errors[8:]] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert errors[-1]["message"] == "the hand in the observation forms too many combinations"
    assert all(r["message"] for r in errors)
    assert replies[-1]["type"] == "move" and replies[-1]["id"] == 9
    assert replies[-1]["move"] in legal
