"""The ``learned`` bot's endgame (``endgame=N``): open-hands solving of sampled deals."""

from __future__ import annotations

import random
from itertools import islice

import pytest

pytest.importorskip("numpy", reason="the learned bot needs numpy (the apps extra)")

from tienlen import Game, Rules
from tienlen.combos import Move
from tienlen.observation import Observation, observe
from tienlen.players.arena import play_game
from tienlen.players.base import Budget
from tienlen.players.bots.endgame import (
    ENDGAME_CARDS,
    ENDGAME_NODES,
    forcing_choice,
    in_endgame,
    sampled_deals,
)
from tienlen.players.bots.learned import LearnedBot
from tienlen.players.registry import make_bot, parse_spec
from tienlen.solver import Solver, solve

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


def test_the_endgame_searches_at_most_its_nodes_in_a_deal() -> None:
    game = replay()
    assert choice(LearnedBot(), game) == "2♠ 2♥"
    # one position answers for no choice in any deal, so the network decides
    assert choice(LearnedBot(endgame=4, nodes=1, seed=0), game) == "2♠ 2♥"
    assert choice(LearnedBot(endgame=4, nodes=ENDGAME_NODES, seed=0), game) == "pass"
    name, options = parse_spec("learned:endgame=4:nodes=1")
    bot = make_bot(name, seed=0, **options)
    assert isinstance(bot, LearnedBot) and bot.nodes == 1


def test_where_nothing_forces_the_network_decides() -> None:
    # The same game after the network's pair of 2s and seat 1's pass: seat 0 leads 7♣ 7♥ J♥
    # against 8♠ 8♣ J♠ K♥ A♥, and every deal (the real one) says no lead forces it out first.
    game = replay()
    game.play("2♠ 2♥")
    game.play("pass")
    obs, legal = observe(game, 0), game.legal_plays()
    assert in_endgame(obs) and not solve(game, 0).wins
    values = [0.0] * len(legal)
    assert forcing_choice(obs, legal, values, random.Random(1), samples=8) is None
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


def counted_choice(
    obs: Observation, legal: list[Move], values: list[float], rng: random.Random, samples: int
) -> int | None:
    """The endgame's rule the plain way: every choice solved in every deal (the same deals,
    drawn from the same ``rng``), then the most forcing, ties to the highest value."""
    counts = [0] * len(legal)
    for game in islice(sampled_deals(obs, rng), samples):
        verdict = {m.mask: won for m, won in solve(game, obs.seat, nodes=10**6).choices}
        for i, m in enumerate(legal):
            counts[i] += verdict[m.mask]
    if not max(counts):
        return None
    return max((i for i in range(len(legal)) if counts[i] == max(counts)), key=values.__getitem__)


def small_endgames(preset: str, count: int) -> list[Game]:
    """Positions of ``heuristic`` games with nobody out and at most 16 cards in hand, the
    seat to act having a choice."""
    out = []
    bot = make_bot("heuristic")
    for seed in range(200):
        game = Game(preset, seed=seed)
        while not game.finish_order:
            legal = game.legal_plays()
            cards = sum(game.cards_left(s) for s in range(game.rules.players))
            if cards <= 16 and len(legal) > 2:
                out.append(game)
                break
            game.play(bot.choose(observe(game, game.turn), legal, FREE))
        if len(out) == count:
            break
    return out


@pytest.mark.parametrize("preset", ["standard", "pike"])
def test_asking_the_choices_lazily_picks_what_counting_every_one_picks(preset: str) -> None:
    """The choices are asked in the network's order and each only while it can still beat
    the best: where every question fits the budget, the pick is that of counting them all."""
    games = small_endgames(preset, 12)
    assert len(games) == 12
    noise = random.Random(5)
    forced = 0
    for game in games:
        obs, legal = observe(game, game.turn), game.legal_plays()
        values = [noise.random() for _ in legal]  # any order of the choices
        expected = counted_choice(obs, legal, values, random.Random(9), samples=4)
        got = forcing_choice(obs, legal, values, random.Random(9), samples=4, nodes=10**6)
        assert got == expected, game.position.format()
        forced += expected is not None
    assert forced >= 3  # the comparison covered positions where a choice forces


def test_where_the_networks_choice_forces_in_every_deal_nothing_else_is_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = replay()  # every deal is the real one; only the pass forces (above)
    obs, legal = observe(game, 0), game.legal_plays()
    asked: list[str] = []
    real = Solver.forces_after

    def spy(self: Solver, game: Game, move: Move, seat: int) -> bool:
        asked.append(str(move))
        return real(self, game, move, seat)

    monkeypatch.setattr(Solver, "forces_after", spy)
    first = [1.0 if m.mask == 0 else 0.0 for m in legal]  # the network's choice: the pass
    pick = forcing_choice(obs, legal, first, random.Random(2), samples=3)
    assert pick is not None and str(legal[pick]) == "pass"
    assert asked == ["pass"] * 3
    asked.clear()
    last = [0.0 if m.mask == 0 else 1.0 + i for i, m in enumerate(legal)]  # the pass last
    pick = forcing_choice(obs, legal, last, random.Random(2), samples=3)
    assert pick is not None and str(legal[pick]) == "pass"
    # the network's choice is asked in every deal (it forces in none), then the pass
    assert asked == ["2♠ 2♥"] * 3 + ["pass"] * 3


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


@pytest.mark.parametrize("bad", [0, -5, True, 2.5, "5000"])
def test_the_nodes_option_is_a_count_of_positions(bad: object) -> None:
    with pytest.raises(ValueError, match="nodes is a number of positions") as e:
        LearnedBot(endgame=8, nodes=bad)  # type: ignore[arg-type]
    assert repr(bad) in str(e.value)
