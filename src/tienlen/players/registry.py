"""The built-in bots by name: ``BOTS`` and :func:`make_bot`.

>>> from tienlen.players.registry import BOTS, make_bot
>>> list(BOTS)
['random', 'greedy', 'heuristic', 'ismcts', 'learned']
>>> make_bot("greedy").name
'greedy'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tienlen.players.base import Player

__all__ = ["BOTS", "BotInfo", "make_bot", "parse_spec"]


@dataclass(frozen=True, slots=True)
class BotInfo:
    """What the apps show about a bot, and how to make one."""

    name: str
    description: str
    """One line for ``--help`` and the docs (the apps offer levels: :mod:`.levels`)."""
    factory: Callable[..., Player]
    """Called as ``factory(seed=..., **options)``."""


def _random(*, seed: int | None = None, **options: Any) -> Player:
    from tienlen.players.bots.random_bot import RandomBot

    return RandomBot(seed=seed, **options)


def _greedy(*, seed: int | None = None, **options: Any) -> Player:
    from tienlen.players.bots.greedy import GreedyBot

    return GreedyBot(**options)


def _heuristic(*, seed: int | None = None, **options: Any) -> Player:
    from tienlen.players.bots.heuristic import HeuristicBot

    return HeuristicBot(**options)


def _learned(*, seed: int | None = None, **options: Any) -> Player:
    from tienlen.players.bots.learned import LearnedBot

    return LearnedBot(seed=seed, **options)


def _ismcts(*, seed: int | None = None, **options: Any) -> Player:
    from tienlen.players.bots.ismcts import IsmctsBot

    return IsmctsBot(seed=seed, **options)


#: The built-in bots, weakest first (on ``standard``; ``learned`` and ``ismcts`` measure
#: level there, and ``learned`` was trained for ``standard`` alone: docs/bots.md). The
#: levels the apps offer are made of these (:data:`tienlen.players.levels.LEVELS`).
BOTS: dict[str, BotInfo] = {
    info.name: info
    for info in (
        BotInfo("random", "plays a uniformly random legal move", _random),
        BotInfo(
            "greedy",
            "plays its lowest combination that breaks nothing; keeps 2s and bombs back",
            _greedy,
        ),
        BotInfo(
            "heuristic",
            "plans its hand, tracks the cards played, watches opponents close to going out",
            _heuristic,
        ),
        BotInfo(
            "ismcts",
            "information-set Monte Carlo tree search over deals consistent with what it saw",
            _ismcts,
        ),
        BotInfo(
            "learned",
            "a move-value network, trained on rollouts, values every legal move in about a "
            "millisecond; endgame=8 solves the last cards (numpy: the apps extra)",
            _learned,
        ),
    )
}


def make_bot(name: str, *, seed: int | None = None, **options: Any) -> Player:
    """A new bot by registry name; ``seed`` makes a randomised bot reproducible; other
    keyword options go to the bot (e.g. ``iterations=200`` for ``ismcts``)."""
    try:
        info = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; valid names: {', '.join(BOTS)}") from None
    return info.factory(seed=seed, **options)


def _option_value(text: str) -> Any:
    """An option's value: an int, else a float, else the text."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """A bot spec, a registry name with options after colons (``NAME:KEY=VALUE:...``), as
    the name and the options (numbers read as numbers).

    >>> parse_spec("ismcts:playout=learned:root_moves=4")
    ('ismcts', {'playout': 'learned', 'root_moves': 4})
    """
    name, *parts = spec.split(":")
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; valid names: {', '.join(BOTS)}")
    options: dict[str, Any] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or not key.isidentifier() or not value:
            raise ValueError(f"bad option {part!r} in bot spec {spec!r}: write KEY=VALUE")
        options[key] = _option_value(value)
    return name, options
