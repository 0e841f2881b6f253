"""The game state machine: turn order, passing and lock-outs, bombs after passing, stacking,
the end of piles and games, instant wins, trading, exchanges, deals, copies."""

from __future__ import annotations

import dataclasses
import itertools
import pickle

import pytest

from reference import public_state
from tienlen import (
    PASS,
    RULESETS,
    Card,
    CardParseError,
    Chop,
    Game,
    Gift,
    Give,
    IllegalMoveError,
    Move,
    Rules,
    classify,
    deck,
    parse_cards,
)
from tienlen.cards import TWOS_MASK, mask_of
from tienlen.deal import instant_win_of
from tienlen.debts import CardDebt
from tienlen.exchanges import MutualTrading, SanJoseExchange, TradeOffer
from tienlen.observation import observe
from tienlen.packed import PackedState
from tienlen.position import Action
from tienlen.scoring import outcome_of


def cards(text: str) -> set[Card]:
    return set(parse_cards(text))


def run(game: Game, *moves: str) -> Game:
    for m in moves:
        game.play(m)
    return game


# --- turn order ---------------------------------------------------------------------------
def test_play_goes_clockwise() -> None:
    game = Game("standard", hands=["3s 7s", "4s 8s", "5s 9s", "6s 10s"], leader=0)
    turns = []
    for move in ("3s", "4s", "5s", "6s", "7s"):
        turns.append(game.turn)
        game.play(move)
    assert turns == [0, 1, 2, 3, 0]


def test_play_can_go_anticlockwise() -> None:
    rules = Rules.preset("standard", direction="anticlockwise")
    game = Game(rules, hands=["3s 7s", "6s 10s", "5s 9s", "4s 8s"], leader=0)
    turns = []
    for move in ("3s", "4s", "5s", "6s", "7s"):
        turns.append(game.turn)
        game.play(move)
    assert turns == [0, 3, 2, 1, 0]


def test_the_leader_of_a_fresh_pile_must_play() -> None:
    game = Game("standard", hands=["3s 7s", "4s", "5s", "6s"], leader=0)
    assert PASS not in game.legal_moves()
    with pytest.raises(IllegalMoveError, match="passing is not allowed"):
        game.play("pass")


# --- passing, lock-outs, bombs after passing ---------------------------------------------------
def test_a_pass_locks_the_player_out_until_the_pile_ends() -> None:
    game = Game("standard", hands=["3s 9s 4d", "8h 5c", "5s Js 7d", "6s Qs 8d"], leader=0)
    run(game, "3s", "pass", "5s", "6s", "9s")
    assert game.locked_out == frozenset({1})
    assert game.turn == 2  # seat 1 is skipped
    run(game, "Js", "Qs")
    assert game.turn == 0
    run(game, "pass", "pass")  # seat 1 skipped again; seat 2 passes
    assert game.top is None and game.turn == 3 and game.locked_out == frozenset()
    assert game.passed == frozenset()


def test_passed_players_may_chop_twos_only() -> None:
    """Standard: while 2s are on top, passed players are asked again, for bombs only."""
    hands = ["9s 4d", "5s 5c 6d 6h 7s 7c 8d 8h Kd", "2s Jd 3c", "Qc 3h"]
    game = Game("standard", hands=hands, leader=0)
    run(game, "4d", "pass", "Jd", "Qc", "pass")  # no 2 on top: seat 1 stays out
    assert game.turn == 2
    game = Game("standard", hands=hands, leader=0)
    run(game, "4d", "pass", "2s", "pass", "pass")
    # A single 2 is on top: seat 1 (passed) is offered a chop, with three pairs only.
    assert game.turn == 1
    assert {str(m) for m in game.legal_moves()} == {
        "pass",
        "5♠ 5♣ 6♦ 6♥ 7♠ 7♣",
        "6♦ 6♥ 7♠ 7♣ 8♦ 8♥",
    }
    assert game.why_illegal("5s 5c 6d 6h 7s 7c 8d 8h") is not None
    assert game.why_illegal("Kd") is not None
    game.play("pass")
    assert game.top is None and game.turn == 2


def test_passed_players_chop_a_pair_of_twos() -> None:
    hands = ["9s 9h 4d", "5s 5c 6d 6h 7s 7c 8d 8h Kd", "2s 2h 3c", "Qc 3h"]
    game = Game("standard", hands=hands, leader=0)
    run(game, "9s 9h", "pass", "2s 2h", "pass", "pass")
    assert game.turn == 1
    assert [str(m) for m in game.legal_moves()] == ["5♠ 5♣ 6♦ 6♥ 7♠ 7♣ 8♦ 8♥", "pass"]
    game.play("5s 5c 6d 6h 7s 7c 8d 8h")
    assert game.chops == (Chop(1, 2, game.pile[-1].move, game.pile[-2].move),)
    assert game.turn == 2  # the 2s' owner may answer; seats 3 and 0 passed and stay out


