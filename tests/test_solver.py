"""The open-hands solver against a plain minimax, and its answers on positions worked by
hand."""

from __future__ import annotations

import dataclasses
import random

import pytest

from tienlen import Game, Rules
from tienlen.cards import bits_of_mask, cards_of_mask, deck_mask
from tienlen.solver import Solver, TooLargeError, first_out, forced_winner, solve


def brute_force(game: Game, seat: int, out: int) -> bool:
    """Whether ``seat`` goes out as seat number ``out`` whatever the others play: every
    line searched, nothing remembered."""
    finish = game.finish_order
    if len(finish) > out:
        return finish[out] == seat
    results = []
    for move in game.legal_plays():
        child = game.copy()
        child.apply_unchecked(move)
        results.append(brute_force(child, seat, out))
    return any(results) if game.turn == seat else all(results)


def random_position(rules: Rules, rng: random.Random, most: int, total: int = 99) -> Game:
    """A deal of 1 to ``most`` cards a seat, ``total`` at most in all, then a few random
    moves (piles, passes, locks, seats out)."""
    bits = bits_of_mask(deck_mask(rules.decks))
    rng.shuffle(bits)
    sizes = [rng.randint(1, most) for _ in range(rules.players)]
    while sum(sizes) > total:
        sizes[rng.randrange(rules.players)] = 1
    hands = []
    for size in sizes:
        hands.append(cards_of_mask(sum(bits[:size])))
        del bits[:size]
    game = Game(rules, hands=hands)
    for _ in range(rng.randint(0, 6)):
        if game.is_over:
            break
        game.apply_unchecked(rng.choice(game.legal_plays()))
    return game


RULE_SETS = [
    Rules.preset("standard"),
    Rules.preset("pang"),  # stacking, the first leader may decline
    Rules.preset("lu"),  # out-ends-pile, a free first lead
    Rules.preset("akita"),  # no locking
    Rules.preset("proplay"),  # bombs after passing on chops
    dataclasses.replace(Rules.preset("wikipedia"), players=3),  # the lowest single first
    dataclasses.replace(Rules.preset("standard"), players=2, may_finish_on_two=False),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.name}-{r.players}")
def test_the_solver_agrees_with_a_plain_minimax_on_random_small_positions(rules: Rules) -> None:
    rng = random.Random(f"solver {rules.code()}")
    checked = 0
    while checked < 250:
        game = random_position(rules, rng, 3, total=8)
        if game.is_over:
            continue
        out = len(game.finish_order)
        for seat in range(rules.players):
            if not game.cards_left(seat):
                continue
            solution = solve(game, seat)
            assert solution.wins == brute_force(game, seat, out), (game, seat)
            for move, won in solution.choices:
                child = game.copy()
                child.apply_unchecked(move)
                assert won == brute_force(child, seat, out), (game, seat, move)
            checked += 1


def test_a_winning_line_is_played_by_the_winning_choices_and_ends_with_the_seat_out() -> None:
    rng = random.Random(3)
    rules = Rules.preset("standard")
    lines = 0
    while lines < 50:
        game = random_position(rules, rng, 4)
        if game.is_over:
            continue
        solution = solve(game)
        if not solution.wins:
            assert solution.line == ()
            continue
        replay = game.copy()
        for action in solution.line:
            assert action.seat == replay.turn
            replay.play(action.move)
        assert replay.finish_order[len(game.finish_order)] == game.turn
        assert solution.line[0].move in solution.winning
        lines += 1


def test_the_seat_that_can_go_out_at_once_wins_with_that_play_only() -> None:
    game = Game.from_position("8d10d/4hJh/Jc/10h 1 0 0:4s - - -", rules="standard")
    solution = solve(game)
    assert solution.wins
    assert [str(m) for m in solution.winning] == ["J♥"]
    assert {str(m) for m, won in solution.choices if not won} == {"4♥", "pass"}


def test_with_two_seats_left_one_of_them_goes_out_first() -> None:
    # Seat 1 leads the 3♠ and then holds the 2♥: seat 3's Ace can never win the lead.
    game = Game.from_position("-/3s2h/-/Ac4d 1 0 - - - 02", rules="standard")
    assert first_out(game) == 1
    assert forced_winner(game) == 1
    assert not solve(game, 3).wins


def test_no_seat_forces_it_when_each_holds_a_card_the_others_cannot_stop_in_turn() -> None:
    # Each seat holds one single; whoever leads goes out: seat 0 leads and wins.
    game = Game.from_position("5s/6s/7s/8s 0 0 - - - -", rules="standard")
    assert forced_winner(game) == 0
    # Seat 0 must play the 5♠ on its lead... unless it is another seat's lead.
    game = Game.from_position("5s/6s/7s/8s 1 0 - - - -", rules="standard")
    assert forced_winner(game) == 1


def test_a_position_beyond_the_node_budget_is_too_large() -> None:
    game = Game("standard", seed=7)
    with pytest.raises(TooLargeError, match="too large to solve"):
        Solver(nodes=200).solve(game)


def test_the_solver_refuses_a_seat_that_is_out_and_a_bad_budget() -> None:
    game = Game.from_position("-/3s2h/-/Ac4d 1 0 - - - 02", rules="standard")
    with pytest.raises(ValueError, match="seat 0 is out"):
        solve(game, 0)
    with pytest.raises(ValueError, match="seat must be 0-3, not 7"):
        solve(game, 7)
    with pytest.raises(ValueError, match="node budget"):
        Solver(nodes=0)
