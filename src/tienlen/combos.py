"""Combinations (what may be played) and how one beats another under a :class:`Rules`.

A :class:`Move` is one play (or the pass); a :class:`Give` is cards handed over in an
exchange before the play, not a play (:data:`Choice` is either). ``classify`` tells which
combination some cards form; one function decides whether one play beats another:
``beats`` asks it (move generation does, for every candidate) and ``why_not_beats`` words
its refusal in words a player understands.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any, Final, Literal, get_args

from .cards import (
    ACE,
    RANK_BITS,
    RANK_MASK,
    RANKS,
    TWO,
    Card,
    cards_of_mask,
    format_cards,
    mask_of,
    parse_cards,
    rank_counts,
)
from .patterns import CombinationKind, Pattern, parse_pattern
from .reasons import Reason, kind_param, kind_words, reason
from .rules import Rules

__all__ = [
    "PASS",
    "PASS_WORDS",
    "Choice",
    "Give",
    "Move",
    "MoveParseError",
    "beats",
    "classify",
    "classify_mask",
    "format_move",
    "parse_choice",
    "parse_give",
    "parse_move",
    "why_not_beats",
]

#: The kind of a :class:`Move`: the pass or a combination.
MoveKind = Literal["pass", CombinationKind]


#: Kinds made of cards of one rank, by card count (none: the pass).
SET_KINDS: Final[tuple[MoveKind, ...]] = ("pass", "single", "pair", "triple", "quad")
#: Runs of sets: the kind for sets of 1, 2, 3, 4 cards per rank (index 0 unused).
RUN_KINDS: Final[tuple[MoveKind, ...]] = ("pass", "straight", "pair_run", "triple_run", "quad_run")


class Move:
    """One action of the play phase: a combination of cards, or the pass (:data:`PASS`).

    ``kind`` is ``"pass"`` or a combination kind; ``size`` counts its units (cards of a
    straight, pairs of a pair run, quads of a multi-quad; 1 for single … quad);
    ``mask`` is its cards as a bitmask; ``top_id`` the id of its strongest card.
    Moves compare equal when they hold the same cards.
    """

    __slots__ = ("kind", "mask", "size", "top_id")
    kind: MoveKind
    size: int
    mask: int
    top_id: int

    def __init__(self, kind: MoveKind, size: int, mask: int) -> None:
        self.kind = kind
        self.size = size
        self.mask = mask
        self.top_id = mask.bit_length() - 1

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards played, lowest first (empty for a pass)."""
        return cards_of_mask(self.mask)

    @property
    def top(self) -> Card | None:
        """The strongest card (``None`` for a pass)."""
        return Card.from_id(self.top_id) if self.mask else None

    @property
    def is_pass(self) -> bool:
        """True for the pass."""
        return not self.mask

    @property
    def top_rank(self) -> int:
        """Rank of the strongest card (-1 for a pass)."""
        return self.top_id >> 3

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and other.mask == self.mask and other.kind == self.kind

    def __hash__(self) -> int:
        return hash(self.mask)

    def __reduce__(self) -> tuple[type[Move], tuple[str, int, int]]:
        # Pickled as its three fields: the server's bot workers receive moves this way, and a
        # class compiled with mypyc has no default pickling.
        return (Move, (self.kind, self.size, self.mask))

    def __str__(self) -> str:
        return format_move(self)

    @classmethod
    def of(cls, kind: str, cards: str = "") -> Move:
        """The move of ``kind`` made of ``cards`` (notation), as :func:`repr` writes it:
        ``Move.of('straight', '3s 4s 5d')``, ``Move.of('pass')``. The size is the number of
        ranks; the kind is taken as given, not checked against rules.

        >>> Move.of('pair_run', '3s 3c 4d 4h 5s 5h').size
        3
        """
        known = _KIND_NAMED.get(kind)
        if known is None:
            raise ValueError(f"no move kind {kind!r}; kinds: {', '.join(_KIND_NAMED)}")
        mask = mask_of(parse_cards(cards))
        if (known == "pass") != (not mask):
            raise ValueError(f"{kind!r} with cards {cards!r}: only the pass has no cards")
        return cls(known, sum(1 for c in rank_counts(mask) if c), mask) if mask else PASS

    def __repr__(self) -> str:
        if not self.mask:
            return "Move.of('pass')"
        notation = " ".join(c.ascii() for c in self.cards)
        return f"Move.of({self.kind!r}, {notation!r})"

    def describe(self) -> str:
        """Plain words: ``"pair of 7s"``, ``"5-card straight to J♦"``, ``"pass"``."""
        return describe_kind(self.kind, self.size, self.top_rank, self.top)


#: The pass.
PASS: Final = Move("pass", 0, 0)