def test_without_bombing_after_passing_passed_players_are_not_asked() -> None:
    hands = ["9s 9h 4d", "5s 5c 6d 6h 7s 7c 8d 8h Kd", "2s 2h 3c", "Qc 3h"]
    game = Game("wikipedia", hands=hands, leader=0)
    run(game, "9s 9h", "pass", "2s 2h", "pass", "pass")
    assert game.top is None and game.turn == 2


def test_no_lock_out_lets_passed_players_play_again() -> None:
    for preset in ("pike", "akita"):
        game = Game(preset, hands=["3s 9s 4d", "8h 5c", "5s Js", "6s Qs"], leader=0)
        run(game, "3s", "pass", "5s", "6s", "9s")
        assert game.locked_out == frozenset()
        assert game.turn == 1
        game.play("pass")
        assert game.passed == frozenset({1})


# --- stacking (pang) ---------------------------------------------------------------------------
def test_stacking_lets_the_last_player_go_on() -> None:
    game = Game("pang", hands=["5s 9d Jd 4c 4d", "6s 7h", "7c 8c", "8h 9h"], leader=0)
    run(game, "5s", "pass", "pass", "pass")
    assert game.turn == 0 and game.top is not None and game.top.seat == 0
    assert {str(m) for m in game.legal_moves()} == {"pass", "9♦", "J♦"}
    run(game, "9d")
    assert game.turn == 0
    game.play("pass")  # declining to stack wins the pile
    assert game.top is None and game.turn == 0
    assert {str(m) for m in game.legal_moves()} >= {"4♣ 4♦", "4♣"}


def test_without_stacking_the_pile_is_won_at_once() -> None:
    game = Game("pagat", hands=["5s 9d Jd 4c 4d", "6s 7h", "7c 8c", "8h 9h"], leader=0)
    run(game, "5s", "pass", "pass", "pass")
    assert game.top is None and game.turn == 0


# --- going out, the end of piles and games ------------------------------------------------------
def test_out_ends_pile_in_akita() -> None:
    game = Game("akita", hands=["9s", "Ks 3c", "4d 5d", "6h 7h"], leader=0)
    game.play("9s")
    assert game.top is None and game.turn == 1 and game.finish_order == (0,)
    game = Game("standard", hands=["9s", "Ks 3c", "4d 5d", "6h 7h"], leader=0)
    game.play("9s")
    assert game.top is not None and game.turn == 1


def test_after_an_out_the_next_player_gets_the_lead() -> None:
    for preset in ("standard", "pike"):
        game = Game(preset, hands=["3s 4s", "9d", "5c 6c", "7d 8d"], leader=0)
        run(game, "3s", "9d", "pass", "pass", "pass")
        assert game.top is None and game.turn == 2, preset


@pytest.mark.parametrize("preset", ["lu", "proplay"])
def test_end_at_first_out(preset: str) -> None:
    game = Game(preset, hands=["9s", "3c 4c", "5c", "6c 7c 8c"], leader=0)
    game.play("9s")
    assert game.is_over
    assert game.finish_order == (0, 2, 1, 3)  # then by fewest cards left
    assert game.winner == 0 and game.loser == 3
    game = Game("standard", hands=["9s", "3c 4c", "5c", "6c 7c 8c"], leader=0)
    game.play("9s")
    assert not game.is_over


def test_end_at_first_out_breaks_ties_in_playing_order() -> None:
    game = Game("lu", hands=["9s", "3c 4c", "5c 6d", "6c 7c"], leader=0)
    game.play("9s")
    assert game.finish_order == (0, 1, 2, 3)
    rules = Rules.preset("lu", direction="anticlockwise")
    game = Game(rules, hands=["9s", "3c 4c", "5c 6d", "6c 7c"], leader=0)
    game.play("9s")
    assert game.finish_order == (0, 3, 2, 1)


def test_a_finished_game_refuses_moves() -> None:
    game = Game(Rules.preset("standard", players=2), hands=["9s", "3c"], leader=0)
    game.play("9s")
    assert game.is_over and game.finish_order == (0, 1)
    assert game.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.play("3c")


def test_every_seat_stuck_ends_the_game() -> None:
    rules = Rules.preset("standard", players=2, may_finish_on_two=False)
    game = Game(rules, hands=["2h", "2s"], leader=0)
    run(game, "pass", "pass")
    assert game.is_over and sorted(game.finish_order) == [0, 1]


