"""A table's options: what the host chose when creating it, kept in the tables row as JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tienlen import Rules

__all__ = ["TableConfig"]


@dataclass(frozen=True)
class TableConfig:
    """What the host chose when creating the table."""

    rules: Rules
    preset: str
    options: Mapping[str, Any]
    bots: tuple[str, ...]
    turn_timer: float | None = None
    games: int | None = 1
    target: int | None = None
    private: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, for the tables row."""
        return {
            "preset": self.preset,
            "options": dict(self.options),
            "rules": self.rules.to_dict(),
            "bots": list(self.bots),
            "turn_timer": self.turn_timer,
            "games": self.games,
            "target": self.target,
            "private": self.private,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableConfig:
        """Read :meth:`to_dict`'s output."""
        return cls(
            rules=Rules.from_dict(data["rules"]),
            preset=data["preset"],
            options=dict(data["options"]),
            bots=tuple(data["bots"]),
            turn_timer=data["turn_timer"],
            games=data["games"],
            target=data["target"],
            private=data["private"],
        )
