"""Change notification shared by the UI's models (the match controller, the replay model)."""

from __future__ import annotations

from collections.abc import Callable


class Observable:
    """A model that widgets subscribe to; ``version`` counts its changes."""

    def __init__(self) -> None:
        self.version = 0
        self._listeners: list[Callable[[], None]] = []

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` after every change."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        """Stop calling ``listener``."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _changed(self) -> None:
        self.version += 1
        for listener in list(self._listeners):
            listener()
