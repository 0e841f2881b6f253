"""bench/solver_order.py run short: both orders solve the endgame's deals with the same verdicts."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
pytest.importorskip("numpy", reason="the learned bot needs the env extra (numpy)")

import solver_order


def test_both_orders_answer_alike_and_the_solver_is_left_as_shipped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import tienlen.solver as solver

    shipped = solver._order_resisting
    assert solver_order.main(["--deals", "1", "--nodes", "2000"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if "verdicts differing" in line]
    assert [r.split()[0] for r in rows] == ["shipped", "seat's"]
    assert all(r.endswith("verdicts differing 0") for r in rows)
    assert solver._order_resisting is shipped