# --- instant wins ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hand", "name"),
    [
        ("2s 2c 2d 2h 3s", "four-twos"),
        ("3s 3c 5d 5h 7s 7c 9d 9h Js Jc Ks Kc Ah", "six-pairs"),
        ("3s 3c 5d 5h 7s 7c 9d 9h Js Jc Ks Kc Kd Kh", "six-pairs"),
        ("3s 3c 3d 6s 6c 6d 9s 9c 9h Ks Ah", "three-triples"),
        ("3s 4c 5d 6h 7s 8c 9d 10h Js Qc Kh As 2c", "dragon"),
        ("5s 5c 6d 6h 7s 7c 8d 8h 9s 9c", "five-consecutive-pairs"),
    ],
)
def test_instant_win_hands(hand: str, name: str) -> None:
    mask = mask_of(parse_cards(hand))
    assert instant_win_of(mask, (name,)) == name
    others = tuple(n for n in ("four-twos", "six-pairs", "three-triples", "dragon") if n != name)
    near_misses = {
        "four-twos": "2s 2c 2d 3s",
        "six-pairs": "3s 3c 5d 5h 7s 7c 9d 9h Js Jc Ks Ah",
        "three-triples": "3s 3c 3d 6s 6c 6d 9s 9c Ks Ah",
        "dragon": "3s 4c 5d 6h 7s 8c 9d 10h Js Qc As 2c",
        "five-consecutive-pairs": "5s 5c 6d 6h 7s 7c 8d 8h 10s 10c",
    }
    assert instant_win_of(mask_of(parse_cards(near_misses[name])), (name,)) is None
    assert instant_win_of(0, others) is None


def test_instant_win_ends_the_game_at_the_deal() -> None:
    rules = Rules.preset("standard", instant_wins=("four-twos",))
    game = Game(rules, hands=["3s 4d", "2s 2c 2d 2h 5c", "6d 7h", "8s 9c"])
    assert game.is_over and game.instant_win == (1, "four-twos")
    assert game.finish_order[0] == 1 and sorted(game.finish_order) == [0, 1, 2, 3]
    assert game.history == ()
    plain = Game("standard", hands=["3s 4d", "2s 2c 2d 2h 5c", "6d 7h", "8s 9c"])
    assert not plain.is_over


def test_instant_wins_are_checked_from_the_leader_round_the_table() -> None:
    rules = Rules.preset("standard", instant_wins=("four-twos", "six-pairs"))
    hands = ["4h 4d 5s 5c 7d 7h 9s 9c Js Jc Ks Kc", "3s 6d", "2s 2c 2d 2h", "8s 9h"]
    game = Game(rules, hands=hands)  # seat 1 holds 3♠ and leads; seat 2 comes first after it
    assert game.instant_win == (2, "four-twos")
    game = Game(rules, hands=hands, leader=3)
    assert game.instant_win == (0, "six-pairs")


def test_trading_disables_instant_wins() -> None:
    rules = Rules.preset("vietcong", trading="mutual")
    game = Game(rules, hands=["3s 4d", "2s 2c 2d 2h 5c", "6d 7h", "8s 9c"])
    assert game.phase == "trading" and game.instant_win is None


# --- mutual trading ------------------------------------------------------------------------------
def trading_game() -> Game:
    rules = Rules.preset("vietcong", trading="mutual")
    return Game(rules, hands=["3s 4s 5s 9h", "6c 7c 8c Kd", "3d Jd Qd 2h", "4h 6h 10h Ac"])


def test_a_trade_happens_only_when_both_agree() -> None:
    game = trading_game()
    assert game.turn == 0 and game.legal_moves() == [PASS]
    game.offer_trade(2, "9h", "2h")
    assert game.turn == 2 and game.pending_trade is not None
    game.accept_trade()
    assert cards("2h") <= set(game.hands[0]) and cards("9h") <= set(game.hands[2])
    assert game.trades[-1].accepted is True and game.pending_trade is None
    assert game.turn == 1
    game.offer_trade(3, "6c 7c", "Ac 10h")
    game.play("pass")  # refused
    assert game.trades[-1].accepted is False
    assert set(game.hands[1]) == cards("6c 7c 8c Kd")
    run(game, "pass", "pass")  # seats 2 and 3 offer nothing
    assert game.phase == "play" and game.turn == 0
    assert set(game.dealt[0]) == cards("3s 4s 5s 2h")  # the deal now means after trading
    assert len(game.trades) == 2