class Give:
    """Cards a seat hands over in an exchange before the play (the San Jose exchange, card
    debts): not a play, so it has no kind. ``mask`` is the cards as a bitmask. Gives compare
    equal when they hold the same cards.

    >>> Give.of("9h 3s")
    Give.of('3s 9h')
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, mask: int) -> None:
        self.mask = mask

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards given, lowest first."""
        return cards_of_mask(self.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Give) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __reduce__(self) -> tuple[type[Give], tuple[int]]:
        return (Give, (self.mask,))  # see Move.__reduce__

    def __str__(self) -> str:
        return format_move(self)

    @classmethod
    def of(cls, cards: str) -> Give:
        """The give of ``cards`` (notation), as :func:`repr` writes it: ``Give.of('3s 9h')``."""
        return parse_give(cards)

    def __repr__(self) -> str:
        return f"Give.of({format_move(self, ascii=True)!r})"


#: What a seat may do when it is to act: a play or the pass (:class:`Move`), or in an
#: exchange, a :class:`Give`.
Choice = Move | Give
#: The kinds by name, to read a kind from text.
_KIND_NAMED: Final[dict[str, MoveKind]] = {k: k for k in get_args(MoveKind)}

# --- notation -----------------------------------------------------------------------------

#: The words read as the pass, in any case (``format_move`` writes ``"pass"``).
PASS_WORDS: Final = frozenset({"pass", "p", "-"})


class MoveParseError(ValueError):
    """Move notation whose cards form no combination under the rules; quotes the input."""


def format_move(move: Choice, *, ascii: bool = False) -> str:
    """A move or give in notation: ``"3♠ 4♠ 5♦"`` (``ascii=True``: ``"3s 4s 5d"``) or
    ``"pass"``; :func:`parse_move` (:func:`parse_give`) reads it back.

    >>> format_move(parse_move("5d 3s 4s", Rules.preset("standard")), ascii=True)
    '3s 4s 5d'
    """
    return "pass" if not move.mask else format_cards(move.cards, ascii=ascii)


def parse_move(text: str, rules: Rules) -> Move:
    """Read a move: a word of :data:`PASS_WORDS`, or cards (``"3s 4s 5d"``, ``"3♠ 4♠ 5♦"``)
    that form a combination under ``rules``.

    Raises :class:`~tienlen.cards.CardParseError` for unreadable cards and
    :class:`MoveParseError` for cards that form no combination.

    >>> parse_move("P", Rules.preset("standard")) is PASS
    True
    >>> parse_move("3s 5d", Rules.preset("standard"))
    Traceback (most recent call last):
    ...
    tienlen.combos.MoveParseError: '3s 5d' is not a combination under the standard rules
    """
    if text.strip().lower() in PASS_WORDS:
        return PASS
    mask = _cards_named(text)
    move = classify_mask(mask, rules)
    if move is None:
        raise MoveParseError(reason("not_combination", cards=repr(_shown(text)), rules=rules.name))
    return move


def parse_give(text: str) -> Give:
    """Read a give: one card or more in notation (an exchange takes any cards).

    >>> parse_give("9h 3s").mask == parse_give("3s 9h").mask
    True
    """
    return Give(_cards_named(text))


def parse_choice(text: str, rules: Rules, *, exchange: bool) -> Choice:
    """Read what a seat does: in an ``exchange``, cards are a give (:func:`parse_give`),
    otherwise a move (:func:`parse_move`); a word of :data:`PASS_WORDS` is the pass in
    either."""
    if exchange and text.strip().lower() not in PASS_WORDS:
        return parse_give(text)
    return parse_move(text, rules)


def _cards_named(text: str) -> int:
    mask = mask_of(parse_cards(text))
    if not mask:
        raise MoveParseError(reason("no_cards", text=repr(_shown(text))))
    return mask


