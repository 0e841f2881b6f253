"""Numeric encodings of what one seat knows, for learning agents (needs numpy).

Everything here is computed from an :class:`~tienlen.observation.Observation` and the legal
moves, never from a :class:`~tienlen.game.Game`, so an encoding cannot hold another seat's
hidden cards. Seats are relative: slot ``k`` is the seat ``k`` places after the observer in
seat order (slot 0 is the observer), for up to :data:`MAX_SEATS` seats; slots past the
player count stay zero.

- :func:`encode_observation`: one ``float32`` vector of :data:`OBS_DIM` features;
- :func:`encode_moves`: the legal moves as a ``(len(legal), MOVE_DIM)`` batch, one row per
  move, every move kept (action-as-input: a learner scores each row);
- :func:`legal_batch`: that batch padded to a fixed number of rows with a mask;
- :func:`encode_rules`: the rules' knobs as :data:`RULES_DIM` features, read from the knob
  schema (:data:`tienlen.rules.KNOBS`), so one network can play every rule set.

A card plane has 52 entries, one per rank and suit (index ``rank * 4 + suit``), holding how
many copies of that card the set has (0-2 with two decks). ``docs/env.md`` lists every
feature with its offset.

>>> from tienlen import Game
>>> from tienlen.observation import observe
>>> game = Game("standard", seed=1)
>>> obs = observe(game, game.turn)
>>> encode_observation(obs).shape == (OBS_DIM,)
True
>>> encode_moves(obs, game.legal_moves()).shape == (len(game.legal_moves()), MOVE_DIM)
True
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from tienlen.cards import deck_mask
from tienlen.combos import Choice, Give, Move, index
from tienlen.knobs import Knob
from tienlen.observation import Observation
from tienlen.patterns import KINDS as COMBINATION_KINDS
from tienlen.position import Action
from tienlen.rules import KNOBS, Rules

__all__ = [
    "KINDS",
    "MAX_SEATS",
    "MOVE_DIM",
    "MOVE_PASS",
    "OBS_DIM",
    "PHASES",
    "RULES_DIM",
    "UNSEEN_PLANE",
    "card_plane",
    "encode_moves",
    "encode_observation",
    "encode_rules",
    "legal_batch",
    "max_legal_moves",
]

FloatArray = npt.NDArray[np.float32]

#: Seats the encodings have room for (the engine's most).
MAX_SEATS: Final = 8
#: Move kinds, in the order of the kind one-hot, and last a slot for a give (San Jose or
#: card debts, :class:`~tienlen.combos.Give`).
KINDS: Final = ("pass", *COMBINATION_KINDS, "give")
#: Game phases, in the order of the phase one-hot.
PHASES: Final = ("trading", "exchange", "play", "over")
_KIND_INDEX: Final = {k: i for i, k in enumerate(KINDS)}
_GIVE: Final = _KIND_INDEX["give"]

# Move features: cards (52), kind (12), size/13, cards/13, top rank (13), top suit (4),
# is-bomb, cards left after the move / hand size, goes out.
_M_CARDS, _M_KIND, _M_SIZE = 0, 52, 52 + len(KINDS)
_M_COUNT = _M_SIZE + 1
_M_RANK = _M_COUNT + 1
_M_SUIT = _M_RANK + 13
_M_BOMB = _M_SUIT + 4
_M_LEFT = _M_BOMB + 1
_M_OUT = _M_LEFT + 1
#: Features of one move.
MOVE_DIM: Final = _M_OUT + 1
#: The column of a move row that is 1 for the pass (its kind one-hot's first entry).
MOVE_PASS: Final = _M_KIND + _KIND_INDEX["pass"]

# Observation features (see docs/env.md for the table).
_O_HAND, _O_PLAYED, _O_UNSEEN = 0, 52, 104
_O_BY_SEAT = 156  # cards each relative seat has played: MAX_SEATS planes of 52
_O_COUNTS = _O_BY_SEAT + 52 * MAX_SEATS
_O_PRESENT = _O_COUNTS + MAX_SEATS
_O_PASSED = _O_PRESENT + MAX_SEATS
_O_LOCKED = _O_PASSED + MAX_SEATS
_O_OUT = _O_LOCKED + MAX_SEATS
_O_TOP_SEAT = _O_OUT + MAX_SEATS
_O_TOP = _O_TOP_SEAT + MAX_SEATS  # the move to beat (MOVE_DIM, its hand features zero)
_O_PHASE = _O_TOP + MOVE_DIM
_O_FLAGS = _O_PHASE + len(PHASES)
# flags: leading, straight lock, first-lead constraint pending, opening bombs pending,
# my turn, plays in the pile / 10 (at most 2)
#: Features of one observation.
OBS_DIM: Final = _O_FLAGS + 6
#: Where :func:`encode_observation` puts the plane of unseen cards (copies of each card
#: neither in the seat's hand nor played: in other hands, or not dealt).
UNSEEN_PLANE: Final = slice(_O_UNSEEN, _O_BY_SEAT)


def card_plane(mask: int) -> FloatArray:
    """The 52-entry card plane of a card mask (copies per rank and suit)."""
    plane: FloatArray = _planes([mask])[0]
    return plane


def _move_row(row: FloatArray, move: Move, bomb: bool) -> None:
    mask = move.mask
    if mask:
        row[_M_CARDS : _M_CARDS + 52] = card_plane(mask)
        top = move.top_id
        row[_M_RANK + (top >> 3)] = 1.0
        row[_M_SUIT + ((top >> 1) & 3)] = 1.0
    row[_M_KIND + _KIND_INDEX[move.kind]] = 1.0
    row[_M_SIZE] = move.size / 13.0
    row[_M_COUNT] = mask.bit_count() / 13.0
    row[_M_BOMB] = float(bomb)


def encode_moves(obs: Observation, legal: Sequence[Choice]) -> FloatArray:
    """Every move (or give) of ``legal`` as one row of :data:`MOVE_DIM` features, in order."""
    n = len(legal)
    out = np.zeros((n, MOVE_DIM), dtype=np.float32)
    if not n:
        return out
    out[:, _M_CARDS : _M_CARDS + 52] = _planes([m.mask for m in legal])
    rows = np.arange(n)
    bomb = _bomb_test(obs.rules)
    gives = np.array([isinstance(m, Give) for m in legal])
    kinds = [_GIVE if isinstance(m, Give) else _KIND_INDEX[m.kind] for m in legal]
    out[rows, _M_KIND + np.array(kinds)] = 1.0
    # a give's size is its number of cards
    out[:, _M_SIZE] = [
        (m.mask.bit_count() if isinstance(m, Give) else m.size) / 13.0 for m in legal
    ]
    counts = np.array([m.mask.bit_count() for m in legal])
    out[:, _M_COUNT] = counts / 13.0
    played = np.array([m.mask != 0 for m in legal])
    tops = np.array([max(m.mask.bit_length() - 1, 0) for m in legal])
    out[rows[played], _M_RANK + (tops[played] >> 3)] = 1.0
    out[rows[played], _M_SUIT + ((tops[played] >> 1) & 3)] = 1.0
    out[:, _M_BOMB] = [not isinstance(m, Give) and bomb(m) for m in legal]
    size = max(obs.rules.cards_per_hand, 1)
    hand = obs.hand_mask
    left = np.array([(hand & ~m.mask).bit_count() for m in legal])
    out[:, _M_LEFT] = left / size
    out[:, _M_OUT] = (left == 0) & ~gives
    return out


@cache
def _bomb_test(rules: Rules) -> Callable[[Move], bool]:
    """Whether a move is a bomb under ``rules``, memoised by kind, size and top rank."""
    ix = index(rules)
    known: dict[tuple[str, int, int], bool] = {}

    def bomb(move: Move) -> bool:
        if not move.mask:
            return False
        key = (move.kind, move.size, move.top_rank)
        value = known.get(key)
        if value is None:
            value = known[key] = ix.is_bomb(move)
        return value

    return bomb


def _planes(masks: Sequence[int]) -> FloatArray:
    """Card planes of several masks at once, ``(len(masks), 52)``."""
    raw = np.frombuffer(b"".join(m.to_bytes(13, "little") for m in masks), dtype=np.uint8)
    bits = np.unpackbits(raw.reshape(len(masks), 13), axis=1, bitorder="little")
    planes: FloatArray = bits.reshape(len(masks), 52, 2).sum(axis=2).astype(np.float32)
    return planes


def encode_observation(obs: Observation) -> FloatArray:
    """The observation as one vector of :data:`OBS_DIM` features."""
    out = np.zeros(OBS_DIM, dtype=np.float32)
    n = obs.rules.players
    me = obs.seat
    by_seat = [0] * n
    for action in obs.history:  # the one walk of the history (obs.played_mask is another)
        if isinstance(action, Action):
            by_seat[action.seat] |= action.move.mask
    played = 0
    for mask in by_seat:
        played |= mask
    unseen = deck_mask(obs.rules.decks) & ~obs.hand_mask & ~played
    relative = [by_seat[(me + k) % n] for k in range(n)]
    planes = _planes([obs.hand_mask, played, unseen, *relative])
    out[_O_HAND:_O_BY_SEAT] = planes[:3].reshape(-1)
    out[_O_BY_SEAT : _O_BY_SEAT + 52 * n] = planes[3:].reshape(-1)
    size = max(obs.rules.cards_per_hand, 1)
    out_seats = set(obs.finish_order)
    counts = obs.tracked_counts()  # hidden counts (rules.hidden_counts) as a player reckons
    for k in range(n):
        seat = (me + k) % n
        out[_O_COUNTS + k] = counts[seat] / size
        out[_O_PRESENT + k] = 1.0
        out[_O_PASSED + k] = float(seat in obs.passed)
        out[_O_LOCKED + k] = float(seat in obs.locked_out)
        out[_O_OUT + k] = float(seat in out_seats)
    top = obs.top
    if top is not None:
        out[_O_TOP_SEAT + (top.seat - me) % n] = 1.0
        row = out[_O_TOP : _O_TOP + MOVE_DIM]
        _move_row(row, top.move, _bomb_test(obs.rules)(top.move))
    if obs.phase in PHASES:
        out[_O_PHASE + PHASES.index(obs.phase)] = 1.0
    out[_O_FLAGS] = float(not obs.pile)
    out[_O_FLAGS + 1] = float(obs.straight_locked)
    out[_O_FLAGS + 2] = float(obs.first_lead is not None)
    out[_O_FLAGS + 3] = float(bool(obs.opening))
    out[_O_FLAGS + 4] = float(obs.is_my_turn())
    out[_O_FLAGS + 5] = min(len(obs.pile) / 10.0, 2.0)
    return out


def max_legal_moves(rules: Rules) -> int:
    """The most legal moves a seat can ever have in the play phase under ``rules``: the
    rules' own upper bound on the combinations of one hand
    (:attr:`~tienlen.rules.Rules.most_combinations`) plus the pass."""
    return rules.most_combinations + 1


def legal_batch(
    obs: Observation, legal: Sequence[Move], rows: int | None = None
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """``(moves, mask)``: :func:`encode_moves` padded with zero rows to ``rows`` (default:
    exactly ``len(legal)``), and a boolean mask of the real rows. Raises ``ValueError``
    rather than drop a move when ``rows`` is too small."""
    n = len(legal)
    rows = n if rows is None else rows
    if rows < n:
        raise ValueError(f"{n} legal moves do not fit in {rows} rows; no move is ever dropped")
    moves = np.zeros((rows, MOVE_DIM), dtype=np.float32)
    moves[:n] = encode_moves(obs, legal)
    mask = np.zeros(rows, dtype=bool)
    mask[:n] = True
    return moves, mask


#: Buckets a knob holding combination patterns (the chop table, the bomb ladder) is hashed
#: into: the patterns are open-ended text, so each one (or pair) sets the bucket of its
#: CRC-32.
PATTERN_BUCKETS: Final = 16


def _knob_width(knob: Knob) -> int:
    """How many features :func:`encode_rules` gives ``knob`` (0: a free-text label)."""
    if knob.shape == "flag":
        return 1
    if knob.patterns:
        return PATTERN_BUCKETS + 1
    if knob.shape == "table":
        return len(knob.choices) + 1
    # a value: one per word, the number, None, free text
    return (
        len(knob.choices) + int(knob.number) + int(knob.optional) + int(knob.text and knob.optional)
    )


def _knob_features(knob: Knob, value: Any) -> list[float]:
    """The features of one knob's value (see :func:`encode_rules`)."""
    if knob.shape == "flag":
        return [float(value)]
    if knob.patterns:
        buckets = [0.0] * PATTERN_BUCKETS
        for entry in value:
            text = "/".join(entry) if isinstance(entry, tuple) else str(entry)
            buckets[zlib.crc32(text.encode()) % PATTERN_BUCKETS] = 1.0
        return [*buckets, min(len(value) / PATTERN_BUCKETS, 1.0)]
    if knob.shape == "table":
        return [float(c in value) for c in knob.choices] + [min(len(value) / 8.0, 1.0)]
    out = [float(value == c) for c in knob.choices]
    if knob.number:
        high = knob.range[1] if knob.range else 1
        out.append(value / high if isinstance(value, int) and not isinstance(value, bool) else 0.0)
    if knob.optional:
        out.append(float(value is None))
        if knob.text:
            out.append(float(isinstance(value, str)))
    return out


