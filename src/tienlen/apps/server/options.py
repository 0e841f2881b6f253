"""A table's options: what the host chose when creating it, kept in the tables row as JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from tienlen import Rules

__all__ = ["DEFAULT_TURN_TIMER", "TableConfig"]

#: The turn timer (seconds) of a table with two or more people that chose none.
DEFAULT_TURN_TIMER: Final = 30.0


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

    def timer_for(self, people: int) -> float | None:
        """The turn timer in force with ``people`` seated: the host's (0: none), else
        :data:`DEFAULT_TURN_TIMER` for two or more people, so nobody waits long on another
        person; ``None`` where none runs."""
        if self.turn_timer is not None:
            return self.turn_timer or None
        return DEFAULT_TURN_TIMER if people >= 2 else None

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
