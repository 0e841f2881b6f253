"""Move notation: the one reader (``parse_move``) and writer (``format_move``) that the game,
records, the bot protocol and the apps share."""

from __future__ import annotations

import pytest

from tienlen import (
    PASS,
    CardParseError,
    Game,
    Give,
    IllegalMoveError,
    Move,
    MoveParseError,
    Rules,
    format_move,
    parse_give,
    parse_move,
)
from tienlen.combos import parse_choice
from tienlen.observation import observe
from tienlen.players.base import Budget
from tienlen.players.registry import make_bot

STANDARD = Rules.preset("standard")


@pytest.mark.parametrize("word", ["pass", "PASS", " Pass ", "p", "P", "-"])
def test_every_pass_word_reads_as_the_pass(word: str) -> None:
    assert parse_move(word, STANDARD) is PASS


def test_the_pass_is_written_pass() -> None:
    assert format_move(PASS) == "pass"
    assert format_move(PASS, ascii=True) == "pass"
    assert str(PASS) == "pass"


def test_cards_are_written_lowest_first_in_symbols_or_letters() -> None:
    straight = parse_move("5d 3s 4s", STANDARD)
    assert straight.kind == "straight"
    assert format_move(straight) == "3♠ 4♠ 5♦" == str(straight)
    assert format_move(straight, ascii=True) == "3s 4s 5d"
    assert parse_move("3♠ 4♠ 5♦", STANDARD) == straight


def test_cards_that_form_no_combination_are_refused_with_the_input_quoted() -> None:
    with pytest.raises(MoveParseError, match="'3s 5d' is not a combination under the standard"):
        parse_move("3s 5d", STANDARD)
    with pytest.raises(MoveParseError, match="no cards in ''"):
        parse_move("", STANDARD)
    with pytest.raises(CardParseError, match="1x"):
        parse_move("3s 1x", STANDARD)


def test_a_long_input_is_cut_in_the_message() -> None:
    text = "3s 5d 7h 9c Jd Ks 2h 4c 6d 8h 10s Qc Ad 3h 5s 7c 9d Jh Kc 2s 4h"
    assert len(text) > 60
    with pytest.raises(MoveParseError, match=r"^'3s 5d 7h .*\.\.\.' is not") as refused:
        parse_move(text, STANDARD)
    assert text not in str(refused.value)


def test_a_give_takes_any_cards_and_is_no_move() -> None:
    give = parse_give("9h 3s")
    assert isinstance(give, Give) and not isinstance(give, Move)
    assert format_move(give, ascii=True) == "3s 9h" and str(give) == "3♠ 9♥"
    assert repr(give) == "Give.of('3s 9h')" and eval(repr(give)) == give
    assert give != Move.of("single", "3s") and give == Give.of("3s 9h")
    assert parse_choice("3s 9h", STANDARD, exchange=True) == give
    assert parse_choice("pass", STANDARD, exchange=True) is PASS
    with pytest.raises(MoveParseError):
        parse_choice("3s 9h", STANDARD, exchange=False)
    with pytest.raises(MoveParseError, match="no cards"):
        parse_give("")
    with pytest.raises(ValueError, match="no move kind 'give'"):
        Move.of("give", "3s 9h")


@pytest.mark.parametrize("name", ["standard", "proplay", "double-deck-13"])
def test_every_legal_move_of_a_game_reads_back_from_its_notation(name: str) -> None:
    rules = Rules.preset(name)
    game = Game(rules, seed=5)
    bot = make_bot("greedy")
    checked = 0
    while not game.is_over:
        legal = game.legal_moves()
        for move in legal:
            for ascii in (False, True):
                assert parse_move(format_move(move, ascii=ascii), rules) == move
                checked += 1
        game.play(bot.choose(observe(game, game.turn), legal, Budget()))
    assert checked > 50


def test_the_game_reads_moves_with_the_same_notation() -> None:
    game = Game("standard", hands=["3s 4s 5d 9h", "6c 7c 8d", "8s 2h", "Kd Ks"], leader=0)
    assert game.play("3s 4s 5d") == parse_move("3s 4s 5d", STANDARD)
    assert game.play("-") is PASS
    with pytest.raises(IllegalMoveError, match="'8s 2h' is not a combination"):
        game.play("8s 2h")
