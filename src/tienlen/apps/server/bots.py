"""Bot moves off the event loop: a worker pool runs the levels' bots, so a slow search at
one table never delays another."""

from __future__ import annotations

import hashlib
import hmac
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

from tienlen.combos import Choice
from tienlen.observation import Observation
from tienlen.players.base import Budget, choose_safely
from tienlen.players.levels import LEVELS, make_player
from tienlen.players.registry import BOTS

from .lifeline import die_with_parent

__all__ = ["bot_seed", "choose", "make_pool"]


def make_pool(kind: str, workers: int) -> Executor:
    """``process`` (the default: real parallelism) or ``thread`` (light, for tests).

    A worker process dies with the server, even one killed with SIGKILL."""
    if kind == "thread":
        return ThreadPoolExecutor(workers, thread_name_prefix="tienlen-bot")
    if kind == "process":
        return ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=die_with_parent,
            initargs=(os.getpid(),),
        )
    raise ValueError(f"bot pool must be 'process' or 'thread', not {kind!r}")


def bot_seed(secret: str, version: int) -> int:
    """A bot's seed for the decision at ``version``: fixed by the table's secret, so a
    restarted server makes the same choices, and unknown to the players."""
    digest = hmac.new(secret.encode(), f"bot/{version}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def choose(level: str, seed: int, obs: Observation, legal: Sequence[Choice]) -> Choice:
    """One decision by a fresh bot of ``level`` (runs in a worker)."""
    move, _problem = choose_safely(make_player(level, seed=seed), obs, legal, Budget())
    return move


#: What a table's bot seat may be, weakest level first: the levels the apps offer, then the
#: built-in bots by name (which tables made before the levels, and API clients, name).
BOT_NAMES = (*LEVELS, *BOTS)
