"""Table sockets: reconnect and catch-up by version, resync past a gap, spectators, bot
take-over after the grace period and the player's return, the turn timer, both trading
phases and a pike second game, all through the protocol."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from serverkit import (
    HANG,
    Client,
    LiveServer,
    Socket,
    database,
    first_legal,
    play_out,
    seated_table,
    server_settings,
)
from tienlen import Rules, parse_cards
from tienlen.cards import cards_of_mask, deck_mask, mask_of
from tienlen.players.bots.heuristic import accepts_trade, rank_swaps

Make = Callable[..., LiveServer]


@pytest.fixture
def make(backend: str, tmp_path: Path) -> Iterator[Make]:
    servers: list[LiveServer] = []
    with database(backend, tmp_path) as url:

        def make(**settings: Any) -> LiveServer:
            servers.append(LiveServer(server_settings(url, tmp_path, **settings)))
            return servers[-1]

        yield make
        for s in servers:
            s.close()


def view_of(s: Socket) -> dict[str, Any]:
    """The game view ``s`` last received (there is one once the game started)."""
    assert s.view is not None
    return s.view


def start(sockets: list[Socket]) -> None:
    sockets[0].send(type="start")
    for s in sockets:
        s.until_view()


def step(sockets: dict[int, Socket]) -> int:
    """The seat to act plays its first legal move; every socket reads the batch."""
    any_view = next(iter(sockets.values())).view
    assert any_view is not None
    turn: int = any_view["turn"]
    actor = sockets[turn]
    kind, fields = first_legal(actor.view or {})
    actor.act(kind, **fields)
    for s in sockets.values():
        s.batch()
    return turn


def test_reconnect_catches_up_by_version_and_resyncs_past_a_gap(make: Make) -> None:
    live = make(grace=1000.0, catch_up=5)
    clients, sockets, table = seated_table(live, ["An", "Binh", "Chi", "Dung"])
    start(sockets)
    seats = dict(enumerate(sockets))
    away = step(seats)  # the first actor leaves right after its move
    seats[away].close()
    last_seen = seats[away].version
    del seats[away]
    watcher = next(iter(seats.values()))
    while watcher.view is not None and watcher.view["turn"] != away:
        step(seats)
    missed = [m for m in watcher.frames if m["type"] == "event" and m["version"] > last_seen]
    assert missed  # others moved while it was gone
    back = clients[away].socket(table, since=last_seen)
    got = [back.recv() for _ in missed]
    assert [m["version"] for m in got] == [m["version"] for m in missed]
    assert [m["event"] for m in got] == [m["event"] for m in missed]
    assert [m["more"] for m in got] == [True] * (len(got) - 1) + [False]
    assert got[-1]["view"]["turn"] == away and got[-1]["view"]["legal"]
    # Back within the grace: everyone is told (it was shown offline when it left).
    assert back.recv()["event"] == {"kind": "online", "seat": away}
    assert any(m.get("event", {}).get("kind") == "offline" for m in missed)
    # Past the catch-up window (five events here) the client gets a full state instead.
    gap = clients[away].socket(table, since=0)
    state = gap.recv()
    assert state["type"] == "state" and state["version"] == back.version
    assert state["view"]["hand"] == got[-1]["view"]["hand"]
    # A version from the future is a gap too.
    future = clients[away].socket(table, since=watcher.version + 7)
    assert future.recv()["type"] == "state"


def test_spectators_see_public_information_and_the_hands_at_the_end(make: Make) -> None:
    live = make()
    host = Client(live.base, "Host")
    table = host.create(bots="greedy")["table"]["id"]
    hs = host.socket(table)
    hs.until(lambda m: m["type"] == "state")
    hs.send(type="sit", seat=0)
    hs.batch()
    watcher = Client(live.base, "Watcher").socket(table)
    state = watcher.recv()
    assert state["type"] == "state" and state["table"]["spectators"] == 1
    hs.send(type="start")
    play_out({0: hs})
    frames: list[dict[str, Any]] = []
    while not frames or frames[-1].get("event", {}).get("kind") != "match_over":
        frames.append(watcher.recv())
    views = [m["view"] for m in frames if m.get("view")]
    assert views and all(v.get("seat") is None and "hand" not in v for v in views)
    assert all("legal" not in v for v in views)
    assert all("hands" not in v for v in views if v["phase"] != "over")
    end = views[-1]
    assert end["phase"] == "over" and len(end["hands"]) == 4
    watcher.send(type="sit", seat=1)
    assert watcher.error()["code"] == "not_waiting"


def test_a_bot_takes_over_after_the_grace_period_until_the_player_returns(make: Make) -> None:
    live = make(grace=0.0)
    clients, sockets, table = seated_table(live, ["An", "Binh"], bots="greedy")
    start(sockets)
    sockets[1].close()
    away = sockets[0].until(lambda m: m.get("event", {}).get("kind") == "away")
    assert away["event"]["seat"] == 1
    assert away["table"]["seats"][1]["away"] and away["table"]["seats"][1]["bot"] == "greedy"
    # The bot plays seat 1 while its player is away.
    s0 = sockets[0]
    while True:
        v = s0.view
        if v is not None and v.get("legal") is not None and v["turn"] == 0:
            kind, fields = first_legal(v)
            s0.act(kind, **fields)
        m = s0.until(lambda m: m["type"] == "event" and not m["more"])
        if m["event"].get("seat") == 1 and m["event"]["kind"] in ("play", "pass"):
            break
    back = clients[1].socket(table)
    state = back.recv()
    assert state["type"] == "state" and state["view"]["seat"] == 1
    returned = back.until(lambda m: m.get("event", {}).get("kind") == "back")
    assert returned["event"]["seat"] == 1 and not returned["table"]["seats"][1]["away"]


def test_the_turn_timer_makes_the_automatic_move(make: Make) -> None:
    live = make(grace=1000.0)
    host = Client(live.base, "Slow")
    table = host.create(bots="greedy", turn_timer=1)["table"]["id"]
    s = host.socket(table)
    s.until(lambda m: m["type"] == "state")
    s.send(type="sit", seat=0)
    s.batch()
    s.send(type="start")
    timeout = s.until(lambda m: m.get("event", {}).get("kind") == "timeout")
    assert timeout["event"]["seat"] == 0 and timeout["more"]
    auto = s.recv()
    assert auto["event"]["seat"] == 0 and auto["event"]["kind"] in ("play", "pass")


def test_mutual_trading_offers_accepted_and_refused(make: Make) -> None:
    live = make()
    _clients, sockets, _table = seated_table(
        live, ["An", "Binh", "Chi", "Dung"], preset="vietcong", options={"trading": "mutual"}
    )
    start(sockets)
    view = sockets[0].view
    assert view is not None and view["phase"] == "trading"
    first = view["turn"]
    partner = (first + 1) % 4
    hands = {i: view_of(s)["hand"] for i, s in enumerate(sockets)}
    give, take = hands[first][0], hands[partner][-1]
    sockets[first].act("offer", partner=partner, give=[give], take=[take])
    for s in sockets:
        s.batch()
    offers = {i: s.frames[-1]["event"] for i, s in enumerate(sockets)}
    assert offers[partner]["cards"] == [give] and offers[partner]["take"] == [take]
    for i in set(range(4)) - {first, partner}:
        assert "cards" not in offers[i] and "take" not in offers[i]
        assert all("give" not in t for t in view_of(sockets[i])["trades"])
    sockets[partner].act("accept")
    for s in sockets:
        s.batch()
    assert take in view_of(sockets[first])["hand"] and give in view_of(sockets[partner])["hand"]
    # The next seat offers and is refused; everyone else declines; play begins.
    second = view_of(sockets[0])["turn"]
    other = (second + 2) % 4
    mine, theirs = view_of(sockets[second])["hand"][0], view_of(sockets[other])["hand"][0]
    sockets[second].act("offer", partner=other, give=[mine], take=[theirs])
    for s in sockets:
        s.batch()
    sockets[other].act("refuse")
    for s in sockets:
        s.batch()
    assert mine in view_of(sockets[second])["hand"]
    play_out(dict(enumerate(sockets)))
    end = next(m for m in sockets[0].frames if m.get("event", {}).get("kind") == "game_over")
    record = _clients[0].http.get(f"/api/games/{end['event']['record']}").json()
    trading = [a for a in record["actions"] if "offer" in a or "answer" in a]
    assert trading == [
        {"seat": first, "offer": {"to": partner, "give": give, "take": take}},
        {"seat": partner, "answer": "accept"},
        {"seat": second, "offer": {"to": other, "give": mine, "take": theirs}},
        {"seat": other, "answer": "refuse"},
    ]


def test_a_bot_seat_accepts_a_trade_offer_its_rule_favours(make: Make) -> None:
    live = make()
    options = {"trading": "mutual", "players": 2, "hand_size": "all"}
    _clients, sockets, _table = seated_table(
        live, ["An"], preset="vietcong", options=options, bots="medium"
    )
    s = sockets[0]
    s.send(type="start")
    view = s.until(
        lambda m: m["type"] == "event" and not m["more"] and m.get("view", {}).get("turn") == 0
    )["view"]
    assert view["phase"] == "trading"
    # Every card is dealt: the bot holds the ones An does not; An offers the bot's best swap.
    rules = Rules.preset("vietcong", **options)
    mine = mask_of(parse_cards(" ".join(view["hand"])))
    theirs = deck_mask(1) & ~mine
    take, give = rank_swaps(rules, theirs, mine)[0]
    assert accepts_trade(rules, theirs, give, take)
    ids = [cards_of_mask(m)[0].ascii() for m in (give, take)]
    s.act("offer", partner=1, give=ids[:1], take=ids[1:])
    answer = s.until(lambda m: m.get("event", {}).get("kind") in ("accept", "refuse"))
    assert answer["event"]["kind"] == "accept" and answer["event"]["seat"] == 1
    # The rest of its batch, if any: with An to play next, nothing more comes (the deal
    # decides; waiting for a last event then hung for a minute).
    if answer["more"]:
        s.until(lambda m: m["type"] == "event" and not m["more"])
    assert ids[1] in view_of(s)["hand"] and ids[0] not in view_of(s)["hand"]


@pytest.mark.slow  # seconds each (waits, whole games): left out of make test-fast
def test_the_san_jose_exchange_and_a_pike_second_game(make: Make) -> None:
    live = make()
    _clients, sockets, _table = seated_table(
        live,
        ["An", "Binh", "Chi", "Dung"],
        preset="pang",
        options={"trading": "san-jose"},
        games=2,
    )
    start(sockets)
    play_out(dict(enumerate(sockets)), until_kind="game_over")
    finish = next(
        m["event"]["finish_order"]
        for m in sockets[0].frames
        if m.get("event", {}).get("kind") == "game_over"
    )
    receiver = {finish[0]: finish[-1], finish[1]: finish[-2]}
    assert sockets[0].view is not None and sockets[0].view["phase"] == "exchange"
    play_out(dict(enumerate(sockets)))
    gives = [[m for m in s.frames if m.get("event", {}).get("kind") == "give"] for s in sockets]
    assert len(gives[0]) == 2
    for i, seen in enumerate(gives):
        for m in seen:
            giver = m["event"]["seat"]
            assert m["event"]["partner"] == receiver[giver]  # every seat sees who receives
            shown = "cards" in m["event"]
            assert shown == (i in (giver, receiver[giver])), (i, m)
    # pike with two players: the second game is played with the first deal's spare hands.
    clients, pair, _t = seated_table(
        live, ["E", "F"], preset="pike", options={"players": 2}, games=2
    )
    start(pair)
    play_out(dict(enumerate(pair)))
    ends = [m["event"] for m in pair[0].frames if m.get("event", {}).get("kind") == "game_over"]
    records = [clients[0].http.get(f"/api/games/{e['record']}").json() for e in ends]
    assert records[0]["seed"] == records[1]["seed"]
    assert set(records[0]["hands"]).isdisjoint(records[1]["hands"])


@pytest.mark.slow  # a whole game, then a second server
def test_a_finished_table_is_there_after_a_restart(make: Make) -> None:
    first = make()
    host = Client(first.base, "Host")
    table = host.create(bots="random", games=1)["table"]["id"]
    s = host.socket(table)
    s.until(lambda m: m["type"] == "state")
    s.send(type="sit", seat=1)
    s.batch()
    s.send(type="start")
    play_out({1: s})
    before = host.http.get(f"/api/tables/{table}").json()
    assert before["status"] == "finished"
    first.close()
    again = make()
    host.http.base_url = httpx.URL(again.base)
    host.base = again.base
    after = host.http.get(f"/api/tables/{table}").json()
    assert after == before
    assert table not in {t["id"] for t in host.http.get("/api/tables").json()}  # not listed
    s = host.socket(table)
    state = s.until(lambda m: m["type"] == "state")
    assert state["table"]["status"] == "finished" and state["view"]["phase"] == "over"
    assert state["view"]["hands"] is not None
    s.send(type="rematch")  # the host can start the next match
    play_out({1: s})
    final = host.http.get(f"/api/tables/{table}").json()
    assert final["status"] == "finished" and final["match"] == 2


def test_a_dead_bot_worker_is_replaced(make: Make) -> None:
    live = make(bot_pool="process", bot_workers=1)
    assert live.server is not None
    broken = live.server.pool
    worker = broken.submit(os.getpid).result(timeout=HANG)
    os.kill(worker, signal.SIGKILL)  # as if the worker ran out of memory
    deadline = time.monotonic() + HANG
    while not getattr(broken, "_broken", False):  # the pool notices its worker died
        assert time.monotonic() < deadline, "the pool never noticed its dead worker"
        time.sleep(0.05)
    host = Client(live.base, "Host")
    table = host.create(bots="greedy", games=1)["table"]["id"]
    s = host.socket(table)
    s.until(lambda m: m["type"] == "state")
    s.send(type="sit", seat=0)
    s.batch()
    s.send(type="start")
    play_out({0: s})  # the bots' seats play on
    assert s.table is not None and s.table["status"] == "finished"
    assert live.server.pool is not broken and live.server.pool_restarts == 1


def test_hidden_counts_are_null_until_asked_and_the_answer_is_public(make: Make) -> None:
    # 004: "When requested, a player must reveal the number of cards in his or her hand."
    live = make()
    clients, sockets, table = seated_table(
        live, ["An", "Binh"], bots="greedy", rules="standard.hidden-counts"
    )
    watcher = clients[0].__class__(live.base, "Watcher").socket(table)
    watcher.until(lambda m: m["type"] == "state")
    start(sockets)
    watcher.until_view()
    views = [s.view for s in sockets]
    assert views[0] is not None and views[1] is not None
    assert [c is None for c in views[0]["card_counts"]] == [False, True, True, True]
    assert [c is None for c in views[1]["card_counts"]] == [True, False, True, True]
    assert watcher.view is not None and watcher.view["card_counts"] == [None] * 4
    # Seat 1 asks seat 2 (a bot), out of turn: every socket hears the answer.
    asker = sockets[1]
    asker.act("ask", partner=2)
    frames = [
        s.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "ask")
        for s in (*sockets, watcher)
    ]
    for frame in frames:
        event = frame["event"]
        assert (event["seat"], event["partner"]) == (1, 2)
        assert frame["view"]["card_counts"][2] == event["count"] == frames[0]["event"]["count"]
        assert 1 <= event["count"] <= 13
    assert frames[0]["view"]["card_counts"][1] is None  # only what was asked
    # Asking oneself is the engine's refusal, with its reason code.
    asker.act("ask", partner=1)
    error = asker.error()
    assert error["code"] == "illegal" and error["reason"]["code"] == "bad_ask"
    # The finished game's record keeps the ask, and its steps name it.
    play_out(dict(enumerate(sockets)))
    over = next(
        m["event"] for m in sockets[0].frames if m.get("event", {}).get("kind") == "game_over"
    )
    steps = clients[0].http.get(f"/api/games/{over['record']}/steps").json()["steps"]
    ask = next(s for s in steps if s["kind"] == "ask")
    assert (ask["seat"], ask["partner"], ask["words"]) == (1, 2, "S1 asks 2")
    assert len(ask["hands"][2]) == frames[0]["event"]["count"]
    # A table with counts shown has nothing to ask.
    _, shown, _ = seated_table(live, ["Chi"], bots="greedy")
    start(shown)
    assert shown[0].view is not None and None not in shown[0].view["card_counts"]
    shown[0].act("ask", partner=1)
    error = shown[0].error()
    assert error.get("reason", {}).get("code") == "counts_shown", error


def test_a_lost_player_shows_offline_with_the_graces_end_then_away(make: Make) -> None:
    """Every client sees the seat offline at once, with when its bot takes over (the server's
    clock, as the welcome gives it); then the bot plays; a return within the grace is
    ``online``."""
    live = make(grace=1.0)
    clients, sockets, table = seated_table(live, ["An", "Binh", "Chi"], bots="greedy")
    start(sockets)
    sockets[2].close()
    lost = sockets[0].until(lambda m: m.get("event", {}).get("kind") == "offline")
    assert lost["event"]["seat"] == 2
    until = lost["event"]["until"]
    assert 0.5 < until - time.time() <= 1.5
    assert lost["table"]["seats"][2]["grace_until"] == until
    away = sockets[0].until(lambda m: m.get("event", {}).get("kind") == "away")
    assert away["event"]["seat"] == 2 and "grace_until" not in away["table"]["seats"][2]
    assert time.time() >= until - 0.05
    # Binh leaves and comes back within the grace: offline, then online.
    sockets[1].close()
    sockets[0].until(lambda m: m.get("event", {}).get("kind") == "offline")
    again = clients[1].socket(table, welcome=False)
    welcome = again.recv()
    assert welcome["type"] == "welcome" and abs(welcome["now"] - time.time()) < 1
    back = sockets[0].until(lambda m: m.get("event", {}).get("kind") == "online")
    assert back["event"]["seat"] == 1 and "grace_until" not in back["table"]["seats"][1]


def test_two_people_get_a_turn_timer_by_default_and_zero_turns_it_off(make: Make) -> None:
    live = make(grace=1000.0)
    clients, sockets, table = seated_table(live, ["An", "Binh"], bots="greedy")
    start(sockets)
    view = sockets[0].view
    assert view is not None
    if view["turn"] in (0, 1):  # a person to act: 30 s, in every view
        assert 25 < view["deadline"] - time.time() <= 30
        assert sockets[1].view is not None and sockets[1].view["deadline"] == view["deadline"]
    info = clients[0].http.get(f"/api/tables/{table}").json()
    assert info["turn_timer"] == 30
    _clients, off, _table = seated_table(live, ["Chi", "Dung"], bots="greedy", turn_timer=0)
    start(off)
    assert all("deadline" not in (s.view or {}) for s in off)
    alone = Client(live.base, "Em").create(bots="greedy")["table"]
    assert alone.get("turn_timer") is None  # one person with bots: no timer


def test_a_chop_is_marked_on_its_play_event() -> None:
    """The server marks the engine's chop (a bomb on a play of another kind) on the play:
    whose play was chopped and how many 2s it held."""
    from tienlen import Game, Rules
    from tienlen.apps.server.options import TableConfig
    from tienlen.apps.server.tables import Table

    table = Table(
        id="t",
        host="h",
        config=TableConfig(
            rules=Rules(), preset="standard", options={}, bots=("greedy",) * 4, games=1
        ),
        secret="s" * 64,
        invite=None,
    )
    table.apply("start", {})
    assert table.match is not None
    # The deal is set by hand (a private field): seat 2 holds four 5s for seat 1's 2♥.
    table.match._game = Game("standard", hands=["3s 4s", "2h 6c", "5s 5c 5d 5h 7d", "8d 9d"])
    plays = {0: ["3s"], 1: ["2h"], 2: ["5s", "5c", "5d", "5h"]}
    events = []
    for seat, cards in plays.items():
        p = table.plan_action(seat, "play", {"cards": cards})
        table.apply("play", {**p.public})
        events.append(p.public)
    assert "chop" not in events[0] and "chop" not in events[1]
    assert events[2]["chop"] == {"victim": 1, "twos": 1}
