"""The play state: one value for where a deal stands, and its notation.

A :class:`PlayState` holds the fields that say where a deal stands (whose turn it is, the
pile, who passed or is locked out, the pending first-lead constraint, who is out...) and
the hands as far as they are known. :attr:`tienlen.Game.position` gives it with every hand,
an :class:`~tienlen.observation.Observation` is one (with only the observer's hand), and
:meth:`tienlen.Game.from_state` builds a game from it.

:meth:`PlayState.format` writes it in a one-line notation that :func:`parse_position`
reads back (docs/position-notation.md), like FEN for chess:

>>> from tienlen import Game
>>> game = Game("standard", hands=["3s 4s 5d 9h", "6c 7c", "8d 2h", "Kd Ks"])
>>> game.position.format()
'3s4s5d9h/6c7c/8d2h/KsKd 0 0 - - i3s -'
>>> _ = game.play("3s 4s 5d")
>>> text = game.position.format()
>>> text
'9h/6c7c/8d2h/KsKd 1 0 0:3s4s5d - - -'
>>> parse_position(text, "standard") == game.position
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, Final, Literal, NamedTuple

from .cards import Card, CardParseError, cards_of_mask, deck_mask
from .combos import Give, Move, classify_mask
from .rules import FirstLead, Rules

__all__ = [
    "Action",
    "Chop",
    "CountAsk",
    "Entry",
    "Gift",
    "InvalidPositionError",
    "Phase",
    "PlayState",
    "PositionError",
    "PositionSyntaxError",
    "parse_position",
]

#: The phases of a deal: mutual trading, an exchange of cards (San Jose, card debts), the
#: play, and the end.
Phase = Literal["trading", "exchange", "play", "over"]


class Action(NamedTuple):
    """``seat`` played ``move`` (a combination, or the pass): an entry of a game's history
    and of its pile."""

    seat: int
    move: Move


class Gift(NamedTuple):
    """``seat`` handed over ``give``'s cards in an exchange before the play: an entry of a
    game's history (:attr:`tienlen.Game.give_receivers` says to whom)."""

    seat: int
    give: Give


#: An entry of a game's history: a play or pass, or a give.
Entry = Action | Gift


class Chop(NamedTuple):
    """A bomb played on a play of another kind (``proplay`` pays for these)."""

    seat: int
    victim: int
    bomb: Move
    target: Move


class CountAsk(NamedTuple):
    """``asker`` asked ``seat`` how many cards it holds and was told ``cards``, after the
    first ``at`` actions of the history (``rules.hidden_counts``; see
    :meth:`tienlen.Game.ask_count`)."""

    asker: int
    seat: int
    cards: int
    at: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayState:
    """Where a deal stands: the one definition of the play-state fields.

    ``hands`` holds each seat's cards as a bitmask where known, ``None`` where hidden;
    ``card_counts`` holds how many cards every seat has either way (``None`` where that is
    hidden too: ``rules.hidden_counts``).
    """

    phase: Phase = "play"
    """``"trading"``, ``"exchange"``, ``"play"`` or ``"over"``."""
    turn: int
    """The seat to act."""
    leader: int
    """The seat that led (or had to lead) the first pile."""
    hands: tuple[int | None, ...]
    """Every seat's cards as a bitmask (see :mod:`tienlen.cards`), ``None`` if hidden."""
    card_counts: tuple[int | None, ...]
    """Cards held by every seat; ``None`` for a count not shown (``rules.hidden_counts``)."""
    pile: tuple[Action, ...] = ()
    """Plays of the current pile, oldest first; empty when the seat to act leads."""
    passed: frozenset[int] = frozenset()
    """Seats that passed since the last play."""
    locked_out: frozenset[int] = frozenset()
    """Seats locked out of the current pile by passing."""
    straight_locked: bool = False
    """A one-suit straight has locked the pile."""
    first_lead: tuple[FirstLead, Card] | None = None
    """The constraint on the opening play still pending: (mode, lowest card)."""
    stuck: frozenset[int] = frozenset()
    """Leaders who passed the lead because they had no legal play (since the last play)."""
    finish_order: tuple[int, ...] = ()
    """Seats out so far, in order (every seat, loser last, once over)."""
    opening: tuple[int, ...] | None = None
    """Before the game's first play under ``rules.opening_bombs``, the seats still to be
    asked whether they open out of turn (empty: the leader's turn); ``None`` after it."""

    @property
    def top(self) -> Action | None:
        """The play to beat, if any."""
        return self.pile[-1] if self.pile else None

    def format(self) -> str:
        """This state in position notation (docs/position-notation.md); :func:`parse_position`
        reads it back."""
        if len(self.hands) > 10:
            raise ValueError(f"the notation writes seats as one digit, not {len(self.hands)}")
        hands = "/".join(
            _cards(h) or "-" if h is not None else f"?{'' if c is None else c}"
            for h, c in zip(self.hands, self.card_counts, strict=True)
        )
        pile = ",".join(f"{a.seat}:{_cards(a.move.mask)}" for a in self.pile) or "-"
        flags = _PHASE_FLAG.get(self.phase, "") + ("L" if self.straight_locked else "")
        for letter, seats in (("p", self.passed), ("x", self.locked_out), ("s", self.stuck)):
            if seats:
                flags += letter + "".join(str(s) for s in sorted(seats))
        if self.opening is not None:
            flags += "o" + "".join(str(s) for s in self.opening)
        first = "-"
        if self.first_lead is not None:
            mode, card = self.first_lead
            first = _FIRST_CODE[mode] + card.ascii()
        finish = "".join(str(s) for s in self.finish_order) or "-"
        return f"{hands} {self.turn} {self.leader} {pile} {flags or '-'} {first} {finish}"


