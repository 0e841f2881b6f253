"""The value of every choice of one decision, from the deciding seat's own information.

:func:`analyse_decision` takes an :class:`~tienlen.observation.Observation` (what the seat
saw, never the other hands) and values each legal choice by three figures, each a mean over
sampled deals with its standard error:

- ``win``: the probability of the best finish still open to the seat, the decision's
  *stake*: going out first while nobody is out; once a seat is out, not finishing last;
- ``place``: the expected finishing place (1 is first);
- ``points``: the expected points of the seat under the game's scoring
  (:func:`tienlen.scoring.score_outcome`).

A sample deals the cards the seat has not seen to the other seats
(:class:`~tienlen.players.bots.determinize.Determinizer` with ``tidy``: of :data:`GUESSES` random
deals in the known card counts, the one whose other hands are the cheapest to play out:
players keep tidy hands, and random deals, which give the opponents untidy ones, made the
values too high, docs/bots.md),
builds that game, makes the choice and plays the game out with the ``heuristic`` bot's
scoring for every seat (:func:`~tienlen.players.bots.ismcts.rollout_heuristic`). Every
choice is played on the same deals (paired samples), so the difference between two choices
is measured far more precisely than either value: :meth:`DecisionValues.loss` gives it with
its own error. Before the play, gives, offers of trades (the partner answering by the
heuristic's rule on its sampled hand) and answers to them are valued the same way
(docs/analysis.md).

The samples are spent by successive halving: every choice gets the first ``first``
deals; then the better half (and the choices in ``keep``) go on to twice as many, and so on
up to ``samples``. A choice dropped early keeps its value, with a larger error.

With two seats left the seat sees every card (those it has not seen are all the other's,
unless some were set aside at the deal): there, in a position within the open-hands
solver's reach, the stake and the place come from the solver, exact with best play on both
sides, where a playout might misplay the endgame; the points stay the playouts'.

Points are the score of the whole game: each sampled game is built with the plays the
seat saw before the decision as its history, so the score counts what happened before it
(chops and re-chops, who had played a card, the cards held when the first seat went out,
the winner's last play) as well as what the playout adds.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from tienlen.cards import bits_of_mask, cards_of_mask, deck_mask, format_cards
from tienlen.combos import PASS, Choice, Give, RulesIndex, format_move, index
from tienlen.exchanges import MutualTrading, SanJoseExchange, subsets
from tienlen.game import Game
from tienlen.observation import Observation
from tienlen.players.bots.determinize import Determinizer
from tienlen.players.bots.heuristic import accepts_trade, rank_gives, rank_swaps
from tienlen.players.bots.ismcts import PolicyMemo, rollout_heuristic
from tienlen.players.toolkit import placeholder_hands, unseen_mask
from tienlen.position import Action
from tienlen.rules import Rules
from tienlen.scoring import outcome_of, score_outcome
from tienlen.solver import EXACT_NODES, Solver, exact_choices

__all__ = [
    "DEFAULT_SAMPLES",
    "OFFER_SWAPS",
    "AcceptTrade",
    "ChoiceValue",
    "DecisionValues",
    "Estimate",
    "OfferTrade",
    "Option",
    "analyse_decision",
    "format_option",
    "options_of",
]

#: Deals the best choices of a decision are played out on by default.
DEFAULT_SAMPLES = 128
#: Deals every choice is played out on before the worse half is dropped.
FIRST_SAMPLES = 8
#: Random deals of the unseen cards each sample is chosen from (see the module docstring).
GUESSES = 4
#: The one-card swaps a seat's offers of a trade are chosen from, each offered to every
#: other seat: the best of the heuristic's ranking (:func:`rank_swaps`).
OFFER_SWAPS = 6


@dataclass(frozen=True, slots=True)
class AcceptTrade:
    """The trading phase's other choice beside the pass (which refuses): accepting the
    pending offer, handing over ``mask`` (the cards asked for) for ``take``."""

    mask: int
    take: int

    def __str__(self) -> str:
        return "accept"


@dataclass(frozen=True, slots=True)
class OfferTrade:
    """The trading phase's choice beside the pass (which makes no offer): offering
    ``partner`` the cards ``give`` for its cards ``take`` (bitmasks of equal sizes)."""

    partner: int
    give: int
    take: int

    @property
    def mask(self) -> int:
        """The cards offered."""
        return self.give

    def text(self, *, ascii: bool = False) -> str:
        """``"offer 3♠ to 2 for K♥"``."""
        give = format_cards(cards_of_mask(self.give), ascii=ascii)
        take = format_cards(cards_of_mask(self.take), ascii=ascii)
        return f"offer {give} to {self.partner} for {take}"

    def __str__(self) -> str:
        return self.text()


#: A choice a decision values: a play or the pass, a give, accepting or offering a trade.
Option = Choice | AcceptTrade | OfferTrade


def format_option(option: Option, *, ascii: bool = False) -> str:
    """A choice in words: a move or give in notation, ``"accept"`` or an offer."""
    if isinstance(option, AcceptTrade):
        return str(option)
    if isinstance(option, OfferTrade):
        return option.text(ascii=ascii)
    return format_move(option, ascii=ascii)


def _key(option: Option) -> tuple[int, ...]:
    """What tells two choices of one decision apart: their cards, and an offer's partner
    and the cards it asks for."""
    if isinstance(option, OfferTrade):
        return (option.give, option.partner, option.take)
    return (option.mask,)


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean over samples and its standard error."""

    mean: float
    error: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Estimate:
        """The mean of ``values`` and its standard error (0 for fewer than two)."""
        n = len(values)
        mean = math.fsum(values) / n
        if n < 2:
            return cls(mean, 0.0)
        var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
        return cls(mean, math.sqrt(var / n))


