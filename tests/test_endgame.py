"""The ``learned`` bot's endgame (``endgame=N``): open-hands solving of sampled deals."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy", reason="the learned bot needs numpy (the apps extra)")

from tienlen import Game, Rules
from tienlen.observation import observe
from tienlen.players.arena import play_game
from tienlen.players.base import Budget
from tienlen.players.bots.endgame import ENDGAME_CARDS, forcing_counts, in_endgame
from tienlen.players.bots.learned import LearnedBot
from tienlen.players.registry import make_bot, parse_spec
from tienlen.solver import solve

FREE = Budget()

# A game of the shipped network at every seat (``Game("standard", seed=88)``) up to a
# decision of seat 0 with two seats left (2 and 3 are out): it is to answer seat 1's pair
# of 10s. Every card but the two hands has been played, so every unseen card is seat 1's
# and every sampled deal is the real one. The network tops the 10s with its pair of 2s,
# after which seat 1 goes out first.
HISTORY = (
    "3♠ 4♥ 5♣ 6♠|pass|pass|4♣ 5♦ 6♣ 7♦|8♥ 9♦ 10♦ J♦|pass|Q♦ K♣ A♣|pass|pass|pass|2♣ 2♦|"
    "pass|pass|pass|4♠|5♠|6♥|9♠|9♥|J♣|K♠|A♠|pass|pass|3♥ 4♦ 5♥|pass|Q♠ K♦ A♦|pass|"
    "6♦ 7♠ 8♦ 9♣ 10♠|pass|pass|Q♣ Q♥|pass|pass|3♣ 3♦|10♣ 10♥"
)
LAST_TWO = "7c7hJh2s2h/8s8cJsKhAh/-/- 0 2 0:3c3d,1:10c10h - - 23"


def choice(bot: LearnedBot, game: Game) -> str:
    return str(bot.choose(observe(game, game.turn), game.legal_plays(), FREE))


def replay() -> Game:
    game = Game("standard", seed=88)
    for move in HISTORY.split("|"):
        game.play(move)
    assert game.position.format() == LAST_TWO
    return game


def test_the_endgame_plays_a_choice_that_forces_the_stake() -> None:
    game = replay()
    winning = {str(m) for m in solve(game, 0).winning}
    assert winning == {"pass"}  # the 2s are worth more kept for the end
    for seed in range(3):
        assert choice(LearnedBot(endgame=4, seed=seed), game) in winning


def test_where_nothing_forces_the_network_decides() -> None:
    # The same game after the network's pair of 2s and seat 1's pass: seat 0 leads 7♣ 7♥ J♥
    # against 8♠ 8♣ J♠ K♥ A♥, and every deal (the real one) says no lead forces it out first.
    game = replay()
    game.play("2♠ 2♥")
    game.play("pass")
    obs, legal = observe(game, 0), game.legal_plays()
    assert in_endgame(obs) and not solve(game, 0).wins
    assert forcing_counts(obs, legal, random.Random(1), samples=8) == [0] * len(legal)
    assert choice(LearnedBot(endgame=8, seed=1), game) == choice(LearnedBot(), game)


def test_the_endgame_solves_only_where_the_solver_answers_the_seats_stake() -> None:
    small = Game("standard", hands=["3s 7c 9h", "4s 5s 6h", "8c 8d", "10s Qd"])
    assert in_endgame(observe(small, 0))  # nobody out: the stake is the win
    three_left = Game.from_position("3c4d/-/5s6s/2h 0 0 - - - 1", rules="standard")
    assert not in_endgame(observe(three_left, 0))  # one out, three left: not the win
    deal = Game("standard", seed=7)
    assert sum(deal.cards_left(s) for s in range(4)) > ENDGAME_CARDS
    assert not in_endgame(observe(deal, deal.turn))
    plain, solving = LearnedBot(), LearnedBot(endgame=8, seed=3)
    assert choice(plain, deal) == choice(solving, deal)  # outside the endgame: the network


@pytest.mark.parametrize("preset", ["wikipedia", "pike"])
def test_the_endgame_bot_plays_whole_games_legally(preset: str) -> None:
    rules = Rules.preset(preset)
    name, options = parse_spec("learned:endgame=4")
    for seed in range(2):
        game = Game(rules, seed=seed)
        players = [make_bot(name, seed=seed, **options)] + [
            make_bot("heuristic") for _ in range(rules.players - 1)
        ]
        problems: list[str] = []
        play_game(game, players, on_problem=problems.append)
        assert game.is_over and problems == []


@pytest.mark.parametrize("bad", [-1, True, 2.5, "8"])
def test_the_endgame_option_is_a_count_of_deals(bad: object) -> None:
    with pytest.raises(ValueError, match="endgame is a number of deals") as e:
        LearnedBot(endgame=bad)  # type: ignore[arg-type]
    assert repr(bad) in str(e.value)
