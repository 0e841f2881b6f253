"""paused_gc: the cyclic collector off inside a search, back as it was after it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from tienlen import Game
from tienlen.gc_pause import paused_gc
from tienlen.solver import TooLargeError, solve


@pytest.fixture
def collecting() -> Iterator[bool]:
    was = gc.isenabled()
    gc.enable()
    yield True
    if not was:
        gc.disable()


def test_off_inside_on_after_and_nested_pauses_leave_it_off(collecting: bool) -> None:
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause did not turn it back on
    assert gc.isenabled()


def test_back_on_after_an_error_and_left_off_where_it_was_off(collecting: bool) -> None:
    with pytest.raises(KeyError), paused_gc():
        raise KeyError("x")
    assert gc.isenabled()
    gc.disable()
    with paused_gc():
        pass
    assert not gc.isenabled()  # a caller that had it off keeps it off
    gc.enable()


def test_the_solver_leaves_the_collector_on_when_it_solves_or_gives_up(
    collecting: bool,
) -> None:
    game = Game("standard", seed=5)  # 52 cards in hand: far too large for 50 positions
    with pytest.raises(TooLargeError):
        solve(game, nodes=50)
    assert gc.isenabled()
    assert solve(Game.from_position("8d10d/4hJh/Jc/10h 1 0 0:4s - - -", rules="standard")).wins
    assert gc.isenabled()
