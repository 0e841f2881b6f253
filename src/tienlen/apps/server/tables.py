"""A table's live state: seats, the match, and the versioned event log it is rebuilt from.

Every change to a table is an event with the next version number. :meth:`Table.apply` is the
only code that changes a table, and it runs both live (after the event is committed) and when
a table is loaded (replaying the stored log), so a loaded table is exactly as it was. Rules
are never decided here: moves go through :class:`~tienlen.Game` (its reasons become the error
messages), what a seat sees comes from
:func:`~tienlen.observation.observe`, scoring and rotation from :class:`~tienlen.Match`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from tienlen import Game, GameRecord, Rules
from tienlen.game import why_refused
from tienlen.players.base import fallback_move
from tienlen.reasons import Reason

from .actions import act, chop_made, move_action
from .deals import ServerMatch, commitment_of
from .messages import SeatInfo, TableEvent, TableInfo
from .options import TableConfig
from .views import Views, game_views

__all__ = ["Pending", "Refused", "Seat", "Table", "bot_name", "rules_key"]

#: Events that change a table (the others are announcements: chat, timeouts, and a card
#: count asked, which no move depends on).
_STATE_KINDS = frozenset(
    {"sit", "stand", "start", "rematch", "deal", "play", "pass", "give", "offer", "accept"}
    | {"refuse", "game_over", "match_over", "closed", "away", "back"}
)


class Refused(ValueError):
    """A client's request that cannot be done; ``code`` names the kind of problem. An
    engine's refusal (a :class:`~tienlen.reasons.Reason` as ``message``) keeps its reason
    code and parameters, so clients translate it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.reason = message.to_dict() if isinstance(message, Reason) else None


def bot_name(seat: int, level: str) -> str:
    """The name of the bot in ``seat`` (from 0): "Bot 2 (easy)", so that three bots of
    one level at a table can be told apart."""
    return f"Bot {seat + 1} ({level})"


def rules_key(rules: Rules) -> str:
    """A short name for a rule set: the preset's name, plus a digest if knobs changed."""
    if rules.is_preset:
        return rules.name
    return f"{rules.name}+{hashlib.sha256(rules.to_json().encode()).hexdigest()[:10]}"


@dataclass
class Seat:
    """One seat: a player (by id) or a bot, and the bot that stands in when they are away."""

    bot: str
    player: str | None = None
    name: str = ""
    away: bool = False
    grace_until: float | None = None
    """While the player's connection is lost: when their bot takes over (Unix seconds)."""

    @property
    def is_bot(self) -> bool:
        """Whether a bot makes this seat's moves now."""
        return self.player is None or self.away


@dataclass
class Pending:
    """An event about to be committed: what everyone sees, and what only some seats see."""

    kind: str
    public: dict[str, Any]
    private: dict[str, dict[str, Any]] | None = None
    actor: str | None = None
    game_row: dict[str, Any] | None = None
    """For ``game_over``: the finished game to store."""
    version: int = 0
    """Set when the event is applied."""


