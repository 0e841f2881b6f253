"""Identity: guests, their signed tokens, and the key tokens are signed with (made by the
first server to start and shared by every node through the database)."""

from __future__ import annotations

import re
import secrets
import time

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from . import auth
from .config import Settings
from .db import PlayerRow, SettingRow
from .errors import database_needed
from .tables import Refused
from .writer import Writer

__all__ = ["Identity"]

_NAME = re.compile(r"^[^\x00-\x1f\x7f]{1,24}$")


class Identity:
    """Who a token names, new guests, and their tokens."""

    def __init__(
        self, settings: Settings, sessions: async_sessionmaker[AsyncSession], writer: Writer
    ) -> None:
        self.settings = settings
        self.sessions = sessions
        self.writer = writer
        self.key = ""
        """The token signing key (read by :meth:`load_key`)."""

    async def load_key(self) -> None:
        """Read the token signing key, made by the first server to start (cluster nodes that
        start together all read the one stored first)."""
        try:
            async with self.sessions.begin() as s:
                row = await s.get(SettingRow, "token_key")
                if row is None:
                    row = SettingRow(key="token_key", value=auth.new_key())
                    s.add(row)
                self.key = row.value
        except IntegrityError:  # another node stored its key first
            async with self.sessions() as s:
                stored = await s.get(SettingRow, "token_key")
            assert stored is not None
            self.key = stored.value

    async def player_of(self, token: str | None) -> PlayerRow:
        """The player a token names; :class:`Refused` if it is missing or forged."""
        if not token:
            raise Refused("auth", "no token: POST /api/guest first")
        try:
            player_id = auth.verify(self.key, token).player
        except auth.TokenError as e:
            raise Refused("auth", str(e)) from None
        with database_needed():
            async with self.sessions() as s:
                player: PlayerRow | None = await s.get(PlayerRow, player_id)
        if player is None:
            raise Refused("auth", "the token names no player of this server")
        return player

    async def new_guest(self, name: str) -> tuple[PlayerRow, str]:
        """A new guest and its token."""
        name = name.strip()
        if not _NAME.match(name):
            raise Refused("bad_name", "a name is 1-24 characters, without control characters")
        player = PlayerRow(id=secrets.token_hex(8), name=name)

        async def store(s: AsyncSession) -> None:
            s.add(PlayerRow(id=player.id, name=player.name))
            await s.flush()

        await self.writer.write(store)
        return player, self.issue(player.id)

    def issue(self, player_id: str) -> str:
        """A fresh token for ``player_id``, valid for the configured lifetime."""
        return auth.issue(self.key, player_id, lifetime=self.settings.token_lifetime)

    def renewal_due(self, token: str) -> bool:
        """Whether a valid token has less than half its lifetime left."""
        left = auth.verify(self.key, token).expires - time.time()
        return left < self.settings.token_lifetime / 2
