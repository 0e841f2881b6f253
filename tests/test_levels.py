"""The levels the apps offer (one list for the terminal, the server and the docs) and the
round robin that measures them."""

from __future__ import annotations

import math

import pytest

from tienlen import Game, Rules
from tienlen.observation import observe
from tienlen.players.base import Budget, Player
from tienlen.players.levels import LEVELS, level_spec, make_player
from tienlen.players.registry import BOTS, parse_spec
from tienlen.players.roundrobin import bradley_terry, round_robin


def test_the_levels_run_from_beginner_to_expert_each_a_bot_worded_in_both_languages() -> None:
    assert list(LEVELS) == ["beginner", "easy", "medium", "expert"]
    for name, level in LEVELS.items():
        bot, _options = parse_spec(level.spec)
        assert bot in BOTS
        for words in (level.label, level.about):
            assert set(words) == {"en", "vi"} and all(w.strip() for w in words.values())
        assert level.to_dict()["label"]["vi"] == level.label["vi"]
        assert level_spec(name) == level.spec
    labels = [level.label["vi"] for level in LEVELS.values()]
    assert len(set(labels)) == len(labels)


def test_the_strongest_level_is_played_by_the_learned_network() -> None:
    bot, options = parse_spec(LEVELS["expert"].spec)
    assert "learned" in (bot, options.get("roots"), options.get("playout"))


def test_a_level_or_a_bot_name_makes_a_player_and_anything_else_is_refused() -> None:
    game = Game("standard", seed=4)
    obs, legal = observe(game, game.turn), game.legal_moves()
    for name in ("beginner", "easy", "medium", "greedy"):
        player = make_player(name, seed=1)
        assert isinstance(player, Player)
        assert player.choose(obs, legal, Budget()) in legal
    assert level_spec("heuristic") == "heuristic"
    with pytest.raises(ValueError, match=r"unknown level 'grandmaster'.*beginner, easy"):
        make_player("grandmaster")


def test_bradley_terry_reads_the_odds_of_finishing_ahead() -> None:
    # 300 to 100 is odds of 3 (2.99 with the half win added each way): 190 Elo points.
    elo = bradley_terry(["a", "b"], {("b", "a"): 300, ("a", "b"): 100})
    assert elo[0] == 0
    assert elo[1] == pytest.approx(400 * math.log10(300.5 / 100.5), abs=0.5)
    # Three that never lose to the one below still get finite, ordered ratings.
    chain = bradley_terry(["x", "y", "z"], {("y", "x"): 10, ("z", "y"): 10, ("z", "x"): 10})
    assert 0 < chain[1] < chain[2] < math.inf


def test_a_round_robin_seats_every_pair_on_the_same_deals_and_rates_them() -> None:
    two = Rules.preset("standard").for_players(2)
    entries = [("r", "random"), ("g", "greedy"), ("h", "heuristic")]
    rr = round_robin(two, entries, deals=12, seed=3)
    assert [seated for seated, _ in rr.tables] == [("r", "g"), ("r", "h"), ("g", "h")]
    assert all(len(games) == 24 for _, games in rr.tables)
    first = {seated: [o.deal for o in games] for seated, games in rr.tables}
    assert len(set(map(tuple, first.values()))) == 1  # the same deals at every table
    rg, gr = rr.head_to_head("r", "g"), rr.head_to_head("g", "r")
    assert rg.games == gr.games == 24 and rg.ahead + gr.ahead == 24
    assert gr.rate > 0.5  # greedy beats random head to head
    ratings = rr.ratings(resamples=50)
    assert [r.label for r in ratings] == ["r", "g", "h"]
    assert ratings[0].elo == 0
    assert min(r.elo for r in ratings[1:]) > 0  # random is the weakest
    for r in ratings:
        assert r.low <= r.elo <= r.high
    with pytest.raises(ValueError, match="labels must differ"):
        round_robin(two, [("r", "random"), ("r", "greedy")], deals=1, seed=1)
