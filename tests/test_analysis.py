"""Valuing decisions from a seat's own information, and reviewing whole games."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from tienlen import Game, Rules
from tienlen.analysis.decisions import (
    OFFER_SWAPS,
    Estimate,
    OfferTrade,
    analyse_decision,
    format_option,
)
from tienlen.analysis.review import LABELS, label, review_decision, review_game
from tienlen.match_record import read_games
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.bots.analysis import planner
from tienlen.players.bots.determinize import Determinizer
from tienlen.players.bots.heuristic import HeuristicBot
from tienlen.players.toolkit import play_out
from tienlen.record import GameRecord, apply_action
from tienlen.scoring import outcome_of, score_outcome


def finished(game: Game, *first: str) -> GameRecord:
    """The record of ``game`` after the plays ``first``, played on by the heuristic bot."""
    for move in first:
        game.play(move)
    bot = HeuristicBot()
    play_out(game, lambda g, legal: bot.choose(observe(g, g.turn), legal, Budget()))
    return GameRecord.from_game(game)


def values_seen(obs_game: Game, seat: int) -> list[tuple[str, float, float, float, int]]:
    values = analyse_decision(observe(obs_game, seat), samples=16, seed=4)
    return [
        (format_option(v.choice, ascii=True), v.win.mean, v.place.mean, v.points.mean, v.samples)
        for v in values.choices
    ]


def test_the_values_never_read_the_other_seats_hidden_cards() -> None:
    # Seats 1 and 3 hold different cards in the two games (the same counts); seat 0 sees
    # the same table in both: its analysis must come out the same, deal for deal.
    a = Game.from_position(
        "4s6s9hJdQs2c/5c5d8s/7c7h10sKc/3hAdAh2s 0 1 1:3s,2:3d p3x3 - -", rules="standard"
    )
    b = Game.from_position(
        "4s6s9hJdQs2c/3hAd2s/7c7h10sKc/5c5d8sAh 0 1 1:3s,2:3d p3x3 - -", rules="standard"
    )
    assert observe(a, 0) == observe(b, 0)
    assert a.hand_masks != b.hand_masks
    assert values_seen(a, 0) == values_seen(b, 0)


def test_the_same_observation_and_seed_give_the_same_values_and_another_seed_other_deals() -> None:
    game = Game("standard", seed=11)
    seat = game.turn
    first = analyse_decision(observe(game, seat), samples=8, seed=1)
    again = analyse_decision(observe(game, seat), samples=8, seed=1)
    other = analyse_decision(observe(game, seat), samples=8, seed=2)
    wins = [v.wins for v in first.choices]
    assert wins == [v.wins for v in again.choices]
    assert wins != [v.wins for v in other.choices]


def test_going_out_at_once_is_worth_a_sure_win() -> None:
    game = Game.from_position("7d8d9d/3c4c/Kd2h/6h6s 0 0 - - - -", rules="standard")
    values = analyse_decision(observe(game, 0), samples=8)
    best = values.best
    assert format_option(best.choice, ascii=True) == "7d 8d 9d"
    assert (best.win, best.place) == (Estimate(1.0, 0.0), Estimate(1.0, 0.0))
    assert values.stake == "first"


def test_analysis_is_refused_out_of_turn_and_once_the_game_is_over() -> None:
    game = Game("standard", seed=3)
    other = (game.turn + 1) % 4
    with pytest.raises(ValueError, match=f"seat {other} is not to act"):
        analyse_decision(observe(game, other))
    over = Game.from_position("-/4c/5d/6h 1 0 - - - 0123", rules="standard")
    with pytest.raises(ValueError, match="the game is over"):
        analyse_decision(observe(over, 0))


# S2 won the last game: it gives S3 two cards and takes S3's two highest; S0, the
# runner-up, gives S1 one card. S2 holds a quad of 9s (a bomb) and low loose cards.
SAN_JOSE = dataclasses.replace(Rules.preset("standard"), trading="san-jose")
DEAL = [
    "3s 4d 5h 6d 6h 7s 8s 10s 10d Qd Kd Ad 2h",
    "5d 7c 7h 8d 8h 10h Jc Qs Qc Kh As 2s 2c",
    "3d 4h 5s 6c 7d 9s 9c 9d 9h Jd Qh Ks 2d",
    "3c 3h 4s 4c 5c 6s 8c 10c Js Jh Kc Ac Ah",
]


def san_jose_game(deal: list[str], *gives: str) -> Game:
    game = Game(SAN_JOSE, hands=deal, previous_finish=[2, 0, 1, 3])
    for give in gives:
        game.play(give)
    return game


@pytest.mark.slow  # 128 deals for each of 78 gives
def test_a_give_that_breaks_a_bomb_is_labelled_worse_than_one_of_loose_low_cards() -> None:
    labels = {}
    for give in ("3d 4h", "3d 9h"):
        first = review_decision(finished(san_jose_game(DEAL, give)), 1, samples=64)
        assert (first.number, format_option(first.played, ascii=True)) == (1, give)
        assert len(first.values.choices) == 78  # every 2 of S2's 13 cards
        labels[give] = first.label
    assert LABELS.index(labels["3d 9h"]) > LABELS.index(labels["3d 4h"])
    assert labels["3d 9h"] not in ("best", "good")


def test_the_value_of_a_give_never_reads_the_hidden_cards_or_the_give_not_seen() -> None:
    # S0 gives after S2: it has not seen S2's give, nor S1's and S3's hands. In the second
    # game S1 and S3 hold each other's cards and S2 gave other cards.
    swapped = [DEAL[0], DEAL[3], DEAL[2], DEAL[1]]
    a = san_jose_game(DEAL, "3d 4h")
    b = san_jose_game(swapped, "9s 9c")
    assert observe(a, 0) == observe(b, 0) and a.hand_masks != b.hand_masks
    assert values_seen(a, 0) == values_seen(b, 0)
    assert len(values_seen(a, 0)) == 13


def test_a_seat_that_could_go_out_at_once_and_did_not_blundered() -> None:
    game = Game("standard", hands=["3s 4s 5s", "6c 7c", "9d 2h", "Kd Ks"])
    record = finished(game, "3s")
    review = review_game(record, seats=[0], samples=24)
    first = review.decisions[0]
    assert (first.number, first.seat, str(first.played)) == (1, 0, "3♠")
    assert format_option(first.best, ascii=True) == "3s 4s 5s"
    assert first.label == "blunder"
    assert first.exact == {first.best.mask: True, first.played.mask: False}


def test_the_one_winning_choice_is_best_and_the_other_is_not() -> None:
    hands = ["3s 2h", "5c", "7h", "9c"]
    right = review_game(finished(Game("standard", hands=hands, leader=0), "2h"), seats=[0])
    wrong = review_game(finished(Game("standard", hands=hands, leader=0), "3s"), seats=[0])
    assert right.decisions[0].label == "best"
    assert wrong.decisions[0].label == "blunder"
    assert str(wrong.decisions[0].best) == "2♥"
    assert right.accuracy(0) == 100.0
    assert wrong.accuracy(0) == 0.0


@pytest.mark.parametrize(
    ("mean", "error", "expected"),
    [
        (0.0, 0.0, "best"),
        (0.04, 0.0, "good"),
        (0.12, 0.04, "good"),  # 0.12 - 2 x 0.04 = 0.04: not sure to be an inaccuracy
        (0.07, 0.01, "inaccuracy"),
        (0.15, 0.02, "mistake"),
        (0.30, 0.04, "blunder"),
    ],
)
def test_labels_go_by_the_loss_less_two_standard_errors(
    mean: float, error: float, expected: str
) -> None:
    assert label(Estimate(mean, error)) == expected


def test_a_review_lists_every_decision_with_more_than_one_choice() -> None:
    game = Game("standard", seed=5)
    bot = HeuristicBot()
    play_out(game, lambda g, legal: bot.choose(observe(g, g.turn), legal, Budget()))
    record = GameRecord.from_game(game)
    review = review_game(record, seats=[2], samples=4)
    replay = record.new_game()
    expected = []
    for number, action in enumerate(record.actions, 1):
        if replay.turn == 2 and replay.phase == "play" and len(replay.legal_plays()) > 1:
            expected.append(number)
        apply_action(replay, action)
    assert [d.number for d in review.decisions] == expected
    data = review.to_dict()
    assert data["players"][0]["seat"] == 2
    assert len(data["players"][0]["curve"]) == len(expected)
    for d in data["decisions"]:
        assert {c["choice"] for c in d["choices"]} >= {d["choice"], d["best"]}


def test_points_count_the_cards_held_when_the_first_seat_went_out_before_the_decision() -> None:
    # Per-card scoring: every seat pays the first one out a point per card it held then.
    # S1 went out holding nothing else while S2 held 2 cards: S2's points are -2 whatever
    # it chooses now, though it holds 2 cards still.
    rules = dataclasses.replace(Rules.preset("standard"), scoring="per-card")
    game = Game(rules, hands=["3s 4s 9h Kd", "5c", "6d 7d", "8c 2s"])
    game.play("3s")
    game.play("5c")
    assert game.finish_order == (1,) and game.turn == 2
    values = analyse_decision(observe(game, 2), samples=8)
    assert values.stake == "not last"
    assert {v.points for v in values.choices} == {Estimate(-2.0, 0.0)}


def test_with_two_seats_left_the_solver_values_the_endgame_the_playouts_misplay() -> None:
    # The third game of a saved match, before its action 66: S0 has seen every card played,
    # so it knows S3 holds the rest. Passing (under stacking: taking the pile) still wins
    # with best play, though the heuristic playouts lose it from there every time.
    saved = Path(__file__).parent / "fixtures" / "saved" / "san-jose-match.json"
    record = read_games(saved.read_bytes())[2]
    game = record.new_game()
    for action in record.actions[:65]:
        apply_action(game, action)
    assert game.position.format() == "3h4c5s5h7hJh/-/-/3c4s4d8s 0 2 0:7s p3x3 - 21"
    values = analyse_decision(observe(game, 0), samples=8)
    assert values.stake == "not last"
    assert {format_option(v.choice, ascii=True) for v in values.choices} == {"7h", "Jh", "pass"}
    for v in values.choices:
        assert (v.win, v.place) == (Estimate(1.0, 0.0), Estimate(3.0, 0.0))


def test_points_count_a_chop_made_before_the_decision() -> None:
    # Seat 0 cut seat 1's 2♥ with a pair run; seat 1 can only pass, and seat 0 then leads
    # its last card: whatever the deal, seat 1's points are the game's, the cut paid.
    game = Game("proplay", hands=["3s 3c 4s 4c 5s 5c 9h", "2h 6d 7d", "8c 10c", "Jd Qd"], leader=1)
    for move in ("2h", "pass", "pass", "3s 3c 4s 4c 5s 5c"):
        game.play(move)
    values = analyse_decision(observe(game, 1), samples=8)
    finished = game.copy()
    for move in ("pass", "9h"):
        finished.play(move)
    outcome = outcome_of(finished)
    assert outcome.chops  # the cut is scored...
    paid = score_outcome(game.rules, outcome)[1]
    uncut = score_outcome(game.rules, dataclasses.replace(outcome, chops=()))[1]
    assert paid < uncut  # ... and seat 1 pays for it
    assert {v.points for v in values.choices} == {Estimate(float(paid), 0.0)}


def test_accepting_a_trade_of_a_two_for_a_three_is_labelled_worse_than_refusing() -> None:
    # Mutual trading: S0 offers its 3♠ for S1's 2♠. S1 saw the offer, not the other hands;
    # its answer is valued, and accepting is the worse one.
    mutual = dataclasses.replace(Rules.preset("standard"), trading="mutual")
    labels = {}
    for answer in ("accept", "refuse"):
        game = Game(mutual, hands=DEAL)
        assert game.phase == "trading" and game.turn == 0
        game.offer_trade(1, "3s", "2s")
        observed = analyse_decision(observe(game, 1), samples=16)
        assert {format_option(v.choice) for v in observed.choices} == {"accept", "pass"}
        if answer == "accept":
            game.accept_trade()
        else:
            game.play("pass")
        first = review_decision(finished(game), 2, samples=32)  # 1: the offer, 2: the answer
        assert format_option(first.played) == ("accept" if answer == "accept" else "pass")
        labels[answer] = first.label
    assert labels["refuse"] == "best" and labels["accept"] != "best"


MUTUAL = dataclasses.replace(Rules.preset("standard"), trading="mutual")


def offer_2h_for_3c(deal: list[str]) -> Game:
    """S0, first to offer, offers S3 its 2♥ for the 3♣ (S3 holds it in ``DEAL``)."""
    game = Game(MUTUAL, hands=deal)
    assert game.phase == "trading" and game.turn == 0
    return game


@pytest.mark.slow  # 256 deals for each of 19 offers
def test_offering_a_two_for_a_three_is_labelled_worse_than_the_best_choice() -> None:
    game = offer_2h_for_3c(DEAL)
    game.offer_trade(3, "2h", "3c")
    game.accept_trade()  # S3 takes the 2 for its 3
    first = review_decision(finished(game), 1, samples=256)
    assert format_option(first.played, ascii=True) == "offer 2h to 3 for 3c"
    offers = [v.choice for v in first.values.choices if isinstance(v.choice, OfferTrade)]
    assert len(offers) == OFFER_SWAPS * 3 + 1  # the best swaps to each seat, and the one made
    assert first.best != first.played
    assert first.loss.mean > 2 * first.loss.error
    assert first.label != "best"


def test_the_value_of_an_offer_never_reads_the_hidden_cards() -> None:
    # The partner's answer comes from its hand in each sampled deal: S1 and S3 holding each
    # other's cards changes nothing S0 sees, nor its values.
    swapped = [DEAL[0], DEAL[3], DEAL[2], DEAL[1]]
    a, b = offer_2h_for_3c(DEAL), offer_2h_for_3c(swapped)
    assert observe(a, 0) == observe(b, 0)
    assert values_seen(a, 0) == values_seen(b, 0)
    assert any(name.startswith("offer") for name, *_ in values_seen(a, 0))


def test_a_review_values_every_offer_and_answer_of_a_trading_game() -> None:
    game = offer_2h_for_3c(DEAL)
    game.offer_trade(3, "2h", "3c")
    game.play("pass")  # S3 refuses
    record = finished(game)
    review = review_game(record, seats=[0, 3], samples=4)
    offer, answer = review.decisions[:2]
    kinds = [record.actions[d.number - 1].kind for d in (offer, answer)]
    assert kinds == ["offer", "refuse"]
    named = [c["choice"] for c in offer.to_dict()["choices"]]
    assert "pass" in named and "offer 2h to 3 for 3c" in named
    assert {c["choice"] for c in answer.to_dict()["choices"]} == {"accept", "pass"}


def test_the_deals_sampled_for_the_analysis_leave_tidier_hands_than_random_ones() -> None:
    # Of four random deals the tidiest is kept: the other seats' hands are cheaper to play
    # out (the planner's cost), as the hands players keep are.
    obs = observe(Game("standard", seed=8), 0)
    cost = planner(obs.rules).cost

    def mean_cost(deals: Determinizer) -> float:
        rng = random.Random(5)
        hands = [deals.sample(rng) for _ in range(40)]
        return sum(cost(h) for deal in hands for s, h in enumerate(deal) if s) / len(hands)

    tidy = mean_cost(Determinizer(obs, guesses=4, tidy=True))
    random_deals = mean_cost(Determinizer(obs, guesses=1))
    assert tidy < random_deals - 1.0  # (about 18.6 against 21.2)
