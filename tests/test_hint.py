"""Hints: a suggested move with a reason a player understands."""

from __future__ import annotations

import pytest

from tienlen import PASS, Game, Move, parse_cards
from tienlen.observation import observe
from tienlen.players.hint import hint, legal_moves_of


def test_lead_your_lowest_single() -> None:
    game = Game("standard", hands=["3s 8d Kc", "4c 9c 10c", "5d 6h Qd", "7h Jh Ah"], leader=0)
    move, reason = hint(observe(game, 0))
    assert move.cards == parse_cards("3s")
    assert reason == "lead your lowest single 3♠"


def test_chop_the_2_with_your_quad() -> None:
    game = Game("standard", hands=["2s 4c", "8s 8c 8d 8h Jd", "5d 6h Qd", "7h Jh Ah"], leader=0)
    game.play("2s")
    move, reason = hint(observe(game, 1))
    assert isinstance(move, Move) and move.kind == "quad"
    assert reason == "chop the single 2♠ with your quad of 8s"


def test_pass_rather_than_break_up_the_hand() -> None:
    # Every card that beats the K sits in the pair run Q-Q-K-K-A-A (đôi thông): pass.
    game = Game(
        "standard",
        hands=["Ks 3s 4d 9h", "Qc Qd Kc Kh Ac Ad 5c", "5d 6h Qh Jc", "7h Jh 8s 8h"],
        leader=0,
    )
    game.play("Ks")
    move, reason = hint(observe(game, 1))
    assert move == PASS
    assert reason == "pass: nothing worth playing on this pile"


def test_against_one_card_lead_a_pair() -> None:
    game = Game("standard", hands=["6s 6d 9c", "Kh", "4c 7c 8c Qd", "4d 7d 8d Qs"], leader=0)
    move, reason = hint(observe(game, 0))
    assert isinstance(move, Move) and move.kind == "pair"
    assert reason == "an opponent has one card: lead a pair of 6s, not a single"


def test_legal_moves_come_from_the_observation_alone() -> None:
    game = Game("standard", seed=30)
    for _ in range(6):
        game.play(game.legal_moves()[-1])
    obs = observe(game, game.turn)
    assert legal_moves_of(obs) == game.legal_moves()
    with pytest.raises(ValueError, match="this seat's turn"):
        legal_moves_of(observe(game, (game.turn + 1) % 4))


def test_a_hint_reason_is_worded_in_vietnamese_too() -> None:
    game = Game("standard", hands=["2s 4c", "8s 8c 8d 8h Jd", "5d 6h Qd", "7h Jh Ah"], leader=0)
    game.play("2s")
    _, reason = hint(observe(game, 1))
    assert reason.code == "hint_chop"
    assert reason.text("vi") == "chặt lá 2♠ bằng tứ quý 8 của bạn"
    game = Game("standard", hands=["6s 6d 9c", "Kh", "4c 7c 8c Qd", "4d 7d 8d Qs"], leader=0)
    _, reason = hint(observe(game, 0))
    assert reason.text("vi") == "có người chỉ còn một lá: mở vòng bằng đôi 6, đừng đánh lẻ"
    assert reason.to_dict()["params"]["m"]["kind"] == "pair"


def test_every_hint_in_a_game_has_a_hint_code_and_vietnamese_words() -> None:
    game = Game("standard", seed=7)
    seen = set()
    while not game.is_over:
        move, reason = hint(observe(game, game.turn), game.legal_moves())
        assert reason.code.startswith("hint_") and reason.text("en") == reason
        assert reason.text("vi") != reason
        seen.add(reason.code)
        game.play(move)
    assert len(seen) >= 3  # leads, follows and passes: more than one reason
