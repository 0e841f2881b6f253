"""Whole matches through the protocol: four human clients, bots in empty seats, records,
ratings, the fair-deal commitment, rematch."""

from __future__ import annotations

import hashlib

import pytest

from serverkit import (
    Client,
    LiveServer,
    play_out,
    seated_table,
)
from tienlen import Game, GameRecord, Rules, parse_cards
from tienlen.apps.server.deals import ServerMatch
from tienlen.cards import mask_of
from tienlen.deal import instant_win_of
from tienlen.players.levels import LEVELS


@pytest.mark.slow  # a whole match through the server; the others here play parts of one
def test_a_whole_four_player_match(live: LiveServer) -> None:
    clients, sockets, _table = seated_table(live, ["An", "Binh", "Chi", "Dung"], games=2)
    sockets[0].send(type="start")
    play_out(dict(enumerate(sockets)))
    over = [m for m in sockets[0].frames if m.get("event", {}).get("kind") == "game_over"]
    assert [m["event"]["game"] for m in over] == [1, 2]
    deals = [m for m in sockets[0].frames if m.get("event", {}).get("kind") == "deal"]
    for deal, end in zip(deals, over, strict=True):
        # Fair dealing: the seed revealed after the game hashes to the commitment.
        seed = end["event"]["seed"]
        assert hashlib.sha256(seed.encode()).hexdigest() == deal["event"]["commitment"]
        record = clients[0].http.get(f"/api/games/{end['event']['record']}").json()
        assert record["seed"] == seed
        assert GameRecord.from_dict(record).game().finish_order == tuple(
            end["event"]["finish_order"]
        )
    # The first game is dealt from its seed: anyone can check the deal.
    first = clients[0].http.get(f"/api/games/{over[0]['event']['record']}").json()
    assert [h.split() for h in first["hands"]] == [
        [c.ascii() for c in h] for h in Game("standard", seed=first["seed"]).dealt
    ]
    text = clients[0].http.get(f"/api/games/{over[0]['event']['record']}?format=text").text
    assert text.startswith('[Format "tienlen-game"]')
    # Scores carried over the match; the match's end is announced with them.
    final = sockets[0].frames[-1]["event"]
    assert final["kind"] == "match_over"
    assert final["scores"] == [
        a + b for a, b in zip(over[0]["event"]["deltas"], over[1]["event"]["deltas"], strict=True)
    ]
    # History and ratings: four humans, two rated games each.
    games = clients[2].http.get(f"/api/players/{clients[2].id}/games").json()
    assert sorted(g["number"] for g in games) == [1, 2]
    board = clients[0].http.get("/api/leaderboard?rules=standard").json()
    assert sorted(e["player"] for e in board) == sorted(c.id for c in clients)
    assert all(e["games"] == 2 for e in board)
    assert board == sorted(board, key=lambda e: -e["ordinal"])


@pytest.mark.slow  # two whole games with bots
def test_bots_fill_empty_seats_and_the_host_can_rematch(live: LiveServer) -> None:
    host = Client(live.base, "Host")
    table = host.create(bots="random", games=1)["table"]["id"]
    s = host.socket(table)
    s.until(lambda m: m["type"] == "state")
    s.send(type="sit", seat=2)
    s.batch()
    s.send(type="start")
    play_out({2: s})
    assert s.table is not None and s.table["status"] == "finished"
    assert [seat.get("bot") for seat in s.table["seats"]] == ["random", "random", None, "random"]
    s.send(type="rematch")
    play_out({2: s})
    assert s.table["match"] == 2
    # One human: games are stored but nobody is rated.
    assert host.http.get("/api/leaderboard?rules=standard").json() == []
    assert len(host.http.get(f"/api/players/{host.id}/games").json()) == 2


def test_the_lobby_offers_the_levels_and_a_table_plays_every_one(live: LiveServer) -> None:
    host = Client(live.base, "Host")
    offered = host.http.get("/api/levels").json()
    assert [level["name"] for level in offered] == list(LEVELS)
    assert [level["label"]["vi"] for level in offered] == [x.label["vi"] for x in LEVELS.values()]
    bots = ["expert", "easy", "medium", "beginner"]
    made = host.create(bots=bots, games=1)["table"]
    assert [seat["name"] for seat in made["seats"]] == [
        "Bot 1 (expert)",
        "Bot 2 (easy)",
        "Bot 3 (medium)",
        "Bot 4 (beginner)",
    ]
    s = host.socket(made["id"])
    s.until(lambda m: m["type"] == "state")
    s.send(type="sit", seat=2)
    s.batch()
    s.send(type="start")
    play_out({2: s})
    assert s.table is not None and s.table["status"] == "finished"
    assert [seat.get("bot") for seat in s.table["seats"]] == ["expert", "easy", None, "beginner"]
    refused = host.http.post("/api/tables", json={"bots": "grandmaster"})
    assert refused.status_code == 400
    assert "beginner, easy, medium, expert" in refused.json()["message"]


INSTANT_WINS = ["four-twos", "six-pairs", "three-triples", "dragon"]


def instant_win_secret(rules: Rules) -> tuple[str, tuple[int, str]]:
    """A table secret whose first deal gives some seat an instant win (found by search: the
    server deals from the secret, so the test picks the secret, never the cards)."""
    for i in range(5000):
        secret = f"instant-{i}"
        game = ServerMatch(rules, games=1, target=None, secret=secret, match=1).game
        if game.instant_win is not None:
            return secret, game.instant_win
    raise AssertionError("no instant win in 5000 deals")


def test_an_instant_win_is_shown_and_scored(live: LiveServer) -> None:
    # RULES.md, "Instant wins (tới trắng), checked after the deal, before any play": "Four 2s
    # (... option in `standard`), six pairs, three triples, dragon 3..A".
    clients, sockets, table = seated_table(
        live, ["An", "Binh", "Chi", "Dung"], options={"instant_wins": INSTANT_WINS}
    )
    assert live.server is not None
    live_table = live.server.tables[table]
    secret, (winner, hand) = instant_win_secret(live_table.rules)
    live_table.secret = secret  # before the start: the deal comes from it
    sockets[0].send(type="start")
    for s in sockets:
        s.until(lambda m: m.get("event", {}).get("kind") == "match_over")
    kinds = [m["event"]["kind"] for m in sockets[1].frames if m["type"] == "event"]
    assert kinds[-4:] == ["start", "deal", "game_over", "match_over"]  # no play in between
    over = next(m for m in sockets[1].frames if m.get("event", {}).get("kind") == "game_over")
    event = over["event"]
    assert event["instant_win"] == hand
    assert event["finish_order"][0] == winner
    assert sum(event["deltas"]) == 0 and event["deltas"][winner] > 0
    assert event["scores"] == event["deltas"]
    # Every seat's view shows the game over with every hand, the winner's holding the win.
    view = sockets[1].view
    assert view is not None and view["phase"] == "over" and view["hands"] is not None
    mask = mask_of(parse_cards(" ".join(view["hands"][winner])))
    assert instant_win_of(mask, (hand,)) == hand
    # The record keeps it; the table's scores are the game's.
    record = GameRecord.from_dict(clients[0].http.get(f"/api/games/{event['record']}").json())
    assert record.game().instant_win == (winner, hand)
    assert sockets[1].table is not None and sockets[1].table["scores"] == event["scores"]
