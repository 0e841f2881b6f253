"""Refusals have stable codes with parameters, worded from one catalogue in English and
Vietnamese (tienlen.reasons), with the English text the engine always gave."""

from __future__ import annotations

import re

import pytest

from tienlen import Game, IllegalMoveError, Rules, parse_cards
from tienlen.combos import describe_kind
from tienlen.debts import CardDebt
from tienlen.game import why_refused
from tienlen.reasons import KINDS, LANGUAGES, REASONS, Reason, kind_param, kind_words

FIELD = re.compile(r"\{(\w+)(?::\w+)?\}")


@pytest.mark.parametrize("code", sorted(REASONS))
def test_every_reason_has_both_languages_with_the_same_parameters(code: str) -> None:
    templates = REASONS[code]
    assert set(templates) == set(LANGUAGES)
    en, vi = (sorted(set(FIELD.findall(templates[lang]))) for lang in ("en", "vi"))
    assert en == vi, code


@pytest.mark.parametrize(
    ("words", "kind", "size", "rank", "top"),
    [
        ("3-card straight", "straight", 3, "", ""),
        ("5-card straight to J♦", "straight", 5, "J", "J♦"),
        ("pair of 7s", "pair", 2, "7", "7♥"),
        ("3-pair run", "pair_run", 6, "", ""),
        ("single 2♥", "single", 1, "2", "2♥"),
        ("2 consecutive quads", "quad_run", 2, "", ""),
    ],
)
def test_kinds_keep_their_english_words(
    words: str, kind: str, size: int, rank: str, top: str
) -> None:
    shown = 3 if kind == "pair_run" else size
    assert kind_words(kind_param(kind, shown, rank, top)) == words
    assert set(KINDS[kind]["plain"]) == set(LANGUAGES)


def test_describe_kind_reads_the_catalogue() -> None:
    assert describe_kind("pair_run", 4) == "4-pair run"
    assert describe_kind("triple", 3, 5) == "triple of 8s"


def refusal(game: Game, cards: str) -> Reason:
    with pytest.raises(IllegalMoveError) as e:
        game.play(cards)
    assert e.value.reason is not None
    assert e.value.why == e.value.reason and why_refused(e.value) is e.value.reason
    if e.value.move is None:
        assert str(e.value) == str(e.value.reason)
    else:  # a move read as one (not cards that form none)
        assert str(e.value) == f"illegal move {str(e.value.move)!r}: {e.value.reason}"
    return e.value.reason


def test_the_first_lead_must_include_the_three_of_spades() -> None:
    # standard: "the player holding 3♠ must lead it" (the first play includes it).
    game = Game("standard", hands=["3s 4s 5d 9h", "6c 7c", "8d 2h", "Kd Ks"])
    r = refusal(game, "9h")
    assert (r.code, r.params) == ("first_include", {"card": "3♠"})
    assert str(r) == "the first play must include 3♠"
    assert r.text("vi") == "nước đầu tiên phải có 3♠"


def test_a_pair_cannot_beat_a_single_and_a_lower_single_cannot_either() -> None:
    game = Game("standard", hands=["3s 9h", "6c 6d 4c", "3c 8d", "Kd Ks"])
    game.play("3s")
    r = refusal(game, "6c 6d")
    assert r.code == "same_kind"
    assert str(r) == "a single can only be beaten by a higher single"
    assert r.text("vi") == "rác chỉ chặn được bằng rác cao hơn"
    game.play("4c")
    r = refusal(game, "3c")
    assert (r.code, str(r)) == ("lower", "3♣ is lower than 4♣: play a higher single")
    assert r.text("vi") == "3♣ thấp hơn 4♣: hãy đánh rác cao hơn"


def test_cards_not_held_and_no_combination() -> None:
    game = Game("standard", hands=["3s 4s 5d 9h", "6c 7c", "8d 2h", "Kd Ks"])
    assert refusal(game, "3s 4s 5s").code == "not_held"
    r = refusal(game, "3s 9h")
    assert r.code == "not_combination"
    assert r.text("vi") == "'3s 9h' không phải một bộ hợp lệ theo luật standard"


@pytest.mark.parametrize("seed", range(6))
def test_every_refusal_in_a_game_has_a_code(seed: int) -> None:
    game = Game("standard", seed=seed)
    while not game.is_over:
        legal = game.legal_moves()
        hand = game.hands[game.turn]
        for card in hand:
            move = parse_cards(card.ascii())
            if not any(m.cards == tuple(move) for m in legal):
                why = game.why_illegal(move)
                assert isinstance(why, Reason), why
                assert why.text("vi") != str(why)
        game.play(legal[-1] if len(legal) > 1 else legal[0])


def test_a_debtor_giving_the_wrong_number_is_told_how_many_to_pay() -> None:
    # 004: "Any 2": the debtor picks the 2s it pays; its creditor then gives back as many.
    rules = Rules.preset("standard", chop_debts="stacking", debt_card="any-two")
    hands = ["3s 2s 2c 2d", "3c 4c 5c 6c", "3d 4d 5d 6d", "3h 4h 5h 6h"]
    game = Game(rules, hands=hands, debts=[CardDebt(0, 1, 2, "chopped")])
    assert game.phase == "exchange" and game.turn == 0
    r = refusal(game, "2s")
    assert (r.code, r.params) == ("debt_count", {"count": 2})
    assert str(r) == "give exactly 2 cards to pay the card debt"
    assert r.text("vi") == "hãy đưa đúng 2 lá để trả nợ bài"
    assert refusal(game, "2s 2c 2d").code == "debt_count"
    game.play("2s 2c")
    # The creditor gives back: the words of a give-back, not of a debt.
    assert game.turn == 1
    r = refusal(game, "3c")
    assert (r.code, str(r)) == ("give_count", "give exactly 2 cards back")
