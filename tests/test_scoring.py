"""Scoring schemes, each checked on small hand-made games computed by hand from the seeds.

Seats in the 003 examples: Anna 0, Ben 1, Carla 2, Dan 3.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from tienlen import RULESETS, Game, Rules, score
from tienlen.scoring import (
    SCHEMES,
    Outcome,
    ScoredChop,
    card_debts,
    cong_seats,
    outcome_of,
    payments,
    proplay_payments,
    score_outcome,
    uncounted_fields,
)

ANNA, BEN, CARLA, DAN = range(4)


def played(rules: Rules, hands: list[str], *moves: str) -> Game:
    game = Game(rules, hands=hands)
    for m in moves:
        game.play(m)
    assert game.is_over, "the scripted game must end"
    return game


def ben_dan_anna_carla(rules: Rules) -> Game:
    """003: "Ben goes out first (+2), then Dan (+1), then Anna (−1). Carla is left holding
    cards (−2)." Carla and Dan have not played a card when Ben goes out."""
    return played(
        rules,
        ["3s 9d", "2h", "4d 5d", "Ks"],
        "3s",  # Anna leads the 3♠
        "2h",  # Ben goes out first
        "pass",
        "pass",
        "pass",  # Ben is out, so Carla (next still in) leads
        "4d",
        "Ks",  # Dan goes out second
        "pass",
        "pass",  # Dan is out: Anna leads
        "9d",  # Anna third; Carla is left holding cards
    )


def test_scorepad_four_players_is_the_003_example() -> None:
    game = ben_dan_anna_carla(Rules.preset("standard"))
    assert game.finish_order == (BEN, DAN, ANNA, CARLA)
    assert score(game) == (-1, +2, -2, +1)


def test_scorepad_three_players_last_pays_each_other_player() -> None:
    # 003: "With 2 or 3 players, the last player scores −1 for each other player, and
    # everyone else +1."
    rules = Rules.preset("standard", players=3)
    game = played(rules, ["3s 9d", "2h", "4d 5d"], "3s", "2h", "pass", "pass", "4d", "9d")
    assert game.finish_order == (1, 0, 2)
    assert score(game) == (1, 1, -2)


def test_scorepad_two_players() -> None:
    game = played(Rules.preset("standard", players=2), ["3s", "4s"], "3s")
    assert score(game) == (1, -1)


def single_card_race(rules: Rules) -> Game:
    """Every seat holds one card, ascending from seat 0: seats go out in seat order."""
    ranks = ["3s", "4s", "5s", "6s", "7s", "8s", "9s", "10s"][: rules.players]
    return played(rules, ranks, *ranks[:-1])


def test_scorepad_five_players_extends_the_ladder() -> None:
    game = single_card_race(Rules.preset("standard", players=5, hand_size=10))
    assert game.finish_order == (0, 1, 2, 3, 4)
    assert score(game) == (2, 1, 0, -1, -2)


def test_scorepad_eight_players_extends_the_ladder() -> None:
    game = single_card_race(Rules.preset("double-deck-13"))
    assert score(game) == (4, 3, 2, 1, -1, -2, -3, -4)


def test_stake_loser_pays_each_other_player_one() -> None:
    # 000: "the loser pays each other player a fixed stake".
    game = ben_dan_anna_carla(Rules.preset("pagat"))
    assert score(game) == (1, 1, -3, 1)


def test_cong_doubles_the_stake_of_a_player_who_never_played() -> None:
    # 003: "a player who is still holding all 13 cards when someone goes out pays double".
    game = ben_dan_anna_carla(Rules.preset("pagat", cong=True))
    assert cong_seats(game) == {CARLA, DAN}  # neither had played when Ben went out
    assert score(game) == (2, 2, -6, 2)


def test_cong_doubles_scorepad_payments_of_the_cong_player_only() -> None:
    game = ben_dan_anna_carla(Rules.preset("standard", cong=True))
    # Carla (cóng) pays Ben 2 × 2; Anna (played the 3♠) pays Dan 1; Dan pays nothing.
    assert score(game) == (-1, 4, -4, 1)