@dataclass
class Table:
    """The live table."""

    id: str
    host: str
    config: TableConfig
    secret: str
    invite: str | None
    seats: list[Seat] = field(default_factory=list)
    status: str = "waiting"
    version: int = 0
    state_version: int = 0
    """The version of the last event that changed the game (actions must have seen it)."""
    match_no: int = 0
    match: ServerMatch | None = None
    reported: int = 0
    """The number of the last game whose ``game_over`` event is out."""
    viewers: dict[str, int] = field(default_factory=dict)
    """Open sockets per player (not stored: who watches now)."""
    remote_viewers: dict[str, frozenset[str]] = field(default_factory=dict)
    """In a cluster, who watches through each other node (by node id)."""
    deadline: float | None = None
    """While a turn timer runs: when the seat to act must act (Unix seconds; not stored)."""
    deadline_version: int = -1
    """The :attr:`state_version` :attr:`deadline` was set at."""
    fence: int | None = None
    """In a cluster, the fencing token this node owns the table under (every write of its
    events is checked against it); ``None`` on a single server and on a node that does not
    own the table."""
    _base: _Checkpoint = field(init=False, repr=False)
    _log: list[tuple[str, Mapping[str, Any]]] = field(init=False, repr=False)
    """The events applied since :attr:`_base`, to go back to any version after it."""

    def __post_init__(self) -> None:
        if not self.seats:
            self.seats = [Seat(bot=b, name=bot_name(i, b)) for i, b in enumerate(self.config.bots)]
        self._checkpoint()

    def _checkpoint(self) -> None:
        """Remember the state now; :meth:`rollback` replays the events since."""
        self._base = _Checkpoint(
            seats=[replace(s) for s in self.seats],
            status=self.status,
            version=self.version,
            state_version=self.state_version,
            match_no=self.match_no,
            match=self.match,  # never changed once a new match replaces it
            reported=self.reported,
        )
        self._log = []

    def rollback(self, version: int) -> None:
        """Go back to ``version``: undo the events after it (ones whose commit failed), by
        replaying this match's events up to it from the checkpoint taken at its start."""
        base, log = self._base, self._log
        if not base.version <= version <= self.version:
            raise ValueError(f"cannot go back to version {version} from {self.version}")
        self.seats = [replace(s) for s in base.seats]
        self.status, self.version = base.status, base.version
        self.state_version = base.state_version
        self.match_no, self.match, self.reported = base.match_no, base.match, base.reported
        self._log = []
        for kind, data in log[: version - base.version]:
            self.apply(kind, data)

    # --- reading --------------------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        """The table's rules."""
        return self.config.rules

    @property
    def game(self) -> Game | None:
        """The current game, once the match has started."""
        return self.match.game if self.match is not None else None

    @property
    def turn_timer(self) -> float | None:
        """The turn timer in force: :meth:`.options.TableConfig.timer_for` the people seated."""
        return self.config.timer_for(sum(1 for s in self.seats if s.player is not None))

    def seat_of(self, player: str) -> int | None:
        """The seat ``player`` holds here, if any."""
        return next((i for i, s in enumerate(self.seats) if s.player == player), None)

    def watching(self) -> set[str]:
        """The players with the table open, here or (in a cluster) at another node."""
        return set(self.viewers).union(*self.remote_viewers.values())

    def info(self) -> TableInfo:
        """The table for the lobby and the players."""
        m = self.match
        return TableInfo(
            id=self.id,
            host=self.host,
            preset=self.config.preset,
            options=dict(self.config.options),
            rules_code=self.rules.code(),
            rules_key=rules_key(self.rules),
            players=self.rules.players,
            seats=[
                SeatInfo(
                    seat=i,
                    player=s.player,
                    name=s.name,
                    bot=s.bot if s.is_bot else None,
                    away=s.away,
                    grace_until=s.grace_until,
                )
                for i, s in enumerate(self.seats)
            ],
            status=self.status,  # type: ignore[arg-type]
            private=self.config.private,
            turn_timer=self.turn_timer,
            games=self.config.games,
            target=self.config.target,
            match=self.match_no,
            game=m.number if m is not None else 0,
            scores=list(m.scores) if m is not None else [0] * self.rules.players,
            spectators=sum(1 for p in self.watching() if self.seat_of(p) is None),
        )

    def views(self, seats: Collection[int | None], *, history: bool = False) -> Views:
        """What each of ``seats`` (``None``: a spectator) may see of the current game, none
        before the match (``history``: with every action so far, for a full resync)."""
        m = self.match
        if m is None:
            return {}
        return game_views(
            m.game,
            seats,
            number=m.number,
            dealer=m.dealer,
            commitment=commitment_of(m.deal_seed),
            history=history,
            deadline=self.deadline,
        )

    # --- changing -------------------------------------------------------------------------
    def said(self, player: str, line: str) -> bool:
        """Whether ``player`` said a chat line with the id ``line`` in this match (or, before
        the first, since the table was made): the events since the last start hold them."""
        return any(
            kind == "chat" and data.get("id") == line and data.get("player") == player
            for kind, data in self._log
        )

    def apply(self, kind: str, data: Mapping[str, Any]) -> int:
        """Apply one event (``data``: its public and its actor's private fields); returns its
        version.

        Live events were checked before they were committed; stored ones replay as they were.
        """
        if kind in ("start", "rematch"):  # a new match: what came before is kept as it is
            self._checkpoint()
        self._log.append((kind, data))
        match kind:
            case "sit":
                seat = self.seats[data["seat"]]
                seat.player, seat.name = data["player"], data["name"]
            case "stand":
                seat = self.seats[data["seat"]]
                seat.player, seat.name = None, bot_name(data["seat"], seat.bot)
            case "start" | "rematch":
                self.match_no += 1
                self.status = "playing"
                self.reported = 0
                self.match = ServerMatch(
                    self.rules,
                    games=self.config.games,
                    target=self.config.target,
                    secret=self.secret,
                    match=self.match_no,
                )
            case "deal":
                assert self.match is not None
                if self.match.number < data["game"]:
                    self.match.new_game()
            case "play" | "pass" | "give" | "offer" | "accept" | "refuse" | "ask":
                assert self.game is not None
                act(self.game, kind, data)
            case "game_over":
                self.reported = data["game"]
            case "match_over" | "closed":
                self.status = "finished"
            case "offline" | "online" | "away" | "back":  # a grace runs only while offline
                seat = self.seats[data["seat"]]
                seat.grace_until = data["until"] if kind == "offline" else None
                seat.away = kind == "away" or (seat.away and kind == "offline")
        if kind in _STATE_KINDS:
            self.state_version = self.version + 1
        self.version += 1
        return self.version

    def followups(self) -> list[Pending]:
        """The events the state now calls for (a finished game's result, the next deal, the
        match's end), each applied as it is made."""
        out: list[Pending] = []
        m = self.match
        while m is not None and self.status == "playing":
            game = m.game
            if not game.is_over:
                break
            if self.reported < m.number:
                p = self._game_over(m)
            elif m.is_over:
                p = Pending("match_over", {"scores": list(m.scores)})
            else:
                p = Pending("deal", {"game": m.number + 1})
            p.version = self.apply(p.kind, p.public)
            if p.kind == "deal":
                p.public["commitment"] = commitment_of(m.deal_seed)
            out.append(p)
        return out

    def deal_event(self) -> Pending:
        """The announcement of the current game's deal (after ``start`` or ``rematch``)."""
        assert self.match is not None
        p = Pending("deal", {"game": self.match.number})
        p.version = self.apply("deal", p.public)
        p.public["commitment"] = commitment_of(self.match.deal_seed)
        return p

    def _game_over(self, m: ServerMatch) -> Pending:
        game = m.game
        result = m.record_game()
        seed = m.deal_seed
        names = [s.name for s in self.seats]
        record = GameRecord.from_game(game, seed=seed, names=names).to_dict()
        game_id = f"{self.id}-{self.match_no}-{m.number}"
        public: dict[str, Any] = {
            "game": m.number,
            "seed": seed,
            "finish_order": list(result.finish_order),
            "deltas": list(result.deltas),
            "scores": list(m.scores),
            "record": game_id,
            "instant_win": result.instant_win[1] if result.instant_win else None,
        }
        row = {
            "id": game_id,
            "match": self.match_no,
            "number": m.number,
            "rules_key": rules_key(self.rules),
            "record": record,
            "seats": [
                {
                    "player": s.player,
                    "bot": s.bot if s.player is None else None,
                    "place": result.finish_order.index(i),
                    "delta": result.deltas[i],
                }
                for i, s in enumerate(self.seats)
            ],
        }
        return Pending("game_over", public, game_row=row)

    # --- actions --------------------------------------------------------------------------
    def plan_action(self, seat: int, kind: str, fields: Mapping[str, Any]) -> Pending:
        """Check an action against the engine without changing anything; the event to commit.

        Raises :class:`Refused` with the engine's reason when the action is illegal."""
        game = self.game
        if game is None or self.status != "playing":
            raise Refused("not_playing", "the match has not started")
        if game.is_over:
            raise Refused("illegal", "the game is over")
        if seat != game.turn and kind != "ask":  # a card count is asked out of turn
            raise Refused("not_your_turn", f"it is seat {game.turn}'s turn, not yours")
        data: dict[str, Any] = {"seat": seat, **fields}
        trial = game.copy()
        try:
            act(trial, kind, data)
        except ValueError as e:  # the engine's reason, in words (and as a code)
            raise Refused("illegal", why_refused(e)) from None
        public: dict[str, Any] = {"seat": seat}
        private: dict[str, dict[str, Any]] | None = None
        if kind == "play":
            public["cards"] = data["cards"]
            if chop := chop_made(game, trial):
                public["chop"] = chop
        elif kind == "ask":
            public["partner"] = data["partner"]
            public["count"] = game.cards_left(data["partner"])
        elif kind == "give":
            receiver = game.exchange_receiver(seat)
            public["partner"] = receiver  # who receives is the rules' (public); the cards not
            private = {str(s): {"cards": data["cards"]} for s in {seat, receiver} if s is not None}
        elif kind == "offer":
            public["partner"] = data["partner"]
            secret = {"cards": data["cards"], "take": data["take"]}
            private = {str(seat): secret, str(data["partner"]): secret}
        return Pending(kind, public, private)

    def auto_action(self) -> tuple[str, dict[str, Any]]:
        """The move a bot's choice or the turn timer makes: (kind, fields) for the seat to act."""
        game = self.game
        assert game is not None
        return move_action(game, fallback_move(game.legal_moves()))


@dataclass(frozen=True)
class _Checkpoint:
    """A table's state at one version (the match object as it was then)."""

    seats: list[Seat]
    status: str
    version: int
    state_version: int
    match_no: int
    match: ServerMatch | None
    reported: int


def merged(public: Mapping[str, Any], private: Mapping[str, Any] | None) -> dict[str, Any]:
    """A stored event's data as its actor saw it (the actor's private share included), to
    :meth:`Table.apply` it again."""
    seat = public.get("seat")
    share = private.get(str(seat), {}) if private and seat is not None else {}
    return {**public, **share}


def event_model(kind: str, public: Mapping[str, Any], private: Mapping[str, Any]) -> TableEvent:
    """The event as one recipient sees it (``private``: that recipient's share, or empty)."""
    return TableEvent(kind=kind, **{**public, **private})  # type: ignore[arg-type]
