"""Matches: rotation between games, scoring, ends, reproducibility."""

from __future__ import annotations

import random

import pytest

from tienlen import Game, Match, Rules, score
from tienlen.match import parse_seed


def finish(game: Game, rng: random.Random) -> None:
    """Play the game to its end with random legal moves (trading: nobody offers)."""
    while not game.is_over:
        if game.phase == "trading":
            game.play("pass")
            continue
        game.apply_unchecked(rng.choice(game.legal_moves()))


def play_match(match: Match, seed: int = 0, max_games: int = 50) -> None:
    rng = random.Random(seed)
    for _ in range(max_games):
        finish(match.game, rng)
        if match.is_over:
            return
        match.new_game()
    raise AssertionError("the match did not end")


def test_loser_deals_and_winner_leads_the_next_game() -> None:
    # 003: "after that, the loser of each game deals the next"; "In every later game, the
    # winner of the previous game starts with any combination."
    match = Match("standard", games=4, seed=5)
    rng = random.Random(1)
    first = match.game
    assert first.setup.leader is None  # the 3♠ rule applies to the first game
    for _ in range(3):
        finish(match.game, rng)
        previous = match.record_game()
        game = match.new_game()
        assert match.dealer == previous.loser
        assert game.leader == previous.winner
        assert game.setup.leader == previous.winner  # a free lead
        assert game.first_lead_rule is None
    finish(match.game, rng)
    assert match.is_over
    dealers = [r.dealer for r in match.results]
    losers = [r.loser for r in match.results]
    assert dealers[1:] == losers[:-1]


def test_as_first_rule_sets_start_every_game_from_the_lowest_card() -> None:
    # hawaii (004): "The first play of any game must contain the lowest card".
    match = Match("hawaii", games=3, seed=2)
    rng = random.Random(2)
    for _ in range(2):
        finish(match.game, rng)
        game = match.new_game()
        assert game.setup.leader is None
        assert game.first_lead_rule is not None
        # "... as a single, pair, or sequence": every game's opening, not just the first's.
        assert {m.kind for m in game.legal_plays()} <= {"single", "pair", "straight"}


def test_games_limit_ends_the_match() -> None:
    match = Match("pagat", games=3, seed=9)
    play_match(match)
    assert len(match.results) == 3
    assert [r.number for r in match.results] == [1, 2, 3]
    with pytest.raises(ValueError, match="match is over"):
        match.new_game()


def test_target_ends_the_match_when_a_seat_reaches_it() -> None:
    # 003: "until someone reaches 10 points".
    match = Match("standard", target=10, seed=4)
    play_match(match)
    totals = [0, 0, 0, 0]
    for result in match.results[:-1]:
        totals = [t + d for t, d in zip(totals, result.deltas, strict=True)]
        assert max(totals) < 10  # not over before the last game
    assert max(match.scores) >= 10
    assert match.standings()[0][1] == max(match.scores)


def test_scores_are_the_sum_of_the_game_deltas() -> None:
    match = Match("standard", games=5, seed=11)
    play_match(match)
    sums = tuple(sum(r.deltas[s] for r in match.results) for s in range(4))
    assert match.scores == sums
    assert sum(match.scores) == 0


def test_scoring_happens_once_whatever_is_asked() -> None:
    match = Match("standard", seed=3)
    finish(match.game, random.Random(3))
    first = match.record_game()
    again = match.record_game()
    assert first == again
    assert len(match.results) == 1
    assert match.scores == first.deltas


def test_new_game_needs_a_finished_game() -> None:
    match = Match("standard", seed=3)
    with pytest.raises(ValueError, match="not over"):
        match.new_game()
    with pytest.raises(ValueError, match="not over"):
        match.record_game()


def test_unlimited_match_never_ends_by_itself() -> None:
    match = Match("standard", seed=1)
    rng = random.Random(1)
    for _ in range(3):
        finish(match.game, rng)
        assert not match.is_over
        match.new_game()
    assert match.number == 4