def test_got_to_get_in_is_paid_by_each_player_who_never_played() -> None:
    # 004: "each player who has not played forfeits two points to the player who is going out".
    game = ben_dan_anna_carla(Rules.preset("standard", got_to_get_in=2))
    assert cong_seats(game) == {CARLA, DAN}
    plain = score(ben_dan_anna_carla(Rules.preset("standard")))
    got = [p for p in payments(game) if p.reason.startswith("got to get in")]
    assert [(p.payer, p.payee, p.amount) for p in got] == [(CARLA, BEN, 2), (DAN, BEN, 2)]
    assert score(game) == (plain[0], plain[1] + 4, plain[2] - 2, plain[3] - 2)


def test_per_card_each_pays_the_winner_one_per_card_left() -> None:
    # 001 (Lu): "the other players pay the winner one stake for each card they have left".
    game = ben_dan_anna_carla_first_out(Rules.preset("lu"))
    assert game.finish_order == (BEN, DAN, ANNA, CARLA)  # fewest cards, then turn order
    assert score(game) == (-1, 4, -2, -1)


def ben_dan_anna_carla_first_out(rules: Rules) -> Game:
    return played(rules, ["3s 9d", "2h", "4d 5d", "Ks"], "3s", "2h")


def test_per_card_with_cong() -> None:
    game = ben_dan_anna_carla_first_out(Rules.preset("lu", cong=True))
    assert score(game) == (-1, 7, -4, -2)


def test_winner_takes_all_pays_two_or_four() -> None:
    # 003: "each other player pays 2 points to the winner (4 if still holding all 13 cards)".
    rules = Rules.preset("standard", scoring="winner-takes-all", end_at_first_out=True)
    game = ben_dan_anna_carla_first_out(rules)
    assert score(game) == (-2, 10, -4, -4)


def test_proplay_points_penalties_and_a_recut() -> None:
    """x = 2. Ben's black 2 is cut by Carla (+x), whose cutup Dan re-cuts (+2 · x); Dan goes
    out. Anna keeps a pair run (−1.5x); Ben keeps a red 2 (−2x), four 4s (−3x) and 12
    cards (pays 2x); Carla keeps a black 2 (−x)."""
    rules = Rules.preset("proplay")
    game = played(
        rules,
        [
            "3s 5d 5h 6d 6h 7d 7h 9h",
            "2s 2h 4s 4c 4d 4h 8d 9d 10d Jd Qd Kd Ad",
            "7s 7c 8s 8c 9s 9c 2c Jh",
            "10s 10c Js Jc Qs Qc Ks",
        ],
        "3s",
        "2s",
        "7s 7c 8s 8c 9s 9c",
        "10s 10c Js Jc Qs Qc",
        "pass",
        "pass",
        "pass",
        "Ks",
    )
    assert game.finish_order[0] == DAN
    assert score(game) == (-5, -16, -6, 27)
    reasons = {(p.payer, p.payee, p.amount) for p in payments(game)}
    assert (BEN, CARLA, 2) in reasons  # cutting a black 2
    assert (CARLA, DAN, 4) in reasons  # re-cutting doubles Carla's 2


def test_proplay_cutting_a_pair_of_twos_earns_per_two() -> None:
    rules = Rules.preset("proplay")
    game = played(
        rules,
        ["3s 3c 9h", "2s 2h Qd", "5s 5c 6s 6c 7s 7c 8s 8c Ks", "10d Jd"],
        "3s 3c",
        "2s 2h",
        "5s 5c 6s 6c 7s 7c 8s 8c",  # black 2 cut: x; red 2 cut: 1.5x
        "pass",
        "pass",
        "pass",
        "Ks",
    )
    assert score(game) == (-2, -7, 11, -2)


def test_proplay_bombing_a_red_two_with_a_quad() -> None:
    rules = Rules.preset("proplay")
    game = played(
        rules,
        ["3s 9h", "2h Qd", "5s 5c 5d 5h Ks", "10d Jd"],
        "3s",
        "2h",
        "5s 5c 5d 5h",  # bombing a red 2: 3x
        "pass",
        "pass",
        "pass",
        "Ks",
    )
    assert score(game) == (-2, -8, 12, -2)


