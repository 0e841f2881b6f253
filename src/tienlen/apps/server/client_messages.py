"""The client's frames: one pydantic model per ``type``, read strictly by the schema, and
:data:`ClientMessage`, their union at a table's socket, and :data:`LobbyClientMessage`, at the
lobby's (:mod:`.messages` holds the server's side and the schema)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

Cards = Annotated[list[Annotated[str, Field(max_length=4)]], Field(max_length=52)]
Version = Annotated[int, Field(ge=0, description="the table version this client last saw")]


class Message(BaseModel):
    """A protocol message: no unknown field, immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class _ClientMsg(Message):
    """A client frame, read strictly by the schema: no string for a number, no number for a
    boolean."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class SitMsg(_ClientMsg):
    """Take an empty seat (before the match starts)."""

    type: Literal["sit"]
    seat: int


class StandMsg(_ClientMsg):
    """Leave one's seat (before the match starts)."""

    type: Literal["stand"]


class StartMsg(_ClientMsg):
    """The host starts the match; empty seats get their bots."""

    type: Literal["start"]


class RematchMsg(_ClientMsg):
    """The host starts a new match at a finished table, same seats and options."""

    type: Literal["rematch"]


class PlayMsg(_ClientMsg):
    """Play these cards (play phase)."""

    type: Literal["play"]
    cards: Cards
    version: Version


class PassMsg(_ClientMsg):
    """Pass (play phase), or decline to offer a trade (trading phase)."""

    type: Literal["pass"]
    version: Version


class GiveMsg(_ClientMsg):
    """San Jose exchange: give these cards."""

    type: Literal["give"]
    cards: Cards
    version: Version


class OfferMsg(_ClientMsg):
    """Mutual trading: offer ``give`` (own cards) to ``partner`` for ``take`` (theirs)."""

    type: Literal["offer"]
    partner: int
    give: Cards
    take: Cards
    version: Version


class AcceptMsg(_ClientMsg):
    """Accept the trade offered to you."""

    type: Literal["accept"]
    version: Version


class RefuseMsg(_ClientMsg):
    """Refuse the trade offered to you."""

    type: Literal["refuse"]
    version: Version


class AskMsg(_ClientMsg):
    """Ask seat ``partner`` how many cards it holds (rules with ``hidden_counts``; any seat,
    out of turn, during play): the answer is a public ``ask`` event."""

    type: Literal["ask"]
    partner: int
    version: Version


class ChatMsg(_ClientMsg):
    """Say something at the table. ``id``, the client's name for this line (any string of up
    to 32 characters, e.g. a random one), makes sending it again safe: a line whose id its
    sender already used in this match is not said twice (a client that got ``unavailable``
    or ``try_again``, or lost its socket, cannot tell whether the line was said)."""

    type: Literal["chat"]
    text: Annotated[str, Field(min_length=1)]
    id: Annotated[str, Field(min_length=1, max_length=32)] | None = None


class SyncMsg(_ClientMsg):
    """Ask for the events after ``version`` (or a full state when ``version`` is null)."""

    type: Literal["sync"]
    version: Version | None = None


class PingMsg(_ClientMsg):
    """Keep-alive; answered by ``pong``."""

    type: Literal["ping"]


ClientMessage = Annotated[
    SitMsg
    | StandMsg
    | StartMsg
    | RematchMsg
    | PlayMsg
    | PassMsg
    | GiveMsg
    | OfferMsg
    | AcceptMsg
    | RefuseMsg
    | AskMsg
    | ChatMsg
    | SyncMsg
    | PingMsg,
    Field(discriminator="type"),
]
_CLIENT: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


class MoreMsg(_ClientMsg):
    """The lobby socket: send the page of tables after table ``after`` (the last line the
    client shows), and the changes to its lines from now on."""

    type: Literal["more"]
    after: Annotated[str, Field(min_length=1, max_length=64)]


LobbyClientMessage = Annotated[MoreMsg | PingMsg, Field(discriminator="type")]
_LOBBY: TypeAdapter[LobbyClientMessage] = TypeAdapter(LobbyClientMessage)


def parse_client(text: str) -> ClientMessage:
    """Read one client frame; raises pydantic's ``ValidationError`` (a ``ValueError``)."""
    return _CLIENT.validate_json(text)


def parse_lobby(text: str) -> LobbyClientMessage:
    """Read one frame of a lobby socket's client; raises pydantic's ``ValidationError``."""
    return _LOBBY.validate_json(text)
