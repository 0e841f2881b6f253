"""The ``ismcts`` bot's choices and playouts at a fixed seed and iteration count, pinned.

A change meant as a pure speedup of the search (move generation, the playout's scoring,
the determinizations) must leave everything below as it was. The golden values were
computed with the code before the killer-single fast path of ``MoveTable.beating``
(docs/bots.md, "Why an iteration costs more on `double-deck-13`"). A change meant to alter
the bot's play must show it is not weaker (docs/bots.md), then recompute them by running
this file (``PYTHONPATH=src:tests python tests/test_ismcts_decisions.py``).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

import pytest

from tienlen import Game, Rules
from tienlen.combos import Choice, Move, index
from tienlen.observation import Observation, observe
from tienlen.players.base import Budget
from tienlen.players.bots.determinize import Determinizer
from tienlen.players.bots.heuristic import HeuristicBot
from tienlen.players.bots.ismcts import IsmctsBot, PolicyMemo, rollout_heuristic
from tienlen.players.toolkit import play_out

#: The rule sets pinned: (preset, seats). ``double-deck-13`` at 4 seats deals half the two
#: decks; at 8 (the preset's own count) all of them; its killer single (K♦) reaches a path
#: of move generation of its own.
RULE_SETS = [("standard", 4), ("suited", 4), ("double-deck-13", 4), ("double-deck-13", 8)]

#: Per rule set: seat 0's first searched choices (``kind:cards``, the cards as a hex mask,
#: since two decks hold two copies of a card), by the bot with its default settings and by
#: one that follows its playouts' means alone (``margin=0, prior=0``: any change in a
#: playout shows).
GOLDEN_CHOICES: dict[tuple[str, int], list[str]] = {
    ("standard", 4): [
        "single:4000000000000000000/single:4000000000000000000",
        "single:40000000000000000000000000/single:100000000000000000000000",
        "straight:100140/straight:100140",
        "straight:40014000000000/straight:40014000000000",
        "straight:1010040000000000000000/straight:1010040000000000000000",
        "triple:450000000000000000000000/pass:0",
    ],
    ("suited", 4): [
        "single:40000000000000000000000000/single:40000000000000000000000000",
        "straight:400140/straight:400140",
        "pass:0/pass:0",
        "single:40000000000000000/single:40000000000000000",
        "single:100000000000000000000000/single:100000000000000000000000",
        "single:400000/straight:40014000000000",
    ],
    ("double-deck-13", 4): [
        "pair:30000/pair:30000",
        "pair:28000000000000000000/pair:28000000000000000000",
        "single:200000000000000/single:80000000000000000000000",
        "pass:0/pass:0",
        "single:80000000000000000000000/single:80000000000000000000000",
        "straight:4002080100/straight:4002080100",
    ],
    ("double-deck-13", 8): [
        "pair:11/single:1",
        "single:200000000000000/pass:0",
        "pair:90000000000000000000000/pass:0",
        "single:20000000000000000000000000/single:20000000000000000000000000",
        "single:20000000000000000000/single:20000000000000000000",
        "straight:2080100/straight:2080100",
    ],
}

#: Per rule set: a digest of every move of 12 heuristic playouts from determinizations.
GOLDEN_PLAYOUTS: dict[tuple[str, int], str] = {
    ("standard", 4): "186dfc94d6be7702",
    ("suited", 4): "24b9fd2980e86505",
    ("double-deck-13", 4): "eab383ee97595f3c",
    ("double-deck-13", 8): "95ac7813a97b7fb5",
}


def _observations(
    preset: str, players: int, games: int = 2
) -> list[tuple[Observation, list[Choice]]]:
    """Seat 0's decisions (observation and legal moves) in ``games`` seeded deals played by
    ``heuristic`` at every seat."""
    rules = Rules.preset(preset).for_players(players)
    bot = HeuristicBot()
    out: list[tuple[Observation, list[Choice]]] = []

    def pick(game: Game, legal: Sequence[Choice]) -> Choice:
        obs = observe(game, game.turn)
        if game.turn == 0:
            out.append((obs, list(legal)))
        return bot.choose(obs, legal, Budget())

    for deal in range(games):
        play_out(Game(rules, seed=100 + deal), pick)
    return out


def _name(move: Choice) -> str:
    assert isinstance(move, Move)
    return f"{move.kind if move.mask else 'pass'}:{move.mask:x}"


def choices(preset: str, players: int, limit: int = 6) -> list[str]:
    """``default/means`` for seat 0's first ``limit`` decisions that search (30 iterations,
    seed 1)."""
    plain = IsmctsBot(seed=1, iterations=30)
    means = IsmctsBot(seed=1, iterations=30, margin=0.0, prior=0.0)
    out: list[str] = []
    for obs, legal in _observations(preset, players):
        plain.last_iterations = 0
        a = plain.choose(obs, legal, Budget())
        if not plain.last_iterations:
            continue
        b = means.choose(obs, legal, Budget())
        out.append(f"{_name(a)}/{_name(b)}")
        if len(out) == limit:
            break
    return out


def playouts(preset: str, players: int) -> str:
    """Every move of heuristic playouts (the bot's own) from 3 determinizations of each of
    4 of seat 0's decisions, as a digest."""
    digest = hashlib.sha256()
    rng = random.Random(7)
    found = _observations(preset, players)
    for obs, _ in found[:: max(1, len(found) // 4)][:4]:
        deals = Determinizer(obs)
        ix = index(obs.rules)
        memo: PolicyMemo = {}
        for _ in range(3):
            game = Game.from_state(obs, rules=obs.rules, hands=deals.sample(rng))
            start = len(game.history)
            rollout_heuristic(game, ix, memo)
            for action in game.history[start:]:
                digest.update(f"{action.seat}:{_name(action.move)};".encode())  # type: ignore[union-attr]
            digest.update(f"{list(game.finish_order)}|".encode())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize(("preset", "players"), RULE_SETS)
def test_ismcts_choices_are_pinned(preset: str, players: int) -> None:
    assert choices(preset, players) == GOLDEN_CHOICES[preset, players]


@pytest.mark.parametrize(("preset", "players"), RULE_SETS)
def test_heuristic_playouts_are_pinned(preset: str, players: int) -> None:
    assert playouts(preset, players) == GOLDEN_PLAYOUTS[preset, players]


if __name__ == "__main__":
    for key in RULE_SETS:
        print(f"    {key!r}: {choices(*key)!r},")
    for key in RULE_SETS:
        print(f"    {key!r}: {playouts(*key)!r},")