def test_proplay_bet_must_be_even() -> None:
    game = played(Rules.preset("proplay"), ["3s", "4s", "5s", "6s"], "3s")
    with pytest.raises(ValueError, match="even"):
        proplay_payments(outcome_of(game), bet=3)


def test_every_scheme_is_listed_and_described() -> None:
    assert set(SCHEMES) == {"stake", "scorepad", "per-card", "winner-takes-all", "proplay"}
    assert all(s.summary for s in SCHEMES.values())


def test_unfinished_game_cannot_be_scored() -> None:
    with pytest.raises(ValueError, match="not over"):
        score(Game("standard", seed=1))


def random_game(rules: Rules, seed: int) -> Game:
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over:
        if game.phase == "trading":
            game.play("pass")
            continue
        game.apply_unchecked(rng.choice(game.legal_moves()))
    return game


@pytest.mark.parametrize("name", RULESETS)
@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_every_scheme_is_zero_sum_under_every_preset(name: str, scheme: str) -> None:
    for seed in range(3):
        rules = Rules.preset(name, scoring=scheme, cong=bool(seed % 2), got_to_get_in=seed)
        game = random_game(rules, seed)
        points = score(game)
        assert sum(points) == 0
        assert len(points) == rules.players
        if scheme != "proplay":  # the winner never loses points outside proplay's chops
            assert points[game.finish_order[0]] > 0


# --- score extras and card debts ---------------------------------------------------------
def test_score_extras_add_to_any_scheme() -> None:
    # 004 Pro-Play: "If a player has an unused red 2 in his/her hand at the end of the game,
    # 2x additional points are lost." The loser keeps 2♣ and 2♦: x + 2x, with x = 2.
    hands = ["3s 4s 2c 2d", "5d", "6d", "7d"]
    base = played(Rules.preset("pagat"), hands, "3s", "5d", "6d", "7d")
    extra = played(
        Rules.preset("pagat", score_extras=("twos-left",)), hands, "3s", "5d", "6d", "7d"
    )
    assert base.finish_order == extra.finish_order == (1, 2, 3, 0)
    delta = [a - b for a, b in zip(score(extra), score(base), strict=True)]
    assert delta == [-6, 6, 0, 0]
    reasons = [p.reason for p in payments(extra) if p.amount != 1]
    assert reasons == ["unused black 2 (2♣)", "unused red 2 (2♦)"]


def test_proplay_preset_is_the_bet_plus_its_extras() -> None:
    rules = Rules.preset("proplay")
    assert rules.score_extras == ("twos-left", "bombs-left", "chop-twos")
    game = played(rules, ["3s 2h", "4s", "5s 5c", "6s 6c"], "3s", "4s")
    bare = played(
        Rules.preset("proplay", score_extras=()), ["3s 2h", "4s", "5s 5c", "6s 6c"], "3s", "4s"
    )
    # Seat 0 keeps the 2♥: 2x more to the winner (seat 1) than the bet alone.
    assert score(bare) == (-2, 6, -2, -2)
    assert score(game) == (-6, 10, -2, -2)


def test_chop_debts_count_the_last_chain() -> None:
    # 004: "the last person to be chopped owes the person who chopped them card(s) in the
    # next round"; a quad on a single 2, then a higher quad on that quad.
    hands = ["3s 4d", "2s 9h", "5s 5c 5d 5h Kd", "7s 7c 7d 7h 8d"]
    moves = ["3s", "2s", "5s 5c 5d 5h", "7s 7c 7d 7h", "pass", "pass", "pass", "8d"]
    for mode, cards in (("stacking", 2), ("doubling", 2), ("no-stacking", 1)):
        game = Game(Rules.preset("standard", chop_debts=mode), hands=hands)
        for m in moves:
            game.play(m)
        while not game.is_over:
            game.play(game.legal_moves()[0])
        assert [tuple(d[:3]) for d in card_debts(game)] == [(2, 3, cards)], mode
    assert card_debts(random_game(Rules.preset("standard"), 1)) == []


def test_card_debts_need_a_finished_game() -> None:
    with pytest.raises(ValueError, match="not over"):
        card_debts(Game("standard", seed=1))


