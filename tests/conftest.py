"""Shared pytest set-up: the ``--update-golden`` option, a summary of the brute-force
cross-check (positions checked per preset and kind of decision), Hypothesis's ``fast``
profile (tests/quick.py, registered before ``--hypothesis-profile`` is read), and the
server tests' fixtures (``backend``, ``live``; the server is imported only by the tests
that use them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import quick  # noqa: F401  (registers make test-fast's Hypothesis profile)
from backends import BACKENDS

if TYPE_CHECKING:
    from serverkit import LiveServer


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/*.txt from the current engine instead of comparing",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """Whether golden transcripts are being regenerated."""
    return bool(request.config.getoption("--update-golden"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the counts each reference cross-check recorded (also under xdist)."""
    lines = [
        str(value)
        for report in terminalreporter.stats.get("passed", [])
        for name, value in getattr(report, "user_properties", ())
        if name == "reference_counts" and report.when == "call"
    ]
    if lines:
        terminalreporter.section("brute-force cross-check: positions checked")
        for line in sorted(lines):
            terminalreporter.write_line(line)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Each server test runs on SQLite, and on PostgreSQL when it is configured."""
    return str(request.param)


@pytest.fixture
def live_settings() -> dict[str, Any]:
    """The settings the ``live`` server takes beyond the test defaults (a module that needs
    others overrides this fixture)."""
    return {}


@pytest.fixture
def live(backend: str, tmp_path: Path, live_settings: dict[str, Any]) -> Iterator[LiveServer]:
    """A live server on a fresh database of each backend, stopped after the test."""
    from serverkit import live_server

    with live_server(backend, tmp_path, **live_settings) as server:
        yield server
