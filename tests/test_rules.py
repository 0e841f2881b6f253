"""Rules as data: the presets, their serialisation, knob validation, and house rules
expressed with ``dataclasses.replace`` (no code change needed for any of them)."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest

from tienlen import RULESETS, Game, Rules, RulesError, classify, parse_cards, why_not_beats
from tienlen.patterns import PatternError, parse_pattern

# The rows of RULES.md's preset table, in its order.
TABLE = (
    "standard",
    "wikipedia",
    "pagat",
    "pang",
    "lu",
    "vietcong",
    "suited",
    "hawaii",
    "akita",
    "pike",
    "proplay",
    "double-deck-13",
)


def play(cards: str, rules: Rules) -> Any:
    move = classify(parse_cards(cards), rules)
    assert move is not None, cards
    return move


def beats(new: str, old: str, rules: Rules) -> bool:
    return why_not_beats(play(new, rules), play(old, rules), rules) is None


def test_presets_are_the_rows_of_the_table() -> None:
    assert RULESETS == TABLE
    assert Rules.preset("standard").name == "standard"


@pytest.mark.parametrize("name", RULESETS)
def test_every_preset_builds(name: str) -> None:
    rules = Rules.preset(name)
    assert rules.name == name
    assert Rules.preset(name) is rules  # presets are shared values
    assert {"single", "pair", "triple", "quad", "straight", "pair_run"} <= rules.kinds
    assert rules.cards_per_hand * rules.players <= 52 * rules.decks
    hash(rules)  # usable as a cache key


@pytest.mark.parametrize("name", RULESETS)
def test_to_dict_from_dict_round_trip_through_json(name: str) -> None:
    rules = Rules.preset(name)
    text = json.dumps(rules.to_dict())
    back = Rules.from_dict(json.loads(text))
    assert back == rules
    assert back.kinds == rules.kinds
    assert Rules.from_dict(json.loads(rules.to_json())) == rules


def test_from_dict_fills_missing_knobs_from_the_named_preset() -> None:
    assert Rules.from_dict({"name": "pike"}) == Rules.preset("pike")
    assert Rules.from_dict({"name": "pike", "players": 2}) == Rules.preset("pike", players=2)
    assert Rules.from_dict({}) == Rules.preset("standard")


def test_from_dict_rejects_unknown_knobs() -> None:
    with pytest.raises(RulesError, match=r"^rules: unknown field 'bogus'"):
        Rules.from_dict({"name": "standard", "bogus": 1})


def test_unknown_preset_error_names_the_valid_ones() -> None:
    with pytest.raises(RulesError) as info:
        Rules.preset("killer")
    message = str(info.value)
    assert "'killer'" in message
    for name in RULESETS:
        assert name in message
    assert isinstance(info.value, ValueError)


# A valid value different from the standard preset's, for every knob.
OTHER_VALUES: dict[str, Any] = {
    "name": "house",
    "players": 3,
    "decks": 2,
    "hand_size": "all",
    "few_players_hand_size": 17,
    "starter_takes_spare": True,
    "deal_four_hands": True,
    "direction": "anticlockwise",
    "first_lead": "holder-free",
    "later_leads": "as-first",
    "first_lead_kinds": ("single", "straight"),
    "extra_kinds": ("quad_run", "triple_run"),
    "twos_in_straight": "top",
    "twos_in_pair_run": "top",
    "min_straight": 4,
    "min_pair_run": 4,
    "min_triple_run": 2,
    "min_quad_run": 3,
    "tie_rule": "later-wins",
    "single_same_suit": True,
    "pair_same_colours": True,
    "triple_same_suits": True,
    "pair_run_same_colours": True,
    "pair_run_above": True,
    "pair_run_one_colour": True,
    "straight_above": True,
    "straight_lock": True,
    "triple_beats_ace": True,
    "single_killer": "Kd",
    "chops": (("single@2", "quad"),),
    "bomb_ladder": ("quad", "pair_run3"),
    "bombs_may_lead": False,
    "pass_locks": False,
    "after_pass_bombs": ("pair_run4+",),
    "stacking": True,
    "out_ends_pile": True,
    "may_finish_on_two": False,
    "instant_wins": ("four-twos", "five-consecutive-pairs"),
    "trading": "mutual",
    "end_at_first_out": True,
    "scoring": "per-card",
    "cong": True,
    "got_to_get_in": 2,
    "score_extras": ("twos-left", "three-spades-last"),
    "guarantees": True,
    "opening_bombs": ("pair_run3",),
    "hidden_counts": True,
    "redeal_four_twos": True,
    "after_pass_on_chops": True,
    "loser_owes_twos": True,
    "chop_debts": "stacking",
    "debt_card": "any-two",
}
INIT_FIELDS = [f.name for f in dataclasses.fields(Rules) if f.init]


def test_the_knob_table_lists_every_knob() -> None:
    assert set(OTHER_VALUES) == set(INIT_FIELDS)


@pytest.mark.parametrize("knob", INIT_FIELDS)
def test_replace_works_for_every_knob(knob: str) -> None:
    base = Rules.preset("standard")
    if knob == "deal_four_hands":
        base = dataclasses.replace(base, players=3)  # only up to four players
    value = OTHER_VALUES[knob]
    changed = dataclasses.replace(base, **{knob: value})
    assert getattr(changed, knob) == value != getattr(base, knob)
    for other in INIT_FIELDS:
        if other != knob:
            assert getattr(changed, other) == getattr(base, other)
    assert changed != base
    assert Rules.from_dict(json.loads(json.dumps(changed.to_dict()))) == changed


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"players": 9}, "rules.players: must be from 2 to 8, not 9"),
        ({"players": 1}, "rules.players: must be from 2 to 8, not 1"),
        ({"decks": 3}, "rules.decks: must be from 1 to 2, not 3"),
        ({"hand_size": 0}, "rules.hand_size: must be from 1 to 104, not 0"),
        ({"players": 5}, "need more than 52 cards"),
        (
            {"direction": "left"},
            "rules.direction: must be one of 'clockwise', 'anticlockwise', not 'left'",
        ),
        ({"first_lead": "anyone"}, "rules.first_lead: must be one of .*, not 'anyone'"),
        ({"tie_rule": "coin"}, "rules.tie_rule: must be one of .*, not 'coin'"),
        ({"extra_kinds": ("bogus",)}, "rules.extra_kinds[0]: unknown extra kind 'bogus'"),
        ({"extra_kinds": ("pair",)}, "rules.extra_kinds[0]: unknown extra kind 'pair'"),
        (
            {"instant_wins": ("royal-flush",)},
            "rules.instant_wins[0]: unknown instant win 'royal-flush'",
        ),
        (
            {"chops": (("single@2",),)},
            "rules.chops[0]: must be a tuple of 2 strings, not ('single@2',)",
        ),
        (
            {"deal_four_hands": True, "players": 5, "decks": 2},
            "rules.deal_four_hands: needs one deck",
        ),
        ({"min_straight": 1}, "rules.min_straight: must be from 2 to 13, not 1"),
        ({"min_quad_run": 1}, "rules.min_quad_run: must be from 2 to 13, not 1"),
        (
            {"first_lead_kinds": ("trio",)},
            "rules.first_lead_kinds[0]: unknown kind 'trio'",
        ),
        (
            {"first_lead_kinds": ("pair",), "first_lead": "holder-free"},
            "rules.first_lead_kinds: needs a first_lead",
        ),
        (
            {"first_lead_kinds": ("pair",), "first_lead": "lowest-single"},
            "rules.first_lead_kinds: first_lead 'lowest-single' needs 'single'",
        ),
        ({"opening_bombs": ("pairs3",)}, "rules.opening_bombs[0]: not a combination pattern"),
        ({"score_extras": ("thoi",)}, "rules.score_extras[0]: must be one of 'chop-twos'"),
        (
            {"chop_debts": "stacking", "trading": "san-jose"},
            "rules.chop_debts: card debts cannot be combined with trading",
        ),
        (
            {"loser_owes_twos": True, "trading": "mutual"},
            "rules.loser_owes_twos: card debts cannot be combined with trading",
        ),
        ({"redeal_four_twos": True, "decks": 2}, "rules.redeal_four_twos: needs one deck"),
        (
            {"redeal_four_twos": True, "instant_wins": ("six-pairs", "four-twos")},
            "rules.redeal_four_twos: four 2s are dealt again, so 'four-twos' cannot win at once",
        ),
    ],
)
def test_bad_knob_values_are_refused(overrides: dict[str, Any], fragment: str) -> None:
    with pytest.raises(RulesError, match=re.escape(fragment).replace(r"\.\*", ".*")):
        Rules.preset("standard", **overrides)


@pytest.mark.parametrize("text", ["quad@X", "pair_run3++", "bomb", "+", "pair_run+"])
def test_bad_patterns_are_refused_and_quoted(text: str) -> None:
    with pytest.raises(PatternError) as info:
        parse_pattern(text)
    assert repr(text) in str(info.value)
    with pytest.raises(ValueError):
        Rules.preset("standard", chops=(("single@2", text),))


def test_patterns() -> None:
    p = parse_pattern("pair_run3+@2")
    assert p.matches("pair_run", 3, 12) and p.matches("pair_run", 5, 12)
    assert not p.matches("pair_run", 2, 12) and not p.matches("pair_run", 3, 11)
    assert parse_pattern("quad").matches("quad", 1, 0)
    assert parse_pattern("*").matches("straight", 5, 4)
    exact = parse_pattern("pair_run3")
    assert exact.matches("pair_run", 3, 5) and not exact.matches("pair_run", 4, 5)


def test_derived_values() -> None:
    assert Rules.preset("lu", players=3).cards_per_hand == 17
    assert Rules.preset("lu", players=2).cards_per_hand == 17
    assert Rules.preset("lu").cards_per_hand == 13
    assert Rules.preset("pike", players=2).cards_per_hand == 13
    assert Rules.preset("standard", players=5, decks=2, hand_size="all").cards_per_hand == 20
    assert Rules.preset("standard").step == 1
    assert Rules.preset("standard", direction="anticlockwise").step == -1
    assert "quad_run" in Rules.preset("vietcong").kinds
    assert "quad_run" not in Rules.preset("standard").kinds


# --- house rules as data ---------------------------------------------------------------------
STD = Rules.preset("standard")
PAIR_RUN_3 = "6s 6c 7d 7h 8c 8d"
PAIR_RUN_4 = "6s 6c 7d 7h 8c 8d 9s 9h"
QUAD = "Js Jc Jd Jh"


def test_chop_lengths_exactly_or_at_least() -> None:
    assert beats(PAIR_RUN_3, "2h", STD)
    assert not beats(PAIR_RUN_4, "2h", STD)  # standard: exactly three pairs
    at_least = dataclasses.replace(STD, chops=(("single@2", "quad"), ("single@2", "pair_run3+")))
    assert beats(PAIR_RUN_4, "2h", at_least)
    assert beats(PAIR_RUN_3, "2h", at_least)


def test_quad_chops_a_pair_of_twos() -> None:
    assert not beats(QUAD, "2s 2h", STD)
    house = dataclasses.replace(STD, chops=(*STD.chops, ("pair@2", "quad")))
    assert beats(QUAD, "2s 2h", house)
    assert not beats(QUAD, "2s 2c 2h", house)


def test_three_pair_run_beats_quad_or_the_reverse_via_the_ladder() -> None:
    assert not beats(PAIR_RUN_3, QUAD, STD) and not beats(QUAD, PAIR_RUN_3, STD)
    runs_high = dataclasses.replace(STD, bomb_ladder=("pair_run3", "quad"))
    assert beats(PAIR_RUN_3, QUAD, runs_high) and not beats(QUAD, PAIR_RUN_3, runs_high)
    quads_high = dataclasses.replace(STD, bomb_ladder=("quad", "pair_run3"))
    assert beats(QUAD, PAIR_RUN_3, quads_high) and not beats(PAIR_RUN_3, QUAD, quads_high)
    # Within a rung the usual comparison still holds.
    assert beats("Ks Kc Kd Kh", QUAD, quads_high) and not beats(QUAD, "Ks Kc Kd Kh", quads_high)


def test_four_pair_run_beats_a_quad() -> None:
    assert not beats(PAIR_RUN_4, QUAD, STD)
    by_chop = dataclasses.replace(STD, chops=(*STD.chops, ("quad", "pair_run4")))
    by_ladder = dataclasses.replace(STD, bomb_ladder=("pair_run4", "quad"))
    for house in (by_chop, by_ladder):
        assert beats(PAIR_RUN_4, QUAD, house)
        assert not beats(QUAD, PAIR_RUN_4, house)


def test_four_pair_run_may_be_played_after_passing() -> None:
    """004 house rule: four consecutive pairs may chop a single 2 even after passing.
    Wikipedia has no bombing after passing; ``after_pass_bombs`` adds exactly this."""
    base = Rules.preset("wikipedia")
    house = dataclasses.replace(base, after_pass_bombs=("pair_run4+",))
    hands = ["10s 3d", f"{PAIR_RUN_4} {QUAD} 4c", "2h Kc", "10d Qd"]

    def to_the_two(rules: Rules) -> Game:
        game = Game(rules, hands=hands, leader=0)
        for move in ("10s", "pass", "2h", "pass", "pass"):
            game.play(move)
        return game

    assert to_the_two(base).top is None  # seat 1 was never asked again: seat 2 won
    game = to_the_two(house)
    assert game.turn == 1
    legal = {str(m) for m in game.legal_moves()}
    assert legal == {"pass", str(play(PAIR_RUN_4, house))}  # the quad may not come back
    game.play(PAIR_RUN_4)
    assert game.chops[-1].seat == 1


def test_bombs_may_not_lead() -> None:
    house = dataclasses.replace(STD, bombs_may_lead=False)
    hands = [f"{QUAD} 5s", "3c 4c", "3d 4d", "3h 4h"]
    free = Game(STD, hands=hands, leader=0)
    assert play(QUAD, STD) in free.legal_moves()
    game = Game(house, hands=hands, leader=0)
    assert play(QUAD, house) not in game.legal_moves()
    assert game.why_illegal(QUAD) == "a bomb may not be led"
    assert play("Js", house) in game.legal_moves()


def test_may_not_finish_on_a_two() -> None:
    house = dataclasses.replace(STD, may_finish_on_two=False)
    game = Game(house, hands=["2h", "3c 4c", "3d 4d", "3h 4h"], leader=1)
    game.play("3c")
    game.play("3d")
    game.play("3h")
    assert game.turn == 0
    assert game.why_illegal("2h") == "you may not go out on a 2"
    assert [str(m) for m in game.legal_moves()] == ["pass"]
    # The same play is fine when it is not the last card.
    game2 = Game(house, hands=["2h 5s", "3c 4c", "3d 4d", "3h 4h"], leader=1)
    for move in ("3c", "3d", "3h"):
        game2.play(move)
    assert game2.why_illegal("2h") is None
    # A leader holding only a 2 cannot lead: the lead passes on.
    stuck = Game(house, hands=["2h", "3c 4c", "3d 4d", "3h 4h"], leader=0)
    assert [str(m) for m in stuck.legal_moves()] == ["pass"]
    stuck.play("pass")
    assert stuck.turn == 1 and stuck.top is None and stuck.stuck == frozenset({0})


@pytest.mark.parametrize("name", RULESETS)
def test_more_than_four_players_play_with_two_decks(name: str) -> None:
    rules = Rules.preset(name)
    if rules.deal_four_hands:  # pike: four hands are dealt, so four players at most
        with pytest.raises(RulesError, match="four players"):
            rules.for_players(5)
        return
    for players in range(2, 9):
        changed = rules.for_players(players)
        assert changed.players == players
        assert changed.decks == (2 if players > 4 else rules.decks)
        Game(changed, seed=1)  # the deal works
    assert rules.for_players(rules.players) == rules


def test_spare_cards_are_those_no_hand_is_dealt() -> None:
    std = Rules.preset("standard")
    assert std.spare_cards == 0
    assert dataclasses.replace(std, players=3).spare_cards == 13
    assert dataclasses.replace(std, players=3, hand_size="all").spare_cards == 1  # 3 x 17
    # two players under deal_four_hands: four hands are dealt, two of them set aside
    assert dataclasses.replace(std, players=2, deal_four_hands=True).spare_cards == 0


@pytest.mark.parametrize("name", RULESETS)
def test_is_preset_only_for_the_preset_unchanged(name: str) -> None:
    preset = Rules.preset(name)
    assert preset.is_preset
    assert not dataclasses.replace(preset, cong=not preset.cong).is_preset
    assert not dataclasses.replace(preset, name="house").is_preset