@pytest.mark.parametrize("name", RULESETS)
def test_score_extras_are_zero_sum_under_every_preset(name: str) -> None:
    extras = ("chop-twos", "twos-left", "bombs-left", "three-spades-last")
    for seed in range(3):
        game = random_game(Rules.preset(name, score_extras=extras), seed)
        assert sum(score(game)) == 0
        assert all(p.amount > 0 for p in payments(game))


# --- outcomes: scoring what a score pad is told -------------------------------------------
def test_an_outcome_scores_like_the_game_it_describes() -> None:
    rules = Rules.preset("standard", cong=True)
    game = ben_dan_anna_carla(rules)
    told = Outcome(order=(BEN, DAN, ANNA, CARLA), cong=frozenset({CARLA, DAN}))
    assert score_outcome(rules, told) == score(game) == (-1, 4, -4, 1)


def test_chop_bonuses_from_an_outcome() -> None:
    # proplay, x = 2: Ben cuts Anna's black 2 (x), Carla re-cuts Ben (double: 2x); Dan
    # bombs Carla's red 2 (3x).
    rules = Rules.preset("proplay", score_extras=("chop-twos",))
    told = Outcome(
        order=(ANNA, BEN, CARLA, DAN),
        cards_left=(0, 1, 1, 1),
        chops=(
            ScoredChop(BEN, ANNA, cut=True, black_twos=1),
            ScoredChop(CARLA, BEN, cut=True, on=0),
            ScoredChop(DAN, CARLA, cut=False, red_twos=1),
        ),
    )
    bet = (6, -2, -2, -2)
    chops = (-2, 2 - 4, 4 - 6, 6)
    assert score_outcome(rules, told) == tuple(b + c for b, c in zip(bet, chops, strict=True))


@pytest.mark.parametrize(
    ("outcome", "words"),
    [
        (Outcome(order=(0, 1, 2)), "each of the 4 seats once"),
        (Outcome(order=(0, 1, 2, 2)), "each of the 4 seats once"),
        (Outcome(order=(0, 1, 2, 3), cong=frozenset({0})), "other than the winner"),
        (Outcome(order=(0, 1, 2, 3), cards_left=(0, 1, 2)), "4 counts from 0 to 13"),
        (Outcome(order=(0, 1, 2, 3), chops=(ScoredChop(1, 1, cut=True),)), "chop 1"),
        (Outcome(order=(0, 1, 2, 3), chops=(ScoredChop(1, 2, cut=True, on=0),)), "earlier"),
        (Outcome(order=(0, 1, 2, 3), instant_win=True, cong=frozenset({2})), "instant win"),
        (Outcome(order=(0, 1, 2, 3), guarantees=((1, False),)), "no guarantees"),
    ],
)
def test_an_outcome_that_does_not_fit_the_rules_is_refused(outcome: Outcome, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        score_outcome(Rules.preset("standard"), outcome)


def test_per_card_needs_the_cards_left() -> None:
    with pytest.raises(ValueError, match="needs the cards each seat held"):
        score_outcome(Rules.preset("lu"), Outcome(order=(0, 1, 2, 3)))


@pytest.mark.parametrize("name", sorted(SCHEMES))
def test_a_scheme_reads_only_the_fields_it_declares(name: str) -> None:
    """``Scheme.reads`` is what score pads ask for: a field a scheme's payments depend on
    must be declared, else a pad would refuse (as not counted) a number that changes the
    score."""
    scheme = SCHEMES[name]
    rules = Rules.preset("standard", scoring=name)
    base = Outcome(order=(2, 0, 3, 1), cards_left=(3, 5, 0, 13))
    variants = {
        "cards_left": replace(base, cards_left=(9, 1, 0, 2)),
        "cong": replace(base, cong=frozenset({1, 3})),
    }
    for field_name, other in variants.items():
        changed = scheme.payments(rules, base) != scheme.payments(rules, other)
        assert changed == (field_name in scheme.reads), (name, field_name)


def test_uncounted_fields_names_what_the_rules_ignore() -> None:
    standard = Rules.preset("standard")
    outcome = Outcome(order=(0, 1, 2, 3), cong=frozenset({3}), three_spades_last=True)
    assert uncounted_fields(standard, outcome) == ("cong", "three_spades_last")
    assert uncounted_fields(Rules.preset("standard", cong=True), outcome) == ("three_spades_last",)
