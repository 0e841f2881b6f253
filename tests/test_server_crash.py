"""Nothing lost: a real ``tienlen serve`` process is killed with SIGKILL in the middle of
several games and started again; the clients reconnect, catch up and finish, and the stored
records equal the same games played without the crash (replayed offline from the revealed
seeds with the same players)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from ports import free_port
from serverkit import HANG, Socket, play_out, seated_table
from tienlen import Game, GameRecord
from tienlen.observation import observe
from tienlen.players.base import Budget, choose_safely
from tienlen.players.registry import make_bot


class Process:
    """``tienlen serve`` in a child process."""

    def __init__(self, data: Path, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        args = ["serve", "--data", str(data), "--port", str(port), "--grace", "1000"]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tienlen.apps.cli", *args, "--bot-pool", "thread"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + HANG
        while True:
            assert self.proc.poll() is None, self.proc.stderr.read().decode()  # type: ignore[union-attr]
            try:
                if httpx.get(f"{self.base}/api/health").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not come up"
            time.sleep(0.05)

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(HANG)


def offline(record: GameRecord, humans: set[int]) -> GameRecord:
    """The same game without a server: humans play their first legal move, bots their
    choice (``greedy`` is deterministic)."""
    game = Game(record.rules, seed=record.seed)
    bot = make_bot("greedy")
    while not game.is_over:
        legal = game.legal_moves()
        if game.turn in humans:
            move = legal[0]
        else:
            move, _ = choose_safely(bot, observe(game, game.turn), legal, Budget())
        game.play(move)
    return GameRecord.from_game(game, seed=record.seed, names=record.names)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_killed_server_comes_back_with_every_table(tmp_path: Path) -> None:
    port = free_port()
    server = Process(tmp_path, port)
    tables = []
    for t in range(3):
        clients, sockets, table = seated_table(server, [f"P{t}a", f"P{t}b"], bots="greedy", games=1)
        sockets[0].send(type="start")
        tables.append((clients, sockets, table))
    for t, (_clients, sockets, _table) in enumerate(tables):
        play_out(dict(enumerate(sockets)), actions=3 + t)
    server.kill()
    server = Process(tmp_path, port)
    try:
        for clients, sockets, table in tables:
            again: dict[int, Socket] = {}
            for i, (c, old) in enumerate(zip(clients, sockets, strict=True)):
                again[i] = c.socket(table, since=old.version)
                again[i].version, again[i].view = old.version, old.view
            play_out(again)
            end = next(
                m["event"] for m in again[0].frames if m.get("event", {}).get("kind") == "game_over"
            )
            stored = GameRecord.from_dict(clients[0].http.get(f"/api/games/{end['record']}").json())
            assert stored.to_dict() == offline(stored, {0, 1}).to_dict()
    finally:
        server.stop()