def test_answering_an_offer_the_legal_choices_are_refusing_and_giving_the_cards_asked() -> None:
    game = trading_game()
    game.offer_trade(2, "9h", "2h")
    assert game.legal_moves() == [Give.of("2h"), PASS]
    assert game.why_illegal("Qd") == "to accept the offer, give the cards asked for: 2♥"
    assert game.why_illegal("pass") is None and game.why_illegal("2h") is None
    assert game.play("2h") == Give.of("2h")  # the same as accept_trade()
    assert game.trades[-1].accepted is True and cards("2h") <= set(game.hands[0])
    game.offer_trade(3, "6c", "Ac")
    assert game.legal_moves() == [Give.of("Ac"), PASS]
    game.apply_unchecked(PASS)
    assert game.trades[-1].accepted is False and game.turn == 2
    game.play("pass")  # seat 2 makes no offer
    game.offer_trade(0, "4h", "Kd")  # seat 0 holds no K♦: only the pass answers
    assert game.turn == 0 and game.legal_moves() == [PASS]
    assert game.why_illegal("Kd") == "you do not hold K♦"


def test_trading_errors() -> None:
    game = trading_game()
    with pytest.raises(IllegalMoveError, match="same number of cards"):
        game.offer_trade(1, "3s 4s", "Kd")
    with pytest.raises(IllegalMoveError, match="you do not hold"):
        game.offer_trade(1, "Ah", "Kd")
    with pytest.raises(IllegalMoveError, match="cannot be a trading partner"):
        game.offer_trade(0, "3s", "4s")
    with pytest.raises(IllegalMoveError, match="cannot be a trading partner"):
        game.offer_trade(7, "3s", "4s")
    with pytest.raises(IllegalMoveError, match="no trade offer to accept"):
        game.accept_trade()
    with pytest.raises(IllegalMoveError, match="during trading"):
        game.play("3s")
    before = public_state(game)
    game.offer_trade(1, "9h", "Ac")  # seat 1 does not hold A♣
    with pytest.raises(IllegalMoveError, match="you do not hold the cards asked for"):
        game.accept_trade()
    with pytest.raises(IllegalMoveError, match="no trade can be offered now"):
        game.offer_trade(2, "6c", "3d")
    game.play("pass")
    assert public_state(game)[0].hands == before[0].hands  # hands unchanged
    with pytest.raises(IllegalMoveError, match="no trade can be offered now"):
        Game("standard", seed=1).offer_trade(1, "3s", "4s")


# --- San Jose exchange ----------------------------------------------------------------------------
def test_san_jose_exchange_with_four_players() -> None:
    rules = Rules.preset("pang", trading="san-jose")
    hands = ["4s 5s 6s 7s Ks", "3s 8c 9c Ac 2d", "3c 4c 10h Jh Qh", "3d 5d 6d Kd 2s"]
    game = Game(rules, hands=hands, previous_finish=[2, 0, 3, 1], leader=2)
    assert game.phase == "exchange" and game.turn == 2
    assert len(game.legal_moves()) == 10  # any two of five cards
    with pytest.raises(IllegalMoveError, match="give exactly 2 cards"):
        game.play("3c 4c 10h")
    with pytest.raises(IllegalMoveError, match="you do not hold"):
        game.play("2d Ac")  # the loser's cards arrive only when both sides have chosen
    game.play("3c 4c")
    assert game.turn == 0 and game.exchange_receiver(0) == 3 and game.exchange_receiver(2) == 1
    game.play("4s")
    assert game.phase == "play" and game.turn == 2  # type: ignore[comparison-overlap]
    assert set(game.hands[2]) == cards("10h Jh Qh Ac 2d")  # the loser's two highest
    assert set(game.hands[1]) == cards("3s 8c 9c 3c 4c")
    assert set(game.hands[0]) == cards("5s 6s 7s Ks 2s")  # second-to-last's highest
    assert set(game.hands[3]) == cards("3d 5d 6d Kd 4s")


def test_san_jose_exchange_with_three_players() -> None:
    rules = Rules.preset("pang", trading="san-jose", players=3)
    game = Game(rules, hands=["4s 5s 6s", "3s 8c 2d", "3c 10h Ah"], previous_finish=[0, 2, 1])
    game.play("4s 5s")
    assert game.phase == "play"
    assert set(game.hands[0]) == cards("6s 8c 2d") and set(game.hands[1]) == cards("3s 4s 5s")
    assert set(game.hands[2]) == cards("3c 10h Ah")