@dataclass(frozen=True, slots=True)
class ChoiceValue:
    """What one choice is worth to the deciding seat."""

    choice: Option
    """A play or pass, a give, or accepting a trade."""
    win: Estimate
    """The probability of the decision's stake (first place, or not last)."""
    place: Estimate
    """The expected finishing place (1 is first)."""
    points: Estimate
    """The expected points under the game's scoring."""
    samples: int
    """Deals it was played out on."""
    wins: tuple[float, ...] = field(repr=False, compare=False)
    """The stake won (1) or not (0) on each deal, in deal order (for paired differences)."""


@dataclass(frozen=True, slots=True)
class DecisionValues:
    """Every legal choice of one decision, valued, the best first."""

    seat: int
    stake: str
    """``"first"`` (nobody is out yet) or ``"not last"``."""
    choices: tuple[ChoiceValue, ...]
    exact: dict[int, bool] | None = None
    """Where the seat's own information fixes every hand and the solver reached: for each
    choice (by its card mask) whether the seat forces its stake after it, with best play."""

    @property
    def best(self) -> ChoiceValue:
        """The choice with the highest stake probability (then the most points)."""
        return self.choices[0]

    def value_of(self, choice: Option) -> ChoiceValue:
        """The value of ``choice`` (one of the legal choices, matched by its cards)."""
        for value in self.choices:
            if _key(value.choice) == _key(choice):
                return value
        raise ValueError(f"{str(choice)!r} is not one of the choices analysed")

    def loss(self, choice: Option) -> Estimate:
        """How much stake probability ``choice`` gives up against the best choice, measured
        on the deals both were played out on, with its standard error (0 for the best).
        The error counts two deals more, one going each way, so that a few deals that all
        came out alike do not claim certainty."""
        best = self.best
        mine = self.value_of(choice)
        if mine is best:
            return Estimate(0.0, 0.0)
        n = min(len(best.wins), len(mine.wins))
        diffs = [a - b for a, b in zip(best.wins[:n], mine.wins[:n], strict=True)]
        return Estimate(Estimate.of(diffs).mean, Estimate.of([*diffs, 1.0, -1.0]).error)


class _Scorer:
    """The seat's stake, place and points in a game played out from an observation (built
    with the observation's plays as its history, so that its score counts them)."""

    def __init__(self, obs: Observation) -> None:
        self.seat = obs.seat
        self.rules = obs.rules
        self.out = len(obs.finish_order)

    def result(self, game: Game) -> tuple[float, float, float]:
        """(stake won, place, points) of the seat in the finished ``game``."""
        order = game.finish_order
        place = order.index(self.seat) + 1
        # the stake: first place while nobody is out, else not the last place
        won = place == 1 if self.out == 0 else place < len(order)
        points = score_outcome(self.rules, outcome_of(game))[self.seat]
        return (1.0 if won else 0.0, float(place), float(points))


def _order(values: list[ChoiceValue]) -> list[ChoiceValue]:
    return sorted(values, key=lambda v: (-v.win.mean, -v.points.mean, v.place.mean))


