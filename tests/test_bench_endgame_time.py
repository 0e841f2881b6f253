"""bench/endgame_time.py: the endgame timed beside ismcts in one process runs and reports."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from endgame_time import main  # noqa: E402

import tienlen.players.bots.learned as learned  # noqa: E402


def test_a_short_run_times_the_endgame_and_counts_collections(
    capsys: pytest.CaptureFixture[str],
) -> None:
    solve = vars(learned)["forcing_choice"]
    assert main(["--deals", "1", "--iterations", "20", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    decisions = re.search(
        r"in its endgame, beside ismcts: median [\d.]+ ms.*\((\d+) decisions\)", out
    )
    assert decisions is not None and int(decisions.group(1)) > 0, out
    assert "4 games in" in out
    for generation in (0, 1, 2):
        assert f"collections of generation {generation}: " in out
    # the run put the bot's own endgame back
    assert vars(learned)["forcing_choice"] is solve