def test_the_first_lead_goes_to_whoever_holds_the_3s_after_the_exchange() -> None:
    """With no leader given, ``first_lead`` picks the holder of the lowest card; a San Jose
    winner may give it away ("pass two unwanted cards ... to the last", 001), and then the
    receiver leads with it (the giver, left without it, could only pass)."""
    rules = Rules.preset("standard", trading="san-jose", players=3)
    game = Game(rules, hands=["3s 5s 6s", "4s 8c 2d", "3c 10h Ah"], previous_finish=[0, 2, 1])
    assert game.turn == 0
    game.play("3s 5s")
    assert game.phase == "play" and game.leader == 1 and game.turn == 1
    assert game.first_lead_rule == ("must-include-lowest", Card.parse("3s"))
    assert game.legal_moves() == [Move.of("single", "3s"), Move.of("straight", "3s 4s 5s")]


def test_the_first_lead_goes_to_whoever_holds_the_3s_after_the_trading() -> None:
    """The same under mutual trading: a leader who trades the 3♠ away does not keep the
    lead (it could only pass, bound to lead the 3♠ it no longer holds)."""
    rules = Rules.preset("standard", trading="mutual", players=3)
    game = Game(rules, hands=["3s 5s 6s", "4s 8c 2d", "3c 10h Ah"])
    assert game.phase == "trading" and game.turn == 0
    game.offer_trade(1, "3s", "2d")
    game.accept_trade()
    game.play("pass")
    game.play("pass")
    assert game.hand_masks[1] == mask_of(parse_cards("3s 4s 8c"))
    assert game.phase == "play" and game.leader == 1 and game.turn == 1  # type: ignore[comparison-overlap]
    assert game.first_lead_rule == ("must-include-lowest", Card.parse("3s"))
    assert game.legal_moves() == [Move.of("single", "3s")]


def test_a_give_is_a_give_not_a_move_and_is_recorded_as_a_gift() -> None:
    rules = Rules.preset("pang", trading="san-jose", players=3)
    game = Game(rules, hands=["4s 5s 6s", "3s 8c 2d", "3c 10h Ah"], previous_finish=[0, 2, 1])
    legal = game.legal_moves()
    assert legal == [Give.of("4s 5s"), Give.of("4s 6s"), Give.of("5s 6s")]
    assert game.legal_plays() == []  # no play in an exchange
    assert pickle.loads(pickle.dumps(legal[0])) == legal[0]  # the server's bot workers
    with pytest.raises(IllegalMoveError, match="give exactly 2 cards"):
        game.play(PASS)
    copy = game.copy()
    given = game.play("5s 4s")
    assert isinstance(given, Give)
    assert given == Give.of("4s 5s") and game.history == (Gift(0, given),)
    assert game.give_receivers == (1,) and copy.phase == "exchange" and not copy.history
    copy.apply_unchecked(legal[0])
    assert copy.hands == game.hands and copy.history == game.history
    with pytest.raises(IllegalMoveError, match="not a combination"):
        game.play(Give.of("6s 8c"))  # in the play, cards given are read as a play


def test_san_jose_needs_a_previous_finish() -> None:
    rules = Rules.preset("pang", trading="san-jose")
    assert Game(rules, seed=1).phase == "play"  # the first game has no exchange
    with pytest.raises(ValueError, match="previous_finish"):
        Game(rules, seed=1, previous_finish=[0, 1, 1, 3])


# --- deals ---------------------------------------------------------------------------------
def test_seeded_deals_are_reproducible() -> None:
    for preset in ("standard", "double-deck-13", "pike"):
        a, b = Game(preset, seed="same"), Game(preset, seed="same")
        assert a.hand_masks == b.hand_masks and a.unused_hands == b.unused_hands
        assert Game(preset, seed="other").hand_masks != a.hand_masks
    assert Game("standard", seed=7).hand_masks == Game("standard", seed=7).hand_masks


@pytest.mark.parametrize(
    ("overrides", "sizes"),
    [
        ({}, [13] * 4),
        ({"players": 2}, [13] * 2),
        ({"players": 3}, [13] * 3),
        ({"players": 3, "hand_size": 17}, [17] * 3),
        ({"players": 5, "decks": 2}, [13] * 5),
        ({"players": 6, "decks": 2, "hand_size": "all"}, [17] * 6),
    ],
)
def test_deal_sizes(overrides: dict[str, object], sizes: list[int]) -> None:
    game = Game(Rules.preset("standard", **overrides), seed=3)
    assert [len(h) for h in game.hands] == sizes
    assert len(set().union(*map(set, game.hands))) == sum(sizes)