def test_pike_two_players_play_the_unused_hands_next() -> None:
    # 004 (UT Pike): "two hands are used for a first game, and then the remaining two hands
    # are used for the second game without any reshuffling or dealing."
    match = Match(Rules.preset("pike", players=2), seed=8)
    rng = random.Random(8)
    unused = match.game.unused_hands
    assert len(unused) == 2
    first_cards = {c for h in match.game.dealt for c in h}
    finish(match.game, rng)
    second = match.new_game()
    assert second.setup.hands == unused
    assert not first_cards & {c for h in second.dealt for c in h}
    assert match.game_seed is None
    finish(second, rng)
    third = match.new_game()  # a fresh deal after the two halves
    assert match.game_seed is not None
    assert len(third.unused_hands) == 2
    assert third.setup.hands != unused


def test_pike_three_players_always_deal_afresh() -> None:
    # Four hands are dealt and three played: the one left over is not a game, so every game
    # is a fresh deal from its own seed, none of them the hand set aside the game before.
    rules = Rules.preset("pike", players=3)
    match = Match(rules, seed=8)
    rng = random.Random(0)
    for number in range(2, 5):
        (set_aside,) = match.game.unused_hands
        finish(match.game, rng)
        game = match.new_game()
        assert match.game_seed == match.seed_of(number)
        assert game.setup.hands == Game(rules, seed=match.seed_of(number)).setup.hands
        assert set_aside not in game.setup.hands
        assert len(game.unused_hands) == 1


def test_san_jose_exchange_from_the_second_game() -> None:
    # 001 (Pang): "the loser gives their two highest cards to the winner ...".
    match = Match(Rules.preset("pang", trading="san-jose"), seed=6)
    assert match.game.phase == "play"
    finish(match.game, random.Random(6))
    previous = match.record_game()
    game = match.new_game()
    assert game.phase == "exchange"
    assert game.setup.previous_finish == previous.finish_order
    assert game.turn == previous.winner  # the winner chooses the cards to give back


def test_seeded_matches_repeat() -> None:
    a, b = Match("vietcong", games=3, seed="club"), Match("vietcong", games=3, seed="club")
    play_match(a, seed=1)
    play_match(b, seed=1)
    assert a.results == b.results
    assert a.dealer == b.dealer


def test_the_first_dealer_is_drawn_from_the_seed() -> None:
    dealers = {Match("standard", seed=s).dealer for s in range(40)}
    assert len(dealers) == 4
    assert Match("standard", seed=7).dealer == Match("standard", seed=7).dealer


def test_each_game_has_its_own_seed() -> None:
    match = Match("standard", games=2, seed=1)
    assert match.seed_of(1) != match.seed_of(2)
    first = match.game.dealt
    finish(match.game, random.Random(0))
    match.new_game()
    assert match.game.dealt != first


def test_unseeded_match_plays() -> None:
    match = Match("lu", games=2)
    play_match(match)
    assert len(match.results) == 2


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="games"):
        Match("standard", games=0)
    with pytest.raises(ValueError, match="target"):
        Match("standard", target=0)
    with pytest.raises(ValueError, match="unknown rule set"):
        Match("nope")


@pytest.mark.parametrize(
    ("text", "seed"),
    [("7", 7), ("-12", -12), ("007", 7), ("club night", "club night"), ("7a", "7a")],
)
def test_a_typed_seed_of_digits_is_a_number(text: str, seed: int | str) -> None:
    assert parse_seed(text) == seed


def test_a_number_and_its_digits_as_text_deal_differently() -> None:
    # why every reader of seeds (the apps, records) must use the one parse_seed
    assert Game("standard", seed=7).hand_masks != Game("standard", seed="7").hand_masks


