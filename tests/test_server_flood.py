"""One guest's flood stays with that guest (issue 24): while hostile sockets flood a live
server from another address (first one socket sending refused plays as fast as it can, then
ten sockets of broken JSON), a second client plays its own table. Its move latency in each
phase is reported (printed, and recorded as a property of the test) and held to a generous
bound only, as the machine running the tests is shared; every hostile socket ends closed by
the server with 1008 or refused at opening; the server's memory stays flat. The production
limits are used (not the test kit's lifted ones). bench/flood.py measures the same thing in
earnest (docs/benchmarks.md)."""

from __future__ import annotations

import importlib.util
import json
import random
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from serverkit import LiveServer, Socket, live_server, seated_table
from tienlen.apps.server.config import Settings

ROOT = Path(__file__).resolve().parent.parent
#: Seconds of each phase.
PHASE = 2.5
#: The measured table's median latency must stay under this (ms) during a flood, or under
#: a few times its quiet figure where the machine is slower than that. Generous: the server
#: runs in this process, next to the test and the suite's other tests (before issue 24 the
#: median was seconds under one flooding socket; bench/flood.py gives the real figures).
BOUND_MS = 250.0


def _flood_script() -> Any:
    spec = importlib.util.spec_from_file_location("flood_bench", ROOT / "bench" / "flood.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rss_mib() -> float:
    """This process's resident memory (the server runs in a thread of it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.fixture
def flooded(tmp_path: Path) -> Iterator[LiveServer]:
    """A server on SQLite with the production limits."""
    limits = Settings()
    names = ["messages", "player_messages", "overflow", "notice_every", "sockets_per_player"]
    production = {n: getattr(limits, n) for n in names}
    production["guests_per_address"] = limits.guests_per_address
    production["connections_per_address"] = limits.connections_per_address
    with live_server("sqlite", tmp_path, **production) as server:
        yield server


class Duel:
    """Two seats of one table played by this test, a quick human's pace apart."""

    def __init__(self, sockets: list[Socket]) -> None:
        self.sockets = sockets
        self.rng = random.Random(7)

    def play(self, seconds: float, during: Callable[[], bool] = lambda: True) -> list[float]:
        """Act for ``seconds`` (while ``during()``); each action's latency to its own event
        (ms)."""
        latencies = []
        until = time.monotonic() + seconds
        while time.monotonic() < until and during():
            view = self.to_act()
            seat = view["seat"]
            time.sleep(self.rng.uniform(0.05, 0.15))
            move = self.rng.choice(view["legal"])
            s = self.sockets[seat]
            began = time.perf_counter()
            s.act("play", cards=move) if move else s.act("pass")
            s.until(lambda m, seat=seat: m["type"] == "event" and m["event"].get("seat") == seat)
            latencies.append((time.perf_counter() - began) * 1000)
        return latencies

    def to_act(self) -> dict[str, Any]:
        """Read both sockets to the newest version; the view of the seat to act."""
        while True:
            latest = max(s.version for s in self.sockets)
            for s in self.sockets:
                while s.version < latest or not s.settled:
                    s.recv()
            if all(s.version == latest for s in self.sockets):
                for s in self.sockets:
                    if s.view is not None and s.view.get("legal") is not None:
                        return s.view
                self.sockets[0].recv()  # nobody is to act yet: the next event is coming


def figures(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "actions": len(ordered),
        "p50_ms": round(statistics.median(ordered), 2),
        "max_ms": round(ordered[-1], 2),
    }


def still_running(process: Any) -> Callable[[], bool]:
    """A test for :meth:`Duel.play`: ``process`` has not exited yet."""
    return lambda: process.poll() is None


@pytest.mark.slow  # phases of seconds each, with flooding processes beside the server
def test_a_flood_does_not_slow_another_table(
    flooded: LiveServer, record_property: Callable[[str, object], None]
) -> None:
    live = flooded
    flood = _flood_script()
    clients, sockets, _table = seated_table(
        live, ["Quiet A", "Quiet B"], options={"players": 2}, target=1000
    )
    sockets[0].send(type="start")
    duel = Duel(sockets)
    duel.play(0.5)  # warm up
    report = {"quiet": figures(duel.play(PHASE))}
    rss_before = rss_mib()
    seen = {}
    for n, (count, kind) in enumerate([(1, "refused"), (10, "json")]):
        hostile = flood.hostile(live.base, count, kind, PHASE, f"127.0.0.{n + 2}")
        during = figures(duel.play(PHASE + 1, still_running(hostile)))
        report[f"{count} x {kind}"] = during
        out, _ = hostile.communicate(timeout=60)
        seen[f"{count} x {kind}"] = json.loads(out.strip().splitlines()[-1])
    report["quiet again"] = figures(duel.play(PHASE))
    grown = rss_mib() - rss_before
    print(f"\nmove latency (ms): {report}\nhostile sockets: {seen}\nRSS grew {grown:.1f} MiB")
    record_property("flood_latency", json.dumps(report))
    record_property("flood_rss_growth_mib", round(grown, 1))
    bound = max(BOUND_MS, 5 * report["quiet"]["p50_ms"])
    for phase, got in report.items():
        assert got["actions"] > 0, phase
        assert got["p50_ms"] < bound, (phase, got, report)
    for scenario, sockets_seen in seen.items():
        opened = sockets_seen.get("opened", 0)
        assert opened > 0, (scenario, sockets_seen)
        # every socket it opened was closed by the server for flooding
        assert sockets_seen.get("closed by the server: 1008") == opened, (scenario, sockets_seen)
        # and it got at most its player's budget of answers (which reconnecting does not
        # refill), the refill over the phase, and per socket a state and a notice a second
        rate = Settings().player_messages
        budget = rate.burst + rate.burst / rate.per * (PHASE + 1)
        answers = sockets_seen.get("answers", 0)
        assert answers <= budget + opened * (2 + PHASE + 1), (scenario, sockets_seen)
        refused = {k for k in sockets_seen if k.startswith("refused at open")}
        assert refused <= {"refused at open: rate_limited"}, sockets_seen
    assert grown < 100, f"the server's memory grew {grown:.1f} MiB under the floods"
    server = live.server
    assert server is not None
    assert set(server.admission.sockets) == {c.id for c in clients}