def state_fields(state: PlayState) -> dict[str, Any]:
    """The :class:`PlayState` fields of ``state`` (which may be a subclass), by name: to
    build a subclass value (an observation) from a state without listing them again."""
    return {f.name: getattr(state, f.name) for f in fields(PlayState)}


# --- notation -----------------------------------------------------------------------------
class PositionError(ValueError):
    """Position notation that cannot be read; the message quotes the offending part."""


class PositionSyntaxError(PositionError):
    """Position notation that is not well formed (a field missing, a bad token)."""


class InvalidPositionError(PositionError):
    """Well-formed position notation that no deal can be in (a card held twice, a seat
    that does not exist, a pile play that is no combination)."""


_FIRST_CODE: Final[dict[FirstLead, str]] = {
    "lowest-single": "s",
    "must-include-lowest": "i",
    "holder-may-decline": "d",
    "holder-free": "f",
}
_FIRST_MODE: Final = {code: mode for mode, code in _FIRST_CODE.items()}
_PHASE_FLAG: Final[dict[str, str]] = {"trading": "T", "exchange": "E"}
_FLAG_PHASE: Final[dict[str, Phase]] = {"T": "trading", "E": "exchange"}
_CARD = re.compile(r"(10|[2-9tjqka])([scdh♠♣♦♥])('?)", re.IGNORECASE)
_FLAG = re.compile(r"([TEL])|([pxso])([0-9]*)")


def _cards(mask: int) -> str:
    return "".join(c.ascii() for c in cards_of_mask(mask))


def _read_cards(text: str, where: str) -> int:
    mask = 0
    pos = 0
    while pos < len(text):
        m = _CARD.match(text, pos)
        if m is None:
            raise PositionSyntaxError(f"no card at {text[pos:]!r} in {where} {text!r}")
        try:
            bit = Card.parse(m.group(0)).bit
        except CardParseError as e:
            raise PositionSyntaxError(f"{e} in {where} {text!r}") from None
        if mask & bit:
            raise InvalidPositionError(f"{m.group(0)!r} named twice in {where} {text!r}")
        mask |= bit
        pos = m.end()
    return mask


def _seat(text: str, n: int, where: str) -> int:
    if not text.isdigit() or len(text) != 1:
        raise PositionSyntaxError(f"{where} must be one digit, not {text!r}")
    seat = int(text)
    if seat >= n:
        raise InvalidPositionError(f"{where} {text!r} is no seat of {n} players")
    return seat


def _seats(text: str, n: int, where: str) -> tuple[int, ...]:
    out = tuple(_seat(ch, n, where) for ch in text)
    if len(set(out)) != len(out):
        raise InvalidPositionError(f"{where} {text!r} names a seat twice")
    return out