def analyse_decision(
    obs: Observation,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int | str = 0,
    keep: Sequence[Option] = (),
    first: int = FIRST_SAMPLES,
    choices: Sequence[Option] | None = None,
    solver: Solver | None = None,
) -> DecisionValues:
    """Value every legal choice of the seat to act in ``obs`` (its own observation, before
    the game is over) on sampled deals of the cards it has not seen (see the module
    docstring). The choices in ``keep`` are played out on every sample (a review
    keeps the choice made); ``choices`` (legal ones) values those alone; ``solver`` (a
    review passes one for all its decisions) values a known endgame. The same observation,
    ``samples`` and ``seed`` give the same values."""
    if obs.phase == "over":
        raise ValueError("the game is over: there is no choice to value")
    if not obs.is_my_turn():
        raise ValueError(f"seat {obs.seat} is not to act (seat {obs.turn} is)")
    if samples < 1:
        raise ValueError(f"samples must be at least 1, not {samples!r}")
    played = [a for a in obs.history if isinstance(a, Action)]
    legal = _legal(obs, _build(obs, placeholder_hands(obs), played), keep, choices)
    rng = random.Random(f"analysis {seed}")
    deals = Determinizer(obs, guesses=GUESSES, tidy=True)
    scorer = _Scorer(obs)
    ix = index(obs.rules)
    memo: PolicyMemo = {}
    kept = {_key(m) for m in keep}
    results: dict[tuple[int, ...], list[tuple[float, float, float]]] = {_key(m): [] for m in legal}
    active = list(legal)
    done = 0
    target = min(first, samples)
    while True:
        for _ in range(done, target):
            base = _build(obs, _pin_offer(obs, deals.sample(rng), rng), played)
            for move in active:
                game = base.copy()
                _apply(game, move)
                _play_out(game, ix, memo)
                results[_key(move)].append(scorer.result(game))
        done = target
        if done >= samples:
            break
        target = min(samples, done * 2)
        ranked = _order([_value(m, results[_key(m)]) for m in active])
        half = max(2, (len(ranked) + 1) // 2)
        survivors = {_key(v.choice) for v in ranked[:half]} | kept
        active = [m for m in active if _key(m) in survivors]
    endgame = _known_endgame(obs)
    exact = None
    if endgame is not None:
        exact = exact_choices(endgame, obs.seat, solver=solver or Solver(nodes=EXACT_NODES))
    if exact is not None:
        out = len(obs.finish_order)
        for key, rows in results.items():
            won = exact[key[0]]
            place = float(out + 1 if won else out + 2)
            rows[:] = [(1.0 if won else 0.0, place, points) for _, _, points in rows]
    values = _order([_value(m, results[_key(m)]) for m in legal])
    stake = "first" if not obs.finish_order else "not last"
    return DecisionValues(obs.seat, stake, tuple(values), exact)


def _legal(
    obs: Observation, game: Game, keep: Sequence[Option], choices: Sequence[Option] | None
) -> list[Option]:
    """The choices to value in ``game`` (``obs``'s, on stand-in hands): :func:`options_of`
    and any other legal offer in ``keep`` or ``choices``; with ``choices``, those alone."""
    legal = options_of(game)
    known = {_key(m) for m in legal}
    for m in (*keep, *(choices or ())):
        if _key(m) in known:
            continue
        if not (isinstance(m, OfferTrade) and _may_offer(game, m)):
            raise ValueError(f"{str(m)!r} is not a legal choice of seat {obs.seat} now")
        legal.append(m)
        known.add(_key(m))
    if choices is None:
        return legal
    wanted = {_key(m) for m in choices}
    return [m for m in legal if _key(m) in wanted]


def _may_offer(game: Game, offer: OfferTrade) -> bool:
    """Whether the seat to act in ``game`` may make ``offer``, asking for cards it does
    not hold."""
    if offer.take & game.hand_masks[game.turn]:
        return False
    try:
        _offer(game.copy(), offer)
    except ValueError:
        return False
    return True


def _offer(game: Game, offer: OfferTrade) -> None:
    game.offer_trade(offer.partner, cards_of_mask(offer.give), cards_of_mask(offer.take))


def _apply(game: Game, option: Option) -> None:
    """Make the choice ``option`` in ``game``; an offer is answered at once by the partner,
    by the heuristic's rule (:func:`accepts_trade`) on its hand in ``game``."""
    if isinstance(option, AcceptTrade):
        game.accept_trade()
    elif isinstance(option, OfferTrade):
        _offer(game, option)
        if accepts_trade(game.rules, game.hand_masks[option.partner], option.give, option.take):
            game.accept_trade()
        else:
            game.apply_unchecked(PASS)
    else:
        game.apply_unchecked(option)


def _build(obs: Observation, hands: list[int], played: list[Action]) -> Game:
    """The game of ``obs`` (in any phase before the end) with ``hands``, ``played`` as its
    history; in a San Jose exchange, a give the seat did not see is guessed: the heuristic
    bot's give from the giver's hand."""
    exchange = obs.exchange
    if isinstance(exchange, SanJoseExchange):
        rules = obs.rules
        exchange = exchange.guessed(
            lambda giver, count: _give(rules, hands[giver], subsets(hands[giver], count)).mask
        )
    return Game.from_state(obs, rules=obs.rules, hands=hands, played=played, exchange=exchange)


def _give(rules: Rules, hand: int, gives: Sequence[int]) -> Give:
    """The heuristic bot's give from ``hand`` among ``gives`` (card masks)."""
    return cast(Give, rank_gives(rules, hand, [Give(m) for m in gives])[0].move)


def options_of(game: Game) -> list[Option]:
    """The choices of the seat to act in ``game``: its legal moves or gives (answering a
    trade offer, the engine's give of the cards asked for is :class:`AcceptTrade`); where
    it may offer a trade, the offers of the best :data:`OFFER_SWAPS` one-card swaps
    (:func:`rank_swaps`, from its hand alone) to each other seat."""
    offer = game.pending_trade
    out: list[Option] = [
        AcceptTrade(m.mask, offer.give) if offer is not None and isinstance(m, Give) else m
        for m in game.legal_moves()
    ]
    seat = game.turn
    hand = game.hand_masks[seat]
    if offer is None and game.phase == "trading":
        rules = game.rules
        unseen = deck_mask(rules.decks) & ~hand
        for give, take in rank_swaps(rules, hand, unseen)[:OFFER_SWAPS]:
            out += [OfferTrade(p, give, take) for p in range(rules.players) if p != seat]
    return out


def _pin_offer(obs: Observation, hands: list[int], rng: random.Random) -> list[int]:
    """``hands`` (a sampled deal) with the cards of a trade offer pending to the seat in
    the hand of the seat that offered them (they are known to be there): each swapped with
    another of its sampled cards, chosen at random."""
    offer = obs.exchange.pending if isinstance(obs.exchange, MutualTrading) else None
    if offer is None:
        return hands
    owner = offer.proposer
    for card in bits_of_mask(offer.give & ~hands[owner]):
        holder = next(s for s, h in enumerate(hands) if h & card)
        out = rng.choice(bits_of_mask(hands[owner] & ~offer.give))
        hands[owner] ^= card | out
        hands[holder] ^= card | out
    return hands


def _play_out(game: Game, ix: RulesIndex, memo: PolicyMemo) -> None:
    """Play ``game`` to its end: the gives still due by the heuristic bot's choice, then
    the play by its scoring for every seat (the trades still to come are passed, as the
    heuristic bot does)."""
    rules = game.rules
    while game.phase == "exchange":
        gives = [m.mask for m in game.legal_moves()]
        game.apply_unchecked(_give(rules, game.hand_masks[game.turn], gives))
    rollout_heuristic(game, ix, memo)


def _known_endgame(obs: Observation) -> Game | None:
    """The game of an observation that itself fixes every hand: one other seat left,
    holding every card the seat has not seen; ``None`` elsewhere."""
    if obs.phase != "play":
        return None
    counts = obs.tracked_counts()
    others = [s for s, c in enumerate(counts) if s != obs.seat and c]
    if len(others) != 1 or unseen_mask(obs).bit_count() != counts[others[0]]:
        return None
    return Game.from_state(obs, rules=obs.rules, hands=placeholder_hands(obs))


def _value(move: Option, results: list[tuple[float, float, float]]) -> ChoiceValue:
    wins = [r[0] for r in results]
    return ChoiceValue(
        choice=move,
        win=Estimate.of(wins),
        place=Estimate.of([r[1] for r in results]),
        points=Estimate.of([r[2] for r in results]),
        samples=len(results),
        wins=tuple(wins),
    )
