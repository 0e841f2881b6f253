"""Observations: what one seat may know, and nothing more."""

from __future__ import annotations

import dataclasses
import pickle
import random

import pytest

from tienlen import Action, Game, IllegalMoveError, Rules, parse_cards
from tienlen.cards import mask_of
from tienlen.debts import CardDebt
from tienlen.game import CountAsk
from tienlen.observation import Observation, observe

HANDS = ["3s 7d 9h Kc", "4c 8s 10d Ah", "5d 6s Js 2c", "6h 8c Qd 2s"]
# The same deal seen from seat 0: every other seat holds other (unplayed) cards.
TWIN = ["3s 7d 9h Kc", "4c 8s Qd 2s", "5d 6s 10d Ah", "6h 8c Js 2c"]


def test_an_observation_shows_the_seat_its_own_hand_and_public_facts() -> None:
    game = Game("standard", hands=HANDS)
    game.play("3s")
    obs = observe(game, 1)
    assert obs.seat == 1 and obs.turn == 1 and obs.is_my_turn()
    assert obs.hand == tuple(sorted(parse_cards(HANDS[1])))
    assert obs.hand_mask == game.hand_masks[1]
    assert obs.card_counts == (3, 4, 4, 4)
    assert obs.top is not None and str(obs.top.move) == "3♠"
    assert obs.played_mask == mask_of(parse_cards("3s"))
    assert obs.players == 4 and obs.rules is game.rules and obs.phase == "play"
    assert not observe(game, 2).is_my_turn()
    assert obs.first_lead is None and obs.leader == 0


def test_observations_do_not_depend_on_other_hands() -> None:
    a = Game("standard", hands=HANDS)
    b = Game("standard", hands=TWIN)
    assert observe(a, 0) == observe(b, 0)
    for move in ("3s", "4c", "5d", "6h", "7d", "pass", "pass", "8c"):
        a.play(move)
        b.play(move)
        assert observe(a, 0) == observe(b, 0)
    # The seats whose cards differ do see the difference.
    assert observe(a, 1) != observe(b, 1)


def test_observations_hold_no_other_hand() -> None:
    game = Game("standard", hands=HANDS)
    obs = observe(game, 0)
    others = [mask_of(parse_cards(h)) for h in HANDS[1:]]
    for f in dataclasses.fields(Observation):
        value = getattr(obs, f.name)
        if isinstance(value, int) and not isinstance(value, bool):
            assert value not in others, f.name


@pytest.mark.parametrize("name", ["standard", "vietcong", "proplay"])
def test_observations_and_moves_survive_pickling(name: str) -> None:
    # The server's bot workers (other processes) receive an observation and the legal
    # moves by pickle, with the engine compiled or not.
    game = Game(name, seed=f"pickle-{name}")
    for _ in range(7):
        if game.phase == "play":
            game.play(game.legal_moves()[0])
    obs = observe(game, game.turn)
    legal = game.legal_plays()
    again_obs, again_legal = pickle.loads(pickle.dumps((obs, legal)))
    assert again_obs == obs and again_legal == legal
    assert [m.top_id for m in again_legal] == [m.top_id for m in legal]


def test_observe_checks_the_seat() -> None:
    with pytest.raises(ValueError, match="seat must be 0-3"):
        observe(Game("standard", seed=1), 4)


def test_exchanged_cards_are_seen_by_the_two_seats_only() -> None:
    rules = Rules.preset("pang", trading="san-jose")
    hands = ["4s 5s 6s 7s Ks", "3s 8c 9c Ac 2d", "3c 4c 10h Jh Qh", "3d 5d 6d Kd 2s"]
    game = Game(rules, hands=hands, previous_finish=[2, 0, 3, 1], leader=2)
    game.play("3c 4c")  # the winner (seat 2) gives two to the loser (seat 1)
    game.play("4s")  # second (seat 0) gives one to third (seat 3)
    seen = {seat: [a.seat for a in observe(game, seat).history] for seat in range(4)}
    assert seen == {0: [0], 1: [2], 2: [2], 3: [0]}
    # Seat 3's view cannot tell which two cards seat 2 gave.
    twin_hands = ["4s 5s 6s 7s Ks", "3s 8c 9c Ac 2d", "3c 4c 10h Jh Qh", "3d 5d 6d Kd 2s"]
    twin = Game(rules, hands=twin_hands, previous_finish=[2, 0, 3, 1], leader=2)
    twin.play("10h Jh")
    twin.play("4s")
    assert observe(twin, 3) == observe(game, 3)
    assert observe(twin, 1) != observe(game, 1)


