"""The web protocol's messages: pydantic models, one discriminated union per direction.

A client sends :data:`.client_messages.ClientMessage` frames (JSON objects with a ``type``, in
:mod:`.client_messages`; :data:`.client_messages.LobbyClientMessage` on the lobby's socket); the
server sends
:data:`ServerMessage` frames. Cards are identifiers in ASCII notation (``"3s"``, ``"10h"``,
``"3s'"`` for a second deck's copy). ``docs/web-protocol.md`` documents every message and
``docs/web-protocol.schema.json`` is :func:`json_schema`'s output (a test keeps it current).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from .client_messages import ClientMessage, LobbyClientMessage, Message

__all__ = [
    "ErrorMsg",
    "EventMsg",
    "GameView",
    "KeepAlive",
    "LobbyMsg",
    "LobbyNewMsg",
    "LobbyTableMsg",
    "MovedMsg",
    "ServerMessage",
    "StateMsg",
    "TableEvent",
    "TableInfo",
    "WelcomeMsg",
    "json_schema",
]


# --- server to client ---------------------------------------------------------------------
class SeatInfo(Message):
    """Who is in one seat."""

    seat: int
    player: str | None = None
    """The player's id; ``None`` for a bot seat."""
    name: str
    bot: str | None = None
    """The bot level playing this seat (a bot seat, or an absent player's stand-in)."""
    away: bool = False
    """A seated player is absent and their bot plays for them."""
    grace_until: float | None = None
    """Connection lost: their bot plays from this time (Unix seconds) unless they return."""


class TableInfo(Message):
    """A table as the lobby and its players see it."""

    id: str
    host: str
    preset: str
    options: dict[str, Any]
    """Knobs changed from the preset."""
    rules_code: str
    """The rule set's code (``Rules.code()``): the preset and each changed knob, e.g.
    ``"standard.direction-anticlockwise"``; ``POST /api/tables`` takes it as ``rules``."""
    rules_key: str
    players: int
    seats: list[SeatInfo]
    status: Literal["waiting", "playing", "finished"]
    private: bool
    turn_timer: float | None = None
    games: int | None = None
    target: int | None = None
    match: int
    """The match number at this table (1, then 2 after a rematch, ...)."""
    game: int
    """The current game's number in the match (0 before the start)."""
    scores: list[int]
    spectators: int


class Play(Message):
    """One action in a pile or the history: ``cards`` empty for a pass."""

    seat: int
    kind: str
    cards: list[str]


class Trade(Message):
    """A trade offer; the cards only for its two seats."""

    proposer: int
    partner: int
    give: list[str] | None = None
    take: list[str] | None = None
    accepted: bool | None = None


class GameView(Message):
    """One seat's (or a spectator's) view of the current game, from the engine's observation:
    every field of its play state (``tienlen.position.PlayState``, built in ``views.py``),
    the seat's own hand only, and the table's and the seat's own fields."""

    seat: int | None = None
    """Whose view; ``None`` for a spectator."""
    game: int
    dealer: int
    commitment: str
    """SHA-256 (hex) of the seed this game is dealt from, published at the deal."""
    phase: Literal["trading", "exchange", "play", "over"]
    turn: int
    hand: list[str] | None = None
    """Your cards (``None`` for a spectator; every hand in ``hands`` once the game is over)."""
    card_counts: list[int | None]
    """Cards each seat holds; ``None`` where the rules hide a count (``hidden_counts``) and
    it was not asked (see the engine's ``Game.shown_counts``)."""
    pile: list[Play]
    passed: list[int]
    locked_out: list[int]
    straight_locked: bool
    first_lead: str | None = None
    """While the opening play is constrained: e.g. ``"must-include-lowest 3s"``."""
    stuck: list[int]
    finish_order: list[int]
    leader: int
    opening: list[int] | None = None
    """Under rules with ``opening_bombs``, before the game's first play: the seats still to
    be asked whether they open out of turn, in order (``[]``: the leader's turn); absent
    after it. While a seat is asked, its ``legal`` holds the opening bombs and the pass."""
    history: list[Play] | None = None
    """Every action of the game so far, in ``state`` frames only (an event's view leaves it
    out: the events themselves extend it)."""
    trades: list[Trade]
    legal: list[list[str]] | None = None
    """Your legal moves when it is your turn (``[]`` is the pass), else ``None``."""
    hands: list[list[str]] | None = None
    """Every dealt hand, once the game is over."""
    deadline: float | None = None
    """When a turn timer runs: the time (Unix seconds) the seat to act must act by."""


