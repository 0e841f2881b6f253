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
from .packed import PackedState, first_lead_of, packed, seats_of_mask, unpacked
from .play import finishes_on_two, leads, opens, play_moves, twos_under
from .position import Action, Chop, CountAsk, Entry, Gift, Phase, PlayState, parse_position
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

    __slots__ = ("_rules", "_state")

    _rules: Rules
    _state: PackedState
    """Everything that changes, in one record (:mod:`tienlen.packed`)."""

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
            # An empty game for copy() and from_state() to give a record: a class compiled
            # with mypyc can only be made through __init__ (no object.__new__).
            return
        n = rules.players
        unused: tuple[int, ...] = ()
        redeals = 0
        if hands is not None:
            masks = explicit_hands(rules, hands)
            spare = deck_mask(rules.decks) & ~union(masks)
        else:
            shuffled = deal(rules, seed)
            masks, spare = shuffled.hands, shuffled.spare
            unused, redeals = shuffled.unused, shuffled.redeals
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
        previous = tuple(previous_finish) if previous_finish is not None else None
        setup = (tuple(masks), leader, previous, debts)
        first: FirstLead | None = None
        lowest = -1
        if leader is None:
            dealt = union(masks)
            lowest = (dealt & -dealt).bit_length() - 1
            leader = next(s for s in range(n) if masks[s] >> lowest & 1)
            mode = rules.first_lead
            first = None if mode == "holder-free" else mode
        spare_taker = None
        if rules.starter_takes_spare and spare.bit_count() == 1:
            masks[leader] |= spare
            spare = 0
            spare_taker = leader
        self._state = s = PackedState(
            turn=leader,
            leader=leader,
            hands=masks,
            first_lead=first,
            lowest=lowest,
            setup=setup,
            dealt=tuple(masks),
            spare=spare,
            spare_taker=spare_taker,
            unused=unused,
            redeals=redeals,
            tables=[None] * n,
        )
        if rules.trading == "mutual":
            s.phase = "trading"
            s.trading = MutualTrading(leader, n, rules.step)
        elif rules.trading == "san-jose" and previous is not None:
            s.exchange = SanJoseExchange.after(previous, n)
            self._after_exchange()
        else:
            self._check_instant_wins(frozenset(d.debtor for d in debts))
            if s.phase == "play" and debts:
                settle = Settlement(debts, rules.debt_card)
                settle.start(s.hands)
                s.exchange = settle
                self._after_exchange()
            elif s.phase == "play":
                self._begin_play()

    # --- set-up -------------------------------------------------------------------------
    def _check_instant_wins(self, debtors: frozenset[int] = frozenset()) -> None:
        wins = self._rules.instant_wins
        if not wins or self._rules.trading != "none":
            return
        for seat in self._seats_from(self._state.turn):
            # 004: "A player can only claim an instant win with four 2s when dealt the four
            # 2s and when not owing anybody."
            allowed = [w for w in wins if w != "four-twos"] if seat in debtors else wins
            name = instant_win_of(self._state.hands[seat], allowed)
            if name:
                self._state.instant = (seat, name)
                self._end_with_winner(seat)
                return

    def _begin_play(self) -> None:
        """The play phase starts with the leader, after the seats that may open out of turn
        (``rules.opening_bombs``: 004, "Three consecutive pairs can be played at the
        beginning of the game without being the lead") are asked in turn."""
        s = self._state
        s.phase = "play"
        s.turn = s.leader
        if self._rules.opening_bombs:
            s.opening = tuple(self._seats_from(s.leader)[1:])
            s.turn = s.opening[0] if s.opening else s.leader

    def _after_exchange(self) -> None:
        """After an exchange started or a give: the next give, or the play."""
        s = self._state
        ex = s.exchange
        assert ex is not None
        s.tables = [None] * self._rules.players
        if ex.chooser is not None:
            s.phase = "exchange"
            s.turn = ex.chooser
            return
        self._after_hand_overs()

    def _after_hand_overs(self) -> None:
        """The cards have changed hands before the play (an exchange or the trading): the
        hands are final, and the play starts."""
        s = self._state
        s.dealt = tuple(s.hands)
        if s.setup[1] is None:
            # the first leader holds the lowest card once the cards have moved (a San Jose
            # winner may give the 3♠ away, a trade may swap it)
            s.leader = next(seat for seat, h in enumerate(s.hands) if h >> s.lowest & 1)
        self._begin_play()

    # --- public state -------------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        """The rules this game is played under."""
        return self._rules

    @property
    def turn(self) -> int:
        """The seat to act (meaningless once the game is over)."""
        return self._state.turn

    @property
    def phase(self) -> Phase:
        """``"trading"``, ``"exchange"``, ``"play"`` or ``"over"``."""
        return self._state.phase

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._state.phase == "over"

    @property
    def finish_order(self) -> tuple[int, ...]:
        """Seats in the order they went out; once over, every seat with the loser last."""
        return self._state.finish_order

    @property
    def winner(self) -> int | None:
        """The first seat out, if any."""
        finish = self._state.finish_order
        return finish[0] if finish else None

    @property
    def loser(self) -> int | None:
        """The last seat, once the game is over."""
        s = self._state
        return s.finish_order[-1] if s.phase == "over" else None

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Every seat's cards, lowest first."""
        return tuple(cards_of_mask(h) for h in self._state.hands)

    @property
    def hand_masks(self) -> tuple[int, ...]:
        """Every seat's cards as bitmasks."""
        return tuple(self._state.hands)

    @property
    def dealt(self) -> tuple[tuple[Card, ...], ...]:
        """The hands as dealt (after a lone spare card went to :attr:`spare_taker`)."""
        return tuple(cards_of_mask(h) for h in self._state.dealt)

    @property
    def setup(self) -> GameSetup:
        """The hands, leader, previous finish and card debts this game was started from."""
        masks, leader, previous, debts = self._state.setup
        return GameSetup(tuple(cards_of_mask(h) for h in masks), leader, previous, debts)

    @property
    def unused_hands(self) -> tuple[tuple[Card, ...], ...]:
        """Hands dealt but not played (``deal_four_hands`` with fewer than four players)."""
        return tuple(cards_of_mask(h) for h in self._state.unused)

    @property
    def leader(self) -> int:
        """The seat that led (or had to lead) the first pile."""
        return self._state.leader

    @property
    def spare_taker(self) -> int | None:
        """The seat that took the lone card left over by the deal
        (``rules.starter_takes_spare``), ``None`` if none did. It is the first leader as
        dealt; after a trade or an exchange moved the lowest card, :attr:`leader` may differ.
        Public: every seat sees the card taken (and the leader before the cards move)."""
        return self._state.spare_taker

    @property
    def history(self) -> tuple[Entry, ...]:
        """Every play and pass (:class:`Action`) and give (:class:`Gift`) of the game, in
        order."""
        return tuple(self._state.history)

    @property
    def pile(self) -> tuple[Action, ...]:
        """The plays of the current pile (passes left out), oldest first."""
        return self._state.pile

    @property
    def top(self) -> Action | None:
        """The play to beat, or ``None`` when the seat to act leads a fresh pile."""
        pile = self._state.pile
        return pile[-1] if pile else None

    @property
    def passed(self) -> frozenset[int]:
        """Seats that passed since the last play."""
        return seats_of_mask(self._state.passed)

    @property
    def locked_out(self) -> frozenset[int]:
        """Seats locked out of the current pile by passing."""
        return seats_of_mask(self._state.locked_out)

    @property
    def straight_locked(self) -> bool:
        """Whether a one-suit straight has locked the pile."""
        return self._state.straight_locked

    @property
    def first_lead_rule(self) -> tuple[FirstLead, Card] | None:
        """The constraint on the opening play still pending: (mode, lowest card)."""
        return first_lead_of(self._state)

    @property
    def instant_win(self) -> tuple[int, str] | None:
        """``(seat, hand name)`` if the game was won at the deal."""
        return self._state.instant

    @property
    def chops(self) -> tuple[Chop, ...]:
        """Bombs played on plays of another kind, in order."""
        return self._state.chops

    @property
    def trades(self) -> tuple[TradeOffer, ...]:
        """Trade offers made in the trading phase, with their answers."""
        trading = self._state.trading
        return () if trading is None else tuple(trading.offers)

    @property
    def trading_leader(self) -> int | None:
        """The seat that had the first chance to offer in the trading phase (the round of
        offers starts there), ``None`` without mutual trading. The first leader of the play
        may differ: whoever holds the lowest card once the trades are done."""
        trading = self._state.trading
        return None if trading is None else trading.leader

    @property
    def pending_trade(self) -> TradeOffer | None:
        """The offer awaiting an answer from the seat to act, if any."""
        trading = self._state.trading
        return None if trading is None else trading.pending

    @property
    def stuck(self) -> frozenset[int]:
        """Leaders who passed the lead for want of a legal play, since the last play."""
        return seats_of_mask(self._state.stuck)

    @property
    def give_receivers(self) -> tuple[int, ...]:
        """The seat that received each give of :attr:`history`, in order."""
        return self._state.receivers

    @property
    def hand_overs(self) -> tuple[tuple[int, int, int], ...]:
        """Card debts' transfers so far, ``(giver, receiver, cards mask)``, in order (the
        ones the rules chose as well as the gives)."""
        exchange = self._state.exchange
        if not isinstance(exchange, Settlement):
            return ()
        return tuple((h.giver, h.receiver, h.cards) for h in exchange.log)

    @property
    def opening(self) -> tuple[int, ...] | None:
        """Before the game's first play under ``rules.opening_bombs``: the seats still to be
        asked whether they open out of turn (empty: the leader's turn); ``None`` after it."""
        return self._state.opening

    @property
    def redeals(self) -> int:
        """How many deals were void before this one (``rules.redeal_four_twos``)."""
        return self._state.redeals

    @property
    def asks(self) -> tuple[CountAsk, ...]:
        """Every card count asked for and answered, in order (``rules.hidden_counts``)."""
        return self._state.asks

    def shown_counts(self, seat: int | None) -> tuple[int | None, ...]:
        """The card counts ``seat`` sees (``None``: a spectator): every count, unless
        ``rules.hidden_counts``; then its own, those of the seats that are out (none) and
        those still as the last answer to an ask gave them, ``None`` for the others; every
        count once the game is over (the hands are laid down for the score)."""
        state = self._state
        counts = [m.bit_count() for m in state.hands]
        if not self._rules.hidden_counts or state.phase == "over":
            return tuple(counts)
        shown: list[int | None] = [None] * len(counts)
        if seat is not None:
            shown[seat] = counts[seat]
        for out in state.finish_order:
            shown[out] = 0
        for ask in state.asks:
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
        s = self._state
        if s.phase == "over":
            raise IllegalMoveError(reason("game_over"))
        if s.phase != "play":
            raise IllegalMoveError(reason("ask_in_play"))
        if type(seat) is not int or not 0 <= seat < n or seat == asker:
            raise IllegalMoveError(reason("bad_ask", seat=repr(seat)))
        count = s.hands[seat].bit_count()
        if not any(a.seat == seat and a.cards == count for a in s.asks):
            s.asks = (*s.asks, CountAsk(asker, seat, count, len(s.history)))
        return count

    def exchange_seen_by(
        self, seat: int | None
    ) -> MutualTrading | SanJoseExchange | Settlement | None:
        """Before the play, the exchange in progress (the trading phase's offers, a San Jose
        exchange, card debts) as ``seat`` sees it (``None``: a spectator): a copy, the cards
        of the offers and hand-overs it was not party to left out; what :meth:`from_state`
        takes to build a game in that phase. ``None`` in the play."""
        s = self._state
        viewer = -1 if seat is None else seat
        if s.phase == "trading" and s.trading is not None:
            return s.trading.seen_by(viewer)
        if s.phase == "exchange" and s.exchange is not None:
            return s.exchange.seen_by(viewer)
        return None

    def exchange_receiver(self, giver: int) -> int | None:
        """In an exchange (San Jose, or card debts), the seat that receives ``giver``'s
        cards (for card debts: while ``giver`` is the seat to give)."""
        exchange = self._state.exchange
        return None if exchange is None else exchange.receiver_of(giver)

    def cards_left(self, seat: int) -> int:
        """How many cards ``seat`` holds."""
        return self._state.hands[seat].bit_count()

    # --- moves ---------------------------------------------------------------------------
    def table(self, seat: int) -> MoveTable:
        """The move table of ``seat``'s current hand."""
        s = self._state
        t = s.tables[seat]
        if t is None:
            t = s.tables[seat] = table_for(s.hands[seat], self._rules)
        return t

    def legal_moves(self) -> Sequence[Choice]:
        """What the seat to act may do: its legal plays and the pass when it is legal
        (:meth:`legal_plays`); in an exchange, the gives it may make; answering a trade
        offer, the give of the cards asked for when it holds them (which accepts, as
        :meth:`accept_trade` does) and the pass (which refuses)."""
        st = self._state
        if st.phase == "exchange":
            count, pool = self._to_give()
            return [Give(m) for m in subsets(pool, count)]
        offer = self.pending_trade
        if offer is not None:
            assert st.trading is not None
            if st.trading.why_not_accept(st.hands) is None:
                return [Give(offer.take), PASS]
        return self.legal_plays()

    def legal_plays(self) -> list[Move]:
        """The legal plays of the seat to act, the pass included when it is legal: the pass
        alone in the trading phase (:meth:`offer_trade` makes an offer), none in an
        exchange or once over."""
        s = self._state
        phase = s.phase
        if phase != "play":
            return [PASS] if phase == "trading" else []
        return play_moves(self.table(s.turn), self._rules, s)

    def _to_give(self) -> tuple[int, int]:
        """(count, cards to choose from) of the give due now in the exchange phase."""
        ex = self._state.exchange
        assert ex is not None
        return ex.count, ex.pool(self._state.hands)

    def why_illegal(self, move: Choice | str | Iterable[Card]) -> str | None:
        """``None`` if the move is legal now; else the reason, in words."""
        try:
            m = self._to_move(move)
        except ValueError as e:
            return str(e)
        return self._why_illegal(m)

    def _to_move(self, move: Choice | str | Iterable[Card]) -> Choice:
        """The move or give meant: cards are given in an exchange and in the answer to a
        trade offer, played otherwise."""
        exchange = self._state.phase == "exchange" or self.pending_trade is not None
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
        st = self._state
        phase = st.phase
        seat = st.turn
        hand = st.hands[seat]
        if phase == "over":
            return reason("game_over")
        if m.mask & ~hand:
            return reason("not_held", cards=format_cards(cards_of_mask(m.mask & ~hand)))
        if phase == "exchange":
            count, pool = self._to_give()
            if not isinstance(m, Give) or m.mask.bit_count() != count:
                ex = st.exchange
                if isinstance(ex, Settlement) and ex.paying:
                    return reason("debt_count", count=count) if count > 1 else reason("debt_one")
                return reason("give_count", count=count) if count > 1 else reason("give_one")
            if m.mask & ~pool:
                return reason("debt_in_twos")
            return None
        if phase == "trading":
            offer = self.pending_trade
            if (
                isinstance(m, Give) and offer is not None
            ):  # accepting hands over the cards asked for
                if m.mask == offer.take:
                    return None
                return reason("accept_gives_asked", cards=format_cards(cards_of_mask(offer.take)))
            return None if isinstance(m, Move) and m.is_pass else reason("trading_actions")
        assert isinstance(m, Move), "_to_move gives cards only in an exchange or a trade answer"
        rules = self._rules
        if st.opening:
            if m.is_pass or opens(m, rules):
                if not rules.may_finish_on_two and finishes_on_two(m, hand):
                    return reason("no_finish_on_two")
                return None
            return reason("opening_bombs_only")
        last = st.pile[-1] if st.pile else None
        top = last.move if last else None
        if m.is_pass:
            if (
                top is None
                and st.first_lead != "holder-may-decline"
                and leads(self.table(seat), rules, st)
            ):
                return reason("must_lead")
            return None
        if not rules.may_finish_on_two and finishes_on_two(m, hand):
            return reason("no_finish_on_two")
        if top is None and st.opening is not None and opens(m, rules):
            return None
        if top is None:
            first = st.first_lead
            lowest = Card.from_id(st.lowest) if st.lowest >= 0 else None
            if first == "lowest-single" and m.mask != 1 << st.lowest:
                return reason("first_alone", card=str(lowest))
            if first is not None and not m.mask >> st.lowest & 1:
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
        if st.locked_out >> seat & 1 and last is not None and seat != last.seat:
            ix = index(rules)
            after = any(p.matches(m.kind, m.size, m.top_rank) for p in ix.after_pass)
            if not (twos_under(st.pile, rules) and ix.is_bomb(m) and after):
                if ix.after_pass:
                    return reason("passed_bombs_only")
                return reason("passed_wait")
        return why_not_beats(m, top, rules, locked=st.straight_locked)

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
        st = self._state
        if st.phase == "trading":
            if isinstance(m, Give):
                self._accept()
            else:
                self._trade_pass()
            return
        if isinstance(m, Give):
            self._give(m)
            return
        seat = st.turn
        action = Action(seat, m)
        st.history.append(action)
        if m.is_pass:
            self._pass(seat)
            return
        st.opening = None
        st.stuck = 0
        st.hands[seat] &= ~m.mask
        table = st.tables[seat]
        st.tables[seat] = table.without(m.mask) if table is not None else None
        if st.pile:
            last = st.pile[-1]
            if (last.move.kind, last.move.size) != (m.kind, m.size):
                st.chops += (Chop(seat, last.seat, m, last.move),)
        st.pile += (action,)
        st.passed = 0
        st.first_lead = None
        if self._rules.straight_lock and m.kind == "straight" and not st.straight_locked:
            st.straight_locked = is_one_suit(m)
        if not st.hands[seat]:
            st.finish_order += (seat,)
            if self._rules.end_at_first_out:
                self._end_with_winner(seat)
                return
            still_in = [s for s in range(self._rules.players) if st.hands[s]]
            if len(still_in) == 1:
                st.finish_order += (still_in[0],)
                st.phase = "over"
                return
            if self._rules.out_ends_pile:
                self._new_pile(self._next_in(seat))
                return
        self._advance(seat)

    def _pass(self, seat: int) -> None:
        st = self._state
        if st.opening:  # declined to open out of turn: the next seat is asked
            st.opening = st.opening[1:]
            st.turn = st.opening[0] if st.opening else st.leader
            return
        if not st.pile:
            # Declining the first lead, or a leader with no legal play: the next leads.
            st.first_lead = None
            st.stuck |= 1 << seat
            nxt = self._next_in(seat)
            if all(st.stuck >> s & 1 for s in range(self._rules.players) if st.hands[s]):
                self._end_rest(st.turn)
                return
            st.turn = nxt
            return
        if seat == st.pile[-1].seat:  # stacking: declining to go on takes the pile
            self._new_pile(seat)
            return
        st.passed |= 1 << seat
        if self._rules.pass_locks:
            st.locked_out |= 1 << seat
        self._advance(seat)

    def _advance(self, seat: int) -> None:
        st = self._state
        n, step = self._rules.players, self._rules.step
        hands = st.hands
        last = st.pile[-1]
        rules = self._rules
        rejoin = (
            bool(st.locked_out) and bool(index(rules).after_pass) and twos_under(st.pile, rules)
        )
        p = seat
        while True:
            p = (p + step) % n
            if p == last.seat:
                if self._rules.stacking and hands[p]:
                    st.turn = p
                else:
                    self._new_pile(p if hands[p] else self._next_in(p))
                return
            if not hands[p] or st.passed >> p & 1:
                continue
            if st.locked_out >> p & 1 and not rejoin:
                continue
            st.turn = p
            return

    def _new_pile(self, leader: int) -> None:
        st = self._state
        st.pile = ()
        st.passed = st.locked_out = 0
        st.straight_locked = False
        st.turn = leader

    def _next_in(self, seat: int) -> int:
        """The next seat after ``seat`` that still holds cards."""
        n, step = self._rules.players, self._rules.step
        hands = self._state.hands
        p = seat
        for _ in range(n):
            p = (p + step) % n
            if hands[p]:
                return p
        return seat

    def _seats_from(self, seat: int) -> list[int]:
        n, step = self._rules.players, self._rules.step
        return [(seat + i * step) % n for i in range(n)]

    def _end_with_winner(self, seat: int) -> None:
        """End now: the winner first, the others by fewest cards left, then turn order."""
        st = self._state
        if seat not in st.finish_order:
            st.finish_order += (seat,)
        self._end_rest(seat)

    def _end_rest(self, seat: int) -> None:
        """End now; seats still in follow by fewest cards left, then turn order from ``seat``."""
        st = self._state
        order = self._seats_from(seat)
        rest = sorted(
            (s for s in order if s not in st.finish_order),
            key=lambda s: (st.hands[s].bit_count(), order.index(s)),
        )
        st.finish_order += tuple(rest)
        st.phase = "over"

    # --- trading (mutual) and exchanges --------------------------------------------------
    def offer_trade(
        self, partner: int, give: str | Iterable[Card], take: str | Iterable[Card]
    ) -> None:
        """Trading phase: the seat to act offers ``give`` (own cards) for ``take`` (the
        partner's); the partner answers with :meth:`accept_trade` or a pass."""
        st = self._state
        trading = st.trading
        if st.phase != "trading" or trading is None or trading.pending is not None:
            raise IllegalMoveError(reason("no_trade_now"))
        g = mask_of(parse_cards(give) if isinstance(give, str) else give)
        t = mask_of(parse_cards(take) if isinstance(take, str) else take)
        seat = st.turn
        why = trading.why_not_offer(seat, partner, g, t, st.hands[seat])
        if why is not None:
            raise IllegalMoveError(why)
        trading.offer(seat, partner, g, t)
        st.turn = partner

    def accept_trade(self) -> None:
        """Trading phase: the partner accepts the pending offer (they must hold the cards);
        the same as playing the give of the cards asked for (:meth:`legal_moves`)."""
        st = self._state
        trading = st.trading
        if st.phase != "trading" or trading is None:
            raise IllegalMoveError(reason("no_offer_to_accept"))
        why = trading.why_not_accept(st.hands)
        if why is not None:
            raise IllegalMoveError(why)
        self._accept()

    def _accept(self) -> None:
        st = self._state
        assert st.trading is not None
        self._after_trading(st.trading.accept(st.hands))

    def _trade_pass(self) -> None:
        st = self._state
        trading = st.trading
        assert trading is not None
        self._after_trading(trading.decline(st.turn))

    def _after_trading(self, nxt: int | None) -> None:
        st = self._state
        st.tables = [None] * self._rules.players
        if nxt is None:
            self._after_hand_overs()
        else:
            st.turn = nxt

    def _give(self, give: Give) -> None:
        st = self._state
        ex = st.exchange
        assert ex is not None and ex.chooser is not None and ex.receiver is not None
        st.history.append(Gift(ex.chooser, give))
        st.receivers = (*st.receivers, ex.receiver)
        ex.give(st.hands, give.mask)
        self._after_exchange()

    # --- state from parts (determinization) ---------------------------------------------
    @property
    def position(self) -> PlayState:
        """Where the deal stands, every hand included (:class:`~tienlen.position.PlayState`;
        ``game.position.format()`` writes it in position notation)."""
        return unpacked(self._state)

    @classmethod
    def from_state(
        cls,
        state: PlayState,
        *,
        rules: Rules | str,
        hands: Sequence[int] | None = None,
        played: Sequence[Action] = (),
        exchange: MutualTrading | SanJoseExchange | Settlement | None = None,
    ) -> Game:
        """A game in ``state`` (an observation, a parsed position), with ``hands``
        (bitmasks, one per seat) in place of the state's where given, e.g. a sample of the
        hidden ones. The pile is ``state.pile``; the history is ``played``
        (the plays and passes that led to ``state`` from the deal, e.g. an observation's,
        or none), so that the hands as dealt (:attr:`dealt`) are the hands and the cards
        each seat played, and the game's score counts what happened before ``state``
        (:func:`tienlen.scoring.outcome_of`). :attr:`chops` holds the chops from ``state``
        on.

        A state in the trading or the exchange phase needs ``exchange``, the exchange in
        progress (a copy is taken; :meth:`exchange_seen_by` gives it, and a San Jose
        exchange as a seat sees it needs the gives it did not see guessed:
        ``SanJoseExchange.guessed``). Once it is done, the seat holding the first-lead card
        (``state.first_lead``) leads."""
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
        if state.phase == "trading":
            if not isinstance(exchange, MutualTrading):
                raise ValueError(f"a game in the trading phase needs its trading, not {exchange!r}")
            exchange = exchange.copy()
        elif state.phase == "exchange":
            if (
                not isinstance(exchange, SanJoseExchange | Settlement)
                or exchange.chooser != state.turn
            ):
                raise ValueError(
                    f"a game in the exchange phase needs its exchange, with seat {state.turn} "
                    f"to give, not {exchange!r}"
                )
            if isinstance(exchange, SanJoseExchange) and not all(exchange.given):
                raise ValueError("a San Jose exchange with a give left out: guess it first")
            exchange = exchange.copy()
        elif exchange is not None:
            raise ValueError(f"an exchange is given for a state in the {state.phase!r} phase")
        held = union(masks)
        for action in played:
            if not 0 <= action.seat < n or action.move.mask & held:
                raise ValueError(f"{action!r} is no play of a seat before this state")
            held |= action.move.mask
        g = cls(rules, _shell=True)
        g._state = packed(state, masks, played, exchange)
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
        s = self._state
        pile = s.pile
        top: tuple[object, ...] = ()
        if pile:
            last = pile[-1]
            top = (last.seat, last.move.mask, last.move.kind, twos_under(pile, self._rules))
        return (
            tuple(s.hands),
            s.turn,
            top,
            s.passed,
            s.locked_out,
            s.straight_locked,
            s.first_lead,
            s.lowest if s.first_lead else -1,
            s.stuck,
            s.opening,
            s.finish_order,
        )

    # --- copying -------------------------------------------------------------------------
    def copy(self) -> Game:
        """An independent copy (cheap: hands and tables are immutable values)."""
        g = Game(self._rules, _shell=True)
        g._state = self._state.copy()
        return g

    def __repr__(self) -> str:
        """In the play phase, ``Game.from_position(...)``: pasted back, a game in the same
        position (its history aside); before it, a summary."""
        rules = self._rules
        s = self._state
        if s.phase in ("trading", "exchange"):
            hands = ", ".join(repr(format_cards(cards_of_mask(h), ascii=True)) for h in s.hands)
            return f"<Game {rules.name} phase={s.phase} turn={s.turn} hands=[{hands}]>"
        shown = repr(rules.name) if rules.is_preset else repr(rules)
        return f"Game.from_position({self.position.format()!r}, rules={shown})"
