"""The levels the apps offer, weakest first: each a name, the bot that plays it (a registry
spec) and its words in every language of the apps. The terminal game, the server (and the
browser through it) and the docs all read this one list; the specs were chosen by the
round-robin ladder of ``bench/ladder.py`` (docs/bots.md, "Levels").

>>> from tienlen.players.levels import LEVELS, level_spec
>>> list(LEVELS)
['beginner', 'easy', 'medium', 'expert']
>>> level_spec("easy"), level_spec("greedy")
('greedy', 'greedy')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tienlen.players.base import Player
from tienlen.players.registry import BOTS, make_bot, parse_spec

__all__ = ["LEVELS", "Level", "choices", "level_spec", "make_player"]


@dataclass(frozen=True, slots=True)
class Level:
    """One level of play: who plays it and how the apps word it."""

    name: str
    spec: str
    """The bot that plays this level: a registry spec (``NAME:KEY=VALUE...``)."""
    label: Mapping[str, str]
    """The level's name, by language code (``en``, ``vi``)."""
    about: Mapping[str, str]
    """One line on how it plays, by language code."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, for the browser."""
        return {
            "name": self.name,
            "spec": self.spec,
            "label": dict(self.label),
            "about": dict(self.about),
        }


#: The levels, weakest first (measured: docs/bots.md, "Levels").
LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level(
            "beginner",
            "random",
            {"en": "Beginner", "vi": "Mới chơi"},
            {
                "en": "plays any legal move at random",
                "vi": "đánh bừa một nước hợp lệ",
            },
        ),
        Level(
            "easy",
            "greedy",
            {"en": "Easy", "vi": "Dễ"},
            {
                "en": "plays its lowest cards, keeps 2s and bombs back",
                "vi": "đánh lá nhỏ nhất, giữ heo và bom lại",
            },
        ),
        Level(
            "medium",
            "heuristic",
            {"en": "Medium", "vi": "Vừa"},
            {
                "en": "plans its hand and watches who is close to going out",
                "vi": "tính trước cả bài, để ý ai sắp về",
            },
        ),
        Level(
            "expert",
            "learned:endgame=8",
            {"en": "Expert", "vi": "Cao thủ"},
            {
                "en": "a trained network picks its move and solves the endgame",
                "vi": "mạng đã học chọn nước đánh, cuối ván tính chính xác",
            },
        ),
    )
}


def choices() -> tuple[Level, ...]:
    """Every level, weakest first."""
    return tuple(LEVELS.values())


def level_spec(name: str) -> str:
    """The bot spec behind ``name``: a level's spec, or a built-in bot's own name (so a
    table or a saved match that names a bot still plays it). Raises ``ValueError`` naming
    the valid names."""
    level = LEVELS.get(name)
    if level is not None:
        return level.spec
    if name in BOTS:
        return name
    raise ValueError(
        f"unknown level {name!r}; choose a level ({', '.join(LEVELS)}) or a bot ({', '.join(BOTS)})"
    )


def make_player(name: str, *, seed: int | None = None) -> Player:
    """A fresh bot for level (or bot) ``name``, seeded with ``seed``."""
    bot, options = parse_spec(level_spec(name))
    return make_bot(bot, seed=seed, **options)
