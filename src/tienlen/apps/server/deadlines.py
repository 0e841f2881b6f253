"""Turn deadlines: the moment the person to act must have acted by, set before each change
goes out so that every view carries the same one."""

from __future__ import annotations

from .tables import Table

__all__ = ["arm_deadline"]


def arm_deadline(table: Table, now: float, *, runs: bool) -> None:
    """Before a change goes out: when the person to act must act (``table.deadline``, which
    their views carry), from ``now`` where the state is new; ``None`` on a bot's turn, with
    no timer, no game going on, or at a table this process does not run."""
    game = table.game
    timer = table.turn_timer
    if (
        runs
        and timer is not None
        and game is not None
        and not game.is_over
        and table.status == "playing"
        and not table.seats[game.turn].is_bot
    ):
        if table.deadline is None or table.deadline_version != table.state_version:
            table.deadline = round(now + timer, 3)
            table.deadline_version = table.state_version
        return
    table.deadline = None
