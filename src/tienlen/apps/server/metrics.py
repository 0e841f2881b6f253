"""Prometheus metrics, served at ``GET /metrics`` in the text exposition format.

Each :class:`~.node.Server` has its own registry (not the library's global one), so several
servers in one process (the tests) count apart. Counts that the server keeps anyway (tables
by status, open sockets, commits) are read when scraped; events are counted and timed where
they happen.

With ``--workers N`` every worker process has its own registry: scrape each node's own
port, and sum over the instances in queries.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from .hub import Hub
from .writer import Writer

__all__ = ["CONTENT_TYPE", "Counted", "Metrics"]

#: The text exposition format's media type.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: Latency buckets (seconds): an action's goal is well under 100 ms; a commit is a few ms.
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_STATUSES = ("waiting", "playing", "finished")


class Counted(Protocol):
    """What a server holds that its metrics read at scrape time."""

    @property
    def hub(self) -> Hub:
        """The live tables and their clients."""

    @property
    def writer(self) -> Writer:
        """The database writer (its commit counts)."""

    @property
    def pool_restarts(self) -> int:
        """Times the bot pool was replaced."""


class Metrics:
    """A server's instruments and the registry they are exposed from."""

    def __init__(self, server: Counted) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.actions = Counter(
            "tienlen_actions",
            "Table actions committed, by who made them (player: a client's message; bot; "
            "timer: a move made when a turn timed out)",
            ["by"],
            registry=r,
        )
        self.action_seconds = Histogram(
            "tienlen_action_seconds",
            "From a client's table message arriving to its events committed and broadcast",
            buckets=_BUCKETS,
            registry=r,
        )
        self.commit_seconds = Histogram(
            "tienlen_db_commit_seconds",
            "One group commit of the database writer (the transaction, begin to commit)",
            buckets=_BUCKETS,
            registry=r,
        )
        self.commit_failures = Counter(
            "tienlen_db_commit_failures",
            "Table commits that failed (the action was refused with 'try again')",
            registry=r,
        )
        self.replays = Counter(
            "tienlen_table_replays",
            "Tables rebuilt from their event log (loaded, taken over, or rebuilt after a "
            "failed commit)",
            registry=r,
        )
        self.bot_seconds = Histogram(
            "tienlen_bot_decision_seconds",
            "A bot's decision, from asking the worker pool to its answer",
            ["level"],
            buckets=_BUCKETS,
            registry=r,
        )
        r.register(_Live(server))

    def render(self) -> bytes:
        """The exposition text of every metric."""
        return generate_latest(self.registry)


class _Live(Collector):
    """What the server holds now, read at scrape time."""

    def __init__(self, server: Counted) -> None:
        self._server = server

    def collect(self) -> Iterator[Metric]:
        srv = self._server
        tables = GaugeMetricFamily("tienlen_tables", "Tables held, by status", labels=["status"])
        counts = dict.fromkeys(_STATUSES, 0)
        for t in srv.hub.tables.values():
            counts[t.status] = counts.get(t.status, 0) + 1
        for status, n in counts.items():
            tables.add_metric([status], n)
        yield tables
        conns = GaugeMetricFamily(
            "tienlen_connections", "Open WebSockets, by kind", labels=["kind"]
        )
        conns.add_metric(["table"], sum(len(c) for c in srv.hub.conns.values()))
        conns.add_metric(["lobby"], len(srv.hub.lobby))
        yield conns
        yield CounterMetricFamily(
            "tienlen_db_commits", "Database transactions committed", value=srv.writer.commits
        )
        yield CounterMetricFamily(
            "tienlen_db_writes",
            "Writes committed (several share one commit when they wait together)",
            value=srv.writer.writes,
        )
        yield CounterMetricFamily(
            "tienlen_bot_pool_restarts",
            "Times the bot worker pool broke (a worker died) and was replaced",
            value=srv.pool_restarts,
        )
