"""One deal of Tiến Lên: the state and its transitions.

The turn order follows RULES.md "Turn order, precisely": after any play or pass the turn
moves in the playing direction to the next player who may act (holds cards, has not
passed since the last play, and is not locked out, unless 2s are on top and the rules let
locked-out players bomb). When that search reaches the player who made the last play,
everyone else has passed: that player wins the pile (or, with stacking, may go on).

The parts live by concept: dealing and instant wins in :mod:`tienlen.deal`, the exchanges
before the play in :mod:`tienlen.exchanges` (mutual trading, the San Jose exchange) and
:mod:`tienlen.debts` (card debts), the play's legal moves in :mod:`tienlen.play`;
:class:`Game` holds the state, moves it from phase to phase and says why a move is refused
(inline, on its own fields: the check runs on every validated play).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .cards import (
    Card,
    cards_of_mask,
    deck_mask,
    format_cards,
    mask_of,
    parse_cards,
)
from .combos import (
    PASS,
    Choice,
    Give,
    Move,
    MoveParseError,
    classify_mask,
    index,
    is_one_suit,
    parse_choice,
    why_not_beats,
)
from .deal import deal, explicit_hands, instant_win_of, union
from .debts import CardDebt, Settlement
from .exchanges import MutualTrading, SanJoseExchange, TradeOffer, subsets
from .movegen import MoveTable, table_for
from .play import finishes_on_two, leads, opens, play_moves, twos_under
from .position import Action, Entry, Gift, Phase, PlayState, parse_position
from .reasons import Reason, kind_param, reason
from .rules import FirstLead, Rules

__all__ = [
    "Action",
    "Chop",
    "CountAsk",
    "Game",
    "GameSetup",
    "Gift",
    "IllegalMoveError",
    "TradeOffer",
    "why_refused",
]


class IllegalMoveError(ValueError):
    """A move the rules do not allow now. The game is unchanged.

    ``why`` says why, in English (a :class:`~tienlen.reasons.Reason`, with its stable code
    and parameters for translation, where the engine has one: then ``reason`` is it too);
    ``move`` is the move refused and ``state`` the position it was refused in
    (:attr:`Game.position`), where a move was tried. The message quotes the move:
    ``"illegal move 'K♦': a 3-card straight ..."``; :func:`why_refused` gives the reason
    alone, for callers that name the action themselves.
    """

    def __init__(
        self, why: str, *, move: Choice | None = None, state: PlayState | None = None
    ) -> None:
        super().__init__(f"illegal move {str(move)!r}: {why}" if move is not None else why)
        self.why = why
        self.reason: Reason | None = why if isinstance(why, Reason) else None
        self.move = move
        self.state = state


def why_refused(error: ValueError) -> str:
    """Why ``error`` refused an action, the move not quoted: an :class:`IllegalMoveError`'s
    ``why`` (a :class:`~tienlen.reasons.Reason` where it is one), else the message."""
    return error.why if isinstance(error, IllegalMoveError) else str(error)


class Chop(NamedTuple):
    """A bomb played on a play of another kind (``proplay`` pays for these)."""

    seat: int
    victim: int
    bomb: Move
    target: Move


class CountAsk(NamedTuple):
    """``asker`` asked ``seat`` how many cards it holds and was told ``cards``, after the
    first ``at`` actions of the history (``rules.hidden_counts``; see :meth:`Game.ask_count`)."""

    asker: int
    seat: int
    cards: int
    at: int


class GameSetup(NamedTuple):
    """What a game was started from: ``Game(rules, hands=..., leader=...,
    previous_finish=...)`` with these values deals the same game again (records use it)."""

    hands: tuple[tuple[Card, ...], ...]
    """The hands as dealt, before a spare card, a trade or an exchange changed them."""
    leader: int | None
    """The seat given as free leader, or ``None`` when ``rules.first_lead`` applied."""
    previous_finish: tuple[int, ...] | None
    """The previous game's finish order given for a San Jose exchange, if any."""
    debts: tuple[CardDebt, ...] = ()
    """The card debts settled after the deal (chop debts, the loser's 2s), if any."""


