"""Words the game screens show: the house-rule options that stack on any preset, and the
help texts. Kept apart so the plain game shares them. (One-line summaries of the presets
are :data:`tienlen.describe.SUMMARIES`.)"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from tienlen import INSTANT_WINS, Rules

__all__ = ["HELP_KEYS", "HELP_PLAIN", "OPTIONS", "Option", "apply_options"]


@dataclass(frozen=True, slots=True)
class Option:
    """A house rule that stacks on any preset (RULES.md, the 003 variants and others)."""

    key: str
    label: str
    apply: Callable[[Rules], Rules]

    def is_on(self, rules: Rules) -> bool:
        """Whether ``rules`` already has this option."""
        return self.apply(rules) == rules


def _add_chop(target: str, bomb: str) -> Callable[[Rules], Rules]:
    def apply(rules: Rules) -> Rules:
        if (target, bomb) in rules.chops:
            return rules
        return dataclasses.replace(rules, chops=(*rules.chops, (target, bomb)))

    return apply


#: The toggles of the new-game screen, each a ``dataclasses.replace`` on the rules.
OPTIONS: tuple[Option, ...] = (
    Option(
        "anticlockwise",
        "Play anticlockwise",
        lambda r: dataclasses.replace(r, direction="anticlockwise"),
    ),
    Option(
        "instant-wins",
        "Instant wins (tới trắng: four 2s, six pairs, dragon …)",
        lambda r: dataclasses.replace(r, instant_wins=INSTANT_WINS),
    ),
    Option(
        "cong",
        "Cóng: a player who never played pays double",
        lambda r: dataclasses.replace(r, cong=True),
    ),
    Option(
        "winner-takes-all",
        "Winner takes all: the game ends at the first player out",
        lambda r: dataclasses.replace(r, scoring="winner-takes-all", end_at_first_out=True),
    ),
    Option("quad-chops-pair", "A quad chops a pair of 2s", _add_chop("pair@2", "quad")),
    Option("four-pairs-beat-quad", "A 4-pair run beats a quad", _add_chop("quad", "pair_run4+")),
    Option(
        "no-finish-on-two",
        "No going out on a 2",
        lambda r: dataclasses.replace(r, may_finish_on_two=False),
    ),
)


def apply_options(rules: Rules, keys: set[str] | frozenset[str]) -> Rules:
    """``rules`` with the :data:`OPTIONS` named by ``keys`` switched on."""
    unknown = keys - {o.key for o in OPTIONS}
    if unknown:
        raise ValueError(f"unknown option(s): {', '.join(sorted(unknown))}")
    for option in OPTIONS:
        if option.key in keys:
            rules = option.apply(rules)
    return rules


HELP_KEYS = """\
[b]Choosing cards[/b]
  ← →      move along your hand      space   select / unselect it
  ↑ ↓      raise / lower that card   click   select / unselect a card
  3s 4s    type cards to select      esc     clear the selection
  c        next legal play with the selected cards
[b]Acting[/b]
  enter    play the selected cards   p       pass
  h        hint                      ctrl+s  save the match
  ask N    (typed) ask seat N how many cards it holds, where counts are hidden
[b]Other[/b]
  ctrl+n   new match                 ?       this help
  ctrl+q   quit
"""

HELP_PLAIN = """\
Type the cards to play in notation, e.g. "3s 4s 5d" (ranks 3-10 J Q K A 2, suits s c d h,
or the symbols ♠ ♣ ♦ ♥). Other commands:
  pass     pass (also "p" or "-")
  hint     suggest a move
  moves    list your legal moves
  ask N    ask seat N how many cards it holds (rules with hidden card counts)
  help     this text
  quit     stop (end of input also stops)
"""
