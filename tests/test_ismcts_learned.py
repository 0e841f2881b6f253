"""The ismcts bot guided by the learned bot's network: its prior (roots="learned") and its
play-out policy (playout="learned")."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("numpy", reason="the learned bot needs numpy (the env extra)")

from tienlen import Game
from tienlen.combos import index
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.bots.heuristic import HeuristicBot
from tienlen.players.bots.ismcts import IsmctsBot
from tienlen.players.registry import make_bot
from tienlen.players.toolkit import play_out

ONE = Budget(iterations=1)  # too few to overturn the first root move


def test_with_the_learned_prior_the_default_answer_is_the_learned_bots_move() -> None:
    learned, heuristic = make_bot("learned"), HeuristicBot()
    guided = IsmctsBot(seed=1, roots="learned")
    plain = IsmctsBot(seed=1)
    searched = differ = 0
    for seed in range(4):
        game = Game("standard", seed=seed)
        while not game.is_over:
            obs, legal = observe(game, game.turn), game.legal_moves()
            mine = learned.choose(obs, legal, Budget())
            if len(legal) > 1 and heuristic.ranked(obs, legal)[0].score < 100.0:
                searched += 1
                assert guided.choose(obs, legal, ONE) == mine
                differ += plain.choose(obs, legal, ONE) != mine
            game.play(mine)
    assert searched > 40
    assert differ  # the heuristic's first choice is not always the network's


def test_the_learned_playout_plays_the_learned_bot_at_every_seat() -> None:
    bot, learned = IsmctsBot(seed=1, playout="learned"), make_bot("learned")
    for seed in (3, 4):
        searched, played = Game("standard", seed=seed), Game("standard", seed=seed)
        bot._rollout_learned(searched, index(searched.rules), {})
        play_out(played, lambda g, legal: learned.choose(observe(g, g.turn), legal, Budget()))
        assert searched.is_over and searched.finish_order == played.finish_order
        assert searched.history == played.history


@pytest.mark.slow
def test_a_guided_search_plays_a_legal_game() -> None:
    game = Game("standard", seed=8)
    bots = [IsmctsBot(seed=s, roots="learned", playout="learned") for s in range(4)]
    while not game.is_over:
        legal = game.legal_moves()
        move = bots[game.turn].choose(observe(game, game.turn), legal, Budget(iterations=6))
        assert move in legal
        game.play(move)


@pytest.mark.parametrize(
    ("options", "message"),
    [({"playout": "neural"}, "playout must be"), ({"roots": "greedy"}, "roots must be")],
)
def test_unknown_guides_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        IsmctsBot(**options)