class TableEvent(Message):
    """One versioned table event; which fields are set depends on ``kind``."""

    kind: Literal[
        "sit",
        "stand",
        "start",
        "deal",
        "play",
        "pass",
        "give",
        "offer",
        "accept",
        "refuse",
        "ask",
        "game_over",
        "match_over",
        "closed",
        "offline",
        "online",
        "away",
        "back",
        "timeout",
        "chat",
        "rematch",
    ]
    seat: int | None = None
    player: str | None = None
    name: str | None = None
    cards: list[str] | None = None
    partner: int | None = None
    """The other seat: offered to (``offer``), asked (``ask``), receiving (``give``)."""
    take: list[str] | None = None
    count: int | None = None
    """For ``ask``: how many cards seat ``partner`` held when ``seat`` asked."""
    text: str | None = None
    id: str | None = None
    """For ``chat``: the id its sender gave the line, if any."""
    game: int | None = None
    commitment: str | None = None
    seed: str | None = None
    finish_order: list[int] | None = None
    deltas: list[int] | None = None
    scores: list[int] | None = None
    record: str | None = None
    """The finished game's id (``GET /api/games/{id}``)."""
    instant_win: str | None = None
    chop: dict[str, int] | None = None
    """For a ``play`` that chops: ``{"victim": seat, "twos": 2s in the play it beat}``."""
    until: float | None = None
    """For ``offline``: when the grace period ends (Unix seconds) and a bot plays for them."""


class KeepAlive(Message):
    """How a client keeps its table socket alive, in seconds (``Settings.keepalive``; the
    lease and forward timeout of the site's nodes set them)."""

    ping: float
    """Ping a socket that has received nothing for this long."""
    silent: float
    """Give a socket up that answers nothing (not even the pong) for this long."""
    open: float
    """Give a socket up that does not open within this long."""
    welcome: float
    """Give a socket up whose welcome has not come this long after it opened (a relayed
    opening waits while the table changes owners)."""


class WelcomeMsg(Message):
    """First frame on a table socket: who you are and where you sit."""

    type: Literal["welcome"] = "welcome"
    player: str
    name: str
    table: str
    seat: int | None = None
    version: int
    now: float | None = None
    """The server's clock (Unix seconds), to read the deadlines in later frames by."""
    keepalive: KeepAlive | None = None
    """How to keep this socket alive (absent: the client's own defaults)."""


class StateMsg(Message):
    """A full resync: the table and your view of the current game."""

    type: Literal["state"] = "state"
    version: int
    table: TableInfo
    view: GameView | None = None


class EventMsg(Message):
    """A table event. One action can make several events (a last play ends the game, the
    next game is dealt): all but the last have ``more`` set, and the last carries your view
    of the game after them all."""

    type: Literal["event"] = "event"
    version: int
    event: TableEvent
    more: bool = False
    view: GameView | None = None
    table: TableInfo | None = None
    """The table, when the event changed seats, status or scores."""


class ErrorMsg(Message):
    """Your last frame was refused; nothing changed at the table."""

    type: Literal["error"] = "error"
    code: str
    message: str
    reason: dict[str, Any] | None = None
    """For an engine's refusal: ``{"code", "params"}``, to word it from the catalogue
    (``GET /api/reasons``; ``tienlen.reasons``) in the reader's language."""
    version: int | None = None


class PongMsg(Message):
    """Answer to ``ping``."""

    type: Literal["pong"] = "pong"


class MovedMsg(Message):
    """A cluster's table socket opened at a node that does not own the table: open it at
    ``url`` instead (the owner's table socket, without a query; the socket then closes with
    4307). Without ``url``: open it again where it was first opened (the table changed
    owners)."""

    type: Literal["moved"] = "moved"
    url: str | None = None


class LobbyMsg(Message):
    """A page of the listed tables, newest first: the lobby socket's first frame (the first
    page), and the answer to ``more`` (the page after table ``after``)."""

    type: Literal["lobby"] = "lobby"
    tables: list[TableInfo]
    after: str | None = None


class LobbyTableMsg(Message):
    """A table the lobby socket's client shows changed (or left the list: ``removed``)."""

    type: Literal["lobby_table"] = "lobby_table"
    table: TableInfo
    removed: bool = False


class LobbyNewMsg(Message):
    """The tables listed since the last such frame (at most the lines the client has room
    for), newest first: they go first."""

    type: Literal["lobby_new"] = "lobby_new"
    tables: list[TableInfo]


ServerMessage = Annotated[
    WelcomeMsg
    | StateMsg
    | EventMsg
    | ErrorMsg
    | PongMsg
    | MovedMsg
    | LobbyMsg
    | LobbyTableMsg
    | LobbyNewMsg,
    Field(discriminator="type"),
]
_SERVER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def parse_server(text: str) -> ServerMessage:
    """Read one server frame (for clients and tests)."""
    return _SERVER.validate_json(text)


def json_schema() -> str:
    """Both directions' JSON Schema, as the text checked into docs."""
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "tienlen web protocol",
        "client_message": TypeAdapter(ClientMessage).json_schema(),
        "lobby_client_message": TypeAdapter(LobbyClientMessage).json_schema(),
        "server_message": _SERVER.json_schema(),
    }
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"
