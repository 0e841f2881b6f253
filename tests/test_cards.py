"""Cards: notation (parse / format round trips), errors that quote the input, ordering."""

from __future__ import annotations

import pickle

import pytest

from tienlen import RANKS, SUITS, Card, CardParseError, deck, format_cards, parse_cards
from tienlen.cards import cards_of_mask, highest_cards, mask_of, rank_counts


@pytest.mark.parametrize("card", deck(2), ids=str)
def test_every_card_round_trips_through_both_notations(card: Card) -> None:
    assert Card.parse(str(card)) is card
    assert Card.parse(card.ascii()) is card
    assert Card(card.rank, card.suit, card.copy) is card
    assert Card.from_id(card.id) is card


@pytest.mark.parametrize(
    ("text", "rank", "suit", "copy"),
    [
        ("3s", "3", "♠", 0),
        ("3♠", "3", "♠", 0),
        ("10h", "10", "♥", 0),
        ("Th", "10", "♥", 0),
        ("tH", "10", "♥", 0),
        ("qD", "Q", "♦", 0),
        ("Ac", "A", "♣", 0),
        ("2♥", "2", "♥", 0),
        ("  Jc ", "J", "♣", 0),
        ("3s'", "3", "♠", 1),
        ("K♦'", "K", "♦", 1),
        ("5♡", "5", "♥", 0),
        ("5♤", "5", "♠", 0),
    ],
)
def test_parse_reads_the_usual_spellings(text: str, rank: str, suit: str, copy: int) -> None:
    card = Card.parse(text)
    assert (RANKS[card.rank], SUITS[card.suit], card.copy) == (rank, suit, copy)


def test_str_and_ascii_forms() -> None:
    assert str(Card.parse("10h")) == "10♥"
    assert Card.parse("10h").ascii() == "10h"
    assert str(Card.parse("3s'")) == "3♠'"
    assert Card.parse("3s'").ascii() == "3s'"
    assert repr(Card.parse("Qd")) == "Card.parse('Qd')"
    assert eval(repr(Card.parse("Qd'"))) is Card.parse("Qd'")


@pytest.mark.parametrize("text", ["1h", "3x", "", "s", "11s", "3", "Zs", "3ss", "3s''", "'"])
def test_bad_cards_raise_and_quote_the_input(text: str) -> None:
    with pytest.raises(CardParseError) as info:
        Card.parse(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_parse_cards_and_format_cards() -> None:
    cards = parse_cards("3s, 4s 5d  10h")
    assert [str(c) for c in cards] == ["3♠", "4♠", "5♦", "10♥"]
    assert format_cards(cards) == "3♠ 4♠ 5♦ 10♥"
    assert format_cards(cards, ascii=True) == "3s 4s 5d 10h"
    assert parse_cards(format_cards(cards)) == cards
    assert parse_cards("") == ()
    assert format_cards(()) == ""


def test_parse_cards_errors_quote_the_input() -> None:
    with pytest.raises(CardParseError, match=r"'3s 3s'"):
        parse_cards("3s 3s")
    with pytest.raises(CardParseError, match=r"'9z'"):
        parse_cards("3s 9z 4d")
    # The two copies of one card are different cards.
    assert len(parse_cards("3s 3s'")) == 2


def test_order_is_rank_then_suit_then_copy() -> None:
    ordered = parse_cards("3s 3c 3d 3h 4s 9h 10s K♥ As Ah 2s 2h")
    assert sorted(reversed(ordered)) == list(ordered)
    assert Card.parse("10s") > Card.parse("9h")  # rank first
    assert Card.parse("7h") > Card.parse("7s")  # then suit
    assert Card.parse("7s") < Card.parse("7s'") < Card.parse("7c")  # then the deck copy
    assert min(deck()) is Card.parse("3s") and max(deck()) is Card.parse("2h")
    assert max(deck(2)) is Card.parse("2h'")
    assert Card.parse("8s") >= Card.parse("8s") and Card.parse("8s") <= Card.parse("8s")


def test_ids_follow_strength() -> None:
    cards = deck(2)
    assert [c.id for c in cards] == list(range(104))
    assert list(cards) == sorted(cards)
    assert all(c.bit == 1 << c.id for c in cards)


def test_decks() -> None:
    assert len(deck()) == 52 and len(set(deck())) == 52
    assert len(deck(2)) == 104 and len(set(deck(2))) == 104
    assert all(c.copy == 0 for c in deck())
    with pytest.raises(ValueError, match="decks must be 1 or 2"):
        deck(3)


def test_card_constructor_checks_its_arguments() -> None:
    assert Card(0, 0) is Card.parse("3s")
    assert Card(12, 3, 1) is Card.parse("2h'")
    for args in ((13, 0), (0, 4), (0, 0, 2), (-1, 0)):
        with pytest.raises(ValueError, match="no such card"):
            Card(*args)


def test_card_properties() -> None:
    c = Card.parse("J♦'")
    assert (c.rank, c.suit, c.copy) == (RANKS.index("J"), 2, 1)
    assert c.is_red and not Card.parse("Jc").is_red
    assert Card.parse("Jh").is_red and not Card.parse("Js").is_red


def test_cards_hash_pickle_and_intern() -> None:
    c = Card.parse("9c")
    assert pickle.loads(pickle.dumps(c)) is c
    assert {c: 1}[Card.parse("9♣")] == 1
    assert len({Card.parse("9c"), Card.parse("9♣"), Card.parse("9c'")}) == 2


def test_masks() -> None:
    cards = parse_cards("3s 5d 5h 2h 2h'")
    mask = mask_of(cards)
    assert mask.bit_count() == 5
    assert cards_of_mask(mask) == tuple(sorted(cards))
    assert cards_of_mask(0) == ()
    counts = rank_counts(mask)
    assert counts[0] == 1 and counts[2] == 2 and counts[12] == 2 and sum(counts) == 5
    assert mask_of(deck(2)) == (1 << 104) - 1


def test_highest_cards() -> None:
    hand = mask_of(parse_cards("3s 9h 2c Kd"))
    assert highest_cards(hand, 2) == mask_of(parse_cards("2c Kd"))
    assert highest_cards(hand, 9) == hand  # fewer held: all of them
    assert highest_cards(hand, 0) == 0