def test_trade_offers_show_cards_to_the_two_traders_only() -> None:
    rules = Rules.preset("vietcong", trading="mutual")
    game = Game(rules, hands=["3s 4s 5s 9h", "6c 7c 8c Kd", "3d Jd Qd 2h", "4h 6h 10h Ac"])
    game.offer_trade(2, "9h", "2h")
    game.accept_trade()
    for seat in (0, 2):
        offer = observe(game, seat).trades[0]
        assert offer.give == mask_of(parse_cards("9h")) and offer.take == mask_of(parse_cards("2h"))
    for seat in (1, 3):
        offer = observe(game, seat).trades[0]
        assert (offer.proposer, offer.partner, offer.accepted) == (0, 2, True)
        assert offer.give == 0 and offer.take == 0


def test_a_game_rebuilt_from_an_observation_plays_on_identically() -> None:
    game = Game("akita", seed=3)
    for i in range(40):
        if game.is_over:
            break
        obs = observe(game, game.turn)
        rebuilt = Game.from_state(obs, rules=obs.rules, hands=game.hand_masks)
        assert rebuilt.legal_moves() == game.legal_moves()
        assert observe(rebuilt, game.turn).pile == obs.pile
        move = game.legal_moves()[i % len(game.legal_moves())]
        game.play(move)
        rebuilt.play(move)
        assert rebuilt.turn == game.turn and rebuilt.hand_masks == game.hand_masks


def test_card_debt_gives_are_seen_by_the_two_seats_only() -> None:
    # 004: "The person receiving the cards can return any card of their choice to player
    # from which it came." Seat 0 owes seat 1 a 2 and picks it; seat 1 gives one back.
    rules = Rules.preset("standard", chop_debts="stacking", debt_card="any-two")
    hands = ["3s 2s 2h 9d", "4c 5c 6c 7c", "3d 4d 5d 6d", "3h 4h 5h 6h"]
    game = Game(rules, hands=hands, debts=[CardDebt(0, 1, 1, "chopped last")])
    assert game.exchange_receiver(0) == 1
    game.play("2h")
    assert game.exchange_receiver(1) == 0
    game.play("7c")
    assert game.phase == "play" and game.give_receivers == (1, 0)
    seen = {seat: [a.seat for a in observe(game, seat).history] for seat in range(4)}
    assert seen == {0: [0, 1], 1: [0, 1], 2: [], 3: []}


# --- hidden card counts (004: "When requested, a player must reveal the number of cards in
# his or her hand.") -------------------------------------------------------------------------
HIDDEN = [
    Rules.preset("standard", hidden_counts=True),
    Rules.preset("lu", players=3, hidden_counts=True),  # 17 each, the leader takes the spare
    Rules.preset("pang", trading="san-jose", hidden_counts=True),  # gives hidden from two seats
    Rules.preset("pike", players=2, hidden_counts=True),  # hands set aside
]


@pytest.mark.parametrize("rules", HIDDEN, ids=lambda r: r.code())
def test_hidden_counts_show_only_as_asked_and_tracked_counts_are_exact(rules: Rules) -> None:
    n = rules.players
    answers_seen = 0
    for seed in range(5):
        rng = random.Random(seed)
        previous = rng.sample(range(n), n) if rules.trading == "san-jose" else None
        game = Game(rules, seed=seed, previous_finish=previous)
        while True:
            true = tuple(game.cards_left(s) for s in range(n))
            if game.phase == "play" and rng.random() < 0.4:
                asker, asked = rng.sample(range(n), 2)
                assert game.ask_count(asker, asked) == true[asked]
            for observer in range(n):
                obs = observe(game, observer)
                assert obs.asks == tuple(
                    a._replace(at=a.at - (len(game.history) - len(obs.history))) for a in game.asks
                )
                assert obs.tracked_counts() == true
                for seat, shown in enumerate(obs.card_counts):
                    if game.is_over or seat == observer or seat in game.finish_order:
                        assert shown == true[seat]
                    elif shown is not None:
                        # Only an answer that still stands: the seat has not played since.
                        last = [a for a in game.asks if a.seat == seat][-1]
                        assert shown == last.cards == true[seat]
                        assert all(
                            a.seat != seat or (isinstance(a, Action) and a.move.is_pass)
                            for a in game.history[last.at :]
                        )
                        answers_seen += 1
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
    assert answers_seen > 20  # not vacuous: answers were shown


