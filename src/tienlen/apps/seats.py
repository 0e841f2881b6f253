"""Who sits at the table: the levels a seat can take (:mod:`tienlen.players.levels`) and the
names shown."""

from __future__ import annotations

import random

from tienlen.players import levels
from tienlen.players.base import Player
from tienlen.players.levels import Level, level_spec

__all__ = ["SEAT_NAMES", "bot_choices", "check_bot", "make_player", "plural", "says"]

#: Names shown for the seats; seat 0 is the person at the keyboard.
SEAT_NAMES = ("You", "Lan", "Minh", "Hoa", "Tuấn", "Mai", "Dũng", "Linh")

#: Verbs whose form with "you" is not the third person's without its ending.
_YOU_FORMS = {"is": "are", "has": "have", "was": "were"}


def says(name: str, verb: str) -> str:
    """``name`` and ``verb`` (given as for anyone else: ``"leads"``, ``"is"``) in agreement,
    so the person at the keyboard reads the second person.

    >>> says("Lan", "leads"), says("You", "leads"), says("You", "is"), says("You", "passes")
    ('Lan leads', 'You lead', 'You are', 'You pass')
    """
    if name != SEAT_NAMES[0]:
        return f"{name} {verb}"
    if verb in _YOU_FORMS:
        return f"{name} {_YOU_FORMS[verb]}"
    if verb.endswith(("sses", "shes", "ches", "xes")):
        return f"{name} {verb[:-2]}"
    return f"{name} {verb[:-1] if verb.endswith('s') else verb}"


def plural(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless one: ``1 card``, ``2 cards``, ``0 cards``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def bot_choices() -> tuple[Level, ...]:
    """Every level a seat can take, weakest first."""
    return levels.choices()


def check_bot(name: str) -> None:
    """Refuse a ``name`` that is neither a level nor a built-in bot (``ValueError`` naming
    the valid ones)."""
    level_spec(name)


def make_player(name: str, seed: int | str | None) -> Player:
    """A fresh bot for level (or bot) ``name`` whose choices follow from ``seed``."""
    return levels.make_player(name, seed=_int_seed(seed))


def _int_seed(seed: int | str | None) -> int | None:
    if seed is None or isinstance(seed, int):
        return seed
    return random.Random(seed).randrange(2**31)
