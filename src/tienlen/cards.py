"""Cards, their notation, and the bitmask form used by move generation.

A card has a rank (3 low … 2 high), a suit (♠ ♣ ♦ ♥, low to high) and a deck copy
(0 or 1; only double-deck games use copy 1). Every card has a small integer ``id``
whose order is the card's strength: ``id = (rank * 4 + suit) * 2 + copy``. A set of
cards is an ``int`` bitmask with bit ``id`` set, so the eight bits of rank ``r``
start at bit ``8 * r``.

In double-deck games copy 0 is the blue-backed deck and copy 1 the red-backed one;
the notation marks copy 1 with a trailing apostrophe (``3s'`` / ``3♠'``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from typing import Final

from .inputs import quote_value

__all__ = [
    "RANKS",
    "SUITS",
    "Card",
    "CardParseError",
    "bits_of_mask",
    "cards_of_mask",
    "deck",
    "deck_mask",
    "format_cards",
    "highest_cards",
    "mask_of",
    "parse_cards",
]

#: Rank names, lowest first. Rank numbers index this tuple: 0 is the 3, 12 is the 2.
RANKS: Final = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
#: Suit symbols, lowest first: spades, clubs, diamonds, hearts.
SUITS: Final = ("♠", "♣", "♦", "♥")
_SUIT_LETTERS: Final = "scdh"
#: Rank number of the 2 (the highest rank) and of the Ace.
TWO: Final = 12
ACE: Final = 11
RANK_BITS: Final = 8
RANK_MASK: Final = 0xFF
#: Every 2 (of both decks) as a bitmask.
TWOS_MASK: Final = RANK_MASK << (RANK_BITS * TWO)

_RANK_BY_NAME: dict[str, int] = {name: i for i, name in enumerate(RANKS)}
_RANK_BY_NAME["T"] = RANKS.index("10")
_SUIT_BY_NAME: dict[str, int] = {}
for _i, (_sym, _letter) in enumerate(zip(SUITS, _SUIT_LETTERS, strict=True)):
    _SUIT_BY_NAME[_sym] = _i
    _SUIT_BY_NAME[_letter] = _i
# Text-style variants of the suit symbols that some keyboards produce.
_SUIT_BY_NAME.update({"♤": 0, "♧": 1, "♢": 2, "♡": 3})


class CardParseError(ValueError):
    """Card notation that could not be read; the message quotes the input."""


class Card:
    """One playing card. Cards are interned: ``Card(0, 0) is Card.parse("3s")``.

    Cards order by strength (rank first, then suit, then deck copy), so ``max(cards)``
    is the strongest card and ``sorted(cards)`` sorts a hand.
    """

    __slots__ = ("_id",)
    _id: int

    def __new__(cls, rank: int, suit: int, copy: int = 0) -> Card:
        if not (0 <= rank < 13 and 0 <= suit < 4 and copy in (0, 1)):
            raise ValueError(f"no such card: rank={rank!r}, suit={suit!r}, copy={copy!r}")
        return _BY_ID[(rank * 4 + suit) * 2 + copy]

    @classmethod
    def from_id(cls, card_id: int) -> Card:
        """The card with this ``id`` (0 … 103)."""
        return _BY_ID[card_id]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read one card: ``"3s"``, ``"10h"``, ``"Th"``, ``"3♠"``, ``"qD"``; ``"3s'"`` is copy 1."""
        s = text.strip()
        copy = 0
        if s.endswith("'"):
            copy, s = 1, s[:-1]
        if len(s) < 2:
            raise CardParseError(f"not a card: {quote_value(text)} (write e.g. '3s', '10h', 'Q♦')")
        rank = _RANK_BY_NAME.get(s[:-1].upper(), -1)
        suit = _SUIT_BY_NAME.get(s[-1].lower(), -1)
        if rank < 0:
            raise CardParseError(f"unknown rank in {quote_value(text)}: use 3-10, J, Q, K, A or 2")
        if suit < 0:
            raise CardParseError(f"unknown suit in {quote_value(text)}: use s c d h or ♠ ♣ ♦ ♥")
        return _BY_ID[(rank * 4 + suit) * 2 + copy]

    @property
    def id(self) -> int:
        """Strength-ordered index, also the card's bit in a card mask."""
        return self._id

    @property
    def bit(self) -> int:
        """This card as a one-card mask."""
        return 1 << self._id

    @property
    def rank(self) -> int:
        """0 (the 3) … 12 (the 2); ``RANKS[card.rank]`` names it."""
        return self._id >> 3

    @property
    def suit(self) -> int:
        """0 ♠, 1 ♣, 2 ♦, 3 ♥."""
        return (self._id >> 1) & 3

    @property
    def copy(self) -> int:
        """Deck copy: 0 (blue back) or 1 (red back, double deck only)."""
        return self._id & 1

    @property
    def is_red(self) -> bool:
        """True for ♦ and ♥."""
        return self.suit >= 2

    def ascii(self) -> str:
        """The letter form, e.g. ``"10h"`` or ``"3s'"``."""
        return f"{RANKS[self.rank]}{_SUIT_LETTERS[self.suit]}{_COPY_MARK[self.copy]}"

    def __str__(self) -> str:
        return f"{RANKS[self.rank]}{SUITS[self.suit]}{_COPY_MARK[self.copy]}"

    def __repr__(self) -> str:
        return f"Card.parse({self.ascii()!r})"

    def __lt__(self, other: Card) -> bool:
        return self._id < other._id

    def __le__(self, other: Card) -> bool:
        return self._id <= other._id

    def __gt__(self, other: Card) -> bool:
        return self._id > other._id

    def __ge__(self, other: Card) -> bool:
        return self._id >= other._id

    def __hash__(self) -> int:
        return self._id

    def __reduce__(self) -> tuple[type[Card], tuple[int, int, int]]:
        return (Card, (self.rank, self.suit, self.copy))