def parse_position(text: str, rules: Rules | str) -> PlayState:
    """Read position notation (docs/position-notation.md) under ``rules`` (the pile's plays
    are classified by them). Raises :class:`PositionSyntaxError` or
    :class:`InvalidPositionError` (both ``ValueError``) quoting the part at fault.

    >>> parse_position("3s/4s/?5/- 1 0 - - - 3", "standard").card_counts
    (1, 1, 5, 0)
    >>> parse_position("3s/4s/?5/- 1 0 - - - x", "standard")
    Traceback (most recent call last):
    ...
    tienlen.position.PositionSyntaxError: finish order must be one digit, not 'x'
    """
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    parts = text.split(" ")
    if len(parts) != 7:
        raise PositionSyntaxError(
            f"a position has 7 fields separated by single spaces, not {len(parts)}: {text!r}"
        )
    hands_text, turn_text, leader_text, pile_text, flags_text, first_text, finish_text = parts
    n = rules.players
    hand_texts = hands_text.split("/")
    if len(hand_texts) != n:
        raise InvalidPositionError(
            f"{len(hand_texts)} hands in {hands_text!r} for {n} players ({rules.name})"
        )
    hands: list[int | None] = []
    counts: list[int | None] = []
    seen = 0
    for h in hand_texts:
        if h.startswith("?"):
            if not (h[1:].isdigit() or h == "?") or len(h) > 4:
                raise PositionSyntaxError(
                    f"a hidden hand is '?' and its card count if known, not {h!r}"
                )
            hands.append(None)
            counts.append(int(h[1:]) if h != "?" else None)
            continue
        mask = 0 if h == "-" else _read_cards(h, "hand")
        if mask & seen:
            raise InvalidPositionError(f"hand {h!r} holds a card another hand holds")
        seen |= mask
        hands.append(mask)
        counts.append(mask.bit_count())
    pile: list[Action] = []
    if pile_text != "-":
        for play in pile_text.split(","):
            seat_text, colon, cards_text = play.partition(":")
            if not colon:
                raise PositionSyntaxError(f"a pile play is seat:cards, not {play!r}")
            mask = _read_cards(cards_text, "pile play")
            if mask & seen:
                raise InvalidPositionError(f"pile play {play!r} uses a card already seen")
            seen |= mask
            move = classify_mask(mask, rules)
            if move is None:
                raise InvalidPositionError(
                    f"pile play {play!r} is not a combination under the {rules.name} rules"
                )
            pile.append(Action(_seat(seat_text, n, "pile seat"), move))
    if seen & ~deck_mask(rules.decks):
        raise InvalidPositionError(f"{text!r} uses a second deck under the {rules.name} rules")
    phase: Phase = "play"
    straight_locked = False
    sets: dict[str, tuple[int, ...]] = {}
    opening: tuple[int, ...] | None = None
    if flags_text != "-":
        pos = 0
        letters: set[str] = set()
        while pos < len(flags_text):
            m = _FLAG.match(flags_text, pos)
            letter = m.group(1) or m.group(2) if m is not None else ""
            if m is None or letter in letters or (letter in "pxs" and not m.group(3)):
                raise PositionSyntaxError(f"bad flag at {flags_text[pos:]!r} in {flags_text!r}")
            letters.add(letter)
            pos = m.end()
            if m.group(1) == "L":
                straight_locked = True
            elif m.group(1):
                phase = _FLAG_PHASE[m.group(1)]
            elif m.group(2) == "o":
                opening = _seats(m.group(3), n, "opening seats")
            else:
                sets[m.group(2)] = _seats(m.group(3), n, f"{m.group(2)!r} seats")
    first_lead: tuple[FirstLead, Card] | None = None
    if first_text != "-":
        mode = _FIRST_MODE.get(first_text[:1])
        if mode is None:
            raise PositionSyntaxError(
                f"a first-lead constraint is one of {''.join(_FIRST_MODE)} and a card, "
                f"not {first_text!r}"
            )
        try:
            first_lead = (mode, Card.parse(first_text[1:]))
        except CardParseError as e:
            raise PositionSyntaxError(f"{e} in first lead {first_text!r}") from None
    finish = () if finish_text == "-" else _seats(finish_text, n, "finish order")
    if len(finish) == n:
        phase = "over"
    return PlayState(
        phase=phase,
        turn=_seat(turn_text, n, "turn"),
        leader=_seat(leader_text, n, "leader"),
        hands=tuple(hands),
        card_counts=tuple(counts),
        pile=tuple(pile),
        passed=frozenset(sets.get("p", ())),
        locked_out=frozenset(sets.get("x", ())),
        straight_locked=straight_locked,
        first_lead=first_lead,
        stuck=frozenset(sets.get("s", ())),
        finish_order=finish,
        opening=opening,
    )