def test_pike_deals_four_hands_and_sets_the_unused_aside() -> None:
    for players in (2, 3, 4):
        for seed in range(5):
            game = Game(Rules.preset("pike", players=players), seed=seed)
            hands = game.hands + game.unused_hands
            assert len(hands) == 4 and all(len(h) == 13 for h in hands)
            assert len(game.unused_hands) == 4 - players
            assert set().union(*map(set, hands)) == set(deck())


def test_lu_three_players_the_starter_takes_the_spare() -> None:
    rules = Rules.preset("lu", players=3)
    for seed in range(40):
        game = Game(rules, seed=seed)
        sizes = [game.cards_left(s) for s in range(3)]
        assert sizes[game.leader] == 18 and sorted(sizes) == [17, 17, 18]
        assert Card.parse("3s") in game.hands[game.leader]  # 3♠, or 3♣ plus the spare 3♠
        assert set().union(*map(set, game.hands)) == set(deck())
        assert game.first_lead_rule is None
    two = Game(Rules.preset("lu", players=2), seed=1)
    assert [len(h) for h in two.hands] == [17, 17]


def test_first_lead_is_the_lowest_dealt_card() -> None:
    for seed in range(20):
        game = Game(Rules.preset("standard", players=3), seed=seed)
        lowest = min(c for h in game.hands for c in h)
        assert game.first_lead_rule == ("must-include-lowest", lowest)
        assert lowest in game.hands[game.turn]
        assert all(lowest in m.cards for m in game.legal_moves())


def test_bad_deals_are_refused() -> None:
    with pytest.raises(ValueError, match="3 hands given for 4 players"):
        Game("standard", hands=["3s", "4s", "5s"])
    with pytest.raises(CardParseError, match="two hands"):
        Game("standard", hands=["3s", "3s", "5s", "6s"])
    with pytest.raises(ValueError, match="at least one card"):
        Game("standard", hands=["3s", "", "5s", "6s"])
    with pytest.raises(CardParseError, match="second deck"):
        Game("standard", hands=["3s'", "4s", "5s", "6s"])
    with pytest.raises(ValueError, match="leader must be a seat"):
        Game("standard", hands=["3s", "4s", "5s", "6s"], leader=4)
    with pytest.raises(ValueError, match="unknown rule set"):
        Game("nonsense")


# --- moves in every form, and refusals ----------------------------------------------------------
def test_moves_may_be_given_as_moves_text_or_cards() -> None:
    rules = Rules.preset("standard")
    game = Game(rules, hands=["3s 9h", "6s 10s", "8s 8c", "10c Jc"], leader=0)
    move = classify(parse_cards("3s"), rules)
    assert move is not None
    assert game.play(move) == move
    assert game.play(parse_cards("6s")) == Move.of("single", "6s")
    assert game.play("p") == PASS and game.play("-") == PASS
    assert game.play("PASS") == PASS
    assert game.top is None and game.turn == 1
    assert [a.seat for a in game.history] == [0, 1, 2, 3, 0]


def test_refusals_say_why() -> None:
    game = Game("standard", hands=["3s 4s 5d 9h", "6s 6c 7s", "8s 8c", "10s Jc"], leader=0)
    assert "is not a combination" in (game.why_illegal("3s 5d") or "")
    assert game.why_illegal("6s") == "you do not hold 6♠"
    assert "'3x'" in (game.why_illegal("3x") or "")
    game.play("9h")
    assert "can only be beaten by a higher single" in (game.why_illegal("6s 6c") or "")
    assert "lower than 9♥" in (game.why_illegal("7s") or "")
    with pytest.raises(IllegalMoveError) as info:
        game.play("6s")
    assert isinstance(info.value, ValueError)


def test_history_pile_and_chops() -> None:
    game = Game("standard", hands=["Ks 6s", "2c 7d", "3h 3d 3c 3s 9d", "5h Qd"], leader=0)
    run(game, "Ks", "2c", "3h 3d 3c 3s")
    assert [(a.seat, str(a.move)) for a in game.pile] == [
        (0, "K♠"),
        (1, "2♣"),
        (2, "3♠ 3♣ 3♦ 3♥"),
    ]
    assert game.top is not None and game.top.seat == 2
    assert len(game.chops) == 1 and game.chops[0].seat == 2 and game.chops[0].victim == 1
    run(game, "pass", "pass", "pass")
    assert game.pile == () and len(game.history) == 6


