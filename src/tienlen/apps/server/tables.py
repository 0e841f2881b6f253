"""A table's live state: seats, the match, and the versioned event log it is rebuilt from.

Every change to a table is an event with the next version number. :meth:`Table.apply` is the
only code that changes a table, and it runs both live (after the event is committed) and when
the server starts again (replaying the stored log), so a restarted server holds every table
exactly as it was. Rules are never decided here: moves go through :class:`~tienlen.Game`
(its reasons become the error messages), what a seat sees comes from
:func:`~tienlen.observation.observe`, scoring and rotation from :class:`~tienlen.Match`.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, get_args

from tienlen import Game, GameRecord, Match, Move, Rules
from tienlen.cards import Card, ids_of_mask
from tienlen.combos import Choice, Give
from tienlen.game import why_refused
from tienlen.observation import Observation, observe
from tienlen.players.base import fallback_move
from tienlen.position import Action, Gift
from tienlen.reasons import Reason
from tienlen.record import ActionKind, RecordedAction, apply_action

from .messages import GameView, Play, SeatInfo, TableEvent, TableInfo, Trade

__all__ = ["Refused", "Seat", "ServerMatch", "Table", "TableConfig", "bot_name", "rules_key"]

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
    """The name of the bot in ``seat`` (from 0): "Bot 2 (greedy)", so that three bots of
    one level at a table can be told apart."""
    return f"Bot {seat + 1} ({level})"


def rules_key(rules: Rules) -> str:
    """A short name for a rule set: the preset's name, plus a digest if knobs changed."""
    if rules.is_preset:
        return rules.name
    return f"{rules.name}+{hashlib.sha256(rules.to_json().encode()).hexdigest()[:10]}"


def _ids(cards: Iterable[Any]) -> list[str]:
    return [c.ascii() for c in cards]


@functools.cache
def _card_id(card: int) -> str:
    return Card.from_id(card).ascii()


def _mask_ids(mask: int) -> list[str]:
    """The cards of a mask as identifiers (each card's text made once: views list every
    hand and legal move on each action)."""
    return [_card_id(i) for i in ids_of_mask(mask)]


@functools.lru_cache(maxsize=4096)  # a view repeats it on every action of the game
def commitment_of(seed: str) -> str:
    """The published commitment to a deal's seed: its SHA-256 in hex."""
    return hashlib.sha256(seed.encode()).hexdigest()


class ServerMatch(Match):
    """A :class:`~tienlen.Match` whose game seeds are independent secrets.

    Each game's seed is an HMAC of the table's secret, so revealing one game's seed (in its
    record, after the game) tells nothing about the next deal, while the whole match stays
    reproducible from the secret (which never leaves the server).
    """

    def __init__(
        self, rules: Rules, *, games: int | None, target: int | None, secret: str, match: int
    ) -> None:
        self._secret = f"{secret}/match{match}"
        super().__init__(rules, games=games, target=target, seed=self._secret)

    def seed_of(self, number: int) -> str:
        """Game ``number``'s seed (secret until that game is over)."""
        digest = hmac.new(self._secret.encode(), f"game{number}".encode(), hashlib.sha256)
        return digest.hexdigest()

    @property
    def deal_seed(self) -> str:
        """The seed the current game's cards came from (a two-player game dealt from a
        four-hand deal's spare hands shares the previous game's seed)."""
        seed = self.game_seed
        return seed if isinstance(seed, str) else self.seed_of(self.number - 1)


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


