"""Shared pytest set-up: the ``--update-golden`` option and a summary of the brute-force
cross-check (positions checked per preset and kind of decision)."""

from __future__ import annotations

import pytest


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
