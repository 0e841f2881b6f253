"""Scoring a finished game: the schemes of ``rules.scoring``, as payments between seats.

Every scheme is written as a list of :class:`Payment` (one seat pays another some points,
for a stated reason), so every scheme is zero-sum: what one seat loses another wins.
:func:`score` adds the payments up per seat; :func:`payments` lists them for a UI.

The schemes read only an :class:`Outcome`: what scoring needs to know of a finished game
(the finishing order, the cards held when the first player went out, cóng, the cards left,
the chops). :func:`outcome_of` takes it from a played :class:`~tienlen.Game`; a score pad for
games played with real cards builds one from what the players tell it
(:func:`outcome_fields` says what to ask) and scores it with :func:`outcome_payments`, so
both are scored by this one copy of the rules.

The schemes (the knob values of ``rules.scoring``):

``stake``
    The loser pays one point (a fixed stake) to every other player (000, 001).
``scorepad``
    003's score pad. Four players: +2, +1, −1, −2 in finishing order (the last pays 2 to
    the first, the third pays 1 to the second). Two or three players: the last pays 1 to
    each other player. **(call)** Five to eight players extend the four-player ladder: with
    h = players // 2, the last pays h to the first, the second-to-last pays h − 1 to the
    second, and so on; with an odd count the middle player scores 0 (five players:
    +2 +1 0 −1 −2; eight players: +4 +3 +2 +1 −1 −2 −3 −4).
``per-card``
    Kenneth Lu (001): each player pays the winner one point per card they held when the
    winner went out.
``winner-takes-all``
    003: each player pays the winner 2 points, 4 if they still held every card dealt to
    them when the winner went out.
``proplay``
    Pro-Play Thirteen's first-place bet (004) with x = 2, so every amount is a whole
    number: see :func:`proplay_payments`. The preset adds the rest of its point system as
    score extras.

Score extras (``rules.score_extras``, :func:`extra_payments`) are paid on top of any scheme:
chop bonuses (``chop-twos``), penalties for 2s (``twos-left``, thối 2) and bombs
(``bombs-left``, thối hàng) kept to the end, and a bonus for going out with the 3♠.

Card debts (:func:`card_debts`) are not points but cards a game leaves owed at the next deal
of a match: 004's chop debts (``rules.chop_debts``) and "the loser owes the winner a 2"
(``rules.loser_owes_twos``).

Cóng (``rules.cong``, 003 "stuck with 13"): a player who had not played a single card when
the first player went out pays double. It doubles that player's payments under ``stake``,
``scorepad`` and ``per-card``; ``winner-takes-all`` and ``proplay`` have their own doubling
built in, which applies whatever ``rules.cong`` says. **(call)** Nobody is cóng after an
instant win (nobody went out by playing).

Got to Get In (``rules.got_to_get_in``, 004 Pro-Play): each player who had not played a card
when the first player went out (the cóng players) also pays that player the knob's points,
under any scheme. **(call)** Only the first player out collects: 004's Pro-Play game ends
there, and cóng is decided then in every scheme.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, NamedTuple

from .cards import TWO, TWOS_MASK, Card, cards_of_mask, rank_counts
from .combos import Move, index, is_twos
from .debts import CardDebt
from .game import Game
from .position import Action, Gift
from .rules import Rules

__all__ = [
    "PROPLAY_BET",
    "SCHEMES",
    "BombPlay",
    "Outcome",
    "OutcomeError",
    "Payment",
    "Scheme",
    "ScoredChop",
    "bomb_plays",
    "card_debts",
    "cong_seats",
    "extra_payments",
    "guarantee_payments",
    "net_points",
    "outcome_fields",
    "outcome_of",
    "outcome_payments",
    "payments",
    "proplay_payments",
    "score",
    "score_outcome",
    "uncounted_fields",
]

#: The bet ``x`` of the Pro-Play point system (004), also the unit of the score extras;
#: 2 keeps 1.5x a whole number.
PROPLAY_BET = 2
#: Both copies of the 3♠ (ids 0 and 1).
THREE_SPADES_MASK = 0b11


class OutcomeError(ValueError):
    """An outcome that does not fit the rules: the English text (quoting the value), with a
    stable ``code`` (a key of :data:`tienlen.reasons.REASONS`) and its ``params``. A
    parameter named ``player`` is a seat (from 0) and ``players`` a list of seats, so an app
    that knows the players' names words the error with them."""

    def __init__(self, message: str, code: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


class Payment(NamedTuple):
    """``payer`` pays ``amount`` points to ``payee`` because of ``reason``."""

    payer: int
    payee: int
    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class Scheme:
    """One scoring scheme: its name, a one-line summary, its payments function and the
    :class:`Outcome` fields (besides ``order``) that the function reads."""

    name: str
    summary: str
    payments: Callable[[Rules, Outcome], list[Payment]]
    reads: frozenset[str] = frozenset()


class ScoredChop(NamedTuple):
    """A chop as scoring sees it: ``seat`` chopped ``victim``'s play, cutting it (with a pair
    run) or bombing it (any other bomb). The play held ``red_twos`` red and ``black_twos``
    black 2s; with none it was a bomb, answered by ``on`` (the index of that bomb's own
    chop among the game's chops, or ``None``)."""

    seat: int
    victim: int
    cut: bool
    red_twos: int = 0
    black_twos: int = 0
    on: int | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What scoring needs to know of a finished game; every field is checked against the
    rules by :func:`outcome_payments`."""

    order: tuple[int, ...]
    """Seats in finishing order, the winner first and the loser last."""
    cards_left: tuple[int, ...] = ()
    """Cards each seat held when the first player went out (``()``: not known, for schemes
    that do not count them)."""
    cong: frozenset[int] = frozenset()
    """Seats that had not played a card when the first player went out."""
    hands: tuple[int, ...] = ()
    """Each seat's cards at the end, as bitmasks (``()``: nobody kept a card that counts)."""
    chops: tuple[ScoredChop, ...] = ()
    """The game's chops in order (counted by ``chop-twos``)."""
    three_spades_last: bool = False
    """The winner went out with a play holding the 3♠."""
    instant_win: bool = False
    """The winner won at the deal (tới trắng): nobody played, so nobody is cóng."""
    guarantees: tuple[tuple[int, bool], ...] = ()
    """``(seat, blind)`` for each seat that guaranteed a first place (Pro-Play's side bets,
    ``rules.guarantees``; see :func:`guarantee_payments`)."""


#: The fields of an :class:`Outcome` that a game may leave out (all but ``order``).
_OPTIONAL_FIELDS = tuple(f.name for f in fields(Outcome) if f.name != "order")


# --- what the table looked like when the first player went out ------------------------
@dataclass(frozen=True, slots=True)
class _FirstOut:
    cards: tuple[int, ...]  # cards each seat held at that moment
    cong: frozenset[int]  # seats that had not played a card by then


def _first_out(game: Game) -> _FirstOut:
    dealt = [len(h) for h in game.dealt]
    counts = dealt[:]
    played: set[int] = set()
    if game.instant_win is None:
        for action in game.history:
            if isinstance(action, Gift) or action.move.is_pass:
                continue
            m = action.move
            counts[action.seat] -= m.mask.bit_count()
            played.add(action.seat)
            if counts[action.seat] == 0:
                break
        else:  # a game built mid-way (``Game.from_state``): use what is known now
            counts = [game.cards_left(s) for s in range(len(counts))]
            played = {s for s in range(len(counts)) if counts[s] < dealt[s]}
        winner = game.finish_order[0] if game.finish_order else -1
        cong = frozenset(s for s in range(len(counts)) if s not in played and s != winner)
    else:
        cong = frozenset()
    return _FirstOut(tuple(counts), cong)


def cong_seats(game: Game) -> frozenset[int]:
    """Seats that had not played a card when the first player went out (cóng)."""
    return _first_out(game).cong


def outcome_of(game: Game) -> Outcome:
    """The :class:`Outcome` of a finished game, as much of it as ``game.rules`` scores."""
    if not game.is_over:
        raise ValueError("the game is not over: there is nothing to score yet")
    extras = game.rules.score_extras
    snap = _first_out(game)
    chops: tuple[ScoredChop, ...] = ()
    if "chop-twos" in extras:
        chops = tuple(_scored(b) for b in bomb_plays(game))
    winner = game.finish_order[0]
    return Outcome(
        order=game.finish_order,
        cards_left=snap.cards,
        cong=snap.cong,
        hands=game.hand_masks,
        chops=chops,
        three_spades_last="three-spades-last" in extras
        and _last_play_holds_three_spades(game, winner),
        instant_win=game.instant_win is not None,
    )


def _scored(b: BombPlay) -> ScoredChop:
    twos = _twos_in(b.target) if _has_twos(b.target) else []
    red = sum(1 for c in twos if c.is_red)
    return ScoredChop(b.seat, b.victim, b.bomb.kind == "pair_run", red, len(twos) - red, b.on)


def _double_cong(rules: Rules, o: Outcome, pays: list[Payment]) -> list[Payment]:
    if not rules.cong:
        return pays
    return [
        p._replace(amount=p.amount * 2, reason=f"{p.reason}, doubled: cóng")
        if p.payer in o.cong
        else p
        for p in pays
    ]


# --- the schemes ---------------------------------------------------------------------------
def _stake(rules: Rules, o: Outcome) -> list[Payment]:
    order = o.order
    loser = order[-1]
    pays = [Payment(loser, s, 1, "stake: the loser pays everyone") for s in order[:-1]]
    return _double_cong(rules, o, pays)


def _scorepad(rules: Rules, o: Outcome) -> list[Payment]:
    order = o.order
    n = len(order)
    if n <= 3:
        pays = [Payment(order[-1], s, 1, "score pad: last place") for s in order[:-1]]
    else:
        half = n // 2
        pays = [
            Payment(
                order[n - 1 - k], order[k], half - k, f"score pad: place {n - k} pays place {k + 1}"
            )
            for k in range(half)
        ]
    return _double_cong(rules, o, pays)


def _per_card(rules: Rules, o: Outcome) -> list[Payment]:
    winner = o.order[0]
    pays = [
        Payment(s, winner, o.cards_left[s], f"{o.cards_left[s]} card(s) left")
        for s in o.order[1:]
        if o.cards_left[s]
    ]
    return _double_cong(rules, o, pays)


def _winner_takes_all(rules: Rules, o: Outcome) -> list[Payment]:
    winner = o.order[0]
    return [
        Payment(s, winner, 4, "winner takes all, doubled: still holding every card")
        if s in o.cong
        else Payment(s, winner, 2, "winner takes all")
        for s in o.order[1:]
    ]


def _bet(bet: int) -> int:
    if bet % 2:
        raise ValueError(f"the proplay bet must be even so 1.5x is whole, not {bet!r}")
    return bet


def proplay_payments(outcome: Outcome, *, bet: int = PROPLAY_BET) -> list[Payment]:
    """Pro-Play Thirteen's first-place bet (004), with ``bet`` as x (it must be even): the
    winner receives x from every other player, 2x from one holding over 10 cards.

    The rest of Pro-Play's point system (penalties for 2s and bombs kept, chop bonuses) is
    the score extras ``twos-left``, ``bombs-left`` and ``chop-twos``
    (:func:`extra_payments`), which the ``proplay`` preset turns on; "Got to Get In" is
    the knob ``rules.got_to_get_in`` (see :func:`payments`); "Guaransheeds" are declared
    through the match (:func:`guarantee_payments`)."""
    x = _bet(bet)
    order = outcome.order
    winner = order[0]
    return [
        Payment(s, winner, 2 * x, "first place, doubled: over 10 cards left")
        if outcome.cards_left[s] > 10
        else Payment(s, winner, x, "first place")
        for s in order[1:]
    ]


# --- score-pad extras (rules.score_extras) ------------------------------------------------
def extra_payments(rules: Rules, outcome: Outcome, *, bet: int = PROPLAY_BET) -> list[Payment]:
    """The payments of ``rules.score_extras``, in units of ``bet`` (x, even), with the
    amounts of 004's Pro-Play point system:

    ``twos-left`` (thối 2)
        Each player left holding cards pays the winner x per black 2 and 2x per red 2.
    ``bombs-left`` (thối hàng)
        Each player left holding cards pays the winner 1.5x per unused pair run (cutup)
        and 3x per unused quad. **(call)** These penalties go to the winner (Pro-Play's
        system is a bet with the winner), and bombs are counted without sharing cards:
        quads first, then each maximal run of three or more consecutive pairs among the
        remaining cards counts once; a 2 in a quad still counts as a 2.
    ``chop-twos``
        Chop bonuses, paid at once by the chopped player: cutting (with a pair run) a black
        2 earns x, bombing it (with any other bomb) 2x; a red 2 earns 1.5x and 3x. A bomb on
        several 2s earns the sum per 2 (**call**). Cutting or bombing a bomb earns double
        what that bomb earned (nothing if it earned nothing).
    ``three-spades-last``
        **(call)** No seed gives an amount: a winner whose last play holds the 3♠ receives
        x from every other player.
    """
    x = _bet(bet)
    extras = rules.score_extras
    order = outcome.order
    winner = order[0]
    pays: list[Payment] = []
    pair_run_twos = rules.twos_in_pair_run == "top"
    for s in order[1:]:
        hand = outcome.hands[s] if outcome.hands else 0
        if "twos-left" in extras:
            twos = cards_of_mask(hand & TWOS_MASK)
            for card in twos:
                if card.is_red:
                    pays.append(Payment(s, winner, 2 * x, f"unused red 2 ({card})"))
                else:
                    pays.append(Payment(s, winner, x, f"unused black 2 ({card})"))
        if "bombs-left" in extras:
            quads, runs = _unused_bombs(hand, rules.min_pair_run, pair_run_twos)
            pays.extend(Payment(s, winner, 3 * x, "unused quad") for _ in range(quads))
            pays.extend(Payment(s, winner, 3 * x // 2, "unused pair run") for _ in range(runs))
    if "chop-twos" in extras:
        pays.extend(_chop_bonuses(outcome.chops, x))
    if "three-spades-last" in extras and outcome.three_spades_last:
        pays.extend(Payment(s, winner, x, "went out with the 3♠") for s in order[1:])
    return pays


def _last_play_holds_three_spades(game: Game, seat: int) -> bool:
    if game.instant_win is not None:
        return False
    for action in reversed(game.history):
        if action.seat == seat and isinstance(action, Action) and not action.move.is_pass:
            return bool(action.move.mask & THREE_SPADES_MASK)
    return False


def _unused_bombs(hand: int, min_pairs: int, twos_in_runs: bool) -> tuple[int, int]:
    counts = rank_counts(hand)
    quads = sum(1 for c in counts if c == 4)
    left = [c if c < 4 else 0 for c in counts]
    last = 13 if twos_in_runs else 12
    runs = length = 0
    for r in range(last + 1):
        if r < last and left[r] >= 2:
            length += 1
            continue
        if length >= min_pairs:
            runs += 1
        length = 0
    return quads, runs


# --- chops: bonuses and card debts --------------------------------------------------------
class BombPlay(NamedTuple):
    """A bomb that chopped another seat's play: a play of another kind, 2s, or a bomb that
    chopped in turn (``on``: the index, in :func:`bomb_plays`, of the bomb it beat)."""

    seat: int
    victim: int
    bomb: Move
    target: Move
    on: int | None


def bomb_plays(game: Game) -> list[BombPlay]:
    """Every chop of the game in order, re-chops (a bomb on a bomb of the same kind, which
    ``game.chops`` leaves out) included: the plays are replayed to see each one's target."""
    rules = game.rules
    ix = index(rules)
    quiet = replace(
        rules,
        trading="none",
        instant_wins=(),
        starter_takes_spare=False,
        chop_debts="none",
        loser_owes_twos=False,
    )
    replay = Game(quiet, hands=game.dealt, leader=game.leader)
    out: list[BombPlay] = []
    chopping: dict[int, int] = {}  # id(move object of a pile play) -> its index in out
    for action in game.history:
        if isinstance(action, Gift):
            continue
        m = action.move
        top = replay.top
        if top is not None and not m.is_pass and top.seat != action.seat and ix.is_bomb(m):
            t = top.move
            on = chopping.get(id(t))
            if on is not None or _has_twos(t) or (t.kind, t.size) != (m.kind, m.size):
                chopping[id(m)] = len(out)
                out.append(BombPlay(action.seat, top.seat, m, t, on))
        replay.apply_unchecked(m)
    if replay.hand_masks != game.hand_masks:  # a game built mid-way: what game.chops knows
        return [BombPlay(c.seat, c.victim, c.bomb, c.target, None) for c in game.chops]
    return out


def _has_twos(target: Move) -> bool:
    return is_twos(target) or (target.kind == "straight" and target.top_rank == TWO)


def _twos_in(target: Move) -> list[Card]:
    return [c for c in cards_of_mask(target.mask) if c.rank == TWO]


def _chop_bonuses(chops: tuple[ScoredChop, ...], x: int) -> list[Payment]:
    earned: list[int] = []
    pays: list[Payment] = []
    for c in chops:
        amount, why = _chop_value(c, 0 if c.on is None else earned[c.on], x)
        earned.append(amount)
        if amount:
            pays.append(Payment(c.victim, c.seat, amount, why))
    return pays


def _chop_value(chop: ScoredChop, target_earned: int, x: int) -> tuple[int, str]:
    cut = chop.cut
    verb = "cutting" if cut else "bombing"
    if chop.red_twos or chop.black_twos:
        red = chop.red_twos * (3 * x // 2 if cut else 3 * x)
        black = chop.black_twos * (x if cut else 2 * x)
        return red + black, f"{verb} {chop.red_twos} red and {chop.black_twos} black 2(s)"
    return 2 * target_earned, f"{verb} a bomb (double what it earned)"


def guarantee_payments(game: Game, guarantees: Mapping[int, bool]) -> list[Payment]:
    """Pro-Play's Guaransheeds (004) for a finished game: ``guarantees`` maps each seat that
    guaranteed a first place to whether it did so blind. A seat that goes out first receives
    one point from every other player (two when blind: "that player will receive two
    additional points from each player in the game"); one that does not gives two points
    to every other player."""
    if not game.is_over:
        raise ValueError("the game is not over: there is nothing to score yet")
    return _guaranteed(game.finish_order, guarantees)


def _guaranteed(order: tuple[int, ...], guarantees: Mapping[int, bool]) -> list[Payment]:
    winner = order[0]
    pays: list[Payment] = []
    for seat, blind in sorted(guarantees.items()):
        kind = "blind guarantee" if blind else "guarantee"
        others = [s for s in order if s != seat]
        if seat == winner:
            pays += [Payment(s, seat, 2 if blind else 1, f"{kind} made good") for s in others]
        else:
            pays += [Payment(seat, s, 2, f"{kind} failed") for s in others]
    return pays


def card_debts(game: Game) -> list[CardDebt]:
    """The cards a finished game leaves owed at the next deal of a match (004's house
    rules, ``rules.chop_debts`` and ``rules.loser_owes_twos``), in that order.

    - Chop debts: the victim of the game's last chop owes its bomber. The 2s of the play
      at the bottom of that chain of bombs set the count (**call**: a chop of a play
      without 2s counts as one 2); each bomb on a bomb above it adds one card
      (``stacking``), doubles the count (``doubling``) or nothing (``no-stacking``).
    - The loser owes the winner one card per 2 still in hand.
    """
    if not game.is_over:
        raise ValueError("the game is not over: nothing is owed yet")
    rules = game.rules
    out: list[CardDebt] = []
    plays = bomb_plays(game) if rules.chop_debts != "none" else []
    if plays:
        last = plays[-1]
        layers, root = 1, last
        while root.on is not None:
            layers, root = layers + 1, plays[root.on]
        twos = max(1, len(_twos_in(root.target)))
        count = {
            "no-stacking": twos,
            "stacking": twos + layers - 1,
            "doubling": 2 ** (twos - 1 + layers - 1),
        }[rules.chop_debts]
        out.append(CardDebt(last.victim, last.seat, count, "chopped last"))
    if rules.loser_owes_twos:
        loser, winner = game.finish_order[-1], game.finish_order[0]
        twos = (game.hand_masks[loser] & TWOS_MASK).bit_count()
        if twos and loser != winner:
            out.append(CardDebt(loser, winner, twos, f"the loser kept {twos} 2(s)"))
    return out


SCHEMES: dict[str, Scheme] = {
    s.name: s
    for s in (
        Scheme("stake", "the loser pays one point to every other player", _stake),
        Scheme(
            "scorepad",
            "+2 +1 −1 −2 by finishing place with four players; "
            "with two or three the last pays 1 to each",
            _scorepad,
        ),
        Scheme(
            "per-card",
            "everyone pays the winner one point per card left",
            _per_card,
            frozenset({"cards_left"}),
        ),
        Scheme(
            "winner-takes-all",
            "everyone pays the winner 2 points, 4 if still holding every card",
            _winner_takes_all,
            frozenset({"cong"}),
        ),
        Scheme(
            "proplay",
            "Pro-Play's bet: every other player pays the winner x, 2x with over 10 cards left",
            lambda _rules, outcome: proplay_payments(outcome),
            frozenset({"cards_left"}),
        ),
    )
}
"""The scoring schemes, keyed by the values of ``rules.scoring``."""


def payments(game: Game) -> list[Payment]:
    """Every payment of a finished game under ``game.rules`` (see :func:`outcome_payments`)."""
    return outcome_payments(game.rules, outcome_of(game))


def score(game: Game) -> tuple[int, ...]:
    """Points won (positive) or lost (negative) by each seat in a finished game."""
    return score_outcome(game.rules, outcome_of(game))


def outcome_fields(rules: Rules) -> tuple[str, ...]:
    """The :class:`Outcome` fields that scoring under ``rules`` counts, besides ``order``:
    what a score pad must ask the players for."""
    extras = rules.score_extras
    reads = SCHEMES[rules.scoring].reads
    wanted = {
        "cards_left": "cards_left" in reads,
        "cong": rules.cong or "cong" in reads or rules.got_to_get_in > 0,
        "hands": "twos-left" in extras or "bombs-left" in extras,
        "chops": "chop-twos" in extras,
        "three_spades_last": "three-spades-last" in extras,
        "instant_win": bool(rules.instant_wins),
        "guarantees": rules.guarantees,
    }
    return tuple(name for name, on in wanted.items() if on)


def uncounted_fields(rules: Rules, outcome: Outcome) -> tuple[str, ...]:
    """The fields ``outcome`` gives (not empty or false) that scoring under ``rules`` never
    reads (not in :func:`outcome_fields`): a score pad refuses such an entry rather than
    keep a number that changes nothing."""
    counted = outcome_fields(rules)
    return tuple(
        name for name in _OPTIONAL_FIELDS if name not in counted and getattr(outcome, name)
    )


def outcome_payments(rules: Rules, outcome: Outcome) -> list[Payment]:
    """Every payment of a game with this ``outcome`` under ``rules.scoring``, then those of
    its score extras (:func:`extra_payments`), the Got to Get In payments of
    ``rules.got_to_get_in`` and the guarantees' (:func:`guarantee_payments`). Raises
    ``ValueError`` (quoting the value) when the outcome does not fit the rules: not every
    seat in the order once, counts out of range, a field the rules count left out."""
    _check(rules, outcome)
    pays = SCHEMES[rules.scoring].payments(rules, outcome)
    if rules.score_extras:
        pays += extra_payments(rules, outcome)
    points = rules.got_to_get_in
    if points:
        winner = outcome.order[0]
        why = "got to get in: no card played when the first player went out"
        pays += [Payment(s, winner, points, why) for s in sorted(outcome.cong)]
    if outcome.guarantees:
        pays += _guaranteed(outcome.order, dict(outcome.guarantees))
    return pays


def score_outcome(rules: Rules, outcome: Outcome) -> tuple[int, ...]:
    """Points won (positive) or lost (negative) by each seat, for ``outcome`` under
    ``rules``."""
    return net_points(outcome_payments(rules, outcome), rules.players)


def net_points(payments: Iterable[Payment], players: int) -> tuple[int, ...]:
    """What each of ``players`` seats won (positive) or lost (negative) by ``payments``."""
    out = [0] * players
    for p in payments:
        out[p.payer] -= p.amount
        out[p.payee] += p.amount
    return tuple(out)


def _check(rules: Rules, o: Outcome) -> None:
    n = rules.players
    seats = range(n)
    if sorted(o.order) != list(seats):
        raise OutcomeError(
            f"the finishing order must name each of the {n} seats once: {o.order!r}",
            "outcome_order",
            count=n,
            players=list(o.order),
        )
    winner = o.order[0]
    if o.cards_left:
        most = rules.cards_per_hand
        if len(o.cards_left) != n:
            raise OutcomeError(
                f"cards_left needs {n} counts from 0 to {most}, one per seat: {o.cards_left!r}",
                "outcome_cards_left_count",
                count=n,
                given=len(o.cards_left),
            )
        for seat, held in enumerate(o.cards_left):
            if not 0 <= held <= most:
                raise OutcomeError(
                    f"cards_left needs {n} counts from 0 to {most}, one per seat: {o.cards_left!r}",
                    "outcome_cards_left_range",
                    player=seat,
                    cards=held,
                    most=most,
                )
        if o.cards_left[winner] and not o.instant_win:
            raise OutcomeError(
                f"the winner (seat {winner}) went out, so held 0 cards, not "
                f"{o.cards_left[winner]!r}",
                "outcome_winner_cards",
                player=winner,
                cards=o.cards_left[winner],
            )
    elif "cards_left" in SCHEMES[rules.scoring].reads:
        raise OutcomeError(
            f"{rules.scoring} scoring needs the cards each seat held when the first went out",
            "outcome_needs_cards_left",
            scoring=rules.scoring,
        )
    for seat in sorted(o.cong):
        if seat not in seats or seat == winner:
            raise OutcomeError(
                f"cóng seats must be seats other than the winner: {sorted(o.cong)!r}",
                "outcome_cong" if seat == winner else "outcome_no_player",
                player=seat,
            )
    if o.instant_win and (o.cong or o.three_spades_last or o.chops):
        raise OutcomeError(
            "after an instant win nobody played: no cóng, chops or last play",
            "outcome_instant_win",
        )
    if o.hands and len(o.hands) != n:
        raise OutcomeError(
            f"hands needs one hand per seat ({n}), not {len(o.hands)}",
            "outcome_hands_count",
            count=n,
            given=len(o.hands),
        )
    if o.guarantees:
        if not rules.guarantees:
            raise OutcomeError(
                "these rules have no guarantees (rules.guarantees is off)", "outcome_no_guarantees"
            )
        guaranteed: set[int] = set()
        for seat, _blind in o.guarantees:
            if seat not in seats or seat in guaranteed:
                raise OutcomeError(
                    f"each seat guarantees at most once: {o.guarantees!r}",
                    "outcome_no_player" if seat not in seats else "outcome_guarantee_twice",
                    player=seat,
                )
            guaranteed.add(seat)
    for i, c in enumerate(o.chops):
        for seat in (c.seat, c.victim):
            if seat not in seats:
                raise OutcomeError(
                    f"chop {i + 1}: a seat chops another seat, not {c!r}",
                    "outcome_no_player",
                    player=seat,
                )
        if c.seat == c.victim:
            raise OutcomeError(
                f"chop {i + 1}: a seat chops another seat, not {c!r}",
                "outcome_self_chop",
                chop=i + 1,
                player=c.seat,
            )
        if c.red_twos < 0 or c.black_twos < 0:
            raise OutcomeError(
                f"chop {i + 1}: counts of 2s are 0 or more, not {c!r}",
                "outcome_chop_twos",
                chop=i + 1,
            )
        if c.on is not None and not 0 <= c.on < i:
            raise OutcomeError(
                f"chop {i + 1}: it can only answer an earlier chop, not {c.on!r}",
                "outcome_chop_on",
                chop=i + 1,
                on=c.on + 1,
            )