def test_card_debts_are_recorded_and_carried_to_the_next_game() -> None:
    # 004: "The loser owes the winner a 2 if he still have a 2 in his hand when the game is
    # finished."
    rules = Rules.preset("standard", loser_owes_twos=True, chop_debts="stacking")
    match = Match(rules, games=6, seed=2)
    rng = random.Random(2)
    seen = 0
    for _ in range(5):
        finish(match.game, rng)
        result = match.record_game()
        loser_twos = sum(1 for c in match.game.hands[result.loser] if c.rank == 12)
        owed = [d for d in result.debts if d.reason.startswith("the loser")]
        assert [(d.debtor, d.creditor, d.cards) for d in owed] == (
            [(result.loser, result.winner, loser_twos)] if loser_twos else []
        )
        seen += len(result.debts)
        game = match.new_game()
        assert match.debts == result.debts == game.setup.debts  # settled at this deal
    assert seen, "some game of the match should leave a debt"


def test_a_waiting_player_takes_the_losers_spot() -> None:
    # 004 UT Pike: "a non-player must call "loser's spot" and may replace the losing player
    # of the current game in the following game. New person must always shuffle and deal."
    match = Match("pike", games=4, seed=4, waiting=2)
    assert match.seating == (0, 1, 2, 3) and match.waiting == (4, 5)
    rng = random.Random(4)
    for _ in range(3):
        finish(match.game, rng)
        result = match.record_game()
        seating, line = match.seating, match.waiting
        game = match.new_game()
        loser = result.loser
        assert match.seating[loser] == line[0]  # the first in line sits in the loser's seat
        assert match.waiting == (*line[1:], seating[loser])  # the loser waits at the end
        assert match.dealer == loser  # the newcomer's seat deals
        # 004: "If a player leaves the game and a new player joins, it starts by who has
        # the lowest card again."
        assert game.setup.leader is None
    finish(match.game, rng)
    assert match.is_over
    scores = match.scores
    assert len(scores) == 6 and sum(scores) == 0
    for person in range(6):
        assert scores[person] == sum(
            r.deltas[r.seating.index(person)] for r in match.results if person in r.seating
        )


def test_the_losers_spot_refuses_card_hand_overs() -> None:
    with pytest.raises(ValueError, match="loser's spot"):
        Match(Rules.preset("pang", trading="san-jose"), waiting=1)
    with pytest.raises(ValueError, match="waiting must be"):
        Match("pike", waiting=-1)


def test_guarantees_are_paid_with_the_game() -> None:
    # 004 Pro-Play: "If the Guaransheeding player is successful, the Guaransheeding player
    # will receive an additional point from each player in the game. If unsuccessful, the
    # Guaransheeding player must give 2 point to each player in the game."
    rules = Rules.preset("proplay", guarantees=True)
    match = Match(rules, games=2, seed=8)
    match.guarantee(0)
    match.guarantee(1, blind=True)
    with pytest.raises(ValueError, match="already guaranteed"):
        match.guarantee(0)
    finish(match.game, random.Random(8))
    result = match.record_game()
    winner = result.winner
    plain = score(match.game)
    bonus = [0, 0, 0, 0]
    for seat, each in ((0, 1), (1, 2)):
        for other in range(4):
            if other == seat:
                continue
            amount = each if seat == winner else -2
            bonus[seat] += amount
            bonus[other] -= amount
    assert result.guarantees == ((0, False), (1, True))
    assert result.deltas == tuple(p + b for p, b in zip(plain, bonus, strict=True))
    assert match.new_game() and match.guarantees == {}


def test_guarantees_need_the_knob_and_an_unplayed_game() -> None:
    with pytest.raises(ValueError, match="no guarantees"):
        Match("proplay").guarantee(0)
    match = Match(Rules.preset("proplay", guarantees=True), seed=1)
    match.game.play(match.game.legal_moves()[0])
    with pytest.raises(ValueError, match="before play begins"):
        match.guarantee(2)
