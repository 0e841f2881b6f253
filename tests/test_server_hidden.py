"""Hidden information over whole games: four human clients and a spectator; every frame
each one receives is parsed, and none may name a card that another seat holds at that
moment (checked against the true hands, replayed from the stored record)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serverkit import (
    Client,
    LiveServer,
    Socket,
    database,
    play_out,
    seated_table,
    server_settings,
)
from tienlen import GameRecord
from tienlen.record import replay

CARD = re.compile(r"^(10|[2-9JQKA])[shdc]'?$")


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    with database("sqlite", tmp_path) as url:
        server = LiveServer(server_settings(url, tmp_path))
        yield server
        server.close()


def cards_in(value: Any) -> set[str]:
    """Every string in a parsed frame that is a card identifier."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value))
    return set()


def hidden_after(record: GameRecord) -> list[list[set[str]]]:
    """Each seat's hand (as identifiers) before the first action and after each one."""
    game = record.new_game()
    out = [[{c.ascii() for c in h} for h in game.hands]]
    for step in replay(record):
        out.append([{c.ascii() for c in h} for h in step.game.hands])
    return out


def check(sock: Socket, seat: int | None, hands: dict[int, list[list[set[str]]]]) -> int:
    """Walk one client's frames in order; returns how many in-game frames were checked."""
    game, actions, over, checked = 0, 0, True, 0
    for raw in sock.raw:
        msg = json.loads(raw)
        event = msg.get("event", {})
        if event.get("kind") == "deal":
            game, actions, over = event["game"], 0, False
        elif event.get("kind") in ("play", "pass", "give", "offer", "accept", "refuse"):
            actions += 1
        elif event.get("kind") == "game_over":
            over = True  # the hands are public once the game is over
        if over or not game:
            continue
        others = set().union(*(h for s, h in enumerate(hands[game][actions]) if s != seat))
        leaked = cards_in(msg) & others
        assert not leaked, f"seat {seat} saw {sorted(leaked)} in {raw[:300]}"
        checked += 1
    return checked


@pytest.mark.slow  # seconds each (waits, whole games): left out of make test-fast
@pytest.mark.parametrize("preset", ["standard", "lu"])
def test_no_frame_names_a_card_in_another_seats_hand(live: LiveServer, preset: str) -> None:
    clients, sockets, table = seated_table(
        live, ["An", "Binh", "Chi", "Dung"], preset=preset, games=3
    )
    watcher = Client(live.base, "Watcher").socket(table)
    sockets[0].send(type="start")
    play_out(dict(enumerate(sockets)))
    watcher.until(lambda m: m.get("event", {}).get("kind") == "match_over")
    ends = [m["event"] for m in watcher.frames if m.get("event", {}).get("kind") == "game_over"]
    assert [e["game"] for e in ends] == [1, 2, 3]
    hands = {
        e["game"]: hidden_after(
            GameRecord.from_dict(clients[0].http.get(f"/api/games/{e['record']}").json())
        )
        for e in ends
    }
    for seat, s in [*enumerate(sockets), (None, watcher)]:
        assert check(s, seat, hands) > 50
