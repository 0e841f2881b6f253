"""Planning a client's message into events, without a socket or a database: each planned
event is checked by the engine and applied to the table; a refusal leaves it as it was."""

from __future__ import annotations

import pytest

from tienlen import Rules
from tienlen.apps.server import planner
from tienlen.apps.server.forwarding import RemoteActor
from tienlen.apps.server.limits import Rate, TokenBucket
from tienlen.apps.server.messages import ClientMessage, parse_client
from tienlen.apps.server.options import TableConfig
from tienlen.apps.server.tables import Pending, Refused, Table

CHAT_MAX = 40


def actor(player: str, *, chats: int = 5) -> RemoteActor:
    return RemoteActor(player, player.title(), TokenBucket(Rate(chats, 1e9)))


HOST, GUEST, WATCHER = actor("host"), actor("guest"), actor("watcher")


def message(text: str) -> ClientMessage:
    return parse_client(text)


def plan(who: RemoteActor, table: Table, text: str) -> list[Pending]:
    return planner.plan(who, table, message(text), chat_max=CHAT_MAX)


def refused(who: RemoteActor, table: Table, text: str) -> str:
    version = table.version
    with pytest.raises(Refused) as e:
        plan(who, table, text)
    assert table.version == version  # nothing applied
    return e.value.code


@pytest.fixture
def table() -> Table:
    config = TableConfig(rules=Rules(), preset="standard", options={}, bots=("greedy",) * 4)
    return Table(id="t", host="host", config=config, secret="s" * 64, invite=None)


def started(table: Table) -> Table:
    plan(HOST, table, '{"type": "sit", "seat": 0}')
    plan(GUEST, table, '{"type": "sit", "seat": 1}')
    plan(HOST, table, '{"type": "start"}')
    return table


def test_a_seat_taken_is_one_event_applied(table: Table) -> None:
    (sat,) = plan(GUEST, table, '{"type": "sit", "seat": 2}')
    assert (sat.kind, sat.version, sat.actor) == ("sit", 1, "guest")
    assert sat.public == {"seat": 2, "player": "guest", "name": "Guest"}
    assert table.seat_of("guest") == 2 and table.version == 1


def test_seats_are_refused_when_taken_held_or_absent(table: Table) -> None:
    plan(GUEST, table, '{"type": "sit", "seat": 2}')
    assert refused(HOST, table, '{"type": "sit", "seat": 2}') == "seat_taken"
    assert refused(GUEST, table, '{"type": "sit", "seat": 0}') == "seated"
    assert refused(HOST, table, '{"type": "sit", "seat": 4}') == "bad_seat"
    assert refused(HOST, table, '{"type": "stand"}') == "not_seated"


def test_only_the_host_starts_and_the_start_deals(table: Table) -> None:
    plan(GUEST, table, '{"type": "sit", "seat": 1}')
    assert refused(GUEST, table, '{"type": "start"}') == "forbidden"
    events = plan(HOST, table, '{"type": "start"}')
    assert [e.kind for e in events[:2]] == ["start", "deal"]
    assert [e.version for e in events] == list(range(2, 2 + len(events)))
    assert table.status == "playing" and table.game is not None
    assert refused(HOST, table, '{"type": "start"}') == "bad_status"
    assert refused(WATCHER, table, '{"type": "sit", "seat": 3}') == "not_waiting"


def test_a_legal_play_is_applied_and_an_illegal_one_is_refused(table: Table) -> None:
    game = started(table).game
    assert game is not None
    seat = game.turn
    who = {0: HOST, 1: GUEST}.get(seat)
    assert who is not None, "the table's secret fixes a deal that a human leads"
    lowest = min(game.hands[seat])
    stale = f'{{"type": "play", "cards": ["{lowest.ascii()}"], "version": 0}}'
    assert refused(who, table, stale) == "stale"
    wrong = {"3s", "3c", "3d", "3h"} - {c.ascii() for c in game.hands[seat]}
    bad = f'{{"type": "play", "cards": ["{sorted(wrong)[0]}"], "version": {table.version}}}'
    assert refused(who, table, bad) == "illegal"
    move = f'{{"type": "play", "cards": ["{lowest.ascii()}"], "version": {table.version}}}'
    (played, *_more) = plan(who, table, move)
    assert played.kind == "play" and played.public["cards"] == [lowest.ascii()]
    assert lowest not in game.hands[seat]


def test_spectators_cannot_play(table: Table) -> None:
    started(table)
    text = f'{{"type": "pass", "version": {table.version}}}'
    assert refused(WATCHER, table, text) == "not_seated"


def test_chat_is_bounded_in_length_and_rate(table: Table) -> None:
    quiet = actor("quiet", chats=1)
    assert refused(quiet, table, '{"type": "chat", "text": "' + "x" * 41 + '"}') == "too_long"
    (said,) = plan(quiet, table, '{"type": "chat", "text": "  xin chào  "}')
    assert said.public["text"] == "xin chào" and said.public["seat"] is None
    assert refused(quiet, table, '{"type": "chat", "text": "again"}') == "rate_limited"


def test_an_absent_player_goes_away_and_comes_back(table: Table) -> None:
    started(table)
    (away,) = planner.presence(table, "guest", "away")
    assert away.kind == "away" and table.seats[1].away
    assert planner.presence(table, "guest", "away") == []  # already away
    (back,) = planner.presence(table, "guest", "back")
    assert back.actor == "guest" and not table.seats[1].away
    table.viewers["guest"] = 1  # watching here again: not away
    assert planner.presence(table, "guest", "away") == []
    assert planner.presence(table, "watcher", "away") == []  # holds no seat


def test_a_chat_line_sent_again_with_its_id_is_said_once(table: Table) -> None:
    """A client that got no answer (``unavailable``, ``try_again``, a lost socket) sends the
    line again: said once, and the resend costs no rate."""
    guest = actor("guest", chats=2)
    line = '{"type": "chat", "text": "chơi đẹp", "id": "k3v9q2"}'
    said = plan(guest, table, line)
    assert [(p.kind, p.public["text"], p.public["id"]) for p in said] == [
        ("chat", "chơi đẹp", "k3v9q2")
    ]
    assert plan(guest, table, line) == []
    assert table.version == 1
    # Another id, or another player's same id, is another line.
    assert len(plan(guest, table, '{"type": "chat", "text": "chơi đẹp", "id": "x"}')) == 1
    assert len(plan(HOST, table, line)) == 1
    # Without an id, a line sent again is said again.
    plan(HOST, table, '{"type": "chat", "text": "hi"}')
    assert len(plan(HOST, table, '{"type": "chat", "text": "hi"}')) == 1


def test_a_chat_id_is_remembered_through_a_rollback_and_a_replay(table: Table) -> None:
    guest = actor("guest")
    line = '{"type": "chat", "text": "gg", "id": "a1"}'
    plan(guest, table, line)
    table.rollback(0)  # its commit failed: it was not said
    assert len(plan(guest, table, line)) == 1
    # A node that loads the table from its log (a restart, a takeover) knows the id too.
    replayed = Table(id="t", host="host", config=table.config, secret="s" * 64, invite=None)
    replayed.apply(
        "chat", {"player": "guest", "name": "Guest", "seat": None, "text": "gg", "id": "a1"}
    )
    assert replayed.said("guest", "a1") and not replayed.said("host", "a1")