_COPY_MARK: Final = ("", "'")


def _make(card_id: int) -> Card:
    card = object.__new__(Card)
    object.__setattr__(card, "_id", card_id)
    return card


_BY_ID: Final[tuple[Card, ...]] = tuple(_make(i) for i in range(104))


def deck(decks: int = 1) -> tuple[Card, ...]:
    """Every card of one or two decks, lowest first."""
    if decks not in (1, 2):
        raise ValueError(f"decks must be 1 or 2, not {decks!r}")
    return tuple(c for c in _BY_ID if c.copy < decks)


@cache
def deck_bits(decks: int = 1) -> tuple[int, ...]:
    """The bit of every card of :func:`deck`, in the same order (dealing shuffles these)."""
    return tuple(c.bit for c in deck(decks))


@cache
def deck_mask(decks: int = 1) -> int:
    """Every card of one or two decks as a bitmask."""
    return mask_of(deck(decks))


def parse_cards(text: str) -> tuple[Card, ...]:
    """Read cards separated by spaces or commas: ``parse_cards("3s 3h 10d 2h")``.

    Raises :class:`CardParseError` quoting the offending token, or the start of the input
    if a card is named twice or it names more cards than two decks hold.
    """
    tokens = text.replace(",", " ").split()
    if len(tokens) > len(_BY_ID):
        raise CardParseError(
            f"{len(tokens)} cards named, more than two decks hold: {quote_value(text)}"
        )
    cards = tuple(Card.parse(t) for t in tokens)
    if len(set(cards)) != len(cards):
        raise CardParseError(f"a card is named twice in {quote_value(text)}")
    return cards


def format_cards(cards: Iterable[Card], *, ascii: bool = False) -> str:
    """Cards as text, in the order given: ``"3♠ 4♠ 5♦"`` (``ascii=True``: ``"3s 4s 5d"``)."""
    return " ".join(c.ascii() if ascii else str(c) for c in cards)


def mask_of(cards: Iterable[Card]) -> int:
    """The bitmask of some cards."""
    mask = 0
    for c in cards:
        mask |= 1 << c._id
    return mask


# Cards of a mask, cached per byte: a rank's eight bits map to its cards in one lookup.
_BYTE_IDS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(i for i in range(8) if b >> i & 1) for b in range(256)
)


def ids_of_mask(mask: int) -> Iterator[int]:
    """Card ids in a mask, lowest first."""
    base = 0
    while mask:
        byte = mask & RANK_MASK
        if byte:
            for i in _BYTE_IDS[byte]:
                yield base + i
        mask >>= RANK_BITS
        base += RANK_BITS


def bits_of_mask(mask: int) -> list[int]:
    """The cards of a mask as one-bit masks, lowest first (for dealing cards out)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def cards_of_mask(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, lowest first."""
    return tuple(_BY_ID[i] for i in ids_of_mask(mask))


def highest_cards(mask: int, count: int) -> int:
    """The mask of the ``count`` highest cards of ``mask`` (all of them if it holds fewer).

    >>> format_cards(cards_of_mask(highest_cards(mask_of(parse_cards("3s 9h 2d Ac")), 2)))
    'A♣ 2♦'
    """
    out = 0
    for _ in range(count):
        if not mask:
            break
        bit = 1 << (mask.bit_length() - 1)
        out |= bit
        mask &= ~bit
    return out


def rank_counts(mask: int) -> list[int]:
    """How many cards of each rank (13 entries) a mask holds."""
    return [((mask >> (RANK_BITS * r)) & RANK_MASK).bit_count() for r in range(13)]
