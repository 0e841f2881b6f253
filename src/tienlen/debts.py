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

from .cards import TWOS_MASK, highest_cards

__all__ = ["CardDebt", "HandOver", "Settlement", "debt_cards"]


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
    return highest_cards(pool, count), 0


class HandOver(NamedTuple):
    """One card transfer of a settlement: ``giver`` gave ``cards`` (a bitmask) to
    ``receiver``; ``chosen`` when the giver picked them (else the rules did)."""

    giver: int
    receiver: int
    cards: int
    chosen: bool


class Settlement:
    """The hand-over of card debts after a deal, one debt after another: the debtor pays
    (the cards ``debt_card`` names, or 2s they choose under ``any-two``), then the creditor
    gives back as many cards of their choice. A debt the debtor cannot pay lapses.

    The hands (bitmasks, one per seat) are passed to :meth:`start` and :meth:`give`, which
    change them in place. While :attr:`chooser` is not ``None``, that seat must give
    :attr:`count` cards from :attr:`pool` to :attr:`receiver`."""

    __slots__ = ("_debt", "_next", "_paid", "chooser", "count", "debt_card", "debts", "log")

    def __init__(self, debts: tuple[CardDebt, ...], debt_card: str) -> None:
        self.debts = debts
        self.debt_card = debt_card
        self.log: tuple[HandOver, ...] = ()
        self._next = 0  # the next debt to start
        self._debt: CardDebt | None = None
        self._paid = 0  # cards the current debt's creditor received
        self.chooser: int | None = None
        self.count = 0

    def copy(self) -> Settlement:
        """An independent copy (for copies of a game)."""
        out = Settlement(self.debts, self.debt_card)
        out.log = self.log
        out._next = self._next
        out._debt = self._debt
        out._paid = self._paid
        out.chooser = self.chooser
        out.count = self.count
        return out

    def seen_by(self, seat: int) -> Settlement:
        """A copy holding what ``seat`` sees: the cards of the hand-overs it was not party
        to left out (0). It settles the rest of the debts as this one does."""
        out = self.copy()
        out.log = tuple(
            h if seat in (h.giver, h.receiver) else h._replace(cards=0) for h in self.log
        )
        return out

    @property
    def done(self) -> bool:
        """Whether every debt is settled."""
        return self.chooser is None

    @property
    def receiver(self) -> int | None:
        """The seat that receives what the chooser gives."""
        debt = self._debt
        if debt is None or self.chooser is None:
            return None
        return debt.creditor if self.chooser == debt.debtor else debt.debtor

    def receiver_of(self, giver: int) -> int | None:
        """The seat that receives ``giver``'s cards, while ``giver`` is the one to give."""
        return self.receiver if giver == self.chooser else None

    @property
    def paying(self) -> bool:
        """Whether the chooser is a debtor paying (rather than a creditor giving back)."""
        return self._debt is not None and self.chooser == self._debt.debtor

    def pool(self, hands: list[int]) -> int:
        """The cards the chooser may give (2s when paying a debt in 2s of their choice)."""
        if self.chooser is None:
            return 0
        hand = hands[self.chooser]
        assert self._debt is not None
        return hand & TWOS_MASK if self.chooser == self._debt.debtor else hand

    def start(self, hands: list[int]) -> None:
        """Settle what needs no choice, up to the first choice."""
        self._start_next(hands)

    def give(self, hands: list[int], cards: int) -> None:
        """The chooser gives ``cards`` (a bitmask of :attr:`count` cards from :meth:`pool`)."""
        debt = self._debt
        if self.chooser is None or debt is None:
            raise ValueError("no card debt is being settled")
        if cards & ~self.pool(hands) or cards.bit_count() != self.count:
            raise ValueError(f"give {self.count} card(s) from those allowed")
        if self.chooser == debt.debtor:
            self._move(hands, debt.debtor, debt.creditor, cards, chosen=True)
            self._paid = cards.bit_count()
            self.chooser, self.count = debt.creditor, self._paid
        else:
            self._move(hands, debt.creditor, debt.debtor, cards, chosen=True)
            self._start_next(hands)

    def _move(
        self, hands: list[int], giver: int, receiver: int, cards: int, *, chosen: bool
    ) -> None:
        hands[giver] &= ~cards
        hands[receiver] |= cards
        self.log = (*self.log, HandOver(giver, receiver, cards, chosen))

    def _start_next(self, hands: list[int]) -> None:
        self.chooser, self._debt = None, None
        while self._next < len(self.debts):
            debt = self.debts[self._next]
            self._next += 1
            paid, choose = debt_cards(hands[debt.debtor], debt.cards, self.debt_card)
            if not paid and not choose:
                continue  # nothing to pay with: the debt lapses
            self._debt = debt
            if choose:
                self.chooser, self.count = debt.debtor, choose
                return
            self._move(hands, debt.debtor, debt.creditor, paid, chosen=False)
            self._paid = paid.bit_count()
            self.chooser, self.count = debt.creditor, self._paid
            return
