"""Turns: the bots' moves (in a worker pool), the turn timer, and the grace a seated player
who left gets before the seat counts as away (a bot plays it until they return).

Only the node that runs a table (a single server, or a cluster's owner of the table)
schedules its bots and timer; after every committed change :meth:`Turns.schedule` cancels the
table's pending move and schedules the next one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import BrokenExecutor, Executor

from tienlen.observation import observe
from tienlen.players.base import fallback_move

from . import bots, idle, planner
from .actions import move_action
from .commits import Commits
from .config import Settings
from .forwarding import RemoteActor
from .hub import Actor, Hub
from .limits import TokenBucket
from .metrics import Metrics
from .tables import Pending, Refused, Table

__all__ = ["Turns"]

log = logging.getLogger("tienlen.server")

#: Makes a change at a table wherever it runs (this node, or its owner in a cluster).
Dispatch = Callable[[Actor, str, str], Awaitable[None]]


class Turns:
    """A node's bot moves, turn timers and graces."""

    def __init__(
        self,
        settings: Settings,
        hub: Hub,
        commits: Commits,
        metrics: Metrics,
        *,
        dispatch: Dispatch,
    ) -> None:
        self.settings = settings
        self.hub = hub
        self.commits = commits
        self.metrics = metrics
        self.dispatch = dispatch
        self.timers: dict[str, asyncio.Task[None] | asyncio.TimerHandle] = {}
        """Each table's pending bot move, or its turn timer (a callback at the deadline, not
        a task: it is set and cancelled on every action)."""
        self.graces: dict[tuple[str, str], asyncio.Task[None]] = {}
        """Each absent (table, player)'s grace."""
        self.pool = bots.make_pool(settings.bot_pool, settings.bot_workers)
        self.pool_restarts = 0

    def stop(self) -> None:
        """Cancel every timer and grace; stop the bot pool."""
        for task in [*self.timers.values(), *self.graces.values()]:
            task.cancel()
        self.pool.shutdown(wait=True, cancel_futures=True)

    def busy(self, table_id: str) -> bool:
        """Whether the table has a bot's move, a turn timer or a grace pending here."""
        timer = self.timers.get(table_id)
        if isinstance(timer, asyncio.TimerHandle):
            pending = not timer.cancelled()
        else:
            pending = timer is not None and not timer.done()
        return pending or any(t == table_id for t, _player in self.graces)

    # --- bots and the turn timer ----------------------------------------------------------
    def schedule(self, table: Table) -> None:
        """After a change: let a bot move, or start the turn timer of the human to act."""
        old = self.timers.pop(table.id, None)
        if old is not None and old is not asyncio.current_task():
            old.cancel()
        game = table.game
        if (
            game is None
            or game.is_over
            or table.status != "playing"
            or not self.commits.runs(table)
        ):
            return
        if idle.humans_away(table):  # it waits for one of them to come back
            return
        seat = table.seats[game.turn]
        if seat.is_bot:
            self.timers[table.id] = self.hub.spawn(self._bot_turn(table, table.state_version))
        elif table.deadline is not None:
            delay = max(0.0, table.deadline - time.time())
            self.timers[table.id] = asyncio.get_running_loop().call_later(
                delay, self._time_up, table, table.state_version
            )

    def _time_up(self, table: Table, version: int) -> None:
        self.timers[table.id] = self.hub.spawn(self._timeout(table, version))

    async def _bot_turn(self, table: Table, version: int) -> None:
        game = table.game
        assert game is not None
        seat = game.turn
        obs, legal = observe(game, seat), game.legal_moves()
        level = table.seats[seat].bot
        loop = asyncio.get_running_loop()
        seed = bots.bot_seed(table.secret, version)
        pool = self.pool
        began = time.perf_counter()
        try:
            try:
                move = await loop.run_in_executor(pool, bots.choose, level, seed, obs, legal)
            except BrokenExecutor:  # a worker died (killed, out of memory): a fresh pool
                self._restart_pool(pool)
                move = await loop.run_in_executor(self.pool, bots.choose, level, seed, obs, legal)
        except Exception:  # a broken bot must not stall the table: play the fallback
            log.exception("table %s: the %s bot failed; playing the fallback move", table.id, level)
            move = fallback_move(legal)
        self.metrics.bot_seconds.labels(level).observe(time.perf_counter() - began)
        async with self.hub.lock(table.id):
            if (
                table.state_version != version
                or table.game is not game
                or not self.commits.runs(table)
            ):
                return
            kind, fields = move_action(game, move)
            try:
                await self.commits.commit(table, planner.action(table, seat, kind, fields, None))
            except Refused:  # not saved (and logged): the table went back
                return
        self.metrics.actions.labels("bot").inc()

    def _restart_pool(self, broken: Executor) -> None:
        """Replace the bot pool that broke (unless another table's bot turn already did)."""
        if self.pool is not broken:
            return
        log.warning("the bot worker pool broke (a worker died); starting a new one")
        broken.shutdown(wait=False, cancel_futures=True)
        self.pool = bots.make_pool(self.settings.bot_pool, self.settings.bot_workers)
        self.pool_restarts += 1

    async def _timeout(self, table: Table, version: int) -> None:
        async with self.hub.lock(table.id):
            game = table.game
            if table.state_version != version or game is None or not self.commits.runs(table):
                return
            seat = game.turn
            note = planner.applied(table, Pending("timeout", {"seat": seat}))
            kind, fields = table.auto_action()
            try:
                moved = planner.action(table, seat, kind, fields, None)
                await self.commits.commit(table, [note, *moved])
            except Refused:  # not saved (and logged): the table went back
                return
        self.metrics.actions.labels("timer").inc()

    # --- grace ----------------------------------------------------------------------------
    def start_graces(self, table: Table) -> None:
        """A table this process starts running (on start, or a cluster's takeover): its
        seated players who have it open nowhere get the grace period, then their bots play."""
        if table.status != "playing":
            return
        here = table.watching()
        for i, seat in enumerate(table.seats):
            if seat.player is not None and not seat.away and seat.player not in here:
                self.start_grace(table, i, seat.player)

    def start_grace(self, table: Table, seat: int, player: str) -> None:
        """``player`` left ``seat``: after the grace period, the seat is away."""
        key = (table.id, player)
        if key not in self.graces:
            self.graces[key] = self.hub.spawn(self._grace(table, seat, player))

    def end_grace(self, table_id: str, player: str) -> None:
        """``player`` is back at the table: their grace (if running) ends."""
        grace = self.graces.pop((table_id, player), None)
        if grace is not None:
            grace.cancel()

    async def _grace(self, table: Table, seat: int, player: str) -> None:
        # Everyone at the table sees the seat offline at once, with when its bot takes over.
        if self.settings.grace > 0:
            try:
                someone = RemoteActor(player, "", TokenBucket(self.settings.chat))
                await self.dispatch(someone, table.id, "offline")
            except Refused as e:
                log.warning("table %s: %s's lost connection not shown: %s", table.id, player, e)
        await asyncio.sleep(self.settings.grace)
        self.graces.pop((table.id, player), None)
        if any(c.player == player for c in self.hub.conns.get(table.id, ())):
            return
        try:
            someone = RemoteActor(player, "", TokenBucket(self.settings.chat))
            await self.dispatch(someone, table.id, "away")
        except Refused as e:
            log.warning("table %s: %s's absence not recorded: %s", table.id, player, e)