@dataclass
class Seat:
    """One seat: a player (by id) or a bot, and the bot that stands in when they are away."""

    bot: str
    player: str | None = None
    name: str = ""
    away: bool = False

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
        self.status, self.version, self.state_version = (
            base.status,
            base.version,
            base.state_version,
        )
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

    def seat_of(self, player: str) -> int | None:
        """The seat ``player`` holds here, if any."""
        for i, s in enumerate(self.seats):
            if s.player == player:
                return i
        return None

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
                )
                for i, s in enumerate(self.seats)
            ],
            status=self.status,  # type: ignore[arg-type]
            private=self.config.private,
            turn_timer=self.config.turn_timer,
            games=self.config.games,
            target=self.config.target,
            match=self.match_no,
            game=m.number if m is not None else 0,
            scores=list(m.scores) if m is not None else [0] * self.rules.players,
            spectators=sum(1 for p in self.watching() if self.seat_of(p) is None),
        )

    def view(self, seat: int | None, *, history: bool = False) -> GameView | None:
        """What ``seat`` (``None``: a spectator) may see of the current game (``history``:
        with every action so far, for a full resync)."""
        m = self.match
        if m is None:
            return None
        game = m.game
        obs = observe(game, 0 if seat is None else seat)
        over = game.is_over
        legal = None
        if seat is not None and obs.is_my_turn():
            legal = [_mask_ids(mv.mask) for mv in game.legal_moves()]
        return GameView(
            seat=seat,
            game=m.number,
            dealer=m.dealer,
            commitment=commitment_of(m.deal_seed),
            phase=obs.phase,
            turn=obs.turn,
            hand=None if seat is None else _mask_ids(obs.hand_mask),
            card_counts=list(obs.card_counts if seat is not None else game.shown_counts(None)),
            pile=[_play(a.seat, a.move) for a in obs.pile],
            passed=sorted(obs.passed),
            locked_out=sorted(obs.locked_out),
            straight_locked=obs.straight_locked,
            first_lead=f"{obs.first_lead[0]} {obs.first_lead[1].ascii()}"
            if obs.first_lead
            else None,
            stuck=sorted(obs.stuck),
            finish_order=list(obs.finish_order),
            leader=obs.leader,
            history=[
                _play(a.seat, a.move) if isinstance(a, Action) else _give(a)
                for a in obs.history
                if seat is not None or isinstance(a, Action)
            ]
            if history
            else None,
            trades=_trades(obs, seat),
            legal=legal,
            hands=[_ids(h) for h in game.dealt] if over else None,
        )

    # --- changing -------------------------------------------------------------------------
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
            case "away":
                self.seats[data["seat"]].away = True
            case "back":
                self.seats[data["seat"]].away = False
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
        try:
            act(game.copy(), kind, data)
        except ValueError as e:  # the engine's reason, in words (and as a code)
            raise Refused("illegal", why_refused(e)) from None
        public: dict[str, Any] = {"seat": seat}
        private: dict[str, dict[str, Any]] | None = None
        if kind == "play":
            public["cards"] = data["cards"]
        elif kind == "ask":
            public["partner"] = data["partner"]
            public["count"] = game.cards_left(data["partner"])
        elif kind == "give":
            receiver = game.exchange_receiver(seat)
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


def move_action(game: Game, move: Choice) -> tuple[str, dict[str, Any]]:
    """A chosen :class:`~tienlen.Move` (or :class:`~tienlen.combos.Give`) as an action
    (kind, fields) in ``game``'s phase."""
    if isinstance(move, Give):
        return "give", {"cards": _ids(move.cards)}
    if move.is_pass:
        return ("refuse" if game.pending_trade is not None else "pass"), {}
    return "play", {"cards": _ids(move.cards)}


def act(game: Game, kind: str, data: Mapping[str, Any]) -> None:
    """Make one action (a client's or a stored event's fields) in ``game`` with the record
    module's step; the engine raises (a ``ValueError``) and changes nothing when it is
    illegal."""
    if kind not in get_args(ActionKind):
        raise ValueError(f"unknown action {kind!r}")
    apply_action(
        game,
        RecordedAction(
            seat=data["seat"],
            kind=kind,  # type: ignore[arg-type]
            cards=" ".join(data.get("cards") or ()),
            partner=data.get("partner", -1),
            take=" ".join(data.get("take") or ()),
        ),
    )


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


@functools.lru_cache(maxsize=8192)  # the pile's plays repeat in every seat's view
def _play(seat: int, move: Move) -> Play:
    return Play(seat=seat, kind=move.kind, cards=_mask_ids(move.mask))


def _give(gift: Gift) -> Play:
    return Play(seat=gift.seat, kind="give", cards=_mask_ids(gift.give.mask))


def _trades(obs: Observation, seat: int | None) -> list[Trade]:
    out = []
    for t in obs.trades:
        mine = seat is not None and seat in (t.proposer, t.partner)
        out.append(
            Trade(
                proposer=t.proposer,
                partner=t.partner,
                give=_mask_ids(t.give) if mine else None,
                take=_mask_ids(t.take) if mine else None,
                accepted=t.accepted,
            )
        )
    return out
