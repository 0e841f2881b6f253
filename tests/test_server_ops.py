"""Operations: liveness and readiness for a load balancer, and the Prometheus metrics."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from serverkit import (
    HANG,
    Client,
    LiveServer,
    guest_cookie,
    play_out,
    seated_table,
    server_settings,
)
from tienlen import Rules
from tienlen.apps.cli import build_parser
from tienlen.apps.cmd_serve import settings_of
from tienlen.apps.server import Server, create_app
from tienlen.apps.server.options import TableConfig
from tienlen.apps.server.tables import Table


def test_a_started_server_is_live_and_ready(live: LiveServer) -> None:
    assert httpx.get(f"{live.base}/api/health").json()["ok"] is True
    r = httpx.get(f"{live.base}/api/ready")
    assert r.status_code == 200, r.text
    assert r.json() == {"ready": True, "checks": {"server": "ok", "database": "ok"}}


def test_a_failing_probe_makes_the_node_unready_and_liveness_stays(live: LiveServer) -> None:
    async def down() -> None:
        raise ConnectionError("Connection refused")

    assert live.server is not None
    live.server.probes["redis"] = down
    r = httpx.get(f"{live.base}/api/ready")
    assert r.status_code == 503
    assert r.json()["checks"] == {
        "server": "ok",
        "database": "ok",
        "redis": "ConnectionError: Connection refused",
    }
    assert httpx.get(f"{live.base}/api/health").status_code == 200
    del live.server.probes["redis"]
    assert httpx.get(f"{live.base}/api/ready").status_code == 200


def test_an_advisory_probe_is_reported_and_the_node_stays_ready(live: LiveServer) -> None:
    """A cluster node's Redis: down, it is reported, but the node serves its own tables."""

    async def down() -> None:
        raise ConnectionError("Connection refused")

    assert live.server is not None
    live.server.probes["redis"] = down
    live.server.advisory.add("redis")
    try:
        r = httpx.get(f"{live.base}/api/ready")
        assert r.status_code == 200, r.text
        assert r.json()["checks"]["redis"].startswith("ConnectionError: Connection refused")
        assert "advisory" in r.json()["checks"]["redis"]
    finally:
        del live.server.probes["redis"]
        live.server.advisory.clear()


def test_readiness_follows_the_server_through_start_and_stop(tmp_path: Path) -> None:
    """Not ready before the migrations and the tables are loaded, nor once stopping."""

    async def main() -> list[tuple[int, str]]:
        settings = server_settings(f"sqlite+aiosqlite:///{tmp_path / 't.db'}", tmp_path)
        srv = Server(settings)
        app = create_app(settings, server=srv)
        seen = []
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:

            async def probe() -> None:
                r = await http.get("/api/ready")
                seen.append((r.status_code, r.json()["checks"]["server"]))
                assert (await http.get("/api/health")).status_code == 200

            await probe()
            await srv.start()
            await probe()
            await srv.stop()
            await probe()
        return seen

    assert asyncio.run(main()) == [
        (503, "starting (migrating, loading tables)"),
        (200, "ok"),
        (503, "shutting down"),
    ]