def test_an_answer_is_public_and_stands_until_the_seat_plays() -> None:
    game = Game(Rules.preset("standard", hidden_counts=True), hands=HANDS)
    assert observe(game, 1).card_counts == (None, 4, None, None)
    assert game.ask_count(2, 0) == 4 and game.turn == 0  # out of turn; the turn stays
    assert [observe(game, s).card_counts[0] for s in range(4)] == [4, 4, 4, 4]
    assert game.ask_count(3, 0) == 4 and len(game.asks) == 1  # still standing: not again
    game.play("3s")
    assert observe(game, 2).card_counts == (None, None, 4, None)
    assert observe(game, 2).asks == (CountAsk(asker=2, seat=0, cards=4, at=0),)
    assert game.ask_count(3, 0) == 3 and game.asks[-1] == CountAsk(3, 0, 3, 1)
    assert observe(game, 1).card_counts == (3, 4, None, None)


def test_asking_is_refused_where_there_is_nothing_to_ask() -> None:
    shown = Game("standard", hands=HANDS)
    with pytest.raises(IllegalMoveError, match="card counts are shown under these rules"):
        shown.ask_count(1, 0)
    assert observe(shown, 1).card_counts == (4, 4, 4, 4) and shown.asks == ()
    game = Game(Rules.preset("standard", hidden_counts=True), hands=HANDS)
    for asker, asked in ((0, 0), (0, 4), (0, -1)):
        with pytest.raises(IllegalMoveError, match=f"seat {asked} cannot be asked") as e:
            game.ask_count(asker, asked)
        assert e.value.reason is not None and e.value.reason.code == "bad_ask"
    with pytest.raises(ValueError, match="asker must be a seat 0-3"):
        game.ask_count(4, 0)
    debts = Game(
        Rules.preset("standard", hidden_counts=True, chop_debts="stacking", debt_card="any-two"),
        hands=["3s 2s 2h 9d", "4c 5c 6c 7c", "3d 4d 5d 6d", "3h 4h 5h 6h"],
        debts=[CardDebt(0, 1, 1, "chopped last")],
    )
    assert debts.phase == "exchange"
    with pytest.raises(IllegalMoveError, match="once play has started"):
        debts.ask_count(2, 0)
    assert game.asks == debts.asks == ()


# Three players, 17 cards each: the one card left over (2h) goes to seat 0, who holds the 3s
# and so is the first leader as dealt (rules.starter_takes_spare).
SPARE_HANDS = [
    "3s 4s 4c 4d 4h 5s 5c 5d 5h 6s 6c 6d 6h 7s 7c 7d 7h",
    "3c 3d 3h 8s 8c 8d 8h 9s 9c 9d 9h 10s 10c 10d 10h Js Jc",
    "Jd Jh Qs Qc Qd Qh Ks Kc Kd Kh As Ac Ad Ah 2s 2c 2d",
]


@pytest.mark.parametrize("trading", ["mutual", "san-jose"])
def test_tracked_counts_give_the_spare_card_to_its_taker_not_to_the_new_leader(
    trading: str,
) -> None:
    """Seat 0 takes the spare card, then trades (or gives) its 3s to seat 1, who so leads
    first. Seat 2, who sees neither hand and no count, still knows who took the spare card
    (the leader while the cards changed hands): seat 0 holds 18 cards, not seat 1."""
    rules = Rules.preset("lu", players=3, hidden_counts=True, trading=trading)
    if trading == "mutual":
        game = Game(rules, hands=SPARE_HANDS)
        assert game.phase == "trading"
        before = observe(game, 2)
        game.offer_trade(1, "3s", "3c")
        game.accept_trade()
        game.play("pass")
        game.play("pass")
    else:
        # Seat 0 won the last game and gives two unwanted cards to seat 1, who lost it.
        game = Game(rules, hands=SPARE_HANDS, previous_finish=[0, 2, 1])
        assert game.phase == "exchange"
        before = observe(game, 2)
        game.play("3s 4s")
    assert before.leader == before.spare_taker == 0  # public before the cards move
    assert game.phase == "play" and game.leader == 1 and game.spare_taker == 0  # type: ignore[comparison-overlap]
    true = (18, 17, 17)
    assert tuple(game.cards_left(s) for s in range(3)) == true
    obs = observe(game, 2)
    assert obs.card_counts == (None, None, 17)
    assert obs.leader == 1 and obs.spare_taker == 0
    assert obs.tracked_counts() == true
    game.play("3s")  # the first lead
    assert observe(game, 2).tracked_counts() == (18, 16, 17)