#: The knobs :func:`encode_rules` reads: all but free-text labels (the preset's name is
#: never an input).
_ENCODED_KNOBS: Final = tuple(k for k in KNOBS if _knob_width(k))
#: Features of one rules value (:func:`encode_rules`).
RULES_DIM: Final = sum(_knob_width(k) for k in _ENCODED_KNOBS)


@cache
def encode_rules(rules: Rules) -> FloatArray:
    """The knobs of ``rules`` as :data:`RULES_DIM` features in ``[0, 1]``, in the order of
    :data:`tienlen.rules.KNOBS`, derived from the knob schema alone: a flag is one feature;
    a value is a one-hot over its words, its number divided by its range's top, whether it
    is ``None`` and whether it is free text, as the knob allows; a table is a multi-hot
    over its words and its length / 8; a pattern knob (the chop table, the bomb ladder)
    sets one of :data:`PATTERN_BUCKETS` buckets per entry by the entry's CRC-32, and its
    length / 16. The preset's name is not read. A new house rule is a new vector, which a
    network trained on several rule sets can read; a new knob changes :data:`RULES_DIM`
    (weights for the old size are then refused). The array is shared: do not write it."""
    values: list[float] = []
    for knob in _ENCODED_KNOBS:
        values.extend(_knob_features(knob, getattr(rules, knob.name)))
    out = np.asarray(values, dtype=np.float32)
    out.setflags(write=False)
    return out
