"""What every bot and host needs around a game: the cards a seat cannot see, dealing them
to the other seats, and playing a game out to its end.

Built on the core (:attr:`~tienlen.observation.Observation.played_mask`,
:func:`~tienlen.cards.deck_mask`, :func:`~tienlen.cards.bits_of_mask`):

- :func:`unseen_mask`: card tracking, every card that may still be in another hand;
- :func:`deal_unseen`: hands for every seat from the observer's hand and some of the unseen
  cards in a given order (:func:`sample_hands` shuffles them: a determinization;
  :func:`placeholder_hands` takes the lowest: for replays where only the counts matter);
- :func:`play_out`: play a game to its end (or until a condition holds) with one function
  choosing for every seat.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from tienlen.cards import bits_of_mask, deck_mask
from tienlen.combos import Choice
from tienlen.game import Game
from tienlen.observation import Observation

__all__ = [
    "Pick",
    "deal_unseen",
    "placeholder_hands",
    "play_out",
    "sample_hands",
    "unseen_mask",
]

#: Chooses a move for the seat to act: ``pick(game, legal)`` returns one of ``legal``.
Pick = Callable[[Game, Sequence[Choice]], Choice]


def unseen_mask(obs: Observation) -> int:
    """Cards that may be in another seat's hand: not ours and not played yet (card tracking).
    Includes cards set aside at the deal, which nobody can tell apart from held ones."""
    return deck_mask(obs.rules.decks) & ~obs.hand_mask & ~obs.played_mask


def deal_unseen(obs: Observation, cards: Sequence[int]) -> list[int]:
    """Hand masks for every seat: the observer's own hand, and for each other seat in seat
    order the next of ``cards`` (one-bit masks) in its card count
    (:meth:`~tienlen.observation.Observation.tracked_counts`). Cards left over are set aside."""
    hands = []
    i = 0
    for seat, count in enumerate(obs.tracked_counts()):
        if seat == obs.seat:
            hands.append(obs.hand_mask)
            continue
        mask = 0
        for bit in cards[i : i + count]:
            mask |= bit
        i += count
        hands.append(mask)
    return hands


def sample_hands(obs: Observation, rng: random.Random, pool: list[int] | None = None) -> list[int]:
    """One determinization: the unseen cards (``pool``, as one-bit masks, if already known)
    shuffled and dealt to the other seats (:func:`deal_unseen`)."""
    cards = bits_of_mask(unseen_mask(obs)) if pool is None else pool[:]
    rng.shuffle(cards)
    return deal_unseen(obs, cards)


def placeholder_hands(obs: Observation) -> list[int]:
    """The lowest unseen cards dealt to the other seats: stand-ins where only the card
    counts matter (whose turn it is, who is out), never the cards themselves."""
    return deal_unseen(obs, bits_of_mask(unseen_mask(obs)))


def play_out(game: Game, pick: Pick, *, until: Callable[[Game], bool] | None = None) -> int:
    """Play ``game`` to its end, ``pick`` choosing for every seat; a forced move (the only
    legal one) is made without asking. With ``until``, stop as soon as ``until(game)`` holds
    (checked before every move). Returns how many times ``pick`` was asked."""
    decisions = 0
    while not game.is_over and not (until is not None and until(game)):
        legal = game.legal_moves()
        if len(legal) == 1:
            game.apply_unchecked(legal[0])
            continue
        decisions += 1
        game.apply_unchecked(pick(game, legal))
    return decisions
