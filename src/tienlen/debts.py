"""Card debts: cards one seat owes another at the next deal of a match (004's house rules).

004: "If a person is chopped, then the last person to be chopped owes the person who chopped
them card(s) in the next round", and "The loser owes the winner a 2 if he still have a 2 in
his hand when the game is finished". :func:`tienlen.scoring.card_debts` works out what a
finished game leaves owed; the match hands the debts to the next game, which settles them
after the deal and before the first lead: each debtor gives the cards ``rules.debt_card``
names and the creditor gives back as many cards of their choice ("The person receiving the
cards can return any card of their choice to player from which it came").
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import TWOS_MASK

__all__ = ["CardDebt", "debt_cards"]


class CardDebt(NamedTuple):
    """``debtor`` owes ``creditor`` ``cards`` cards, because of ``reason``."""

    debtor: int
    creditor: int
    cards: int
    reason: str


def debt_cards(hand: int, count: int, debt_card: str) -> tuple[int, int]:
    """``(cards paid, cards the debtor chooses)`` for a debt of ``count`` cards from
    ``hand`` (a bitmask) under ``rules.debt_card``: ``highest-two`` pays the highest 2s held
    (a debtor with fewer 2s pays only those: **call**, the debt is in 2s), ``highest-card``
    the highest cards; ``any-two`` pays nothing by itself and leaves the debtor to choose
    that many of their 2s (as many as they hold, up to ``count``)."""
    twos = hand & TWOS_MASK
    if debt_card == "any-two":
        return 0, min(count, twos.bit_count())
    pool = twos if debt_card == "highest-two" else hand
    paid = 0
    for _ in range(count):
        if not pool:
            break
        bit = 1 << (pool.bit_length() - 1)
        paid |= bit
        pool &= ~bit
    return paid, 0
