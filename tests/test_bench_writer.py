"""The writer's benchmark (bench/writer.py) runs and prints each way's cost a write."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from backends import POSTGRES

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(POSTGRES is None, reason="needs TIENLEN_TEST_POSTGRES_URL")
def test_a_short_run_prints_the_three_ways() -> None:
    assert POSTGRES is not None
    argv = [sys.executable, str(ROOT / "bench" / "writer.py"), "--postgres", POSTGRES]
    argv += ["--writes", "5", "--repeat", "1", "--rows", "3"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "120"}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "5 writes of 3 rows, 1 timings" in done.stdout
    rows = {line.split("│")[1].strip(): line for line in done.stdout.splitlines() if "│" in line}
    assert set(rows) >= {"writer", "pool", "driver"}
    assert rows["writer"].split("│")[4].strip() == "1.00x"
