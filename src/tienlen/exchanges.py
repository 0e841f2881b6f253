"""The exchanges of cards before the play: mutual trading and the San Jose exchange.

:class:`MutualTrading` is ``rules.trading="mutual"``: each seat, from the leader round the table,
may offer one swap of equal numbers of cards to another seat, who accepts or refuses.
:class:`SanJoseExchange` is ``rules.trading="san-jose"``: after a previous game, its winner
(and, with four players or more, the runner-up) give unwanted cards to the loser (the
second-to-last), who give back their highest. Card debts are settled the same way as the
San Jose exchange, by a :class:`~tienlen.debts.Settlement`: a :class:`~tienlen.game.Game`
in its ``"exchange"`` phase asks either of them who chooses what, and hands it the
:class:`~tienlen.combos.Give` chosen. Hands are bitmasks, one per seat, changed in place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import NamedTuple

from .cards import bits_of_mask, cards_of_mask, format_cards, highest_cards
from .reasons import reason

__all__ = ["MutualTrading", "SanJoseExchange", "TradeOffer", "subsets"]


class TradeOffer(NamedTuple):
    """A proposed swap of equal numbers of cards (``trading="mutual"``)."""

    proposer: int
    partner: int
    give: int
    take: int
    accepted: bool | None = None


class MutualTrading:
    """The mutual trading phase: the offers made so far and whose chance comes next.

    Each seat, from ``leader`` round the table (``step`` apart among ``players``), has one
    chance to offer; the partner answers an offer by accepting it or by passing."""

    __slots__ = ("leader", "offers", "players", "step")

    def __init__(self, leader: int, players: int, step: int) -> None:
        self.leader = leader
        self.players = players
        self.step = step
        self.offers: list[TradeOffer] = []

    def copy(self) -> MutualTrading:
        """An independent copy (for copies of a game)."""
        out = MutualTrading(self.leader, self.players, self.step)
        out.offers = self.offers[:]
        return out

    def seen_by(self, seat: int) -> MutualTrading:
        """A copy holding what ``seat`` sees: the cards of the offers it neither made nor
        received left out (0), as :attr:`tienlen.observation.Observation.trades` shows
        them."""
        out = self.copy()
        out.offers = [
            t if seat in (t.proposer, t.partner) else t._replace(give=0, take=0)
            for t in self.offers
        ]
        return out

    @property
    def pending(self) -> TradeOffer | None:
        """The offer awaiting an answer, if any."""
        return self.offers[-1] if self.offers and self.offers[-1].accepted is None else None

    def why_not_offer(self, seat: int, partner: int, give: int, take: int, hand: int) -> str | None:
        """Why ``seat`` (holding ``hand``) may not offer ``give`` for ``partner``'s
        ``take`` (``None``: it may), no offer pending."""
        if partner == seat or not 0 <= partner < self.players:
            return reason("bad_partner", seat=repr(partner))
        if not give or give.bit_count() != take.bit_count():
            return reason("trade_counts")
        if give & ~hand:
            return reason("not_held", cards=format_cards(cards_of_mask(give & ~hand)))
        return None

    def offer(self, seat: int, partner: int, give: int, take: int) -> None:
        """Record the offer (checked with :meth:`why_not_offer`); the partner answers next."""
        self.offers.append(TradeOffer(seat, partner, give, take))

    def why_not_accept(self, hands: list[int]) -> str | None:
        """Why the pending offer cannot be accepted (``None``: it can)."""
        offer = self.pending
        if offer is None:
            return reason("no_offer_to_accept")
        if offer.take & ~hands[offer.partner]:
            return reason("asked_not_held")
        return None

    def accept(self, hands: list[int]) -> int | None:
        """The partner accepts the pending offer (checked with :meth:`why_not_accept`): the
        cards change hands. Returns the next seat to offer, ``None`` once every seat had
        its chance."""
        offer = self.offers[-1]
        hands[offer.proposer] = (hands[offer.proposer] & ~offer.give) | offer.take
        hands[offer.partner] = (hands[offer.partner] & ~offer.take) | offer.give
        self.offers[-1] = offer._replace(accepted=True)
        return self._after(offer.proposer)

    def decline(self, seat: int) -> int | None:
        """``seat`` passes: it refuses the pending offer, or makes none. Returns the next
        seat to offer, ``None`` once every seat had its chance."""
        offer = self.pending
        if offer is None:
            return self._after(seat)
        self.offers[-1] = offer._replace(accepted=False)
        return self._after(offer.proposer)

    def _after(self, proposer: int) -> int | None:
        nxt = (proposer + self.step) % self.players
        return None if nxt == self.leader else nxt


class SanJoseExchange:
    """The San Jose exchange: the givers choose their unwanted cards in turn
    (:attr:`chooser` gives :attr:`count` cards from :meth:`pool`); once the last has chosen,
    both sides give at once: the unwanted cards, and the receivers' highest."""

    __slots__ = ("given", "pairs")

    def __init__(self, pairs: tuple[tuple[int, int, int], ...]) -> None:
        self.pairs = pairs
        """(giver of unwanted cards, receiver, count), in the order the givers choose."""
        self.given: tuple[int, ...] = ()

    @classmethod
    def after(cls, previous: Sequence[int], players: int) -> SanJoseExchange:
        """The exchange after a game that finished in ``previous`` order."""
        if sorted(previous) != list(range(players)):
            raise ValueError(f"previous_finish must order seats 0-{players - 1}, not {previous!r}")
        pairs = [(previous[0], previous[-1], 2)]
        if players >= 4:
            pairs.append((previous[1], previous[-2], 1))
        return cls(tuple(pairs))

    def copy(self) -> SanJoseExchange:
        """An independent copy (for copies of a game)."""
        out = SanJoseExchange(self.pairs)
        out.given = self.given
        return out

    def seen_by(self, seat: int) -> SanJoseExchange:
        """A copy holding what ``seat`` sees: the cards of the gives it neither made nor
        received left out (0); :meth:`guessed` fills them in again."""
        out = SanJoseExchange(self.pairs)
        out.given = tuple(
            cards if seat in pair[:2] else 0
            for pair, cards in zip(self.pairs, self.given, strict=False)
        )
        return out

    def guessed(self, guess: Callable[[int, int], int]) -> SanJoseExchange:
        """A copy with each give left out (see :meth:`seen_by`) filled in by
        ``guess(giver, count)``, which returns the cards (a mask of ``count`` of the giver's
        cards)."""
        out = SanJoseExchange(self.pairs)
        out.given = tuple(
            cards or guess(pair[0], pair[2])
            for pair, cards in zip(self.pairs, self.given, strict=False)
        )
        return out

    @property
    def done(self) -> bool:
        """Whether every giver has given."""
        return len(self.given) == len(self.pairs)

    @property
    def chooser(self) -> int | None:
        """The seat to choose its unwanted cards, ``None`` once done."""
        return None if self.done else self.pairs[len(self.given)][0]

    @property
    def receiver(self) -> int | None:
        """The seat that receives what the chooser gives."""
        return None if self.done else self.pairs[len(self.given)][1]

    @property
    def count(self) -> int:
        """How many cards the chooser gives."""
        return 0 if self.done else self.pairs[len(self.given)][2]

    def pool(self, hands: list[int]) -> int:
        """The cards the chooser may give: any of theirs."""
        chooser = self.chooser
        return 0 if chooser is None else hands[chooser]

    def receiver_of(self, giver: int) -> int | None:
        """The seat that receives ``giver``'s cards (before and after they are given)."""
        for g, r, _ in self.pairs:
            if g == giver:
                return r
        return None

    def give(self, hands: list[int], cards: int) -> None:
        """The chooser gives ``cards``; after the last giver, the swaps happen."""
        self.given = (*self.given, cards)
        if not self.done:
            return
        for (giver, receiver, count), chosen in zip(self.pairs, self.given, strict=True):
            highest = highest_cards(hands[receiver], count)
            hands[giver] = (hands[giver] & ~chosen) | highest
            hands[receiver] = (hands[receiver] & ~highest) | chosen


def subsets(hand: int, count: int) -> list[int]:
    """Masks of every ``count``-card subset of ``hand`` (the gives to choose from)."""
    return [sum(c) for c in combinations(bits_of_mask(hand), count)]
