"""Dealing: shuffled deals (with the redeal of four 2s), hands given from outside, and the
instant wins a dealt hand may hold. Pure functions of the rules; :class:`tienlen.Game`
starts from them."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .cards import (
    TWO,
    TWOS_MASK,
    Card,
    CardParseError,
    deck_bits,
    deck_mask,
    format_cards,
    mask_of,
    parse_cards,
    rank_counts,
)
from .rules import MAX_COMBINATIONS, Rules

__all__ = ["Deal", "deal", "explicit_hands", "instant_win_of"]


class Deal(NamedTuple):
    """A shuffled deal: the seats' hands, the cards left over, the hands dealt but not
    played (``deal_four_hands``) and how many deals were void (``redeal_four_twos``)."""

    hands: list[int]
    spare: int
    unused: tuple[int, ...]
    redeals: int


def union(masks: Iterable[int]) -> int:
    """Every card of ``masks``."""
    out = 0
    for m in masks:
        out |= m
    return out


def deal(rules: Rules, seed: int | str | None) -> Deal:
    """Shuffle (with ``seed``; ``None``: a cryptographic shuffle) and deal as ``rules`` say."""
    # The cards' bits in deck order, shuffled: the same permutation as shuffling the cards.
    cards = list(deck_bits(rules.decks))
    rng: random.Random = random.Random(seed) if seed is not None else random.SystemRandom()
    rng.shuffle(cards)
    n, size = rules.players, rules.cards_per_hand
    hands_dealt = 4 if rules.deal_four_hands else n
    order = [(i * rules.step) % hands_dealt for i in range(hands_dealt)]
    redeals = 0
    while True:
        masks = [0] * hands_dealt
        for i in range(size * hands_dealt):
            masks[order[i % hands_dealt]] |= cards[i]
        # 004: four 2s are shown and the cards dealt again (hands set aside included: with
        # two players under deal_four_hands they are the next game's).
        if not rules.redeal_four_twos or all((m & TWOS_MASK).bit_count() < 4 for m in masks):
            break
        redeals += 1
        rng.shuffle(cards)
    spare = sum(cards[size * hands_dealt :])
    return Deal(masks[:n], spare, tuple(masks[n:]), redeals)


def explicit_hands(rules: Rules, hands: Sequence[Iterable[Card] | str]) -> list[int]:
    """Hands given from outside (card sequences or notation, one per seat) as masks, checked:
    one hand a seat, no card twice, none outside the rules' decks, none too large."""
    if len(hands) != rules.players:
        raise ValueError(f"{len(hands)} hands given for {rules.players} players")
    masks: list[int] = []
    for h in hands:
        cards = parse_cards(h) if isinstance(h, str) else tuple(h)
        mask = mask_of(cards)
        if not mask:
            raise ValueError("every seat needs at least one card")
        if mask.bit_count() != len(cards) or mask & ~deck_mask(rules.decks):
            raise CardParseError(
                f"hand {format_cards(cards)!r} repeats a card or uses a second deck"
            )
        masks.append(mask)
    if union(masks).bit_count() != sum(m.bit_count() for m in masks):
        raise CardParseError("the same card was dealt to two hands")
    for mask in masks:
        # hands given from outside (a record) may be larger than the rules deal
        counts = [b.bit_count() for b in mask.to_bytes(13, "little")]
        formed = rules.combinations_in(counts)
        if formed > MAX_COMBINATIONS:
            raise ValueError(
                f"a hand of {mask.bit_count()} cards forms {formed:,} combinations, more "
                f"than the {MAX_COMBINATIONS:,} the engine allows"
            )
    return masks


def instant_win_of(hand: int, wins: Sequence[str]) -> str | None:
    """The first instant-win hand (of ``wins``) that ``hand`` holds, if any."""
    counts = rank_counts(hand)
    for name in wins:
        if name == "four-twos" and counts[TWO] >= 4:
            return name
        if name == "six-pairs" and sum(c // 2 for c in counts) >= 6:
            return name
        if name == "three-triples" and sum(c // 3 for c in counts) >= 3:
            return name
        if name == "dragon" and all(counts[r] for r in range(12)):
            return name
        if name == "five-consecutive-pairs":
            run = 0
            for r in range(12):
                run = run + 1 if counts[r] >= 2 else 0
                if run >= 5:
                    return name
    return None
