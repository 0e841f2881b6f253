"""Scoring a finished game: the schemes of ``rules.scoring``, as payments between seats.

Every scheme is written as a list of :class:`Payment` (one seat pays another some points,
for a stated reason), so every scheme is zero-sum: what one seat loses another wins.
:func:`score` adds the payments up per seat; :func:`payments` lists them for a UI.

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
    Pro-Play Thirteen (004) with the bet x = 2, so every amount is a whole number: see
    :func:`proplay_payments`.

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

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import NamedTuple

from .cards import RANK_BITS, RANK_MASK, TWO, cards_of_mask, rank_counts
from .combos import Move, index, is_twos
from .game import Game

__all__ = [
    "PROPLAY_BET",
    "SCHEMES",
    "Payment",
    "Scheme",
    "cong_seats",
    "payments",
    "proplay_payments",
    "score",
]

#: The bet ``x`` of the Pro-Play point system (004); 2 keeps 1.5x a whole number.
PROPLAY_BET = 2


class Payment(NamedTuple):
    """``payer`` pays ``amount`` points to ``payee`` because of ``reason``."""

    payer: int
    payee: int
    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class Scheme:
    """One scoring scheme: its name, a one-line summary and its payments function."""

    name: str
    summary: str
    payments: Callable[[Game], list[Payment]]


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
            m = action.move
            if m.is_pass or m.kind == "give":
                continue
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


def _double_cong(game: Game, pays: list[Payment]) -> list[Payment]:
    if not game.rules.cong:
        return pays
    cong = _first_out(game).cong
    return [
        p._replace(amount=p.amount * 2, reason=f"{p.reason}, doubled: cóng")
        if p.payer in cong
        else p
        for p in pays
    ]


# --- the schemes ---------------------------------------------------------------------------
def _stake(game: Game) -> list[Payment]:
    order = game.finish_order
    loser = order[-1]
    pays = [Payment(loser, s, 1, "stake: the loser pays everyone") for s in order[:-1]]
    return _double_cong(game, pays)


def _scorepad(game: Game) -> list[Payment]:
    order = game.finish_order
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
    return _double_cong(game, pays)


def _per_card(game: Game) -> list[Payment]:
    snap = _first_out(game)
    winner = game.finish_order[0]
    pays = [
        Payment(s, winner, snap.cards[s], f"{snap.cards[s]} card(s) left")
        for s in game.finish_order[1:]
        if snap.cards[s]
    ]
    return _double_cong(game, pays)


def _winner_takes_all(game: Game) -> list[Payment]:
    cong = _first_out(game).cong
    winner = game.finish_order[0]
    return [
        Payment(s, winner, 4, "winner takes all, doubled: still holding every card")
        if s in cong
        else Payment(s, winner, 2, "winner takes all")
        for s in game.finish_order[1:]
    ]


def proplay_payments(game: Game, *, bet: int = PROPLAY_BET) -> list[Payment]:
    """Pro-Play Thirteen points (004), with ``bet`` as x (it must be even).

    - The winner receives x from every other player, 2x from one holding over 10 cards.
    - Each player left holding cards also pays the winner x per black 2, 2x per red 2,
      1.5x per unused pair run (cutup) and 3x per unused quad. **(call)** These penalties go
      to the winner (the point system is a bet with the winner), and bombs are counted
      without sharing cards: quads first, then each maximal run of three or more
      consecutive pairs among the remaining cards counts once; a 2 in a quad still counts
      as a 2.
    - Chop bonuses, paid at once by the chopped player: cutting (with a pair run) a black
      2 earns x, bombing it (with any other bomb) 2x; a red 2 earns 1.5x and 3x. A bomb on
      several 2s earns the sum per 2 (**call**). Cutting or bombing a bomb earns double
      what that bomb earned (nothing if it earned nothing).
    - "Got to Get In" is the knob ``rules.got_to_get_in`` (any scheme, see :func:`payments`);
      not modelled: "Guaransheeds" (declared before play).
    """
    if bet % 2:
        raise ValueError(f"the proplay bet must be even so 1.5x is whole, not {bet!r}")
    x = bet
    rules = game.rules
    order = game.finish_order
    winner = order[0]
    snap = _first_out(game)
    pays: list[Payment] = []
    for s in order[1:]:
        if snap.cards[s] > 10:
            pays.append(Payment(s, winner, 2 * x, "first place, doubled: over 10 cards left"))
        else:
            pays.append(Payment(s, winner, x, "first place"))
    pair_run_twos = rules.twos_in_pair_run == "top"
    for s in order[1:]:
        hand = game.hand_masks[s]
        twos = cards_of_mask((hand >> (RANK_BITS * TWO) & RANK_MASK) << (RANK_BITS * TWO))
        for card in twos:
            if card.is_red:
                pays.append(Payment(s, winner, 2 * x, f"unused red 2 ({card})"))
            else:
                pays.append(Payment(s, winner, x, f"unused black 2 ({card})"))
        quads, runs = _unused_bombs(hand, rules.min_pair_run, pair_run_twos)
        pays.extend(Payment(s, winner, 3 * x, "unused quad") for _ in range(quads))
        pays.extend(Payment(s, winner, 3 * x // 2, "unused pair run") for _ in range(runs))
    pays.extend(_chop_bonuses(game, x))
    return pays


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


def _chop_bonuses(game: Game, x: int) -> list[Payment]:
    """Replay the plays to see what each bomb landed on (re-cuts are not in game.chops)."""
    rules = game.rules
    ix = index(rules)
    quiet = replace(rules, trading="none", instant_wins=(), starter_takes_spare=False)
    replay = Game(quiet, hands=game.dealt, leader=game.leader)
    earned: dict[int, int] = {}  # id(move object of a pile play) -> points it earned
    pays: list[Payment] = []
    for action in game.history:
        m = action.move
        if m.kind == "give":
            continue
        top = replay.top
        if top is not None and not m.is_pass and top.seat != action.seat and ix.is_bomb(m):
            amount, why = _chop_value(m, top.move, earned.get(id(top.move), 0), x)
            if amount:
                pays.append(Payment(top.seat, action.seat, amount, why))
            earned[id(m)] = amount
        replay.apply_unchecked(m)
    if replay.hand_masks != game.hand_masks:  # a game built mid-way: fall back
        return [
            Payment(c.victim, c.seat, amt, why)
            for c in game.chops
            for amt, why in [_chop_value(c.bomb, c.target, 0, x)]
            if amt
        ]
    return pays


def _chop_value(bomb: Move, target: Move, target_earned: int, x: int) -> tuple[int, str]:
    cut = bomb.kind == "pair_run"
    verb = "cutting" if cut else "bombing"
    if is_twos(target) or (target.kind == "straight" and target.top_rank == TWO):
        total = 0
        for card in cards_of_mask(target.mask):
            if card.rank != TWO:
                continue
            if card.is_red:
                total += 3 * x // 2 if cut else 3 * x
            else:
                total += x if cut else 2 * x
        return total, f"{verb} {target.describe()}"
    return 2 * target_earned, f"{verb} a bomb (double what it earned)"


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
        Scheme("per-card", "everyone pays the winner one point per card left", _per_card),
        Scheme(
            "winner-takes-all",
            "everyone pays the winner 2 points, 4 if still holding every card",
            _winner_takes_all,
        ),
        Scheme(
            "proplay",
            "Pro-Play points: the winner collects, penalties for 2s and bombs kept, chop bonuses",
            proplay_payments,
        ),
    )
}
"""The scoring schemes, keyed by the values of ``rules.scoring``."""


def payments(game: Game) -> list[Payment]:
    """Every payment of a finished game under ``game.rules.scoring``, then the Got to Get In
    payments of ``game.rules.got_to_get_in``."""
    if not game.is_over:
        raise ValueError("the game is not over: there is nothing to score yet")
    pays = SCHEMES[game.rules.scoring].payments(game)
    points = game.rules.got_to_get_in
    if points:
        winner = game.finish_order[0]
        why = "got to get in: no card played when the first player went out"
        pays += [Payment(s, winner, points, why) for s in sorted(_first_out(game).cong)]
    return pays


def score(game: Game) -> tuple[int, ...]:
    """Points won (positive) or lost (negative) by each seat in a finished game."""
    out = [0] * game.rules.players
    for p in payments(game):
        out[p.payer] -= p.amount
        out[p.payee] += p.amount
    return tuple(out)