def scrape(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample at ``/metrics``, by name and labels (parsed by the library's parser)."""
    r = httpx.get(f"{base}/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


def test_metrics_count_tables_sockets_actions_commits_and_bots(live: LiveServer) -> None:
    before = scrape(live.base)
    assert before[("tienlen_tables", (("status", "playing"),))] == 0
    assert before[("tienlen_action_seconds_count", ())] == 0
    clients, sockets, _table = seated_table(live, ["Ann"], bots="random")
    seated = scrape(live.base)
    assert seated[("tienlen_tables", (("status", "waiting"),))] == 1
    assert seated[("tienlen_connections", (("kind", "table"),))] == 1
    assert seated[("tienlen_actions_total", (("by", "player"),))] == 1  # the sit
    sockets[0].send(type="start")
    play_out({0: sockets[0]}, actions=3)
    after = scrape(live.base)
    assert after[("tienlen_tables", (("status", "playing"),))] == 1
    assert after[("tienlen_tables", (("status", "waiting"),))] == 0
    players = after[("tienlen_actions_total", (("by", "player"),))]
    assert players == 1 + 1 + 3  # the sit, the start and three moves
    # Every player action was timed to its broadcast; every commit was timed.
    assert after[("tienlen_action_seconds_count", ())] == players
    assert after[("tienlen_action_seconds_bucket", (("le", "+Inf"),))] == players
    assert after[("tienlen_db_commit_seconds_count", ())] == after[("tienlen_db_commits_total", ())]
    assert after[("tienlen_db_commits_total", ())] > before[("tienlen_db_commits_total", ())]
    bots = after[("tienlen_actions_total", (("by", "bot"),))]
    assert bots >= 3  # three bots moved between each of Ann's moves at least
    decisions = after[("tienlen_bot_decision_seconds_count", (("level", "random"),))]
    assert decisions >= bots
    assert after[("tienlen_db_commit_failures_total", ())] == 0
    sockets[0].close()
    clients[0].http.close()


def test_a_bot_move_whose_commit_failed_is_not_counted(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The action counters count committed actions: a bot's move refused by a failed commit
    (the table goes back and is rebuilt, and the bot tries again) is not one."""
    assert live.server is not None
    host = Client(live.base, "Host")
    table = host.create(bots="greedy", games=50)["table"]["id"]
    watch = host.socket(table)
    watch.until(lambda m: m["type"] == "state")
    watch.send(type="start")
    watch.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "start")

    monkeypatch.setattr(live.server.writer, "write", _fail)
    moved = ("tienlen_actions_total", (("by", "bot"),))  # no sample until a bot moved
    bots = _failures_reach(live.base, 1).get(moved, 0.0)
    assert _failures_reach(live.base, 3).get(moved, 0.0) == bots
    watch.close()
    host.http.close()


@pytest.mark.slow  # waits for a turn timer to run out
def test_a_turn_timer_move_whose_commit_failed_is_not_counted(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same for the turn timer: its automatic move refused by a failed commit (the table
    goes back and is rebuilt, and the timer runs again) is not counted."""
    assert live.server is not None
    clients, sockets, _table = seated_table(live, ["An", "Binh", "Chi", "Dung"], turn_timer=1)
    sockets[0].send(type="start")
    sockets[0].until(lambda m: m["type"] == "event" and m["event"]["kind"] == "start")
    # Nobody moves: every move from now on is the timer's, and each commit fails.
    monkeypatch.setattr(live.server.writer, "write", _fail)
    moved = ("tienlen_actions_total", (("by", "timer"),))  # no sample until the timer moved
    timed = _failures_reach(live.base, 1).get(moved, 0.0)
    assert timed == 0
    assert _failures_reach(live.base, 3).get(moved, 0.0) == 0
    for s in sockets:
        s.close()
    for c in clients:
        c.http.close()


async def _fail(*_args: object, **_kwargs: object) -> None:
    raise RuntimeError("the database is gone")


def _failures_reach(base: str, n: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The metrics once at least ``n`` commits have failed."""
    deadline = time.monotonic() + HANG
    while True:
        now = scrape(base)
        if now[("tienlen_db_commit_failures_total", ())] >= n:
            return now
        assert time.monotonic() < deadline, "no commit failed"
        time.sleep(0.05)


def _advance(table: Table, actions: int) -> None:
    """Play ``actions`` automatic moves on a table, with the follow-ups (deals, results)."""
    for _ in range(actions):
        if table.status != "playing":
            return
        assert table.game is not None
        kind, fields = table.auto_action()
        p = table.plan_action(table.game.turn, kind, fields)
        table.apply(p.kind, {**p.public, **((p.private or {}).get(str(p.public["seat"]), {}))})
        table.followups()


def _state(table: Table) -> tuple[object, ...]:
    views = table.views([None, *range(len(table.seats))], history=True)
    return table.version, table.state_version, table.status, table.info(), views


def test_a_table_rolls_back_to_any_version_of_its_match() -> None:
    """What a failed commit relies on: going back gives the state the table had then, in a
    later game of the match and across a rematch."""
    table = Table(
        id="t",
        host="h",
        config=TableConfig(
            rules=Rules(), preset="standard", options={}, bots=("greedy",) * 4, games=3
        ),
        secret="s" * 64,
        invite=None,
    )
    table.apply("sit", {"seat": 0, "player": "h", "name": "Host"})
    seen = {table.version: _state(table)}
    table.apply("start", {})
    table.deal_event()
    for _ in range(30):
        _advance(table, 7)
        seen[table.version] = _state(table)
    assert table.match is not None and table.match.number > 1  # a later game was reached
    while table.status == "playing":
        _advance(table, 50)
    table.apply("rematch", {})
    table.deal_event()
    _advance(table, 5)
    after_rematch = table.version
    rematch_seen = _state(table)
    _advance(table, 9)
    table.rollback(after_rematch)
    assert _state(table) == rematch_seen
    with pytest.raises(ValueError, match="cannot go back"):
        table.rollback(max(seen))  # before the rematch: that match is closed
    # A fresh table replaying the same events reaches each remembered state too (the way a
    # server rebuilds it from the stored log), and rolls back to each from its end.
    for version in sorted(seen, reverse=True)[:-1]:
        replay = Table(id="t", host="h", config=table.config, secret=table.secret, invite=None)
        replay.apply("sit", {"seat": 0, "player": "h", "name": "Host"})
        replay.apply("start", {})
        replay.deal_event()
        while replay.status == "playing":
            _advance(replay, 50)
        replay.rollback(version)
        assert _state(replay) == seen[version]


def test_secure_cookie_marks_the_guest_cookie_secure(tmp_path: Path) -> None:
    """Behind a TLS proxy: ``tienlen serve --secure-cookie`` sends the cookie as Secure."""
    parser = build_parser()
    for flags, secure in (([], False), (["--secure-cookie"], True)):
        args = parser.parse_args(["serve", "--data", str(tmp_path), *flags])
        settings = settings_of(args)
        assert settings.secure_cookie is secure

        cookie = guest_cookie(settings, tmp_path / "c.db")
        assert ("; secure" in cookie.lower()) is secure, cookie