def _shown(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


def describe_kind(kind: str, size: int, top_rank: int = -1, top: Card | None = None) -> str:
    """Words for a combination kind, e.g. ``"3-pair run"``; with a top card, more precise
    (the English of :data:`tienlen.reasons.KINDS`)."""
    return kind_words(_kind(kind, size, top_rank, top))


def _kind(kind: str, size: int, top_rank: int = -1, top: Card | None = None) -> dict[str, Any]:
    """A combination as a reason parameter."""
    return kind_param(kind, size, RANKS[top_rank] if top_rank >= 0 else "", str(top) if top else "")


def _move(m: Move) -> dict[str, Any]:
    return _kind(m.kind, m.size, m.top_rank, m.top)


def classify(cards: Iterable[Card], rules: Rules) -> Move | None:
    """The combination these cards form under ``rules``, or ``None`` if they form none."""
    cards = tuple(cards)
    mask = mask_of(cards)
    if mask.bit_count() != len(cards):
        return None  # a card named twice
    return classify_mask(mask, rules)


def classify_mask(mask: int, rules: Rules) -> Move | None:
    """:func:`classify` for a card bitmask."""
    if not mask:
        return None
    counts: list[int] = []
    ranks: list[int] = []
    m, r = mask, 0
    while m:
        c = (m & RANK_MASK).bit_count()
        if c:
            counts.append(c)
            ranks.append(r)
        m >>= RANK_BITS
        r += 1
    per = counts[0]
    if len(ranks) == 1:
        return Move(SET_KINDS[per], 1, mask) if per <= 4 else None
    if any(c != per for c in counts) or per > 4:
        return None
    consecutive = ranks[-1] - ranks[0] == len(ranks) - 1
    n = len(ranks)
    kinds = rules.kinds
    if per == 4 and (not consecutive or "quad_run" not in kinds):
        ok = "multi_quad" in kinds and n >= rules.min_quad_run
        return Move("multi_quad", n, mask) if ok else None
    if not consecutive:
        return None
    kind = RUN_KINDS[per]
    if kind not in kinds or n < min_run(rules, per):
        return None
    twos = rules.twos_in_straight if per == 1 else rules.twos_in_pair_run
    if ranks[-1] == TWO and twos == "never":
        return None
    if per == 1 and n == 12 and ranks[-1] == ACE and "dragon" in kinds:
        return Move("dragon", 12, mask)
    if per == 2 and rules.pair_run_one_colour and not is_one_colour(mask):
        return None
    return Move(kind, n, mask)


#: The red cards (♦ and ♥: bits 4-7 of each rank's byte) and the black ones.
_RED_CARDS: Final = int.from_bytes(bytes([0xF0] * 13), "little")
_BLACK_CARDS: Final = int.from_bytes(bytes([0x0F] * 13), "little")


def is_one_colour(mask: int) -> bool:
    """Whether the cards of ``mask`` are all red or all black."""
    return not mask & _RED_CARDS or not mask & _BLACK_CARDS


def min_run(rules: Rules, per: int) -> int:
    """The fewest ranks in a run of sets of ``per`` cards."""
    return (0, rules.min_straight, rules.min_pair_run, rules.min_triple_run, rules.min_quad_run)[
        per
    ]


# --- comparison ---------------------------------------------------------------------------


class RulesIndex:
    """Bomb tables of one :class:`Rules`, parsed once (see :func:`index`)."""

    def __init__(self, rules: Rules) -> None:
        self.chops: tuple[tuple[Pattern, Pattern], ...] = tuple(
            (parse_pattern(t), parse_pattern(b)) for t, b in rules.chops
        )
        self.ladder: tuple[Pattern, ...] = tuple(parse_pattern(p) for p in rules.bomb_ladder)
        self.bombs: tuple[Pattern, ...] = tuple(b for _, b in self.chops) + self.ladder
        self.after_pass: tuple[Pattern, ...] = tuple(
            parse_pattern(p) for p in rules.after_pass_bombs
        )
        self.opening: tuple[Pattern, ...] = tuple(parse_pattern(p) for p in rules.opening_bombs)
        self.killer: int = Card.parse(rules.single_killer).id if rules.single_killer else -1
        self.triple_beats_ace: bool = rules.triple_beats_ace
        self.follows = (
            rules.single_same_suit
            or rules.pair_same_colours
            or rules.triple_same_suits
            or rules.pair_run_same_colours
            or rules.pair_run_above
            or rules.straight_above
        )

    def rung_of(self, kind: str, size: int, top_rank: int) -> int:
        """Index of a combination's rung on the bomb ladder (-1 if it is not on it)."""
        for i, p in enumerate(self.ladder):
            if p.matches(kind, size, top_rank):
                return i
        return -1

    def is_bomb(self, move: Move) -> bool:
        """Whether the move is a bomb: it appears on the bomb side of the tables."""
        return any(p.matches(move.kind, move.size, move.top_rank) for p in self.bombs)


@cache
def index(rules: Rules) -> RulesIndex:
    """The parsed tables of ``rules`` (cached per rules value)."""
    return RulesIndex(rules)


def is_twos(move: Move) -> bool:
    """A single, pair or triple of 2s: the plays that bombs chop."""
    return move.top_id >> 3 == TWO and move.kind in ("single", "pair", "triple")


def is_one_suit(move: Move) -> bool:
    """A straight whose cards all share one suit (a "lock")."""
    return len({c.suit for c in move.cards}) == 1


def why_not_beats(new: Move, old: Move, rules: Rules, *, locked: bool = False) -> str | None:
    """``None`` if ``new`` may be played on ``old``; otherwise the reason, in words.

    ``locked`` is true when a one-suit straight has locked the pile (``straight_lock``).
    """
    code = _refusal(new, old, rules, locked)
    return None if code is None else _explain(code, new, old)


def beats(new: Move, old: Move, rules: Rules, *, locked: bool = False) -> bool:
    """Whether ``new`` may be played on ``old`` (see :func:`why_not_beats`)."""
    # Move generation asks this of every candidate: no reason is worded for the refused.
    return _refusal(new, old, rules, locked) is None


def _refusal(new: Move, old: Move, rules: Rules, locked: bool) -> str | None:
    """The one decision of what beats what: ``None`` or the refusal's reason code."""
    ix = index(rules)
    old_rank, new_rank = old.top_id >> 3, new.top_id >> 3
    for target, bomb in ix.chops:
        if target.matches(old.kind, old.size, old_rank) and bomb.matches(
            new.kind, new.size, new_rank
        ):
            return None
    if ix.ladder:
        new_rung = ix.rung_of(new.kind, new.size, new_rank)
        old_rung = ix.rung_of(old.kind, old.size, old_rank)
        if new_rung >= 0 and old_rung >= 0:
            if new_rung < old_rung:
                return None
            if new_rung > old_rung:
                return "weaker_bomb"
    if rules.triple_beats_ace and new.kind == "triple" and old.kind == "single" and old_rank == ACE:
        return None
    if new.kind == "single" and old.kind == "single":
        if old.top_id == ix.killer:
            return "unbeatable_single"
        if new.top_id == ix.killer:
            return None
    if new.kind != old.kind or new.size != old.size:
        return "twos_need_bomb" if is_twos(old) and ix.bombs else "same_kind"
    if locked and new.kind == "straight" and not is_one_suit(new):
        return "straight_locked"
    if ix.follows and old_rank != TWO and new_rank != TWO:
        code = _not_following(new, old, rules)
        if code is not None:
            return code
    new_key, old_key = new.top_id >> 1, old.top_id >> 1
    if new_key > old_key:
        return None
    if new_key < old_key:
        return "lower"
    return _tie_refusal(new, old, rules)


def _explain(code: str, new: Move, old: Move) -> Reason:
    """The :class:`~tienlen.reasons.Reason` for a refusal code of :func:`_refusal`."""
    if code == "weaker_bomb":
        return reason(code, new=_move(new), old=_move(old))
    if code in ("unbeatable_single", "single_same_suit"):
        return reason(code, card=str(old.top))
    if code in ("twos_need_bomb", "same_kind"):
        return reason(code, what=_kind(old.kind, old.size))
    if code == "lower":
        return reason(code, card=str(new.top), top=str(old.top), what=_kind(old.kind, old.size))
    if code in ("blue_tie", "tie"):
        return reason(code, card=str(new.top), top=str(old.top))
    return reason(code)


def _tie_refusal(new: Move, old: Move, rules: Rules) -> str | None:
    """Top cards of equal rank and suit (two decks)."""
    tie = rules.tie_rule
    if tie == "later-wins":
        return None
    if tie == "red-beats-blue":
        return None if new.top_id > old.top_id else "blue_tie"
    if tie == "highest-distinct":
        a = sorted((c.id >> 1 for c in new.cards), reverse=True)
        b = sorted((c.id >> 1 for c in old.cards), reverse=True)
        return None if a > b else "distinct_tie"
    return "tie"


def _colours(mask: int) -> tuple[int, ...]:
    """Red cards per rank present, in rank order."""
    out = []
    while mask:
        byte = mask & RANK_MASK
        if byte:
            out.append((byte >> 4).bit_count())  # bits 4-7 of a rank are ♦ and ♥
        mask >>= RANK_BITS
    return tuple(out)


def _suits(mask: int) -> frozenset[int]:
    return frozenset(c.suit for c in cards_of_mask(mask))


def _not_following(new: Move, old: Move, rules: Rules) -> str | None:
    """The refusal code of a play that does not follow ``old`` as the rules require."""
    kind = new.kind
    if kind == "single" and rules.single_same_suit and new.top.suit != old.top.suit:  # type: ignore[union-attr]
        return "single_same_suit"
    if kind == "pair" and rules.pair_same_colours and _colours(new.mask) != _colours(old.mask):
        return "pair_same_colours"
    if kind == "triple" and rules.triple_same_suits and _suits(new.mask) != _suits(old.mask):
        return "triple_same_suits"
    if kind == "straight" and rules.straight_above and _lowest_rank(new) <= old.top_rank:
        return "straight_above"
    if kind == "pair_run":
        if rules.pair_run_same_colours and _colours(new.mask) != _colours(old.mask):
            return "pair_run_same_colours"
        if rules.pair_run_above and _lowest_rank(new) <= old.top_rank:
            return "pair_run_above"
    return None


def _lowest_rank(m: Move) -> int:
    return (m.mask & -m.mask).bit_length() - 1 >> 3