class Game:
    """A deal of Tiến Lên under ``rules``: deal, optional trading, play, result.

    ``hands`` gives an explicit deal (one card sequence or notation string per seat);
    otherwise the deck is shuffled with ``seed`` (``None``: a cryptographic shuffle).
    ``leader`` is the seat that leads freely; ``None`` applies ``rules.first_lead``.
    ``previous_finish`` (the last game's finish order) enables the San Jose exchange.
    ``debts`` (:class:`~tienlen.debts.CardDebt`, from the last game of a match) are settled
    after the deal, in an ``"exchange"`` phase where needed (see :mod:`tienlen.debts`).
    """

    __slots__ = (
        "_asks",
        "_chops",
        "_dealt",
        "_exchange",
        "_finish",
        "_first",
        "_hands",
        "_history",
        "_instant",
        "_leader",
        "_lock",
        "_locked",
        "_lowest",
        "_opening",
        "_passed",
        "_phase",
        "_pile",
        "_receivers",
        "_redeals",
        "_rules",
        "_setup",
        "_spare",
        "_spare_taker",
        "_stuck",
        "_tables",
        "_trading",
        "_turn",
        "_unused",
    )

    def _fresh(self) -> None:
        """The fields of what has not happened yet, as a new deal and a game built from a
        state (:meth:`from_state`) both start: no history, exchange, chop, ask... (Before
        ``__init__``, so that these annotations declare the fields' types.)"""
        self._unused: tuple[int, ...] = ()
        self._redeals: int = 0
        self._history: list[Entry] = []
        self._chops: list[Chop] = []
        self._instant: tuple[int, str] | None = None
        self._trading: MutualTrading | None = None
        self._exchange: Settlement | SanJoseExchange | None = None
        self._receivers: tuple[int, ...] = ()
        self._asks: tuple[CountAsk, ...] = ()
        self._spare_taker: int | None = None

    def __init__(
        self,
        rules: Rules | str = "standard",
        *,
        hands: Sequence[Iterable[Card] | str] | None = None,
        seed: int | str | None = None,
        leader: int | None = None,
        previous_finish: Sequence[int] | None = None,
        debts: Sequence[CardDebt] = (),
        _shell: bool = False,
    ) -> None:
        if isinstance(rules, str):
            rules = Rules.preset(rules)
        self._rules = rules
        if _shell:
            # An empty game for copy() and from_state() to fill in: a class compiled with
            # mypyc can only be made through __init__ (no object.__new__).
            return
        n = rules.players
        self._fresh()
        if hands is not None:
            masks = explicit_hands(rules, hands)
            self._spare = deck_mask(rules.decks) & ~union(masks)
        else:
            shuffled = deal(rules, seed)
            masks, self._spare = shuffled.hands, shuffled.spare
            self._unused, self._redeals = shuffled.unused, shuffled.redeals
        if leader is not None and not 0 <= leader < n:
            raise ValueError(f"leader must be a seat 0-{n - 1}, not {leader!r}")
        debts = tuple(CardDebt(*d) for d in debts)
        for d in debts:
            if not (0 <= d.debtor < n and 0 <= d.creditor < n and d.debtor != d.creditor):
                raise ValueError(f"a card debt needs two different seats 0-{n - 1}, not {d!r}")
            if d.cards < 1:
                raise ValueError(f"a card debt is of one card or more, not {d!r}")
        if debts and rules.trading != "none":
            raise ValueError("card debts cannot be settled in a game with trading")
        self._setup: tuple[
            tuple[int, ...], int | None, tuple[int, ...] | None, tuple[CardDebt, ...]
        ] = (
            tuple(masks),
            leader,
            tuple(previous_finish) if previous_finish is not None else None,
            debts,
        )
        self._first: FirstLead | None = None
        self._lowest = -1
        if leader is None:
            dealt = union(masks)
            self._lowest = (dealt & -dealt).bit_length() - 1
            leader = next(s for s in range(n) if masks[s] >> self._lowest & 1)
            mode = rules.first_lead
            self._first = None if mode == "holder-free" else mode
        if rules.starter_takes_spare and self._spare.bit_count() == 1:
            masks[leader] |= self._spare
            self._spare = 0
            self._spare_taker = leader
        self._hands: list[int] = masks
        self._dealt: tuple[int, ...] = tuple(masks)
        self._tables: list[MoveTable | None] = [None] * n
        self._leader = leader
        self._turn = leader
        self._pile: tuple[Action, ...] = ()
        self._passed = 0
        self._locked = 0
        self._lock = False
        self._stuck = 0
        self._finish: list[int] = []
        self._opening: tuple[int, ...] | None = None
        self._phase: Phase = "play"
        if rules.trading == "mutual":
            self._phase = "trading"
            self._trading = MutualTrading(leader, n, rules.step)
        elif rules.trading == "san-jose" and previous_finish is not None:
            self._exchange = SanJoseExchange.after(previous_finish, n)
            self._after_exchange()
        else:
            self._check_instant_wins(frozenset(d.debtor for d in debts))
            if self._phase == "play" and debts:
                settle = Settlement(debts, rules.debt_card)
                settle.start(self._hands)
                self._exchange = settle
                self._after_exchange()
            elif self._phase == "play":
                self._begin_play()

    # --- set-up -------------------------------------------------------------------------
    def _check_instant_wins(self, debtors: frozenset[int] = frozenset()) -> None:
        wins = self._rules.instant_wins
        if not wins or self._rules.trading != "none":
            return
        for seat in self._seats_from(self._turn):
            # 004: "A player can only claim an instant win with four 2s when dealt the four
            # 2s and when not owing anybody."
            allowed = [w for w in wins if w != "four-twos"] if seat in debtors else wins
            name = instant_win_of(self._hands[seat], allowed)
            if name:
                self._instant = (seat, name)
                self._end_with_winner(seat)
                return

    def _begin_play(self) -> None:
        """The play phase starts with the leader, after the seats that may open out of turn
        (``rules.opening_bombs``: 004, "Three consecutive pairs can be played at the
        beginning of the game without being the lead") are asked in turn."""
        self._phase = "play"
        self._turn = self._leader
        if self._rules.opening_bombs:
            self._opening = tuple(self._seats_from(self._leader)[1:])
            self._turn = self._opening[0] if self._opening else self._leader

    def _after_exchange(self) -> None:
        """After an exchange started or a give: the next give, or the play."""
        ex = self._exchange
        assert ex is not None
        self._tables = [None] * self._rules.players
        if ex.chooser is not None:
            self._phase = "exchange"
            self._turn = ex.chooser
            return
        self._after_hand_overs()

    def _after_hand_overs(self) -> None:
        """The cards have changed hands before the play (an exchange or the trading): the
        hands are final, and the play starts."""
        self._dealt = tuple(self._hands)
        if self._setup[1] is None:
            # the first leader holds the lowest card once the cards have moved (a San Jose
            # winner may give the 3♠ away, a trade may swap it)
            self._leader = next(
                s for s in range(self._rules.players) if self._hands[s] >> self._lowest & 1
            )
        self._begin_play()

    # --- public state -------------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        """The rules this game is played under."""
        return self._rules

    @property
    def turn(self) -> int:
        """The seat to act (meaningless once the game is over)."""
        return self._turn

    @property
    def phase(self) -> Phase:
        """``"trading"``, ``"exchange"``, ``"play"`` or ``"over"``."""
        return self._phase

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._phase == "over"

    @property
    def finish_order(self) -> tuple[int, ...]:
        """Seats in the order they went out; once over, every seat with the loser last."""
        return tuple(self._finish)

    @property
    def winner(self) -> int | None:
        """The first seat out, if any."""
        return self._finish[0] if self._finish else None

    @property
    def loser(self) -> int | None:
        """The last seat, once the game is over."""
        return self._finish[-1] if self._phase == "over" else None

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Every seat's cards, lowest first."""
        return tuple(cards_of_mask(h) for h in self._hands)

    @property
    def hand_masks(self) -> tuple[int, ...]:
        """Every seat's cards as bitmasks."""
        return tuple(self._hands)

    @property
    def dealt(self) -> tuple[tuple[Card, ...], ...]:
        """The hands as dealt (after a lone spare card went to :attr:`spare_taker`)."""
        return tuple(cards_of_mask(h) for h in self._dealt)

    @property
    def setup(self) -> GameSetup:
        """The hands, leader, previous finish and card debts this game was started from."""
        masks, leader, previous, debts = self._setup
        return GameSetup(tuple(cards_of_mask(h) for h in masks), leader, previous, debts)

    @property
    def unused_hands(self) -> tuple[tuple[Card, ...], ...]:
        """Hands dealt but not played (``deal_four_hands`` with fewer than four players)."""
        return tuple(cards_of_mask(h) for h in self._unused)

    @property
    def leader(self) -> int:
        """The seat that led (or had to lead) the first pile."""
        return self._leader

    @property
    def spare_taker(self) -> int | None:
        """The seat that took the lone card left over by the deal
        (``rules.starter_takes_spare``), ``None`` if none did. It is the first leader as
        dealt; after a trade or an exchange moved the lowest card, :attr:`leader` may differ.
        Public: every seat sees the card taken (and the leader before the cards move)."""
        return self._spare_taker

    @property
    def history(self) -> tuple[Entry, ...]:
        """Every play and pass (:class:`Action`) and give (:class:`Gift`) of the game, in
        order."""
        return tuple(self._history)

    @property
    def pile(self) -> tuple[Action, ...]:
        """The plays of the current pile (passes left out), oldest first."""
        return self._pile

    @property
    def top(self) -> Action | None:
        """The play to beat, or ``None`` when the seat to act leads a fresh pile."""
        return self._pile[-1] if self._pile else None

    @property
    def passed(self) -> frozenset[int]:
        """Seats that passed since the last play."""
        return frozenset(s for s in range(self._rules.players) if self._passed >> s & 1)

    @property
    def locked_out(self) -> frozenset[int]:
        """Seats locked out of the current pile by passing."""
        return frozenset(s for s in range(self._rules.players) if self._locked >> s & 1)

    @property
    def straight_locked(self) -> bool:
        """Whether a one-suit straight has locked the pile."""
        return self._lock

    @property
    def first_lead_rule(self) -> tuple[FirstLead, Card] | None:
        """The constraint on the opening play still pending: (mode, lowest card)."""
        return (self._first, Card.from_id(self._lowest)) if self._first else None

    @property
    def instant_win(self) -> tuple[int, str] | None:
        """``(seat, hand name)`` if the game was won at the deal."""
        return self._instant

    @property
    def chops(self) -> tuple[Chop, ...]:
        """Bombs played on plays of another kind, in order."""
        return tuple(self._chops)

    @property
    def trades(self) -> tuple[TradeOffer, ...]:
        """Trade offers made in the trading phase, with their answers."""
        return () if self._trading is None else tuple(self._trading.offers)

    @property
    def trading_leader(self) -> int | None:
        """The seat that had the first chance to offer in the trading phase (the round of
        offers starts there), ``None`` without mutual trading. The first leader of the play
        may differ: whoever holds the lowest card once the trades are done."""
        return None if self._trading is None else self._trading.leader

    @property
    def pending_trade(self) -> TradeOffer | None:
        """The offer awaiting an answer from the seat to act, if any."""
        return None if self._trading is None else self._trading.pending

    @property
    def stuck(self) -> frozenset[int]:
        """Leaders who passed the lead for want of a legal play, since the last play."""
        return frozenset(s for s in range(self._rules.players) if self._stuck >> s & 1)

    @property
    def give_receivers(self) -> tuple[int, ...]:
        """The seat that received each give of :attr:`history`, in order."""
        return self._receivers

    @property
    def hand_overs(self) -> tuple[tuple[int, int, int], ...]:
        """Card debts' transfers so far, ``(giver, receiver, cards mask)``, in order (the
        ones the rules chose as well as the gives)."""
        if not isinstance(self._exchange, Settlement):
            return ()
        return tuple((h.giver, h.receiver, h.cards) for h in self._exchange.log)

    @property
    def opening(self) -> tuple[int, ...] | None:
        """Before the game's first play under ``rules.opening_bombs``: the seats still to be
        asked whether they open out of turn (empty: the leader's turn); ``None`` after it."""
        return self._opening

    @property
    def redeals(self) -> int:
        """How many deals were void before this one (``rules.redeal_four_twos``)."""
        return self._redeals

    @property
    def asks(self) -> tuple[CountAsk, ...]:
        """Every card count asked for and answered, in order (``rules.hidden_counts``)."""
        return self._asks

    def shown_counts(self, seat: int | None) -> tuple[int | None, ...]:
        """The card counts ``seat`` sees (``None``: a spectator): every count, unless
        ``rules.hidden_counts``; then its own, those of the seats that are out (none) and
        those still as the last answer to an ask gave them, ``None`` for the others; every
        count once the game is over (the hands are laid down for the score)."""
        counts = [m.bit_count() for m in self._hands]
        if not self._rules.hidden_counts or self._phase == "over":
            return tuple(counts)
        shown: list[int | None] = [None] * len(counts)
        if seat is not None:
            shown[seat] = counts[seat]
        for s in self._finish:
            shown[s] = 0
        for ask in self._asks:
            # In play a hand only shrinks, by its own plays: an unchanged count is a hand
            # that has not played since it was asked.
            if counts[ask.seat] == ask.cards:
                shown[ask.seat] = ask.cards
        return tuple(shown)

    def ask_count(self, asker: int, seat: int) -> int:
        """Under ``rules.hidden_counts``, ``asker`` asks ``seat`` how many cards it holds, out
        of turn, and every seat hears the answer (004: "When requested, a player must reveal
        the number of cards in his or her hand"). The answer is the count now; observations
        show it until ``seat`` plays again (see :meth:`shown_counts`). Asking again while the
        answer still stands repeats it without a new entry in :attr:`asks`. Raises
        :class:`IllegalMoveError` when the rules show counts anyway, outside the play phase,
        or for a seat that cannot be asked."""
        n = self._rules.players
        if not 0 <= asker < n:
            raise ValueError(f"asker must be a seat 0-{n - 1}, not {asker!r}")
        if not self._rules.hidden_counts:
            raise IllegalMoveError(reason("counts_shown"))
        if self._phase == "over":
            raise IllegalMoveError(reason("game_over"))
        if self._phase != "play":
            raise IllegalMoveError(reason("ask_in_play"))
        if type(seat) is not int or not 0 <= seat < n or seat == asker:
            raise IllegalMoveError(reason("bad_ask", seat=repr(seat)))
        count = self._hands[seat].bit_count()
        if not any(a.seat == seat and a.cards == count for a in self._asks):
            self._asks = (*self._asks, CountAsk(asker, seat, count, len(self._history)))
        return count

    def exchange_receiver(self, giver: int) -> int | None:
        """In an exchange (San Jose, or card debts), the seat that receives ``giver``'s
        cards (for card debts: while ``giver`` is the seat to give)."""
        return None if self._exchange is None else self._exchange.receiver_of(giver)

    def cards_left(self, seat: int) -> int:
        """How many cards ``seat`` holds."""
        return self._hands[seat].bit_count()

    # --- moves ---------------------------------------------------------------------------
    def table(self, seat: int) -> MoveTable:
        """The move table of ``seat``'s current hand."""
        t = self._tables[seat]
        if t is None:
            t = self._tables[seat] = table_for(self._hands[seat], self._rules)
        return t

    def legal_moves(self) -> Sequence[Choice]:
        """What the seat to act may do: its legal plays and the pass when it is legal
        (:meth:`legal_plays`), or in an exchange, the gives it may make."""
        if self._phase == "exchange":
            count, pool = self._to_give()
            return [Give(m) for m in subsets(pool, count)]
        return self.legal_plays()

    def legal_plays(self) -> list[Move]:
        """The legal plays of the seat to act, the pass included when it is legal: the pass
        alone in the trading phase (:meth:`offer_trade` makes an offer), none in an
        exchange or once over."""
        phase = self._phase
        if phase != "play":
            return [PASS] if phase == "trading" else []
        seat = self._turn
        return play_moves(
            self.table(seat),
            self._rules,
            seat=seat,
            pile=self._pile,
            locked_out=bool(self._locked >> seat & 1),
            straight_locked=self._lock,
            first=self._first,
            lowest=self._lowest,
            opening=self._opening,
        )

    def _to_give(self) -> tuple[int, int]:
        """(count, cards to choose from) of the give due now in the exchange phase."""
        ex = self._exchange
        assert ex is not None
        return ex.count, ex.pool(self._hands)

    def why_illegal(self, move: Choice | str | Iterable[Card]) -> str | None:
        """``None`` if the move is legal now; else the reason, in words."""
        try:
            m = self._to_move(move)
        except ValueError as e:
            return str(e)
        return self._why_illegal(m)

    def _to_move(self, move: Choice | str | Iterable[Card]) -> Choice:
        """The move or give meant: cards are given in an exchange, played otherwise."""
        exchange = self._phase == "exchange"
        if isinstance(move, Move):
            if move.is_pass:
                return move
            cards = move.mask
        elif isinstance(move, Give):
            if exchange:
                return move
            cards = move.mask
        elif isinstance(move, str):
            try:
                return parse_choice(move, self._rules, exchange=exchange)
            except MoveParseError as e:
                raise IllegalMoveError(e.args[0]) from None
        else:
            cards = mask_of(move)
        if exchange:
            return Give(cards)
        classified = classify_mask(cards, self._rules)
        if classified is None:
            shown = format_cards(cards_of_mask(cards))
            raise IllegalMoveError(reason("not_combination", cards=shown, rules=self._rules.name))
        return classified

    def _why_illegal(self, m: Choice) -> str | None:
        phase = self._phase
        seat = self._turn
        hand = self._hands[seat]
        if phase == "over":
            return reason("game_over")
        if m.mask & ~hand:
            return reason("not_held", cards=format_cards(cards_of_mask(m.mask & ~hand)))
        if phase == "exchange":
            count, pool = self._to_give()
            if not isinstance(m, Give) or m.mask.bit_count() != count:
                ex = self._exchange
                if isinstance(ex, Settlement) and ex.paying:
                    return reason("debt_count", count=count) if count > 1 else reason("debt_one")
                return reason("give_count", count=count) if count > 1 else reason("give_one")
            if m.mask & ~pool:
                return reason("debt_in_twos")
            return None
        assert isinstance(m, Move), "_to_move gives cards only in an exchange"
        if phase == "trading":
            return None if m.is_pass else reason("trading_actions")
        rules = self._rules
        if self._opening:
            if m.is_pass or opens(m, rules):
                if not rules.may_finish_on_two and finishes_on_two(m, hand):
                    return reason("no_finish_on_two")
                return None
            return reason("opening_bombs_only")
        last = self._pile[-1] if self._pile else None
        top = last.move if last else None
        if m.is_pass:
            if (
                top is None
                and self._first != "holder-may-decline"
                and leads(self.table(seat), rules, self._first, self._lowest, self._opening)
            ):
                return reason("must_lead")
            return None
        if not rules.may_finish_on_two and finishes_on_two(m, hand):
            return reason("no_finish_on_two")
        if top is None and self._opening is not None and opens(m, rules):
            return None
        if top is None:
            first = self._first
            lowest = Card.from_id(self._lowest) if self._lowest >= 0 else None
            if first == "lowest-single" and m.mask != 1 << self._lowest:
                return reason("first_alone", card=str(lowest))
            if first is not None and not m.mask >> self._lowest & 1:
                return reason("first_include", card=str(lowest))
            if (
                first is not None
                and rules.first_lead_kinds
                and m.kind not in rules.first_lead_kinds
            ):
                kind = kind_param(m.kind, m.size)
                return reason("first_kinds", kinds=list(rules.first_lead_kinds), kind=kind)
            if not rules.bombs_may_lead and index(rules).is_bomb(m):
                return reason("bomb_lead")
            return None
        if last is not None and seat == last.seat:
            own = last.move
            if (m.kind, m.size) != (own.kind, own.size):
                return reason("stacking", what=kind_param(own.kind, own.size))
        if self._locked >> seat & 1 and last is not None and seat != last.seat:
            ix = index(rules)
            after = any(p.matches(m.kind, m.size, m.top_rank) for p in ix.after_pass)
            if not (twos_under(self._pile, rules) and ix.is_bomb(m) and after):
                if ix.after_pass:
                    return reason("passed_bombs_only")
                return reason("passed_wait")
        return why_not_beats(m, top, rules, locked=self._lock)

    def play(self, move: Choice | str | Iterable[Card]) -> Choice:
        """Make a move for the seat to act: a :class:`Move` (a :class:`Give` in an
        exchange), notation (``"3s 4s 5d"``, ``"pass"``) or cards. Returns the move as
        classified (the cards as a give in an exchange). Raises
        :class:`IllegalMoveError` (a ``ValueError``) and changes nothing if it is illegal."""
        m = self._to_move(move)
        why = self._why_illegal(m)
        if why is not None:
            raise IllegalMoveError(why, move=m, state=self.position)
        self._apply(m)
        return m

    def apply_unchecked(self, move: Choice) -> None:
        """Make a move taken from :meth:`legal_moves` without checking it again (search)."""
        self._apply(move)

    def _apply(self, m: Choice) -> None:
        if isinstance(m, Give):
            self._give(m)
            return
        if self._phase == "trading":
            self._trade_pass()
            return
        seat = self._turn
        action = Action(seat, m)
        self._history.append(action)
        if m.is_pass:
            self._pass(seat)
            return
        self._opening = None
        self._stuck = 0
        self._hands[seat] &= ~m.mask
        table = self._tables[seat]
        self._tables[seat] = table.without(m.mask) if table is not None else None
        if self._pile:
            last = self._pile[-1]
            if (last.move.kind, last.move.size) != (m.kind, m.size):
                self._chops.append(Chop(seat, last.seat, m, last.move))
        self._pile += (action,)
        self._passed = 0
        self._first = None
        if self._rules.straight_lock and m.kind == "straight" and not self._lock:
            self._lock = is_one_suit(m)
        if not self._hands[seat]:
            self._finish.append(seat)
            if self._rules.end_at_first_out:
                self._end_with_winner(seat)
                return
            still_in = [s for s in range(self._rules.players) if self._hands[s]]
            if len(still_in) == 1:
                self._finish.append(still_in[0])
                self._phase = "over"
                return
            if self._rules.out_ends_pile:
                self._new_pile(self._next_in(seat))
                return
        self._advance(seat)

    def _pass(self, seat: int) -> None:
        if self._opening:  # declined to open out of turn: the next seat is asked
            self._opening = self._opening[1:]
            self._turn = self._opening[0] if self._opening else self._leader
            return
        if not self._pile:
            # Declining the first lead, or a leader with no legal play: the next leads.
            self._first = None
            self._stuck |= 1 << seat
            nxt = self._next_in(seat)
            if all(self._stuck >> s & 1 for s in range(self._rules.players) if self._hands[s]):
                self._end_rest(self._turn)
                return
            self._turn = nxt
            return
        if seat == self._pile[-1].seat:  # stacking: declining to go on takes the pile
            self._new_pile(seat)
            return
        self._passed |= 1 << seat
        if self._rules.pass_locks:
            self._locked |= 1 << seat
        self._advance(seat)

    def _advance(self, seat: int) -> None:
        n, step = self._rules.players, self._rules.step
        hands = self._hands
        last = self._pile[-1]
        rules = self._rules
        rejoin = (
            bool(self._locked) and bool(index(rules).after_pass) and twos_under(self._pile, rules)
        )
        p = seat
        while True:
            p = (p + step) % n
            if p == last.seat:
                if self._rules.stacking and hands[p]:
                    self._turn = p
                else:
                    self._new_pile(p if hands[p] else self._next_in(p))
                return
            if not hands[p] or self._passed >> p & 1:
                continue
            if self._locked >> p & 1 and not rejoin:
                continue
            self._turn = p
            return

    def _new_pile(self, leader: int) -> None:
        self._pile = ()
        self._passed = self._locked = 0
        self._lock = False
        self._turn = leader

    def _next_in(self, seat: int) -> int:
        """The next seat after ``seat`` that still holds cards."""
        n, step = self._rules.players, self._rules.step
        p = seat
        for _ in range(n):
            p = (p + step) % n
            if self._hands[p]:
                return p
        return seat

    def _seats_from(self, seat: int) -> list[int]:
        n, step = self._rules.players, self._rules.step
        return [(seat + i * step) % n for i in range(n)]

    def _end_with_winner(self, seat: int) -> None:
        """End now: the winner first, the others by fewest cards left, then turn order."""
        if seat not in self._finish:
            self._finish.append(seat)
        self._end_rest(seat)

    def _end_rest(self, seat: int) -> None:
        """End now; seats still in follow by fewest cards left, then turn order from ``seat``."""
        order = self._seats_from(seat)
        rest = sorted(
            (s for s in order if s not in self._finish),
            key=lambda s: (self._hands[s].bit_count(), order.index(s)),
        )
        self._finish.extend(rest)
        self._phase = "over"

    # --- trading (mutual) and exchanges --------------------------------------------------
    def offer_trade(
        self, partner: int, give: str | Iterable[Card], take: str | Iterable[Card]
    ) -> None:
        """Trading phase: the seat to act offers ``give`` (own cards) for ``take`` (the
        partner's); the partner answers with :meth:`accept_trade` or a pass."""
        trading = self._trading
        if self._phase != "trading" or trading is None or trading.pending is not None:
            raise IllegalMoveError(reason("no_trade_now"))
        g = mask_of(parse_cards(give) if isinstance(give, str) else give)
        t = mask_of(parse_cards(take) if isinstance(take, str) else take)
        seat = self._turn
        why = trading.why_not_offer(seat, partner, g, t, self._hands[seat])
        if why is not None:
            raise IllegalMoveError(why)
        trading.offer(seat, partner, g, t)
        self._turn = partner

    def accept_trade(self) -> None:
        """Trading phase: the partner accepts the pending offer (they must hold the cards)."""
        trading = self._trading
        if self._phase != "trading" or trading is None:
            raise IllegalMoveError(reason("no_offer_to_accept"))
        why = trading.why_not_accept(self._hands)
        if why is not None:
            raise IllegalMoveError(why)
        self._after_trading(trading.accept(self._hands))

    def _trade_pass(self) -> None:
        trading = self._trading
        assert trading is not None
        self._after_trading(trading.decline(self._turn))

    def _after_trading(self, nxt: int | None) -> None:
        self._tables = [None] * self._rules.players
        if nxt is None:
            self._after_hand_overs()
        else:
            self._turn = nxt

    def _give(self, give: Give) -> None:
        ex = self._exchange
        assert ex is not None and ex.chooser is not None and ex.receiver is not None
        self._history.append(Gift(ex.chooser, give))
        self._receivers = (*self._receivers, ex.receiver)
        ex.give(self._hands, give.mask)
        self._after_exchange()

    # --- state from parts (determinization) ---------------------------------------------
    @property
    def position(self) -> PlayState:
        """Where the deal stands, every hand included (:class:`~tienlen.position.PlayState`;
        ``game.position.format()`` writes it in position notation)."""
        hands = tuple(self._hands)
        return PlayState(
            phase=self._phase,
            turn=self._turn,
            leader=self._leader,
            hands=hands,
            card_counts=tuple(h.bit_count() for h in hands),
            pile=self._pile,
            passed=self.passed,
            locked_out=self.locked_out,
            straight_locked=self._lock,
            first_lead=self.first_lead_rule,
            stuck=self.stuck,
            finish_order=tuple(self._finish),
            opening=self._opening,
        )

    @classmethod
    def from_state(
        cls, state: PlayState, *, rules: Rules | str, hands: Sequence[int] | None = None
    ) -> Game:
        """A play-phase game in ``state`` (an observation, a parsed position), with
        ``hands`` (bitmasks, one per seat) in place of the state's where given, e.g. a
        sample of the hidden ones. The history starts empty; the pile is ``state.pile``."""
        if isinstance(rules, str):
            rules = Rules.preset(rules)
        n = rules.players
        given = list(state.hands if hands is None else hands)
        if len(given) != n:
            raise ValueError(f"{len(given)} hands given for {n} players")
        masks: list[int] = []
        for seat, h in enumerate(given):
            if h is None:
                raise ValueError(f"seat {seat}'s hand is not known: give hands=")
            masks.append(h)
        if state.phase not in ("play", "over"):
            raise ValueError(f"a game can be built in the play phase only, not {state.phase!r}")
        g = cls(rules, _shell=True)
        g._fresh()
        g._hands = masks
        g._dealt = tuple(masks)
        g._setup = (g._dealt, state.leader, None, ())
        g._tables = [None] * n
        g._spare = 0
        g._leader = state.leader
        g._turn = state.turn
        g._pile = state.pile
        g._passed = sum(1 << s for s in state.passed)
        g._locked = sum(1 << s for s in state.locked_out)
        g._lock = state.straight_locked
        first_lead = state.first_lead
        g._first = first_lead[0] if first_lead else None
        g._lowest = first_lead[1].id if first_lead else -1
        g._stuck = sum(1 << s for s in state.stuck)
        g._finish = list(state.finish_order)
        g._opening = state.opening
        g._phase = "over" if len(g._finish) == n else "play"
        return g

    @classmethod
    def from_position(cls, text: str, *, rules: Rules | str) -> Game:
        """A play-phase game in the position written ``text`` (every hand known; see
        :func:`~tienlen.position.parse_position`)."""
        return cls.from_state(parse_position(text, rules), rules=rules)

    def search_key(self) -> tuple[object, ...]:
        """A hashable value that two play-phase games share when the rest of their play is
        the same: the hands, the seat to act, the pile's top and whether locked-out seats
        may come back on it, passes, locks, the pending first lead, stuck leaders, the
        seats to be asked to open and the finish so far (history and chops left out). For
        searches that meet the same position by different orders of play (transpositions).
        """
        pile = self._pile
        top: tuple[object, ...] = ()
        if pile:
            last = pile[-1]
            top = (last.seat, last.move.mask, last.move.kind, twos_under(pile, self._rules))
        return (
            tuple(self._hands),
            self._turn,
            top,
            self._passed,
            self._locked,
            self._lock,
            self._first,
            self._lowest if self._first else -1,
            self._stuck,
            self._opening,
            tuple(self._finish),
        )

    # --- copying -------------------------------------------------------------------------
    def copy(self) -> Game:
        """An independent copy (cheap: hands and tables are immutable values)."""
        g = Game(self._rules, _shell=True)
        g._setup = self._setup
        g._dealt = self._dealt
        g._unused = self._unused
        g._spare = self._spare
        g._spare_taker = self._spare_taker
        g._hands = self._hands[:]
        g._tables = self._tables[:]
        g._leader = self._leader
        g._turn = self._turn
        g._phase = self._phase
        g._pile = self._pile
        g._passed = self._passed
        g._locked = self._locked
        g._lock = self._lock
        g._first = self._first
        g._lowest = self._lowest
        g._stuck = self._stuck
        g._finish = self._finish[:]
        g._history = self._history[:]
        g._chops = self._chops[:]
        g._instant = self._instant
        g._trading = None if self._trading is None else self._trading.copy()
        g._exchange = None if self._exchange is None else self._exchange.copy()
        g._receivers = self._receivers
        g._opening = self._opening
        g._asks = self._asks
        g._redeals = self._redeals
        return g

    def __repr__(self) -> str:
        """In the play phase, ``Game.from_position(...)``: pasted back, a game in the same
        position (its history aside); before it, a summary."""
        rules = self._rules
        if self._phase in ("trading", "exchange"):
            hands = ", ".join(repr(format_cards(cards_of_mask(h), ascii=True)) for h in self._hands)
            return f"<Game {rules.name} phase={self._phase} turn={self._turn} hands=[{hands}]>"
        shown = repr(rules.name) if rules.is_preset else repr(rules)
        return f"Game.from_position({self.position.format()!r}, rules={shown})"
