"""The compiled engine (``make compiled``) against the interpreted source: identical legal
moves and outcomes on seeded games of every preset.

The compiled build lives in ``build/compiled`` (``make compiled``); without it this test is
skipped and says so. ``make test-compiled`` (run by CI) builds it first.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "compiled"
SCRIPT = Path(__file__).resolve().parent / "engine_fingerprint.py"


def run_fingerprint(path: Path, games: int) -> str:
    env = {**os.environ, "PYTHONPATH": str(path)}
    out = subprocess.run(
        [sys.executable, str(SCRIPT), str(games)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return out.stdout.strip()


@pytest.mark.skipif(
    not any(BUILD.glob("tienlen/movegen.*.so")),
    reason="no compiled engine in build/compiled (make compiled)",
)
@pytest.mark.slow  # 100 games a preset in two processes; make test-compiled runs it
def test_compiled_engine_plays_exactly_like_the_source() -> None:
    interpreted = run_fingerprint(ROOT / "src", 100)
    compiled = run_fingerprint(BUILD, 100)
    assert interpreted.startswith("compiled=False ")
    assert compiled.startswith("compiled=True ")
    assert compiled.split()[1] == interpreted.split()[1]


def test_version_says_which_engine_runs(capsys: pytest.CaptureFixture[str]) -> None:
    import tienlen
    from tienlen.apps.cli import main

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"tienlen {tienlen.__version__} (engine ")
    assert ("compiled with mypyc" in out) == tienlen.COMPILED
    assert ("interpreted" in out) != tienlen.COMPILED
