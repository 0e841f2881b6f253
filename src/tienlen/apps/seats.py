"""Who sits at the table: the bots a seat can take (from the registry) and the names shown."""

from __future__ import annotations

import random

from tienlen.players.base import Player
from tienlen.players.registry import BOTS, BotInfo, make_bot

__all__ = ["SEAT_NAMES", "bot_choices", "bot_info", "make_player", "plural", "says"]

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


def bot_choices() -> tuple[BotInfo, ...]:
    """Every bot a seat can take, weakest first (as the registry lists them)."""
    return tuple(BOTS.values())


def bot_info(name: str) -> BotInfo:
    """The registry entry of bot ``name``; raises ``ValueError`` naming the valid ones."""
    try:
        return BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOTS)}") from None


def make_player(name: str, seed: int | str | None) -> Player:
    """A fresh bot ``name`` whose choices follow from ``seed``."""
    bot_info(name)
    return make_bot(name, seed=_int_seed(seed))


def _int_seed(seed: int | str | None) -> int | None:
    if seed is None or isinstance(seed, int):
        return seed
    return random.Random(seed).randrange(2**31)