# --- copies and rebuilt states --------------------------------------------------------------
def test_copies_are_independent() -> None:
    game = Game("standard", seed=11)
    game.play(game.legal_moves()[0])
    before = public_state(game)
    twin = game.copy()
    assert public_state(twin) == before
    for _ in range(12):
        twin.play(twin.legal_moves()[-1])
    assert public_state(game) == before
    assert public_state(twin) != before
    # ... also during trading.
    trading = trading_game()
    other = trading.copy()
    other.offer_trade(1, "9h", "Kd")
    other.accept_trade()
    assert trading.trades == () and trading.hands != other.hands


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_a_copy_holds_every_field_of_the_game(name: str) -> None:
    # A game keeps everything that changes in one record (tienlen.packed), which copy() copies
    # whole: a field added to the record is copied without a change to copy().
    game = Game(name, seed=f"copy-{name}")
    for _ in range(9):
        if game.is_over:
            break
        game.play(game.legal_moves()[0])
    twin = game.copy()
    for field in dataclasses.fields(PackedState):
        mine, copied = getattr(game._state, field.name), getattr(twin._state, field.name)
        if isinstance(mine, list):
            assert copied == mine and copied is not mine, field.name
        elif field.name not in ("trading", "exchange"):
            assert copied == mine, field.name


def test_copies_are_independent_while_card_debts_are_settled() -> None:
    # 004: "the last person to be chopped owes the person who chopped them card(s) in the
    # next round": seat 0 owes seat 1 a 2 of its choice; a copy settles it, the game waits.
    rules = Rules.preset("standard", chop_debts="stacking", debt_card="any-two")
    hands = ["3s 2s 2h 9d", "4c 5c 6c 7c", "3d 4d 5d 6d", "3h 4h 5h 6h"]
    game = Game(rules, hands=hands, debts=[CardDebt(0, 1, 1, "chopped last")])
    twin = game.copy()
    twin.play("2h")
    twin.play("7c")
    given = ((0, 1, mask_of(parse_cards("2h"))), (1, 0, mask_of(parse_cards("7c"))))
    assert twin.phase == "play" and twin.hand_overs == given
    assert game.phase == "exchange" and game.exchange_receiver(0) == 1
    assert game.hand_overs == () and game.hand_masks[0] == mask_of(parse_cards(hands[0]))
    game.play("2s")
    assert game.exchange_receiver(1) == 0 and twin.hand_masks[0] != game.hand_masks[0]


def test_games_rebuilt_from_observations_offer_the_same_moves() -> None:
    game = Game("pang", seed=5)
    for step in itertools.count():
        if game.is_over or step > 60:
            break
        seat = game.turn
        rebuilt = Game.from_state(observe(game, seat), rules=game.rules, hands=game.hand_masks)
        assert rebuilt.legal_moves() == game.legal_moves()
        assert rebuilt.turn == game.turn and rebuilt.top == game.top
        moves = game.legal_moves()
        game.play(moves[step % len(moves)])


SAN_JOSE_DEAL = [
    "3s 4c 5d 6h 7s 8c 9d 10h Js Qc Kd Ah 2s",
    "3c 4d 5h 6s 7c 8d 9h 10s Jc Qd Kh As 2c",
    "3d 4h 5s 6c 7d 8h 9s 10c Jd Qh Ks Ac 2d",
    "3h 4s 5c 6d 7h 8s 9c 10d Jh Qs Kc Ad 2h",
]


def test_a_game_in_the_exchange_phase_is_rebuilt_from_what_the_giver_sees() -> None:
    # S2 won the last game and gives S3 two cards; S0, the runner-up, gives S1 one. S0 did
    # not see S2's give: its view leaves it out, and a rebuilt game needs it guessed.
    rules = dataclasses.replace(Rules.preset("standard"), trading="san-jose")
    game = Game(rules, hands=SAN_JOSE_DEAL, previous_finish=[2, 0, 1, 3])
    other = Game(rules, hands=SAN_JOSE_DEAL, previous_finish=[2, 0, 1, 3])
    game.play("3d 4h")
    other.play("5s 6c")
    seen = observe(game, 0)
    assert seen == observe(other, 0) and observe(game, 3) != observe(other, 3)
    assert seen.phase == "exchange" and seen.turn == 0
    assert isinstance(seen.exchange, SanJoseExchange)
    with pytest.raises(ValueError, match="guess it first"):
        Game.from_state(seen, rules=rules, hands=game.hand_masks, exchange=seen.exchange)
    with pytest.raises(ValueError, match="needs its exchange"):
        Game.from_state(seen, rules=rules, hands=game.hand_masks)
    guess = seen.exchange.guessed(lambda giver, count: mask_of(parse_cards("3d 4h")))
    rebuilt = Game.from_state(seen, rules=rules, hands=game.hand_masks, exchange=guess)
    assert rebuilt.phase == "exchange" and rebuilt.legal_moves() == game.legal_moves()
    for g in (game, rebuilt):
        g.play("3s")  # the 3♠ goes to S1, who leads once the exchange is done
    assert rebuilt.phase == game.phase == "play"
    assert rebuilt.hand_masks == game.hand_masks and rebuilt.turn == game.turn == 1
    assert rebuilt.first_lead_rule == game.first_lead_rule is not None
    with pytest.raises(ValueError, match="an exchange is given for a state in the 'play' phase"):
        Game.from_state(game.position, rules=rules, exchange=guess)


def test_a_game_in_the_trading_phase_is_rebuilt_from_what_the_partner_sees() -> None:
    mutual = dataclasses.replace(Rules.preset("standard"), trading="mutual")
    game = Game(mutual, hands=SAN_JOSE_DEAL)
    game.offer_trade(1, "3s", "2c")
    seen = observe(game, 1)
    assert seen.phase == "trading" and seen.turn == 1
    assert isinstance(seen.exchange, MutualTrading)
    assert seen.exchange.pending == game.pending_trade  # the partner sees the cards
    hidden = game.exchange_seen_by(2)
    assert isinstance(hidden, MutualTrading) and hidden.pending == TradeOffer(0, 1, 0, 0)
    with pytest.raises(ValueError, match="needs its trading"):
        Game.from_state(seen, rules=mutual, hands=game.hand_masks)
    rebuilt = Game.from_state(seen, rules=mutual, hands=game.hand_masks, exchange=seen.exchange)
    assert rebuilt.pending_trade == game.pending_trade
    for g in (game, rebuilt):
        g.accept_trade()
        while g.phase == "trading":
            g.play("pass")
    assert rebuilt.hand_masks == game.hand_masks and rebuilt.turn == game.turn == 1


def test_a_game_rebuilt_with_the_plays_before_it_scores_them() -> None:
    # Seat 0 cut seat 1's 2♥ with a pair run before the state: rebuilt with those plays,
    # the game deals the cards played back to their seats and its score pays the cut.
    game = Game("proplay", hands=["3s 3c 4s 4c 5s 5c 9h", "2h 6d 7d", "8c 10c", "Jd Qd"], leader=1)
    for move in ("2h", "pass", "pass", "3s 3c 4s 4c 5s 5c"):
        game.play(move)
    state = observe(game, 1)
    plays = [a for a in state.history if isinstance(a, Action)]
    hands = game.hand_masks
    bare = Game.from_state(state, rules=game.rules, hands=hands)
    rebuilt = Game.from_state(state, rules=game.rules, hands=hands, played=plays)
    assert rebuilt.history == game.history and bare.history == ()
    assert rebuilt.dealt == game.dealt and bare.dealt == game.hands
    for g in (game, rebuilt, bare):
        for move in ("pass", "9h"):
            g.play(move)
    cut = [c for c in outcome_of(game).chops if c.seat == 0 and c.victim == 1]
    assert cut and outcome_of(rebuilt).chops == outcome_of(game).chops
    assert outcome_of(bare).chops == ()
    with pytest.raises(ValueError, match="no play of a seat before this state"):
        nine = Action(1, Move.of("single", "9h"))  # seat 0 holds it
        Game.from_state(state, rules=game.rules, hands=hands, played=[nine])


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("standard", redeal_four_twos=True),
        Rules.preset("pike", players=2, redeal_four_twos=True),  # the hands set aside too
        Rules.preset("lu", players=2, redeal_four_twos=True),
    ],
    ids=lambda r: r.code(),
)
def test_a_deal_with_four_twos_is_dealt_again(rules: Rules) -> None:
    # 004: "the player with that four 2s will no long be a winner. He would like to tell
    # another players and they will have the game restarted."
    plain = dataclasses.replace(rules, redeal_four_twos=False)
    redealt = 0
    for seed in range(300):
        game = Game(rules, seed=seed)
        hands = [*game.hand_masks, *(mask_of(h) for h in game.unused_hands)]
        assert all((m & TWOS_MASK).bit_count() < 4 for m in hands)
        first = Game(plain, seed=seed)
        dealt = [*first.hand_masks, *(mask_of(h) for h in first.unused_hands)]
        had_four = any((m & TWOS_MASK).bit_count() == 4 for m in dealt)
        assert (game.redeals > 0) == had_four
        assert (game.hand_masks == first.hand_masks) == (not had_four)
        assert Game(rules, seed=seed).hand_masks == game.hand_masks  # the seed decides
        redealt += game.redeals
    assert redealt > 0  # not vacuous
